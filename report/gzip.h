/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_GZIP_H
#define LP_REPORT_GZIP_H
/*
 * gzip.h - write a valid gzip member (RFC 1952) without a compressor: the
 * data goes into deflate "stored" blocks (RFC 1951 3.2.4, BTYPE 00, at
 * most 65,535 bytes each), followed by the CRC-32 and the length. Every
 * gzip reader accepts it (gzip -d, Go's compress/gzip, zlib), which is
 * all pprof's profile format asks for; the file is a few bytes per 64 KiB
 * larger than its contents. No zlib: the dependency list is fixed.
 * Context: COLD.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CRC-32 as gzip and zlib compute it (reflected polynomial 0xEDB88320,
 * pre- and post-inverted). Start with crc = 0; feed pieces in order:
 * lp_crc32(lp_crc32(0, a, n), b, m) == lp_crc32(0, ab, n + m). */
uint32_t lp_crc32(uint32_t crc, const void *p, size_t n);

/* Write n bytes at p to f as one gzip member. Returns 0, or -EIO when a
 * write failed (errno tells more). */
int lp_gzip_write(FILE *f, const void *p, size_t n);

/* The size lp_gzip_write produces for n bytes of input. */
size_t lp_gzip_size(size_t n);

#endif /* LP_REPORT_GZIP_H */
