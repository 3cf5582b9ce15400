/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_SUPPRESS_H
#define LP_REPORT_SUPPRESS_H
/*
 * suppress.h - leak suppressions: Valgrind .supp entries and LSan `leak:`
 * lines, loaded from files, matched against symbolized loss-record stacks,
 * and counted for the `-s` style usage report.
 *
 * Context: COLD. Called at exit (or from the dumper thread) by a thread
 * that holds the preload guard, and by tools. One struct lp_supp is used
 * by one thread at a time. Memory: plain malloc, released by
 * lp_supp_free(). No global mutable state.
 *
 * How the exit-time report uses it (see also ../shared/FORMATS.md 3.7/3.8):
 *
 *     struct lp_supp *s = lp_supp_new();
 *     lp_supp_add_builtin(s);                  // lowest priority, first
 *     for each suppressions= file:
 *         if (lp_supp_load(s, path, err, sizeof err) < 0)
 *             print "==PID== leakprof: <err>" once; the file is ignored
 *     for each loss record r (after the scan, before printing):
 *         n = lp_leaks_frames(sym, r->ips, r->nips, frames, max);
 *         r->supp = lp_supp_match(s, r->kind, frames, n);
 *         if (r->supp >= 0) {
 *             lp_supp_note_use(s, r->supp, r->bytes, r->blocks);
 *             if (lp_supp_is_lsan(s, r->supp))
 *                 also drop the blocks this record's blocks own indirectly
 *                 (LSan rule); under a Valgrind entry they stay
 *                 "indirectly lost" (Memcheck rule)
 *         }
 *     ... print the report ...
 *     lp_supp_print_used(s, out, pid);         // with -s / print_suppressions
 *     lp_supp_free(s);
 *
 * Priority when several entries match one stack: Valgrind entries are
 * tried first, in Valgrind's own order (the most recently loaded entry
 * first, and every entry that matched moves to the front, so the entry
 * credited and the order of used_suppression lines are Valgrind's); LSan
 * lines are tried only when no Valgrind entry matched, frame by frame
 * from the innermost, first line in load order, as LSan does.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/leaks.h"
#include "report/symbolize.h"

struct lp_supp;

/* Most frames a Valgrind entry may have, as in Valgrind. Stacks longer
 * than this are matched on their first LP_SUPP_MAX_FRAMES frames. */
#define LP_SUPP_MAX_FRAMES 500

/* An empty set. NULL when out of memory. */
struct lp_supp *lp_supp_new(void);
void lp_supp_free(struct lp_supp *supp);

/*
 * Parse one suppression file and append its entries. A file may hold
 * Valgrind entries and LSan `leak:PATTERN` lines, in any mix; blank lines
 * and `#` comment lines are skipped, every line is trimmed of leading and
 * trailing white space. Entries of tools other than Memcheck are skipped;
 * Memcheck entries of kinds other than Leak are accepted and ignored.
 *
 * Returns the number of entries added (>= 0), or -1 with err holding
 * "FILE:LINE: what is wrong" (or "cannot open 'FILE': reason"). On error
 * nothing from the file is kept.
 */
int lp_supp_load(struct lp_supp *supp, const char *path, char *err,
                 size_t errlen);

/* As lp_supp_load, from a NUL-terminated string; name stands for the
 * file name in errors and in used_suppression lines. */
int lp_supp_load_string(struct lp_supp *supp, const char *name,
                        const char *text, char *err, size_t errlen);

/*
 * Built-in entries (file name "<builtin>") for one-time runtime
 * allocations that an empty C or C++ program would otherwise report:
 * dynamic TLS blocks of dlopen'ed modules (__tls_get_addr), libstdc++'s
 * exception emergency pool when __gnu_cxx::__freeres could not release
 * it, and stdio buffers (freed by __libc_freeres under Valgrind). Each
 * is restricted to the kinds Memcheck would not report as lost. Add them
 * before loading user files so that user entries take priority. Returns
 * the number added, or -1 (out of memory).
 */
int lp_supp_add_builtin(struct lp_supp *supp);
/* The same, less what no freeres of Valgrind's would have freed, which
 * Memcheck shows: libc_freed false leaves out lp-stdio-buffer and
 * lp-libstdcxx-eh-pool (a process dying of a signal: Valgrind frees
 * nothing then); cxx_freed false, lp-libstdcxx-eh-pool (no
 * __gnu_cxx::__freeres bound at start: a libstdc++ that came by dlopen). */
int lp_supp_add_builtin_for(struct lp_supp *supp, bool libc_freed,
                            bool cxx_freed);

/*
 * Opt-in: the DTV that glibc allocates in pthread_create for each thread
 * still alive at exit (one possibly lost 272..304-byte block per thread
 * under Memcheck, which reports it: not part of lp_supp_add_builtin).
 */
int lp_supp_add_builtin_threads(struct lp_supp *supp);

/* The text of the built-in entries, in .supp syntax that Valgrind also
 * reads (threads: the lp_supp_add_builtin_threads set instead). */
const char *lp_supp_builtin_text(bool threads);

/*
 * Valgrind keeps only the first --num-callers frame lines of an entry
 * (measured: with --num-callers=2 an entry "malloc, make_block, <wrong>"
 * matches). Pass leakprof's depth= here to do the same; 0 (the default)
 * keeps every line.
 */
void lp_supp_set_max_callers(struct lp_supp *supp, int n);

/* Number of entries loaded (indices are 0..count-1, in load order). */
int lp_supp_count(const struct lp_supp *supp);

/* Entry name: the Valgrind entry's name line, or the LSan pattern. */
const char *lp_supp_name(const struct lp_supp *supp, int idx);

