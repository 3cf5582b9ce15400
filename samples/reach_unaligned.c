/* SPDX-License-Identifier: MIT */
/*
 * reach_unaligned.c - pointers Memcheck does not count. Only aligned,
 * pointer-sized words are looked at, so a pointer stored at an odd
 * offset of a packed global does not keep its block: definitely lost.
 * Neither does a pointer one past the end of a block. An aligned copy
 * of the same kind keeps its block still reachable.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct __attribute__((packed)) odd {
    char c;
    void *p; /* at offset 1 */
};

struct odd odd1 = {'a', 0};
char bytes[64];        /* a pointer copied to offset 3 */
void *aligned;         /* reachable */
char *past_end;        /* one past its 32-byte block */

int main(void)
{
    void *p = malloc(16), *q = malloc(24);

    odd1.p = p;
    memcpy(bytes + 3, &q, sizeof(q));
    p = q = NULL;
    aligned = malloc(40);
    past_end = (char *)malloc(32) + 32;
    printf("unaligned: %c %zu\n", odd1.c, sizeof(struct odd));
    return 0;
}
