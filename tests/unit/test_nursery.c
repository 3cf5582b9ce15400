/* SPDX-License-Identifier: MIT */
/* test_nursery.c - the threads' nurseries in front of the live-block
 * table: young blocks stay there, old ones move to the shared table, a
 * block freed by another thread is found, visitors and the drain see
 * every block once. */
#include "tests/unit/lp_test.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "preload/hot/nursery.h"
#include "preload/hot/table.h"

struct tally {
    size_t n;
    uint64_t bytes;
};

static void tally_cb(const struct lp_block *b, void *arg)
{
    struct tally *t = arg;

    t->n++;
    t->bytes += b->size;
}

/* How many blocks the nurseries hold, and the shared shards alone. */
static size_t in_shared(void)
{
    return lp_table_count() - lp_nursery_count();
}

static int setup(void **state)
{
    (void)state;
    lp_self.nursery = lp_nursery_main();
    return 0;
}

static void test_a_young_block_never_reaches_the_shared_table(void **state)
{
    size_t shared = in_shared(), young = lp_nursery_count();
    struct lp_block b;

    (void)state;
    assert_int_equal(lp_table_insert_how(0x7000010, 48, 3, LP_HOW_NEW, 77, NULL), 0);
    assert_int_equal(lp_nursery_count(), young + 1);
    assert_int_equal(in_shared(), shared);
    assert_int_equal(lp_table_find(0x7000010, &b), 0);
    assert_int_equal(b.size, 48);
    assert_int_equal(lp_table_remove(0x7000010, &b), 0);
    assert_true(b.addr == 0x7000010 && b.size == 48 && b.stack_id == 3 &&
                b.how == LP_HOW_NEW && lp_block_time(&b) == 77);
    assert_int_equal(lp_nursery_count(), young);
    assert_int_equal(lp_table_remove(0x7000010, NULL), -ENOENT);
}

static void test_a_stale_young_entry_is_reported(void **state)
{
    struct lp_block stale, b;

    (void)state;
    assert_int_equal(lp_table_insert(0x7100000, 10, 1, NULL), 0);
    assert_int_equal(lp_table_insert(0x7100000, 20, 2, &stale), 1);
    assert_true(stale.size == 10 && stale.stack_id == 1);
    assert_int_equal(lp_table_remove(0x7100000, &b), 0);
    assert_true(b.size == 20 && b.stack_id == 2);
}

/* A full nursery moves its blocks to the shared table, each intact. */
static void test_a_full_nursery_moves_its_blocks_intact(void **state)
{
    size_t total = lp_table_count(), i, n = LP_NURSERY_FULL + 100;
    struct lp_block b;

    (void)state;
    for (i = 0; i < n; i++)
        assert_int_equal(lp_table_insert_how(0x7200000 + i * 32, i + 1,
                                             (uint32_t)i + 5, LP_HOW_MALLOC,
                                             i * 3, NULL), 0);
    assert_int_equal(lp_table_count(), total + n);
    assert_true(lp_nursery_count() <= LP_NURSERY_FULL);
    assert_true(in_shared() >= LP_NURSERY_FULL);
    for (i = 0; i < n; i++) {
        assert_int_equal(lp_table_remove(0x7200000 + i * 32, &b), 0);
        assert_true(b.size == i + 1 && b.stack_id == i + 5 &&
                    lp_block_time(&b) == i * 3);
    }
    assert_int_equal(lp_table_count(), total);
}

/* A shared entry for an address a nursery now holds again (a block freed
 * behind our back) is replaced, not doubled, when the young one moves. */
static void test_a_flush_replaces_a_stale_shared_entry(void **state)
{
    struct lp_nursery *mine = lp_self.nursery;
    size_t total = lp_table_count(), i;
    struct lp_block b;

    (void)state;
    lp_self.nursery = NULL; /* a thread without a nursery: shared */
    assert_int_equal(lp_table_insert(0x7300000, 111, 0, NULL), 0);
    lp_self.nursery = mine;
    assert_int_equal(lp_table_insert(0x7300000, 222, 0, NULL), 0);
    for (i = 1; i <= LP_NURSERY_FULL; i++)
        assert_int_equal(lp_table_insert(0x7300000 + i * 16, 1, 0, NULL), 0);
    assert_int_equal(lp_table_count(), total + LP_NURSERY_FULL + 1);
    assert_int_equal(lp_table_remove(0x7300000, &b), 0);
    assert_int_equal(b.size, 222);
    assert_int_equal(lp_table_remove(0x7300000, NULL), -ENOENT);
    for (i = 1; i <= LP_NURSERY_FULL; i++)
        assert_int_equal(lp_table_remove(0x7300000 + i * 16, NULL), 0);
    assert_int_equal(lp_table_count(), total);
}

