/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FOREIGN_H
#define LP_PRELOAD_FOREIGN_H
/*
 * foreign.h - objects we loaded into the program's lifetime, whose
 * allocations are ours, not the program's.
 *
 * The symbolizer's libraries (libdw and what it loads: libdebuginfod,
 * libcurl, gnutls, libcrypto...) are normally loaded for the report at
 * exit, after every destructor of the program. A program that chroots
 * itself has them loaded before (fs_hooks.c), so their destructors run
 * among the program's at exit, and libcrypto's allocates and frees: a
 * block Memcheck never sees. A block whose stack has one of these
 * objects in its innermost frames is left untracked, as our own are.
 * Context: HOT (lp_foreign_stack: one load while no such object exists);
 * COLD (lp_foreign_note_loaded, guard held).
 */
#include "preload/hot/stack.h"
#include "preload/lp.h"

#define LP_FOREIGN_MAX 64   /* objects */
#define LP_FOREIGN_FRAMES 8 /* innermost frames looked at */

struct lp_foreign_range {
    uintptr_t lo, hi;
};
extern struct lp_foreign_range lp_foreign[LP_FOREIGN_MAX];
extern unsigned lp_foreign_n;

/* The number of objects loaded now (dl_iterate_phdr's count). */
unsigned long long lp_foreign_count(void);

/* Every object loaded since the count was `before` is ours. */
void lp_foreign_note_loaded(unsigned long long before);

static inline bool lp_foreign_stack(const struct lp_stack *s)
{
    unsigned n = lp_load_acquire(&lp_foreign_n), i, j, k;

    if (LP_LIKELY(n == 0) || s == NULL)
        return false;
    k = s->nframes < LP_FOREIGN_FRAMES ? s->nframes : LP_FOREIGN_FRAMES;
    for (i = 0; i < k; i++)
        for (j = 0; j < n; j++)
            if (lp_stack_frame(s, i) - lp_foreign[j].lo <
                lp_foreign[j].hi - lp_foreign[j].lo)
                return true;
    return false;
}

#endif /* LP_PRELOAD_FOREIGN_H */
