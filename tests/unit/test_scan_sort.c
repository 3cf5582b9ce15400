/* SPDX-License-Identifier: MIT */
/*
 * test_scan_sort.c - lp_scan_sort_fill: addresses written at the start of
 * the block buffer come back as whole blocks in address order, built in
 * that buffer alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "preload/scan/sort.h"

static void fill(uintptr_t addr, struct lp_scan_block *out, void *arg)
{
    size_t *calls = arg;

    memset(out, 0, sizeof(*out));
    out->addr = addr;
    out->size = (size_t)(addr * 7 + 3);
    out->stack_id = (uint32_t)(addr >> 4);
    (*calls)++;
}

static void check_sorted(size_t n, unsigned seed)
{
    /* Exactly n blocks: a sort that used memory past them would show
     * under ASan (make asan). */
    struct lp_scan_block *a = malloc((n ? n : 1) * sizeof(*a));
    uintptr_t *keys = (uintptr_t *)a;
    uint64_t x = seed, sum_in = 0, sum_out = 0;
    size_t i, calls = 0;

    assert_non_null(a);
    for (i = 0; i < n; i++) {
        uintptr_t v;

        x = x * 6364136223846793005ull + 1442695040888963407ull;
        /* Heap-like addresses: shared high bytes, 16-byte aligned, unique. */
        v = 0x7f0000000000ull + ((x >> 20) & 0xfffffff0ull);
        v = (v & ~0xfffull) | ((i & 0xff) << 4);
        v += (uint64_t)i << 32 & 0xff00000000ull;
        v += (uint64_t)(i >> 8) << 40;
        keys[i] = v;
        sum_in += v;
    }
    lp_scan_sort_fill(a, n, fill, &calls);
    assert_true(calls == n);
    for (i = 0; i < n; i++) {
        if (i > 0)
            assert_true(a[i - 1].addr < a[i].addr);
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

static void test_scan_sort_small_arrays(void **state)
{
    (void)state;
    check_sorted(0, 3);
    check_sorted(1, 4);
    check_sorted(2, 7);
    check_sorted(63, 5);
    check_sorted(64, 6);
}

/* Addresses that differ only in their low byte, and in their high bytes. */
static void test_scan_sort_addrs_every_byte_counts(void **state)
{
    uintptr_t k[6] = {0x30, 0x10, 0x7f0000000020, 0x20, 0x100000000010, 0x0},
              t[6];
    size_t i;

    (void)state;
    lp_scan_sort_addrs(k, t, 6);
    for (i = 1; i < 6; i++)
        assert_true(k[i - 1] < k[i]);
    assert_true(k[5] == 0x7f0000000020);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_sort_orders_many_blocks_by_address),
        cmocka_unit_test(test_scan_sort_small_arrays),
        cmocka_unit_test(test_scan_sort_addrs_every_byte_counts),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
