/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - Massif's counters, the snapshot schedule and massif.out.
 *
 * Hot half: every tracked allocation and free updates three relaxed
 * counters (heap, extra, time) and the bytes of its stack's context, then
 * asks for a snapshot the way massif does (a Peak request before a free
 * subtracts, a Normal request after every event). Whether a request is due
 * is decided with two atomic loads against values the schedule publishes
 * (earliest_next for Normal, peak_limit for Peak); only then is the
 * snapshot lock taken, the request re-checked and the snapshot recorded.
 * A detailed snapshot copies the non-zero context bytes into arena memory.
 *
 * Cold half: copy the history out under the lock, then without it filter
 * each stack as massif does, build trees (lp_snapshot_build_tree), label
 * them through the symbolizer and write with report/massif's writer to a
 * temporary file that is renamed into place.
 * Context: HOT (note, take), BOOT (init), COLD (the rest; guard held).
 */
#include "preload/snapshot.h"

#include "preload/outfile.h"

#include "preload/leakcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preload/arena.h"
#include "preload/config.h"
#include "preload/diag.h"
#include "preload/sched.h"
#include "preload/stack.h"
#include "report/massif.h"
#include "report/symbolize.h"

#define MAX_SNAPS 1000

/* A detailed snapshot as recorded on the hot path: the contexts with
 * non-zero bytes (ids ascending); ids up to nstacks not listed have 0
 * bytes (massif keeps such contexts in the tree). */
struct raw_ent {
    uint32_t id;
    uint64_t bytes;
};
struct raw_tree {
    size_t size; /* bytes of this allocation */
    uint32_t nstacks, nents;
    struct raw_ent e[];
};

static struct {
    /* Hot, written on every event: one atomic per event. grow and shrink
     * sum (requested + slop + 8) over the events that grew and that shrank
     * the heap, so heap + extra is grow - shrink and Massif's byte time is
     * grow + shrink; the useful heap comes from the stack table. */
    uint64_t grow, shrink;
    uint64_t time; /* i unit only: events counted */
    int64_t earliest_next;
    uint64_t peak_limit;
    bool enabled;
    enum lp_time_unit unit;
    uint64_t t0_ns;
    /* Under lock. */
    pthread_mutex_t lock;
    struct lp_sched sched;
    int64_t last_time;
    struct lp_sched_snap buf[MAX_SNAPS];
    /* Start-up facts for the writer. */
    char cmd[8192];
    char cwd[LP_CONFIG_PATH_MAX];
    int final_done;
    pthread_mutex_t write_lock;
} snap = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .write_lock = PTHREAD_MUTEX_INITIALIZER,
};


/* ------------------------------------------------------------------ */
/* Hot path                                                            */

bool lp_snapshot_active;

/* Live bytes of one allocation context: the stack table's counter. */
static uint64_t ctx_bytes(uint32_t id)
{
    struct lp_stack *st = lp_stack_get(id);

    return st ? lp_load_relaxed(&st->live_bytes) : 0;
}

static uint64_t total_now(void)
{
    return lp_load_relaxed(&snap.grow) - lp_load_relaxed(&snap.shrink);
}

/* The useful heap is the sum of the stack table's live counters: summed
 * only when a snapshot is taken (rare), it costs the hot path nothing. */
static uint64_t heap_now(void)
{
    uint32_t id, n = lp_stack_count();
    uint64_t sum = 0;

    for (id = 1; id <= n; id++)
        sum += ctx_bytes(id);
    return sum;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    uint64_t ns;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return (int64_t)((ns - snap.t0_ns) / 1000000u);
}

/* The current time, for a snapshot taken under the lock: never below the
 * previous snapshot's, although events of other threads race with us. */
static int64_t time_locked(void)
{
    int64_t t = snap.unit == LP_TIME_MS  ? now_ms()
                : snap.unit == LP_TIME_I ? (int64_t)lp_load_relaxed(&snap.time)
                                         : (int64_t)(lp_load_relaxed(&snap.grow) +
                                                     lp_load_relaxed(&snap.shrink));

    if (t < snap.last_time)
        t = snap.last_time;
    snap.last_time = t;
    return t;
}

