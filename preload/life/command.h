/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_COMMAND_H
#define LP_PRELOAD_COMMAND_H
/*
 * command.h - the command line the report's "Command:" line shows.
 *
 * Captured once in the constructor, before main can rewrite its argv, as
 * Memcheck prints it: the first process shows argv[0] as it was typed; a
 * program exec'd by a traced process shows the path it was exec'd with
 * (AT_EXECFN), then its arguments. A fork child keeps its parent's.
 *
 * Context: BOOT (capture), COLD (readers). Fixed buffers, no allocation.
 */
#include "preload/lp.h"

/* Read /proc/self/cmdline; exec_child: argv[0] becomes the exec'd path. */
void lp_command_capture(bool exec_child);

/* The arguments, NUL-separated, and their total length (0: unknown). */
const char *lp_command_args(size_t *len);

/* The parent's pid as Memcheck's "Parent PID:" line gives it: the one
 * seen at start-up, or, in a fork child, the process that forked it (not
 * whoever adopted it since: a daemon's parent leaves at once). */
int lp_command_parent_pid(void);

/* In a fork child: the forking process becomes the parent. */
void lp_command_atfork_child(void);

#endif /* LP_PRELOAD_COMMAND_H */
