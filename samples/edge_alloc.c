/* edge_alloc.c - glibc's edge semantics, checked by the program itself:
 * it exits 0 only when every case behaves as under plain glibc, and
 * prints what it saw. Under leakprof the output must be identical.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
/* Sizes the compiler cannot see, so it does not warn about them. */
static volatile size_t huge = SIZE_MAX / 2, nearly_all = SIZE_MAX - 4096;

static void expect(int ok, const char *what)
{
    printf("%s: %s\n", what, ok ? "ok" : "FAILED");
    if (!ok)
        failures++;
}

int main(void)
{
    void *p, *q;
    int e;

    p = malloc(0);
    expect(p != NULL, "malloc(0) gives a block");
    free(p);
    p = realloc(NULL, 10);
    expect(p != NULL, "realloc(NULL, n) allocates");
    memset(p, 7, 10);
    q = realloc(p, 100);
    expect(q != NULL && ((unsigned char *)q)[9] == 7, "realloc keeps contents");
    p = realloc(q, 0);
    expect(p == NULL, "realloc(p, 0) frees and returns NULL");
    errno = 0;
    p = calloc(huge, 4);
    expect(p == NULL && errno == ENOMEM, "calloc overflow gives NULL/ENOMEM");
    q = malloc(32);
    errno = 0;
    p = realloc(q, nearly_all);
    e = errno;
    expect(p == NULL && e == ENOMEM, "failed realloc gives NULL/ENOMEM");
    expect(malloc_usable_size(q) >= 32, "failed realloc keeps the old block");
    errno = 1234;
    free(q);
    expect(errno == 1234, "free preserves errno");
    p = calloc(10, 10);
    expect(p != NULL && ((unsigned char *)p)[99] == 0, "calloc zeroes");
    free(p);
    expect(posix_memalign(&p, 64, 100) == 0 && ((uintptr_t)p & 63) == 0, "posix_memalign");
    free(p);
    expect(posix_memalign(&p, 3, 100) == EINVAL, "posix_memalign bad alignment");
    p = aligned_alloc(128, 256);
    expect(p != NULL && ((uintptr_t)p & 127) == 0, "aligned_alloc");
    free(p);
    p = memalign(32, 10);
    expect(p != NULL && ((uintptr_t)p & 31) == 0, "memalign");
    free(p);
    p = valloc(10);
    expect(p != NULL && ((uintptr_t)p & 4095) == 0, "valloc");
    free(p);
    p = reallocarray(NULL, huge, 4);
    expect(p == NULL && errno == ENOMEM, "reallocarray overflow");
    free(NULL);
    return failures ? 1 : 0;
}
