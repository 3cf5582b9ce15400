/* SPDX-License-Identifier: MIT */
/* nested.c - nested callers, realloc, many small blocks, frees. */
#include <stdlib.h>
#include <string.h>

static void *keep[256];

__attribute__((noinline)) static void *leaf(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *mid(size_t n) { return leaf(n); }
__attribute__((noinline)) static void *top(size_t n) { return mid(n); }
__attribute__((noinline)) static void tiny(int k)
{
    for (int i = 0; i < 40; i++)
        keep[100 + (k * 40 + i) % 150] = malloc(8 + (size_t)i);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    char *buf = NULL;

    (void)argv;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 20; i++)
            keep[i] = top(1000 + (size_t)i * 100);
        for (int i = 20; i < 40; i++)
            keep[i] = mid(2000);
        tiny(r);
        buf = realloc(buf, (size_t)(r + 1) * 4096);
        memset(buf, 1, (size_t)(r + 1) * 4096);
        for (int i = 0; i < 30; i++) {
            free(keep[i]);
            keep[i] = NULL;
        }
        keep[60] = calloc(16, 100);
        free(keep[60]);
        keep[60] = NULL;
    }
    free(buf);
    for (int i = 0; i < 256; i++)
        free(keep[i]);
    return 0;
}
