/* SPDX-License-Identifier: MIT */
/*
 * classify.c - the mark/classify core of the leak scan.
 * Context: COLD. No allocation, no locks, no stdio: it may run while every
 * other thread of the process is parked in a signal handler.
 */

/*
 * How leakprof decides what is leaked
 * ===================================
 *
 * leakprof gives the same four answers as Valgrind Memcheck, and decides
 * them the same way: by a conservative scan of memory for values that look
 * like pointers to live heap blocks.
 *
 * The root set.  The roots are the memory a program can name without going
 * through the heap: every readable and writable mapping of the process
 * (data and bss of the executable, of every shared library and of the
 * dynamic loader, anonymous mappings, writable file mappings, the static
 * TLS blocks), each live thread's stack from its stack pointer upward, and
 * each live thread's general-purpose registers.  Not roots: the heap
 * itself (a block is scanned only once it has been reached), our own
 * metadata (the arena, the scan's own arrays, libleakprof.so's data),
 * memory below a thread's stack pointer, the frames of main after main has
 * returned, and the stacks of threads that have finished (glibc keeps them
 * mapped in its stack cache; Memcheck does not look at them, so a joined
 * thread's leaked return value stays lost).  roots.c and thread_registry.c
 * collect these; this file only consumes ranges and words.
 *
 * Pointers.  Only aligned, pointer-sized words are looked at.  A word
 * whose value is the first byte of a block is a *start pointer* to it; a
 * value anywhere else inside the block is an *interior pointer*.  A 0-byte
 * block is treated as a 1-byte range, so only its start pointer exists.  A
 * word whose value lies in unreadable memory is no pointer at all, and an
 * unreadable word (PROT_NONE, a file mapping past its end) is never read.
 *
 * Heuristics.  Some interior pointers are how C++ normally refers to a
 * block.  Memcheck's four heuristics (all on by default) promote them to
 * start pointers:
 *   stdstring   - points 3 words in, and the block looks like the old
 *                 (copy-on-write) std::string rep: length <= capacity and
 *                 size == 3 words + capacity + 1;
 *   length64    - points 8 bytes in, and the first 8 bytes hold size - 8;
 *   newarray    - points one word in, and the first word is an element
 *                 count n > 0 dividing size - 1 word (new[] of objects
 *                 with a destructor keeps that count before the array);
 *   multipleinheritance - the block starts with a vtable pointer and the
 *                 pointed-to word is a vtable pointer too (a secondary base
 *                 sub-object).  "Vtable pointer": it points into a
 *                 readable file mapping, at words that are either NULL or
 *                 point into executable file mappings, at least two of
 *                 them non-NULL among the first 20.
 * They are tried in that order; the first that matches is remembered in
 * the block (lp_scan_block.heur) for the "of which reachable via
 * heuristic" lines.
 *
 * Marking.  Every block starts *unreached*.  Scanning a root word that
 * hits a block B:
 *   - a start pointer (or an interior pointer a heuristic accepts) makes B
 *     *reachable*;
 *   - a plain interior pointer makes an unreached B *possible*.
 * Every state change pushes B on an explicit mark stack (no recursion:
 * lists a million nodes long are normal), and B's own words are scanned
 * in turn when it is popped.  A pointer found inside a *reachable* block
 * acts like a root pointer.  A pointer found inside a *possible* block can
 * only make its target possible, never reachable, whatever kind of
 * pointer it is: a block is reachable only through a chain made of start
 * pointers all the way from a root.  A possible block that later becomes
 * reachable is pushed again, so everything below it is upgraded too.  A
 * reachable block is never downgraded; if it was reachable only through a
 * heuristic and a real start pointer turns up, the heuristic is forgotten.
 *
 * Cliques.  Blocks still unreached after the roots are exhausted are lost.
 * They are visited in ascending address order.  Each one not yet claimed
 * becomes a clique *leader*; everything unreached that can be reached from
 * it, by start or interior pointers alike, joins its clique as *indirectly
 * lost*, and the leader's indirect byte and block counts grow by the
 * member's size.  When a leader reaches an earlier leader (two lost lists
 * where the later head points into the earlier), the earlier one joins the
 * later clique together with its whole clique: its indirect counts move to
 * the new leader.  A leader that is reached from its own clique (a lost
 * cycle) stays the leader.  So in a lost cycle the lowest-addressed block
 * that nothing outside the cycle reaches is the one reported as definitely
 * lost, as in Memcheck.
 *
 * The categories, in Memcheck's words:
 *   reachable      -> "still reachable"
 *   possible       -> "possibly lost"   (reached, but only through at
 *                                        least one interior pointer)
 *   clique member  -> "indirectly lost" (reached only from lost blocks)
 *   leader         -> "definitely lost" (its record shows "N (D direct,
 *                                        I indirect) bytes" with the
 *                                        clique's indirect bytes)
 *
 * What we cannot know.  Memcheck also ignores words it knows to be
 * undefined (stack slots never written, heap bytes never initialised).
 * A preloaded library cannot tell, so a stale value in such a word can
 * keep a block reachable here that Memcheck calls lost.
 */
