/* SPDX-License-Identifier: MIT */
/* test_present.c - the runs of pages the kernel holds (present.c), by
 * the ioctl and by the pagemap read alike; and the leak scan reading only
 * those of a big private anonymous root or block: its verdicts are the
 * ones a full read gives, and the pages it skipped stay unmapped. */
#include "tests/unit/lp_test.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload/scan/classify.h"
#include "preload/scan/present.h"

#define PG 4096ul

static uintptr_t got[64][2];
static size_t ngot;

static void collect(uintptr_t a, uintptr_t b, void *arg)
{
    (void)arg;
    assert_true(ngot < LP_ARRAY_SIZE(got));
    assert_true(a < b);
    if (ngot)
        assert_true(got[ngot - 1][1] < a); /* ordered, merged */
    got[ngot][0] = a;
    got[ngot][1] = b;
    ngot++;
}

static char *fresh(size_t len)
{
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    assert_true(p != MAP_FAILED);
    return p;
}

/* Pages never written are left out, written ones come in merged runs,
 * a page given back (MADV_DONTNEED) is out again; runs are clipped to
 * an unaligned range. */
static void runs_in_mode(int mode)
{
    size_t npages = 16384, i;
    char *p = fresh(npages * PG);
    uintptr_t base = (uintptr_t)p, rest = 0;
    static const size_t touch[] = {0, 5, 6, 7, 1000, 1001, 9000, 16383};

    for (i = 0; i < LP_ARRAY_SIZE(touch); i++)
        p[touch[i] * PG + 8] = 1;
    assert_int_equal(madvise(p + 1001 * PG, PG, MADV_DONTNEED), 0);
    lp_present_mode = mode;
    ngot = 0;
    assert_true(lp_present_runs(base + 100, base + npages * PG - 8, collect,
                                NULL, &rest));
    assert_int_equal(rest, base + npages * PG - 8);
    assert_int_equal(ngot, 5);
    assert_int_equal(got[0][0], base + 100);
    assert_int_equal(got[0][1], base + PG);
    assert_int_equal(got[1][0], base + 5 * PG);
    assert_int_equal(got[1][1], base + 8 * PG);
    assert_int_equal(got[2][0], base + 1000 * PG);
    assert_int_equal(got[2][1], base + 1001 * PG);
    assert_int_equal(got[3][0], base + 9000 * PG);
    assert_int_equal(got[3][1], base + 9001 * PG);
    assert_int_equal(got[4][0], base + 16383 * PG);
    assert_int_equal(got[4][1], base + npages * PG - 8);
    lp_present_mode = 0;
    munmap(p, npages * PG);
}

static void test_present_runs_by_ioctl_or_read(void **state)
{
    (void)state;
    runs_in_mode(0);
}

static void test_present_runs_by_pagemap_read(void **state)
{
    (void)state;
    runs_in_mode(1);
}

static void test_present_undecided_leaves_all_to_caller(void **state)
{
    char *p = fresh(4 * PG);
    uintptr_t rest = 0;

    (void)state;
    p[0] = 1;
    lp_present_mode = 2;
    ngot = 0;
    assert_false(lp_present_runs((uintptr_t)p, (uintptr_t)p + 4 * PG,
                                 collect, NULL, &rest));
    assert_int_equal(ngot, 0);
    assert_int_equal(rest, (uintptr_t)p);
    lp_present_mode = 0;
    munmap(p, 4 * PG);
}

/* --- the scan ------------------------------------------------------- */

static size_t resident(const char *p, size_t len)
{
    unsigned char v[4096];
    size_t n = len / PG, i, r = 0;

    assert_true(n <= sizeof(v));
    assert_int_equal(mincore((void *)p, len, v), 0);
    for (i = 0; i < n; i++)
        r += v[i] & 1;
    return r;
}

/* A scan core over two blocks A (at the arena's start) and B, with two
 * mappings: the root's and the arena's, both private anonymous. */
struct two_blocks {
    struct lp_scan_block blocks[2];
    uintptr_t keys[2];
    uint32_t links[2], stack[6], dir[4];
    struct lp_scan_ind inds[3];
    struct lp_scan_map maps[2];
    struct lp_scan_core core;
};

static void two_blocks_init(struct two_blocks *t, const char *root,
                            size_t root_len, const char *arena,
                            size_t arena_len, size_t a_size, uintptr_t b,
                            bool safe)
{
    uintptr_t a = (uintptr_t)arena;

    memset(t, 0, sizeof(*t));
    t->blocks[0].size = a_size;
    t->blocks[1].size = 64;
    t->blocks[0].stack_id = 1;
    t->blocks[1].stack_id = 2;
    t->keys[0] = a;
    t->keys[1] = b;
    t->maps[0] = (struct lp_scan_map){(uintptr_t)root, (uintptr_t)root + root_len,
                                      LP_SCAN_MAP_R | LP_SCAN_MAP_W};
    t->maps[1] = (struct lp_scan_map){a, a + arena_len,
                                      LP_SCAN_MAP_R | LP_SCAN_MAP_W};
    if (t->maps[1].lo < t->maps[0].lo) {
        struct lp_scan_map m = t->maps[0];

        t->maps[0] = t->maps[1];
        t->maps[1] = m;
    }
    t->core.blocks = t->blocks;
    t->core.addrs = t->keys;
    t->core.nblocks = 2;
    t->core.link = t->links;
    t->core.ind = t->inds;
    t->core.stack = t->stack;
    t->core.stack_cap = LP_ARRAY_SIZE(t->stack);
    t->core.dir = t->dir;
    t->core.dir_cap = LP_ARRAY_SIZE(t->dir);
    t->core.maps = t->maps;
    t->core.nmaps = 2;
    t->core.heuristics = LP_SCAN_HEUR_ALL;
    t->core.safe_read = safe;
    t->core.safe_blocks = safe;
}

