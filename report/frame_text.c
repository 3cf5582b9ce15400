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

int lp_sym_frame_dir(const struct lp_sym_frame *f, char *buf, size_t n)
{
    const char *slash = f->path ? strrchr(f->path, '/') : NULL;
    int len = slash ? (int)(slash - f->path) : 0;

    if (f->comp_dir && (len == 0 || f->path[0] != '/'))
        return snprintf(buf, n, "%s%s%.*s", f->comp_dir, len ? "/" : "", len,
                        len ? f->path : "");
    return snprintf(buf, n, "%.*s", len, len ? f->path : "");
}

/* fullpath_after: the values given, one after the other, each ended by
 * its NUL; none: frames show the file's base name. */
static struct {
    const char *list;
    int n;
} fullpath;

void lp_sym_set_fullpath_after(const char *list, int n)
{
    fullpath.list = list;
    fullpath.n = list != NULL ? n : 0;
}

/*
 * The file as Valgrind's --fullpath-after shows it: its directory (as
 * the XML's <dir>) is searched for each value in the order given; at the
 * first found, the directory up to and including it is left out, and
 * when none is found it is shown whole. The directory left, if any, then
 * '/', then the file's name. Measured with Valgrind 3.19: the search is
 * in the directory only ("leak" does not match .../sub/leak.c), an empty
 * value matches at once (the whole path), "src/" leaves "sub/leak.c" of
 * /tmp/x/src/sub/leak.c and "sub" leaves "leak.c".
 */
static const char *fullpath_name(const struct lp_sym_frame *f, char *buf,
                                 size_t n)
{
    char dir[PATH_MAX];
    const char *v = fullpath.list, *rest = NULL, *name;
    int i, len = lp_sym_frame_dir(f, dir, sizeof(dir));

    if (len <= 0 || len >= (int)sizeof(dir))
        return f->file;
    name = f->path ? base_name(f->path) : f->file;
    for (i = 0; i < fullpath.n && rest == NULL; i++, v += strlen(v) + 1) {
        const char *at = strstr(dir, v);

        if (at != NULL)
            rest = at + strlen(v);
    }
    if (rest == NULL)
        rest = dir;
    len = snprintf(buf, n, "%s%s%s", rest, *rest ? "/" : "", name);
    return len >= 0 && (size_t)len < n ? buf : f->file;
}

int lp_sym_describe(const struct lp_sym_frame *f, const char *self_obj,
                    char *buf, size_t n)
{
    unsigned long a = (unsigned long)f->addr;

    if (f->fn != NULL && f->file != NULL && f->line >= 0 &&
        !same_object(f->obj, self_obj)) {
        char path[PATH_MAX];
        const char *file = fullpath.n > 0
                               ? fullpath_name(f, path, sizeof(path))
                               : f->file;

        return snprintf(buf, n, "0x%lX: %s (%s:%d)", a, f->fn, file, f->line);
    }
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

static struct lp_sym_below_main below_main;

void lp_sym_set_below_main(const struct lp_sym_below_main *b)
{
    below_main = *b;
}

const struct lp_sym_below_main *lp_sym_below_main(void)
{
    return &below_main;
}
