/* SPDX-License-Identifier: MIT */
/*
 * reach_cycles.c - lost cycles. Memcheck gives each lost clique a leader
 * (definitely lost, "N (D direct, I indirect)") and calls the rest
 * indirectly lost:
 *   - a ring of two and a ring of three, nothing pointing in;
 *   - a ring of three with a tail of two hanging off it;
 *   - a chain whose head points into a ring (the head leads);
 *   - a reachable ring (global pointer): still reachable.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <stdio.h>
#include <stdlib.h>

struct node {
    struct node *next;
    struct node *side;
    long payload[2];
};

struct node *kept;

__attribute__((noinline)) static struct node *ring(int n)
{
    struct node *first = calloc(1, sizeof(*first)), *cur = first;
    int i;

    for (i = 1; i < n; i++) {
        cur->next = calloc(1, sizeof(*cur));
        cur = cur->next;
    }
    cur->next = first;
    return first;
}

__attribute__((noinline)) static void lose(struct node *volatile *p)
{
    *p = NULL;
}

int main(void)
{
    struct node *volatile r;

    r = ring(2);
    lose(&r);
    r = ring(3);
    lose(&r);
    r = ring(3);
    r->side = calloc(1, sizeof(struct node));
    r->side->side = calloc(1, sizeof(struct node));
    lose(&r);
    r = calloc(1, sizeof(struct node));
    r->next = calloc(1, sizeof(struct node));
    r->next->side = ring(2);
    lose(&r);
    kept = ring(4);
    printf("cycles: %d\n", kept->next->next->next->next == kept);
    return 0;
}
