/* SPDX-License-Identifier: MIT */
/* test_massif.c - report/massif: builder, writer, strict and lenient reader. */
#include "tests/unit/lp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/massif.h"

/* Write m into a malloc'd string. */
static char *write_to_string(const struct lp_massif *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(lp_massif_write(m, f), 0);
    fclose(f);
    return buf;
}

static struct lp_massif *read_str(const char *text,
                                  enum lp_massif_read_mode mode, char *err,
                                  size_t errlen, int *rc)
{
    struct lp_massif *m = NULL;

    *rc = lp_massif_read_mem(text, strlen(text), "t.ms", mode, &m, err,
                             errlen);
    return m;
}

static const char prog_tree[] =
    "desc: --time-unit=B\n"
    "cmd: ./prog1 a b\n"
    "time_unit: B\n"
    "#-----------\nsnapshot=0\n#-----------\n"
    "time=0\nmem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\n"
    "heap_tree=empty\n"
    "#-----------\nsnapshot=1\n#-----------\n"
    "time=20296\nmem_heap_B=20032\nmem_heap_extra_B=264\nmem_stacks_B=0\n"
    "heap_tree=peak\n"
    "n2: 20032 (heap allocation functions) malloc/new/new[], --alloc-fns, "
    "etc.\n"
    " n2: 20000 0x109180: leaf_alloc (prog1.c:6)\n"
    "  n1: 10000 0x10919A: mid_alloc (prog1.c:7)\n"
    "   n0: 10000 0x109204: main (prog1.c:15)\n"
    "  n0: 10000 0x10923A: main (prog1.c:16)\n"
    " n0: 32 in 1 place, below massif's threshold (1.00%)\n";

static struct lp_massif *build_prog_tree(void)
{
    struct lp_massif *m = lp_massif_new("--time-unit=B", "./prog1 a b", "B");
    struct lp_massif_node *root, *leaf, *mid;

    assert_non_null(m);
    assert_int_equal(lp_massif_add_snapshot(m, 0, 0, 0, 0, LP_MASSIF_EMPTY,
                                            NULL),
                     0);
    root = lp_massif_node_new(m, 20032, LP_MASSIF_ROOT_LABEL);
    leaf = lp_massif_node_new(m, 20000, "0x109180: leaf_alloc (prog1.c:6)");
    mid = lp_massif_node_new(m, 10000, "0x10919A: mid_alloc (prog1.c:7)");
    assert_int_equal(lp_massif_node_add_child(root, leaf), 0);
    assert_int_equal(lp_massif_node_add_child(leaf, mid), 0);
    assert_int_equal(
        lp_massif_node_add_child(
            mid, lp_massif_node_new(m, 10000,
                                    "0x109204: main (prog1.c:15)")),
        0);
    assert_int_equal(
        lp_massif_node_add_child(
            leaf, lp_massif_node_new(m, 10000,
                                     "0x10923A: main (prog1.c:16)")),
        0);
    assert_int_equal(
        lp_massif_node_add_child(
            root, lp_massif_node_new(
                      m, 32, "in 1 place, below massif's threshold (1.00%)")),
        0);
    assert_int_equal(lp_massif_add_snapshot(m, 20296, 20032, 264, 0,
                                            LP_MASSIF_PEAK, root),
                     0);
    return m;
}

static void test_massif_writer_produces_massif_bytes(void **state)
{
    struct lp_massif *m = build_prog_tree();
    char *text = write_to_string(m);

    (void)state;
    assert_string_equal(text, prog_tree);
    free(text);
    lp_massif_free(m);
}

