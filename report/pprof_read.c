/* SPDX-License-Identifier: MIT */
/*
 * pprof_read.c - profile.proto into allocation sites (pprof_read.h).
 *
 * Two passes over the decoded message: the first collects the string
 * table, functions, locations and sample types (fields may come in any
 * order, and the string table usually comes last); the second turns each
 * sample into a site. Every length is checked against the buffer: a
 * truncated or hostile file gives an error, never a read out of bounds.
 * Field numbers as in pprof.c's banner.
 * Context: COLD.
 */
#include "report/pprof_read.h"

#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_FILE (1u << 30)   /* 1 GiB uncompressed */
#define MAX_FRAMES 4096       /* frames kept per sample */

struct span {
    const uint8_t *p, *end;
};

static bool varint(struct span *s, uint64_t *v)
{
    uint64_t r = 0;
    int shift = 0;

    while (s->p < s->end && shift < 64) {
        uint8_t b = *s->p++;

        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return true;
        }
        shift += 7;
    }
    return false;
}

/* The next field: its number, wire type, and value (varint) or span
 * (length-delimited). Fixed 32/64 fields are skipped over. */
static int field(struct span *s, unsigned *num, unsigned *wire, uint64_t *v,
                 struct span *sub)
{
    uint64_t key, len;

    if (s->p >= s->end)
        return 0;
    if (!varint(s, &key))
        return -1;
    *num = (unsigned)(key >> 3);
    *wire = (unsigned)(key & 7);
    switch (*wire) {
    case 0:
        return varint(s, v) ? 1 : -1;
    case 1:
        if (s->end - s->p < 8)
            return -1;
        s->p += 8;
        return 1;
    case 2:
        if (!varint(s, &len) || len > (uint64_t)(s->end - s->p))
            return -1;
        sub->p = s->p;
        sub->end = s->p + len;
        s->p += len;
        return 1;
    case 5:
        if (s->end - s->p < 4)
            return -1;
        s->p += 4;
        return 1;
    default:
        return -1;
    }
}

struct idmap { /* id -> index, sorted by id */
    uint64_t id;
    size_t idx;
};

struct func {
    uint64_t name, file;
};
struct line {
    uint64_t func, line;
};
struct loc {
    size_t first, n; /* lines[first..first+n) */
};

struct reader {
    struct span all;
    const char **strs;
    size_t nstrs, capstrs;
    struct func *funcs;
    struct idmap *fmap;
    size_t nfuncs, capfuncs, nfmap, capfmap;
    struct loc *locs;
    struct idmap *lmap;
    size_t nlocs, caplocs, nlmap, caplmap;
    struct line *lines;
    size_t nlines, caplines;
    int cost_of_type[64]; /* sample type index -> enum lp_cost or -1 */
    uint64_t type_name[64];
    size_t ntypes;
    uint64_t drop; /* string index of drop_frames */
    char **text;   /* per location line: "fn (file:line)", built lazily */
};

static bool push(void **v, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        void *p = realloc(*v, c * size);

        if (!p)
            return false;
        *v = p;
        *cap = c;
    }
    (*n)++;
    return true;
}

static int cmp_idmap(const void *a, const void *b)
{
    const struct idmap *x = a, *y = b;

    return x->id < y->id ? -1 : x->id > y->id;
}

