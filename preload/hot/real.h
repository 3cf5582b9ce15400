/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_REAL_H
#define LP_PRELOAD_REAL_H
/*
 * real.h - the next allocator in the lookup order (glibc's), resolved with
 * dlsym(RTLD_NEXT). While dlsym itself runs it may allocate; those calls
 * are served from a static bump arena (lp_boot_owns() tells its blocks
 * apart, and free() ignores them). Boot blocks are ours, never tracked.
 *
 * Context: HOT and BOOT. lp_real_init() is idempotent and thread-safe.
 */
#include "preload/lp.h"

struct lp_real {
    void *(*malloc)(size_t);
    void (*free)(void *);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
    size_t (*malloc_usable_size)(void *);
};

extern struct lp_real lp_real;

/* Resolve the real functions; returns false while this very thread is
 * inside the resolution (callers then use the boot arena). */
bool lp_real_init(void);

/* Bump allocation for the dlsym window; never freed. */
void *lp_boot_alloc(size_t size, size_t align);
#define LP_BOOT_MEM_SIZE (256 * 1024)
extern unsigned char lp_boot_mem[LP_BOOT_MEM_SIZE];
/* Inline: free() asks on every call. */
static inline bool lp_boot_owns(const void *p)
{
    return (uintptr_t)p - (uintptr_t)lp_boot_mem < LP_BOOT_MEM_SIZE;
}
size_t lp_boot_size(const void *p);

#endif /* LP_PRELOAD_REAL_H */
