/* SPDX-License-Identifier: MIT */
/* test_stack.c - stack interning, ids and counters; the arena under it. */
#include "tests/unit/lp_test.h"

#include <pthread.h>

#include <string.h>

#include "preload/hot/arena.h"
#include "preload/life/config.h"
#include "preload/hot/stack_count.h"

/* s holds exactly frames f[0..n), read one by one and all together. */
static void assert_frames(const struct lp_stack *s, const uintptr_t *f,
                          unsigned n)
{
    uintptr_t got[LP_STACK_MAX_DEPTH];
    unsigned i;

    assert_non_null(s);
    assert_int_equal(s->nframes, n);
    lp_stack_frames(s, got);
    for (i = 0; i < n; i++) {
        assert_int_equal(lp_stack_frame(s, i), f[i]);
        assert_int_equal(got[i], f[i]);
    }
}

static void test_stack_same_frames_give_the_same_id(void **state)
{
    uintptr_t a[3] = {0x1000, 0x2000, 0x3000}, b[3] = {0x1000, 0x2000, 0x3001};
    uint32_t ia, ib;

    (void)state;
    ia = lp_stack_intern(a, 3);
    ib = lp_stack_intern(b, 3);
    assert_true(ia != 0 && ib != 0 && ia != ib);
    assert_int_equal(lp_stack_intern(a, 3), ia);
    assert_int_equal(lp_stack_intern(a, 2) != ia, 1);
    assert_int_equal(lp_stack_get(ia)->nframes, 3);
    assert_frames(lp_stack_get(ia), a, 3);
}

static void test_stack_ids_follow_creation_order(void **state)
{
    uintptr_t f[1];
    uint32_t prev = 0, id;
    int i;

    (void)state;
    for (i = 0; i < 5000; i++) {
        f[0] = 0x500000 + (uintptr_t)i;
        id = lp_stack_intern(f, 1);
        assert_true(id > prev);
        assert_ptr_not_equal(lp_stack_get(id), NULL);
        prev = id;
    }
    assert_int_equal(lp_stack_count(), prev);
}

/* Two threads intern the same stacks in opposite orders while the
 * shards' indexes grow under them: one id a stack, the record its own. */
#define RACE_STACKS 40000
static uint32_t race_ids[2][RACE_STACKS];

static void race_frames(uintptr_t *f, unsigned i)
{
    f[0] = 0x7000;
    f[1] = 0x900000 + (uintptr_t)i * 16;
    f[2] = 0x3000 + (uintptr_t)(i % 7);
}

static void *race_main(void *arg)
{
    unsigned t = (unsigned)(uintptr_t)arg, k;
    uintptr_t f[3];

    for (k = 0; k < RACE_STACKS; k++) {
        unsigned i = t ? RACE_STACKS - 1 - k : k;

        race_frames(f, i);
        race_ids[t][i] = lp_stack_intern(f, 3);
    }
    return NULL;
}

