/* SPDX-License-Identifier: MIT */
/*
 * reach_protnone.c - unreadable holes. An anonymous read-write mapping
 * of three pages whose middle page is made PROT_NONE: pointers in the
 * first and last pages keep their blocks still reachable, and the scan
 * must skip the hole. A pointer stored in the middle page before it was
 * protected cannot be read: Memcheck calls its block definitely lost.
 * A global pointing into the unreadable page is no pointer to any block.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

void *into_hole;

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t words = (size_t)page / sizeof(void *);
    void **m = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (m == MAP_FAILED)
        return 1;
    m[0] = malloc(16);
    m[words] = malloc(24);     /* in the page about to be protected */
    m[2 * words + 5] = malloc(32);
    if (mprotect(m + words, page, PROT_NONE) != 0)
        return 1;
    into_hole = m + words + 1;
    printf("protnone: hole at page 2\n");
    return 0;
}
