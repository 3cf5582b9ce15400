/* SPDX-License-Identifier: MIT */
/*
 * test_sarif.c - report/sarif: which records become results, where a
 * result points, URIs, fingerprints. Frames are supplied by hand through
 * lp_leaks_sarif_frames; tests/cigate/json_sarif.sh validates real output
 * against the SARIF 2.1.0 schema.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/sarif.h"

#define SELF "/opt/leakprof/libleakprof.so"
#define APP "/home/u/proj/build/app"

/* Record stack_id -> its frames. */
struct fake {
    const struct lp_sym_frame *f[8];
    int n[8];
    uintptr_t bias; /* added to every address: a second "run" under ASLR */
};

static int fake_frames(void *ctx, const struct lp_loss_record *r,
                       struct lp_sym_frame **out)
{
    struct fake *fk = ctx;
    int n = fk->n[r->stack_id], i;

    *out = NULL;
    if (n == 0)
        return 0;
    *out = malloc(n * sizeof(**out));
    assert_non_null(*out);
    for (i = 0; i < n; i++) {
        (*out)[i] = fk->f[r->stack_id][i];
        (*out)[i].addr += fk->bias;
    }
    return n;
}

static const struct lp_sym_frame st_lib[] = {
    { 0x1000, "malloc", "malloc", NULL, 0, SELF, false, NULL, NULL },
    { 0x2000, "g_malloc", "g_malloc", "gmem.c", 130,
      "/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0", false, NULL, NULL },
    { 0x3000, "Parser::load(char const*)", "_ZN6Parser4loadEPKc",
      "/home/u/proj/src/my dir/parse#1.cc", 42, APP, false, NULL, NULL },
    { 0x4000, "main", "main", "main.cc", 7, APP, false, NULL, NULL },
};
static const struct lp_sym_frame st_self_only[] = {
    { 0x1000, "malloc", "malloc", "hooks.c", 50, SELF, false, NULL, NULL },
    { 0x5000, "strdup", "strdup", "strdup.c", 40,
      "/usr/lib/x86_64-linux-gnu/libc.so.6", false, NULL, NULL },
    { 0x6000, NULL, NULL, NULL, 0, NULL, false, NULL, NULL },
};
static const struct lp_sym_frame st_abs_other[] = {
    { 0x1000, "malloc", "malloc", NULL, 0, SELF, false, NULL, NULL },
    { 0x7000, "helper", "helper", "/srv/other/h.c", 9, "/srv/other/libh.so",
      false, NULL, NULL },
};

static char *render(struct lp_leak_set *set, const struct lp_leak_opts *o,
                    const char *root, struct fake *fk)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(lp_leaks_sarif_frames(f, set, o, root, fake_frames, fk),
                     0);
    fclose(f);
    return buf;
}

static void must_have(const char *doc, const char *s)
{
    if (!strstr(doc, s))
        fail_msg("missing %s in:\n%s", s, doc);
}

static int count(const char *doc, const char *s)
{
    int n = 0;

    while ((doc = strstr(doc, s))) {
        n++;
        doc++;
    }
    return n;
}

static void setup(struct lp_leak_set *set, struct lp_loss_record *r,
                  struct fake *fk)
{
    memset(set, 0, sizeof(*set));
    memset(r, 0, 5 * sizeof(*r));
    memset(fk, 0, sizeof(*fk));
    fk->f[1] = st_lib;
    fk->n[1] = 4;
    fk->f[2] = st_self_only;
    fk->n[2] = 3;
    fk->f[3] = st_abs_other;
    fk->n[3] = 2;
    fk->f[4] = st_lib;
    fk->n[4] = 4;
    set->pid = 99;
    r[0] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 1,
                                    .bytes = 20480000, .blocks = 5000,
                                    .supp = -1 };
    r[1] = (struct lp_loss_record){ .kind = LP_KIND_POSSIBLE, .stack_id = 2,
                                    .bytes = 10, .blocks = 1, .supp = -1 };
    r[2] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 3,
                                    .bytes = 1, .blocks = 1,
                                    .indirect_bytes = 1000,
                                    .indirect_blocks = 3, .supp = -1 };
    /* Suppressed, and a reachable record: never results by default. */
    r[3] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 4,
                                    .bytes = 5, .blocks = 1, .supp = 0 };
    r[4] = (struct lp_loss_record){ .kind = LP_KIND_REACHABLE, .stack_id = 4,
                                    .bytes = 7, .blocks = 1, .supp = -1 };
    set->recs = r;
    set->nrecs = 5;
}