static void drop_tree(void *ctx, void *tree)
{
    struct raw_tree *t = tree;

    (void)ctx;
    lp_arena_free(t, t->size);
}

/* Copy the context bytes (lock held). Sets *heap to their sum, which is
 * what the snapshot reports, so the root equals mem_heap_B. */
static struct raw_tree *capture(uint64_t *heap)
{
    uint32_t n = lp_stack_count(), id, cnt = 0;
    struct raw_tree *t;
    size_t size;
    uint64_t sum = 0;

    for (id = 0; id <= n; id++)
        if (ctx_bytes(id))
            cnt++;
    size = sizeof(*t) + (size_t)cnt * sizeof(t->e[0]);
    t = lp_arena_alloc(size);
    if (!t)
        return NULL;
    t->size = size;
    t->nstacks = n;
    for (id = 0; id <= n && t->nents < cnt; id++) {
        uint64_t b = ctx_bytes(id);

        if (b) {
            t->e[t->nents].id = id;
            t->e[t->nents].bytes = b;
            t->nents++;
            sum += b;
        }
    }
    *heap = sum;
    return t;
}

static void publish(void)
{
    lp_store_relaxed(&snap.earliest_next, snap.sched.earliest_next);
    lp_store_relaxed(&snap.peak_limit, lp_sched_peak_limit(&snap.sched));
}

/* Record a snapshot of the requested kind (lock held). */
static void take(int kind)
{
    struct lp_sched_snap sn = { .kind = kind };

    sn.time = time_locked();
    if (kind != LP_SCHED_EMPTY)
        sn.tree = capture(&sn.heap);
    if (!sn.tree)
        sn.heap = heap_now();
    sn.extra = total_now() - sn.heap;
    lp_sched_add(&snap.sched, &sn);
    publish();
}

static LP_NOINLINE void request_normal_slow(void)
{
    int k;

    pthread_mutex_lock(&snap.lock);
    k = lp_sched_want_normal(&snap.sched, snap.unit == LP_TIME_MS ? now_ms()
                                          : snap.unit == LP_TIME_I
                                              ? (int64_t)lp_load_relaxed(&snap.time)
                                              : (int64_t)(lp_load_relaxed(&snap.grow) +
                                                          lp_load_relaxed(&snap.shrink)));
    if (k != LP_SCHED_NONE)
        take(k);
    pthread_mutex_unlock(&snap.lock);
}

static LP_NOINLINE void request_peak_slow(void)
{
    pthread_mutex_lock(&snap.lock);
    if (lp_sched_want_peak(&snap.sched, total_now()) ==
        LP_SCHED_PEAK)
        take(LP_SCHED_PEAK);
    pthread_mutex_unlock(&snap.lock);
}

static inline void request_normal(int64_t t)
{
    if (t >= lp_load_relaxed(&snap.earliest_next))
        request_normal_slow();
}

