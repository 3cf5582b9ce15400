/* SPDX-License-Identifier: MIT */
/* test_freed.c - the recently-freed queue (Memcheck's freelist). */
#include "tests/unit/lp_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "preload/hot/freed.h"
#include "preload/hot/real.h"
#include "preload/hot/tcb_slot.h"
#include "preload/life/config.h"

static int setup(void **state)
{
    (void)state;
    lp_freed_reset();
    lp_freed_set_volume(LP_FREED_VOLUME_DEFAULT);
    return 0;
}

static void test_freed_find_returns_what_push_stored(void **state)
{
    struct lp_freed f;

    (void)state;
    lp_freed_push(0x1000, 16, 7, 9);
    assert_true(lp_freed_find(0x1000, &f));
    assert_true(f.addr == 0x1000 && f.size == 16);
    assert_int_equal(f.alloc_stack, 7);
    assert_int_equal(f.free_stack, 9);
    /* Exact starts only: an interior address is not a queued block. */
    assert_false(lp_freed_find(0x1008, NULL));
    assert_false(lp_freed_find(0, NULL));
    assert_int_equal(lp_freed_volume(), 16);
}

/* forget hides the entry (a tombstone: the entry stays queued, and
 * weighs on the volume until it leaves); a later free shows it again. */
static void test_freed_forget_hides_the_entry(void **state)
{
    struct lp_freed f;

    (void)state;
    lp_freed_push(0x2000, 32, 1, 2);
    lp_freed_push(0x3000, 48, 1, 2);
    lp_freed_forget(0x2000);
    assert_false(lp_freed_find(0x2000, NULL));
    assert_true(lp_freed_find(0x3000, NULL));
    assert_int_equal(lp_freed_volume(), 32 + 48);
    lp_freed_forget(0x4000); /* never queued: still not found */
    assert_false(lp_freed_find(0x4000, NULL));
    assert_int_equal(lp_freed_count(), 2);
    lp_freed_push(0x2000, 24, 3, 4);
    assert_true(lp_freed_find(0x2000, &f));
    assert_true(f.size == 24 && f.alloc_stack == 3 && f.free_stack == 4);
}

/* No dedup: a second free of an address is a newer entry, and find
 * reports it. */
static void test_freed_second_push_of_an_address_is_found(void **state)
{
    struct lp_freed f;

    (void)state;
    lp_freed_push(0x5000, 10, 1, 2);
    lp_freed_push(0x5000, 20, 3, 4);
    assert_int_equal(lp_freed_count(), 2);
    assert_int_equal(lp_freed_volume(), 30);
    assert_true(lp_freed_find(0x5000, &f));
    assert_true(f.size == 20 && f.alloc_stack == 3 && f.free_stack == 4);
}

/* 64,000 bytes: 10,000 blocks of 100 bytes cannot all stay; the newest
 * stay, the oldest go, and the volume never exceeds the bound. */
static void test_freed_volume_bound_drops_the_oldest(void **state)
{
    uintptr_t i, kept_new = 0, kept_old = 0;

    (void)state;
    lp_freed_set_volume(64000);
    for (i = 0; i < 10000; i++)
        lp_freed_push(0x100000 + i * 128, 100, 1, 2);
    assert_true(lp_freed_volume() <= 64000);
    for (i = 0; i < 200; i++) {
        kept_old += lp_freed_find(0x100000 + i * 128, NULL);
        kept_new += lp_freed_find(0x100000 + (9999 - i) * 128, NULL);
    }
    assert_int_equal(kept_old, 0);
    assert_int_equal(kept_new, 200);
    assert_int_equal(lp_freed_count(), lp_freed_volume() / 100);
}

/* Zero-size blocks weigh nothing: the slot count bounds them. */
static void test_freed_slot_bound_holds_for_empty_blocks(void **state)
{
    size_t i, n = (size_t)LP_FREED_RING_MAX * 2;

    (void)state;
    for (i = 0; i < n; i++)
        lp_freed_push(0x10000000 + i * 16, 0, 1, 2);
    assert_true(lp_freed_count() <= (size_t)LP_FREED_RING_MAX);
    assert_true(lp_freed_count() > (size_t)LP_FREED_RING_MAX / 2);
    assert_true(lp_freed_find(0x10000000 + (n - 1) * 16, NULL));
    assert_false(lp_freed_find(0x10000000, NULL));
}