static bool lookup(const struct idmap *m, size_t n, uint64_t id, size_t *idx)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (m[mid].id == id) {
            *idx = m[mid].idx;
            return true;
        }
        if (m[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static const char *str(const struct reader *r, uint64_t i)
{
    return i < r->nstrs ? r->strs[i] : "";
}

/* A string-table entry, copied with its terminating NUL. */
static bool add_string(struct reader *r, struct span sub)
{
    char *s = malloc((size_t)(sub.end - sub.p) + 1);

    if (!s || !push((void **)&r->strs, &r->nstrs, &r->capstrs,
                    sizeof(*r->strs))) {
        free(s);
        return false;
    }
    memcpy(s, sub.p, (size_t)(sub.end - sub.p));
    s[sub.end - sub.p] = '\0';
    r->strs[r->nstrs - 1] = s;
    return true;
}

static int first_pass(struct reader *r)
{
    struct span s = r->all, sub, f;
    unsigned num, wire, n2, w2;
    uint64_t v, v2;
    int rc;

    while ((rc = field(&s, &num, &wire, &v, &sub)) > 0) {
        if (num == 6 && wire == 2) {
            if (!add_string(r, sub))
                return -ENOMEM;
        } else if (num == 1 && wire == 2 && r->ntypes < 64) {
            uint64_t type = 0;

            while ((rc = field(&sub, &n2, &w2, &v2, &f)) > 0)
                if (n2 == 1 && w2 == 0)
                    type = v2;
            if (rc < 0)
                return -EINVAL;
            r->type_name[r->ntypes++] = type;
        } else if (num == 5 && wire == 2) {
            struct func fn = { 0, 0 };
            uint64_t id = 0;

            while ((rc = field(&sub, &n2, &w2, &v2, &f)) > 0) {
                if (w2 != 0)
                    continue;
                if (n2 == 1)
                    id = v2;
                else if (n2 == 2)
                    fn.name = v2;
                else if (n2 == 4)
                    fn.file = v2;
            }
            if (rc < 0)
                return -EINVAL;
            if (!push((void **)&r->funcs, &r->nfuncs, &r->capfuncs,
                      sizeof(*r->funcs)) ||
                !push((void **)&r->fmap, &r->nfmap, &r->capfmap,
                      sizeof(*r->fmap)))
                return -ENOMEM;
            r->funcs[r->nfuncs - 1] = fn;
            r->fmap[r->nfuncs - 1].id = id;
            r->fmap[r->nfuncs - 1].idx = r->nfuncs - 1;
        } else if (num == 4 && wire == 2) {
            struct loc l = { r->nlines, 0 };
            uint64_t id = 0;

            while ((rc = field(&sub, &n2, &w2, &v2, &f)) > 0) {
                if (n2 == 1 && w2 == 0) {
                    id = v2;
                } else if (n2 == 4 && w2 == 2) {
                    struct line ln = { 0, 0 };
                    struct span g;
                    unsigned n3, w3;
                    uint64_t v3;

                    while ((rc = field(&f, &n3, &w3, &v3, &g)) > 0)
                        if (w3 == 0 && n3 == 1)
                            ln.func = v3;
                        else if (w3 == 0 && n3 == 2)
                            ln.line = v3;
                    if (rc < 0)
                        return -EINVAL;
                    if (!push((void **)&r->lines, &r->nlines, &r->caplines,
                              sizeof(*r->lines)))
                        return -ENOMEM;
                    r->lines[r->nlines - 1] = ln;
                    l.n++;
                }
            }
            if (rc < 0)
                return -EINVAL;
            if (!push((void **)&r->locs, &r->nlocs, &r->caplocs,
                      sizeof(*r->locs)) ||
                !push((void **)&r->lmap, &r->nlmap, &r->caplmap,
                      sizeof(*r->lmap)))
                return -ENOMEM;
            r->locs[r->nlocs - 1] = l;
            r->lmap[r->nlocs - 1].id = id;
            r->lmap[r->nlocs - 1].idx = r->nlocs - 1;
        } else if (num == 7 && wire == 0) {
            r->drop = v;
        }
    }
    if (rc < 0)
        return -EINVAL;
    qsort(r->fmap, r->nfuncs, sizeof(*r->fmap), cmp_idmap);
    qsort(r->lmap, r->nlocs, sizeof(*r->lmap), cmp_idmap);
    return 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');

    return s ? s + 1 : p;
}

/* "fn (file:line)" of line i, cached. */
static const char *line_text(struct reader *r, size_t i)
{
    if (!r->text[i]) {
        const struct line *ln = &r->lines[i];
        size_t fi;
        const char *fn = "???", *file = "";
        char buf[1024];

        if (lookup(r->fmap, r->nfuncs, ln->func, &fi)) {
            fn = str(r, r->funcs[fi].name);
            file = str(r, r->funcs[fi].file);
            if (!*fn)
                fn = "???";
        }
        if (*file && ln->line)
            snprintf(buf, sizeof(buf), "%s (%s:%llu)", fn, base_name(file),
                     (unsigned long long)ln->line);
        else
            snprintf(buf, sizeof(buf), "%s", fn);
        r->text[i] = strdup(buf);
    }
    return r->text[i] ? r->text[i] : "???";
}

static bool dropped(const char *fn, const regex_t *re)
{
    char name[1024];
    const char *p = strstr(fn, " (");
    size_t n = p ? (size_t)(p - fn) : strlen(fn);

    if (!re)
        return false;
    if (n >= sizeof(name))
        n = sizeof(name) - 1;
    memcpy(name, fn, n);
    name[n] = '\0';
    return regexec(re, name, 0, NULL, 0) == 0;
}

/* Read a packed-or-not repeated varint field into v[*n] (cap max). */
static bool repeated(unsigned wire, uint64_t val, struct span sub,
                     uint64_t *v, size_t *n, size_t max)
{
    if (wire == 0) {
        if (*n < max)
            v[(*n)++] = val;
        return true;
    }
    while (sub.p < sub.end) {
        uint64_t x;

        if (!varint(&sub, &x))
            return false;
        if (*n < max)
            v[(*n)++] = x;
    }
    return true;
}

static int second_pass(struct reader *r, struct lp_sites *out,
                       const regex_t *re)
{
    struct span s = r->all, sub, f;
    unsigned num, wire, n2, w2;
    uint64_t v, v2;
    uint64_t *locs = malloc(sizeof(*locs) * MAX_FRAMES);
    uint64_t vals[64];
    const char **names = malloc(sizeof(*names) * MAX_FRAMES);
    int rc;

    if (!locs || !names) {
        free(locs);
        free(names);
        return -ENOMEM;
    }
    while ((rc = field(&s, &num, &wire, &v, &sub)) > 0) {
        size_t nl = 0, nv = 0, k, nn = 0, start;
        struct lp_site *t;

        if (num != 2 || wire != 2)
            continue;
        while ((rc = field(&sub, &n2, &w2, &v2, &f)) > 0) {
            if (n2 == 1 && !repeated(w2, v2, f, locs, &nl, MAX_FRAMES))
                rc = -1;
            else if (n2 == 2 && !repeated(w2, v2, f, vals, &nv, 64))
                rc = -1;
            if (rc < 0)
                break;
        }
        if (rc < 0)
            break;
        /* Frames innermost first: each location's lines in order. */
        for (k = 0; k < nl; k++) {
            size_t li, j;

            if (!lookup(r->lmap, r->nlocs, locs[k], &li))
                continue;
            for (j = 0; j < r->locs[li].n && nn < MAX_FRAMES; j++)
                names[nn++] = line_text(r, r->locs[li].first + j);
        }
        /* drop_frames: from the outermost frame in, cut at the first
         * match, with everything inside it. */
        start = 0;
        for (k = nn; k-- > 0;)
            if (dropped(names[k], re)) {
                start = k + 1;
                break;
            }
        t = lp_sites_add(out, names + start, (unsigned)(nn - start));
        if (!t) {
            rc = -1;
            break;
        }
        for (k = 0; k < nv && k < r->ntypes; k++)
            if (r->cost_of_type[k] >= 0 && (int64_t)vals[k] > 0)
                t->cost[r->cost_of_type[k]] = vals[k];
    }
    free(locs);
    free(names);
    if (out->err)
        return out->err;
    return rc < 0 ? -EINVAL : 0;
}

static int load(const char *path, uint8_t **buf, size_t *len, char *err,
                size_t errlen)
{
    gzFile g = gzopen(path, "rb");
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    int got;

    if (!g || !b) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOMEM));
        if (g)
            gzclose(g);
        free(b);
        return -1;
    }
    /* gzread passes a file that is not gzipped through unchanged. */
    while ((got = gzread(g, b + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)got;
        if (n == cap) {
            uint8_t *nb = cap < MAX_FILE ? realloc(b, cap * 2) : NULL;

            if (!nb) {
                snprintf(err, errlen, "%s: too large", path);
                gzclose(g);
                free(b);
                return -1;
            }
            b = nb;
            cap *= 2;
        }
    }
    if (got < 0) {
        int e;

        snprintf(err, errlen, "%s: bad gzip data (%s)", path, gzerror(g, &e));
        gzclose(g);
        free(b);
        return -1;
    }
    gzclose(g);
    *buf = b;
    *len = n;
    return 0;
}

