/* SPDX-License-Identifier: MIT */
/*
 * real.c - resolving glibc's allocator behind us, and the boot arena that
 * serves dlsym's own allocations while we resolve it.
 * Context: HOT/BOOT.
 */
#include "preload/hot/real.h"
#include "preload/hot/sample.h"
#include "preload/hot/tcb_slot.h"

#include <dlfcn.h>
#include <string.h>
#include <sched.h>

struct lp_real lp_real;
bool lp_real_glibc;

/* 0: not started, 1: resolving, 2: done. */
static int resolve_state;
#define resolving_here (lp_self.resolving_real)

/* dlsym allocates a little (dlerror state); 256 KiB is plenty. Each block
 * has a 16-byte header holding its size, so realloc can copy it out. */
_Alignas(64) unsigned char lp_boot_mem[LP_BOOT_MEM_SIZE];
static size_t boot_used;

void *lp_boot_alloc(size_t size, size_t align)
{
    size_t off, cur;

    if (align < 16)
        align = 16;
    do {
        cur = lp_load_relaxed(&boot_used);
        off = (cur + 16 + align - 1) & ~(align - 1);
        if (off + size > sizeof(lp_boot_mem) || off + size < off)
            return NULL;
    } while (!lp_cas(&boot_used, &cur, off + size));
    memcpy(lp_boot_mem + off - sizeof(size_t), &size, sizeof(size_t));
    /* Once sampled mode's filter exists, free() asks it first: this
     * block's counter must never let it pass to the real free. */
    lp_sample_filter_pin((uintptr_t)(lp_boot_mem + off),
                         (uintptr_t)(lp_boot_mem + off) + 1);
    return lp_boot_mem + off;
}

size_t lp_boot_used(void)
{
    return lp_load_relaxed(&boot_used);
}

size_t lp_boot_size(const void *p)
{
    size_t n;

    memcpy(&n, (const unsigned char *)p - sizeof(size_t), sizeof(size_t));
    return n;
}

#define RESOLVE(name) \
    lp_real.name = (__typeof__(lp_real.name))dlsym(RTLD_NEXT, #name)

bool lp_real_init(void)
{
    int expect = 0;

    if (LP_LIKELY(lp_load_acquire(&resolve_state) == 2))
        return true;
    if (resolving_here)
        return false;
    if (!lp_cas(&resolve_state, &expect, 1)) {
        /* Another thread resolves: wait for it (this is start-up only). */
        while (lp_load_acquire(&resolve_state) != 2)
            sched_yield();
        return true;
    }
    resolving_here = true;
    RESOLVE(malloc);
    RESOLVE(free);
    RESOLVE(calloc);
    RESOLVE(realloc);
    RESOLVE(posix_memalign);
    RESOLVE(aligned_alloc);
    RESOLVE(memalign);
    RESOLVE(valloc);
    RESOLVE(pvalloc);
    RESOLVE(malloc_usable_size);
    lp_real_glibc = lp_real.malloc_usable_size &&
                    (void *)lp_real.malloc == dlsym(RTLD_NEXT, "__libc_malloc") &&
                    (void *)lp_real.free == dlsym(RTLD_NEXT, "__libc_free");
    resolving_here = false;
    if (!lp_real.malloc || !lp_real.free || !lp_real.calloc ||
        !lp_real.realloc)
        lp_panic("cannot resolve the real allocator with dlsym(RTLD_NEXT)");
    lp_store_release(&resolve_state, 2);
    return true;
}