#include "preload/scan/classify.h"
#include "preload/scan/present.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum {
    ST_UNREACHED = 0,
    ST_POSSIBLE,
    ST_REACHABLE,
    ST_INDIRECT,
};

#define BF_READABLE 1u /* the whole block lies in readable mappings */
#define BF_SPARSE 2u /* big, and in private anonymous memory (present.h) */

#define NO_CLIQUE UINT32_MAX
#define WORD sizeof(uintptr_t)
#define PAGE 4096u
#define VTABLE_MAX_CHECK 20

static bool vm_readv_broken; /* process_vm_readv is filtered (seccomp) */
/* Whose memory process_vm_readv reads: the scanning thread's tid, not
 * getpid(). Once the main thread has left by pthread_exit, the pid is a
 * zombie's, without memory: every read failed and nothing was scanned
 * (every block "definitely lost"). Cached per scan (a system call). */
static pid_t self_pid;

/* --- address space queries ------------------------------------------ */

static const struct lp_scan_map *map_of(const struct lp_scan_core *c,
                                        uintptr_t addr)
{
    size_t lo = 0, hi = c->nmaps;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (addr < c->maps[mid].lo)
            hi = mid;
        else if (addr >= c->maps[mid].hi)
            lo = mid + 1;
        else
            return &c->maps[mid];
    }
    return NULL;
}

static bool addr_readable(const struct lp_scan_core *c, uintptr_t addr)
{
    const struct lp_scan_map *m;

    if (c->maps == NULL)
        return true;
    m = map_of(c, addr);
    return m != NULL && (m->flags & LP_SCAN_MAP_R);
}

/* Read one aligned word at addr, if it is readable. */
static bool read_word(const struct lp_scan_core *c, uintptr_t addr,
                      uintptr_t *out)
{
    if (!addr_readable(c, addr) || !addr_readable(c, addr + WORD - 1))
        return false;
    *out = *(const uintptr_t *)addr;
    return true;
}

/* --- the pointer test ----------------------------------------------- */

static inline uintptr_t block_end(uintptr_t addr, const struct lp_scan_block *b)
{
    return addr + (b->size ? b->size : 1);
}

/* Index of the block containing addr, or -1; addr >= addrs[0]. */
static inline long find_block(const struct lp_scan_core *c, uintptr_t addr)
{
    const uintptr_t *k = c->addrs;
    size_t lo = 0, n = c->nblocks;

    if (c->ndir) {
        /* Only blocks dir[r] - 1 .. dir[r + 1] - 1 can hold the last
         * address <= addr: a few, next to each other. */
        size_t r = (addr - c->min_addr) >> c->dir_shift;

        lo = c->dir[r] ? c->dir[r] - 1 : 0;
        n = c->dir[r + 1] - lo;
        if (n == 0 || k[lo] > addr)
            return -1;
    }
    /* The last address <= addr: a branch-free search over halving spans. */
    while (n > 1) {
        size_t half = n / 2;

        lo = k[lo + half] <= addr ? lo + half : lo;
        n -= half;
    }
    if (addr >= block_end(k[lo], &c->blocks[lo]))
        return -1;
    return (long)lo;
}

long lp_scan_core_find(const struct lp_scan_core *c, uintptr_t addr)
{
    if (c->nblocks == 0 || addr < c->addrs[0] || addr >= c->max_end)
        return -1;
    return find_block(c, addr);
}

/* --- heuristics ------------------------------------------------------ */