static void test_massif_strict_read_then_write_round_trips(void **state)
{
    char err[256];
    int rc;
    struct lp_massif *m = read_str(prog_tree, LP_MASSIF_READ_STRICT, err,
                                   sizeof(err), &rc);
    const struct lp_massif_node *root, *leaf;
    char *text;

    (void)state;
    assert_int_equal(rc, 0);
    assert_int_equal(lp_massif_count(m), 2);
    assert_string_equal(lp_massif_desc(m), "--time-unit=B");
    assert_string_equal(lp_massif_cmd(m), "./prog1 a b");
    assert_int_equal(lp_massif_peak_index(m), 1);
    assert_int_equal(lp_massif_snap_total(m, 1), 20296);
    root = lp_massif_snap_tree(m, 1);
    assert_int_equal(lp_massif_node_nchildren(root), 2);
    leaf = lp_massif_node_first_child(root);
    assert_string_equal(lp_massif_node_label(leaf),
                        "0x109180: leaf_alloc (prog1.c:6)");
    assert_string_equal(lp_massif_node_details(leaf),
                        " 0x109180: leaf_alloc (prog1.c:6)");
    assert_string_equal(
        lp_massif_node_label(lp_massif_node_next_sibling(leaf)),
        "in 1 place, below massif's threshold (1.00%)");
    text = write_to_string(m);
    assert_string_equal(text, prog_tree);
    free(text);
    lp_massif_free(m);
}

static void test_massif_lenient_reader_keeps_ms_print_quirks(void **state)
{
    static const char text[] =
        "desc: --a\n"
        "desc:  --b\n"
        "\n"
        "cmd:   ./x y#z\n"
        "time_unit: ms\n"
        "snapshot=0 # comment\n"
        "   \n"
        "time=5\nmem_heap_B=10\nmem_heap_extra_B=2\nmem_stacks_B=0\n"
        "heap_tree=detailed\n"
        "n1:10 root\n"
        "        n0: 10 0x1: f (a.c:1)\n";
    char err[256];
    int rc;
    struct lp_massif *m = read_str(text, LP_MASSIF_READ_MS_PRINT, err,
                                   sizeof(err), &rc);
    const struct lp_massif_node *root;

    (void)state;
    assert_int_equal(rc, 0);
    assert_string_equal(lp_massif_desc_raw(m), " --a\n  --b\n");
    assert_string_equal(lp_massif_cmd(m), "./x y");
    assert_string_equal(lp_massif_snap_number_text(m, 0), "0 ");
    assert_int_equal(lp_massif_snap_number(m, 0), 0);
    root = lp_massif_snap_tree(m, 0);
    assert_string_equal(lp_massif_node_details(root), " root");
    assert_int_equal(lp_massif_node_bytes(lp_massif_node_first_child(root)),
                     10);
    lp_massif_free(m);
    /* The same text is not strict. */
    m = read_str(text, LP_MASSIF_READ_STRICT, err, sizeof(err), &rc);
    assert_null(m);
    assert_int_equal(rc, -EINVAL);
    assert_string_equal(err, "t.ms:2: expected 'cmd: ' line");
}

struct bad_case {
    const char *text;
    const char *err;
};

static void test_massif_reader_names_file_and_line_of_errors(void **state)
{
    static const char hdr[] = "desc: x\ncmd: y\ntime_unit: B\n";
    static const char snap[] =
        "#-----------\nsnapshot=0\n#-----------\ntime=1\nmem_heap_B=5\n"
        "mem_heap_extra_B=0\nmem_stacks_B=0\n";
    static const struct bad_case cases[] = {
        { "", "t.ms:1: unexpected end of file, expected 'cmd:' line" },
        { "desc: x\ncmd: y\ntime_unit: parsecs\n",
          "t.ms:3: bad time_unit 'parsecs' (want i, ms or B)" },
        { "%s#-----------\nsnapshot=0\n#-----------\ntime=1x\n",
          "t.ms:7: bad number in 'time' line" },
        { "%s#-----------\nsnapshot=0\n#-----------\n"
          "time=99999999999999999999999\n",
          "t.ms:7: number too large in 'time' line" },
        { "%s%sheap_tree=peak\nn1: 5 root\n",
          "t.ms:13: unexpected end of file, expected a tree node line" },
        { "%s%sheap_tree=peak\nn0: 6 root\n",
          "t.ms:12: node bytes (6) exceed the snapshot total (5)" },
        { "%s%sheap_tree=sometimes\n",
          "t.ms:11: expected 'empty', 'detailed' or 'peak' after "
          "'heap_tree='" },
        { "%s%sheap_tree=detailed\nn1: 5 root\nn0: 5 child\n",
          "t.ms:13: tree line indented by less than 1" },
        { "%s%sheap_tree=empty\n#-----------\nsnapshot=3\n",
          "t.ms:13: snapshot number 3, expected 1" },
        { "%s#-----------\nsnapshot=0\n#-----------\nmem_heap_B=1\n",
          "t.ms:7: expected 'time=' line" },
        { "%s%sheap_tree=empty", "t.ms:11: missing newline at end of file" },
        { "%s%sheap_tree=empty\r\n",
          "t.ms:11: carriage return in line (CRLF line ends?)" },
    };
    char text[512], err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct lp_massif *m;
        int rc;

        snprintf(text, sizeof(text), cases[i].text, hdr, snap);
        m = read_str(text, LP_MASSIF_READ_STRICT, err, sizeof(err), &rc);
        assert_null(m);
        assert_int_equal(rc, -EINVAL);
        assert_string_equal(err, cases[i].err);
    }
}

