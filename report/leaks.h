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
#include "report/line_writer.h"
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
    /* Ages: massif's byte time (bytes allocated+freed since start) at
     * which the oldest and the newest block were allocated; 0 unknown. */
    uint64_t first_time, last_time;
    /* Live reports ("increased"/"changed"): the same record's numbers at
     * the previous search; all zero the first time. */
    uint64_t old_bytes, old_blocks, old_indirect_bytes;
};

/*
 * The LEAK SUMMARY numbers of one search. bytes/blocks per kind count the
 * unsuppressed records (direct bytes only); supp_* the suppressed ones;
 * heur_* are copied from the set. A live report prints deltas against
 * the previous search's totals (struct lp_leak_set.old).
 */
struct lp_leak_totals {
    uint64_t bytes[LP_KIND_COUNT], blocks[LP_KIND_COUNT];
    uint64_t supp_bytes, supp_blocks;
    uint64_t heur_bytes[LP_HEUR_COUNT], heur_blocks[LP_HEUR_COUNT];
};

struct lp_leak_set {
    int pid;
    uint64_t in_use_bytes, in_use_blocks;
    uint64_t allocs, frees, bytes_allocated;
    uint64_t heur_bytes[LP_HEUR_COUNT], heur_blocks[LP_HEUR_COUNT];
    struct lp_loss_record *recs;
    size_t nrecs;
    /* Errors found before the leak search (invalid and mismatched frees):
     * they join the leak errors in ERROR SUMMARY (exit report only). */
    unsigned other_errors, other_contexts;
    unsigned other_supp_errors, other_supp_contexts; /* of those, suppressed */
    /* Live reports only: lp_leaks_totals() of the previous search, all
     * zero the first time (Memcheck's first search compares with zero).
     * Records that vanished since then may stay in recs with bytes =
     * blocks = 0 and their old_* numbers, as Memcheck keeps them: they
     * are numbered, and printed only in LP_DELTA_CHANGED mode. */
    struct lp_leak_totals old;
};

/* Which records a live report prints (Memcheck's monitor command
 * `leak_check ... increased|changed|any`; increased is its default). */
enum lp_live_delta {
    LP_DELTA_INCREASED = 0, /* records that grew, with (+N) deltas */
    LP_DELTA_CHANGED,       /* records that changed either way, with deltas */
    LP_DELTA_ANY,           /* every record with blocks, no deltas */
};

struct lp_leak_opts {
    enum lp_leak_check leak_check;
    unsigned show_kinds;     /* LP_KIND_BIT set */
    unsigned error_kinds;    /* LP_KIND_BIT set */
    bool gen_suppressions;   /* print a .supp block after each record */
    const char *self_obj;    /* path of libleakprof.so: printed "(in obj)" */
    int depth;               /* frames per record, default 30 */
    bool live;               /* live (SIGUSR1) report: monitor wording,
                                no HEAP SUMMARY, no ERROR SUMMARY,
                                deltas vs old_* and set->old */
    enum lp_live_delta live_delta; /* live only; zero = increased */
    bool list_suppressions;  /* Memcheck's -s: no "rerun with: -s" hint;
                                the caller lists used suppressions */
    /* The exit report's preamble (not printed in live mode): */
    const char *command;     /* argv, NUL-separated; NULL/0: no preamble */
    size_t command_len;
    int parent_pid;          /* > 0: a "Parent PID: N" line */
    bool quiet;              /* Memcheck's -q: loss records only */
    uint64_t sample_bytes;   /* non-zero: sampled run, figures are
                                estimates; the preamble says so */
    const char *warning;     /* exit report, non-NULL: a "Warning: ..."
                                line after the preamble, where Valgrind
                                prints what it met during the run */
    /* Live only: the header line (lp_leaks_print); live_seq 0 prints
     * none. The dumper fills these in for each snapshot signal. */
    unsigned live_seq;       /* N: the Nth snapshot signal, massif.out.PID.N */
    int live_signo;          /* the snapshot signal, 0 if unknown */
    uint64_t live_ms;        /* milliseconds since the process started */
    const char *live_massif; /* the heap profile written on this signal,
                                NULL when none is written (massif=0) */
    /* live_since=last: the records hold only the blocks allocated after
     * the previous signal's report (byte time live_since_time); a second
     * header line says so. */
    bool live_since;
    unsigned live_since_seq; /* the previous report's signal number */
    uint64_t live_since_time;
    /* The exit report of a process dying of a signal: Memcheck's
     * "Process terminating with default action of signal N (SIGX)" with
     * the detail of a fault the kernel raised and where the thread was
     * (fatal_ips[0] the interrupted instruction, then return addresses).
     * fatal_signo 0: none. */
    int fatal_signo;
    int fatal_code;       /* si_code */
    uintptr_t fatal_addr; /* si_addr */
    const uintptr_t *fatal_ips;
    unsigned fatal_nips;
    uint64_t main_stack_bytes; /* named in a SIGSEGV's stack advice */
    /* The main thread's stack could not grow to this page: Memcheck's
     * "Stack overflow in thread #1" line, before the block and in it
     * (0: none). */
    uintptr_t fatal_overflow_page;
};

/* Memcheck's defaults (full, definite+possible shown and errors, depth
 * 30): what the writers use when given NULL options. */
extern const struct lp_leak_opts lp_leak_opts_default;

/* Sort records in Memcheck's order (total bytes, kind, blocks, stack_id). */
void lp_leaks_sort(struct lp_leak_set *set);

