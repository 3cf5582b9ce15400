/* SPDX-License-Identifier: MIT */
/* test_scan.c - the mark/classify core on synthetic memory. Every expected
 * verdict here was checked against Valgrind 3.19 Memcheck on an equivalent
 * program. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload/scan/classify.h"

/* A fake heap: blocks are carved out of it at fixed word offsets. */
#define HEAP_WORDS 512
static uintptr_t heap[HEAP_WORDS] __attribute__((aligned(64)));
static uintptr_t roots[16];

#define MAXB 16
static struct lp_scan_block blocks[MAXB];
static uintptr_t keys[MAXB]; /* the blocks' addresses, ascending */
static uint32_t links[MAXB];
static struct lp_scan_ind inds[MAXB / 2 + 2];
static uint32_t markstack[2 * MAXB + 2];
static uint32_t dirbuf[MAXB / 2 + 2]; /* the address directory */
static struct lp_scan_core core;

static void reset(void)
{
    memset(heap, 0, sizeof(heap));
    memset(roots, 0, sizeof(roots));
    memset(blocks, 0, sizeof(blocks));
    memset(keys, 0, sizeof(keys));
    memset(&core, 0, sizeof(core));
    core.blocks = blocks;
    core.addrs = keys;
    core.link = links;
    core.ind = inds;
    core.stack = markstack;
    core.stack_cap = LP_ARRAY_SIZE(markstack);
    core.dir = dirbuf;
    core.dir_cap = LP_ARRAY_SIZE(dirbuf);
    core.heuristics = LP_SCAN_HEUR_ALL;
}

/* Block i lives at heap word off (blocks must be added in address order). */
static uintptr_t *add_block(size_t off, size_t size)
{
    struct lp_scan_block *b = &blocks[core.nblocks];

    keys[core.nblocks] = (uintptr_t)&heap[off];
    b->size = size;
    b->stack_id = (uint32_t)core.nblocks + 1;
    core.nblocks++;
    return &heap[off];
}

static void run(void)
{
    lp_scan_core_begin(&core);
    lp_scan_core_root(&core, (uintptr_t)roots,
                      (uintptr_t)roots + sizeof(roots));
    lp_scan_core_finish(&core);
}

static void test_scan_start_pointer_means_still_reachable(void **state)
{
    uintptr_t *a;

    (void)state;
    reset();
    a = add_block(0, 32);
    roots[3] = (uintptr_t)a;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(blocks[0].heur, LP_HEUR_NONE);
    assert_int_equal(core.kind_bytes[LP_KIND_REACHABLE], 32);
}

static void test_scan_interior_pointer_means_possibly_lost(void **state)
{
    uintptr_t *a;

    (void)state;
    reset();
    a = add_block(0, 64);
    roots[0] = (uintptr_t)a + 10;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_POSSIBLE);
    assert_int_equal(core.kind_blocks[LP_KIND_POSSIBLE], 1);
}

static void test_scan_nothing_means_definitely_lost(void **state)
{
    (void)state;
    reset();
    add_block(0, 100);
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_DEFINITE);
    assert_int_equal(lp_scan_core_indirect_bytes(&core, 0), 0);
    assert_int_equal(core.kind_bytes[LP_KIND_DEFINITE], 100);
}

static void test_scan_reachable_chain_stays_reachable(void **state)
{
    uintptr_t *a, *b, *c;

    (void)state;
    reset();
    a = add_block(0, 16);
    b = add_block(8, 16);
    c = add_block(16, 16);
    a[0] = (uintptr_t)b;
    b[1] = (uintptr_t)c;
    roots[5] = (uintptr_t)a;
    run();
    for (int i = 0; i < 3; i++)
        assert_int_equal(blocks[i].kind, LP_KIND_REACHABLE);
}

/* Like examples/src/leaks.c's leak_indirect(): head -> n1 -> n2. */
static void test_scan_lost_chain_is_one_definite_with_indirects(void **state)
{
    uintptr_t *h, *n1, *n2;

    (void)state;
    reset();
    h = add_block(0, 32);
    n1 = add_block(8, 32);
    n2 = add_block(16, 32);
    h[0] = (uintptr_t)n1;
    n1[0] = (uintptr_t)n2;
    (void)n2;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_DEFINITE);
    assert_int_equal(lp_scan_core_indirect_bytes(&core, 0), 64);
    assert_int_equal(lp_scan_core_indirect_blocks(&core, 0), 2);
    assert_int_equal(blocks[1].kind, LP_KIND_INDIRECT);
    assert_int_equal(blocks[2].kind, LP_KIND_INDIRECT);
    assert_int_equal(lp_scan_core_leader(&core, 1), 0);
    assert_int_equal(lp_scan_core_leader(&core, 2), 0);
    assert_int_equal(core.kind_bytes[LP_KIND_DEFINITE], 32);
    assert_int_equal(core.kind_bytes[LP_KIND_INDIRECT], 64);
}

