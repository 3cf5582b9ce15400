/* SPDX-License-Identifier: MIT */
/*
 * report_prog.c - a small leaking program for the CI-gate script tests,
 * linked with libreport.a. It records the real call stacks of its own
 * allocations (backtrace(3) inside my_alloc) and feeds them to
 * report/suppress, report/json and report/sarif:
 *
 *   report_prog leak                 just leak (run under Valgrind)
 *   report_prog gen FILE             write a gen-suppressions block for the
 *                                    leak_fn leak (as leakprof would print
 *                                    it) and check it loads and matches
 *                                    only that leak
 *   report_prog report JSON SARIF ROOT   write both reports
 *   report_prog load FILE            lp_supp_load: "loaded N" or "error: ..."
 *   report_prog tmatch TEMPLATE STR  lp_supp_lsan_match: 1 or 0
 *   report_prog builtin runtime|threads   print the built-in entries
 *
 * The frames leakprof shows start with its malloc hook; here that first
 * frame is made by hand, everything after it is symbolized for real.
 */
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/leaks.h"
#include "report/sarif.h"
#include "report/suppress.h"
#include "report/symbolize.h"

#define MAXF 32

struct site {
    uintptr_t ips[MAXF];
    unsigned nips;
};

static struct site sites[3];
static void *keep_reachable;
static char *keep_interior;
static int capture = 1; /* off in "leak" mode: Valgrind sees only malloc */

static __attribute__((noinline)) void *my_alloc(size_t n, int slot)
{
    void *bt[MAXF];
    int k = capture ? backtrace(bt, MAXF) : 0; /* MY_ALLOC_LINE */
    int i;

    for (i = 0; i < k; i++)
        sites[slot].ips[i] = (uintptr_t)bt[i];
    sites[slot].nips = (unsigned)k;
    return malloc(n);
}

static __attribute__((noinline)) void leak_fn(void)
{
    char *p = my_alloc(100, 0);

    memset(p, 1, 100);
}

static __attribute__((noinline)) void leak_other(void)
{
    char *p = my_alloc(50, 1);

    memset(p, 2, 50);
}

static __attribute__((noinline)) void reach_and_possible(void)
{
    keep_reachable = my_alloc(16, 2);
    keep_interior = (char *)malloc(64) + 8;
}

/* The record's frames as leakprof shows them: its malloc hook, then the
 * symbolized stack. */
static int frames_of(struct lp_sym *sym, int slot, struct lp_sym_frame *out,
                     int max)
{
    static const struct lp_sym_frame hook = {
        .addr = 0x10, .fn = "malloc", .mangled = "malloc",
        .obj = "/usr/local/lib/leakprof/libleakprof.so",
    };

    out[0] = hook;
    return 1 + lp_leaks_frames(sym, sites[slot].ips, sites[slot].nips,
                               out + 1, max - 1);
}

static int do_gen(const char *path)
{
    struct lp_sym *sym = lp_sym_new();
    struct lp_sym_frame a[MAXF * LP_SYM_MAX_INLINE], b[MAXF * LP_SYM_MAX_INLINE];
    int na = frames_of(sym, 0, a, MAXF * LP_SYM_MAX_INLINE);
    int nb = frames_of(sym, 1, b, MAXF * LP_SYM_MAX_INLINE);
    struct lp_supp *s = lp_supp_new();
    char err[256];
    FILE *f = fopen(path, "w");
    int rc = 0;

    if (!f || !s) {
        perror(path);
        return 1;
    }
    if (lp_supp_gen(f, LP_KIND_DEFINITE, a, na) != 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write '%s'\n", path);
        return 1;
    }
    if (lp_supp_load(s, path, err, sizeof(err)) != 1) {
        fprintf(stderr, "reload failed: %s\n", err);
        rc = 1;
    } else if (lp_supp_match(s, LP_KIND_DEFINITE, a, na) != 0) {
        fprintf(stderr, "generated entry does not match its own record\n");
        rc = 1;
    } else if (lp_supp_match(s, LP_KIND_DEFINITE, b, nb) != -1) {
        fprintf(stderr, "generated entry also matches leak_other\n");
        rc = 1;
    } else if (lp_supp_match(s, LP_KIND_POSSIBLE, a, na) != -1) {
        fprintf(stderr, "generated entry ignores match-leak-kinds\n");
        rc = 1;
    }
    /* The -s line for this use, to compare with Valgrind's. */
    lp_supp_note_use(s, 0, 100, 1);
    lp_supp_print_used(s, stdout, 4242);
    lp_supp_free(s);
    lp_sym_free(sym);
    return rc;
}

