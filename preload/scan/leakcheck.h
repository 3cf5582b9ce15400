/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LEAKCHECK_H
#define LP_PRELOAD_LEAKCHECK_H
/*
 * leakcheck.h - one leak search: scan, group blocks into loss records,
 * apply suppressions, symbolize and write the report (text or JSON, plus
 * SARIF) to the log= destination.
 *
 * Context: COLD. The caller holds the guard (lp_guard_hold_forever() on
 * the exit path and in the dumper thread). Not reentrant: callers
 * serialise (exit and the dumper never run a search at the same time:
 * lp_leakcheck_run takes an internal lock).
 */
#include "preload/lp.h"

struct lp_sym;

/* live == false: the exit-time report (HEAP SUMMARY, records, LEAK
 * SUMMARY, trailer). live == true: a live report as Memcheck's monitor
 * command "leak_check full ... increased" prints it, with deltas against
 * the previous live search. Returns the number of error contexts. */
unsigned lp_leakcheck_run(bool live);


/* The live report of the seq-th snapshot signal (seq >= 1), whose heap
 * profile is massif.out.PID.seq: lp_leakcheck_run(true) with a header
 * line naming the signal, the time since start and that file. */
unsigned lp_leakcheck_live(unsigned seq);

/* The process's one symbolizer (reading debug info is the slow part of
 * every report), created on first use and refreshed for new modules.
 * get locks it for the caller (it is not thread-safe); put unlocks. Not
 * to be called while lp_leakcheck_run runs in the same thread. */
/* The user's Memcheck:Free suppression matching a heap error whose
 * stack is ips (nips frames): its index, counted as used once; -1 when
 * none does. Takes the report lock (not to be held). A later error of
 * the same context counts its use with _note_ instead. */
int lp_leakcheck_free_suppression(const uintptr_t *ips, unsigned nips);
void lp_leakcheck_note_free_suppression(int idx);
struct lp_sym *lp_leakcheck_sym_get(void);
void lp_leakcheck_sym_put(void);

/* Guard held: the symbolizer opens every file it will want, now (the
 * program is about to chroot). */
void lp_leakcheck_sym_prime(void);

/* For the fork protocol (preload/life/fork.c) only: the report's lock (also
 * the symbolizer's). */
void lp_leakcheck_lock(void);
void lp_leakcheck_unlock(void);
void lp_leakcheck_atfork_child(void);
/* fork() is about to run (fork.c, before any lock): a shared destination
 * gets this process's preamble now, before a child can write to it. */
void lp_leakcheck_before_fork(void);

/* Between lp_leakcheck_sym_get() and _put(): the path of our library (as
 * frames print it, "(in PATH)"), and a write of text to the log, through
 * the same destination and truncate-once rule as the leak report (heap
 * errors are written when they happen, as Memcheck writes them). */
const char *lp_leakcheck_self_obj(void);
void lp_leakcheck_write_locked(const char *buf, size_t len);

#endif /* LP_PRELOAD_LEAKCHECK_H */
