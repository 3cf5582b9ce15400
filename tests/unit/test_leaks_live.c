/* SPDX-License-Identifier: MIT */
/*
 * test_leaks_live.c - the live leak report (a snapshot signal's, or
 * Memcheck's leak_check monitor command) against real Memcheck 3.19
 * output: main() first replays tests/fixtures/leaks/live.c and live2.c
 * with functions of the same names (leaks_replay.h says how), and each
 * test hand-builds the searches' results, with the previous search's
 * figures, and compares.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>

#include "report/leaks.h"
#include "tests/unit/leaks_replay.h"

static volatile int sink;

/* The scenario of live.c and live2.c; the capture index stands for the block. */
static int cap_leak[3], cap_keep, cap_keep2, cap_ind_head[2], cap_ind_child[2];

LR_NOIPA static void leak(int i)
{
    LR_SITE(1); cap_leak[i] = lr_capture(LR_HOOK_MALLOC, 1);
    sink++;
}

LR_NOIPA static void leakind(int i)
{
    LR_SITE(1); cap_ind_head[i] = lr_capture(LR_HOOK_MALLOC, 1);
    LR_SITE(1); cap_ind_child[i] = lr_capture(LR_HOOK_MALLOC, 1);
    sink++;
}

static void test_leaks_live_increased_matches_monitor_command(void **state)
{
    struct lp_loss_record recs[2];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    memset(&set, 0, sizeof(set));
    recs[0] = lr_rec(LP_KIND_DEFINITE, cap_leak[0], 100, 1);
    recs[1] = lr_rec(LP_KIND_REACHABLE, cap_keep, 50, 1);
    set.pid = 4242;
    set.recs = recs;
    set.nrecs = 2;
    set.in_use_blocks = 2; /* heap counters are not printed live */
    o.live = true;
    o.show_kinds = LP_KIND_BIT(LP_KIND_DEFINITE);
    lr_check_against("live.increased.txt", &set, &o);
}

/* live2.c at its second search: nine records, one vanished. */
static void live2_second(struct lp_leak_set *set, struct lp_loss_record *recs)
{
    struct lp_loss_record *r;

    memset(set, 0, sizeof(*set));
    recs[0] = lr_rec(LP_KIND_REACHABLE, cap_keep, 0, 0);
    recs[0].old_bytes = 50;
    recs[0].old_blocks = 1;
    recs[1] = lr_rec(LP_KIND_REACHABLE, cap_keep2, 20, 1);
    recs[2] = lr_rec(LP_KIND_INDIRECT, cap_ind_child[0], 32, 1);
    recs[3] = lr_rec(LP_KIND_INDIRECT, cap_ind_child[1], 32, 1);
    recs[4] = lr_rec(LP_KIND_DEFINITE, cap_ind_head[0], 32, 1);
    recs[5] = lr_rec(LP_KIND_DEFINITE, cap_ind_head[1], 32, 1);
    recs[6] = lr_rec(LP_KIND_DEFINITE, cap_leak[0], 100, 1);
    recs[7] = lr_rec(LP_KIND_DEFINITE, cap_leak[1], 100, 1);
    recs[8] = lr_rec(LP_KIND_DEFINITE, cap_leak[2], 300, 1);
    recs[4].indirect_bytes = recs[5].indirect_bytes = 32;
    recs[4].indirect_blocks = recs[5].indirect_blocks = 1;
    /* What the first phase had already. */
    for (r = &recs[2]; r <= &recs[6]; r += 2) {
        r->old_bytes = r->bytes;
        r->old_blocks = r->blocks;
        r->old_indirect_bytes = r->indirect_bytes;
    }
    set->recs = recs;
    set->nrecs = 9;
    set->in_use_blocks = 8;
    set->old.bytes[LP_KIND_DEFINITE] = 132;
    set->old.blocks[LP_KIND_DEFINITE] = 2;
    set->old.bytes[LP_KIND_INDIRECT] = 32;
    set->old.blocks[LP_KIND_INDIRECT] = 1;
    set->old.bytes[LP_KIND_REACHABLE] = 50;
    set->old.blocks[LP_KIND_REACHABLE] = 1;
}

static void test_leaks_live_deltas_on_every_number(void **state)
{
    struct lp_loss_record recs[9];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();
    struct lp_leak_totals t;

    (void)state;
    live2_second(&set, recs);
    set.pid = 4242;
    o.live = true;
    o.show_kinds = LP_KIND_BIT(LP_KIND_DEFINITE);
    lr_check_against("live2.3-full-definite-increased.txt", &set, &o);

    /* The next search compares with this one: nothing changed. */
    lp_leaks_totals(&set, &t);
    for (size_t i = 0; i < set.nrecs; i++) {
        set.recs[i].old_bytes = set.recs[i].bytes;
        set.recs[i].old_blocks = set.recs[i].blocks;
        set.recs[i].old_indirect_bytes = set.recs[i].indirect_bytes;
    }
    set.old = t;
    o.live_delta = LP_DELTA_CHANGED;
    lr_check_against("live2.4-full-definite-changed.txt", &set, &o);
}