/* Does v look like a vtable pointer? See "Heuristics" above. */
static bool is_vtable(const struct lp_scan_core *c, uintptr_t v)
{
    const struct lp_scan_map *m;
    uintptr_t scan, last;
    unsigned fns = 0;

    if (v < PAGE || (v & (WORD - 1)) || c->maps == NULL)
        return false;
    m = map_of(c, v);
    if (m == NULL || (m->flags & (LP_SCAN_MAP_FILE | LP_SCAN_MAP_R)) !=
                         (LP_SCAN_MAP_FILE | LP_SCAN_MAP_R))
        return false;
    last = v + (VTABLE_MAX_CHECK - 1) * WORD;
    if (last > m->hi - WORD)
        last = m->hi - WORD;
    for (scan = v; scan <= last; scan += WORD) {
        uintptr_t fn = *(const uintptr_t *)scan;
        const struct lp_scan_map *fm;

        if (fn == 0)
            continue;
        fm = map_of(c, fn);
        if (fm == NULL || (fm->flags & (LP_SCAN_MAP_FILE | LP_SCAN_MAP_X)) !=
                              (LP_SCAN_MAP_FILE | LP_SCAN_MAP_X))
            return false;
        if (++fns == 2)
            return true;
    }
    return false;
}

static bool heur_on(const struct lp_scan_core *c, enum lp_heur h)
{
    return (c->heuristics >> h) & 1u;
}

/* The word at a, which lies in block b (at addr): read straight when the
 * whole block is readable (every block of a heap the scan can read), or
 * through the maps. Perl's arenas are reached through interior pointers
 * only, each tried by every heuristic: the map searches of those reads
 * were a fifth of its run (perl -e, a 300,000-key hash). The multiple-
 * inheritance test reads the block's first word before the one ptr
 * points at: the first is in the cache (every interior pointer into the
 * block reads it), the other a miss, needed only when the first is a
 * vtable. */
static inline bool read_in_block(const struct lp_scan_core *c,
                                 const struct lp_scan_block *b, uintptr_t addr,
                                 uintptr_t a, uintptr_t *out)
{
    if ((b->flags & BF_READABLE) && a >= addr && a + WORD <= addr + b->size &&
        !(a & (WORD - 1))) {
        *out = *(const uintptr_t *)a;
        return true;
    }
    return read_word(c, a, out);
}

/* Which heuristic, if any, accepts ptr as pointing to b (ptr != b->addr).
 * The order is Memcheck's. */
static enum lp_heur heuristic_for(const struct lp_scan_core *c,
                                  const struct lp_scan_block *b,
                                  uintptr_t addr, uintptr_t ptr)
{
    uintptr_t w0, w1;

    if (heur_on(c, LP_HEUR_STDSTRING) && ptr == addr + 3 * WORD &&
        read_in_block(c, b, addr, addr + WORD, &w1) &&
        3 * WORD + w1 + 1 == b->size &&
        read_in_block(c, b, addr, addr, &w0) && w0 <= w1)
        return LP_HEUR_STDSTRING;
    if (heur_on(c, LP_HEUR_LENGTH64) && ptr == addr + 8 &&
        read_in_block(c, b, addr, addr, &w0) && w0 > 0 && b->size - 8 == w0)
        return LP_HEUR_LENGTH64;
    if (heur_on(c, LP_HEUR_NEWARRAY) && ptr == addr + WORD &&
        read_in_block(c, b, addr, addr, &w0) && w0 > 0 &&
        (b->size - WORD) % w0 == 0)
        return LP_HEUR_NEWARRAY;
    if (heur_on(c, LP_HEUR_MULTIPLEINHERITANCE) && !(ptr & (WORD - 1)) &&
        !(addr & (WORD - 1)) && ptr + WORD <= addr + b->size &&
        read_in_block(c, b, addr, addr, &w0) && is_vtable(c, w0) &&
        read_in_block(c, b, addr, ptr, &w1) && is_vtable(c, w1))
        return LP_HEUR_MULTIPLEINHERITANCE;
    return LP_HEUR_NONE;
}

/* --- marking --------------------------------------------------------- */

static void push(struct lp_scan_core *c, uint32_t j)
{
    /* Each block is pushed at most twice while marking from the roots
     * (unreached->possible->reachable) and once in the clique pass, and
     * the stack is empty between passes, so 2n+2 slots always suffice. */
    LP_ASSERT(c->sp < c->stack_cap);
    c->stack[c->sp++] = j;
}

