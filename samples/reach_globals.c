/* SPDX-License-Identifier: MIT */
/*
 * reach_globals.c - blocks whose only pointers live in the program's
 * global data: an initialised global (.data), a zeroed one (.bss), a
 * field of a global struct, a static local, and an interior pointer
 * (possibly lost). One block is dropped outright (definitely lost).
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>

struct holder {
    int tag;
    void *p;
};

void *in_bss;                      /* .bss */
void *in_data = (void *)&in_data;  /* .data, overwritten below */
struct holder in_struct = {1, 0};  /* .data */
static char *interior;             /* points 10 bytes into its block */

__attribute__((noinline)) static void keep_static(void)
{
    static void *kept; /* a function's static: .bss too */

    kept = malloc(40);
}

int main(void)
{
    in_bss = malloc(16);
    in_data = malloc(24);
    in_struct.p = malloc(32);
    keep_static();
    interior = (char *)malloc(64) + 10;
    (void)!malloc(8); /* dropped */
    printf("globals: %d\n", in_struct.tag);
    return 0;
}
