/* SPDX-License-Identifier: MIT */
/*
 * usable_slack.c - a program that writes all of a block's usable size
 * (malloc_usable_size: glibc's rounding past what was asked for), then
 * grows it with realloc and reads those bytes back, as redis's sds
 * strings do. glibc's realloc keeps them; so must a profiler's realloc
 * that moves the block (leakprof's quarantine=yes moves every one).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    size_t sizes[] = {1, 10, 24, 100, 1000, 5000};
    size_t i, j, bad = 0;

    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        char *p = malloc(sizes[i]);
        size_t n = malloc_usable_size(p);

        memset(p, 'a' + (int)i, n);
        p = realloc(p, n * 3 + 64);
        for (j = 0; j < n; j++)
            bad += p[j] != 'a' + (int)i;
        free(p);
    }
    printf("usable bytes lost across realloc: %zu\n", bad);
    return bad != 0;
}
