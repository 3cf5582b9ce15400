/* SPDX-License-Identifier: MIT */
/*
 * test_symbolize.c - lp_sym against code in this very binary (built -O2 -g
 * by the Makefile) and in libc: names, file:line, inline expansion,
 * describe_IP shapes, below-main names, demangling.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/symbolize_impl.h"

#include <fcntl.h>

static struct lp_sym *sym;

/* Return addresses recorded by the functions below, with the lines of
 * the calls that produced them. */
static uintptr_t ret_plain, ret_inlined;
static int line_plain, line_inner, line_outer, line_host;
static volatile int sink;

__attribute__((noinline, noipa)) static void record_return(uintptr_t *slot)
{
    *slot = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline, noipa)) static void sym_plain_function(void)
{
    line_plain = __LINE__; record_return(&ret_plain);
    sink++; /* no tail call: the return address stays in this function */
}

static inline __attribute__((always_inline)) void sym_inner_inlined(void)
{
    line_inner = __LINE__; record_return(&ret_inlined);
    sink++;
}

static inline __attribute__((always_inline)) void sym_outer_inlined(void)
{
    line_outer = __LINE__; sym_inner_inlined();
    sink++;
}

__attribute__((noinline, noipa)) static void sym_inline_host(void)
{
    line_host = __LINE__; sym_outer_inlined();
    sink++;
}

static int setup(void **state)
{
    (void)state;
    sym = lp_sym_new();
    sym_plain_function();
    sym_inline_host();
    return sym != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    lp_sym_free(sym);
    sym = NULL;
    return 0;
}

static const char *self_exe(void)
{
    static char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

    path[n > 0 ? n : 0] = '\0';
    return path;
}

static void test_symbolize_plain_function_has_name_file_line_object(void **state)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    int n;

    (void)state;
    n = lp_sym_resolve(sym, ret_plain, true, f, LP_SYM_MAX_INLINE);
    assert_int_equal(n, 1);
    assert_true(f[0].addr == ret_plain - 1);
    assert_string_equal(f[0].fn, "sym_plain_function");
    assert_string_equal(f[0].mangled, "sym_plain_function");
    assert_string_equal(f[0].file, "test_symbolize.c");
    assert_int_equal(f[0].line, line_plain);
    assert_string_equal(f[0].obj, self_exe());
    assert_false(f[0].inlined);
}

static void test_symbolize_expands_inlined_frames_innermost_first(void **state)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    int n;

    (void)state;
    n = lp_sym_resolve(sym, ret_inlined, true, f, LP_SYM_MAX_INLINE);
    assert_int_equal(n, 3);
    assert_string_equal(f[0].fn, "sym_inner_inlined");
    assert_int_equal(f[0].line, line_inner);
    assert_string_equal(f[1].fn, "sym_outer_inlined");
    assert_int_equal(f[1].line, line_outer);
    assert_string_equal(f[2].fn, "sym_inline_host");
    assert_int_equal(f[2].line, line_host);
    for (int i = 0; i < n; i++) {
        assert_true(f[i].addr == ret_inlined - 1);
        assert_string_equal(f[i].file, "test_symbolize.c");
        assert_int_equal(f[i].inlined, i > 0);
    }
    /* max truncates, innermost kept. */
    assert_int_equal(lp_sym_resolve(sym, ret_inlined, true, f, 2), 2);
    assert_string_equal(f[0].fn, "sym_inner_inlined");
    assert_string_equal(f[1].fn, "sym_outer_inlined");
}

static void test_symbolize_is_return_controls_the_printed_address(void **state)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    uintptr_t entry = (uintptr_t)&sym_plain_function;

    (void)state;
    assert_int_equal(lp_sym_resolve(sym, entry, false, f, 1), 1);
    assert_true(f[0].addr == entry);
    assert_string_equal(f[0].fn, "sym_plain_function");
    /* Cached entries come back identical, strings shared. */
    {
        struct lp_sym_frame g[1];
        lp_sym_resolve(sym, entry, false, g, 1);
        assert_ptr_equal(g[0].fn, f[0].fn);
        assert_int_equal(g[0].line, f[0].line);
    }
}

