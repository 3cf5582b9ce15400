/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_EXIT_H
#define LP_PRELOAD_EXIT_H
/*
 * exit.h - the end of the run: leak report, massif file, exit status.
 * Context: COLD.
 */
#include "preload/lp.h"

/* Write the exit-time outputs once (later calls do nothing). */
void lp_exit_report(void);

/* The status the process should leave with: status, or error_exitcode
 * when the report found errors and status is 0. When run_report is true
 * and the report has not been written yet (a child leaving by _exit), it
 * is written first. */
int lp_exit_final_status(int status, bool run_report);

#endif /* LP_PRELOAD_EXIT_H */
