/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SNAPSHOT_H
#define LP_PRELOAD_SNAPSHOT_H
/*
 * snapshot.h - heap over time: Massif's counters (useful heap, extra heap,
 * time), the snapshot schedule (normal, detailed, peak, culling; see
 * schedule.h) and the massif.out files written at exit and on request.
 *
 * Accounting (FORMATS.md 1.3, 1.8): mem_heap_B is the sum of requested
 * sizes of live blocks; mem_heap_extra_B is 8 admin bytes per live block
 * plus malloc_usable_size() - requested. Time is, per time_unit=:
 *   B   each allocation or free adds requested + 8 + slop; a realloc adds
 *       |change of usable size| (massif's --time-unit=B);
 *   i   allocation calls (malloc, free, realloc ... each count 1);
 *   ms  monotonic wall clock, 0 at the first snapshot.
 *
 * A detailed snapshot taken on the hot path only copies (stack id, bytes)
 * pairs out of this module's per-stack counters into arena memory; the
 * tree (frames filtered as massif filters them, grouped by address,
 * significance threshold, labels from the symbolizer) is built when a file
 * is written. The stack counters change at exactly the points where
 * massif's do (a peak is taken before a free subtracts its block), and a
 * tree's root is the sum of its contexts, so node bytes never exceed the
 * snapshot total. In a single-threaded program a capture reads only the
 * contexts that changed since the one before (massif_live.h).
 *
 * desc: line: "desc:" then, in the order given in LEAKPROF_OPTIONS, each
 * option that has a massif spelling (massif -> --massif-out-file=,
 * time_unit -> --time-unit=, detailed_freq -> --detailed-freq=,
 * max_snapshots -> --max-snapshots=, threshold -> --threshold=,
 * peak_inaccuracy -> --peak-inaccuracy=, depth -> --depth=), value as
 * typed; "desc: (none)" when none was given. cmd: is /proc/self/cmdline at
 * start-up, arguments joined by single spaces, no quoting.
 *
 * Files: massif_count.c (HOT: counters, due test, recording snapshots),
 * massif_live.c (HOT: which contexts are live, which changed),
 * massif_tree.c (COLD: trees), massif_write.c (COLD: massif.out files),
 * massif_state.h (what the hot and cold halves share), schedule.c (the
 * schedule).
 * Context: lp_snapshot_note*() HOT (relaxed atomics; the snapshot lock is
 * taken only when a snapshot is due: a couple of atomic loads decide; a
 * normal snapshot is O(1), a detailed one walks the live contexts only);
 * lp_snapshot_init() BOOT; the rest COLD, called with the guard held.
 * Memory: lp_arena on the hot path; libc malloc (guard held) when writing.
 */
#include "preload/lp.h"

/* Start the time series: snapshot 0 at time 0. Called once from
 * lp_track_init() (BOOT); does nothing when massif= is disabled. */
void lp_snapshot_init(void);

/*
 * The per-context bytes of a detailed snapshot are the stack table's live
 * counters (stack.h), so the caller orders its updates as Massif orders
 * its events: before a free (or a shrinking realloc) lp_snapshot_before_
 * shrink() may take a peak snapshot that still holds the block; then the
 * stack counters change; then lp_snapshot_note*() moves the totals and
 * the clock and may take a normal snapshot.
 */
void lp_snapshot_before_shrink(void);

/* True once massif output is enabled (set at init, read-only after). */
extern bool lp_snapshot_active;

/* An allocation (is_alloc) or a free of a block of req bytes whose usable
 * size is usable. For an allocation, id is the stack its bytes were just
 * charged to (0 when unknown), so a detailed snapshot finds it among
 * the live contexts; frees pass 0. */
void lp_snapshot_note(uint32_t id, size_t req, size_t usable, bool is_alloc);

/* A realloc from old_req bytes (old_usable) to new_req (new_usable),
 * charged to stack id. */
void lp_snapshot_note_realloc(uint32_t id, size_t old_req,
                              size_t old_usable, size_t new_req,
                              size_t new_usable);

/* Massif's byte clock: bytes allocated+freed so far (requested + slop +
 * 8 per event, massif's B time) whatever time_unit is; 0 when massif= is
 * off. Live blocks are stamped with it (table.h). HOT: two loads. */
uint64_t lp_snapshot_byte_clock(void);

/* Write massif.out for the whole run to the configured path (%p expanded
 * now). Once per process; later calls do nothing. No final snapshot is
 * added (massif adds none). Failures give one warning line. */
void lp_snapshot_write_final(void);

/* A record of pending massif deltas for a thread (thread_registry.c keeps one
 * with each thread record; massif_count.c says why). NULL without
 * memory: the thread then adds to the shared totals directly. */
struct lp_massif_local *lp_massif_local_new(void);
/* A thread takes a record (new or a dead thread's): its byte clock
 * starts from the shared one, its peak headroom from none. */
void lp_massif_local_adopt(struct lp_massif_local *l);

