/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FREERES_CHILD_H
#define LP_PRELOAD_FREERES_CHILD_H
/*
 * freeres_child.h - what glibc's __libc_freeres would free, learned from a
 * copy of the process that runs it, so the exit can count it as freed
 * when running it here is not safe (other threads still running).
 */
#include <stdbool.h>

/*
 * Run freeres in a child (a raw clone: no atfork handler, no SIGCHLD,
 * every descriptor closed, every signal blocked, no core file, its stdio
 * output discarded, its frees recorded and not done) and count every
 * block it freed as freed here (lp_track_forget), where the memory stays
 * the program's. Returns whether the child finished within its time;
 * false (and nothing counted) otherwise, under a seccomp filter, or
 * without memory. Exit path, COLD; call without the guard held.
 */
bool lp_freeres_learn(void (*freeres)(void));

/* Wait for the copy's end (after the report: its teardown overlaps it). */
void lp_freeres_reap(void);

#endif /* LP_PRELOAD_FREERES_CHILD_H */