/* Block i (with its own ind[] entry, if any) joins the clique whose
 * leader is block l. */
static void join_clique(struct lp_scan_core *c, size_t i, uint32_t l)
{
    uint32_t own = c->link[i], *le = &c->link[l];
    uint64_t bytes = c->blocks[i].size, blocks = 1;

    if (own) { /* i led a clique before: it moves with it */
        bytes += c->ind[own].bytes;
        blocks += c->ind[own].blocks;
    }
    if (*le == 0) {
        /* The leader's first member: take over the member's entry, or
         * open one (each new entry uses up two blocks that had none). */
        *le = own ? own : (uint32_t)++c->nind;
        LP_ASSERT(*le < c->nblocks / 2 + 2);
        c->ind[*le].bytes = bytes;
        c->ind[*le].blocks = blocks;
    } else {
        c->ind[*le].bytes += bytes;
        c->ind[*le].blocks += blocks;
    }
    c->link[i] = l;
}

/* ptr was found in a root (definite) or in a popped block; clique is the
 * leader's index in the clique pass. */
static void hit(struct lp_scan_core *c, uintptr_t ptr, bool definite,
                uint32_t clique)
{
    struct lp_scan_block *b;
    uintptr_t addr;
    bool start_like;
    size_t i;
    long j;

    if (ptr - c->min_addr >= c->max_end - c->min_addr)
        return;
    j = find_block(c, ptr);
    if (j < 0)
        return;
    i = (size_t)j;
    b = &c->blocks[i];
    if (!(b->flags & BF_READABLE) && !addr_readable(c, ptr))
        return; /* a pointer to unreadable memory is not a pointer */

    if (clique != NO_CLIQUE) {
        if (b->state != ST_UNREACHED || (uint32_t)i == clique)
            return;
        b->state = ST_INDIRECT;
        join_clique(c, i, clique);
        push(c, (uint32_t)j);
        return;
    }

    addr = c->addrs[i];
    if (b->state == ST_REACHABLE) {
        if (b->heur != LP_HEUR_NONE && ptr == addr)
            b->heur = LP_HEUR_NONE;
        return;
    }
    if (ptr == addr) {
        start_like = true;
    } else if (c->heuristics) {
        /* Recorded even when it cannot make b reachable yet (Memcheck
         * does the same; a later start pointer does not clear it). */
        b->heur = (uint8_t)heuristic_for(c, b, addr, ptr);
        start_like = b->heur != LP_HEUR_NONE;
    } else {
        start_like = false;
    }
    if (start_like && definite) {
        b->state = ST_REACHABLE;
        push(c, (uint32_t)j);
    } else if (b->state == ST_UNREACHED) {
        b->state = ST_POSSIBLE;
        push(c, (uint32_t)j);
    }
}

static void scan_direct(struct lp_scan_core *c, uintptr_t lo, uintptr_t hi,
                        bool definite, uint32_t clique)
{
    for (; lo + WORD <= hi; lo += WORD)
        hit(c, *(const uintptr_t *)lo, definite, clique);
}

/* Scan [lo, hi) reading only what the maps call readable. */
static void scan_checked(struct lp_scan_core *c, uintptr_t lo, uintptr_t hi,
                         bool definite, uint32_t clique)
{
    if (c->maps == NULL) {
        scan_direct(c, lo, hi, definite, clique);
        return;
    }
    while (lo < hi) {
        const struct lp_scan_map *m = map_of(c, lo);
        uintptr_t end;

        if (m == NULL) {
            /* Skip to the next mapping above lo, if any. */
            size_t a = 0, b = c->nmaps;

            while (a < b) {
                size_t mid = a + (b - a) / 2;

                if (c->maps[mid].lo <= lo)
                    a = mid + 1;
                else
                    b = mid;
            }
            if (a == c->nmaps)
                return;
            lo = c->maps[a].lo;
            continue;
        }
        end = m->hi < hi ? m->hi : hi;
        if (m->flags & LP_SCAN_MAP_R)
            scan_direct(c, lo, end, definite, clique);
        lo = end;
    }
}

/* Scan [lo, hi) through process_vm_readv: a page that faults (PROT_NONE,
 * past the end of a file, unmapped behind our back) is skipped. */
