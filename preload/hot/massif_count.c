/* SPDX-License-Identifier: MIT */
/*
 * massif_count.c - the hot half of massif: the running counters every
 * tracked allocation and free moves, the "is a snapshot due?" test, and
 * recording a snapshot when one is.
 *
 * Per event: the useful heap (sum of requested sizes), grow and shrink
 * (requested + slop + heap_admin, 8 unless told, over the events that
 * grew and that shrank the
 * heap, so heap + extra = grow - shrink and massif's byte time is
 * grow + shrink), and in the i unit an event count. A normal snapshot
 * reads these running totals: O(1), whatever the number of stacks.
 *
 * Whether a request is due is two relaxed loads against values the
 * schedule publishes (earliest_next for Normal, peak_limit for Peak);
 * only then is the snapshot lock taken, the request re-checked and the
 * snapshot recorded.
 *
 * A detailed (or peak) snapshot copies the (stack id, live bytes) pairs
 * of the contexts that hold bytes, as massif_live.c collects them from
 * its bitmap of maybe-live contexts, which every event here marks - or,
 * in a single-threaded program, merges the contexts marked as changed
 * into the snapshot before (collect).
 *
 * Context: HOT (note*, before_shrink, the slow paths under the snapshot
 * lock); BOOT (lp_snapshot_init); COLD (lock accessors for the writer).
 * Memory: the raw trees and the scratch array
 * (large, many, short-lived) from glibc's malloc through lp_real, which
 * reuses freed memory where the arena would map fresh pages for each (it
 * never reuses blocks above 64 KiB). Neither is a block of the program:
 * not in the table, not counted, not a scan root.
 */
#include "preload/hot/snapshot.h"

#include <pthread.h>
#include <sys/mman.h>
#include <time.h>

#include "preload/hot/arena.h"
#include "preload/hot/massif_live.h"
#include "preload/hot/massif_state.h"
#include "preload/hot/real.h"
#include "preload/hot/stack_count.h"
#include "preload/hot/tcb_slot.h"

#define MAX_SNAPS 1000
#define POOL 64 /* dropped trees kept for reuse */

static struct {
    /* Written on every event (single-threaded), or on every flush of a
     * thread's pending deltas: a cache line of their own, so that the
     * fields every event reads are not pulled away by each write. */
    uint64_t grow, shrink, heap;
    uint64_t time; /* i unit only: events counted */
    char pad0[32];
    /* Read on every event, written only when a snapshot is taken. */
    int64_t earliest_next;
    uint64_t peak_limit;
    bool enabled;
    uint16_t admin; /* heap_admin: bytes counted a block besides its own */
    enum lp_time_unit unit;
    uint64_t t0_ns;
    /* Up to the next line: the lock's word, on this one, went back and
     * forth with every lock taken (a peak request's, a snapshot's). */
    char pad1[64 - 8 - 8 - 8 - 8];
    /* Under lock. */
    pthread_mutex_t lock;
    struct lp_sched sched;
    int64_t last_time;
    struct lp_snapshot_ent *scratch; /* scratch_cap entries */
    size_t scratch_cap;
    struct lp_massif_raw *pool[POOL]; /* dropped trees, for captures */
    unsigned pooled;
    struct lp_sched_snap buf[MAX_SNAPS];
} snap __attribute__((aligned(64))) = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
};
_Static_assert(offsetof(__typeof__(snap), earliest_next) == 64, "line 1");
_Static_assert(offsetof(__typeof__(snap), lock) == 128, "line 2");

/*
 * A thread's pending deltas. In a threaded program every thread but
 * those we did not see start counts its events here, with plain stores
 * to memory only it writes, and adds them to the shared totals (four
 * atomic adds) once they reach its quantum: a fraction of the distance to
 * the next snapshot, between MIN_QUANTUM and MAX_QUANTUM bytes of time.
 * Readers that want the exact figures (a snapshot, the file at exit) add
 * every thread's pending deltas to the shared totals; a thread that is
 * flushing may be counted twice for an instant, by at most a quantum.
 * Records are never freed: a thread's record goes with its registry
 * record to the next thread, pending deltas and all.
 */
