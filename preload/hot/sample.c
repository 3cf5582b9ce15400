/* SPDX-License-Identifier: MIT */
/*
 * sample.c - the sampler of sample_bytes=N (sample.h): exponential
 * intervals from a per-thread splitmix64 generator, the estimator's
 * probability 1 - exp(-s/N), and the counting filter's memory.
 *
 * No libm on the hot path: -ln(U) is computed from the exponent and a
 * short atanh series of the mantissa (relative error below 1e-14), and
 * 1 - exp(-x) for 0 <= x < 1 from its own Taylor series in Horner form
 * (error below 1e-18, and exact in relative terms for tiny x, where
 * 1 - exp(-x) computed from exp() would cancel).
 *
 * Context: HOT (lp_sample_skip_slow, lp_sample_interval, lp_sample_prob);
 * BOOT (lp_sample_init, lp_sample_filter_pin).
 */
#include "preload/hot/sample.h"

#include "preload/hot/arena.h"
#include "preload/hot/real.h"

uint64_t lp_sample_table_misses;
static uint64_t threads_seeded;

static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ln(m) for m in [sqrt(1/2), sqrt(2)): 2 atanh(z), z = (m-1)/(m+1). */
static double ln_near_one(double m)
{
    double z = (m - 1.0) / (m + 1.0), z2 = z * z;
    double s = 1.0 / 19;

    s = s * z2 + 1.0 / 17;
    s = s * z2 + 1.0 / 15;
    s = s * z2 + 1.0 / 13;
    s = s * z2 + 1.0 / 11;
    s = s * z2 + 1.0 / 9;
    s = s * z2 + 1.0 / 7;
    s = s * z2 + 1.0 / 5;
    s = s * z2 + 1.0 / 3;
    s = s * z2 + 1.0;
    return 2.0 * z * s;
}

/* -ln(k / 2^53) for 1 <= k <= 2^53. */
static double neg_ln_unit(uint64_t k)
{
    const double ln2 = 0.69314718055994530942;
    int e = 63 - __builtin_clzll(k); /* k = m * 2^e, m in [1, 2) */
    union {
        double d;
        uint64_t u;
    } scale = { .u = (uint64_t)(1023 - e) << 52 }; /* 2^-e */
    double m = (double)k * scale.d;

    if (m >= 1.4142135623730951) {
        m *= 0.5;
        e++;
    }
    return (double)(53 - e) * ln2 - ln_near_one(m);
}

uint64_t lp_sample_interval(uint64_t *rng, uint64_t every)
{
    uint64_t k = (splitmix64(rng) >> 11) + 1; /* U = k / 2^53 in (0, 1] */
    double d = neg_ln_unit(k) * (double)every;
    uint64_t n = (uint64_t)d;

    if ((double)n < d)
        n++; /* ceil: P(ceil(X) <= s) = P(X <= s) for whole s */
    return n ? n : 1;
}

bool lp_sample_skip_slow(size_t size)
{
    uint64_t every = lp_config.sample_bytes, left = lp_self.sample_left;
    uint64_t rng = lp_self.sample_rng;

    if (rng == 0) {
        /* A thread's first draw: seed from its start order (never 0). */
        uint64_t n = lp_add_relaxed(&threads_seeded, 1);

        rng = splitmix64(&n) | 1;
    }
    if (left == 0) {
        /* No countdown yet: the first point lies an interval ahead. */
        left = lp_sample_interval(&rng, every);
        if (left > size) {
            lp_self.sample_rng = rng;
            lp_self.sample_left = left - size;
            return true;
        }
    }
    /* A point falls in this block: track it; by memorylessness the next
     * point lies a fresh interval past the block's end. */
    lp_self.sample_left = lp_sample_interval(&rng, every);
    lp_self.sample_rng = rng;
    return false;
}

/* 1/k for the series of 1 - exp(-x). */
static const double inv[] = {
    0, 1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7,
    1.0 / 8, 1.0 / 9, 1.0 / 10, 1.0 / 11, 1.0 / 12, 1.0 / 13, 1.0 / 14,
    1.0 / 15, 1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19, 1.0 / 20,
};

double lp_sample_prob(size_t size, uint64_t every)
{
    /* 1 - e^-x = x (1 - x/2 (1 - x/3 (1 - ... (1 - x/20)))), from the
     * first term that matters: cut after x^k/k!, the relative error is
     * below x^k/(k+1)!, under 1e-14 at k = 5 for x < 2^-10 (a block of
     * 512 bytes with sample_bytes=524288) and at k = 9 for x < 2^-4.
     * Each of an event's weights asks (4 a block): 20 steps each were
     * a fifth of a sampled storm's tracked path. */
    double x = (double)size / (double)every, t = 1.0;
    int k = x < 1.0 / 1024 ? 5 : x < 1.0 / 16 ? 9 : 20;

    for (; k >= 2; k--)
        t = 1.0 - x * inv[k] * t;
    return x * t;
}

void lp_sample_filter_pin(uintptr_t lo, uintptr_t hi)
{
    uint8_t *filter = lp_load_relaxed(&lp_sample_filter);
    uintptr_t a;

    if (filter == NULL)
        return;
    for (a = lo & ~(uintptr_t)((1u << LP_SAMPLE_GRANULE_SHIFT) - 1); a < hi;
         a += 1u << LP_SAMPLE_GRANULE_SHIFT)
        lp_store_relaxed(lp_sample_slot_in(filter, a), (uint8_t)LP_SAMPLE_STUCK);
}

void lp_sample_init(void)
{
    uint8_t *filter;

    if (!lp_sample_on())
        return;
    /* Arena memory: zeroed, outside the program's heap and the roots. */
    filter = lp_arena_alloc((size_t)1 << LP_SAMPLE_FILTER_BITS);
    if (filter == NULL)
        return;
    /* The boot blocks handed out so far; lp_boot_alloc pins those that
     * come later itself. Store, fence, load here and CAS, load there: a
     * block is pinned by one side or both. */
    lp_store_relaxed(&lp_sample_filter, filter);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    lp_sample_filter_pin((uintptr_t)lp_boot_mem,
                         (uintptr_t)lp_boot_mem + lp_boot_used());
}
