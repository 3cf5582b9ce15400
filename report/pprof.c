/* SPDX-License-Identifier: MIT */
/*
 * pprof.c - profile.proto builder and writer (pprof.h).
 *
 * Field numbers from profile.proto (perftools.profiles):
 *   Profile: sample_type 1, sample 2, mapping 3, location 4, function 5,
 *            string_table 6, drop_frames 7, keep_frames 8, time_nanos 9,
 *            duration_nanos 10, period_type 11, period 12, comment 13,
 *            default_sample_type 14
 *   ValueType: type 1, unit 2          (string table indices)
 *   Sample: location_id 1 (packed), value 2 (packed), label 3
 *   Label: key 1, str 2, num 3, num_unit 4
 *   Mapping: id 1, memory_start 2, memory_limit 3, file_offset 4,
 *            filename 5, build_id 6, has_functions 7, has_filenames 8,
 *            has_line_numbers 9, has_inline_frames 10
 *   Location: id 1, mapping_id 2, address 3, line 4, is_folded 5
 *   Line: function_id 1, line 2
 *   Function: id 1, name 2, system_name 3, filename 4, start_line 5
 * Repeated fields may be spread over the message, so each record is
 * appended to the body as it comes; the string table, whose indices the
 * records already use, goes last.
 * Context: COLD.
 */
#include "report/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/gzip.h"
#include "report/protobuf.h"

/* Open addressing, linear probing: slot values are index + 1, 0 = free. */
struct ptab {
    uint64_t *hash;
    uint64_t *val;
    size_t cap, n;
};

struct func_key {
    uint64_t name, system_name, file;
};

struct lp_pprof {
    struct lp_pb body, scratch, line_buf;
    int err;
    size_t ntypes;
    char **strs;
    size_t nstrs, capstrs;
    struct ptab str_tab, func_tab, loc_tab;
    struct func_key *funcs;
    size_t nfuncs, capfuncs;
    uint64_t *loc_addr;
    size_t nlocs, caplocs;
    uint64_t nmappings;
    int64_t drop_frames, default_type, time_nanos, duration_nanos;
    int64_t period_type, period_unit, period;
    bool have_period;
    int64_t *comments;
    size_t ncomments, capcomments;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
    const uint8_t *s = p;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

    while (n--) {
        h ^= *s++;
        h *= 0x100000001b3ull;
    }
    return h ^ (h >> 29);
}

static uint64_t hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static bool grow_array(void **a, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 64;
    void *n;

    if (need <= *cap)
        return true;
    while (c < need)
        c *= 2;
    n = realloc(*a, c * size);
    if (!n)
        return false;
    *a = n;
    *cap = c;
    return true;
}

