/* SPDX-License-Identifier: MIT */
/*
 * config.c - LEAKPROF_OPTIONS: the option table and its setters (reading
 * the text is config_parse.c's).
 *
 * Each option is one row of lp_options[] with a setter that validates and
 * stores its value; defaults are applied through the same setters, from
 * the rows' default text, so a row says everything about its option. The
 * leakprof launcher links this file and validates its command line with
 * the same rows.
 * Context: BOOT. No allocation: everything lands in fixed buffers.
 */
#include "preload/life/config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "preload/hot/fault.h"
#include "report/leaks.h"
#include "report/signame.h"

struct lp_config lp_config;

struct name_bits {
    const char *name;
    unsigned bits;
};

/* A comma-separated list of names from t: the union of their bits. */
static bool parse_set(const char *v, const struct name_bits *t, size_t n,
                      unsigned *out)
{
    unsigned bits = 0;
    const char *p = v;

    if (!*v)
        return false;
    while (*p) {
        size_t len = strcspn(p, ","), i;

        for (i = 0; i < n; i++)
            if (strlen(t[i].name) == len && strncmp(t[i].name, p, len) == 0)
                break;
        if (i == n)
            return false;
        bits |= t[i].bits;
        p += len;
        if (*p == ',')
            p++;
    }
    *out = bits;
    return true;
}

static bool parse_kinds(const char *v, unsigned *out)
{
    static const struct name_bits names[] = {
        {"definite", LP_KIND_BIT(LP_KIND_DEFINITE)},
        {"indirect", LP_KIND_BIT(LP_KIND_INDIRECT)},
        {"possible", LP_KIND_BIT(LP_KIND_POSSIBLE)},
        {"reachable", LP_KIND_BIT(LP_KIND_REACHABLE)},
        {"all", LP_KINDS_ALL},
        {"none", 0},
    };

    return parse_set(v, names, LP_ARRAY_SIZE(names), out);
}

static bool parse_long(const char *v, long lo, long hi, long *out)
{
    char *end;
    long x;

    errno = 0;
    x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return false;
    *out = x;
    return true;
}

static bool parse_int(const char *v, long lo, long hi, int *out)
{
    long n;

    if (!parse_long(v, lo, hi, &n))
        return false;
    *out = (int)n;
    return true;
}

static bool parse_double(const char *v, double lo, double hi, double *out)
{
    char *end;
    double x;

    errno = 0;
    x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi))
        return false;
    *out = x;
    return true;
}

static bool parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true") ||
        !strcmp(v, "all")) {
        *out = true;
        return true;
    }
    if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false")) {
        *out = false;
        return true;
    }
    return false;
}

/* Any signal name or number (report/signame.h) a snapshot may use. */
static bool parse_signal(const char *v, int *out)
{
    int n = lp_signal_parse(v);

    if (n == 0) {
        *out = 0;
        return true;
    }
    if (n < 0 || !lp_signal_usable_for_snapshot(n))
        return false;
    *out = n;
    return true;
}

static bool copy_path(char *dst, const char *v)
{
    size_t n = strlen(v);

    if (n >= LP_CONFIG_PATH_MAX)
        return false;
    memcpy(dst, v, n + 1);
    return true;
}

/* One setter per option, in the table's order. */

/* log= and log_fd= are one destination: the last given wins, as
 * Valgrind's --log-file and --log-fd. */
static bool set_log(struct lp_config *c, const char *v)
{
    if (!copy_path(c->log, v))
        return false;
    c->log_fd = -1;
    return true;
}

static bool set_log_fd(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "none")) {
        c->log_fd = -1;
        return true;
    }
    if (!parse_int(v, 0, 1 << 20, &c->log_fd))
        return false;
    c->log[0] = '\0';
    return true;
}

static bool set_child_silent(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->child_silent);
}

static bool set_leak_check(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "no"))
        c->leak_check = LP_CHECK_NO;
    else if (!strcmp(v, "summary"))
        c->leak_check = LP_CHECK_SUMMARY;
    else if (!strcmp(v, "full") || !strcmp(v, "yes"))
        c->leak_check = LP_CHECK_FULL;
    else
        return false;
    return true;
}

static bool set_show_leak_kinds(struct lp_config *c, const char *v)
{
    return parse_kinds(v, &c->show_kinds);
}

/* Memcheck's --leak-check-heuristics: which interior pointers count as
 * start pointers (classify.c says what each one accepts). */