/* File name (as given to lp_supp_load) and line of the entry's name line
 * (Valgrind) or of the `leak:` line (LSan). */
const char *lp_supp_file(const struct lp_supp *supp, int idx, int *line);

/*
 * The entry that suppresses a loss record of kind `kind` whose symbolized
 * stack is frames[0..n) (innermost first, inlined frames expanded, as
 * lp_leaks_frames returns it), or -1.
 *
 * Valgrind entry: its frame patterns match a prefix of the stack, from
 * frames[0] outward; `...` matches any number of frames; fun: globs the
 * mangled name (fn when mangled is NULL, "???" when neither), obj: the
 * object path, src: the source file (and line when given);
 * match-leak-kinds filters by kind (default all kinds).
 * LSan line: matches when any frame's fn, file or obj contains PATTERN
 * (`*` any text, `^`/`$` anchors), for every kind.
 */
int lp_supp_match(struct lp_supp *supp, enum lp_kind kind,
                  const struct lp_sym_frame *frames, int n);
/*
 * Matching on the first frames only, so that a stack is symbolized whole
 * only where an entry may match it. lp_supp_prefix_len: how many leading
 * frames the leak entries' patterns name before their first `...` (the
 * most of any entry), or -1 when an LSan line is in the set (it may match
 * any frame). lp_supp_prefix_may_match: false when, from the first n
 * frames of a stack (n = lp_supp_prefix_len, or all of a shorter stack),
 * no entry of the kind can match it; true when lp_supp_match must decide.
 */
int lp_supp_prefix_len(const struct lp_supp *supp);
bool lp_supp_prefix_may_match(const struct lp_supp *supp, enum lp_kind kind,
                              const struct lp_sym_frame *frames, int n);

/* The Memcheck:Free entry that matches a heap error's stack (frames as
 * for lp_supp_match), or -1. */
int lp_supp_match_free(struct lp_supp *supp, const struct lp_sym_frame *frames,
                       int n);

/* Record that entry idx suppressed one loss record of the given size.
 * For a Valgrind entry this also moves it to the front, as Valgrind
 * does. */
void lp_supp_note_use(struct lp_supp *supp, int idx, uint64_t bytes,
                      uint64_t blocks);

/* Use counters: records suppressed (Valgrind count), bytes, blocks. */
void lp_supp_get_use(const struct lp_supp *supp, int idx, uint64_t *records,
                     uint64_t *bytes, uint64_t *blocks);

/* True when entry idx is an LSan `leak:` line: a suppressed leak then
 * also hides what it indirectly owns. False for Valgrind entries. */
bool lp_supp_is_lsan(const struct lp_supp *supp, int idx);

/* The entry at position i of Memcheck's used list (most recently used
 * first, as lp_supp_print_used_valgrind lists them), or -1 past its end. */
int lp_supp_used_at(const struct lp_supp *supp, int i);

/*
 * The usage report.
 * Valgrind entries that were used, most recently used first, one line
 * each, exactly as `valgrind -s` prints them:
 *   --PID-- used_suppression:      2 NAME FILE:LINE suppressed: 200 bytes in 2 blocks
 * (Memcheck frames them: after the first ERROR SUMMARY it prints
 * "--PID-- ", these lines, "==PID== " and the ERROR SUMMARY again; when no
 * suppression was used it prints none of that.)
 * Then, if any LSan line was used, LSan's table (count = blocks):
 *   -----------------------------------------------------
 *   Suppressions used:
 *     count      bytes template
 *         2        200 make_block
 *   -----------------------------------------------------
 *   (empty line)
 * Returns the number of entries listed, or -errno from the stream.
 */
int lp_supp_print_used(const struct lp_supp *supp, FILE *out, int pid);

/* Only the Valgrind part / only the LSan table of the above. */
int lp_supp_print_used_valgrind(const struct lp_supp *supp, FILE *out,
                                int pid);
int lp_supp_print_used_lsan(const struct lp_supp *supp, FILE *out);

/*
 * Print the --gen-suppressions=all block for a record, exactly as
 * Memcheck does (no ==PID== prefix, 3-space indent):
 *   {
 *      <insert_a_suppression_name_here>
 *      Memcheck:Leak
 *      match-leak-kinds: definite
 *      fun:malloc            (mangled name; obj:PATH without a name;
 *      ...                    obj:* when the object is unknown too)
 *   }
 * frames are the record's printed frames (lp_leaks_frames: cut after
 * main, inlined frames expanded), so that loading the block back
 * suppresses exactly that record, here and under Valgrind.
 * Returns 0 or -errno from the stream.
 */
int lp_supp_gen(FILE *out, enum lp_kind kind, const struct lp_sym_frame *frames,
                int n);
/* The same for a heap error (Memcheck:Free, no match-leak-kinds line). */
int lp_supp_gen_free(FILE *out, const struct lp_sym_frame *frames, int n);

/* Memcheck's word for a kind in match-leak-kinds: "definite" ... */
const char *lp_supp_kind_word(enum lp_kind kind);

/*
 * Parse a kind SET as Memcheck's options take it: comma-separated from
 * definite, indirect, possible, reachable; or "all"; or "none".
 * Returns 0 and the LP_KIND_BIT set in *out, or -1.
 */
int lp_supp_parse_kinds(const char *set, unsigned *out);

/* Glob as Valgrind's suppression patterns: `*` any run, `?` one char. */
bool lp_supp_glob(const char *pattern, const char *str);

/* LSan's template match: substring, `*`, `^` and `$` anchors. */
bool lp_supp_lsan_match(const char *templ, const char *str);

#endif /* LP_REPORT_SUPPRESS_H */
