/* SPDX-License-Identifier: MIT */
/*
 * test_json.c - report/json: string escaping and the JSON leak report on
 * a hand-built lp_leak_set whose addresses are this binary's functions.
 * (tests/cigate/json_sarif.sh feeds the same kind of output to a real
 * JSON parser.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/suppress.h"

static char *esc(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    lp_json_string(f, s);
    fclose(f);
    return buf;
}

#define ESC_EQ(in, want)              \
    do {                              \
        char *got_ = esc(in);         \
        assert_string_equal(got_, want); \
        free(got_);                   \
    } while (0)

static void test_escape(void **state)
{
    (void)state;
    ESC_EQ(NULL, "null");
    ESC_EQ("", "\"\"");
    ESC_EQ("plain", "\"plain\"");
    ESC_EQ("a\"b\\c", "\"a\\\"b\\\\c\"");
    ESC_EQ("\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\"");
    ESC_EQ("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
    /* Valid UTF-8 passes through: e-acute, euro sign, U+1F600. */
    ESC_EQ("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
           "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
    /* Invalid: lone continuation, truncated sequence, overlong '/',
     * UTF-16 surrogate, beyond U+10FFFF, 0xff. */
    ESC_EQ("a\x80z", "\"a\\ufffdz\"");
    ESC_EQ("\xe2\x82", "\"\\ufffd\\ufffd\"");
    ESC_EQ("\xc0\xaf", "\"\\ufffd\\ufffd\"");
    ESC_EQ("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
    ESC_EQ("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    ESC_EQ("\xff", "\"\\ufffd\"");
    ESC_EQ("std::map<int, char*>::operator[](int const&)",
           "\"std::map<int, char*>::operator[](int const&)\"");
}

/* A fake stack in this binary: ips[0] is a pc inside alloc_site, the
 * others return addresses into caller_a / caller_b. */
__attribute__((noinline)) void alloc_site(void);
__attribute__((noinline)) void alloc_site(void)
{
    __asm__ volatile("nop; nop; nop; nop");
}
__attribute__((noinline)) void caller_a(void);
__attribute__((noinline)) void caller_a(void)
{
    __asm__ volatile("nop; nop; nop; nop");
}
__attribute__((noinline)) void caller_b(void);
__attribute__((noinline)) void caller_b(void)
{
    __asm__ volatile("nop; nop; nop; nop");
}

static uintptr_t ips_a[3], ips_b[2];

static void build(struct lp_leak_set *set, struct lp_loss_record *r)
{
    ips_a[0] = (uintptr_t)alloc_site + 1;
    ips_a[1] = (uintptr_t)caller_a + 2;
    ips_a[2] = (uintptr_t)caller_b + 2;
    ips_b[0] = (uintptr_t)alloc_site + 1;
    ips_b[1] = (uintptr_t)caller_b + 2;
    memset(set, 0, sizeof(*set));
    memset(r, 0, 4 * sizeof(*r));
    set->pid = 4242;
    set->in_use_bytes = 20480296;
    set->in_use_blocks = 5007;
    set->allocs = 5010;
    set->frees = 3;
    set->bytes_allocated = 20481000;
    set->heur_bytes[LP_HEUR_STDSTRING] = 40;
    set->heur_blocks[LP_HEUR_STDSTRING] = 1;
    /* Deliberately out of Memcheck's order. */
    r[0] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 1,
                                    .ips = ips_a, .nips = 3,
                                    .bytes = 20480000, .blocks = 5000,
                                    .supp = -1 };
    r[1] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 2,
                                    .ips = ips_b, .nips = 2, .bytes = 32,
                                    .blocks = 1, .indirect_bytes = 64,
                                    .indirect_blocks = 2, .supp = -1 };
    r[2] = (struct lp_loss_record){ .kind = LP_KIND_INDIRECT, .stack_id = 3,
                                    .ips = ips_b, .nips = 2, .bytes = 64,
                                    .blocks = 2, .supp = -1 };
    r[3] = (struct lp_loss_record){ .kind = LP_KIND_POSSIBLE, .stack_id = 4,
                                    .ips = ips_a, .nips = 3, .bytes = 200,
                                    .blocks = 4, .supp = 0 };
    set->recs = r;
    set->nrecs = 4;
}

static char *render(struct lp_leak_set *set, const struct lp_leak_opts *o,
                    const struct lp_supp *supp)
{
    struct lp_sym *sym = lp_sym_new();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(lp_leaks_json_supp(f, set, sym, o, supp), 0);
    fclose(f);
    lp_sym_free(sym);
    return buf;
}

static void must_have(const char *doc, const char *s)
{
    if (!strstr(doc, s))
        fail_msg("missing %s in:\n%s", s, doc);
}

