/* SPDX-License-Identifier: MIT */
/* test_stack.c - stack interning, ids and counters; the arena under it. */
#include "tests/unit/lp_test.h"

#include <string.h>

#include "preload/arena.h"
#include "preload/config.h"
#include "preload/stack.h"

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
    assert_memory_equal(lp_stack_get(ia)->frames, a, sizeof(a));
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

static void test_stack_counters_track_live_and_total(void **state)
{
    uintptr_t f[2] = {0xabc, 0xdef};
    struct lp_stack *s = lp_stack_get(lp_stack_intern(f, 2));

    (void)state;
    lp_stack_note_alloc(s, 100);
    lp_stack_note_alloc(s, 50);
    lp_stack_note_free(s, 100);
    assert_int_equal(s->live_bytes, 50);
    assert_int_equal(s->live_blocks, 1);
    assert_int_equal(s->total_bytes, 150);
    assert_int_equal(s->total_blocks, 2);
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
        cmocka_unit_test(test_stack_capture_unwinds_through_callers),
        cmocka_unit_test(test_arena_memory_is_zeroed_owned_and_reused),
    };
    return cmocka_run_group_tests_name("stack", tests, NULL, NULL);
}
