/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_GO_EXIT_H
#define LP_PRELOAD_GO_EXIT_H
/*
 * go_exit.h - a Go program's exit (runtime.exit: a system call of its
 * own, no C exit) made to come through our exit report.
 * Context: BOOT (from our constructor).
 */
#include "preload/lp.h"

/* In a Go program (its build-id note), point runtime.exit at ours; does
 * nothing anywhere else, or when anything is not as expected. */
void lp_go_exit_init(void);

#endif /* LP_PRELOAD_GO_EXIT_H */
