/* SPDX-License-Identifier: MIT */
/*
 * dlclose.c - the one loader call we interpose: after an object is
 * unloaded, the unwind rules cached for its code must go, or an object
 * loaded later at the same address would be walked with them.
 *
 * dlopen needs no hook: cfi.c finds objects with _dl_find_object, which
 * sees a new object as soon as dlopen has mapped it. (Interposing dlopen
 * would also change what it does: glibc resolves a bare name with the
 * RUNPATH of the object that called dlopen, and $ORIGIN relative to it;
 * behind a wrapper that caller would be us.)
 * With keep_debuginfo=yes it also records the objects the call unloads
 * (unloaded_objects.h), for the report to name their frames.
 * Context: COLD, the program's thread, after the real dlclose returned
 * (so none of the loader's locks is held by this call).
 */
#include <dlfcn.h>

#include "preload/hot/guard.h"
#include "preload/hot/stack_walk.h"
#include "preload/life/unloaded_objects.h"

typedef int (*dlclose_fn)(void *);

LP_EXPORT int dlclose(void *handle)
{
    static dlclose_fn real;
    dlclose_fn f = lp_load_acquire(&real);
    void *listed;
    int rc;

    if (f == NULL) {
        bool held = lp_guard_held;

        lp_guard_held = true; /* dlsym may allocate */
        f = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
        lp_guard_restore(held);
        if (f == NULL)
            return -1;
        lp_store_release(&real, f);
    }
    listed = lp_unloaded_before(); /* keep_debuginfo=yes */
    rc = f(handle);
    lp_unloaded_after(listed, rc == 0);
    if (rc == 0)
        lp_unwind_forget_unloaded();
    return rc;
}
