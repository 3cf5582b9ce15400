/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FORK_H
#define LP_PRELOAD_FORK_H
/*
 * fork.h - the one place that makes fork() safe for leakprof's locks.
 * Context: BOOT (registration).
 */
#include "preload/lp.h"

/* Register the prepare/parent/child handlers (once, from the constructor). */
void lp_fork_init(void);

#endif /* LP_PRELOAD_FORK_H */
