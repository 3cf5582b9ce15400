/* SPDX-License-Identifier: MIT */
/*
 * roots.c - lp_scan_run(): the leak scan of the running process.
 * Snapshot the live blocks, stop the other threads, turn /proc/self/maps
 * and the threads' stacks and registers into the root set that Memcheck
 * would use (see the essay in classify.c), run the classify core, resume.
 * Context: COLD, guard held; nothing between stop and resume may call
 * malloc (a parked thread may hold the allocator's lock), take the arena
 * lock, or use stdio. All memory comes from mmap.
 *
 * Locking order, and the race it closes: every shard lock is taken
 * before the stop signal goes out and released once everybody is parked.
 * So no thread can be parked inside the table (its lock would stay held),
 * and the block snapshot taken afterwards matches the parked memory
 * exactly: a thread caught between the real malloc and the table insert
 * holds the new pointer only in its registers, where it finds no block;
 * one caught between the table removal and the real free frees a block
 * the program no longer references. Only a thread that never parks
 * (timeout) can change memory during the scan; blocks are then read with
 * process_vm_readv so that an unmapped block cannot crash us.
 */
#include "preload/hot/freed.h"
#include "preload/scan/blocks.h"
#include "preload/scan/classify.h"
#include "preload/scan/heap_walk.h"
#include "preload/scan/own_objects.h"
#include "preload/scan/proc_maps.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/hot/guard.h"
#include "preload/hot/nursery.h"
#include "preload/hot/real.h"
#include "preload/hot/sample.h"
#include "preload/life/config.h"
#include "preload/life/process.h"
#include "preload/hot/table.h"
#include "preload/life/thread_registry.h"
#include "preload/life/root_dir.h"

#define RED_ZONE 128 /* x86-64 leaf functions keep locals below SP */
#define HEAP_MAX (64ul << 20) /* glibc: alignment and size of a non-main
                                 arena heap on 64-bit */

struct range {
    uintptr_t lo, hi;
};

static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
/* The objects that are ours (own_objects.h), found before each stop:
 * their whole ranges, the anonymous pages of their .bss included, which
 * /proc/self/maps shows without a path (an exclusion by path missed
 * them). Under scan_lock. */
static struct lp_own_range own_objs[LP_OWN_OBJECTS_MAX];
static size_t own_nobjs;

/* --- the root set -------------------------------------------------------- */

struct roots {
    struct range *ex; /* excluded from the mapping roots */
    size_t nex, excap;
    struct range *rt; /* explicit roots (live stacks) */
    size_t nrt, rtcap;
    uintptr_t *words; /* explicit root words (live threads' start args) */
    size_t nwords, wcap;
    const struct lp_scan_map *maps;
    size_t nmaps;
    pid_t main_tid, self_tid;
    uintptr_t entry_sp;
    struct lp_stopped_thread *stopped;
    size_t nstopped;
    bool walk_heaps; /* sampled mode, every thread parked: heap_walk.c */
    bool overflow;   /* the stop left threads in no slot (running) */
    bool stopped_sorted; /* stopped[] in ascending tid order */
    uintptr_t held_heap; /* exclude_held: the thread heap excluded last */
};

static void exclude(struct roots *r, uintptr_t lo, uintptr_t hi)
{
    if (lo < hi && r->nex < r->excap)
        r->ex[r->nex++] = (struct range){lo, hi};
}

static void add_root(struct roots *r, uintptr_t lo, uintptr_t hi)
{
    if (lo < hi && r->nrt < r->rtcap)
        r->rt[r->nrt++] = (struct range){lo, hi};
}

static bool add_heap_run(uintptr_t lo, uintptr_t hi, void *arg)
{
    struct roots *r = arg;

    if (r->nrt == r->rtcap)
        return false;
    add_root(r, lo, hi);
    return true;
}

/* Sampled mode: the in-use chunks the sampler left untracked, of the heap
 * from chunk first to end, are roots (heap_walk.c says why); the tracked
 * blocks c->addrs[from, to) lie in it. The caller leaves the heap itself
 * out of the roots either way. */
