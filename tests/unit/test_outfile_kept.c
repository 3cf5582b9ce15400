/* SPDX-License-Identifier: MIT */
/* test_outfile_kept.c - output files kept across a change of credentials:
 * a write the directory refuses (here: the fault point that makes the
 * temporary file's creation fail with EACCES, as a directory closed to
 * the new user does) goes into the file made before the set*id, a
 * snapshot included; an accepted write renames over it as ever; without a
 * kept file the refusal is the writer's error; an exec removes a kept
 * file still empty and keeps a written one. The set*id hooks themselves
 * run in e2e (reliability.sh: worker_setuid with every output, and in a
 * sticky directory). */
#include "tests/unit/lp_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/hot/fault.h"
#include "preload/life/config.h"
#include "preload/life/outfile_kept.h"

static char dir[64], final[128];

static int fill_text(FILE *f, void *text)
{
    fputs(text, f);
    return ferror(f) ? -EIO : 0;
}

static char *slurp(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    size_t n;

    if (!f)
        return NULL;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static bool temporaries_left(void)
{
    char cmd[160];

    snprintf(cmd, sizeof(cmd), "ls %s/*.tmp.* >/dev/null 2>&1", dir);
    return system(cmd) == 0;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/lp-kept.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(lp_config.sarif, sizeof(lp_config.sarif), "%s/s.%%p", dir);
    lp_config.massif[0] = lp_config.pprof[0] = lp_config.html[0] = '\0';
    snprintf(final, sizeof(final), "%s/s.%d", dir, (int)getpid());
    lp_fault_mask = 0;
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    lp_fault_mask = 0;
    lp_outfile_kept_atfork_child(); /* closes what is kept */
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_a_refused_write_goes_into_the_kept_file(void **state)
{
    struct stat st;

    (void)state;
    lp_outfile_keep_all(false);
    assert_int_equal(stat(final, &st), 0); /* made now, empty */
    assert_int_equal(st.st_size, 0);
    lp_fault_mask = LP_FAULT_OPEN;
    assert_int_equal(lp_outfile_write(LP_OUT_SARIF, 0, final, fill_text,
                                      "the exit's report\n"), 0);
    assert_string_equal(slurp(final), "the exit's report\n");
    assert_false(temporaries_left());
    /* Written again (a second report): the file holds the new one only. */
    assert_int_equal(lp_outfile_write(LP_OUT_SARIF, 0, final, fill_text,
                                      "short\n"), 0);
    assert_string_equal(slurp(final), "short\n");
}

static void test_a_snapshot_stands_in_the_kept_file_until_the_exit(void **state)
{
    char snap[160];

    (void)state;
    snprintf(snap, sizeof(snap), "%s.3", final);
    lp_outfile_keep_all(false);
    lp_fault_mask = LP_FAULT_OPEN;
    assert_int_equal(lp_outfile_write(LP_OUT_SARIF, 3, snap, fill_text,
                                      "snapshot 3\n"), 0);
    assert_int_equal(access(snap, F_OK), -1);
    assert_string_equal(slurp(final), "snapshot 3\n");
    assert_int_equal(lp_outfile_kept_seq(LP_OUT_SARIF), 3);
    /* The directory accepts the exit's file: renamed over the kept one. */
    lp_fault_mask = 0;
    assert_int_equal(lp_outfile_write(LP_OUT_SARIF, 0, final, fill_text,
                                      "final\n"), 0);
    assert_string_equal(slurp(final), "final\n");
    assert_false(temporaries_left());
}

static void test_without_a_kept_file_a_refusal_is_an_error(void **state)
{
    (void)state;
    lp_fault_mask = LP_FAULT_OPEN;
    assert_int_equal(lp_outfile_write(LP_OUT_SARIF, 0, final, fill_text,
                                      "lost\n"), -EACCES);
    assert_int_equal(access(final, F_OK), -1);
    /* Nor does another output's kept file take it. */
    lp_outfile_keep_all(false);
    assert_int_equal(lp_outfile_write(LP_OUT_PPROF, 0, final, fill_text,
                                      "lost\n"), -EACCES);
    /* A fork child's: the parent's kept file is not its own. */
    lp_outfile_kept_atfork_child();
    assert_int_equal(lp_outfile_write(LP_OUT_SARIF, 0, final, fill_text,
                                      "lost\n"), -EACCES);
    assert_string_equal(slurp(final), "");
}

static void test_an_exec_removes_only_an_empty_kept_file(void **state)
{
    (void)state;
    lp_outfile_keep_all(false);
    lp_outfile_kept_before_exec();
    assert_int_equal(access(final, F_OK), -1);
    lp_outfile_keep_all(false);
    lp_fault_mask = LP_FAULT_OPEN;
    assert_int_equal(lp_outfile_write(LP_OUT_SARIF, 0, final, fill_text,
                                      "kept\n"), 0);
    lp_outfile_kept_before_exec();
    assert_string_equal(slurp(final), "kept\n");
    /* Closed by the exec: a refused write has nowhere to go now. */
    assert_int_equal(lp_outfile_write(LP_OUT_SARIF, 0, final, fill_text,
                                      "x\n"), -EACCES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a_refused_write_goes_into_the_kept_file,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_snapshot_stands_in_the_kept_file_until_the_exit,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_without_a_kept_file_a_refusal_is_an_error,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_exec_removes_only_an_empty_kept_file,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
