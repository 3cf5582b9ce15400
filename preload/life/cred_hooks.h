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

/* Make and keep open, now, the files the exit will write (the leak
 * report's log file, massif.out, pprof, HTML, SARIF), while the process
 * may still create them: before a change of credentials, and before a
 * seccomp filter (seccomp_hooks.c) that may refuse the opens. errno is
 * left as it was. No lock: may run in a signal handler. */
void lp_keep_outputs_now(void);

#endif /* LP_PRELOAD_LIFE_CRED_HOOKS_H */
