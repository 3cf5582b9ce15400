/* SPDX-License-Identifier: MIT */
/* test_table.c - the sharded live-block table. */
#include "tests/unit/lp_test.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "preload/hot/arena.h"
#include "preload/hot/table.h"

static void count_cb(const struct lp_block *b, void *arg)
{
    size_t *sum = arg;

    sum[0]++;
    sum[1] += b->size;
}

static void test_table_remove_returns_what_insert_stored(void **state)
{
    struct lp_block b;

    (void)state;
    assert_int_equal(lp_table_insert(0x2000, 48, 3, NULL), 0);
    assert_int_equal(lp_table_find(0x2000, &b), 0);
    assert_int_equal(b.size, 48);
    assert_int_equal(lp_table_remove(0x2000, &b), 0);
    assert_true(b.size == 48 && b.stack_id == 3 && b.addr == 0x2000);
    assert_int_equal(lp_table_remove(0x2000, NULL), -ENOENT);
}

static void test_table_insert_over_a_stale_entry_reports_it(void **state)
{
    struct lp_block stale, b;

    (void)state;
    assert_int_equal(lp_table_insert(0x3000, 10, 1, NULL), 0);
    assert_int_equal(lp_table_insert(0x3000, 20, 2, &stale), 1);
    assert_int_equal(stale.size, 10);
    assert_int_equal(stale.stack_id, 1);
    assert_int_equal(lp_table_remove(0x3000, &b), 0);
    assert_int_equal(b.size, 20);
    assert_int_equal(b.stack_id, 2);
}

static void test_table_for_each_sees_every_block_once(void **state)
{
    size_t sum[2] = {0, 0}, before = lp_table_count(), i;

    (void)state;
    for (i = 1; i <= 10000; i++)
        assert_int_equal(lp_table_insert(0x100000 + i * 16, i, 1, NULL), 0);
    assert_int_equal(lp_table_count(), before + 10000);
    lp_table_for_each(count_cb, sum);
    assert_int_equal(sum[0], before + 10000);
    for (i = 1; i <= 10000; i++)
        assert_int_equal(lp_table_remove(0x100000 + i * 16, NULL), 0);
    assert_int_equal(lp_table_count(), before);
}

/* Random churn against a plain array: every live address is found with
 * its size, every removed one is gone (backward-shift deletion keeps
 * probe runs intact), through several table growths. */
static void test_table_churn_matches_a_reference(void **state)
{
    enum { N = 20000 };
    static uintptr_t live[N];
    static size_t sizes[N];
    unsigned seed = 7, i, round;
    uintptr_t next = 0x7f0000001000u;
    size_t before = lp_table_count();
    struct lp_block b;

    (void)state;
    for (i = 0; i < N; i++) {
        live[i] = next;
        sizes[i] = i;
        next += 16 * (1 + (i % 5));
        assert_int_equal(lp_table_insert(live[i], sizes[i], 1, NULL), 0);
    }
    for (round = 0; round < 5 * N; round++) {
        seed = seed * 1103515245u + 12345u;
        i = (seed >> 8) % N;
        assert_int_equal(lp_table_remove(live[i], &b), 0);
        assert_int_equal(b.size, sizes[i]);
        assert_int_equal(lp_table_find(live[i], NULL), -ENOENT);
        live[i] = next;
        sizes[i] = round;
        next += 48;
        assert_int_equal(lp_table_insert(live[i], sizes[i], 2, NULL), 0);
    }
    for (i = 0; i < N; i++) {
        assert_int_equal(lp_table_find(live[i], &b), 0);
        assert_int_equal(b.size, sizes[i]);
    }
    assert_int_equal(lp_table_count(), before + N);
    for (i = 0; i < N; i++)
        assert_int_equal(lp_table_remove(live[i], NULL), 0);
    assert_int_equal(lp_table_count(), before);
}

/* The packed slot gives back every field whole, at the edges of its bit
 * widths; an address that cannot be packed is refused, not truncated. */
