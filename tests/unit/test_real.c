/* SPDX-License-Identifier: MIT */
/* test_real.c - the real allocator: a block's usable size read off its
 * glibc chunk header equals glibc's own malloc_usable_size, for every
 * kind of block the hooks see (small, tcache'd, from a thread's arena,
 * aligned, calloc'd, realloc'd, in a mapping of its own). */
#include "tests/unit/lp_test.h"

#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include "preload/hot/real.h"

static int setup(void **state)
{
    (void)state;
    return lp_real_init() ? 0 : -1;
}

static size_t mismatches(void *p)
{
    size_t bad = lp_real_usable(p) != malloc_usable_size(p);

    return bad;
}

/* The chunk header is read only when glibc's malloc is the real one:
 * under make asan, ASan's allocator is, and its sizes are asked. */
static void test_the_header_is_read_only_from_glibc(void **state)
{
    (void)state;
#ifdef __SANITIZE_ADDRESS__
    assert_false(lp_real_glibc);
#else
    assert_true(lp_real_glibc);
#endif
}

static void test_usable_size_of_plain_blocks(void **state)
{
    size_t n, bad = 0;

    (void)state;
    for (n = 0; n < 5000; n += 7) {
        void *p = malloc(n), *q = calloc(1, n + 1), *r;

        bad += mismatches(p) + mismatches(q);
        r = realloc(p, n * 3 + 5);
        bad += mismatches(r);
        free(r);
        free(q);
    }
    assert_int_equal(bad, 0);
}

static void test_usable_size_of_mapped_and_aligned_blocks(void **state)
{
    static const size_t sizes[] = {128 << 10, 200 << 10, 1 << 20, 5 << 20};
    size_t i, a, bad = 0;

    (void)state;
    for (i = 0; i < LP_ARRAY_SIZE(sizes); i++) {
        void *p = malloc(sizes[i]);

        bad += mismatches(p);
        free(p);
    }
    for (a = 16; a <= 8192; a *= 2) {
        for (i = 1; i < 3000; i += 333) {
            void *p = NULL, *q = aligned_alloc(a, (i + a - 1) / a * a);

            assert_int_equal(posix_memalign(&p, a, i), 0);
            bad += mismatches(p) + mismatches(q);
            free(p);
            free(q);
        }
    }
    assert_int_equal(bad, 0);
}

/* Blocks of a second thread come from another arena (its chunks carry
 * the NON_MAIN_ARENA bit). */
static void *in_a_thread(void *arg)
{
    size_t n, *bad = arg;

    for (n = 1; n < 3000; n += 11) {
        void *p = malloc(n);

        *bad += mismatches(p);
        free(p);
    }
    return NULL;
}

static void test_usable_size_in_another_arena(void **state)
{
    size_t bad = 0;
    pthread_t t;

    (void)state;
    assert_int_equal(pthread_create(&t, NULL, in_a_thread, &bad), 0);
    pthread_join(t, NULL);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_header_is_read_only_from_glibc),
        cmocka_unit_test(test_usable_size_of_plain_blocks),
        cmocka_unit_test(test_usable_size_of_mapped_and_aligned_blocks),
        cmocka_unit_test(test_usable_size_in_another_arena),
    };
    return cmocka_run_group_tests_name("real", tests, setup, NULL);
}
