/* SPDX-License-Identifier: MIT */
/*
 * dl_iterate_alloc.c - threads that allocate while other threads allocate
 * inside dl_iterate_phdr callbacks (which run under the loader lock).
 *
 * Natively this is fine: malloc never takes the loader lock. A profiler
 * whose stack capture takes a lock of its own and then the loader lock
 * (libunwind on a cache miss: dl_iterate_phdr) deadlocks against the
 * callback thread, which holds the loader lock and waits for the
 * profiler's lock in malloc. Each round starts fresh threads, so every
 * per-thread unwind cache starts cold.
 * Prints one deterministic line; exit status 0.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 12
#define ALLOCATORS 4
#define ITERATORS 2
#define ALLOCS_PER_THREAD 3000
#define ITERATIONS_PER_THREAD 60

/* 64 call sites, so captures keep meeting return addresses they have
 * not seen: an unwinder's cache misses are where it looks objects up. */
#define NSITES 64
#define SITE(n) \
    __attribute__((noinline)) static void *site##n(size_t size) \
    { \
        void *p = malloc(size + n); \
        __asm__ volatile("" ::"r"(p) : "memory"); \
        return p; \
    }
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15)
SITE(16) SITE(17) SITE(18) SITE(19) SITE(20) SITE(21) SITE(22) SITE(23)
SITE(24) SITE(25) SITE(26) SITE(27) SITE(28) SITE(29) SITE(30) SITE(31)
SITE(32) SITE(33) SITE(34) SITE(35) SITE(36) SITE(37) SITE(38) SITE(39)
SITE(40) SITE(41) SITE(42) SITE(43) SITE(44) SITE(45) SITE(46) SITE(47)
SITE(48) SITE(49) SITE(50) SITE(51) SITE(52) SITE(53) SITE(54) SITE(55)
SITE(56) SITE(57) SITE(58) SITE(59) SITE(60) SITE(61) SITE(62) SITE(63)

static void *(*const sites[NSITES])(size_t) = {
    site0, site1, site2, site3, site4, site5, site6, site7,
    site8, site9, site10, site11, site12, site13, site14, site15,
    site16, site17, site18, site19, site20, site21, site22, site23,
    site24, site25, site26, site27, site28, site29, site30, site31,
    site32, site33, site34, site35, site36, site37, site38, site39,
    site40, site41, site42, site43, site44, site45, site46, site47,
    site48, site49, site50, site51, site52, site53, site54, site55,
    site56, site57, site58, site59, site60, site61, site62, site63,
};

static void *allocator(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg;
    int i;

    for (i = 0; i < ALLOCS_PER_THREAD; i++) {
        void *p;

        seed = seed * 1103515245u + 12345u;
        p = sites[(i + (seed >> 8)) % NSITES](16 + ((seed >> 16) & 255));
        memset(p, 0, 16);
        free(p);
    }
    return NULL;
}

/* Allocates while the loader lock is held: a fixed-size block for each
 * of the first four objects (every process has at least the program, the
 * vdso, libc and ld.so), so the allocation count does not depend on how
 * many objects a tool preloads. */
struct walk {
    long seen;
    int index, round;
};

static int on_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct walk *w = data;

    (void)size;
    if (w->index < 4) {
        int k;

        for (k = 0; k < 8; k++) {
            char *copy = sites[(w->index * 8 + k + w->round) % NSITES](64);

            snprintf(copy, 64, "%s", info->dlpi_name);
            free(copy);
        }
        w->seen += 1;
    }
    w->index++;
    return 0;
}

static void *iterator(void *arg)
{
    struct walk w = {0, 0, 0};
    int i;

    for (i = 0; i < ITERATIONS_PER_THREAD; i++) {
        w.index = 0;
        w.round = i;
        dl_iterate_phdr(on_object, &w);
    }
    return w.seen == 4 * ITERATIONS_PER_THREAD ? arg : NULL;
}

int main(void)
{
    int r, t, ok = 1;

    for (r = 0; r < ROUNDS; r++) {
        pthread_t a[ALLOCATORS], it[ITERATORS];

        for (t = 0; t < ITERATORS; t++)
            pthread_create(&it[t], NULL, iterator, &it[t]);
        for (t = 0; t < ALLOCATORS; t++)
            pthread_create(&a[t], NULL, allocator,
                           (void *)(size_t)(r * ALLOCATORS + t + 1));
        for (t = 0; t < ALLOCATORS; t++)
            pthread_join(a[t], NULL);
        for (t = 0; t < ITERATORS; t++) {
            void *ret;

            pthread_join(it[t], &ret);
            ok &= ret != NULL;
        }
    }
    printf("%d rounds: %d allocators x %d blocks, %d iterators x %d walks, %s\n",
           ROUNDS, ALLOCATORS, ALLOCS_PER_THREAD, ITERATORS,
           ITERATIONS_PER_THREAD, ok ? "every walk saw objects" : "FAILED");
    return ok ? 0 : 1;
}
