/* SPDX-License-Identifier: MIT */
#ifndef LP_TOOLS_DIFF_H
#define LP_TOOLS_DIFF_H
/*
 * diff.h - growth per allocation site between two massif snapshots.
 * Context: COLD (leakprint only).
 *
 * An allocation site is one path of the heap tree from an allocation
 * function's caller down to where the stack ends (usually main), keyed by
 * the frame labels without their "0xADDR: " part, so that two runs of one
 * program (different load addresses) line up. A site's bytes are its node's
 * self bytes (bytes minus its children's bytes); massif's "in N places"
 * aggregates are sites of their own.
 */
#include <stddef.h>
#include <stdio.h>

struct lp_massif;

/* The snapshot leakprint uses when none is named: the peak, else the last
 * detailed snapshot, else the last one. -1 if m has no snapshots. */
long lp_default_snapshot(const struct lp_massif *m);

/*
 * Which snapshot of a file a diff compares. A number >= 0 names one;
 * LP_DIFF_LAST (the default) is the last snapshot when it has a heap
 * tree, else the last one that has one, else the last: for a
 * massif.out.PID.N written on a snapshot signal that is the detailed
 * snapshot of the moment of the signal (the file's last), for an
 * exit-time file the last detailed snapshot before exit. LP_DIFF_PEAK is
 * the peak snapshot (what --diff used before; a service's start-up spike
 * is usually its peak, which hides all later growth).
 */
#define LP_DIFF_LAST (-1L)
#define LP_DIFF_PEAK (-2L)

/*
 * Resolve want (a number, LP_DIFF_LAST or LP_DIFF_PEAK) in m. Returns the
 * index, or -1 with err set ("FILE: no snapshot 7", "FILE: no peak
 * snapshot") when there is no such snapshot.
 */
long lp_diff_pick(const struct lp_massif *m, const char *name, long want,
                  char *err, size_t errlen);

/*
 * Print the diff from snapshot sa of a (named an) to snapshot sb of b;
 * sa/sb are as lp_diff_pick() takes them. The two header lines say which
 * snapshot of each file was used and why ("the last snapshot", "the last
 * detailed snapshot", "peak", "as asked"), and where the file's peak is
 * when another snapshot was used. Rows are sorted by growth, largest
 * first, then by site text; a totals block closes the table.
 * Returns 0, -EINVAL with err set ("FILE: no snapshot 7"), or -ENOMEM.
 */
int lp_diff_print(FILE *out, const struct lp_massif *a, const char *an,
                  long sa, const struct lp_massif *b, const char *bn, long sb,
                  char *err, size_t errlen);

#endif /* LP_TOOLS_DIFF_H */