#define MIN_QUANTUM 256
#define MAX_QUANTUM 65536

struct lp_massif_local {
    uint64_t grow, shrink;
    uint32_t time;    /* events (i unit), at most a quantum's */
    uint32_t quantum; /* at most MAX_QUANTUM */
    int64_t heap;
    struct lp_massif_local *next; /* every record, push-only */
    /* The highest grow - shrink reached since the last flush: how far
     * this thread's events can have lifted the heap meanwhile. */
    int64_t rise;
    /* The shared byte clock when the thread last flushed (or took the
     * record): its clock is this plus its pending grow and shrink. */
    uint64_t clock;
    /* How far the heap was below the peak limit then: a rise above it
     * may be a peak (note_local). Read at a thread's highest points. */
    int64_t headroom;
};
_Static_assert(sizeof(struct lp_massif_local) == 64, "one line a record");

static struct lp_massif_local *locals;

bool lp_snapshot_active;

/* Live bytes of one allocation context: the stack table's counter. */
static uint64_t ctx_bytes(uint32_t id)
{
    struct lp_stack *st = lp_stack_get(id);

    return st ? lp_stack_live_bytes(st) : 0;
}

/* ------------------------------------------------------------------ */
/* Recording a snapshot (lock held)                                    */

static int64_t now_ms(void)
{
    struct timespec ts;
    uint64_t ns;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return (int64_t)((ns - snap.t0_ns) / 1000000u);
}

/* The shared totals plus every thread's pending deltas. */
struct sums {
    uint64_t grow, shrink, time, heap;
};

static struct sums sums_now(void)
{
    struct sums t = {
        lp_load_relaxed(&snap.grow), lp_load_relaxed(&snap.shrink),
        lp_load_relaxed(&snap.time), lp_load_relaxed(&snap.heap),
    };
    const struct lp_massif_local *l;

    for (l = lp_load_acquire(&locals); l; l = l->next) {
        t.grow += lp_load_relaxed(&l->grow);
        t.shrink += lp_load_relaxed(&l->shrink);
        t.time += lp_load_relaxed(&l->time);
        t.heap += (uint64_t)lp_load_relaxed(&l->heap);
    }
    return t;
}

static uint64_t total_now(void)
{
    struct sums t = sums_now();

    return t.grow - t.shrink;
}

static int64_t clock_now(void)
{
    struct sums t;

    if (snap.unit == LP_TIME_MS)
        return now_ms();
    t = sums_now();
    return (int64_t)(snap.unit == LP_TIME_I ? t.time : t.grow + t.shrink);
}

/* The current time, for a snapshot taken under the lock: never below the
 * previous snapshot's, although events of other threads race with us. */
static int64_t time_locked(void)
{
    int64_t t = clock_now();

    if (t < snap.last_time)
        t = snap.last_time;
    snap.last_time = t;
    return t;
}

void lp_massif_raw_free(struct lp_massif_raw *t)
{
    lp_real.free(t);
}

/* The schedule dropped a tree (a cull drops half of them at once; in a
 * growing heap an old peak becomes an ordinary detailed snapshot): pool
 * it for the next captures, which then fill memory that is already
 * mapped. A fresh glibc block of that size is mmapped, or at the top of
 * a heap that free() trims and the next capture regrows: page faults on
 * every capture (python: 1,400 captures of up to 150 KiB, 6% of the
 * run). The pool holds at most POOL trees, the largest ones, all of
 * which were live trees a moment ago. Called under the lock. */
static void drop_tree(void *ctx, void *tree)
{
    struct lp_massif_raw *t = tree;
    unsigned i, small = 0;

    (void)ctx;
    if (snap.pooled < POOL) {
        snap.pool[snap.pooled++] = t;
        return;
    }
    for (i = 1; i < POOL; i++)
        if (snap.pool[i]->size < snap.pool[small]->size)
            small = i;
    if (snap.pool[small]->size < t->size) {
        struct lp_massif_raw *out = snap.pool[small];

        snap.pool[small] = t;
        t = out;
    }
    lp_massif_raw_free(t);
}

/* The smallest pooled tree that holds ents entries, taken out of the
 * pool; NULL if none does. */
