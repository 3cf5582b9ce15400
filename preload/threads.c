/* SPDX-License-Identifier: MIT */
/*
 * threads.c - the thread registry (through an interposed pthread_create)
 * and stop-the-world for the leak scan.
 * Context: see threads.h. The stop handler is SIGNAL context: it touches
 * only atomics, its own slot, and raw syscalls (gettid, futex).
 *
 * Why a signal and not ptrace: ptrace needs a helper process and may be
 * forbidden (Yama, containers). A handler parked on a futex is enough to
 * freeze a thread's registers and stack; the price is that a few syscalls
 * the kernel never restarts (nanosleep, poll with a timeout, ...) return
 * EINTR in the stopped thread, as for any signal.
 */
#include "preload/threads.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "preload/arena.h"
#include "preload/guard.h"
#include "preload/tcb_slot.h"

/*
 * A record's life. A thread is dead only once it can never run user code
 * again, and only the kernel knows when that is: after its start routine
 * returns (or it calls pthread_exit), glibc still runs its pthread-key
 * destructors and its TLS destructors on it. So:
 *   STARTING - filled in by pthread_create; the thread may not have run yet
 *              (tid and stack unknown), or creation failed;
 *   ALIVE    - registered by the thread itself: tid and stack known;
 *   EXITING  - its start routine is over; it is alive as long as its tid
 *              is in /proc/self/task (the scan checks), dead after;
 *   DEAD     - known gone (its tid vanished): its cached stack is no root.
 * EXITING and DEAD records are recycled when a new thread runs on their
 * stack, or when their tid has vanished and a user-supplied stack leaves
 * nothing to hide.
 */
enum {
    REC_FREE = 0,
    REC_CLAIMED, /* being filled in: invisible */
    REC_STARTING,
    REC_ALIVE,
    REC_EXITING,
    REC_DEAD,
};

/* One thread created through pthread_create (or an internal one). */
struct rec {
    struct rec *next; /* immutable once published */
    int state;        /* REC_*, atomic */
    pid_t tid;
    uintptr_t stack_lo, stack_hi;
    bool user_stack;
    bool internal;
    void *(*start)(void *);
    void *arg;
};

/* Slot states: the handshake between the scanner and one handler. */
enum { SLOT_SIGNALLED = 1, SLOT_PARKED, SLOT_LEFT, SLOT_GONE, SLOT_BLOCKED };

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
                         void *(*)(void *), void *);

static struct {
    struct rec *head; /* lock-free push-only list */
    create_fn real_create;
    /* Odd while a stop is in progress. 32 bits: it is a futex word. */
    unsigned int epoch;
    size_t nslots;
    struct lp_stopped_thread slots[LP_THREADS_MAX_STOPPED];
    bool handler_installed;
    struct sigaction old_action; /* the host's handler, chained to */
} threads;

static pid_t gettid_raw(void) { return (pid_t)syscall(SYS_gettid); }

/* --- the registry ----------------------------------------------------- */

/* An EXITING thread whose tid has gone: dead (or free, when it leaves no
 * cached stack behind). One tgkill(0) per exiting record; only on
 * pthread_create. A reused tid only delays this. */
static void rec_reap(struct rec *r)
{
    int expect = REC_EXITING;

    if (lp_load_acquire(&r->state) != REC_EXITING ||
        syscall(SYS_tgkill, getpid(), r->tid, 0) == 0 || errno != ESRCH)
        return;
    lp_cas(&r->state, &expect,
           r->user_stack || r->stack_hi == 0 ? REC_FREE : REC_DEAD);
}

static struct rec *rec_claim(void)
{
    int saved_errno = errno;
    struct rec *r;