static void test_symbolize_libc_function_names_its_object(void **state)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    Dl_info info;
    /* libc's own qsort, not a sanitizer's interceptor of the same name. */
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    void *fp = libc != NULL ? dlsym(libc, "qsort") : NULL;
    char buf[512], want[512];
    int n;

    (void)state;
    assert_non_null(fp);
    assert_true(dladdr(fp, &info) != 0);
    n = lp_sym_resolve(sym, (uintptr_t)fp, false, f, LP_SYM_MAX_INLINE);
    assert_true(n >= 1);
    assert_non_null(f[n - 1].obj);
    assert_non_null(strstr(f[n - 1].obj, "libc.so.6"));
    assert_string_equal(f[n - 1].fn, "qsort");
    /* As our own library's frames are printed: "(in /path)" even when
     * libc6-dbg gives line info; self_obj may be spelled as dladdr does. */
    lp_sym_describe(&f[n - 1], info.dli_fname, buf, sizeof(buf));
    snprintf(want, sizeof(want), "0x%lX: qsort (in %s)", (unsigned long)(uintptr_t)fp,
             f[n - 1].obj);
    assert_string_equal(buf, want);
    dlclose(libc);
}

static void test_symbolize_prefers_the_alias_valgrind_prints(void **state)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    void *fp;
    int n;

    (void)state;
    assert_non_null(libc);
    /* malloc, never __libc_malloc: fewest leading underscores wins. */
    fp = dlsym(libc, "malloc");
    n = lp_sym_resolve(sym, (uintptr_t)fp, false, f, LP_SYM_MAX_INLINE);
    assert_string_equal(f[n - 1].fn, "malloc");
    /* The default symbol version wins when the symbol table has versions
     * (libc6-dbg): "pthread_create@@GLIBC_2.34" as Valgrind prints it. */
    fp = dlsym(libc, "pthread_create");
    n = lp_sym_resolve(sym, (uintptr_t)fp, false, f, LP_SYM_MAX_INLINE);
    assert_non_null(f[n - 1].fn);
    assert_true(strcmp(f[n - 1].fn, "pthread_create") == 0 ||
                strncmp(f[n - 1].fn, "pthread_create@@", 16) == 0);
    /* Then the shorter name: raise, not its alias gsignal (which sorts
     * first), as Memcheck names abort's caller. */
    fp = dlsym(libc, "raise");
    n = lp_sym_resolve(sym, (uintptr_t)fp, false, f, LP_SYM_MAX_INLINE);
    assert_string_equal(f[n - 1].fn, "raise");
    dlclose(libc);
}

static void test_symbolize_describe_shapes_match_valgrind(void **state)
{
    struct lp_sym_frame f = { .addr = 0x10921A, .fn = "leak_possible",
                              .file = "leaks.c", .line = 25, .obj = "/tmp/leaks" };
    char buf[256];
    int len;

    (void)state;
    len = lp_sym_describe(&f, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "0x10921A: leak_possible (leaks.c:25)");
    assert_int_equal(len, (int)strlen(buf));
    lp_sym_describe(&f, "/tmp/leaks", buf, sizeof(buf));
    assert_string_equal(buf, "0x10921A: leak_possible (in /tmp/leaks)");
    f.file = NULL;
    f.line = 0;
    f.addr = 0x4884249;
    lp_sym_describe(&f, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "0x4884249: leak_possible (in /tmp/leaks)");
    f.fn = NULL;
    lp_sym_describe(&f, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "0x4884249: ??? (in /tmp/leaks)");
    f.obj = NULL;
    lp_sym_describe(&f, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "0x4884249: ???");
    f.fn = "fn";
    lp_sym_describe(&f, NULL, buf, sizeof(buf));
    assert_string_equal(buf, "0x4884249: fn (in ?\?\?)");
    /* snprintf contract: the needed length comes back when truncated. */
    len = lp_sym_describe(&f, NULL, buf, 4);
    assert_int_equal(len, (int)strlen("0x4884249: fn (in ?\?\?)"));
    assert_string_equal(buf, "0x4");
}

