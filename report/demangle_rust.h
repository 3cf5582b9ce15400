/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_DEMANGLE_RUST_H
#define LP_REPORT_DEMANGLE_RUST_H
/*
 * demangle_rust.h - Rust's legacy and v0 symbol manglings, demangled as
 * Memcheck prints them (crate hashes and disambiguators left out).
 * Context: COLD.
 */

/* The demangled name (malloc'd, the caller frees it), or NULL when sym
 * is not a Rust symbol this understands whole. */
char *lp_rust_demangle(const char *sym);

#endif