static bool set_heuristics(struct lp_config *c, const char *v)
{
    static const struct name_bits names[] = {
        {"stdstring", 1u << LP_HEUR_STDSTRING},
        {"length64", 1u << LP_HEUR_LENGTH64},
        {"newarray", 1u << LP_HEUR_NEWARRAY},
        {"multipleinheritance", 1u << LP_HEUR_MULTIPLEINHERITANCE},
        {"all", (1u << LP_HEUR_STDSTRING) | (1u << LP_HEUR_LENGTH64) |
                    (1u << LP_HEUR_NEWARRAY) |
                    (1u << LP_HEUR_MULTIPLEINHERITANCE)},
        {"none", 0},
    };

    return parse_set(v, names, LP_ARRAY_SIZE(names), &c->heuristics);
}

/* Memcheck's --leak-resolution: the frames two stacks must share to make
 * one loss record (0: all of them). */
static bool set_leak_resolution(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "low"))
        c->leak_resolution = 2;
    else if (!strcmp(v, "med"))
        c->leak_resolution = 4;
    else if (!strcmp(v, "high"))
        c->leak_resolution = 0;
    else
        return false;
    return true;
}

static bool set_show_reachable(struct lp_config *c, const char *v)
{
    bool b;

    if (!parse_bool(v, &b))
        return false;
    c->show_kinds = b ? LP_KINDS_ALL : LP_KINDS_DEFAULT;
    return true;
}

static bool set_errors_for_leak_kinds(struct lp_config *c, const char *v)
{
    return parse_kinds(v, &c->error_kinds);
}

static bool set_error_exitcode(struct lp_config *c, const char *v)
{
    return parse_int(v, 0, 255, &c->error_exitcode);
}

static bool set_suppressions(struct lp_config *c, const char *v)
{
    if (c->nsuppressions == LP_CONFIG_MAX_SUPP || !*v)
        return false;
    if (!copy_path(c->suppressions[c->nsuppressions], v))
        return false;
    c->nsuppressions++;
    return true;
}

static bool set_builtin_suppressions(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->builtin_suppressions);
}

static bool set_gen_suppressions(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->gen_suppressions);
}

/* A yes|no option stored as its negation (a field whose zero is the
 * default of the option's yes). */
static bool parse_bool_not(const char *v, bool *out)
{
    bool b;

    if (!parse_bool(v, &b))
        return false;
    *out = !b;
    return true;
}

static bool set_demangle(struct lp_config *c, const char *v)
{
    return parse_bool_not(v, &c->no_demangle);
}

static bool set_show_below_main(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->show_below_main);
}

/* Valgrind's --fullpath-after: each value is kept, in order (the first
 * found in a directory wins), an empty one too. */
static bool set_fullpath_after(struct lp_config *c, const char *v)
{
    size_t used = 0, n = strlen(v);
    int i;

    for (i = 0; i < c->nfullpath_after; i++)
        used += strlen(c->fullpath_after + used) + 1;
    if (used + n + 1 > sizeof(c->fullpath_after))
        return false;
    memcpy(c->fullpath_after + used, v, n + 1);
    c->nfullpath_after++;
    return true;
}

/* A fill byte as Valgrind takes it: hexadecimal, 0x optional; or none. */
static bool parse_fill(const char *v, int *out)
{
    char *end;
    unsigned long x;

    if (!strcmp(v, "none")) {
        *out = -1;
        return true;
    }
    errno = 0;
    x = strtoul(v, &end, 16);
    if (errno || end == v || *end || x > 0xff || *v == '-' || *v == '+')
        return false;
    *out = (int)x;
    return true;
}

static bool set_malloc_fill(struct lp_config *c, const char *v)
{
    return parse_fill(v, &c->malloc_fill);
}

static bool set_free_fill(struct lp_config *c, const char *v)
{
    return parse_fill(v, &c->free_fill);
}

static bool set_time_stamp(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->time_stamp);
}

/* Valgrind's --error-markers=BEGIN,END: two lines around each error. */
static bool set_error_markers(struct lp_config *c, const char *v)
{
    size_t n = strlen(v);

    if (n >= sizeof(c->error_markers) || strchr(v, '\n'))
        return false;
    memcpy(c->error_markers, v, n + 1);
    return true;
}

