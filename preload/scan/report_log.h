/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_REPORT_LOG_H
#define LP_PRELOAD_REPORT_LOG_H
/*
 * report_log.h - where the leak report goes: the stderr the process
 * started with, or the log= file.
 * Context: BOOT (begin), COLD (write), fork child and exec (the hooks).
 */
#include <stdbool.h>
#include <stddef.h>

/* At start-up: a shared log file (no %p) is truncated by the first
 * process; every later one (fork child, exec'd program) appends. */
void lp_report_log_begin(void);

/* Write a report (or part of one) to the log destination. append_only:
 * a later part of this process's output (a live report's). */
void lp_report_log_write(const char *buf, size_t len, bool append_only);
/* "cannot write PATH: WHY" (an output of ours that is lost) where the
 * report goes: the log file, as Valgrind writes its own messages there,
 * and stderr without one. A process in a seccomp sandbox (a fork child
 * of man) could make neither its massif.out nor a line on the program's
 * stderr would be right. */
void lp_report_log_cannot_write(const char *path, const char *why);

/* Whether every process writes to one destination (stderr, log_fd, a
 * log= file without %p), where Memcheck's fork children print no
 * preamble of their own. */
bool lp_report_log_shared(void);

/* In a fork child: open its own log=%p file now (fork.c). */
void lp_report_log_atfork_child(void);

/* The process is about to change its credentials (cred_hooks.c): open
 * its log file now, while it still may. */
void lp_report_log_keep_file(void);

/* The process is about to exec: a log=%p file opened at its fork and
 * still empty goes (the program it becomes writes its own, if traced). */
void lp_report_log_before_exec(void);

#endif /* LP_PRELOAD_REPORT_LOG_H */