static bool ptab_grow(struct ptab *t)
{
    size_t cap = t->cap ? t->cap * 2 : 256, i;
    uint64_t *h = calloc(cap, sizeof(*h)), *v = calloc(cap, sizeof(*v));

    if (!h || !v) {
        free(h);
        free(v);
        return false;
    }
    for (i = 0; i < t->cap; i++) {
        size_t j;

        if (!t->val[i])
            continue;
        for (j = t->hash[i] & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
            ;
        h[j] = t->hash[i];
        v[j] = t->val[i];
    }
    free(t->hash);
    free(t->val);
    t->hash = h;
    t->val = v;
    t->cap = cap;
    return true;
}

typedef bool (*ptab_eq_fn)(const struct lp_pprof *p, uint64_t idx,
                           const void *key);

/* The slot for key: holding its value, or free (value 0) to store it in.
 * NULL when the table cannot grow. */
static uint64_t *ptab_slot(struct lp_pprof *p, struct ptab *t, uint64_t h,
                           ptab_eq_fn eq, const void *key)
{
    size_t j;

    if ((t->n + 1) * 2 > t->cap && !ptab_grow(t))
        return NULL;
    for (j = h & (t->cap - 1); t->val[j]; j = (j + 1) & (t->cap - 1))
        if (t->hash[j] == h && eq(p, t->val[j] - 1, key))
            return &t->val[j];
    t->hash[j] = h;
    return &t->val[j];
}

static void ptab_release(struct ptab *t)
{
    free(t->hash);
    free(t->val);
    memset(t, 0, sizeof(*t));
}

static bool str_eq(const struct lp_pprof *p, uint64_t idx, const void *key)
{
    return strcmp(p->strs[idx], key) == 0;
}

static bool func_eq(const struct lp_pprof *p, uint64_t idx, const void *key)
{
    return memcmp(&p->funcs[idx], key, sizeof(struct func_key)) == 0;
}

static bool loc_eq(const struct lp_pprof *p, uint64_t idx, const void *key)
{
    return p->loc_addr[idx] == *(const uint64_t *)key;
}

static void fail(struct lp_pprof *p, int err)
{
    if (!p->err)
        p->err = err;
}

/* The string table index of s ("" for NULL), adding it on first sight. */
static int64_t str_index(struct lp_pprof *p, const char *s)
{
    uint64_t *slot;
    size_t len;

    if (!s)
        s = "";
    if (p->err)
        return 0;
    len = strlen(s);
    slot = ptab_slot(p, &p->str_tab, hash_bytes(s, len), str_eq, s);
    if (!slot || !grow_array((void **)&p->strs, &p->capstrs, p->nstrs + 1,
                             sizeof(*p->strs))) {
        fail(p, -ENOMEM);
        return 0;
    }
    if (*slot)
        return (int64_t)(*slot - 1);
    p->strs[p->nstrs] = malloc(len + 1);
    if (!p->strs[p->nstrs]) {
        fail(p, -ENOMEM);
        return 0;
    }
    memcpy(p->strs[p->nstrs], s, len + 1);
    *slot = ++p->nstrs;
    p->str_tab.n++;
    return (int64_t)p->nstrs - 1;
}

struct lp_pprof *lp_pprof_new(void)
{
    struct lp_pprof *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    str_index(p, ""); /* string_table[0] must be the empty string */
    if (p->err) {
        lp_pprof_free(p);
        return NULL;
    }
    return p;
}

void lp_pprof_free(struct lp_pprof *p)
{
    size_t i;

    if (!p)
        return;
    for (i = 0; i < p->nstrs; i++)
        free(p->strs[i]);
    free(p->strs);
    ptab_release(&p->str_tab);
    ptab_release(&p->func_tab);
    ptab_release(&p->loc_tab);
    free(p->funcs);
    free(p->loc_addr);
    free(p->comments);
    lp_pb_release(&p->body);
    lp_pb_release(&p->scratch);
    lp_pb_release(&p->line_buf);
    free(p);
}

/* Append the scratch message to the body as field. */
static void emit(struct lp_pprof *p, unsigned field)
{
    lp_pb_message(&p->body, field, &p->scratch);
    if (p->body.err)
        fail(p, p->body.err);
}

void lp_pprof_add_type(struct lp_pprof *p, const char *type, const char *unit)
{
    int64_t t = str_index(p, type), u = str_index(p, unit);

    lp_pb_clear(&p->scratch);
    lp_pb_int(&p->scratch, 1, t);
    lp_pb_int(&p->scratch, 2, u);
    emit(p, 1);
    p->ntypes++;
}

size_t lp_pprof_ntypes(const struct lp_pprof *p) { return p->ntypes; }

void lp_pprof_set_default_type(struct lp_pprof *p, const char *type)
{
    p->default_type = str_index(p, type);
}

void lp_pprof_set_period(struct lp_pprof *p, const char *type,
                         const char *unit, int64_t period)
{
    p->period_type = str_index(p, type);
    p->period_unit = str_index(p, unit);
    p->period = period;
    p->have_period = true;
}

void lp_pprof_set_drop_frames(struct lp_pprof *p, const char *regex)
{
    p->drop_frames = str_index(p, regex);
}

void lp_pprof_set_time(struct lp_pprof *p, int64_t time_nanos,
                       int64_t duration_nanos)
{
    p->time_nanos = time_nanos;
    p->duration_nanos = duration_nanos;
}

void lp_pprof_add_comment(struct lp_pprof *p, const char *text)
{
    int64_t s = str_index(p, text);

    if (p->err)
        return;
    if (!grow_array((void **)&p->comments, &p->capcomments, p->ncomments + 1,
                    sizeof(*p->comments))) {
        fail(p, -ENOMEM);
        return;
    }
    p->comments[p->ncomments++] = s;
}

uint64_t lp_pprof_add_mapping(struct lp_pprof *p,
                              const struct lp_pprof_mapping *m)
{
    int64_t file = str_index(p, m->file), bid = str_index(p, m->build_id);
    struct lp_pb *b = &p->scratch;

    if (p->err)
        return 0;
    lp_pb_clear(b);
    lp_pb_uint(b, 1, ++p->nmappings);
    lp_pb_uint(b, 2, m->start);
    lp_pb_uint(b, 3, m->limit);
    lp_pb_uint(b, 4, m->offset);
    lp_pb_int(b, 5, file);
    if (bid)
        lp_pb_int(b, 6, bid);
    lp_pb_uint(b, 7, m->has_functions);
    lp_pb_uint(b, 8, m->has_filenames);
    lp_pb_uint(b, 9, m->has_line_numbers);
    lp_pb_uint(b, 10, m->has_inline_frames);
    emit(p, 3);
    return p->err ? 0 : p->nmappings;
}

/* The id of the function (name, system name, file), added when new. */
static uint64_t function_id(struct lp_pprof *p, const struct lp_pprof_line *l)
{
    struct func_key k;
    uint64_t *slot;
    struct lp_pb *b = &p->scratch;

    k.name = (uint64_t)str_index(p, l->fn ? l->fn : "??");
    k.system_name = (uint64_t)str_index(
        p, l->system_name ? l->system_name : (l->fn ? l->fn : "??"));
    k.file = (uint64_t)str_index(p, l->file);
    if (p->err)
        return 0;
    slot = ptab_slot(p, &p->func_tab,
                     hash_u64(k.name * 31 + hash_u64(k.system_name) * 17 +
                              k.file),
                     func_eq, &k);
    if (!slot || !grow_array((void **)&p->funcs, &p->capfuncs, p->nfuncs + 1,
                             sizeof(*p->funcs))) {
        fail(p, -ENOMEM);
        return 0;
    }
    if (*slot)
        return *slot;
    p->funcs[p->nfuncs] = k;
    *slot = ++p->nfuncs;
    p->func_tab.n++;
    lp_pb_clear(b);
    lp_pb_uint(b, 1, p->nfuncs);
    lp_pb_uint(b, 2, k.name);
    lp_pb_uint(b, 3, k.system_name);
    if (k.file)
        lp_pb_uint(b, 4, k.file);
    emit(p, 5);
    return p->nfuncs;
}

uint64_t lp_pprof_find_location(struct lp_pprof *p, uint64_t addr)
{
    size_t j;
    struct ptab *t = &p->loc_tab;
    uint64_t h = hash_u64(addr);

    if (!t->cap)
        return 0;
    for (j = h & (t->cap - 1); t->val[j]; j = (j + 1) & (t->cap - 1))
        if (p->loc_addr[t->val[j] - 1] == addr)
            return t->val[j];
    return 0;
}

uint64_t lp_pprof_add_location(struct lp_pprof *p, uint64_t mapping_id,
                               uint64_t addr,
                               const struct lp_pprof_line *lines, size_t n)
{
    uint64_t *slot, *fids, id;
    struct lp_pb *b = &p->scratch;
    size_t i;

    if (p->err)
        return 0;
    slot = ptab_slot(p, &p->loc_tab, hash_u64(addr), loc_eq, &addr);
    if (!slot || !grow_array((void **)&p->loc_addr, &p->caplocs,
                             p->nlocs + 1, sizeof(*p->loc_addr))) {
        fail(p, -ENOMEM);
        return 0;
    }
    if (*slot)
        return *slot;
    p->loc_addr[p->nlocs] = addr;
    id = *slot = ++p->nlocs;
    p->loc_tab.n++;
    /* Functions first: function_id() uses the scratch buffer too. */
    fids = n ? malloc(n * sizeof(*fids)) : NULL;
    if (n && !fids) {
        fail(p, -ENOMEM);
        return 0;
    }
    for (i = 0; i < n; i++)
        fids[i] = function_id(p, &lines[i]);
    lp_pb_clear(b);
    lp_pb_uint(b, 1, id);
    if (mapping_id)
        lp_pb_uint(b, 2, mapping_id);
    lp_pb_uint(b, 3, addr);
    for (i = 0; i < n; i++) {
        lp_pb_clear(&p->line_buf);
        lp_pb_uint(&p->line_buf, 1, fids[i]);
        if (lines[i].line)
            lp_pb_int(&p->line_buf, 2, lines[i].line);
        lp_pb_message(b, 4, &p->line_buf);
    }
    free(fids);
    emit(p, 4);
    return p->err ? 0 : id;
}

int lp_pprof_add_sample(struct lp_pprof *p, const uint64_t *locs, size_t n,
                        const int64_t *values,
                        const struct lp_pprof_label *labels, size_t nlabels)
{
    struct lp_pb *b = &p->scratch;
    int64_t *key, *str, *unit;
    size_t i;

    if (p->err)
        return p->err;
    key = calloc(nlabels + 1, 3 * sizeof(*key));
    if (!key) {
        fail(p, -ENOMEM);
        return p->err;
    }
    str = key + nlabels + 1;
    unit = str + nlabels + 1;
    for (i = 0; i < nlabels; i++) {
        key[i] = str_index(p, labels[i].key);
        str[i] = labels[i].str ? str_index(p, labels[i].str) : 0;
        unit[i] = labels[i].num_unit ? str_index(p, labels[i].num_unit) : 0;
    }
    lp_pb_clear(b);
    lp_pb_packed_uint(b, 1, locs, n);
    lp_pb_packed_int(b, 2, values, p->ntypes);
    for (i = 0; i < nlabels; i++) {
        lp_pb_clear(&p->line_buf);
        lp_pb_int(&p->line_buf, 1, key[i]);
        if (labels[i].str) {
            lp_pb_int(&p->line_buf, 2, str[i]);
        } else {
            lp_pb_int(&p->line_buf, 3, labels[i].num);
            if (unit[i])
                lp_pb_int(&p->line_buf, 4, unit[i]);
        }
        lp_pb_message(b, 3, &p->line_buf);
    }
    free(key);
    emit(p, 2);
    return p->err;
}

int lp_pprof_encode(struct lp_pprof *p, uint8_t **out, size_t *len)
{
    struct lp_pb tail;
    size_t i;
    uint8_t *buf;

    *out = NULL;
    *len = 0;
    if (p->err)
        return p->err;
    lp_pb_init(&tail);
    if (p->drop_frames)
        lp_pb_int(&tail, 7, p->drop_frames);
    if (p->time_nanos)
        lp_pb_int(&tail, 9, p->time_nanos);
    if (p->duration_nanos)
        lp_pb_int(&tail, 10, p->duration_nanos);
    if (p->have_period) {
        struct lp_pb vt;

        lp_pb_init(&vt);
        lp_pb_int(&vt, 1, p->period_type);
        lp_pb_int(&vt, 2, p->period_unit);
        lp_pb_message(&tail, 11, &vt);
        lp_pb_release(&vt);
        lp_pb_int(&tail, 12, p->period);
    }
    for (i = 0; i < p->ncomments; i++)
        lp_pb_int(&tail, 13, p->comments[i]);
    if (p->default_type)
        lp_pb_int(&tail, 14, p->default_type);
    for (i = 0; i < p->nstrs; i++)
        lp_pb_string(&tail, 6, p->strs[i]);
    if (tail.err || p->body.len > SIZE_MAX - tail.len - 1 ||
        !(buf = malloc(p->body.len + tail.len + 1))) {
        lp_pb_release(&tail);
        return -ENOMEM;
    }
    if (p->body.len)
        memcpy(buf, p->body.buf, p->body.len);
    if (tail.len)
        memcpy(buf + p->body.len, tail.buf, tail.len);
    *out = buf;
    *len = p->body.len + tail.len;
    lp_pb_release(&tail);
    return 0;
}

int lp_pprof_write(struct lp_pprof *p, FILE *f)
{
    uint8_t *buf;
    size_t len;
    int rc = lp_pprof_encode(p, &buf, &len);

    if (rc == 0)
        rc = lp_gzip_write(f, buf, len);
    free(buf);
    return rc;
}