/* f printed with fullpath_after set to the n NUL-separated values. */
static void assert_fullpath(const struct lp_sym_frame *f, const char *after,
                            int n, const char *want)
{
    char buf[256];

    lp_sym_set_fullpath_after(after, n);
    lp_sym_describe(f, NULL, buf, sizeof(buf));
    assert_string_equal(buf, want);
}

/* Valgrind 3.19's --fullpath-after, measured on files in /tmp/vgx/src
 * (comp_dir) and /tmp/vgx/src/sub, and on a build from /tmp/vgx/build
 * with a line table directory "../src/sub". */
static void test_symbolize_fullpath_after_as_valgrind(void **state)
{
    struct lp_sym_frame f = { .addr = 0x10918D, .fn = "mk", .file = "leak.c",
                              .line = 2, .obj = "/tmp/prog",
                              .path = "/tmp/vgx/src/sub/leak.c",
                              .comp_dir = "/tmp/vgx/src" };
    char buf[256];

    (void)state;
    /* --fullpath-after= */
    assert_fullpath(&f, "", 1, "0x10918D: mk (/tmp/vgx/src/sub/leak.c:2)");
    assert_fullpath(&f, "vgx", 1, "0x10918D: mk (/src/sub/leak.c:2)");
    /* Searched in the directory only; a match at its end leaves the
     * name alone. */
    assert_fullpath(&f, "leak", 1, "0x10918D: mk (/tmp/vgx/src/sub/leak.c:2)");
    assert_fullpath(&f, "sub", 1, "0x10918D: mk (leak.c:2)");
    /* Several: the first given that is found, not the longest cut. */
    assert_fullpath(&f, "src/\0vgx/", 2, "0x10918D: mk (sub/leak.c:2)");
    assert_fullpath(&f, "vgx/\0src/", 2, "0x10918D: mk (src/sub/leak.c:2)");
    assert_fullpath(&f, "nomatch\0", 2, "0x10918D: mk (/tmp/vgx/src/sub/leak.c:2)");
    /* A relative line-table directory, under comp_dir, not normalised. */
    f.path = "../src/sub/leak.c";
    f.comp_dir = "/tmp/vgx/build";
    assert_fullpath(&f, "build", 1, "0x10918D: mk (/../src/sub/leak.c:2)");
    /* Our own frames keep their shape. */
    lp_sym_describe(&f, "/tmp/prog", buf, sizeof(buf));
    assert_string_equal(buf, "0x10918D: mk (in /tmp/prog)");
    assert_fullpath(&f, NULL, 0, "0x10918D: mk (leak.c:2)");
}

static void test_symbolize_unknown_address_gives_one_anonymous_frame(void **state)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    char buf[64];

    (void)state;
    assert_int_equal(lp_sym_resolve(sym, 0x10, true, f, LP_SYM_MAX_INLINE), 1);
    assert_null(f[0].fn);
    assert_null(f[0].obj);
    assert_true(f[0].addr == 0xF);
    lp_sym_describe(&f[0], NULL, buf, sizeof(buf));
    assert_string_equal(buf, "0xF: ???");
    /* Past every mapping (a smashed stack's return address): no object,
     * where libdw alone named the highest module. */
    assert_int_equal(lp_sym_resolve(sym, 0x7878787878787878, true, f,
                                    LP_SYM_MAX_INLINE), 1);
    assert_null(f[0].fn);
    assert_null(f[0].obj);
    lp_sym_describe(&f[0], NULL, buf, sizeof(buf));
    assert_string_equal(buf, "0x7878787878787877: ???");
    /* No symbolizer at all still answers. */
    assert_int_equal(lp_sym_resolve(NULL, 0x1234, false, f, 1), 1);
    assert_null(f[0].fn);
}

