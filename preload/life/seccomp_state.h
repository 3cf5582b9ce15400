/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SECCOMP_STATE_H
#define LP_PRELOAD_SECCOMP_STATE_H
/*
 * seccomp_state.h - is the process under a seccomp filter? Before we make
 * a system call a program's filter may not list (membarrier, ptrace): a
 * filter may kill the process on it.
 */

/* The Seccomp field of /proc/self/status: 0 (none), 1 (strict), 2
 * (filter), or -1 when it cannot be read (then assume a filter). Plain
 * system calls only: BOOT, COLD, under the guard. */
int lp_seccomp_mode(void);

#endif /* LP_PRELOAD_SECCOMP_STATE_H */
