/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SAMPLE_REPORT_H
#define LP_PRELOAD_SAMPLE_REPORT_H
/*
 * sample_report.h - sample_bytes=N in the leak report: loss records, the
 * in-use line and the heuristic counts turned from the tracked blocks
 * into estimates of the whole heap, each block weighted by what it stands
 * for (sample.h), so the report agrees with the massif file.
 *
 * Records go through leakcheck.c's pipeline with block counts in
 * LP_SAMPLE_ONE fixed point (lp_sample_record_blocks() says how much one
 * scan block is worth there) and are rounded to whole blocks at the end.
 *
 * Context: COLD, guard held; sampled mode only (lp_sample_on()).
 */
#include "preload/scan/classify.h"
#include "report/leaks.h"

/* Recompute recs[0..n) (as leakcheck.c grouped them, block i into
 * recs[rec_of[i]]) in estimate units: bytes, fixed-point blocks, and the
 * indirect bytes and blocks of each definite record from its leaders'
 * cliques. */
void lp_sample_scale_records(const struct lp_scan *sc,
                             struct lp_loss_record *recs, size_t n,
                             const uint32_t *rec_of);

/* What one scan block adds to a record in the pipeline: its bytes and
 * blocks (estimates in sampled mode, size and 1 otherwise). */
uint64_t lp_sample_record_bytes(const struct lp_scan_block *b);
uint64_t lp_sample_record_blocks(const struct lp_scan_block *b);

/* Round the fixed-point block counts of recs[0..n) to whole blocks. */
void lp_sample_round_records(struct lp_loss_record *recs, size_t n);

/* in use at exit and "of which reachable via heuristic", estimated. */
void lp_sample_scan_totals(const struct lp_scan *sc, struct lp_leak_set *set);

/* -v: "--PID-- sampled: ..." (how many frees the filter let through to
 * the table in vain). */
void lp_sample_print_stats(FILE *f, int pid);

#endif /* LP_PRELOAD_SAMPLE_REPORT_H */
