/* SPDX-License-Identifier: MIT */
/*
 * freeres_child.c - what glibc's __libc_freeres would free, learned from a
 * copy of the process.
 *
 * Valgrind runs __libc_freeres before its leak search even when other
 * threads were still running at exit (it has stopped them for good by
 * then), so its figures count the C library's own long-lived memory as
 * freed: loaded locale data, gettext's domains and aliases, iconv's
 * tables, the loader's records of dlopened objects, stdio buffers. Here
 * running it is not safe while another thread may be inside setlocale()
 * or localtime() using exactly that memory, so the exit used to count
 * only what it could find itself (stdio buffers, finished threads' DTVs):
 * xz -T2, which exits with its two workers waiting, showed 175 blocks in
 * use at exit where Memcheck shows 30.
 *
 * So a copy of the process runs it: a clone of the exiting thread (a raw
 * system call: no atfork handler of the program runs, and its exit sends
 * no SIGCHLD the program could see or reap). The copy closes every
 * descriptor (a stdio flush or a seek of a shared file offset goes
 * nowhere), drops its streams' pending output, blocks every signal, takes
 * no core file, allocates from a bump heap of its own (exit_heap.c), and
 * runs __libc_freeres with every free recorded into shared memory instead
 * of done. The exit then counts those blocks as freed, and the memory
 * stays where the program's threads may still use it.
 *
 * Bounded: a copy that sleeps (on a lock a thread of the parent held at
 * the moment of the copy, which stays held in the copy: 1 exit in 12 of
 * busy_threads_exit, whose threads loop in localtime and getpwuid) or
 * does not finish within CHILD_MS is killed, and nothing is counted. A
 * block freed by a running thread of the parent meanwhile, and its
 * address handed out again, would be counted once too often: only for
 * memory the C library owns, in the moments of the exit.
 * Context: COLD (the exit, guard not held); the child's recorder runs
 * under the guard in a process of one thread.
 */
#include "preload/life/freeres_child.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "preload/hot/fault.h"
#include "preload/hot/guard.h"
#include "preload/hot/real.h"
#include "preload/hot/track.h"
#include "preload/life/exit_heap.h"
#include "preload/life/root_dir.h"
#include "preload/life/seccomp_state.h"
#include "preload/life/thread_registry.h"

#define CHILD_MS 200
#define MAX_FREES ((size_t)1 << 20) /* 8 MiB of addresses, touched as used */

struct learned {
    uint64_t n;    /* frees seen (may pass MAX_FREES: then some are lost) */
    uint32_t done; /* freeres returned */
    uintptr_t addr[MAX_FREES];
};

static struct learned *shared; /* set before the clone: the child's too */

/* The child's free: recorded, not done (no lock of glibc's is taken). */
static void record_free(void *p)
{
    uint64_t i = shared->n;

    if (i < MAX_FREES)
        shared->addr[i] = (uintptr_t)p;
    shared->n = i + 1;
}

/* glibc's list of open streams (the FILE part of each entry is public). */
extern FILE *_IO_list_all;

/* Nothing left for a flush to write or a sync to seek back: the child's
 * own copies of the streams' pointers. */
static void drop_pending_io(void)
{
    FILE *f;
    unsigned n = 0;

    for (f = _IO_list_all; f && n < 100000; f = f->_chain, n++) {
        f->_IO_write_ptr = f->_IO_write_base;
        f->_IO_read_ptr = f->_IO_read_end;
    }
}

static __attribute__((noreturn)) void child_exit(int code)
{
    for (;;)
        syscall(SYS_exit_group, code); /* not _exit: ours reports */
}

static __attribute__((noreturn)) void child_run(void (*freeres)(void))
{
    sigset_t all;
    struct rlimit none = { 0, 0 };

    sigfillset(&all);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, _NSIG / 8);
    syscall(SYS_prlimit64, 0, RLIMIT_CORE, &none, NULL);
    /* Our hooks only forward from here; and with the guard held our
     * syscall() hook makes the close_range raw, ours included (the
     * program's goes to fs_hooks.c, which keeps ours open). */
    lp_guard_hold_forever();
    if (syscall(SYS_close_range, 0u, ~0u, 0u) != 0)
        child_exit(2); /* cannot be sure nothing is written: learn nothing */
    if (!lp_exit_heap_take())
        child_exit(3);
    lp_store_relaxed(&lp_hot.free, record_free);
    lp_store_release(&lp_real.free, record_free);
    drop_pending_io();
    while (lp_fault(LP_FAULT_FREERES)) /* tests: a copy that never ends */
        ;
    freeres();
    lp_store_release(&shared->done, 1);
    child_exit(0);
}

static long child = -1; /* a copy that finished its work, not reaped */

/* Whether the copy sleeps: it has no descriptor and nothing to wait for,
 * so it sleeps only on a lock that a thread of ours held when it was
 * made, which nobody will release there. */
static bool child_sleeps(long pid)
{
    char buf[512];
    ssize_t n = lp_proc_read_of("", (pid_t)pid, "stat", buf, sizeof(buf));

    return n > 0 && lp_task_stat_state(buf, n) == 'S';
}

bool lp_freeres_learn(void (*freeres)(void))
{
    struct timespec step = { 0, 50 * 1000 };
    long pid;
    int st = 0, asleep = 0;
    uint64_t i, n;
    uint64_t deadline;
    bool ok = false;

    if (!freeres || lp_seccomp_mode() != 0)
        return false; /* a filter may kill the process on clone */
    shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (shared == MAP_FAILED) {
        shared = NULL;
        return false;
    }
    /* Like fork, without its handlers, and with no exit signal. */
    pid = syscall(SYS_clone, 0ul, NULL, NULL, NULL, 0ul);
    if (pid == 0)
        child_run(freeres);
    /* Until it says it is done: its exit (the teardown of a copy of the
     * whole address space, milliseconds) is waited for after the report
     * (lp_freeres_reap). Given up on when it sleeps (twice in a row, a
     * poll apart) or past the deadline. */
    deadline = lp_monotonic_ms() + CHILD_MS;
    while (pid > 0) {
        pid_t r;

        if (lp_load_acquire(&shared->done)) {
            ok = true;
            child = pid;
            break;
        }
        r = waitpid((pid_t)pid, &st, __WCLONE | WNOHANG);
        if (r == (pid_t)pid) {
            ok = lp_load_acquire(&shared->done) != 0;
            break;
        }
        if (r < 0 && errno != EINTR)
            break; /* reaped by someone else: its record is unknown */
        asleep = child_sleeps(pid) ? asleep + 1 : 0;
        if (asleep >= 2 || lp_monotonic_ms() > deadline) {
            syscall(SYS_kill, pid, SIGKILL);
            while (waitpid((pid_t)pid, &st, __WCLONE) < 0 && errno == EINTR)
                ;
            break;
        }
        nanosleep(&step, NULL);
    }
    if (ok) {
        n = shared->n < MAX_FREES ? shared->n : MAX_FREES;
        for (i = 0; i < n; i++)
            lp_track_forget((void *)shared->addr[i]);
    }
    munmap(shared, sizeof(*shared));
    shared = NULL;
    return ok;
}

void lp_freeres_reap(void)
{
    int st;

    if (child > 0)
        while (waitpid((pid_t)child, &st, __WCLONE) < 0 && errno == EINTR)
            ;
    child = -1;
}
