/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_DEBUG_INFLATE_H
#define LP_REPORT_DEBUG_INFLATE_H
/*
 * debug_inflate.h - an uncompressed copy of a separate debug file, kept in
 * the cache directory by build-id, for libdwfl to map instead of
 * inflating the original in every process.
 *
 * Why: Debian's debug files (libc6-dbg, every -dbgsym) keep their DWARF
 * sections zlib-compressed (SHF_COMPRESSED). libdw inflates a section
 * into the process's own memory the first time it reads it: libc's
 * .debug_info, _abbrev, _line, _loclists, ... are 2.9 MB compressed and
 * 10 MB inflated, so every process that has to name one libc address the
 * symbol cache does not know yet spends the time of that inflate and of
 * faulting in 10 MB (a cold gcc -c: libz was 38% of the samples, once
 * per process). The copy is inflated once; every later process maps it
 * from the page cache, shared, touching only the pages it reads.
 *
 * The copy keeps the original's bytes where they were (program headers,
 * notes, symbol table and all uncompressed sections), appends each
 * compressed section inflated, and a new section header table pointing
 * at them: an ELF file libelf reads as the original, less the
 * compression. Written under a temporary name and renamed; named by the
 * whole build-id (BUILDID.dbg), which is what ties a debug file to its
 * object, so it is valid for any libleakprof.so build. Only zlib
 * sections are inflated (a file with others is left alone), and only
 * when they inflate to LP_INFLATE_MIN bytes or more. One process makes a
 * copy while the others that need it wait (BUILDID.dbg.lock), and the
 * location lists and macro tables, which nothing here reads, stay empty.
 * Context: COLD (report time, guard held). Memory: libc malloc; zlib is
 * reached through dlopen (libdw has loaded it by then).
 */
#include <stddef.h>

#define LP_INFLATE_MIN ((size_t)1 << 20)

/* The cache path of the copy for this build-id; 0, or -1 when there is
 * no cache directory (LEAKPROF_SYMCACHE=0, secure execution). */
int lp_debug_inflated_path(const unsigned char *id, int idlen, char *path,
                           size_t n);

/* Write the inflated copy of the ELF file open at fd to path. Returns an
 * fd of the copy (read-only, at its start), or -1 when the file needs no
 * copy (nothing compressed, or less than min bytes once inflated) or one
 * could not be made. fd is left open and unmoved. */
int lp_debug_inflate(int fd, const char *path, size_t min);

#endif /* LP_REPORT_DEBUG_INFLATE_H */
