/* SPDX-License-Identifier: MIT */
/*
 * exit_lists.c - glibc's atexit handler blocks (exit_lists.h).
 *
 * The calloc hook hands us every calloc(1, 1040); one made from libc's own
 * code is __new_exitfn's (no other libc function asks for that size). Its
 * address goes into an array (32 KiB of .bss), lock-free (an atomic index; a block
 * past the array's end is not remembered: 4,096 blocks are 131,072
 * handlers; libLLVM alone registers some 3,000 before main).
 * At exit each remembered address that the table still holds with that
 * size is forgotten as if freed; one freed meanwhile and reused by some
 * other block is not (its size or caller tells).
 * Context: lp_exit_lists_note HOT-safe; the rest COLD.
 */
#include "preload/life/exit_lists.h"

#include <dlfcn.h>

#include "preload/hot/real.h"
#include "preload/hot/nursery.h"
#include "preload/hot/table.h"
#include "preload/hot/track.h"
#include "preload/lp.h"

#define MAX_LISTS 4096

static uintptr_t libc_lo, libc_hi;
static uintptr_t lists[MAX_LISTS];
static unsigned nlists;

void lp_exit_lists_init(void)
{
    struct dl_find_object obj;

    if (lp_real.calloc != NULL &&
        _dl_find_object((void *)(uintptr_t)lp_real.calloc, &obj) == 0) {
        libc_lo = (uintptr_t)obj.dlfo_map_start;
        libc_hi = (uintptr_t)obj.dlfo_map_end;
    }
}

LP_NOINLINE void lp_exit_lists_note(void *p, uintptr_t caller)
{
    unsigned i;

    if (p == NULL || caller < libc_lo || caller >= libc_hi)
        return;
    i = __atomic_fetch_add(&nlists, 1, __ATOMIC_RELAXED);
    if (i < MAX_LISTS)
        lp_store_release(&lists[i], (uintptr_t)p);
}

void lp_exit_lists_forget(void)
{
    unsigned i, n = lp_load_acquire(&nlists);
    struct lp_block b;

    if (n > MAX_LISTS)
        n = MAX_LISTS;
    /* One visit of the nurseries for all the finds (each would otherwise
     * be one, with a membarrier when threads still run). */
    lp_nursery_visit_begin();
    for (i = 0; i < n; i++) {
        uintptr_t p = lp_load_acquire(&lists[i]);

        if (p != 0 && lp_table_find(p, &b) == 0 && b.size == LP_EXIT_LIST_SIZE)
            lp_track_forget((void *)p);
    }
    lp_nursery_visit_end();
}
