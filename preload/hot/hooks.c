/* SPDX-License-Identifier: MIT */
/*
 * hooks.c - the libc allocation symbols that LD_PRELOAD interposes.
 *
 * Each hook forwards to the real allocator and reports the outcome to
 * track.c; before the real allocator is resolved (dlsym's own requests)
 * the boot arena answers. Edge semantics are glibc's, because glibc does
 * the work: malloc(0) gives a unique block, realloc(p, 0) frees p,
 * realloc(NULL, n) is malloc, a failed realloc keeps the old block. We
 * only add calloc's overflow check (before anything else) and keep free()
 * from changing errno. Calls into the real allocator are bracketed by
 * lp_in_libc, so a signal handler of ours knows not to allocate then;
 * the forwarding paths of sampled mode jump to it instead (an exit from
 * a handler finds them on the stack: exit_heap.c).
 * Context: HOT.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/hot/guard.h"
#include "preload/life/exit_lists.h"
#include "preload/life/own_tls.h"
#include "preload/lp.h"
#include "preload/hot/real.h"
#include "preload/hot/freed.h"
#include "preload/hot/track.h"

/* Evaluate a call into the real allocator with lp_in_libc raised. */
#define IN_LIBC(call) \
    __extension__({ \
        __typeof__(call) r_; \
        lp_in_libc++; \
        r_ = (call); \
        lp_in_libc--; \
        r_; \
    })
#define IN_LIBC_VOID(call) \
    do { \
        lp_in_libc++; \
        call; \
        lp_in_libc--; \
    } while (0)

/*
 * malloc and free in two parts: the hook itself, which needs no frame when
 * it only forwards (sampled mode, an untracked block: lp_track_pass), and
 * the body, called (never tail-called) otherwise, so that the hook stays
 * a frame of the stack (the "at malloc" line) while its forwarding path
 * saves and restores no register. One body, inlined in each hook, set up
 * a frame and four registers before its first test.
 */
static LP_NOINLINE void *malloc_body(size_t size)
{
    void *p;

    if (LP_UNLIKELY(!lp_track_init()))
        return lp_boot_alloc(size, 16);
    p = IN_LIBC(lp_real.malloc(size));
    if (LP_LIKELY(p != NULL))
        lp_track_alloc(p, size, LP_HOW_MALLOC);
    return p;
}

LP_EXPORT void *malloc(size_t size)
{
    void *p;

    if (lp_track_pass(size))
        return lp_hot.malloc(size); /* a tail call */
    p = malloc_body(size);
    __asm__ volatile("" ::: "memory"); /* no tail call: the hook's frame */
    return p;
}

static LP_NOINLINE void free_body(void *p)
{
    /* Record first: after the real free another thread may receive p.
     * A bad pointer (double free, stack, global...) is reported there
     * and never reaches glibc, which would abort the program. */
    lp_track_release_block(p, LP_HOW_MALLOC);
}

LP_EXPORT void free(void *p)
{
    /* The filter first: it holds the boot blocks' counters stuck
     * (lp_sample_filter_pin), and NULL, if it passes, goes to the real
     * free, which ignores it. */
    if (LP_LIKELY(lp_track_release_pass(p))) {
        lp_hot.free(p); /* a tail call */
        return;
    }
    if (p == NULL || LP_UNLIKELY(lp_boot_owns(p)))
        return;
    free_body(p);
    __asm__ volatile("" ::: "memory"); /* no tail call: the hook's frame */
}

LP_EXPORT void *calloc(size_t n, size_t size)
{
    size_t total;
    void *p;

    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    if (LP_UNLIKELY(!lp_track_init()))
        return lp_boot_alloc(total, 16); /* static memory is zeroed */
    if (size != 16 && !(n == 1 && size == LP_EXIT_LIST_SIZE) &&
        lp_track_pass(total))
        return lp_hot.calloc(n, size);
    p = IN_LIBC(lp_real.calloc(n, size));
    if (LP_UNLIKELY(size == 16)) /* a thread's DTV: ours taken out */
        total = lp_own_tls_dtv_size(n, total,
                                    (uintptr_t)__builtin_return_address(0));
    if (LP_LIKELY(p != NULL))
        lp_track_alloc_unfilled(p, total, LP_HOW_MALLOC);
    if (LP_UNLIKELY(n == 1 && size == LP_EXIT_LIST_SIZE))
        lp_exit_lists_note(p, (uintptr_t)__builtin_return_address(0));
    return p;
}

