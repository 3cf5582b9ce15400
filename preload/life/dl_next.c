/* SPDX-License-Identifier: MIT */
/*
 * dl_next.c - see dl_next.h.
 * Context: any (COLD).
 */
#include "preload/life/dl_next.h"

#include <dlfcn.h>

#include "preload/hot/guard.h"

void *lp_dl_next(const char *name)
{
    bool held = lp_guard_held;
    void *f;

    lp_guard_held = true;
    f = dlsym(RTLD_NEXT, name);
    lp_guard_restore(held);
    return f;
}
