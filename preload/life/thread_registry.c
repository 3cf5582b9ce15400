/* SPDX-License-Identifier: MIT */
/*
 * thread_registry.c - the thread registry (through an interposed pthread_create)
 * and stop-the-world for the leak scan.
 * Context: see thread_registry.h. The stop handler is SIGNAL context: it touches
 * only atomics, its own slot, and raw syscalls (gettid, futex).
 *
 * Why a signal and not ptrace: ptrace needs a helper process and may be
 * forbidden (Yama, containers). A handler parked on a futex is enough to
 * freeze a thread's registers and stack; the price is that a few syscalls
 * the kernel never restarts (nanosleep, poll with a timeout, ...) return
 * EINTR in the stopped thread, as for any signal.
 */
#include "preload/life/thread_registry.h"

#include "preload/life/snapshot_signal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/uio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/hot/freed.h"
#include "preload/hot/guard.h"
#include "preload/hot/nursery.h"
#include "preload/hot/snapshot.h"
#include "preload/hot/stack_count.h"
#include "preload/hot/stack_walk.h"
#include "preload/hot/tcb_slot.h"

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
    uintptr_t tcb; /* pthread_self() of the thread, once it started */
    void *unwind_memo; /* the walker's memo for the thread (arena, kept
                          with the record when it is recycled) */
    struct lp_freed_lane *freed_lane; /* its recently-freed lane (idem) */
    struct lp_massif_local *massif_local; /* its pending massif deltas */
    struct lp_stack_local *stack_local;   /* its per-site counter cache */
    struct lp_nursery *nursery;           /* its young blocks (idem) */
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
    int signo;        /* the stop signal in use, 0 before the first stop */
    uintptr_t cookie; /* si_value of our stop signals */
    bool can_signal;  /* this stop found a signal to stop with */
} threads;

static void on_stop_signal(int sig, siginfo_t *si, void *ucv);
static uint64_t now_ms(void);

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
    lp_list_push(&threads.head, r);
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
    if (r->unwind_memo == NULL)
        r->unwind_memo = lp_arena_alloc(lp_unwind_memo_size());
    lp_unwind_set_thread_stack(r->stack_lo, r->stack_hi, r->unwind_memo);
    if (r->freed_lane == NULL)
        r->freed_lane = lp_freed_lane_new();
    lp_self.freed_lane = r->freed_lane;
    if (r->massif_local == NULL)
        r->massif_local = lp_massif_local_new();
    lp_self.massif_local = r->massif_local;
    if (r->stack_local == NULL)
        r->stack_local = lp_stack_local_new();
    lp_self.stack_local = r->stack_local;
    if (r->nursery == NULL)
        r->nursery = lp_nursery_new();
    lp_self.nursery = r->nursery;
    /* A dead thread whose cached stack we now run on needs no record. */
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

    r->tcb = (uintptr_t)pthread_self();
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
    /* Nurseries lock from now on, whoever's thread this is (the dumper
     * reads them too): set before the thread exists. */
    lp_store_release(&lp_any_thread, true);
    /* From now on counters need atomic read-modify-writes (lp.h). Set
     * before the thread exists, by the only thread that could race. */
    if (!lp_guard_held) {
        lp_store_release(&lp_threaded, true);
        /* The creating thread (main, usually) counts massif events in
         * pending deltas from now on, like the threads it makes. */
        if (lp_self.massif_local == NULL)
            lp_self.massif_local = lp_massif_local_new();
        if (lp_self.stack_local == NULL)
            lp_self.stack_local = lp_stack_local_new();
        /* Multithreaded from now on anyway: the snapshot dumper costs
         * nothing more, and a signal need not wait for an allocation. */
        lp_signal_start_dumper();
    }
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

/* Read one word of our own memory that may have been unmapped. */
static bool peek(uintptr_t addr, uintptr_t *out)
{
    struct iovec local = {out, sizeof(*out)};
    struct iovec remote = {(void *)addr, sizeof(*out)};

    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) ==
           (ssize_t)sizeof(*out);
}

size_t lp_threads_dead_dtvs(uintptr_t *out, size_t max)
{
    struct rec *r, *q;
    size_t n = 0;

    for (r = lp_load_acquire(&threads.head); r && n < max; r = r->next) {
        uintptr_t self, dtv;

        rec_reap(r); /* finished and its tid gone: dead */
        if (lp_load_acquire(&r->state) != REC_DEAD || r->internal ||
            r->user_stack || r->tcb == 0)
            continue;
        for (q = lp_load_acquire(&threads.head); q; q = q->next)
            if (q != r && q->tcb == r->tcb &&
                lp_load_acquire(&q->state) == REC_ALIVE)
                break;
        if (q != NULL)
            continue; /* its stack now serves a live thread */
        /* x86-64/aarch64 TCB: the self pointer, then the DTV pointer,
         * which points one dtv_t (16 bytes) past the calloc'd block. */
        if (!peek(r->tcb, &self) || self != r->tcb ||
            !peek(r->tcb + sizeof(uintptr_t), &dtv) || dtv < 16)
            continue;
        out[n++] = dtv - 16;
    }
    return n;
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
            c = (uintptr_t)now_ms() * 0x9e3779b97f4a7c15ull;
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

/* A getdents64 record, and the tid its name spells (0 if not a number). */
struct dirent64_raw {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

static pid_t parse_tid(const char *c)
{
    pid_t tid = 0;

    if (*c < '0' || *c > '9')
        return 0;
    for (; *c >= '0' && *c <= '9'; c++)
        tid = tid * 10 + (*c - '0');
    return tid;
}

/* Call fn for every tid in /proc/self/task, read with getdents64 (opendir
 * would malloc, and a stopped thread may hold the allocator's lock).
 * False when the directory cannot be read. */
static bool for_each_task(void (*fn)(pid_t tid, void *arg), void *arg)
{
    char buf[4096];
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0)
        return false;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
        long off = 0;

        if (n <= 0)
            break;
        while (off < n) {
            struct dirent64_raw *d = (void *)(buf + off);
            pid_t tid = parse_tid(d->name);

            off += d->reclen;
            if (tid > 0)
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

    if (tid == sp->self || have_slot(tid) || is_internal(tid) ||
        threads.nslots == LP_THREADS_MAX_STOPPED)
        return;
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

    if (tid != cp->self && !is_internal(tid))
        cp->count++;
}

/* How many threads other than the caller and our own still run. */
/*
 * A thread the program just joined has cleared its tid (what wakes the
 * joiner), but the kernel may not have reaped its task yet: for a few
 * microseconds, longer on a busy machine, it still shows in
 * /proc/self/task and answers tgkill. At exit that made a program whose
 * threads were all joined look threaded (no freeres: its cached stacks'
 * DTVs stayed, "definitely lost", in one run of three), and a joined
 * thread look alive. So give each thread past its start routine a moment
 * to go: at most 20 ms in all, 200 us at a time.
 */
void lp_threads_settle(void)
{
    struct timespec pause = {0, 200 * 1000};
    unsigned budget = 100;
    struct rec *r;

    for (r = lp_load_acquire(&threads.head); r; r = r->next) {
        while (lp_load_acquire(&r->state) == REC_EXITING && budget > 0) {
            rec_reap(r);
            if (lp_load_acquire(&r->state) != REC_EXITING)
                break;
            nanosleep(&pause, NULL);
            budget--;
        }
    }
}

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

    threads.can_signal = install_handler();
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
