/* SPDX-License-Identifier: MIT */
/*
 * test_sched.c - preload/massif/schedule.c against snapshot lists that Valgrind
 * 3.19's massif wrote for the same event streams (FORMATS.md 1.7).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/massif/schedule.h"
#include "tests/massif/sched_prog3.h"

/* A replay of massif's event handling (what snapshot.c does on the hot
 * path), single-threaded, with a fake tree that counts drops. */
struct replay {
    struct lp_sched s;
    struct lp_sched_snap buf[1000];
    uint64_t heap, extra;
    int64_t time;
    int trees_live;
    int tree_token;
};

static void drop_tree(void *ctx, void *tree)
{
    struct replay *r = ctx;

    (void)tree;
    r->trees_live--;
}

static void take(struct replay *r, int kind)
{
    struct lp_sched_snap sn = { .time = r->time, .heap = r->heap,
                                .extra = r->extra, .kind = kind };

    if (kind != LP_SCHED_EMPTY) {
        sn.tree = &r->tree_token;
        r->trees_live++;
    }
    lp_sched_add(&r->s, &sn);
}

static void normal(struct replay *r)
{
    int k = lp_sched_want_normal(&r->s, r->time);

    if (k != LP_SCHED_NONE)
        take(r, k);
}

static void peak(struct replay *r)
{
    if (lp_sched_want_peak(&r->s, r->heap + r->extra) == LP_SCHED_PEAK)
        take(r, LP_SCHED_PEAK);
}

static void replay_init(struct replay *r, unsigned max, unsigned freq,
                        double inacc)
{
    memset(r, 0, sizeof(*r));
    lp_sched_init(&r->s, r->buf, max, freq, inacc, drop_tree, r);
    normal(r); /* snapshot 0 at start-up */
}

static void ev_alloc(struct replay *r, uint64_t req, uint64_t usable)
{
    r->heap += req;
    r->extra += usable - req + 8;
    r->time += usable + 8;
    normal(r);
}

static void ev_free(struct replay *r, uint64_t req, uint64_t usable)
{
    peak(r);
    r->heap -= req;
    r->extra -= usable - req + 8;
    r->time += usable + 8;
    normal(r);
}

static void ev_realloc(struct replay *r, uint64_t oreq, uint64_t ouse,
                       uint64_t nreq, uint64_t nuse)
{
    if (nreq < oreq)
        peak(r);
    r->heap += nreq - oreq;
    r->extra += (nuse - nreq) - (ouse - oreq);
    r->time += nuse > ouse ? nuse - ouse : ouse - nuse;
    normal(r);
}

static char kind_char(int k)
{
    return k == LP_SCHED_PEAK ? 'P' : k == LP_SCHED_DETAILED ? 'D' : 'E';
}

static void expect_snaps(const struct replay *r, const struct p3_snap *want,
                         unsigned n)
{
    unsigned i, trees = 0;

    assert_int_equal(r->s.n, n);
    for (i = 0; i < n; i++) {
        const struct lp_sched_snap *g = &r->s.snaps[i];

        if (g->time != want[i].time || g->heap != want[i].heap ||
            g->extra != want[i].extra || kind_char(g->kind) != want[i].kind)
            fail_msg("snapshot %u: got t=%lld h=%llu e=%llu %c, want t=%lld "
                     "h=%llu e=%llu %c", i, (long long)g->time,
                     (unsigned long long)g->heap,
                     (unsigned long long)g->extra, kind_char(g->kind),
                     want[i].time, want[i].heap, want[i].extra, want[i].kind);
        trees += g->tree != NULL;
    }
    /* Culled snapshots gave their trees back; survivors kept theirs. */
    assert_int_equal(r->trees_live, (int)trees);
}

/* Valgrind's allocator: requests rounded up to 16, minimum 16. */
static uint64_t vg_usable(uint64_t n) { return n == 0 ? 0 : n < 16 ? 16 : (n + 15) & ~15ull; }

/* examples/src/prog1.c, event by event. */
static void test_sched_prog1_detailed_and_peak_like_massif(void **state)
{
    static const struct p3_snap want[] = {
#include "tests/massif/sched_prog1.inc"
    };
    struct replay *r = calloc(1, sizeof(*r));
    int i;

    (void)state;
    replay_init(r, 100, 10, 1.0);
    for (i = 0; i < 10; i++)
        ev_alloc(r, 1000, vg_usable(1000));
    for (i = 10; i < 15; i++)
        ev_alloc(r, 2000, vg_usable(2000));
    for (i = 0; i < 20; i++)
        ev_alloc(r, 8, vg_usable(8));
    ev_alloc(r, 4096, 4096);
    for (i = 0; i < 5; i++)
        ev_free(r, 1000, vg_usable(1000));
    ev_realloc(r, 4096, 4096, 8192, 8192);
    ev_free(r, 8192, 8192);
    for (i = 5; i < 10; i++)
        ev_free(r, 1000, vg_usable(1000));
    for (i = 10; i < 15; i++)
        ev_free(r, 2000, vg_usable(2000));
    for (i = 0; i < 20; i++)
        ev_free(r, 8, vg_usable(8));
    expect_snaps(r, want, LP_ARRAY_SIZE(want));
    /* The detailed list ms_print shows: 9, 19, 29, 37 (peak), 47, ... */
    assert_int_equal(r->s.snaps[9].kind, LP_SCHED_DETAILED);
    assert_int_equal(r->s.snaps[37].kind, LP_SCHED_PEAK);
    assert_int_equal(r->s.snaps[47].kind, LP_SCHED_DETAILED);
    assert_int_equal(r->s.culls, 0);
    free(r);
}

