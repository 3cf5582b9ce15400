/* SPDX-License-Identifier: MIT */
/*
 * massif.c - the massif.out data model: arena, builder, accessors, writer.
 * Context: COLD. The reader lives in massif_read.c.
 *
 * The writer reproduces massif's own printf formats (ms_main.c, m_xtree.c):
 * the root as "n%u: %llu %s", every other node as "%*sn%u: %lu %s" with an
 * indentation of its depth, and the 11-dash comment lines around each
 * snapshot= line. Snapshots are renumbered 0..n-1 at write time, because
 * ms_print compares the peak's number with its position in the file.
 */
#include "report/massif.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/massif_impl.h"

#define CHUNK_MIN (64 * 1024)

void *lp_massif_alloc(struct lp_massif *m, size_t size)
{
    struct lp_massif_chunk *c = m->chunks;
    void *p;

    size = (size + 15) & ~(size_t)15;
    if (c == NULL || c->cap - c->used < size) {
        size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN;

        if (cap > SIZE_MAX - sizeof(*c))
            return NULL;
        c = malloc(sizeof(*c) + cap);
        if (c == NULL)
            return NULL;
        c->used = 0;
        c->cap = cap;
        /* A big one-off request must not waste the current chunk's room:
         * put it behind the head so later small requests still use it. */
        if (m->chunks != NULL && cap > CHUNK_MIN) {
            c->next = m->chunks->next;
            m->chunks->next = c;
        } else {
            c->next = m->chunks;
            m->chunks = c;
        }
    }
    p = c->data + c->used;
    c->used += size;
    return p;
}

