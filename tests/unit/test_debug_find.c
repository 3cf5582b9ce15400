/* SPDX-License-Identifier: MIT */
/*
 * test_debug_find.c - the symbolizer asks libdwfl's standard search only
 * when a debug file may be where that search looks: by build-id, or by
 * the debuglink name (or, without one, NAME.debug) in the file's
 * directory or its .debug subdirectory, also under the file's real name;
 * the file itself does not count.
 */
#include "lp_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/debug_find.h"

static char dir[64], prog[96], link_[96];

static void touch(const char *rel)
{
    char path[160];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static void gone(const char *rel)
{
    char path[160];

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    assert_int_equal(unlink(path), 0);
}

static int setup(void **state)
{
    char sub[96];

    (void)state;
    strcpy(dir, "/tmp/lp_dbgfind_XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(prog, sizeof(prog), "%s/prog", dir);
    snprintf(link_, sizeof(link_), "%s/alias", dir);
    snprintf(sub, sizeof(sub), "%s/.debug", dir);
    touch("prog");
    return mkdir(sub, 0700) == 0 && symlink("prog", link_) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_debuglink_places(void **state)
{
    (void)state;
    /* Nothing anywhere: no reason to ask. */
    assert_false(lp_debug_local_candidate(NULL, 0, prog, "prog.dbgfile"));
    assert_false(lp_debug_local_candidate(NULL, 0, prog, NULL));
    /* The debuglink name beside the file, or in .debug. */
    touch("prog.dbgfile");
    assert_true(lp_debug_local_candidate(NULL, 0, prog, "prog.dbgfile"));
    gone("prog.dbgfile");
    touch(".debug/prog.dbgfile");
    assert_true(lp_debug_local_candidate(NULL, 0, prog, "prog.dbgfile"));
    assert_false(lp_debug_local_candidate(NULL, 0, prog, "other.dbgfile"));
    gone(".debug/prog.dbgfile");
    /* No debuglink: NAME.debug beside it; the bare name only in .debug
     * (beside it, that is the file itself). */
    touch("prog.debug");
    assert_true(lp_debug_local_candidate(NULL, 0, prog, NULL));
    gone("prog.debug");
    touch(".debug/prog");
    assert_true(lp_debug_local_candidate(NULL, 0, prog, NULL));
    gone(".debug/prog");
    assert_false(lp_debug_local_candidate(NULL, 0, prog, NULL));
}

static void test_real_name_and_build_id(void **state)
{
    static const unsigned char fake[20] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };

    (void)state;
    /* Through a symlink: the search also runs for the real name. */
    touch("prog.debug");
    assert_true(lp_debug_local_candidate(NULL, 0, link_, NULL));
    gone("prog.debug");
    assert_false(lp_debug_local_candidate(NULL, 0, link_, NULL));
    /* A build-id with no file under /usr/lib/debug/.build-id. */
    assert_false(lp_debug_local_candidate(fake, (int)sizeof(fake), prog, NULL));
    /* Without a file name there is no telling: ask. */
    assert_true(lp_debug_local_candidate(NULL, 0, NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_debuglink_places, setup, teardown),
        cmocka_unit_test_setup_teardown(test_real_name_and_build_id, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
