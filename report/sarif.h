/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_SARIF_H
#define LP_REPORT_SARIF_H
/*
 * sarif.h - the leak report as a SARIF 2.1.0 log (LEAKPROF_OPTIONS
 * sarif=PATH), for code-scanning UIs and CI annotations.
 *
 * Context: COLD. Memory: plain malloc, freed before return.
 *
 * One run; tool.driver "leakprof" with one rule per leak kind:
 *   leak/definite (default level error), leak/indirect, leak/possible,
 *   leak/reachable (warning)
 * and one result per loss record that is not suppressed and whose kind is
 * in opts->error_kinds (none with leak_check=no), in Memcheck's record
 * order:
 *   level      "error" for definitely lost, "warning" otherwise
 *   message    Memcheck's header without the record number:
 *              "20,480,000 bytes in 5,000 blocks are definitely lost"
 *   locations  the first frame in the program's own sources: a frame with
 *              file and line whose object is not under /usr/ or /lib
 *              (and is not opts->self_obj) and whose file is not under
 *              /usr/; without one, the first frame with a file and line;
 *              without that, a logical location (function name) only
 *   codeFlows  the whole stack, innermost first, as one threadFlow
 *   stacks     the same stack as SARIF stack frames (module, address)
 *   partialFingerprints.leakStack/v1  hash of kind + function names, so
 *              results stay the same result across runs (no addresses)
 *   properties bytes, directBytes, indirectBytes, blocks, lossRecord,
 *              lossRecords
 * File URIs: an absolute source path under srcroot is made relative to it
 * with uriBaseId "SRCROOT"; a bare file name (what the symbolizer gives
 * today) is taken as relative to SRCROOT; other absolute paths become
 * file:// URIs. srcroot may be NULL (then no uriBaseId is used).
 */
#include <stdio.h>

#include "report/leaks.h"
#include "report/symbolize.h"

#define LP_SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

/* Write the log. Sorts set. Returns 0 or -errno. */
int lp_leaks_sarif(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                   const struct lp_leak_opts *opts, const char *srcroot);

/*
 * Where a record's frames come from: store a malloc'ed array (the writer
 * frees it) in *frames and return the count, or a negative errno.
 * lp_leaks_sarif uses lp_json_record_frames; tools that read stacks from
 * a file, and tests, supply their own.
 */
typedef int (*lp_sarif_frames_fn)(void *ctx, const struct lp_loss_record *r,
                                  struct lp_sym_frame **frames);

int lp_leaks_sarif_frames(FILE *out, struct lp_leak_set *set,
                          const struct lp_leak_opts *opts, const char *srcroot,
                          lp_sarif_frames_fn frames_fn, void *ctx);

#endif /* LP_REPORT_SARIF_H */
