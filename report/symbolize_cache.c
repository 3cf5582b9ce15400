/* SPDX-License-Identifier: MIT */
/*
 * symbolize_cache.c - what the symbolizer learns, kept per object across
 * processes (symcache.h), and answered without libdwfl.
 *
 * An address no table of this process knows is looked up first in its
 * object's cache file. The object comes from the loader's own list
 * (dl_iterate_phdr: span, load bias, the build-id note in memory) and its
 * name from /proc/self/maps, spelled as libdwfl spells it, so a frame from
 * the file equals the frame libdwfl would give. Only a miss starts
 * libdwfl (symbolize.c: loading libdw, reporting every module, opening
 * their ELF files); a process whose every address was seen before never
 * does. That start and the parse of the text files it used to read were
 * about 1.3 ms of the 1.9 ms we added to an empty program with massif on,
 * and every process of a 20-process `make` paid them.
 *
 * A file is written back (lp_sym_save_cache) when libdwfl resolved
 * addresses in its object: what this process found, plus every record
 * of the old file it did not look up.
 * Context: COLD.
 */
#include "report/symbolize_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/cache_prune.h"
#include "report/symcache.h"

#define PAGE_MASK ((uintptr_t)4095)

/* --- the loaded objects ------------------------------------------------ */

struct table_build {
    struct sym_mcache *mcs;
    size_t n, cap;
    unsigned long long adds, subs;
    bool failed;
};

void lp_sym_object_span(const struct dl_phdr_info *info, uintptr_t *lo,
                        uintptr_t *hi)
{
    int i;

    *lo = UINTPTR_MAX;
    *hi = 0;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
            continue;
        if ((a & ~PAGE_MASK) < *lo)
            *lo = a & ~PAGE_MASK;
        if (((a + ph->p_memsz + PAGE_MASK) & ~PAGE_MASK) > *hi)
            *hi = (a + ph->p_memsz + PAGE_MASK) & ~PAGE_MASK;
    }
}

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct table_build *t = arg;
    struct sym_mcache *mc;
    uintptr_t lo, hi;

    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
        t->adds = info->dlpi_adds;
        t->subs = info->dlpi_subs;
    }
    lp_sym_object_span(info, &lo, &hi);
    if (hi <= lo)
        return 0;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        struct sym_mcache *m = realloc(t->mcs, cap * sizeof(*m));

        if (m == NULL) {
            t->failed = true;
            return 1;
        }
        t->mcs = m;
        t->cap = cap;
    }
    mc = &t->mcs[t->n++];
    memset(mc, 0, sizeof(*mc));
    mc->lo = lo;
    mc->hi = hi;
    mc->bias = info->dlpi_addr;
    mc->idlen = lp_symcache_build_id(info, mc->id);
    return 0;
}

