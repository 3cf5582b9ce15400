/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_THREAD_STOP_PTRACE_H
#define LP_PRELOAD_THREAD_STOP_PTRACE_H
/*
 * thread_stop_ptrace.h - stop-the-world by ptrace (thread_stop_ptrace.c),
 * tried before the signal way of thread_stop.c.
 */
#include "preload/life/thread_registry.h"

/* Stop every other thread but our internal ones into slots (at most cap):
 * the number stopped, or -1 when ptrace cannot be used here (nothing is
 * left stopped then: take the signal way). COLD. */
long lp_threads_stop_ptrace(struct lp_stopped_thread *slots, size_t cap);
/* Resume what the last lp_threads_stop_ptrace stopped; false if it
 * stopped nothing (the signal way was taken). */
bool lp_threads_resume_ptrace(void);

#endif /* LP_PRELOAD_THREAD_STOP_PTRACE_H */