/*
 * Symbolize a record's stack as Memcheck prints it: ips[0] as is, the rest
 * at return address - 1, inlined callers expanded, cut after main (below
 * main hidden), at most max frames. Returns the number of frames written.
 *
 * Details, as Memcheck (--show-below-main=no) does them:
 *  - ips[0] is a pc inside our allocator hook: it gives exactly one frame,
 *    the out-of-line function (the hook's exported name, e.g. "malloc",
 *    "operator new(unsigned long)"), never the hook's inlined helpers;
 *  - the stack is cut after the first ip (from the outside in) whose
 *    function is main; with no main, after the innermost below-main
 *    function; thread stacks (start_thread, clone) are kept whole;
 *  - below-main functions print as LP_SYM_BELOW_MAIN, fn and mangled;
 *  - inlined callers do not count against nips (Memcheck's num-callers
 *    limits ips, not printed lines), but do count against max.
 * sym may be NULL: every frame is then "???".
 */
/* How many of a stack's nips ips to give lp_leaks_frames for depth
 * frames: depth, or one more when the program's own operator new is
 * shown folded into our hook's frame (as Memcheck shows it). */
unsigned lp_leaks_nips(struct lp_sym *sym, const uintptr_t *ips, unsigned nips,
                       int depth);

int lp_leaks_frames(struct lp_sym *sym, const uintptr_t *ips, unsigned nips,
                    struct lp_sym_frame *out, int max);

/* Number of error contexts (unsuppressed records of an error kind, full
 * mode only). Each record is one error from one context, so this is both
 * E and C of "ERROR SUMMARY: E errors from C contexts", and what an
 * error_exitcode check compares with 0. Records with 0 blocks are not
 * counted (in live mode: records the delta mode does not consider). */
unsigned lp_leaks_errors(const struct lp_leak_set *set,
                         const struct lp_leak_opts *opts);

/* The "(suppressed: S from S)" count: suppressed records that would
 * otherwise count as errors (full mode, kind in error_kinds). A
 * suppressed record of another kind only moves into the summary's
 * "suppressed:" line, as Memcheck does. */
unsigned lp_leaks_suppressed_errors(const struct lp_leak_set *set,
                                    const struct lp_leak_opts *opts);

/* Fill *t with the LEAK SUMMARY numbers of set (see lp_leak_totals). A
 * live reporter stores this after printing and passes it back as
 * set->old next time. */
void lp_leaks_totals(const struct lp_leak_set *set, struct lp_leak_totals *t);

/* Only the preamble (our tool line, Command:, Parent PID:), for a process
 * whose first output is not the leak report (a heap error): it is printed
 * once, before anything else, as Memcheck prints its own at start. */
int lp_leaks_print_preamble(FILE *out, int pid, const struct lp_leak_opts *o);

/*
 * Write HEAP SUMMARY, loss records and LEAK SUMMARY, plus the trailer
 * (rerun hints and ERROR SUMMARY), each line prefixed "==PID== ".
 * Sorts set first. Returns 0 or -errno from the stream.
 *
 * With a command, the text starts with our preamble where Memcheck has
 * its own: "leakprof-VERSION, a memory leak checker and heap profiler",
 * "Command: ARGS" quoted as Memcheck quotes it (lp_leaks_command),
 * "Parent PID: N" when parent_pid > 0, and an empty "==PID== " line.
 * Then an empty "==PID== " line, then "HEAP SUMMARY:", i.e. what
 * Memcheck prints after the program's own output. Then, as Memcheck 3.19
 * does:
 *  - leak_check=no: "For a detailed leak analysis, rerun with:
 *    --leak-check=full" + empty line;
 *  - no blocks in use: "All heap blocks were freed -- no leaks are
 *    possible" + empty line;
 *  - otherwise (full) the shown records, each followed by an empty line
 *    and, with gen_suppressions, a suppression block without prefix;
 *    then LEAK SUMMARY (heuristic lines when heur_blocks != 0), hint
 *    lines, empty line;
 *  - "For lists of detected and suppressed errors, rerun with: -s" and
 *    "ERROR SUMMARY: E errors from E contexts (suppressed: S from S)".
 * A record is shown when full, its kind is in show_kinds, it has blocks
 * and it is not suppressed; "i of n" counts every record.
 * Quiet (Memcheck's -q): only the shown records, the first preceded by
 * the Command: line (so a log still says whose leaks they are), and the
 * ERROR SUMMARY line only with list_suppressions; nothing at all when no
 * record is shown.
 * Live mode: when live_seq > 0 it starts with one header line instead,
 *   "Live leak check N on SIGUSR1, 12.34 s after start; heap profile
 *   massif.out.PID.N" (or "; no heap profile"); no HEAP SUMMARY and no
 * trailer; records chosen by live_delta, numbers followed by " (+N)"/
 * " (-N)" except in LP_DELTA_ANY, as Memcheck's monitor command
 * `leak_check` prints them; but the hints under LEAK SUMMARY are the
 * exit-time report's ("Rerun with --leak-check=full ..."), leakprof's
 * own options, never the vgdb monitor command's arguments, which mean
 * nothing here. leak_check=no is treated as summary there.
 * opts == NULL means Memcheck's defaults (full, definite+possible).
 * Not thread-safe with respect to sym (see symbolize.h).
 */
int lp_leaks_print(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                   const struct lp_leak_opts *opts);

/* Quote argv (NUL-separated, len bytes) as Memcheck's Command: line
 * does: arguments joined by one space; space, '<', '>' and '\\' escaped
 * with a backslash; control bytes and bytes >= 0x80 printed as '_'.
 * Returns out (truncated to n - 1 characters). */
char *lp_leaks_command(const char *args, size_t len, char *out, size_t n);

/* Commify as Memcheck does: 20480000 -> "20,480,000". Returns buf
 * (truncated to n - 1 characters; 27 bytes hold any uint64_t). */
char *lp_commify(uint64_t v, char *buf, size_t n);

#endif /* LP_REPORT_LEAKS_H */
