/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LP_H
#define LP_PRELOAD_LP_H
/*
 * lp.h - base macros shared by every preload/ file.
 * Context: any.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define LP_LIKELY(x) __builtin_expect(!!(x), 1)
#define LP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LP_NOINLINE __attribute__((noinline))
#define LP_COLD __attribute__((cold, noinline))
#define LP_EXPORT __attribute__((visibility("default")))
/* No __thread here: per-thread state lives in preload/hot/tcb_slot.h. */
#define LP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Relaxed/acquire/release atomics: the only spelling used in preload/. */
#define lp_load_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define lp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define lp_store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define lp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define lp_add_relaxed(p, v) __atomic_add_fetch((p), (v), __ATOMIC_RELAXED)
#define lp_sub_relaxed(p, v) __atomic_sub_fetch((p), (v), __ATOMIC_RELAXED)
#define lp_xchg_acq_rel(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)
#define lp_cas(p, expp, v) \
    __atomic_compare_exchange_n((p), (expp), (v), false, __ATOMIC_ACQ_REL, \
                                __ATOMIC_ACQUIRE)

/* A 64-bit finalizer (MurmurHash3's fmix64): every bit of the address
 * moves every bit of the hash; for the open-addressing tables of
 * addresses (the block table, the recently-freed lanes). */
static inline uint64_t lp_hash_addr(uintptr_t a)
{
    uint64_t k = a;

    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* Push node onto a lock-free, push-only list (nodes are never removed:
 * readers walk it from an acquire load of the head). */
#define lp_list_push(headp, node)                            \
    do {                                                     \
        (node)->next = lp_load_relaxed(headp);               \
        while (!lp_cas((headp), &(node)->next, (node)))      \
            ;                                                \
    } while (0)

/*
 * What the hooks' fast paths read, in one cache line and so in one page:
 * the init state, the threaded flag, whether a hook only forwards, the
 * sampler's free filter and the real malloc and free. Spread over six
 * lines of five pages (lp_config alone is five pages), the first load of
 * each hook was half its samples in a sampled storm: a miss of the
 * first-level TLB, which the storm's heap keeps full. The function
 * fields are copies (init.c: lp_hot_set), written once before init_state
 * first says ready; the pass fields then and once more when the program
 * gets its second thread.
 */
struct lp_hot_line {
    int init_state;   /* init.c: 2 when the hooks may track */
    bool threaded;    /* lp_threaded: the program has a second thread */
    uint8_t *sample_filter; /* sample.h */
    /* The forwarding paths' verdicts, one field each (track.h), set by
     * lp_hot_pass_update from the options (sampling, no malloc_fill or
     * free_fill) and lp_threaded: a malloc of fewer bytes may only
     * forward (0: none may), and the filter a free asks (NULL: none). */
    uint64_t pass_below;
    uint8_t *pass_filter;
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void (*free)(void *);
} __attribute__((aligned(64))); /* the line alone: nothing else on it */
extern struct lp_hot_line lp_hot __attribute__((visibility("hidden")));
#define lp_threaded (lp_hot.threaded)

/*
 * Counters that only the program's threads update. Until the program has a
 * second thread (thread_registry.c sets lp_threaded before creating it), no other
 * thread can update them, so a relaxed load and store replace the locked
 * read-modify-write: on x86 that is a plain add instead of a lock-prefixed
 * one, on every allocation of a single-threaded program. Readers (the
 * dumper thread) use relaxed loads either way, so nothing is torn.
 */
static inline uint64_t lp_count_add(uint64_t *p, uint64_t v)
{
    uint64_t n;

    if (lp_load_relaxed(&lp_threaded))
        return lp_add_relaxed(p, v);
    n = lp_load_relaxed(p) + v;
    lp_store_relaxed(p, n);
    return n;
}
static inline uint64_t lp_count_sub(uint64_t *p, uint64_t v)
{
    return lp_count_add(p, -v);
}

/*
 * A test-and-test-and-set spinlock for the table shards: uncontended it
 * is one atomic exchange and one store, about a third of a mutex's
 * lock/unlock pair; contended, it yields the CPU after a short spin, so a
 * preempted holder on a 2-core machine is not starved. Zero is unlocked.
 */
int sched_yield(void);
static inline void lp_spin_lock(int *l)
{
    unsigned spins = 0;

    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
            if (++spins < 100)
                __builtin_ia32_pause();
            else
                sched_yield();
        }
    }
}
static inline void lp_spin_unlock(int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* Abort the process without stdio (musl style); for broken invariants. */
_Noreturn void lp_panic(const char *msg);
#define LP_ASSERT(x) \
    do { \
        if (LP_UNLIKELY(!(x))) \
            lp_panic("assertion failed: " #x); \
    } while (0)

/* The monotonic clock in milliseconds, for timeouts. */
static inline uint64_t lp_monotonic_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif /* LP_PRELOAD_LP_H */