static struct lp_massif_raw *pool_take(size_t ents)
{
    unsigned i, best = POOL;
    size_t need = sizeof(struct lp_massif_raw) +
                  ents * sizeof(struct lp_snapshot_ent);
    struct lp_massif_raw *t;

    for (i = 0; i < snap.pooled; i++)
        if (snap.pool[i]->size >= need &&
            (best == POOL || snap.pool[i]->size < snap.pool[best]->size))
            best = i;
    if (best == POOL)
        return NULL;
    t = snap.pool[best];
    snap.pool[best] = snap.pool[--snap.pooled];
    return t;
}

/* Room for cnt entries in the scratch array, grown as it always was:
 * doubling from 1024. */
static bool scratch_room(size_t cnt)
{
    while (snap.scratch_cap < cnt) {
        size_t cap = snap.scratch_cap ? snap.scratch_cap * 2 : 1024;
        struct lp_snapshot_ent *p =
            lp_real.realloc(snap.scratch, cap * sizeof(*p));

        if (!p)
            return false;
        snap.scratch = p;
        snap.scratch_cap = cap;
    }
    return true;
}

/* The live contexts of ids 1..n, ids ascending: their count (-1 without
 * memory) and *out where they are. may_clear: a capture of the history
 * (the dumper's own, of a moment, neither clears nor uses the marks). In
 * a single-threaded program, the contexts marked since the last capture
 * merged into it (massif_live.h) when that can be done. */
static long collect(uint32_t n, bool may_clear,
                    const struct lp_snapshot_ent **out)
{
    bool single = !lp_load_relaxed(&lp_threaded);
    long cnt;

    if (may_clear && single && lp_massif_inc_ready(n)) {
        size_t m = lp_massif_inc_collect(n, out);

        /* The scratch array is not used here, but grows as the full walk
         * would have it grow: it lives in glibc's heap (see capture). */
        if (!scratch_room(m)) {
            lp_massif_inc_drop();
            return -1;
        }
        return (long)m;
    }
    while ((cnt = lp_massif_collect_live(n, may_clear, snap.scratch,
                                         snap.scratch_cap)) < 0)
        if (!scratch_room(snap.scratch_cap ? snap.scratch_cap * 2 : 1024))
            return -1;
    *out = snap.scratch;
    if (!may_clear)
        return cnt;
    if (single)
        lp_massif_inc_keep(snap.scratch, (size_t)cnt);
    else
        lp_massif_inc_drop();
    return cnt;
}

/* Copy the live context bytes: collected into the scratch array, then
 * into a tree of their exact size. (Filling a tree sized by the bitmap
 * directly would save the copy, but the trees share glibc's heap with the
 * program: another pattern of our blocks there changes which free chunks
 * the program's blocks reuse, so their usable sizes, massif's extra
 * bytes and time, and the whole file.) Sets *heap to their sum, which is
 * what a detailed snapshot reports, so the tree's root equals
 * mem_heap_B. */
static struct lp_massif_raw *capture(uint64_t *heap, bool may_clear)
{
    uint32_t n = lp_stack_count();
    struct lp_massif_raw *t;
    const struct lp_snapshot_ent *ents;
    size_t size, i;
    long cnt = collect(n, may_clear, &ents);
    uint64_t sum = 0;

    if (cnt < 0)
        return NULL;
    /* A pooled tree, or a new one with a quarter more room than needed:
     * in a growing heap each capture has more contexts than the last, and
     * the trees the culls pool are older, smaller ones. */
    t = pool_take((size_t)cnt);
    if (!t) {
        size = sizeof(*t) + ((size_t)cnt + (size_t)cnt / 4) * sizeof(t->e[0]);
        t = lp_real.malloc(size);
        if (!t)
            return NULL;
        t->size = size;
        /* Its pages faulted in before the copy writes them (lp_populate):
         * a large tree is a fresh mapping, or fresh pages at the top of
         * glibc's heap (python3: 1,400 captures of up to 150 KiB). Only
         * pages the copy writes anyway: glibc sees no difference. */
        lp_populate(t, sizeof(*t) + (size_t)cnt * sizeof(t->e[0]));
    }
    if (cnt)
        __builtin_memcpy(t->e, ents, (size_t)cnt * sizeof(t->e[0]));
    t->nstacks = n;
    t->nents = (uint32_t)cnt;
    for (i = 0; i < (size_t)cnt; i++)
        sum += t->e[i].bytes;
    *heap = sum;
    return t;
}

