/* SPDX-License-Identifier: MIT */
/*
 * test_unwind_rules.c - the unwind rules the walker steps by: what the
 * CFI gives for a frame-pointer function and for bytes that are no code,
 * the rules files one process leaves for the next (kept, found, refused
 * when truncated), and dlclose forgetting the rules of the code it
 * unloaded, and only those.
 */
#include "tests/unit/lp_test.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/hot/cfi.h"
#include "preload/hot/stack_walk.h"
#include "preload/hot/unwind_rules.h"
#include "preload/hot/unwind_rules_file.h"
#include "tests/unit/unwind_pair.h"

/* --- the rules themselves ----------------------------------------------- */

static void test_unwind_rule_of_a_frame_pointer_function(void **state)
{
    static struct up_pair p;
    uint64_t r;

    (void)state;
    up_through_o0(&p, 0);
    /* p.a[1] returns into through_o0 (-O0, push rbp; mov rbp,rsp). */
    r = lp_cfi_rule((uintptr_t)p.a[1]);
    assert_int_equal(LP_RULE_KIND(r), LP_RULE_FRAME);
    assert_true(r & LP_RULE_CFA_RBP);
    assert_int_equal(LP_RULE_CFA_OFF(r), 16);
    assert_true(r & LP_RULE_RBP_SAVED);
    assert_int_equal(LP_RULE_RBP_OFF(r), -16);
}

static void test_unwind_rule_of_code_without_cfi_is_fallback(void **state)
{
    static char not_code[64];

    (void)state;
    assert_int_equal(LP_RULE_KIND(lp_cfi_rule((uintptr_t)not_code + 8)),
                     LP_RULE_FALLBACK);
}

/* The rules of one process, kept in files (one an object), are what the
 * next one finds for the same return addresses: equal to the CFI's for
 * every frame of three recursions and of a callback inside libc; an
 * address the file does not hold is not found; a truncated file is not
 * used at all. */
static void test_unwind_rules_files_round_trip(void **state)
{
    char dir[] = "/tmp/lp-rules-XXXXXX", sub[64], cmd[160];
    static struct up_pair p, q;
    uint64_t r;
    int i, n = 0;
    void *ras[2 * UP_MAXF];

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof(sub), "%s/leakprof", dir);
    lp_rules_file_set_dir(sub, "0123456789ab");
    lp_rules_file_forget();
    up_through_o2_fp(&p, 6);
    up_cb_done = 0;
    {
        int v[64];

        for (i = 0; i < 64; i++)
            v[i] = (i * 37) % 64;
        up_cb_pair = q;
        qsort(v, 64, sizeof(v[0]), up_cmp_capture);
    }
    for (i = 1; i < p.na; i++)
        ras[n++] = p.a[i];
    for (i = 1; i < up_cb_pair.na; i++)
        ras[n++] = up_cb_pair.a[i];
    assert_true(n > 10);
    for (i = 0; i < n; i++) /* every one in the process's table */
        assert_int_equal(lp_unwind_rule((uintptr_t)ras[i]),
                         lp_cfi_rule((uintptr_t)ras[i]));
    lp_rules_file_save();
    snprintf(cmd, sizeof(cmd), "ls %s/*.rules >/dev/null 2>&1", sub);
    assert_int_equal(system(cmd), 0);
    /* A new process, as far as the files go. */
    lp_rules_file_forget();
    for (i = 0; i < n; i++) {
        assert_true(lp_rules_file_find((uintptr_t)ras[i], &r));
        assert_int_equal(r, lp_cfi_rule((uintptr_t)ras[i]));
    }
    /* Never a miss of this process: not in any file. */
    assert_false(lp_rules_file_find((uintptr_t)&test_unwind_rules_files_round_trip + 3, &r));
    snprintf(cmd, sizeof(cmd),
             "for f in %s/*.rules; do truncate -s -1 $f; done", sub);
    assert_int_equal(system(cmd), 0);
    lp_rules_file_forget();
    for (i = 0; i < n; i++)
        assert_false(lp_rules_file_find((uintptr_t)ras[i], &r));
    lp_rules_file_set_dir(NULL, NULL);
    lp_rules_file_forget();
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A fork child inherits its parent's table, rules the parent computed
 * and will save at its own exit: the child's exit writes no file for
 * them, only for a rule it computes itself. */
