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
 * order. Frames of our own library (opts->self_obj, by path or real path,
 * or any libleakprof.so* object: the malloc / operator new hooks) appear
 * nowhere; the first one's function name becomes properties.allocator.
 *   level      "error" for definitely lost, "warning" otherwise
 *   message    Memcheck's header without the record number:
 *              "20,480,000 bytes in 5,000 blocks are definitely lost"
 *   locations  the first frame in the program's own sources: a frame with
 *              file and line whose object is not under /usr/ or /lib and
 *              not libc, libstdc++, libgcc_s or the loader (allocation
 *              wrappers such as strdup), and whose file is not under
 *              /usr/; without one, the first frame with a line outside
 *              those libraries; then the first frame with a line; then a
 *              logical location (function name) only
 *   codeFlows  the whole stack, innermost first, as one threadFlow
 *   stacks     the same stack as SARIF stack frames (module, address)
 *   partialFingerprints
 *              leakStack/v2: hash of the kind and each frame's function,
 *              file base name and line (no addresses, so the same leak
 *              keeps its print across runs; two leaks in one function
 *              differ); leakSite/v1: the location's "uri:line"
 *   properties bytes, directBytes, indirectBytes, blocks, lossRecord,
 *              lossRecords, allocator
 * File URIs: a frame's source is its DWARF path (lp_sym_frame.path, made
 * absolute against its comp_dir, "." and ".." resolved), else its file
 * name. %SRCROOT% is srcroot when given, else the comp_dir that most
 * results' locations were compiled in (the top of the checkout for a
 * build run there), given as run.originalUriBaseIds; a path under it is
 * written relative to it with uriBaseId "SRCROOT" (src/util/list.c);
 * other absolute paths become file:// URIs; a bare file name (frames
 * without a path) is taken as relative to SRCROOT when there is one.
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
