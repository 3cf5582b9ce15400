/* SPDX-License-Identifier: MIT */
/* test_freed.c - the recently-freed queue (Memcheck's freelist). */
#include "tests/unit/lp_test.h"

#include <pthread.h>
#include <stdlib.h>

#include "preload/hot/freed.h"
#include "preload/hot/tcb_slot.h"

static int setup(void **state)
{
    (void)state;
    lp_freed_reset();
    lp_freed_set_volume(LP_FREED_VOLUME_DEFAULT);
    return 0;
}

static void test_freed_find_returns_what_push_stored(void **state)
{
    struct lp_freed f;

    (void)state;
    lp_freed_push(0x1000, 16, 7, 9);
    assert_true(lp_freed_find(0x1000, &f));
    assert_true(f.addr == 0x1000 && f.size == 16);
    assert_int_equal(f.alloc_stack, 7);
    assert_int_equal(f.free_stack, 9);
    /* Exact starts only: an interior address is not a queued block. */
    assert_false(lp_freed_find(0x1008, NULL));
    assert_false(lp_freed_find(0, NULL));
    assert_int_equal(lp_freed_volume(), 16);
}

static void test_freed_forget_drops_the_entry(void **state)
{
    (void)state;
    lp_freed_push(0x2000, 32, 1, 2);
    lp_freed_push(0x3000, 48, 1, 2);
    lp_freed_forget(0x2000);
    assert_false(lp_freed_find(0x2000, NULL));
    assert_true(lp_freed_find(0x3000, NULL));
    assert_int_equal(lp_freed_volume(), 48);
    lp_freed_forget(0x4000); /* never queued: nothing happens */
    assert_int_equal(lp_freed_count(), 1);
}

static void test_freed_second_push_of_an_address_replaces_it(void **state)
{
    struct lp_freed f;

    (void)state;
    lp_freed_push(0x5000, 10, 1, 2);
    lp_freed_push(0x5000, 20, 3, 4);
    assert_int_equal(lp_freed_count(), 1);
    assert_int_equal(lp_freed_volume(), 20);
    assert_true(lp_freed_find(0x5000, &f));
    assert_true(f.size == 20 && f.alloc_stack == 3 && f.free_stack == 4);
}

/* 64,000 bytes: 10,000 blocks of 100 bytes cannot all stay; the newest
 * stay, the oldest go, and the volume never exceeds the bound. */
static void test_freed_volume_bound_drops_the_oldest(void **state)
{
    uintptr_t i, kept_new = 0, kept_old = 0;

    (void)state;
    lp_freed_set_volume(64000);
    for (i = 0; i < 10000; i++)
        lp_freed_push(0x100000 + i * 128, 100, 1, 2);
    assert_true(lp_freed_volume() <= 64000);
    for (i = 0; i < 200; i++) {
        kept_old += lp_freed_find(0x100000 + i * 128, NULL);
        kept_new += lp_freed_find(0x100000 + (9999 - i) * 128, NULL);
    }
    assert_int_equal(kept_old, 0);
    assert_int_equal(kept_new, 200);
    assert_int_equal(lp_freed_count(), lp_freed_volume() / 100);
}

/* Zero-size blocks weigh nothing: the slot count bounds them. */
static void test_freed_slot_bound_holds_for_empty_blocks(void **state)
{
    size_t i, n = (size_t)LP_FREED_RING_MAX * 2;

    (void)state;
    for (i = 0; i < n; i++)
        lp_freed_push(0x10000000 + i * 16, 0, 1, 2);
    assert_true(lp_freed_count() <= (size_t)LP_FREED_RING_MAX);
    assert_true(lp_freed_count() > (size_t)LP_FREED_RING_MAX / 2);
    assert_true(lp_freed_find(0x10000000 + (n - 1) * 16, NULL));
    assert_false(lp_freed_find(0x10000000, NULL));
}

/* After churn (pushes, replacements, forgets, evictions) every entry the
 * rings hold is still found through the index, and nothing else is. */
