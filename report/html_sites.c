/* SPDX-License-Identifier: MIT */
/*
 * html_sites.c - the per-site sections of the HTML report
 * (html_sites.h).
 * Context: COLD.
 */
#include "report/html_sites.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame_sites.h"

#define TOP_ROWS 25
#define LEAK_ROWS 100 /* per kind */
/* A million sites would draw a million slivers: the page's flame graphs
 * leave out frames under one pixel (flamegraph.pl's default is 0.1). */
#define FLAME_MIN_WIDTH 1.0

static const char select_script[] =
    "<script>\n"
    "(function () {\n"
    "  var sel = document.getElementById('flame-cost');\n"
    "  if (!sel) return;\n"
    "  function show() {\n"
    "    [].forEach.call(document.querySelectorAll('div.flame'), function (d) {\n"
    "      d.hidden = d.getAttribute('data-cost') !== sel.value;\n"
    "    });\n"
    "    document.body.setAttribute('data-flame-cost', sel.value);\n"
    "  }\n"
    "  sel.addEventListener('change', show);\n"
    "  show();\n"
    "})();\n"
    "</script>\n";

void lp_html_sites_flames(FILE *out, const struct lp_sites *s,
                          const char *name)
{
    struct lp_flame_sites_prep *prep = lp_flame_sites_prepare(s);
    int c, first = -1;

    fputs("<h2>Flame graphs by cost</h2>\n<p>Cost: <select id=\"flame-cost\">",
          out);
    for (c = 0; c < LP_COST_COUNT; c++)
        if (s->has & LP_COST_BIT(c)) {
            fprintf(out, "<option value=\"%s\"%s>%s</option>", lp_cost_key[c],
                    first < 0 ? " selected" : "", lp_cost_title[c]);
            if (first < 0)
                first = c;
        }
    fputs("</select> Click a frame to zoom, Search (top right) highlights "
          "functions by regular expression.</p>\n", out);
    for (c = 0; c < LP_COST_COUNT; c++) {
        struct lp_flame *f;
        char title[512], a[32];

        if (!(s->has & LP_COST_BIT(c)))
            continue;
        f = prep ? lp_flame_sites_build(prep, (enum lp_cost)c) : NULL;
        fprintf(out, "<div class=\"flame\" data-cost=\"%s\"%s>\n",
                lp_cost_key[c], c == first ? "" : " hidden");
        if (!f) {
            fputs("<p>Out of memory.</p></div>\n", out);
            continue;
        }
        snprintf(title, sizeof(title), "%s: %s (%s %s)", lp_cost_title[c],
                 name, lp_html_sep(lp_flame_total(f), a, sizeof(a)),
                 lp_cost_unit[c]);
        title[0] = (char)(title[0] - 'a' + 'A');
        lp_flame_write_svg(out, f, title, lp_cost_unit[c], false,
                           FLAME_MIN_WIDTH);
        lp_flame_free(f);
        fputs("</div>\n", out);
    }
    lp_flame_sites_release(prep);
    fputs(select_script, out);
}