static void test_table_slot_keeps_every_field(void **state)
{
    const uint64_t t47 = (1ull << 47) - 1;
    uint16_t gen = lp_table_next_gen();
    struct lp_block b;

    (void)state;
    assert_int_equal(lp_table_insert_how(0x7ffffffff000u, t47, 0xffffffffu,
                                         LP_HOW_NEW_ARRAY, t47, NULL), 0);
    assert_int_equal(lp_table_find(0x7ffffffff000u, &b), 0);
    assert_true(b.addr == 0x7ffffffff000u);
    assert_true(b.size == t47);
    assert_true(b.stack_id == 0xffffffffu);
    assert_int_equal(b.how, LP_HOW_NEW_ARRAY);
    assert_true(lp_block_time(&b) == t47);
    assert_int_equal(lp_block_gen(&b), gen);
    assert_int_equal(lp_table_remove(0x7ffffffff000u, &b), 0);
    assert_true(b.size == t47 && lp_block_time(&b) == t47);
    /* Low bits of every field next to high bits of the others. */
    assert_int_equal(lp_table_insert_how(0x1010, 1, 1, LP_HOW_NEW,
                                         (1ull << 32) | 1, NULL), 0);
    assert_int_equal(lp_table_remove(0x1010, &b), 0);
    assert_true(b.size == 1 && b.stack_id == 1 && b.how == LP_HOW_NEW);
    assert_true(lp_block_time(&b) == ((1ull << 32) | 1));
    assert_int_equal(lp_table_insert(1ull << 48, 8, 1, NULL), -ENOMEM);
    assert_int_equal(lp_table_find(1ull << 48, NULL), -ENOENT);
}

static void *hammer(void *arg)
{
    uintptr_t base = (uintptr_t)arg;
    int round, i;

    for (round = 0; round < 50; round++) {
        for (i = 0; i < 1000; i++)
            if (lp_table_insert(base + i * 16, 8, 1, NULL) != 0)
                return (void *)1;
        for (i = 0; i < 1000; i++)
            if (lp_table_remove(base + i * 16, NULL) != 0)
                return (void *)1;
    }
    return NULL;
}

static void test_table_threads_do_not_lose_blocks(void **state)
{
    pthread_t t[4];
    void *rc;
    size_t before = lp_table_count();
    int i;

    (void)state;
    for (i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, hammer, (void *)(uintptr_t)(0x10000000u * (i + 1)));
    for (i = 0; i < 4; i++) {
        pthread_join(t[i], &rc);
        assert_null(rc);
    }
    assert_int_equal(lp_table_count(), before);
}

/* Big arrays grow in place (mremap, then every block re-placed where it
 * is): 600,000 blocks of one 64 MiB region fill its four shards through
 * growths by doubling and by half, in place from 64 KiB on, with huge
 * pages from 2 MiB; churn in between moves blocks while the arrays keep
 * growing. Every block is found with its fields, every removed one is
 * gone, the counts add up. */
static void test_table_grows_in_place_without_losing_blocks(void **state)
{
    enum { N = 600000 };
    uintptr_t base = 0x7e0000000000u, a;
    size_t before = lp_table_count(), i;
    struct lp_block b;

    (void)state;
    for (i = 0; i < N; i++) {
        assert_int_equal(lp_table_insert(base + 32 * i, i, (uint32_t)(i % 977) + 1,
                                         NULL), 0);
        if (i % 3 == 2) { /* churn: the block two back goes and comes back */
            a = base + 32 * (i - 2);
            assert_int_equal(lp_table_remove(a, &b), 0);
            assert_int_equal(b.size, i - 2);
            assert_int_equal(lp_table_insert(a, i - 2, (uint32_t)((i - 2) % 977) + 1,
                                             NULL), 0);
        }
    }
    assert_int_equal(lp_table_count(), before + N);
    for (i = 0; i < N; i++) {
        assert_int_equal(lp_table_find(base + 32 * i, &b), 0);
        assert_int_equal(b.size, i);
        assert_int_equal(b.stack_id, (uint32_t)(i % 977) + 1);
    }
    for (i = 0; i < N; i += 2)
        assert_int_equal(lp_table_remove(base + 32 * i, NULL), 0);
    for (i = 0; i < N; i++)
        assert_int_equal(lp_table_find(base + 32 * i, NULL),
                         i % 2 ? 0 : -ENOENT);
    for (i = 1; i < N; i += 2)
        assert_int_equal(lp_table_remove(base + 32 * i, NULL), 0);
    assert_int_equal(lp_table_count(), before);
}

