/* SPDX-License-Identifier: MIT */
/*
 * snapshot_signal.c - snapshot_signal (SIGUSR1 by default) asks for a snapshot; the
 * dumper thread takes it.
 *
 * The handler may interrupt a thread that is inside an allocation and
 * holds a shard lock or the snapshot lock, so it must not lock, allocate
 * or format: it bumps a counter and writes one byte to a pipe (libuv's
 * self-pipe), both listed in signal-safety(7). The dumper thread blocks
 * every signal, holds the guard for good (its own allocations are never
 * tracked), sleeps in read(2) and, per wake-up, writes massif.out.PID.N
 * (N = 1, 2, ...) and a live leak report. Requests that arrive while a
 * dump runs are coalesced into the next one. A request the dumper has not
 * served when the process exits or execs (a signal just before the end,
 * or one whose dumper was still to start) is served by the exit, before
 * its own report, or by the exec hook: a snapshot asked for is never
 * lost.
 *
 * The dumper is not started with the process: a thread of ours would make
 * every process multithreaded (glibc's locked allocator paths, unshare -U
 * refused). It starts when the program creates its first thread (then it
 * costs nothing more), or at the first snapshot signal: from the handler
 * itself when the process is single-threaded and the interrupted code is
 * not inside the allocator, fork or our own code (nothing that
 * pthread_create needs can be held then), else at the next allocation.
 *
 * Installed through sigchain.c: a handler the program installs for the
 * same signal keeps the signal as the program's (snapshot_signal.h: only
 * our tagged requests take snapshots then, and those never reach it), and
 * an inherited SIG_IGN is left alone (no snapshots then; the README says
 * so).
 * The pipe's ends live at high descriptor numbers, so the program's own
 * descriptors are numbered as without us, and fd_guard.c keeps the
 * program's close family off them. Should they go all the same (a raw
 * close system call), the handler checks the write end is still our pipe
 * (fstat, async-signal-safe) before writing, and the dumper falls back to
 * polling the counter.
 * Context: SIGNAL (handler) / COLD (dumper thread, init, fork child).
 */
#include "preload/life/snapshot_signal.h"

#include "preload/life/thread_registry.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preload/life/config.h"
#include "preload/massif/export.h"
#include "preload/hot/guard.h"
#include "preload/scan/leakcheck.h"
#include "preload/hot/snapshot.h"
#include "preload/life/fd_guard.h"
#include "preload/life/exit_heap.h"
#include "preload/life/process.h"
#include "preload/life/sigchain.h"
#include "preload/hot/track.h"
#include "report/signame.h"

static struct {
    int wake_fd[2]; /* read end blocking, write end O_NONBLOCK; CLOEXEC */
    dev_t dev;      /* identity of the write end, checked by the handler */
    ino_t ino;
    unsigned requests;
    unsigned seq; /* N of the last massif.out.PID.N */
    bool installed;
    int starting;  /* start_dumper claimed (once per process) */
    bool running;  /* the dumper thread exists */
    int dumping;   /* the dumper is serving requests (set before it takes them) */
    int closed;    /* CLOSED_EXIT or _EXEC: the dumper serves nothing */
    pid_t dumper_tid;
    unsigned left_to_program; /* signals that were the program's alone */
    unsigned *nthreads; /* glibc's __nptl_nthreads, or NULL */
} sig = { .wake_fd = { -1, -1 } };

static int start_dumper(void);

/* Start the dumper now if nothing it needs can be held by this thread. */
static bool start_from_handler(void)
{
    bool held = lp_guard_held;
    int rc;

    if (lp_load_relaxed(&lp_threaded) || held || lp_in_libc != 0 ||
        lp_load_acquire(&lp_state) != LP_STATE_READY)
        return false;
    lp_guard_held = true;
    rc = start_dumper();
    lp_guard_restore(held);
    return rc == 0;
}

static void wake(void)
{
    char one = 1;
    struct stat st;
    int fd = lp_load_relaxed(&sig.wake_fd[1]);

    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == sig.ino &&
        st.st_dev == sig.dev)
        (void)!write(fd, &one, 1); /* EAGAIN: a wake-up is pending */
}

/* A request of ours (leakprof --snapshot): sigqueue()d with our tag. */
static bool tagged(const siginfo_t *si)
{
    return si != NULL && si->si_code == SI_QUEUE &&
           si->si_value.sival_int == LP_SNAPSHOT_TAG;
}

static void on_signal(int signo, siginfo_t *si, void *uc)
{
    int saved_errno = errno;

    if (!tagged(si) && lp_sigchain_program_handles(signo)) {
        /* The program's signal: its handler, nothing of ours. */
        lp_add_relaxed(&sig.left_to_program, 1);
        lp_sigchain_call(signo, si, uc);
        return;
    }
    lp_add_relaxed(&sig.requests, 1);
    if (lp_load_acquire(&sig.running))
        wake();
    else if (!start_from_handler())
        lp_init_request_service(); /* at the next allocation */
    errno = saved_errno;
}

