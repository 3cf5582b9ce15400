/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FD_GUARD_H
#define LP_PRELOAD_FD_GUARD_H
/*
 * fd_guard.h - the program's close, close_range, closefrom, dup2 and dup3,
 * interposed so that they never take our private stderr duplicate
 * (diag.c) away, as Valgrind keeps its descriptors out of the client's
 * reach. Context: BOOT (lp_fd_guard_init), then any (the hooks).
 */
#include <stdbool.h>

/* Look the real functions up (dlsym: at start, guard held). */
void lp_fd_guard_init(void);

/* The parts of [first, last] without fd (first <= last): up to two ranges
 * into lo[] and hi[]; returns how many. */
static inline int lp_fd_guard_split(unsigned first, unsigned last,
                                    unsigned fd, unsigned lo[2],
                                    unsigned hi[2])
{
    int n = 0;

    if (fd < first || fd > last) {
        lo[0] = first;
        hi[0] = last;
        return 1;
    }
    if (fd > first) {
        lo[n] = first;
        hi[n++] = fd - 1;
    }
    if (fd < last) {
        lo[n] = fd + 1;
        hi[n++] = last;
    }
    return n;
}

#endif /* LP_PRELOAD_FD_GUARD_H */
