/* SPDX-License-Identifier: MIT */
/*
 * test_leaks.c - the leak report writer at exit against real Memcheck
 * 3.19 output (leaks_replay.h says how): main() first replays
 * tests/fixtures/leaks/leaks.c with functions of the same names, and each
 * test hand-builds the lp_leak_set Memcheck's leak search found for that
 * program, prints it, and compares. Live reports: test_leaks_live.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/leaks.h"
#include "tests/unit/leaks_replay.h"

static volatile int sink;

/* The scenario of leaks.c; the capture index stands for the block. */
static int cap_block[2], cap_head, cap_n1, cap_n2, cap_possible, cap_reach;

LR_NOIPA static int make_block(void)
{
    int c;
    LR_SITE(2); c = lr_capture(LR_HOOK_MALLOC, 2);
    sink++;
    return c;
}

LR_NOIPA static void leak_definite(int i)
{
    LR_SITE(1); cap_block[i] = make_block();
    sink++;
}

LR_NOIPA static void leak_indirect(void)
{
    LR_SITE(1); cap_head = lr_capture(LR_HOOK_MALLOC, 1);
    LR_SITE(1); cap_n1 = lr_capture(LR_HOOK_MALLOC, 1);
    LR_SITE(1); cap_n2 = lr_capture(LR_HOOK_MALLOC, 1);
    sink++;
}

LR_NOIPA static void leak_possible(void)
{
    LR_SITE(1); cap_possible = lr_capture(LR_HOOK_MALLOC, 1);
    sink++;
}

LR_NOIPA static void keep_reachable(void)
{
    LR_SITE(1); cap_reach = lr_capture(LR_HOOK_CALLOC, 1);
    sink++;
}

/* The loss records of leaks.c, in a scrambled order (the writer sorts). */
static void leaks_set(struct lp_leak_set *set, struct lp_loss_record *recs, int pid)
{
    memset(set, 0, sizeof(*set));
    recs[0] = lr_rec(LP_KIND_REACHABLE, cap_reach, 128, 1);
    recs[1] = lr_rec(LP_KIND_DEFINITE, cap_block[1], 100, 1);
    recs[2] = lr_rec(LP_KIND_INDIRECT, cap_n2, 32, 1);
    recs[3] = lr_rec(LP_KIND_DEFINITE, cap_head, 32, 1);
    recs[3].indirect_bytes = 64;
    recs[3].indirect_blocks = 2;
    recs[4] = lr_rec(LP_KIND_POSSIBLE, cap_possible, 64, 1);
    recs[5] = lr_rec(LP_KIND_INDIRECT, cap_n1, 32, 1);
    recs[6] = lr_rec(LP_KIND_DEFINITE, cap_block[0], 100, 1);
    set->pid = pid;
    set->in_use_bytes = 488;
    set->in_use_blocks = 7;
    set->allocs = 8;
    set->frees = 1;
    set->bytes_allocated = 988;
    set->recs = recs;
    set->nrecs = 7;
}

/* ---- tests: the exit-time report -------------------------------------- */

static void test_leaks_full_matches_memcheck(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    leaks_set(&set, recs, 4242);
    lr_check_against("leaks.full.txt", &set, &o);
    assert_int_equal(lp_leaks_errors(&set, &o), 4);
}

static void test_leaks_full_all_kinds_matches_memcheck(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    o.show_kinds = LP_KINDS_ALL;
    leaks_set(&set, recs, 4242);
    lr_check_against("leaks.full-all.txt", &set, &o);
}

static void test_leaks_gen_suppressions_blocks_follow_records(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    o.gen_suppressions = true;
    leaks_set(&set, recs, 4242);
    lr_check_against("leaks.gen-suppressions.txt", &set, &o);
    /* Shown but not an error kind: still gets its block. */
    o.show_kinds = LP_KINDS_ALL;
    o.error_kinds = LP_KIND_BIT(LP_KIND_DEFINITE);
    lr_check_against("leaks.all-gen-errdef.txt", &set, &o);
}

