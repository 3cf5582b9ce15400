/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SNAPSHOT_H
#define LP_PRELOAD_SNAPSHOT_H
/*
 * snapshot.h - heap over time: Massif's counters (useful heap, extra heap,
 * time), the snapshot schedule (normal, detailed, peak, culling), and the
 * massif.out files written at exit and on request.
 *
 * Context: lp_snapshot_note*() HOT (counters with relaxed atomics; a
 * snapshot is taken under the snapshot lock only when due); the rest COLD.
 */
#include "preload/lp.h"

void lp_snapshot_init(void);

/* An allocation (is_alloc) or a free of a block of req bytes whose usable
 * size is usable, from/at stack id. */
void lp_snapshot_note(size_t req, size_t usable, bool is_alloc, uint32_t id);

/* A realloc that moved old_req bytes (old_usable) from old_id to new_req
 * bytes (new_usable) at new_id. */
void lp_snapshot_note_realloc(size_t old_req, size_t old_usable,
                              uint32_t old_id, size_t new_req,
                              size_t new_usable, uint32_t new_id);

/* Write massif.out for the whole run (exit) to the configured path.
 * cmd is the program's command line. */
void lp_snapshot_write_final(void);

#endif /* LP_PRELOAD_SNAPSHOT_H */