static inline void request_peak(void)
{
    if (LP_UNLIKELY(total_now() > lp_load_relaxed(&snap.peak_limit)))
        request_peak_slow();
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

void lp_snapshot_before_shrink(void)
{
    if (lp_load_relaxed(&snap.enabled))
        request_peak(); /* Massif takes a peak before a block goes away */
}

void lp_snapshot_note(size_t req, size_t usable, bool is_alloc)
{
    uint64_t use = (usable > req ? usable : req) + 8;

    if (!lp_load_relaxed(&snap.enabled))
        return;
    request_normal(advance(use, is_alloc));
}

void lp_snapshot_note_realloc(size_t old_req, size_t old_usable,
                              size_t new_req, size_t new_usable)
{
    uint64_t old_use = old_usable > old_req ? old_usable : old_req;
    uint64_t new_use = new_usable > new_req ? new_usable : new_req;

    if (!lp_load_relaxed(&snap.enabled))
        return;
    request_normal(new_use >= old_use ? advance(new_use - old_use, true)
                                      : advance(old_use - new_use, false));
}

/* ------------------------------------------------------------------ */
/* Start-up (BOOT: no allocation)                                      */

static void read_cmdline(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = 0, r;
    size_t i;

    if (fd >= 0) {
        while (n < (ssize_t)sizeof(snap.cmd) - 1 &&
               (r = read(fd, snap.cmd + n, sizeof(snap.cmd) - 1 - n)) > 0)
            n += r;
        close(fd);
    }
    while (n > 0 && snap.cmd[n - 1] == '\0')
        n--;
    for (i = 0; i < (size_t)n; i++)
        if (snap.cmd[i] == '\0' || snap.cmd[i] == '\n')
            snap.cmd[i] = ' ';
    snap.cmd[n] = '\0';
}

void lp_snapshot_init(void)
{
    struct timespec ts;
    int cap = lp_config.max_snapshots;

    if (lp_config.massif[0] == '\0')
        return;
    read_cmdline();
    if (!getcwd(snap.cwd, sizeof(snap.cwd)))
        snap.cwd[0] = '\0';
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snap.t0_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    snap.unit = lp_config.time_unit;
    if (cap < 2)
        cap = 2;
    if (cap > MAX_SNAPS)
        cap = MAX_SNAPS;
    lp_sched_init(&snap.sched, snap.buf, (unsigned)cap,
                  (unsigned)(lp_config.detailed_freq > 0
                                 ? lp_config.detailed_freq : 1),
                  lp_config.peak_inaccuracy, drop_tree, NULL);
    pthread_mutex_lock(&snap.lock);
    take(lp_sched_want_normal(&snap.sched, 0)); /* snapshot 0 at time 0 */
    pthread_mutex_unlock(&snap.lock);
    lp_store_release(&snap.enabled, true);
    lp_snapshot_active = true;
}

/* The writer's lock is taken first: a writer takes the leak report's lock
 * while holding it (fork.c lists the order). */
void lp_snapshot_write_lock(void) { pthread_mutex_lock(&snap.write_lock); }
void lp_snapshot_write_unlock(void) { pthread_mutex_unlock(&snap.write_lock); }
void lp_snapshot_lock(void) { pthread_mutex_lock(&snap.lock); }
void lp_snapshot_unlock(void) { pthread_mutex_unlock(&snap.lock); }

void lp_snapshot_atfork_child(void)
{
    pthread_mutex_init(&snap.lock, NULL);
    pthread_mutex_init(&snap.write_lock, NULL);
    snap.final_done = 0;
}

/* ------------------------------------------------------------------ */
/* Tree construction (COLD)                                            */

uint64_t lp_snapshot_sig(uint64_t heap, uint64_t total, double threshold)
{
    if (heap == 0 && threshold != 0)
        return 1;
    return (uint64_t)((double)total * threshold / 100.0);
}

static int cmp_ctx(const void *a, const void *b)
{
    const struct lp_snapshot_ctx *x = a, *y = b;
    unsigned i, n = x->nframes < y->nframes ? x->nframes : y->nframes;

    for (i = 0; i < n; i++)
        if (x->frames[i] != y->frames[i])
            return x->frames[i] < y->frames[i] ? -1 : 1;
    return (x->nframes > y->nframes) - (x->nframes < y->nframes);
}

struct group {
    uintptr_t addr; /* 0 for the aggregate */
    uint64_t bytes;
    size_t lo, hi, places;
};

static int cmp_group(const void *a, const void *b)
{
    const struct group *x = a, *y = b;

    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

struct build {
    struct lp_massif *m;
    struct lp_snapshot_ctx *c;
    uint64_t sig;
    double threshold;
    lp_snapshot_label_fn label;
    void *label_ctx;
};

/* Add the children of a node covering contexts [lo, hi) at depth d.
 * The contexts are sorted, so those with exactly d frames come first and
 * each address forms one contiguous run. */
static int add_children(struct build *b, struct lp_massif_node *parent,
                        size_t lo, size_t hi, unsigned d)
{
    struct group *g;
    size_t i = lo, ng = 0, k, agg = 0;
    uint64_t agg_bytes = 0;
    int rc = 0;

    while (i < hi && b->c[i].nframes <= d)
        i++;
    if (i == hi)
        return 0;
    g = malloc(sizeof(*g) * (hi - i + 1));
    if (!g)
        return -ENOMEM;
    while (i < hi) {
        struct group cur = { .addr = b->c[i].frames[d], .lo = i };

        while (i < hi && b->c[i].frames[d] == cur.addr)
            cur.bytes += b->c[i++].bytes;
        cur.hi = i;
        if (cur.bytes < b->sig) {
            agg++;
            agg_bytes += cur.bytes;
        } else {
            g[ng++] = cur;
        }
    }
    if (agg) {
        g[ng].addr = 0;
        g[ng].bytes = agg_bytes;
        g[ng].lo = g[ng].hi = 0;
        g[ng].places = agg;
        ng++;
    }
    qsort(g, ng, sizeof(*g), cmp_group);
    for (k = 0; k < ng && rc == 0; k++) {
        struct lp_massif_node *node, *top = NULL, *last = NULL;

        if (g[k].places) {
            char text[128];

            if (g[k].places == 1)
                snprintf(text, sizeof(text),
                         "in 1 place, below massif's threshold (%.2f%%)",
                         b->threshold);
            else
                snprintf(text, sizeof(text),
                         "in %zu places, all below massif's threshold "
                         "(%.2f%%)",
                         g[k].places, b->threshold);
            node = lp_massif_node_new(b->m, g[k].bytes, text);
            rc = node ? lp_massif_node_add_child(parent, node) : -ENOMEM;
        } else {
            const char *labels[LP_SYM_MAX_INLINE];
            int nl = b->label(b->label_ctx, g[k].addr, labels,
                              LP_SYM_MAX_INLINE), j;

            /* Inlined callers: a chain of n1 nodes with the same address,
             * the real children under the last one. */
            for (j = 0; j < nl && rc == 0; j++) {
                node = lp_massif_node_new(b->m, g[k].bytes, labels[j]);
                if (!node)
                    rc = -ENOMEM;
                else if (!top)
                    top = node;
                else
                    rc = lp_massif_node_add_child(last, node);
                last = node;
            }
            if (rc == 0)
                rc = add_children(b, last, g[k].lo, g[k].hi, d + 1);
            if (rc == 0)
                rc = lp_massif_node_add_child(parent, top);
        }
    }
    free(g);
    return rc;
}

struct lp_massif_node *lp_snapshot_build_tree(struct lp_massif *m,
                                              struct lp_snapshot_ctx *c,
                                              size_t n, uint64_t sig,
                                              double threshold,
                                              lp_snapshot_label_fn label,
                                              void *label_ctx)
{
    struct build b = { m, c, sig, threshold, label, label_ctx };
    struct lp_massif_node *root;
    uint64_t total = 0;
    size_t i;

    for (i = 0; i < n; i++)
        total += c[i].bytes;
    qsort(c, n, sizeof(*c), cmp_ctx);
    root = lp_massif_node_new(m, total, LP_MASSIF_ROOT_LABEL);
    if (!root || add_children(&b, root, 0, n, 0) != 0)
        return NULL;
    return root;
}

/* ------------------------------------------------------------------ */
/* Writing (COLD, guard held)                                          */

struct hist {
    size_t n;
    struct lp_sched_snap *s; /* trees are malloc'd copies */
};

static struct raw_tree *dup_tree(const struct raw_tree *t)
{
    struct raw_tree *c = t ? malloc(t->size) : NULL;

    if (c)
        memcpy(c, t, t->size);
    return c;
}

/* Copy the history (and, with now, a detailed snapshot of this moment)
 * out of the lock's protection. */
static int copy_history(struct hist *h, bool now)
{
    size_t i;

    pthread_mutex_lock(&snap.lock);
    h->n = snap.sched.n;
    h->s = calloc(h->n + 1, sizeof(*h->s));
    if (!h->s) {
        pthread_mutex_unlock(&snap.lock);
        return -ENOMEM;
    }
    for (i = 0; i < h->n; i++) {
        h->s[i] = snap.sched.snaps[i];
        h->s[i].tree = dup_tree(snap.sched.snaps[i].tree);
        if (h->s[i].kind != LP_SCHED_EMPTY && !h->s[i].tree)
            h->s[i].kind = LP_SCHED_EMPTY;
    }
    if (now) {
        struct lp_sched_snap *sn = &h->s[h->n];
        struct raw_tree *t;

        sn->time = time_locked();
        t = capture(&sn->heap);
        sn->tree = dup_tree(t);
        if (t)
            drop_tree(NULL, t);
        sn->kind = sn->tree ? LP_SCHED_DETAILED : LP_SCHED_EMPTY;
        if (!sn->tree)
            sn->heap = heap_now();
        sn->extra = total_now() - sn->heap;
        h->n++;
    }
    pthread_mutex_unlock(&snap.lock);
    return 0;
}

static void free_history(struct hist *h)
{
    size_t i;

    for (i = 0; i < h->n; i++)
        free(h->s[i].tree);
    free(h->s);
}

/* Massif's default --alloc-fn list (FORMATS.md 1.5). */
static bool is_alloc_fn(const char *fn)
{
    static const char *const names[] = {
        "malloc", "calloc", "realloc", "memalign", "posix_memalign",
        "valloc", "__builtin_new", "__builtin_vec_new",
    };
    size_t i;

    if (!fn)
        return false;
    if (strncmp(fn, "operator new", 12) == 0)
        return true;
    for (i = 0; i < LP_ARRAY_SIZE(names); i++)
        if (strcmp(fn, names[i]) == 0)
            return true;
    return false;
}

struct writer {
    struct lp_sym *sym;
    uint32_t nids;
    uintptr_t **frames; /* [id] filtered frames, or NULL when not yet */
    unsigned *nframes;
    char **labels;      /* scratch: strings of the last label() call */
    int nlabels;
};

/* The out-of-line function containing return address ip. */
static const char *fn_at(struct writer *w, uintptr_t ip)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    int n = lp_sym_resolve(w->sym, ip, true, f, LP_SYM_MAX_INLINE);

    return n > 0 ? f[n - 1].fn : NULL;
}

/* Massif's per-stack filtering: drop our hook frame and the contiguous
 * allocation functions on top, drop frames of our own library (wrappers
 * of main and of thread start routines), cut below main (or below the
 * first below-main function when there is no main), keep depth frames. */
static void filter_stack(struct writer *w, uint32_t id)
{
    struct lp_stack *s = lp_stack_get(id);
    uintptr_t *out;
    unsigned i = 1, k = 0, below = 0, j;
    bool found_main = false;

    w->nframes[id] = 0;
    if (!s || s->nframes <= 1 ||
        !(out = malloc(sizeof(*out) * s->nframes))) {
        w->frames[id] = (uintptr_t *)w; /* computed: no frames */
        return;
    }
    while (i < s->nframes && is_alloc_fn(fn_at(w, s->frames[i])))
        i++;
    for (; i < s->nframes; i++) {
        uintptr_t ip = s->frames[i];
        enum lp_fn_kind kind;

        if (ip == 0 || lp_stack_is_self(ip))
            continue;
        out[k++] = ip;
        kind = lp_sym_fn_kind(fn_at(w, ip));
        if (kind == LP_FN_MAIN) {
            found_main = true;
            break;
        }
        if (kind == LP_FN_BELOW_MAIN && !below)
            below = k;
    }
    if (!found_main && below)
        k = below;
    j = lp_config.depth > 0 ? (unsigned)lp_config.depth : 30;
    if (k > j)
        k = j;
    w->frames[id] = out;
    w->nframes[id] = k;
}

static int sym_label(void *ctx, uintptr_t ip, const char **out, int max)
{
    struct writer *w = ctx;
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    int n = lp_sym_resolve(w->sym, ip, true, f, LP_SYM_MAX_INLINE), i;

    if (n < 1) {
        memset(f, 0, sizeof(f[0]));
        f[0].addr = ip - 1;
        n = 1;
    }
    if (n > max)
        n = max;
    for (i = 0; i < w->nlabels; i++)
        free(w->labels[i]);
    w->nlabels = 0;
    for (i = 0; i < n; i++) {
        int len;
        char *buf;

        if (lp_sym_fn_kind(f[i].fn) == LP_FN_BELOW_MAIN)
            f[i].fn = LP_SYM_BELOW_MAIN;
        len = lp_sym_describe(&f[i], NULL, NULL, 0);
        buf = malloc((size_t)len + 1);
        if (!buf)
            break;
        lp_sym_describe(&f[i], NULL, buf, (size_t)len + 1);
        w->labels[w->nlabels++] = buf;
        out[i] = buf;
    }
    if (w->nlabels == 0) {
        out[0] = "???";
        return 1;
    }
    return w->nlabels;
}

static struct lp_massif_node *tree_of(struct writer *w, struct lp_massif *m,
                                      const struct lp_sched_snap *s)
{
    const struct raw_tree *t = s->tree;
    struct lp_snapshot_ctx *c;
    struct lp_massif_node *root;
    uint32_t id, e = 0;
    size_t n = 0;

    c = malloc(sizeof(*c) * ((size_t)t->nstacks + 1));
    if (!c)
        return NULL;
    for (id = 0; id <= t->nstacks; id++) {
        struct lp_stack *st = lp_stack_get(id);
        uint64_t bytes = 0;

        if (e < t->nents && t->e[e].id == id)
            bytes = t->e[e++].bytes;
        /* A stack that never allocated (heap errors keep freed-at
         * stacks in the same table) is no allocation context. */
        if (st && bytes == 0 && lp_load_relaxed(&st->total_blocks) == 0)
            continue;
        if (id < w->nids && !w->frames[id])
            filter_stack(w, id);
        c[n].frames = id < w->nids ? w->frames[id] : NULL;
        c[n].nframes = id < w->nids ? w->nframes[id] : 0;
        c[n].bytes = bytes;
        n++;
    }
    root = lp_snapshot_build_tree(
        m, c, n, lp_snapshot_sig(s->heap, s->heap + s->extra + s->stacks,
                                 lp_config.threshold),
        lp_config.threshold, sym_label, w);
    free(c);
    return root;
}

/* "desc:" text: our options in massif's spelling (snapshot.h). */
static void make_desc(char *out, size_t n)
{
    static const struct {
        const char *key, *flag;
    } map[] = {
        { "massif", "--massif-out-file=" },
        { "time_unit", "--time-unit=" },
        { "detailed_freq", "--detailed-freq=" },
        { "max_snapshots", "--max-snapshots=" },
        { "threshold", "--threshold=" },
        { "peak_inaccuracy", "--peak-inaccuracy=" },
        { "depth", "--depth=" },
    };
    const char *p = lp_config.options_text;
    size_t o = 0;

    out[0] = '\0';
    while (*p) {
        const char *end = strchr(p, ':'), *eq;
        size_t len = end ? (size_t)(end - p) : strlen(p), i;

        eq = memchr(p, '=', len);
        for (i = 0; eq && i < LP_ARRAY_SIZE(map); i++)
            if (strlen(map[i].key) == (size_t)(eq - p) &&
                !strncmp(p, map[i].key, (size_t)(eq - p))) {
                int r = snprintf(out + o, n - o, "%s%s%.*s", o ? " " : "",
                                 map[i].flag, (int)(len - (eq + 1 - p)),
                                 eq + 1);

                if (r > 0 && (size_t)r < n - o)
                    o += (size_t)r;
                break;
            }
        p += len;
        if (*p == ':')
            p++;
    }
    if (o == 0)
        snprintf(out, n, "(none)");
}

static int resolve_path(char *out, size_t n, unsigned seq)
{
    char name[LP_CONFIG_PATH_MAX];
    int r;

    if (lp_config_expand(lp_config.massif, getpid(), name, sizeof(name)))
        return -ENAMETOOLONG;
    /* massif: a relative name is relative to the start-up directory. */
    if (name[0] != '/' && snap.cwd[0])
        r = snprintf(out, n, "%s/%s", snap.cwd, name);
    else
        r = snprintf(out, n, "%s", name);
    if (r > 0 && (size_t)r < n && seq)
        r += snprintf(out + r, n - (size_t)r, ".%u", seq);
    return r > 0 && (size_t)r < n ? 0 : -ENAMETOOLONG;
}

/* Write m to path through a temporary file in the same directory. */
static int write_file(const char *path, const struct lp_massif *m)
{
    char tmp[LP_CONFIG_PATH_MAX + 64];
    FILE *f = lp_outfile_open(path, tmp, sizeof(tmp));

    if (!f)
        return -errno;
    return lp_outfile_commit(f, tmp, path, lp_massif_write(m, f));
}

static int write_profile(unsigned seq, bool now)
{
    static const char *const units[] = { "B", "ms", "i" };
    char path[LP_CONFIG_PATH_MAX + 32], desc[sizeof(lp_config.options_text)];
    struct writer w = { 0 };
    struct lp_massif *m = NULL;
    struct hist h = { 0, NULL };
    char *labels[LP_SYM_MAX_INLINE];
    size_t i;
    uint32_t id;
    int rc;

    path[0] = '\0';
    rc = resolve_path(path, sizeof(path), seq);
    if (rc == 0)
        rc = copy_history(&h, now);
    if (rc != 0)
        goto out;
    w.labels = labels;
    w.nids = lp_stack_count() + 1;
    w.frames = calloc(w.nids, sizeof(*w.frames));
    w.nframes = calloc(w.nids, sizeof(*w.nframes));
    make_desc(desc, sizeof(desc));
    m = lp_massif_new(desc, snap.cmd[0] ? snap.cmd : "???",
                      units[snap.unit <= LP_TIME_I ? snap.unit : 0]);
    if (!m || !w.frames || !w.nframes) {
        rc = -ENOMEM;
        goto out;
    }
    w.sym = lp_leakcheck_sym_get(); /* shared with the leak report */
    for (i = 0; i < h.n && rc == 0; i++) {
        struct lp_sched_snap *s = &h.s[i];
        struct lp_massif_node *tree = NULL;
        enum lp_massif_kind kind = LP_MASSIF_EMPTY;

        if (s->tree) {
            tree = tree_of(&w, m, s);
            if (tree)
                kind = s->kind == LP_SCHED_PEAK ? LP_MASSIF_PEAK
                                                : LP_MASSIF_DETAILED;
            if (kind == LP_MASSIF_EMPTY)
                tree = NULL;
        }
        rc = lp_massif_add_snapshot(m, s->time, s->heap, s->extra, s->stacks,
                                    kind, tree);
    }
    if (rc == 0)
        rc = write_file(path, m);
out:
    if (rc != 0)
        lp_diag("cannot write '%s': %s", path[0] ? path : lp_config.massif,
                strerror(-rc));
    for (i = 0; i < (size_t)w.nlabels; i++)
        free(w.labels[i]);
    for (id = 0; w.frames && id < w.nids; id++)
        if (w.frames[id] != (uintptr_t *)&w)
            free(w.frames[id]);
    free(w.frames);
    free(w.nframes);
    if (w.sym)
        lp_leakcheck_sym_put();
    lp_massif_free(m);
    free_history(&h);
    return rc;
}

void lp_snapshot_write_final(void)
{
    if (!lp_load_acquire(&snap.enabled) ||
        lp_xchg_acq_rel(&snap.final_done, 1))
        return;
    pthread_mutex_lock(&snap.write_lock);
    write_profile(0, false);
    pthread_mutex_unlock(&snap.write_lock);
}

int lp_snapshot_dump(unsigned n)
{
    int rc;

    if (!lp_load_acquire(&snap.enabled))
        return -ENOENT;
    pthread_mutex_lock(&snap.write_lock);
    rc = write_profile(n, true);
    pthread_mutex_unlock(&snap.write_lock);
    return rc;
}
