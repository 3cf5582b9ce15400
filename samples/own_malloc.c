/* SPDX-License-Identifier: MIT */
/*
 * own_malloc.c - a program that defines its own malloc family (a bump
 * allocator over a static array). Its allocations never reach a preloaded
 * checker; the checker's own memory must not come from here either, and
 * nothing of the program's may be handed to glibc's allocator.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Alignas(16) unsigned char pool[64 << 20];
static size_t used;

void *malloc(size_t n)
{
    size_t *h;

    n = (n + 15) & ~(size_t)15;
    if (used + n + 16 > sizeof(pool))
        return NULL;
    h = (size_t *)(pool + used);
    *h = n;
    used += n + 16;
    return (unsigned char *)h + 16;
}

void free(void *p) { (void)p; }

void *calloc(size_t a, size_t b)
{
    void *p = malloc(a * b);

    if (p)
        memset(p, 0, a * b);
    return p;
}

void *realloc(void *p, size_t n)
{
    void *q = malloc(n);

    if (p && q) {
        size_t old = *(size_t *)((unsigned char *)p - 16);

        memcpy(q, p, old < n ? old : n);
    }
    return q;
}

int main(void)
{
    char *s = malloc(100);
    int i;

    for (i = 0; i < 1000; i++)
        s = realloc(s, 100 + i);
    strcpy(s, "own allocator");
    printf("%s\n", s);
    return 0;
}
