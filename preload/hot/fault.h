/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_FAULT_H
#define LP_PRELOAD_FAULT_H
/*
 * fault.h - a seam for tests: make our own file creation, writing,
 * renaming or metadata memory fail on purpose, to check that a failure of
 * ours loses nothing the program owns and gives one warning; or make the
 * exit's copy that runs freeres hang (freeres_child.c), to check that it
 * is killed in time. Set by the option
 * fault_inject=open,write,rename,arena,freeres (for tests; not listed in
 * the README). Context: any (a plain load of a flag word).
 */
#include "preload/lp.h"

enum lp_fault_point {
    LP_FAULT_OPEN = 1u << 0,
    LP_FAULT_WRITE = 1u << 1,
    LP_FAULT_RENAME = 1u << 2,
    LP_FAULT_ARENA = 1u << 3,
    LP_FAULT_FREERES = 1u << 4,
};

extern unsigned lp_fault_mask;

static inline bool lp_fault(enum lp_fault_point p)
{
    return LP_UNLIKELY(lp_load_relaxed(&lp_fault_mask) & (unsigned)p);
}

#endif /* LP_PRELOAD_FAULT_H */
