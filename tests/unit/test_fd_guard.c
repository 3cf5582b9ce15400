/* SPDX-License-Identifier: MIT */
/* test_fd_guard.c - our long-lived descriptors kept out of the program's
 * descriptor housekeeping: which numbers are ours, the ranges close_range
 * and closefrom are split into, and the move dup2 onto one of ours makes
 * first. The hooks themselves run in e2e (reliability.sh, process_life
 * close_all: a daemon's close loop, close_range, closefrom, dup2). */
#include "tests/unit/lp_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/life/diag.h"
#include "preload/life/fd_guard.h"

static void test_ranges_are_split_around_ours(void **state)
{
    unsigned lo[3], hi[3], two[2] = { 1000, 1001 }, apart[2] = { 1000, 1500 };
    unsigned one = 1000;

    (void)state;
    assert_int_equal(lp_fd_guard_split(3, 2000, &one, 1, lo, hi), 2);
    assert_int_equal(lo[0], 3);
    assert_int_equal(hi[0], 999);
    assert_int_equal(lo[1], 1001);
    assert_int_equal(hi[1], 2000);
    /* At either end: one range; alone in it: none. */
    assert_int_equal(lp_fd_guard_split(1000, ~0u, &one, 1, lo, hi), 1);
    assert_int_equal(lo[0], 1001);
    assert_true(hi[0] == ~0u);
    assert_int_equal(lp_fd_guard_split(3, 1000, &one, 1, lo, hi), 1);
    assert_int_equal(lo[0], 3);
    assert_int_equal(hi[0], 999);
    assert_int_equal(lp_fd_guard_split(1000, 1000, &one, 1, lo, hi), 0);
    /* Neighbours leave no empty range between them. */
    assert_int_equal(lp_fd_guard_split(3, 2000, two, 2, lo, hi), 2);
    assert_int_equal(hi[0], 999);
    assert_int_equal(lo[1], 1002);
    assert_int_equal(lp_fd_guard_split(3, 2000, apart, 2, lo, hi), 3);
    assert_int_equal(lo[1], 1001);
    assert_int_equal(hi[1], 1499);
    assert_int_equal(lo[2], 1501);
    assert_int_equal(hi[2], 2000);
}

static void test_ours_are_known_and_listed_in_order(void **state)
{
    static int a = -1, b = -1;
    unsigned fds[LP_FD_GUARD_MAX];

    (void)state;
    lp_fd_guard_keep(&a);
    lp_fd_guard_keep(&b);
    lp_fd_guard_keep(&a); /* once */
    assert_false(lp_fd_guard_ours(-1)); /* empty slots are nobody's */
    __atomic_store_n(&a, 1700, __ATOMIC_RELAXED);
    __atomic_store_n(&b, 1200, __ATOMIC_RELAXED);
    assert_true(lp_fd_guard_ours(1700));
    assert_true(lp_fd_guard_ours(1200));
    assert_false(lp_fd_guard_ours(1201));
    assert_int_equal(lp_fd_guard_within(0, ~0u, fds), 2);
    assert_int_equal(fds[0], 1200);
    assert_int_equal(fds[1], 1700);
    assert_int_equal(lp_fd_guard_within(1300, 5000, fds), 1);
    assert_int_equal(fds[0], 1700);
    assert_int_equal(lp_fd_guard_within(3, 999, fds), 0);
    __atomic_store_n(&a, -1, __ATOMIC_RELAXED);
    __atomic_store_n(&b, -1, __ATOMIC_RELAXED);
}

static void test_a_move_keeps_the_original_stderr(void **state)
{
    struct stat st2, stq;
    int p, q, fd;

    (void)state;
    lp_diag_init(); /* the duplicate, kept */
    for (p = -1, fd = 3; fd < 4096 && p < 0; fd++)
        if (lp_fd_guard_ours(fd))
            p = fd;
    assert_true(p > 2);
    lp_fd_guard_move(p);
    assert_false(lp_fd_guard_ours(p));
    q = lp_stderr_fd();
    assert_true(q > 2);
    assert_int_not_equal(q, p);
    assert_true(lp_fd_guard_ours(q));
    assert_true(fcntl(q, F_GETFD) & FD_CLOEXEC);
    assert_int_equal(fstat(2, &st2), 0);
    assert_int_equal(fstat(q, &stq), 0);
    assert_true(st2.st_dev == stq.st_dev && st2.st_ino == stq.st_ino);
    /* The program takes p over (dup2 would replace it): q still writes. */
    close(p);
    assert_int_equal(lp_stderr_fd(), q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_are_split_around_ours),
        cmocka_unit_test(test_ours_are_known_and_listed_in_order),
        cmocka_unit_test(test_a_move_keeps_the_original_stderr),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
