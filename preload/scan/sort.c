/* SPDX-License-Identifier: MIT */
/*
 * sort.c - the scan's block addresses in ascending order.
 *
 * LSD radix sort, one byte a pass, skipping the bytes every key shares,
 * with a second array of n words (blocks.c: the block array, before it is
 * filled). blocks.c sorts keys that carry a block index below the
 * address offset, so that a sorted key also says where the block came
 * from. The final check sorts its copy of the blocks with their addresses
 * in place (lp_scan_sort_pairs): no scratch at all.
 * Context: COLD (the leak scan, other threads stopped: no malloc).
 */
#include "preload/scan/sort.h"

#include <string.h>

void lp_scan_sort_addrs(uintptr_t *k, uintptr_t *t, size_t n)
{
    uintptr_t *in = k, *out = t, *sw;
    size_t i, shift;

    if (n < 2)
        return;
    for (shift = 0; shift < sizeof(uintptr_t) * 8; shift += 8) {
        size_t count[256] = {0}, sum = 0, d;

        for (i = 0; i < n; i++)
            count[(in[i] >> shift) & 255]++;
        if (count[(in[0] >> shift) & 255] == n)
            continue; /* every address has this byte: order unchanged */
        for (d = 0; d < 256; d++) {
            size_t c = count[d];

            count[d] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            out[count[(in[i] >> shift) & 255]++] = in[i];
        sw = in;
        in = out;
        out = sw;
    }
    if (in != k)
        memcpy(k, in, n * sizeof(*k));
}

/* Pairs (k[i], b[i]) move together. */
static inline void swap_pair(uintptr_t *k, struct lp_scan_block *b, size_t i,
                             size_t j)
{
    uintptr_t tk = k[i];
    struct lp_scan_block tb = b[i];

    k[i] = k[j];
    b[i] = b[j];
    k[j] = tk;
    b[j] = tb;
}

#define SMALL_RUN 24

static void insertion_sort_pairs(uintptr_t *k, struct lp_scan_block *b,
                                 size_t n)
{
    size_t i, j;

    for (i = 1; i < n; i++) {
        uintptr_t tk = k[i];
        struct lp_scan_block tb;

        if (k[i - 1] <= tk)
            continue;
        tb = b[i];
        for (j = i; j > 0 && k[j - 1] > tk; j--) {
            k[j] = k[j - 1];
            b[j] = b[j - 1];
        }
        k[j] = tk;
        b[j] = tb;
    }
}

/*
 * MSD radix sort in place (American flag sort), one byte a level from the
 * byte at shift down: each pair is swapped straight into its byte's bucket
 * (256 write positions, each moving forward: close to a streaming pass),
 * then each bucket is sorted on the next byte; short runs by insertion.
 * 2 KiB of stack a level, two or three levels for a heap's addresses (the
 * report may run on a small thread stack).
 */
static void flag_sort(uintptr_t *k, struct lp_scan_block *b, uint32_t n,
                      int shift)
{
    uint32_t next[256], end[256], i, sum, start;
    unsigned d;

    while (n > SMALL_RUN && shift >= 0) {
        memset(end, 0, sizeof(end)); /* the counts, first */
        for (i = 0; i < n; i++)
            end[(k[i] >> shift) & 255]++;
        if (end[(k[0] >> shift) & 255] == n) {
            shift -= 8; /* every key has this byte */
            continue;
        }
        for (d = 0, sum = 0; d < 256; d++) {
            next[d] = sum;
            sum += end[d];
            end[d] = sum;
        }
        for (d = 0; d < 256; d++)
            while (next[d] < end[d]) {
                unsigned x = (unsigned)(k[next[d]] >> shift) & 255;

                if (x == d)
                    next[d]++;
                else
                    swap_pair(k, b, next[d], next[x]++);
            }
        if (shift == 0)
            return;
        for (d = 0, start = 0; d < 256; start = end[d], d++)
            if (end[d] - start > 1)
                flag_sort(k + start, b + start, end[d] - start, shift - 8);
        return;
    }
    insertion_sort_pairs(k, b, n);
}

void lp_scan_sort_pairs(uintptr_t *k, struct lp_scan_block *b, size_t n)
{
    uintptr_t diff = 0;
    size_t i;
    int top;

    if (n < 2 || n > UINT32_MAX)
        return; /* the scan indexes blocks with 32 bits: never so many */
    for (i = 1; i < n; i++)
        diff |= k[i] ^ k[0];
    if (diff == 0)
        return;
    top = 63 - __builtin_clzll(diff); /* the highest bit that differs */
    flag_sort(k, b, (uint32_t)n, top & ~7);
}
