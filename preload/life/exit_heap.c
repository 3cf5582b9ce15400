/* SPDX-License-Identifier: MIT */
/*
 * exit_heap.c - our own heap for an exit that interrupted the allocator.
 *
 * A program may call exit() from a signal handler (a SIGINT or SIGALRM
 * handler ending the run). When the signal arrived while the same thread
 * was inside malloc or free, glibc's heap is half-updated and, with
 * threads, its arena lock is held by that thread: natively nothing runs
 * after exit that allocates, so the program ends as it asked. Our exit
 * report allocates (the grouping, the symbolizer's tables), and glibc
 * then aborted on a "malloc assertion failure" (sysmalloc) or would
 * deadlock: status 134 in 16 of 30 runs of such a program instead of its
 * own exit status.
 *
 * So the report's thread, when lp_in_libc says it was interrupted inside
 * the real allocator (or fork, which holds the allocator's locks), swaps
 * the real allocator's entry points (lp_real, lp_hot's copies) for the
 * ones below before anything else: an allocation made with the guard held
 * is a bump in a mapping of our own, with its size in a 16-byte header;
 * its free, and our free of a block the real heap holds, are dropped (the
 * process is ending); realloc copies out. Allocations without the guard
 * - the program's other threads - still go to the real allocator.
 * Context: COLD; the replacements are SIGNAL-safe (a CAS bump, no lock).
 */
#include "preload/life/exit_heap.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/hot/guard.h"
#include "preload/hot/real.h"

#define HEADER 16

static struct lp_real glibc; /* the real allocator, before the swap */
static char *base;
static size_t span, used;
static bool on;

bool lp_exit_heap_needed(void) { return lp_in_libc != 0; }

bool lp_exit_heap_on(void) { return lp_load_acquire(&on); }

static bool mine(const void *p)
{
    return base && (uintptr_t)p - (uintptr_t)base < span;
}

static void *bump(size_t size, size_t align)
{
    size_t off, cur;

    if (align < HEADER)
        align = HEADER;
    if (align & (align - 1)) {
        errno = EINVAL;
        return NULL;
    }
    do {
        cur = lp_load_relaxed(&used);
        off = (cur + HEADER + align - 1) & ~(align - 1);
        if (off > span || size > span - off) {
            errno = ENOMEM;
            return NULL;
        }
    } while (!lp_cas(&used, &cur, off + size));
    memcpy(base + off - sizeof(size_t), &size, sizeof(size_t));
    return base + off; /* fresh pages: zeroed */
}

static size_t size_of(void *p)
{
    size_t n;

    if (!mine(p))
        return glibc.malloc_usable_size ? glibc.malloc_usable_size(p) : 0;
    memcpy(&n, (char *)p - sizeof(size_t), sizeof(size_t));
    return n;
}

static void *x_malloc(size_t n)
{
    return lp_guard_held ? bump(n, HEADER) : glibc.malloc(n);
}

static void *x_calloc(size_t n, size_t size)
{
    size_t total;

    if (!lp_guard_held)
        return glibc.calloc(n, size);
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return bump(total, HEADER);
}

static void x_free(void *p)
{
    if (p && !mine(p) && !lp_guard_held)
        glibc.free(p);
}

static void *x_realloc(void *old, size_t n)
{
    void *np;
    size_t had;

    if (!lp_guard_held && !mine(old))
        return glibc.realloc(old, n);
    if (old && n == 0)
        return NULL; /* freed, as glibc's realloc(p, 0) */
    np = bump(n, HEADER);
    if (np && old) {
        had = size_of(old);
        memcpy(np, old, had < n ? had : n);
    }
    return np;
}

static int x_posix_memalign(void **out, size_t align, size_t n)
{
    void *p;

    if (!lp_guard_held)
        return glibc.posix_memalign(out, align, n);
    p = bump(n, align);
    if (!p)
        return errno;
    *out = p;
    return 0;
}

static void *x_aligned_alloc(size_t align, size_t n)
{
    return lp_guard_held ? bump(n, align) : glibc.aligned_alloc(align, n);
}

static void *x_memalign(size_t align, size_t n)
{
    return lp_guard_held ? bump(n, align) : glibc.memalign(align, n);
}

static void *x_valloc(size_t n)
{
    return lp_guard_held ? bump(n, 4096) : glibc.valloc(n);
}

static void *x_pvalloc(size_t n)
{
    return lp_guard_held ? bump((n + 4095) & ~(size_t)4095, 4096)
                         : glibc.pvalloc(n);
}

static size_t x_usable(void *p)
{
    return p ? size_of(p) : 0;
}

/* Address space only until written: try smaller when a strict overcommit
 * policy refuses a large one. */
static bool map_heap(void)
{
    size_t want;

    for (want = (size_t)1 << 30; want >= ((size_t)16 << 20); want /= 4) {
        void *p = mmap(NULL, want, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

        if (p != MAP_FAILED) {
            base = p;
            span = want;
            return true;
        }
    }
    return false;
}

bool lp_exit_heap_take(void)
{
    if (lp_load_acquire(&on))
        return true;
    if (!map_heap())
        return false;
    glibc = lp_real;
    /* The forwarding paths of sampled mode go straight to glibc: off. */
    lp_store_relaxed(&lp_hot.pass_below, 0);
    lp_store_relaxed(&lp_hot.pass_filter, NULL);
    lp_store_relaxed(&lp_real_glibc, false); /* usable sizes: ask x_usable */
    lp_store_relaxed(&lp_real.malloc, x_malloc);
    lp_store_relaxed(&lp_real.calloc, x_calloc);
    lp_store_relaxed(&lp_real.realloc, x_realloc);
    lp_store_relaxed(&lp_real.posix_memalign, x_posix_memalign);
    lp_store_relaxed(&lp_real.aligned_alloc, x_aligned_alloc);
    lp_store_relaxed(&lp_real.memalign, x_memalign);
    lp_store_relaxed(&lp_real.valloc, x_valloc);
    lp_store_relaxed(&lp_real.pvalloc, x_pvalloc);
    lp_store_relaxed(&lp_real.malloc_usable_size, x_usable);
    lp_store_relaxed(&lp_hot.malloc, x_malloc);
    lp_store_relaxed(&lp_hot.calloc, x_calloc);
    lp_store_relaxed(&lp_hot.free, x_free);
    lp_store_release(&lp_real.free, x_free);
    lp_store_release(&on, true);
    return true;
}
