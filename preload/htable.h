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
/* Pointers are hashed by value with a full 64-bit finaliser (murmur3's):
 * uthash picks buckets from the low bits, and a plain multiplicative hash
 * leaves those poorly mixed for 16-byte-aligned addresses, which made
 * uthash give up expanding and chains grow long. */
#define HASH_FUNCTION(keyptr, keylen, hashv) \
    do { \
        uint64_t k_; \
        memcpy(&k_, (keyptr), sizeof(k_)); \
        k_ ^= k_ >> 33; \
        k_ *= 0xff51afd7ed558ccdull; \
        k_ ^= k_ >> 33; \
        k_ *= 0xc4ceb9fe1a85ec53ull; \
        k_ ^= k_ >> 33; \
        (hashv) = (unsigned)k_; \
    } while (0)

#include <string.h>
#include <uthash.h>

#endif /* LP_PRELOAD_HTABLE_H */
