/* SPDX-License-Identifier: MIT */
/* test_heap_errors.c - the heap error writer, shape by shape (frames
 * without a symbolizer print as "???"; tests/e2e/heap_errors.sh compares
 * the symbolized blocks with Memcheck's). */
#include "tests/unit/lp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/heap_errors.h"

static char *print(const struct lp_heap_error *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(lp_heap_error_print(f, e, NULL, NULL, 12), 0);
    fclose(f);
    return buf;
}

static const uintptr_t at_ips[] = { 0x1000, 0x2001 };

static void test_heap_errors_double_free_shape(void **state)
{
    static const uintptr_t freed[] = { 0x1000, 0x3001 };
    struct lp_heap_error e = {
        .pid = 42, .kind = LP_HEAP_ERR_INVALID_FREE, .addr = 0x4a42040,
        .at = { at_ips, 2 }, .where = LP_WHERE_FREED, .offset = 0,
        .size = 16, .freed_at = { freed, 2 }, .alloc_at = { NULL, 0 },
    };
    char *out = print(&e);

    (void)state;
    assert_string_equal(out,
        "==42== Invalid free() / delete / delete[] / realloc()\n"
        "==42==    at 0x1000: ???\n"
        "==42==    by 0x2000: ???\n"
        "==42==  Address 0x4a42040 is 0 bytes inside a block of size 16 free'd\n"
        "==42==    at 0x1000: ???\n"
        "==42==    by 0x3000: ???\n"
        "==42==  Block was alloc'd at\n"
        "==42==    at 0x0: ???\n"
        "==42== \n");
    free(out);
}

static void test_heap_errors_mismatch_with_thread_header(void **state)
{
    struct lp_heap_error e = {
        .pid = 7, .thread_header = 3, .kind = LP_HEAP_ERR_MISMATCH,
        .addr = 0x10, .at = { at_ips, 1 }, .where = LP_WHERE_ALLOCD,
        .offset = 1234, .size = 1234567, .alloc_at = { at_ips, 1 },
    };
    char *out = print(&e);

    (void)state;
    assert_string_equal(out,
        "==7== Thread 3:\n"
        "==7== Mismatched free() / delete / delete []\n"
        "==7==    at 0x1000: ???\n"
        "==7==  Address 0x10 is 1,234 bytes inside a block of size 1,234,567 alloc'd\n"
        "==7==    at 0x1000: ???\n"
        "==7== \n");
    free(out);
}

static void test_heap_errors_descriptions_without_stacks(void **state)
{
    struct lp_heap_error e = {
        .pid = 1, .kind = LP_HEAP_ERR_INVALID_FREE, .addr = 0xabc,
        .at = { at_ips, 1 },
    };
    char *out;

    (void)state;
    e.where = LP_WHERE_STACK;
    e.thread = 2;
    e.frame = -1;
    out = print(&e);
    assert_non_null(strstr(out, "==1==  Address 0xabc is on thread 2's stack\n==1== \n"));
    free(out);
    e.where = LP_WHERE_DATA;
    e.offset = 8;
    e.name = "global_buf";
    out = print(&e);
    assert_non_null(strstr(out, "==1==  Address 0xabc is 8 bytes inside data symbol \"global_buf\"\n"));
    free(out);
    e.where = LP_WHERE_SEGMENT;
    e.name = NULL;
    strcpy(e.perms, "rw-");
    out = print(&e);
    assert_non_null(strstr(out, "==1==  Address 0xabc is in a rw- anonymous segment\n"));
    free(out);
    e.name = "/tmp/x";
    strcpy(e.perms, "r--");
    out = print(&e);
    assert_non_null(strstr(out, "==1==  Address 0xabc is in a r-- mapped file /tmp/x segment\n"));
    free(out);
    e.where = LP_WHERE_NOWHERE;
    out = print(&e);
    assert_non_null(strstr(out, "==1==  Address 0xabc is not stack'd, malloc'd or (recently) free'd\n"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heap_errors_double_free_shape),
        cmocka_unit_test(test_heap_errors_mismatch_with_thread_header),
        cmocka_unit_test(test_heap_errors_descriptions_without_stacks),
    };

    return cmocka_run_group_tests_name("heap_errors", tests, NULL, NULL);
}