/*
 * A 16 MiB root mapping and a 16 MiB arena, each written in two pages.
 * Block A (8 MiB) at the arena's start holds, 6 MiB in, the only pointer
 * to block B; the root, 12 MiB in, the only pointer to A (when linked).
 * Linked: both still reachable; not: A definitely lost, B indirectly.
 * Either way the scan leaves the pages nobody wrote unmapped.
 */
static void scan_sparse_case(bool linked, bool safe)
{
    size_t len = 16ul << 20;
    char *root = fresh(len), *arena = fresh(len);
    uintptr_t a = (uintptr_t)arena, b = a + (12ul << 20);
    struct two_blocks t;
    struct lp_scan_core *c = &t.core;
    struct lp_scan_block *blocks = t.blocks;
    size_t before;

    two_blocks_init(&t, root, len, arena, len, 8ul << 20, b, safe);
    root[0] = 1; /* written, no pointer */
    *(uintptr_t *)(arena + (6ul << 20)) = b;
    *(uintptr_t *)b = 0;
    if (linked)
        *(uintptr_t *)(root + (12ul << 20)) = a;
    else
        root[12ul << 20] = 1;
    before = resident(root, len) + resident(arena, len);
    lp_scan_core_begin(c);
    lp_scan_core_root(c, (uintptr_t)root, (uintptr_t)root + len);
    lp_scan_core_finish(c);
    assert_int_equal(resident(root, len) + resident(arena, len), before);
    if (linked) {
        assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
        assert_int_equal(blocks[1].kind, LP_KIND_REACHABLE);
    } else {
        assert_int_equal(blocks[0].kind, LP_KIND_DEFINITE);
        assert_int_equal(blocks[1].kind, LP_KIND_INDIRECT);
        assert_int_equal(lp_scan_core_indirect_bytes(c, 0), 64);
    }
    munmap(root, len);
    munmap(arena, len);
}

static void test_scan_reads_only_pages_the_kernel_holds(void **state)
{
    (void)state;
    scan_sparse_case(true, false);
    scan_sparse_case(false, false);
}

static void test_scan_safe_reads_only_pages_the_kernel_holds(void **state)
{
    (void)state;
    scan_sparse_case(true, true);
    scan_sparse_case(false, true);
}

/* The lowest descriptor number free now. */
static int lowest_free_fd(void)
{
    int fd = dup(0);

    assert_true(fd >= 0);
    close(fd);
    return fd;
}

/*
 * A block of 40 KiB (above LP_PRESENT_MIN, in a 256 KiB arena: a table a
 * program calloc'ed and wrote in its first page) is read where the
 * kernel holds pages only, and the pagemap descriptor the scan kept open
 * is closed at its end.
 */
static void test_scan_small_sparse_block(void **state)
{
    size_t len = 256ul << 10, blen = 40ul << 10;
    char *root = fresh(PG * 4), *arena = fresh(len);
    uintptr_t a = (uintptr_t)arena, b = a + (128ul << 10);
    struct two_blocks t;
    size_t before;
    int fd0 = lowest_free_fd();

    (void)state;
    assert_true(blen >= LP_PRESENT_MIN);
    two_blocks_init(&t, root, PG * 4, arena, len, blen, b, false);
    *(uintptr_t *)arena = b;  /* A's first page: the pointer to B */
    *(uintptr_t *)b = 0;
    *(uintptr_t *)root = a;   /* the root: the pointer to A */
    before = resident(arena, len);
    lp_scan_core_begin(&t.core);
    lp_scan_core_root(&t.core, (uintptr_t)root, (uintptr_t)root + 8);
    assert_int_equal(lowest_free_fd(), fd0 + 1); /* kept while it scans */
    lp_scan_core_finish(&t.core);
    assert_int_equal(lowest_free_fd(), fd0);
    assert_int_equal(resident(arena, len), before);
    assert_int_equal(t.blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(t.blocks[1].kind, LP_KIND_REACHABLE);
    munmap(root, PG * 4);
    munmap(arena, len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_present_runs_by_ioctl_or_read),
        cmocka_unit_test(test_present_runs_by_pagemap_read),
        cmocka_unit_test(test_present_undecided_leaves_all_to_caller),
        cmocka_unit_test(test_scan_reads_only_pages_the_kernel_holds),
        cmocka_unit_test(test_scan_safe_reads_only_pages_the_kernel_holds),
        cmocka_unit_test(test_scan_small_sparse_block),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
