/* SPDX-License-Identifier: MIT */
/* test_config.c - LEAKPROF_OPTIONS parsing. */
#include "tests/unit/lp_test.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "preload/life/config.h"
#include "report/leaks.h"

static void test_config_defaults_match_the_design(void **state)
{
    struct lp_config c;

    (void)state;
    assert_int_equal(lp_config_parse(&c, NULL, false), 0);
    assert_int_equal(c.leak_check, LP_CHECK_FULL);
    assert_int_equal(c.show_kinds, LP_KINDS_DEFAULT);
    assert_int_equal(c.error_kinds, LP_KINDS_DEFAULT);
    assert_string_equal(c.massif, "massif.out.%p");
    assert_int_equal(c.depth, 30);
    assert_int_equal(c.detailed_freq, 10);
    assert_int_equal(c.max_snapshots, 100);
    assert_int_equal(c.snapshot_signal, SIGUSR1);
    assert_false(c.trace_children);
    assert_string_equal(c.log, "");
}

static void test_config_parses_every_kind_of_value(void **state)
{
    struct lp_config c;

    (void)state;
    assert_int_equal(
        lp_config_parse(&c,
                        "log=/tmp/x.%p:leak_check=summary:show_leak_kinds=all:"
                        "errors_for_leak_kinds=definite,indirect:error_exitcode=23:"
                        "suppressions=a.supp:suppressions=b.supp:massif=0:"
                        "time_unit=ms:threshold=0.5:depth=12:snapshot_signal=SIGUSR2:"
                        "unwind=fp:log_format=json:gen_suppressions=yes",
                        false),
        0);
    assert_string_equal(c.log, "/tmp/x.%p");
    assert_int_equal(c.leak_check, LP_CHECK_SUMMARY);
    assert_int_equal(c.show_kinds, LP_KINDS_ALL);
    assert_int_equal(c.error_kinds, LP_KIND_BIT(LP_KIND_DEFINITE) | LP_KIND_BIT(LP_KIND_INDIRECT));
    assert_int_equal(c.error_exitcode, 23);
    assert_int_equal(c.nsuppressions, 2);
    assert_string_equal(c.suppressions[1], "b.supp");
    assert_string_equal(c.massif, "");
    assert_int_equal(c.time_unit, LP_TIME_MS);
    assert_true(c.threshold == 0.5);
    assert_int_equal(c.depth, 12);
    assert_int_equal(c.snapshot_signal, SIGUSR2);
    assert_true(c.unwind_fp && c.log_json && c.gen_suppressions);
}

/* As ASAN_OPTIONS: ':' or whitespace between items; quotes keep both. */
static void test_config_separators_and_quotes(void **state)
{
    struct lp_config c;

    (void)state;
    assert_int_equal(lp_config_parse(&c, " log=/tmp/a.log leak_check=summary\t"
                                         "depth=7\n:massif='/tmp/m a:b' ",
                                     false),
                     0);
    assert_string_equal(c.log, "/tmp/a.log");
    assert_int_equal(c.leak_check, LP_CHECK_SUMMARY);
    assert_int_equal(c.depth, 7);
    assert_string_equal(c.massif, "/tmp/m a:b");
    assert_int_equal(lp_config_parse(&c, "log=\"it's here\":suppressions=x\"y z\"",
                                     false),
                     0);
    assert_string_equal(c.log, "it's here");
    assert_string_equal(c.suppressions[0], "xy z");
    /* An empty quoted item is nothing; a bare word is still an error. */
    assert_int_equal(lp_config_parse(&c, "'' depth=3 flag", false), 1);
    assert_int_equal(c.depth, 3);
}

static void test_config_next_item_reports_end_and_overflow(void **state)
{
    const char *p = "::  ab=1 'c d'  ";
    char item[4];

    (void)state;
    assert_int_equal(lp_config_next_item(&p, item, sizeof(item)), -1);
    assert_string_equal(item, "ab=");
    assert_int_equal(lp_config_next_item(&p, item, sizeof(item)), 3);
    assert_string_equal(item, "c d");
    assert_int_equal(lp_config_next_item(&p, item, sizeof(item)), 0);
    assert_int_equal(lp_config_next_item(&p, item, sizeof(item)), 0);
}

static void test_config_bad_values_are_counted_and_ignored(void **state)
{
    struct lp_config c;

    (void)state;
    assert_int_equal(lp_config_parse(&c, "depth=0:depth=999:leak_check=maybe:"
                                         "nosuchkey=1:show_leak_kinds=bogus:"
                                         "threshold=abc:error_exitcode=-1:flag",
                                     false),
                     8);
    assert_int_equal(c.depth, 30);
    assert_int_equal(c.leak_check, LP_CHECK_FULL);
    assert_int_equal(c.show_kinds, LP_KINDS_DEFAULT);
    assert_int_equal(c.error_exitcode, 0);
}

