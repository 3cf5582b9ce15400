/* SPDX-License-Identifier: MIT */
/*
 * msprint.c - ms_print's text layout for a parsed massif.out.
 * Context: COLD.
 *
 * ms_print prints values that come straight from the file as text (the
 * snapshot number, time, heap, extra, stacks), and only the total as a
 * number, so this file does the same with the *_text accessors. Tree
 * percentages are (100 * bytes) computed in integers and then divided as
 * doubles, in that order, to round exactly as ms_print does.
 */
#include "tools/msprint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/massif.h"
#include "tools/chart.h"

#define DASHES80 \
    "--------------------------------------------------------------------------------"

int lp_msprint_parse_threshold(const char *text, double *out)
{
    size_t n = strspn(text, "0123456789.");
    double v;

    if (n == 0 || (text[n] != '\0' && strcmp(text + n, "%") != 0))
        return -EINVAL;
    /* Perl's numeric reading of "1.2.3" is 1.2 and of "." is 0, which is
     * what strtod gives on the digits-and-dots prefix. */
    v = strtod(text, NULL);
    if (!(v >= 0 && v <= 100))
        return -EINVAL;
    *out = v;
    return 0;
}

static double percent(uint64_t bytes, uint64_t total)
{
    double hundred_b = bytes <= UINT64_MAX / 100 ? (double)(bytes * 100)
                                                 : (double)bytes * 100.0;

    return hundred_b / (double)total;
}

struct tree_ctx {
    FILE *out;
    const struct lp_msprint_opts *o;
    uint64_t total;
    char *prefix;     /* shared prefix buffer, 2 chars per level */
};

/* Returns true if n was significant; otherwise adds its bytes to *insig. */
static bool print_node(struct tree_ctx *c, const struct lp_massif_node *n,
                       bool is_top, size_t plen, const char *midfix,
                       const char *arrow)
{
    char num[96];
    uint64_t bytes = lp_massif_node_bytes(n), insig_sum = 0;
    size_t insig_n = 0, p2len;
    double perc = c->total ? percent(bytes, c->total) : 0;
    bool sig = is_top || c->o->threshold == 0 ||
               (c->total != 0 && perc >= c->o->threshold);
    char bytes_text[64];

    if (sig) {
        lp_massif_node_bytes_text(n, bytes_text, sizeof(bytes_text));
        fwrite(c->prefix, 1, plen, c->out);
        fprintf(c->out, "%s%05.2f%% (%sB)", arrow, perc,
                lp_commify(bytes_text, num, sizeof(num)));
        fputs(lp_massif_node_details(n), c->out);
        fputc('\n', c->out);
    }
    memcpy(c->prefix + plen, midfix, strlen(midfix));
    p2len = plen + strlen(midfix);
    for (const struct lp_massif_node *ch = lp_massif_node_first_child(n); ch;
         ch = lp_massif_node_next_sibling(ch)) {
        bool last = lp_massif_node_next_sibling(ch) == NULL;

        if (!print_node(c, ch, false, p2len, last ? "  " : "| ", "->")) {
            insig_n++;
            insig_sum += lp_massif_node_bytes(ch);
        }
        /* A child overwrote the shared buffer past p2len; ours is intact. */
    }
    if (!sig)
        return false;
    if (insig_n > 0) {
        snprintf(bytes_text, sizeof(bytes_text), "%" PRIu64, insig_sum);
        fwrite(c->prefix, 1, p2len, c->out);
        fprintf(c->out,
                "->%05.2f%% (%sB) in %zu+ places, all below ms_print's "
                "threshold (%05.2f%%)\n",
                c->total ? percent(insig_sum, c->total) : 0.0,
                lp_commify(bytes_text, num, sizeof(num)), insig_n,
                c->o->threshold);
        fwrite(c->prefix, 1, p2len, c->out);
        fputc('\n', c->out);
    } else if (lp_massif_node_nchildren(n) == 0) {
        fwrite(c->prefix, 1, p2len, c->out);
        fputc('\n', c->out);
    }
    return true;
}

/* fprintf("%*s") of commify(text), for texts of any length. */
static void put_commified(FILE *out, int width, const char *text)
{
    size_t len = strlen(text), digits = strspn(text, "0123456789");
    size_t commas = digits ? (digits - 1) / 3 : 0;

    for (size_t w = len + commas; w < (size_t)width; w++)
        fputc(' ', out);
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && i < digits && (digits - i) % 3 == 0)
            fputc(',', out);
        fputc(text[i], out);
    }
}

