/* SPDX-License-Identifier: MIT */
/*
 * thread_stop.c - stop-the-world for the leak scan: every other thread of
 * the process parked in a signal handler, its registers saved, until the
 * scan is done; and the count of the process's other tasks.
 * Context: see thread_registry.h. The stop handler is SIGNAL context: it
 * touches only atomics, its own slot, and raw syscalls (gettid, futex).
 *
 * ptrace first (thread_stop_ptrace.c): the stopped threads' system calls
 * resume untouched. Where ptrace may not be used (seccomp, Yama, a
 * debugger attached), a signal: a handler parked on a futex is enough to
 * freeze a thread's registers and stack; the price is that a few syscalls
 * the kernel never restarts (pause, nanosleep, poll with a timeout, ...)
 * return EINTR in the stopped thread, as for any signal.
 */
#include "preload/life/thread_registry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "preload/life/thread_stop_ptrace.h"
#include "preload/lp.h"
#include "preload/life/root_dir.h"

/* Slot states: the handshake between the scanner and one handler. */
enum { SLOT_SIGNALLED = 1, SLOT_PARKED, SLOT_LEFT, SLOT_GONE, SLOT_BLOCKED };

/* The slots a stop starts with; a process with more threads gets a
 * mapping sized to them before its stop begins (ensure_slots). */
static struct lp_stopped_thread first_slots[LP_THREADS_MAX_STOPPED];

static struct {
    /* Odd while a stop is in progress. 32 bits: it is a futex word. */
    unsigned int epoch;
    size_t nslots, cap;
    struct lp_stopped_thread *slots; /* cap entries */
    bool overflow; /* this stop met more threads than it had slots for */
    int signo;        /* the stop signal in use, 0 before the first stop */
    uintptr_t cookie; /* si_value of our stop signals */
    bool can_signal;  /* this stop found a signal to stop with */
    bool by_ptrace;   /* this stop is thread_stop_ptrace.c's */
} threads;

static void on_stop_signal(int sig, siginfo_t *si, void *ucv);

static pid_t gettid_raw(void) { return (pid_t)syscall(SYS_gettid); }

/* --- stop the world ---------------------------------------------------- */

/*
 * The stop signal is chosen at run time: the highest real-time signal the
 * program leaves at SIG_DFL (glibc keeps SIGRTMIN..+2 for itself,
 * applications count up from SIGRTMIN). Ours are told apart from the
 * program's by their siginfo: sent with rt_tgsigqueueinfo, SI_QUEUE, our
 * pid and a random cookie as the value. Any other arrival of that signal
 * gets the signal's default action, as it would without us.
 */
static int stop_signal(void) { return lp_load_relaxed(&threads.signo); }