    for (r = lp_load_acquire(&threads.head); r; r = r->next) {
        int expect = REC_FREE;

        rec_reap(r);
        if (lp_load_relaxed(&r->state) == REC_FREE &&
            lp_cas(&r->state, &expect, REC_CLAIMED)) {
            errno = saved_errno;
            return r;
        }
    }
    errno = saved_errno;
    r = lp_arena_alloc(sizeof(*r));
    if (r == NULL)
        return NULL;
    r->state = REC_CLAIMED;
    r->next = lp_load_relaxed(&threads.head);
    while (!lp_cas(&threads.head, &r->next, r))
        ;
    return r;
}

/* Fill r with the calling thread's tid and stack and publish it alive.
 * pthread_getattr_np may allocate: the guard keeps that untracked. */
static void rec_register_self(struct rec *r)
{
    bool held = lp_guard_held;
    pthread_attr_t a;
    struct rec *o;

    lp_guard_held = true;
    r->tid = gettid_raw();
    r->stack_lo = r->stack_hi = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        void *addr;
        size_t size;

        if (pthread_attr_getstack(&a, &addr, &size) == 0) {
            r->stack_lo = (uintptr_t)addr;
            r->stack_hi = (uintptr_t)addr + size;
        }
        pthread_attr_destroy(&a);
    }
    /* A finished thread whose cached stack we now run on needs no record:
     * glibc hands a stack on only once the kernel is done with its
     * thread. */
    for (o = lp_load_acquire(&threads.head); o; o = o->next) {
        int st = lp_load_acquire(&o->state);

        if (o != r && (st == REC_DEAD || st == REC_EXITING) &&
            o->stack_lo < r->stack_hi && r->stack_lo < o->stack_hi)
            lp_cas(&o->state, &st, REC_FREE);
    }
    lp_store_release(&r->state, REC_ALIVE);
    lp_guard_held = held;
}

/* The start routine is over (returned, pthread_exit, cancelled); key
 * destructors may still run on this thread. */
static void mark_exiting(void *p)
{
    lp_store_release(&((struct rec *)p)->state, REC_EXITING);
}

static void *thread_main(void *p)
{
    struct rec *r = p;
    void *(*start)(void *) = r->start;
    /* glibc's struct pthread keeps the start argument in the TCB, where
     * Memcheck sees it while the thread lives. Our TCB holds r instead,
     * so keep the argument in this frame, which lives exactly as long. */
    void *volatile arg = r->arg;
    void *ret;

    lp_tcb_slot_reset(); /* a cached stack keeps a dead thread's bytes */
    rec_register_self(r);
    pthread_cleanup_push(mark_exiting, r);
    ret = start(arg);
    pthread_cleanup_pop(1);
    return ret;
}

static bool attr_has_user_stack(const pthread_attr_t *attr)
{
    void *addr = NULL;
    size_t size = 0;

    /* glibc reports stackaddr - stacksize; with no user stack stackaddr is
     * NULL, so the sum tells "unset" from a stack the user provided. */
    if (attr == NULL || pthread_attr_getstack(attr, &addr, &size) != 0)
        return false;
    return (uintptr_t)addr + size != 0;
}

LP_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                             void *(*start)(void *), void *arg)
{
    create_fn real = lp_load_acquire(&threads.real_create);
    struct rec *r;

    if (real == NULL) {
        bool held = lp_guard_held;

        lp_guard_held = true; /* dlsym may allocate */
        real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
        lp_guard_held = held;
        if (real == NULL)
            return EAGAIN;
        lp_store_release(&threads.real_create, real);
    }
    /* From now on counters need atomic read-modify-writes (lp.h). Set
     * before the thread exists, by the only thread that could race. */
    if (!lp_guard_held)
        lp_store_release(&lp_threaded, true);
    r = rec_claim();
    if (r == NULL)
        return real(thread, attr, start, arg); /* untracked, still works */
    r->start = start;
    r->arg = arg;
    r->user_stack = attr_has_user_stack(attr);
    /* Created while holding the guard: one of leakprof's own threads
     * (the dumper). It blocks all signals, so it could never park; it is
     * neither stopped nor a root. */
    r->internal = lp_guard_held;
    r->tid = 0;
    r->stack_lo = r->stack_hi = 0;
    /* Alive from here on, although it may run only after main returned:
     * glibc keeps its start argument in its TCB, so the scan takes r->arg
     * as a root, and its stack mapping is scanned like any other. */
    lp_store_release(&r->state, REC_STARTING);
    /* A tail call, so that our frame is not in the stacks of what glibc
     * allocates for the thread (its DTV): Memcheck shows main right below
     * pthread_create. The price: when creation fails (EAGAIN), r stays
     * STARTING for good and keeps arg reachable. */
    return real(thread, attr, thread_main, r);
}

