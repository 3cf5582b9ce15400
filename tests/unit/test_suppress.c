/* SPDX-License-Identifier: MIT */
/*
 * test_suppress.c - report/suppress: parsing, Valgrind and LSan matching,
 * usage report and --gen-suppressions blocks. Expected behaviour is what
 * Valgrind 3.19 and gcc 12's LSan do (measured; see tests/cigate/).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/suppress.h"

/* The frames below are written positionally up to `inlined`; the
 * trailing members (path, comp_dir: SARIF's) stay NULL. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define FIX "tests/fixtures/supp/"

/* Frames as lp_leaks_frames returns them for examples/src/leaks.c. */
#define F(fn, file, line, obj) \
    { 0x1000, fn, NULL, file, line, obj, false }
#define PROG "/tmp/leaks"
#define SELF "/usr/lib/leakprof/libleakprof.so"

static const struct lp_sym_frame make_block_stack[] = {
    F("malloc", NULL, 0, SELF),
    F("make_block", "leaks.c", 9, PROG),
    F("leak_definite", "leaks.c", 12, PROG),
    F("main", "leaks.c", 34, PROG),
};
static const struct lp_sym_frame possible_stack[] = {
    F("malloc", NULL, 0, SELF),
    F("leak_possible", "leaks.c", 25, PROG),
    F("main", "leaks.c", 37, PROG),
};
static const struct lp_sym_frame indirect_stack[] = {
    F("malloc", NULL, 0, SELF),
    F("leak_indirect", "leaks.c", 18, PROG),
    F("main", "leaks.c", 36, PROG),
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static char *capture(void (*fn)(FILE *, void *), void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    fn(f, arg);
    fclose(f);
    return buf;
}

static void test_glob(void **state)
{
    (void)state;
    assert_true(lp_supp_glob("malloc", "malloc"));
    assert_false(lp_supp_glob("malloc", "malloc2"));
    assert_true(lp_supp_glob("leak_poss*", "leak_possible"));
    assert_true(lp_supp_glob("*", ""));
    assert_true(lp_supp_glob("m?lloc", "malloc"));
    assert_false(lp_supp_glob("m?lloc", "mlloc"));
    assert_true(lp_supp_glob("*/libstdc++.so*",
                             "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"));
    assert_true(lp_supp_glob("*a*b*c", "xxaxxbxxbxc"));
    assert_false(lp_supp_glob("*a*b*c", "xxaxxbxxbx"));
    /* Valgrind has no escape character: a backslash is literal. */
    assert_false(lp_supp_glob("mal\\loc", "malloc"));
}

static void test_lsan_template(void **state)
{
    (void)state;
    /* The cases measured with LSan on examples/src/leaks.c. */
    assert_true(lp_supp_lsan_match("make_block", "make_block"));
    assert_true(lp_supp_lsan_match("^make_block$", "make_block"));
    assert_true(lp_supp_lsan_match("block$", "make_block"));
    assert_true(lp_supp_lsan_match("mak*ock", "make_block"));
    assert_false(lp_supp_lsan_match("^block", "make_block"));
    assert_true(lp_supp_lsan_match("ake_bl", "make_block"));
    assert_false(lp_supp_lsan_match("leaks.c:19", "leaks.c"));
    /* Null and empty strings never match, an empty template matches any. */
    assert_false(lp_supp_lsan_match("x", NULL));
    assert_false(lp_supp_lsan_match("", ""));
    assert_true(lp_supp_lsan_match("", "anything"));
    /* First occurrence, no backtracking: measured with gcc 12's LSan on a
     * function named abxab (tests/cigate/lsan_template.sh re-checks). */
    assert_false(lp_supp_lsan_match("ab$", "abxab"));
    assert_false(lp_supp_lsan_match("*ab$", "abxab"));
    assert_false(lp_supp_lsan_match("^a*b$", "abxab"));
    assert_true(lp_supp_lsan_match("abxab$", "abxab"));
    assert_true(lp_supp_lsan_match("b*ab$", "abxab"));
    assert_true(lp_supp_lsan_match("xa*$", "abxab"));
}

static void test_kind_set(void **state)
{
    unsigned k = 99;

    (void)state;
    assert_int_equal(lp_supp_parse_kinds("definite,possible", &k), 0);
    assert_int_equal(k, LP_KINDS_DEFAULT);
    assert_int_equal(lp_supp_parse_kinds("all", &k), 0);
    assert_int_equal(k, LP_KINDS_ALL);
    assert_int_equal(lp_supp_parse_kinds("none", &k), 0);
    assert_int_equal(k, 0);
    assert_int_equal(lp_supp_parse_kinds("reachable", &k), 0);
    assert_int_equal(k, LP_KIND_BIT(LP_KIND_REACHABLE));
    assert_int_equal(lp_supp_parse_kinds("definite,,possible", &k), -1);
    assert_int_equal(lp_supp_parse_kinds("definitely", &k), -1);
    assert_int_equal(lp_supp_parse_kinds("", &k), -1);
}

/* examples/src/leaks.supp: the make_block entry is definite only, with a
 * trailing `...`; the possible entry ends in a glob. */
static void test_load_leaks_supp(void **state)
{
    struct lp_supp *s = lp_supp_new();
    char err[256];
    int line = 0;

    (void)state;
    assert_int_equal(lp_supp_load(s, FIX "leaks.supp", err, sizeof(err)), 2);
    assert_string_equal(lp_supp_name(s, 0), "make_block_leaks");
    assert_string_equal(lp_supp_file(s, 0, &line), FIX "leaks.supp");
    assert_int_equal(line, 3);
    assert_string_equal(lp_supp_name(s, 1), "possible_leak");
    lp_supp_file(s, 1, &line);
    assert_int_equal(line, 11);
    assert_false(lp_supp_is_lsan(s, 0));

    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), 0);
    /* Same stack, other kind: match-leak-kinds: definite filters it. */
    assert_int_equal(lp_supp_match(s, LP_KIND_REACHABLE, make_block_stack,
                                   N(make_block_stack)), -1);
    assert_int_equal(lp_supp_match(s, LP_KIND_POSSIBLE, possible_stack,
                                   N(possible_stack)), 1);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, possible_stack,
                                   N(possible_stack)), -1);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, indirect_stack,
                                   N(indirect_stack)), -1);
    /* A prefix of the stack must match: fun:make_block is frame 1. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack + 1,
                                   N(make_block_stack) - 1), -1);
    lp_supp_free(s);
}

static void test_lsan_file(void **state)
{
    struct lp_supp *s = lp_supp_new();
    char err[256];

    (void)state;
    assert_int_equal(lp_supp_load(s, FIX "lsan.supp", err, sizeof(err)), 2);
    assert_true(lp_supp_is_lsan(s, 0));
    assert_string_equal(lp_supp_name(s, 0), "make_block");
    assert_string_equal(lp_supp_name(s, 1), "leaks.c:19");
    /* leak:make_block hits any kind, any frame. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), 0);
    assert_int_equal(lp_supp_match(s, LP_KIND_REACHABLE, make_block_stack + 1,
                                   N(make_block_stack) - 1), 0);
    /* leaks.c:19 matches nothing: line numbers are not part of LSan's
     * strings. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, indirect_stack,
                                   N(indirect_stack)), -1);
    lp_supp_free(s);
}

static void test_lsan_any_field(void **state)
{
    struct lp_supp *s = lp_supp_new();
    char err[256];

    (void)state;
    assert_int_equal(lp_supp_load_string(s, "t", "leak:libleakprof\n"
                                                 "leak:^leaks.c$\n",
                                         err, sizeof(err)), 2);
    /* The module of frame 0 matches before any file name. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, indirect_stack,
                                   N(indirect_stack)), 0);
    /* Without that frame, the anchored file name matches. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, indirect_stack + 1,
                                   N(indirect_stack) - 1), 1);
    lp_supp_free(s);
}

static void test_mixed_file(void **state)
{
    struct lp_supp *s = lp_supp_new();
    char err[256];
    int line;
    const struct lp_sym_frame cxx[] = {
        { 0x10, "operator new(unsigned long)", "_Znwm", NULL, 0, SELF, false },
        { 0x20, "Widget::Widget()", "_ZN6WidgetC1Ev", "widget.cc", 42,
          PROG, false },
        { 0x30, "main", "main", "main.cc", 3, PROG, false },
    };
    const struct lp_sym_frame lib[] = {
        F("malloc", NULL, 0, SELF),
        F(NULL, NULL, 0, "/opt/lib/libfoo.so.1"),
        F("main", "m.c", 3, PROG),
    };

    (void)state;
    assert_int_equal(lp_supp_load(s, FIX "mixed.supp", err, sizeof(err)), 3);
    assert_string_equal(lp_supp_name(s, 0), "tabbed_leak");
    lp_supp_file(s, 0, &line);
    assert_int_equal(line, 15);
    assert_string_equal(lp_supp_name(s, 1), "libfoo.so");
    assert_string_equal(lp_supp_name(s, 2), "^init_cache$");
    lp_supp_file(s, 2, &line);
    assert_int_equal(line, 24);
    /* fun: compares the mangled name, src: file and line. */
    assert_int_equal(lp_supp_match(s, LP_KIND_INDIRECT, cxx, N(cxx)), 0);
    assert_int_equal(lp_supp_match(s, LP_KIND_POSSIBLE, cxx, N(cxx)), -1);
    assert_int_equal(lp_supp_match(s, LP_KIND_POSSIBLE, lib, N(lib)), 1);
    lp_supp_free(s);
}

