/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FD_HOOKS_H
#define LP_PRELOAD_FD_HOOKS_H
/*
 * fd_hooks.h - close, close_range, closefrom, dup2 and dup3, interposed
 * to keep the program off our descriptors (fd_guard.h).
 * Context: BOOT.
 */

/* Look the real functions up (dlsym: at start, guard held). */
void lp_fd_hooks_init(void);

#endif /* LP_PRELOAD_FD_HOOKS_H */