/* After churn (pushes, second frees, forgets, evictions) in one lane,
 * find agrees with the history: an address whose last event was a
 * forget is never found (its older entries leave the FIFO before the
 * tombstone does); one freed last, recently enough to be still queued,
 * is found with the data of that last free. */
#define CHURN_ADDRS 20000
static void test_freed_find_follows_the_history_under_churn(void **state)
{
    static uint32_t last[CHURN_ADDRS];   /* op index + 1 of the last event */
    static bool forgot[CHURN_ADDRS];     /* and whether it was a forget */
    size_t i, n = 200000, found = 0, checked = 0;
    unsigned seed = 12345;

    (void)state;
    memset(last, 0, sizeof(last));
    lp_freed_set_volume(64 * 4096);
    for (i = 0; i < n; i++) {
        size_t k;

        seed = seed * 1103515245u + 12345u;
        k = (seed >> 8) % CHURN_ADDRS;
        forgot[k] = (seed & 7) == 0;
        last[k] = (uint32_t)i + 1;
        if (forgot[k])
            lp_freed_forget(0x40000000 + k * 32);
        else
            lp_freed_push(0x40000000 + k * 32, 32, (uint32_t)i, 7);
    }
    for (i = 0; i < CHURN_ADDRS; i++) {
        struct lp_freed f;
        bool hit = lp_freed_find(0x40000000 + i * 32, &f);

        found += hit;
        if (forgot[i] || last[i] == 0) {
            assert_false(hit);
        } else if (last[i] > n - 4000) {
            /* The last 4,000 events weigh at most 128,000 bytes, half
             * the volume: none of them has left. */
            assert_true(hit);
            assert_int_equal(f.alloc_stack, last[i] - 1);
            assert_int_equal(f.free_stack, 7);
            checked++;
        } else if (hit) {
            assert_int_equal(f.alloc_stack, last[i] - 1);
        }
    }
    assert_true(checked > 1000);
    assert_true(found <= lp_freed_count());
    assert_true(lp_freed_volume() == lp_freed_count() * 32);
    assert_true(lp_freed_volume() <= 64 * 4096);
}

static void test_freed_volume_zero_keeps_nothing(void **state)
{
    (void)state;
    lp_freed_set_volume(0);
    lp_freed_push(0x6000, 16, 1, 2);
    assert_false(lp_freed_find(0x6000, NULL));
    assert_int_equal(lp_freed_count(), 0);
}

static struct lp_freed_lane *new_lane(void)
{
    struct lp_freed_lane *l = lp_freed_lane_new();

    assert_non_null(l);
    return l;
}

/* Thread t frees 25,000 blocks over 3,000 addresses of its own and
 * forgets every fifth: 30,000 entries, none evicted (a lane holds 65,536
 * and 20 MB). Threads 0 and 1 have lanes of their own, 2 and 3 share the
 * first lane (and its lock). */
#define CHURN_OPS 25000
#define CHURN_SPAN 3000
static struct lp_freed_lane *churn_lane[4];

static uintptr_t churn_base(size_t t)
{
    return 0x70000000 + t * 0x1000000;
}

static void *churn(void *arg)
{
    size_t t = (size_t)arg;
    uintptr_t base = churn_base(t);
    uint32_t i;

    lp_self.freed_lane = churn_lane[t];
    for (i = 0; i < CHURN_OPS; i++) {
        lp_freed_push(base + (i % CHURN_SPAN) * 16, 16, (uint32_t)t, i);
        if (i % 5 == 0)
            lp_freed_forget(base + ((i * 7) % CHURN_SPAN) * 16);
    }
    return NULL;
}

static void test_freed_threads_do_not_corrupt_it(void **state)
{
    static int64_t last[CHURN_SPAN]; /* the last push, or -1: a forget */
    pthread_t th[4];
    size_t t, k, found = 0;

    (void)state;
    /* Set by our pthread_create before a second thread exists: the first
     * lane is locked from then on. */
    lp_store_release(&lp_threaded, true);
    churn_lane[0] = new_lane();
    churn_lane[1] = new_lane();
    for (t = 0; t < 4; t++)
        pthread_create(&th[t], NULL, churn, (void *)t);
    for (t = 0; t < 4; t++)
        pthread_join(th[t], NULL);
    assert_int_equal(lp_freed_count(), 4 * CHURN_OPS);
    assert_int_equal(lp_freed_volume(), 4 * CHURN_OPS * 16);
    /* Replay one thread's history; every thread's is the same. */
    for (k = 0; k < CHURN_SPAN; k++)
        last[k] = -1;
    for (k = 0; k < CHURN_OPS; k++) {
        last[k % CHURN_SPAN] = (int64_t)k;
        if (k % 5 == 0)
            last[(k * 7) % CHURN_SPAN] = -1;
    }
    for (t = 0; t < 4; t++)
        for (k = 0; k < CHURN_SPAN; k++) {
            struct lp_freed f;
            bool hit = lp_freed_find(churn_base(t) + k * 16, &f);

            assert_int_equal(hit, last[k] >= 0);
            if (hit) {
                assert_int_equal(f.alloc_stack, t);
                assert_int_equal(f.free_stack, last[k]);
                found++;
            }
        }
    assert_true(found > 4 * CHURN_SPAN / 2);
}

