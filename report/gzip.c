/* SPDX-License-Identifier: MIT */
/*
 * gzip.c - gzip members made of stored deflate blocks (gzip.h).
 * Context: COLD.
 */
#include "report/gzip.h"

#include <errno.h>

#define STORED_MAX 65535u

static uint32_t crc_table[256];
static int crc_ready;

/* The byte-at-a-time table for the reflected polynomial. Two threads may
 * build it at once; both write the same values before publishing. */
static void crc_init(void)
{
    uint32_t i, c;
    int k;

    for (i = 0; i < 256; i++) {
        c = i;
        for (k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        __atomic_store_n(&crc_table[i], c, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

uint32_t lp_crc32(uint32_t crc, const void *p, size_t n)
{
    const uint8_t *s = p;

    if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE))
        crc_init();
    crc = ~crc;
    while (n--)
        crc = crc_table[(crc ^ *s++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

size_t lp_gzip_size(size_t n)
{
    size_t blocks = n ? (n + STORED_MAX - 1) / STORED_MAX : 1;

    return 10 + blocks * 5 + n + 8;
}

static void le32(uint8_t *out, uint32_t v)
{
    out[0] = (uint8_t)v;
    out[1] = (uint8_t)(v >> 8);
    out[2] = (uint8_t)(v >> 16);
    out[3] = (uint8_t)(v >> 24);
}

int lp_gzip_write(FILE *f, const void *p, size_t n)
{
    /* ID1 ID2, CM = deflate, no flags, no mtime (a reproducible file),
     * XFL 0, OS 3 (Unix). */
    static const uint8_t header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
    const uint8_t *s = p;
    uint8_t hdr[5], trailer[8];
    size_t left = n;

    if (fwrite(header, 1, sizeof(header), f) != sizeof(header))
        return -EIO;
    do {
        size_t len = left < STORED_MAX ? left : STORED_MAX;

        /* BFINAL in bit 0, BTYPE 00; the rest of the byte is the padding
         * to the byte boundary where LEN and NLEN start. */
        hdr[0] = len == left ? 1 : 0;
        hdr[1] = (uint8_t)len;
        hdr[2] = (uint8_t)(len >> 8);
        hdr[3] = (uint8_t)~hdr[1];
        hdr[4] = (uint8_t)~hdr[2];
        if (fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
            (len && fwrite(s, 1, len, f) != len))
            return -EIO;
        s += len;
        left -= len;
    } while (left);
    le32(trailer, lp_crc32(0, p, n));
    le32(trailer + 4, (uint32_t)n); /* ISIZE: the length modulo 2^32 */
    if (fwrite(trailer, 1, sizeof(trailer), f) != sizeof(trailer))
        return -EIO;
    return 0;
}
