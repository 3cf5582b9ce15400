/* SPDX-License-Identifier: MIT */
/*
 * test_scan_sort.c - lp_scan_sort_blocks: the radix sort and its heapsort
 * fallback order blocks by address and keep each record whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "preload/scan_sort.h"

static void check_sorted(size_t n, unsigned seed)
{
    struct lp_scan_block *a = calloc(n + 1, sizeof(*a));
    uint64_t x = seed, sum_in = 0, sum_out = 0;
    size_t i;

    assert_non_null(a);
    for (i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        /* Heap-like addresses: shared high bytes, 16-byte aligned, unique. */
        a[i].addr = 0x7f0000000000ull + ((x >> 20) & 0xfffffff0ull) + i * 0x100000000ull % 0x1000;
        a[i].addr = (a[i].addr & ~0xfffull) | ((i & 0xff) << 4);
        a[i].addr += (uint64_t)i << 32 & 0xff00000000ull;
        a[i].size = (size_t)(a[i].addr * 7 + 3);
        a[i].stack_id = (uint32_t)(a[i].addr >> 4);
        sum_in += a[i].addr;
    }
    lp_scan_sort_blocks(a, n);
    for (i = 0; i < n; i++) {
        if (i > 0)
            assert_true(a[i - 1].addr <= a[i].addr);
        assert_true(a[i].size == (size_t)(a[i].addr * 7 + 3));
        assert_true(a[i].stack_id == (uint32_t)(a[i].addr >> 4));
        sum_out += a[i].addr;
    }
    assert_true(sum_in == sum_out);
    free(a);
}

static void test_scan_sort_orders_many_blocks_by_address(void **state)
{
    (void)state;
    check_sorted(200000, 1);
    check_sorted(4097, 2);
}

static void test_scan_sort_small_arrays_use_the_fallback(void **state)
{
    (void)state;
    check_sorted(0, 3);
    check_sorted(1, 4);
    check_sorted(63, 5);
    check_sorted(64, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_sort_orders_many_blocks_by_address),
        cmocka_unit_test(test_scan_sort_small_arrays_use_the_fallback),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
