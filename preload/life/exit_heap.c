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

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "preload/hot/guard.h"
#include "preload/hot/real.h"
#include "preload/life/fatal_signal.h"

#define HEADER 16

static struct lp_real glibc; /* the real allocator, before the swap */
static char *base;
static size_t span, used;
static bool on;

/* The object that holds pc, as its first mapped address (0: none).
 * _dl_find_object takes no lock: this runs in a signal handler. */
static uintptr_t object_of(uintptr_t pc)
{
    struct dl_find_object obj;

    return _dl_find_object((void *)pc, &obj) == 0
               ? (uintptr_t)obj.dlfo_map_start
               : 0;
}

/* The frames a signal interrupted, from the instruction out, one at a
 * time: inside the real allocator when one lies in the allocator's
 * object (glibc's libc.so, or a malloc library's, which may be inside
 * the C library's lock or system call wrappers when interrupted) before
 * the chain leaves the C library. */
struct chain {
    uintptr_t alloc_obj, libc_obj;
    bool on; /* the frames so far were the C library's */
};

static void chain_begin(struct chain *c)
{
    c->alloc_obj = object_of((uintptr_t)lp_real.malloc);
    c->libc_obj = object_of((uintptr_t)&getpid);
    c->on = true;
}

/* True when pc, the next frame out, is the allocator's. */
static bool chain_in_allocator(struct chain *c, uintptr_t pc)
{
    uintptr_t obj;

    if (!c->on || c->alloc_obj == 0)
        return false;
    obj = object_of(pc);
    c->on = obj == c->libc_obj;
    return obj == c->alloc_obj;
}

/* Whether a signal handler on this thread's stack interrupted the real
 * allocator. Any signal frame counts, not only the innermost: a handler
 * that interrupted a handler that interrupted malloc still runs above
 * its held lock. A fatal signal's report runs on a stack of ours, which
 * the walk does not leave: there the frames noted at the signal say. The
 * guard is held: what the unwinder allocates (nothing, as we use it) is
 * ours. */
static bool handler_interrupted_allocator(void)
{
    const struct lp_fatal_info *f = lp_fatal_signal_info();
    struct chain c;
    unw_context_t ctx;
    unw_cursor_t cur;
    bool held = lp_guard_held, found = false;
    unsigned i, steps = 0;

    chain_begin(&c);
    for (i = 0; f && i < f->nips && !found; i++)
        found = chain_in_allocator(&c, f->ips[i]);
    lp_guard_held = true;
    c.on = false; /* our frames, then the handler's: up to a signal frame */
    if (!found && unw_getcontext(&ctx) == 0 &&
        unw_init_local(&cur, &ctx) == 0) {
        do {
            unw_word_t ip;

            if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0 || ip == 0)
                break;
            /* libunwind says "signal frame" of the frame it reached
             * through the kernel's: the one the signal interrupted. */
            if (unw_is_signal_frame(&cur) > 0)
                c.on = true;
            found = chain_in_allocator(&c, (uintptr_t)ip);
        } while (!found && ++steps < 1024 && unw_step(&cur) > 0);
    }
    lp_guard_restore(held);
    return found;
}

bool lp_allocator_interrupted(void)
{
    if (lp_in_libc != 0)
        return true;
    /* The forwarding hooks of sampled mode (lp_track_pass) jump into the
     * real allocator and leave lp_in_libc alone: the stack says. */
    return (lp_load_relaxed(&lp_hot.pass_below) != 0 ||
            lp_load_relaxed(&lp_hot.pass_filter) != NULL) &&
           handler_interrupted_allocator();
}

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
