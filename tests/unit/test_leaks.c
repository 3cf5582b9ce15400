/* SPDX-License-Identifier: MIT */
/*
 * test_leaks.c - the leak report writer against real Memcheck 3.19 output.
 *
 * main() first replays tests/fixtures/leaks/leaks.c (and live.c, live2.c)
 * with functions of the same names: each allocation site captures its
 * real call stack (libunwind) with ips[0] set to libc's malloc/calloc, the
 * stand-in for our hook, which the report prints in the "(in obj)" form.
 * Each test hand-builds the lp_leak_set Memcheck's leak search found for
 * that program, prints it, and compares with the Memcheck output saved in
 * the fixtures, whose stack lines are rewritten to this binary's addresses
 * and lines: function names, numbering, wording, commas, summaries, hints
 * and ERROR SUMMARY come from Valgrind verbatim.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>

#include "report/leaks.h"

#define NOIPA __attribute__((noinline, noipa))
#define MAXF 64

enum hook { HOOK_MALLOC, HOOK_CALLOC };

struct cap {
    uintptr_t ips[MAXF];
    unsigned nips;
    int lines[MAXF]; /* lines[k]: the source line frame k must print */
};

static struct cap caps[32];
static int ncaps;
static int site[4]; /* site[d]: the line of the call made at depth d */
static uintptr_t hook_addr[2];
static volatile int sink;

/* Record the caller's stack as the preload would, minus our own frame. */
NOIPA static int capture(enum hook h, int depth)
{
    struct cap *c = &caps[ncaps];
    void *buf[MAXF];
    int n = unw_backtrace(buf, MAXF), i;

    c->ips[0] = hook_addr[h];
    for (i = 1; i < n; i++)
        c->ips[i] = (uintptr_t)buf[i];
    c->nips = (unsigned)(n > 0 ? n : 1);
    for (i = 1; i <= depth + 1; i++)
        c->lines[i] = site[depth + 1 - i];
    __asm__ volatile("" ::: "memory");
    return ncaps++;
}

/* The scenario of leaks.c; the capture index stands for the block. */
static int cap_block[2], cap_head, cap_n1, cap_n2, cap_possible, cap_reach;
static int cap_leak[3], cap_keep, cap_keep2, cap_ind_head[2], cap_ind_child[2];

NOIPA static int make_block(void)
{
    int c;
    site[2] = __LINE__; c = capture(HOOK_MALLOC, 2);
    sink++;
    return c;
}

NOIPA static void leak_definite(int i)
{
    site[1] = __LINE__; cap_block[i] = make_block();
    sink++;
}

NOIPA static void leak_indirect(void)
{
    site[1] = __LINE__; cap_head = capture(HOOK_MALLOC, 1);
    site[1] = __LINE__; cap_n1 = capture(HOOK_MALLOC, 1);
    site[1] = __LINE__; cap_n2 = capture(HOOK_MALLOC, 1);
    sink++;
}

NOIPA static void leak_possible(void)
{
    site[1] = __LINE__; cap_possible = capture(HOOK_MALLOC, 1);
    sink++;
}

NOIPA static void keep_reachable(void)
{
    site[1] = __LINE__; cap_reach = capture(HOOK_CALLOC, 1);
    sink++;
}

/* live.c / live2.c */
NOIPA static void leak(int i)
{
    site[1] = __LINE__; cap_leak[i] = capture(HOOK_MALLOC, 1);
    sink++;
}

NOIPA static void leakind(int i)
{
    site[1] = __LINE__; cap_ind_head[i] = capture(HOOK_MALLOC, 1);
    site[1] = __LINE__; cap_ind_child[i] = capture(HOOK_MALLOC, 1);
    sink++;
}

static struct lp_sym *sym;
static const char *self_obj; /* the object of hook_addr: "our library" */

/* ---- building sets ---------------------------------------------------- */

static struct lp_loss_record rec(enum lp_kind kind, int cap, uint64_t bytes,
                                 uint64_t blocks)
{
    struct lp_loss_record r = {
        .kind = kind, .stack_id = (uint32_t)cap, .ips = caps[cap].ips,
        .nips = caps[cap].nips, .bytes = bytes, .blocks = blocks, .supp = -1,
    };
    return r;
}