static void scan_safe(struct lp_scan_core *c, uintptr_t lo, uintptr_t hi,
                      bool definite, uint32_t clique)
{
    uintptr_t buf[8 * PAGE / sizeof(uintptr_t)];

    while (lo < hi && !vm_readv_broken) {
        size_t want = hi - lo;
        struct iovec local, remote;
        ssize_t got;

        if (want > sizeof(buf))
            want = sizeof(buf);
        local.iov_base = buf;
        local.iov_len = want;
        remote.iov_base = (void *)lo;
        remote.iov_len = want;
        got = process_vm_readv(self_pid, &local, 1, &remote, 1, 0);
        if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
            vm_readv_broken = true;
            break;
        }
        if (got > 0) {
            size_t i, n = (size_t)got / WORD;

            for (i = 0; i < n; i++)
                hit(c, buf[i], definite, clique);
            lo += (size_t)got & ~(WORD - 1);
            if ((size_t)got == want)
                continue;
        }
        /* The page at lo faulted: skip it. */
        lo = (lo + PAGE) & ~(uintptr_t)(PAGE - 1);
    }
    if (lo < hi && vm_readv_broken)
        scan_checked(c, lo, hi, definite, clique);
}

static void scan_plain(struct lp_scan_core *c, uintptr_t lo, uintptr_t hi,
                       bool definite, uint32_t clique, bool safe)
{
    if (safe)
        scan_safe(c, lo, hi, definite, clique);
    else
        scan_checked(c, lo, hi, definite, clique);
}

/* Scan [lo, hi) of private anonymous memory (readable, word-aligned
 * bounds): only the pages that can hold anything (present.h); what the
 * kernel cannot tell about is read whole. */
struct sparse {
    struct lp_scan_core *c;
    bool definite, safe;
    uint32_t clique;
};

static void scan_run(uintptr_t lo, uintptr_t hi, void *arg)
{
    const struct sparse *sp = arg;

    scan_plain(sp->c, lo, hi, sp->definite, sp->clique, sp->safe);
}

static void scan_sparse(struct lp_scan_core *c, uintptr_t lo, uintptr_t hi,
                        bool definite, uint32_t clique, bool safe)
{
    struct sparse sp = {c, definite, safe, clique};
    uintptr_t rest;

    if (!lp_present_runs(lo, hi, scan_run, &sp, &rest))
        scan_plain(c, rest, hi, definite, clique, safe);
}

/* A big range: its parts in big private anonymous mappings sparsely, the
 * rest as before. */
