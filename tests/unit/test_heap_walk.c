/* SPDX-License-Identifier: MIT */
/* heap_walk.c: sampled mode's roots from a glibc-shaped heap. */
#include "tests/unit/lp_test.h"

#include <string.h>

#include "preload/scan/heap_walk.h"

/* A fake heap: chunks laid out as glibc lays them, sizes with flags. */
static uint64_t heap[64] __attribute__((aligned(16)));

struct got {
    uintptr_t lo[8], hi[8];
    int n, room;
};

static bool take(uintptr_t lo, uintptr_t hi, void *arg)
{
    struct got *g = arg;

    if (g->n == g->room)
        return false;
    g->lo[g->n] = lo;
    g->hi[g->n] = hi;
    g->n++;
    return true;
}

#define AT(off) ((uintptr_t)heap + (off))
/* The chunk at byte offset off: size word (with PREV_INUSE if the chunk
 * before it is in use). */
static void chunk(size_t off, uint64_t size, bool prev_in_use)
{
    heap[off / 8 + 1] = size | (prev_in_use ? 1 : 0);
}

/* A (in use, 32) B (in use, tracked, 48) C (free, 64) D (in use, 32)
 * E (in use, 32) top (free, 304, to the end). */
static void lay_out(void)
{
    memset(heap, 0, sizeof(heap));
    chunk(0, 32, true);
    chunk(32, 48, true);
    chunk(80, 64, true);
    chunk(144, 32, false);
    chunk(176, 32, true);
    chunk(208, sizeof(heap) - 208, true);
}

static void test_heap_walk_runs_of_untracked_in_use_chunks(void **state)
{
    uintptr_t tracked[] = {AT(32 + 16)};
    struct got g = {.room = 8};

    (void)state;
    lay_out();
    assert_int_equal(lp_heap_untracked_runs(AT(0), AT(sizeof(heap)), tracked,
                                            1, take, &g), 2);
    assert_int_equal(g.n, 2);
    /* A's bytes and B's prev_size word, which A owns. */
    assert_true(g.lo[0] == AT(16) && g.hi[0] == AT(40));
    /* D and E together, through E's prev_size: up to top's prev_size. */
    assert_true(g.lo[1] == AT(160) && g.hi[1] == AT(216));
    /* Nothing tracked: A and B run together; C free; D, E. */
    g.n = 0;
    assert_int_equal(lp_heap_untracked_runs(AT(0), AT(sizeof(heap)), NULL,
                                            0, take, &g), 2);
    assert_true(g.lo[0] == AT(16) && g.hi[0] == AT(88));
}

static void test_heap_walk_refuses_what_is_not_a_heap(void **state)
{
    uintptr_t inside[] = {AT(32 + 24)}, freed[] = {AT(80 + 16)},
              beyond[] = {AT(sizeof(heap) + 16)};
    struct got g = {.room = 8};

    (void)state;
    lay_out();
    /* A tracked block inside a chunk, one in a free chunk, one never met. */
    assert_int_equal(lp_heap_untracked_runs(AT(0), AT(sizeof(heap)), inside,
                                            1, take, &g), -1);
    assert_int_equal(lp_heap_untracked_runs(AT(0), AT(sizeof(heap)), freed,
                                            1, take, &g), -1);
    assert_int_equal(lp_heap_untracked_runs(AT(0), AT(sizeof(heap)), beyond,
                                            1, take, &g), -1);
    /* The last chunk does not end where the heap does. */
    assert_int_equal(lp_heap_untracked_runs(AT(0), AT(sizeof(heap) - 48),
                                            NULL, 0, take, &g), -1);
    /* A size that is no chunk size. */
    chunk(144, 40, false);
    assert_int_equal(lp_heap_untracked_runs(AT(0), AT(sizeof(heap)), NULL,
                                            0, take, &g), -1);
    /* Out of room for the runs. */
    lay_out();
    g = (struct got){.room = 1};
    assert_int_equal(lp_heap_untracked_runs(AT(0), AT(sizeof(heap)), NULL,
                                            0, take, &g), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heap_walk_runs_of_untracked_in_use_chunks),
        cmocka_unit_test(test_heap_walk_refuses_what_is_not_a_heap),
    };
    return cmocka_run_group_tests_name("heap_walk", tests, NULL, NULL);
}
