/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SCAN_H
#define LP_PRELOAD_SCAN_H
/*
 * classify.h - the reachability scan: which live blocks are still reachable,
 * possibly lost, indirectly lost or definitely lost, exactly in Memcheck's
 * sense (see the essay at the top of classify.c).
 *
 * Two layers:
 *  - lp_scan_run() is the whole thing for the running process: snapshot
 *    the live-block table, stop the other threads, collect the root set
 *    from /proc/self/maps and the threads' registers and stacks, mark,
 *    classify, resume the threads. Context: COLD; the caller holds the
 *    guard (exit path, dumper thread). Scans are serialised internally.
 *  - The classify core (lp_scan_core_*) works on any sorted block array and
 *    any root ranges; it never looks at /proc and is what the unit tests
 *    drive on synthetic memory. Context: COLD, no allocation, no locks.
 *
 * Memory: lp_scan_run() maps its arrays with mmap (never the heap, never
 * the arena, whose lock a stopped thread may hold); lp_scan_release()
 * unmaps them. Those mappings are excluded from the root set.
 */
#include "preload/lp.h"
#include "report/leaks.h"

/* One live block and its verdict: 24 bytes. Its address is in an array of
 * its own (the core's addrs[]: the binary search of every scanned word
 * runs over 8 bytes a block, not over whole blocks), its clique link in
 * another (lp_scan_leader(), lp_scan_indirect_*()): the scan's copy of a
 * million blocks stays small. */
struct lp_scan_block {
    size_t size;          /* requested size; 0 counts as a 1-byte range */
    uint64_t time;        /* allocated at (table.h: lp_block_time, _gen) */
    uint32_t stack_id;    /* allocation stack, copied from the table */
    uint8_t kind;         /* enum lp_kind */
    uint8_t heur;         /* enum lp_heur: the heuristic that accepted
                             the last interior pointer to a REACHABLE or
                             POSSIBLE block (else NONE). Memcheck counts
                             both in "of which reachable via heuristic";
                             so do kind/heur counters below. */
    uint8_t state;        /* private to the core */
    uint8_t flags;        /* private to the core */
};

/* What a clique leader (a DEFINITE block) owns: the blocks indirectly
 * lost through it. Only leaders that own something have one. */
struct lp_scan_ind {
    uint64_t bytes;
    uint64_t blocks;
};

#define LP_SCAN_NO_LEADER UINT32_MAX

/* All Memcheck heuristics (its default in 3.19). */
#define LP_SCAN_HEUR_ALL \
    ((1u << LP_HEUR_STDSTRING) | (1u << LP_HEUR_LENGTH64) | \
     (1u << LP_HEUR_NEWARRAY) | (1u << LP_HEUR_MULTIPLEINHERITANCE))

/* The result of one scan. blocks[] is in address order. */
struct lp_scan {
    struct lp_scan_block *blocks;
    size_t nblocks;
    const uint32_t *link_;          /* private: lp_scan_leader() */
    const struct lp_scan_ind *ind_; /* private: lp_scan_indirect_*() */
    uint64_t kind_bytes[LP_KIND_COUNT], kind_blocks[LP_KIND_COUNT];
    uint64_t heur_bytes[LP_HEUR_COUNT], heur_blocks[LP_HEUR_COUNT];
    unsigned threads_stopped;   /* other threads parked during the scan */
    unsigned threads_timed_out; /* threads that never answered the stop
                                   signal: their whole stack was a root */
    /* private */
    void *map_, *link_map_;
    size_t map_len_, link_map_len_;
};

/* Block i's clique leader (an index into blocks[]) when it is INDIRECT,
 * else LP_SCAN_NO_LEADER. */
uint32_t lp_scan_leader(const struct lp_scan *sc, size_t i);
/* For a DEFINITE block: the bytes and blocks indirectly lost through it
 * (0 for any other block). */
uint64_t lp_scan_indirect_bytes(const struct lp_scan *sc, size_t i);
uint64_t lp_scan_indirect_blocks(const struct lp_scan *sc, size_t i);

/*
 * Exit path / dumper usage, in this order, holding the guard:
 *     struct lp_scan sc;
 *     if (lp_scan_run(&sc) == 0) {     (stops and resumes the threads)
 *         ... group sc.blocks[] by (kind, stack_id); a DEFINITE block's
 *         lp_scan_indirect_bytes/_blocks go into its record; copy
 *         sc.heur_bytes/heur_blocks into the LEAK SUMMARY ...
 *         lp_scan_release(&sc);
 *     }
 * Call it before anything frees program blocks on the way out and after
 * main returned (lp_process.exit_sp set), from the exiting thread.
 *
 * Scan the running process. Fills *out (zeroed first) and returns 0, or a
 * negative errno (-ENOMEM when a mapping fails; *out is then empty). The
 * process's other threads are stopped for the duration and resumed before
 * this returns. Call lp_scan_release() when done with *out.
 */