static void scan_split(struct lp_scan_core *c, uintptr_t lo, uintptr_t hi,
                       bool definite, uint32_t clique, bool safe)
{
    size_t a = 0, b = c->nmaps;
    uintptr_t from = lo;

    while (a < b) { /* the first mapping ending above lo */
        size_t mid = a + (b - a) / 2;

        if (c->maps[mid].hi <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    for (; a < c->nmaps && c->maps[a].lo < hi; a++) {
        const struct lp_scan_map *m = &c->maps[a];
        uintptr_t x = m->lo > lo ? m->lo : lo, y = m->hi < hi ? m->hi : hi;

        if (!lp_present_applies(m->flags) ||
            y - x < LP_PRESENT_MIN)
            continue;
        if (x > from)
            scan_plain(c, from, x, definite, clique, safe);
        scan_sparse(c, x, y, definite, clique, safe);
        from = y;
    }
    if (from < hi)
        scan_plain(c, from, hi, definite, clique, safe);
}

static void scan_range(struct lp_scan_core *c, uintptr_t lo, uintptr_t hi,
                       bool definite, uint32_t clique, bool safe)
{
    lo = (lo + WORD - 1) & ~(uintptr_t)(WORD - 1);
    hi &= ~(uintptr_t)(WORD - 1);
    if (lo >= hi)
        return;
    if (c->maps && hi - lo >= LP_PRESENT_MIN)
        scan_split(c, lo, hi, definite, clique, safe);
    else
        scan_plain(c, lo, hi, definite, clique, safe);
}

static void process_stack(struct lp_scan_core *c, uint32_t clique)
{
    while (c->sp > 0) {
        size_t j = c->stack[--c->sp];
        uintptr_t addr = c->addrs[j];
        struct lp_scan_block *b = &c->blocks[j];
        bool definite = b->state != ST_POSSIBLE;

        if (c->safe_blocks)
            scan_range(c, addr, addr + b->size, definite, clique, true);
        else if ((b->flags & BF_SPARSE) && !(addr & (WORD - 1)))
            scan_sparse(c, addr, addr + (b->size & ~(WORD - 1)), definite,
                        clique, false);
        else if ((b->flags & BF_READABLE) && !(addr & (WORD - 1)))
            scan_direct(c, addr, addr + (b->size & ~(WORD - 1)), definite,
                        clique);
        else
            scan_range(c, addr, addr + b->size, definite, clique, false);
    }
}

/* --- the API ---------------------------------------------------------- */

/* True when all of [lo, hi) lies in readable mappings. The ranges come in
 * ascending order: *m is the first mapping that may still matter, moved
 * forward as they come (one walk, where a search per block cost more). */
static bool range_readable_from(const struct lp_scan_core *c, size_t *m,
                                uintptr_t lo, uintptr_t hi)
{
    size_t k;

    if (c->maps == NULL)
        return true;
    while (*m < c->nmaps && c->maps[*m].hi <= lo)
        (*m)++;
    for (k = *m; lo < hi; k++) {
        if (k == c->nmaps || c->maps[k].lo > lo ||
            !(c->maps[k].flags & LP_SCAN_MAP_R))
            return false;
        lo = c->maps[k].hi;
    }
    return true;
}

/* Whether [lo, hi) lies in private anonymous mappings only (it is
 * readable: range_readable_from said so). */
static bool range_private_anon(const struct lp_scan_core *c, uintptr_t lo,
                               uintptr_t hi)
{
    const struct lp_scan_map *m;

    if (c->maps == NULL)
        return false;
    while (lo < hi) {
        if ((m = map_of(c, lo)) == NULL || !lp_present_applies(m->flags))
            return false;
        lo = m->hi;
    }
    return true;
}

/* The directory over [min_addr, max_end): dir[r] is the index of the first
 * block at or above min_addr + (r << dir_shift), for r = 0 .. ndir - 1.
 * Regions are sized so that the directory fits in dir_cap entries (about
 * a region per two blocks); without room, no directory. */
static void build_dir(struct lp_scan_core *c)
{
    uintptr_t span = c->max_end - c->min_addr;
    unsigned shift = 4;
    size_t r, j = 0;

    c->ndir = 0;
    if (c->dir == NULL || c->nblocks == 0)
        return;
    while (shift < 63 && ((span - 1) >> shift) + 2 > c->dir_cap)
        shift++;
    if (((span - 1) >> shift) + 2 > c->dir_cap)
        return;
    c->dir_shift = shift;
    c->ndir = ((span - 1) >> shift) + 2;
    for (r = 0; r < c->ndir; r++) {
        uintptr_t start = c->min_addr + ((uintptr_t)r << shift);

        if (r > 0 && start < c->min_addr) /* past the top of memory */
            start = UINTPTR_MAX;
        while (j < c->nblocks && c->addrs[j] < start)
            j++;
        c->dir[r] = (uint32_t)j;
    }
}

void lp_scan_core_begin(struct lp_scan_core *c)
{
    size_t i, m = 0;

    c->sp = 0;
    c->nind = 0;
    lp_present_done(); /* one left open by a scan that did not finish */
    self_pid = (pid_t)syscall(SYS_gettid); /* per scan: fork, threads */
    c->min_addr = c->nblocks ? c->addrs[0] : 1;
    c->max_end = c->nblocks ? block_end(c->addrs[c->nblocks - 1],
                                        &c->blocks[c->nblocks - 1])
                            : 1;
    for (i = 0; i < c->nblocks; i++) {
        uintptr_t addr = c->addrs[i];
        struct lp_scan_block *b = &c->blocks[i];

        b->state = ST_UNREACHED;
        b->kind = LP_KIND_DEFINITE;
        b->heur = LP_HEUR_NONE;
        c->link[i] = 0;
        b->flags = range_readable_from(c, &m, addr, addr + b->size)
                       ? BF_READABLE
                       : 0;
        if ((b->flags & BF_READABLE) && b->size >= LP_PRESENT_MIN &&
            range_private_anon(c, addr, addr + b->size))
            b->flags |= BF_SPARSE;
    }
    build_dir(c);
}

void lp_scan_core_root(struct lp_scan_core *c, uintptr_t lo, uintptr_t hi)
{
    scan_range(c, lo, hi, true, NO_CLIQUE, c->safe_read);
    process_stack(c, NO_CLIQUE);
}

void lp_scan_core_root_words(struct lp_scan_core *c, const uintptr_t *w,
                             size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        hit(c, w[i], true, NO_CLIQUE);
    process_stack(c, NO_CLIQUE);
}

void lp_scan_core_finish(struct lp_scan_core *c)
{
    size_t i;

    /* Ascending address order decides who leads a lost cycle. */
    for (i = 0; i < c->nblocks; i++) {
        if (c->blocks[i].state != ST_UNREACHED)
            continue;
        push(c, (uint32_t)i);
        process_stack(c, (uint32_t)i);
    }
    lp_present_done();

    memset(c->kind_bytes, 0, sizeof(c->kind_bytes));
    memset(c->kind_blocks, 0, sizeof(c->kind_blocks));
    memset(c->heur_bytes, 0, sizeof(c->heur_bytes));
    memset(c->heur_blocks, 0, sizeof(c->heur_blocks));
    for (i = 0; i < c->nblocks; i++) {
        struct lp_scan_block *b = &c->blocks[i];

        switch (b->state) {
        case ST_REACHABLE:
            b->kind = LP_KIND_REACHABLE;
            break;
        case ST_POSSIBLE:
            /* b->heur stays: Memcheck counts a block whose last interior
             * pointer matched a heuristic under "of which reachable via
             * heuristic" even when it ends up possibly lost (seen with
             * 3.19: a length64 block reached from a possible block). */
            b->kind = LP_KIND_POSSIBLE;
            break;
        case ST_INDIRECT: {
            /* A member of an absorbed clique still names its first
             * leader; follow the chain to the surviving one. */
            uint32_t l = c->link[i];

            while (c->blocks[l].state == ST_INDIRECT) {
                /* Path halving: chains of absorbed leaders can be as
                 * long as a lost list (each node absorbing the last). */
                if (c->blocks[c->link[l]].state == ST_INDIRECT)
                    c->link[l] = c->link[c->link[l]];
                l = c->link[l];
            }
            c->link[i] = l;
            b->kind = LP_KIND_INDIRECT;
            b->heur = LP_HEUR_NONE;
            break;
        }
        default:
            b->kind = LP_KIND_DEFINITE;
            b->heur = LP_HEUR_NONE;
            break;
        }
        c->kind_bytes[b->kind] += b->size;
        c->kind_blocks[b->kind]++;
        if (b->heur != LP_HEUR_NONE) {
            c->heur_bytes[b->heur] += b->size;
            c->heur_blocks[b->heur]++;
        }
    }
}

/* --- clique links ------------------------------------------------------- */

static uint32_t leader_of(const struct lp_scan_block *blocks,
                          const uint32_t *link, size_t i)
{
    return blocks[i].kind == LP_KIND_INDIRECT ? link[i] : LP_SCAN_NO_LEADER;
}

static const struct lp_scan_ind *ind_of(const struct lp_scan_block *blocks,
                                        const uint32_t *link,
                                        const struct lp_scan_ind *ind,
                                        size_t i)
{
    static const struct lp_scan_ind none;

    if (blocks[i].kind != LP_KIND_DEFINITE || link[i] == 0)
        return &none;
    return &ind[link[i]];
}

uint32_t lp_scan_core_leader(const struct lp_scan_core *c, size_t i)
{
    return leader_of(c->blocks, c->link, i);
}

uint64_t lp_scan_core_indirect_bytes(const struct lp_scan_core *c, size_t i)
{
    return ind_of(c->blocks, c->link, c->ind, i)->bytes;
}

uint64_t lp_scan_core_indirect_blocks(const struct lp_scan_core *c, size_t i)
{
    return ind_of(c->blocks, c->link, c->ind, i)->blocks;
}

uint32_t lp_scan_leader(const struct lp_scan *sc, size_t i)
{
    return leader_of(sc->blocks, sc->link_, i);
}

uint64_t lp_scan_indirect_bytes(const struct lp_scan *sc, size_t i)
{
    return ind_of(sc->blocks, sc->link_, sc->ind_, i)->bytes;
}

uint64_t lp_scan_indirect_blocks(const struct lp_scan *sc, size_t i)
{
    return ind_of(sc->blocks, sc->link_, sc->ind_, i)->blocks;
}
