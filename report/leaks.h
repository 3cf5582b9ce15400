/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_LEAKS_H
#define LP_REPORT_LEAKS_H
/*
 * leaks.h - the leak report: data model and Memcheck-style text writer.
 *
 * preload/ fills a struct lp_leak_set (one loss record per leak kind and
 * allocation stack, already classified by the reachability scan) and
 * hands it here; this module sorts the records as Memcheck does, prints
 * HEAP SUMMARY, loss records and LEAK SUMMARY in Memcheck's exact layout
 * (../shared/FORMATS.md section 3), and counts errors.
 *
 * Context: COLD. Memory: plain malloc (the caller holds the guard).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/symbolize.h"

/* Ordered as Memcheck sorts kinds within equal byte counts. */
enum lp_kind {
    LP_KIND_REACHABLE = 0,
    LP_KIND_POSSIBLE,
    LP_KIND_INDIRECT,
    LP_KIND_DEFINITE,
    LP_KIND_COUNT
};
#define LP_KIND_BIT(k) (1u << (k))
#define LP_KINDS_ALL 0xfu
#define LP_KINDS_DEFAULT (LP_KIND_BIT(LP_KIND_DEFINITE) | LP_KIND_BIT(LP_KIND_POSSIBLE))

/* Memcheck's leak-check heuristics; NONE means a plain start pointer. */
enum lp_heur {
    LP_HEUR_NONE = 0,
    LP_HEUR_STDSTRING,
    LP_HEUR_LENGTH64,
    LP_HEUR_NEWARRAY,
    LP_HEUR_MULTIPLEINHERITANCE,
    LP_HEUR_COUNT
};

enum lp_leak_check { LP_CHECK_NO = 0, LP_CHECK_SUMMARY, LP_CHECK_FULL };

struct lp_loss_record {
    enum lp_kind kind;
    uint32_t stack_id;       /* allocation context, in creation order */
    const uintptr_t *ips;    /* ips[0]: pc inside our allocator hook;   */
    unsigned nips;           /* ips[1..]: return addresses, outward     */
    uint64_t bytes;          /* direct bytes of the blocks */
    uint64_t blocks;
    uint64_t indirect_bytes; /* definite records only: bytes of the blocks
                                indirectly lost through these blocks */
    uint64_t indirect_blocks;
    int supp;                /* -1, or the suppression entry that matched */
    /* Live reports ("increased"/"changed"): the same record's numbers at
     * the previous search; all zero the first time. */
    uint64_t old_bytes, old_blocks, old_indirect_bytes;
};

struct lp_leak_set {
    int pid;
    uint64_t in_use_bytes, in_use_blocks;
    uint64_t allocs, frees, bytes_allocated;
    uint64_t heur_bytes[LP_HEUR_COUNT], heur_blocks[LP_HEUR_COUNT];
    struct lp_loss_record *recs;
    size_t nrecs;
};

struct lp_leak_opts {
    enum lp_leak_check leak_check;
    unsigned show_kinds;     /* LP_KIND_BIT set */
    unsigned error_kinds;    /* LP_KIND_BIT set */
    bool gen_suppressions;   /* print a .supp block after each record */
    const char *self_obj;    /* path of libleakprof.so: printed "(in obj)" */
    int depth;               /* frames per record, default 30 */
    bool live;               /* live (SIGUSR1) report: monitor wording,
                                no HEAP SUMMARY, deltas vs old_* */
};

/* Sort records in Memcheck's order (total bytes, kind, blocks, stack_id). */
void lp_leaks_sort(struct lp_leak_set *set);

/*
 * Symbolize a record's stack as Memcheck prints it: ips[0] as is, the rest
 * at return address - 1, inlined callers expanded, cut after main (below
 * main hidden), at most max frames. Returns the number of frames written.
 */
int lp_leaks_frames(struct lp_sym *sym, const uintptr_t *ips, unsigned nips,
                    struct lp_sym_frame *out, int max);

/* Number of error contexts (unsuppressed records of an error kind, full
 * mode only). */
unsigned lp_leaks_errors(const struct lp_leak_set *set,
                         const struct lp_leak_opts *opts);

/*
 * Write HEAP SUMMARY, loss records and LEAK SUMMARY, plus the trailer
 * (rerun hints and ERROR SUMMARY), each line prefixed "==PID== ".
 * Sorts set first. Returns 0 or -errno from the stream.
 */
int lp_leaks_print(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                   const struct lp_leak_opts *opts);

/* Commify as Memcheck does: 20480000 -> "20,480,000". Returns buf. */
char *lp_commify(uint64_t v, char *buf, size_t n);

#endif /* LP_REPORT_LEAKS_H */
