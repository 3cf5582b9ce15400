/* SPDX-License-Identifier: MIT */
/*
 * test_scan_sort.c - lp_scan_sort_addrs: the scan's block addresses come
 * back in ascending order, with n words of scratch and nothing else; and
 * lp_scan_sort_pairs, in place, each block moving with its address.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "preload/scan/sort.h"

static void check_sorted(size_t n, unsigned seed)
{
    /* Exactly n keys and n scratch words: a sort that used memory past
     * them would show under ASan (make asan). */
    uintptr_t *keys = malloc((n ? n : 1) * sizeof(*keys));
    uintptr_t *t = malloc((n ? n : 1) * sizeof(*t));
    uint64_t x = seed, sum_in = 0, sum_out = 0, xor_in = 0, xor_out = 0;
    size_t i;

    assert_non_null(keys);
    assert_non_null(t);
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
        xor_in ^= v * 0x9e3779b97f4a7c15ull;
    }
    lp_scan_sort_addrs(keys, t, n);
    for (i = 0; i < n; i++) {
        if (i > 0)
            assert_true(keys[i - 1] < keys[i]);
        sum_out += keys[i];
        xor_out ^= keys[i] * 0x9e3779b97f4a7c15ull;
    }
    assert_true(sum_in == sum_out);
    assert_true(xor_in == xor_out);
    free(keys);
    free(t);
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

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* Keys of a few shapes (heap-like, full span and unaligned, a handful of
 * distinct values repeated), each with a block that names its key. */
static void check_pairs(size_t n, unsigned shape)
{
    uintptr_t *k = malloc((n ? n : 1) * sizeof(*k));
    struct lp_scan_block *b = malloc((n ? n : 1) * sizeof(*b));
    uint64_t xor_in = 0, xor_out = 0;
    size_t i;

    assert_non_null(k);
    assert_non_null(b);
    for (i = 0; i < n; i++) {
        uint64_t x = mix(i * 7 + shape);

        if (shape == 0)
            k[i] = (i & 1 ? 0x7f1200000000ull : 0x555500000000ull) +
                   ((x & 0x3ffffff) << 4);
        else if (shape == 1)
            k[i] = x & 0xffffffffffffull;
        else
            k[i] = 0x1000 + (x % 5) * 0x10000000000ull + (x % 3);
        memset(&b[i], 0, sizeof(b[i]));
        b[i].size = (size_t)mix(k[i]);
        b[i].stack_id = (uint32_t)i;
        xor_in ^= mix(k[i] + i);
    }
    lp_scan_sort_pairs(k, b, n);
    for (i = 0; i < n; i++) {
        if (i > 0)
            assert_true(k[i - 1] <= k[i]);
        assert_true(b[i].size == (size_t)mix(k[i]));
        xor_out ^= mix(k[i] + b[i].stack_id);
    }
    assert_true(xor_in == xor_out); /* every pair once, unbroken */
    free(k);
    free(b);
}

static void test_scan_sort_pairs_in_place(void **state)
{
    unsigned shape;

    (void)state;
    for (shape = 0; shape < 3; shape++) {
        check_pairs(300000, shape);
        check_pairs(1000, shape);
        check_pairs(25, shape);
        check_pairs(2, shape);
        check_pairs(1, shape);
        check_pairs(0, shape);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_sort_pairs_in_place),
        cmocka_unit_test(test_scan_sort_orders_many_blocks_by_address),
        cmocka_unit_test(test_scan_sort_small_arrays),
        cmocka_unit_test(test_scan_sort_addrs_every_byte_counts),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
