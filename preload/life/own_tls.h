/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_OWN_TLS_H
#define LP_PRELOAD_OWN_TLS_H
/*
 * own_tls.h - the bytes our TLS modules add to each thread's DTV, taken
 * out of the DTV calloc's recorded size (own_tls.c).
 */
#include "preload/lp.h"

/* 16 per TLS module loaded for us alone; 0: nothing to take out. */
extern unsigned lp_own_tls_bytes;
/* ld.so's mapping: the DTV calloc comes from there. */
extern uintptr_t lp_own_tls_rtld_lo, lp_own_tls_rtld_hi;

/* Find ld.so and count our TLS modules: at the first pthread_create,
 * before the thread exists (thread_registry.c). */
void lp_own_tls_init(void);
/* COLD, around a dlopen of ours: the TLS modules it added are ours. */
unsigned lp_own_tls_count_before(void);
void lp_own_tls_count_after(unsigned before);

/* The size to record for calloc(n, size) = total bytes made from caller:
 * a DTV (ld.so, 16-byte entries, at least the 16 glibc adds) without our
 * modules' entries. HOT: called only when size is 16. */
static inline size_t lp_own_tls_dtv_size(size_t n, size_t total,
                                         uintptr_t caller)
{
    unsigned extra = lp_load_relaxed(&lp_own_tls_bytes);

    if (extra && n >= 16 + extra / 16 && caller >= lp_own_tls_rtld_lo &&
        caller < lp_own_tls_rtld_hi)
        return total - extra;
    return total;
}

#endif /* LP_PRELOAD_OWN_TLS_H */
