/* SPDX-License-Identifier: MIT */
#ifndef LP_SCAN_PROC_MAPS_H
#define LP_SCAN_PROC_MAPS_H
/*
 * proc_maps.h - /proc/self/maps for the leak scan (proc_maps.c): read
 * into a scan buffer, parsed in place, looked up by address.
 * Context: COLD (the leak scan; no malloc: all memory comes from mmap).
 */
#include "preload/scan/blocks.h"
#include "preload/scan/classify.h"

/* What we know about one line of /proc/self/maps besides its range. */
struct lp_pmap {
    const char *path; /* into the maps buffer, NUL-terminated; "" if none */
    uint64_t offset;
};

/* The whole text of /proc/self/maps into text (grown as needed), its
 * length in *len; 0 or -errno. */
int lp_proc_maps_read(struct lp_scan_buf *text, size_t *len);

/* Parse the text in place into maps[] / info[] (at most cap lines);
 * returns the count. */
size_t lp_proc_maps_parse(char *text, struct lp_scan_map *maps,
                          struct lp_pmap *info, size_t cap);

/* Index of the mapping holding a (maps sorted, as the kernel lists
 * them), or -1. */
long lp_proc_maps_index(const struct lp_scan_map *maps, size_t n,
                        uintptr_t a);

#endif /* LP_SCAN_PROC_MAPS_H */
