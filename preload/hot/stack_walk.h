/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_UNWIND_H
#define LP_PRELOAD_UNWIND_H
/*
 * stack_walk.h - exact (DWARF) stack walks at a few ns a frame, without a
 * lock the program can hold.
 *
 * lp_unwind_backtrace() gives what libunwind's unw_backtrace() gives when
 * called at the same place: return addresses, innermost first, buf[0]
 * the one into the caller. It follows a cache of unwind rules keyed by
 * return address (CFA = rsp or rbp + offset, return address and rbp
 * saved at fixed offsets from the CFA), filled on a miss from the object's
 * .eh_frame (cfi.c). A frame the rules cannot describe (a signal frame, a
 * CFA expression, code without CFI) or a walk that would leave the
 * thread's stack hands the whole capture to unw_backtrace, so results
 * stay identical to libunwind's.
 *
 * Context: HOT; no lock (the cache is a write-once open-addressing table
 * in arena memory), no allocation through the hooks (arena only), no
 * dl_iterate_phdr. Call with the guard held. lp_unwind_forget_unloaded()
 * is COLD.
 */
#include "preload/lp.h"

/* Fill buf with up to max return addresses of the calling thread's
 * stack; returns how many. max is at most LP_UNWIND_MAX. */
#define LP_UNWIND_MAX 300
int lp_unwind_backtrace(void **buf, int max);
/* The same, and *id: where the stack id of exactly these frames is kept
 * for the next walk that finds them (0 until the caller stores it there),
 * or NULL. A walk that repeats one the thread made earlier from the same
 * call site and depth finds the id its capture stored then. */
int lp_unwind_capture(void **buf, int max, uint32_t **id);

/* Whether pc is this library's code: the frames a walk follows by their
 * frame pointers (it is built with them everywhere) and the ones a stack
 * leaves out. Tests name the range instead (lo == hi: none). */
void lp_unwind_set_self_range(uintptr_t lo, uintptr_t hi);
/* Inline: a capture that interns asks for every frame (python3: 1% of
 * its run was the call). */
extern uintptr_t lp_unwind_self_lo, lp_unwind_self_hi;
extern int lp_unwind_self_known;
void lp_unwind_find_self(void);
static inline bool lp_unwind_is_self(uintptr_t pc)
{
    if (__builtin_expect(!__atomic_load_n(&lp_unwind_self_known, __ATOMIC_ACQUIRE), 0))
        lp_unwind_find_self();
    return pc >= lp_unwind_self_lo && pc < lp_unwind_self_hi;
}

/* The calling thread runs on the stack [lo, hi) (thread_registry.c, at thread
 * start). Walks never read outside it; a thread that never said so (and
 * is not the main thread) is unwound by libunwind. */
void lp_unwind_set_thread_stack(uintptr_t lo, uintptr_t hi, void *memos);
/* Bytes of the per-thread memo area lp_unwind_set_thread_stack takes
 * (the caller owns it; NULL: walk without a memo). */
size_t lp_unwind_memo_size(void);

/* The calling thread's scratch area, LP_UNWIND_SCRATCH_BYTES zeroed at
 * thread start and kept in the same per-thread area as the memo (for
 * stack.c's intern cache), or NULL for a thread without one. */
#define LP_UNWIND_SCRATCH_BYTES 8192
void *lp_unwind_thread_scratch(void);

/* After dlclose: drop the cached rules of code that is gone, so an
 * object loaded later at the same address is not walked with them. */
void lp_unwind_forget_unloaded(void);

/* The rule for return address ra, through the cache; whether the cache
 * holds one for ra now (tests). */
uint64_t lp_unwind_rule(uintptr_t ra);
bool lp_unwind_rule_cached(uintptr_t ra);

/* How many captures were handed to libunwind (tests, diagnostics). */
uint64_t lp_unwind_fallback_count(void);

#endif /* LP_PRELOAD_UNWIND_H */