static struct cap *cap_of(const struct lp_loss_record *r)
{
    return &caps[r->stack_id];
}

/* The loss records of leaks.c, in a scrambled order (the writer sorts). */
static void leaks_set(struct lp_leak_set *set, struct lp_loss_record *recs, int pid)
{
    memset(set, 0, sizeof(*set));
    recs[0] = rec(LP_KIND_REACHABLE, cap_reach, 128, 1);
    recs[1] = rec(LP_KIND_DEFINITE, cap_block[1], 100, 1);
    recs[2] = rec(LP_KIND_INDIRECT, cap_n2, 32, 1);
    recs[3] = rec(LP_KIND_DEFINITE, cap_head, 32, 1);
    recs[3].indirect_bytes = 64;
    recs[3].indirect_blocks = 2;
    recs[4] = rec(LP_KIND_POSSIBLE, cap_possible, 64, 1);
    recs[5] = rec(LP_KIND_INDIRECT, cap_n1, 32, 1);
    recs[6] = rec(LP_KIND_DEFINITE, cap_block[0], 100, 1);
    set->pid = pid;
    set->in_use_bytes = 488;
    set->in_use_blocks = 7;
    set->allocs = 8;
    set->frees = 1;
    set->bytes_allocated = 988;
    set->recs = recs;
    set->nrecs = 7;
}

static struct lp_leak_opts full_opts(void)
{
    struct lp_leak_opts o = {
        .leak_check = LP_CHECK_FULL, .show_kinds = LP_KINDS_DEFAULT,
        .error_kinds = LP_KINDS_DEFAULT, .self_obj = self_obj, .depth = 30,
    };
    return o;
}

/* ---- fixtures --------------------------------------------------------- */

