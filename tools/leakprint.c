/* SPDX-License-Identifier: MIT */
/*
 * leakprint.c - main(): ms_print-compatible renderer of massif.out files,
 * plus snapshot diffs and flame graphs.
 * Context: COLD. Exit status 0 ok, 1 bad input or I/O error, 2 usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/massif.h"
#include "tools/diff.h"
#include "report/flame.h"
#include "report/flame_sites.h"
#include "report/html.h"
#include "report/html_sites.h"
#include "report/pprof_read.h"
#include "tools/msprint.h"

#ifndef LP_VERSION
#define LP_VERSION "unknown"
#endif
/* The project's one version (VERSION, passed by the Makefile). */
#define LEAKPRINT_VERSION "leakprint " LP_VERSION " (ms_print-3.19.0 compatible)"

static const char usage_text[] =
    "usage: leakprint [options] massif-out-file\n"
    "       leakprint --diff [options] A[:N] B[:M]\n"
    "       leakprint --flamegraph=folded|svg [--snapshot=N] massif-out-file\n"
    "       leakprint --flamegraph=folded|svg [--cost=COST] profile.pb.gz\n"
    "       leakprint --html [--snapshot=N] [massif-out-file] [profile.pb.gz]\n"
    "       leakprint --check massif-out-file...\n"
    "\n"
    "  Prints massif-out-file exactly as Valgrind's ms_print does.\n"
    "\n"
    "  options, with defaults in [ ]:\n"
    "    -h --help             show this message\n"
    "    --version             show version\n"
    "    --threshold=<m.n>     significance threshold, in percent [1]\n"
    "    --x=<4..1000>         graph width, in columns [72]\n"
    "    --y=<4..1000>         graph height, in rows [20]\n"
    "    --diff                growth per allocation site from A to B; A and\n"
    "                          B are files, or FILE:N, FILE:last, FILE:peak\n"
    "                          for one snapshot of FILE [last: the last\n"
    "                          snapshot with a heap tree, which in a\n"
    "                          massif.out.PID.N is the moment of the signal]\n"
    "    --flamegraph=<fmt>    folded: collapsed stacks for flamegraph.pl,\n"
    "                          inferno or speedscope; svg: an interactive\n"
    "                          flame graph (search, click to zoom)\n"
    "    --cost=<cost>         with a pprof file (pprof=): what the flame\n"
    "                          graph weighs: peak (live at the peak), exit\n"
    "                          (live at exit), leaked, calls (allocation\n"
    "                          calls), allocated (bytes allocated), temp\n"
    "                          (temporary allocations) [peak, else the first\n"
    "                          the file has]; a massif file has peak only\n"
    "    --html                one self-contained HTML page: heap over time,\n"
    "                          flame graph and top consumers of a snapshot;\n"
    "                          with a pprof file (alone or after the massif\n"
    "                          file) flame graphs by cost and top tables\n"
    "    --snapshot=<n|last|peak>  the snapshot for --flamegraph and --html\n"
    "                          [the peak, else the last detailed one], or for\n"
    "                          both files of --diff when not named as FILE:N\n"
    "    --check               validate files against massif's strict grammar\n"
    "                          (what massif writes and massif-visualizer\n"
    "                          reads); prints 'FILE: ok' or the first error\n";

static int usage(const char *msg)
{
    if (msg != NULL)
        fprintf(stderr, "leakprint: %s\n", msg);
    fputs(usage_text, stderr);
    return 2;
}

/* Strictly parse an unsigned decimal (ms_print's \d+ patterns). */
static bool parse_uint(const char *s, unsigned long long max,
                       unsigned long long *out)
{
    unsigned long long v = 0;

    if (*s == '\0')
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (unsigned)(*s - '0');
        if (v > max)
            return false;
    }
    *out = v;
    return true;
}

static struct lp_massif *load(const char *path)
{
    struct lp_massif *m;
    char err[512];

    if (lp_massif_read_path(path, LP_MASSIF_READ_MS_PRINT, &m, err,
                            sizeof(err)) != 0) {
        fprintf(stderr, "leakprint: %s\n", err);
        return NULL;
    }
    return m;
}