static bool set_log_format(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "text"))
        c->log_json = false;
    else if (!strcmp(v, "json"))
        c->log_json = true;
    else
        return false;
    return true;
}

static bool set_sarif(struct lp_config *c, const char *v)
{
    return *v && copy_path(c->sarif, v);
}

static bool set_xml(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->xml);
}

/* The last of xml_file and xml_fd given wins, as log and log_fd. */
static bool set_xml_file(struct lp_config *c, const char *v)
{
    if (!*v || !copy_path(c->xml_file, v))
        return false;
    c->xml_fd = -1;
    return true;
}

static bool set_xml_fd(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "none")) {
        c->xml_fd = -1;
        return true;
    }
    if (!parse_int(v, 0, 1 << 20, &c->xml_fd))
        return false;
    c->xml_file[0] = '\0';
    return true;
}

/* Valgrind's --xml-user-comment: copied into the XML as it is. */
static bool set_xml_user_comment(struct lp_config *c, const char *v)
{
    if (!copy_path(c->xml_user_comment, v))
        return false;
    c->xml_user_comment_set = true;
    return true;
}

static bool set_pprof(struct lp_config *c, const char *v)
{
    return *v && copy_path(c->pprof, v);
}

static bool set_html(struct lp_config *c, const char *v)
{
    return *v && copy_path(c->html, v);
}

static bool set_massif(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "0") || !strcmp(v, "no")) {
        c->massif[0] = 0;
        return true;
    }
    return *v && copy_path(c->massif, v);
}

static bool set_time_unit(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "B"))
        c->time_unit = LP_TIME_B;
    else if (!strcmp(v, "ms"))
        c->time_unit = LP_TIME_MS;
    else if (!strcmp(v, "i"))
        c->time_unit = LP_TIME_I;
    else
        return false;
    return true;
}

static bool set_detailed_freq(struct lp_config *c, const char *v)
{
    return parse_int(v, 1, 1000000, &c->detailed_freq);
}

static bool set_max_snapshots(struct lp_config *c, const char *v)
{
    return parse_int(v, 10, 1000, &c->max_snapshots);
}

static bool set_threshold(struct lp_config *c, const char *v)
{
    return parse_double(v, 0, 100, &c->threshold);
}

static bool set_peak_inaccuracy(struct lp_config *c, const char *v)
{
    return parse_double(v, 0, 100, &c->peak_inaccuracy);
}

static bool set_depth(struct lp_config *c, const char *v)
{
    return parse_int(v, 1, 200, &c->depth);
}

static bool set_snapshot_signal(struct lp_config *c, const char *v)
{
    return parse_signal(v, &c->snapshot_signal);
}

static bool set_sample_bytes(struct lp_config *c, const char *v)
{
    long n;

    if (!parse_long(v, 0, 1L << 40, &n))
        return false;
    c->sample_bytes = (uint64_t)n;
    return true;
}

static bool set_unwind(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "libunwind"))
        c->unwind_fp = false;
    else if (!strcmp(v, "fp"))
        c->unwind_fp = true;
    else
        return false;
    return true;
}

static bool set_heap_admin(struct lp_config *c, const char *v)
{
    return parse_int(v, 0, 1024, &c->heap_admin);
}

static bool set_alloc_fn(struct lp_config *c, const char *v)
{
    size_t used = 0, n = strlen(v);

    while (c->alloc_fns[used])
        used += strlen(c->alloc_fns + used) + 1;
    /* The name, its NUL and the list's final "". */
    if (n == 0 || used + n + 2 > sizeof(c->alloc_fns))
        return false;
    memcpy(c->alloc_fns + used, v, n + 1);
    c->alloc_fns[used + n + 1] = 0;
    return true;
}

bool lp_config_is_alloc_fn(const struct lp_config *c, const char *fn)
{
    const char *a;

    if (fn == NULL)
        return false;
    for (a = c->alloc_fns; *a; a += strlen(a) + 1)
        if (strcmp(a, fn) == 0)
            return true;
    return false;
}

static bool set_keep_debuginfo(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->keep_debuginfo);
}

static bool set_trace_children(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->trace_children);
}

static bool set_trace_children_skip(struct lp_config *c, const char *v)
{
    return copy_path(c->trace_children_skip, v);
}

static bool set_trace_children_skip_by_arg(struct lp_config *c, const char *v)
{
    return copy_path(c->trace_children_skip_by_arg, v);
}