bool lp_signal_warning(char *out, size_t n)
{
    unsigned k = lp_load_relaxed(&sig.left_to_program);
    char name[32];

    if (k == 0)
        return false;
    lp_signal_name(lp_config.snapshot_signal, name, sizeof(name));
    snprintf(out, n,
             "the program handles %s itself: the %u it received went to "
             "its handler only, without a snapshot; 'leakprof --snapshot "
             "PID' takes one",
             name, k);
    return true;
}

static void dump(void)
{
    unsigned n = ++sig.seq;

    (void)lp_snapshot_dump(n);
    lp_leakcheck_live(n);
    lp_export_write(n); /* pprof=, html= as PATH.N */
}

/* Wait for a wake-up; false when the pipe is gone (then poll). */
static bool wait_pipe(int fd)
{
    char buf[64];
    ssize_t n;

    do
        n = read(fd, buf, sizeof(buf));
    while (n < 0 && errno == EINTR);
    return n > 0;
}

#define CLOSE_WAIT_MS 10000

#define CLOSED_EXIT 1
#define CLOSED_EXEC 2 /* reopened if the exec fails */

/*
 * An exit's report or an exec begins: from here on the dumper makes no
 * dump, and one under way ends first (bounded: it must not keep the
 * process). At exit, before glibc's freeres, which unmaps the locale
 * files the dumper's thread-local ctype tables point into (the calling
 * thread's alone are reset): a snapshot being written then crashed the
 * process in snprintf's "%.2f" (timeout(1) given SIGUSR1 while it exited,
 * 1 run in 40), and before the final leak check, which a live one must
 * not overlap. Not waited for from the dumper itself (a fault inside a
 * dump).
 */
static void close_dumper(int why)
{
    struct timespec ms = {0, 1000 * 1000};
    unsigned i;

    __atomic_store_n(&sig.closed, why, __ATOMIC_SEQ_CST);
    if (lp_load_acquire(&sig.dumper_tid) == (pid_t)gettid())
        return;
    for (i = 0; i < CLOSE_WAIT_MS &&
                __atomic_load_n(&sig.dumping, __ATOMIC_SEQ_CST);
         i++)
        nanosleep(&ms, NULL);
}

/* After close_dumper: what is left is served here, our allocations
 * untracked (the guard is free: the callers checked). */
static void serve_pending(void)
{
    lp_guard_held = true;
    if (lp_xchg_acq_rel(&sig.requests, 0) != 0)
        dump();
    lp_guard_restore(false);
}

void lp_signal_close(void) { close_dumper(CLOSED_EXIT); }

void lp_signal_close_and_serve(void)
{
    close_dumper(CLOSED_EXIT);
    serve_pending();
}

static void *dumper_main(void *arg)
{
    int fd = (int)(intptr_t)arg;
    bool pipe_ok = true;

    lp_guard_hold_forever(); /* this thread's own allocations are untracked */
    lp_threads_self_internal(); /* never stopped, never a root */
    lp_store_release(&sig.dumper_tid, (pid_t)gettid());
    for (;;) {
        if (pipe_ok)
            pipe_ok = wait_pipe(fd);
        if (!pipe_ok) {
            struct timespec ts = { 0, 100 * 1000 * 1000 };

            nanosleep(&ts, NULL);
        }
        if (lp_load_acquire(&lp_state) == LP_STATE_DONE)
            continue; /* exiting: the exit path owns the reports */
        /* Against lp_signal_close: each side stores its flag, then reads
         * the other's (sequentially consistent), so either the exit sees
         * this dump and waits for it, or this dump sees the exit and is
         * not made. */
        __atomic_store_n(&sig.dumping, 1, __ATOMIC_SEQ_CST);
        if (!__atomic_load_n(&sig.closed, __ATOMIC_SEQ_CST) &&
            lp_xchg_acq_rel(&sig.requests, 0) != 0)
            dump();
        lp_store_release(&sig.dumping, 0);
    }
    return NULL;
}

static int make_pipe(void)
{
    int fds[2];
    struct stat st;

    if (pipe2(fds, O_CLOEXEC) != 0)
        return -errno;
    /* Keep the low descriptor numbers for the program. */
    fds[0] = lp_fd_guard_lift(fds[0]);
    fds[1] = lp_fd_guard_lift(fds[1]);
    if (fcntl(fds[1], F_SETFL, O_NONBLOCK) != 0 || fstat(fds[1], &st) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -EIO;
    }
    sig.dev = st.st_dev;
    sig.ino = st.st_ino;
    sig.wake_fd[0] = fds[0];
    lp_store_release(&sig.wake_fd[1], fds[1]);
    return 0;
}

