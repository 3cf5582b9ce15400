/* SPDX-License-Identifier: MIT */
/*
 * diff.c - growth per allocation site between two massif snapshots.
 * Context: COLD.
 *
 * Each snapshot's tree is flattened into (site key, self bytes) pairs; the
 * two lists are sorted by key and merged, and the merged rows are sorted by
 * growth. A site key is the chain of frame labels from the innermost caller
 * outwards, without addresses, joined by "\n" (one frame per printed line).
 */
#include "tools/diff.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/massif.h"

#define DASHES80 \
    "--------------------------------------------------------------------------------"

long lp_default_snapshot(const struct lp_massif *m)
{
    size_t n = lp_massif_count(m);

    if (lp_massif_peak_index(m) >= 0)
        return lp_massif_peak_index(m);
    for (size_t i = n; i-- > 0;)
        if (lp_massif_snap_kind(m, i) != LP_MASSIF_EMPTY)
            return (long)i;
    return n ? (long)n - 1 : -1;
}

long lp_diff_pick(const struct lp_massif *m, const char *name, long want,
                  char *err, size_t errlen)
{
    size_t n = lp_massif_count(m);

    if (want == LP_DIFF_PEAK) {
        if (lp_massif_peak_index(m) >= 0)
            return lp_massif_peak_index(m);
        snprintf(err, errlen, "%s: no peak snapshot", name);
        return -1;
    }
    if (want == LP_DIFF_LAST) {
        for (size_t i = n; i-- > 0;)
            if (lp_massif_snap_tree(m, i) != NULL)
                return (long)i;
        if (n > 0)
            return (long)n - 1;
        snprintf(err, errlen, "%s: no snapshots", name);
        return -1;
    }
    if (want < 0 || (size_t)want >= n) {
        snprintf(err, errlen, "%s: no snapshot %ld", name, want);
        return -1;
    }
    return want;
}

struct site {
    char *key;
    uint64_t before, after;
};

struct sites {
    struct site *v;
    size_t n, cap;
    const char **path;
    int err;
};

static const char *skip_addr(const char *label)
{
    const char *q = label;

    if (q[0] != '0' || q[1] != 'x')
        return label;
    for (q += 2; (*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'F') ||
                 (*q >= 'a' && *q <= 'f');
         q++)
        ;
    return q[0] == ':' && q[1] == ' ' ? q + 2 : label;
}

static void add_site(struct sites *s, int depth, uint64_t bytes, bool after)
{
    size_t len = 0;
    char *key, *p;

    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        struct site *v = realloc(s->v, cap * sizeof(*v));

        if (v == NULL) {
            s->err = -ENOMEM;
            return;
        }
        s->v = v;
        s->cap = cap;
    }
    for (int i = 0; i < depth; i++)
        len += strlen(s->path[i]) + 1;
    key = malloc(len + 1);
    if (key == NULL) {
        s->err = -ENOMEM;
        return;
    }
    p = key;
    for (int i = 0; i < depth; i++) {
        size_t l = strlen(s->path[i]);

        memcpy(p, s->path[i], l);
        p += l;
        *p++ = '\n';
    }
    *p = '\0';
    s->v[s->n].key = key;
    s->v[s->n].before = after ? 0 : bytes;
    s->v[s->n].after = after ? bytes : 0;
    s->n++;
}

static void collect(struct sites *s, const struct lp_massif_node *n,
                    int depth, bool after)
{
    uint64_t kids = 0, self = lp_massif_node_bytes(n);

    if (depth > 0)
        s->path[depth - 1] = skip_addr(lp_massif_node_label(n));
    for (const struct lp_massif_node *c = lp_massif_node_first_child(n);
         c && s->err == 0; c = lp_massif_node_next_sibling(c)) {
        kids += lp_massif_node_bytes(c);
        collect(s, c, depth + 1, after);
    }
    self = self > kids ? self - kids : 0;
    if (self > 0 && s->err == 0) {
        if (depth == 0) {
            s->path[0] = "[no stack]";
            add_site(s, 1, self, after);
        } else {
            add_site(s, depth, self, after);
        }
    }
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(((const struct site *)a)->key,
                  ((const struct site *)b)->key);
}

static int cmp_growth(const void *a, const void *b)
{
    const struct site *x = a, *y = b;
    /* growth = after - before, compared without overflow */
    __int128 gx = (__int128)x->after - x->before;
    __int128 gy = (__int128)y->after - y->before;

    if (gx != gy)
        return gx > gy ? -1 : 1;
    return strcmp(x->key, y->key);
}

static void put_num(FILE *out, int width, uint64_t v, int sign)
{
    char digits[32], buf[48];
    size_t len, o = 0;

    len = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
    if (sign)
        buf[o++] = sign > 0 ? '+' : '-';
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    fprintf(out, "%*s", width, buf);
}

static void put_growth(FILE *out, uint64_t before, uint64_t after)
{
    if (after >= before)
        put_num(out, 16, after - before, after > before ? 1 : 0);
    else
        put_num(out, 16, before - after, -1);
}

