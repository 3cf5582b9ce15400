/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FD_HOOKS_H
#define LP_PRELOAD_FD_HOOKS_H
/*
 * fs_hooks.h - close, close_range, closefrom, dup2 and dup3, interposed
 * to keep the program off our descriptors (fd_guard.h), and chroot, to
 * open the symbolizer's files before they go out of reach.
 * Context: BOOT.
 */

/* Look the real functions up (dlsym: at start, guard held). */
void lp_fs_hooks_init(void);

#endif /* LP_PRELOAD_FD_HOOKS_H */
