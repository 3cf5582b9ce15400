/* SPDX-License-Identifier: MIT */
/*
 * bench_malloc.c - allocation-heavy workload for `make bench`.
 * bench_malloc THREADS OPS: each thread runs OPS malloc/free pairs of
 * mixed sizes through a few call depths, keeping a window of 256 live
 * blocks, so stacks repeat (as in real programs) and frees are mixed in.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long ops;

__attribute__((noinline)) static void *alloc_leaf(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *alloc_mid(size_t n, int d)
{
    return d ? alloc_mid(n, d - 1) : alloc_leaf(n);
}

static void *worker(void *arg)
{
    void *win[256] = {0};
    unsigned seed = (unsigned)(uintptr_t)arg * 2654435761u + 1;
    long i;

    for (i = 0; i < ops; i++) {
        unsigned slot;
        size_t n;

        seed = seed * 1103515245u + 12345u;
        slot = (seed >> 8) & 255;
        n = 16 + ((seed >> 16) & 1023);
        free(win[slot]);
        win[slot] = alloc_mid(n, (seed >> 4) & 7);
        memset(win[slot], 1, 8);
    }
    for (i = 0; i < 256; i++)
        free(win[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    int t, nthreads = argc > 1 ? atoi(argv[1]) : 1;
    pthread_t th[64];

    ops = argc > 2 ? atol(argv[2]) : 1000000;
    if (nthreads < 1 || nthreads > 64)
        nthreads = 1;
    for (t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)(t + 1));
    for (t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    return 0;
}
