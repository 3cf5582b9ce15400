/* SPDX-License-Identifier: MIT */
/*
 * thread_stop_ptrace.c - stop-the-world by ptrace, where it is allowed:
 * no signal handler runs in the stopped threads, so their system calls
 * resume as if nothing happened. The signal way (thread_stop.c) runs one,
 * and the kernel never restarts some calls after a handler: pause() and
 * sigsuspend() return, nanosleep and poll return early with EINTR - a
 * thread waiting in pause() for good left its loop at the first live
 * report.
 *
 * How (as LeakSanitizer stops the world): a helper task shares our memory
 * but is a process of its own (clone without CLONE_THREAD; a thread may
 * not trace its own group), with every signal blocked and no exit signal
 * (the program's wait() cannot reap it: it is a "clone" child, seen only
 * with __WALL). It seizes each thread of /proc/PID/task but ours and our
 * internal ones, interrupts it (PTRACE_INTERRUPT: no SIGSTOP is sent) and
 * reads its registers; re-reads the list until nothing new shows up;
 * tells us; and on our word detaches them all and exits. A thread caught
 * inside a system call restarts it on detach: no handler ran.
 *
 * The helper has no TLS of its own (it runs on our thread's), so it makes
 * its system calls itself: no errno, no libc.
 *
 * A process that changed its credentials (a server's worker after
 * setuid) is not dumpable, and no task without CAP_SYS_PTRACE may attach
 * to it - the helper neither: it is made dumpable for the stop and put
 * back after it, as LeakSanitizer does (another process of the same user
 * could attach meanwhile, for as long as the stop lasts). Without it the
 * signal way ran there, and each live report of an nginx worker broke its
 * epoll_wait with EINTR (an "[info] epoll_wait() failed" line in its log).
 *
 * Not used, and the signal way taken instead: under seccomp (a filter may
 * kill on ptrace), when a thread cannot be seized (Yama, a debugger or
 * strace already attached, no permission), or when the helper cannot be
 * made. LEAKPROF_OPTIONS has no switch for it: the two ways give the
 * same report.
 * Context: COLD (the leak scan, guard held).
 */
#include "preload/life/thread_stop_ptrace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "preload/life/seccomp_state.h"
#include "preload/life/root_dir.h"

#if defined(__x86_64__)

#define HELPER_STACK (64 * 1024)

enum { PH_GO, PH_STOPPED, PH_REFUSED, PH_RESUME, PH_DONE };

static struct {
    unsigned int phase; /* futex word */
    pid_t pid, self, helper;
    size_t n;
    struct lp_stopped_thread *slots;
    size_t cap;
    void *stack;
    bool undumpable; /* made dumpable for the stop: put back after it */
} job;


/* ---- the helper's system calls (no errno: raw) ---------------------- */

static long raw6(long nr, long a, long b, long c, long d, long e, long f)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;

    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
                       "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
#define RAW(nr, a, b, c, d) raw6((nr), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* Dumpable while the helper works (see above); false when it cannot be. */
static void dumpable_begin(void)
{
    job.undumpable = raw6(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0, 0) == 0 &&
                     raw6(SYS_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0, 0) == 0;
}

static void dumpable_end(void)
{
    if (job.undumpable)
        (void)raw6(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0, 0);
    job.undumpable = false;
}

static void raw_nap(void)
{
    struct timespec ts = {0, 50 * 1000};

    RAW(SYS_nanosleep, &ts, 0, 0, 0);
}

