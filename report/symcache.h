/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_SYMCACHE_H
#define LP_REPORT_SYMCACHE_H
/*
 * symcache.h - what the symbolizer learnt about one object file, kept
 * across processes: a file per object build-id and libleakprof.so build
 * (OBJID.OURID12.sym) under $XDG_CACHE_HOME/leakprof (else
 * ~/.cache/leakprof) holding, per address offset in the object,
 * the resolved frames (function, linkage name, file, line, inlined) or
 * only the out-of-line function's name. A 20-process `make` then reads
 * the C library's compressed debug info once, not 20 times.
 *
 * A file is used only when its header matches this format's version, the
 * build-id of the symbolizer that wrote it (a rebuilt libleakprof.so
 * starts afresh) and the state of the object's separate debug file (size
 * and mtime of /usr/lib/debug/.build-id/xx/yyyy.debug, or its absence):
 * installing debug symbols invalidates it. A file whose sizes do not add
 * up is ignored whole, a record naming a string outside it is refused. Files are written to a temporary name (O_EXCL) and renamed into
 * place, mode 0666 & ~umask, the directory 0700; two processes racing
 * lose one's additions, never the file. Nothing is read or written in
 * secure execution (AT_SECURE) or with LEAKPROF_SYMCACHE=0.
 *
 * Context: COLD (report time; the caller holds the preload guard).
 * Memory: libc malloc.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report/symbolize.h"

/* One address: n >= 1 frames (frames[k].addr and .obj are not stored:
 * the reader sets them), or n == 0 with only fn (lp_sym_function). */
struct lp_symcache_rec {
    uint64_t off;
    int n;
    const char *fn;
    /* The caller's: room for LP_SYM_MAX_INLINE frames where a record is
     * read (get, find), the n frames where one is written. Not inline:
     * 64 frames are 4.6 KiB, and a writer merging a file's records into
     * an array of them faulted in and cleared that much per record
     * (python3's exit: a fifth of its page faults). */
    struct lp_sym_frame *frames;
};

/* The GNU build-id note of a loaded object, from its program headers in
 * memory, into out (64 bytes): its length, or 0 without one. */
struct dl_phdr_info;
int lp_symcache_build_id(const struct dl_phdr_info *info, unsigned char *out);

/* The cache directory, or NULL when there is no cache (disabled, secure
 * mode, no usable directory); *self_id (unless NULL): the first 12 hex
 * digits of this build's id, as file names carry them. Found once. */
const char *lp_symcache_where(const char **self_id);

/* A build-id as lower-case hex, NUL-terminated (out: 2n + 1 bytes). */
void lp_symcache_hex(const unsigned char *id, int n, char *out);

/* Create the directory that will hold path and the one above it (~/.cache
 * may not exist yet), both private; 0, or -1 with errno. */
int lp_symcache_make_dirs(const char *path);

/* The cache writers' and readers' I/O: all of size bytes at off (pread),
 * or written at the file offset, retrying short and interrupted calls;
 * false on an error or end of file. */
bool lp_symcache_read_at(int fd, void *buf, size_t size, off_t off);
bool lp_symcache_write_all(int fd, const void *buf, size_t size);

/* The cache file of an object with this build-id and the state of its
 * debug file, into path/state. Returns 0, or -1 when there is no cache
 * (disabled, secure mode, no usable directory, no build-id). */
int lp_symcache_locate(const unsigned char *id, int idlen, char *path,
                       size_t pathlen, char *state, size_t statelen);

/* One object's cache file, read into memory (NULL: missing, stale - its
 * state is not this one - or corrupt). Records are found by binary
 * search; their strings live as long as the handle. */
struct lp_symcache;
struct lp_symcache *lp_symcache_open(const char *path, const char *state);
void lp_symcache_close(struct lp_symcache *c);

/* The record at off: with frames (n >= 1) or, unless frames is set, the
 * function name alone (n == 0) when that is all the file has. False when
 * there is none or it is corrupt. */
bool lp_symcache_find(const struct lp_symcache *c, uint64_t off, bool frames,
                      struct lp_symcache_rec *r);

/* Every record in offset order, for a writer merging old and new. */
size_t lp_symcache_count(const struct lp_symcache *c);
/* Its offset and frame count (0: a name only) without reading it. */
bool lp_symcache_peek(const struct lp_symcache *c, size_t i, uint64_t *off,
                      int *n);
/* At least the frames of all its records together. */
size_t lp_symcache_frames_bound(const struct lp_symcache *c);
bool lp_symcache_get(const struct lp_symcache *c, size_t i,
                     struct lp_symcache_rec *r);

/* Write recs[0..n) (any order; of records with the same offset and kind
 * one is kept) as the new content of path. Returns 0 or -errno. */
int lp_symcache_write(const char *path, const char *state,
                      const struct lp_symcache_rec *const *recs, size_t n);

#endif /* LP_REPORT_SYMCACHE_H */
