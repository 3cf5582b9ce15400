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
#include <uthash.h>

struct sym_str {
    UT_hash_handle hh;
    char s[]; /* the key */
};

struct sym_entry {
    uintptr_t addr; /* the key: lookup (and printed) address */
    int n;
    struct lp_sym_frame frames[LP_SYM_MAX_INLINE];
    UT_hash_handle hh;
};

/* One module's function names by address (names point into libdwfl's
 * symbol tables, valid while the module is reported). */
struct sym_alias {
    GElf_Addr addr;
    const char *name;
    UT_hash_handle hh;
};

struct sym_mod {
    Dwfl_Module *mod;
    struct sym_alias *aliases;
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

/* A module's cross-process cache file (symcache.h): loaded on the
 * module's first miss, written back when new addresses were resolved. */
struct sym_mcache {
    Dwfl_Module *mod;
    Dwarf_Addr start, end;
    const char *obj; /* the module's name, as frames carry it */
    bool usable, dirty;
    char path[4200];
    char state[160];
    UT_hash_handle hh;
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
    struct sym_mcache *mcaches;
    struct sym_str *strs;
};

/* The string, owned by sym's table (NULL for NULL or out of memory). */
const char *lp_sym_intern(struct lp_sym *sym, const char *s);

/* Before resolving addr: load its module's cache file (which may hold
 * it), else note that the module learns something new. *mcp: the
 * module's cache record, or NULL. */
Dwfl_Module *lp_sym_prepare_miss(struct lp_sym *sym, uintptr_t addr,
                                 struct sym_mcache **mcp);

#endif /* LP_REPORT_SYMBOLIZE_IMPL_H */