/* A block made under another nursery is found by a thread that frees it. */
static void test_a_block_of_another_nursery_is_found(void **state)
{
    struct lp_nursery *mine = lp_self.nursery, *other = lp_nursery_new();
    struct lp_block b;
    size_t total = lp_table_count();
    bool was = lp_any_thread;

    (void)state;
    assert_non_null(other);
    lp_any_thread = true;
    lp_self.nursery = other;
    assert_int_equal(lp_table_insert(0x9400000010, 64, 9, NULL), 0);
    lp_self.nursery = mine;
    assert_int_equal(lp_table_find(0x9400000010, NULL), 0);
    assert_int_equal(lp_table_remove(0x9400000010, &b), 0);
    assert_true(b.size == 64 && b.stack_id == 9);
    assert_int_equal(lp_table_remove(0x9400000010, NULL), -ENOENT);
    assert_int_equal(lp_table_count(), total);
    lp_any_thread = was;
}

/* Producer and consumer threads, each with a nursery: every block the
 * producer makes the consumer frees, while the producer's flushes move
 * blocks to the shared table meanwhile. None is lost or doubled. */
#define HANDOFF 200000
#define RING 4096
static uintptr_t ring[RING];
static unsigned head, tail;

static uintptr_t own(unsigned i)
{
    return 0x6600000000 + (uintptr_t)i * 16;
}

static void *producer(void *arg)
{
    unsigned i;

    (void)arg;
    lp_self.nursery = lp_nursery_new();
    for (i = 0; i < HANDOFF; i++) {
        uintptr_t a = 0x5500000000 + (uintptr_t)(i % 100000) * 16;

        /* An address comes back only after the consumer freed it. */
        while (__atomic_load_n(&head, __ATOMIC_ACQUIRE) -
                   __atomic_load_n(&tail, __ATOMIC_ACQUIRE) >= RING)
            ;
        if (lp_table_insert(a, i % 997 + 1, i, NULL) != 0)
            return (void *)1;
        /* And some blocks of its own, freed young or grown old. */
        if (lp_table_insert(own(i), 8, 1, NULL) != 0)
            return (void *)2;
        if (i % 3 != 0 && lp_table_remove(own(i), NULL) != 0)
            return (void *)3;
        ring[head % RING] = a;
        __atomic_store_n(&head, head + 1, __ATOMIC_RELEASE);
    }
    for (i = 0; i < HANDOFF; i += 3)
        if (lp_table_remove(own(i), NULL) != 0)
            return (void *)5;
    return NULL;
}

static void *consumer(void *arg)
{
    unsigned i;
    struct lp_block b;

    (void)arg;
    lp_self.nursery = lp_nursery_new();
    for (i = 0; i < HANDOFF; i++) {
        uintptr_t a;

        while (__atomic_load_n(&tail, __ATOMIC_ACQUIRE) ==
               __atomic_load_n(&head, __ATOMIC_ACQUIRE))
            ;
        a = ring[tail % RING];
        __atomic_store_n(&tail, tail + 1, __ATOMIC_RELEASE);
        if (lp_table_remove(a, &b) != 0 || b.size != i % 997 + 1)
            return (void *)4;
    }
    return NULL;
}

/* The producer and the consumer, run to the end: nothing lost. */
static void hand_blocks_over(void)
{
    size_t total = lp_table_count();
    pthread_t p, c;
    void *rp, *rc;

    head = tail = 0;
    pthread_create(&c, NULL, consumer, NULL);
    pthread_create(&p, NULL, producer, NULL);
    pthread_join(p, &rp);
    pthread_join(c, &rc);
    assert_null(rp);
    assert_null(rc);
    assert_int_equal(lp_table_count(), total);
}

static void test_blocks_handed_between_threads_are_not_lost(void **state)
{
    (void)state;
    lp_any_thread = true;
    hand_blocks_over();
}

/*
 * The biased lock: owners churn their nurseries without locking while a
 * visitor lists the live blocks again and again. Each owner holds LIVE
 * blocks between its operations, every block's size a function of its
 * address; a visitor that met an owner mid-operation would see a slot
 * torn (a size that does not fit) or a count out of range.
 */
#define OWNERS 2
#define LIVE 300
#define CHURN 300000
static int churning;

static size_t size_of_addr(uintptr_t a)
{
    return (size_t)((a >> 4) % 509) + 1;
}

