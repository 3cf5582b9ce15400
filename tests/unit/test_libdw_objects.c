/* SPDX-License-Identifier: MIT */
/* test_libdw_objects.c - the objects a load brought in are the
 * symbolizer's own (lp_sym_loaded_by_us): an address there is no frame
 * of the program's, until the program loads something after them. Which
 * frames a report then prints: e2e process.sh, unload_app. */
#include "tests/unit/lp_test.h"

#include <dlfcn.h>
#include <link.h>

#include "preload/life/libdw_objects.h"
#include "report/symbolize.h"

static int count_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(unsigned long long *)arg = info->dlpi_adds;
    return 1;
}

static unsigned long long adds_now(void)
{
    unsigned long long n = 0;

    dl_iterate_phdr(count_adds, &n);
    return n;
}

static void test_what_a_load_brought_in(void **state)
{
    struct link_map *lm = NULL;
    uintptr_t in_libc = (uintptr_t)dlsym(RTLD_DEFAULT, "printf");
    void *h;

    (void)state;
    assert_null(lp_sym_loaded_by_us);
    lp_libdw_objects_before();
    /* A glibc stub library no test binary links. */
    h = dlopen("libanl.so.1", RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    lp_libdw_objects_after();
    assert_int_equal(dlinfo(h, RTLD_DI_LINKMAP, &lm), 0);
    assert_non_null(lp_sym_loaded_by_us);
    /* Its dynamic section lies in its span: ours. */
    assert_true(lp_sym_loaded_by_us((uintptr_t)lm->l_ld, adds_now()));
    /* libc was there before: the program's. */
    assert_true(in_libc != 0);
    assert_false(lp_sym_loaded_by_us(in_libc, adds_now()));
    /* Objects listed after a later load: the program may use ours too. */
    assert_false(lp_sym_loaded_by_us((uintptr_t)lm->l_ld, adds_now() + 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_a_load_brought_in),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