static void test_demangled_fallback_and_src(void **state)
{
    struct lp_supp *s = lp_supp_new();
    char err[256];
    const struct lp_sym_frame st[] = {
        F("malloc", NULL, 0, SELF),
        F(NULL, NULL, 0, NULL),
        F("make_block", "leaks.c", 9, PROG),
    };

    (void)state;
    assert_int_equal(lp_supp_load_string(s, "t",
                                         "{\n a\n Memcheck:Leak\n fun:malloc\n"
                                         " fun:???\n src:leak?.c:9\n}\n"
                                         "{\n b\n Memcheck:Leak\n obj:*.so\n"
                                         " obj:\\?\\?\\?\n src:leaks.c:10\n}\n",
                                         err, sizeof(err)), 2);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, st, N(st)), 0);
    lp_supp_free(s);
}

static void test_dots(void **state)
{
    struct lp_supp *s = lp_supp_new();
    char err[256];

    (void)state;
    assert_int_equal(lp_supp_load_string(s, "t",
                                         "{\n a\n Memcheck:Leak\n ...\n"
                                         " fun:leak_definite\n ...\n"
                                         " ...\n fun:main\n}\n",
                                         err, sizeof(err)), 1);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), 0);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, indirect_stack,
                                   N(indirect_stack)), -1);
    /* A pattern longer than the stack cannot match. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack, 3),
                     -1);
    lp_supp_free(s);
}

/* Valgrind --num-callers=2 with "malloc, make_block, XXX": matches. */
static void test_max_callers(void **state)
{
    struct lp_supp *s = lp_supp_new();
    char err[128];

    (void)state;
    assert_int_equal(lp_supp_load_string(s, "t",
                                         "{\n t\n Memcheck:Leak\n fun:malloc\n"
                                         " fun:make_block\n fun:XXX\n}\n",
                                         err, sizeof(err)), 1);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), -1);
    lp_supp_set_max_callers(s, 3);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), -1);
    lp_supp_set_max_callers(s, 2);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), 0);
    lp_supp_set_max_callers(s, 0);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), -1);
    lp_supp_free(s);
}