static void finish(struct lp_sched_snap *sn)
{
    struct sums t = sums_now();
    uint64_t total = t.grow - t.shrink;

    if (!sn->tree)
        sn->heap = t.heap; /* O(threads): running totals */
    /* Other threads' events race with these reads: never negative. */
    sn->extra = total > sn->heap ? total - sn->heap : 0;
}

static void publish(void)
{
    lp_store_relaxed(&snap.earliest_next, snap.sched.earliest_next);
    lp_store_relaxed(&snap.peak_limit, lp_sched_peak_limit(&snap.sched));
}

static void take(int kind)
{
    struct lp_sched_snap sn = { .kind = kind };

    sn.time = time_locked();
    if (kind != LP_SCHED_EMPTY)
        sn.tree = capture(&sn.heap, true);
    finish(&sn);
    lp_sched_add(&snap.sched, &sn);
    publish();
}

static LP_NOINLINE void request_normal_slow(void)
{
    int k;

    pthread_mutex_lock(&snap.lock);
    k = lp_sched_want_normal(&snap.sched, clock_now());
    if (k != LP_SCHED_NONE)
        take(k);
    pthread_mutex_unlock(&snap.lock);
}

static LP_NOINLINE void request_peak_slow(void)
{
    pthread_mutex_lock(&snap.lock);
    if (lp_sched_want_peak(&snap.sched, total_now()) == LP_SCHED_PEAK)
        take(LP_SCHED_PEAK);
    pthread_mutex_unlock(&snap.lock);
}

/* ------------------------------------------------------------------ */
/* Per event                                                           */

static inline void request_normal(int64_t t)
{
    if (t >= lp_load_relaxed(&snap.earliest_next))
        request_normal_slow();
}

/* Count one event that grew (or shrank) the heap by use bytes (requested
 * + slop + 8) and return the time it happened at. */
static inline int64_t advance(uint64_t use, bool grows)
{
    int64_t t;

    if (grows)
        t = (int64_t)(lp_count_add(&snap.grow, use) +
                      lp_load_relaxed(&snap.shrink));
    else
        t = (int64_t)(lp_count_add(&snap.shrink, use) +
                      lp_load_relaxed(&snap.grow));
    switch (snap.unit) {
    case LP_TIME_MS:
        return now_ms();
    case LP_TIME_I:
        return (int64_t)lp_count_add(&snap.time, 1);
    default:
        return t;
    }
}

/* The next quantum of a thread whose flush brought the time to t. */
static uint64_t quantum_at(int64_t t)
{
    int64_t gap = lp_load_relaxed(&snap.earliest_next) - t;
    uint64_t q = gap > 0 ? (uint64_t)gap / 8 : MIN_QUANTUM;

    if (snap.unit == LP_TIME_MS)
        return MAX_QUANTUM / 4;
    return q < MIN_QUANTUM ? MIN_QUANTUM : q > MAX_QUANTUM ? MAX_QUANTUM : q;
}

/* How far the shared totals (the thread's own pending deltas apart) are
 * below the peak limit now. */
static inline int64_t headroom_now(void)
{
    return (int64_t)lp_load_relaxed(&snap.peak_limit) -
           (int64_t)(lp_load_relaxed(&snap.grow) - lp_load_relaxed(&snap.shrink));
}

/* Move a thread's pending deltas to the shared totals; then the checks
 * a single-threaded program makes on every event: a peak before the
 * shrinking part goes, a normal snapshot when one is due. */
