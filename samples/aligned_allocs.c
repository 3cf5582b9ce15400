/* SPDX-License-Identifier: MIT */
/*
 * aligned_allocs.c - blocks from each aligned allocator, lost. Memcheck
 * 3.19 implements valloc and aligned_alloc through its memalign (tail
 * calls) and posix_memalign by calling it, and names the frames so:
 * "memalign", and "memalign" then "posix_memalign".
 * Compare: valgrind --leak-check=full build/samples/aligned_allocs
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *keep[5];

__attribute__((noinline)) static void make_all(void)
{
    keep[0] = aligned_alloc(64, 128);
    if (posix_memalign(&keep[1], 256, 100) != 0)
        keep[1] = NULL;
    keep[2] = memalign(32, 77);
    keep[3] = valloc(10);
    keep[4] = malloc(24);
}

int main(void)
{
    int i, aligned = 1;

    make_all();
    aligned &= ((size_t)keep[0] % 64) == 0 && ((size_t)keep[1] % 256) == 0;
    printf("%s\n", aligned ? "aligned" : "misaligned");
    for (i = 0; i < 5; i++)
        keep[i] = NULL; /* all definitely lost */
    return 0;
}