static bool is_our_handler(int signo)
{
    struct sigaction cur;

    return sigaction(signo, NULL, &cur) == 0 &&
           (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_stop_signal;
}

static void futex_wait(unsigned int *word, unsigned int val)
{
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake_all(unsigned int *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void save_regs(struct lp_stopped_thread *s, const ucontext_t *uc)
{
#if defined(__x86_64__)
    int i;

    for (i = 0; i < LP_THREAD_NREGS; i++) /* REG_R8 .. REG_RSP */
        s->regs[i] = (uintptr_t)uc->uc_mcontext.gregs[i];
    s->sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    int i;

    for (i = 0; i < LP_THREAD_NREGS; i++)
        s->regs[i] = (uintptr_t)uc->uc_mcontext.regs[i];
    s->sp = (uintptr_t)uc->uc_mcontext.sp;
#else
    (void)uc;
    s->regs[0] = 0;
    s->sp = (uintptr_t)__builtin_frame_address(0);
#endif
}

static void on_stop_signal(int sig, siginfo_t *si, void *ucv)
{
    int saved_errno = errno;
    unsigned int e = lp_load_acquire(&threads.epoch);
    struct lp_stopped_thread *s = NULL;
    size_t i, n;
    pid_t tid;

    if (si->si_code != SI_QUEUE || si->si_pid != getpid() ||
        (uintptr_t)si->si_value.sival_ptr != threads.cookie) {
        /* The program's own: what SIG_DFL would have done (terminate). */
        struct sigaction dfl;

        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
        syscall(SYS_tgkill, getpid(), gettid_raw(), sig);
        errno = saved_errno;
        return; /* delivered when the handler's mask is lifted */
    }
    if (!(e & 1)) {
        errno = saved_errno; /* a late one of ours, after the scan ended */
        return;
    }
    tid = gettid_raw();
    n = lp_load_acquire(&threads.nslots);
    for (i = 0; i < n; i++) {
        if (threads.slots[i].tid == tid &&
            lp_load_relaxed(&threads.slots[i].epoch) == e) {
            s = &threads.slots[i];
            break;
        }
    }
    if (s != NULL) {
        save_regs(s, ucv);
        lp_store_release(&s->state, SLOT_PARKED);
        while (lp_load_acquire(&threads.epoch) == e)
            futex_wait(&threads.epoch, e);
        lp_store_release(&s->state, SLOT_LEFT);
    }
    errno = saved_errno;
}

/* Make sure our handler is installed on a free signal; false if none. */
static bool install_handler(void)
{
    struct sigaction sa, cur;
    int signo = stop_signal();

    if (signo != 0 && is_our_handler(signo))
        return true;
    if (threads.cookie == 0) {
        uintptr_t c = 0;

        if (syscall(SYS_getrandom, &c, sizeof(c), 0) != (long)sizeof(c))
            c = (uintptr_t)lp_monotonic_ms() * 0x9e3779b97f4a7c15ull;
        threads.cookie = (c ^ (uintptr_t)&threads) | 1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_stop_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    /* Kept installed after the scan: a thread that answers after its scan
     * gave up must still find a handler, or the signal would kill it. */
    for (signo = SIGRTMAX - LP_THREADS_STOP_SIGNAL_OFFSET;
         signo >= SIGRTMIN + 3; signo--) {
        if (sigaction(signo, NULL, &cur) != 0 ||
            (cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
            continue;
        if (sigaction(signo, &sa, NULL) == 0) {
            lp_store_relaxed(&threads.signo, signo);
            return true;
        }
    }
    return false;
}

static bool send_stop(pid_t pid, pid_t tid)
{
    siginfo_t si;

    memset(&si, 0, sizeof(si));
    si.si_signo = stop_signal();
    si.si_code = SI_QUEUE;
    si.si_pid = pid;
    si.si_uid = getuid();
    si.si_value.sival_ptr = (void *)threads.cookie;
    return syscall(SYS_rt_tgsigqueueinfo, pid, tid, si.si_signo, &si) == 0;
}

static void nap(void)
{
    struct timespec ts = {0, 50 * 1000};

    nanosleep(&ts, NULL);
}

/* Call fn for every tid in /proc/self/task, read with getdents64 (opendir
 * would malloc, and a stopped thread may hold the allocator's lock).
 * False when the directory cannot be read. */
static bool task_gone(int dir, pid_t tid)
{
    char path[16], buf[512];
    int fd;
    ssize_t n;

    lp_task_stat_path(path, tid);
    fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true; /* reaped meanwhile */
    n = read(fd, buf, sizeof(buf));
    close(fd);
    return n > 0 && lp_task_stat_gone(buf, n);
}

static bool for_each_task(void (*fn)(pid_t tid, void *arg), void *arg)
{
    char buf[4096];
    int fd = lp_root_open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

    if (fd < 0)
        return false;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
        long off = 0;

        if (n <= 0)
            break;
        while (off < n) {
            struct lp_dirent64 *d = (void *)(buf + off);
            pid_t tid = lp_task_tid(d->name);

            off += d->reclen;
            if (tid > 0 && !task_gone(fd, tid))
                fn(tid, arg);
        }
    }
    close(fd);
    return true;
}

struct signal_pass {
    pid_t pid, self;
    unsigned int e;
    size_t added;
};

static void signal_one(pid_t tid, void *arg)
{
    struct signal_pass *sp = arg;
    struct lp_stopped_thread *s;

    if (tid == sp->self || lp_stopped_has(threads.slots, threads.nslots, tid) ||
        lp_threads_is_internal(tid))
        return;
    if (threads.nslots == threads.cap) {
        threads.overflow = true; /* left running: roots.c reads safely */
        return;
    }
    s = &threads.slots[threads.nslots];
    s->tid = tid;
    s->answered = false;
    s->sp = 0;
    lp_store_relaxed(&s->epoch, (unsigned long)sp->e);
    lp_store_relaxed(&s->state, SLOT_SIGNALLED);
    lp_store_release(&threads.nslots, threads.nslots + 1);
    /* No signal to stop with: scanned whole, as a thread that does not
     * answer. */
    if (!threads.can_signal)
        lp_store_release(&s->state, SLOT_BLOCKED);
    else if (!send_stop(sp->pid, tid))
        lp_store_release(&s->state, SLOT_GONE);
    sp->added++;
}

/* Signal every thread not signalled yet; returns how many were added. */
static size_t signal_new_threads(pid_t pid, pid_t self, unsigned int e)
{
    struct signal_pass sp = {pid, self, e, 0};

    for_each_task(signal_one, &sp);
    return sp.added;
}

struct count_pass {
    pid_t self;
    size_t count;
};

static void count_one(pid_t tid, void *arg)
{
    struct count_pass *cp = arg;

    if (tid != cp->self && !lp_threads_is_internal(tid))
        cp->count++;
}

/* How many threads other than the caller and our own still run. */
size_t lp_threads_others_running(void)
{
    struct count_pass cp = {gettid_raw(), 0};

    if (!for_each_task(count_one, &cp))
        return 1; /* cannot tell: assume the worst */
    return cp.count;
}

/* Does tid block our signal? (/proc/PID/task/TID/status, SigBlk.) Such a
 * thread will not park until it unblocks; no use waiting for it. */
static bool blocks_stop_signal(pid_t tid)
{
    char buf[2048];
    int sig = stop_signal();
    const char *p;
    uint64_t mask = 0;

    if (lp_proc_read_of("self/task/", tid, "status", buf, sizeof(buf)) <= 0)
        return false;
    p = strstr(buf, "SigBlk:");
    if (p == NULL)
        return false;
    for (p += 7; *p == '\t' || *p == ' '; p++)
        ;
    for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
        mask = mask * 16 + (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
    return (mask >> (sig - 1)) & 1u;
}

/* After a short grace period, stop waiting for threads that block us. */
static void skip_blocked(void)
{
    size_t i;

    for (i = 0; i < threads.nslots; i++) {
        struct lp_stopped_thread *s = &threads.slots[i];
        int expect = SLOT_SIGNALLED;

        if (lp_load_acquire(&s->state) == SLOT_SIGNALLED &&
            blocks_stop_signal(s->tid))
            lp_cas(&s->state, &expect, SLOT_BLOCKED);
    }
}

/*
 * Room for every thread there is, and as many again that may start while
 * we stop them; between stops only (no handler is looking for its slot).
 * A bigger array replaces the slots; the old one stays mapped, as a
 * handler of a stop that timed out may still write its slot. A process
 * of 2,000 threads had its threads beyond the 1,024th left running and
 * their stacks taken for dead ones' (their DTVs "definitely lost").
 */
static void ensure_slots(size_t others)
{
    size_t want = others * 2 + 64, len;
    void *p;

    if (threads.slots == NULL) {
        threads.slots = first_slots;
        threads.cap = LP_THREADS_MAX_STOPPED;
    }
    if (want <= threads.cap)
        return;
    len = (want * sizeof(struct lp_stopped_thread) + 4095) & ~(size_t)4095;
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    if (p == MAP_FAILED)
        return; /* the threads beyond the slots are left running */
    threads.slots = p;
    threads.cap = len / sizeof(struct lp_stopped_thread);
}

bool lp_threads_stop_overflowed(void)
{
    return threads.overflow;
}

size_t lp_threads_stop(struct lp_stopped_thread **out)
{
    pid_t pid = getpid(), self = gettid_raw();
    uint64_t deadline;
    unsigned int e;
    size_t i, others = lp_threads_others_running();
    int round;
    long n;

    ensure_slots(others);
    threads.overflow = false;
    if (others > 0 &&
        (n = lp_threads_stop_ptrace(threads.slots, threads.cap)) >= 0) {
        threads.overflow = (size_t)n == threads.cap; /* maybe more */
        threads.by_ptrace = true;
        threads.nslots = (size_t)n;
        *out = threads.slots;
        return threads.nslots;
    }
    threads.can_signal = install_handler();
    e = lp_load_relaxed(&threads.epoch) | 1u;
    if (e == lp_load_relaxed(&threads.epoch))
        e += 2; /* a previous stop was never resumed */
    threads.nslots = 0;
    lp_store_release(&threads.epoch, e);
    deadline = lp_monotonic_ms() + LP_THREADS_STOP_TIMEOUT_MS;
    /* Threads may spawn threads until they are parked: re-read the task
     * list until a pass finds nobody new. */
    for (round = 0; round < 64; round++) {
        bool all, checked_blocked;
        uint64_t round_start;

        if (signal_new_threads(pid, self, e) == 0 && round > 0)
            break;
        checked_blocked = false;
        round_start = lp_monotonic_ms();
        do {
            all = true;
            for (i = 0; i < threads.nslots; i++)
                if (lp_load_acquire(&threads.slots[i].state) ==
                    SLOT_SIGNALLED)
                    all = false;
            if (!all && !checked_blocked &&
                lp_monotonic_ms() >= round_start + 5) {
                skip_blocked();
                checked_blocked = true;
                continue;
            }
            if (!all)
                nap();
        } while (!all && lp_monotonic_ms() < deadline);
        if (!all)
            break;
    }
    for (i = 0; i < threads.nslots; i++)
        threads.slots[i].answered =
            lp_load_acquire(&threads.slots[i].state) == SLOT_PARKED;
    *out = threads.slots;
    return threads.nslots;
}

void lp_threads_resume(void)
{
    uint64_t deadline;
    size_t i;
    bool all;

    if (threads.by_ptrace) {
        (void)lp_threads_resume_ptrace();
        threads.by_ptrace = false;
        threads.nslots = 0;
        return;
    }
    lp_store_release(&threads.epoch, lp_load_relaxed(&threads.epoch) + 1);
    futex_wake_all(&threads.epoch);
    /* Wait until every parked thread is out of its slot, so the next stop
     * may reuse the slots. */
    deadline = lp_monotonic_ms() + 1000;
    do {
        all = true;
        for (i = 0; i < threads.nslots; i++)
            if (lp_load_acquire(&threads.slots[i].state) == SLOT_PARKED)
                all = false;
        if (!all)
            nap();
    } while (!all && lp_monotonic_ms() < deadline);
    threads.nslots = 0;
}