static int do_load(const char *path)
{
    struct lp_supp *s = lp_supp_new();
    char err[512];
    int n = lp_supp_load(s, path, err, sizeof(err));

    if (n < 0)
        printf("error: %s\n", err);
    else
        printf("loaded %d\n", n);
    lp_supp_free(s);
    return n < 0;
}

static int do_report(const char *json, const char *sarif, const char *root)
{
    struct lp_sym *sym = lp_sym_new();
    struct lp_loss_record r[5];
    struct lp_leak_set set = {
        .pid = 777, .in_use_bytes = 230, .in_use_blocks = 5, .allocs = 6,
        .frees = 1, .bytes_allocated = 330, .recs = r, .nrecs = 5,
    };
    struct lp_leak_opts o = {
        .leak_check = LP_CHECK_FULL, .show_kinds = LP_KINDS_DEFAULT,
        .error_kinds = LP_KINDS_DEFAULT, .depth = 30,
    };
    struct lp_supp *s = lp_supp_new();
    char err[256];
    FILE *fj = fopen(json, "w"), *fs = fopen(sarif, "w");
    int rc;

    if (!fj || !fs || !s)
        return 1;
    /* A quote and a control character in a suppression name, to be
     * escaped in the JSON. */
    if (lp_supp_load_string(s, "t.supp", "{\n \"odd\"\tname\n Memcheck:Leak\n"
                                         " fun:malloc\n fun:my_alloc\n"
                                         " fun:reach_and_possible\n}\n",
                            err, sizeof(err)) != 1) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    memset(r, 0, sizeof(r));
    r[0] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 1,
        .ips = sites[0].ips, .nips = sites[0].nips, .bytes = 100, .blocks = 1,
        .indirect_bytes = 0, .indirect_blocks = 0, .supp = -1 };
    r[1] = (struct lp_loss_record){ .kind = LP_KIND_DEFINITE, .stack_id = 2,
        .ips = sites[1].ips, .nips = sites[1].nips, .bytes = 50, .blocks = 1,
        .indirect_bytes = 30, .indirect_blocks = 2, .supp = -1 };
    r[2] = (struct lp_loss_record){ .kind = LP_KIND_INDIRECT, .stack_id = 3,
        .ips = sites[1].ips, .nips = sites[1].nips, .bytes = 30, .blocks = 2,
        .indirect_bytes = 0, .indirect_blocks = 0, .supp = -1 };
    r[3] = (struct lp_loss_record){ .kind = LP_KIND_POSSIBLE, .stack_id = 4,
        .ips = sites[2].ips, .nips = sites[2].nips, .bytes = 64, .blocks = 1,
        .indirect_bytes = 0, .indirect_blocks = 0, .supp = -1 };
    r[4] = (struct lp_loss_record){ .kind = LP_KIND_REACHABLE, .stack_id = 5,
        .ips = sites[2].ips, .nips = sites[2].nips, .bytes = 16, .blocks = 1,
        .indirect_bytes = 0, .indirect_blocks = 0, .supp = -1 };
    {
        struct lp_sym_frame f[MAXF * LP_SYM_MAX_INLINE];
        int n = frames_of(sym, 2, f, MAXF * LP_SYM_MAX_INLINE);

        r[4].supp = lp_supp_match(s, LP_KIND_REACHABLE, f, n);
        if (r[4].supp != 0) {
            fprintf(stderr, "suppression did not match the reachable record\n");
            return 1;
        }
    }
    rc = lp_leaks_json_supp(fj, &set, sym, &o, s);
    rc |= lp_leaks_sarif(fs, &set, sym, &o, root);
    rc |= fclose(fj) | fclose(fs);
    lp_supp_free(s);
    lp_sym_free(sym);
    return rc != 0;
}

int main(int argc, char **argv)
{
    capture = !(argc == 2 && strcmp(argv[1], "leak") == 0);
    leak_fn();
    leak_other();
    reach_and_possible();
    if (argc == 2 && strcmp(argv[1], "leak") == 0)
        return 0;
    if (argc == 3 && strcmp(argv[1], "gen") == 0)
        return do_gen(argv[2]);
    if (argc == 3 && strcmp(argv[1], "load") == 0)
        return do_load(argv[2]);
    if (argc == 3 && strcmp(argv[1], "builtin") == 0) {
        fputs(lp_supp_builtin_text(strcmp(argv[2], "threads") == 0), stdout);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "tmatch") == 0) {
        printf("%d\n", lp_supp_lsan_match(argv[2], argv[3]));
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "report") == 0)
        return do_report(argv[2], argv[3], argv[4]);
    fprintf(stderr, "usage: report_prog leak | gen FILE | load FILE | tmatch T S | "
                    "report JSON SARIF ROOT\n");
    return 2;
}