/* Threads queue into lanes of their own; a bad free looks in all of them
 * and reports the newest entry for an address; forget clears every lane. */
static struct lp_freed_lane *lane_b;

static void *push_in_lane_b(void *arg)
{
    lp_self.freed_lane = lane_b;
    lp_freed_push((uintptr_t)arg, 64, 5, 6);
    lp_freed_push(0xb000, 8, 5, 6);
    return NULL;
}

static void test_freed_lanes_find_the_newest(void **state)
{
    pthread_t t;
    struct lp_freed f;
    uintptr_t i;

    (void)state;
    lane_b = new_lane();

    lp_freed_push(0xa000, 32, 1, 2); /* main lane, older */
    for (i = 0; i < LP_FREED_EPOCH_PUSHES; i++) /* a later epoch next */
        lp_freed_push(0xc0000 + i * 16, 16, 1, 2);
    pthread_create(&t, NULL, push_in_lane_b, (void *)0xa000);
    pthread_join(t, NULL);
    assert_int_equal(lp_freed_count(), 3 + LP_FREED_EPOCH_PUSHES);
    assert_true(lp_freed_find(0xa000, &f));
    assert_true(f.size == 64 && f.alloc_stack == 5);
    assert_true(lp_freed_find(0xb000, &f) && f.size == 8);
    lp_freed_forget(0xa000); /* a tombstone in the main lane */
    assert_false(lp_freed_find(0xa000, NULL));
    assert_int_equal(lp_freed_count(), 3 + LP_FREED_EPOCH_PUSHES);
}

/* A lane's ring grows while its volume share allows, keeping its order. */
static void test_freed_lane_grows_within_its_share(void **state)
{
    size_t i, n = LP_FREED_RING * 8;

    (void)state;
    for (i = 0; i < n; i++)
        lp_freed_push(0x20000000 + i * 64, 16, 1, 2);
    assert_int_equal(lp_freed_count(), n);
    for (i = 0; i < n; i += 97)
        assert_true(lp_freed_find(0x20000000 + i * 64, NULL));
}

/* Push / forget as if from a thread owning lane l (NULL: the first). */
static void in_lane(struct lp_freed_lane *l)
{
    lp_self.freed_lane = l;
}

/* Enough pushes in the current lane to move the epoch on. */
static void next_epoch(uintptr_t base)
{
    uintptr_t i;

    for (i = 0; i < LP_FREED_EPOCH_PUSHES; i++)
        lp_freed_push(base + i * 16, 16, 1, 2);
}

/* A tombstone is newer than every earlier push in any lane; a push after
 * it, in any lane, is newer still, even within the same epoch (a freed
 * entry beats a tombstone on a tie). */
static void test_freed_tombstones_order_across_lanes(void **state)
{
    struct lp_freed_lane *x = new_lane();
    struct lp_freed f;

    (void)state;
    in_lane(NULL);
    lp_freed_push(0xd000, 16, 1, 2);
    next_epoch(0x300000);
    in_lane(x);
    lp_freed_forget(0xd000);          /* x shadows the first lane */
    assert_false(lp_freed_find(0xd000, NULL));
    in_lane(NULL);
    next_epoch(0x310000);             /* the tombstone stays newest */
    assert_false(lp_freed_find(0xd000, NULL));
    in_lane(x);
    lp_freed_forget(0xd000);
    in_lane(NULL);
    lp_freed_push(0xd000, 32, 3, 4);  /* its 2E+2th push: the same epoch */
    assert_true(lp_freed_find(0xd000, &f));
    assert_true(f.size == 32 && f.alloc_stack == 3 && f.free_stack == 4);
    lp_freed_forget(0xd000);          /* same lane, later: hides it */
    assert_false(lp_freed_find(0xd000, NULL));
    in_lane(x);
    lp_freed_push(0xd000, 48, 5, 6);  /* another lane, later: shows it */
    assert_true(lp_freed_find(0xd000, &f) && f.size == 48);
    in_lane(NULL);
}

