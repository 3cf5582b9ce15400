/* SPDX-License-Identifier: MIT */
/*
 * cxx.c - C++'s allocation operators, interposed so that a loss record
 * starts "at operator new(unsigned long)" as under Memcheck, instead of
 * "at malloc" followed by libstdc++'s frame.
 *
 * The common path allocates through our own malloc hook. When the real malloc fails, the
 * next definition (libstdc++'s) takes over: it runs the new_handler loop
 * and throws std::bad_alloc (or returns NULL for nothrow) exactly as the
 * program expects; its retry goes through our malloc hook and is tracked
 * there. operator delete needs no wrapper: libstdc++'s calls free(),
 * which is ours. A program that defines its own operator new comes
 * first in the lookup order, so it keeps it.
 * Context: HOT. Symbols are defined by their mangled names.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#include "preload/lp.h"

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
 * The allocation itself goes through our malloc/posix_memalign hooks: the
 * stack capture keeps the outermost of our frames, which is this operator,
 * so the record still starts "at operator new(...)". The result is tested
 * after the call, so the compiler cannot turn it into a tail call that
 * would drop this frame.
 */
static inline void *plain(size_t size)
{
    return malloc(size);
}

static inline void *aligned(size_t size, size_t align)
{
    void *p = NULL;

    if (align < sizeof(void *))
        align = sizeof(void *);
    return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

/* operator new(unsigned long) */
LP_EXPORT void *_Znwm(size_t size);
LP_EXPORT void *_Znwm(size_t size)
{
    void *p = plain(size);

    return p ? p : ((new_fn)next("_Znwm"))(size);
}

/* operator new[](unsigned long) */
LP_EXPORT void *_Znam(size_t size);
LP_EXPORT void *_Znam(size_t size)
{
    void *p = plain(size);

    return p ? p : ((new_fn)next("_Znam"))(size);
}

/* operator new(unsigned long, std::nothrow_t const&) */
LP_EXPORT void *_ZnwmRKSt9nothrow_t(size_t size, const void *nt);
LP_EXPORT void *_ZnwmRKSt9nothrow_t(size_t size, const void *nt)
{
    void *p = plain(size);

    return p ? p : ((new_nt_fn)next("_ZnwmRKSt9nothrow_t"))(size, nt);
}

/* operator new[](unsigned long, std::nothrow_t const&) */
LP_EXPORT void *_ZnamRKSt9nothrow_t(size_t size, const void *nt);
LP_EXPORT void *_ZnamRKSt9nothrow_t(size_t size, const void *nt)
{
    void *p = plain(size);

    return p ? p : ((new_nt_fn)next("_ZnamRKSt9nothrow_t"))(size, nt);
}

/* operator new(unsigned long, std::align_val_t) */
LP_EXPORT void *_ZnwmSt11align_val_t(size_t size, size_t align);
LP_EXPORT void *_ZnwmSt11align_val_t(size_t size, size_t align)
{
    void *p = aligned(size, align);

    return p ? p : ((new_al_fn)next("_ZnwmSt11align_val_t"))(size, align);
}

/* operator new[](unsigned long, std::align_val_t) */
LP_EXPORT void *_ZnamSt11align_val_t(size_t size, size_t align);
LP_EXPORT void *_ZnamSt11align_val_t(size_t size, size_t align)
{
    void *p = aligned(size, align);

    return p ? p : ((new_al_fn)next("_ZnamSt11align_val_t"))(size, align);
}

/* operator new(unsigned long, std::align_val_t, std::nothrow_t const&) */
LP_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t size, size_t align,
                                                    const void *nt);
LP_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t size, size_t align,
                                                    const void *nt)
{
    void *p = aligned(size, align);

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
    void *p = aligned(size, align);

    return p ? p
             : ((new_al_nt_fn)next("_ZnamSt11align_val_tRKSt9nothrow_t"))(
                   size, align, nt);
}