static void test_leaks_live_summary_and_any_modes(void **state)
{
    struct lp_loss_record recs[4];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    memset(&set, 0, sizeof(set));
    recs[0] = lr_rec(LP_KIND_DEFINITE, cap_leak[0], 100, 1);
    recs[1] = lr_rec(LP_KIND_DEFINITE, cap_ind_head[0], 32, 1);
    recs[1].indirect_bytes = 32;
    recs[1].indirect_blocks = 1;
    recs[2] = lr_rec(LP_KIND_INDIRECT, cap_ind_child[0], 32, 1);
    recs[3] = lr_rec(LP_KIND_REACHABLE, cap_keep, 50, 1);
    set.pid = 4242;
    set.recs = recs;
    set.nrecs = 4;
    set.in_use_blocks = 4;
    o.live = true;
    o.leak_check = LP_CHECK_SUMMARY;
    lr_check_against("live2.1-summary.txt", &set, &o);

    /* Second search, "full reachable any": all kinds, no deltas. */
    lp_leaks_totals(&set, &set.old);
    o.leak_check = LP_CHECK_FULL;
    o.live_delta = LP_DELTA_ANY;
    o.show_kinds = LP_KINDS_ALL;
    lr_check_against("live2.2-full-reachable-any.txt", &set, &o);
}

/* The header a snapshot signal's report starts with; none without seq. */
static void test_leaks_live_header_names_signal_and_file(void **state)
{
    struct lp_loss_record recs[1];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();
    char *got, *nl;

    (void)state;
    memset(&set, 0, sizeof(set));
    recs[0] = lr_rec(LP_KIND_DEFINITE, cap_leak[0], 100, 1);
    set.pid = 4242;
    set.recs = recs;
    set.nrecs = 1;
    set.in_use_blocks = 1;
    o.live = true;
    o.live_seq = 3;
    o.live_signo = SIGUSR2;
    o.live_ms = 61234;
    o.live_massif = "massif.out.4242.3";
    got = lr_print_to_string(&set, &o);
    nl = strchr(got, '\n');
    assert_non_null(nl);
    *nl = '\0';
    assert_string_equal(got, "==4242== Live leak check 3 on SIGUSR2, 61.23 s after "
                             "start; heap profile massif.out.4242.3");
    /* The records follow, as without the header. */
    assert_non_null(strstr(nl + 1, "==4242== 100 (+100) bytes in 1 (+1) blocks are "
                                   "definitely lost in loss record 1 of 1\n"));
    assert_null(strstr(nl + 1, "leak_check"));
    free(got);

    o.live_seq = 1;
    o.live_signo = SIGRTMIN + 3;
    o.live_ms = 5;
    o.live_massif = NULL;
    got = lr_print_to_string(&set, &o);
    assert_true(strncmp(got, "==4242== Live leak check 1 on SIGRTMIN+3, 0.00 s after "
                             "start; no heap profile\n", 78) == 0);
    free(got);

    /* No header at exit, nor in a live report without a signal number. */
    o.live_seq = 0;
    got = lr_print_to_string(&set, &o);
    assert_null(strstr(got, "Live leak check"));
    free(got);
    o.live = false;
    o.live_seq = 2;
    got = lr_print_to_string(&set, &o);
    assert_null(strstr(got, "Live leak check"));
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leaks_live_increased_matches_monitor_command),
        cmocka_unit_test(test_leaks_live_deltas_on_every_number),
        cmocka_unit_test(test_leaks_live_summary_and_any_modes),
        cmocka_unit_test(test_leaks_live_header_names_signal_and_file),
    };

    /* live.c's main, then live2.c's, each call on its line. */
    LR_SITE(0); leak(0);
    LR_SITE(0); cap_keep = lr_capture(LR_HOOK_MALLOC, 0);
    LR_SITE(0); leakind(0);
    LR_SITE(0); leak(1);
    LR_SITE(0); leak(2);
    LR_SITE(0); leakind(1);
    LR_SITE(0); cap_keep2 = lr_capture(LR_HOOK_MALLOC, 0);
    return cmocka_run_group_tests_name("leaks_live", tests, lr_setup, lr_teardown);
}
