/* SPDX-License-Identifier: MIT */
/*
 * symbolize_cache.c - what the symbolizer learns, kept per object across
 * processes (symcache.h): a module's cache file is read on its first
 * miss, and written back (lp_sym_save_cache) when new addresses were
 * resolved, so a 20-process build reads the C library's debug info once.
 * Context: COLD.
 */
#include "report/symbolize_impl.h"

#include <stdlib.h>
#include <string.h>

#include "report/symcache.h"

struct cache_load {
    struct lp_sym *sym;
    struct sym_mcache *mc;
};

static void cache_add(void *ctx, const struct lp_symcache_rec *r)
{
    struct cache_load *cl = ctx;
    struct lp_sym *sym = cl->sym;
    uintptr_t addr = (uintptr_t)(cl->mc->start + r->off);
    struct sym_entry *e;
    struct sym_fn *f;
    int k;

    if (r->off >= cl->mc->end - cl->mc->start)
        return;
    if (r->n == 0) {
        HASH_FIND(hh, sym->fns, &addr, sizeof(addr), f);
        if (f != NULL || (f = malloc(sizeof(*f))) == NULL)
            return;
        f->addr = addr;
        f->fn = lp_sym_intern(sym, r->fn);
        HASH_ADD(hh, sym->fns, addr, sizeof(f->addr), f);
        return;
    }
    HASH_FIND(hh, sym->cache, &addr, sizeof(addr), e);
    if (e != NULL || (e = malloc(sizeof(*e))) == NULL)
        return;
    e->addr = addr;
    e->n = r->n;
    for (k = 0; k < r->n; k++) {
        e->frames[k] = r->frames[k];
        e->frames[k].addr = addr;
        e->frames[k].obj = cl->mc->obj;
        e->frames[k].fn = lp_sym_intern(sym, r->frames[k].fn);
        e->frames[k].mangled = lp_sym_intern(sym, r->frames[k].mangled);
        e->frames[k].file = lp_sym_intern(sym, r->frames[k].file);
        e->frames[k].path = lp_sym_intern(sym, r->frames[k].path);
        e->frames[k].comp_dir = lp_sym_intern(sym, r->frames[k].comp_dir);
    }
    HASH_ADD(hh, sym->cache, addr, sizeof(e->addr), e);
}

/* The cache record of mod, loading its file on first use. */
static struct sym_mcache *module_cache(struct lp_sym *sym, Dwfl_Module *mod)
{
    struct sym_mcache *mc;
    const unsigned char *bits = NULL;
    GElf_Addr vaddr;
    Dwarf_Addr bias;
    const char *name;
    int len;

    HASH_FIND_PTR(sym->mcaches, &mod, mc);
    if (mc != NULL)
        return mc;
    mc = calloc(1, sizeof(*mc));
    if (mc == NULL)
        return NULL;
    mc->mod = mod;
    HASH_ADD_PTR(sym->mcaches, mod, mc);
    name = dwfl_module_info(mod, NULL, &mc->start, &mc->end, NULL, NULL, NULL, NULL);
    mc->obj = lp_sym_intern(sym, name);
    if (dwfl_module_getelf(mod, &bias) == NULL)
        return mc;
    len = dwfl_module_build_id(mod, &bits, &vaddr);
    if (len > 0 && lp_symcache_locate(bits, len, mc->path, sizeof(mc->path),
                                      mc->state, sizeof(mc->state)) == 0) {
        struct cache_load cl = { sym, mc };

        mc->usable = true;
        (void)lp_symcache_read(mc->path, mc->state, cache_add, &cl);
    }
    return mc;
}

/* Before resolving addr: load its module's cache file (which may hold
 * it), else note that the module learns something new. */
Dwfl_Module *lp_sym_prepare_miss(struct lp_sym *sym, uintptr_t addr,
                                 struct sym_mcache **mcp)
{
    Dwfl_Module *mod = dwfl_addrmodule(sym->dwfl, addr);

    *mcp = mod != NULL ? module_cache(sym, mod) : NULL;
    return mod;
}

static void save_module(struct lp_sym *sym, struct sym_mcache *mc)
{
    struct sym_entry *e, *etmp;
    struct sym_fn *f, *ftmp;
    struct lp_symcache_rec *recs, **ptrs;
    size_t n = 0, cap = HASH_COUNT(sym->cache) + HASH_COUNT(sym->fns);

    recs = malloc(sizeof(*recs) * (cap + 1));
    ptrs = malloc(sizeof(*ptrs) * (cap + 1));
    if (recs != NULL && ptrs != NULL) {
        HASH_ITER(hh, sym->cache, e, etmp) {
            if (e->addr < mc->start || e->addr >= mc->end || n == cap)
                continue;
            recs[n].off = e->addr - mc->start;
            recs[n].n = e->n;
            recs[n].fn = NULL;
            memcpy(recs[n].frames, e->frames, sizeof(e->frames[0]) * (size_t)e->n);
            ptrs[n] = &recs[n];
            n++;
        }
        HASH_ITER(hh, sym->fns, f, ftmp) {
            if (f->addr < mc->start || f->addr >= mc->end || n == cap)
                continue;
            recs[n].off = f->addr - mc->start;
            recs[n].n = 0;
            recs[n].fn = f->fn;
            ptrs[n] = &recs[n];
            n++;
        }
        (void)lp_symcache_write(mc->path, mc->state,
                                (const struct lp_symcache_rec *const *)ptrs, n);
    }
    free(recs);
    free(ptrs);
    mc->dirty = false;
}

void lp_sym_save_cache(struct lp_sym *sym)
{
    struct sym_mcache *mc, *tmp;

    if (sym == NULL)
        return;
    HASH_ITER(hh, sym->mcaches, mc, tmp)
        if (mc->usable && mc->dirty)
            save_module(sym, mc);
}

