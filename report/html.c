/* SPDX-License-Identifier: MIT */
/*
 * html.c - the self-contained HTML report of a massif file (html.h).
 * Context: COLD.
 */
#include "report/html.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"
#include "report/html_sites.h"
#include "report/massif.h"

#define CHART_W 1200
#define CHART_H 320
#define CHART_L 90 /* left margin: the y axis labels */
#define CHART_R 20
#define CHART_T 20
#define CHART_B 40
#define TOP_ROWS 25
/* Past this many snapshots the chart draws every k-th one (and the peak
 * and the last), so a 100 MB profile still gives a page that a browser
 * opens quickly; the figures of every drawn point are exact. */
#define CHART_POINTS 1500

void lp_html_esc(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            fputc((unsigned char)*s < 0x20 && *s != '\t' ? '?' : *s, out);
        }
    }
}

const char *lp_html_sep(uint64_t n, char *buf, size_t len)
{
    char tmp[32];
    int d = snprintf(tmp, sizeof(tmp), "%" PRIu64, n), i, o = 0;

    for (i = 0; i < d && (size_t)o + 2 < len; i++) {
        if (i > 0 && (d - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
    return buf;
}

static const char head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width\">\n"
    "<script>\n"
    "window.onerror = function (msg, src, line, col) {\n"
    "  var t = String(msg) + ' (line ' + line + ':' + col + ')';\n"
    "  document.documentElement.setAttribute('data-js-error', t);\n"
    "  var e = document.getElementById('js-errors');\n"
    "  if (e) { e.hidden = false; e.textContent += 'JavaScript error: ' + t + '\\n'; }\n"
    "};\n"
    "</script>\n"
    "<style>\n"
    "body { font-family: Verdana, sans-serif; font-size: 13px; margin: 16px; color: #222; }\n"
    "h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }\n"
    "table { border-collapse: collapse; } td, th { padding: 3px 8px; border-bottom: 1px solid #ddd; }\n"
    "td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }\n"
    "td.l { font-family: monospace; } h3 { font-size: 14px; margin-top: 20px; }\n"
    "summary { cursor: pointer; color: #2f5597; }\n"
    "#js-errors { color: #b00; white-space: pre-wrap; }\n"
    ".chart .snap { cursor: pointer; } .chart .snap:hover { stroke: #000; stroke-width: 2; }\n"
    ".chart text { font-size: 11px; fill: #444; }\n"
    "#chart-detail { min-height: 1.4em; font-family: monospace; }\n"
    "dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; }\n"
    "dt { font-weight: bold; } dd { margin: 0; font-family: monospace; }\n"
    "</style>\n";

static bool drawn(size_t i, size_t n, long peak)
{
    size_t k = n / CHART_POINTS + 1;

    return i % k == 0 || (long)i == peak || i + 1 == n;
}

static void chart(FILE *out, const struct lp_massif *m, long peak)
{
    size_t n = lp_massif_count(m), i;
    int64_t t0 = n ? lp_massif_snap_time(m, 0) : 0, t1 = t0;
    uint64_t ymax = 1;
    double pw = CHART_W - CHART_L - CHART_R, ph = CHART_H - CHART_T - CHART_B;
    char a[32], b[32], c[32], d[32];

    for (i = 0; i < n; i++) {
        int64_t t = lp_massif_snap_time(m, i);

        if (t < t0)
            t0 = t;
        if (t > t1)
            t1 = t;
        if (lp_massif_snap_total(m, i) > ymax)
            ymax = lp_massif_snap_total(m, i);
    }
#define X(i)                                                                 \
    (CHART_L + (t1 > t0 ? pw * (double)(lp_massif_snap_time(m, i) - t0) /    \
                              (double)(t1 - t0)                              \
                        : (n > 1 ? pw * (double)(i) / (double)(n - 1) : 0)))
#define Y(v) (CHART_T + ph - ph * (double)(v) / (double)ymax)
    fprintf(out,
            "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d "
            "%d\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
            "aria-label=\"heap over time\">\n"
            "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
            "fill=\"#fbfbfb\"/>\n",
            CHART_W, CHART_H, CHART_W, CHART_H);
    /* Axes and labels: the y axis at 0, half and the maximum. */
    for (i = 0; i <= 2; i++) {
        uint64_t v = ymax / 2 * i + (i == 2 ? ymax % 2 : 0);

        fprintf(out,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                "stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
                "text-anchor=\"end\">%s B</text>\n",
                CHART_L, Y(v), CHART_W - CHART_R, Y(v), CHART_L - 6,
                Y(v) + 4, lp_html_sep(v, a, sizeof(a)));
    }
    fprintf(out,
            "<text x=\"%d\" y=\"%d\">%s</text><text x=\"%d\" y=\"%d\" "
            "text-anchor=\"end\">%s %s</text>\n",
            CHART_L, CHART_H - 12, lp_html_sep((uint64_t)(t0 > 0 ? t0 : 0), a, sizeof(a)),
            CHART_W - CHART_R, CHART_H - 12,
            lp_html_sep((uint64_t)(t1 > 0 ? t1 : 0), b, sizeof(b)),
            lp_massif_time_unit(m) ? lp_massif_time_unit(m) : "");
    /* Total (useful + extra + stacks) as an area, useful heap as a line. */
    if (n > 0) {
        fprintf(out, "<polygon fill=\"#f4b183\" stroke=\"none\" points=\"%.1f,%.1f",
                X(0), Y(0));
        for (i = 0; i < n; i++)
            if (drawn(i, n, peak))
                fprintf(out, " %.1f,%.1f", X(i),
                        Y(lp_massif_snap_total(m, i)));
        fprintf(out, " %.1f,%.1f\"/>\n<polyline fill=\"none\" "
                "stroke=\"#c55a11\" stroke-width=\"1.5\" points=\"",
                X(n - 1), Y(0));
        for (i = 0; i < n; i++)
            if (drawn(i, n, peak))
                fprintf(out, "%s%.1f,%.1f", i ? " " : "", X(i),
                        Y(lp_massif_snap_heap(m, i)));
        fputs("\"/>\n", out);
    }
    for (i = 0; i < n; i++) {
        enum lp_massif_kind k = lp_massif_snap_kind(m, i);
        bool is_peak = (long)i == peak;

        if (!drawn(i, n, peak))
            continue;
        fprintf(out,
                "<circle class=\"snap\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" "
                "fill=\"%s\" data-snap=\"%zu\"%s><title>snapshot %zu%s: "
                "time %s %s, useful heap %s B + extra %s B + stacks %s B = "
                "%s B</title></circle>\n",
                X(i), Y(lp_massif_snap_total(m, i)),
                is_peak ? 7 : k != LP_MASSIF_EMPTY ? 5 : 3,
                is_peak ? "#d00" : k != LP_MASSIF_EMPTY ? "#2f5597" : "#888",
                i, is_peak ? " data-peak=\"1\"" : "", i,
                is_peak ? " (peak)" : k != LP_MASSIF_EMPTY ? " (detailed)" : "",
                lp_massif_snap_time_text(m, i), lp_massif_time_unit(m),
                lp_html_sep(lp_massif_snap_heap(m, i), a, sizeof(a)),
                lp_html_sep(lp_massif_snap_extra(m, i), b, sizeof(b)),
                lp_html_sep(lp_massif_snap_stacks(m, i), c, sizeof(c)),
                lp_html_sep(lp_massif_snap_total(m, i), d, sizeof(d)));
    }
    if (peak >= 0)
        fprintf(out,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                "fill=\"#d00\">peak</text>\n",
                X((size_t)peak), Y(lp_massif_snap_total(m, (size_t)peak)) - 10);
    fputs("</svg>\n", out);
#undef X
#undef Y
}

struct row {
    const struct lp_massif_node *n;
};

/* The peak's consumers: the tree's top-level entries (allocation sites),
 * largest first as massif sorts them, each with its biggest caller path. */
static void top_table(FILE *out, const struct lp_massif *m, size_t s)
{
    const struct lp_massif_node *root = lp_massif_snap_tree(m, s), *c;
    uint64_t total = lp_massif_snap_total(m, s);
    char a[32];
    int rows = 0;

    fputs("<table class=\"top\">\n<thead><tr><th>#</th><th>bytes</th>"
          "<th>% of heap</th><th>allocation site, then its largest caller "
          "path</th></tr></thead>\n<tbody>\n", out);
    for (c = root ? lp_massif_node_first_child(root) : NULL; c && rows < TOP_ROWS;
         c = lp_massif_node_next_sibling(c)) {
        const struct lp_massif_node *p;

        rows++;
        fprintf(out, "<tr><td class=\"n\">%d</td><td class=\"n\">%s</td>"
                "<td class=\"n\">%.2f%%</td><td class=\"l\">",
                rows, lp_html_sep(lp_massif_node_bytes(c), a, sizeof(a)),
                total ? 100.0 * (double)lp_massif_node_bytes(c) / (double)total
                      : 0.0);
        lp_html_esc(out, lp_massif_node_label(c));
        for (p = lp_massif_node_first_child(c); p;
             p = lp_massif_node_first_child(p)) {
            fputs("<br>&nbsp;&nbsp;by ", out);
            lp_html_esc(out, lp_massif_node_label(p));
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
}

static const char tail_script[] =
    "<script>\n"
    "(function () {\n"
    "  var d = document.getElementById('chart-detail');\n"
    "  [].forEach.call(document.querySelectorAll('.chart .snap'), function (c) {\n"
    "    c.addEventListener('mouseover', function () {\n"
    "      d.textContent = c.querySelector('title').textContent;\n"
    "      d.setAttribute('data-snap', c.getAttribute('data-snap'));\n"
    "    });\n"
    "  });\n"
    "  var ok = !document.documentElement.hasAttribute('data-js-error');\n"
    "  [].forEach.call(document.querySelectorAll('svg.flamegraph'), function (s) {\n"
    "    if (s.getAttribute('data-js-ok') !== '1') {\n"
    "      ok = false;\n"
    "      window.onerror('flame graph script: ' + (s.getAttribute('data-js-error') || 'did not run'), '', 0, 0);\n"
    "    }\n"
    "  });\n"
    "  if (ok) document.body.setAttribute('data-js-ok', '1');\n"
    "})();\n"
    "</script>\n";

static void header(FILE *out, const char *name, const char *cmd,
                   const char *desc)
{
    fputs(head, out);
    fputs("<title>leakprof heap report: ", out);
    lp_html_esc(out, name);
    fputs("</title>\n</head>\n<body>\n<div id=\"js-errors\" hidden></div>\n"
          "<h1>Heap profile: ", out);
    lp_html_esc(out, name);
    fputs("</h1>\n<dl>\n<dt>command</dt><dd>", out);
    lp_html_esc(out, cmd ? cmd : "(unknown)");
    fputs("</dd>\n<dt>options</dt><dd>", out);
    lp_html_esc(out, desc ? desc : "(none)");
    fputs("</dd>\n", out);
}

static void sites_sections(FILE *out, const struct lp_sites *sites,
                           const char *name)
{
    lp_html_sites_flames(out, sites, name);
    lp_html_sites_leaks(out, sites);
    lp_html_sites_tables(out, sites);
}

int lp_html_report_sites(FILE *out, const struct lp_massif *m,
                         const char *name, long snap,
                         const struct lp_sites *sites, char *err,
                         size_t errlen)
{
    long s, peak;
    char a[32], b[32];
    int rc;

    if (!m) {
        header(out, name, sites->command, NULL);
        fprintf(out, "<dt>sites</dt><dd>%zu</dd>\n</dl>\n", sites->n);
        sites_sections(out, sites, name);
        fputs(tail_script, out);
        fputs("</body>\n</html>\n", out);
        return ferror(out) ? -EIO : 0;
    }
    s = snap >= 0 ? snap : lp_flame_default_snapshot(m);
    peak = lp_massif_peak_index(m);
    if (s < 0 || (size_t)s >= lp_massif_count(m)) {
        snprintf(err, errlen, "%s: no snapshot %ld", name, s);
        return -EINVAL;
    }
    header(out, name, lp_massif_cmd(m), lp_massif_desc(m));
    fprintf(out, "<dt>snapshots</dt><dd>%zu</dd>\n", lp_massif_count(m));
    if (peak >= 0)
        fprintf(out,
                "<dt>peak</dt><dd>snapshot %ld: %s bytes (useful heap %s "
                "bytes)</dd>\n",
                peak, lp_html_sep(lp_massif_snap_total(m, (size_t)peak), a, sizeof(a)),
                lp_html_sep(lp_massif_snap_heap(m, (size_t)peak), b, sizeof(b)));
    fputs("</dl>\n<h2>Heap over time</h2>\n", out);
    chart(out, m, peak);
    fputs("<div id=\"chart-detail\">Point at a snapshot for its figures; "
          "the red one is the peak.</div>\n", out);
    if (sites) {
        sites_sections(out, sites, name);
    } else if (lp_massif_snap_tree(m, (size_t)s)) {
        fprintf(out, "<h2>Flame graph of snapshot %ld%s</h2>\n<p>Click a "
                "frame to zoom, Search (top right) highlights functions by "
                "regular expression.</p>\n",
                s, s == peak ? " (the peak)" : "");
        rc = lp_flame_svg_write(out, m, name, s, false, err, errlen);
        if (rc)
            return rc;
        fprintf(out, "<h2>Top consumers at snapshot %ld</h2>\n", s);
        top_table(out, m, (size_t)s);
    } else {
        fprintf(out, "<p>Snapshot %ld has no heap tree.</p>\n", s);
    }
    fputs(tail_script, out);
    fputs("</body>\n</html>\n", out);
    return ferror(out) ? -EIO : 0;
}

int lp_html_report(FILE *out, const struct lp_massif *m, const char *name,
                   long snap, char *err, size_t errlen)
{
    return lp_html_report_sites(out, m, name, snap, NULL, err, errlen);
}
