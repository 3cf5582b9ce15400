/* SPDX-License-Identifier: MIT */
/*
 * massif_read.c - massif.out reader, strict and ms_print-lenient.
 * Context: COLD.
 *
 * The whole input is loaded into one buffer and parsed in place: each line
 * end is overwritten with a NUL, and every string in the resulting model
 * (values, labels) points into that buffer. A 100 MB file therefore costs
 * about 100 MB plus one small node per tree line, and there is no per-line
 * allocation.
 *
 * Trees are read iteratively with an explicit stack of at most
 * LP_MASSIF_MAX_DEPTH entries. Each loop iteration consumes one input line,
 * so a lying COUNT ("n4000000000:") only runs the reader into end of file,
 * never into a long loop or a large allocation.
 */
#include "report/massif.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/massif_impl.h"

struct reader {
    struct lp_massif *m;
    enum lp_massif_read_mode mode;
    const char *name;
    char *err;
    size_t errlen;
    char *pos, *end;  /* unread part of m->buf */
    long lineno;      /* number of the line last fetched */
    char *line;       /* the line last fetched, NUL-terminated */
    size_t len;
    struct lp_massif_node **stack;
    uint64_t *left;   /* children still to read, per stack entry */
};

static int fail(struct reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (r->errlen == 0)
        return -EINVAL;
    n = snprintf(r->err, r->errlen, "%s:%ld: ", r->name, r->lineno);
    if (n >= 0 && (size_t)n < r->errlen) {
        va_start(ap, fmt);
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

static bool is_perl_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
}

/* Fetch the next physical line. Returns 1, 0 at end of input, or -EINVAL. */
static int next_physical(struct reader *r)
{
    char *nl;

    if (r->pos >= r->end)
        return 0;
    r->lineno++;
    r->line = r->pos;
    nl = memchr(r->pos, '\n', (size_t)(r->end - r->pos));
    if (nl == NULL) {
        if (r->mode == LP_MASSIF_READ_STRICT)
            return fail(r, "missing newline at end of file");
        nl = r->end; /* the buffer has one spare byte for this NUL */
    }
    *nl = '\0';
    r->len = (size_t)(nl - r->line);
    r->pos = nl + 1;
    if (r->mode == LP_MASSIF_READ_STRICT && memchr(r->line, '\r', r->len))
        return fail(r, "carriage return in line (CRLF line ends?)");
    return 1;
}

/* ms_print's line fetch: drop everything from the first '#', skip lines
 * that are then empty or all whitespace. Strict mode returns every line. */
static int next_line(struct reader *r)
{
    int rc;

    while ((rc = next_physical(r)) == 1) {
        char *hash;
        size_t i;

        if (r->mode == LP_MASSIF_READ_STRICT)
            return 1;
        hash = memchr(r->line, '#', r->len);
        if (hash != NULL) {
            *hash = '\0';
            r->len = (size_t)(hash - r->line);
        }
        for (i = 0; i < r->len && is_perl_space(r->line[i]); i++)
            ;
        if (i < r->len)
            return 1;
    }
    return rc;
}

static int need_line(struct reader *r, const char *what)
{
    int rc = next_line(r);

    if (rc == 0) {
        r->lineno++;
        return fail(r, "unexpected end of file, expected %s", what);
    }
    return rc < 0 ? rc : 0;
}

/* Decimal digits; lenient mode also takes trailing whitespace. */
static int parse_u64(struct reader *r, const char *s, const char *what,
                     uint64_t *out)
{
    uint64_t v = 0;
    const char *p = s;

    if (*p < '0' || *p > '9')
        return fail(r, "bad number in '%s' line", what);
    for (; *p >= '0' && *p <= '9'; p++) {
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
            return fail(r, "number too large in '%s' line", what);
    }
    if (r->mode == LP_MASSIF_READ_MS_PRINT)
        while (is_perl_space(*p))
            p++;
    if (*p != '\0')
        return fail(r, "bad number in '%s' line", what);
    *out = v;
    return 0;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "NAME=VALUE" at the start of the line; returns VALUE or NULL. */
static const char *field_value(struct reader *r, const char *name)
{
    size_t n = strlen(name);

    if (strncmp(r->line, name, n) != 0 || r->line[n] != '=')
        return NULL;
    return r->line + n + 1;
}

static int read_number_field(struct reader *r, const char *name,
                             uint64_t *v, const char **text)
{
    const char *val;
    int rc = need_line(r, name);

    if (rc)
        return rc;
    val = field_value(r, name);
    if (val == NULL)
        return fail(r, "expected '%s=' line", name);
    *text = val;
    return parse_u64(r, val, name, v);
}

/* Parse one tree line at the expected depth into a new node. */
static int parse_node(struct reader *r, int depth, uint64_t total,
                      uint64_t *count, struct lp_massif_node **out)
{
    struct lp_massif_node *n;
    char *p = r->line;
    const char *digits;
    uint64_t c = 0, b = 0;

    if (r->mode == LP_MASSIF_READ_STRICT) {
        for (int i = 0; i < depth; i++, p++)
            if (*p != ' ')
                return fail(r, "tree line indented by less than %d", depth);
        if (*p == ' ')
            return fail(r, "tree line indented by more than %d", depth);
    } else {
        while (is_perl_space(*p))
            p++;
    }
    if (*p++ != 'n' || *p < '0' || *p > '9')
        return fail(r, "expected a tree node line");
    for (; *p >= '0' && *p <= '9'; p++)
        if (__builtin_mul_overflow(c, 10, &c) ||
            __builtin_add_overflow(c, (uint64_t)(*p - '0'), &c))
            return fail(r, "child count too large");
    if (*p++ != ':')
        return fail(r, "expected a tree node line");
    if (r->mode == LP_MASSIF_READ_STRICT) {
        if (*p++ != ' ')
            return fail(r, "expected one space after ':' in tree line");
    } else {
        while (is_perl_space(*p))
            p++;
    }
    if (*p < '0' || *p > '9')
        return fail(r, "expected a tree node line");
    digits = p;
    for (; *p >= '0' && *p <= '9'; p++)
        if (__builtin_mul_overflow(b, 10, &b) ||
            __builtin_add_overflow(b, (uint64_t)(*p - '0'), &b))
            return fail(r, "byte count too large");
    if (r->mode == LP_MASSIF_READ_STRICT && (p[0] != ' ' || p[1] == '\0'))
        return fail(r, "tree line has no label");
    if (b > total)
        return fail(r, "node bytes (%llu) exceed the snapshot total (%llu)",
                    (unsigned long long)b, (unsigned long long)total);
    n = lp_massif_alloc(r->m, sizeof(*n));
    if (n == NULL)
        return -ENOMEM;
    memset(n, 0, sizeof(*n));
    n->bytes = b;
    n->bytes_text = digits;
    n->bytes_len = (size_t)(p - digits);
    n->details = p;
    n->attached = true;
    *count = c;
    *out = n;
    return 0;
}

static int read_tree(struct reader *r, uint64_t total,
                     struct lp_massif_node **root)
{
    int depth = 0, rc;
    uint64_t count;

    if ((rc = need_line(r, "a heap tree")) != 0)
        return rc;
    if ((rc = parse_node(r, 0, total, &count, root)) != 0)
        return rc;
    r->stack[0] = *root;
    r->left[0] = count;
    for (;;) {
        struct lp_massif_node *n, *parent;

        while (r->left[depth] == 0) {
            if (depth == 0)
                return 0;
            depth--;
        }
        if (depth + 1 > LP_MASSIF_MAX_DEPTH)
            return fail(r, "heap tree deeper than %d levels",
                        LP_MASSIF_MAX_DEPTH);
        if ((rc = need_line(r, "a tree node line")) != 0)
            return rc;
        if ((rc = parse_node(r, depth + 1, total, &count, &n)) != 0)
            return rc;
        parent = r->stack[depth];
        r->left[depth]--;
        if (parent->last)
            parent->last->next = n;
        else
            parent->first = n;
        parent->last = n;
        parent->nchildren++;
        depth++;
        r->stack[depth] = n;
        r->left[depth] = count;
    }
}

static int read_header(struct reader *r)
{
    struct lp_massif *m = r->m;
    char *raw = NULL;
    size_t rawlen = 0, rawcap = 0;
    const char *p;
    int rc;

    if ((rc = need_line(r, "'cmd:' line")) != 0)
        return rc;
    if (r->mode == LP_MASSIF_READ_STRICT) {
        if (!starts_with(r->line, "desc: "))
            return fail(r, "expected 'desc: ' line");
        m->desc = r->line + 6;
        m->desc_raw = lp_massif_strndup(m, r->line + 5, r->len - 5 + 1);
        if (m->desc_raw == NULL)
            return -ENOMEM;
        ((char *)m->desc_raw)[r->len - 5] = '\n';
        if ((rc = need_line(r, "'cmd:' line")) != 0)
            return rc;
        if (!starts_with(r->line, "cmd: "))
            return fail(r, "expected 'cmd: ' line");
        m->cmd = r->line + 5;
        if ((rc = need_line(r, "'time_unit:' line")) != 0)
            return rc;
        if (!starts_with(r->line, "time_unit: "))
            return fail(r, "expected 'time_unit: ' line");
        m->time_unit = r->line + 11;
        if (strcmp(m->time_unit, "i") && strcmp(m->time_unit, "ms") &&
            strcmp(m->time_unit, "B"))
            return fail(r, "bad time_unit '%s' (want i, ms or B)",
                        m->time_unit);
        return 0;
    }
    /* ms_print: any number of desc: lines, each appended raw with its LF. */
    while (starts_with(r->line, "desc:")) {
        size_t add = r->len - 5 + 1;

        if (m->desc == NULL) {
            for (p = r->line + 5; is_perl_space(*p); p++)
                ;
            m->desc = p;
        }
        if (rawlen + add + 1 > rawcap) {
            size_t cap = rawcap ? rawcap * 2 : 256;
            char *nr;

            while (cap < rawlen + add + 1)
                cap *= 2;
            nr = realloc(raw, cap);
            if (nr == NULL) {
                free(raw);
                return -ENOMEM;
            }
            raw = nr;
            rawcap = cap;
        }
        memcpy(raw + rawlen, r->line + 5, add - 1);
        raw[rawlen + add - 1] = '\n';
        rawlen += add;
        if ((rc = need_line(r, "'cmd:' line")) != 0) {
            free(raw);
            return rc;
        }
    }
    m->desc_raw = lp_massif_strndup(m, raw ? raw : "", rawlen);
    free(raw);
    if (m->desc_raw == NULL)
        return -ENOMEM;
    if (!starts_with(r->line, "cmd:"))
        return fail(r, "missing 'cmd' line");
    for (p = r->line + 4; is_perl_space(*p); p++)
        ;
    m->cmd = p;
    if ((rc = need_line(r, "'time_unit:' line")) != 0)
        return rc;
    if (!starts_with(r->line, "time_unit:"))
        return fail(r, "missing 'time_unit' line");
    for (p = r->line + 10; is_perl_space(*p); p++)
        ;
    m->time_unit = p;
    return 0;
}

static int read_snapshot(struct reader *r)
{
    static const char sep[] = "#-----------";
    struct lp_massif *m = r->m;
    struct lp_massif_snap *s;
    const char *val;
    uint64_t t;
    int rc;

    if ((rc = lp_massif_reserve(m)) != 0)
        return rc;
    s = &m->snaps[m->n];
    memset(s, 0, sizeof(*s));
    if (r->mode == LP_MASSIF_READ_STRICT) {
        if (strcmp(r->line, sep) != 0)
            return fail(r, "expected '%s' line", sep);
        if ((rc = need_line(r, "'snapshot=' line")) != 0)
            return rc;
    }
    val = field_value(r, "snapshot");
    if (val == NULL)
        return fail(r, "expected 'snapshot=' line");
    s->num_text = val;
    if ((rc = parse_u64(r, val, "snapshot", &s->num)) != 0)
        return rc;
    if (r->mode == LP_MASSIF_READ_STRICT) {
        if (s->num != m->n)
            return fail(r, "snapshot number %llu, expected %zu",
                        (unsigned long long)s->num, m->n);
        if ((rc = need_line(r, "separator")) != 0)
            return rc;
        if (strcmp(r->line, sep) != 0)
            return fail(r, "expected '%s' line", sep);
    }
    if ((rc = read_number_field(r, "time", &t, &s->time_text)) != 0)
        return rc;
    if (t > INT64_MAX)
        return fail(r, "number too large in 'time' line");
    s->time = (int64_t)t;
    if ((rc = read_number_field(r, "mem_heap_B", &s->heap, &s->heap_text)) ||
        (rc = read_number_field(r, "mem_heap_extra_B", &s->extra,
                                &s->extra_text)) ||
        (rc = read_number_field(r, "mem_stacks_B", &s->stacks,
                                &s->stacks_text)))
        return rc;
    if ((rc = need_line(r, "'heap_tree=' line")) != 0)
        return rc;
    val = field_value(r, "heap_tree");
    if (val == NULL)
        return fail(r, "expected 'heap_tree=' line");
    if (strcmp(val, "empty") == 0)
        s->kind = LP_MASSIF_EMPTY;
    else if (strcmp(val, "peak") == 0)
        s->kind = LP_MASSIF_PEAK;
    else if (strcmp(val, "detailed") == 0 ||
             (r->mode == LP_MASSIF_READ_MS_PRINT &&
              (strstr(val, "detailed") || strstr(val, "peak"))))
        s->kind = LP_MASSIF_DETAILED;
    else
        return fail(r, "expected 'empty', 'detailed' or 'peak' after "
                       "'heap_tree='");
    if (s->kind == LP_MASSIF_PEAK) {
        if (r->mode == LP_MASSIF_READ_STRICT && m->peak >= 0)
            return fail(r, "second peak snapshot (first was %ld)", m->peak);
        m->peak = (long)m->n;
    }
    if (s->kind != LP_MASSIF_EMPTY) {
        rc = read_tree(r, lp_massif_sat_total(s->heap, s->extra, s->stacks),
                       &s->tree);
        if (rc)
            return rc;
    }
    m->n++;
    return 0;
}

static int parse(struct reader *r)
{
    int rc;

    if ((rc = read_header(r)) != 0)
        return rc;
    while ((rc = next_line(r)) == 1)
        if ((rc = read_snapshot(r)) != 0)
            return rc;
    return rc;
}

/* Takes ownership of buf, which holds len bytes plus one spare byte. */
static int read_buffer(char *buf, size_t len, const char *name,
                       enum lp_massif_read_mode mode, struct lp_massif **out,
                       char *err, size_t errlen)
{
    struct reader r = { 0 };
    const char *nul;
    int rc;

    *out = NULL;
    if (errlen)
        err[0] = '\0';
    r.m = lp_massif_alloc_empty();
    r.stack = malloc((LP_MASSIF_MAX_DEPTH + 1) * sizeof(*r.stack));
    r.left = malloc((LP_MASSIF_MAX_DEPTH + 1) * sizeof(*r.left));
    if (r.m == NULL || r.stack == NULL || r.left == NULL) {
        free(buf);
        rc = -ENOMEM;
        goto out;
    }
    r.m->buf = buf;
    buf[len] = '\0';
    r.mode = mode;
    r.name = name;
    r.err = err;
    r.errlen = errlen;
    r.pos = buf;
    r.end = buf + len;
    nul = memchr(buf, '\0', len);
    if (nul != NULL) {
        for (const char *p = buf; p < nul; p++)
            r.lineno += *p == '\n';
        r.lineno++;
        rc = fail(&r, "NUL byte in input (not a text file?)");
        goto out;
    }
    rc = parse(&r);
out:
    if (rc == -ENOMEM && errlen)
        snprintf(err, errlen, "%s: out of memory", name);
    free(r.stack);
    free(r.left);
    if (rc != 0) {
        lp_massif_free(r.m);
        return rc;
    }
    *out = r.m;
    return 0;
}

int lp_massif_read_mem(const char *data, size_t len, const char *name,
                       enum lp_massif_read_mode mode, struct lp_massif **out,
                       char *err, size_t errlen)
{
    char *buf = len < SIZE_MAX ? malloc(len + 1) : NULL;

    if (buf == NULL) {
        *out = NULL;
        if (errlen)
            snprintf(err, errlen, "%s: out of memory", name);
        return -ENOMEM;
    }
    memcpy(buf, data, len);
    return read_buffer(buf, len, name, mode, out, err, errlen);
}

int lp_massif_read(FILE *f, const char *name, enum lp_massif_read_mode mode,
                   struct lp_massif **out, char *err, size_t errlen)
{
    size_t len = 0, cap = 1 << 16;
    struct stat st;
    char *buf;

    /* A regular file's size is known: one allocation, no copying. The
     * loop below still copes with files that grow or shrink meanwhile. */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size < SIZE_MAX / 2)
        cap = (size_t)st.st_size + 2;
    buf = malloc(cap);
    *out = NULL;
    for (;;) {
        size_t got;

        if (buf == NULL) {
            if (errlen)
                snprintf(err, errlen, "%s: out of memory", name);
            return -ENOMEM;
        }
        if (cap - len < 2) {
            char *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;

            if (nb == NULL)
                free(buf);
            buf = nb;
            cap *= 2;
            continue;
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        /* Stop at the first NUL: the input is not text, and an endless
         * binary stream (/dev/zero) must not be read into memory. */
        if (memchr(buf + len, '\0', got) != NULL) {
            len += got;
            break;
        }
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;

        free(buf);
        if (errlen)
            snprintf(err, errlen, "cannot read '%s': %s", name, strerror(e));
        return -e;
    }
    return read_buffer(buf, len, name, mode, out, err, errlen);
}

int lp_massif_read_path(const char *path, enum lp_massif_read_mode mode,
                        struct lp_massif **out, char *err, size_t errlen)
{
    FILE *f;
    int rc;

    if (strcmp(path, "-") == 0)
        return lp_massif_read(stdin, "-", mode, out, err, errlen);
    f = fopen(path, "r");
    if (f == NULL) {
        int e = errno;

        *out = NULL;
        if (errlen)
            snprintf(err, errlen, "cannot open '%s': %s", path, strerror(e));
        return -e;
    }
    rc = lp_massif_read(f, path, mode, out, err, errlen);
    fclose(f);
    return rc;
}