static LP_NOINLINE void flush_local(struct lp_massif_local *l)
{
    uint64_t grow = l->grow, shrink = l->shrink, time = l->time;
    int64_t heap = l->heap, rise = l->rise, t;

    lp_add_relaxed(&snap.grow, grow);
    lp_store_relaxed(&l->grow, 0);
    lp_store_relaxed(&l->rise, 0);
    if (time) {
        lp_add_relaxed(&snap.time, time);
        lp_store_relaxed(&l->time, 0);
    }
    if (shrink) {
        /* The heap at this thread's highest point of the quantum: the
         * shared totals without its deltas, plus its rise. (Plus all of
         * its growth, as this asked before, was above the limit at
         * nearly every flush of a steady heap - 295,000 of 354,000 in a
         * 2-thread storm - each a contended lock and a sum of every
         * thread's deltas that then took no peak.) */
        int64_t top = (int64_t)(lp_load_relaxed(&snap.grow) - grow -
                                lp_load_relaxed(&snap.shrink)) + rise;

        if (LP_UNLIKELY(top > (int64_t)lp_load_relaxed(&snap.peak_limit)))
            request_peak_slow();
        lp_add_relaxed(&snap.shrink, shrink);
        lp_store_relaxed(&l->shrink, 0);
    }
    lp_add_relaxed(&snap.heap, (uint64_t)heap);
    lp_store_relaxed(&l->heap, 0);
    t = (int64_t)(lp_load_relaxed(&snap.grow) + lp_load_relaxed(&snap.shrink));
    lp_store_relaxed(&l->clock, (uint64_t)t);
    lp_store_relaxed(&l->headroom, headroom_now());
    lp_store_relaxed(&l->quantum, (uint32_t)quantum_at(t));
    switch (snap.unit) {
    case LP_TIME_MS:
        t = now_ms();
        break;
    case LP_TIME_I:
        t = (int64_t)lp_load_relaxed(&snap.time);
        break;
    default:
        break;
    }
    request_normal(t);
}

/* The thread's events rose past the headroom it knew: against the totals
 * as they are now, is the heap above the limit? Then a peak, before the
 * block goes (Massif takes one before a block goes). Either way the
 * headroom is refreshed, so the next highest points ask again only once
 * they pass what is left of it. */
static LP_NOINLINE void top_reached(struct lp_massif_local *l)
{
    int64_t net = (int64_t)(l->grow - l->shrink);

    if (net > headroom_now())
        request_peak_slow();
    lp_store_relaxed(&l->headroom, headroom_now());
}

/* The end of every event counted in pending deltas. */
static inline void note_local_end(struct lp_massif_local *l)
{
    if (snap.unit == LP_TIME_I)
        lp_store_relaxed(&l->time, l->time + 1);
    if (l->grow + l->shrink >= l->quantum)
        flush_local(l);
}

/* Count an event in the thread's pending deltas. Whether a block that
 * goes takes a peak with it was asked before (lp_snapshot_before_shrink),
 * while its bytes were still counted everywhere. */
static inline void note_local(struct lp_massif_local *l, int64_t heap,
                              uint64_t use, bool grows)
{
    lp_store_relaxed(&l->heap, l->heap + heap);
    if (grows) {
        int64_t net = (int64_t)(l->grow + use - l->shrink);

        lp_store_relaxed(&l->grow, l->grow + use);
        if (net > l->rise)
            lp_store_relaxed(&l->rise, net);
    } else {
        lp_store_relaxed(&l->shrink, l->shrink + use);
    }
    note_local_end(l);
}

/* Massif's B time now, as this thread can tell it without a lock: read
 * on every insert (the shared totals leave out every thread's pending
 * deltas, at most a quantum each). */
uint64_t lp_snapshot_byte_clock(void)
{
    const struct lp_massif_local *l = lp_self.massif_local;

    /* A thread counting in pending deltas reads its own line: the
     * totals' line, written by every other thread's flush, missed on
     * nearly every insert after one (2% of a 2-thread storm). Its clock
     * then leaves out what the other threads added to the totals since
     * its own last flush: a block's time (the loss records' first and
     * last) may read that much early. */
    if (l != NULL && lp_load_relaxed(&lp_threaded))
        return l->clock + l->grow + l->shrink;
    return lp_load_relaxed(&snap.grow) + lp_load_relaxed(&snap.shrink);
}

