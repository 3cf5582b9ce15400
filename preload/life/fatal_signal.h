/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FATAL_SIGNAL_H
#define LP_PRELOAD_FATAL_SIGNAL_H
/*
 * fatal_signal.h - the report when the program dies of a signal.
 * Context: BOOT (install), SIGNAL (handler).
 */
#include "preload/lp.h"

/* Put our handler on every fatal signal the program leaves at SIG_DFL. */
void lp_fatal_signal_init(void);

#endif /* LP_PRELOAD_FATAL_SIGNAL_H */
