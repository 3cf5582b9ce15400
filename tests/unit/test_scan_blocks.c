/* SPDX-License-Identifier: MIT */
/*
 * test_scan_blocks.c - the scan's copy of the live-block table: every
 * block once, in address order, with the size, stack and time the table
 * holds for it; through the second table walk (block ranks) and through
 * the lookups it falls back to when addresses span too many bits; and the
 * final check's drain, which leaves the table empty and dead.
 */
#include "tests/unit/lp_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preload/hot/nursery.h"
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

/* Collect (or drain) and compare with what was inserted. */
static void check_how(const uintptr_t *a, size_t n, bool drain)
{
    struct lp_scan_blocks bb = {0};
    struct lp_scan_core c = {0};
    uintptr_t xor_in = 0, xor_out = 0;
    size_t i;

    insert_all(a, n);
    /* A small reserve: collect grows the arrays itself. */
    assert_int_equal(lp_scan_blocks_reserve(&bb, n / 3), 0);
    if (drain)
        assert_int_equal(lp_scan_blocks_drain(&bb, &c), 0);
    else
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
    if (drain)
        assert_int_equal(lp_table_count(), 0);
    else
        remove_all(a, n);
}

static void check(const uintptr_t *a, size_t n)
{
    check_how(a, n, false);
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

/* In a child (the drain kills the table): drain a[0..n) after inserting
 * it, and say whether every block came out once, sorted, intact. */
static bool drained_in_child(const uintptr_t *a, size_t n)
{
    pid_t pid = fork();
    int st;

    if (pid == 0) {
        struct lp_scan_blocks bb = {0};
        struct lp_scan_core c = {0};
        uintptr_t xor_in = 0, xor_out = 0;
        size_t i;

        insert_all(a, n);
        if (lp_scan_blocks_reserve(&bb, n / 3) != 0 ||
            lp_scan_blocks_drain(&bb, &c) != 0 || c.nblocks != n ||
            lp_table_count() != 0)
            _exit(1);
        for (i = 0; i < n; i++) {
            uintptr_t addr = c.addrs[i];
            const struct lp_scan_block *b = &c.blocks[i];

            if ((i > 0 && c.addrs[i - 1] >= addr) ||
                b->size != (size_t)(mix(addr) & 0xfff) ||
                b->stack_id != ((uint32_t)(addr >> 4) | 1u) ||
                (b->time & ((1ull << LP_BLOCK_TIME_BITS) - 1)) !=
                    (mix(addr + 1) & 0xffffffffffull))
                _exit(2);
            xor_in ^= mix(a[i]);
            xor_out ^= mix(addr);
        }
        _exit(xor_in == xor_out ? 0 : 3);
    }
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
           WEXITSTATUS(st) == 0;
}

static void test_scan_blocks_drain_heap_like_addresses(void **state)
{
    size_t n = 200000, i;
    uintptr_t *a = malloc(n * sizeof(*a));

    (void)state;
    assert_non_null(a);
    for (i = 0; i < n; i++)
        a[i] = (i & 1 ? 0x7f1200000000ull : 0x555500000000ull) +
               ((mix(i * 3) & 0xffffff) << 8) + 16 * (i & 7);
    n = distinct(a, n);
    assert_true(drained_in_child(a, n));
    assert_true(drained_in_child(a, 1));
    assert_true(drained_in_child(a, 2));
    assert_true(drained_in_child(a, 0));
    free(a);
}

/*
 * An address the table holds twice: a stale shared entry (its block was
 * freed behind our back) and the block a nursery now holds there, until
 * the nursery's flush settles the stale one. The scan sees one block,
 * the newer, when it collects (here) and when it drains (in a child).
 */
static bool one_block_each(struct lp_scan_core *c)
{
    return c->nblocks == 2 && c->addrs[0] == 0x7300000 &&
           c->blocks[0].size == 222 && c->blocks[0].stack_id == 7 &&
           c->addrs[1] == 0x7300040 && c->blocks[1].size == 1;
}

static void test_scan_blocks_a_stale_entry_gives_way_to_the_newer(void **state)
{
    struct lp_nursery *mine = lp_self.nursery;
    struct lp_scan_blocks bb = {0};
    struct lp_scan_core c = {0};
    struct lp_block b;
    pid_t pid;
    int st;

    (void)state;
    lp_self.nursery = NULL; /* a thread without a nursery: shared */
    assert_int_equal(lp_table_insert_how(0x7300000, 111, 5, 0, 10, NULL), 0);
    assert_int_equal(lp_table_insert_how(0x7300040, 1, 6, 0, 11, NULL), 0);
    lp_self.nursery = lp_nursery_main();
    assert_int_equal(lp_table_insert_how(0x7300000, 222, 7, 0, 20, NULL), 0);
    assert_int_equal(lp_table_count(), 3);
    assert_int_equal(lp_scan_blocks_collect(&bb, &c), 0);
    assert_true(one_block_each(&c));
    lp_scan_blocks_free(&bb);
    pid = fork();
    if (pid == 0) {
        memset(&bb, 0, sizeof(bb));
        _exit(lp_scan_blocks_drain(&bb, &c) == 0 && one_block_each(&c) ? 0
                                                                      : 1);
    }
    assert_true(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
                WEXITSTATUS(st) == 0);
    /* The newer first (its nursery), then the stale one. */
    assert_int_equal(lp_table_remove(0x7300000, &b), 0);
    assert_int_equal(b.size, 222);
    assert_int_equal(lp_table_remove(0x7300000, &b), 0);
    assert_int_equal(b.size, 111);
    assert_int_equal(lp_table_remove(0x7300040, NULL), 0);
    assert_int_equal(lp_table_count(), 0);
    lp_self.nursery = mine;
}

/*
 * The drain (last: it kills this process's table). Heap-like blocks and,
 * at the same time, addresses spanning all 48 bits, unaligned; afterwards
 * nothing is found, removes fail, and inserts are refused instead of
 * growing the table again.
 */
static void test_scan_blocks_drain_sorts_and_leaves_a_dead_table(void **state)
{
    size_t n = 300000, i;
    uintptr_t *a = malloc(n * sizeof(*a));
    struct lp_block b;

    (void)state;
    assert_non_null(a);
    for (i = 0; i < n; i++)
        a[i] = (i & 1 ? 0x7f1200000000ull : 0x555500000000ull) +
               ((mix(i) & 0xffffff) << 8) + 16 * (i & 7);
    n = distinct(a, n);
    /* Several drains in one process: the first leaves the table dead, so
     * only the first sees blocks. */
    {
        size_t m = 140000;
        uintptr_t *f = malloc(m * sizeof(*f));

        assert_non_null(f);
        f[0] = 1;
        f[1] = 0xffffffffffffull;
        for (i = 2; i < m; i++)
            f[i] = ((mix(i + 7) & 0x7fffffffffffull) | 1) + 2;
        m = distinct(f, m);
        /* Both sets at once. */
        for (i = 0; i < m; i++)
            assert_int_equal(lp_table_find(f[i], NULL), -ENOENT);
        insert_all(f, m);
        {
            struct lp_scan_blocks bb = {0};
            struct lp_scan_core c = {0};

            insert_all(a, n);
            assert_int_equal(lp_scan_blocks_reserve(&bb, 10), 0);
            assert_int_equal(lp_scan_blocks_drain(&bb, &c), 0);
            assert_int_equal(c.nblocks, n + m);
            for (i = 0; i < c.nblocks; i++) {
                uintptr_t addr = c.addrs[i];

                if (i > 0)
                    assert_true(c.addrs[i - 1] < addr);
                assert_true(c.blocks[i].size == (size_t)(mix(addr) & 0xfff));
                assert_true(c.blocks[i].stack_id ==
                            ((uint32_t)(addr >> 4) | 1u));
            }
            lp_scan_blocks_free(&bb);
        }
        free(f);
    }
    assert_int_equal(lp_table_count(), 0);
    for (i = 0; i < n; i += 97) {
        assert_int_equal(lp_table_find(a[i], &b), -ENOENT);
        assert_int_equal(lp_table_remove(a[i], &b), -ENOENT);
        assert_int_equal(lp_table_insert(a[i], 8, 1, NULL), -ENOMEM);
    }
    assert_int_equal(lp_table_count(), 0);
    check_how(a, 0, true); /* a second drain: nothing, no crash */
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_blocks_heap_like_addresses_by_rank),
        cmocka_unit_test(test_scan_blocks_full_span_falls_back_to_lookups),
        cmocka_unit_test(test_scan_blocks_drain_heap_like_addresses),
        cmocka_unit_test(test_scan_blocks_a_stale_entry_gives_way_to_the_newer),
        cmocka_unit_test(test_scan_blocks_drain_sorts_and_leaves_a_dead_table),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
