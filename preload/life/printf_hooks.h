/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LIFE_PRINTF_HOOKS_H
#define LP_PRELOAD_LIFE_PRINTF_HOOKS_H
/*
 * printf_hooks.h - glibc's printf extension registrations, interposed to
 * learn whether the program made any (see printf_hooks.c).
 * Context: any (the hooks run from constructors, before our init).
 */
#include <stdbool.h>

/* Whether the program registered a printf modifier, specifier or type
 * (libquadmath does, for every Fortran program): then __libc_freeres may
 * not run in this process, whose report still calls printf after it. */
bool lp_printf_extended(void);

#endif /* LP_PRELOAD_LIFE_PRINTF_HOOKS_H */
