/* SPDX-License-Identifier: MIT */
/*
 * foreign.c - recording the objects our own dlopens added to the program
 * while it runs (foreign.h says why their allocations are ours).
 * Context: COLD, guard held.
 */
#include "preload/hot/foreign.h"

#include <link.h>

struct lp_foreign_range lp_foreign[LP_FOREIGN_MAX];
unsigned lp_foreign_n;

static int count_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)info, (void)size;
    ++*(unsigned long long *)arg;
    return 0;
}

unsigned long long lp_foreign_count(void)
{
    unsigned long long n = 0;

    dl_iterate_phdr(count_cb, &n);
    return n;
}

/* The loader lists objects in load order: the new ones come last. */
struct walk {
    unsigned long long before, seen;
};

static int note_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct walk *w = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    unsigned n = lp_foreign_n;
    int i;

    (void)size;
    if (w->seen++ < w->before || n >= LP_FOREIGN_MAX)
        return 0;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type != PT_LOAD)
            continue;
        if (info->dlpi_addr + ph->p_vaddr < lo)
            lo = info->dlpi_addr + ph->p_vaddr;
        if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
            hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    if (lo < hi) {
        lp_foreign[n].lo = lo;
        lp_foreign[n].hi = hi;
        lp_store_release(&lp_foreign_n, n + 1);
    }
    return 0;
}

void lp_foreign_note_loaded(unsigned long long before)
{
    struct walk w = { before, 0 };

    dl_iterate_phdr(note_cb, &w);
}