static void sampled_heap_roots(struct roots *r, const struct lp_scan_core *c,
                               uintptr_t first, uintptr_t end, size_t from,
                               size_t to)
{
    size_t saved = r->nrt;

    if (!r->walk_heaps || first == 0)
        return;
    if (lp_heap_untracked_runs(first, end, c->addrs + from, to - from,
                               add_heap_run, r) < 0)
        r->nrt = saved;
}

/* Sampled mode, the main arena's heap: the [heap] mapping at maps[i] and
 * those right after it, which a fork child's growth leaves apart from
 * what it inherited (nginx's workers: two lines, the top chunk across
 * both); first: the first block at or above maps[i].lo. Returns the end
 * of the heap, walked or not. */
static uintptr_t main_heap_roots(struct roots *r, const struct lp_scan_core *c,
                                 const struct lp_pmap *info, size_t i,
                                 size_t first)
{
    uintptr_t lo = r->maps[i].lo, hi = r->maps[i].hi;
    size_t to = first;

    while (i + 1 < r->nmaps && r->maps[i + 1].lo == hi &&
           strcmp(info[i + 1].path, "[heap]") == 0)
        hi = r->maps[++i].hi;
    while (to < c->nblocks && c->addrs[to] < hi)
        to++;
    if (to > first)
        sampled_heap_roots(r, c, lo, hi, first, to);
    return hi;
}

static void add_root_word(struct roots *r, uintptr_t w)
{
    if (w != 0 && r->nwords < r->wcap)
        r->words[r->nwords++] = w;
}

static void exclude_arena(uintptr_t lo, uintptr_t hi, void *arg)
{
    exclude(arg, lo, hi);
}

/* The stop's slot of tid, or NULL. The stop fills its slots in the order
 * of /proc/self/task, ascending tids but where they wrap: a binary search
 * when they are sorted (stopped_sorted), else a walk (8,000 threads: the
 * walks, O(threads^2), were a seventh of the exit). */
