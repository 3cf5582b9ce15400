/* SPDX-License-Identifier: MIT */
/*
 * own_objects.c - which loaded objects are ours (own_objects.h): found
 * each time the scan asks, as objects come and go with dlopen.
 * Context: COLD, guard held, before the stop.
 */
#include "preload/scan/own_objects.h"

#include <link.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "preload/hot/foreign.h"
#include "preload/life/unwind_dep.h"

_Static_assert(LP_OWN_OBJECTS_MAX >= LP_FOREIGN_MAX + 2,
               "room for us, libunwind and every foreign object");

static uintptr_t page_up(uintptr_t a)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

    return (a + page - 1) & ~(page - 1);
}

/* The object holding code address pc: its range and link map. */
static struct link_map *object_of(const void *pc, struct lp_own_range *r)
{
    struct dl_find_object o;

    if (_dl_find_object((void *)pc, &o) != 0)
        return NULL;
    r->lo = (uintptr_t)o.dlfo_map_start;
    r->hi = page_up((uintptr_t)o.dlfo_map_end);
    return o.dlfo_link_map;
}

size_t lp_own_objects(struct lp_own_range *out)
{
    struct lp_own_range self, unw;
    struct link_map *self_map, *unw_map;
    unsigned i, nf = lp_load_acquire(&lp_foreign_n);
    size_t n = 0;

    self_map = object_of((const void *)(uintptr_t)&lp_own_objects, &self);
    if (self_map)
        out[n++] = self;
    unw_map = object_of((const void *)(uintptr_t)&unw_init_local, &unw);
    if (self_map && unw_map && unw_map != self_map &&
        lp_unwind_dep_is(unw_map->l_name) && !lp_unwind_dep_shared())
        out[n++] = unw;
    for (i = 0; i < nf && i < LP_FOREIGN_MAX; i++) {
        out[n].lo = lp_foreign[i].lo;
        out[n].hi = page_up(lp_foreign[i].hi);
        n++;
    }
    return n;
}