static void test_unwind_rules_fork_child_saves_only_its_own(void **state)
{
    char dir[] = "/tmp/lp-rules-XXXXXX", sub[64], cmd[200];
    static struct up_pair p;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof(sub), "%s/leakprof", dir);
    lp_rules_file_set_dir(sub, "0123456789ab");
    lp_rules_file_forget();
    up_through_o2_fp(&p, 4); /* the parent's rules, in the table */
    assert_true(lp_unwind_rule((uintptr_t)p.a[1]) != 0);
    lp_rule_miss((uintptr_t)p.a[1]); /* one computed here, at least */
    assert_true(lp_load_relaxed(&lp_rules_computed) > 0);
    lp_rules_atfork_child();
    assert_int_equal(lp_load_relaxed(&lp_rules_computed), 0);
    lp_rules_file_save();
    snprintf(cmd, sizeof(cmd), "ls %s/*.rules >/dev/null 2>&1", sub);
    assert_int_not_equal(system(cmd), 0); /* nothing written */
    lp_rule_miss((uintptr_t)p.a[1]); /* the child's own */
    lp_rules_file_save();
    assert_int_equal(system(cmd), 0);
    lp_rules_file_set_dir(NULL, NULL);
    lp_rules_file_forget();
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* dlclose (ours, linked in from the preload objects) forgets the rules
 * of code it unloaded, and only those. libthread_db: small, loaded by
 * nothing else, and RTLD_LAZY leaves its debugger callbacks unresolved. */
static void test_unwind_dlclose_forgets_unloaded_rules(void **state)
{
    void *h = dlopen("libthread_db.so.1", RTLD_LAZY | RTLD_LOCAL), *h2;
    uintptr_t f, libc_ra;
    static struct up_pair p;

    (void)state;
    if (h == NULL)
        skip();
    f = (uintptr_t)dlsym(h, "td_init");
    assert_true(f != 0);
    /* A return address just past the function's first byte. */
    assert_int_equal(LP_RULE_KIND(lp_unwind_rule(f + 1)), LP_RULE_FRAME);
    assert_true(lp_unwind_rule_cached(f + 1));
    /* A rule of code that stays: libc's qsort frames. */
    up_cb_done = 0;
    {
        int v[8] = {5, 3, 1, 7, 2, 8, 4, 6};

        qsort(v, 8, sizeof(v[0]), up_cmp_capture);
    }
    libc_ra = (uintptr_t)up_cb_pair.a[2];
    (void)lp_unwind_rule(libc_ra);
    assert_true(lp_unwind_rule_cached(libc_ra));
    /* Still referenced twice: unloading nothing keeps everything. */
    h2 = dlopen("libthread_db.so.1", RTLD_LAZY | RTLD_LOCAL);
    assert_int_equal(dlclose(h2), 0);
    assert_true(lp_unwind_rule_cached(f + 1));
    assert_int_equal(dlclose(h), 0);
#ifndef __SANITIZE_ADDRESS__
    /* (Under make asan, ASan's dlclose interceptor binds before ours in
     * the test binary, so ours never runs; in libleakprof.so, preloaded
     * first, it does.) */
    assert_false(lp_unwind_rule_cached(f + 1));
#endif
    assert_true(lp_unwind_rule_cached(libc_ra));
    /* And walks stay exact after it. */
    memset(&p, 0, sizeof(p));
    up_through_o2_nofp(&p, 7);
    up_assert_same(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unwind_rule_of_a_frame_pointer_function),
        cmocka_unit_test(test_unwind_rule_of_code_without_cfi_is_fallback),
        cmocka_unit_test(test_unwind_rules_files_round_trip),
        cmocka_unit_test(test_unwind_rules_fork_child_saves_only_its_own),
        cmocka_unit_test(test_unwind_dlclose_forgets_unloaded_rules),
    };

    return cmocka_run_group_tests_name("unwind_rules", tests, up_setup, NULL);
}
