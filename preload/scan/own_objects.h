/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_OWN_OBJECTS_H
#define LP_PRELOAD_OWN_OBJECTS_H
/*
 * own_objects.h - the loaded objects whose memory is ours, not the
 * program's, so that no word in it is a root of the leak scan:
 *  - libleakprof.so itself (its .bss holds the unwinder's memos: rbp
 *    values copied off the program's stack);
 *  - libunwind, which only we load, unless an object of the program needs
 *    it too (then it is the program's as well, and Memcheck would scan
 *    it): its static caches keep copies of register values from our
 *    fallback walks. A python3 multiprocessing worker had a 1,294-byte
 *    block, and 27 more behind it, reachable through one such word;
 *  - every object our own dlopens added (foreign.h: the symbolizer's
 *    libdw and what it loads), read by a live report after the first.
 * Memcheck never has these objects in the process at all.
 *
 * Each range is the object's whole mapping, its last page included (the
 * loader ends it at the .bss's last byte; the rest of that page is the
 * object's too).
 * Context: COLD, before the threads are stopped: dl_iterate_phdr takes
 * the loader's lock, which a stopped thread could hold.
 */
#include <stddef.h>
#include <stdint.h>

struct lp_own_range {
    uintptr_t lo, hi;
};

/* The most ranges lp_own_objects() fills: us, libunwind, LP_FOREIGN_MAX. */
#define LP_OWN_OBJECTS_MAX 66

/* Fill out[] with the ranges (at most LP_OWN_OBJECTS_MAX); their count. */
size_t lp_own_objects(struct lp_own_range *out);

#endif /* LP_PRELOAD_OWN_OBJECTS_H */
