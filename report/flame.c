/* SPDX-License-Identifier: MIT */
/*
 * flame.c - folded stacks and SVG flame graphs from a massif heap tree.
 * Context: COLD.
 *
 * The massif tree is inverted (root = allocation functions, children =
 * their callers), so a flame-graph stack is a tree path read from the node
 * up to the root's child. We build a second, merged tree keyed by frame
 * name with the outermost frame at the top, then print it either as
 * collapsed stacks or as nested rectangles.
 */
#include "report/flame.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame_script.h"
#include "report/massif.h"

struct fnode {
    char *name;
    uint64_t self;
    uint64_t total;
    struct fnode **kids;
    size_t nkids, capkids;
};

static void fnode_free(struct fnode *f)
{
    if (f == NULL)
        return;
    for (size_t i = 0; i < f->nkids; i++)
        fnode_free(f->kids[i]);
    free(f->kids);
    free(f->name);
    free(f);
}

/* The frame text we show: no "0xADDR: " and, unless the function is
 * unknown, no " (file:line)" / " (in obj)" suffix. */
char *lp_flame_frame_name(const char *label)
{
    const char *p = label, *end;
    char *s;

    if (p[0] == '0' && p[1] == 'x') {
        const char *q = p + 2;

        while ((*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'F') ||
               (*q >= 'a' && *q <= 'f'))
            q++;
        if (q[0] == ':' && q[1] == ' ')
            p = q + 2;
    }
    end = p + strlen(p);
    if (strncmp(p, "???", 3) != 0 && end > p && end[-1] == ')') {
        /* The location is the last " (" before the final ')'. */
        for (const char *q = end - 1; q > p; q--) {
            if (q[0] == '(' && q[-1] == ' ') {
                end = q - 1;
                break;
            }
        }
    }
    s = strndup(p, (size_t)(end - p));
    if (s != NULL)
        for (char *c = s; *c; c++)
            if (*c == ';')
                *c = ':';
    return s;
}

static struct fnode *fnode_new(const char *name)
{
    struct fnode *f = calloc(1, sizeof(*f));

    if (f == NULL)
        return NULL;
    f->name = strdup(name);
    if (f->name == NULL) {
        free(f);
        return NULL;
    }
    return f;
}

/* Append a new child named name (no search). */
static struct fnode *fnode_append(struct fnode *f, const char *name)
{
    struct fnode *c;

    if (f->nkids == f->capkids) {
        size_t cap = f->capkids ? f->capkids * 2 : 4;
        struct fnode **k = realloc(f->kids, cap * sizeof(*k));

        if (k == NULL)
            return NULL;
        f->kids = k;
        f->capkids = cap;
    }
    c = fnode_new(name);
    if (c != NULL)
        f->kids[f->nkids++] = c;
    return c;
}

static struct fnode *fnode_child(struct fnode *f, const char *name)
{

    /* Stacks often come in path order: try the newest child first. */
    if (f->nkids && strcmp(f->kids[f->nkids - 1]->name, name) == 0)
        return f->kids[f->nkids - 1];
    for (size_t i = 0; i < f->nkids; i++)
        if (strcmp(f->kids[i]->name, name) == 0)
            return f->kids[i];
    return fnode_append(f, name);
}

struct builder {
    struct fnode *root;
    char **path; /* frame names, path[0] = innermost */
    int err;
};

static void add_stack(struct builder *b, int depth, uint64_t bytes)
{
    struct fnode *f = b->root;

    for (int i = depth - 1; i >= 0 && f != NULL; i--)
        f = fnode_child(f, b->path[i]);
    if (f == NULL) {
        b->err = -ENOMEM;
        return;
    }
    f->self += bytes;
}

/* massif's aggregate leaves: "in 1 place, below massif's threshold (T)"
 * and "in K places, all below massif's threshold (T)". */
