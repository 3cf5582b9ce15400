/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_EXEC_HOOKS_H
#define LP_PRELOAD_EXEC_HOOKS_H
/*
 * exec_hooks.h - the interposed exec family and posix_spawn (see
 * exec_hooks.c). Context: BOOT.
 */

/* Look up the real functions; call once, from the constructor. */
void lp_exec_hooks_init(void);

#endif /* LP_PRELOAD_EXEC_HOOKS_H */
