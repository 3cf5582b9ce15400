/* SPDX-License-Identifier: MIT */
/*
 * test_symindex.c - the symbolizer's speed-ups must not change an answer:
 * the sorted symbol index answers every address of libc, libdw and this
 * binary exactly as dwfl_module_addrinfo does, and so it does, without
 * asking libdwfl, for the sizeless labels of a library made to have
 * them; the per-build-id cache
 * files round-trip, and a stale, foreign or corrupt file is ignored; a
 * symbolizer reading the cache gives the frames a fresh one computes,
 * without starting libdwfl.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/symcache.h"
#include "report/symbolize.h"
#include "report/symbolize_impl.h" /* whether libdwfl started */
#include "report/symindex.h"

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

struct check {
    unsigned long addrs, aliases, mismatches;
};

static void compare_at(Dwfl_Module *mod, struct lp_symindex *ix, GElf_Addr a,
                       struct check *c)
{
    GElf_Off o1 = 0, o2 = 0;
    GElf_Sym s1, s2;
    const char *n1 = dwfl_module_addrinfo(mod, a, &o1, &s1, NULL, NULL, NULL);
    const char *n2 = lp_symindex_lookup(ix, mod, a, &o2, &s2);

    c->addrs++;
    if ((n1 == NULL) != (n2 == NULL) ||
        (n1 != NULL && (strcmp(n1, n2) != 0 || o1 != o2 ||
                        s1.st_info != s2.st_info || s1.st_size != s2.st_size))) {
        if (c->mismatches++ < 5)
            fprintf(stderr, "0x%llx: libdwfl %s+%llu, index %s+%llu\n",
                    (unsigned long long)a, n1 ? n1 : "(none)",
                    (unsigned long long)o1, n2 ? n2 : "(none)",
                    (unsigned long long)o2);
    }
}

/* A ranking for the alias test: the longest name, then strcmp order. */
static bool longer(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);

    return la != lb ? la > lb : strcmp(a, b) < 0;
}

/* lp_symindex_alias at symbol i's address against every symbol of the
 * table: the best-ranked named, defined function there (or the name
 * passed in, on ties). */
static void compare_alias(Dwfl_Module *mod, struct lp_symindex *ix, int i,
                          int n, struct check *c)
{
    GElf_Sym es, o;
    GElf_Addr v, ov;
    const char *want = "?", *got;
    int j;

    if (dwfl_module_getsym_info(mod, i, &es, &v, NULL, NULL, NULL) == NULL)
        return;
    for (j = 1; j < n; j++) {
        const char *nm = dwfl_module_getsym_info(mod, j, &o, &ov, NULL, NULL, NULL);

        if (nm && nm[0] && o.st_shndx != SHN_UNDEF && ov == v &&
            GELF_ST_TYPE(o.st_info) == STT_FUNC && longer(nm, want))
            want = nm;
    }
    got = lp_symindex_alias(ix, v, "?", longer);
    c->aliases++;
    if (strcmp(got, want) != 0)
        c->mismatches++;
}

static int check_module(Dwfl_Module *mod, void **ud, const char *name,
                        Dwarf_Addr start, void *arg)
{
    struct check *c = arg;
    struct lp_symindex *ix = lp_symindex_new(mod);
    Dwarf_Addr lo, hi, a, step;
    int i, n = dwfl_module_getsymtab(mod);

    (void)ud;
    (void)start;
    dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
    if (name == NULL || strstr(name, "vdso"))
        goto out;
    /* Every symbol's edges, and a sweep over the whole module. */
    for (i = 1; i < n; i++) {
        GElf_Sym es;
        GElf_Addr v;

        if (dwfl_module_getsym_info(mod, i, &es, &v, NULL, NULL, NULL) == NULL)
            continue;
        compare_at(mod, ix, v, c);
        compare_at(mod, ix, v + es.st_size / 2, c);
        if (es.st_size)
            compare_at(mod, ix, v + es.st_size - 1, c);
        compare_at(mod, ix, v + es.st_size, c);
    }
    /* Aliases: a sample of the symbols (the brute force is quadratic). */
    for (i = 1; i < n; i += n / 64 + 1)
        compare_alias(mod, ix, i, n, c);
    step = (hi - lo) / 20000 + 1;
    for (a = lo; a < hi; a += step)
        compare_at(mod, ix, a, c);
out:
    lp_symindex_free(ix);
    return DWARF_CB_OK;
}

