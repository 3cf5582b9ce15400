/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_DEBUG_FIND_H
#define LP_REPORT_DEBUG_FIND_H
/*
 * debug_find.h - the symbolizer's find_debuginfo callback for libdwfl:
 * where a module's separate debug file is.
 *
 * In this order:
 *  1. The module's inflated copy in the cache directory (BUILDID.dbg,
 *     debug_inflate.h), when there is one.
 *  2. dwfl_standard_find_debuginfo, whose answer is replaced by a fresh
 *     inflated copy when it is worth one - but only when a local file may
 *     be there for it to find (the build-id directory, or one of the
 *     places it looks for the .gnu_debuglink name) or a debuginfod server
 *     is configured (DEBUGINFOD_URLS). With neither, its last resort is
 *     loading libdebuginfod only to be told there is no server: 25
 *     libraries (libcurl, gnutls, ldap, ...), 4.3-4.9 ms a process here,
 *     for each process that names an address of an object without debug
 *     information (cc1, every program of a distribution).
 *  3. A lookup for a module's alternate (dwz) file goes to libdwfl as is.
 * The path search is the default one (:.debug:/usr/lib/debug), which is
 * the only one the symbolizer uses.
 * Context: COLD (report time, guard held).
 */
#include <elfutils/libdwfl.h>
#include <stdbool.h>

int lp_debug_find(Dwfl_Module *mod, void **userdata, const char *modname,
                  Dwarf_Addr base, const char *file_name,
                  const char *debuglink_file, GElf_Word debuglink_crc,
                  char **debuginfo_file_name);

/* Whether libdwfl's local search could find a debug file for a module
 * with this build-id (NULL: none), main file and .gnu_debuglink name
 * (NULL: none): some file exists where it would look. */
bool lp_debug_local_candidate(const unsigned char *id, int idlen,
                              const char *file_name, const char *debuglink);

#endif /* LP_REPORT_DEBUG_FIND_H */