int lp_scan_run(struct lp_scan *out);
/* The same for the exit's final check: from the moment the threads are
 * stopped nothing is tracked any more (lp_state DONE), and the scan
 * consumes the live-block table to keep the exit's memory peak down
 * (blocks.h, lp_scan_blocks_drain). Once only, at the very end. */
int lp_scan_run_final(struct lp_scan *out);
void lp_scan_release(struct lp_scan *out);

/* --- The classify core --------------------------------------------- */

/* A mapping of the address space, as far as the core needs to know it:
 * readable or not (unreadable targets are not pointers, unreadable words
 * are not scanned) and whether it is file-backed and readable/executable
 * (the multipleinheritance heuristic's vtable test). */
#define LP_SCAN_MAP_R 1u
#define LP_SCAN_MAP_W 2u
#define LP_SCAN_MAP_X 4u
#define LP_SCAN_MAP_FILE 8u
#define LP_SCAN_MAP_SHARED 16u /* MAP_SHARED ('s' in /proc/self/maps) */
struct lp_scan_map {
    uintptr_t lo, hi; /* [lo, hi) */
    unsigned flags;
};

struct lp_scan_core {
    /* Input, set by the caller before lp_scan_core_begin(). */
    struct lp_scan_block *blocks; /* in address order, non-overlapping */
    const uintptr_t *addrs;       /* blocks[i]'s address, ascending */
    size_t nblocks;
    uint32_t *link;               /* nblocks entries: INDIRECT: its
                                     leader's index; else its ind[] entry
                                     (>= 1), or 0 */
    struct lp_scan_ind *ind;      /* >= nblocks / 2 + 2 entries (ind[0]
                                     unused): each new entry takes a leader
                                     and a first member that had none */
    const struct lp_scan_map *maps; /* sorted; NULL: all memory readable,
                                       nothing file-backed */
    size_t nmaps;
    unsigned heuristics;          /* set of 1u << LP_HEUR_* */
    bool safe_read;               /* read root ranges with
                                     process_vm_readv (never faults) */
    bool safe_blocks;             /* read blocks that way too (some thread
                                     may still run and unmap them) */
    uint32_t *stack;              /* mark stack, >= 2 * nblocks + 2 slots */
    uint32_t *dir;                /* optional: room for the address
                                     directory that speeds up the search
                                     of every scanned word, */
    size_t dir_cap;               /* dir_cap entries (nblocks / 2 + 2) */
    size_t stack_cap;
    /* Output counters, filled by lp_scan_core_finish(). */
    uint64_t kind_bytes[LP_KIND_COUNT], kind_blocks[LP_KIND_COUNT];
    uint64_t heur_bytes[LP_HEUR_COUNT], heur_blocks[LP_HEUR_COUNT];
    /* private */
    size_t sp, nind, ndir;
    unsigned dir_shift;
    uintptr_t min_addr, max_end;
};

/* Mark every block unreached. */
void lp_scan_core_begin(struct lp_scan_core *c);
/* Scan the aligned words of [lo, hi) as roots and propagate. */
void lp_scan_core_root(struct lp_scan_core *c, uintptr_t lo, uintptr_t hi);
/* Scan n words held by the caller (saved registers) as roots. */
void lp_scan_core_root_words(struct lp_scan_core *c, const uintptr_t *w,
                             size_t n);
/* Clique pass over the unreached blocks, then kinds and counters. */
void lp_scan_core_finish(struct lp_scan_core *c);

/* After lp_scan_core_begin(): index of the block containing addr (a
 * 0-byte block covers 1 byte), or -1. */
long lp_scan_core_find(const struct lp_scan_core *c, uintptr_t addr);
/* After lp_scan_core_finish(): as lp_scan_leader() and
 * lp_scan_indirect_*() for the scan's result. */
uint32_t lp_scan_core_leader(const struct lp_scan_core *c, size_t i);
uint64_t lp_scan_core_indirect_bytes(const struct lp_scan_core *c, size_t i);
uint64_t lp_scan_core_indirect_blocks(const struct lp_scan_core *c, size_t i);

/* For the fork protocol (preload/life/fork.c) only: the lock lp_scan_run
 * holds while it runs. */
void lp_scan_lock(void);
void lp_scan_unlock(void);
void lp_scan_atfork_child(void);

#endif /* LP_PRELOAD_SCAN_H */