static void table_header(FILE *out, const char *tu)
{
    char t[64];

    snprintf(t, sizeof(t), "time(%s)", tu);
    fprintf(out, "%s\n%3s %14s %16s %16s %13s %12s\n%s\n", DASHES80, "n", t,
            "total(B)", "useful-heap(B)", "extra-heap(B)", "stacks(B)",
            DASHES80);
}

static int fail(char *err, size_t errlen, const char *msg)
{
    if (errlen)
        snprintf(err, errlen, "%s", msg);
    return -EINVAL;
}

int lp_msprint(FILE *out, const struct lp_massif *m,
               const struct lp_msprint_opts *o, char *err, size_t errlen)
{
    size_t n = lp_massif_count(m);
    long peak_i = lp_massif_peak_index(m);
    uint64_t peak_num = 0;
    bool have_peak = peak_i >= 0, first = true;
    const char *tu = lp_massif_time_unit(m);
    struct lp_chart_point *pts;
    struct tree_ctx tc = { .out = out, .o = o };
    int rc;

    fprintf(out, "%s\nCommand:            %s\nMassif arguments:  %s", DASHES80,
            lp_massif_cmd(m), lp_massif_desc_raw(m));
    fputs("ms_print arguments:", out);
    for (int i = 0; i < o->argc; i++)
        fprintf(out, " %s", o->argv[i]);
    fprintf(out, "\n%s\n\n\n", DASHES80);
    if (n == 0)
        return fail(err, errlen, "no snapshots in file");
    if (strcmp(tu, "i") && strcmp(tu, "ms") && strcmp(tu, "B"))
        return fail(err, errlen, "bad time_unit (want i, ms or B)");
    if (have_peak)
        peak_num = lp_massif_snap_number(m, (size_t)peak_i);

    pts = malloc(n * sizeof(*pts));
    if (pts == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        pts[i].time = lp_massif_snap_time(m, i);
        pts[i].total = lp_massif_snap_total(m, i);
        pts[i].bar = (have_peak && i == peak_num) ? '#'
                     : lp_massif_snap_kind(m, i) != LP_MASSIF_EMPTY ? '@'
                                                                     : ':';
    }
    rc = lp_chart_print(out, pts, n, o->width, o->height, tu);
    free(pts);
    if (rc == -EINVAL)
        return fail(err, errlen, "bad time_unit or negative end time");
    if (rc)
        return rc;

    fprintf(out, "\nNumber of snapshots: %zu\n Detailed snapshots: [", n);
    for (size_t i = 0; i < n; i++) {
        if (lp_massif_snap_kind(m, i) == LP_MASSIF_EMPTY)
            continue;
        fprintf(out, "%s%zu%s", first ? "" : ", ", i,
                have_peak && i == peak_num ? " (peak)" : "");
        first = false;
    }
    fputs("]\n\n", out);

    tc.prefix = malloc(2 * (LP_MASSIF_MAX_DEPTH + 2));
    if (tc.prefix == NULL)
        return -ENOMEM;
    table_header(out, tu);
    for (size_t i = 0; i < n; i++) {
        const struct lp_massif_node *tree = lp_massif_snap_tree(m, i);
        char tot[32];

        tc.total = lp_massif_snap_total(m, i);
        snprintf(tot, sizeof(tot), "%" PRIu64, tc.total);
        fprintf(out, "%3s ", lp_massif_snap_number_text(m, i));
        put_commified(out, 14, lp_massif_snap_time_text(m, i));
        fputc(' ', out);
        put_commified(out, 16, tot);
        fputc(' ', out);
        put_commified(out, 16, lp_massif_snap_heap_text(m, i));
        fputc(' ', out);
        put_commified(out, 13, lp_massif_snap_extra_text(m, i));
        fputc(' ', out);
        put_commified(out, 12, lp_massif_snap_stacks_text(m, i));
        fputc('\n', out);
        if (tree == NULL)
            continue;
        print_node(&tc, tree, true, 0, "", "");
        if (i + 1 < n)
            table_header(out, tu);
    }
    free(tc.prefix);
    return 0;
}