/* lp_arena_remap keeps the contents, zeroes a growth's tail and moves
 * the range the scan leaves out along with the mapping. */
static void test_arena_remap_keeps_contents_and_range(void **state)
{
    size_t small = 100 << 10, big = 8 << 20, i;
    unsigned char *p = lp_arena_alloc(small), *q, *r;

    (void)state;
    assert_non_null(p);
    for (i = 0; i < small; i++)
        p[i] = (unsigned char)(i * 7 + 1);
    q = lp_arena_remap(p, small, big);
    assert_non_null(q);
    for (i = 0; i < small; i++)
        assert_int_equal(q[i], (unsigned char)(i * 7 + 1));
    for (i = small; i < big; i += 4093)
        assert_int_equal(q[i], 0);
    assert_true(lp_arena_owns((uintptr_t)q + big - 1));
    if (q != p) /* moved: the old addresses are anybody's again */
        assert_false(lp_arena_owns((uintptr_t)p));
    r = lp_arena_remap(q, big, small);
    assert_ptr_equal(r, q); /* shrinking stays in place */
    assert_false(lp_arena_owns((uintptr_t)q + big - 1));
    assert_true(lp_arena_owns((uintptr_t)q));
    /* Requests the arena packs in its chunks are not for remapping. */
    assert_null(lp_arena_remap(lp_arena_alloc(4096), 4096, big));
}

/* Past its first chunks of small pages the arena carves from 2 MiB
 * chunks aligned for a huge page each (arena.c): blocks of the largest
 * class it packs fill such a chunk exactly, one after the other from its
 * aligned start, zeroed, all recorded for the scan. */
static void test_arena_chunks_become_huge_page_aligned(void **state)
{
    enum { N = 160, PER = 32 }; /* PER blocks of 64 KiB fill 2 MiB */
    const size_t cls = 64 << 10, huge = 2 << 20;
    unsigned char *p[N];
    unsigned i, k, starts = 0;

    (void)state;
    /* Past the small chunks first (4 of 1 MiB), whatever this process
     * took from the arena before; then 10 MiB. */
    for (i = 0; i < 72; i++)
        assert_non_null(lp_arena_alloc(cls));
    for (i = 0; i < N; i++) {
        size_t j;

        p[i] = lp_arena_alloc(cls);
        assert_non_null(p[i]);
        for (j = 0; j < cls; j += 4096)
            assert_int_equal(p[i][j], 0);
        memset(p[i], 0xab, cls); /* a later block must not overlap */
        assert_true(lp_arena_owns((uintptr_t)p[i]));
        assert_true(lp_arena_owns((uintptr_t)p[i] + cls - 1));
    }
    for (i = 0; i + PER <= N; i++) {
        if ((uintptr_t)p[i] & (huge - 1))
            continue;
        /* A chunk's start: its 31 successors follow it in place. */
        for (k = 1; k < PER; k++)
            assert_ptr_equal(p[i + k], p[i] + k * cls);
        assert_true(lp_arena_owns((uintptr_t)p[i] + huge - 1));
        starts++;
        i += PER - 1;
    }
    assert_true(starts >= N / PER - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_remove_returns_what_insert_stored),
        cmocka_unit_test(test_table_insert_over_a_stale_entry_reports_it),
        cmocka_unit_test(test_table_for_each_sees_every_block_once),
        cmocka_unit_test(test_table_threads_do_not_lose_blocks),
        cmocka_unit_test(test_table_churn_matches_a_reference),
        cmocka_unit_test(test_table_slot_keeps_every_field),
        cmocka_unit_test(test_table_grows_in_place_without_losing_blocks),
        cmocka_unit_test(test_arena_remap_keeps_contents_and_range),
        cmocka_unit_test(test_arena_chunks_become_huge_page_aligned),
    };
    return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
