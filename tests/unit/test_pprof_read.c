/* SPDX-License-Identifier: MIT */
/*
 * test_pprof_read.c - report/pprof_read (a profile written by our own
 * builder read back as sites: frames with inlined lines, drop_frames,
 * costs by sample type name, bad input) and report/flame_sites (the
 * sorted prefix build gives the same folded stacks as a plain one).
 */
#include "tests/unit/lp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/flame.h"
#include "report/flame_sites.h"
#include "report/pprof.h"
#include "report/pprof_read.h"

static char path[64];

static void write_profile(void)
{
    struct lp_pprof *p = lp_pprof_new();
    struct lp_pprof_line leaf = { "malloc", NULL, NULL, 0 };
    struct lp_pprof_line inl[2] = {
        { "inner", NULL, "/src/a.c", 10 },
        { "outer", NULL, "/src/a.c", 20 },
    };
    struct lp_pprof_line mainl = { "main", NULL, "/src/m.c", 5 };
    struct lp_pprof_line other = { "other", NULL, "/src/b.c", 7 };
    uint64_t l1, l2, l3, l4, s1[3], s2[3];
    /* alloc_objects alloc_space something_else temp_objects peak_space */
    int64_t v1[5] = { 3, 300, 99, 2, 200 }, v2[5] = { 1, 50, 0, 0, 0 };
    FILE *f;
    int fd;

    assert_non_null(p);
    lp_pprof_add_type(p, "alloc_objects", "count");
    lp_pprof_add_type(p, "alloc_space", "bytes");
    lp_pprof_add_type(p, "something_else", "count");
    lp_pprof_add_type(p, "temp_objects", "count");
    lp_pprof_add_type(p, "peak_space", "bytes");
    lp_pprof_set_drop_frames(p, "malloc|calloc");
    l1 = lp_pprof_add_location(p, 0, 0x1100, &leaf, 1);
    l2 = lp_pprof_add_location(p, 0, 0x1200, inl, 2);
    l3 = lp_pprof_add_location(p, 0, 0x1300, &mainl, 1);
    l4 = lp_pprof_add_location(p, 0, 0x1400, &other, 1);
    s1[0] = l1, s1[1] = l2, s1[2] = l3;
    s2[0] = l1, s2[1] = l4, s2[2] = l3;
    assert_int_equal(lp_pprof_add_sample(p, s1, 3, v1, NULL, 0), 0);
    assert_int_equal(lp_pprof_add_sample(p, s2, 3, v2, NULL, 0), 0);
    snprintf(path, sizeof(path), "/tmp/lp-pprof-read.XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(lp_pprof_write(p, f), 0);
    fclose(f);
    lp_pprof_free(p);
}

static void test_pprof_read_sites_of_our_profile(void **state)
{
    struct lp_sites s;
    char err[256];

    (void)state;
    write_profile();
    assert_true(lp_pprof_sniff(path));
    assert_int_equal(lp_pprof_read_sites(path, &s, err, sizeof(err)), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.has, LP_COST_BIT(LP_COST_CALLS) |
                                LP_COST_BIT(LP_COST_ALLOCATED) |
                                LP_COST_BIT(LP_COST_TEMP) |
                                LP_COST_BIT(LP_COST_PEAK));
    /* malloc dropped; inlined lines innermost first; base names. */
    assert_int_equal(s.v[0].nframes, 3);
    assert_string_equal(lp_site_frame(&s, &s.v[0], 0), "inner (a.c:10)");
    assert_string_equal(lp_site_frame(&s, &s.v[0], 1), "outer (a.c:20)");
    assert_string_equal(lp_site_frame(&s, &s.v[0], 2), "main (m.c:5)");
    assert_int_equal(s.v[0].cost[LP_COST_CALLS], 3);
    assert_int_equal(s.v[0].cost[LP_COST_ALLOCATED], 300);
    assert_int_equal(s.v[0].cost[LP_COST_TEMP], 2);
    assert_int_equal(s.v[0].cost[LP_COST_PEAK], 200);
    assert_int_equal(s.v[0].cost[LP_COST_EXIT], 0);
    assert_string_equal(lp_site_frame(&s, &s.v[1], 0), "other (b.c:7)");
    /* "main (m.c:5)" is interned once. */
    assert_int_equal(s.frames[s.v[0].first + 2], s.frames[s.v[1].first + 1]);
    lp_sites_release(&s);
    unlink(path);
}

static char *folded(struct lp_flame *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);

    assert_non_null(m);
    assert_int_equal(lp_flame_write_folded(m, f), 0);
    fclose(m);
    return buf;
}

static void test_flame_sites_sorted_build_matches_plain_adds(void **state)
{
    struct lp_sites s;
    struct lp_flame *a, *b;
    /* Innermost first; two names shorten to the same "f". */
    static const char *const st[][4] = {
        { "leaf (x.c:1)", "f (x.c:2)", "main", NULL },
        { "g", "main", NULL, NULL },
        { "leaf (x.c:1)", "f (x.c:9)", "main", NULL },
        { "h", "f (x.c:2)", "main", NULL },
        { "main", NULL, NULL, NULL },
    };
    static const uint64_t w[] = { 5, 7, 11, 13, 17 };
    char *fa, *fb;
    size_t i;

    (void)state;
    lp_sites_init(&s);
    a = lp_flame_new();
    for (i = 0; i < 5; i++) {
        unsigned n = 0, k;
        const char *outer[4];
        struct lp_site *t;

        while (n < 4 && st[i][n])
            n++;
        t = lp_sites_add(&s, st[i], n);
        assert_non_null(t);
        t->cost[LP_COST_CALLS] = w[i];
        for (k = 0; k < n; k++) {
            char *nm = lp_flame_frame_name(st[i][n - 1 - k]);

            outer[k] = nm;
        }
        assert_int_equal(lp_flame_add(a, outer, n, w[i]), 0);
        for (k = 0; k < n; k++)
            free((char *)outer[k]);
    }
    b = lp_flame_of_sites(&s, LP_COST_CALLS);
    assert_non_null(b);
    fa = folded(a);
    fb = folded(b);
    assert_string_equal(fb, "main 17\nmain;f;h 13\nmain;f;leaf 16\nmain;g 7\n");
    assert_string_equal(fa, fb);
    free(fa);
    free(fb);
    lp_flame_free(a);
    lp_flame_free(b);
    lp_sites_release(&s);
}

static void test_pprof_read_rejects_bad_input(void **state)
{
    static const unsigned char junk[] = { 0x0a, 0x05, 0x08, 0xff, 0xff };
    struct lp_sites s;
    char err[256];
    FILE *f;
    int fd;

    (void)state;
    snprintf(path, sizeof(path), "/tmp/lp-pprof-bad.XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "wb");
    fwrite(junk, 1, sizeof(junk), f);
    fclose(f);
    assert_true(lp_pprof_sniff(path));
    assert_int_equal(lp_pprof_read_sites(path, &s, err, sizeof(err)), -1);
    assert_non_null(strstr(err, path));
    assert_false(lp_pprof_sniff("/nonexistent/file"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pprof_read_sites_of_our_profile),
        cmocka_unit_test(test_flame_sites_sorted_build_matches_plain_adds),
        cmocka_unit_test(test_pprof_read_rejects_bad_input),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