static bool is_aggregate(const struct lp_massif_node *n)
{
    const char *l = lp_massif_node_label(n);

    return strncmp(l, "in ", 3) == 0 &&
           strstr(l, "below massif's threshold") != NULL &&
           lp_massif_node_first_child(n) == NULL;
}

/*
 * An aggregate stands for callers of its parent that massif did not keep:
 * frames further out than the parent, unknown. Its bytes go to its
 * parent's stack, which then starts at the parent (a truncated stack, as
 * perf shows one), instead of under a made-up outermost frame named "in
 * K places"; below the tree's root, the parent is the allocation
 * functions themselves.
 */
static void add_aggregate(struct builder *b, int depth, uint64_t bytes)
{
    static char alloc_fns[] = "(heap allocation functions)";

    if (depth > 1) {
        add_stack(b, depth - 1, bytes);
    } else {
        b->path[0] = alloc_fns;
        add_stack(b, 1, bytes);
        b->path[0] = NULL;
    }
}

static void walk(struct builder *b, const struct lp_massif_node *n, int depth)
{
    uint64_t kids = 0, self;

    if (depth > 0 && is_aggregate(n)) {
        add_aggregate(b, depth, lp_massif_node_bytes(n));
        return;
    }
    if (depth > 0) {
        b->path[depth - 1] = lp_flame_frame_name(lp_massif_node_label(n));
        if (b->path[depth - 1] == NULL) {
            b->err = -ENOMEM;
            return;
        }
    }
    for (const struct lp_massif_node *c = lp_massif_node_first_child(n); c;
         c = lp_massif_node_next_sibling(c)) {
        kids += lp_massif_node_bytes(c);
        if (b->err == 0)
            walk(b, c, depth + 1);
    }
    self = lp_massif_node_bytes(n);
    self = self > kids ? self - kids : 0;
    if (self > 0 && b->err == 0) {
        if (depth == 0) {
            static char nostack[] = "[no stack]";

            b->path[0] = nostack;
            add_stack(b, 1, self);
            b->path[0] = NULL;
        } else {
            add_stack(b, depth, self);
        }
    }
    if (depth > 0) {
        free(b->path[depth - 1]);
        b->path[depth - 1] = NULL;
    }
}

static int cmp_fnode(const void *a, const void *b)
{
    return strcmp((*(struct fnode *const *)a)->name,
                  (*(struct fnode *const *)b)->name);
}

static uint64_t finish_tree(struct fnode *f, int depth, int *maxdepth)
{
    uint64_t t = f->self;

    if (depth > *maxdepth)
        *maxdepth = depth;
    if (f->nkids > 1)
        qsort(f->kids, f->nkids, sizeof(*f->kids), cmp_fnode);
    for (size_t i = 0; i < f->nkids; i++)
        t += finish_tree(f->kids[i], depth + 1, maxdepth);
    f->total = t;
    return t;
}

long lp_flame_default_snapshot(const struct lp_massif *m)
{
    size_t n = lp_massif_count(m), i;

    if (lp_massif_peak_index(m) >= 0)
        return lp_massif_peak_index(m);
    for (i = n; i-- > 0;)
        if (lp_massif_snap_kind(m, i) != LP_MASSIF_EMPTY)
            return (long)i;
    return n ? (long)n - 1 : -1;
}

static int pick(const struct lp_massif *m, const char *name, long snap,
                char *err, size_t errlen)
{
    if (snap < 0)
        snap = lp_flame_default_snapshot(m);
    if (snap < 0 || (size_t)snap >= lp_massif_count(m)) {
        snprintf(err, errlen, "%s: no snapshot %ld", name, snap);
        return -1;
    }
    if (lp_massif_snap_tree(m, (size_t)snap) == NULL) {
        snprintf(err, errlen,
                 "%s: snapshot %ld has no heap tree (pick a detailed one "
                 "with --snapshot=N)",
                 name, snap);
        return -1;
    }
    return (int)snap;
}