static const struct lp_leak_opts opts = {
    .leak_check = LP_CHECK_FULL, .show_kinds = LP_KINDS_DEFAULT,
    .error_kinds = LP_KINDS_DEFAULT, .self_obj = SELF, .depth = 30,
};

static void test_results_and_locations(void **state)
{
    struct lp_leak_set set;
    struct lp_loss_record r[5];
    struct fake fk;
    char *doc;

    (void)state;
    setup(&set, r, &fk);
    doc = render(&set, &opts, "/home/u/proj/", &fk);
    must_have(doc, "\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\"");
    must_have(doc, "\"version\": \"2.1.0\"");
    must_have(doc, "\"originalUriBaseIds\": {\"SRCROOT\": {\"uri\": "
                   "\"file:///home/u/proj/\"}}");
    assert_int_equal(count(doc, "\"ruleId\""), 3);
    must_have(doc, "\"message\": {\"text\": \"20,480,000 bytes in 5,000 "
                   "blocks are definitely lost\"}");
    must_have(doc, "\"message\": {\"text\": \"1,001 (1 direct, 1,000 "
                   "indirect) bytes in 1 blocks are definitely lost\"}");
    must_have(doc, "\"ruleId\": \"leak/possible\",\n          \"ruleIndex\": "
                   "2,\n          \"level\": \"warning\"");
    assert_int_equal(count(doc, "\"level\": \"error\""), 2 + 1);
    /* Own source first: skips our hook and the /usr library; the path is
     * made relative to SRCROOT and percent-encoded. */
    must_have(doc, "\"locations\": [{\"physicalLocation\": "
                   "{\"artifactLocation\": {\"uri\": "
                   "\"src/my%20dir/parse%231.cc\", \"uriBaseId\": "
                   "\"SRCROOT\"}, \"region\": {\"startLine\": 42}}, "
                   "\"logicalLocations\": [{\"fullyQualifiedName\": "
                   "\"Parser::load(char const*)\", \"decoratedName\": "
                   "\"_ZN6Parser4loadEPKc\", \"kind\": \"function\"}]}]");
    /* Only system frames: the first frame with a line that is not ours. */
    must_have(doc, "\"locations\": [{\"physicalLocation\": "
                   "{\"artifactLocation\": {\"uri\": \"strdup.c\", "
                   "\"uriBaseId\": \"SRCROOT\"}, \"region\": "
                   "{\"startLine\": 40}}");
    /* An absolute path outside SRCROOT stays a file:// URI. */
    must_have(doc, "{\"uri\": \"file:///srv/other/h.c\"}");
    /* The stack: frames with module and address; an unknown frame keeps
     * its address. */
    must_have(doc, "\"module\": \"/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0\"");
    must_have(doc, "{\"location\": {\"physicalLocation\": {\"address\": "
                   "{\"absoluteAddress\": 24576}}}}");
    /* The codeFlow steps read like Memcheck's frame lines. */
    must_have(doc, "\"message\": {\"text\": \"0x3000: Parser::load(char "
                   "const*) (/home/u/proj/src/my dir/parse#1.cc:42)\"}");
    free(doc);
}

static void test_kinds_and_modes(void **state)
{
    struct lp_leak_set set;
    struct lp_loss_record r[5];
    struct fake fk;
    struct lp_leak_opts o = opts;
    char *doc;

    (void)state;
    setup(&set, r, &fk);
    o.error_kinds = LP_KINDS_ALL;
    doc = render(&set, &o, NULL, &fk);
    /* Reachable counts now; the suppressed record still does not. */
    assert_int_equal(count(doc, "\"ruleId\""), 4);
    must_have(doc, "\"ruleId\": \"leak/reachable\"");
    assert_null(strstr(doc, "originalUriBaseIds"));
    assert_null(strstr(doc, "uriBaseId"));
    free(doc);

    o.leak_check = LP_CHECK_NO;
    doc = render(&set, &o, NULL, &fk);
    must_have(doc, "\"results\": [\n      ]");
    /* Rules are always there. */
    assert_int_equal(count(doc, "\"id\": \"leak/"), 4);
    free(doc);
}

