/* SPDX-License-Identifier: MIT */
/*
 * config_patterns.c - the patterns option values hold: file names with
 * %p (the pid) and %% in them, and Valgrind's comma-separated glob lists
 * (trace_children_skip). Apart from config.c, which is the option table.
 * Context: BOOT and any (no allocation: the caller's buffers).
 */
#include "preload/life/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool lp_config_per_process(const char *pattern)
{
    const char *p;

    for (p = pattern; *p; p++) {
        if (p[0] != '%')
            continue;
        if (p[1] == 'p')
            return true;
        if (p[1] == '%')
            p++;
    }
    return false;
}

int lp_config_expand(const char *pattern, int pid, char *out, size_t n)
{
    size_t o = 0;
    const char *p;

    for (p = pattern; *p; p++) {
        char num[24];
        const char *add = num;
        size_t len;

        if (p[0] == '%' && p[1] == 'p') {
            snprintf(num, sizeof(num), "%d", pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            num[0] = '%';
            num[1] = 0;
            p++;
        } else {
            num[0] = *p;
            num[1] = 0;
        }
        len = strlen(add);
        if (o + len + 1 > n)
            return -ENAMETOOLONG;
        memcpy(out + o, add, len);
        o += len;
    }
    out[o] = 0;
    return 0;
}

/* Glob match of pat[0..plen) against s: '*' any run, '?' any character.
 * Iterative with one backtrack point, so no recursion and linear time. */
static bool glob_match(const char *pat, size_t plen, const char *s)
{
    size_t p = 0, star = (size_t)-1;
    const char *mark = NULL;

    while (*s) {
        if (p < plen && (pat[p] == '?' || pat[p] == *s)) {
            p++;
            s++;
        } else if (p < plen && pat[p] == '*') {
            star = p++;
            mark = s;
        } else if (star != (size_t)-1) {
            p = star + 1;
            s = ++mark;
        } else {
            return false;
        }
    }
    while (p < plen && pat[p] == '*')
        p++;
    return p == plen;
}

bool lp_config_glob_list(const char *list, const char *path)
{
    const char *p = list;

    while (p && *p) {
        size_t len = strcspn(p, ",");

        if (len && glob_match(p, len, path))
            return true;
        p += len;
        if (*p == ',')
            p++;
    }
    return false;
}
