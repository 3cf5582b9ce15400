/* SPDX-License-Identifier: MIT */
/*
 * reach_sparse.c - big memory written in a few pages. The scan reads
 * only the pages the kernel holds (preload/scan/present.h); the verdicts
 * must be those of reading every page, as Memcheck does:
 *   - a 1 GiB MAP_NORESERVE read-write mapping: pointers in its first
 *     page and 768 MiB in keep their blocks still reachable; a page that
 *     held the only pointer to a block and was given back (MADV_DONTNEED)
 *     reads as zeros: that block is definitely lost;
 *   - a 64 MiB calloc'd block, leaked, whose one written page, 40 MiB
 *     in, holds the only pointer to another block: 64 MiB definitely
 *     lost, the other indirectly lost.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define MIB ((size_t)1 << 20)
#define WORDS_PER_MIB (MIB / sizeof(void *))

void *volatile hold;

__attribute__((noinline)) static void leak_big(void)
{
    char *big = calloc(1, 64 * MIB);

    if (big == NULL)
        exit(1);
    *(void **)(big + 40 * MIB) = malloc(40);
    hold = big;
    hold = NULL;
}

int main(void)
{
    void **m = mmap(NULL, 1024 * MIB, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (m == MAP_FAILED)
        return 1;
    m[0] = malloc(16);
    m[768 * WORDS_PER_MIB] = malloc(24);
    m[512 * WORDS_PER_MIB + 3] = malloc(32);
    if (madvise(m + 512 * WORDS_PER_MIB, 4096, MADV_DONTNEED) != 0)
        return 1;
    leak_big();
    printf("sparse: 1 GiB mapped, 3 pages written\n");
    return 0;
}