static void test_massif_reader_survives_nul_and_huge_counts(void **state)
{
    static const char text[] = "desc: x\ncmd: y\ntime_unit: B\n"
                               "snapshot=0\ntime=0\nmem_heap_B=0\n"
                               "mem_heap_extra_B=0\nmem_stacks_B=0\n"
                               "heap_tree=detailed\n"
                               "n18446744073709551615: 0 root\n";
    char withnul[] = "desc: x\ncmd: y\0\ntime_unit: B\n";
    struct lp_massif *m = NULL;
    char err[256];
    int rc;

    (void)state;
    m = read_str(text, LP_MASSIF_READ_MS_PRINT, err, sizeof(err), &rc);
    assert_null(m);
    assert_string_equal(
        err, "t.ms:11: unexpected end of file, expected a tree node line");
    rc = lp_massif_read_mem(withnul, sizeof(withnul) - 1, "n.ms",
                            LP_MASSIF_READ_MS_PRINT, &m, err, sizeof(err));
    assert_int_equal(rc, -EINVAL);
    assert_string_equal(err, "n.ms:2: NUL byte in input (not a text file?)");
}

static void test_massif_reader_rejects_too_deep_trees(void **state)
{
    size_t depth = LP_MASSIF_MAX_DEPTH + 5, cap = depth * 16 + 256, len;
    char *text = malloc(cap), err[256];
    struct lp_massif *m;
    int rc;

    (void)state;
    assert_non_null(text);
    len = (size_t)snprintf(text, cap,
                           "cmd: y\ntime_unit: B\nsnapshot=0\ntime=0\n"
                           "mem_heap_B=1\nmem_heap_extra_B=0\n"
                           "mem_stacks_B=0\nheap_tree=detailed\n");
    for (size_t i = 0; i < depth; i++)
        len += (size_t)snprintf(text + len, cap - len, "n1: 1 f\n");
    m = read_str(text, LP_MASSIF_READ_MS_PRINT, err, sizeof(err), &rc);
    assert_null(m);
    assert_int_equal(rc, -EINVAL);
    assert_non_null(strstr(err, "deeper than"));
    free(text);
}