static void test_inlined_frames_count(void **state)
{
    struct lp_supp *s = lp_supp_new();
    char err[256];
    /* Valgrind: malloc, inner, outer (both inlined into entry), entry. */
    const struct lp_sym_frame st[] = {
        { 0x10, "malloc", "malloc", NULL, 0, SELF, false },
        { 0x20, "inner", NULL, "inl.c", 3, PROG, false },
        { 0x20, "outer", NULL, "inl.c", 4, PROG, true },
        { 0x20, "entry", "entry", "inl.c", 5, PROG, true },
        { 0x30, "main", "main", "inl.c", 6, PROG, false },
    };

    (void)state;
    assert_int_equal(lp_supp_load_string(s, "t",
                                         "{\n skip_inline\n Memcheck:Leak\n"
                                         " fun:malloc\n fun:entry\n}\n"
                                         "{\n with_inline\n Memcheck:Leak\n"
                                         " fun:malloc\n fun:inner\n"
                                         " fun:outer\n fun:entry\n}\n",
                                         err, sizeof(err)), 2);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, st, N(st)), 1);
    lp_supp_free(s);
}

struct err_case {
    const char *file;
    const char *msg; /* expected prefix of the error after FILE: */
};

static void test_bad_files(void **state)
{
    static const struct err_case cases[] = {
        { "bad_missing_brace.supp", ":9: unexpected end of file" },
        { "bad_frame.supp", ":6: expected fun:, obj:, src:" },
        { "bad_kinds.supp", ":4: bad match-leak-kinds set" },
        { "bad_onlydots.supp", ":6: suppression 'x' needs at least one" },
        { "bad_memcheck_kind.supp", ":3: unknown Memcheck suppression kind" },
        { "bad_lsan_type.supp", ":2: unsupported suppression type 'race'" },
    };
    struct lp_supp *s = lp_supp_new();
    char err[256], want[256], path[128];
    size_t i;

    (void)state;
    assert_int_equal(lp_supp_load(s, FIX "leaks.supp", err, sizeof(err)), 2);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(want, sizeof(want), FIX "%s%s", cases[i].file, cases[i].msg);
        snprintf(path, sizeof(path), FIX "%s", cases[i].file);
        assert_int_equal(lp_supp_load(s, path, err, sizeof(err)), -1);
        if (strncmp(err, want, strlen(want)) != 0)
            fail_msg("got '%s', want prefix '%s'", err, want);
        /* All or nothing: the good entries before the error are gone. */
        assert_int_equal(lp_supp_count(s), 2);
    }
    assert_int_equal(lp_supp_load(s, FIX "no-such-file.supp", err,
                                  sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot open '" FIX "no-such-file.supp'"));
    /* Still usable, and the earlier entries still match. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), 0);
    lp_supp_free(s);
}

struct used_arg {
    struct lp_supp *s;
};

static void print_used_cb(FILE *f, void *arg)
{
    lp_supp_print_used(((struct used_arg *)arg)->s, f, 7050);
}

/* Valgrind: a later entry wins a tie; the -s list is most recently used
 * first (measured: "reach" used last was listed first). */
static void test_priority_and_used(void **state)
{
    struct lp_supp *s = lp_supp_new();
    struct used_arg a = { s };
    char err[256], *out;
    int first, second;
    uint64_t r, b, n;

    (void)state;
    assert_int_equal(lp_supp_load_string(s, "ov.supp",
                                         "{\n   first\n   Memcheck:Leak\n"
                                         "   fun:malloc\n   fun:make_block\n}\n"
                                         "{\n   second\n   Memcheck:Leak\n"
                                         "   fun:malloc\n   ...\n   fun:main\n}\n"
                                         "leak:leak_indirect\n",
                                         err, sizeof(err)), 3);
    first = lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                          N(make_block_stack));
    assert_int_equal(first, 1);
    lp_supp_note_use(s, first, 100, 1);
    lp_supp_note_use(s, first, 100, 1);
    second = lp_supp_match(s, LP_KIND_POSSIBLE, possible_stack,
                           N(possible_stack));
    assert_int_equal(second, 1);
    /* Valgrind entries go first even when an LSan line would match. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, indirect_stack,
                                   N(indirect_stack)), 1);
    /* Without main in the stack, only the LSan line matches. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, indirect_stack, 2), 2);
    lp_supp_note_use(s, 2, 32, 1);
    lp_supp_note_use(s, 2, 72672, 1);
    lp_supp_get_use(s, 1, &r, &b, &n);
    assert_true(r == 2 && b == 200 && n == 2);

    /* Now force "first" to be used: it moves in front of "second". */
    {
        const struct lp_sym_frame nomain[] = {
            F("malloc", NULL, 0, SELF), F("make_block", "leaks.c", 9, PROG),
        };
        int i = lp_supp_match(s, LP_KIND_DEFINITE, nomain, 2);

        assert_int_equal(i, 0);
        lp_supp_note_use(s, i, 1234567, 3);
    }
    out = capture(print_used_cb, &a);
    assert_string_equal(out,
        "--7050-- used_suppression:      1 first ov.supp:2 suppressed: "
        "1,234,567 bytes in 3 blocks\n"
        "--7050-- used_suppression:      2 second ov.supp:8 suppressed: "
        "200 bytes in 2 blocks\n"
        "-----------------------------------------------------\n"
        "Suppressions used:\n"
        "  count      bytes template\n"
        "      2      72704 leak_indirect\n"
        "-----------------------------------------------------\n"
        "\n");
    free(out);
    /* Having matched, "first" now wins the tie too. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), 0);
    lp_supp_free(s);
}

static void test_nothing_used_prints_nothing(void **state)
{
    struct lp_supp *s = lp_supp_new();
    struct used_arg a = { s };
    char *out;

    (void)state;
    assert_true(lp_supp_add_builtin(s) > 0);
    out = capture(print_used_cb, &a);
    assert_string_equal(out, "");
    free(out);
    lp_supp_free(s);
}

struct gen_arg {
    enum lp_kind kind;
    const struct lp_sym_frame *f;
    int n;
};

static void gen_cb(FILE *f, void *arg)
{
    struct gen_arg *g = arg;

    assert_int_equal(lp_supp_gen(f, g->kind, g->f, g->n), 0);
}

static void test_gen_roundtrip(void **state)
{
    const struct lp_sym_frame st[] = {
        { 0x10, "operator new(unsigned long)", "_Znwm", NULL, 0, SELF, false },
        { 0x20, "ns::mk(int)", "_ZN2nsL2mkEi", "cpp.cpp", 6, PROG, false },
        { 0x30, NULL, NULL, NULL, 0, "/usr/lib/libx.so", false },
        { 0x40, NULL, NULL, NULL, 0, NULL, false },
        { 0x50, "main", NULL, "cpp.cpp", 10, PROG, false },
    };
    struct gen_arg g = { LP_KIND_DEFINITE, st, N(st) };
    struct lp_supp *s = lp_supp_new();
    char err[256], *out;

    (void)state;
    out = capture(gen_cb, &g);
    assert_string_equal(out, "{\n"
                             "   <insert_a_suppression_name_here>\n"
                             "   Memcheck:Leak\n"
                             "   match-leak-kinds: definite\n"
                             "   fun:_Znwm\n"
                             "   fun:_ZN2nsL2mkEi\n"
                             "   obj:/usr/lib/libx.so\n"
                             "   obj:*\n"
                             "   fun:main\n"
                             "}\n");
    assert_int_equal(lp_supp_load_string(s, "gen", out, err, sizeof(err)), 1);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, st, N(st)), 0);
    assert_int_equal(lp_supp_match(s, LP_KIND_INDIRECT, st, N(st)), -1);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack,
                                   N(make_block_stack)), -1);
    free(out);
    lp_supp_free(s);
}

/* A thread's stack ends in glibc's clone3 natively and in clone under
 * Memcheck (Valgrind 3.19 has no clone3): Memcheck's entries (fun:clone)
 * match ours, and ours are written as Memcheck writes them. Only glibc's
 * clone3 goes by that alias. */
static void test_clone3_as_memcheck_names_it(void **state)
{
    const struct lp_sym_frame st[] = {
        F("malloc", NULL, 0, SELF),
        F("work", "thr.c", 4, PROG),
        F("start_thread", "pthread_create.c", 442,
          "/usr/lib/x86_64-linux-gnu/libc.so.6"),
        F("clone3", "clone3.S", 81, "/usr/lib/x86_64-linux-gnu/libc.so.6"),
    };
    const struct lp_sym_frame own[] = {
        F("malloc", NULL, 0, SELF),
        F("clone3", "mine.c", 3, PROG),
    };
    struct gen_arg g = { LP_KIND_DEFINITE, st, N(st) };
    struct lp_supp *s = lp_supp_new();
    char err[256], *out;

    (void)state;
    assert_int_equal(lp_supp_load_string(s, "mc",
                                         "{\n mc\n Memcheck:Leak\n fun:malloc\n"
                                         " fun:work\n fun:start_thread\n"
                                         " fun:clone\n}\n"
                                         "{\n own\n Memcheck:Leak\n fun:malloc\n"
                                         " fun:clone\n}\n",
                                         err, sizeof(err)),
                     2);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, st, N(st)), 0);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, own, N(own)), -1);
    lp_supp_free(s);
    out = capture(gen_cb, &g);
    assert_non_null(strstr(out, "   fun:start_thread\n   fun:clone\n}\n"));
    free(out);
}

