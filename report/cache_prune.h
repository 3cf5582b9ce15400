/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_CACHE_PRUNE_H
#define LP_REPORT_CACHE_PRUNE_H
/*
 * cache_prune.h - keeping the cache directory (~/.cache/leakprof: symbol
 * files *.sym, unwind rules *.rules) bounded.
 *
 * Every object a program maps and every libleakprof.so build adds files
 * there, and nothing else ever takes one away: without a bound the
 * directory only grows (a developer machine that ran many builds of
 * leakprof held 3,212 files, 22 MB). A file is only an answer computed
 * before, so removing one costs at most one cold lookup later. The
 * inflated debug files (*.dbg, debug_inflate.h) belong to no build and
 * are bounded by size alone; libc's takes 14 MB.
 *
 * The rules, applied at most once a day per directory (the stamp file
 * prune.stamp says when it last ran; a process that writes a cache file
 * asks at exit):
 *  - a temporary file (*.tmp.PID) a day old is a writer that died;
 *  - a file of another libleakprof.so build (its 12-digit build-id in
 *    the name) not used for LP_CACHE_OTHER_DAYS days goes;
 *  - then, while the files left take more than LP_CACHE_MAX_BYTES, the
 *    least recently used go until they take at most 3/4 of it.
 * "Used": the later of the file's modification and access times (Linux
 * updates the access time of a file read at most once a day by default:
 * relatime). Only files named as the cache names them are ever touched.
 * Context: COLD (exit, after a cache write). Memory: libc malloc.
 */
#include <stdint.h>
#include <time.h>

#define LP_CACHE_MAX_BYTES ((uint64_t)128 << 20)
#define LP_CACHE_OTHER_DAYS 30

struct lp_cache_prune_stats {
    unsigned kept, removed;
    uint64_t kept_bytes, removed_bytes;
};

/* One pass over dir as of now, with a size bound; self12: this build's
 * 12-digit id (files with it are never removed for their build). 0, or
 * -errno when dir cannot be read. */
int lp_cache_prune(const char *dir, const char *self12, time_t now,
                   uint64_t max_bytes, struct lp_cache_prune_stats *st);

/* The pass above with the defaults, unless prune.stamp in dir is less
 * than a day old (it is renewed first, so concurrent exits do not all
 * scan). Once per process. */
void lp_cache_prune_maybe(const char *dir, const char *self12);

#endif /* LP_REPORT_CACHE_PRUNE_H */