static void test_symbolize_below_main_names_follow_valgrind(void **state)
{
    (void)state;
    assert_int_equal(lp_sym_fn_kind("main"), LP_FN_MAIN);
    assert_int_equal(lp_sym_fn_kind("__libc_start_main"), LP_FN_BELOW_MAIN);
    assert_int_equal(lp_sym_fn_kind("__libc_start_main.constprop.0"), LP_FN_BELOW_MAIN);
    assert_int_equal(lp_sym_fn_kind("__libc_start_call_main"), LP_FN_BELOW_MAIN);
    assert_int_equal(lp_sym_fn_kind("generic_start_main.isra.0"), LP_FN_BELOW_MAIN);
    assert_int_equal(lp_sym_fn_kind("_start"), LP_FN_BELOW_MAIN);
    assert_int_equal(lp_sym_fn_kind("(below main)"), LP_FN_BELOW_MAIN);
    assert_int_equal(lp_sym_fn_kind("start_thread"), LP_FN_NORMAL);
    assert_int_equal(lp_sym_fn_kind("mainly"), LP_FN_NORMAL);
    assert_int_equal(lp_sym_fn_kind("__libc_start_mainx"), LP_FN_NORMAL);
    assert_int_equal(lp_sym_fn_kind(NULL), LP_FN_NORMAL);
    assert_true(lp_sym_is_below_main("main"));
    assert_true(lp_sym_is_below_main("_start"));
    assert_false(lp_sym_is_below_main("clone"));
}

static void test_symbolize_demangles_without_linking_libstdcxx(void **state)
{
    (void)state;
    /* This binary is C: the demangler comes from a private dlopen. */
    assert_string_equal(lp_sym_demangle(sym, "_Znwm"), "operator new(unsigned long)");
    assert_string_equal(lp_sym_demangle(sym, "_Znam"), "operator new[](unsigned long)");
    assert_string_equal(lp_sym_demangle(sym, "_ZL4makei"), "make(int)");
    assert_string_equal(
        lp_sym_demangle(sym, "_ZNSt6vectorIiSaIiEE9push_backERKi"),
        "std::vector<int, std::allocator<int> >::push_back(int const&)");
    assert_string_equal(lp_sym_demangle(sym, "malloc"), "malloc");
    assert_string_equal(lp_sym_demangle(sym, "_Znot_valid"), "_Znot_valid");
    assert_null(lp_sym_demangle(sym, NULL));
}

/* Names from a rustc 1.95 binary, each as Memcheck 3.19 printed it in the
 * same program's report. */
