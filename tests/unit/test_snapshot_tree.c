/* SPDX-License-Identifier: MIT */
/* test_snapshot_tree.c - massif's heap tree from per-stack bytes
 * (FORMATS.md 1.5): grouping by address, significance, aggregates,
 * ordering, zero-byte contexts, inlined frames. */
#include "tests/unit/lp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/hot/snapshot.h"
#include "preload/hot/stack.h"
#include "preload/massif/contexts.h"
#include "report/massif.h"

/* "0xADDR: fADDR (t.c:ADDR)", or two labels (an inlined caller) for 0x77. */
static char labels[64][64];
static int nlabels;

static int label(void *ctx, uintptr_t ip, const char **out, int max)
{
    int n = ip == 0x77 && max >= 2 ? 2 : 1, i;

    (void)ctx;
    for (i = 0; i < n; i++) {
        char *l = labels[nlabels++ % 64];

        snprintf(l, 64, "0x%lX: %s%lx (t.c:%d)", (unsigned long)ip,
                 i ? "caller_of_" : "f", (unsigned long)ip, (int)ip + i);
        out[i] = l;
    }
    return n;
}

/* Build, write, and return the tree lines of the only snapshot. */
static char *tree_text(struct lp_snapshot_ctx *c, size_t n, uint64_t heap,
                       double threshold)
{
    struct lp_massif *m = lp_massif_new("(none)", "./t", "B");
    struct lp_massif_node *root;
    char *buf = NULL, *tree;
    size_t len = 0;
    FILE *f;

    assert_non_null(m);
    root = lp_snapshot_build_tree(m, c, n, lp_snapshot_sig(heap, heap, threshold),
                                  threshold, label, NULL);
    assert_non_null(root);
    assert_int_equal(lp_massif_add_snapshot(m, 0, heap, 0, 0, LP_MASSIF_DETAILED, root), 0);
    f = open_memstream(&buf, &len);
    assert_int_equal(lp_massif_write(m, f), 0);
    fclose(f);
    lp_massif_free(m);
    tree = strstr(buf, "heap_tree=detailed\n");
    assert_non_null(tree);
    tree = strdup(tree + strlen("heap_tree=detailed\n"));
    free(buf);
    return tree;
}

static const uintptr_t fa[] = {0x10, 0x100}, fb[] = {0x10, 0x200},
                       fc[] = {0x20}, fd[] = {0x30}, fe[] = {0x40}, ff[] = {0x50};

static void test_snapshot_tree_groups_and_aggregates_as_massif(void **state)
{
    struct lp_snapshot_ctx c[] = {
        {fe, 1, 50}, {fa, 2, 6000}, {fc, 1, 900},
        {fb, 2, 3000}, {ff, 1, 0}, {fd, 1, 50},
    };
    char *t;

    (void)state;
    t = tree_text(c, 6, 10000, 1.0);
    assert_string_equal(t,
        "n3: 10000 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
        " n2: 9000 0x10: f10 (t.c:16)\n"
        "  n0: 6000 0x100: f100 (t.c:256)\n"
        "  n0: 3000 0x200: f200 (t.c:512)\n"
        " n0: 900 0x20: f20 (t.c:32)\n"
        " n0: 100 in 3 places, all below massif's threshold (1.00%)\n");
    free(t);
}

static void test_snapshot_tree_threshold_zero_keeps_zero_byte_contexts(void **state)
{
    struct lp_snapshot_ctx c[] = {
        {fe, 1, 50}, {fd, 1, 50}, {ff, 1, 0},
    };
    char *t;

    (void)state;
    t = tree_text(c, 3, 100, 0.0);
    /* Equal bytes: the lower address first. */
    assert_string_equal(t,
        "n3: 100 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
        " n0: 50 0x30: f30 (t.c:48)\n"
        " n0: 50 0x40: f40 (t.c:64)\n"
        " n0: 0 0x50: f50 (t.c:80)\n");
    free(t);
}