char *lp_massif_strndup(struct lp_massif *m, const char *s, size_t len)
{
    char *p;

    if (len == SIZE_MAX)
        return NULL;
    p = lp_massif_alloc(m, len + 1);
    if (p == NULL)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

struct lp_massif *lp_massif_alloc_empty(void)
{
    struct lp_massif *m = calloc(1, sizeof(*m));

    if (m != NULL)
        m->peak = -1;
    return m;
}

int lp_massif_reserve(struct lp_massif *m)
{
    struct lp_massif_snap *s;
    size_t cap;

    if (m->n < m->cap)
        return 0;
    cap = m->cap ? m->cap * 2 : 16;
    if (cap > SIZE_MAX / sizeof(*s))
        return -ENOMEM;
    s = realloc(m->snaps, cap * sizeof(*s));
    if (s == NULL)
        return -ENOMEM;
    m->snaps = s;
    m->cap = cap;
    return 0;
}

void lp_massif_free(struct lp_massif *m)
{
    struct lp_massif_chunk *c, *next;

    if (m == NULL)
        return;
    for (c = m->chunks; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    free(m->snaps);
    free(m->buf);
    free(m);
}

/*
 * Copy text that will become one line of the file. '#' would make ms_print
 * cut the line and a newline would break the line structure, so both are
 * replaced (FORMATS.md 1.11). prefix is prepended verbatim.
 */
static char *copy_line_text(struct lp_massif *m, const char *prefix,
                            const char *s)
{
    size_t plen = strlen(prefix), len = strlen(s);
    char *p;

    if (len > SIZE_MAX - plen - 1)
        return NULL;
    p = lp_massif_alloc(m, plen + len + 1);
    if (p == NULL)
        return NULL;
    memcpy(p, prefix, plen);
    for (size_t i = 0; i < len; i++) {
        char c = s[i];

        if (c == '#')
            c = '=';
        else if (c == '\n' || c == '\r')
            c = ' ';
        p[plen + i] = c;
    }
    p[plen + len] = '\0';
    return p;
}

struct lp_massif *lp_massif_new(const char *desc, const char *cmd,
                                const char *time_unit)
{
    struct lp_massif *m = lp_massif_alloc_empty();
    char *raw;

    if (m == NULL)
        return NULL;
    if (desc == NULL || desc[0] == '\0')
        desc = "(none)";
    m->desc = copy_line_text(m, "", desc);
    m->cmd = copy_line_text(m, "", cmd ? cmd : "");
    m->time_unit = copy_line_text(m, "", time_unit ? time_unit : "B");
    if (m->desc == NULL || m->cmd == NULL || m->time_unit == NULL)
        goto fail;
    raw = lp_massif_alloc(m, strlen(m->desc) + 3);
    if (raw == NULL)
        goto fail;
    sprintf(raw, " %s\n", m->desc);
    m->desc_raw = raw;
    return m;
fail:
    lp_massif_free(m);
    return NULL;
}

struct lp_massif_node *lp_massif_node_new(struct lp_massif *m, uint64_t bytes,
                                          const char *label)
{
    struct lp_massif_node *n = lp_massif_alloc(m, sizeof(*n));

    if (n == NULL)
        return NULL;
    memset(n, 0, sizeof(*n));
    n->bytes = bytes;
    n->details = copy_line_text(m, " ", label && label[0] ? label : "???");
    return n->details ? n : NULL;
}

int lp_massif_node_add_child(struct lp_massif_node *parent,
                             struct lp_massif_node *child)
{
    if (parent == NULL || child == NULL || child->attached || child == parent)
        return -EINVAL;
    child->attached = true;
    child->next = NULL;
    if (parent->last)
        parent->last->next = child;
    else
        parent->first = child;
    parent->last = child;
    parent->nchildren++;
    return 0;
}

/* Depth-first check of a built tree, iterative so that a degenerate chain
 * cannot overflow the stack before we know it is too deep. */
static int check_tree(const struct lp_massif_node *root, uint64_t total)
{
    const struct lp_massif_node *stack[LP_MASSIF_MAX_DEPTH + 1];
    int depth = 0;
    const struct lp_massif_node *n = root;

    for (;;) {
        if (n->bytes > total)
            return -EINVAL;
        if (n->first) {
            if (depth >= LP_MASSIF_MAX_DEPTH)
                return -EINVAL;
            stack[depth++] = n;
            n = n->first;
            continue;
        }
        while (n->next == NULL) {
            if (depth == 0)
                return 0;
            n = stack[--depth];
        }
        if (depth == 0)
            return 0;
        n = n->next;
    }
}

static char *u64_text(struct lp_massif *m, uint64_t v)
{
    char tmp[24];
    int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v);

    return lp_massif_strndup(m, tmp, (size_t)len);
}

int lp_massif_add_snapshot(struct lp_massif *m, int64_t time, uint64_t heap,
                           uint64_t extra, uint64_t stacks,
                           enum lp_massif_kind kind,
                           struct lp_massif_node *tree)
{
    struct lp_massif_snap *s;
    uint64_t total;
    char tmp[24];

    if (m == NULL || time < 0 || kind > LP_MASSIF_PEAK)
        return -EINVAL;
    if ((kind == LP_MASSIF_EMPTY) != (tree == NULL))
        return -EINVAL;
    if (tree != NULL && tree->attached)
        return -EINVAL;
    if (m->n > 0 && time < m->snaps[m->n - 1].time)
        return -EINVAL;
    if (kind == LP_MASSIF_PEAK && m->peak >= 0)
        return -EINVAL;
    total = lp_massif_sat_total(heap, extra, stacks);
    if (tree != NULL && check_tree(tree, total) != 0)
        return -EINVAL;
    if (lp_massif_reserve(m) != 0)
        return -ENOMEM;
    s = &m->snaps[m->n];
    memset(s, 0, sizeof(*s));
    s->num = m->n;
    s->time = time;
    s->heap = heap;
    s->extra = extra;
    s->stacks = stacks;
    s->kind = kind;
    s->tree = tree;
    s->num_text = u64_text(m, s->num);
    snprintf(tmp, sizeof(tmp), "%" PRId64, time);
    s->time_text = lp_massif_strndup(m, tmp, strlen(tmp));
    s->heap_text = u64_text(m, heap);
    s->extra_text = u64_text(m, extra);
    s->stacks_text = u64_text(m, stacks);
    if (!s->num_text || !s->time_text || !s->heap_text || !s->extra_text ||
        !s->stacks_text)
        return -ENOMEM;
    if (tree != NULL)
        tree->attached = true;
    if (kind == LP_MASSIF_PEAK)
        m->peak = (long)m->n;
    m->n++;
    return 0;
}

int lp_massif_set_kind(struct lp_massif *m, size_t i, enum lp_massif_kind kind)
{
    if (m == NULL || i >= m->n || m->snaps[i].tree == NULL ||
        (kind != LP_MASSIF_DETAILED && kind != LP_MASSIF_PEAK))
        return -EINVAL;
    if (kind == LP_MASSIF_PEAK) {
        if (m->peak >= 0 && (size_t)m->peak != i)
            return -EINVAL;
        m->peak = (long)i;
    } else if (m->peak == (long)i) {
        m->peak = -1;
    }
    m->snaps[i].kind = kind;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Writer                                                              */

static void write_tree(const struct lp_massif_node *n, int depth, FILE *f)
{
    const char *label = lp_massif_node_label(n);

    if (depth == 0)
        fprintf(f, "n%zu: %" PRIu64 " %s\n", n->nchildren, n->bytes, label);
    else
        fprintf(f, "%*sn%zu: %" PRIu64 " %s\n", depth, "", n->nchildren,
                n->bytes, label);
    for (const struct lp_massif_node *c = n->first; c; c = c->next)
        write_tree(c, depth + 1, f);
}

int lp_massif_write(const struct lp_massif *m, FILE *f)
{
    static const char *const kinds[] = { "empty", "detailed", "peak" };
    const char *desc = m->desc;

    /* A lenient file without desc: still gets the line massif always
     * writes; readers other than ms_print require it. */
    if (desc == NULL || desc[0] == '\0')
        desc = "(none)";
    fprintf(f, "desc: %s\ncmd: %s\ntime_unit: %s\n", desc, m->cmd,
            m->time_unit);
    for (size_t i = 0; i < m->n; i++) {
        const struct lp_massif_snap *s = &m->snaps[i];
        enum lp_massif_kind kind = s->kind;

        /* In a lenient file several snapshots may say peak; ms_print
         * honours the last one, so that is the one we keep. */
        if (kind == LP_MASSIF_PEAK && (long)i != m->peak)
            kind = LP_MASSIF_DETAILED;
        fprintf(f,
                "#-----------\nsnapshot=%zu\n#-----------\n"
                "time=%" PRId64 "\nmem_heap_B=%" PRIu64
                "\nmem_heap_extra_B=%" PRIu64 "\nmem_stacks_B=%" PRIu64
                "\nheap_tree=%s\n",
                i, s->time, s->heap, s->extra, s->stacks, kinds[kind]);
        if (s->tree != NULL)
            write_tree(s->tree, 0, f);
    }
    if (fflush(f) != 0 || ferror(f))
        return -EIO;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Accessors                                                           */

const char *lp_massif_desc(const struct lp_massif *m) { return m->desc; }
const char *lp_massif_desc_raw(const struct lp_massif *m)
{
    return m->desc_raw ? m->desc_raw : "";
}
const char *lp_massif_cmd(const struct lp_massif *m) { return m->cmd; }
const char *lp_massif_time_unit(const struct lp_massif *m)
{
    return m->time_unit;
}
size_t lp_massif_count(const struct lp_massif *m) { return m->n; }
long lp_massif_peak_index(const struct lp_massif *m) { return m->peak; }

uint64_t lp_massif_snap_number(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].num;
}
int64_t lp_massif_snap_time(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].time;
}
uint64_t lp_massif_snap_heap(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].heap;
}
uint64_t lp_massif_snap_extra(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].extra;
}
uint64_t lp_massif_snap_stacks(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].stacks;
}
uint64_t lp_massif_snap_total(const struct lp_massif *m, size_t i)
{
    const struct lp_massif_snap *s = &m->snaps[i];

    return lp_massif_sat_total(s->heap, s->extra, s->stacks);
}
enum lp_massif_kind lp_massif_snap_kind(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].kind;
}
const struct lp_massif_node *lp_massif_snap_tree(const struct lp_massif *m,
                                                 size_t i)
{
    return m->snaps[i].tree;
}
const char *lp_massif_snap_number_text(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].num_text;
}
const char *lp_massif_snap_time_text(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].time_text;
}
const char *lp_massif_snap_heap_text(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].heap_text;
}
const char *lp_massif_snap_extra_text(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].extra_text;
}
const char *lp_massif_snap_stacks_text(const struct lp_massif *m, size_t i)
{
    return m->snaps[i].stacks_text;
}

uint64_t lp_massif_node_bytes(const struct lp_massif_node *n)
{
    return n->bytes;
}
void lp_massif_node_bytes_text(const struct lp_massif_node *n, char *out,
                               size_t cap)
{
    if (cap == 0)
        return;
    if (n->bytes_text != NULL && n->bytes_len < cap) {
        memcpy(out, n->bytes_text, n->bytes_len);
        out[n->bytes_len] = '\0';
    } else {
        snprintf(out, cap, "%" PRIu64, n->bytes);
    }
}

const char *lp_massif_node_details(const struct lp_massif_node *n)
{
    return n->details;
}
const char *lp_massif_node_label(const struct lp_massif_node *n)
{
    return n->details[0] == ' ' ? n->details + 1 : n->details;
}
size_t lp_massif_node_nchildren(const struct lp_massif_node *n)
{
    return n->nchildren;
}
const struct lp_massif_node *
lp_massif_node_first_child(const struct lp_massif_node *n)
{
    return n->first;
}
const struct lp_massif_node *
lp_massif_node_next_sibling(const struct lp_massif_node *n)
{
    return n->next;
}
