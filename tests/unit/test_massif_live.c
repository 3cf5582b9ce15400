/* SPDX-License-Identifier: MIT */
/*
 * test_massif_live.c - the contexts of massif's detailed snapshots: taken
 * in a single-threaded program from the contexts marked as changed and
 * the snapshot before (massif_live.h), each must hold exactly what the
 * stack counters held at that moment - checked against a model of our
 * own through thousands of events over hundreds of contexts, with the
 * dumper's full walk (lp_massif_take_now) in between.
 */
#include "tests/unit/lp_test.h"

#include <string.h>

#include "preload/hot/massif_live.h"
#include "preload/hot/massif_state.h"
#include "preload/hot/real.h"
#include "preload/hot/stack_count.h"
#include "preload/life/config.h"

#define SITES 400

static struct lp_stack *site[SITES];
static uint64_t model[SITES]; /* live bytes each site should show */
static unsigned seed = 12345;
static const void *last_tree;
static int64_t last_time = -1;
static unsigned checked;

static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}

static int site_of(uint32_t id)
{
    int i;

    for (i = 0; i < SITES; i++)
        if (site[i]->id == id)
            return i;
    return -1;
}

/* The contexts are the model's non-empty sites, ids ascending. */
static void assert_is_model(const struct lp_snapshot_ent *e, unsigned n)
{
    unsigned i, live = 0;
    uint32_t prev = 0;

    for (i = 0; i < SITES; i++)
        live += model[i] != 0;
    for (i = 0; i < n; i++) {
        int k = site_of(e[i].id);

        assert_true(e[i].id > prev);
        prev = e[i].id;
        assert_true(k >= 0);
        assert_int_equal(e[i].bytes, model[k]);
    }
    assert_int_equal(n, live);
}

/* A snapshot the last call recorded with a tree: it must be the model
 * (compared once the history's lock is given back: a failed assertion
 * leaves the test by longjmp). */
static void check_new_snapshot(void)
{
    static struct lp_snapshot_ent copy[SITES + 1];
    const struct lp_sched *s;
    const struct lp_sched_snap *sn;
    const struct lp_massif_raw *t = NULL;
    unsigned n = 0;

    lp_massif_hist_lock();
    s = lp_massif_sched();
    sn = &s->snaps[s->n - 1];
    if (sn->tree && (sn->tree != last_tree || sn->time != last_time)) {
        t = sn->tree;
        n = t->nents <= SITES + 1 ? t->nents : SITES + 1;
        memcpy(copy, t->e, n * sizeof(copy[0]));
        last_tree = t;
        last_time = sn->time;
    }
    lp_massif_hist_unlock();
    if (t) {
        assert_is_model(copy, n);
        checked++;
    }
}

/* As track.c orders an allocation and a free. */
static void alloc_at(int k, size_t size)
{
    lp_stack_note_alloc(site[k]->id, size, 1);
    model[k] += size;
    lp_massif_mark_dirty(site[k]->id);
    lp_snapshot_note(site[k]->id, size, size, true);
    check_new_snapshot();
}

static void free_at(int k, size_t size)
{
    lp_snapshot_before_shrink();
    check_new_snapshot(); /* a peak holds the block still */
    lp_stack_note_free(site[k]->id, size, 1);
    model[k] -= size;
    lp_massif_mark_dirty(site[k]->id);
    lp_snapshot_note(0, size, size, false);
    check_new_snapshot();
}

static int setup(void **state)
{
    uintptr_t f[2];
    int i;

    (void)state;
    if (!lp_real_init()) /* massif's trees come from glibc's heap */
        return -1;
    lp_config_defaults(&lp_config);
    strcpy(lp_config.massif, "massif.out.test");
    lp_config.detailed_freq = 1; /* every snapshot detailed */
    for (i = 0; i < SITES; i++) {
        f[0] = 0x4000 + (uintptr_t)i * 16;
        f[1] = 0x9000;
        site[i] = lp_stack_get(lp_stack_intern(f, 2));
        if (site[i] == NULL)
            return -1;
    }
    lp_snapshot_init();
    return lp_massif_enabled() ? 0 : -1;
}

/* Blocks of each site as a stack of sizes: frees take the latest. */
#define DEPTH 32
static size_t held[SITES][DEPTH];
static unsigned nheld[SITES];

static void step(void)
{
    int k = (int)(rnd() % SITES);

    /* A few hot sites take most events, as in a real program. */
    if (rnd() % 4)
        k %= 16;
    if (nheld[k] == DEPTH || (nheld[k] && rnd() % 2)) {
        free_at(k, held[k][--nheld[k]]);
    } else {
        held[k][nheld[k]] = 1 + rnd() % 4000;
        alloc_at(k, held[k][nheld[k]++]);
    }
}

static void test_massif_live_marked_captures_equal_the_counters(void **state)
{
    unsigned long inc0 = lp_massif_incremental_captures();
    int i;

    (void)state;
    for (i = 0; i < 60000; i++)
        step();
    assert_true(checked > 200);
    /* Almost all of them from the marks, not a full walk. */
    assert_true(lp_massif_incremental_captures() - inc0 > checked / 2);
}

static void test_massif_live_dumper_walk_leaves_the_marks(void **state)
{
    struct lp_sched_snap sn;
    unsigned c0 = checked;
    int i, round;

    (void)state;
    for (round = 0; round < 20; round++) {
        for (i = 0; i < 2000; i++)
            step();
        lp_massif_hist_lock();
        lp_massif_take_now(&sn); /* the dumper's: a walk of the bitmap */
        lp_massif_hist_unlock();
        assert_non_null(sn.tree);
        assert_is_model(((struct lp_massif_raw *)sn.tree)->e,
                        ((struct lp_massif_raw *)sn.tree)->nents);
        lp_massif_raw_free(sn.tree);
    }
    /* The captures after each walk were still right. */
    assert_true(checked > c0 + 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_massif_live_marked_captures_equal_the_counters),
        cmocka_unit_test(test_massif_live_dumper_walk_leaves_the_marks),
    };

    return cmocka_run_group_tests_name("massif_live", tests, setup, NULL);
}
