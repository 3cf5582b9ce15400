/* SPDX-License-Identifier: MIT */
/*
 * sort.c - the scan's block addresses in ascending order.
 *
 * LSD radix sort, one byte a pass, skipping the bytes every key shares,
 * with a second array of n words (blocks.c: the block array, before it is
 * filled). blocks.c sorts keys that carry a block index below the
 * address offset, so that a sorted key also says where the block came
 * from.
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
