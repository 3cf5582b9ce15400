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
 * Print the diff from snapshot sa of a (named an) to snapshot sb of b;
 * sa/sb of -1 mean lp_default_snapshot(). Rows are sorted by growth,
 * largest first, then by site text; a totals block closes the table.
 * Returns 0, -EINVAL with err set ("FILE: no snapshot 7"), or -ENOMEM.
 */
int lp_diff_print(FILE *out, const struct lp_massif *a, const char *an,
                  long sa, const struct lp_massif *b, const char *bn, long sb,
                  char *err, size_t errlen);

#endif /* LP_TOOLS_DIFF_H */
