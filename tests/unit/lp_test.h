/* SPDX-License-Identifier: MIT */
#ifndef LP_TESTS_UNIT_LP_TEST_H
#define LP_TESTS_UNIT_LP_TEST_H
/* What Debian's cmocka 1.1.5 needs before <cmocka.h>. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#endif /* LP_TESTS_UNIT_LP_TEST_H */