static void test_snapshot_tree_single_insignificant_place_is_singular(void **state)
{
    struct lp_snapshot_ctx c[] = {{fa, 2, 9990}, {fd, 1, 10}};
    char *t;

    (void)state;
    t = tree_text(c, 2, 10000, 1.0);
    assert_non_null(strstr(t, " n0: 10 in 1 place, below massif's threshold (1.00%)\n"));
    free(t);
}

static void test_snapshot_tree_expands_inlined_frames_with_one_address(void **state)
{
    static const uintptr_t fi[] = {0x77, 0x100};
    struct lp_snapshot_ctx c[] = {{fi, 2, 500}};
    char *t;

    (void)state;
    t = tree_text(c, 1, 500, 1.0);
    assert_string_equal(t,
        "n1: 500 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n"
        " n1: 500 0x77: f77 (t.c:119)\n"
        "  n1: 500 0x77: caller_of_77 (t.c:120)\n"
        "   n0: 500 0x100: f100 (t.c:256)\n");
    free(t);
}

static void test_snapshot_sig_follows_massif(void **state)
{
    (void)state;
    assert_int_equal(lp_snapshot_sig(10000, 10000, 1.0), 100);
    assert_int_equal(lp_snapshot_sig(99, 99, 1.0), 0);
    assert_int_equal(lp_snapshot_sig(0, 64, 1.0), 1);
    assert_int_equal(lp_snapshot_sig(0, 64, 0.0), 0);
    assert_int_equal(lp_snapshot_sig(1000, 1016, 2.5), 25);
}

/* A snapshot's entries for the indexed builder from bytes[1..nids]: the
 * contexts holding bytes, some holding none, and some past max_id (which
 * the builder must leave out), in a shuffled order. */
static size_t ents_of(const uint64_t *bytes, uint32_t nids, uint32_t max_id,
                      struct lp_snapshot_ent *out, unsigned *seed)
{
    size_t n = 0, i, j;

    for (i = 1; i <= nids; i++) {
        if (bytes[i] || i % 50 == 0)
            out[n++] = (struct lp_snapshot_ent){ (uint32_t)i, bytes[i] };
        else if (i > max_id && i % 7 == 0)
            out[n++] = (struct lp_snapshot_ent){ (uint32_t)i, 777 };
    }
    for (i = n; i > 1; i--) {
        struct lp_snapshot_ent t;

        *seed = *seed * 1103515245u + 12345u;
        j = (*seed >> 8) % i;
        t = out[i - 1];
        out[i - 1] = out[j];
        out[j] = t;
    }
    return n;
}

/* Write root as the only snapshot of m; return the whole file. */
static char *file_text(struct lp_massif *m, struct lp_massif_node *root,
                       uint64_t heap)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    assert_non_null(root);
    assert_int_equal(lp_massif_add_snapshot(m, 0, heap, 0, 0, LP_MASSIF_DETAILED, root), 0);
    f = open_memstream(&buf, &len);
    assert_int_equal(lp_massif_write(m, f), 0);
    fclose(f);
    return buf;
}

/* The writer's indexed builder gives the sorted builder's tree for every
 * snapshot of a file: one index, many byte sets and stack counts (later
 * contexts absent), thresholds that keep and that merge groups,
 * zero-byte contexts, and a node expanded in one tree reused in the next. */