/* A lost block's interior pointer still makes its target indirect. */
static void test_scan_lost_interior_pointer_makes_indirect(void **state)
{
    uintptr_t *a, *b;

    (void)state;
    reset();
    a = add_block(0, 16);
    b = add_block(8, 64);
    a[0] = (uintptr_t)b + 8;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_DEFINITE);
    assert_int_equal(lp_scan_core_indirect_bytes(&core, 0), 64);
    assert_int_equal(blocks[1].kind, LP_KIND_INDIRECT);
}

/* A lost 2-cycle: the lower address leads, whatever points where. */
static void test_scan_lost_cycle_lowest_address_leads(void **state)
{
    uintptr_t *a, *b;

    (void)state;
    reset();
    a = add_block(0, 48);
    b = add_block(8, 16);
    a[0] = (uintptr_t)b;
    b[0] = (uintptr_t)a;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_DEFINITE);
    assert_int_equal(lp_scan_core_indirect_bytes(&core, 0), 16);
    assert_int_equal(lp_scan_core_indirect_blocks(&core, 0), 1);
    assert_int_equal(blocks[1].kind, LP_KIND_INDIRECT);
    assert_int_equal(lp_scan_core_leader(&core, 1), 0);
}

/* x (low) -> x1 forms a clique first; z (high) -> x absorbs it. */
static void test_scan_later_leader_absorbs_earlier_clique(void **state)
{
    uintptr_t *x, *x1, *z;

    (void)state;
    reset();
    x = add_block(0, 16);
    x1 = add_block(8, 24);
    z = add_block(16, 48);
    x[0] = (uintptr_t)x1;
    z[0] = (uintptr_t)x;
    run();
    assert_int_equal(blocks[2].kind, LP_KIND_DEFINITE);
    assert_int_equal(lp_scan_core_indirect_bytes(&core, 2), 40);
    assert_int_equal(lp_scan_core_indirect_blocks(&core, 2), 2);
    assert_int_equal(blocks[0].kind, LP_KIND_INDIRECT);
    assert_int_equal(lp_scan_core_indirect_bytes(&core, 0), 0);
    assert_int_equal(blocks[1].kind, LP_KIND_INDIRECT);
    assert_int_equal(lp_scan_core_leader(&core, 0), 2);
    assert_int_equal(lp_scan_core_leader(&core, 1), 2);
    assert_int_equal(core.kind_blocks[LP_KIND_DEFINITE], 1);
    assert_int_equal(core.kind_bytes[LP_KIND_INDIRECT], 40);
}

/* root -interior-> a -start-> b: both possibly lost. */
static void test_scan_blocks_below_a_possible_block_are_possible(void **state)
{
    uintptr_t *a, *b;

    (void)state;
    reset();
    a = add_block(0, 16);
    b = add_block(8, 40);
    a[0] = (uintptr_t)b;
    roots[0] = (uintptr_t)a + 4;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_POSSIBLE);
    assert_int_equal(blocks[1].kind, LP_KIND_POSSIBLE);
}

/* A possible block later reached by a start pointer is rescanned, so its
 * children become reachable too. */
static void test_scan_possible_upgrades_to_reachable(void **state)
{
    uintptr_t *a, *b;

    (void)state;
    reset();
    a = add_block(0, 16);
    b = add_block(8, 40);
    a[0] = (uintptr_t)b;
    roots[0] = (uintptr_t)a + 4;
    roots[9] = (uintptr_t)a;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(blocks[1].kind, LP_KIND_REACHABLE);
}

static void test_scan_zero_byte_block_is_a_one_byte_range(void **state)
{
    uintptr_t *z, *after;

    (void)state;
    reset();
    z = add_block(0, 0);
    after = add_block(2, 16);
    roots[0] = (uintptr_t)z;
    roots[1] = (uintptr_t)z + 1; /* past the 1-byte range: not a pointer */
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(blocks[1].kind, LP_KIND_DEFINITE);
    assert_int_equal(lp_scan_core_find(&core, (uintptr_t)z), 0);
    assert_int_equal(lp_scan_core_find(&core, (uintptr_t)z + 1), -1);
    assert_int_equal(lp_scan_core_find(&core, (uintptr_t)after + 15), 1);
    /* 0-byte lost blocks: 0 bytes in 1 block. */
    reset();
    add_block(0, 0);
    run();
    assert_int_equal(core.kind_blocks[LP_KIND_DEFINITE], 1);
    assert_int_equal(core.kind_bytes[LP_KIND_DEFINITE], 0);
}

