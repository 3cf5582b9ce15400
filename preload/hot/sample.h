/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SAMPLE_H
#define LP_PRELOAD_SAMPLE_H
/*
 * sample.h - sample_bytes=N: which allocations are tracked, what a tracked
 * block stands for, and which frees may skip the live-block table.
 *
 * Which (a Poisson byte sampler, as tcmalloc, jemalloc, Go and heapprofd
 * sample): the bytes a thread allocates are a line on which sample points
 * fall at exponentially distributed distances of mean N. A block is
 * tracked when a point falls inside it, so a block of s < N bytes is
 * tracked with probability p(s) = 1 - exp(-s/N), independently of every
 * other block: no allocation pattern can alias with the sampler, as a
 * fixed countdown does (a program keeping a small block and freeing a big
 * one in each step would only ever have its big blocks tracked). Blocks
 * of N bytes or more are always tracked. The countdown to the next point
 * and the generator (splitmix64) live in the thread's slot (tcb_slot.h):
 * no lock, no allocation, no libc or libm call. Each thread's generator
 * is seeded from its start order, so a program that allocates the same
 * way samples the same blocks on every run.
 *
 * What (the unbiased estimator for that sampler): a tracked block of
 * s < N bytes stands for s / p(s) bytes and 1 / p(s) blocks; a block of N
 * or more for itself. Every figure written (stack counters, massif
 * totals and trees, leak report, pprof) adds these weights, so it is an
 * estimate of the whole heap. The weights depend on the size alone and
 * are recomputed from the size the table holds when the block is freed:
 * nothing is stored per block. Block counts are kept in fixed point
 * (LP_SAMPLE_ONE units: 1/4096 of a block) so fractional weights add up
 * without bias.
 *
 * Frees (a counting filter): one 8-bit counter per 16-byte granule of
 * the address space modulo 1 MiB, incremented before a tracked block
 * enters the table and decremented after it leaves, so a counter never
 * falls below the number of table entries that map to it (a counter that
 * reaches 255 stays there). A free whose counter is 0 is certainly
 * of an untracked block and goes straight to the real free: no guard, no
 * shard lock, no lookup. Counters are updated with atomics once the
 * program has a second thread; a fork child inherits counters that are
 * at worst too high (a thread of the parent stopped between increment
 * and insert), which only costs it a table lookup. Heap-error detection
 * is off in sampled mode (heap_errors.h), so a double free of an
 * untracked block passes through to the real allocator, as natively.
 *
 * Context: HOT (lp_sample_skip, weights, filter); BOOT (lp_sample_init,
 * from lp_track_init before the profiler is READY); COLD (stats).
 */
#include "preload/life/config.h"
#include "preload/lp.h"
#include "preload/hot/tcb_slot.h"

#define LP_SAMPLE_ONE 4096u /* one block, in estimated block counts */
#define LP_SAMPLE_FILTER_BITS 16 /* 64 KiB of counters */
#define LP_SAMPLE_GRANULE_SHIFT 6 /* one counter per 64 bytes of address */

#define lp_sample_filter (lp_hot.sample_filter) /* NULL: not sampling */

/* BOOT: allocate the filter when sample_bytes is set. */
void lp_sample_init(void);

static inline bool lp_sample_on(void)
{
    return lp_config.sample_bytes != 0;
}

/* The distance in bytes to the next sample point after one: ceil of an
 * exponential variable of mean every, at least 1. Advances *rng. */
uint64_t lp_sample_interval(uint64_t *rng, uint64_t every);

/* Slow path of lp_sample_skip: a point falls in this block, or the
 * thread has no countdown yet. */
bool lp_sample_skip_slow(size_t size);

/* True when a new block of size bytes is to stay untracked. */
static inline bool lp_sample_skip(size_t size)
{
    uint64_t every = lp_config.sample_bytes, left;

    if (LP_LIKELY(every == 0) || size >= every)
        return false;
    left = lp_self.sample_left;
    if (LP_LIKELY(left > size)) {
        lp_self.sample_left = left - size;
        return true;
    }
    return lp_sample_skip_slow(size);
}

/* 1 - exp(-size/every) for size < every (every > 0). */
double lp_sample_prob(size_t size, uint64_t every);

/* The probability that a block of size bytes is tracked: 1 when it
 * stands for itself (not sampling, size 0, or size >= N). An event's
 * weights below all derive from it: ask once, not once per weight. */
static inline double lp_sample_weight(size_t size)
{
    uint64_t every = lp_config.sample_bytes;

    if (LP_LIKELY(every == 0) || size >= every || size == 0)
        return 1.0;
    return lp_sample_prob(size, every);
}

/* Estimated bytes a tracked block of size bytes (tracked with
 * probability p, lp_sample_weight) stands for. */
static inline uint64_t lp_sample_est_bytes_p(size_t size, double p)
{
    if (LP_LIKELY(p == 1.0))
        return size;
    return (uint64_t)((double)size / p + 0.5);
}

/* Estimated blocks it stands for, in LP_SAMPLE_ONE units (sampling on);
 * 1 when not sampling (plain counts). */