static char *slurp(const char *name)
{
    const char *top = getenv("LP_TOP");
    char path[4096];
    FILE *f;
    char *buf;
    long n;

    snprintf(path, sizeof(path), "%s/tests/fixtures/leaks/%s", top != NULL ? top : ".", name);
    f = fopen(path, "r");
    if (f == NULL)
        fail_msg("cannot open '%s'", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

struct text {
    char *s;
    size_t len, cap;
};

static void addf(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if ((size_t)n < t->cap - t->len)
            break;
        t->cap = (t->cap + (size_t)n) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    t->len += (size_t)n;
}

static int fixture_pid(const char *text)
{
    const char *p = strstr(text, "==");

    assert_non_null(p);
    return atoi(p + 2);
}

/* Name and object of a hook address, as our symbolizer gives them. */
static struct lp_sym_frame hook_frame(uintptr_t ip)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    int n = lp_sym_resolve(sym, ip, false, f, LP_SYM_MAX_INLINE);

    return f[n - 1];
}

/*
 * Memcheck's text with its stack lines moved onto our binary: the k-th
 * frame line of record i becomes "0x<ip-1>: <same fn> (test_leaks.c:<line>)"
 * and the allocator frame "<hook> (in <libc>)". The preamble, `sending
 * command` and other non-message lines are dropped. set must be sorted.
 */
static char *expected(const char *name, const struct lp_leak_set *set, bool live)
{
    char *src = slurp(name), *save = NULL, *ln;
    struct text t = { 0 };
    const struct lp_loss_record *r = NULL;
    bool started = live;
    int k = 0, gen_k = 0;

    t.cap = 4096;
    t.s = malloc(t.cap);
    t.s[0] = '\0';
    for (ln = strtok_r(src, "\n", &save); ln != NULL; ln = strtok_r(NULL, "\n", &save)) {
        char *msg = ln[0] == '=' ? strstr(ln + 2, "== ") : NULL;
        unsigned long idx, n;
        char fn[512];

        if (msg != NULL)
            msg += 3;
        if (!started) {
            if (msg != NULL && strcmp(msg, "HEAP SUMMARY:") == 0) {
                started = true;
                addf(&t, "==%d== \n", set->pid);
            } else {
                continue;
            }
        }
        if (msg == NULL) {
            /* gen-suppressions blocks; the first fun: is the allocator. */
            if (ln[0] == '{') {
                gen_k = 0;
                addf(&t, "%s\n", ln);
            } else if (strncmp(ln, "   fun:", 7) == 0 && gen_k++ == 0) {
                addf(&t, "   fun:%s\n", hook_frame(r->ips[0]).mangled);
            } else if (ln[0] == '}' || strncmp(ln, "   ", 3) == 0) {
                addf(&t, "%s\n", ln);
            }
            continue;
        }
        if (strstr(msg, " in loss record ") != NULL) {
            /* Record numbers here stay below 1,000 (no commas to parse). */
            assert_int_equal(sscanf(strstr(msg, " in loss record "), " in loss record %lu of %lu",
                                    &idx, &n), 2);
            assert_int_equal(n, set->nrecs);
            assert_true(idx >= 1 && idx <= set->nrecs);
            r = &set->recs[idx - 1];
            k = 0;
            addf(&t, "==%d== %s\n", set->pid, msg);
            continue;
        }
        if (strncmp(msg, "   at 0x", 8) == 0 || strncmp(msg, "   by 0x", 8) == 0) {
            assert_non_null(r);
            if (k == 0) {
                struct lp_sym_frame hf = hook_frame(r->ips[0]);

                addf(&t, "==%d==    at 0x%lX: %s (in %s)\n", set->pid,
                     (unsigned long)r->ips[0], hf.fn, self_obj);
            } else {
                assert_int_equal(sscanf(strchr(msg, ':') + 2, "%511[^ ]", fn), 1);
                assert_true((unsigned)k < r->nips);
                addf(&t, "==%d==    by 0x%lX: %s (test_leaks.c:%d)\n", set->pid,
                     (unsigned long)(r->ips[k] - 1), fn, cap_of(r)->lines[k]);
            }
            k++;
            continue;
        }
        /* Memcheck's monitor-command hints name vgdb's leak_check
         * arguments; leakprof's live report gives its own options, the
         * exit-time wording (see leaks.h). */
        if (live && strcmp(msg, "To see details of leaked memory, give 'full' arg to leak_check") == 0)
            msg = "Rerun with --leak-check=full to see details of leaked memory";
        else if (live && strcmp(msg, "To see them, add 'reachable any' args to leak_check") == 0)
            msg = "To see them, rerun with: --leak-check=full --show-leak-kinds=all";
        addf(&t, "==%d== %s\n", set->pid, msg);
    }
    free(src);
    return t.s;
}

static char *print_to_string(struct lp_leak_set *set, const struct lp_leak_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(lp_leaks_print(f, set, sym, o), 0);
    fclose(f);
    return buf;
}

static void check_against(const char *fixture, struct lp_leak_set *set,
                          const struct lp_leak_opts *o)
{
    char *got = print_to_string(set, o);
    char *want = expected(fixture, set, o->live);

    if (getenv("LP_TEST_VERBOSE") != NULL)
        fprintf(stderr, "--- %s:\n%s", fixture, got);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "--- %s expected:\n%s--- got:\n%s", fixture, want, got);
    assert_string_equal(got, want);
    free(got);
    free(want);
}

/* ---- tests: the exit-time report -------------------------------------- */

static void test_leaks_full_matches_memcheck(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();

    (void)state;
    leaks_set(&set, recs, 4242);
    check_against("leaks.full.txt", &set, &o);
    assert_int_equal(lp_leaks_errors(&set, &o), 4);
}

static void test_leaks_full_all_kinds_matches_memcheck(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();

    (void)state;
    o.show_kinds = LP_KINDS_ALL;
    leaks_set(&set, recs, 4242);
    check_against("leaks.full-all.txt", &set, &o);
}

