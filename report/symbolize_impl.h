/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_SYMBOLIZE_IMPL_H
#define LP_REPORT_SYMBOLIZE_IMPL_H
/*
 * symbolize_impl.h - the symbolizer's insides, shared by symbolize.c
 * (names and lines through libdwfl) and symbolize_cache.c (what it
 * learns, kept per object across processes: symcache.h). Not for other
 * modules: the two are the only includers of libdwfl.
 */
#include "report/symbolize.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <uthash.h>

struct sym_str {
    UT_hash_handle hh;
    char s[]; /* the key */
};

struct sym_entry {
    uintptr_t addr; /* the key: lookup (and printed) address */
    int n;
    UT_hash_handle hh;
    struct lp_sym_frame frames[]; /* n of them (sym_entry_new) */
};

/* An entry for addr with room for n frames (malloc: free() frees it). */
static inline struct sym_entry *sym_entry_new(uintptr_t addr, int n)
{
    struct sym_entry *e =
        malloc(sizeof(*e) + (size_t)(n > 0 ? n : 0) * sizeof(e->frames[0]));

    if (e != NULL) {
        e->addr = addr;
        e->n = n;
    }
    return e;
}

struct sym_mod {
    Dwfl_Module *mod;
    struct lp_symindex *index;
    struct lp_cuindex *cus; /* read on first need */
    bool cus_read;
    UT_hash_handle hh;
};

/* The out-of-line function name of an address (lp_sym_function). */
struct sym_fn {
    uintptr_t addr;
    const char *fn;
    UT_hash_handle hh;
};

/* A loaded object's cross-process cache file (symcache.h), found
 * without libdwfl: the loader's list gives its span, load bias and
 * build-id, /proc/self/maps its name. Opened on its first lookup,
 * written back when libdwfl resolved new addresses in it. */
struct sym_mcache {
    uintptr_t lo, hi; /* its PT_LOAD segments */
    uintptr_t bias;   /* a record's offset is address - bias */
    unsigned char id[64];
    int idlen;
    const char *obj; /* its name as maps spells it (libdwfl's), or NULL */
    bool opened, usable, dirty;
    struct lp_symcache *file; /* as it was read, or NULL */
    char path[4200];
    char state[160];
};

struct lp_sym {
    Dwfl *dwfl;
    bool started;        /* dwfl begun (on first use: lp_sym_new is cheap) */
    unsigned long long adds, subs; /* the loader's counts at the report */
    struct sym_mod *mods;
    char *debuginfo_path; /* libdwfl keeps a pointer to this pointer */
    Dwfl_Callbacks cb;
    struct sym_entry *cache;
    struct sym_fn *fns;
    struct sym_mcache *mcs; /* the loaded objects, when mc_built */
    size_t nmc;
    size_t mc_last; /* mcs[mc_last] held the last address asked about */
    bool mc_built;
    unsigned long long mc_adds, mc_subs; /* the loader's counts then */
    struct sym_str *strs;
    Dwfl **gone;   /* a session per object unloaded (symbolize_unloaded.c) */
    size_t gone_n; /* how many */
};

/* The string, owned by sym's table (NULL for NULL or out of memory). */
const char *lp_sym_intern(struct lp_sym *sym, const char *s);

/* An address no table knew: from its object's cache file, without
 * libdwfl, into sym->cache (frames) or, unless frames is set, sym->fns
 * when the file only has its function's name. True when found. */
bool lp_sym_cache_lookup(struct lp_sym *sym, uintptr_t addr, bool frames);

/* An address libdwfl is about to resolve: its object's file learns it
 * (written by lp_sym_save_cache). */
void lp_sym_cache_miss(struct lp_sym *sym, uintptr_t addr);

/* Forget the objects and close their files (after a save). */
void lp_sym_cache_drop(struct lp_sym *sym);

/* keep_debuginfo=yes: the module of an unloaded object holding addr, or
 * NULL (symbolize_unloaded.c); and the end of their session. */
Dwfl_Module *lp_sym_unloaded_module(struct lp_sym *sym, uintptr_t addr);
void lp_sym_unloaded_end(struct lp_sym *sym);

/* libdwfl and the module report, on first use (symbolize.c); false when
 * either failed. */
bool lp_sym_ensure(struct lp_sym *sym);

/* A descriptor of the calling thread's maps, or -1 (symbolize_chroot.c). */
int lp_sym_open_maps(void);

/* A chrooted process: the modules from the maps read through lp_sym_open
 * (symbolize_chroot.c); false when they cannot be read. */
bool lp_sym_maps_report(Dwfl *dwfl);

#endif /* LP_REPORT_SYMBOLIZE_IMPL_H */