static void test_scan_unaligned_words_are_not_pointers(void **state)
{
    uintptr_t *a, v;

    (void)state;
    reset();
    a = add_block(0, 16);
    v = (uintptr_t)a;
    memcpy((char *)roots + 3, &v, sizeof(v));
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_DEFINITE);
}

static void test_scan_heuristic_stdstring(void **state)
{
    uintptr_t *s;

    (void)state;
    reset();
    /* old COW std::string rep: length, capacity, refcount, chars + NUL */
    s = add_block(0, 3 * 8 + 20 + 1);
    s[0] = 5;
    s[1] = 20;
    roots[0] = (uintptr_t)s + 24;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(blocks[0].heur, LP_HEUR_STDSTRING);
    assert_int_equal(core.heur_bytes[LP_HEUR_STDSTRING], 45);
    assert_int_equal(core.heur_blocks[LP_HEUR_STDSTRING], 1);
    /* length > capacity: not a string. */
    reset();
    s = add_block(0, 3 * 8 + 20 + 1);
    s[0] = 21;
    s[1] = 20;
    roots[0] = (uintptr_t)s + 24;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_POSSIBLE);
}

static void test_scan_heuristic_length64(void **state)
{
    uintptr_t *p;

    (void)state;
    reset();
    p = add_block(0, 8 + 33);
    p[0] = 33;
    roots[0] = (uintptr_t)p + 8;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(blocks[0].heur, LP_HEUR_LENGTH64);
}

static void test_scan_heuristic_newarray(void **state)
{
    uintptr_t *p;

    (void)state;
    reset();
    p = add_block(0, 8 + 3 * 12); /* 3 elements of 12 bytes */
    p[0] = 3;
    roots[0] = (uintptr_t)p + 8;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(blocks[0].heur, LP_HEUR_NEWARRAY);
    /* count does not divide the rest: possibly lost */
    reset();
    p = add_block(0, 8 + 3 * 12);
    p[0] = 5;
    roots[0] = (uintptr_t)p + 8;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_POSSIBLE);
    assert_int_equal(blocks[0].heur, LP_HEUR_NONE);
}

/* A heuristic-only block that a start pointer reaches later counts as a
 * plain reachable block (Memcheck clears the heuristic). */
static void test_scan_start_pointer_clears_heuristic(void **state)
{
    uintptr_t *p;

    (void)state;
    reset();
    p = add_block(0, 8 + 40);
    p[0] = 10;
    roots[0] = (uintptr_t)p + 8;
    roots[1] = (uintptr_t)p;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(blocks[0].heur, LP_HEUR_NONE);
    assert_int_equal(core.heur_blocks[LP_HEUR_NEWARRAY], 0);
}

/* Memcheck 3.19: root -interior-> a -length64-> b: b is possibly lost yet
 * counted under "of which reachable via heuristic". */
static void test_scan_heuristic_below_possible_block_is_counted(void **state)
{
    uintptr_t *a, *b;

    (void)state;
    reset();
    a = add_block(0, 16);
    b = add_block(8, 8 + 32);
    b[0] = 32;
    a[0] = (uintptr_t)b + 8;
    roots[0] = (uintptr_t)a + 4;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_POSSIBLE);
    assert_int_equal(blocks[1].kind, LP_KIND_POSSIBLE);
    assert_int_equal(core.heur_bytes[LP_HEUR_LENGTH64], 40);
}

static void test_scan_heuristics_off_leave_possible(void **state)
{
    uintptr_t *p;

    (void)state;
    reset();
    core.heuristics = 0;
    p = add_block(0, 8 + 33);
    p[0] = 33;
    roots[0] = (uintptr_t)p + 8;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_POSSIBLE);
}

/* Multiple inheritance: fake "file" mappings for vtables (r) and code (x). */
static uintptr_t vt_area[64] __attribute__((aligned(64)));
static uintptr_t code_area[64] __attribute__((aligned(64)));