static inline uint64_t lp_sample_est_blocks_p(double p)
{
    if (LP_LIKELY(!lp_sample_on()))
        return 1;
    if (p == 1.0)
        return LP_SAMPLE_ONE;
    return (uint64_t)(LP_SAMPLE_ONE / p + 0.5);
}

/* Massif's usable size for it: (usable + 8 admin bytes) scaled by the
 * block weight, less 8, so that massif's use = usable + 8 is scaled. 0
 * stays 0 (massif off). */
static inline size_t lp_sample_est_usable_p(size_t usable, double p)
{
    if (LP_LIKELY(p == 1.0) || usable == 0)
        return usable;
    return (size_t)((double)(usable + 8) / p + 0.5) - 8;
}

/* The same for one weight of a block of size bytes. */
static inline uint64_t lp_sample_est_bytes(size_t size)
{
    return lp_sample_est_bytes_p(size, lp_sample_weight(size));
}
static inline uint64_t lp_sample_est_blocks(size_t size)
{
    return lp_sample_est_blocks_p(lp_sample_weight(size));
}

/* Estimated block count from an LP_SAMPLE_ONE fixed-point sum (sampling
 * on), or the plain count. */
static inline uint64_t lp_sample_blocks_out(uint64_t fixed)
{
    return lp_sample_on() ? (fixed + LP_SAMPLE_ONE / 2) / LP_SAMPLE_ONE : fixed;
}

/* ---- the counting filter ------------------------------------------ */

/* A block's counter: its address in 64-byte granules, modulo the filter
 * size. No mixing on purpose: blocks that are neighbours in the heap
 * share cache lines of the filter too, so a program whose heap spans a
 * few hundred KiB keeps its frees' lookups in a few hundred lines. With
 * 16-byte granules the filter's lines a 2-thread storm reads (both
 * threads' heaps, 64 MiB apart, share counters) did not stay in L1: the
 * filter's one load was 60% of our free() and our share of the sampled
 * run fell from 0.36 to 0.29 of glibc's with 64 bytes (perf samples, 6
 * runs each). A glibc chunk is 32 bytes at least, so a granule holds one
 * or two small blocks: false positives stay rare (lockstep, sample_bytes
 * =4096: 1,281 frees of 400,000 looked in the table, 1,140 before).
 * The region's low 4 bits (addr bits 26-29) move its counters by 4 KiB
 * blocks: threads' arenas, 64 MiB-aligned, would otherwise share
 * counters, and a tracked block's increment in one thread takes away the
 * line the other thread's frees read (a sampled 2-thread storm: 2% of
 * its wall time, about the noise). */
static inline uint8_t *lp_sample_slot_in(uint8_t *filter, uintptr_t addr)
{
    return &filter[((addr >> LP_SAMPLE_GRANULE_SHIFT) ^
                    ((addr >> 14) & 0xf000)) &
                   ((1u << LP_SAMPLE_FILTER_BITS) - 1)];
}
static inline uint8_t *lp_sample_slot(uintptr_t addr)
{
    return lp_sample_slot_in(lp_sample_filter, addr);
}

/* Counters saturate at 255 and then stay (only ever too high). */
#define LP_SAMPLE_STUCK 255u

/* Move addr's counter by step (+1, -1), never past 0 or the stuck value. */
static inline void lp_sample_filter_step(uintptr_t addr, int step)
{
    uint8_t *c, v;

    if (LP_LIKELY(!lp_sample_filter))
        return;
    c = lp_sample_slot(addr);
    v = lp_load_relaxed(c);
    if (!lp_load_relaxed(&lp_threaded)) {
        if (v != LP_SAMPLE_STUCK && (step > 0 || v != 0))
            lp_store_relaxed(c, (uint8_t)(v + step));
        return;
    }
    while (v != LP_SAMPLE_STUCK && (step > 0 || v != 0) &&
           !__atomic_compare_exchange_n(c, &v, (uint8_t)(v + step), true,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* Stick the counters of [lo, hi) at LP_SAMPLE_STUCK: frees there never
 * pass the filter. The boot arena's blocks (real.c), which the real free
 * must never see, are pinned so, and free() asks the filter before it
 * asks whether a block is a boot block. */
void lp_sample_filter_pin(uintptr_t lo, uintptr_t hi);

/* Before a tracked block enters the table / after it left it. */
static inline void lp_sample_filter_add(uintptr_t addr)
{
    lp_sample_filter_step(addr, 1);
}
static inline void lp_sample_filter_del(uintptr_t addr)
{
    lp_sample_filter_step(addr, -1);
}

/* True when addr is certainly not in the table (sampled mode only). */
static inline bool lp_sample_untracked(uintptr_t addr)
{
    return lp_sample_filter && lp_load_relaxed(lp_sample_slot(addr)) == 0;
}

/* A free that the filter let through found no table entry (a filter
 * false positive): counted for the -v report and the tests. */
extern uint64_t lp_sample_table_misses;
static inline void lp_sample_note_miss(void)
{
    lp_add_relaxed(&lp_sample_table_misses, 1);
}

#endif /* LP_PRELOAD_SAMPLE_H */
