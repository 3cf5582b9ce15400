/* SPDX-License-Identifier: MIT */
/*
 * printf_hooks.c - register_printf_function, _specifier, _modifier and
 * _type, interposed only to note that the program extended printf.
 *
 * Why: glibc keeps the extensions in tables that __libc_freeres frees
 * without forgetting them, and from the first registration on every
 * printf call of the process goes through them (printf_positional reads
 * the modifier table for each conversion). The exit's report, written
 * with snprintf after an in-process freeres, read the freed table: every
 * Fortran program (libgfortran's libquadmath registers %Q in a
 * constructor) died of SIGSEGV at exit under the library. Where the
 * program extended printf, the exit learns what freeres would free from
 * a copy of the process instead (exit.c, freeres_child.c): the figures
 * are the same, and the tables stay.
 * Each hook then does what the real function does, errno included.
 * Context: any thread, from constructors on (libquadmath's may run before
 * our init: the real function is looked up on first use).
 */
#include "preload/life/printf_hooks.h"

#include <errno.h>
#include <printf.h>

#include "preload/life/dl_next.h"
#include "preload/lp.h"

static bool extended;

bool lp_printf_extended(void)
{
    return lp_load_relaxed(&extended);
}


#define REAL(type, name) \
    static type *real_; \
    lp_store_relaxed(&extended, true); \
    if (!real_ && !(real_ = (type *)lp_dl_next(#name))) { \
        errno = ENOSYS; \
        return -1; \
    }

typedef int function_fn(int, printf_function *, printf_arginfo_function *);
typedef int specifier_fn(int, printf_function *,
                         printf_arginfo_size_function *);
typedef int modifier_fn(const wchar_t *);
typedef int type_fn(printf_va_arg_function *);

LP_EXPORT int register_printf_function(int spec, printf_function *render,
                                       printf_arginfo_function *arginfo)
{
    REAL(function_fn, register_printf_function)
    return real_(spec, render, arginfo);
}

LP_EXPORT int register_printf_specifier(int spec, printf_function *render,
                                        printf_arginfo_size_function *arginfo)
{
    REAL(specifier_fn, register_printf_specifier)
    return real_(spec, render, arginfo);
}

LP_EXPORT int register_printf_modifier(const wchar_t *str)
{
    REAL(modifier_fn, register_printf_modifier)
    return real_(str);
}

LP_EXPORT int register_printf_type(printf_va_arg_function *fct)
{
    REAL(type_fn, register_printf_type)
    return real_(fct);
}
