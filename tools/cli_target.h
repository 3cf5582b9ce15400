/* SPDX-License-Identifier: MIT */
#ifndef LP_TOOLS_CLI_TARGET_H
#define LP_TOOLS_CLI_TARGET_H
/*
 * cli_target.h - the launcher's look at the program it is about to run.
 */

/* One line on stderr when the program named (as execvp finds it) is one
 * LD_PRELOAD cannot reach: statically linked, or set-user-ID/-group-ID
 * for someone else. Nothing otherwise. */
void lp_cli_warn_unreachable(const char *name);

#endif /* LP_TOOLS_CLI_TARGET_H */