static void test_indexed_tree_matches_sorted_builder(void **state)
{
    enum { N = 800, MAXF = 6 };
    static const uintptr_t alphabet[] = { 0x10, 0x20, 0x30, 0x77, 0x100 };
    static uintptr_t frames[N][MAXF];
    static struct lp_snapshot_ctx sorted[N], sub[N];
    static uint32_t sorted_id[N];
    static uint64_t bytes[N + 1];
    static struct lp_snapshot_ent ents[N];
    struct lp_snapshot_index *ix;
    unsigned seed = 777, i, k, round;

    (void)state;
    for (i = 0; i < N; i++) {
        unsigned n = (seed = seed * 1103515245u + 12345u) >> 16;

        n = n % (MAXF + 1);
        for (k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            frames[i][k] = alphabet[(seed >> 16) % 5];
        }
        sorted[i] = (struct lp_snapshot_ctx){ frames[i], n, i + 1 };
    }
    /* Sort once, the writer's way; bytes carries the id along. */
    lp_snapshot_sort_ctx(sorted, N);
    for (i = 0; i < N; i++)
        sorted_id[i] = (uint32_t)sorted[i].bytes;
    ix = lp_snapshot_index_new(sorted, sorted_id, N);
    assert_non_null(ix);
    for (round = 0; round < 12; round++) {
        uint32_t max_id = round == 0 ? N : 1 + (uint32_t)((round * 997u) % N);
        double threshold = round % 3 == 0 ? 0.0 : round % 3 == 1 ? 1.0 : 10.0;
        struct lp_massif *m1 = lp_massif_new("(none)", "./t", "B");
        struct lp_massif *m2 = lp_massif_new("(none)", "./t", "B");
        uint64_t heap = 0;
        size_t n = 0, ne;
        char *a, *b;

        for (i = 1; i <= N; i++) {
            seed = seed * 1103515245u + 12345u;
            bytes[i] = i <= max_id && (seed >> 16) % 4 ? (seed >> 8) % 5000 : 0;
            heap += bytes[i];
        }
        for (i = 0; i < N; i++)
            if (sorted_id[i] <= max_id) {
                sub[n] = sorted[i];
                sub[n++].bytes = bytes[sorted_id[i]];
            }
        a = file_text(m1, lp_snapshot_build_tree_sorted(m1, sub, n,
                          lp_snapshot_sig(heap, heap, threshold), threshold,
                          label, NULL), heap);
        ne = ents_of(bytes, N, max_id, ents, &seed);
        b = file_text(m2, lp_snapshot_build_tree_indexed(m2, ix, ents, ne,
                          max_id, lp_snapshot_sig(heap, heap, threshold),
                          threshold, label, NULL), heap);
        assert_string_equal(a, b);
        free(a);
        free(b);
        lp_massif_free(m1);
        lp_massif_free(m2);
    }
    lp_snapshot_index_free(ix);
}

/* The writer's lazy index over the stack table (contexts.c filters and
 * radix-sorts a node's contexts when the node is first expanded) gives
 * the sorted builder's tree of the same stacks filtered up front: our
 * hook frame, zero frames and frames of our own object dropped, depth
 * frames kept. Many shared prefixes, equal filtered stacks, stacks with
 * nothing left, prefixes of others, groups large enough for the radix
 * passes, addresses that differ in low, middle and high bytes; threshold
 * 0 expands every node down to the last frame, 1% and 10% stop early,
 * and later trees reuse (and go deeper than) earlier expansions. */
