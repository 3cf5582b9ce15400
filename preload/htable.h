/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_HTABLE_H
#define LP_PRELOAD_HTABLE_H
/*
 * htable.h - the only includer of <uthash.h>: its memory comes from our
 * arena, and running out of memory is not fatal (the insert is dropped).
 * Context: HOT.
 */
#include "preload/arena.h"

#define uthash_malloc(sz) lp_arena_alloc(sz)
#define uthash_free(ptr, sz) lp_arena_free((ptr), (sz))
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) \
    do { \
        htable_oom = true; \
    } while (0)
/* Pointers are hashed by value, with a multiplicative mix (fast, and the
 * low bits of malloc addresses are always zero). */
#define HASH_FUNCTION(keyptr, keylen, hashv) \
    do { \
        uint64_t k_; \
        memcpy(&k_, (keyptr), sizeof(k_)); \
        k_ *= 0x9E3779B97F4A7C15ull; \
        (hashv) = (unsigned)(k_ >> 32); \
    } while (0)

#include <string.h>
#include <uthash.h>

#endif /* LP_PRELOAD_HTABLE_H */
