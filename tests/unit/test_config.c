/* SPDX-License-Identifier: MIT */
/* test_config.c - LEAKPROF_OPTIONS parsing. */
#include "tests/unit/lp_test.h"

#include <signal.h>
#include <string.h>

#include "preload/config.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_defaults_match_the_design),
        cmocka_unit_test(test_config_parses_every_kind_of_value),
        cmocka_unit_test(test_config_bad_values_are_counted_and_ignored),
        cmocka_unit_test(test_config_expand_replaces_pid_and_percent),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