static void test_stack_two_threads_agree_while_the_index_grows(void **state)
{
    pthread_t th[2];
    uint32_t before = lp_stack_count();
    uintptr_t f[3];
    unsigned i;

    (void)state;
    for (i = 0; i < 2; i++)
        assert_int_equal(
            pthread_create(&th[i], NULL, race_main, (void *)(uintptr_t)i), 0);
    for (i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(lp_stack_count() - before, RACE_STACKS);
    for (i = 0; i < RACE_STACKS; i++) {
        struct lp_stack *s = lp_stack_get(race_ids[0][i]);

        race_frames(f, i);
        assert_int_equal(race_ids[0][i], race_ids[1][i]);
        assert_true(race_ids[0][i] > before);
        assert_non_null(s);
        assert_int_equal(s->nframes, 3);
        assert_frames(s, f, 3);
        assert_int_equal(lp_stack_intern(f, 3), race_ids[0][i]);
    }
}

static void test_stack_counters_track_live_and_total(void **state)
{
    uintptr_t f[2] = {0xabc, 0xdef};
    struct lp_stack *s = lp_stack_get(lp_stack_intern(f, 2));

    (void)state;
    lp_stack_note_alloc(s->id, 100, 1);
    lp_stack_note_alloc(s->id, 50, 1);
    lp_stack_note_free(s->id, 100, 1);
    assert_int_equal(s->live_bytes, 50);
    assert_int_equal(s->live_blocks, 1);
    assert_int_equal(s->total_bytes, 150);
    assert_int_equal(s->total_blocks, 2);
}

/* Threaded: each thread counts in its own cache; readers add the pending
 * deltas, and a site that loses its way hands them to its record. */
static struct lp_stack *shared_site;

static void *count_in_cache(void *arg)
{
    uintptr_t base = (uintptr_t)arg, f[1];
    int i;

    lp_self.stack_local = lp_stack_local_new();
    for (i = 0; i < 10000; i++) {
        lp_stack_note_alloc(shared_site->id, 8, 1);
        if (i % 2)
            lp_stack_note_free(shared_site->id, 8, 1);
    }
    /* Sites enough to evict every way at least once. */
    for (i = 0; i < 3 * LP_STACK_LOCAL_WAYS; i++) {
        f[0] = base + (uintptr_t)i;
        lp_stack_note_alloc(lp_stack_intern(f, 1), 1, 1);
    }
    lp_stack_note_alloc(shared_site->id, 8, 1);
    return NULL;
}

static void test_stack_counters_threads_count_in_caches(void **state)
{
    uintptr_t f[1] = {0x5117e};
    struct lp_stack_counts c, pend;
    pthread_t t[2];
    bool was = lp_threaded;
    int i;

    (void)state;
    shared_site = lp_stack_get(lp_stack_intern(f, 1));
    lp_threaded = true;
    for (i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, count_in_cache,
                       (void *)(uintptr_t)(0x71000000 + i * 0x1000));
    for (i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    lp_stack_counts(shared_site, &c);
    assert_int_equal(c.live_blocks, 2 * 5001);
    assert_int_equal(c.live_bytes, 2 * 5001 * 8);
    assert_int_equal(c.total_blocks, 2 * 10001);
    assert_int_equal(lp_stack_live_bytes(shared_site), 2 * 5001 * 8);
    /* The last allocation of each thread is still in its cache. */
    assert_true(lp_stack_local_holds(shared_site->id));
    assert_true(shared_site->total_blocks < 2 * 10001);
    lp_stack_local_pending(&pend);
    assert_true(pend.total_blocks >= 2);
    lp_threaded = was;
}

/* The running totals are the sum of every site's counters, whether the
 * counts went to records (one thread) or through thread caches. */
static void sum_sites(struct lp_stack_counts *sum)
{
    uint32_t id;

    memset(sum, 0, sizeof(*sum));
    for (id = 1; id <= lp_stack_count(); id++) {
        struct lp_stack_counts c;

        lp_stack_counts(lp_stack_get(id), &c);
        sum->live_bytes += c.live_bytes;
        sum->live_blocks += c.live_blocks;
        sum->total_bytes += c.total_bytes;
        sum->total_blocks += c.total_blocks;
    }
}

static void assert_totals_are_the_sites_sum(void)
{
    struct lp_stack_counts sum, tot;

    sum_sites(&sum);
    lp_stack_totals(&tot);
    assert_int_equal(tot.live_bytes, sum.live_bytes);
    assert_int_equal(tot.live_blocks, sum.live_blocks);
    assert_int_equal(tot.total_bytes, sum.total_bytes);
    assert_int_equal(tot.total_blocks, sum.total_blocks);
}

/* One thread with a cache (the main thread has one from init): its
 * counts stay in the cache, the record's line untouched, until another
 * site takes the way; readers see them all the while. */
static void test_stack_counters_single_thread_cache(void **state)
{
    uintptr_t f[1] = {0x51e60}, g[1];
    struct lp_stack *s = lp_stack_get(lp_stack_intern(f, 1)), *o;
    struct lp_stack_local *saved = lp_self.stack_local;
    struct lp_stack_counts c;
    bool was = lp_threaded;
    unsigned i;

    (void)state;
    lp_threaded = false;
    lp_self.stack_local = lp_stack_local_new();
    lp_stack_note_alloc(s->id, 64, 1);
    lp_stack_note_alloc(s->id, 32, 1);
    lp_stack_note_free(s->id, 64, 1);
    lp_stack_note_temp(s->id, 1);
    assert_int_equal(s->live_bytes, 0); /* the record not written */
    assert_int_equal(s->total_blocks, 0);
    assert_int_equal(s->temp_blocks, 0);
    assert_true(lp_stack_local_holds(s->id));
    lp_stack_counts(s, &c);
    assert_int_equal(c.live_bytes, 32);
    assert_int_equal(c.live_blocks, 1);
    assert_int_equal(c.total_bytes, 96);
    assert_int_equal(c.total_blocks, 2);
    assert_int_equal(c.temp_blocks, 1);
    assert_int_equal(lp_stack_live_bytes(s), 32);
    assert_totals_are_the_sites_sum();
    /* A site of the same way takes it: the deltas go to the record. */
    for (i = 1, o = NULL; !o; i++) {
        g[0] = 0x51e60 + i * 0x10;
        o = lp_stack_get(lp_stack_intern(g, 1));
        if ((o->id & (LP_STACK_LOCAL_WAYS - 1)) !=
            (s->id & (LP_STACK_LOCAL_WAYS - 1)))
            o = NULL;
    }
    lp_stack_note_alloc(o->id, 8, 1);
    assert_false(lp_stack_local_holds(s->id));
    assert_int_equal(s->live_bytes, 32);
    assert_int_equal(s->live_blocks, 1);
    assert_int_equal(s->total_bytes, 96);
    assert_int_equal(s->total_blocks, 2);
    assert_int_equal(s->temp_blocks, 1);
    lp_stack_counts(o, &c);
    assert_int_equal(c.live_bytes, 8);
    assert_totals_are_the_sites_sum();
    lp_stack_note_free(o->id, 8, 1);
    lp_stack_note_free(s->id, 32, 1); /* through the cache again */
    assert_int_equal(lp_stack_live_bytes(s), 0);
    lp_self.stack_local = saved;
    lp_threaded = was;
}

static void test_stack_totals_are_every_sites_sum(void **state)
{
    uintptr_t f[1] = {0x7071};
    struct lp_stack *s = lp_stack_get(lp_stack_intern(f, 1));
    struct lp_stack_counts before, after;
    bool was = lp_threaded;
    pthread_t t[2];
    int i;

    (void)state;
    assert_totals_are_the_sites_sum();
    lp_stack_totals(&before);
    lp_stack_note_alloc(s->id, 40, 1);
    lp_stack_note_alloc(s->id, 2, 1);
    lp_stack_note_free(s->id, 40, 1);
    lp_stack_totals(&after);
    assert_int_equal(after.total_blocks - before.total_blocks, 2);
    assert_int_equal(after.total_bytes - before.total_bytes, 42);
    assert_int_equal(after.live_blocks - before.live_blocks, 1);
    assert_int_equal(after.live_bytes - before.live_bytes, 2);
    assert_totals_are_the_sites_sum();
    /* Threads counting in caches, with evictions. */
    shared_site = s;
    lp_threaded = true;
    for (i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, count_in_cache,
                       (void *)(uintptr_t)(0x72000000 + i * 0x1000));
    for (i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    lp_threaded = was;
    assert_totals_are_the_sites_sum();
}

static void __attribute__((noinline)) capture_here(uint32_t *id)
{
    *id = lp_stack_capture();
}

static void test_stack_capture_unwinds_through_callers(void **state)
{
    uint32_t id;
    struct lp_stack *s;

    (void)state;
    lp_config_parse(&lp_config, NULL, false);
    capture_here(&id);
    s = lp_stack_get(id);
    assert_non_null(s);
    assert_true(s->nframes >= 3); /* capture_here, this test, cmocka */
}

/* Frames are packed in 32 bits by region (stack.h): addresses at both
 * ends of a region, the same offset in two regions, and (once the region
 * table is full) frames in regions it cannot name, kept in whole words:
 * every one reads back exact and tells stacks apart. Runs last: it fills
 * the process's region table. */
static void test_stack_frames_round_trip_packed_and_wide(void **state)
{
    const uintptr_t R = (uintptr_t)1 << LP_FRAME_OFFSET_BITS;
    uintptr_t a[4] = {0x7f0000000000 + 5 * R, 0x7f0000000000 + 6 * R - 1,
                      0x400000, 0xffffffffffffff00},
              b[4] = {0x7f0000000000 + 5 * R, 0x7f0000000000 + 7 * R - 1,
                      0x400000, 0xffffffffffffff00},
              f[3];
    uint32_t ia = lp_stack_intern(a, 4), ib = lp_stack_intern(b, 4), id;
    uint32_t wide_ids[LP_FRAME_REGIONS + 8];
    unsigned i, wide = 0;

    (void)state;
    assert_true(ia && ib && ia != ib);
    assert_frames(lp_stack_get(ia), a, 4);
    assert_frames(lp_stack_get(ib), b, 4);
    assert_false(lp_stack_get(ia)->wide);
    /* More regions than the table holds. */
    for (i = 0; i < LP_ARRAY_SIZE(wide_ids); i++) {
        f[0] = 0x400000;
        f[1] = 0x100000000000 + (uintptr_t)i * R + 0x123;
        f[2] = 0x100000000000 + (uintptr_t)i * R + 0x456;
        wide_ids[i] = id = lp_stack_intern(f, 3);
        assert_true(id != 0);
        assert_frames(lp_stack_get(id), f, 3);
        wide += lp_stack_get(id)->wide;
    }
    assert_true(wide >= 8);
    for (i = 0; i < LP_ARRAY_SIZE(wide_ids); i++) {
        f[0] = 0x400000;
        f[1] = 0x100000000000 + (uintptr_t)i * R + 0x123;
        f[2] = 0x100000000000 + (uintptr_t)i * R + 0x456;
        assert_int_equal(lp_stack_intern(f, 3), wide_ids[i]);
        f[2]++;
        assert_true(lp_stack_intern(f, 3) != wide_ids[i]);
    }
    assert_int_equal(lp_stack_intern(a, 4), ia);
}

static void test_arena_memory_is_zeroed_owned_and_reused(void **state)
{
    unsigned char *p = lp_arena_alloc(100), *q;
    size_t i;

    (void)state;
    assert_non_null(p);
    for (i = 0; i < 100; i++)
        assert_int_equal(p[i], 0);
    assert_true(lp_arena_owns((uintptr_t)p + 50));
    assert_false(lp_arena_owns((uintptr_t)&i));
    memset(p, 0xff, 100);
    lp_arena_free(p, 100);
    q = lp_arena_alloc(128);
    assert_ptr_equal(p, q); /* same size class, LIFO free list */
    for (i = 0; i < 128; i++)
        assert_int_equal(q[i], 0);
    assert_non_null(lp_arena_alloc(1 << 20));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_same_frames_give_the_same_id),
        cmocka_unit_test(test_stack_ids_follow_creation_order),
        cmocka_unit_test(test_stack_counters_track_live_and_total),
        cmocka_unit_test(test_stack_counters_threads_count_in_caches),
        cmocka_unit_test(test_stack_counters_single_thread_cache),
        cmocka_unit_test(test_stack_totals_are_every_sites_sum),
        cmocka_unit_test(test_stack_two_threads_agree_while_the_index_grows),
        cmocka_unit_test(test_stack_capture_unwinds_through_callers),
        cmocka_unit_test(test_arena_memory_is_zeroed_owned_and_reused),
        cmocka_unit_test(test_stack_frames_round_trip_packed_and_wide),
    };
    return cmocka_run_group_tests_name("stack", tests, NULL, NULL);
}