/* The k sites with the largest cost c, largest first (ties: site order). */
static size_t top_k(const struct lp_sites *s, enum lp_cost c, size_t k,
                    size_t *idx, size_t *nonzero, uint64_t *total)
{
    size_t i, n = 0, j;

    *nonzero = 0;
    *total = 0;
    for (i = 0; i < s->n; i++) {
        uint64_t v = s->v[i].cost[c];

        if (v == 0)
            continue;
        ++*nonzero;
        *total += v;
        if (n == k && v <= s->v[idx[n - 1]].cost[c])
            continue;
        j = n < k ? n++ : n - 1;
        while (j > 0 && s->v[idx[j - 1]].cost[c] < v) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    return n;
}

/* Innermost frame, then the whole stack under <details>. */
static void stack_cell(FILE *out, const struct lp_sites *s,
                       const struct lp_site *t)
{
    unsigned i;

    fputs("<td class=\"l\">", out);
    if (t->nframes == 0) {
        fputs("[no stack]</td>", out);
        return;
    }
    lp_html_esc(out, lp_site_frame(s, t, 0));
    if (t->nframes > 1) {
        fprintf(out, "<details><summary>%u frames</summary>", t->nframes);
        for (i = 1; i < t->nframes; i++) {
            fputs(i > 1 ? "<br>by " : "by ", out);
            lp_html_esc(out, lp_site_frame(s, t, i));
        }
        fputs("</details>", out);
    }
    fputs("</td>", out);
}

void lp_html_sites_tables(FILE *out, const struct lp_sites *s)
{
    static const struct {
        enum lp_cost c;
        const char *title;
    } tabs[] = {
        { LP_COST_CALLS, "Most allocation calls" },
        { LP_COST_ALLOCATED, "Most bytes allocated" },
        { LP_COST_TEMP, "Most temporary allocations" },
        { LP_COST_PEAK, "Peak consumers (live at the peak)" },
        { LP_COST_LEAKED, "Leaked (definitely and indirectly lost)" },
    };
    size_t idx[TOP_ROWS], t;

    fputs("<h2>Top allocation sites</h2>\n<p>Temporary: freed by the "
          "allocating thread before it allocated anything else "
          "(heaptrack's definition).</p>\n", out);
    for (t = 0; t < sizeof(tabs) / sizeof(tabs[0]); t++) {
        enum lp_cost c = tabs[t].c;
        size_t n, i, nonzero;
        uint64_t total;
        char a[32], b[32], d[32];

        if (!(s->has & LP_COST_BIT(c)))
            continue;
        n = top_k(s, c, TOP_ROWS, idx, &nonzero, &total);
        fprintf(out, "<h3>%s</h3>\n<table class=\"top\" data-cost=\"%s\">\n"
                "<thead><tr><th>#</th><th>%s</th><th>%%</th><th>calls</th>"
                "<th>bytes allocated</th><th>site</th></tr></thead>\n<tbody>\n",
                tabs[t].title, lp_cost_key[c],
                strcmp(lp_cost_unit[c], "bytes") ? lp_cost_title[c] : "bytes");
        for (i = 0; i < n; i++) {
            const struct lp_site *st = &s->v[idx[i]];

            fprintf(out, "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td>"
                    "<td class=\"n\">%.2f%%</td><td class=\"n\">%s</td>"
                    "<td class=\"n\">%s</td>",
                    i + 1, lp_html_sep(st->cost[c], a, sizeof(a)),
                    total ? 100.0 * (double)st->cost[c] / (double)total : 0.0,
                    lp_html_sep(st->cost[LP_COST_CALLS], b, sizeof(b)),
                    lp_html_sep(st->cost[LP_COST_ALLOCATED], d, sizeof(d)));
            stack_cell(out, s, st);
            fputs("</tr>\n", out);
        }
        if (n == 0)
            fputs("<tr><td colspan=\"6\">none</td></tr>\n", out);
        fputs("</tbody>\n</table>\n", out);
        if (nonzero > n)
            fprintf(out, "<p>%zu more sites not shown.</p>\n", nonzero - n);
    }
}


struct leak_row {
    size_t site;
    int kind;
};

/* Memcheck's words (json.c has the same; not linked into leakprint). */
static const char *const kind_text[LP_KIND_COUNT] = {
    [LP_KIND_REACHABLE] = "still reachable",
    [LP_KIND_POSSIBLE] = "possibly lost",
    [LP_KIND_INDIRECT] = "indirectly lost",
    [LP_KIND_DEFINITE] = "definitely lost",
};

static const struct lp_sites *sort_sites; /* for qsort's comparator */

static int cmp_row(const void *a, const void *b)
{
    const struct leak_row *x = a, *y = b;
    uint64_t bx = sort_sites->v[x->site].leak_bytes[x->kind];
    uint64_t by = sort_sites->v[y->site].leak_bytes[y->kind];

    if (x->kind != y->kind)
        return x->kind > y->kind ? -1 : 1; /* definite first */
    if (bx != by)
        return bx > by ? -1 : 1;
    return x->site < y->site ? -1 : x->site > y->site;
}

void lp_html_sites_leaks(FILE *out, const struct lp_sites *s)
{
    struct leak_row *rows;
    size_t n = 0, i, shown[LP_KIND_COUNT] = { 0 };
    size_t total[LP_KIND_COUNT] = { 0 };
    int k;

    fputs("<h2>Leaks by kind</h2>\n", out);
    if (!s->has_leaks) {
        fputs("<p>No leak search in this profile.</p>\n", out);
        return;
    }
    for (i = 0; i < s->n; i++)
        for (k = 0; k < LP_KIND_COUNT; k++)
            n += s->v[i].leak_blocks[k] > 0;
    rows = malloc(sizeof(*rows) * (n + 1));
    if (!rows) {
        fputs("<p>Out of memory.</p>\n", out);
        return;
    }
    n = 0;
    for (i = 0; i < s->n; i++)
        for (k = 0; k < LP_KIND_COUNT; k++)
            if (s->v[i].leak_blocks[k] > 0) {
                rows[n].site = i;
                rows[n++].kind = k;
                total[k]++;
            }
    sort_sites = s;
    qsort(rows, n, sizeof(*rows), cmp_row);
    fputs("<p>Ages are massif's time: bytes allocated and freed since the "
          "start when the block was allocated.</p>\n"
          "<table id=\"leaks\">\n<thead><tr><th>kind</th><th>bytes</th>"
          "<th>blocks</th><th>oldest block at</th><th>newest block at</th>"
          "<th>allocation stack</th></tr></thead>\n<tbody>\n", out);
    for (i = 0; i < n; i++) {
        const struct lp_site *t = &s->v[rows[i].site];
        int kind = rows[i].kind;
        char a[32], b[32], c[32], d[32];
        unsigned f;

        if (shown[kind]++ >= LEAK_ROWS)
            continue;
        fprintf(out, "<tr data-kind=\"%s\"><td>%s</td><td class=\"n\">%s</td>"
                "<td class=\"n\">%s</td><td class=\"n\">%s B</td>"
                "<td class=\"n\">%s B</td><td class=\"l\">",
                kind_text[kind],
                kind_text[kind],
                lp_html_sep(t->leak_bytes[kind], a, sizeof(a)),
                lp_html_sep(t->leak_blocks[kind], b, sizeof(b)),
                lp_html_sep(t->oldest, c, sizeof(c)),
                lp_html_sep(t->newest, d, sizeof(d)));
        for (f = 0; f < t->nframes; f++) {
            fputs(f ? "<br>by " : "at ", out);
            lp_html_esc(out, lp_site_frame(s, t, f));
        }
        fputs("</td></tr>\n", out);
    }
    if (n == 0)
        fputs("<tr><td colspan=\"6\">No leaks: all heap blocks were freed."
              "</td></tr>\n", out);
    fputs("</tbody>\n</table>\n", out);
    for (k = LP_KIND_COUNT - 1; k >= 0; k--)
        if (total[k] > LEAK_ROWS)
            fprintf(out, "<p>%zu more %s records not shown.</p>\n",
                    total[k] - LEAK_ROWS, kind_text[k]);
    free(rows);
}
