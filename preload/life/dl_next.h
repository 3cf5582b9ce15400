/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LIFE_DL_NEXT_H
#define LP_PRELOAD_LIFE_DL_NEXT_H
/*
 * dl_next.h - the next definition of a function we interpose (libc's),
 * for hooks that look it up on first use.
 * Context: any; not in a signal handler before the first lookup.
 */

/* dlsym(RTLD_NEXT, name) with the guard held: dlsym may allocate, and
 * that block is not the program's. NULL when there is none. */
void *lp_dl_next(const char *name);

#endif /* LP_PRELOAD_LIFE_DL_NEXT_H */
