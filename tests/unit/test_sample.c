/* SPDX-License-Identifier: MIT */
/* test_sample.c - sample_bytes=N: the sampler's intervals, its per-block
 * probability, the estimator, and the free filter (preload/hot/sample.h). */
#include "tests/unit/lp_test.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "preload/hot/real.h"
#include "preload/hot/sample.h"

static void set_every(uint64_t n)
{
    lp_config.sample_bytes = n;
    lp_self.sample_left = 0;
    lp_self.sample_rng = 0;
}

/* Intervals are exponential with mean N: mean, and P(X > N) = 1/e. */
static void test_sample_interval_is_exponential_with_mean_n(void **state)
{
    const uint64_t every = 4096;
    const int n = 1000000;
    uint64_t rng = 12345;
    double sum = 0, over = 0, over3 = 0;
    int i;

    (void)state;
    for (i = 0; i < n; i++) {
        uint64_t d = lp_sample_interval(&rng, every);

        assert_true(d >= 1);
        sum += (double)d;
        over += d > every;
        over3 += d > 3 * every;
    }
    /* the standard error of the mean is N/1000 here: 1% is 10 of them */
    assert_true(fabs(sum / n - (double)every) < 0.01 * every);
    assert_true(fabs(over / n - exp(-1.0)) < 0.005);
    assert_true(fabs(over3 / n - exp(-3.0)) < 0.002);
}

/* The no-libm probability and weights match libm's. */
static void test_sample_prob_and_weights_match_libm(void **state)
{
    static const size_t sizes[] = { 1, 8, 64, 100, 1000, 4000, 4095 };
    size_t i;

    (void)state;
    set_every(4096);
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        double p = -expm1(-(double)sizes[i] / 4096.0);

        assert_true(fabs(lp_sample_prob(sizes[i], 4096) - p) < 1e-15 * (1 + 1 / p));
        assert_true(llabs((long long)lp_sample_est_bytes(sizes[i]) -
                          llround(sizes[i] / p)) <= 1);
        assert_true(llabs((long long)lp_sample_est_blocks(sizes[i]) -
                          llround(LP_SAMPLE_ONE / p)) <= 1);
    }
    /* a tiny block at a huge N: no cancellation */
    assert_true(fabs(lp_sample_prob(1, 1ull << 40) * 1099511627776.0 - 1) < 1e-9);
    /* blocks of N or more stand for themselves */
    assert_int_equal(lp_sample_est_bytes(4096), 4096);
    assert_int_equal(lp_sample_est_bytes(100000), 100000);
    assert_int_equal(lp_sample_est_blocks(4096), LP_SAMPLE_ONE);
    assert_int_equal(lp_sample_blocks_out(3 * LP_SAMPLE_ONE + 1), 3);
    set_every(0);
    assert_int_equal(lp_sample_est_bytes(64), 64);
    assert_int_equal(lp_sample_est_blocks(64), 1);
    assert_int_equal(lp_sample_blocks_out(7), 7);
}

/* The lockstep pattern that defeats a fixed countdown: each step keeps
 * 64 bytes and churns 4,032. The estimates of the kept bytes and blocks
 * and of everything allocated are within 5% of the truth. */
static void test_sample_estimates_a_periodic_pattern(void **state)
{
    const long steps = 200000;
    double kept = 0, kept_blocks = 0, total = 0;
    long i;

    (void)state;
    set_every(4096);
    for (i = 0; i < steps; i++) {
        if (!lp_sample_skip(64)) {
            kept += (double)lp_sample_est_bytes(64);
            kept_blocks += (double)lp_sample_est_blocks(64) / LP_SAMPLE_ONE;
            total += (double)lp_sample_est_bytes(64);
        }
        if (!lp_sample_skip(4032))
            total += (double)lp_sample_est_bytes(4032);
    }
    assert_true(fabs(kept - 64.0 * steps) < 0.05 * 64.0 * steps);
    assert_true(fabs(kept_blocks - (double)steps) < 0.05 * steps);
    assert_true(fabs(total - 4096.0 * steps) < 0.05 * 4096.0 * steps);
    /* Big blocks are always tracked, and do not move the countdown. */
    {
        uint64_t left = lp_self.sample_left;

        assert_false(lp_sample_skip(4096));
        assert_false(lp_sample_skip(1 << 20));
        assert_int_equal(lp_self.sample_left, left);
    }
    /* Nothing is sampled without sample_bytes... and nothing skipped. */
    set_every(0);
    assert_false(lp_sample_skip(1));
}

