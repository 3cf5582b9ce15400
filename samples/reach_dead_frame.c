/* SPDX-License-Identifier: MIT */
/*
 * reach_dead_frame.c - a stale pointer in a dead frame: make_and_drop()
 * keeps its block in a local and returns without passing it on. The value
 * is still in memory below main's stack pointer when main returns, but
 * that frame is dead: Memcheck does not look there and calls the block
 * definitely lost. A block main itself holds in a local is dead too once
 * main has returned (its frame is gone), so it is lost as well.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int make_and_drop(void)
{
    char *volatile p = malloc(100);

    strcpy(p, "dead");
    return (int)strlen(p);
}

int main(void)
{
    char *volatile in_main = malloc(24);
    int n = make_and_drop();

    in_main[0] = 'x';
    printf("dead frame: %d\n", n);
    return 0;
}