/* Write <massif path>.N: the history so far plus a detailed snapshot of
 * this moment (which does not enter the history). For the dumper thread.
 * Returns 0, -ENOENT when massif= is disabled, or a negative errno. */
int lp_snapshot_dump(unsigned n);
/* Whether snapshot n, not allowed a file of its own after the process
 * changed its credentials, went into the final file kept open instead
 * (massif.out.PID without .n). COLD. */
bool lp_snapshot_dump_kept(unsigned n);

/* fork() (preload/life/fork.c): the writer's lock and the snapshot lock, taken
 * in prepare and released in the parent; the child re-initialises both
 * (and restarts nothing: the history is inherited). */
void lp_snapshot_write_lock(void);
void lp_snapshot_write_unlock(void);
void lp_snapshot_lock(void);
void lp_snapshot_unlock(void);
void lp_snapshot_atfork_child(void);

/* ---- Exposed for tests (tests/unit/test_snapshot_tree.c) ---------- */

/* One context of a tree: a filtered stack (return addresses, innermost
 * first, massif's filtering already applied) and its bytes. */
struct lp_snapshot_ctx {
    const uintptr_t *frames;
    unsigned nframes;
    uint64_t bytes;
};

/* Labels for a frame address: writes up to max labels (the frame and its
 * inlined callers, innermost first) into out[], each a NUL-terminated
 * string the callee owns until the tree is built; returns the count (>= 1). */
typedef int (*lp_snapshot_label_fn)(void *ctx, uintptr_t ip,
                                    const char **out, int max);

struct lp_massif;
struct lp_massif_node;

/* Build massif's heap tree (FORMATS.md 1.5) for contexts c[0..n) in m:
 * group by address at each depth, merge groups below sig bytes into one
 * aggregate ("in K places, all below massif's threshold (T%)"), sort by
 * bytes descending then address. c is reordered. Returns the root (its
 * bytes = sum of all contexts) or NULL on allocation failure. */
struct lp_massif_node *lp_snapshot_build_tree(struct lp_massif *m,
                                              struct lp_snapshot_ctx *c,
                                              size_t n, uint64_t sig,
                                              double threshold,
                                              lp_snapshot_label_fn label,
                                              void *label_ctx);

/* The same for contexts already in lp_snapshot_sort_ctx() order (the
 * writer sorts every context once, not once per snapshot). */
void lp_snapshot_sort_ctx(struct lp_snapshot_ctx *c, size_t n);
struct lp_massif_node *lp_snapshot_build_tree_sorted(
    struct lp_massif *m, const struct lp_snapshot_ctx *c, size_t n,
    uint64_t sig, double threshold, lp_snapshot_label_fn label,
    void *label_ctx);

/* The same tree from an index over contexts sorted once for a whole
 * file (sorted[i] is the context of stack id sorted_id[i], the ids 1..n
 * in some order; both arrays must outlive the index): a snapshot is the
 * bytes of its contexts that hold any, e[0..ne) (any order, each id
 * once; the others hold 0), and only contexts with ids up to max_id are
 * in it (the others, later stacks, are left out). Each node's children
 * are found once per file, on its first expansion, and a group's bytes
 * come from e[] sorted by place, so a tree costs what its significant
 * nodes' children and its e[] cost, not a pass over every context.
 * Gives exactly lp_snapshot_build_tree_sorted()'s tree of the contexts
 * with ids up to max_id. */
struct lp_snapshot_ent {
    uint32_t id;
    uint64_t bytes;
};
struct lp_snapshot_index;
struct lp_snapshot_index *lp_snapshot_index_new(
    const struct lp_snapshot_ctx *sorted, const uint32_t *sorted_id, size_t n);
struct lp_massif_node *lp_snapshot_build_tree_indexed(
    struct lp_massif *m, struct lp_snapshot_index *ix,
    const struct lp_snapshot_ent *e, size_t ne, uint32_t max_id,
    uint64_t sig, double threshold, lp_snapshot_label_fn label,
    void *label_ctx);
/* The same over contexts that are not sorted: ids[0..n) are the stack
 * ids (any order; the index permutes the array, which must outlive it)
 * and order() is asked to sort the ids of a node's contexts, which share
 * their first d frames, when the node is first expanded: those with no
 * frame d first (their count returned), then the others by frame d,
 * written to key[] aligned with ids[] (contexts with equal frames in any
 * order). Each id is asked for depth d only after depth d - 1. */
typedef size_t (*lp_snapshot_order_fn)(void *ctx, uint32_t *ids,
                                       uintptr_t *key, size_t n, unsigned d);
struct lp_snapshot_index *lp_snapshot_index_lazy(uint32_t *ids, size_t n,
                                                 lp_snapshot_order_fn order,
                                                 void *order_ctx);
void lp_snapshot_index_free(struct lp_snapshot_index *ix);

/* massif's significance: floor(total * threshold / 100), or 1 when heap
 * is 0 and threshold is not. */
uint64_t lp_snapshot_sig(uint64_t heap, uint64_t total, double threshold);

#endif /* LP_PRELOAD_SNAPSHOT_H */
