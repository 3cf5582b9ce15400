/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_GUARD_H
#define LP_PRELOAD_GUARD_H
/*
 * guard.h - per-thread re-entrancy guard and process lifecycle.
 *
 * A thread holding the guard is invisible to the profiler: its allocations
 * go straight to the real allocator and are not tracked. Any code that
 * takes a table or stack lock, unwinds, or calls report/ holds it first,
 * which makes self-deadlock through our own hooks impossible.
 *
 * Context: HOT and SIGNAL; everything here is async-signal-safe.
 */
#include <errno.h>

#include "preload/lp.h"
#include "preload/hot/tcb_slot.h"

enum lp_state { LP_STATE_BOOT = 0, LP_STATE_READY, LP_STATE_DONE };

#define lp_guard_held (lp_self.guard_held) /* the per-thread guard */
extern int lp_state;              /* enum lp_state, atomically accessed */
/* Non-zero while this thread is inside code a signal handler must not
 * re-enter (the real allocator, fork): then the snapshot signal's handler
 * only records its request (snapshot_signal.c), and an exit from the
 * program's handler keeps our report off the real heap (exit_heap.c).
 * Every call into the real allocator raises it but the forwarding ones
 * of sampled mode, which jump there (a tail call, as a preload that only
 * forwards: 1.34x -> 1.17-1.22x of native CPU, sampled 2-thread storm);
 * an exit from a handler looks for them on its stack instead (exit_heap.c;
 * without either, 9 runs in 12 of a threaded program exiting from a
 * SIGALRM handler hung on glibc's arena lock). */
#define lp_in_libc (lp_self.in_libc)

struct lp_guard {
    int saved_errno;
};

/*
 * errno without a call: glibc keeps it in the static TLS block, at the
 * same offset from the thread pointer in every thread, so once that
 * offset is known (init.c: lp_errno_locate) errno is one %fs-relative
 * access. Each guard reads and writes it: two calls through the PLT to
 * __errno_location per allocation and per free were 1% of a storm.
 */
#if defined(__x86_64__) && defined(__SEG_FS) && defined(__GLIBC__)
extern uintptr_t lp_errno_tp_off; /* 0: not known yet */
static inline int *lp_errno_slow(void) { return &errno; }
#define LP_ERRNO_AT(off) (*(int __seg_fs *)(off))
static inline int lp_errno_load(void)
{
    uintptr_t off = lp_errno_tp_off;

    return LP_LIKELY(off != 0) ? LP_ERRNO_AT(off) : *lp_errno_slow();
}
static inline void lp_errno_store(int v)
{
    uintptr_t off = lp_errno_tp_off;

    if (LP_LIKELY(off != 0))
        LP_ERRNO_AT(off) = v;
    else
        *lp_errno_slow() = v;
}
/* BOOT: learn the offset, in the thread that brings the library up. */
static inline void lp_errno_locate(void)
{
    uintptr_t tp;

    __asm__("mov %%fs:0, %0" : "=r"(tp)); /* the TCB's pointer to itself */
    lp_errno_tp_off = (uintptr_t)&errno - tp;
}
#else
static inline int lp_errno_load(void) { return errno; }
static inline void lp_errno_store(int v) { errno = v; }
static inline void lp_errno_locate(void) {}
#endif

/* Take the guard if this thread may track now. False when the thread
 * already holds it (our own allocation) or the profiler is not READY. */
static inline bool lp_guard_enter(struct lp_guard *g)
{
    if (lp_guard_held || lp_load_acquire(&lp_state) != LP_STATE_READY)
        return false;
    lp_guard_held = true;
    g->saved_errno = lp_errno_load();
    return true;
}

/* A fatal signal of asynchronous origin (SIGTERM, SIGINT, a timer's...)
 * that arrived while this thread held the guard waits for the guard's
 * end (fatal_signal.c: the tables are mid-update then, and their locks
 * may be this thread's); lp_fatal_signal_deliver raises it again. The
 * fence keeps the load after the guard's release, so a signal that comes
 * between the two is either seen here or finds the guard free. */
void lp_fatal_signal_deliver(void);
static inline void lp_guard_deferred(void)
{
    int sig;

    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    sig = lp_self.deferred_signal;
    if (LP_UNLIKELY(sig != 0)) {
#if defined(__x86_64__)
        /* The system call inline: a call here, even one never taken,
         * made every hook that leaves the guard save and restore more
         * registers (2-thread storm +6%). tkill to the tid noted with it. */
        long rc;

        lp_self.deferred_signal = 0;
        __asm__ volatile("syscall"
                         : "=a"(rc)
                         : "0"(200L /* SYS_tkill */),
                           "D"((long)lp_self.deferred_tid), "S"((long)sig)
                         : "rcx", "r11", "memory");
        (void)rc;
#else
        lp_fatal_signal_deliver();
#endif
    }
}

static inline void lp_guard_leave(const struct lp_guard *g)
{
    lp_errno_store(g->saved_errno); /* unwinding must not leak errno */
    lp_guard_held = false;
    lp_guard_deferred();
}

/* Put back the guard as it was before a section of ours that took it by
 * hand (a dlsym, a hook's setup): a deferred signal is raised once it is
 * free again. */
static inline void lp_guard_restore(bool held)
{
    lp_guard_held = held;
    if (!held)
        lp_guard_deferred();
}

/* COLD threads of our own (dumper, exit report) hold the guard for good:
 * a signal never waits for them. */
static inline void lp_guard_hold_forever(void)
{
    lp_guard_held = true;
    lp_self.guard_forever = true;
}

#endif /* LP_PRELOAD_GUARD_H */