static void test_lazy_contexts_tree_matches_sorted_builder(void **state)
{
    enum { N = 6000, MAXF = 40 };
    const uintptr_t self = (uintptr_t)&label + 1;
    const uintptr_t alphabet[] = {
        0x100001000, 0x100001001, 0x1000010ff, 0x100002000, 0x300000001234,
        0x300000001235, 0x3fff00001234, 0x2000000aa00, 0x1, UINTPTR_MAX,
        0, self,
    };
    static uintptr_t frames[N][MAXF + 1], kept[N][MAXF];
    static struct lp_snapshot_ctx sub[N];
    static uint32_t id_of[N];
    static uint64_t bytes[2 * N + 2];
    static struct lp_snapshot_ent ents[2 * N + 2];
    struct lp_massif_contexts ctxs;
    struct lp_snapshot_index *ix;
    unsigned seed = 4242, i, k, nk[N], round, depth = 30;
    uint32_t nids = 0;

    (void)state;
    for (i = 0; i < LP_ARRAY_SIZE(alphabet) - 1; i++)
        assert_false(lp_stack_is_self(alphabet[i]));
    assert_true(lp_stack_is_self(self));
    for (i = 0; i < N; i++) {
        unsigned n = (seed = seed * 1103515245u + 12345u) >> 16;
        /* first third: long equal runs; the rest: zeros and our frames */
        unsigned alpha = i < N / 3 ? 3 : i < 2 * N / 3 ? 10 : 12;

        n = i % 7 == 0 ? n % (MAXF + 1) : n % 12;
        frames[i][0] = 0xdead; /* the hook's frame: never kept */
        for (k = 1; k <= n; k++) {
            seed = seed * 1103515245u + 12345u;
            frames[i][k] = alphabet[(seed >> 16) % alpha];
        }
        id_of[i] = lp_stack_intern(frames[i], n + 1);
        assert_true(id_of[i] > 0);
        if (id_of[i] > nids)
            nids = id_of[i];
        for (nk[i] = 0, k = 1; k <= n && nk[i] < depth; k++)
            if (frames[i][k] != 0 && frames[i][k] != self)
                kept[i][nk[i]++] = frames[i][k];
    }
    assert_true(nids < 2 * N);
    assert_int_equal(lp_massif_contexts_init(&ctxs, NULL, nids + 1), 0);
    ix = lp_snapshot_index_lazy(ctxs.ids, nids, lp_massif_contexts_order,
                                &ctxs);
    assert_non_null(ix);
    for (round = 0; round < 8; round++) {
        uint32_t max_id = round == 3 || round == 7
                              ? nids : 1 + (uint32_t)((round * 1777u) % nids);
        double threshold = round % 3 == 2 ? 0.0 : round % 3 == 1 ? 1.0 : 10.0;
        struct lp_massif *m1 = lp_massif_new("(none)", "./t", "B");
        struct lp_massif *m2 = lp_massif_new("(none)", "./t", "B");
        uint64_t heap = 0;
        size_t n = 0, ne;
        char *a, *b;

        memset(bytes, 0, sizeof(bytes));
        for (i = 0; i < N; i++) {
            seed = seed * 1103515245u + 12345u;
            if (id_of[i] <= max_id && (seed >> 16) % 4)
                bytes[id_of[i]] = (seed >> 8) % 5000;
        }
        /* Each stack once (equal frame arrays share an id). */
        for (i = 1; i <= nids; i++)
            heap += bytes[i];
        for (i = 0; i < N; i++) {
            for (k = 0; k < i && id_of[k] != id_of[i]; k++)
                ;
            if (k < i || id_of[i] > max_id)
                continue;
            sub[n++] = (struct lp_snapshot_ctx){ kept[i], nk[i],
                                                 bytes[id_of[i]] };
        }
        lp_snapshot_sort_ctx(sub, n);
        a = file_text(m1, lp_snapshot_build_tree_sorted(m1, sub, n,
                          lp_snapshot_sig(heap, heap, threshold), threshold,
                          label, NULL), heap);
        ne = ents_of(bytes, nids, max_id, ents, &seed);
        b = file_text(m2, lp_snapshot_build_tree_indexed(m2, ix, ents, ne,
                          max_id, lp_snapshot_sig(heap, heap, threshold),
                          threshold, label, NULL), heap);
        assert_string_equal(a, b);
        free(a);
        free(b);
        lp_massif_free(m1);
        lp_massif_free(m2);
    }
    lp_snapshot_index_free(ix);
    lp_massif_contexts_free(&ctxs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_tree_groups_and_aggregates_as_massif),
        cmocka_unit_test(test_snapshot_tree_threshold_zero_keeps_zero_byte_contexts),
        cmocka_unit_test(test_snapshot_tree_single_insignificant_place_is_singular),
        cmocka_unit_test(test_snapshot_tree_expands_inlined_frames_with_one_address),
        cmocka_unit_test(test_snapshot_sig_follows_massif),
        cmocka_unit_test(test_lazy_contexts_tree_matches_sorted_builder),
        cmocka_unit_test(test_indexed_tree_matches_sorted_builder),
    };
    return cmocka_run_group_tests_name("snapshot_tree", tests, NULL, NULL);
}
