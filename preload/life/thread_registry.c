/* SPDX-License-Identifier: MIT */
/*
 * thread_registry.c - the thread registry, through an interposed
 * pthread_create: each thread's tid, stack, TCB and per-thread state, and
 * when it is gone. Stopping the threads for the scan is thread_stop.c's.
 * Context: see thread_registry.h.
 */
#include "preload/life/thread_registry.h"

#include "preload/life/alt_stack.h"

#include "preload/life/own_tls.h"
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
#include "preload/hot/track.h"

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
    void *alt_stack;   /* its alternate signal stack (alt_stack.c; idem) */
    struct lp_freed_lane *freed_lane; /* its recently-freed lane (idem) */
    struct lp_massif_local *massif_local; /* its pending massif deltas */
    struct lp_stack_local *stack_local;   /* its per-site counter cache */
    struct lp_nursery *nursery;           /* its young blocks (idem) */
    void *(*start)(void *);
    void *arg;
};

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
                         void *(*)(void *), void *);

/* Records that were ever internal, for lp_threads_is_internal(), which
 * every stop asks of every task: walking the whole list for each made
 * a stop O(threads^2) (8,000 threads busy at exit: 11 s). We start one
 * or two threads; past INTERNAL_MAX the list is walked as before. */
#define INTERNAL_MAX 16

static struct {
    struct rec *head; /* lock-free push-only list */
    create_fn real_create;
    struct rec *internal[INTERNAL_MAX]; /* push-only; NULL: being set */
    unsigned ninternal;                 /* > INTERNAL_MAX: walk the list */
    /* Records EXITING, DEAD or FREE: every one got there through
     * mark_exiting (+1) and leaves only when claimed (-1). At 0 a new
     * thread has nothing to reap, reuse or free, and skips the walks of
     * every record (8,000 threads alive: each creation walked them all,
     * O(threads^2), 64% of that program's run). */
    size_t nonlive;
} threads;

/* r is (now) one of our own threads: index it (once). */
static void note_internal(struct rec *r)
{
    unsigned i, n = lp_load_acquire(&threads.ninternal);

    r->internal = true;
    for (i = 0; i < n && i < INTERNAL_MAX; i++)
        if (lp_load_acquire(&threads.internal[i]) == r)
            return;
    n = __atomic_fetch_add(&threads.ninternal, 1, __ATOMIC_ACQ_REL);
    if (n < INTERNAL_MAX)
        lp_store_release(&threads.internal[n], r);
}

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

    for (r = lp_load_acquire(&threads.nonlive) ? lp_load_acquire(&threads.head)
                                                : NULL;
         r; r = r->next) {
        int expect = REC_FREE;

        rec_reap(r);
        if (lp_load_relaxed(&r->state) == REC_FREE &&
            lp_cas(&r->state, &expect, REC_CLAIMED)) {
            __atomic_sub_fetch(&threads.nonlive, 1, __ATOMIC_RELEASE);
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
    if (!r->internal) /* ours block every signal */
        lp_alt_stack_give(&r->alt_stack);
    if (r->freed_lane == NULL)
        r->freed_lane = lp_freed_lane_new();
    lp_self.freed_lane = r->freed_lane;
    if (r->massif_local == NULL)
        r->massif_local = lp_massif_local_new();
    lp_massif_local_adopt(r->massif_local);
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
    for (o = lp_load_acquire(&threads.nonlive) ? lp_load_acquire(&threads.head)
                                                : NULL;
         o; o = o->next) {
        int st = lp_load_acquire(&o->state);

        if (o != r && (st == REC_DEAD || st == REC_EXITING) &&
            o->stack_lo < r->stack_hi && r->stack_lo < o->stack_hi)
            lp_cas(&o->state, &st, REC_FREE);
    }
    lp_store_release(&r->state, REC_ALIVE);
    lp_guard_restore(held);
}

/* The start routine is over (returned, pthread_exit, cancelled); key
 * destructors may still run on this thread. */
static void mark_exiting(void *p)
{
    lp_store_release(&((struct rec *)p)->state, REC_EXITING);
    __atomic_add_fetch(&threads.nonlive, 1, __ATOMIC_RELEASE);
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
        lp_guard_restore(held);
        if (real == NULL)
            return EAGAIN;
        lp_store_release(&threads.real_create, real);
    }
    /* Nurseries lock from now on, whoever's thread this is (the dumper
     * reads them too): set before the thread exists. Whether their owners
     * may do without (membarrier) is asked here, once: a single-threaded
     * process never needs to know. */
    if (!lp_load_relaxed(&lp_any_thread)) {
        lp_nursery_bias_init();
        lp_own_tls_init(); /* the DTV calloc of this thread and the next */
    }
    lp_store_release(&lp_any_thread, true);
    /* From now on counters need atomic read-modify-writes (lp.h). Set
     * before the thread exists, by the only thread that could race. */
    if (!lp_guard_held) {
        lp_store_release(&lp_threaded, true);
        lp_hot_pass_update(); /* the hooks may forward from now on */
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
    r->internal = false;
    if (lp_guard_held)
        note_internal(r);
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
    note_internal(r);
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
        ti.tcb = ti.started ? r->tcb : 0;
        ti.alive = st != REC_DEAD;
        ti.user_stack = r->user_stack;
        ti.internal = r->internal;
        ti.arg = (uintptr_t)r->arg;
        fn(&ti, arg);
    }
}

bool lp_peek_word(uintptr_t addr, uintptr_t *out)
{
    struct iovec local = {out, sizeof(*out)};
    struct iovec remote = {(void *)addr, sizeof(*out)};

    /* Our tid, not the pid: a main thread gone by pthread_exit is a
     * zombie without memory. */
    return process_vm_readv((pid_t)syscall(SYS_gettid), &local, 1, &remote,
                            1, 0) == (ssize_t)sizeof(*out);
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
        if (!lp_peek_word(r->tcb, &self) || self != r->tcb ||
            !lp_peek_word(r->tcb + sizeof(uintptr_t), &dtv) || dtv < 16)
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

static bool is_internal_rec(const struct rec *r, pid_t tid)
{
    return r != NULL && r->internal && r->tid == tid &&
           lp_load_acquire(&r->state) == REC_ALIVE;
}

bool lp_threads_is_internal(pid_t tid)
{
    unsigned i, n = lp_load_acquire(&threads.ninternal);
    struct rec *r;

    if (n <= INTERNAL_MAX) {
        for (i = 0; i < n; i++)
            if (is_internal_rec(lp_load_acquire(&threads.internal[i]), tid))
                return true;
        return false;
    }
    for (r = lp_load_acquire(&threads.head); r; r = r->next)
        if (is_internal_rec(r, tid))
            return true;
    return false;
}

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
