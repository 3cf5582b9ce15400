/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_PPROF_READ_H
#define LP_REPORT_PPROF_READ_H
/*
 * pprof_read.h - read a pprof profile (profile.proto, gzipped or not: ours
 * from pprof=, Go's, gperftools' converted by pprof) into allocation sites
 * (sites.h), for leakprint --flamegraph and --html.
 *
 * Sample types become costs by their names: alloc_objects -> calls,
 * alloc_space -> bytes allocated, inuse_space -> live at exit,
 * temp_objects -> temporary, peak_space -> live at peak, leaked_space ->
 * leaked; other types are ignored. Each location's lines give the frames
 * (inlined ones included, innermost first) as "fn (file:line)"; the
 * profile's drop_frames expression is applied as pprof applies it (from
 * the outermost frame in, the first match and everything inside it are
 * dropped), so our allocator hooks leave the stacks. Samples with equal
 * stacks stay separate sites (the flame graph merges them).
 * Context: COLD (leakprint). Needs zlib for gzipped input.
 */
#include <stddef.h>

#include "report/sites.h"

/* True when the file starts like a pprof profile (gzip magic, or a
 * protobuf whose first field is a sample_type). */
int lp_pprof_sniff(const char *path);

/* Read path into *out (lp_sites_init'ed here). Returns 0, or -1 with a
 * one-line message in err naming the file. */
int lp_pprof_read_sites(const char *path, struct lp_sites *out, char *err,
                        size_t errlen);

#endif /* LP_REPORT_PPROF_READ_H */
