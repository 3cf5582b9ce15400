/* SPDX-License-Identifier: MIT */
/*
 * deep_stacks.c - blocks allocated 30 calls deep from two different
 * callers: their stacks agree on the 30 innermost frames (the default
 * depth, and Memcheck's --num-callers=30) and differ only at the 31st. Memcheck
 * keeps 30 frames of each and so shows one loss record of both blocks.
 * Compare: valgrind --num-callers=30 --leak-check=full build/samples/deep_stacks
 */
#include <stdio.h>
#include <stdlib.h>

static void *keep[4];

__attribute__((noinline)) static void *down(int n)
{
    void *p = n > 0 ? down(n - 1) : malloc(24);

    __asm__ volatile("" ::: "memory"); /* no tail call */
    return p;
}

__attribute__((noinline)) static void from_left(void) { keep[0] = down(28); }
__attribute__((noinline)) static void from_right(void) { keep[1] = down(28); }

int main(void)
{
    from_left();
    from_right();
    printf("%d\n", keep[0] != keep[1]);
    keep[0] = keep[1] = NULL; /* both definitely lost */
    return 0;
}