static void test_config_expand_replaces_pid_and_percent(void **state)
{
    char out[64];

    (void)state;
    assert_int_equal(lp_config_expand("massif.out.%p.%%", 42, out, sizeof(out)), 0);
    assert_string_equal(out, "massif.out.42.%");
    assert_true(lp_config_expand("abcdefgh%p", 123456, out, 10) < 0);
}

static void test_config_every_row_is_complete_and_its_default_parses(void **state)
{
    struct lp_config c;
    size_t i;

    (void)state;
    lp_config_defaults(&c);
    for (i = 0; i < lp_noptions; i++) {
        const struct lp_option *o = &lp_options[i];

        assert_non_null(o->key);
        assert_non_null(o->values);
        assert_non_null(o->help);
        assert_ptr_equal(lp_option_find(o->key), o);
        if (o->defval)
            assert_int_equal(lp_config_apply(&c, o->key, o->defval), 0);
    }
    assert_null(lp_option_find("no_such_key"));
}

static void test_config_apply_is_strict(void **state)
{
    struct lp_config c;
    int i;

    (void)state;
    lp_config_defaults(&c);
    assert_int_equal(lp_config_apply(&c, "error_exitcod", "23"), -ENOENT);
    assert_int_equal(lp_config_apply(&c, "error_exitcode", "abc"), -EINVAL);
    assert_int_equal(c.error_exitcode, 0);
    assert_int_equal(lp_config_apply(&c, "error_exitcode", "23"), 0);
    assert_int_equal(c.error_exitcode, 23);
    assert_int_equal(lp_config_apply(&c, "quiet", "yes"), 0);
    assert_true(c.quiet);
    assert_int_equal(lp_config_apply(&c, "trace_children_skip", "*/sh,*/make"), 0);
    assert_string_equal(c.trace_children_skip, "*/sh,*/make");
    /* Valgrind's --fullpath-after: every value kept in order, an empty
     * one too. */
    assert_int_equal(c.nfullpath_after, 0);
    assert_int_equal(lp_config_apply(&c, "fullpath_after", "src/"), 0);
    assert_int_equal(lp_config_apply(&c, "fullpath_after", ""), 0);
    assert_int_equal(lp_config_apply(&c, "fullpath_after", "/build/"), 0);
    assert_int_equal(c.nfullpath_after, 3);
    assert_memory_equal(c.fullpath_after, "src/\0\0/build/", 15);
    /* --xml-user-comment= is an empty comment, not none. */
    assert_false(c.xml_user_comment_set);
    assert_int_equal(lp_config_apply(&c, "xml_user_comment", ""), 0);
    assert_true(c.xml_user_comment_set);
    for (i = 0; i < LP_CONFIG_MAX_SUPP; i++)
        assert_int_equal(lp_config_apply(&c, "suppressions", "x.supp"), 0);
    assert_int_equal(lp_config_apply(&c, "suppressions", "x.supp"), -EINVAL);
}

static void test_config_origin_marker_and_exec_child(void **state)
{
    struct lp_config c;

    (void)state;
    assert_int_equal(lp_config_parse(&c, "depth=5:origin=cmdline:depth=7:exec_child=yes", false), 0);
    assert_true(c.from_cmdline);
    assert_true(c.exec_child);
    assert_int_equal(c.depth, 7);
    assert_int_equal(lp_config_parse(&c, "depth=5", false), 0);
    assert_false(c.from_cmdline);
    assert_false(c.exec_child);
}

static void test_config_glob_list_as_valgrind_skip_patterns(void **state)
{
    (void)state;
    assert_true(lp_config_glob_list("*/make", "/usr/bin/make"));
    assert_true(lp_config_glob_list("/nowhere,*/fork_e?ec", "./fork_exec"));
    assert_true(lp_config_glob_list("*", "/a/b"));        /* '*' crosses '/' */
    assert_true(lp_config_glob_list("/bin/*sh", "/bin/bash"));
    assert_false(lp_config_glob_list("*/make", "/usr/bin/cmake.sh"));
    assert_false(lp_config_glob_list("/bin/?sh", "/bin/bash"));
    assert_false(lp_config_glob_list("", "/bin/sh"));
    assert_false(lp_config_glob_list(",,", "/bin/sh"));
    assert_true(lp_config_glob_list("a*b*c", "aXbYbZc"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_defaults_match_the_design),
        cmocka_unit_test(test_config_parses_every_kind_of_value),
        cmocka_unit_test(test_config_bad_values_are_counted_and_ignored),
        cmocka_unit_test(test_config_separators_and_quotes),
        cmocka_unit_test(test_config_next_item_reports_end_and_overflow),
        cmocka_unit_test(test_config_expand_replaces_pid_and_percent),
        cmocka_unit_test(test_config_every_row_is_complete_and_its_default_parses),
        cmocka_unit_test(test_config_apply_is_strict),
        cmocka_unit_test(test_config_origin_marker_and_exec_child),
        cmocka_unit_test(test_config_glob_list_as_valgrind_skip_patterns),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
