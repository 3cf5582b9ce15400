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

/*
 * Whose signal. A program that installs its own handler for the snapshot
 * signal uses it (postgres signals its postmaster and backends with
 * SIGUSR1 all the time, nginx reopens its logs on it): such a signal goes
 * to the program's handler only, as without us. A request of ours is
 * sigqueue()d with this value (`leakprof --snapshot PID`): it takes a
 * snapshot and never reaches the program's handler. While the program
 * leaves the signal at SIG_DFL or SIG_IGN, any signal takes a snapshot.
 */
#define LP_SNAPSHOT_TAG 0x4c50534e /* "LPSN" */

/* Install the handler (if enabled); the dumper thread starts later. */
void lp_signal_init(void);
/* Start the dumper thread if the handler is installed and it is not
 * running yet (the program's first thread, or a pending request). */
void lp_signal_start_dumper(void);
/* In a fork child: the dumper thread is gone; a new one starts on
 * demand. */
void lp_signal_atfork_child(void);

/* The exit report's warning when snapshot signals went to the program's
 * own handler only (not ours, the program handling the signal): its
 * text in out, true; false when there is nothing to say. */
bool lp_signal_warning(char *out, size_t n);

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