static int finish(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "leakprint: write error on standard output: %s\n",
                strerror(errno));
        return 1;
    }
    return rc;
}

/* A snapshot choice: N, "last" or "peak" (LP_DIFF_* of tools/diff.h). */
static bool parse_snap(const char *s, long *out)
{
    unsigned long long v;

    if (!strcmp(s, "last"))
        *out = LP_DIFF_LAST;
    else if (!strcmp(s, "peak"))
        *out = LP_DIFF_PEAK;
    else if (parse_uint(s, 1000000000ULL, &v))
        *out = (long)v;
    else
        return false;
    return true;
}

/* "FILE:N" (or FILE:last, FILE:peak) names one snapshot of FILE, unless
 * FILE:N is itself a file; otherwise *snap stays as given. */
static int split_spec(const char *arg, char **path, long *snap)
{
    const char *colon = strrchr(arg, ':');
    long v;
    FILE *f;

    *path = strdup(arg);
    if (*path == NULL)
        return -ENOMEM;
    if (colon == NULL || !parse_snap(colon + 1, &v))
        return 0;
    f = fopen(arg, "r");
    if (f != NULL) {
        fclose(f);
        return 0;
    }
    (*path)[colon - arg] = '\0';
    *snap = v;
    return 0;
}

static int run_diff(const char *a, const char *b, long snap)
{
    struct lp_massif *ma = NULL, *mb = NULL;
    char *pa = NULL, *pb = NULL, err[256];
    long sa = snap, sb = snap;
    int rc = 1;

    if (split_spec(a, &pa, &sa) || split_spec(b, &pb, &sb)) {
        fprintf(stderr, "leakprint: out of memory\n");
        goto out;
    }
    ma = load(pa);
    if (ma == NULL)
        goto out;
    if (strcmp(pa, pb) == 0) {
        mb = ma;
    } else if ((mb = load(pb)) == NULL) {
        goto out;
    }
    if (lp_diff_print(stdout, ma, pa, sa, mb, pb, sb, err, sizeof(err))) {
        fprintf(stderr, "leakprint: %s\n", err);
        goto out;
    }
    rc = 0;
out:
    if (mb != ma)
        lp_massif_free(mb);
    lp_massif_free(ma);
    free(pa);
    free(pb);
    return finish(rc);
}

/* --check: every non-option argument, strictly. */
static int run_check(int argc, char **argv)
{
    int bad = 0;

    for (int i = 1; i < argc; i++) {
        struct lp_massif *m;
        char err[512];

        if (argv[i][0] == '-')
            continue;
        if (lp_massif_read_path(argv[i], LP_MASSIF_READ_STRICT, &m, err,
                                sizeof(err)) != 0) {
            fprintf(stderr, "leakprint: %s\n", err);
            bad = 1;
            continue;
        }
        printf("%s: ok (%zu snapshots)\n", argv[i], lp_massif_count(m));
        lp_massif_free(m);
    }
    return finish(bad);
}

static bool load_sites(const char *path, struct lp_sites *sites);

/* --html: the self-contained HTML report on stdout, of a massif file,
 * a pprof file, or both (the chart from one, the sites from the other). */
static int run_html(const char *const *files, int nfiles, long snap,
                    bool snap_given)
{
    const char *path = NULL, *pprof = NULL;
    struct lp_massif *m = NULL;
    struct lp_sites sites;
    char err[256];
    int rc, i;

    for (i = 0; i < nfiles; i++) {
        if (lp_pprof_sniff(files[i]) && !pprof)
            pprof = files[i];
        else if (!path)
            path = files[i];
        else
            return usage("--html takes one massif file and one pprof file");
    }
    if (pprof && !load_sites(pprof, &sites))
        return finish(1);
    if (!path) {
        rc = lp_html_report_sites(stdout, NULL, pprof, -1, &sites, err,
                                  sizeof(err));
        lp_sites_release(&sites);
        return finish(rc ? 1 : 0);
    }
    m = load(path);
    if (m == NULL) {
        if (pprof)
            lp_sites_release(&sites);
        return 1;
    }
    if (snap_given && snap < 0 &&
        (snap = lp_diff_pick(m, path, snap, err, sizeof(err))) < 0) {
        fprintf(stderr, "leakprint: %s\n", err);
        lp_massif_free(m);
        if (pprof)
            lp_sites_release(&sites);
        return finish(1);
    }
    rc = lp_html_report_sites(stdout, m, path, snap, pprof ? &sites : NULL,
                              err, sizeof(err));
    if (rc)
        fprintf(stderr, "leakprint: %s\n",
                rc == -ENOMEM ? "out of memory" : rc == -EIO ? "write error" : err);
    lp_massif_free(m);
    if (pprof)
        lp_sites_release(&sites);
    return finish(rc ? 1 : 0);
}