static void test_massif_builder_enforces_writer_rules(void **state)
{
    struct lp_massif *m = lp_massif_new(NULL, "./a #1\nx", "ms");
    struct lp_massif_node *root, *big, *n;
    char *text;

    (void)state;
    assert_non_null(m);
    assert_string_equal(lp_massif_desc(m), "(none)");
    assert_string_equal(lp_massif_cmd(m), "./a =1 x");
    root = lp_massif_node_new(m, 10, LP_MASSIF_ROOT_LABEL);
    big = lp_massif_node_new(m, 11, "0x1: f (a.c:1)");
    assert_int_equal(lp_massif_node_add_child(root, big), 0);
    /* A node larger than the total is refused, and so is a reused node. */
    assert_int_equal(lp_massif_add_snapshot(m, 5, 10, 0, 0,
                                            LP_MASSIF_DETAILED, root),
                     -EINVAL);
    assert_int_equal(lp_massif_node_add_child(root, big), -EINVAL);
    assert_int_equal(lp_massif_add_snapshot(m, 5, 10, 1, 0,
                                            LP_MASSIF_DETAILED, root),
                     0);
    /* Time may not go backwards, trees only with detailed kinds. */
    assert_int_equal(lp_massif_add_snapshot(m, 4, 0, 0, 0, LP_MASSIF_EMPTY,
                                            NULL),
                     -EINVAL);
    assert_int_equal(lp_massif_add_snapshot(m, 6, 0, 0, 0, LP_MASSIF_PEAK,
                                            NULL),
                     -EINVAL);
    n = lp_massif_node_new(m, 0, "");
    assert_int_equal(lp_massif_add_snapshot(m, 6, 0, 0, 0, LP_MASSIF_PEAK, n),
                     0);
    n = lp_massif_node_new(m, 0, "x");
    assert_int_equal(lp_massif_add_snapshot(m, 7, 0, 0, 0, LP_MASSIF_PEAK, n),
                     -EINVAL);
    assert_int_equal(lp_massif_set_kind(m, 1, LP_MASSIF_DETAILED), 0);
    assert_int_equal(lp_massif_add_snapshot(m, 7, 0, 0, 0, LP_MASSIF_PEAK, n),
                     0);
    text = write_to_string(m);
    assert_string_equal(
        text, "desc: (none)\ncmd: ./a =1 x\ntime_unit: ms\n"
              "#-----------\nsnapshot=0\n#-----------\ntime=5\n"
              "mem_heap_B=10\nmem_heap_extra_B=1\nmem_stacks_B=0\n"
              "heap_tree=detailed\n"
              "n1: 10 " LP_MASSIF_ROOT_LABEL "\n"
              " n0: 11 0x1: f (a.c:1)\n"
              "#-----------\nsnapshot=1\n#-----------\ntime=6\n"
              "mem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\n"
              "heap_tree=detailed\nn0: 0 ???\n"
              "#-----------\nsnapshot=2\n#-----------\ntime=7\n"
              "mem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\n"
              "heap_tree=peak\nn0: 0 x\n");
    free(text);
    lp_massif_free(m);
}

static void test_massif_write_reports_io_errors(void **state)
{
    struct lp_massif *m = build_prog_tree();
    FILE *f = fopen("/dev/full", "w");

    (void)state;
    if (f == NULL) {
        lp_massif_free(m);
        skip();
    }
    assert_int_equal(lp_massif_write(m, f), -EIO);
    fclose(f);
    lp_massif_free(m);
}

static void test_massif_read_path_reports_open_errors(void **state)
{
    struct lp_massif *m;
    char err[256];

    (void)state;
    assert_int_equal(lp_massif_read_path("/nonexistent/massif.out",
                                         LP_MASSIF_READ_STRICT, &m, err,
                                         sizeof(err)),
                     -ENOENT);
    assert_null(m);
    assert_string_equal(
        err, "cannot open '/nonexistent/massif.out': No such file or "
             "directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_massif_writer_produces_massif_bytes),
        cmocka_unit_test(test_massif_strict_read_then_write_round_trips),
        cmocka_unit_test(test_massif_lenient_reader_keeps_ms_print_quirks),
        cmocka_unit_test(test_massif_reader_names_file_and_line_of_errors),
        cmocka_unit_test(test_massif_reader_survives_nul_and_huge_counts),
        cmocka_unit_test(test_massif_reader_rejects_too_deep_trees),
        cmocka_unit_test(test_massif_builder_enforces_writer_rules),
        cmocka_unit_test(test_massif_write_reports_io_errors),
        cmocka_unit_test(test_massif_read_path_reports_open_errors),
    };
    return cmocka_run_group_tests_name("massif", tests, NULL, NULL);
}