void lp_massif_local_adopt(struct lp_massif_local *l)
{
    if (l == NULL)
        return;
    lp_store_relaxed(&l->clock, lp_load_relaxed(&snap.grow) +
                                    lp_load_relaxed(&snap.shrink));
    /* A dead thread's headroom is stale: ask at the first highest point. */
    lp_store_relaxed(&l->headroom, 0);
}

/* A block is about to go, still counted in the totals and in its site's
 * counters: a peak first, if the heap is above the limit (Massif takes
 * one before a block goes; the capture reads the sites' counters, so
 * asked after the charge it missed the block: a 2-thread program's ten
 * 1 MB blocks peaked at 9 MB, and a 100 MB block freed by a thread
 * peaked at 272 bytes, after the free).
 * A thread that counts in pending deltas leaves the totals' line alone
 * (the other threads' flushes write it, and each read after one
 * missed): it asks only while its rise is past the headroom it knew,
 * and only from its highest point since its flush, which may be the
 * flush itself (rise 0: a block as big as its quantum flushed at once). */
void lp_snapshot_before_shrink(void)
{
    struct lp_massif_local *l = lp_self.massif_local;

    if (l == NULL || !lp_load_relaxed(&lp_threaded)) {
        if (lp_load_relaxed(&snap.enabled) &&
            LP_UNLIKELY(lp_load_relaxed(&snap.grow) -
                            lp_load_relaxed(&snap.shrink) >
                        lp_load_relaxed(&snap.peak_limit)))
            request_peak_slow();
        return;
    }
    if (LP_UNLIKELY(l->rise > l->headroom) &&
        (int64_t)(l->grow - l->shrink) == l->rise &&
        lp_load_relaxed(&snap.enabled))
        top_reached(l);
}

/* A single-threaded program's event: plain loads and stores to the
 * totals, the time derived from them once (what advance() returns on this
 * path, without its second look at lp_threaded per counter). */
static inline void note_plain(uint64_t heap, uint64_t use, bool grows,
                              enum lp_time_unit unit)
{
    uint64_t g = lp_load_relaxed(&snap.grow), sh = lp_load_relaxed(&snap.shrink);
    int64_t t;

    lp_store_relaxed(&snap.heap, lp_load_relaxed(&snap.heap) + heap);
    if (grows)
        lp_store_relaxed(&snap.grow, g += use);
    else
        lp_store_relaxed(&snap.shrink, sh += use);
    switch (unit) {
    case LP_TIME_MS:
        t = now_ms();
        break;
    case LP_TIME_I:
        t = (int64_t)(lp_load_relaxed(&snap.time) + 1);
        lp_store_relaxed(&snap.time, (uint64_t)t);
        break;
    default:
        t = (int64_t)(g + sh);
        break;
    }
    request_normal(t);
}

/* An event in full: heap is the change of the useful heap (wrapping),
 * use the grow or shrink; id, when not 0, the context to mark live. */
static LP_NOINLINE void note_general(uint32_t id, uint64_t heap,
                                     uint64_t use, bool grows)
{
    struct lp_massif_local *l;

    lp_massif_mark_live(id);
    if (!lp_load_relaxed(&lp_threaded)) {
        note_plain(heap, use, grows, snap.unit);
        return;
    }
    if ((l = lp_self.massif_local) != NULL) {
        note_local(l, (int64_t)heap, use, grows);
        return;
    }
    lp_count_add(&snap.heap, heap);
    request_normal(advance(use, grows));
}

/* The common events (context marked already; single-threaded with time
 * in bytes, or a thread with deltas of its own) without a call that
 * returns here, so without a stack frame beyond the frame pointer; every
 * other case goes to note_general(). */
static inline __attribute__((always_inline)) void
note_event(uint32_t id, uint64_t heap, uint64_t use, bool grows)
{
    struct lp_massif_local *l;

    if (LP_LIKELY(lp_massif_live_marked(id))) {
        if (!lp_load_relaxed(&lp_threaded)) {
            if (LP_LIKELY(snap.unit == LP_TIME_B)) {
                note_plain(heap, use, grows, LP_TIME_B);
                return;
            }
        } else if (LP_LIKELY((l = lp_self.massif_local) != NULL)) {
            /* A thread's event into its own deltas, without the call
             * (note_general was 4.5% of a 2-thread storm). */
            note_local(l, (int64_t)heap, use, grows);
            return;
        }
    }
    note_general(id, heap, use, grows);
}

