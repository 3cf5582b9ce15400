/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LIFE_SECCOMP_HOOKS_H
#define LP_PRELOAD_LIFE_SECCOMP_HOOKS_H
/*
 * seccomp_hooks.h - prctl and syscall, interposed: before a process puts
 * itself in a seccomp sandbox, the files it will write at exit are made
 * (see seccomp_hooks.c).
 * Context: BOOT (lp_seccomp_hooks_init), then COLD.
 */

/* Look the real functions up (at start: dlsym may allocate). */
void lp_seccomp_hooks_init(void);

#endif /* LP_PRELOAD_LIFE_SECCOMP_HOOKS_H */