static int build(const struct lp_massif *m, long snap, struct fnode **out,
                 int *maxdepth)
{
    struct builder b = { 0 };

    b.root = fnode_new("all");
    b.path = calloc(LP_MASSIF_MAX_DEPTH + 2, sizeof(*b.path));
    if (b.root == NULL || b.path == NULL) {
        fnode_free(b.root);
        free(b.path);
        return -ENOMEM;
    }
    walk(&b, lp_massif_snap_tree(m, (size_t)snap), 0);
    free(b.path);
    if (b.err) {
        fnode_free(b.root);
        return b.err;
    }
    *maxdepth = 0;
    finish_tree(b.root, 0, maxdepth);
    *out = b.root;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Folded                                                              */

struct strbuf {
    char *s;
    size_t len, cap;
};

static int sb_add(struct strbuf *sb, const char *s, size_t n)
{
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 256;
        char *p;

        while (cap < sb->len + n + 1)
            cap *= 2;
        p = realloc(sb->s, cap);
        if (p == NULL)
            return -ENOMEM;
        sb->s = p;
        sb->cap = cap;
    }
    memcpy(sb->s + sb->len, s, n);
    sb->len += n;
    sb->s[sb->len] = '\0';
    return 0;
}

static int print_folded(FILE *out, const struct fnode *f, struct strbuf *sb)
{
    size_t keep = sb->len;

    if (sb->len && sb_add(sb, ";", 1))
        return -ENOMEM;
    if (sb_add(sb, f->name, strlen(f->name)))
        return -ENOMEM;
    if (f->self > 0)
        fprintf(out, "%s %" PRIu64 "\n", sb->s, f->self);
    for (size_t i = 0; i < f->nkids; i++)
        if (print_folded(out, f->kids[i], sb))
            return -ENOMEM;
    sb->len = keep;
    if (sb->s)
        sb->s[keep] = '\0';
    return 0;
}

int lp_flame_folded(FILE *out, const struct lp_massif *m, const char *name,
                    long snap, char *err, size_t errlen)
{
    struct fnode *root;
    struct strbuf sb = { 0 };
    int s = pick(m, name, snap, err, errlen), maxdepth, rc = 0;

    if (s < 0)
        return -EINVAL;
    if (build(m, s, &root, &maxdepth)) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (size_t i = 0; i < root->nkids && rc == 0; i++)
        rc = print_folded(out, root->kids[i], &sb);
    if (rc)
        snprintf(err, errlen, "out of memory");
    free(sb.s);
    fnode_free(root);
    return rc;
}

/* ------------------------------------------------------------------ */
/* SVG                                                                 */

#define SVG_WIDTH 1200
#define SVG_PAD 10
#define FRAME_H 16
#define CHAR_W 7.0

static void xml_escape(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];

        switch (c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            /* Control characters are not allowed in XML 1.0. */
            fputc(c < 0x20 && c != '\t' ? '?' : c, out);
        }
    }
}

/* Warm colours, stable per name (flamegraph.pl's "hot" palette). */
static void colour(const char *name, int *r, int *g, int *b)
{
    uint32_t h = 2166136261u;

    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    *r = 205 + (int)(h % 51);
    *g = (int)((h >> 8) % 230);
    *b = (int)((h >> 16) % 56);
}

/* n with thousands separators ("20,480,000"), as Memcheck prints. */
static const char *thousands(uint64_t n, char *buf, size_t len)
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

struct svg {
    FILE *out;
    double scale; /* pixels per unit */
    uint64_t all;
    int height;
    double minw;      /* frames narrower than this are left out */
    const char *unit; /* "bytes", "calls" */
};