/* The same address freed twice in two lanes (and once more in the
 * first): each find reports the latest free. */
static void test_freed_same_address_in_two_lanes(void **state)
{
    struct lp_freed_lane *x = new_lane();
    struct lp_freed f;

    (void)state;
    in_lane(NULL);
    lp_freed_push(0xe000, 10, 1, 1);
    next_epoch(0x400000);
    assert_true(lp_freed_find(0xe000, &f) && f.size == 10);
    in_lane(x);
    lp_freed_push(0xe000, 20, 2, 2);
    assert_true(lp_freed_find(0xe000, &f) && f.size == 20);
    next_epoch(0x410000);
    in_lane(NULL);
    lp_freed_push(0xe000, 30, 3, 3);
    assert_true(lp_freed_find(0xe000, &f));
    assert_true(f.size == 30 && f.alloc_stack == 3 && f.free_stack == 3);
    assert_int_equal(lp_freed_count(), 3 + 2 * LP_FREED_EPOCH_PUSHES);
}

/* A lane keeps its share of the volume (volume / lanes + 1): a big block
 * pushes out as many of the oldest as it needs, one bigger than the share
 * stays alone, and a tombstone leaves in its turn. */
static void test_freed_volume_evicts_the_oldest(void **state)
{
    uint64_t lanes = lp_freed_lanes(); /* the threads above made some */
    uintptr_t i;

    (void)state;
    in_lane(NULL);
    lp_freed_set_volume(lanes * 10000); /* a share of 10,001 bytes */
    for (i = 0; i < 100; i++)
        lp_freed_push(0x500000 + i * 128, 100, 1, 2);
    assert_int_equal(lp_freed_count(), 100);
    /* Over its share, the lane drops the oldest down to 63/64 of it:
     * 9,845 bytes, so 52 entries go and the volume is 9,800. */
    lp_freed_push(0x600000, 5000, 1, 2);
    assert_int_equal(lp_freed_count(), 49);
    assert_int_equal(lp_freed_volume(), 9800);
    for (i = 0; i < 100; i++)
        assert_int_equal(lp_freed_find(0x500000 + i * 128, NULL), i >= 52);
    assert_true(lp_freed_find(0x600000, NULL));
    lp_freed_forget(0x500000 + 99 * 128);
    lp_freed_push(0x700000, 20000, 1, 2); /* more than the share */
    assert_int_equal(lp_freed_count(), 1);
    assert_int_equal(lp_freed_volume(), 20000);
    assert_false(lp_freed_find(0x600000, NULL));
    lp_freed_forget(0x700000); /* over the share: the block goes first */
    assert_false(lp_freed_find(0x700000, NULL));
    assert_int_equal(lp_freed_count(), 0);
    assert_int_equal(lp_freed_volume(), 0);
    lp_freed_push(0x800000, 100, 1, 2);   /* and the tombstone in turn */
    assert_int_equal(lp_freed_count(), 1);
    assert_int_equal(lp_freed_volume(), 100);
    assert_true(lp_freed_find(0x800000, NULL));
    assert_false(lp_freed_find(0x700000, NULL));
}

/* With many lanes each keeps LP_FREED_SLOTS / lanes entries (at least
 * LP_FREED_RING), so find never reads more than LP_FREED_SLOTS of them. */
static void test_freed_slot_share_bounds_the_scan(void **state)
{
    size_t i, share;

    (void)state;
    while (lp_freed_lanes() < 48)
        (void)new_lane();
    share = LP_FREED_SLOTS / lp_freed_lanes(); /* 21,845 */
    assert_true(share < LP_FREED_RING_MAX);
    in_lane(NULL);
    for (i = 0; i < share + 5000; i++)
        lp_freed_push(0x80000000 + i * 16, 0, 1, 2);
    assert_int_equal(lp_freed_count(), share);
    assert_true(lp_freed_find(0x80000000 + (share + 4999) * 16, NULL));
    assert_false(lp_freed_find(0x80000000 + 4999 * 16, NULL));
}