void lp_snapshot_note(uint32_t id, size_t req, size_t usable, bool is_alloc)
{
    uint64_t use = (usable > req ? usable : req) + snap.admin;

    if (!lp_load_relaxed(&snap.enabled))
        return;
    note_event(is_alloc ? id : 0, is_alloc ? (uint64_t)req : -(uint64_t)req,
               use, is_alloc);
}

void lp_snapshot_note_realloc(uint32_t id, size_t old_req,
                              size_t old_usable, size_t new_req,
                              size_t new_usable)
{
    uint64_t old_use = old_usable > old_req ? old_usable : old_req;
    uint64_t new_use = new_usable > new_req ? new_usable : new_req;

    if (!lp_load_relaxed(&snap.enabled))
        return;
    note_event(id, (uint64_t)new_req - (uint64_t)old_req,
               new_use >= old_use ? new_use - old_use : old_use - new_use,
               new_use >= old_use);
}

struct lp_massif_local *lp_massif_local_new(void)
{
    struct lp_massif_local *l = lp_arena_alloc(sizeof(*l));

    if (l == NULL)
        return NULL;
    l->quantum = MIN_QUANTUM;
    lp_massif_local_adopt(l);
    lp_list_push(&locals, l);
    return l;
}

/* ------------------------------------------------------------------ */
/* Start-up (BOOT: no allocation through the hooks)                    */

void lp_snapshot_init(void)
{
    struct timespec ts;
    int cap = lp_config.max_snapshots;
    uint32_t id, n;
    uint64_t heap = 0;

    if (lp_config.massif[0] == '\0')
        return;
    lp_massif_write_init();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snap.t0_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    snap.unit = lp_config.time_unit;
    snap.admin = (uint16_t)lp_config.heap_admin;
    if (cap < 2)
        cap = 2;
    if (cap > MAX_SNAPS)
        cap = MAX_SNAPS;
    lp_sched_init(&snap.sched, snap.buf, (unsigned)cap,
                  (unsigned)(lp_config.detailed_freq > 0
                                 ? lp_config.detailed_freq : 1),
                  lp_config.peak_inaccuracy, drop_tree, NULL);
    /* Blocks tracked before massif started: once, into the totals. */
    n = lp_stack_count();
    for (id = 1; id <= n; id++) {
        uint64_t b = ctx_bytes(id);

        if (b) {
            heap += b;
            lp_massif_mark_live(id);
        }
    }
    snap.heap = heap;
    pthread_mutex_lock(&snap.lock);
    take(lp_sched_want_normal(&snap.sched, 0)); /* snapshot 0 at time 0 */
    pthread_mutex_unlock(&snap.lock);
    lp_store_release(&snap.enabled, true);
    lp_snapshot_active = true;
}

/* ------------------------------------------------------------------ */
/* For the writer and fork (COLD)                                      */

void lp_massif_hist_lock(void) { pthread_mutex_lock(&snap.lock); }
void lp_massif_hist_unlock(void) { pthread_mutex_unlock(&snap.lock); }
const struct lp_sched *lp_massif_sched(void) { return &snap.sched; }
enum lp_time_unit lp_massif_unit(void) { return snap.unit; }
bool lp_massif_enabled(void) { return lp_load_acquire(&snap.enabled); }

void lp_massif_take_now(struct lp_sched_snap *sn)
{
    sn->time = time_locked();
    /* Possibly not a program thread: read the bitmap, never clear it. */
    sn->tree = capture(&sn->heap, false);
    sn->kind = sn->tree ? LP_SCHED_DETAILED : LP_SCHED_EMPTY;
    sn->stacks = 0;
    finish(sn);
}

void lp_snapshot_lock(void) { pthread_mutex_lock(&snap.lock); }
void lp_snapshot_unlock(void) { pthread_mutex_unlock(&snap.lock); }

void lp_snapshot_atfork_child(void)
{
    pthread_mutex_init(&snap.lock, NULL);
    lp_massif_write_atfork_child();
}