/* "before: 'F' snapshot 7 (the last snapshot; peak is 3), time 120 B" */
static void describe(FILE *out, const char *what, const struct lp_massif *m,
                     const char *name, size_t i, long want)
{
    long peak = lp_massif_peak_index(m);
    const char *why;

    if (want == LP_DIFF_PEAK)
        why = "peak";
    else if (want >= 0)
        why = peak == (long)i ? "as asked; peak" : "as asked";
    else if (i + 1 == lp_massif_count(m))
        why = "the last snapshot";
    else
        why = "the last detailed snapshot";
    fprintf(out, "%s '%s' snapshot %zu (%s", what, name, i, why);
    if (want == LP_DIFF_LAST && peak == (long)i)
        fputs(", peak", out);
    else if (peak >= 0 && peak != (long)i)
        fprintf(out, "; peak is snapshot %ld", peak);
    fprintf(out, "), time %" PRId64 " %s%s\n", lp_massif_snap_time(m, i),
            lp_massif_time_unit(m),
            lp_massif_snap_tree(m, i) ? ""
                                      : " (no heap tree: sites count as 0)");
}

static void row(FILE *out, uint64_t before, uint64_t after, const char *what)
{
    put_growth(out, before, after);
    put_num(out, 17, before, 0);
    put_num(out, 17, after, 0);
    fprintf(out, "  %s\n", what);
}

int lp_diff_print(FILE *out, const struct lp_massif *a, const char *an,
                  long sa, const struct lp_massif *b, const char *bn, long sb,
                  char *err, size_t errlen)
{
    struct sites s = { 0 };
    size_t w = 0, unchanged = 0;
    long wa = sa, wb = sb;
    int rc = 0;

    sa = lp_diff_pick(a, an, wa, err, errlen);
    if (sa < 0)
        return -EINVAL;
    sb = lp_diff_pick(b, bn, wb, err, errlen);
    if (sb < 0)
        return -EINVAL;
    s.path = calloc(LP_MASSIF_MAX_DEPTH + 2, sizeof(*s.path));
    if (s.path == NULL)
        goto oom;
    if (lp_massif_snap_tree(a, (size_t)sa))
        collect(&s, lp_massif_snap_tree(a, (size_t)sa), 0, false);
    if (s.err == 0 && lp_massif_snap_tree(b, (size_t)sb))
        collect(&s, lp_massif_snap_tree(b, (size_t)sb), 0, true);
    if (s.err)
        goto oom;

    /* Merge equal keys (the same site may also occur several times in one
     * tree when two call sites share a line). */
    if (s.n > 1)
        qsort(s.v, s.n, sizeof(*s.v), cmp_key);
    for (size_t i = 0; i < s.n; i++) {
        if (w > 0 && strcmp(s.v[w - 1].key, s.v[i].key) == 0) {
            s.v[w - 1].before += s.v[i].before;
            s.v[w - 1].after += s.v[i].after;
            free(s.v[i].key);
            continue;
        }
        s.v[w++] = s.v[i];
    }
    s.n = w;
    if (s.n > 1)
        qsort(s.v, s.n, sizeof(*s.v), cmp_growth);

    fputs("leakprint diff: heap growth per allocation site\n", out);
    describe(out, "before:", a, an, (size_t)sa, wa);
    describe(out, "after: ", b, bn, (size_t)sb, wb);
    fprintf(out, "%s\n%16s %16s %16s  %s\n%s\n", DASHES80, "growth(B)",
            "before(B)", "after(B)", "allocation site (innermost first)",
            DASHES80);
    for (size_t i = 0; i < s.n; i++) {
        const char *k = s.v[i].key, *nl;
        bool first = true;

        if (s.v[i].before == s.v[i].after) {
            unchanged++;
            continue;
        }
        put_growth(out, s.v[i].before, s.v[i].after);
        put_num(out, 17, s.v[i].before, 0);
        put_num(out, 17, s.v[i].after, 0);
        for (; (nl = strchr(k, '\n')) != NULL; k = nl + 1) {
            if (first)
                fprintf(out, "  %.*s\n", (int)(nl - k), k);
            else
                fprintf(out, "%52s<- %.*s\n", "", (int)(nl - k), k);
            first = false;
        }
    }
    if (unchanged)
        fprintf(out, "(%zu unchanged site%s not shown)\n", unchanged,
                unchanged == 1 ? "" : "s");
    fprintf(out, "%s\n", DASHES80);
    row(out, lp_massif_snap_heap(a, (size_t)sa),
        lp_massif_snap_heap(b, (size_t)sb), "useful heap");
    row(out, lp_massif_snap_extra(a, (size_t)sa),
        lp_massif_snap_extra(b, (size_t)sb), "extra heap");
    row(out, lp_massif_snap_stacks(a, (size_t)sa),
        lp_massif_snap_stacks(b, (size_t)sb), "stacks");
    row(out, lp_massif_snap_total(a, (size_t)sa),
        lp_massif_snap_total(b, (size_t)sb), "total");
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
    rc = -ENOMEM;
out:
    for (size_t i = 0; i < s.n; i++)
        free(s.v[i].key);
    free(s.v);
    free(s.path);
    return rc;
}