/* A signal handler that allocates under our guard forgets an address in
 * the lane its thread is appending to: the lane is busy, the forget is
 * skipped, and the lane stays whole (without the busy flag, the nested
 * append took the same slot and the volume drifted from the entries). */
static volatile sig_atomic_t signals;

static void forget_in_handler(int sig)
{
    (void)sig;
    lp_freed_forget(0x90000000 + (uintptr_t)(signals++ % 4096) * 16);
}

static void test_freed_signal_inside_a_push_leaves_the_lane_whole(void **state)
{
    struct sigaction sa = { .sa_handler = forget_in_handler };
    struct itimerval it = { { 0, 20 }, { 0, 20 } }, off = { { 0, 0 }, { 0, 0 } };
    size_t i;

    (void)state;
    in_lane(new_lane());
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
    signals = 0;
    assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
    for (i = 0; i < 30000000 && signals < 20000; i++)
        lp_freed_push(0xa0000000 + (i % 100000) * 16, 16, 1, 2);
    assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
    signal(SIGALRM, SIG_DFL);
    in_lane(NULL);
    assert_true(signals > 100);
    assert_int_equal(lp_freed_volume(), 16 * lp_freed_count());
    assert_true(lp_freed_find(0xa0000000 + ((i - 1) % 100000) * 16, NULL));
}

/* quarantine=yes: a queued block is freed for real when it leaves the
 * queue, oldest first, each once; every push is kept; a block still
 * queued is not freed; the count of blocks does not bound the queue,
 * only the volume does (as Memcheck's freelist). */
static uintptr_t released[20000];
static size_t nreleased;

static void record_free(void *p)
{
    if (nreleased < LP_ARRAY_SIZE(released))
        released[nreleased] = (uintptr_t)p;
    nreleased++;
}

static void test_freed_quarantine_frees_what_leaves(void **state)
{
    void (*real_free)(void *) = lp_real.free;
    uintptr_t i;
    size_t j;

    (void)state;
    lp_config.quarantine = true;
    lp_real.free = record_free;
    nreleased = 0;
    lp_freed_set_volume(64000);
    assert_true(lp_freed_holding());
    for (i = 0; i < 10000; i++)
        assert_true(lp_freed_push(0x100000 + i * 128, 100, 1, 2));
    assert_true(lp_freed_volume() <= 64000);
    /* What left was freed, oldest first; what stays was not. */
    assert_int_equal(nreleased, 10000 - lp_freed_count());
    for (j = 0; j < nreleased; j++) {
        assert_true(released[j] == 0x100000 + j * 128);
        assert_false(lp_freed_find(released[j], NULL));
    }
    for (i = nreleased; i < 10000; i++)
        assert_true(lp_freed_find(0x100000 + i * 128, NULL));
    /* 100,000 empty blocks weigh nothing: all kept (no slot bound). */
    lp_freed_reset();
    lp_freed_set_volume(64000);
    nreleased = 0;
    for (i = 0; i < 100000; i++)
        assert_true(lp_freed_push(0x4000000 + i * 32, 0, 1, 2));
    assert_int_equal(nreleased, 0);
    assert_int_equal(lp_freed_count(), 100000);
    lp_freed_reset();
    lp_real.free = real_free;
    lp_config.quarantine = false;
    lp_freed_set_volume(LP_FREED_VOLUME_DEFAULT);
    assert_false(lp_freed_holding());
}

#define T(fn) cmocka_unit_test_setup(fn, setup)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_freed_find_returns_what_push_stored),
        T(test_freed_forget_hides_the_entry),
        T(test_freed_second_push_of_an_address_is_found),
        T(test_freed_volume_bound_drops_the_oldest),
        T(test_freed_slot_bound_holds_for_empty_blocks),
        T(test_freed_find_follows_the_history_under_churn),
        T(test_freed_volume_zero_keeps_nothing),
        T(test_freed_threads_do_not_corrupt_it),
        T(test_freed_lane_grows_within_its_share),
        T(test_freed_lanes_find_the_newest),
        T(test_freed_tombstones_order_across_lanes),
        T(test_freed_same_address_in_two_lanes),
        T(test_freed_volume_evicts_the_oldest),
        T(test_freed_slot_share_bounds_the_scan),
        T(test_freed_signal_inside_a_push_leaves_the_lane_whole),
        T(test_freed_quarantine_frees_what_leaves),
    };

    return cmocka_run_group_tests_name("freed", tests, NULL, NULL);
}
