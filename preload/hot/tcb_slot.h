/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_TCB_SLOT_H
#define LP_PRELOAD_TCB_SLOT_H
/*
 * tcb_slot.h - leakprof's per-thread variables, kept in the thread control
 * block instead of an ELF TLS segment.
 *
 * Why not __thread: every loaded object with a PT_TLS segment takes one
 * module slot in glibc, and glibc sizes each new thread's dynamic thread
 * vector (DTV) from the number of modules: (modules + 14 + 2) * 16 bytes,
 * one calloc made by the program's pthread_create. Memcheck shows that
 * block as "possibly lost" for every thread alive at exit, and counts it
 * in "total heap usage". A libleakprof.so with a TLS segment of its own
 * made every such block 16 bytes bigger than under Memcheck (whose
 * preloaded object has none), so the numbers differed in every threaded
 * program.
 *
 * Where instead: on x86-64, %fs points at glibc's tcbhead_t, and since
 * glibc 2.26 its 512 bytes at offset 0x80 (__glibc_unused2, once the SSE
 * save area of the lazy-binding trampoline) are unused, kept only so that
 * the structure keeps its size. Our few bytes live at the start of that
 * area, read and written with one %fs-relative instruction: exactly what
 * initial-exec TLS costs. The area is zero in a new thread's TCB (fresh
 * mmap, or cleared by glibc for a user-supplied stack); a stack taken from
 * glibc's cache keeps the last thread's bytes, so thread_registry.c resets the
 * slot when a thread starts. Elsewhere (other architectures) it is a
 * plain initial-exec __thread variable.
 *
 * Every per-thread variable of the library belongs in struct lp_tcb_slot:
 * tests/e2e/reachability.sh fails if libleakprof.so gains a PT_TLS
 * segment again.
 *
 * Context: any (HOT, SIGNAL: a plain memory access).
 */
#include <stdbool.h>
#include <stdint.h>

struct lp_freed_lane;
struct lp_nursery;
struct lp_massif_local;
struct lp_stack_local;

struct lp_tcb_slot {
    bool guard_held;      /* guard.h: this thread is inside leakprof */
    bool resolving_real;  /* real.c: this thread resolves the allocator */
    bool track_init_here; /* init.c: this thread brings the library up */
    uint64_t sample_left; /* sample.c: bytes to the next sample point */
    uint64_t sample_rng;  /* sample.c: its generator's state (0: unseeded) */
    uintptr_t last_alloc; /* track.c: ~address of this thread's latest
                             block (complemented: the TCB is a scan root);
                             beside sample_left: the forwarding malloc
                             (track.h: lp_track_pass) writes both */
    unsigned in_libc;     /* guard.h: inside the real allocator or fork */
    bool fork_guard;      /* fork.c: the forking thread's guard */
    bool fork_unlocked;   /* fork.c: its prepare took none of our locks */
    unsigned char unw_state; /* stack_walk.c */
    uintptr_t unw_lo, unw_hi;              /* stack_walk.c: this thread's stack */
    void *unw_memos;      /* stack_walk.c: its memos of earlier walks */
    struct lp_freed_lane *freed_lane; /* freed.c: its recently-freed lane */
    struct lp_massif_local *massif_local; /* massif_count.c: pending */
    struct lp_stack_local *stack_local;   /* stack_count.c: its cache */
    struct lp_nursery *nursery; /* nursery.h: its young blocks */
    void *alt_stack; /* alt_stack.c: our alternate signal stack, if given */
    bool guard_forever;   /* guard.h: the guard is held for good (our threads) */
    int deferred_signal;  /* fatal_signal.c: raised at the guard's end */
    int deferred_tid;     /* ... to this thread (its tid, noted with it) */
};

#if defined(__x86_64__) && defined(__SEG_FS) && defined(__GLIBC__)
#define LP_TCB_SLOT_OFFSET 0x80
_Static_assert(sizeof(struct lp_tcb_slot) <= 512,
               "tcbhead_t's unused area is 512 bytes");
#define lp_self (*(struct lp_tcb_slot __seg_fs *)LP_TCB_SLOT_OFFSET)
#else
extern __thread struct lp_tcb_slot lp_self_tls
    __attribute__((tls_model("initial-exec")));
#define lp_self lp_self_tls
#endif

/* A new thread: forget what a dead thread left in a cached TCB. */
static inline void lp_tcb_slot_reset(void)
{
    lp_self.guard_held = false;
    lp_self.guard_forever = false;
    lp_self.deferred_signal = 0;
    lp_self.deferred_tid = 0;
    lp_self.resolving_real = false;
    lp_self.track_init_here = false;
    lp_self.sample_left = 0;
    lp_self.sample_rng = 0;
    lp_self.in_libc = 0;
    lp_self.fork_guard = false;
    lp_self.fork_unlocked = false;
    lp_self.unw_state = 0;
    lp_self.unw_lo = lp_self.unw_hi = 0;
    lp_self.unw_memos = NULL;
    lp_self.freed_lane = NULL;
    lp_self.massif_local = NULL;
    lp_self.stack_local = NULL;
    lp_self.nursery = NULL;
    lp_self.last_alloc = 0;
    lp_self.alt_stack = NULL;
}

#endif /* LP_PRELOAD_TCB_SLOT_H */
