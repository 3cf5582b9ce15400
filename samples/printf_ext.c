/* SPDX-License-Identifier: MIT */
/*
 * printf_ext.c - a program that extends printf, as libquadmath does for
 * every Fortran program (%Q, __float128): a modifier and a conversion of
 * its own, used once; then 13 bytes leaked and a normal
 * exit. glibc keeps the extensions in tables its __libc_freeres frees,
 * and every printf of the process reads them from then on.
 * Prints "pair <3,4>" and exits 0.
 */
#include <printf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

struct pair { int a, b; };

static int pair_mod;
static void *sink;

static int pair_arginfo(const struct printf_info *info, size_t n, int *types,
                        int *size)
{
    (void)info;
    if (n > 0) {
        types[0] = PA_POINTER;
        size[0] = (int)sizeof(void *);
    }
    return 1;
}

static int pair_print(FILE *f, const struct printf_info *info,
                      const void *const *args)
{
    const struct pair *p = *(struct pair *const *)args[0];

    return fprintf(f, (info->user & pair_mod) ? "<%d,%d>" : "(%d,%d)", p->a,
                   p->b);
}

int main(void)
{
    struct pair p = { 3, 4 };

    pair_mod = register_printf_modifier(L"W");
    if (pair_mod < 0 ||
        register_printf_specifier('P', pair_print, pair_arginfo) != 0) {
        printf("no printf extensions\n");
        return 0;
    }
    printf("pair %WP\n", &p);
    sink = malloc(13);
    memset(sink, 1, 13);
    sink = NULL;
    return 0;
}
