/* site_costs.c - one allocation site per heaptrack question, with known
 * answers (tests/profiles): temporary allocations, the peak's holder, a
 * leak, and a site that is neither. Build -g -O0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

/* 1,000 temporary allocations: each freed before anything else. */
__attribute__((noinline)) void temp_user(void)
{
    int i;

    for (i = 0; i < N; i++) {
        char *volatile p = malloc(100);
        p[0] = 1;
        free(p);
    }
}

__attribute__((noinline)) char *alloc_a(void) { return malloc(50); }
__attribute__((noinline)) char *alloc_b(void) { return malloc(60); }

/* a then b, freed a then b: b is temporary (no allocation between its
 * malloc and its free), a is not (b was allocated in between). */
__attribute__((noinline)) void interleaved(void)
{
    int i;

    for (i = 0; i < N; i++) {
        char *volatile a = alloc_a(), *volatile b = alloc_b();
        free(a);
        free(b);
    }
}

/* The peak: 10 x 100,000 bytes live at once, all freed. */
__attribute__((noinline)) void peak_phase(void)
{
    char *v[10];
    int i;

    for (i = 0; i < 10; i++) {
        v[i] = malloc(100000);
        memset(v[i], i, 100000);
    }
    for (i = 0; i < 10; i++)
        free(v[i]);
}

/* 10 x 1,000 bytes definitely lost. */
__attribute__((noinline)) void leak_some(void)
{
    int i;

    for (i = 0; i < 10; i++) {
        char *volatile p = malloc(1000);
        p[0] = 2;
    }
}

int main(void)
{
    temp_user();
    interleaved();
    peak_phase();
    leak_some();
    printf("site_costs done\n");
    return 0;
}
