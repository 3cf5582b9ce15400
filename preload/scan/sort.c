/* SPDX-License-Identifier: MIT */
/*
 * sort.c - the scan's block snapshot in address order, built inside
 * its own buffer.
 *
 * The buffer holds n blocks of sizeof(struct lp_scan_block) (40) bytes.
 * The caller first writes the n addresses (8 bytes each) at its start;
 * they are radix sorted (LSD, one byte a pass, skipping the bytes every
 * address shares) with the next 8n bytes as the second buffer, then the
 * blocks are filled from the last to the first: block i covers bytes
 * [40i, 40i + 40), which hold only addresses j >= 5i, already used. So
 * the sorted snapshot costs 40 bytes a block and no other memory: before
 * it, (address, index) keys in a mapping of their own cost 32 more bytes a
 * block at the exit peak (24 MB at 750,000 live blocks), and their
 * permutation of whole blocks was as slow as the lookups done here.
 * Context: COLD (the leak scan, other threads stopped: no malloc).
 */
#include "preload/scan/sort.h"

#include <string.h>

_Static_assert(sizeof(struct lp_scan_block) >= 2 * sizeof(uintptr_t),
               "the radix sort's two key buffers live in the block buffer");

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

void lp_scan_sort_fill(struct lp_scan_block *a, size_t n,
                       void (*fill)(uintptr_t addr, struct lp_scan_block *out,
                                    void *arg),
                       void *arg)
{
    uintptr_t *keys = (uintptr_t *)a;
    size_t i;

    lp_scan_sort_addrs(keys, keys + n, n);
    for (i = n; i-- > 0;) {
        uintptr_t addr = keys[i]; /* read before block i covers it */

        fill(addr, &a[i], arg);
    }
}