static const struct lp_stopped_thread *stopped_of(const struct roots *r,
                                                  pid_t tid)
{
    size_t lo = 0, hi = r->nstopped, i;

    if (!r->stopped_sorted) {
        for (i = 0; i < r->nstopped; i++)
            if (r->stopped[i].tid == tid)
                return &r->stopped[i];
        return NULL;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (r->stopped[mid].tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nstopped && r->stopped[lo].tid == tid ? &r->stopped[lo]
                                                         : NULL;
}

/* Where a live thread's stack starts being live. */
static uintptr_t live_from(const struct roots *r, pid_t tid, uintptr_t lo,
                           uintptr_t hi)
{
    const struct lp_stopped_thread *st;

    if (tid == r->self_tid)
        return r->entry_sp > lo && r->entry_sp < hi ? r->entry_sp : lo;
    st = stopped_of(r, tid);
    if (st == NULL || !st->answered || st->sp <= lo || st->sp > hi)
        return lo; /* unknown: the whole stack, conservatively */
    return st->sp - RED_ZONE > lo ? st->sp - RED_ZONE : lo;
}

/* Where a finished thread's static TLS begins, below its TCB (x86-64,
 * TLS variant II: the blocks lie below the thread pointer); the stack's
 * top when its TCB is not known or not in it. ld.so's
 * _dl_get_tls_static_info (GLIBC_PRIVATE, as LeakSanitizer reads it)
 * gives the static TLS size; without it, the TCB alone. */
static uintptr_t tls_lo(const struct lp_thread_info *ti)
{
    static size_t size = (size_t)-1;
    size_t sz = size;

    if (ti->tcb <= ti->stack_lo || ti->tcb >= ti->stack_hi)
        return ti->stack_hi;
    if (sz == (size_t)-1) {
        void (*info)(size_t *, size_t *) = (void (*)(size_t *, size_t *))
            dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
        size_t align = 0;

        sz = 0;
        if (info)
            info(&sz, &align);
        size = sz;
    }
    return ti->tcb - ti->stack_lo > sz ? ti->tcb - sz : ti->stack_lo;
}

/*
 * One registered thread. Alive means "may still run code" (thread_registry.h);
 * the kernel's task list, read by the stop, has the last word.
 *   - created, not started yet: its stack mapping is scanned like any
 *     other (its TCB holds the DTV pointer), and glibc would keep its
 *     start argument in that TCB (ours holds our record): a root word;
 *   - running (its tid answered the stop, or it is us), including a thread
 *     past its start routine running key destructors: its stack from SP
 *     up (with its TCB and static TLS) and its start argument; when the
 *     stop could not hold every thread, any thread still alive: its whole
 *     stack;
 *   - gone: its cached stack is no root (a user-supplied stack is the
 *     user's memory: left as it is).
 */
static void thread_roots(const struct lp_thread_info *ti, void *arg)
{
    struct roots *r = arg;

    if (ti->internal) {
        if (ti->stack_hi)
            exclude(r, ti->stack_lo, ti->stack_hi);
        return;
    }
    if (ti->alive && !ti->started) {
        add_root_word(r, ti->arg);
        return;
    }
    if (ti->stack_hi == 0 || ti->tid == r->main_tid)
        return;
    if (ti->alive && (ti->tid == r->self_tid || stopped_of(r, ti->tid) ||
                      r->overflow)) {
        exclude(r, ti->stack_lo, ti->stack_hi);
        add_root(r, live_from(r, ti->tid, ti->stack_lo, ti->stack_hi),
                 ti->stack_hi);
        add_root_word(r, ti->arg);
        return;
    }
    {
        /* A cached stack starts right above its guard page, so a mapping
         * begins at stack_lo; if none does, the memory went elsewhere.
         * Its frames are dead (Memcheck takes a finished thread's stack
         * as undefined), but its static TLS and TCB at the top are what
         * glibc wrote and keeps for the next thread: a root there too,
         * as Memcheck scans them (the TCB holds the thread's DTV
         * pointer: a threaded server killed by SIGTERM had its finished
         * threads' DTVs "definitely lost" here, "possibly lost" under
         * Memcheck) - until an exit's freeres, which unmaps the cached
         * stacks under Valgrind (stacks_freed): a block only a finished
         * thread's __thread variable held is then definitely lost. */
        long i = lp_proc_maps_index(r->maps, r->nmaps, ti->stack_lo);

        if (!ti->user_stack && i >= 0 && r->maps[i].lo == ti->stack_lo)
            exclude(r, ti->stack_lo,
                    lp_process.stacks_freed ? ti->stack_hi : tls_lo(ti));
    }
}

static bool is_excluded_sp(const struct roots *r, uintptr_t sp)
{
    size_t i;

    for (i = 0; i < r->nex; i++)
        if (sp >= r->ex[i].lo && sp < r->ex[i].hi)
            return true;
    return false;
}

static int cmp_range_lo(const struct range *a, const struct range *b)
{
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static void sort_ranges(struct range *a, size_t n)
{
    size_t i, j;

    /* Shell sort: small n, no allocation. */
    for (size_t gap = n / 2; gap > 0; gap /= 2)
        for (i = gap; i < n; i++) {
            struct range t = a[i];

            for (j = i; j >= gap && cmp_range_lo(&a[j - gap], &t) > 0;
                 j -= gap)
                a[j] = a[j - gap];
            a[j] = t;
        }
}

/* Sorted ranges made disjoint: overlapping or touching ones joined (a
 * cached stack may be excluded for a live thread and for the dead one
 * before it), so that their ends ascend too. */
static void merge_ranges(struct range *a, size_t *n)
{
    size_t i, k = 0;

    for (i = 0; i < *n; i++) {
        if (k > 0 && a[i].lo <= a[k - 1].hi) {
            if (a[i].hi > a[k - 1].hi)
                a[k - 1].hi = a[i].hi;
            continue;
        }
        a[k++] = a[i];
    }
    *n = k;
}

/* The allocator's own regions for the blocks in mapping m: glibc mmap'd
 * chunks (IS_MMAPPED) and non-main arena heaps (NON_MAIN_ARENA) are found
 * from the chunk header; if any block cannot be explained that way, the
 * whole mapping is heap. Mappings without blocks are not touched. */
static void exclude_heap(struct roots *r, const struct lp_scan_map *m,
                         const struct lp_scan_core *c, size_t from,
                         size_t to)
{
    size_t i;
    uintptr_t last_hi = 0;

    for (i = from; i < to; i++) {
        uintptr_t a = c->addrs[i], hdr, chunk, size;
        size_t bsize = c->blocks[i].size;

        if (a < last_hi)
            continue;
        if (a < m->lo + 16) {
            exclude(r, m->lo, m->hi);
            return;
        }
        hdr = *(const uintptr_t *)(a - 8);
        chunk = a - 16;
        size = hdr & ~(uintptr_t)7;
        if (hdr & 2) { /* IS_MMAPPED: [chunk - prev_size, chunk + size) */
            uintptr_t pre = *(const uintptr_t *)(a - 16);
            uintptr_t lo = chunk - pre, hi = chunk + size;

            if (size >= bsize + 16 && !(lo & 4095) && !(hi & 4095) &&
                lo >= m->lo && hi <= m->hi) {
                exclude(r, lo, hi);
                last_hi = hi;
                continue;
            }
        } else if (hdr & 4) { /* NON_MAIN_ARENA: heap_info at the base */
            uintptr_t base = a & ~(HEAP_MAX - 1);
            uintptr_t hsize;

            if (base >= m->lo) {
                hsize = ((const uintptr_t *)base)[2];
                if (hsize <= HEAP_MAX && base + hsize >= a + bsize &&
                    base + hsize <= m->hi) {
                    size_t j = i;

                    while (j < to && c->addrs[j] < base + hsize)
                        j++;
                    sampled_heap_roots(r, c, lp_heap_first_chunk(base),
                                       base + hsize, i, j);
                    exclude(r, base, base + hsize);
                    last_hi = base + hsize;
                    continue;
                }
            }
        }
        if (r->walk_heaps && !lp_real_glibc) {
            /* Sampled, and the real allocator is not glibc's (a program
             * linked with libjemalloc.so.2, as Debian's redis-server): its
             * heap's layout is unknown, so the mapping is a root but for
             * the tracked blocks, rather than no root at all, which made
             * every tracked block held by an untracked one "definitely
             * lost" (redis: one libcrypto block, 524 KB estimated, in
             * each live report). Its free memory may hold stale words,
             * so a lost block may pass for reachable: sampling already
             * trades exactness for cost. */
            for (; i < to; i++)
                exclude(r, c->addrs[i],
                        c->addrs[i] + (c->blocks[i].size ? c->blocks[i].size
                                                         : 1));
            return;
        }
        exclude(r, m->lo, m->hi);
        return;
    }
}

/*
 * glibc's main_arena lives in libc's data and points at free chunks and
 * at the top chunk. A chunk header sits 16 bytes before its user data,
 * i.e. inside the tail of the previous block, so these words would read
 * as interior pointers and turn lost blocks into "possibly lost".
 * Memcheck replaces malloc and has no such state, so it must not be a
 * root. Find it by its shape: an empty bin's fd and bk both point 16
 * bytes below the bin itself, and the arenas form a ring through "next"
 * that comes back to main_arena. Layout (glibc 2.26+, 64-bit): bins at
 * +112, 254 words; next at +2160; sizeof 2200.
 */
#define ARENA_BINS 112
#define ARENA_NBINS 127
#define ARENA_NEXT 2160
#define ARENA_SIZE 2200

static bool is_arena_ring(uintptr_t arena)
{
    uintptr_t p = arena;
    int hops;

    for (hops = 0; hops < 256; hops++) {
        if (!lp_peek_word(p + ARENA_NEXT, &p) || p == 0)
            return false;
        if (p == arena)
            return true;
    }
    return false;
}

static uintptr_t find_main_arena(uintptr_t lo, uintptr_t hi)
{
    uintptr_t a;

    for (a = lo; a + 16 <= hi; a += 8) {
        const uintptr_t *w = (const uintptr_t *)a;
        int j;

        if (w[0] != a - 16 || w[1] != a - 16)
            continue;
        /* a is some empty bin's fd: try each bin number it could be. */
        for (j = 0; j < ARENA_NBINS; j++) {
            uintptr_t arena = a - 16 * (uintptr_t)j - ARENA_BINS;

            if (arena < lo)
                break;
            if (arena + ARENA_SIZE <= hi && is_arena_ring(arena))
                return arena;
        }
    }
    return 0;
}

static void exclude_malloc_state(struct roots *r, const struct lp_pmap *info)
{
    size_t i;

    for (i = 0; i < r->nmaps; i++) {
        const struct lp_scan_map *m = &r->maps[i];
        const char *base = strrchr(info[i].path, '/');
        uintptr_t hi = m->hi, arena;

        if (base == NULL || (strncmp(base, "/libc.so", 8) != 0 &&
                             strncmp(base, "/libc-", 6) != 0))
            continue;
        if ((m->flags & (LP_SCAN_MAP_R | LP_SCAN_MAP_W)) !=
            (LP_SCAN_MAP_R | LP_SCAN_MAP_W))
            continue;
        /* .data is file-backed; .bss follows as an anonymous mapping. */
        if (i + 1 < r->nmaps && r->maps[i + 1].lo == m->hi &&
            info[i + 1].path[0] == '\0' &&
            (r->maps[i + 1].flags & LP_SCAN_MAP_W))
            hi = r->maps[i + 1].hi;
        arena = find_main_arena(m->lo, hi);
        if (arena) {
            exclude(r, arena, arena + ARENA_SIZE);
            return;
        }
    }
}

/*
 * quarantine=yes: a block the freed queue holds is still allocated in
 * glibc, and the mapping of a big one (mmapped, 128 KiB and more) holds
 * no tracked block, so it was read as a root: its stale pointers kept
 * lost blocks "still reachable" (troff: 2,060 of Memcheck's 2,880
 * definitely lost blocks). Its chunk's mapping, or its thread arena's
 * heap, is no root, as a tracked block's (exclude_heap). The main
 * arena's [heap] is excluded whole already.
 */
static void exclude_held(uintptr_t a, size_t size, void *arg)
{
    struct roots *r = arg;
    uintptr_t hdr, chunk = a - 16;

    if (!lp_real_glibc) {
        exclude(r, a, a + (size ? size : 1));
        return;
    }
    hdr = *(const uintptr_t *)(a - 8);
    if (hdr & 2) { /* IS_MMAPPED: [chunk - prev_size, chunk + size) */
        uintptr_t pre = *(const uintptr_t *)(a - 16);
        uintptr_t lo = chunk - pre, hi = chunk + (hdr & ~(uintptr_t)7);

        if (!(lo & 4095) && !(hi & 4095) && hi >= a + size)
            exclude(r, lo, hi);
    } else if (hdr & 4) { /* NON_MAIN_ARENA: heap_info at the base */
        uintptr_t base = a & ~(HEAP_MAX - 1);
        uintptr_t hsize = ((const uintptr_t *)base)[2];

        if (base != r->held_heap && hsize <= HEAP_MAX &&
            base + hsize >= a + size) {
            exclude(r, base, base + hsize);
            r->held_heap = base;
        }
    }
}

static void collect_roots(struct roots *r, const struct lp_pmap *info,
                          const struct lp_scan_core *c,
                          const struct lp_scan_buf *own, size_t nown)
{
    size_t i, k, bi = 0;
    uintptr_t heap_walked = 0;
    struct range main_stack = {0, 0};

    for (i = 0; i < nown; i++)
        exclude(r, (uintptr_t)own[i].p, (uintptr_t)own[i].p + own[i].len);
    lp_arena_for_each_range(exclude_arena, r);
    for (i = 0; i < own_nobjs; i++)
        exclude(r, own_objs[i].lo, own_objs[i].hi);
    lp_threads_for_each(thread_roots, r);
    exclude_malloc_state(r, info);
    lp_freed_each_held(exclude_held, r);

    for (i = 0; i < r->nmaps; i++) {
        const struct lp_scan_map *m = &r->maps[i];
        const char *path = info[i].path;
        size_t first = bi;

        while (bi < c->nblocks && c->addrs[bi] < m->hi)
            bi++;
        if (strcmp(path, "[stack]") == 0)
            main_stack = (struct range){m->lo, m->hi};
        if ((m->flags & (LP_SCAN_MAP_R | LP_SCAN_MAP_W)) !=
            (LP_SCAN_MAP_R | LP_SCAN_MAP_W))
            continue;
        while (first < bi && c->addrs[first] < m->lo)
            first++;
        if (path[0] == '[' && strcmp(path, "[stack]") != 0 &&
            strncmp(path, "[stack:", 7) != 0 &&
            strncmp(path, "[anon", 5) != 0) {
            if (strcmp(path, "[heap]") == 0 && m->lo >= heap_walked)
                heap_walked = main_heap_roots(r, c, info, i, first);
            exclude(r, m->lo, m->hi); /* [heap], [vvar], [vsyscall] */
            continue;
        }
        if (first < bi)
            exclude_heap(r, m, c, first, bi);
    }

    /* The main thread: its whole [stack] mapping is excluded, then the
     * live part is added back. After main returned, its frames are dead:
     * the live part starts where our __libc_start_main wrapper stood. */
    if (main_stack.hi) {
        uintptr_t from = live_from(r, r->main_tid, main_stack.lo,
                                   main_stack.hi);

        if (lp_process.main_returned && lp_process.exit_sp > from &&
            lp_process.exit_sp < main_stack.hi)
            from = lp_process.exit_sp;
        exclude(r, main_stack.lo, main_stack.hi);
        if (r->self_tid == r->main_tid || stopped_of(r, r->main_tid))
            add_root(r, from, main_stack.hi);
    }

    /* Threads we never registered (started before us, or by glibc
     * itself): their mapping stays a root, minus what lies below SP. */
    for (k = 0; k < r->nstopped; k++) {
        const struct lp_stopped_thread *st = &r->stopped[k];
        long mi;

        if (!st->answered || st->tid == r->main_tid ||
            is_excluded_sp(r, st->sp))
            continue;
        mi = lp_proc_maps_index(r->maps, r->nmaps, st->sp);
        if (mi >= 0 && st->sp - RED_ZONE > r->maps[mi].lo)
            exclude(r, r->maps[mi].lo, st->sp - RED_ZONE);
    }
    sort_ranges(r->ex, r->nex);
    merge_ranges(r->ex, &r->nex);
}

/* Emit [lo, hi) minus the (sorted) exclusions as root ranges. */
static void scan_minus_excluded(struct lp_scan_core *c, const struct roots *r,
                                uintptr_t lo, uintptr_t hi)
{
    size_t i = 0, b = r->nex;

    /* From the first exclusion ending above lo (sorted and disjoint:
     * merge_ranges): a walk from the first for every mapping made the
     * exit of a program with 8,000 threads (as many stacks, as many
     * exclusions) O(threads^2). */
    while (i < b) {
        size_t mid = i + (b - i) / 2;

        if (r->ex[mid].hi <= lo)
            i = mid + 1;
        else
            b = mid;
    }
    for (; i < r->nex && lo < hi; i++) {
        const struct range *e = &r->ex[i];

        if (e->hi <= lo)
            continue;
        if (e->lo >= hi)
            break;
        if (e->lo > lo)
            lp_scan_core_root(c, lo, e->lo);
        if (e->hi > lo)
            lo = e->hi;
    }
    if (lo < hi)
        lp_scan_core_root(c, lo, hi);
}

static int scan(struct lp_scan *out, bool final);

int lp_scan_run(struct lp_scan *out)
{
    return scan(out, false);
}

int lp_scan_run_final(struct lp_scan *out)
{
    return scan(out, true);
}

LP_NOINLINE static int scan(struct lp_scan *out, bool final)
{
    /* Everything below this frame is the scanner's own and never a root. */
    uintptr_t entry_sp = (uintptr_t)__builtin_frame_address(0);
    struct lp_scan_blocks bb = {0};
    struct lp_scan_buf text = {0}, work = {0};
    struct lp_stopped_thread *stopped;
    struct lp_scan_core core = {0};
    struct roots r;
    struct lp_scan_map *maps;
    struct lp_pmap *info;
    size_t nstopped, nmaps, textlen = 0, lines = 0, i, nthreads;
    int rc = 0;
    bool all_answered = true;

    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&scan_lock);
    own_nobjs = lp_own_objects(own_objs);
    if (lp_scan_blocks_reserve(&bb, lp_table_count() + 1024) != 0) {
        rc = -ENOMEM;
        goto unmap;
    }

    /* See the banner: no thread may be parked holding a shard lock. */
    /* One visit of the nurseries from before the stop until the resume:
     * a thread parked between its busy mark and its look at the flag
     * (nursery.h) would hold up a visit that began while it is parked,
     * and the scan's finds visit once each. */
    lp_nursery_visit_begin();
    lp_table_lock_all();
    nstopped = lp_threads_stop(&stopped);
    lp_table_unlock_all();

    /* The world is stopped: the table holds still until we resume it.
     * Threads may have added blocks between the reserve and the stop.
     * The final check stops all tracking first (guard.h: every later
     * allocation and free goes straight to the allocator), then consumes
     * the table; a thread caught inside a hook finds it empty. */
    if (final) {
        lp_store_release(&lp_state, LP_STATE_DONE);
        rc = lp_scan_blocks_drain(&bb, &core);
    } else {
        rc = lp_scan_blocks_collect(&bb, &core);
    }
    if (rc != 0)
        goto out;
    /* No live block: nothing for a root to reach, so no root is read (a
     * program that frees everything, sqlite3's CLI or a sampled run with
     * no sample live, skips the maps and the whole-process scan: most of
     * what a short process's exit cost here, 0.9 of 1.7 ms). */
    if (core.nblocks == 0)
        goto out;

    rc = lp_proc_maps_read(&text, &textlen);
    if (rc != 0)
        goto out;
    for (i = 0; i < textlen; i++)
        lines += ((char *)text.p)[i] == '\n';
    lines += 1;
    nthreads = nstopped + 64;
    /* One work mapping: maps, info, exclusions, explicit roots. */
    {
        size_t excap = lines + nthreads * 2 + core.nblocks + 4096;
        /* Sampled mode: the heaps' untracked runs (heap_walk.c) too; a
         * heap whose runs do not fit is left out, as before. */
        size_t rtcap = nthreads + 8 +
                       (lp_sample_on() ? 2 * core.nblocks + 65536 : 0);
        size_t wcap = lp_threads_count() + nthreads + 8;
        size_t need = lines * sizeof(*maps) + lines * sizeof(*info) +
                      excap * sizeof(struct range) +
                      rtcap * sizeof(struct range) + wcap * sizeof(uintptr_t);
        char *p;

        if (lp_scan_buf_reserve(&work, need) != 0) {
            rc = -ENOMEM;
            goto out;
        }
        p = work.p;
        maps = (struct lp_scan_map *)p;
        p += lines * sizeof(*maps);
        info = (struct lp_pmap *)p;
        p += lines * sizeof(*info);
        memset(&r, 0, sizeof(r));
        r.ex = (struct range *)p;
        r.excap = excap;
        p += excap * sizeof(struct range);
        r.rt = (struct range *)p;
        r.rtcap = rtcap;
        p += rtcap * sizeof(struct range);
        r.words = (uintptr_t *)p;
        r.wcap = wcap;
    }
    nmaps = lp_proc_maps_parse(text.p, maps, info, lines);
    r.maps = maps;
    r.nmaps = nmaps;
    r.main_tid = getpid();
    r.self_tid = (pid_t)gettid();
    /* The exit report says where its thread's live stack begins when it
     * runs on a stack of its own or for an interrupted context. */
    r.entry_sp = lp_process.report_tid == r.self_tid
                     ? lp_process.report_sp
                     : entry_sp;
    r.stopped = stopped;
    r.nstopped = nstopped;
    r.stopped_sorted = true;
    for (i = 1; i < nstopped; i++)
        if (stopped[i - 1].tid >= stopped[i].tid)
            r.stopped_sorted = false;
    r.overflow = lp_threads_stop_overflowed();
    all_answered = !r.overflow;
    for (i = 0; i < nstopped; i++)
        if (!stopped[i].answered)
            all_answered = false;
    /* A thread that never parked may trim a heap under the walk. */
    r.walk_heaps = lp_sample_on() && all_answered;
    {
        /* text and the block arrays are ours; work was mapped after the
         * maps were read, so it is not in them. */
        struct lp_scan_buf own[5] = {bb.blocks, bb.keys, bb.work, bb.links,
                                     text};

        collect_roots(&r, info, &core, own, 5);
    }

    core.maps = maps;
    core.nmaps = nmaps;
    core.heuristics = lp_config.heuristics;
    core.safe_read = true;
    core.safe_blocks = !all_answered;
    lp_scan_core_begin(&core);
    for (i = 0; i < nmaps; i++)
        if ((maps[i].flags & (LP_SCAN_MAP_R | LP_SCAN_MAP_W)) ==
            (LP_SCAN_MAP_R | LP_SCAN_MAP_W))
            scan_minus_excluded(&core, &r, maps[i].lo, maps[i].hi);
    for (i = 0; i < r.nrt; i++)
        lp_scan_core_root(&core, r.rt[i].lo, r.rt[i].hi);
    lp_scan_core_root_words(&core, r.words, r.nwords);
    for (i = 0; i < nstopped; i++)
        if (stopped[i].answered)
            lp_scan_core_root_words(&core, stopped[i].regs,
                                    LP_THREAD_NREGS);
    lp_scan_core_finish(&core);

    out->blocks = bb.blocks.p;
    out->nblocks = core.nblocks;
    out->link_ = core.link;
    out->ind_ = core.ind;
    memcpy(out->kind_bytes, core.kind_bytes, sizeof(out->kind_bytes));
    memcpy(out->kind_blocks, core.kind_blocks, sizeof(out->kind_blocks));
    memcpy(out->heur_bytes, core.heur_bytes, sizeof(out->heur_bytes));
    memcpy(out->heur_blocks, core.heur_blocks, sizeof(out->heur_blocks));
    out->map_ = bb.blocks.p;
    out->map_len_ = bb.blocks.len;
    out->link_map_ = bb.links.p;
    out->link_map_len_ = bb.links.len;
    bb.blocks.p = NULL;
    bb.links.p = NULL;
out:
    for (i = 0; i < nstopped; i++) {
        if (stopped[i].answered)
            out->threads_stopped++;
        else
            out->threads_timed_out++;
    }
    lp_threads_resume();
    lp_nursery_visit_end();
unmap:
    lp_scan_buf_free(&work);
    lp_scan_buf_free(&text);
    lp_scan_blocks_free(&bb);
    pthread_mutex_unlock(&scan_lock);
    return rc;
}

void lp_scan_release(struct lp_scan *out)
{
    if (out->map_)
        munmap(out->map_, out->map_len_);
    if (out->link_map_)
        munmap(out->link_map_, out->link_map_len_);
    memset(out, 0, sizeof(*out));
}

/* For the fork protocol (preload/life/fork.c). */
void lp_scan_lock(void) { pthread_mutex_lock(&scan_lock); }
void lp_scan_unlock(void) { pthread_mutex_unlock(&scan_lock); }
void lp_scan_atfork_child(void) { pthread_mutex_init(&scan_lock, NULL); }
