/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - Massif's counters and snapshot schedule.
 * Context: HOT (note functions), COLD (writing).
 */
#include "preload/snapshot.h"

static struct {
    uint64_t heap, extra, time;
} counters;

void lp_snapshot_init(void) {}

void lp_snapshot_note(size_t req, size_t usable, bool is_alloc, uint32_t id)
{
    uint64_t delta = usable + 8;

    (void)id;
    if (usable < req)
        usable = req;
    if (is_alloc) {
        lp_add_relaxed(&counters.heap, req);
        lp_add_relaxed(&counters.extra, usable - req + 8);
    } else {
        lp_sub_relaxed(&counters.heap, req);
        lp_sub_relaxed(&counters.extra, usable - req + 8);
    }
    lp_add_relaxed(&counters.time, delta);
}

void lp_snapshot_note_realloc(size_t old_req, size_t old_usable,
                              uint32_t old_id, size_t new_req,
                              size_t new_usable, uint32_t new_id)
{
    lp_snapshot_note(old_req, old_usable, false, old_id);
    lp_snapshot_note(new_req, new_usable, true, new_id);
}

void lp_snapshot_write_final(void) {}