void lp_threads_self_internal(void)
{
    pid_t tid = gettid_raw();
    struct rec *r;

    for (r = lp_load_acquire(&threads.head); r; r = r->next)
        if (lp_load_acquire(&r->state) == REC_ALIVE && r->tid == tid)
            break;
    if (r == NULL) {
        r = rec_claim();
        if (r == NULL)
            return;
        r->user_stack = false;
        rec_register_self(r);
    }
    r->internal = true;
}

void lp_threads_for_each(void (*fn)(const struct lp_thread_info *, void *),
                         void *arg)
{
    struct rec *r;

    for (r = lp_load_acquire(&threads.head); r; r = r->next) {
        int st = lp_load_acquire(&r->state);
        struct lp_thread_info ti;

        if (st == REC_FREE || st == REC_CLAIMED)
            continue;
        ti.started = st != REC_STARTING;
        ti.tid = ti.started ? r->tid : 0;
        ti.stack_lo = ti.started ? r->stack_lo : 0;
        ti.stack_hi = ti.started ? r->stack_hi : 0;
        ti.alive = st != REC_DEAD;
        ti.user_stack = r->user_stack;
        ti.internal = r->internal;
        ti.arg = (uintptr_t)r->arg;
        fn(&ti, arg);
    }
}

size_t lp_threads_count(void)
{
    size_t n = 0;
    struct rec *r;

    for (r = lp_load_acquire(&threads.head); r; r = r->next)
        n++;
    return n;
}

static bool is_internal(pid_t tid)
{
    struct rec *r;

    for (r = lp_load_acquire(&threads.head); r; r = r->next)
        if (r->internal && r->tid == tid &&
            lp_load_acquire(&r->state) == REC_ALIVE)
            return true;
    return false;
}

/* --- stop the world ---------------------------------------------------- */

static int stop_signal(void) { return SIGRTMAX - LP_THREADS_STOP_SIGNAL_OFFSET; }

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

    if (!(e & 1) || si->si_code != SI_TKILL || si->si_pid != getpid()) {
        /* Not ours (or a late one after the scan ended). */
        const struct sigaction *o = &threads.old_action;

        if (si->si_code != SI_TKILL || si->si_pid != getpid()) {
            if ((o->sa_flags & SA_SIGINFO) && o->sa_sigaction)
                o->sa_sigaction(sig, si, ucv);
            else if (!(o->sa_flags & SA_SIGINFO) &&
                     o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN)
                o->sa_handler(sig);
        }
        errno = saved_errno;
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

static void install_handler(void)
{
    struct sigaction sa;

    if (threads.handler_installed)
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_stop_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    /* Installed once for good: a thread that answers after its scan gave
     * up must still find a handler, or the signal would kill it. */
    if (sigaction(stop_signal(), &sa, &threads.old_action) == 0)
        threads.handler_installed = true;
}

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void nap(void)
{
    struct timespec ts = {0, 50 * 1000};

    nanosleep(&ts, NULL);
}

static bool have_slot(pid_t tid)
{
    size_t i;

    for (i = 0; i < threads.nslots; i++)
        if (threads.slots[i].tid == tid)
            return true;
    return false;
}

/* Read /proc/self/task with getdents64 (opendir would malloc, and a
 * stopped thread may hold the allocator's lock) and signal every thread
 * not signalled yet. Returns how many were added. */
static size_t signal_new_threads(pid_t pid, pid_t self, unsigned int e)
{
    char buf[4096];
    size_t added = 0;
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0)
        return 0;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
        long off = 0;

        if (n <= 0)
            break;
        while (off < n) {
            struct {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *d = (void *)(buf + off);
            const char *c = d->name;
            pid_t tid = 0;

            off += d->reclen;
            if (*c < '0' || *c > '9')
                continue;
            for (; *c >= '0' && *c <= '9'; c++)
                tid = tid * 10 + (*c - '0');
            if (tid == self || have_slot(tid) || is_internal(tid))
                continue;
            if (threads.nslots == LP_THREADS_MAX_STOPPED)
                continue;
            {
                struct lp_stopped_thread *s = &threads.slots[threads.nslots];

                s->tid = tid;
                s->answered = false;
                s->sp = 0;
                lp_store_relaxed(&s->epoch, (unsigned long)e);
                lp_store_relaxed(&s->state, SLOT_SIGNALLED);
                lp_store_release(&threads.nslots, threads.nslots + 1);
                if (syscall(SYS_tgkill, pid, tid, stop_signal()) != 0)
                    lp_store_release(&s->state, SLOT_GONE);
                added++;
            }
        }
    }
    close(fd);
    return added;
}

