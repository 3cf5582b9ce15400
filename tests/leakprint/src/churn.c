/* SPDX-License-Identifier: MIT */
/* churn.c - thousands of events, so massif culls to --max-snapshots. */
#include <stdlib.h>

__attribute__((noinline)) static void *grow(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *other(size_t n) { return malloc(n); }

int main(void)
{
    static void *slot[512];

    for (int i = 0; i < 6000; i++) {
        int k = (i * 7919) % 512;

        free(slot[k]);
        slot[k] = (i % 3) ? grow((size_t)(16 + (i % 97) * 8))
                          : other((size_t)(64 + (i % 13) * 32));
    }
    for (int k = 0; k < 256; k++) {
        free(slot[k]);
        slot[k] = NULL;
    }
    return 0;
}
