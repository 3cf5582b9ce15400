/* SPDX-License-Identifier: MIT */
/*
 * symbolize_unloaded.c - frames in objects the program unloaded, named
 * from their files (keep_debuginfo=yes, Valgrind's --keep-debuginfo).
 *
 * The preload library records each object dlclose unloaded, with its
 * path and load bias (lp_sym_unloaded, newest first). Each is reported
 * into a libdwfl session of its own, apart from the objects mapped now
 * and from each other: the hole one left may hold another object since
 * (the symbolizer's own libdw is often loaded there), an object unloaded
 * twice may have sat at two addresses or two objects at one, and one
 * session keeps no two modules over the same addresses. An address that
 * no mapped object holds (or that lies in one the symbolizer loaded
 * itself) is looked up in them, the newest first. The sessions are made
 * again when more objects were unloaded since (a live report, then more
 * dlcloses). Without line tables the frame reads "fn (in /path/lib.so)",
 * as Valgrind's does.
 * Context: COLD.
 */
#include "report/symbolize_impl.h"

#include <stdlib.h>
#include <string.h>

bool (*lp_sym_unloaded)(size_t i, const char **path, uintptr_t *bias);

/* One session per record, made when the count of records changed. */
static bool sessions(struct lp_sym *sym)
{
    const char *path;
    uintptr_t bias;
    size_t n = 0, i;

    if (lp_sym_unloaded == NULL)
        return false;
    while (lp_sym_unloaded(n, &path, &bias))
        n++;
    if (n == sym->gone_n)
        return n > 0;
    lp_sym_unloaded_end(sym);
    sym->gone = calloc(n, sizeof(*sym->gone));
    if (sym->gone == NULL)
        return false;
    sym->gone_n = n;
    for (i = 0; i < n && lp_sym_unloaded(i, &path, &bias); i++) {
        Dwfl *d = dwfl_begin(&sym->cb);

        if (d == NULL)
            continue;
        dwfl_report_begin(d);
        if (dwfl_report_elf(d, path, path, -1, bias, true) == NULL ||
            dwfl_report_end(d, NULL, NULL) != 0) {
            dwfl_end(d);
            continue;
        }
        sym->gone[i] = d;
    }
    return true;
}

Dwfl_Module *lp_sym_unloaded_module(struct lp_sym *sym, uintptr_t addr)
{
    size_t i;

    if (!sessions(sym))
        return NULL;
    for (i = 0; i < sym->gone_n; i++) {
        Dwfl_Module *mod;
        Dwarf_Addr lo = 0, hi = 0;

        if (sym->gone[i] == NULL ||
            (mod = dwfl_addrmodule(sym->gone[i], addr)) == NULL ||
            dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL) == NULL)
            continue;
        if (addr >= lo && addr < hi)
            return mod;
    }
    return NULL;
}

void lp_sym_unloaded_end(struct lp_sym *sym)
{
    size_t i;

    for (i = 0; i < sym->gone_n; i++)
        if (sym->gone[i] != NULL)
            dwfl_end(sym->gone[i]);
    free(sym->gone);
    sym->gone = NULL;
    sym->gone_n = 0;
}
