/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LOSS_GROUP_H
#define LP_PRELOAD_LOSS_GROUP_H
/*
 * loss_group.h - the scan's blocks grouped into loss records, one per
 * (kind, allocation stack), as Memcheck groups them.
 * Context: COLD (the report, guard held: malloc is ours).
 */
#include "preload/scan/classify.h"
#include "report/leaks.h"

#define LP_LOSS_NO_REC UINT32_MAX

/* Records in (kind, stack id) order; rec_of[i] is block i's record, or
 * LP_LOSS_NO_REC for a block left out: with only_gen, every block not of
 * table generation gen (table.h). Each record gets the byte times of its
 * oldest and newest block. Stacks are told apart by the frames Memcheck
 * would have kept (sym: lp_loss_context). NULL without memory. Free with
 * free(). */
struct lp_sym;
struct lp_loss_record *lp_loss_group(const struct lp_scan *sc, size_t *nrecs,
                                     uint32_t *rec_of, bool only_gen,
                                     uint16_t gen, struct lp_sym *sym);

#endif /* LP_PRELOAD_LOSS_GROUP_H */
