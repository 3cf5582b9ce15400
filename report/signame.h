/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_SIGNAME_H
#define LP_REPORT_SIGNAME_H
/*
 * signame.h - signal names as users write them: "SIGUSR1", "usr1", "10",
 * "SIGRTMIN+2", "RTMAX-1", "SIGPWR". Shared by the library's options and
 * the launcher. Context: any (no allocation).
 */
#include <stddef.h>

/* The signal text names, or -1 when it names none. "0" gives 0. */
int lp_signal_parse(const char *text);

/* May this signal be the snapshot signal? Not the uncatchable ones, not
 * the synchronous faults (SEGV, BUS, FPE, ILL, TRAP), not SIGCHLD-like
 * ones a program relies on (CHLD, CONT, TSTP, TTIN, TTOU). */
int lp_signal_usable_for_snapshot(int signo);

/* "SIGUSR1", "SIGRTMIN+2", or "signal 99" into buf; returns buf. */
const char *lp_signal_name(int signo, char *buf, size_t n);

#endif /* LP_REPORT_SIGNAME_H */