static void *churner(void *arg)
{
    uintptr_t base = 0xa100000000 + (uintptr_t)arg * 0x4000000;
    unsigned i;

    lp_self.nursery = lp_nursery_new();
    for (i = 0; i < LIVE; i++)
        if (lp_table_insert(base + i * 16, size_of_addr(base + i * 16), 1,
                            NULL) != 0)
            return (void *)1;
    for (i = 0; i < CHURN; i++) {
        /* Replace one block: addresses cycle through 4 * LIVE, so the
         * nursery sees inserts, removes and backward shifts. */
        uintptr_t old = base + (uintptr_t)(i % (4 * LIVE)) * 16;
        uintptr_t nw = base + (uintptr_t)((i + LIVE) % (4 * LIVE)) * 16;
        struct lp_block b;

        if (lp_table_remove(old, &b) != 0 || b.size != size_of_addr(old))
            return (void *)2;
        if (lp_table_insert(nw, size_of_addr(nw), 1, NULL) != 0)
            return (void *)3;
    }
    for (i = 0; i < 4 * LIVE; i++)
        (void)lp_table_remove(base + i * 16, NULL);
    return NULL;
}

struct seen {
    size_t n, torn;
};

static void check_cb(const struct lp_block *b, void *arg)
{
    struct seen *s = arg;

    if (b->addr >= 0xa100000000 && b->addr < 0xa100000000 + OWNERS * 0x4000000) {
        s->n++;
        if (b->size != size_of_addr(b->addr))
            s->torn++;
    }
}

static void test_visitors_meet_biased_owners_between_operations(void **state)
{
    pthread_t t[OWNERS];
    size_t visits = 0, bad = 0, i;
    void *r;

    (void)state;
    lp_any_thread = true;
    lp_nursery_bias_init();
    if (lp_nursery_locking) {
        skip(); /* no membarrier here: owners always lock */
        return;
    }
    __atomic_store_n(&churning, OWNERS, __ATOMIC_RELEASE);
    for (i = 0; i < OWNERS; i++)
        pthread_create(&t[i], NULL, churner, (void *)i);
    for (visits = 0; visits < 2000; visits++) {
        struct seen s = {0, 0};

        lp_table_for_each(check_cb, &s);
        /* Between its operations each owner holds LIVE (before it is
         * done making them: fewer; after a remove: one fewer). */
        if (s.torn || s.n > OWNERS * LIVE)
            bad++;
    }
    for (i = 0; i < OWNERS; i++) {
        pthread_join(t[i], &r);
        assert_null(r);
    }
    assert_int_equal(bad, 0);
    /* No visitor left: the owners are biased again. */
    assert_int_equal(lp_nursery_locking, 0);
}

/* Blocks handed from thread to thread: each free is a visit, and past a
 * bound the bias is given up for good (owners lock). */
static void test_frequent_handovers_give_the_bias_up(void **state)
{
    (void)state;
    lp_any_thread = true;
    lp_nursery_bias_init();
    if (lp_nursery_locking) {
        skip();
        return;
    }
    hand_blocks_over();
    assert_int_equal(lp_nursery_locking, 1);
}

/* Visitors see nursery and shared blocks once each; the drain leaves
 * nothing and later inserts fail. Last: the table is dead after. */
static void test_visitors_and_the_drain_see_every_block_once(void **state)
{
    struct tally t = {0, 0}, d = {0, 0};
    size_t i, n = LP_NURSERY_FULL + 500;

    (void)state;
    lp_any_thread = false;
    for (i = 0; i < n; i++)
        assert_int_equal(lp_table_insert(0x7600000 + i * 16, 2, 1, NULL), 0);
    lp_table_for_each(tally_cb, &t);
    assert_int_equal(t.n, lp_table_count());
    assert_true(t.n >= n && lp_nursery_count() > 0);
    lp_table_drain(tally_cb, &d);
    assert_int_equal(d.n, t.n);
    assert_int_equal(d.bytes, t.bytes);
    assert_int_equal(lp_table_count(), 0);
    assert_int_equal(lp_table_insert(0x7700000, 1, 1, NULL), -ENOMEM);
    assert_int_equal(lp_table_remove(0x7600000, NULL), -ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_young_block_never_reaches_the_shared_table),
        cmocka_unit_test(test_a_stale_young_entry_is_reported),
        cmocka_unit_test(test_a_full_nursery_moves_its_blocks_intact),
        cmocka_unit_test(test_a_flush_replaces_a_stale_shared_entry),
        cmocka_unit_test(test_a_block_of_another_nursery_is_found),
        cmocka_unit_test(test_blocks_handed_between_threads_are_not_lost),
        cmocka_unit_test(test_visitors_meet_biased_owners_between_operations),
        cmocka_unit_test(test_frequent_handovers_give_the_bias_up),
        cmocka_unit_test(test_visitors_and_the_drain_see_every_block_once),
    };
    return cmocka_run_group_tests_name("nursery", tests, setup, NULL);
}