/* A pprof file (pprof=, Go, gperftools via pprof) as sites, or NULL
 * after a message. */
static bool load_sites(const char *path, struct lp_sites *sites)
{
    char err[512];

    if (lp_pprof_read_sites(path, sites, err, sizeof(err)) != 0) {
        fprintf(stderr, "leakprint: %s\n", err);
        return false;
    }
    return true;
}

/* --flamegraph of a pprof file, weighed by cost (-1: the default). */
static int run_flame_sites(const char *path, const char *fmt, int cost)
{
    struct lp_sites sites;
    struct lp_flame *f;
    char title[1024], a[32];
    int rc, c;

    if (!load_sites(path, &sites))
        return finish(1);
    for (c = 0; cost < 0 && c < LP_COST_COUNT; c++)
        if (sites.has & LP_COST_BIT(c))
            cost = c;
    if (cost < 0 || !(sites.has & LP_COST_BIT(cost))) {
        fprintf(stderr, "leakprint: %s: no %s figures in this profile\n",
                path, cost < 0 ? "cost" : lp_cost_key[cost]);
        lp_sites_release(&sites);
        return finish(1);
    }
    f = lp_flame_of_sites(&sites, (enum lp_cost)cost);
    if (!f) {
        fprintf(stderr, "leakprint: out of memory\n");
        lp_sites_release(&sites);
        return finish(1);
    }
    if (strcmp(fmt, "svg") == 0) {
        snprintf(title, sizeof(title), "Flame graph of %s: %s (%s %s)",
                 lp_cost_title[cost], path,
                 lp_html_sep(lp_flame_total(f), a, sizeof(a)),
                 lp_cost_unit[cost]);
        rc = lp_flame_write_svg(stdout, f, title, lp_cost_unit[cost], true,
                                0.1);
    } else {
        rc = lp_flame_write_folded(stdout, f);
    }
    lp_flame_free(f);
    lp_sites_release(&sites);
    return finish(rc ? 1 : 0);
}

static int run_flame(const char *path, const char *fmt, long snap,
                     bool snap_given)
{
    struct lp_massif *m = load(path);
    char err[256];
    int rc = 0;

    if (m == NULL)
        return 1;
    /* --snapshot=last|peak are resolved here; a number, or no
     * --snapshot at all (-1: flame.c's default), go to flame.c as is. */
    if (snap_given && snap < 0 &&
        (snap = lp_diff_pick(m, path, snap, err, sizeof(err))) < 0)
        rc = -EINVAL;
    if (rc == 0 && strcmp(fmt, "svg") == 0)
        rc = lp_flame_svg(stdout, m, path, snap, err, sizeof(err));
    else if (rc == 0)
        rc = lp_flame_folded(stdout, m, path, snap, err, sizeof(err));
    if (rc)
        fprintf(stderr, "leakprint: %s\n", err);
    lp_massif_free(m);
    return finish(rc ? 1 : 0);
}

