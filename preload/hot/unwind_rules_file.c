/* SPDX-License-Identifier: MIT */
/*
 * unwind_rules_file.c - the unwind rules of each loaded object across
 * processes (unwind_rules_file.h).
 *
 * Which object: _dl_find_object gives its mapping and load bias; its
 * build-id is read from its ELF header and notes in memory. A table of
 * MAX_OBJS objects, keyed by the mapping's start: the first miss in an
 * object claims its slot (CAS) and reads its file, with raw system calls
 * into arena memory (a rule miss happens inside malloc); a miss in an
 * object whose file is still being read just interprets the CFI. After
 * a dlclose (lp_rules_gen moves) a slot's object may be another one at
 * the same address: the slot is not used again.
 * Context: HOT (a rule miss).
 */
#include "preload/hot/unwind_rules_file.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/hot/elf_note.h"
#include "preload/hot/unwind_rules.h"

#define HEADER (LP_RULES_MAGIC_LEN + 8)
#define MAX_OBJS 128

_Static_assert(sizeof(LP_RULES_MAGIC) - 1 == LP_RULES_MAGIC_LEN, "magic length");

enum { S_FREE, S_LOADING, S_READY, S_NONE };

static struct lp_rules_obj objs[MAX_OBJS];

static char prefix[512]; /* "DIR/" */
static size_t prefix_len;
static char self12[13];
static bool enabled;

void lp_rules_file_set_dir(const char *dir, const char *self12_in)
{
    size_t n;

    if (dir == NULL || self12_in == NULL || (n = strlen(dir)) + 2 > sizeof(prefix)) {
        lp_store_release(&enabled, false);
        return;
    }
    memcpy(prefix, dir, n);
    prefix[n] = '/';
    prefix_len = n + 1;
    memcpy(self12, self12_in, 12);
    lp_store_release(&enabled, true);
}

/* prefix + hex(id) + "." + self12 + ext into buf (no libc formatting:
 * this runs inside malloc). False when it does not fit. */
bool lp_rules_file_name(const struct lp_rules_obj *o, char *buf, size_t n)
{
    static const char hex[] = "0123456789abcdef", ext[] = ".rules";
    size_t len = prefix_len, e = sizeof(ext) - 1;
    int i;

    if (len + 2 * (size_t)o->idlen + 1 + 12 + e + 1 > n)
        return false;
    memcpy(buf, prefix, prefix_len);
    for (i = 0; i < o->idlen; i++) {
        buf[len++] = hex[o->id[i] >> 4];
        buf[len++] = hex[o->id[i] & 15];
    }
    buf[len++] = '.';
    memcpy(buf + len, self12, 12);
    len += 12;
    memcpy(buf + len, ext, e + 1);
    return true;
}

static bool valid(const struct lp_rules_rec *r, size_t n)
{
    size_t i;

    for (i = 1; i < n; i++)
        if (r[i - 1].off >= r[i].off)
            return false;
    return true;
}

/* What o's file holds now (o->idlen known), or NULL when there is none
 * or it is not usable. */
static const struct lp_rules_set *read_file(const struct lp_rules_obj *o)
{
    char path[700], head[HEADER];
    const struct lp_rules_set *got = NULL;
    struct lp_rules_set *s;
    struct stat st;
    uint64_t n;
    size_t bytes;
    long fd;

    if (!lp_rules_file_name(o, path, sizeof(path)))
        return NULL;
    fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    if (syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (size_t)st.st_size >= HEADER &&
        syscall(SYS_read, fd, head, HEADER) == HEADER &&
        memcmp(head, LP_RULES_MAGIC, LP_RULES_MAGIC_LEN) == 0) {
        memcpy(&n, head + LP_RULES_MAGIC_LEN, 8);
        bytes = sizeof(*s) + n * sizeof(struct lp_rules_rec);
        if (n <= LP_RULES_MAX && (size_t)st.st_size == HEADER + n * sizeof(struct lp_rules_rec) &&
            n > 0 && (s = lp_arena_alloc(bytes)) != NULL) {
            s->n = n;
            if (syscall(SYS_read, fd, s->r, n * sizeof(struct lp_rules_rec)) ==
                    (long)(n * sizeof(struct lp_rules_rec)) &&
                valid(s->r, n))
                got = s;
            else
                lp_arena_free(s, bytes);
        }
    }
    syscall(SYS_close, fd);
    return got;
}