static void test_freed_index_stays_consistent_under_churn(void **state)
{
    size_t i, found = 0;
    unsigned seed = 12345;

    (void)state;
    lp_freed_set_volume(64 * 4096);
    for (i = 0; i < 200000; i++) {
        uintptr_t a;

        seed = seed * 1103515245u + 12345u;
        a = 0x40000000 + ((seed >> 8) % 20000) * 32;
        if ((seed & 7) == 0)
            lp_freed_forget(a);
        else
            lp_freed_push(a, 32, 1, 2);
    }
    for (i = 0; i < 20000; i++)
        found += lp_freed_find(0x40000000 + i * 32, NULL);
    assert_int_equal(found, lp_freed_count());
    assert_int_equal(lp_freed_volume(), found * 32);
}

static void test_freed_volume_zero_keeps_nothing(void **state)
{
    (void)state;
    lp_freed_set_volume(0);
    lp_freed_push(0x6000, 16, 1, 2);
    assert_false(lp_freed_find(0x6000, NULL));
    assert_int_equal(lp_freed_count(), 0);
}

static void *churn(void *arg)
{
    uintptr_t base = (uintptr_t)arg, i;

    for (i = 0; i < 50000; i++) {
        lp_freed_push(base + (i % 3000) * 16, 16, 1, 2);
        if (i % 5 == 0)
            lp_freed_forget(base + ((i * 7) % 3000) * 16);
    }
    return NULL;
}

static void test_freed_threads_do_not_corrupt_it(void **state)
{
    pthread_t t[4];
    size_t i, found = 0;

    (void)state;
    for (i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, churn, (void *)(0x70000000 + i * 0x1000000));
    for (i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    for (i = 0; i < 4 * 3000; i++)
        found += lp_freed_find(0x70000000 + (i / 3000) * 0x1000000 + (i % 3000) * 16, NULL);
    assert_int_equal(found, lp_freed_count());
    assert_true(found > 0);
}

/* Threads queue into lanes of their own; a bad free looks in all of them
 * and reports the newest entry for an address; forget clears every lane. */
static struct lp_freed_lane *lane_b;

static void *push_in_lane_b(void *arg)
{
    lp_self.freed_lane = lane_b;
    lp_freed_push((uintptr_t)arg, 64, 5, 6);
    lp_freed_push(0xb000, 8, 5, 6);
    return NULL;
}

static void test_freed_lanes_find_the_newest(void **state)
{
    pthread_t t;
    struct lp_freed f;

    (void)state;
    lane_b = lp_freed_lane_new();
    assert_non_null(lane_b);
    uintptr_t i;

    lp_freed_push(0xa000, 32, 1, 2); /* main lane, older */
    for (i = 0; i < 64; i++) /* a later epoch for the next pushes */
        lp_freed_push(0xc0000 + i * 16, 16, 1, 2);
    pthread_create(&t, NULL, push_in_lane_b, (void *)0xa000);
    pthread_join(t, NULL);
    assert_int_equal(lp_freed_count(), 3 + 64);
    assert_true(lp_freed_find(0xa000, &f));
    assert_true(f.size == 64 && f.alloc_stack == 5);
    assert_true(lp_freed_find(0xb000, &f) && f.size == 8);
    lp_freed_forget(0xa000);
    assert_false(lp_freed_find(0xa000, NULL));
    assert_int_equal(lp_freed_count(), 1 + 64);
}

/* A lane's ring grows while its volume share allows, keeping its order. */
static void test_freed_lane_grows_within_its_share(void **state)
{
    size_t i, n = LP_FREED_RING * 8;

    (void)state;
    for (i = 0; i < n; i++)
        lp_freed_push(0x20000000 + i * 64, 16, 1, 2);
    assert_int_equal(lp_freed_count(), n);
    for (i = 0; i < n; i += 97)
        assert_true(lp_freed_find(0x20000000 + i * 64, NULL));
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_freed_find_returns_what_push_stored),
        T(test_freed_forget_drops_the_entry),
        T(test_freed_second_push_of_an_address_replaces_it),
        T(test_freed_volume_bound_drops_the_oldest),
        T(test_freed_slot_bound_holds_for_empty_blocks),
        T(test_freed_index_stays_consistent_under_churn),
        T(test_freed_volume_zero_keeps_nothing),
        T(test_freed_threads_do_not_corrupt_it),
        T(test_freed_lane_grows_within_its_share),
        T(test_freed_lanes_find_the_newest),
    };

    return cmocka_run_group_tests_name("freed", tests, NULL, NULL);
}