/* Matching on the first frames: what the leading patterns rule out is
 * ruled out, the rest goes to lp_supp_match; an LSan line needs every
 * frame. */
static void test_prefix_filter(void **state)
{
    const struct lp_sym_frame stdio[] = {
        F("malloc", NULL, 0, SELF),
        F("_IO_file_doallocate", "filedoalloc.c", 101, "/lib/libc.so.6"),
        F("main", "leaks.c", 34, PROG),
    };
    struct lp_supp *s = lp_supp_new();
    char err[256];

    (void)state;
    assert_true(lp_supp_add_builtin(s) > 0);
    assert_int_equal(lp_supp_prefix_len(s), 2); /* malloc + one frame */
    assert_false(lp_supp_prefix_may_match(s, LP_KIND_REACHABLE,
                                          make_block_stack, 2));
    assert_true(lp_supp_prefix_may_match(s, LP_KIND_REACHABLE, stdio, 2));
    assert_false(lp_supp_prefix_may_match(s, LP_KIND_DEFINITE, stdio, 2));
    /* A one-frame stack: the entry's second pattern has nothing to say. */
    assert_true(lp_supp_prefix_may_match(s, LP_KIND_REACHABLE, stdio, 1));
    assert_int_equal(lp_supp_load_string(s, "v",
                                         "{\n dots\n Memcheck:Leak\n ...\n"
                                         " fun:make_block\n}\n",
                                         err, sizeof(err)),
                     1);
    assert_int_equal(lp_supp_prefix_len(s), 2);
    assert_true(lp_supp_prefix_may_match(s, LP_KIND_DEFINITE,
                                         make_block_stack, 2));
    assert_int_equal(lp_supp_load_string(s, "l", "leak:nothing_here\n", err,
                                         sizeof(err)),
                     1);
    assert_int_equal(lp_supp_prefix_len(s), -1);
    lp_supp_free(s);
}