/* Each size is tracked with probability 1 - exp(-s/N). */
static void test_sample_probability_per_size(void **state)
{
    static const size_t sizes[] = { 16, 512, 2048 };
    size_t k;

    (void)state;
    for (k = 0; k < 3; k++) {
        const long n = 400000;
        long hit = 0, i;
        double p = -expm1(-(double)sizes[k] / 4096.0);
        double sd = sqrt(p * (1 - p) / n);

        set_every(4096);
        for (i = 0; i < n; i++)
            hit += !lp_sample_skip(sizes[k]);
        assert_true(fabs((double)hit / n - p) < 5 * sd);
    }
    set_every(0);
}

/* The filter: a counter per address granule, never below the number of
 * tracked blocks there; 0 means certainly untracked. */
static void test_sample_filter_counts_blocks(void **state)
{
    static uint8_t mem[1u << LP_SAMPLE_FILTER_BITS];
    uintptr_t g = (uintptr_t)1 << LP_SAMPLE_GRANULE_SHIFT;
    uintptr_t a = 0x7f0000001000, b = a + (g << LP_SAMPLE_FILTER_BITS);
    int i;

    (void)state;
    memset(mem, 0, sizeof(mem));
    lp_sample_filter = mem;
    assert_true(lp_sample_untracked(a));
    lp_sample_filter_add(a);
    assert_false(lp_sample_untracked(a));
    assert_false(lp_sample_untracked(a + g - 16)); /* the same granule */
    assert_true(lp_sample_untracked(a + g)); /* the next granule */
    lp_sample_filter_add(b);                  /* same counter as a */
    lp_sample_filter_del(a);
    assert_false(lp_sample_untracked(b));
    lp_sample_filter_del(b);
    assert_true(lp_sample_untracked(a) && lp_sample_untracked(b));
    /* Saturated counters stay: only ever too high. */
    for (i = 0; i < 300; i++)
        lp_sample_filter_add(a);
    for (i = 0; i < 300; i++)
        lp_sample_filter_del(a);
    assert_false(lp_sample_untracked(a));
    lp_sample_filter = NULL;
    assert_false(lp_sample_untracked(a)); /* no filter: ask the table */
}

static void *churn(void *arg)
{
    uintptr_t base = (uintptr_t)arg;
    int r, i;

    for (r = 0; r < 2000; r++) {
        for (i = 0; i < 64; i++)
            lp_sample_filter_add(base + 16 * (uintptr_t)i);
        for (i = 0; i < 64; i++)
            lp_sample_filter_del(base + 16 * (uintptr_t)i);
    }
    return NULL;
}

/* Threads updating the same counters lose no update (atomics). */
static void test_sample_filter_threads(void **state)
{
    static uint8_t mem[1u << LP_SAMPLE_FILTER_BITS];
    pthread_t t[4];
    size_t i;

    (void)state;
    memset(mem, 0, sizeof(mem));
    lp_sample_filter = mem;
    lp_threaded = true;
    for (i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)0x10000);
    for (i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < sizeof(mem); i++)
        assert_int_equal(mem[i], 0);
    lp_threaded = false;
    lp_sample_filter = NULL;
}

/* Boot blocks never pass the filter: free() asks it before it asks
 * whether a block is a boot block, and glibc must never see one. Blocks
 * made before the filter existed and after are pinned alike. */
static void test_sample_filter_pins_boot_blocks(void **state)
{
    void *early = lp_boot_alloc(40, 16), *late;
    uintptr_t far = (uintptr_t)lp_boot_mem + LP_BOOT_MEM_SIZE + (1u << 20);

    (void)state;
    assert_non_null(early);
    set_every(4096);
    lp_sample_init();
    assert_non_null(lp_sample_filter);
    assert_false(lp_sample_untracked((uintptr_t)early));
    late = lp_boot_alloc(100, 64);
    assert_non_null(late);
    assert_false(lp_sample_untracked((uintptr_t)late));
    /* A tracked block sharing the counter comes and goes: still pinned. */
    lp_sample_filter_add((uintptr_t)late);
    lp_sample_filter_del((uintptr_t)late);
    assert_false(lp_sample_untracked((uintptr_t)late));
    assert_true(lp_sample_untracked(far)); /* the rest stays clear */
    lp_sample_filter = NULL;
    set_every(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_interval_is_exponential_with_mean_n),
        cmocka_unit_test(test_sample_prob_and_weights_match_libm),
        cmocka_unit_test(test_sample_estimates_a_periodic_pattern),
        cmocka_unit_test(test_sample_probability_per_size),
        cmocka_unit_test(test_sample_filter_counts_blocks),
        cmocka_unit_test(test_sample_filter_threads),
        cmocka_unit_test(test_sample_filter_pins_boot_blocks),
    };
    return cmocka_run_group_tests_name("sample", tests, NULL, NULL);
}
