/* SPDX-License-Identifier: MIT */
/*
 * test_scan_blocks.c - the scan's copy of the live-block table: every
 * block once, in address order, with the size, stack and time the table
 * holds for it; through the second table walk (block ranks) and through
 * the lookups it falls back to when addresses span too many bits.
 */
#include "tests/unit/lp_test.h"

#include <stdlib.h>

#include "preload/hot/table.h"
#include "preload/scan/blocks.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static void insert_all(const uintptr_t *a, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        assert_true(lp_table_insert_how(a[i], (size_t)(mix(a[i]) & 0xfff),
                                        (uint32_t)(a[i] >> 4) | 1u, 0,
                                        mix(a[i] + 1) & 0xffffffffffull,
                                        NULL) == 0);
}

static void remove_all(const uintptr_t *a, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        assert_int_equal(lp_table_remove(a[i], NULL), 0);
    assert_int_equal(lp_table_count(), 0);
}

/* Drop repeated addresses (mix may repeat one: the first stays); the new
 * count. The table serves as the set, and is left empty. */
static size_t distinct(uintptr_t *a, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (lp_table_find(a[i], NULL) == 0) {
            a[i] = a[--n];
            i--;
            continue;
        }
        assert_int_equal(lp_table_insert(a[i], 1, 1, NULL), 0);
    }
    remove_all(a, n);
    return n;
}

/* Collect and compare with what was inserted. */
static void check(const uintptr_t *a, size_t n)
{
    struct lp_scan_blocks bb = {0};
    struct lp_scan_core c = {0};
    uintptr_t xor_in = 0, xor_out = 0;
    size_t i;

    insert_all(a, n);
    /* A small reserve: collect grows the arrays itself. */
    assert_int_equal(lp_scan_blocks_reserve(&bb, n / 3), 0);
    assert_int_equal(lp_scan_blocks_collect(&bb, &c), 0);
    assert_int_equal(c.nblocks, n);
    assert_true(c.stack_cap >= 2 * n + 2 && c.dir_cap >= n / 2 + 2);
    for (i = 0; i < n; i++) {
        uintptr_t addr = c.addrs[i];
        const struct lp_scan_block *b = &c.blocks[i];

        if (i > 0)
            assert_true(c.addrs[i - 1] < addr);
        assert_true(b->size == (size_t)(mix(addr) & 0xfff));
        assert_true(b->stack_id == ((uint32_t)(addr >> 4) | 1u));
        assert_true((b->time & ((1ull << LP_BLOCK_TIME_BITS) - 1)) ==
                    (mix(addr + 1) & 0xffffffffffull));
        xor_in ^= mix(a[i]);
        xor_out ^= mix(addr);
    }
    assert_true(xor_in == xor_out);
    lp_scan_blocks_free(&bb);
    remove_all(a, n);
}

static void test_scan_blocks_heap_like_addresses_by_rank(void **state)
{
    size_t n = 50000, i;
    uintptr_t *a = malloc(n * sizeof(*a));

    (void)state;
    assert_non_null(a);
    /* Two heaps far apart, 16-byte aligned, in no order. */
    for (i = 0; i < n; i++)
        a[i] = (i & 1 ? 0x7f1200000000ull : 0x555500000000ull) +
               ((mix(i) & 0xffffff) << 8) + 16 * (i & 7);
    n = distinct(a, n);
    check(a, n);
    check(a, 1);
    check(a, 2);
    free(a);
}

/* Addresses spanning all 48 bits the table keeps, unaligned, and more
 * blocks than leave room for an index beside a 48-bit offset (17 bits
 * and more): the blocks are looked up one by one. */
static void test_scan_blocks_full_span_falls_back_to_lookups(void **state)
{
    size_t n = 140000, i;
    uintptr_t *a = malloc(n * sizeof(*a));

    (void)state;
    assert_non_null(a);
    a[0] = 1;
    a[1] = 0xffffffffffffull;
    for (i = 2; i < n; i++)
        a[i] = ((mix(i) & 0x7fffffffffffull) | 1) + 2;
    n = distinct(a, n);
    check(a, n);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_blocks_heap_like_addresses_by_rank),
        cmocka_unit_test(test_scan_blocks_full_span_falls_back_to_lookups),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