int lp_pprof_sniff(const char *path)
{
    FILE *f = fopen(path, "rb");
    int c0, c1, c2;

    if (!f)
        return 0;
    c0 = getc(f);
    c1 = getc(f);
    c2 = getc(f);
    fclose(f);
    /* gzip, or field 1 (sample_type) holding a ValueType whose first
     * field is its type: "\n" LEN "\b", never the start of a text file. */
    return (c0 == 0x1f && c1 == 0x8b) ||
           (c0 == 0x0a && c1 > 0 && c1 < 0x80 && c2 == 0x08);
}

static const struct {
    const char *type;
    enum lp_cost cost;
} type_costs[] = {
    { "alloc_objects", LP_COST_CALLS },
    { "alloc_space", LP_COST_ALLOCATED },
    { "inuse_space", LP_COST_EXIT },
    { "temp_objects", LP_COST_TEMP },
    { "peak_space", LP_COST_PEAK },
    { "leaked_space", LP_COST_LEAKED },
};

int lp_pprof_read_sites(const char *path, struct lp_sites *out, char *err,
                        size_t errlen)
{
    struct reader r;
    uint8_t *buf = NULL;
    size_t len = 0, i, k;
    regex_t re;
    bool have_re = false;
    int rc;

    memset(&r, 0, sizeof(r));
    lp_sites_init(out);
    if (load(path, &buf, &len, err, errlen))
        return -1;
    r.all.p = buf;
    r.all.end = buf + len;
    rc = first_pass(&r);
    if (rc == 0 && (r.ntypes == 0 || r.nstrs == 0))
        rc = -EINVAL;
    if (rc == 0) {
        for (i = 0; i < r.ntypes; i++) {
            r.cost_of_type[i] = -1;
            for (k = 0; k < sizeof(type_costs) / sizeof(type_costs[0]); k++)
                if (!strcmp(str(&r, r.type_name[i]), type_costs[k].type)) {
                    r.cost_of_type[i] = (int)type_costs[k].cost;
                    out->has |= LP_COST_BIT(type_costs[k].cost);
                }
        }
        r.text = calloc(r.nlines + 1, sizeof(*r.text));
        if (!r.text)
            rc = -ENOMEM;
    }
    if (rc == 0 && *str(&r, r.drop)) {
        size_t n = strlen(str(&r, r.drop)) + 8;
        char *pat = malloc(n);

        if (pat) {
            snprintf(pat, n, "^(%s)$", str(&r, r.drop));
            have_re = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0;
            free(pat);
        }
    }
    if (rc == 0)
        rc = second_pass(&r, out, have_re ? &re : NULL);
    if (rc == -EINVAL)
        snprintf(err, errlen, "%s: not a pprof profile (bad protobuf data)",
                 path);
    else if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, strerror(-rc));
    if (have_re)
        regfree(&re);
    for (i = 0; i < r.nstrs; i++)
        free((void *)r.strs[i]);
    for (i = 0; r.text && i < r.nlines; i++)
        free(r.text[i]);
    free(r.text);
    free(r.strs);
    free(r.funcs);
    free(r.fmap);
    free(r.locs);
    free(r.lmap);
    free(r.lines);
    free(buf);
    if (rc != 0)
        lp_sites_release(out);
    return rc == 0 ? 0 : -1;
}