static int cmp_map(const void *a, const void *b)
{
    const struct lp_scan_map *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void test_scan_heuristic_multipleinheritance(void **state)
{
    struct lp_scan_map maps[4];
    uintptr_t *obj;
    size_t n = 0;

    (void)state;
    reset();
    memset(vt_area, 0, sizeof(vt_area));
    /* vtable 1 at vt_area[0]: two functions; vtable 2 at vt_area[8]. */
    vt_area[0] = (uintptr_t)&code_area[1];
    vt_area[1] = (uintptr_t)&code_area[2];
    vt_area[8] = 0; /* NULL entries are allowed */
    vt_area[9] = (uintptr_t)&code_area[3];
    vt_area[10] = (uintptr_t)&code_area[4];
    /* maps, sorted by address */
    maps[n++] = (struct lp_scan_map){(uintptr_t)heap,
                                     (uintptr_t)heap + sizeof(heap),
                                     LP_SCAN_MAP_R};
    maps[n++] = (struct lp_scan_map){(uintptr_t)vt_area,
                                     (uintptr_t)vt_area + sizeof(vt_area),
                                     LP_SCAN_MAP_R | LP_SCAN_MAP_FILE};
    maps[n++] = (struct lp_scan_map){
        (uintptr_t)code_area, (uintptr_t)code_area + sizeof(code_area),
        LP_SCAN_MAP_R | LP_SCAN_MAP_X | LP_SCAN_MAP_FILE};
    maps[n++] = (struct lp_scan_map){(uintptr_t)roots,
                                     (uintptr_t)roots + sizeof(roots),
                                     LP_SCAN_MAP_R | LP_SCAN_MAP_W};
    qsort(maps, n, sizeof(maps[0]), cmp_map);
    core.maps = maps;
    core.nmaps = n;

    obj = add_block(0, 32); /* struct C : A, B { } with vptrs at 0 and 16 */
    obj[0] = (uintptr_t)&vt_area[0];
    obj[2] = (uintptr_t)&vt_area[8];
    roots[0] = (uintptr_t)obj + 16; /* a B* */
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(blocks[0].heur, LP_HEUR_MULTIPLEINHERITANCE);

    /* The second vptr pointing at data (not code): possibly lost. */
    obj[2] = (uintptr_t)&heap[100];
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_POSSIBLE);

    /* Without maps nothing is known to be a vtable. */
    obj[2] = (uintptr_t)&vt_area[8];
    core.maps = NULL;
    core.nmaps = 0;
    run();
    assert_int_equal(blocks[0].kind, LP_KIND_POSSIBLE);
}

/* A pointer into an unreadable page is no pointer; an unreadable root page
 * is skipped, not read (real PROT_NONE memory, safe reads). */
static void test_scan_unreadable_memory_is_skipped(void **state)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 3 * (size_t)pg, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uintptr_t *a, *b;

    (void)state;
    assert_true(m != MAP_FAILED);
    reset();
    a = add_block(0, 16);
    b = add_block(8, 16);
    /* root range: page 0 holds a pointer to b, page 1 is PROT_NONE,
     * page 2 holds a pointer to a. */
    ((uintptr_t *)m)[0] = (uintptr_t)b;
    ((uintptr_t *)(m + 2 * pg))[0] = (uintptr_t)a;
    assert_int_equal(mprotect(m + pg, (size_t)pg, PROT_NONE), 0);
    core.safe_read = true;
    lp_scan_core_begin(&core);
    lp_scan_core_root(&core, (uintptr_t)m, (uintptr_t)m + 3 * (size_t)pg);
    lp_scan_core_finish(&core);
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
    assert_int_equal(blocks[1].kind, LP_KIND_REACHABLE);

    /* maps say b's memory is unreadable: a pointer to it does not count */
    {
        struct lp_scan_map maps[2] = {
            {(uintptr_t)heap, (uintptr_t)&heap[8], LP_SCAN_MAP_R},
            {(uintptr_t)&heap[8], (uintptr_t)&heap[16], 0},
        };
        core.maps = maps;
        core.nmaps = 2;
        core.safe_read = false;
        roots[0] = (uintptr_t)b;
        roots[1] = (uintptr_t)a;
        lp_scan_core_begin(&core);
        lp_scan_core_root_words(&core, roots, 2);
        lp_scan_core_finish(&core);
        assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
        assert_int_equal(blocks[1].kind, LP_KIND_DEFINITE);
    }
    munmap(m, 3 * (size_t)pg);
}

