/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SCAN_SORT_H
#define LP_PRELOAD_SCAN_SORT_H
/*
 * scan_sort.h - sort the scan's blocks by address without allocating
 * through malloc: a radix sort of (address, index) keys in a private
 * mapping, then an in-place permutation; a heapsort when the mapping
 * cannot be had or n is small.
 * Context: COLD (world stopped).
 */
#include "preload/scan.h"

void lp_scan_sort_blocks(struct lp_scan_block *a, size_t n);

#endif /* LP_PRELOAD_SCAN_SORT_H */
