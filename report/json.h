/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_JSON_H
#define LP_REPORT_JSON_H
/*
 * json.h - the leak report as one JSON document (LEAKPROF_OPTIONS
 * log_format=json), plus the JSON primitives that sarif.c shares.
 *
 * Context: COLD (exit-time report, dumper thread, tools). Memory: plain
 * malloc, freed before return. Output goes through stdio; the first stream
 * error is returned.
 *
 * Document shape (format_version 1; numbers are JSON integers, addresses
 * are "0x..." strings, absent values are null):
 *
 * { "tool": "leakprof", "format_version": 1, "pid": 42,
 *   "leak_check": "full",
 *   "sample_bytes": 4096, "estimates": true,     (sampled runs only: every
 *                                   byte and block figure is an estimate)
 *   "heap_summary": { "in_use_bytes", "in_use_blocks", "allocs", "frees",
 *                     "bytes_allocated" },
 *   "leak_summary": { "definitely_lost": {"bytes","blocks"},
 *                     "indirectly_lost", "possibly_lost", "still_reachable",
 *                     "suppressed",
 *                     "reachable_via_heuristic": { "stdstring": {...}, ... } },
 *   "loss_records": [ { "number": 4, "of": 7, "kind": "definitely lost",
 *        "kind_id": "definite", "bytes": 96, "direct_bytes": 32,
 *        "indirect_bytes": 64, "blocks": 1, "indirect_blocks": 2,
 *        "suppressed": false, "suppression": null, "shown": true,
 *        "error": true,
 *        "stack": [ { "address": "0x4841...", "function": "malloc",
 *                     "mangled": "malloc", "file": null, "line": null,
 *                     "object": "/x/libleakprof.so", "inlined": false }, ...] } ],
 *   "errors": 1, "error_contexts": 1,
 *   "suppressed_errors": 3, "suppressed_contexts": 3 }
 *
 * Loss records are every record of the set (shown or not, suppressed or
 * not), numbered "number of of" in Memcheck's order (lp_leaks_sort).
 * "shown" is what the text report prints, "error" what counts for
 * error_exitcode (both per lp_leak_opts, full mode only). The leak summary
 * follows Memcheck: definite bytes are direct bytes only, suppressed
 * records are moved to "suppressed".
 */
#include <stdio.h>

#include "report/leaks.h"
#include "report/suppress.h"
#include "report/symbolize.h"

/*
 * Write the report. Sorts set. supp (may be NULL) names the suppression of
 * each suppressed record ("suppression": entry name; without supp, the
 * entry index as a number). Returns 0 or -errno.
 */
int lp_leaks_json(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                  const struct lp_leak_opts *opts);
int lp_leaks_json_supp(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                       const struct lp_leak_opts *opts,
                       const struct lp_supp *supp);

/*
 * Write s as a JSON string literal: quotes, backslash and control
 * characters escaped, valid UTF-8 passed through, each byte of an invalid
 * UTF-8 sequence written as U+FFFD. NULL is written as null.
 */
void lp_json_string(FILE *out, const char *s);

/* Length of the valid UTF-8 sequence at s (1..4), 0 when invalid. */
int lp_json_utf8_len(const unsigned char *s);

/*
 * The printed frames of a record (lp_leaks_frames with the record's ips
 * cut to opts->depth), in a malloc'ed array stored in *frames (free it).
 * Returns the count (0 with *frames == NULL for a record without ips), or
 * -ENOMEM.
 */
int lp_json_record_frames(struct lp_sym *sym, const struct lp_loss_record *r,
                          const struct lp_leak_opts *opts,
                          struct lp_sym_frame **frames);

/* Memcheck's kind text ("definitely lost") and option word ("definite"). */
const char *lp_json_kind_text(enum lp_kind kind);

#endif /* LP_REPORT_JSON_H */