/* Register words are roots like memory words. */
static void test_scan_register_words_are_roots(void **state)
{
    uintptr_t *a, regs[4] = {0, 0, 0, 0};

    (void)state;
    reset();
    a = add_block(0, 24);
    regs[2] = (uintptr_t)a;
    lp_scan_core_begin(&core);
    lp_scan_core_root_words(&core, regs, 4);
    lp_scan_core_finish(&core);
    assert_int_equal(blocks[0].kind, LP_KIND_REACHABLE);
}

/* A long list needs no recursion: 15 blocks, each pointing to the next. */
static void test_scan_long_lost_list_is_one_clique(void **state)
{
    uintptr_t *prev = NULL;

    (void)state;
    reset();
    for (int i = 0; i < MAXB - 1; i++) {
        uintptr_t *n = add_block((size_t)i * 4, 16);

        if (prev)
            n[0] = (uintptr_t)prev; /* higher block points to lower */
        prev = n;
    }
    run();
    /* The highest block is the only one nothing points to. */
    assert_int_equal(blocks[MAXB - 2].kind, LP_KIND_DEFINITE);
    assert_int_equal(lp_scan_core_indirect_blocks(&core, MAXB - 2), MAXB - 2);
    for (int i = 0; i < MAXB - 2; i++) {
        assert_int_equal(blocks[i].kind, LP_KIND_INDIRECT);
        assert_int_equal(lp_scan_core_leader(&core, i), MAXB - 2);
    }
}

/* The address directory only narrows the search: every address of the
 * heap (and around it) finds the block a linear search finds, with
 * blocks of every size, gaps, a 0-byte block and a block spanning many
 * directory regions. */
static long brute_find(uintptr_t a)
{
    size_t i;

    for (i = 0; i < core.nblocks; i++) {
        uintptr_t lo = keys[i], hi = lo + (blocks[i].size ? blocks[i].size : 1);

        if (a >= lo && a < hi)
            return (long)i;
    }
    return -1;
}

static void test_scan_directory_finds_what_a_linear_search_finds(void **state)
{
    static const size_t offs[] = {1, 3, 4, 10, 11, 40, 41, 42, 200, 290, 300, 490};
    static const size_t sizes[] = {8, 0, 20, 8, 64, 1, 2, 8, 700, 16, 8, 100};
    size_t i, cap;

    (void)state;
    for (cap = 2; cap <= LP_ARRAY_SIZE(dirbuf); cap += 3) {
        reset();
        for (i = 0; i < LP_ARRAY_SIZE(offs); i++)
            add_block(offs[i], sizes[i]);
        core.dir_cap = cap;
        run();
        for (uintptr_t a = (uintptr_t)heap - 64;
             a < (uintptr_t)&heap[HEAP_WORDS] + 64; a++)
            assert_int_equal(lp_scan_core_find(&core, a), brute_find(a));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_directory_finds_what_a_linear_search_finds),
        cmocka_unit_test(test_scan_start_pointer_means_still_reachable),
        cmocka_unit_test(test_scan_interior_pointer_means_possibly_lost),
        cmocka_unit_test(test_scan_nothing_means_definitely_lost),
        cmocka_unit_test(test_scan_reachable_chain_stays_reachable),
        cmocka_unit_test(test_scan_lost_chain_is_one_definite_with_indirects),
        cmocka_unit_test(test_scan_lost_interior_pointer_makes_indirect),
        cmocka_unit_test(test_scan_lost_cycle_lowest_address_leads),
        cmocka_unit_test(test_scan_later_leader_absorbs_earlier_clique),
        cmocka_unit_test(test_scan_blocks_below_a_possible_block_are_possible),
        cmocka_unit_test(test_scan_possible_upgrades_to_reachable),
        cmocka_unit_test(test_scan_zero_byte_block_is_a_one_byte_range),
        cmocka_unit_test(test_scan_unaligned_words_are_not_pointers),
        cmocka_unit_test(test_scan_heuristic_stdstring),
        cmocka_unit_test(test_scan_heuristic_length64),
        cmocka_unit_test(test_scan_heuristic_newarray),
        cmocka_unit_test(test_scan_start_pointer_clears_heuristic),
        cmocka_unit_test(test_scan_heuristic_below_possible_block_is_counted),
        cmocka_unit_test(test_scan_heuristics_off_leave_possible),
        cmocka_unit_test(test_scan_heuristic_multipleinheritance),
        cmocka_unit_test(test_scan_unreadable_memory_is_skipped),
        cmocka_unit_test(test_scan_register_words_are_roots),
        cmocka_unit_test(test_scan_long_lost_list_is_one_clique),
    };
    return cmocka_run_group_tests_name("scan", tests, NULL, NULL);
}