static int start_dumper(void)
{
    pthread_attr_t attr;
    pthread_t t;
    sigset_t all, old;
    int rc;

    if (lp_xchg_acq_rel(&sig.starting, 1))
        return lp_load_acquire(&sig.running) ? 0 : -1;
    if (make_pipe() != 0) {
        lp_store_release(&sig.starting, 0);
        return -1;
    }
    /* The thread inherits this mask: it never runs a signal handler. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 1u << 20);
    rc = pthread_create(&t, &attr, dumper_main,
                        (void *)(intptr_t)sig.wake_fd[0]);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        lp_fd_guard_close(&sig.wake_fd[0]);
        lp_fd_guard_close(&sig.wake_fd[1]);
        lp_store_release(&sig.starting, 0);
        return -1;
    }
    /* glibc ends the process when the last of the threads it counts exits
     * (main's pthread_exit, then the last thread returning): ours must not
     * count, or such a program never ends. It never exits, so the count
     * stays right; a fork child starts from 1 again, without it. */
    if (sig.nthreads != NULL)
        __atomic_fetch_sub(sig.nthreads, 1, __ATOMIC_ACQ_REL);
    lp_store_release(&sig.running, true);
    /* Requests made before the pipe existed. */
    if (lp_load_relaxed(&sig.requests))
        wake();
    return 0;
}

void lp_signal_start_dumper(void)
{
    bool held = lp_guard_held;

    if (!sig.installed || lp_load_acquire(&sig.running))
        return;
    lp_guard_held = true;
    (void)start_dumper();
    lp_guard_restore(held);
}

void lp_signal_init(void)
{
    int signo = lp_config.snapshot_signal, rc;
    bool held;

    if (signo <= 0 || sig.installed)
        return;
    /* A close-everything loop in the program leaves the pipe alone. */
    lp_fd_guard_keep(&sig.wake_fd[0]);
    lp_fd_guard_keep(&sig.wake_fd[1]);
    /* glibc's count of its threads (GLIBC_PRIVATE, as long as nptl has
     * been: see start_dumper); dlsym may allocate: ours. */
    held = lp_guard_held;
    lp_guard_held = true;
    sig.nthreads = (unsigned *)dlsym(RTLD_DEFAULT, "__nptl_nthreads");
    lp_guard_restore(held);
    rc = lp_sigchain_install(signo, on_signal, LP_SIGCHAIN_CHAIN, false);
    /* -EPERM: inherited as SIG_IGN, left so; the program's stderr hears
     * nothing of it (every traced process of a build started under
     * `trap '' USR1` would say it), `leakprof --snapshot` says why. */
    if (rc == 0)
        sig.installed = true;
}

/*
 * An exec replaces the process image: a dump under way ends first and a
 * request still pending is served here, or an exec right after the
 * signal lost the snapshot, or killed the dumper half-way (a temporary
 * massif.out.PID.N.tmp.PID left in the directory, the live report
 * missing). Not from a vfork child (its parent's memory), nor where this
 * thread may hold what a dump needs (inside our bookkeeping or glibc's
 * allocator: a handler's exec).
 */
void lp_signal_before_exec(void)
{
    if (!sig.installed || getpid() != lp_process.pid || lp_guard_held ||
        lp_load_acquire(&lp_state) != LP_STATE_READY ||
        lp_allocator_interrupted())
        return;
    close_dumper(CLOSED_EXEC);
    serve_pending();
}

/* The exec failed and the program goes on: snapshots again (unless an
 * exit closed the dumper meanwhile: that stays). */
void lp_signal_exec_failed(void)
{
    int was = CLOSED_EXEC;

    if (getpid() != lp_process.pid ||
        !__atomic_compare_exchange_n(&sig.closed, &was, 0, false,
                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return;
    if (lp_load_acquire(&sig.running) && lp_load_acquire(&sig.requests))
        wake(); /* a request that came while closed */
}

void lp_signal_atfork_child(void)
{
    /* The dumper thread did not survive fork and the pipe is shared with
     * the parent: the child starts its own when it needs one. */
    lp_fd_guard_close(&sig.wake_fd[0]);
    lp_fd_guard_close(&sig.wake_fd[1]);
    sig.requests = 0;
    sig.seq = 0;
    sig.left_to_program = 0;
    sig.starting = 0;
    sig.dumping = 0; /* a dump the parent's dumper was making: not ours */
    sig.closed = 0;
    sig.dumper_tid = 0;
    lp_store_release(&sig.running, false);
}