/* /proc/self/maps, whole (NUL-terminated, malloc'd), or NULL. */
static char *read_maps(void)
{
    int fd = lp_sym_open_maps();
    size_t len = 0, room = 16384;

    char *buf = NULL;

    if (fd < 0)
        return NULL;
    for (;;) {
        ssize_t n;

        if (buf == NULL || room - len < 4096) {
            char *b = realloc(buf, room *= 2);

            if (b == NULL) {
                free(buf);
                close(fd);
                return NULL;
            }
            buf = b;
        }
        n = read(fd, buf + len, room - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    return buf;
}

static const char *skip_field(const char *p)
{
    while (*p == ' ')
        p++;
    while (*p != ' ' && *p != '\n' && *p != '\0')
        p++;
    return p;
}

/* Each object's name: the path of the mapping where its span begins,
 * as libdwfl's report takes it from the same file. Objects without one
 * (the vDSO) or whose file was deleted keep NULL: libdwfl names them. */
static void name_objects(struct lp_sym *sym)
{
    char *maps = read_maps(), *line, *next;

    if (maps == NULL)
        return;
    for (line = maps; *line; line = next) {
        char *end;
        const char *p, *path;
        uintptr_t lo, hi;
        size_t i, len;

        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        lo = (uintptr_t)strtoull(line, &end, 16);
        if (*end != '-')
            continue;
        hi = (uintptr_t)strtoull(end + 1, &end, 16);
        p = end;
        for (i = 0; i < 4; i++) /* perms, offset, device, inode */
            p = skip_field(p);
        while (*p == ' ')
            p++;
        path = p;
        len = (size_t)(next - path);
        if (len > 0 && path[len - 1] == '\n')
            len--;
        if (len == 0 || path[0] != '/' ||
            (len > 10 && memcmp(path + len - 10, " (deleted)", 10) == 0))
            continue;
        for (i = 0; i < sym->nmc; i++) {
            struct sym_mcache *mc = &sym->mcs[i];

            if (mc->obj == NULL && mc->lo >= lo && mc->lo < hi) {
                path = p;
                ((char *)path)[len] = '\0';
                mc->obj = lp_sym_intern(sym, path);
                break;
            }
        }
    }
    free(maps);
}

static void build_table(struct lp_sym *sym)
{
    struct table_build t = {0};

    sym->mc_built = true;
    dl_iterate_phdr(add_object, &t);
    if (t.failed) {
        free(t.mcs);
        return;
    }
    sym->mcs = t.mcs;
    sym->nmc = t.n;
    sym->mc_adds = t.adds;
    sym->mc_subs = t.subs;
    name_objects(sym);
}

/* The object holding addr, its cache file looked for on first use. */
static struct sym_mcache *mcache_of(struct lp_sym *sym, uintptr_t addr)
{
    size_t i;

    if (!sym->mc_built)
        build_table(sym);
    if (lp_sym_loaded_by_us != NULL && lp_sym_loaded_by_us(addr, sym->mc_adds))
        return NULL; /* an unloaded object's address: "???" */
    /* The object of the last address first: a report's frames mostly lie
     * in one or two objects, and each entry is 4 KiB apart (its paths):
     * the scan missed the cache on every entry (cc1's exit report, 15,000
     * lookups over 20 objects: 1.3 ms). */
    for (i = 0; i <= sym->nmc; i++) {
        size_t at = i == 0 ? sym->mc_last : i - 1;
        struct sym_mcache *mc;

        if (at >= sym->nmc || (i > 0 && at == sym->mc_last))
            continue;
        mc = &sym->mcs[at];
        if (addr < mc->lo || addr >= mc->hi)
            continue;
        sym->mc_last = at;
        if (!mc->opened) {
            mc->opened = true;
            if (mc->obj != NULL && mc->idlen > 0 &&
                lp_symcache_locate(mc->id, mc->idlen, mc->path, sizeof(mc->path),
                                   mc->state, sizeof(mc->state)) == 0) {
                mc->usable = true;
                mc->file = lp_symcache_open(mc->path, mc->state);
            }
        }
        return mc;
    }
    return NULL;
}

/* --- lookups ---------------------------------------------------------- */

bool lp_sym_cache_lookup(struct lp_sym *sym, uintptr_t addr, bool frames)
{
    struct sym_mcache *mc = mcache_of(sym, addr);
    struct lp_sym_frame fr[LP_SYM_MAX_INLINE];
    struct lp_symcache_rec r = { .frames = fr };
    struct sym_entry *e;
    struct sym_fn *f;
    int k;

    if (mc == NULL || mc->file == NULL ||
        !lp_symcache_find(mc->file, (uint64_t)(addr - mc->bias), frames, &r))
        return false;
    if (r.n == 0) {
        if ((f = malloc(sizeof(*f))) == NULL)
            return false;
        f->addr = addr;
        f->fn = lp_sym_intern(sym, r.fn);
        HASH_ADD(hh, sym->fns, addr, sizeof(f->addr), f);
        return true;
    }
    if ((e = sym_entry_new(addr, r.n)) == NULL)
        return false;
    for (k = 0; k < r.n; k++) {
        e->frames[k] = r.frames[k];
        e->frames[k].addr = addr;
        e->frames[k].obj = mc->obj;
        e->frames[k].fn = lp_sym_intern(sym, r.frames[k].fn);
        e->frames[k].mangled = lp_sym_intern(sym, r.frames[k].mangled);
        e->frames[k].file = lp_sym_intern(sym, r.frames[k].file);
        e->frames[k].path = lp_sym_intern(sym, r.frames[k].path);
        e->frames[k].comp_dir = lp_sym_intern(sym, r.frames[k].comp_dir);
    }
    HASH_ADD(hh, sym->cache, addr, sizeof(e->addr), e);
    return true;
}

void lp_sym_cache_miss(struct lp_sym *sym, uintptr_t addr)
{
    struct sym_mcache *mc = mcache_of(sym, addr);

    if (mc != NULL && mc->usable)
        mc->dirty = true;
}

/* --- writing back ------------------------------------------------------ */

static bool save_module(struct lp_sym *sym, struct sym_mcache *mc)
{
    bool wrote = false;
    struct sym_entry *e, *etmp;
    struct sym_fn *f, *ftmp;
    struct lp_symcache_rec *recs, **ptrs;
    struct lp_sym_frame *pool;
    size_t n = 0, i, used = 0, old = lp_symcache_count(mc->file),
           room = lp_symcache_frames_bound(mc->file),
           cap = HASH_COUNT(sym->cache) + HASH_COUNT(sym->fns) + old;

    /* This process's records point at its entries' frames; the old
     * file's are read into pool, which holds them all. */
    recs = malloc(sizeof(*recs) * (cap + 1));
    ptrs = malloc(sizeof(*ptrs) * (cap + 1));
    pool = malloc(sizeof(*pool) * (room + 1));
    if (recs != NULL && ptrs != NULL && pool != NULL) {
        HASH_ITER(hh, sym->cache, e, etmp) {
            if (e->addr < mc->lo || e->addr >= mc->hi || n == cap)
                continue;
            recs[n].off = e->addr - mc->bias;
            recs[n].n = e->n;
            recs[n].fn = NULL;
            recs[n].frames = e->frames;
            ptrs[n] = &recs[n];
            n++;
        }
        HASH_ITER(hh, sym->fns, f, ftmp) {
            if (f->addr < mc->lo || f->addr >= mc->hi || n == cap)
                continue;
            recs[n].off = f->addr - mc->bias;
            recs[n].n = 0;
            recs[n].fn = f->fn;
            recs[n].frames = NULL;
            ptrs[n] = &recs[n];
            n++;
        }
        /* The old file's records this process did not look up. */
        for (i = 0; i < old && n < cap; i++) {
            uintptr_t addr;
            uint64_t off;
            int k;

            if (!lp_symcache_peek(mc->file, i, &off, &k) ||
                (size_t)k > room - used)
                continue;
            addr = mc->bias + (uintptr_t)off;
            if (k > 0)
                HASH_FIND(hh, sym->cache, &addr, sizeof(addr), e);
            else
                HASH_FIND(hh, sym->fns, &addr, sizeof(addr), f);
            if (k > 0 ? e != NULL : f != NULL)
                continue;
            recs[n].frames = pool + used;
            if (!lp_symcache_get(mc->file, i, &recs[n]))
                continue;
            used += (size_t)k;
            ptrs[n] = &recs[n];
            n++;
        }
        wrote = lp_symcache_write(mc->path, mc->state,
                                  (const struct lp_symcache_rec *const *)ptrs,
                                  n) == 0;
    }
    free(recs);
    free(ptrs);
    free(pool);
    mc->dirty = false;
    return wrote;
}

void lp_sym_save_cache(struct lp_sym *sym)
{
    const char *self12 = NULL, *dir;
    bool wrote = false;
    size_t i;

    if (sym == NULL)
        return;
    for (i = 0; i < sym->nmc; i++)
        if (sym->mcs[i].usable && sym->mcs[i].dirty)
            wrote |= save_module(sym, &sym->mcs[i]);
    /* A process that added to the cache keeps it bounded. */
    if (wrote && (dir = lp_symcache_where(&self12)) != NULL)
        lp_cache_prune_maybe(dir, self12);
}

void lp_sym_cache_drop(struct lp_sym *sym)
{
    size_t i;

    for (i = 0; i < sym->nmc; i++)
        lp_symcache_close(sym->mcs[i].file);
    free(sym->mcs);
    sym->mcs = NULL;
    sym->nmc = 0;
    sym->mc_last = 0;
    sym->mc_built = false;
}