static void test_symindex_answers_as_libdwfl_everywhere(void **state)
{
    Dwfl *dwfl = dwfl_begin(&callbacks);
    struct check c = { 0, 0, 0 };

    (void)state;
    assert_non_null(dwfl);
    dwfl_report_begin(dwfl);
    assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
    assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
    dwfl_getmodules(dwfl, check_module, &c, 0);
    dwfl_end(dwfl);
    assert_true(c.addrs > 50000); /* libc alone has thousands of symbols */
    assert_true(c.aliases > 150);
    assert_int_equal(c.mismatches, 0);
}

/*
 * A library of assembler labels (symbols without a size), the case
 * libdwfl answers with a label only when no sized symbol contains the
 * address: labels at the end of a function (global, weak and local at
 * one address), a label inside another function's range, a label after
 * a function, one at the end of .text where the next section starts, an
 * absolute one, and a sized function after a gap. libLLVM has dozens of
 * sizeless functions; each such lookup cost a linear search of its
 * 45,000 symbols (2,375 of them made a cold clang -c take 5.9 s).
 */
static const char labels_asm[] =
    "\t.text\n"
    "\t.globl f_sized\n\t.type f_sized, @function\n"
    "f_sized:\n\t.fill 32, 1, 0x90\n\t.size f_sized, 32\n"
    "\t.globl g_at_end\n\t.type g_at_end, @function\n"
    "g_at_end:\nl_at_end:\n\t.weak w_at_end\nw_at_end:\n\t.fill 32, 1, 0x90\n"
    "\t.type l_inside, @function\nl_inside:\n\t.fill 16, 1, 0x90\n"
    "\t.globl h_sized\n\t.type h_sized, @function\n"
    "h_sized:\n\t.fill 16, 1, 0x90\n\t.size h_sized, 64\n\t.fill 48, 1, 0x90\n"
    "l_after_big:\n\t.fill 32, 1, 0x90\nl_text_end:\n"
    "\t.globl abs_label\n\t.set abs_label, 0x400\n"
    "\t.section lp_two, \"ax\", @progbits\n"
    "l_two:\n\t.fill 16, 1, 0x90\n"
    "\t.globl g_two_sized\n\t.type g_two_sized, @function\n"
    "g_two_sized:\n\t.fill 8, 1, 0x90\n\t.size g_two_sized, 8\n"
    "\t.fill 24, 1, 0x90\n";

struct labels {
    Dwfl_Module *mod;
    GElf_Addr lo, hi;
};

static int find_labels(Dwfl_Module *mod, void **ud, const char *name,
                       Dwarf_Addr start, void *arg)
{
    struct labels *l = arg;

    (void)ud;
    (void)start;
    if (name != NULL && strstr(name, "liblp-labels.so")) {
        l->mod = mod;
        dwfl_module_info(mod, NULL, &l->lo, &l->hi, NULL, NULL, NULL, NULL);
    }
    return DWARF_CB_OK;
}

/* The address of the symbol called name in mod. */
static GElf_Addr sym_addr(Dwfl_Module *mod, const char *name)
{
    int i, n = dwfl_module_getsymtab(mod);

    for (i = 1; i < n; i++) {
        GElf_Sym es;
        GElf_Addr v;
        const char *nm = dwfl_module_getsym_info(mod, i, &es, &v, NULL, NULL, NULL);

        if (nm != NULL && strcmp(nm, name) == 0)
            return v;
    }
    fail_msg("no symbol %s", name);
    return 0;
}

static const char *name_at(struct lp_symindex *ix, Dwfl_Module *mod, GElf_Addr a)
{
    GElf_Off off;
    GElf_Sym es;
    const char *n = lp_symindex_lookup(ix, mod, a, &off, &es);

    return n != NULL ? n : "(none)";
}

