/* SPDX-License-Identifier: MIT */
/*
 * signal.c - snapshot_signal (SIGUSR1) asks for a snapshot; the dumper
 * thread takes it.
 *
 * The handler may interrupt a thread that is inside an allocation and
 * holds a shard lock or the snapshot lock, so it must not lock, allocate
 * or format: it bumps a counter and writes one byte to a pipe (libuv's
 * self-pipe), both listed in signal-safety(7). The dumper thread blocks
 * every signal, holds the guard for good (its own allocations are never
 * tracked), sleeps in read(2) and, per wake-up, writes massif.out.PID.N
 * (N = 1, 2, ...) and a live leak report. Requests that arrive while a
 * dump runs are coalesced into the next one.
 *
 * The handler is installed only over SIG_DFL or SIG_IGN, so a default
 * SIGUSR1 no longer kills the program; a handler the program installs
 * later simply replaces ours (we never reinstall). A program that closes
 * all descriptors may close our pipe and reuse its numbers: the handler
 * checks the write end is still our pipe (fstat, async-signal-safe) before
 * writing, and the dumper falls back to polling the counter.
 * Context: SIGNAL (handler) / COLD (dumper thread, init, fork child).
 */
#include "preload/signal.h"

#include "preload/threads.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preload/config.h"
#include "preload/export.h"
#include "preload/guard.h"
#include "preload/leakcheck.h"
#include "preload/snapshot.h"

static struct {
    int wake_fd[2]; /* read end blocking, write end O_NONBLOCK; CLOEXEC */
    dev_t dev;      /* identity of the write end, checked by the handler */
    ino_t ino;
    unsigned requests;
    unsigned seq; /* N of the last massif.out.PID.N */
    bool installed;
    bool atfork_done;
} sig = { .wake_fd = { -1, -1 } };

static void on_signal(int signo)
{
    int saved_errno = errno;
    char one = 1;
    struct stat st;
    int fd = lp_load_relaxed(&sig.wake_fd[1]);

    (void)signo;
    lp_add_relaxed(&sig.requests, 1);
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == sig.ino &&
        st.st_dev == sig.dev)
        (void)!write(fd, &one, 1); /* EAGAIN: a wake-up is pending */
    errno = saved_errno;
}

static void dump(void)
{
    unsigned n = ++sig.seq;

    (void)lp_snapshot_dump(n);
    lp_leakcheck_run(true);
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

static void *dumper_main(void *arg)
{
    int fd = (int)(intptr_t)arg;
    bool pipe_ok = true;

    lp_guard_hold_forever(); /* this thread's own allocations are untracked */
    lp_threads_self_internal(); /* never stopped, never a root */
    for (;;) {
        if (pipe_ok)
            pipe_ok = wait_pipe(fd);
        if (!pipe_ok) {
            struct timespec ts = { 0, 100 * 1000 * 1000 };

            nanosleep(&ts, NULL);
        }
        if (lp_load_acquire(&lp_state) == LP_STATE_DONE)
            continue; /* exiting: the exit path owns the reports */
        if (lp_xchg_acq_rel(&sig.requests, 0) != 0)
            dump();
    }
    return NULL;
}

static int make_pipe(void)
{
    int fds[2];
    struct stat st;

    if (pipe2(fds, O_CLOEXEC) != 0)
        return -errno;
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

    if (make_pipe() != 0)
        return -1;
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
        close(sig.wake_fd[0]);
        close(sig.wake_fd[1]);
        sig.wake_fd[0] = -1;
        lp_store_release(&sig.wake_fd[1], -1);
        return -1;
    }
    return 0;
}

/* The snapshot lock is a leaf (its holder takes only the arena's
 * spinlock), so taking it before main.c's locks cannot deadlock. */
static void atfork_prepare(void) { lp_snapshot_lock(); }

static void atfork_parent(void) { lp_snapshot_unlock(); }

void lp_signal_init(void)
{
    struct sigaction old, sa;
    bool held = lp_guard_held;
    int signo = lp_config.snapshot_signal;

    if (signo <= 0 || sig.installed)
        return;
    /* pthread_atfork and pthread_create allocate: not the program's. */
    lp_guard_held = true;
    if (!sig.atfork_done) {
        /* Registered after main.c's handlers, so our prepare runs first
         * and the snapshot lock is taken before the table and stack
         * locks; the child side is lp_signal_atfork_child(). */
        pthread_atfork(atfork_prepare, atfork_parent, NULL);
        sig.atfork_done = true;
    }
    if (sigaction(signo, NULL, &old) == 0 &&
        !(old.sa_flags & SA_SIGINFO) &&
        (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN) &&
        start_dumper() == 0) {
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigaction(signo, &sa, NULL) == 0)
            sig.installed = true;
    }
    lp_guard_held = held;
}

void lp_signal_atfork_child(void)
{
    bool held = lp_guard_held;

    lp_snapshot_atfork_child();
    if (!sig.installed)
        return;
    /* The dumper thread did not survive fork and the pipe is shared with
     * the parent: give the child its own of both. */
    lp_guard_held = true;
    if (sig.wake_fd[0] >= 0)
        close(sig.wake_fd[0]);
    if (sig.wake_fd[1] >= 0)
        close(sig.wake_fd[1]);
    sig.wake_fd[0] = -1;
    lp_store_release(&sig.wake_fd[1], -1);
    sig.requests = 0;
    sig.seq = 0;
    (void)start_dumper();
    lp_guard_held = held;
}
