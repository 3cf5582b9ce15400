/* SPDX-License-Identifier: MIT */
/* test_fd_guard.c - our private stderr duplicate kept out of the
 * program's descriptor housekeeping: the ranges close_range and closefrom
 * are split into, and the move dup2 onto the duplicate's number makes
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
    unsigned lo[2], hi[2];

    (void)state;
    assert_int_equal(lp_fd_guard_split(3, 2000, 1000, lo, hi), 2);
    assert_int_equal(lo[0], 3);
    assert_int_equal(hi[0], 999);
    assert_int_equal(lo[1], 1001);
    assert_int_equal(hi[1], 2000);
    /* At either end: one range; alone in it: none. */
    assert_int_equal(lp_fd_guard_split(1000, ~0u, 1000, lo, hi), 1);
    assert_int_equal(lo[0], 1001);
    assert_true(hi[0] == ~0u);
    assert_int_equal(lp_fd_guard_split(3, 1000, 1000, lo, hi), 1);
    assert_int_equal(lo[0], 3);
    assert_int_equal(hi[0], 999);
    assert_int_equal(lp_fd_guard_split(1000, 1000, 1000, lo, hi), 0);
    /* Outside: the range as asked. */
    assert_int_equal(lp_fd_guard_split(3, 999, 1000, lo, hi), 1);
    assert_int_equal(lo[0], 3);
    assert_int_equal(hi[0], 999);
    assert_int_equal(lp_fd_guard_split(1001, 5000, 1000, lo, hi), 1);
    assert_int_equal(lo[0], 1001);
}

static void test_a_move_keeps_the_original_stderr(void **state)
{
    struct stat a, b;
    int p, q;

    (void)state;
    lp_diag_init();
    p = lp_diag_private_fd();
    assert_true(p > 2);
    lp_diag_private_move();
    q = lp_diag_private_fd();
    assert_true(q > 2);
    assert_int_not_equal(q, p);
    assert_true(fcntl(q, F_GETFD) & FD_CLOEXEC);
    assert_int_equal(fstat(2, &a), 0);
    assert_int_equal(fstat(q, &b), 0);
    assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
    /* The program takes p over (dup2 would replace it): q still writes. */
    close(p);
    assert_int_equal(lp_stderr_fd(), q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_are_split_around_ours),
        cmocka_unit_test(test_a_move_keeps_the_original_stderr),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