static void test_symindex_finds_labels_without_libdwfl(void **state)
{
    char dir[] = "/tmp/lp-labels-XXXXXX", path[512], cmd[1400];
    struct check c = { 0, 0, 0 };
    struct labels l = { NULL, 0, 0 };
    struct lp_symindex *ix;
    Dwfl *dwfl = dwfl_begin(&callbacks);
    GElf_Addr a, text;
    unsigned long at_labels = 0;
    void *h;
    FILE *f;

    (void)state;
    assert_non_null(dwfl);
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/labels.s", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(labels_asm, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -o '%s/liblp-labels.so' '%s'",
             dir, path);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof(path), "%s/liblp-labels.so", dir);
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);

    dwfl_report_begin(dwfl);
    assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
    assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
    dwfl_getmodules(dwfl, find_labels, &l, 0);
    assert_non_null(l.mod);
    ix = lp_symindex_new(l.mod);
    assert_non_null(ix);

    /* Every address of the library, as libdwfl answers it; libdwfl is
     * asked only at the four label addresses themselves. */
    for (a = l.lo; a < l.hi; a++) {
        GElf_Off off;
        GElf_Sym es;
        const char *n = dwfl_module_addrinfo(l.mod, a, &off, &es, NULL, NULL, NULL);

        if (n != NULL && es.st_size == 0 && off == 0)
            at_labels++;
        compare_at(l.mod, ix, a, &c);
    }
    assert_int_equal(c.mismatches, 0);
    assert_true(at_labels >= 4);
    assert_true(lp_symindex_fallbacks(ix) <= at_labels);

    /* The answers themselves: after its passes over the globals, then the
     * locals, libdwfl keeps the last label it met at the end of the
     * highest-ending symbol below; none when that end holds no label. */
    text = sym_addr(l.mod, "f_sized");
    assert_string_equal(name_at(ix, l.mod, text + 0x28), "l_at_end");
    assert_string_equal(name_at(ix, l.mod, text + 0x44), "l_inside");
    assert_string_equal(name_at(ix, l.mod, text + 0x60), "h_sized");
    assert_string_equal(name_at(ix, l.mod, text + 0x98), "l_after_big");
    assert_string_equal(name_at(ix, l.mod, sym_addr(l.mod, "l_two") + 8), "l_two");
    assert_string_equal(name_at(ix, l.mod, sym_addr(l.mod, "g_two_sized") + 16),
                        "(none)");

    lp_symindex_free(ix);
    dwfl_end(dwfl);
    dlclose(h);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_symcache_round_trip_and_rejects_stale_or_corrupt(void **state)
{
    char dir[] = "/tmp/lp-symcache-XXXXXX", path[512], cmd[1024];
    struct lp_sym_frame af[2] = {0}, rf[LP_SYM_MAX_INLINE];
    struct lp_symcache_rec a = { .off = 0x1234, .n = 2, .frames = af },
                           b = { .off = 0x99 },
                           c = { .off = 0x1234, .fn = "inner" },
                           r = { .frames = rf };
    const struct lp_symcache_rec *recs[] = { &a, &b, &c };
    struct lp_symcache *f;
    FILE *fp;
    long size;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/sub/x.sym", dir);
    a.frames[0].fn = "inner";
    a.frames[0].mangled = "_Z5innerv";
    a.frames[0].file = "a.c";
    a.frames[0].line = 12;
    a.frames[1].fn = "outer";
    a.frames[1].inlined = true;
    assert_int_equal(lp_symcache_write(path, "by x debug none", recs, 3), 0);
    f = lp_symcache_open(path, "by x debug none");
    assert_non_null(f);
    assert_int_equal(lp_symcache_count(f), 3);
    /* In offset order; at one offset the frames come first. */
    assert_true(lp_symcache_get(f, 0, &r));
    assert_int_equal(r.off, 0x99);
    assert_int_equal(r.n, 0);
    assert_null(r.fn);
    assert_true(lp_symcache_find(f, 0x1234, true, &r));
    assert_int_equal(r.n, 2);
    assert_string_equal(r.frames[0].fn, "inner");
    assert_string_equal(r.frames[0].mangled, "_Z5innerv");
    assert_string_equal(r.frames[0].file, "a.c");
    assert_null(r.frames[0].path);
    assert_int_equal(r.frames[0].line, 12);
    assert_false(r.frames[0].inlined);
    assert_string_equal(r.frames[1].fn, "outer");
    assert_null(r.frames[1].mangled);
    assert_true(r.frames[1].inlined);
    assert_true(lp_symcache_get(f, 2, &r));
    assert_int_equal(r.n, 0);
    assert_string_equal(r.fn, "inner");
    assert_false(lp_symcache_find(f, 0x1235, false, &r));
    assert_false(lp_symcache_find(f, 0x99, true, &r)); /* a name only */
    assert_true(lp_symcache_find(f, 0x99, false, &r));
    lp_symcache_close(f);
    /* Another symbolizer build or debug state: ignored whole. */
    assert_null(lp_symcache_open(path, "by y debug none"));
    /* A string offset out of its area: that record is refused. */
    fp = fopen(path, "r+");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    size = ftell(fp);
    {
        /* The name-only record at 0x99 is the first: its one word sits
         * at the start of the records, after the header (magic and five
         * words), the padded state and three 16-byte index entries. */
        long at = 20 + 20 + 16 + 3 * 16;
        unsigned w = 0x7fffffffu;

        assert_int_equal(fseek(fp, at, SEEK_SET), 0);
        assert_int_equal(fwrite(&w, 4, 1, fp), 1);
    }
    fclose(fp);
    f = lp_symcache_open(path, "by x debug none");
    assert_non_null(f);
    assert_false(lp_symcache_find(f, 0x99, false, &r));
    assert_true(lp_symcache_find(f, 0x1234, true, &r));
    lp_symcache_close(f);
    /* Truncated: ignored whole. */
    assert_int_equal(truncate(path, size - 1), 0);
    assert_null(lp_symcache_open(path, "by x debug none"));
    assert_int_equal(truncate(path, 60), 0);
    assert_null(lp_symcache_open(path, "by x debug none"));
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

__attribute__((noinline)) static int probe_function(int x)
{
    return x * 3 + 1;
}

static void test_symbolizer_from_cache_gives_fresh_answers(void **state)
{
    char dir[] = "/tmp/lp-symcache-XXXXXX", cmd[256];
    uintptr_t ips[] = {
        (uintptr_t)&probe_function + 1, (uintptr_t)&printf + 4,
        (uintptr_t)&malloc + 2, (uintptr_t)&test_symbolizer_from_cache_gives_fresh_answers + 8,
    };
    struct lp_sym_frame fresh[4][LP_SYM_MAX_INLINE], cached[LP_SYM_MAX_INLINE];
    int nf[4], i, k;
    struct lp_sym *s;

    (void)state;
    assert_non_null(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    s = lp_sym_new();
    assert_non_null(s);
    for (i = 0; i < 4; i++)
        nf[i] = lp_sym_resolve(s, ips[i], true, fresh[i], LP_SYM_MAX_INLINE);
    assert_non_null(lp_sym_function(s, ips[0] + 2, true));
    lp_sym_save_cache(s);
    snprintf(cmd, sizeof(cmd), "ls '%s'/leakprof/*.sym >/dev/null 2>&1", dir);
    assert_int_equal(system(cmd), 0);
    /* A second symbolizer reads them back: same frames, strings equal. */
    {
        struct lp_sym *t = lp_sym_new();

        assert_non_null(t);
        for (i = 0; i < 4; i++) {
            int n = lp_sym_resolve(t, ips[i], true, cached, LP_SYM_MAX_INLINE);

            assert_int_equal(n, nf[i]);
            for (k = 0; k < n; k++) {
                assert_true(cached[k].addr == fresh[i][k].addr);
                assert_int_equal(cached[k].line, fresh[i][k].line);
                assert_int_equal(cached[k].inlined, fresh[i][k].inlined);
                assert_true((cached[k].fn == NULL) == (fresh[i][k].fn == NULL));
                if (cached[k].fn)
                    assert_string_equal(cached[k].fn, fresh[i][k].fn);
                if (fresh[i][k].file)
                    assert_string_equal(cached[k].file, fresh[i][k].file);
                if (fresh[i][k].obj)
                    assert_string_equal(cached[k].obj, fresh[i][k].obj);
            }
        }
        assert_string_equal(lp_sym_function(t, ips[0] + 2, true),
                            lp_sym_function(s, ips[0] + 2, true));
        /* All of it from the files: libdw was never started. */
        assert_false(t->started);
        lp_sym_free(t);
    }
    lp_sym_free(s);
    unsetenv("XDG_CACHE_HOME");
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(probe_function(1), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symindex_answers_as_libdwfl_everywhere),
        cmocka_unit_test(test_symindex_finds_labels_without_libdwfl),
        cmocka_unit_test(test_symcache_round_trip_and_rejects_stale_or_corrupt),
        cmocka_unit_test(test_symbolizer_from_cache_gives_fresh_answers),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