int main(int argc, char **argv)
{
    struct lp_msprint_opts o = {
        .threshold = 1.0,
        .width = 72,
        .height = 20,
        .argc = argc - 1,
        .argv = argv + 1,
    };
    const char *files[2] = { NULL, NULL }, *flame = NULL;
    int nfiles = 0, rc;
    bool diff = false, check = false, snap_given = false, html = false;
    long snap = -1;
    int cost = -1;
    struct lp_massif *m;
    char err[512];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        unsigned long long v;

        if (a[0] != '-') {
            if (nfiles < 2)
                files[nfiles] = a;
            nfiles++;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return finish(0);
        } else if (!strcmp(a, "--version")) {
            puts(LEAKPRINT_VERSION);
            return finish(0);
        } else if (!strncmp(a, "--threshold=", 12)) {
            if (lp_msprint_parse_threshold(a + 12, &o.threshold) != 0)
                return usage("--threshold wants a percentage in 0..100");
        } else if (!strncmp(a, "--x=", 4)) {
            if (!parse_uint(a + 4, 1000, &v) || v < 4)
                return usage("--x wants an integer in 4..1000");
            o.width = (int)v;
        } else if (!strncmp(a, "--y=", 4)) {
            if (!parse_uint(a + 4, 1000, &v) || v < 4)
                return usage("--y wants an integer in 4..1000");
            o.height = (int)v;
        } else if (!strcmp(a, "--diff")) {
            diff = true;
        } else if (!strcmp(a, "--html")) {
            html = true;
        } else if (!strcmp(a, "--check")) {
            check = true;
        } else if (!strncmp(a, "--flamegraph=", 13)) {
            flame = a + 13;
            if (strcmp(flame, "folded") && strcmp(flame, "svg"))
                return usage("--flamegraph wants 'folded' or 'svg'");
        } else if (!strncmp(a, "--cost=", 7)) {
            cost = lp_cost_find(a + 7);
            if (cost < 0)
                return usage("--cost wants peak, exit, leaked, calls, "
                             "allocated or temp");
        } else if (!strncmp(a, "--snapshot=", 11)) {
            if (!parse_snap(a + 11, &snap))
                return usage("--snapshot wants a snapshot index, 'last' "
                             "or 'peak'");
            snap_given = true;
        } else {
            fprintf(stderr, "leakprint: unknown option '%s'\n", a);
            return usage(NULL);
        }
    }
    setvbuf(stdout, NULL, _IOFBF, 1 << 20);
    if (check) {
        if (nfiles == 0 || diff || flame != NULL || snap_given)
            return usage("--check wants files and no other mode");
        return run_check(argc, argv);
    }
    if (diff) {
        if (nfiles != 2 || flame != NULL)
            return usage("--diff wants exactly two files or snapshots");
        return run_diff(files[0], files[1],
                        snap_given ? snap : LP_DIFF_LAST);
    }
    if (nfiles == 0)
        return usage("no massif-out-file given");
    if (cost >= 0 && flame == NULL)
        return usage("--cost only goes with --flamegraph");
    if (html) {
        if (flame != NULL)
            return usage("--html and --flamegraph are separate outputs");
        if (nfiles > 2)
            return usage("--html takes one massif file and one pprof file");
        return run_html(files, nfiles, snap, snap_given);
    }
    if (flame != NULL && lp_pprof_sniff(files[0])) {
        if (snap_given)
            return usage("--snapshot needs a massif file; a pprof file "
                         "has one moment");
        return run_flame_sites(files[0], flame, cost);
    }
    if (flame != NULL && cost >= 0 && cost != LP_COST_PEAK) {
        fprintf(stderr, "leakprint: %s: a massif file holds live bytes "
                "only (--cost=peak); --cost=%s needs a pprof file "
                "(pprof=)\n", files[0], lp_cost_key[cost]);
        return finish(1);
    }
    if (flame != NULL)
        return run_flame(files[0], flame, snap, snap_given);
    if (snap_given)
        return usage("--snapshot only goes with --flamegraph, --html or --diff");

    /* Like ms_print, extra file names are ignored; the first is used. */
    m = load(files[0]);
    if (m == NULL)
        return 1;
    rc = lp_msprint(stdout, m, &o, err, sizeof(err));
    lp_massif_free(m);
    if (rc == -ENOMEM) {
        fflush(stdout);
        fprintf(stderr, "leakprint: out of memory\n");
        return 1;
    }
    if (rc != 0) {
        fflush(stdout);
        fprintf(stderr, "leakprint: %s: %s\n", files[0], err);
        return 1;
    }
    return finish(0);
}