static void test_fingerprint_ignores_addresses(void **state)
{
    struct lp_leak_set set;
    struct lp_loss_record r[5];
    struct fake fk;
    char *a, *b, *pa, *pb;

    (void)state;
    setup(&set, r, &fk);
    a = render(&set, &opts, NULL, &fk);
    fk.bias = 0x7f0000000000;
    b = render(&set, &opts, NULL, &fk);
    pa = strstr(a, "leakStack/v2");
    pb = strstr(b, "leakStack/v2");
    assert_non_null(pa);
    assert_non_null(pb);
    assert_memory_equal(pa, pb, 35);
    /* Different stacks get different prints. */
    assert_memory_not_equal(pa, strstr(pa + 1, "leakStack/v2"), 35);
    assert_string_not_equal(a, b);
    free(a);
    free(b);
}

/* Our hook never shows: not as the location, not in a flow or stack;
 * its name becomes the "allocator" property. */
static void test_no_frames_of_ours(void **state)
{
    struct lp_leak_set set;
    struct lp_loss_record r[5];
    struct fake fk;
    struct lp_leak_opts o = opts;
    char *doc;

    (void)state;
    setup(&set, r, &fk);
    doc = render(&set, &o, NULL, &fk);
    assert_null(strstr(doc, SELF));
    assert_null(strstr(doc, "hooks.c"));
    must_have(doc, "\"allocator\": \"malloc\"");
    free(doc);
    /* Also when self_obj is spelled otherwise than the maps path (a
     * relative LD_PRELOAD): the libleakprof.so name is enough. */
    o.self_obj = "build/libleakprof.so";
    doc = render(&set, &o, NULL, &fk);
    assert_null(strstr(doc, SELF));
    assert_null(strstr(doc, "hooks.c"));
    free(doc);
}

#define CU "/work/proj"
static const struct lp_sym_frame st_list1[] = {
    { 0x1000, "malloc", "malloc", "hooks.c", 50, SELF, false, NULL, NULL },
    { 0x2010, "list_build", "list_build", "list.c", 19, CU "/app", false,
      CU "/src/util/list.c", CU },
    { 0x3000, "main", "main", "main.c", 12, CU "/app", false,
      CU "/src/./main.c", CU },
};
static const struct lp_sym_frame st_list2[] = {
    { 0x1000, "malloc", "malloc", "hooks.c", 50, SELF, false, NULL, NULL },
    { 0x2080, "list_build", "list_build", "list.c", 32, CU "/app", false,
      CU "/src/util/list.c", CU },
    { 0x3000, "main", "main", "main.c", 12, CU "/app", false,
      CU "/src/./main.c", CU },
};
/* An out-of-tree build: comp_dir is the build directory, the path
 * climbs out of it; an inlined header from /usr/include. */
static const struct lp_sym_frame st_outside[] = {
    { 0x1000, "malloc", "malloc", NULL, 0, SELF, false, NULL, NULL },
    { 0x4000, "std::allocator<int>::allocate(unsigned long)",
      "_ZNSaIiE8allocateEm", "new_allocator.h", 137, "/opt/b/app", true,
      "/usr/include/c++/12/bits/new_allocator.h", "/opt/b/build" },
    { 0x4000, "grow", "_Z4growv", "grow.cc", 8, "/opt/b/app", false,
      "../src/grow.cc", "/opt/b/build" },
};

static void list_setup(struct lp_leak_set *set, struct lp_loss_record *r,
                       struct fake *fk)
{
    memset(set, 0, sizeof(*set));
    memset(r, 0, 3 * sizeof(*r));
    memset(fk, 0, sizeof(*fk));
    fk->f[1] = st_list1;
    fk->n[1] = 3;
    fk->f[2] = st_list2;
    fk->n[2] = 3;
    fk->f[3] = st_outside;
    fk->n[3] = 3;
    set->pid = 7;
    r[0] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 1,
                                    .bytes = 16, .blocks = 1, .supp = -1 };
    r[1] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 2,
                                    .bytes = 67, .blocks = 1, .supp = -1 };
    r[2] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 3,
                                    .bytes = 4, .blocks = 1, .supp = -1 };
    set->recs = r;
    set->nrecs = 3;
}

