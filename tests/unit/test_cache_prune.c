/* SPDX-License-Identifier: MIT */
/*
 * test_cache_prune.c - the cache directory stays bounded: dead writers'
 * temporary files, other builds' files unused for a month and, over the
 * size bound, the least recently used files go; this build's recent
 * files, files being written and anything not named as the cache names
 * its files stay; the once-a-day stamp holds back a second pass.
 */
#include "lp_test.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/cache_prune.h"

#define SELF "0123456789ab"
#define OTHER "fedcba987654"
#define DAY 86400

static char dir[64];

/* A file of size bytes, last modified and read days_ago days before now. */
static void put(const char *name, size_t size, time_t now, long days_ago)
{
    char path[256];
    struct timespec ts[2];
    char *buf = calloc(1, size + 1);
    int fd;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, size), (ssize_t)size);
    close(fd);
    free(buf);
    ts[0].tv_sec = ts[1].tv_sec = now - days_ago * DAY;
    ts[0].tv_nsec = ts[1].tv_nsec = 0;
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static bool there(const char *name)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/lp_prune_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_age_rules(void **state)
{
    time_t now = time(NULL);
    struct lp_cache_prune_stats st;

    (void)state;
    put("aaaa." SELF ".sym", 100, now, 400);      /* ours, old: stays */
    put("bbbb." OTHER ".sym", 200, now, 31);      /* other build, unused */
    put("cccc." OTHER ".rules", 300, now, 29);    /* other build, recent */
    put("dddd." OTHER ".rules", 50, now, 45);     /* other build, unused */
    put("eeee." SELF ".sym.tmp.4242", 10, now, 2); /* a writer that died */
    put("ffff." SELF ".sym.tmp.4243", 10, now, 0); /* a writer at work */
    put("notes.txt", 10, now, 900);               /* not ours */
    put("gggg.XYZ.sym", 10, now, 900);            /* not a build id */
    put("hhhh." OTHER ".symx", 10, now, 900);     /* not our suffix */
    put("93ac61ec5a8eb1396f9fbd350e3169a558528a40.dbg", 70, now, 400); /* any build's */
    put("9a.dbg", 10, now, 900);                  /* too short for a build-id */
    put("93ac61ec5a8eb139.dbg.tmp.77", 10, now, 3); /* a dead inflater */
    put("93ac61ec5a8eb139.dbg.lock", 0, now, 2);    /* its lock */
    put("93ac61ec5a8eb13a.dbg.lock", 0, now, 0);    /* a maker's at work */

    assert_int_equal(lp_cache_prune(dir, SELF, now, 1 << 20, &st), 0);
    assert_true(there("aaaa." SELF ".sym"));
    assert_false(there("bbbb." OTHER ".sym"));
    assert_true(there("cccc." OTHER ".rules"));
    assert_false(there("dddd." OTHER ".rules"));
    assert_false(there("eeee." SELF ".sym.tmp.4242"));
    assert_true(there("ffff." SELF ".sym.tmp.4243"));
    assert_true(there("notes.txt"));
    assert_true(there("gggg.XYZ.sym"));
    assert_true(there("hhhh." OTHER ".symx"));
    assert_true(there("93ac61ec5a8eb1396f9fbd350e3169a558528a40.dbg"));
    assert_true(there("9a.dbg"));
    assert_false(there("93ac61ec5a8eb139.dbg.tmp.77"));
    assert_false(there("93ac61ec5a8eb139.dbg.lock"));
    assert_true(there("93ac61ec5a8eb13a.dbg.lock"));
    assert_int_equal(st.removed, 5);
    assert_int_equal(st.removed_bytes, 200 + 50 + 10 + 10);
    assert_int_equal(st.kept, 3);
    assert_int_equal(st.kept_bytes, 100 + 300 + 70);
}

static void test_size_bound_lru(void **state)
{
    time_t now = time(NULL);
    struct lp_cache_prune_stats st;
    char name[64];
    int i;

    (void)state;
    /* Ten files of 1000 bytes, file i used i days ago; the bound 5000
     * bytes: the oldest go until at most 3750 are left (three files). */
    for (i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "%04d.%s.sym", i, i % 2 ? SELF : OTHER);
        put(name, 1000, now, i);
    }
    assert_int_equal(lp_cache_prune(dir, SELF, now, 5000, &st), 0);
    assert_int_equal(st.kept, 3);
    assert_int_equal(st.kept_bytes, 3000);
    assert_int_equal(st.removed, 7);
    for (i = 0; i < 10; i++) {
        snprintf(name, sizeof(name), "%04d.%s.sym", i, i % 2 ? SELF : OTHER);
        assert_int_equal(there(name), i < 3);
    }
    /* Under the bound: nothing more goes. */
    assert_int_equal(lp_cache_prune(dir, SELF, now, 5000, &st), 0);
    assert_int_equal(st.removed, 0);
    assert_int_equal(st.kept, 3);
}

static void test_missing_dir(void **state)
{
    (void)state;
    assert_true(lp_cache_prune("/nonexistent/leakprof-cache", SELF, time(NULL),
                               1000, NULL) < 0);
}

/* Each call in a child of its own, as each exit of a process: the first
 * prunes and leaves prune.stamp, the next finds the stamp fresh and
 * leaves the directory alone, and once the stamp is a day old a pass
 * runs again. */
static void prune_in_child(void)
{
    pid_t pid = fork();
    int status;

    assert_true(pid >= 0);
    if (pid == 0) {
        lp_cache_prune_maybe(dir, SELF);
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_stamp(void **state)
{
    time_t now = time(NULL);

    (void)state;
    put("bbbb." OTHER ".sym", 200, now, 40);
    prune_in_child();
    assert_false(there("bbbb." OTHER ".sym"));
    assert_true(there("prune.stamp"));
    put("cccc." OTHER ".sym", 200, now, 40);
    prune_in_child();
    assert_true(there("cccc." OTHER ".sym")); /* pruned less than a day ago */
    put("prune.stamp", 0, now, 2);
    prune_in_child();
    assert_false(there("cccc." OTHER ".sym"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_age_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_bound_lru, setup, teardown),
        cmocka_unit_test(test_missing_dir),
        cmocka_unit_test_setup_teardown(test_stamp, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