static void test_leaks_gen_suppressions_blocks_follow_records(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();

    (void)state;
    o.gen_suppressions = true;
    leaks_set(&set, recs, 4242);
    check_against("leaks.gen-suppressions.txt", &set, &o);
    /* Shown but not an error kind: still gets its block. */
    o.show_kinds = LP_KINDS_ALL;
    o.error_kinds = LP_KIND_BIT(LP_KIND_DEFINITE);
    check_against("leaks.all-gen-errdef.txt", &set, &o);
}

static void test_leaks_summary_and_no_modes_match_memcheck(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();

    (void)state;
    leaks_set(&set, recs, 1);
    o.leak_check = LP_CHECK_SUMMARY;
    check_against("leaks.summary.txt", &set, &o);
    assert_int_equal(lp_leaks_errors(&set, &o), 0);
    o.leak_check = LP_CHECK_NO;
    check_against("leaks.no.txt", &set, &o);
    assert_int_equal(lp_leaks_errors(&set, &o), 0);
}

static void test_leaks_show_and_error_kinds_are_independent(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();

    (void)state;
    leaks_set(&set, recs, 1);
    o.show_kinds = 0;
    o.error_kinds = LP_KINDS_ALL;
    check_against("leaks.shownone-errall.txt", &set, &o);
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
    struct lp_leak_opts o = full_opts();

    (void)state;
    /* leaks.supp: make_block_leaks (definite) and possible_leak. */
    leaks_set(&set, recs, 1);
    suppress(&set, cap_block[0], 0);
    suppress(&set, cap_block[1], 0);
    suppress(&set, cap_possible, 1);
    check_against("leaks.supp.full.txt", &set, &o);
    assert_int_equal(lp_leaks_suppressed_errors(&set, &o), 3);
    o.show_kinds = o.error_kinds = LP_KINDS_ALL;
    check_against("leaks.supp.all-errall.txt", &set, &o);

    /* reach-indirect.supp: kinds that are no errors count as bytes only. */
    o = full_opts();
    leaks_set(&set, recs, 1);
    suppress(&set, cap_reach, 0);
    suppress(&set, cap_n1, 1);
    suppress(&set, cap_n2, 1);
    check_against("leaks.supp-reach.full.txt", &set, &o);
    assert_int_equal(lp_leaks_suppressed_errors(&set, &o), 0);
    o.leak_check = LP_CHECK_SUMMARY;
    check_against("leaks.supp-reach.summary.txt", &set, &o);
}

static void test_leaks_no_blocks_in_use_means_no_leaks_possible(void **state)
{
    struct lp_leak_set set = { .allocs = 1, .frees = 1, .bytes_allocated = 10 };
    struct lp_leak_opts o = full_opts();

    (void)state;
    set.pid = 1;
    check_against("clean.full.txt", &set, &o);
}

static void test_leaks_heuristic_lines_in_summary(void **state)
{
    struct lp_loss_record recs[2];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();

    (void)state;
    memset(&set, 0, sizeof(set));
    recs[0] = rec(LP_KIND_REACHABLE, cap_reach, 32, 1);
    recs[1] = rec(LP_KIND_REACHABLE, cap_possible, 48, 1);
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
    check_against("heur.full.txt", &set, &o);
}