static void run_prog3(const struct p3_run *run)
{
    struct replay *r = calloc(1, sizeof(*r));
    size_t i;

    replay_init(r, run->max_snapshots, run->detailed_freq,
                run->peak_inaccuracy);
    for (i = 0; i < LP_ARRAY_SIZE(p3_events); i++) {
        if (p3_events[i].op == 'm')
            ev_alloc(r, p3_events[i].req, p3_events[i].usable);
        else
            ev_free(r, p3_events[i].req, p3_events[i].usable);
    }
    expect_snaps(r, run->snaps, run->n);
    assert_true(r->s.culls > 0);
    free(r);
}

static void test_sched_culls_like_massif_default_options(void **state)
{
    (void)state;
    run_prog3(&p3_runs[0]);
}

static void test_sched_culls_like_massif_max_snapshots_10(void **state)
{
    (void)state;
    run_prog3(&p3_runs[1]);
}

static void test_sched_culls_like_massif_freq3_inaccuracy0(void **state)
{
    (void)state;
    run_prog3(&p3_runs[2]);
}

static void test_sched_culls_like_massif_freq1_inaccuracy_2_5(void **state)
{
    (void)state;
    run_prog3(&p3_runs[3]);
}

static void test_sched_culls_like_massif_freq7_max11(void **state)
{
    (void)state;
    run_prog3(&p3_runs[4]);
}

/* A synthetic run: the cull spares first, last and peak, and the minimum
 * interval is the smallest gap not between two uncullable snapshots. */
static void test_sched_cull_spares_first_last_peak_and_sets_min_interval(
    void **state)
{
    struct lp_sched s;
    struct lp_sched_snap buf[10];
    static const int64_t times[] = { 0, 1, 2, 3, 10, 11, 12, 30, 31, 40 };
    unsigned i;

    (void)state;
    lp_sched_init(&s, buf, 10, 1000, 1.0, NULL, NULL);
    for (i = 0; i < 9; i++) {
        struct lp_sched_snap sn = { .time = times[i], .kind = LP_SCHED_EMPTY };

        if (i == 2) { /* a peak at t=2, amid close neighbours */
            sn.kind = LP_SCHED_PEAK;
            sn.heap = 100;
            sn.tree = &s;
        }
        lp_sched_add(&s, &sn);
        assert_int_equal(s.earliest_next, times[i]);
    }
    {
        struct lp_sched_snap sn = { .time = times[9], .kind = LP_SCHED_EMPTY };

        lp_sched_add(&s, &sn);
    }
    assert_int_equal(s.culls, 1);
    assert_int_equal(s.n, 5);
    /* Survivors: 0 (first), 2 (peak), then the widest-spaced ones. */
    assert_int_equal(s.snaps[0].time, 0);
    assert_int_equal(s.snaps[1].time, 2);
    assert_int_equal(s.snaps[1].kind, LP_SCHED_PEAK);
    assert_int_equal(s.snaps[s.n - 1].time, 40);
    for (i = 1; i < s.n; i++)
        assert_true(s.snaps[i].time > s.snaps[i - 1].time);
    /* 0 -> 2 is between two uncullables and does not count. */
    assert_true(s.min_interval > 2);
    assert_int_equal(s.earliest_next, 40 + s.min_interval);
    assert_int_equal(lp_sched_want_normal(&s, 40 + s.min_interval - 1),
                     LP_SCHED_NONE);
    assert_int_not_equal(lp_sched_want_normal(&s, 40 + s.min_interval),
                         LP_SCHED_NONE);
}

static void test_sched_peak_needs_more_than_inaccuracy(void **state)
{
    struct lp_sched s;
    struct lp_sched_snap buf[10];
    struct lp_sched_snap sn = { .time = 5, .heap = 1000, .extra = 0,
                                .kind = LP_SCHED_PEAK };

    (void)state;
    lp_sched_init(&s, buf, 10, 10, 1.0, NULL, NULL);
    assert_int_equal(lp_sched_want_peak(&s, 0), LP_SCHED_NONE);
    assert_int_equal(lp_sched_want_peak(&s, 1), LP_SCHED_PEAK);
    sn.tree = &s;
    lp_sched_add(&s, &sn);
    assert_int_equal(lp_sched_peak_limit(&s), 1010);
    assert_int_equal(lp_sched_want_peak(&s, 1010), LP_SCHED_NONE);
    assert_int_equal(lp_sched_want_peak(&s, 1011), LP_SCHED_PEAK);
    /* A second peak demotes the first, which keeps its tree. */
    sn.time = 6;
    sn.heap = 2000;
    lp_sched_add(&s, &sn);
    assert_int_equal(s.snaps[0].kind, LP_SCHED_DETAILED);
    assert_non_null(s.snaps[0].tree);
    assert_int_equal(s.snaps[1].kind, LP_SCHED_PEAK);
    /* Peaks restart the detailed rhythm. */
    assert_int_equal(s.since_detailed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sched_prog1_detailed_and_peak_like_massif),
        cmocka_unit_test(test_sched_culls_like_massif_default_options),
        cmocka_unit_test(test_sched_culls_like_massif_max_snapshots_10),
        cmocka_unit_test(test_sched_culls_like_massif_freq3_inaccuracy0),
        cmocka_unit_test(test_sched_culls_like_massif_freq1_inaccuracy_2_5),
        cmocka_unit_test(test_sched_culls_like_massif_freq7_max11),
        cmocka_unit_test(
            test_sched_cull_spares_first_last_peak_and_sets_min_interval),
        cmocka_unit_test(test_sched_peak_needs_more_than_inaccuracy),
    };
    return cmocka_run_group_tests_name("sched", tests, NULL, NULL);
}