static void test_symbolize_demangles_rust_as_memcheck(void **state)
{
    static const char *const cases[][2] = {
        /* legacy: the hash left out, escapes decoded, LLVM's suffix dropped */
        {"_ZN4main4main17h8da7fa642d137fc6E", "main::main"},
        {"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17hdbee5a3fa7ab6636E"
         ".llvm.1539947923049336460",
         "std::rt::lang_start::{{closure}}"},
        {"_ZN9hashbrown3raw21RawTable$LT$T$C$A$GT$14reserve_rehash17h0123456789abcdefE",
         "hashbrown::raw::RawTable<T,A>::reserve_rehash"},
        /* v0: inherent and trait impls, basic types, generic arguments in
         * a value path and in a type, back-references */
        {"_RNvMs4_NtCslNYArtu3iFV_5alloc7raw_vecNtB5_11RawVecInner11finish_growB7_",
         "<alloc::raw_vec::RawVecInner>::finish_grow"},
        {"_RNvXsZ_NtCslNYArtu3iFV_5alloc6stringNtB5_6StringNtNtCsgEmfK2I1SDS_4core3fmt5Write9write_str",
         "<alloc::string::String as core::fmt::Write>::write_str"},
        {"_RNvXsd_NtNtNtCsgEmfK2I1SDS_4core3fmt3num3impyNtB9_7Display3fmt",
         "<u64 as core::fmt::Display>::fmt"},
        {"_RINvNvMs2_NtCslNYArtu3iFV_5alloc7raw_vecINtB8_11RawVecInnerpE7reserve"
         "21do_reserve_and_handleNtNtBa_5alloc6GlobalEBa_",
         "<alloc::raw_vec::RawVecInner<_>>::reserve::do_reserve_and_handle::<alloc::alloc::Global>"},
        {"_RNvNvNtCslNYArtu3iFV_5alloc3fmt6format12format_inner",
         "alloc::fmt::format::format_inner"},
        {"_RNCNvCs1234_4main4main0B3_", "main::main::{closure#0}"},
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(lp_sym_demangle(sym, cases[i][0]), cases[i][1]);
    /* Itanium names that are not Rust's stay C++ */
    assert_string_equal(lp_sym_demangle(sym, "_ZN3app4makeEi"), "app::make(int)");
    assert_string_equal(lp_sym_demangle(sym, "_ZN3foo3barEv"), "foo::bar()");
    /* not whole: printed raw, never a guess */
    assert_string_equal(lp_sym_demangle(sym, "_RNvC"), "_RNvC");
    assert_string_equal(lp_sym_demangle(sym, "_RNvCs_4main"), "_RNvCs_4main");
    assert_string_equal(lp_sym_demangle(sym, "_RB_"), "_RB_");
}

static void test_symbolize_refresh_keeps_answers(void **state)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];

    (void)state;
    lp_sym_refresh(sym);
    assert_int_equal(lp_sym_resolve(sym, ret_plain, true, f, LP_SYM_MAX_INLINE), 1);
    assert_string_equal(f[0].fn, "sym_plain_function");
    assert_int_equal(f[0].line, line_plain);
}

static int open_plainly(const char *path, int flags, mode_t mode)
{
    return open(path, flags, mode);
}

/* A chrooted process's modules come from the maps lp_sym_open reads (the
 * preload library's start-up root): here, the same file opened plainly.
 * Without an opener the report fails rather than guessing. */
static void test_symbolize_reports_modules_from_given_maps(void **state)
{
    static char *path;
    static const Dwfl_Callbacks cb = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .debuginfo_path = &path,
    };
    Dwfl *d = dwfl_begin(&cb);
    int (*was)(const char *, int, mode_t) = lp_sym_open;

    (void)state;
    assert_non_null(d);
    lp_sym_open = NULL;
    dwfl_report_begin(d);
    assert_false(lp_sym_maps_report(d));
    lp_sym_open = open_plainly;
    assert_true(lp_sym_maps_report(d));
    assert_int_equal(dwfl_report_end(d, NULL, NULL), 0);
    assert_non_null(dwfl_addrmodule(d, (Dwarf_Addr)(uintptr_t)&record_return));
    assert_non_null(dwfl_addrmodule(d, (Dwarf_Addr)(uintptr_t)&strlen));
    lp_sym_open = was;
    dwfl_end(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbolize_plain_function_has_name_file_line_object),
        cmocka_unit_test(test_symbolize_expands_inlined_frames_innermost_first),
        cmocka_unit_test(test_symbolize_is_return_controls_the_printed_address),
        cmocka_unit_test(test_symbolize_libc_function_names_its_object),
        cmocka_unit_test(test_symbolize_prefers_the_alias_valgrind_prints),
        cmocka_unit_test(test_symbolize_describe_shapes_match_valgrind),
        cmocka_unit_test(test_symbolize_fullpath_after_as_valgrind),
        cmocka_unit_test(test_symbolize_unknown_address_gives_one_anonymous_frame),
        cmocka_unit_test(test_symbolize_below_main_names_follow_valgrind),
        cmocka_unit_test(test_symbolize_demangles_without_linking_libstdcxx),
        cmocka_unit_test(test_symbolize_demangles_rust_as_memcheck),
        cmocka_unit_test(test_symbolize_refresh_keeps_answers),
        cmocka_unit_test(test_symbolize_reports_modules_from_given_maps),
    };
    return cmocka_run_group_tests_name("symbolize", tests, setup, teardown);
}