static void gen_free_cb(FILE *f, void *arg)
{
    const struct gen_arg *g = arg;

    assert_int_equal(lp_supp_gen_free(f, g->f, g->n), 0);
}

/* Memcheck:Free entries: heap errors only, never a leak; generated and
 * read back; -s lists their uses without bytes. */
static void test_free_entries(void **state)
{
    const struct lp_sym_frame at[] = {
        F("free", NULL, 0, SELF),
        F("drop", "d.c", 4, PROG),
        F("main", "d.c", 9, PROG),
    };
    struct gen_arg g = { LP_KIND_DEFINITE, at, N(at) };
    struct lp_supp *s = lp_supp_new();
    char err[256], *out, *used;
    uint64_t rec, bytes, blocks;

    (void)state;
    out = capture(gen_free_cb, &g);
    assert_string_equal(out, "{\n"
                             "   <insert_a_suppression_name_here>\n"
                             "   Memcheck:Free\n"
                             "   fun:free\n"
                             "   fun:drop\n"
                             "   fun:main\n"
                             "}\n");
    assert_int_equal(lp_supp_load_string(s, "gen", out, err, sizeof(err)), 1);
    assert_int_equal(lp_supp_match_free(s, at, N(at)), 0);
    assert_int_equal(lp_supp_match_free(s, make_block_stack, N(make_block_stack)), -1);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, at, N(at)), -1);
    /* A match-leak-kinds line has no place in a Free entry. */
    assert_int_equal(lp_supp_load_string(s, "bad", "{\n n\n Memcheck:Free\n"
                                         " match-leak-kinds: all\n fun:free\n}\n",
                                         err, sizeof(err)), -1);
    lp_supp_note_use(s, 0, 0, 0);
    lp_supp_note_use(s, 0, 0, 0);
    lp_supp_get_use(s, 0, &rec, &bytes, &blocks);
    assert_int_equal(rec, 2);
    {
        struct used_arg a = { s };

        used = capture(print_used_cb, &a);
    }
    assert_string_equal(used, "--7050-- used_suppression:      2 "
                              "<insert_a_suppression_name_here> gen:2\n");
    free(used);
    free(out);
    lp_supp_free(s);
}