static uint64_t raw_now_ms(void)
{
    struct timespec ts;

    RAW(SYS_clock_gettime, CLOCK_MONOTONIC, &ts, 0, 0);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void set_phase(unsigned int p)
{
    lp_store_release(&job.phase, p);
    RAW(SYS_futex, &job.phase, FUTEX_WAKE, 1 << 30, 0);
}

/* Seize and interrupt tid; 1 when it is ours now, 0 when it is gone, -1
 * when it may not be traced. */
static int seize(pid_t tid)
{
    long r = RAW(SYS_ptrace, PTRACE_SEIZE, tid, 0, 0);

    if (r == -ESRCH)
        return 0;
    if (r < 0)
        return -1;
    if (RAW(SYS_ptrace, PTRACE_INTERRUPT, tid, 0, 0) < 0)
        return 0;
    return 1;
}

/* Wait until tid is in a ptrace stop and take its registers; a signal
 * that arrives meanwhile is let through (its handler runs, as it would
 * have), and the interrupt stays pending. */
static void settle(struct lp_stopped_thread *s, uint64_t deadline)
{
    struct user_regs_struct r;
    int status;

    for (;;) {
        long w = RAW(SYS_wait4, s->tid, &status, __WALL | WNOHANG, 0);

        if (w == 0) {
            if (raw_now_ms() >= deadline)
                return; /* not stopped in time (uninterruptible sleep) */
            raw_nap();
            continue;
        }
        if (w < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
            s->state = 0; /* gone */
            return;
        }
        if (WIFSTOPPED(status) && (status >> 16) == 0 &&
            WSTOPSIG(status) != SIGSTOP && WSTOPSIG(status) != SIGTRAP) {
            /* A signal on its way to the thread: deliver it. */
            RAW(SYS_ptrace, PTRACE_CONT, s->tid, 0, WSTOPSIG(status));
            continue;
        }
        break;
    }
    if (RAW(SYS_ptrace, PTRACE_GETREGS, s->tid, 0, &r) < 0)
        return;
    s->regs[0] = r.r8;
    s->regs[1] = r.r9;
    s->regs[2] = r.r10;
    s->regs[3] = r.r11;
    s->regs[4] = r.r12;
    s->regs[5] = r.r13;
    s->regs[6] = r.r14;
    s->regs[7] = r.r15;
    s->regs[8] = r.rdi;
    s->regs[9] = r.rsi;
    s->regs[10] = r.rbp;
    s->regs[11] = r.rbx;
    s->regs[12] = r.rdx;
    s->regs[13] = r.rax;
    s->regs[14] = r.rcx;
    s->regs[15] = r.rsp;
    s->sp = r.rsp;
    s->answered = true;
}

/* tid has left (a zombie main thread after pthread_exit): not seized. */
static bool task_gone(long dir, pid_t tid)
{
    char path[16], buf[512];
    long fd, n;

    lp_task_stat_path(path, tid);
    fd = RAW(SYS_openat, dir, path, O_RDONLY, 0);
    if (fd < 0)
        return true; /* reaped meanwhile */
    n = RAW(SYS_read, fd, buf, sizeof(buf), 0);
    RAW(SYS_close, fd, 0, 0, 0);
    return n > 0 && lp_task_stat_gone(buf, n);
}

/* One pass over /proc/PID/task: seize what is new. Returns how many were
 * added, or -1 when one may not be traced. */
static long seize_new(const char *path, uint64_t deadline)
{
    char buf[4096];
    const char *rel = path;
    int dir = lp_root_dir(&rel); /* a chrooted program: the start-up root */
    long fd = RAW(SYS_openat, dir, rel, O_RDONLY | O_DIRECTORY, 0);
    long added = 0, n;

    if (fd < 0)
        return -1;
    while ((n = RAW(SYS_getdents64, fd, buf, sizeof(buf), 0)) > 0) {
        long off = 0;

        while (off < n) {
            struct lp_dirent64 *d = (void *)(buf + off);
            pid_t tid = lp_task_tid(d->name);
            int rc;

            off += d->reclen;
            if (tid <= 0 || tid == job.self ||
                lp_stopped_has(job.slots, job.n, tid) ||
                lp_threads_is_internal(tid) || task_gone(fd, tid))
                continue;
            if (job.n == job.cap) {
                RAW(SYS_close, fd, 0, 0, 0);
                return added; /* beyond the slots: left running */
            }
            rc = seize(tid);
            if (rc < 0) {
                RAW(SYS_close, fd, 0, 0, 0);
                return -1;
            }
            if (rc == 0)
                continue;
            memset(&job.slots[job.n], 0, sizeof(job.slots[job.n]));
            job.slots[job.n].tid = tid;
            job.slots[job.n].state = 1; /* seized */
            settle(&job.slots[job.n], deadline);
            job.n++;
            added++;
        }
    }
    RAW(SYS_close, fd, 0, 0, 0);
    return added;
}

static void detach_all(void)
{
    size_t i;

    for (i = 0; i < job.n; i++)
        if (job.slots[i].state)
            RAW(SYS_ptrace, PTRACE_DETACH, job.slots[i].tid, 0, 0);
}

static int helper(void *arg)
{
    char path[32] = "/proc/";
    int nd, round;
    uint64_t deadline;

    (void)arg;
    /* Should our thread die while we hold the others: go too (detached
     * by the kernel), never left behind sharing the memory. */
    RAW(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0);
    nd = lp_put_tid(path + 6, job.pid);
    memcpy(path + 6 + nd, "/task", 6);
    deadline = raw_now_ms() + LP_THREADS_STOP_TIMEOUT_MS;
    /* Threads may start threads until they are stopped. */
    for (round = 0; round < 64; round++) {
        long added = seize_new(path, deadline);

        if (added < 0) {
            detach_all();
            set_phase(PH_REFUSED);
            return 0;
        }
        if (added == 0 && round > 0)
            break;
    }
    set_phase(PH_STOPPED);
    while (lp_load_acquire(&job.phase) != PH_RESUME)
        RAW(SYS_futex, &job.phase, FUTEX_WAIT, PH_STOPPED, 0);
    detach_all();
    set_phase(PH_DONE);
    return 0;
}

/* Wait while the phase is p; false if the helper died meanwhile (the
 * kernel then detached whatever it held). */
static bool wait_phase_beyond(unsigned int p)
{
    struct timespec tick = {0, 100 * 1000 * 1000};
    unsigned int now;
    int status;

    while ((now = lp_load_acquire(&job.phase)) == p) {
        syscall(SYS_futex, &job.phase, FUTEX_WAIT, now, &tick, NULL, 0);
        if (lp_load_acquire(&job.phase) == p &&
            waitpid(job.helper, &status, __WALL | WNOHANG) == job.helper) {
            job.helper = 0;
            return false;
        }
    }
    return true;
}

static void reap_helper(void)
{
    int status;

    if (job.helper == 0)
        return;
    while (waitpid(job.helper, &status, __WALL) < 0 && errno == EINTR)
        ;
    job.helper = 0;
}

long lp_threads_stop_ptrace(struct lp_stopped_thread *slots, size_t cap)
{
    sigset_t all, old;
    long pid;

    if (lp_seccomp_mode() != 0)
        return -1;
    if (job.stack == NULL) {
        void *p = mmap(NULL, HELPER_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

        if (p == MAP_FAILED)
            return -1;
        job.stack = p;
    }
    job.pid = getpid();
    job.self = (pid_t)syscall(SYS_gettid);
    job.slots = slots;
    job.cap = cap;
    job.n = 0;
    job.phase = PH_GO; /* the helper starts at once */
    dumpable_begin();
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid = clone(helper, (char *)job.stack + HELPER_STACK,
                CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pid <= 0) {
        dumpable_end();
        return -1;
    }
    job.helper = (pid_t)pid;
    if (!wait_phase_beyond(PH_GO)) {
        dumpable_end();
        return -1; /* the helper died: nothing is held */
    }
    if (lp_load_acquire(&job.phase) == PH_REFUSED) {
        reap_helper();
        dumpable_end();
        return -1;
    }
    return (long)job.n;
}

bool lp_threads_resume_ptrace(void)
{
    if (job.helper == 0)
        return false;
    set_phase(PH_RESUME);
    if (wait_phase_beyond(PH_RESUME))
        reap_helper();
    dumpable_end();
    return true;
}

#else /* not x86-64: the signal way only */

long lp_threads_stop_ptrace(struct lp_stopped_thread *slots, size_t cap)
{
    (void)slots;
    (void)cap;
    return -1;
}

bool lp_threads_resume_ptrace(void) { return false; }

#endif