static void test_leaks_big_numbers_are_commified_but_error_counts_not(void **state)
{
    enum { N = 1001 };
    struct lp_loss_record *recs = calloc(N, sizeof(*recs));
    struct lp_leak_set set = { .pid = 1 };
    struct lp_leak_opts o = full_opts();
    char *got, *want, *line, *save = NULL;
    struct text t = { 0 };
    int pid;

    (void)state;
    want = slurp("many.filtered.txt");
    pid = fixture_pid(want);
    for (int i = 0; i < N; i++) {
        recs[i] = rec(LP_KIND_DEFINITE, cap_leak[0], 1, 1);
        recs[i].stack_id = (uint32_t)(N - i); /* distinct contexts */
    }
    set.pid = pid;
    set.recs = recs;
    set.nrecs = N;
    set.in_use_bytes = set.in_use_blocks = N;
    got = print_to_string(&set, &o);
    /* The same lines the fixture kept from Valgrind's output. */
    t.cap = 4096;
    t.s = calloc(1, t.cap);
    for (line = strtok_r(got, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
        if (strstr(line, "loss record 1 of") || strstr(line, "loss record 2 of") ||
            strstr(line, "loss record 999 of") || strstr(line, "loss record 1,000 of") ||
            strstr(line, "loss record 1,001 of") || strstr(line, "LEAK SUMMARY") ||
            strstr(line, "lost:") || strstr(line, "reachable:") ||
            strstr(line, "suppressed:") || strstr(line, "ERROR SUMMARY"))
            addf(&t, "%s\n", line);
    assert_string_equal(t.s, want);
    free(t.s);
    free(got);
    free(want);
    free(recs);
}

/* ---- tests: live reports ---------------------------------------------- */

static void test_leaks_live_increased_matches_monitor_command(void **state)
{
    struct lp_loss_record recs[2];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();

    (void)state;
    memset(&set, 0, sizeof(set));
    recs[0] = rec(LP_KIND_DEFINITE, cap_leak[0], 100, 1);
    recs[1] = rec(LP_KIND_REACHABLE, cap_keep, 50, 1);
    set.pid = 4242;
    set.recs = recs;
    set.nrecs = 2;
    set.in_use_blocks = 2; /* heap counters are not printed live */
    o.live = true;
    o.show_kinds = LP_KIND_BIT(LP_KIND_DEFINITE);
    check_against("live.increased.txt", &set, &o);
}

/* live2.c at its second search: nine records, one vanished. */
static void live2_second(struct lp_leak_set *set, struct lp_loss_record *recs)
{
    struct lp_loss_record *r;

    memset(set, 0, sizeof(*set));
    recs[0] = rec(LP_KIND_REACHABLE, cap_keep, 0, 0);
    recs[0].old_bytes = 50;
    recs[0].old_blocks = 1;
    recs[1] = rec(LP_KIND_REACHABLE, cap_keep2, 20, 1);
    recs[2] = rec(LP_KIND_INDIRECT, cap_ind_child[0], 32, 1);
    recs[3] = rec(LP_KIND_INDIRECT, cap_ind_child[1], 32, 1);
    recs[4] = rec(LP_KIND_DEFINITE, cap_ind_head[0], 32, 1);
    recs[5] = rec(LP_KIND_DEFINITE, cap_ind_head[1], 32, 1);
    recs[6] = rec(LP_KIND_DEFINITE, cap_leak[0], 100, 1);
    recs[7] = rec(LP_KIND_DEFINITE, cap_leak[1], 100, 1);
    recs[8] = rec(LP_KIND_DEFINITE, cap_leak[2], 300, 1);
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
    struct lp_leak_opts o = full_opts();
    struct lp_leak_totals t;

    (void)state;
    live2_second(&set, recs);
    set.pid = 4242;
    o.live = true;
    o.show_kinds = LP_KIND_BIT(LP_KIND_DEFINITE);
    check_against("live2.3-full-definite-increased.txt", &set, &o);

    /* The next search compares with this one: nothing changed. */
    lp_leaks_totals(&set, &t);
    for (size_t i = 0; i < set.nrecs; i++) {
        set.recs[i].old_bytes = set.recs[i].bytes;
        set.recs[i].old_blocks = set.recs[i].blocks;
        set.recs[i].old_indirect_bytes = set.recs[i].indirect_bytes;
    }
    set.old = t;
    o.live_delta = LP_DELTA_CHANGED;
    check_against("live2.4-full-definite-changed.txt", &set, &o);
}

static void test_leaks_live_summary_and_any_modes(void **state)
{
    struct lp_loss_record recs[4];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();

    (void)state;
    memset(&set, 0, sizeof(set));
    recs[0] = rec(LP_KIND_DEFINITE, cap_leak[0], 100, 1);
    recs[1] = rec(LP_KIND_DEFINITE, cap_ind_head[0], 32, 1);
    recs[1].indirect_bytes = 32;
    recs[1].indirect_blocks = 1;
    recs[2] = rec(LP_KIND_INDIRECT, cap_ind_child[0], 32, 1);
    recs[3] = rec(LP_KIND_REACHABLE, cap_keep, 50, 1);
    set.pid = 4242;
    set.recs = recs;
    set.nrecs = 4;
    set.in_use_blocks = 4;
    o.live = true;
    o.leak_check = LP_CHECK_SUMMARY;
    check_against("live2.1-summary.txt", &set, &o);

    /* Second search, "full reachable any": all kinds, no deltas. */
    lp_leaks_totals(&set, &set.old);
    o.leak_check = LP_CHECK_FULL;
    o.live_delta = LP_DELTA_ANY;
    o.show_kinds = LP_KINDS_ALL;
    check_against("live2.2-full-reachable-any.txt", &set, &o);
}

/* The header a snapshot signal's report starts with; none without seq. */
static void test_leaks_live_header_names_signal_and_file(void **state)
{
    struct lp_loss_record recs[1];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();
    char *got, *nl;

    (void)state;
    memset(&set, 0, sizeof(set));
    recs[0] = rec(LP_KIND_DEFINITE, cap_leak[0], 100, 1);
    set.pid = 4242;
    set.recs = recs;
    set.nrecs = 1;
    set.in_use_blocks = 1;
    o.live = true;
    o.live_seq = 3;
    o.live_signo = SIGUSR2;
    o.live_ms = 61234;
    o.live_massif = "massif.out.4242.3";
    got = print_to_string(&set, &o);
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
    got = print_to_string(&set, &o);
    assert_true(strncmp(got, "==4242== Live leak check 1 on SIGRTMIN+3, 0.00 s after "
                             "start; no heap profile\n", 78) == 0);
    free(got);

    /* No header at exit, nor in a live report without a signal number. */
    o.live_seq = 0;
    got = print_to_string(&set, &o);
    assert_null(strstr(got, "Live leak check"));
    free(got);
    o.live = false;
    o.live_seq = 2;
    got = print_to_string(&set, &o);
    assert_null(strstr(got, "Live leak check"));
    free(got);
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
    struct lp_sym_frame f[MAXF * LP_SYM_MAX_INLINE];
    struct cap *c = &caps[cap_block[0]];
    uintptr_t ips[MAXF];
    unsigned i, n = 0, main_at = 0;
    int nf;

    (void)state;
    nf = lp_leaks_frames(sym, c->ips, c->nips, f, MAXF);
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
    assert_int_equal(lp_leaks_frames(sym, c->ips, c->nips, f, 2), 2);

    /* Without main (a stripped binary): cut after the innermost below-main
     * function, shown as "(below main)". */
    for (i = 0; i < c->nips; i++)
        if (i != 3)
            ips[n++] = c->ips[i];
        else
            main_at = i;
    assert_int_equal(main_at, 3);
    nf = lp_leaks_frames(sym, ips, n, f, MAXF);
    assert_true(nf >= 4);
    assert_string_equal(f[nf - 1].fn, LP_SYM_BELOW_MAIN);
    assert_string_equal(f[nf - 1].mangled, LP_SYM_BELOW_MAIN);
    for (i = 0; i < (unsigned)nf - 1; i++)
        assert_false(lp_sym_is_below_main(f[i].fn));

    /* No main, no below-main (a thread): the stack is kept whole. */
    nf = lp_leaks_frames(sym, c->ips, 3, f, MAXF);
    assert_int_equal(nf, 3);
    /* No symbolizer: every frame is unknown but still printed. */
    nf = lp_leaks_frames(NULL, c->ips, 3, f, MAXF);
    assert_int_equal(nf, 3);
    assert_null(f[2].fn);
}

static void test_leaks_depth_limits_callers_like_num_callers(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();
    char *got;

    (void)state;
    leaks_set(&set, recs, 1);
    o.depth = 2;
    got = print_to_string(&set, &o);
    assert_non_null(strstr(got, "by 0x"));
    assert_null(strstr(got, ": main (")); /* 2 ips: allocator + one caller */
    assert_null(strstr(got, ": leak_definite ("));
    free(got);
}

static void test_leaks_print_reports_stream_errors(void **state)
{
    struct lp_loss_record recs[8];
    struct lp_leak_set set;
    struct lp_leak_opts o = full_opts();
    FILE *f = fopen("/dev/full", "w");

    (void)state;
    if (f == NULL)
        skip();
    leaks_set(&set, recs, 1);
    assert_true(lp_leaks_print(f, &set, sym, &o) < 0);
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
    struct lp_leak_opts o = full_opts();
    char *got;

    (void)state;
    leaks_set(&set, recs, 1);
    o.command = args;
    o.command_len = sizeof(args);
    o.parent_pid = 42;
    got = print_to_string(&set, &o);
    assert_non_null(strstr(got, "== leakprof-"));
    assert_non_null(strstr(got, "== Command: ./slow_app x\\ y\n==1== Parent PID: 42\n==1== \n==1== \n==1== HEAP SUMMARY:"));
    assert_true(strncmp(got, "==1== leakprof-", 15) == 0);
    free(got);

    o.quiet = true;
    got = print_to_string(&set, &o);
    assert_memory_equal(got, "==1== Command: ./slow_app x\\ y\n==1== ", 37);
    assert_non_null(strstr(got, "are definitely lost in loss record"));
    assert_null(strstr(got, "SUMMARY"));
    assert_null(strstr(got, "Parent PID"));
    free(got);

    o.list_suppressions = true; /* -q -s: the ERROR SUMMARY line stays */
    got = print_to_string(&set, &o);
    assert_non_null(strstr(got, "ERROR SUMMARY: "));
    assert_null(strstr(got, "LEAK SUMMARY"));
    free(got);

    o.list_suppressions = false; /* nothing shown: nothing printed */
    o.show_kinds = 0;
    got = print_to_string(&set, &o);
    assert_string_equal(got, "");
    free(got);
}

static int setup(void **state)
{
    (void)state;
    sym = lp_sym_new();
    if (sym == NULL)
        return -1;
    self_obj = hook_frame(hook_addr[HOOK_MALLOC]).obj;
    return self_obj != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    lp_sym_free(sym);
    return 0;
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
        cmocka_unit_test(test_leaks_live_increased_matches_monitor_command),
        cmocka_unit_test(test_leaks_live_deltas_on_every_number),
        cmocka_unit_test(test_leaks_live_summary_and_any_modes),
        cmocka_unit_test(test_leaks_live_header_names_signal_and_file),
        cmocka_unit_test(test_leaks_commify_groups_thousands),
        cmocka_unit_test(test_leaks_sort_uses_total_then_kind_blocks_stack),
        cmocka_unit_test(test_leaks_frames_stop_at_main_or_below_main),
        cmocka_unit_test(test_leaks_depth_limits_callers_like_num_callers),
        cmocka_unit_test(test_leaks_print_reports_stream_errors),
        cmocka_unit_test(test_leaks_command_quotes_as_memcheck),
        cmocka_unit_test(test_leaks_preamble_and_quiet_mode),
    };

    hook_addr[HOOK_MALLOC] = (uintptr_t)dlsym(RTLD_DEFAULT, "malloc");
    hook_addr[HOOK_CALLOC] = (uintptr_t)dlsym(RTLD_DEFAULT, "calloc");
    /* leaks.c's main, then live.c's and live2.c's, each call on its line. */
    site[0] = __LINE__; leak_definite(0);
    site[0] = __LINE__; leak_definite(1);
    site[0] = __LINE__; leak_indirect();
    site[0] = __LINE__; leak_possible();
    site[0] = __LINE__; keep_reachable();
    site[0] = __LINE__; leak(0);
    site[0] = __LINE__; cap_keep = capture(HOOK_MALLOC, 0);
    site[0] = __LINE__; leakind(0);
    site[0] = __LINE__; leak(1);
    site[0] = __LINE__; leak(2);
    site[0] = __LINE__; leakind(1);
    site[0] = __LINE__; cap_keep2 = capture(HOOK_MALLOC, 0);
    return cmocka_run_group_tests_name("leaks", tests, setup, teardown);
}