/* Does tid block our signal? (/proc/PID/task/TID/status, SigBlk.) Such a
 * thread will not park until it unblocks; no use waiting for it. */
static bool blocks_stop_signal(pid_t tid)
{
    char path[64], buf[2048];
    int fd, sig = stop_signal();
    ssize_t n;
    const char *p;
    uint64_t mask = 0;
    pid_t v = tid;
    char digits[16];
    int nd = 0, k;

    memcpy(path, "/proc/self/task/", 16);
    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    for (k = 0; k < nd; k++)
        path[16 + k] = digits[nd - 1 - k];
    memcpy(path + 16 + nd, "/status", 8);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
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

size_t lp_threads_stop(struct lp_stopped_thread **out)
{
    pid_t pid = getpid(), self = gettid_raw();
    uint64_t deadline;
    unsigned int e;
    size_t i;
    int round;

    install_handler();
    e = lp_load_relaxed(&threads.epoch) | 1u;
    if (e == lp_load_relaxed(&threads.epoch))
        e += 2; /* a previous stop was never resumed */
    threads.nslots = 0;
    lp_store_release(&threads.epoch, e);
    deadline = now_ms() + LP_THREADS_STOP_TIMEOUT_MS;
    /* Threads may spawn threads until they are parked: re-read the task
     * list until a pass finds nobody new. */
    for (round = 0; round < 64; round++) {
        bool all, checked_blocked;
        uint64_t round_start;

        if (signal_new_threads(pid, self, e) == 0 && round > 0)
            break;
        checked_blocked = false;
        round_start = now_ms();
        do {
            all = true;
            for (i = 0; i < threads.nslots; i++)
                if (lp_load_acquire(&threads.slots[i].state) ==
                    SLOT_SIGNALLED)
                    all = false;
            if (!all && !checked_blocked && now_ms() >= round_start + 5) {
                skip_blocked();
                checked_blocked = true;
                continue;
            }
            if (!all)
                nap();
        } while (!all && now_ms() < deadline);
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

    lp_store_release(&threads.epoch, lp_load_relaxed(&threads.epoch) + 1);
    futex_wake_all(&threads.epoch);
    /* Wait until every parked thread is out of its slot, so the next stop
     * may reuse the slots. */
    deadline = now_ms() + 1000;
    do {
        all = true;
        for (i = 0; i < threads.nslots; i++)
            if (lp_load_acquire(&threads.slots[i].state) == SLOT_PARKED)
                all = false;
        if (!all)
            nap();
    } while (!all && now_ms() < deadline);
    threads.nslots = 0;
}
