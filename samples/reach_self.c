/* SPDX-License-Identifier: MIT */
/*
 * reach_self.c - objects that point to themselves: a lost block whose
 * first word points at its own start (a one-block cycle: definitely
 * lost, nothing indirect), a lost block that points into its own middle,
 * and a reachable one that points at itself (still reachable).
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>

struct node {
    struct node *self;
    char pad[40];
};

struct node *kept;

__attribute__((noinline)) static void make(int keep, int offset)
{
    struct node *n = malloc(sizeof(*n));

    n->self = (struct node *)((char *)n + offset);
    if (keep)
        kept = n;
}

int main(void)
{
    make(0, 0);  /* lost, points to itself */
    make(0, 16); /* lost, points into itself */
    make(1, 0);  /* reachable, points to itself */
    printf("self: %zu\n", sizeof(struct node));
    return 0;
}
