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

/* The signal the process is dying of, for the report's "Process
 * terminating" block: its number, si_code, si_addr and the stack of the
 * thread it hit (ips[0] the interrupted instruction). NULL when none. */
struct lp_fatal_info {
    int signo, code;
    uintptr_t addr;
    uintptr_t ips[64];
    unsigned nips;
    uintptr_t overflow_page; /* the main thread's stack could not grow to
                                this page (0: not a stack overflow) */
};
const struct lp_fatal_info *lp_fatal_signal_info(void);

#endif /* LP_PRELOAD_FATAL_SIGNAL_H */
