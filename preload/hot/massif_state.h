/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_MASSIF_STATE_H
#define LP_PRELOAD_MASSIF_STATE_H
/*
 * massif_state.h - what the HOT half of massif (massif_count.c: counters,
 * schedule, snapshots recorded as raw trees) shares with the COLD writer
 * (massif_write.c). Private to those two files; the public API is
 * snapshot.h.
 *
 * A raw tree is a detailed snapshot as the hot path records it: the
 * contexts (stack ids) with non-zero bytes, ids ascending; every id up to
 * nstacks not listed had 0 bytes (massif keeps such contexts in the
 * tree). It lives in glibc's heap (lp_real), outside the program's
 * accounting.
 * Context: see each function.
 */
#include "preload/hot/snapshot.h"
#include "preload/life/config.h"
#include "preload/lp.h"
#include "preload/massif/schedule.h"

struct lp_massif_raw {
    size_t size; /* bytes of this allocation */
    uint32_t nstacks, nents;
    struct lp_snapshot_ent e[]; /* snapshot.h: (stack id, live bytes) */
};

/* COLD (writer): the history lock, held while the schedule's array is
 * read. The caller must not allocate through our hooks while holding it
 * beyond what the guard already passes through. */
void lp_massif_hist_lock(void);
void lp_massif_hist_unlock(void);
/* Lock held: the schedule (its snaps[0..n) and their raw trees). */
const struct lp_sched *lp_massif_sched(void);
/* Lock held: a detailed snapshot of this moment into *sn (kind, time,
 * heap, extra; tree an arena raw tree or NULL), not entered into the
 * history. Release the tree with lp_massif_raw_free(). */
void lp_massif_take_now(struct lp_sched_snap *sn);
void lp_massif_raw_free(struct lp_massif_raw *t);
enum lp_time_unit lp_massif_unit(void);
bool lp_massif_enabled(void);

/* BOOT (massif_write.c): remember the command line and start-up
 * directory for the file header, before the program can change them. */
void lp_massif_write_init(void);
/* fork child (massif_write.c): reset the writer's lock and state. */
void lp_massif_write_atfork_child(void);

#endif /* LP_PRELOAD_MASSIF_STATE_H */
