/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LIFE_CRED_HOOKS_H
#define LP_PRELOAD_LIFE_CRED_HOOKS_H
/*
 * cred_hooks.h - the set*id family and setgroups, interposed: before a process changes
 * its credentials, the files it will write at exit are made (see
 * cred_hooks.c).
 * Context: BOOT (lp_cred_hooks_init), then COLD.
 */

/* Look the real functions up (at start: dlsym may allocate). */
void lp_cred_hooks_init(void);

#endif /* LP_PRELOAD_LIFE_CRED_HOOKS_H */
