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

/*
 * The real allocator is glibc's own (its malloc and free are glibc's
 * __libc_malloc and __libc_free): then a block's usable size is read off
 * its chunk header here, as glibc's malloc_usable_size computes it for a
 * block in use - the chunk's size less its 8-byte header, or less 16 for
 * a chunk of its own mapping - without the call into libc and without
 * the load of the next chunk's header that glibc's check of the in-use
 * bit adds (every block we ask about is in use). Massif's extra-heap
 * figures need it on every allocation and free (5% of the 2-thread
 * storm's samples). Another allocator behind us (one preloaded after
 * ours) is asked.
 */
extern bool lp_real_glibc;
static inline size_t lp_real_usable(void *p)
{
    size_t h;

    if (LP_UNLIKELY(!lp_real_glibc))
        return lp_real.malloc_usable_size ? lp_real.malloc_usable_size(p) : 0;
    __builtin_memcpy(&h, (const unsigned char *)p - sizeof(h), sizeof(h));
    return (h & ~(size_t)7) - ((h & 2) ? 2 * sizeof(h) : sizeof(h));
}

/* Resolve the real functions; returns false while this very thread is
 * inside the resolution (callers then use the boot arena). */
bool lp_real_init(void);

/* Bump allocation for the dlsym window; never freed. */
void *lp_boot_alloc(size_t size, size_t align);
#define LP_BOOT_MEM_SIZE (256 * 1024)
extern unsigned char lp_boot_mem[LP_BOOT_MEM_SIZE]
    __attribute__((visibility("hidden")));
/* Inline: free() asks on every call. */
static inline bool lp_boot_owns(const void *p)
{
    return (uintptr_t)p - (uintptr_t)lp_boot_mem < LP_BOOT_MEM_SIZE;
}
size_t lp_boot_size(const void *p);
/* Bytes of the boot arena handed out so far (headers included). */
size_t lp_boot_used(void);

#endif /* LP_PRELOAD_REAL_H */