static void test_builtin(void **state)
{
    struct lp_supp *s = lp_supp_new();
    const struct lp_sym_frame pool[] = {
        F("malloc", NULL, 0, SELF),
        F(NULL, NULL, 0, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30"),
        F("call_init", "dl-init.c", 74, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
        F("_dl_init", "dl-init.c", 121, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
    };
    const struct lp_sym_frame dtv[] = {
        F("calloc", NULL, 0, SELF),
        F("calloc", NULL, 0, "/lib64/ld-linux-x86-64.so.2"),
        F("allocate_dtv", NULL, 0, "/lib64/ld-linux-x86-64.so.2"),
        F("_dl_allocate_tls", NULL, 0, "/lib64/ld-linux-x86-64.so.2"),
        F("allocate_stack", NULL, 0, "/lib/libc.so.6"),
        F("pthread_create@@GLIBC_2.34", NULL, 0, "/lib/libc.so.6"),
        F("main", "t.c", 3, PROG),
    };
    /* A dlopen'ed module's TLS block, as Debian 12's ld.so makes it. */
    const struct lp_sym_frame tls[] = {
        F("malloc", NULL, 0, SELF),
        F("malloc", "rtld-malloc.h", 56, "/lib64/ld-linux-x86-64.so.2"),
        F("allocate_dtv_entry", "dl-tls.c", 721, "/lib64/ld-linux-x86-64.so.2"),
        F("tls_get_addr_tail", "dl-tls.c", 961, "/lib64/ld-linux-x86-64.so.2"),
        F("__tls_get_addr", "tls_get_addr.S", 55, "/lib64/ld-linux-x86-64.so.2"),
        F("main", "t.c", 5, PROG),
    };
    int i;

    (void)state;
    assert_int_equal(lp_supp_add_builtin(s), 2);
    /* Memcheck 3.19 reports it on Debian 12 (its dtv-addr-* entries want
     * allocate_dtv_entry right after malloc): so do we, whatever kind. */
    assert_int_equal(lp_supp_match(s, LP_KIND_REACHABLE, tls, N(tls)), -1);
    assert_int_equal(lp_supp_match(s, LP_KIND_POSSIBLE, tls, N(tls)), -1);
    i = lp_supp_match(s, LP_KIND_REACHABLE, pool, N(pool));
    assert_true(i >= 0);
    assert_string_equal(lp_supp_name(s, i), "lp-libstdcxx-eh-pool");
    assert_string_equal(lp_supp_file(s, i, NULL), "<builtin>");
    /* A definitely lost block of the same shape is still a leak. */
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, pool, N(pool)), -1);
    /* Live-thread DTV: reported unless opted in. */
    assert_int_equal(lp_supp_match(s, LP_KIND_POSSIBLE, dtv, N(dtv)), -1);
    assert_int_equal(lp_supp_add_builtin_threads(s), 1);
    i = lp_supp_match(s, LP_KIND_POSSIBLE, dtv, N(dtv));
    assert_true(i >= 0);
    assert_string_equal(lp_supp_name(s, i), "lp-thread-dtv");
    /* The user's program is not hidden by any built-in. */
    assert_int_equal(lp_supp_match(s, LP_KIND_REACHABLE, make_block_stack,
                                   N(make_block_stack)), -1);
    lp_supp_free(s);
}

static void test_degenerate(void **state)
{
    struct lp_supp *s = lp_supp_new();
    char err[64];

    (void)state;
    assert_int_equal(lp_supp_match(NULL, LP_KIND_DEFINITE, make_block_stack,
                                   4), -1);
    assert_int_equal(lp_supp_match(s, LP_KIND_DEFINITE, make_block_stack, 0),
                     -1);
    assert_int_equal(lp_supp_load_string(s, "e", "", err, sizeof(err)), 0);
    assert_int_equal(lp_supp_load_string(s, "e", "\n  \n# c\n", err,
                                         sizeof(err)), 0);
    /* A tiny error buffer truncates, never overflows. */
    assert_int_equal(lp_supp_load_string(s, "a-long-file-name.supp", "{\n",
                                         err, 8), -1);
    assert_int_equal(strlen(err), 7);
    assert_null(lp_supp_name(s, 0));
    assert_false(lp_supp_is_lsan(s, -1));
    lp_supp_note_use(s, 5, 1, 1);
    lp_supp_free(s);
    lp_supp_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glob),
        cmocka_unit_test(test_lsan_template),
        cmocka_unit_test(test_kind_set),
        cmocka_unit_test(test_load_leaks_supp),
        cmocka_unit_test(test_lsan_file),
        cmocka_unit_test(test_lsan_any_field),
        cmocka_unit_test(test_mixed_file),
        cmocka_unit_test(test_demangled_fallback_and_src),
        cmocka_unit_test(test_dots),
        cmocka_unit_test(test_inlined_frames_count),
        cmocka_unit_test(test_max_callers),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_priority_and_used),
        cmocka_unit_test(test_nothing_used_prints_nothing),
        cmocka_unit_test(test_gen_roundtrip),
        cmocka_unit_test(test_clone3_as_memcheck_names_it),
        cmocka_unit_test(test_prefix_filter),
        cmocka_unit_test(test_free_entries),
        cmocka_unit_test(test_builtin),
        cmocka_unit_test(test_degenerate),
    };

    return cmocka_run_group_tests_name("suppress", tests, NULL, NULL);
}
