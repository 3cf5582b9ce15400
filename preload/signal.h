/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SIGNAL_H
#define LP_PRELOAD_SIGNAL_H
/*
 * signal.h - snapshot_signal (SIGUSR1): the handler only records the
 * request and wakes the dumper thread, which writes massif.out.PID.N and
 * a live leak report.
 * Context: SIGNAL (handler) / COLD (dumper thread, init).
 */
#include "preload/lp.h"

/* Install the handler and start the dumper thread (if enabled). */
void lp_signal_init(void);
/* In a fork child: the dumper thread is gone; start a new one. */
void lp_signal_atfork_child(void);

#endif /* LP_PRELOAD_SIGNAL_H */
