/* SPDX-License-Identifier: MIT */
/* test_signame.c - signal names as users write them. */
#include "tests/unit/lp_test.h"

#include <signal.h>
#include <string.h>

#include "report/signame.h"

static void test_signame_parses_names_numbers_and_rt_offsets(void **state)
{
    (void)state;
    assert_int_equal(lp_signal_parse("SIGUSR1"), SIGUSR1);
    assert_int_equal(lp_signal_parse("usr2"), SIGUSR2);
    assert_int_equal(lp_signal_parse("SIGPWR"), SIGPWR);
    assert_int_equal(lp_signal_parse("10"), 10);
    assert_int_equal(lp_signal_parse("0"), 0);
    assert_int_equal(lp_signal_parse("SIGRTMIN+2"), SIGRTMIN + 2);
    assert_int_equal(lp_signal_parse("rtmax-1"), SIGRTMAX - 1);
    assert_int_equal(lp_signal_parse("SIGRTMIN"), SIGRTMIN);
    assert_int_equal(lp_signal_parse("SIGRTMAX+1"), -1);
    assert_int_equal(lp_signal_parse("SIGUSR3"), -1);
    assert_int_equal(lp_signal_parse(""), -1);
    assert_int_equal(lp_signal_parse("99"), -1);
    assert_int_equal(lp_signal_parse("10x"), -1);
}

static void test_signame_refuses_faults_and_job_control(void **state)
{
    (void)state;
    assert_false(lp_signal_usable_for_snapshot(SIGSEGV));
    assert_false(lp_signal_usable_for_snapshot(SIGKILL));
    assert_false(lp_signal_usable_for_snapshot(SIGCHLD));
    assert_true(lp_signal_usable_for_snapshot(SIGUSR2));
    assert_true(lp_signal_usable_for_snapshot(SIGRTMIN + 2));
}

static void test_signame_prints_what_it_parses(void **state)
{
    char buf[32];
    int s;

    (void)state;
    assert_string_equal(lp_signal_name(SIGUSR1, buf, sizeof(buf)), "SIGUSR1");
    assert_string_equal(lp_signal_name(SIGRTMIN + 2, buf, sizeof(buf)),
                        "SIGRTMIN+2");
    assert_string_equal(lp_signal_name(SIGRTMAX, buf, sizeof(buf)),
                        "SIGRTMAX-0");
    for (s = 1; s <= SIGRTMAX; s++)
        assert_int_equal(lp_signal_parse(lp_signal_name(s, buf, sizeof(buf))),
                         s == 32 || s == 33 ? -1 : s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signame_parses_names_numbers_and_rt_offsets),
        cmocka_unit_test(test_signame_refuses_faults_and_job_control),
        cmocka_unit_test(test_signame_prints_what_it_parses),
    };
    return cmocka_run_group_tests_name("signame", tests, NULL, NULL);
}