static bool set_verbosity(struct lp_config *c, const char *v)
{
    return parse_int(v, 0, 10, &c->verbosity);
}

static bool set_quiet(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->quiet);
}

static bool set_quarantine(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->quarantine);
}

static bool set_exec_child(struct lp_config *c, const char *v)
{
    return parse_bool(v, &c->exec_child);
}

static bool set_origin(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "cmdline"))
        c->from_cmdline = true;
    else if (!strcmp(v, "env"))
        c->from_cmdline = false;
    else
        return false;
    return true;
}

/* Memcheck's --freelist-vol and --keep-stacktraces (heap errors). */
static bool set_freelist_vol(struct lp_config *c, const char *v)
{
    long n;

    if (!parse_long(v, 0, LONG_MAX, &n))
        return false;
    c->freelist_vol = (uint64_t)n;
    return true;
}

/* Memcheck's --keep-stacktraces: which stacks a heap error can show. We
 * always record the allocation stack (the leak report needs it); the
 * mode says whether a free captures one too, and which the error shows:
 * alloc: alloc'd at only; free: free'd at only; alloc-and-free: both;
 * alloc-then-free: alloc'd at while the block lives, free'd at after;
 * none: neither. */
static bool set_keep_stacktraces(struct lp_config *c, const char *v)
{
    static const struct {
        const char *name;
        bool free_stack, alloc_shown, alloc_after_free;
    } modes[] = {
        {"alloc", false, true, true},
        {"free", true, false, false},
        {"alloc-and-free", true, true, true},
        {"alloc-then-free", true, true, false},
        {"none", false, false, false},
    };
    size_t i;

    for (i = 0; i < LP_ARRAY_SIZE(modes); i++)
        if (!strcmp(v, modes[i].name)) {
            c->keep_free_stacks = modes[i].free_stack;
            c->show_alloc_stack = modes[i].alloc_shown;
            c->show_alloc_after_free = modes[i].alloc_after_free;
            return true;
        }
    return false;
}

static bool set_show_mismatched(struct lp_config *c, const char *v)
{
    return parse_bool_not(v, &c->hide_mismatched);
}

/* Which live blocks a snapshot signal's live report lists (leakcheck.c):
 * all of them (start), or only those allocated since the previous
 * signal's report and still live (last): leaks by age, for services. */
static bool set_live_since(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "start"))
        c->live_since_last = false;
    else if (!strcmp(v, "last"))
        c->live_since_last = true;
    else
        return false;
    return true;
}

/* When the exit report frees the C runtime's buffers first (exit.c). */
static bool set_freeres(struct lp_config *c, const char *v)
{
    if (!strcmp(v, "auto"))
        c->freeres = 0;
    else if (!strcmp(v, "always"))
        c->freeres = 1;
    else if (!strcmp(v, "never"))
        c->freeres = -1;
    else
        return false;
    return true;
}

unsigned lp_fault_mask;

/* fault_inject=open,write,rename,arena,freeres: the test seam of
 * fault.h. */
static bool set_fault_inject(struct lp_config *c, const char *v)
{
    static const struct name_bits names[] = {
        {"open", LP_FAULT_OPEN},     {"write", LP_FAULT_WRITE},
        {"rename", LP_FAULT_RENAME}, {"arena", LP_FAULT_ARENA},
        {"freeres", LP_FAULT_FREERES}, {"none", 0},
    };
    unsigned mask;

    (void)c;
    if (!parse_set(v, names, LP_ARRAY_SIZE(names), &mask))
        return false;
    lp_store_relaxed(&lp_fault_mask, mask);
    return true;
}

#define KINDS "definite,indirect,possible,reachable|all|none"