LP_EXPORT void *realloc(void *old, size_t size)
{
    struct lp_block ob;
    size_t old_usable = 0, held;
    int had;
    void *np;

    if (LP_UNLIKELY(!lp_track_init())) {
        np = lp_boot_alloc(size, 16);
        if (np && old)
            memcpy(np, old, lp_boot_size(old) < size ? lp_boot_size(old) : size);
        return np;
    }
    /* As Valgrind's realloc does: a tail call, so the record starts "at
     * malloc" and the realloc frame is gone. */
    if (old == NULL)
        return malloc(size);
    if (LP_UNLIKELY(lp_boot_owns(old))) {
        size_t n = lp_boot_size(old);

        np = IN_LIBC(lp_real.malloc(size));
        if (np) {
            memcpy(np, old, n < size ? n : size);
            lp_track_malloc_fill(np, n, size);
            lp_track_alloc_unfilled(np, size, LP_HOW_MALLOC);
        }
        return np;
    }
    if (size == 0) {
        /* glibc frees the block and returns NULL. A bad pointer: NULL,
         * errno untouched, as under Memcheck. */
        if (!lp_track_free(old, LP_HOW_MALLOC))
            return NULL;
        return IN_LIBC(lp_real.realloc(old, 0));
    }
    had = lp_track_realloc_begin(old, size, &ob, &old_usable);
    if (LP_UNLIKELY(had < 0)) {
        /* A bad pointer, reported: Memcheck's realloc returns NULL with
         * errno ENOMEM, and the program goes on. */
        errno = ENOMEM;
        return NULL;
    }
    /* malloc_fill: only the bytes past what the block held: its usable
     * size, which the program may have written (malloc_usable_size said
     * so) and glibc's realloc keeps; redis's sds strings lost their tail
     * when the fill began at the size asked for. */
    held = 0;
    if (LP_UNLIKELY(lp_config.malloc_fill >= 0)) {
        held = lp_real_usable(old);
        if (had > 0 && ob.size > held)
            held = ob.size;
    }
    if (LP_UNLIKELY(had > 0 && lp_freed_holding())) {
        /* quarantine=yes: every tracked block moves, as Memcheck's
         * realloc moves it, and the old one waits in the freed queue
         * (freed.c) - or goes now if the queue did not take it. */
        size_t have = lp_real_usable(old);

        /* The old block's usable bytes, not only the ones asked for, as
         * glibc's realloc keeps them: a program told the usable size
         * (malloc_usable_size) may have written there. redis's sds
         * strings do: its config line lost its tail, and redis-server
         * refused its own command line ("Bad directive"). */
        if (have < ob.size)
            have = ob.size;
        np = IN_LIBC(lp_real.malloc(size));
        if (np)
            memcpy(np, old, have < size ? have : size);
        lp_track_malloc_fill(np, held, size);
        if (!lp_track_realloc_end(old, np, size, true, &ob, old_usable) &&
            np)
            IN_LIBC_VOID(lp_real.free(old));
        return np;
    }
    np = IN_LIBC(lp_real.realloc(old, size));
    lp_track_malloc_fill(np, held, size);
    (void)lp_track_realloc_end(old, np, size, had > 0, &ob, old_usable);
    return np;
}

LP_EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
    size_t total;

    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(old, total);
}

LP_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    int rc;

    if (LP_UNLIKELY(!lp_track_init())) {
        *out = lp_boot_alloc(size, align);
        return *out ? 0 : ENOMEM;
    }
    rc = IN_LIBC(lp_real.posix_memalign(out, align, size));
    if (rc == 0)
        lp_track_alloc(*out, size, LP_HOW_MALLOC);
    return rc;
}

LP_EXPORT void *aligned_alloc(size_t align, size_t size)
{
    void *p;

    if (LP_UNLIKELY(!lp_track_init()))
        return lp_boot_alloc(size, align);
    p = IN_LIBC(lp_real.aligned_alloc(align, size));
    if (p)
        lp_track_alloc(p, size, LP_HOW_MALLOC);
    return p;
}

LP_EXPORT void *memalign(size_t align, size_t size)
{
    void *p;

    if (LP_UNLIKELY(!lp_track_init()))
        return lp_boot_alloc(size, align);
    p = IN_LIBC(lp_real.memalign(align, size));
    if (p)
        lp_track_alloc(p, size, LP_HOW_MALLOC);
    return p;
}

LP_EXPORT void *valloc(size_t size)
{
    void *p;

    if (LP_UNLIKELY(!lp_track_init()))
        return lp_boot_alloc(size, 4096);
    p = IN_LIBC(lp_real.valloc(size));
    if (p)
        lp_track_alloc(p, size, LP_HOW_MALLOC);
    return p;
}

LP_EXPORT void *pvalloc(size_t size)
{
    void *p;
    size_t page = 4096;

    if (LP_UNLIKELY(!lp_track_init()))
        return lp_boot_alloc((size + page - 1) & ~(page - 1), page);
    p = IN_LIBC(lp_real.pvalloc(size));
    if (p)
        lp_track_alloc(p, (size + page - 1) & ~(page - 1), LP_HOW_MALLOC);
    return p;
}

LP_EXPORT size_t malloc_usable_size(void *p)
{
    if (p == NULL)
        return 0;
    if (LP_UNLIKELY(lp_boot_owns(p)))
        return lp_boot_size(p);
    if (LP_UNLIKELY(!lp_track_init()))
        return 0;
    return lp_real.malloc_usable_size(p);
}
