/* SPDX-License-Identifier: MIT */
/*
 * live_blocks.c - `make bench`: a heap of many live blocks at exit.
 * live_blocks N: allocates N blocks of 16..79 bytes from a few call
 * sites, links every 8th into a list, keeps the rest in a global array,
 * frees a quarter of them, and exits with the rest still allocated
 * (reachable: the leak check scans and classifies them all).
 */
#include <stdio.h>
#include <stdlib.h>

struct node {
    struct node *next;
    char pad[8];
};

static void **blocks;

__attribute__((noinline)) static void *site_a(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *site_b(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *site_c(size_t n) { return calloc(1, n); }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000, i, kept = 0;
    struct node *head = NULL;

    blocks = malloc(sizeof(*blocks) * (size_t)n);
    if (!blocks)
        return 1;
    for (i = 0; i < n; i++) {
        size_t sz = 16 + (size_t)(i * 7 % 64);

        if (i % 8 == 0) {
            struct node *nd = site_c(sizeof(*nd) + sz);

            nd->next = head;
            head = nd;
            blocks[i] = NULL;
        } else {
            blocks[i] = (i & 1) ? site_a(sz) : site_b(sz);
        }
    }
    for (i = 0; i < n; i += 4) {
        free(blocks[i]);
        blocks[i] = NULL;
    }
    for (i = 0; i < n; i++)
        kept += blocks[i] != NULL;
    printf("%ld blocks kept, list head %s\n", kept, head ? "set" : "empty");
    return 0;
}