static void svg_frame(struct svg *v, const struct fnode *f, double x,
                      int level)
{
    double w = (double)f->total * v->scale, cx = x;
    int y = v->height - SVG_PAD - 30 - (level + 1) * FRAME_H, r, g, b;
    size_t fit;
    char bytes[32];

    if (w < v->minw)
        return;
    colour(f->name, &r, &g, &b);
    fputs("<g class=\"f\" data-n=\"", v->out);
    xml_escape(v->out, f->name, SIZE_MAX);
    fprintf(v->out,
            "\" data-b=\"%" PRIu64 "\" data-l=\"%d\" data-x=\"%.3f\" "
            "data-w=\"%.3f\"><title>",
            f->total, level, x, w);
    xml_escape(v->out, f->name, SIZE_MAX);
    fprintf(v->out, " (%s %s, %.2f%%)</title>",
            thousands(f->total, bytes, sizeof(bytes)), v->unit,
            v->all ? 100.0 * (double)f->total / (double)v->all : 0.0);
    fprintf(v->out,
            "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
            "fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
            x, y, w, FRAME_H - 1, r, g, b);
    fit = w > 3 * CHAR_W ? (size_t)(w / CHAR_W) : 0;
    fprintf(v->out, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + 11);
    if (fit > 2) {
        size_t len = strlen(f->name);

        if (len <= fit - 1) {
            xml_escape(v->out, f->name, len);
        } else {
            xml_escape(v->out, f->name, fit - 3);
            fputs("..", v->out);
        }
    }
    fputs("</text></g>\n", v->out);
    for (size_t i = 0; i < f->nkids; i++) {
        svg_frame(v, f->kids[i], cx, level + 1);
        cx += (double)f->kids[i]->total * v->scale;
    }
}

/* The SVG of a finished tree; title is plain text (escaped here). */
static void svg_tree(FILE *out, struct fnode *root, int maxdepth,
                     const char *title, const char *unit, bool standalone,
                     double minw)
{
    struct svg v = { .out = out, .minw = minw, .unit = unit };

    v.all = root->total;
    v.scale = root->total ? (SVG_WIDTH - 2.0 * SVG_PAD) / (double)root->total
                          : 0;
    v.height = (maxdepth + 1) * FRAME_H + 2 * SVG_PAD + 80;
    if (standalone)
        fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n", out);
    fprintf(out,
            "<svg version=\"1.1\" class=\"flamegraph\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" "
            "xmlns=\"http://www.w3.org/2000/svg\" data-width=\"%d\" "
            "data-pad=\"%d\" data-total=\"%" PRIu64 "\" data-unit=\"%s\">\n"
            "<style>.flamegraph text { font-family: Verdana, sans-serif; "
            "font-size: 12px; fill: rgb(0,0,0); } .flamegraph g.f:hover rect "
            "{ stroke: black; stroke-width: 0.5; } .flamegraph g.f, "
            ".flamegraph .unzoom, .flamegraph .search { cursor: pointer; } "
            ".flamegraph .unzoom { opacity: 0; }</style>\n"
            "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
            "fill=\"rgb(248,248,248)\"/>\n"
            "<text x=\"%d\" y=\"24\" style=\"font-size: 17px\">",
            SVG_WIDTH, v.height, SVG_WIDTH, v.height, SVG_WIDTH, SVG_PAD,
            root->total, unit, SVG_PAD);
    xml_escape(out, title, SIZE_MAX);
    fprintf(out,
            "</text>\n"
            "<text class=\"unzoom\" x=\"%d\" y=\"48\">Reset Zoom</text>\n"
            "<text class=\"search\" x=\"%d\" y=\"48\" "
            "text-anchor=\"end\">Search</text>\n"
            "<text class=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
            "<text class=\"matched\" x=\"%d\" y=\"%d\" "
            "text-anchor=\"end\"> </text>\n",
            SVG_PAD, SVG_WIDTH - SVG_PAD, SVG_PAD, v.height - 12,
            SVG_WIDTH - SVG_PAD, v.height - 12);
    svg_frame(&v, root, SVG_PAD, 0);
    lp_flame_script(out);
    fputs("</svg>\n", out);
}