const struct lp_option lp_options[] = {
    {"log", "", "FILE", "write the leak report to FILE (%p: pid) instead of stderr",
     set_log, 0},
    {"log_fd", "none", "N|none",
     "write the leak report to descriptor N (Valgrind's --log-fd)",
     set_log_fd, 0},
    {"child_silent_after_fork", "no", "yes|no",
     "yes: a fork child that does not exec writes no report (Valgrind's option)",
     set_child_silent, LP_OPT_BOOL},
    {"leak_check", "full", "no|summary|full",
     "summary: HEAP and LEAK SUMMARY only; full: loss records with stacks",
     set_leak_check, 0},
    {"show_leak_kinds", "definite,possible", KINDS,
     "which loss records to print", set_show_leak_kinds, 0},
    {"leak_check_heuristics", "all",
     "stdstring,length64,newarray,multipleinheritance|all|none",
     "interior pointers that still make a block reachable (Memcheck's heuristics)",
     set_heuristics, 0},
    {"leak_resolution", "high", "low|med|high",
     "low, med: stacks that agree on their first 2, 4 frames make one loss record (Memcheck's)",
     set_leak_resolution, 0},
    {"show_reachable", NULL, "yes|no",
     "yes: show_leak_kinds=all; no: the default kinds (Valgrind's spelling)",
     set_show_reachable, LP_OPT_BOOL},
    {"errors_for_leak_kinds", "definite,possible", KINDS,
     "which kinds count as errors for error_exitcode",
     set_errors_for_leak_kinds, 0},
    {"error_exitcode", "0", "N (0..255)",
     "exit with N when leaks of an error kind remain (and the program would exit 0)",
     set_error_exitcode, 0},
    {"suppressions", NULL, "FILE",
     "Valgrind .supp and/or LSan leak: file; give it again for more (up to 16)",
     set_suppressions, 0},
    {"builtin_suppressions", "yes", "yes|no",
     "suppress one-time runtime allocations (stdio, libstdc++ pool, dlopen TLS)",
     set_builtin_suppressions, LP_OPT_BOOL},
    {"gen_suppressions", "no", "yes|no",
     "print a ready-to-paste suppression after each loss record",
     set_gen_suppressions, LP_OPT_BOOL},
    {"demangle", "yes", "yes|no",
     "no: C++ frames by their linkage names, as Valgrind's --demangle=no",
     set_demangle, LP_OPT_BOOL},
    {"show_below_main", "no", "yes|no",
     "yes: stacks go on below main, its callers by their names (Valgrind's --show-below-main)",
     set_show_below_main, LP_OPT_BOOL},
    {"fullpath_after", NULL, "STRING",
     "frames show source paths, less all up to STRING (the first found of those given; empty: whole)",
     set_fullpath_after, 0},
    {"malloc_fill", "none", "0xNN|none",
     "set each byte of a new block (calloc's excepted) to NN (Memcheck's --malloc-fill)",
     set_malloc_fill, 0},
    {"free_fill", "none", "0xNN|none",
     "set each byte of a freed block to NN before it goes back (Memcheck's --free-fill)",
     set_free_fill, 0},
    {"time_stamp", "no", "yes|no",
     "each report line carries the time since the start (Valgrind's --time-stamp)",
     set_time_stamp, LP_OPT_BOOL},
    {"error_markers", NULL, "BEGIN,END",
     "a line before and after each error and loss record (Valgrind's --error-markers)",
     set_error_markers, 0},
    {"log_format", "text", "text|json", "text: Memcheck's layout; json: one JSON document",
     set_log_format, 0},
    {"sarif", NULL, "FILE", "also write the leak report as SARIF 2.1.0 (%p: pid)",
     set_sarif, 0},
    {"xml", "no", "yes|no",
     "yes: write Memcheck's XML (protocol 4) to xml_file or xml_fd, instead of the text report",
     set_xml, LP_OPT_BOOL},
    {"xml_file", NULL, "FILE", "where xml=yes writes (%p: pid; Valgrind's --xml-file)",
     set_xml_file, 0},
    {"xml_fd", "none", "N|none", "xml=yes writes to descriptor N (Valgrind's --xml-fd)",
     set_xml_fd, 0},
    {"xml_user_comment", NULL, "STR", "copy STR verbatim into the XML (Valgrind's option)",
     set_xml_user_comment, 0},
    {"pprof", NULL, "FILE",
     "also write a gzipped pprof heap profile (%p: pid; FILE.N on each snapshot signal)",
     set_pprof, 0},
    {"html", NULL, "FILE",
     "also write one self-contained HTML report (%p: pid; FILE.N on each snapshot signal)",
     set_html, 0},
    {"massif", "massif.out.%p", "FILE|0", "massif output file (%p: pid); 0: none",
     set_massif, 0},
    {"time_unit", "B", "B|ms|i",
     "massif time axis: bytes allocated+freed, milliseconds, allocation calls",
     set_time_unit, 0},
    {"detailed_freq", "10", "N (1..1000000)", "every Nth massif snapshot is detailed",
     set_detailed_freq, 0},
    {"max_snapshots", "100", "N (10..1000)", "massif snapshots kept (older ones culled)",
     set_max_snapshots, 0},
    {"threshold", "1.0", "P (0..100)", "heap-tree entries below P percent are grouped",
     set_threshold, 0},
    {"peak_inaccuracy", "1.0", "P (0..100)",
     "how far (percent) the recorded massif peak may be below the true peak",
     set_peak_inaccuracy, 0},
    {"depth", "30", "N (1..200)", "frames kept per allocation stack",
     set_depth, 0},
    {"heap_admin", "8", "N (0..1024)",
     "bytes massif counts for each block besides its own, in mem_heap_extra_B and the time (Massif's --heap-admin)",
     set_heap_admin, 0},
    {"alloc_fn", NULL, "NAME",
     "massif's trees take function NAME (as the report names it) for an allocator, as malloc; give it again for more (Massif's --alloc-fn)",
     set_alloc_fn, 0},
    {"snapshot_signal", "SIGUSR1", "SIG|N|0",
     "signal that writes massif.out.%p.N and a live leak report; 0: none",
     set_snapshot_signal, 0},
    {"live_since", "start", "start|last",
     "live report on a snapshot signal: every live block, or only those allocated since the previous signal (leaks by age)",
     set_live_since, 0},
    {"sample_bytes", "0", "N (0..2^40)",
     "0: track every allocation; N: about one per N bytes (production mode)",
     set_sample_bytes, 0},
    {"unwind", "libunwind", "libunwind|fp",
     "stack capture: exact DWARF unwinding, or frame pointers (fastest)",
     set_unwind, 0},
    {"keep_debuginfo", "no", "yes|no",
     "yes: frames in objects the program dlclose'd are still named (Valgrind's --keep-debuginfo); no: ???, as Memcheck's default",
     set_keep_debuginfo, LP_OPT_BOOL},
    {"trace_children", "no", "yes|no",
     "yes: also profile programs started with exec (forked children always are)",
     set_trace_children, LP_OPT_BOOL},
    {"trace_children_skip", "", "PATTERN,...",
     "exec'd programs whose path matches a pattern (* and ?) run untraced",
     set_trace_children_skip, 0},
    {"trace_children_skip_by_arg", "", "PATTERN,...",
     "exec'd programs with an argument (argv[0] too) that matches a pattern run untraced",
     set_trace_children_skip_by_arg, 0},
    {"verbosity", "0", "N (0..10)",
     "1: list the used suppressions (as valgrind -s) and print Parent PID",
     set_verbosity, 0},
    {"quiet", "no", "yes|no",
     "print only the loss records (as valgrind -q)", set_quiet, LP_OPT_BOOL},
    {"freelist_vol", "20000000", "BYTES",
     "freed blocks remembered to recognise double frees (Memcheck's --freelist-vol)",
     set_freelist_vol, 0},
    {"quarantine", "no", "yes|no",
     "yes: those blocks also stay allocated until they leave the freelist, as under Memcheck, so a dangling pointer never meets a new block at the same address (slower, up to freelist_vol bytes more)",
     set_quarantine, LP_OPT_BOOL},
    {"keep_stacktraces", "alloc", "alloc|free|alloc-and-free|alloc-then-free|none",
     "alloc-and-free: heap errors also show where a block was freed (every free then captures a stack)",
     set_keep_stacktraces, 0},
    {"show_mismatched_frees", "yes", "yes|no",
     "no: a block released by the wrong call (free of new, ...) is not an error (Memcheck's option)",
     set_show_mismatched, LP_OPT_BOOL},
    {"freeres", "auto", "auto|always|never",
     "free the C runtime's buffers before the leak search: auto only when no other thread runs (else a copy of the process learns what would be freed), always: in every case, at the risk of a thread still in libc",
     set_freeres, 0},
    {"fault_inject", NULL, "open,write,rename,arena,freeres|none",
     "tests only: make our own file or memory operations fail, or the exit's freeres copy hang",
     set_fault_inject, LP_OPT_INTERNAL},
    {"exec_child", "no", "yes|no",
     "set for the programs a traced process execs", set_exec_child,
     LP_OPT_INTERNAL},
    {"origin", "env", "env|cmdline",
     "where the following options came from, for warnings", set_origin,
     LP_OPT_INTERNAL},
};
const size_t lp_noptions = LP_ARRAY_SIZE(lp_options);
