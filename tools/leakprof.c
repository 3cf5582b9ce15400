/* SPDX-License-Identifier: MIT */
/*
 * leakprof.c - the launcher: leakprof [--option=value ...] [--] prog [args]
 *
 * Turns --some-option=value into some_option=value in LEAKPROF_OPTIONS
 * (after any options already in the environment, so the command line
 * wins), puts libleakprof.so first in LD_PRELOAD, and execs the program,
 * so the program's exit status is the launcher's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("usage: leakprof [--option=value ...] [--] program [args...]\n"
          "\n"
          "Runs program with libleakprof.so preloaded: a Memcheck-style leak\n"
          "report at exit, massif.out.PID, snapshots on SIGUSR1.\n"
          "Options are LEAKPROF_OPTIONS keys with dashes, for example:\n"
          "  --log=FILE  --leak-check=no|summary|full\n"
          "  --show-leak-kinds=SET  --errors-for-leak-kinds=SET\n"
          "  --error-exitcode=N  --suppressions=FILE  --gen-suppressions=yes\n"
          "  --massif=FILE|0  --time-unit=B|ms|i  --depth=N\n"
          "  --log-format=text|json  --sarif=FILE  --snapshot-signal=SIG|0\n"
          "An option without a value means yes (--gen-suppressions).\n",
          f);
}

static int find_library(const char *argv0, char *out, size_t n)
{
    const char *env = getenv("LEAKPROF_LIB");
    char self[PATH_MAX], *slash;
    const char *rel[] = {"/libleakprof.so", "/../lib/leakprof/libleakprof.so"};
    ssize_t len;
    size_t i;

    if (env && *env) {
        snprintf(out, n, "%s", env);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) {
        snprintf(self, sizeof(self), "%s", argv0);
        len = strlen(self);
    }
    self[len] = 0;
    slash = strrchr(self, '/');
    if (slash)
        *slash = 0;
    for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        char cand[PATH_MAX + 64];

        snprintf(cand, sizeof(cand), "%s%s", self, rel[i]);
        if (access(cand, R_OK) == 0 && realpath(cand, out))
            return 0;
    }
    return -1;
}

/* Append "key=value" for one --option to buf. */
static int add_option(char *buf, size_t n, const char *arg)
{
    size_t len = strlen(buf);
    const char *eq = strchr(arg, '=');
    size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
    const char *val = eq ? eq + 1 : "yes";
    size_t i;

    if (klen == 0 || len + klen + strlen(val) + 3 > n)
        return -1;
    if (len)
        buf[len++] = ':';
    for (i = 0; i < klen; i++)
        buf[len++] = arg[i] == '-' ? '_' : arg[i];
    buf[len++] = '=';
    strcpy(buf + len, val);
    return 0;
}

int main(int argc, char **argv)
{
    char opts[8192] = "", lib[PATH_MAX], preload[PATH_MAX * 2];
    const char *old;
    int i;

    old = getenv("LEAKPROF_OPTIONS");
    if (old && strlen(old) < sizeof(opts))
        strcpy(opts, old);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            puts("leakprof 0.1");
            return 0;
        }
        if (a[0] != '-')
            break;
        if (a[1] != '-' || add_option(opts, sizeof(opts), a + 2) != 0) {
            fprintf(stderr, "leakprof: bad option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    if (find_library(argv[0], lib, sizeof(lib)) != 0) {
        fprintf(stderr, "leakprof: cannot find libleakprof.so (set LEAKPROF_LIB)\n");
        return 1;
    }
    old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof(preload), "%s%s%s", lib, old && *old ? ":" : "",
             old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv("LEAKPROF_OPTIONS", opts, 1);
    execvp(argv[i], argv + i);
    fprintf(stderr, "leakprof: cannot run '%s': %s\n", argv[i], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
