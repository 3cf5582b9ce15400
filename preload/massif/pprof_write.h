/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_PPROF_WRITE_H
#define LP_PRELOAD_PPROF_WRITE_H
/*
 * pprof_write.h - the pprof= output: the stack table's per-stack counters
 * as a gzipped profile.proto (report/pprof.h), at exit and on each
 * snapshot signal.
 *
 * Sample types, in this order (Go's and gperftools' names, so
 * `go tool pprof -sample_index=inuse_space` means what users expect):
 *   alloc_objects/count  allocation calls from the stack, whole run
 *   alloc_space/bytes    bytes they asked for
 *   inuse_objects/count  blocks from the stack live now (at exit: in use
 *   inuse_space/bytes    at exit, as the HEAP SUMMARY counts them)
 * then ours:
 *   temp_objects/count   temporary allocations: blocks freed by their
 *                        thread before it allocated anything else
 *                        (heaptrack's definition)
 *   peak_space/bytes     bytes live at massif's peak snapshot (0 without
 *                        massif=)
 *   leaked_objects/count blocks definitely or indirectly lost at the
 *   leaked_space/bytes   last leak search (the exit report; on a
 *                        snapshot signal, that signal's live report)
 * default_sample_type is inuse_space. With sample_bytes=N each stack's
 * figures are scaled back to the whole heap (see pprof_write.c).
 *
 * Stacks keep our allocator entry point (malloc, calloc, operator new,
 * ...) as the leaf location, so -raw and -traces show which function was
 * called; the profile's drop_frames names those functions, so pprof
 * prunes them when it loads the file and -top, -list and the flame graph
 * charge the allocation to its call site, as they do for gperftools'
 * heap profiles.
 *
 * Context: COLD, guard held (the exit path, the dumper thread).
 */
#include "preload/lp.h"

/* Write the pprof= file: seq 0 at exit (the path as configured, %p
 * expanded), seq N for the Nth snapshot signal (path.N). Does nothing
 * without pprof=. Failures give one diagnostic line. */
void lp_pprof_write_file(unsigned seq);

#endif /* LP_PRELOAD_PPROF_WRITE_H */
