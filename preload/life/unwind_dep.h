/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_UNWIND_DEP_H
#define LP_PRELOAD_UNWIND_DEP_H
/*
 * unwind_dep.h - libunwind.so.8, the one library ld.so loads for us at
 * start (the fallback unwinder): is it ours alone, or does the program
 * need it too? Ours alone, its TLS module is no part of the program's
 * DTVs (own_tls.c) and its memory no root of the leak scan
 * (own_objects.c), as under Memcheck, which never loads it; the
 * program's too, it is the program's as well, with both.
 * Context: COLD: dl_iterate_phdr takes the loader's lock.
 */
#include <stdbool.h>

/* The name we link it by (DT_NEEDED of libleakprof.so). */
#define LP_UNWIND_SONAME "libunwind.so.8"

/* Whether path names that object (its last component). */
bool lp_unwind_dep_is(const char *path);

/* Whether an object other than libleakprof.so and libunwind itself names
 * it among its DT_NEEDED: the program uses libunwind too. */
bool lp_unwind_dep_shared(void);

#endif /* LP_PRELOAD_UNWIND_DEP_H */
