/* SPDX-License-Identifier: MIT */
/*
 * cxx.c - C++'s allocation operators, interposed so that a loss record
 * starts "at operator new(unsigned long)" as under Memcheck, instead of
 * "at malloc" followed by libstdc++'s frame, and so that each block
 * remembers its family (malloc, new, new[]): a release by the wrong one
 * is Memcheck's "Mismatched free() / delete / delete []".
 *
 * The common path allocates from the real malloc and tracks the block
 * with its family. When the real malloc fails, the next definition
 * (libstdc++'s) takes over: it runs the new_handler loop and throws
 * std::bad_alloc (or returns NULL for nothrow) exactly as the program
 * expects; its retry goes through our malloc hook and is tracked there
 * (as a malloc'd block: a failure path, not worth a family). Every
 * operator delete / delete[] (sized, aligned, nothrow) releases through
 * the same body as free(). A program that defines its own operators
 * comes first in the lookup order, so it keeps them.
 * Context: HOT. Symbols are defined by their mangled names.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#include "preload/hot/guard.h"
#include "preload/lp.h"
#include "preload/hot/real.h"
#include "preload/hot/track.h"

typedef void *(*new_fn)(size_t);
typedef void *(*new_nt_fn)(size_t, const void *);
typedef void *(*new_al_fn)(size_t, size_t);
typedef void *(*new_al_nt_fn)(size_t, size_t, const void *);

/* The next definition after ours, resolved on the rare failure path. */
static void *next(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);

    if (!fn)
        lp_panic("operator new failed and libstdc++'s is not loaded");
    return fn;
}

/*
 * The stack capture keeps the outermost of our frames, which is this
 * operator (the helpers are inlined into it), so the record starts "at
 * operator new(...)". The result is tested after the call, so the
 * compiler cannot turn it into a tail call that would drop this frame.
 */
static inline __attribute__((always_inline)) void *plain(size_t size,
                                                         unsigned how)
{
    void *p;

    if (LP_UNLIKELY(!lp_track_init()))
        return lp_boot_alloc(size, 16);
    lp_in_libc++;
    p = lp_real.malloc(size);
    lp_in_libc--;
    if (LP_LIKELY(p != NULL))
        lp_track_alloc(p, size, how);
    return p;
}

static inline __attribute__((always_inline)) void *aligned(size_t size,
                                                           size_t align,
                                                           unsigned how)
{
    void *p = NULL;

    if (align < sizeof(void *))
        align = sizeof(void *);
    if (size == 0)
        size = 1;
    if (LP_UNLIKELY(!lp_track_init()))
        return lp_boot_alloc(size, align);
    lp_in_libc++;
    if (lp_real.posix_memalign(&p, align, size) != 0)
        p = NULL;
    lp_in_libc--;
    if (p == NULL)
        return NULL;
    lp_track_alloc(p, size, how);
    return p;
}

/* operator new(unsigned long) */
LP_EXPORT void *_Znwm(size_t size);
LP_EXPORT void *_Znwm(size_t size)
{
    void *p = plain(size, LP_HOW_NEW);

    return p ? p : ((new_fn)next("_Znwm"))(size);
}

/* operator new[](unsigned long) */
LP_EXPORT void *_Znam(size_t size);
LP_EXPORT void *_Znam(size_t size)
{
    void *p = plain(size, LP_HOW_NEW_ARRAY);

    return p ? p : ((new_fn)next("_Znam"))(size);
}

/* operator new(unsigned long, std::nothrow_t const&) */
LP_EXPORT void *_ZnwmRKSt9nothrow_t(size_t size, const void *nt);
LP_EXPORT void *_ZnwmRKSt9nothrow_t(size_t size, const void *nt)
{
    void *p = plain(size, LP_HOW_NEW);

    return p ? p : ((new_nt_fn)next("_ZnwmRKSt9nothrow_t"))(size, nt);
}

/* operator new[](unsigned long, std::nothrow_t const&) */
LP_EXPORT void *_ZnamRKSt9nothrow_t(size_t size, const void *nt);
LP_EXPORT void *_ZnamRKSt9nothrow_t(size_t size, const void *nt)
{
    void *p = plain(size, LP_HOW_NEW_ARRAY);

    return p ? p : ((new_nt_fn)next("_ZnamRKSt9nothrow_t"))(size, nt);
}