static void test_leaks_summary_and_no_modes_match_memcheck(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    leaks_set(&set, recs, 1);
    o.leak_check = LP_CHECK_SUMMARY;
    lr_check_against("leaks.summary.txt", &set, &o);
    assert_int_equal(lp_leaks_errors(&set, &o), 0);
    o.leak_check = LP_CHECK_NO;
    lr_check_against("leaks.no.txt", &set, &o);
    assert_int_equal(lp_leaks_errors(&set, &o), 0);
}

static void test_leaks_show_and_error_kinds_are_independent(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    leaks_set(&set, recs, 1);
    o.show_kinds = 0;
    o.error_kinds = LP_KINDS_ALL;
    lr_check_against("leaks.shownone-errall.txt", &set, &o);
    assert_int_equal(lp_leaks_errors(&set, &o), 7);
}

static void suppress(struct lp_leak_set *set, int cap, int entry)
{
    for (size_t i = 0; i < set->nrecs; i++)
        if (set->recs[i].stack_id == (uint32_t)cap)
            set->recs[i].supp = entry;
}

static void test_leaks_suppressed_records_move_to_the_summary(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    /* leaks.supp: make_block_leaks (definite) and possible_leak. */
    leaks_set(&set, recs, 1);
    suppress(&set, cap_block[0], 0);
    suppress(&set, cap_block[1], 0);
    suppress(&set, cap_possible, 1);
    lr_check_against("leaks.supp.full.txt", &set, &o);
    assert_int_equal(lp_leaks_suppressed_errors(&set, &o), 3);
    o.show_kinds = o.error_kinds = LP_KINDS_ALL;
    lr_check_against("leaks.supp.all-errall.txt", &set, &o);

    /* reach-indirect.supp: kinds that are no errors count as bytes only. */
    o = lr_full_opts();
    leaks_set(&set, recs, 1);
    suppress(&set, cap_reach, 0);
    suppress(&set, cap_n1, 1);
    suppress(&set, cap_n2, 1);
    lr_check_against("leaks.supp-reach.full.txt", &set, &o);
    assert_int_equal(lp_leaks_suppressed_errors(&set, &o), 0);
    o.leak_check = LP_CHECK_SUMMARY;
    lr_check_against("leaks.supp-reach.summary.txt", &set, &o);
}

static void test_leaks_no_blocks_in_use_means_no_leaks_possible(void **state)
{
    struct lp_leak_set set = { .allocs = 1, .frees = 1, .bytes_allocated = 10 };
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    set.pid = 1;
    lr_check_against("clean.full.txt", &set, &o);
}

static void test_leaks_heuristic_lines_in_summary(void **state)
{
    struct lp_loss_record recs[2];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();

    (void)state;
    memset(&set, 0, sizeof(set));
    recs[0] = lr_rec(LP_KIND_REACHABLE, cap_reach, 32, 1);
    recs[1] = lr_rec(LP_KIND_REACHABLE, cap_possible, 48, 1);
    set.pid = 1;
    set.recs = recs;
    set.nrecs = 2;
    set.in_use_bytes = 80;
    set.in_use_blocks = 2;
    set.allocs = 3;
    set.frees = 1;
    set.bytes_allocated = 72784;
    set.heur_bytes[LP_HEUR_NEWARRAY] = 32;
    set.heur_blocks[LP_HEUR_NEWARRAY] = 1;
    set.heur_bytes[LP_HEUR_LENGTH64] = 48;
    set.heur_blocks[LP_HEUR_LENGTH64] = 1;
    lr_check_against("heur.full.txt", &set, &o);
}

