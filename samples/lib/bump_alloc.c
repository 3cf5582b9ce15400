/* SPDX-License-Identifier: MIT */
/*
 * bump_alloc.c - an allocator that is not glibc's, preloaded after
 * libleakprof.so so that it is leakprof's "real" allocator (as
 * libjemalloc.so.2 is in Debian's redis-server): blocks
 * from one mmap'd pool, a 16-byte header holding the size, never reused.
 * tests/e2e/sampling.sh runs samples/sample_reach over it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#define POOL ((size_t)256 << 20)

static unsigned char *pool;
static size_t used;

static unsigned char *pool_get(void)
{
    unsigned char *p = __atomic_load_n(&pool, __ATOMIC_ACQUIRE), *fresh;

    if (p)
        return p;
    fresh = mmap(NULL, POOL, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (fresh == MAP_FAILED)
        return NULL;
    if (!__atomic_compare_exchange_n(&pool, &p, fresh, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        munmap(fresh, POOL);
        return p;
    }
    return fresh;
}

void *malloc(size_t n)
{
    unsigned char *p = pool_get();
    size_t at, need = ((n + 15) & ~(size_t)15) + 16;

    if (!p || n > POOL)
        return NULL;
    at = __atomic_fetch_add(&used, need, __ATOMIC_RELAXED);
    if (at + need > POOL) {
        errno = ENOMEM;
        return NULL;
    }
    *(size_t *)(p + at) = n;
    return p + at + 16;
}

void free(void *p) { (void)p; }

void *calloc(size_t n, size_t m)
{
    if (m && n > (size_t)-1 / m)
        return NULL;
    return malloc(n * m); /* fresh pool memory is zero */
}

size_t malloc_usable_size(void *p)
{
    return p ? *(size_t *)((unsigned char *)p - 16) : 0;
}

void *realloc(void *old, size_t n)
{
    void *p = malloc(n);
    size_t had = malloc_usable_size(old);

    if (p && old)
        memcpy(p, old, had < n ? had : n);
    return p;
}
