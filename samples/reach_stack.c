/* SPDX-License-Identifier: MIT */
/*
 * reach_stack.c - blocks whose only pointers live on the stack of a frame
 * that is still live when the program exits: exit() is called three
 * frames deep, and each frame holds one block in a local. The frames are
 * live (below them nothing returned), so Memcheck calls all three still
 * reachable. One block whose pointer was dropped is definitely lost.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void deepest(void *volatile *keep)
{
    void *volatile mine = malloc(48);

    printf("deepest: %d %d\n", *keep != NULL, mine != NULL);
    fflush(stdout);
    exit(3);
}

__attribute__((noinline)) static void middle(void)
{
    void *volatile mine = malloc(32);

    deepest(&mine);
}

int main(void)
{
    void *volatile mine = malloc(16);

    (void)!malloc(8); /* dropped */
    middle();
    return mine != NULL; /* not reached */
}
