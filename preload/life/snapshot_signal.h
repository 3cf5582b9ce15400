/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SIGNAL_H
#define LP_PRELOAD_SIGNAL_H
/*
 * snapshot_signal.h - snapshot_signal (SIGUSR1): the handler only records the
 * request and wakes the dumper thread, which writes massif.out.PID.N and
 * a live leak report.
 * Context: SIGNAL (handler) / COLD (dumper thread, init).
 */
#include "preload/lp.h"

/* Install the handler (if enabled); the dumper thread starts later. */
void lp_signal_init(void);
/* Start the dumper thread if the handler is installed and it is not
 * running yet (the program's first thread, or a pending request). */
void lp_signal_start_dumper(void);
/* In a fork child: the dumper thread is gone; a new one starts on
 * demand. */
void lp_signal_atfork_child(void);

/* At exit, before anything the dumper uses is torn down: no dump from
 * the dumper thread any more; one under way ends first (bounded). The
 * second also serves a request still pending, in the calling thread
 * (guard free). */
void lp_signal_close(void);
void lp_signal_close_and_serve(void);

/* Around an exec: the snapshot asked for before it is made (and one under
 * way ends) before the image goes; if the exec fails, snapshots resume. */
void lp_signal_before_exec(void);
void lp_signal_exec_failed(void);

#endif /* LP_PRELOAD_SIGNAL_H */