int lp_flame_svg_write(FILE *out, const struct lp_massif *m, const char *name,
                       long snap, bool standalone, char *err, size_t errlen)
{
    struct fnode *root;
    int s = pick(m, name, snap, err, errlen), maxdepth;
    char total[32], intree[32], *title;
    size_t tl;

    if (s < 0)
        return -EINVAL;
    if (build(m, s, &root, &maxdepth)) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    tl = strlen(name) + 160;
    title = malloc(tl);
    if (title == NULL) {
        fnode_free(root);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    snprintf(title, tl,
             "Heap flame graph: %s, snapshot %d (%s bytes in the tree, %s "
             "bytes total)",
             name, s, thousands(root->total, intree, sizeof(intree)),
             thousands(lp_massif_snap_total(m, s), total, sizeof(total)));
    svg_tree(out, root, maxdepth, title, "bytes", standalone, 0.1);
    free(title);
    fnode_free(root);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Any stacks (flame.h: struct lp_flame)                               */

struct lp_flame {
    struct fnode *root;
    int maxdepth;
    bool finished;
    struct fnode **last; /* the previous lp_flame_add_sorted path */
    size_t nlast, caplast;
};

struct lp_flame *lp_flame_new(void)
{
    struct lp_flame *f = calloc(1, sizeof(*f));

    if (f == NULL)
        return NULL;
    f->root = fnode_new("all");
    if (f->root == NULL) {
        free(f);
        return NULL;
    }
    return f;
}

void lp_flame_free(struct lp_flame *f)
{
    if (f == NULL)
        return;
    fnode_free(f->root);
    free(f->last);
    free(f);
}

int lp_flame_add_sorted(struct lp_flame *f, const char *const *names,
                        size_t n, size_t same, uint64_t weight)
{
    struct fnode *node;
    size_t i;

    if (same > f->nlast || same > n)
        same = 0; /* no usable previous path: a plain add */
    if (n > f->caplast) {
        struct fnode **l = realloc(f->last, n * sizeof(*l));

        if (l == NULL)
            return -ENOMEM;
        f->last = l;
        f->caplast = n;
    }
    node = same ? f->last[same - 1] : f->root;
    for (i = same; i < n; i++) {
        /* Sorted input: past the shared prefix every frame is new. */
        node = i == same && same == 0 ? fnode_child(node, names[i])
                                      : fnode_append(node, names[i]);
        if (node == NULL)
            return -ENOMEM;
        f->last[i] = node;
    }
    f->nlast = n;
    if (n == 0)
        return 0;
    node->self += weight;
    f->finished = false;
    return 0;
}

int lp_flame_add(struct lp_flame *f, const char *const *names, size_t n,
                 uint64_t weight)
{
    struct fnode *node = f->root;

    if (weight == 0)
        return 0;
    for (size_t i = 0; i < n && node != NULL; i++)
        node = fnode_child(node, names[i]);
    if (node == NULL)
        return -ENOMEM;
    node->self += weight;
    f->finished = false;
    return 0;
}

static void finish(struct lp_flame *f)
{
    if (!f->finished) {
        f->maxdepth = 0;
        finish_tree(f->root, 0, &f->maxdepth);
        f->finished = true;
    }
}

uint64_t lp_flame_total(struct lp_flame *f)
{
    finish(f);
    return f->root->total;
}

int lp_flame_write_folded(FILE *out, struct lp_flame *f)
{
    struct strbuf sb = { 0 };
    int rc = 0;

    finish(f);
    for (size_t i = 0; i < f->root->nkids && rc == 0; i++)
        rc = print_folded(out, f->root->kids[i], &sb);
    free(sb.s);
    return rc;
}

int lp_flame_write_svg(FILE *out, struct lp_flame *f, const char *title,
                       const char *unit, bool standalone, double min_width)
{
    finish(f);
    svg_tree(out, f->root, f->maxdepth, title, unit, standalone, min_width);
    return ferror(out) ? -EIO : 0;
}

int lp_flame_svg(FILE *out, const struct lp_massif *m, const char *name,
                 long snap, char *err, size_t errlen)
{
    return lp_flame_svg_write(out, m, name, snap, true, err, errlen);
}