/* Read o's file (o is ours: S_LOADING). */
static void load(struct lp_rules_obj *o)
{
    o->idlen = lp_elf_build_id_at(o->start, o->bias, o->id);
    if (o->idlen == 0) {
        lp_store_release(&o->state, S_NONE);
        return;
    }
    lp_store_release(&o->set, read_file(o)); /* NULL: none known yet */
    lp_store_release(&o->state, S_READY);
}

/* The slot of the object mapped at start, claimed if new; NULL when the
 * table is full. */
static struct lp_rules_obj *slot_of(uintptr_t start, uintptr_t bias)
{
    size_t i = (size_t)((start >> 12) * 0x9e3779b97f4a7c15ull >> 57), k;

    for (k = 0; k < MAX_OBJS; k++, i = (i + 1) % MAX_OBJS) {
        struct lp_rules_obj *o = &objs[i];
        uintptr_t s = lp_load_acquire(&o->start);

        if (s == start)
            return o;
        if (s != 0)
            continue;
        if (lp_cas(&o->start, &s, start)) {
            o->bias = bias;
            o->gen = lp_load_acquire(&lp_rules_gen);
            lp_store_release(&o->state, S_LOADING);
            load(o);
            return o;
        }
        if (s == start)
            return o;
    }
    return NULL;
}

/* ra's object's slot, claimed (and its file read) if new. */
static struct lp_rules_obj *obj_of(uintptr_t ra)
{
    struct dl_find_object fo;

    if (!lp_load_acquire(&enabled) ||
        _dl_find_object((void *)(ra - 1), &fo) != 0 || fo.dlfo_link_map == NULL)
        return NULL;
    return slot_of((uintptr_t)fo.dlfo_map_start, (uintptr_t)fo.dlfo_link_map->l_addr);
}

void lp_rules_file_claim(uintptr_t ra)
{
    (void)obj_of(ra);
}

bool lp_rules_set_has(const struct lp_rules_set *s, uint64_t off,
                      uint64_t *rule)
{
    size_t lo = 0, hi;

    if (s == NULL)
        return false;
    hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->r[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == s->n || s->r[lo].off != off)
        return false;
    if (rule)
        *rule = s->r[lo].rule;
    return true;
}

bool lp_rules_file_find(uintptr_t ra, uint64_t *rule)
{
    struct lp_rules_obj *o = obj_of(ra);
    const struct lp_rules_set *s;
    int one = 1;

    if (o == NULL || lp_load_acquire(&o->state) != S_READY ||
        o->gen != lp_load_acquire(&lp_rules_gen))
        return false;
    if (lp_rules_set_has(lp_load_acquire(&o->set), (uint64_t)(ra - o->bias),
                         rule))
        return true;
    /* A fork child's first such miss in the object: what the file holds
     * now (the set it replaces stays: a reader may hold it). */
    if (!lp_load_relaxed(&o->stale) || !lp_cas(&o->stale, &one, 0))
        return false;
    if ((s = read_file(o)) == NULL)
        return false;
    lp_store_release(&o->set, s);
    return lp_rules_set_has(s, (uint64_t)(ra - o->bias), rule);
}

void lp_rules_file_atfork_child(void)
{
    size_t i;

    for (i = 0; i < MAX_OBJS; i++)
        if (lp_load_relaxed(&objs[i].start) != 0 &&
            lp_load_relaxed(&objs[i].state) == S_READY)
            lp_store_relaxed(&objs[i].stale, 1);
}

bool lp_rules_file_obj(size_t i, const struct lp_rules_obj **o)
{
    const struct lp_rules_obj *x;

    if (i >= MAX_OBJS)
        return false;
    x = &objs[i];
    *o = lp_load_acquire(&x->start) != 0 &&
                 lp_load_acquire(&x->state) == S_READY &&
                 x->gen == lp_load_acquire(&lp_rules_gen) &&
                 lp_load_acquire(&enabled)
             ? x
             : NULL;
    return true;
}

void lp_rules_file_forget(void)
{
    memset(objs, 0, sizeof(objs));
}
