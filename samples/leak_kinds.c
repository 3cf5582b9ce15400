/* SPDX-License-Identifier: MIT */
/*
 * leak_kinds.c - every leak kind Memcheck knows, and the shapes that decide
 * them: start vs interior pointers, lost chains and cycles (clique
 * leaders), possibly-lost propagation, 0-byte blocks, a length64 block.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 *          build/samples/leak_kinds
 * Expected LEAK SUMMARY (Memcheck 3.19):
 *    definitely lost: 312 bytes in 7 blocks
 *    indirectly lost: 208 bytes in 5 blocks
 *      possibly lost: 144 bytes in 3 blocks
 *    still reachable: 248 bytes in 5 blocks
 *                       of which reachable via heuristic:
 *                         length64           : 56 bytes in 1 blocks
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct node {
    struct node *next;
    char payload[24];
};

static void *reachable_root;   /* start pointer: still reachable */
static char *interior_root;    /* interior pointer only: possibly lost */
static struct node *reach_list; /* reachable list with a cycle */
static void *possible_chain;   /* interior pointer to a block that holds a
                                  start pointer: both possibly lost */
static void *zero_root;        /* a 0-byte block, still reachable */
static char *length64_root;    /* length64 heuristic: reachable */

__attribute__((noinline)) static void *alloc(size_t n) { return malloc(n); }

/* 100 bytes, no pointer anywhere: definitely lost. */
__attribute__((noinline)) static void leak_definite(void)
{
    char *p = alloc(100);

    memset(p, 1, 100);
}

/* head -> n1 -> n2: head definitely lost, n1 and n2 indirectly lost. */
__attribute__((noinline)) static void leak_chain(void)
{
    struct node *head = malloc(sizeof(*head));

    head->next = malloc(sizeof(*head));
    head->next->next = malloc(sizeof(*head));
    head->next->next->next = NULL;
}

/* A lost 3-cycle: the lowest-addressed block leads (definitely lost). */
__attribute__((noinline)) static void leak_cycle(void)
{
    struct node *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)),
                *c = malloc(sizeof(*c));

    a->next = b;
    b->next = c;
    c->next = a;
}

/* A lost block holding only an interior pointer to another: the second
 * is still indirectly lost. */
__attribute__((noinline)) static void leak_interior_in_lost(void)
{
    char **holder = malloc(2 * sizeof(char *));
    char *target = malloc(80);

    holder[0] = target + 40;
    holder[1] = NULL;
}

/* 0-byte blocks: one lost, one kept. */
__attribute__((noinline)) static void zero_blocks(void)
{
    void *lost = malloc(0);

    zero_root = malloc(0);
    lost = NULL;
    (void)lost;
}

__attribute__((noinline)) static void keep_reachable(void)
{
    struct node *a, *b;

    reachable_root = calloc(8, 16);
    /* A reachable 2-cycle: both still reachable. */
    a = malloc(sizeof(*a));
    b = malloc(sizeof(*b));
    a->next = b;
    b->next = a;
    reach_list = a;
}

__attribute__((noinline)) static void keep_interior(void)
{
    void **holder;

    interior_root = (char *)malloc(64) + 10;
    /* Interior pointer to holder; holder's start pointer to the payload
     * does not help: the payload is possibly lost too. */
    holder = malloc(16);
    holder[0] = malloc(64);
    holder[1] = NULL;
    possible_chain = (char *)holder + 8;
}

/* A block whose first 8 bytes hold its payload length, referenced past
 * the length: Memcheck's length64 heuristic makes it reachable. */
__attribute__((noinline)) static void keep_length64(void)
{
    uint64_t *p = malloc(8 + 48);

    p[0] = 48;
    length64_root = (char *)(p + 1);
}

/* realloc: the moved block is the one that leaks. */
__attribute__((noinline)) static void leak_realloc(void)
{
    char *p = malloc(16);

    p = realloc(p, 32);
    p[0] = 0;
}

int main(void)
{
    void *freed;

    leak_definite();
    leak_definite();
    leak_chain();
    leak_cycle();
    leak_interior_in_lost();
    zero_blocks();
    keep_reachable();
    keep_interior();
    keep_length64();
    leak_realloc();
    freed = malloc(500);
    free(freed);
    return 0;
}