static void test_document(void **state)
{
    struct lp_leak_set set;
    struct lp_loss_record r[4];
    struct lp_leak_opts o = { .leak_check = LP_CHECK_FULL,
                              .show_kinds = LP_KIND_BIT(LP_KIND_DEFINITE),
                              .error_kinds = LP_KINDS_DEFAULT,
                              .depth = 30 };
    struct lp_supp *supp = lp_supp_new();
    char err[128], *doc;
    const char *p1, *p2, *p3;

    (void)state;
    assert_int_equal(lp_supp_load_string(supp, "x.supp", "leak:caller_a\n",
                                         err, sizeof(err)), 1);
    build(&set, r);
    doc = render(&set, &o, supp);
    must_have(doc, "\"tool\": \"leakprof\"");
    must_have(doc, "\"pid\": 4242");
    must_have(doc, "\"heap_summary\": {\"in_use_bytes\": 20480296, "
                   "\"in_use_blocks\": 5007, \"allocs\": 5010, \"frees\": 3, "
                   "\"bytes_allocated\": 20481000}");
    /* Memcheck's summary: definite is direct bytes only, the suppressed
     * possible record moves to "suppressed". */
    must_have(doc, "\"definitely_lost\": {\"bytes\": 20480032, \"blocks\": 5001}");
    must_have(doc, "\"indirectly_lost\": {\"bytes\": 64, \"blocks\": 2}");
    must_have(doc, "\"possibly_lost\": {\"bytes\": 0, \"blocks\": 0}");
    must_have(doc, "\"suppressed\": {\"bytes\": 200, \"blocks\": 4}");
    must_have(doc, "\"stdstring\": {\"bytes\": 40, \"blocks\": 1}");
    /* Sorted: 64 indirect, 96 definite, 200 possible, 20,480,000. */
    p1 = strstr(doc, "\"number\": 1, \"of\": 4, \"kind\": \"indirectly lost\"");
    p2 = strstr(doc, "\"number\": 2, \"of\": 4, \"kind\": \"definitely lost\"");
    p3 = strstr(doc, "\"number\": 4, \"of\": 4, \"kind\": \"definitely lost\"");
    assert_non_null(p1);
    assert_non_null(p2);
    assert_non_null(p3);
    assert_true(p1 < p2 && p2 < p3);
    must_have(doc, "\"bytes\": 96, \"direct_bytes\": 32, \"indirect_bytes\": "
                   "64, \"blocks\": 1, \"indirect_blocks\": 2");
    must_have(doc, "\"kind_id\": \"possible\"");
    must_have(doc, "\"suppressed\": true, \"suppression\": \"caller_a\", "
                   "\"shown\": false, \"error\": false");
    /* Indirect: not shown (show_kinds), not an error kind. */
    must_have(doc, "\"suppressed\": false, \"suppression\": null, "
                   "\"shown\": false, \"error\": false");
    must_have(doc, "\"suppressed\": false, \"suppression\": null, "
                   "\"shown\": true, \"error\": true");
    /* Frames resolve in this binary, with file and line. */
    must_have(doc, "\"function\": \"alloc_site\"");
    must_have(doc, "\"function\": \"caller_a\"");
    must_have(doc, "\"file\": \"test_json.c\", \"line\": ");
    must_have(doc, "\"inlined\": false}");
    must_have(doc, "\"errors\": 2,\n  \"error_contexts\": 2,\n"
                   "  \"suppressed_errors\": 1,\n  \"suppressed_contexts\": 1\n}\n");
    free(doc);

    /* Without the suppression set, the entry index is given. */
    doc = render(&set, &o, NULL);
    must_have(doc, "\"suppressed\": true, \"suppression\": 0,");
    free(doc);
    lp_supp_free(supp);
}

static void test_summary_mode_and_empty(void **state)
{
    struct lp_leak_set set;
    struct lp_loss_record r[4];
    struct lp_leak_opts o = { .leak_check = LP_CHECK_SUMMARY,
                              .show_kinds = LP_KINDS_ALL,
                              .error_kinds = LP_KINDS_ALL, .depth = 1 };
    char *doc;

    (void)state;
    build(&set, r);
    doc = render(&set, &o, NULL);
    /* Summary mode: nothing is shown or counted (Memcheck). */
    assert_null(strstr(doc, "\"error\": true"));
    assert_null(strstr(doc, "\"shown\": true"));
    must_have(doc, "\"leak_check\": \"summary\"");
    must_have(doc, "\"errors\": 0,");
    /* depth=1 keeps only the allocation site frame. */
    assert_null(strstr(doc, "caller_a"));
    free(doc);

    set.nrecs = 0;
    doc = render(&set, NULL, NULL);
    must_have(doc, "\"loss_records\": [],");
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_document),
        cmocka_unit_test(test_summary_mode_and_empty),
    };

    return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
