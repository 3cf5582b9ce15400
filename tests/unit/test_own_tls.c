/* SPDX-License-Identifier: MIT */
/* test_own_tls.c - the DTV calloc recorded without our TLS modules'
 * entries: only ld.so's calloc of 16-byte entries, only by the bytes
 * counted as ours. Which modules count (not those the program needs
 * itself) is e2e's: reachability.sh, reach_own_libunwind. */
#include "tests/unit/lp_test.h"

#include "preload/life/own_tls.h"

static void test_only_the_dtv_calloc_of_ld_so_loses_our_entries(void **state)
{
    uintptr_t in, out;
    unsigned was = lp_own_tls_bytes;

    (void)state;
    lp_own_tls_init(); /* finds ld.so */
    assert_true(lp_own_tls_rtld_lo < lp_own_tls_rtld_hi);
    in = lp_own_tls_rtld_lo + 64;
    out = lp_own_tls_rtld_hi + 64;
    lp_own_tls_bytes = 16;
    /* libc, libunwind: (2 + 16) entries. */
    assert_int_equal(lp_own_tls_dtv_size(18, 288, in), 272);
    assert_int_equal(lp_own_tls_dtv_size(18, 288, out), 288);
    assert_int_equal(lp_own_tls_dtv_size(16, 256, in), 256); /* too few */
    lp_own_tls_bytes = 48; /* libunwind, libdw, libelf */
    assert_int_equal(lp_own_tls_dtv_size(20, 320, in), 272);
    lp_own_tls_bytes = 0;
    assert_int_equal(lp_own_tls_dtv_size(18, 288, in), 288);
    lp_own_tls_bytes = was;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_the_dtv_calloc_of_ld_so_loses_our_entries),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