static void test_leaks_big_numbers_are_commified_but_error_counts_not(void **state)
{
    enum { N = 1001 };
    struct lp_loss_record *recs = calloc(N, sizeof(*recs));
    struct lp_leak_set set = { .pid = 1 };
    struct lp_leak_opts o = lr_full_opts();
    char *got, *want, *line, *save = NULL;
    struct lr_text t = { 0 };
    int pid;

    (void)state;
    want = lr_slurp("many.filtered.txt");
    pid = lr_fixture_pid(want);
    for (int i = 0; i < N; i++) {
        recs[i] = lr_rec(LP_KIND_DEFINITE, cap_block[0], 1, 1);
        recs[i].stack_id = (uint32_t)(N - i); /* distinct contexts */
    }
    set.pid = pid;
    set.recs = recs;
    set.nrecs = N;
    set.in_use_bytes = set.in_use_blocks = N;
    got = lr_print_to_string(&set, &o);
    /* The same lines the fixture kept from Valgrind's output. */
    t.cap = 4096;
    t.s = calloc(1, t.cap);
    for (line = strtok_r(got, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
        if (strstr(line, "loss record 1 of") || strstr(line, "loss record 2 of") ||
            strstr(line, "loss record 999 of") || strstr(line, "loss record 1,000 of") ||
            strstr(line, "loss record 1,001 of") || strstr(line, "LEAK SUMMARY") ||
            strstr(line, "lost:") || strstr(line, "reachable:") ||
            strstr(line, "suppressed:") || strstr(line, "ERROR SUMMARY"))
            lr_addf(&t, "%s\n", line);
    assert_string_equal(t.s, want);
    free(t.s);
    free(got);
    free(want);
    free(recs);
}

/* ---- tests: pieces ---------------------------------------------------- */

static void test_leaks_commify_groups_thousands(void **state)
{
    char buf[32];

    (void)state;
    assert_string_equal(lp_commify(0, buf, sizeof(buf)), "0");
    assert_string_equal(lp_commify(999, buf, sizeof(buf)), "999");
    assert_string_equal(lp_commify(1000, buf, sizeof(buf)), "1,000");
    assert_string_equal(lp_commify(73197, buf, sizeof(buf)), "73,197");
    assert_string_equal(lp_commify(20480000, buf, sizeof(buf)), "20,480,000");
    assert_string_equal(lp_commify(UINT64_MAX, buf, sizeof(buf)), "18,446,744,073,709,551,615");
    assert_string_equal(lp_commify(1234567, buf, 4), "1,2");
}

static void test_leaks_sort_uses_total_then_kind_blocks_stack(void **state)
{
    struct lp_loss_record r[5] = {
        { .kind = LP_KIND_DEFINITE, .bytes = 32, .indirect_bytes = 64, .blocks = 1, .stack_id = 1 },
        { .kind = LP_KIND_INDIRECT, .bytes = 96, .blocks = 1, .stack_id = 2 },
        { .kind = LP_KIND_INDIRECT, .bytes = 96, .blocks = 2, .stack_id = 3 },
        { .kind = LP_KIND_REACHABLE, .bytes = 96, .blocks = 9, .stack_id = 4 },
        { .kind = LP_KIND_INDIRECT, .bytes = 96, .blocks = 1, .stack_id = 0 },
    };
    struct lp_leak_set set = { .recs = r, .nrecs = 5 };

    (void)state;
    lp_leaks_sort(&set);
    assert_int_equal(r[0].stack_id, 4); /* reachable first at equal totals */
    assert_int_equal(r[1].stack_id, 0); /* then indirect, by blocks, by stack */
    assert_int_equal(r[2].stack_id, 2);
    assert_int_equal(r[3].stack_id, 3);
    assert_int_equal(r[4].stack_id, 1); /* definite with indirect bytes last */
}

static void test_leaks_frames_stop_at_main_or_below_main(void **state)
{
    struct lp_sym_frame f[LR_MAXF * LP_SYM_MAX_INLINE];
    struct lr_cap *c = &lr_caps[cap_block[0]];
    uintptr_t ips[LR_MAXF];
    unsigned i, n = 0, main_at = 0;
    int nf;

    (void)state;
    nf = lp_leaks_frames(lr_sym, c->ips, c->nips, f, LR_MAXF);
    assert_int_equal(nf, 4);
    assert_string_equal(f[1].fn, "make_block");
    assert_string_equal(f[2].fn, "leak_definite");
    assert_string_equal(f[3].fn, "main");
    assert_true(c->nips > 4); /* libc's start code was really cut off */
    /* The allocator frame is the hook's own name (of its aliases, the one
     * with the fewest underscores, as Valgrind picks), at its address. */
    assert_string_equal(f[0].fn, "malloc");
    assert_string_equal(f[0].mangled, "malloc");
    assert_false(f[0].inlined);
    assert_true(f[0].addr == c->ips[0]);
    assert_true(f[1].addr == c->ips[1] - 1);
    /* max bounds the frames. */
    assert_int_equal(lp_leaks_frames(lr_sym, c->ips, c->nips, f, 2), 2);

    /* Without main (a stripped binary): cut after the innermost below-main
     * function, shown as "(below main)". */
    for (i = 0; i < c->nips; i++)
        if (i != 3)
            ips[n++] = c->ips[i];
        else
            main_at = i;
    assert_int_equal(main_at, 3);
    nf = lp_leaks_frames(lr_sym, ips, n, f, LR_MAXF);
    assert_true(nf >= 4);
    assert_string_equal(f[nf - 1].fn, LP_SYM_BELOW_MAIN);
    assert_string_equal(f[nf - 1].mangled, LP_SYM_BELOW_MAIN);
    for (i = 0; i < (unsigned)nf - 1; i++)
        assert_false(lp_sym_is_below_main(f[i].fn));

    /* No main, no below-main (a thread): the stack is kept whole. */
    nf = lp_leaks_frames(lr_sym, c->ips, 3, f, LR_MAXF);
    assert_int_equal(nf, 3);
    /* No symbolizer: every frame is unknown but still printed. */
    nf = lp_leaks_frames(NULL, c->ips, 3, f, LR_MAXF);
    assert_int_equal(nf, 3);
    assert_null(f[2].fn);
}

static void test_leaks_depth_limits_callers_like_num_callers(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();
    char *got;

    (void)state;
    leaks_set(&set, recs, 1);
    o.depth = 2;
    got = lr_print_to_string(&set, &o);
    assert_non_null(strstr(got, "by 0x"));
    assert_null(strstr(got, ": main (")); /* 2 ips: allocator + one caller */
    assert_null(strstr(got, ": leak_definite ("));
    free(got);
}

static void test_leaks_print_reports_stream_errors(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();
    FILE *f = fopen("/dev/full", "w");

    (void)state;
    if (f == NULL)
        skip();
    leaks_set(&set, recs, 1);
    assert_true(lp_leaks_print(f, &set, lr_sym, &o) < 0);
    fclose(f);
}

/* Memcheck's Command: quoting, as seen byte by byte in valgrind 3.19 logs. */
static void test_leaks_command_quotes_as_memcheck(void **state)
{
    static const char args[] = "./e\0a b\0<in>\0c\\d\0t\tab\0\xc3\xa9\0\0$x'\"\x7f";
    char out[128];

    (void)state;
    lp_leaks_command(args, sizeof(args), out, sizeof(out));
    assert_string_equal(out, "./e a\\ b \\<in\\> c\\\\d t_ab __  $x'\"\x7f");
    /* Truncation keeps a whole escape or none. */
    lp_leaks_command("a b", 4, out, 3);
    assert_string_equal(out, "a");
}

static void test_leaks_preamble_and_quiet_mode(void **state)
{
    static const char args[] = "./slow_app\0x y";
    struct lp_loss_record recs[7];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();
    char *got;

    (void)state;
    leaks_set(&set, recs, 1);
    o.command = args;
    o.command_len = sizeof(args);
    o.parent_pid = 42;
    got = lr_print_to_string(&set, &o);
    assert_non_null(strstr(got, "== leakprof-"));
    assert_non_null(strstr(got, "== Command: ./slow_app x\\ y\n==1== Parent PID: 42\n==1== \n==1== \n==1== HEAP SUMMARY:"));
    assert_true(strncmp(got, "==1== leakprof-", 15) == 0);
    free(got);

    o.quiet = true;
    got = lr_print_to_string(&set, &o);
    assert_memory_equal(got, "==1== Command: ./slow_app x\\ y\n==1== ", 37);
    assert_non_null(strstr(got, "are definitely lost in loss record"));
    assert_null(strstr(got, "SUMMARY"));
    assert_null(strstr(got, "Parent PID"));
    free(got);

    o.list_suppressions = true; /* -q -s: the ERROR SUMMARY line stays */
    got = lr_print_to_string(&set, &o);
    assert_non_null(strstr(got, "ERROR SUMMARY: "));
    assert_null(strstr(got, "LEAK SUMMARY"));
    free(got);

    o.list_suppressions = false; /* nothing shown: nothing printed */
    o.show_kinds = 0;
    got = lr_print_to_string(&set, &o);
    assert_string_equal(got, "");
    free(got);
}

/* A warning of the run (the program kept the snapshot signal): between
 * the preamble's blank line and the exit's, as Valgrind's; not in -q. */
static void test_leaks_warning_follows_preamble(void **state)
{
    static const char args[] = "./svc";
    struct lp_loss_record recs[7];
    struct lp_leak_set set;
    struct lp_leak_opts o = lr_full_opts();
    const char *want;
    char *got;

    (void)state;
    leaks_set(&set, recs, 1);
    o.command = args;
    o.command_len = sizeof(args);
    o.warning = "the program handles SIGUSR1 itself";
    want = "==1== Warning: the program handles SIGUSR1 itself\n==1== \n"
           "==1== HEAP SUMMARY:";
    got = lr_print_to_string(&set, &o);
    assert_non_null(strstr(got, "==1== Command: ./svc\n==1== \n==1== Warning: "
                                "the program handles SIGUSR1 itself\n==1== \n"
                                "==1== HEAP SUMMARY:"));
    free(got);

    o.command = NULL; /* preamble already out (a fork, a heap error) */
    got = lr_print_to_string(&set, &o);
    assert_true(strncmp(got, want, strlen(want)) == 0);
    free(got);

    o.command = args;
    o.quiet = true;
    got = lr_print_to_string(&set, &o);
    assert_null(strstr(got, "Warning"));
    free(got);

    o.quiet = false;
    o.warning = NULL;
    got = lr_print_to_string(&set, &o);
    assert_null(strstr(got, "Warning"));
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leaks_full_matches_memcheck),
        cmocka_unit_test(test_leaks_full_all_kinds_matches_memcheck),
        cmocka_unit_test(test_leaks_gen_suppressions_blocks_follow_records),
        cmocka_unit_test(test_leaks_summary_and_no_modes_match_memcheck),
        cmocka_unit_test(test_leaks_show_and_error_kinds_are_independent),
        cmocka_unit_test(test_leaks_suppressed_records_move_to_the_summary),
        cmocka_unit_test(test_leaks_no_blocks_in_use_means_no_leaks_possible),
        cmocka_unit_test(test_leaks_heuristic_lines_in_summary),
        cmocka_unit_test(test_leaks_big_numbers_are_commified_but_error_counts_not),
        cmocka_unit_test(test_leaks_commify_groups_thousands),
        cmocka_unit_test(test_leaks_sort_uses_total_then_kind_blocks_stack),
        cmocka_unit_test(test_leaks_frames_stop_at_main_or_below_main),
        cmocka_unit_test(test_leaks_depth_limits_callers_like_num_callers),
        cmocka_unit_test(test_leaks_print_reports_stream_errors),
        cmocka_unit_test(test_leaks_command_quotes_as_memcheck),
        cmocka_unit_test(test_leaks_preamble_and_quiet_mode),
        cmocka_unit_test(test_leaks_warning_follows_preamble),
    };

    /* leaks.c's main, each call on its line. */
    LR_SITE(0); leak_definite(0);
    LR_SITE(0); leak_definite(1);
    LR_SITE(0); leak_indirect();
    LR_SITE(0); leak_possible();
    LR_SITE(0); keep_reachable();
    return cmocka_run_group_tests_name("leaks", tests, lr_setup, lr_teardown);
}
