/* SPDX-License-Identifier: MIT */
/*
 * lockstep.c - a heap that a fixed-pace sampler cannot see.
 *
 * Each step keeps a block of SMALL bytes, allocates a temporary of TEMP
 * bytes and frees it: SMALL + TEMP = 4,096 bytes a step. The
 * program ends holding STEPS small blocks (12.8 MB in 200,000 blocks of
 * 64 bytes by default), reachable from a global array. A sampler that
 * counts 4,096 bytes down per thread lands on the temporary every time
 * and reports almost nothing in use; an exponential one sees the truth.
 *
 *   lockstep [STEPS [SMALL [TEMP]]]
 * Prints one line with the totals (compared with the native run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char **keep;

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : 200000;
    size_t small = argc > 2 ? (size_t)atol(argv[2]) : 64;
    size_t temp = argc > 3 ? (size_t)atol(argv[3]) : 4096 - small;
    unsigned long sum = 0;
    long i;

    keep = malloc((size_t)steps * sizeof(*keep));
    if (!keep)
        return 1;
    for (i = 0; i < steps; i++) {
        char *t;

        keep[i] = malloc(small);
        t = malloc(temp);
        if (!t || !keep[i])
            return 1;
        memset(t, (int)(i & 0x7f), temp);
        memcpy(keep[i], t, small);
        sum += (unsigned char)keep[i][small - 1];
        free(t);
    }
    printf("held %ld blocks of %zu bytes (%zu bytes), churned %ld of %zu; sum %lu\n",
           steps, small, (size_t)steps * small, steps, temp, sum);
    return 0;
}
