/* SPDX-License-Identifier: MIT */
/*
 * frame_text.c - a symbolized frame as Valgrind's describe_IP prints it,
 * and Valgrind's classification of function names (main, below main).
 * Declared in symbolize.h; no libdw here.
 * Context: COLD.
 */
#include "report/symbolize.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash != NULL ? slash + 1 : path;
}

/* Is path the same file as self? Cheap string test first, then the real
 * paths, since dladdr() and /proc/self/maps may spell it differently. */
static bool same_object(const char *path, const char *self)
{
    char a[PATH_MAX], b[PATH_MAX];

    if (path == NULL || self == NULL)
        return false;
    if (strcmp(path, self) == 0)
        return true;
    if (strcmp(base_name(path), base_name(self)) != 0)
        return false;
    return realpath(path, a) != NULL && realpath(self, b) != NULL &&
           strcmp(a, b) == 0;
}

int lp_sym_describe(const struct lp_sym_frame *f, const char *self_obj,
                    char *buf, size_t n)
{
    unsigned long a = (unsigned long)f->addr;

    if (f->fn != NULL && f->file != NULL && f->line >= 0 &&
        !same_object(f->obj, self_obj))
        return snprintf(buf, n, "0x%lX: %s (%s:%d)", a, f->fn, f->file, f->line);
    if (f->fn != NULL)
        return snprintf(buf, n, "0x%lX: %s (in %s)", a, f->fn,
                        f->obj != NULL ? f->obj : "???");
    if (f->obj != NULL)
        return snprintf(buf, n, "0x%lX: ??? (in %s)", a, f->obj);
    return snprintf(buf, n, "0x%lX: ???", a);
}

enum lp_fn_kind lp_sym_fn_kind(const char *fn)
{
    if (fn == NULL)
        return LP_FN_NORMAL;
    if (strcmp(fn, "main") == 0)
        return LP_FN_MAIN;
    if (strcmp(fn, "__libc_start_main") == 0 ||
        strncmp(fn, "__libc_start_main.", 18) == 0 ||
        strcmp(fn, "__libc_start_call_main") == 0 ||
        strcmp(fn, "generic_start_main") == 0 ||
        strncmp(fn, "generic_start_main.", 19) == 0 ||
        strcmp(fn, "_start") == 0 || strcmp(fn, LP_SYM_BELOW_MAIN) == 0)
        return LP_FN_BELOW_MAIN;
    return LP_FN_NORMAL;
}

bool lp_sym_is_below_main(const char *fn)
{
    return lp_sym_fn_kind(fn) != LP_FN_NORMAL;
}