/* %SRCROOT% is the comp_dir of the results' frames; URIs keep their
 * directories; two leaks in one function are two fingerprints. */
static void test_srcroot_is_comp_dir(void **state)
{
    struct lp_leak_set set;
    struct lp_loss_record r[3];
    struct fake fk;
    char *doc, *p1, *p2;

    (void)state;
    list_setup(&set, r, &fk);
    doc = render(&set, &opts, NULL, &fk);
    must_have(doc, "\"originalUriBaseIds\": {\"SRCROOT\": {\"uri\": "
                   "\"file:///work/proj/\"}}");
    must_have(doc, "\"locations\": [{\"physicalLocation\": "
                   "{\"artifactLocation\": {\"uri\": \"src/util/list.c\", "
                   "\"uriBaseId\": \"SRCROOT\"}, \"region\": {\"startLine\": 19}}");
    must_have(doc, "{\"uri\": \"src/util/list.c\", \"uriBaseId\": "
                   "\"SRCROOT\"}, \"region\": {\"startLine\": 32}}");
    /* "./" is resolved. */
    must_have(doc, "{\"uri\": \"src/main.c\", \"uriBaseId\": \"SRCROOT\"}");
    assert_null(strstr(doc, "\"list.c\""));
    must_have(doc, "\"leakSite/v1\": \"src/util/list.c:19\"");
    must_have(doc, "\"leakSite/v1\": \"src/util/list.c:32\"");
    p1 = strstr(doc, "leakStack/v2");
    p2 = p1 ? strstr(p1 + 1, "leakStack/v2") : NULL;
    assert_non_null(p2);
    assert_memory_not_equal(p1, p2, 35);
    /* Outside SRCROOT: "../src/grow.cc" from /opt/b/build is
     * /opt/b/src/grow.cc, an absolute URI; the result is at grow (the
     * first frame of the program's own sources), not at the header. */
    must_have(doc, "\"locations\": [{\"physicalLocation\": "
                   "{\"artifactLocation\": {\"uri\": "
                   "\"file:///opt/b/src/grow.cc\"}, \"region\": "
                   "{\"startLine\": 8}}");
    must_have(doc, "{\"uri\": \"file:///usr/include/c++/12/bits/new_allocator.h\"}");
    free(doc);

    /* A root given by the caller wins over comp_dir. */
    doc = render(&set, &opts, "/work/proj/src", &fk);
    must_have(doc, "{\"SRCROOT\": {\"uri\": \"file:///work/proj/src/\"}}");
    must_have(doc, "{\"uri\": \"util/list.c\", \"uriBaseId\": \"SRCROOT\"}");
    free(doc);
}

/* The same stack and kind is one fingerprint across runs (ASLR moves
 * addresses only); another line in the same function is another. */
static void test_fingerprint_has_site_line(void **state)
{
    struct lp_leak_set set;
    struct lp_loss_record r[3];
    struct fake fk;
    struct lp_sym_frame moved[3];
    char *a, *b, *pa, *pb;

    (void)state;
    list_setup(&set, r, &fk);
    set.nrecs = 1;
    a = render(&set, &opts, NULL, &fk);
    fk.bias = 0x1000;
    b = render(&set, &opts, NULL, &fk);
    pa = strstr(a, "\"partialFingerprints\"");
    pb = strstr(b, "\"partialFingerprints\"");
    assert_non_null(pa);
    assert_non_null(pb);
    assert_memory_equal(pa, pb, strcspn(pa, "}"));
    free(b);
    /* Same function, same callers, one line further down. */
    memcpy(moved, st_list1, sizeof(moved));
    moved[1].line = 20;
    fk.f[1] = moved;
    b = render(&set, &opts, NULL, &fk);
    pb = strstr(b, "\"partialFingerprints\"");
    assert_memory_not_equal(pa, pb, strcspn(pa, "}"));
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_and_locations),
        cmocka_unit_test(test_kinds_and_modes),
        cmocka_unit_test(test_fingerprint_ignores_addresses),
        cmocka_unit_test(test_no_frames_of_ours),
        cmocka_unit_test(test_srcroot_is_comp_dir),
        cmocka_unit_test(test_fingerprint_has_site_line),
    };

    return cmocka_run_group_tests_name("sarif", tests, NULL, NULL);
}