/* operator new(unsigned long, std::align_val_t) */
LP_EXPORT void *_ZnwmSt11align_val_t(size_t size, size_t align);
LP_EXPORT void *_ZnwmSt11align_val_t(size_t size, size_t align)
{
    void *p = aligned(size, align, LP_HOW_NEW);

    return p ? p : ((new_al_fn)next("_ZnwmSt11align_val_t"))(size, align);
}

/* operator new[](unsigned long, std::align_val_t) */
LP_EXPORT void *_ZnamSt11align_val_t(size_t size, size_t align);
LP_EXPORT void *_ZnamSt11align_val_t(size_t size, size_t align)
{
    void *p = aligned(size, align, LP_HOW_NEW_ARRAY);

    return p ? p : ((new_al_fn)next("_ZnamSt11align_val_t"))(size, align);
}

/* operator new(unsigned long, std::align_val_t, std::nothrow_t const&) */
LP_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t size, size_t align,
                                                    const void *nt);
LP_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t size, size_t align,
                                                    const void *nt)
{
    void *p = aligned(size, align, LP_HOW_NEW);

    return p ? p
             : ((new_al_nt_fn)next("_ZnwmSt11align_val_tRKSt9nothrow_t"))(
                   size, align, nt);
}

/* operator new[](unsigned long, std::align_val_t, std::nothrow_t const&) */
LP_EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t size, size_t align,
                                                    const void *nt);
LP_EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t size, size_t align,
                                                    const void *nt)
{
    void *p = aligned(size, align, LP_HOW_NEW_ARRAY);

    return p ? p
             : ((new_al_nt_fn)next("_ZnamSt11align_val_tRKSt9nothrow_t"))(
                   size, align, nt);
}

/*
 * operator delete and delete[], every variant. The size and alignment
 * arguments are not checked (Memcheck 3.19 does not either); the family
 * is. Each body is lp_track_release inlined, so the error's stack starts
 * "at operator delete(void*, unsigned long)" as Memcheck prints it.
 */
#define LP_UNUSED __attribute__((unused))
#define LP_DELETE(name, how, params) \
    LP_EXPORT void name params; \
    LP_EXPORT void name params { lp_track_release(p, how); }

/* operator delete(void*) */
LP_DELETE(_ZdlPv, LP_HOW_NEW, (void *p))
/* operator delete[](void*) */
LP_DELETE(_ZdaPv, LP_HOW_NEW_ARRAY, (void *p))
/* operator delete(void*, unsigned long) */
LP_DELETE(_ZdlPvm, LP_HOW_NEW, (void *p, LP_UNUSED size_t n))
/* operator delete[](void*, unsigned long) */
LP_DELETE(_ZdaPvm, LP_HOW_NEW_ARRAY, (void *p, LP_UNUSED size_t n))
/* operator delete(void*, std::align_val_t) */
LP_DELETE(_ZdlPvSt11align_val_t, LP_HOW_NEW, (void *p, LP_UNUSED size_t al))
/* operator delete[](void*, std::align_val_t) */
LP_DELETE(_ZdaPvSt11align_val_t, LP_HOW_NEW_ARRAY, (void *p, LP_UNUSED size_t al))
/* operator delete(void*, unsigned long, std::align_val_t) */
LP_DELETE(_ZdlPvmSt11align_val_t, LP_HOW_NEW, (void *p, LP_UNUSED size_t n, LP_UNUSED size_t al))
/* operator delete[](void*, unsigned long, std::align_val_t) */
LP_DELETE(_ZdaPvmSt11align_val_t, LP_HOW_NEW_ARRAY,
          (void *p, LP_UNUSED size_t n, LP_UNUSED size_t al))
/* operator delete(void*, std::nothrow_t const&) */
LP_DELETE(_ZdlPvRKSt9nothrow_t, LP_HOW_NEW, (void *p, LP_UNUSED const void *nt))
/* operator delete[](void*, std::nothrow_t const&) */
LP_DELETE(_ZdaPvRKSt9nothrow_t, LP_HOW_NEW_ARRAY, (void *p, LP_UNUSED const void *nt))
/* operator delete(void*, std::align_val_t, std::nothrow_t const&) */
LP_DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, LP_HOW_NEW,
          (void *p, LP_UNUSED size_t al, LP_UNUSED const void *nt))
/* operator delete[](void*, std::align_val_t, std::nothrow_t const&) */
LP_DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, LP_HOW_NEW_ARRAY,
          (void *p, LP_UNUSED size_t al, LP_UNUSED const void *nt))
