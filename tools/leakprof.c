/* SPDX-License-Identifier: MIT */
/*
 * leakprof.c - the launcher: leakprof [options] [--] prog [args]
 *
 * Reads the command line strictly (cli_options.c), appends the options to
 * LEAKPROF_OPTIONS after any already in the environment (so the command
 * line wins), behind an origin=cmdline marker so the library's warnings
 * can say where an option came from; puts libleakprof.so first in
 * LD_PRELOAD and execs the program, so the program's exit status is the
 * launcher's. `leakprof --snapshot PID` sends a running profiled process
 * the snapshot signal it was started with, tagged as ours.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/life/config.h"
#include "preload/life/snapshot_signal.h"
#include "tools/cli_options.h"
#include "tools/cli_target.h"

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

/* Read a whole /proc file (NUL-separated records) into buf; its length
 * or -1. */
static ssize_t read_proc(int pid, const char *what, char *buf, size_t n)
{
    char path[64];
    size_t len = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
    f = fopen(path, "re");
    if (!f)
        return -1;
    len = fread(buf, 1, n - 1, f);
    fclose(f);
    buf[len] = 0;
    return (ssize_t)len;
}

static void signal_name(int sig, char *out, size_t n)
{
    const char *abbrev = sigabbrev_np(sig);

    if (abbrev)
        snprintf(out, n, "SIG%s", abbrev);
    else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
        snprintf(out, n, "SIGRTMIN+%d", sig - SIGRTMIN);
    else
        snprintf(out, n, "signal %d", sig);
}

/* What the kernel does with sig in process pid (/proc/PID/status): 'C'
 * caught (our handler), 'I' ignored, 'D' default action, '?' unknown. */
static char disposition(int pid, int sig, char *buf, size_t n)
{
    unsigned long long caught = 0, ignored = 0, bit = 1ull << (sig - 1);
    const char *c, *i;

    if (read_proc(pid, "status", buf, n) < 0 ||
        !(c = strstr(buf, "\nSigCgt:")) || !(i = strstr(buf, "\nSigIgn:")) ||
        sscanf(c + 8, "%llx", &caught) != 1 ||
        sscanf(i + 8, "%llx", &ignored) != 1)
        return '?';
    return caught & bit ? 'C' : ignored & bit ? 'I' : 'D';
}

/*
 * --snapshot PID: the process decides which signal takes a snapshot
 * (snapshot_signal in the LEAKPROF_OPTIONS it was started with), so read
 * it from there, with the library's own parser. Refuse a process that
 * does not have libleakprof.so mapped: the signal's default action would
 * kill it.
 */
static int send_snapshot(int pid)
{
    static char buf[1 << 20];
    struct lp_config c;
    const char *opts = NULL;
    char name[32];
    ssize_t len, off;

    len = read_proc(pid, "maps", buf, sizeof(buf));
    if (len < 0) {
        fprintf(stderr, "leakprof: cannot read process %d: %s\n", pid,
                strerror(errno));
        return 1;
    }
    if (!strstr(buf, "/libleakprof.so")) {
        fprintf(stderr, "leakprof: process %d does not run under "
                        "libleakprof.so; no signal sent\n", pid);
        return 1;
    }
    len = read_proc(pid, "environ", buf, sizeof(buf));
    if (len < 0) {
        fprintf(stderr, "leakprof: cannot read the environment of process "
                        "%d: %s\n", pid, strerror(errno));
        return 1;
    }
    for (off = 0; off < len; off += strlen(buf + off) + 1)
        if (!strncmp(buf + off, "LEAKPROF_OPTIONS=", 17))
            opts = buf + off + 17;
    lp_config_parse(&c, opts, false);
    if (c.snapshot_signal == 0) {
        fprintf(stderr, "leakprof: process %d runs with snapshot_signal=0: "
                        "snapshots are off; no signal sent\n", pid);
        return 1;
    }
    signal_name(c.snapshot_signal, name, sizeof(name));
    switch (disposition(pid, c.snapshot_signal, buf, sizeof(buf))) {
    case 'I':
        fprintf(stderr, "leakprof: process %d ignores %s (SIG_IGN inherited "
                        "when it started), so it takes no snapshot on it; "
                        "no signal sent (start it with snapshot_signal=SIGRTMIN+2, "
                        "say)\n", pid, name);
        return 1;
    case 'D':
        fprintf(stderr, "leakprof: process %d does not catch %s (no handler "
                        "of the library's: a set-user-ID program?), which "
                        "would end it; no signal sent\n", pid, name);
        return 1;
    }
    /* Tagged: a program that handles the signal itself takes it as our
     * request, not as one of its own (snapshot_signal.h). */
    if (sigqueue(pid, c.snapshot_signal,
                 (union sigval){ .sival_int = LP_SNAPSHOT_TAG }) != 0) {
        fprintf(stderr, "leakprof: cannot send %s to process %d: %s\n", name,
                pid, strerror(errno));
        return 1;
    }
    fprintf(stderr, "leakprof: sent %s to process %d\n", name, pid);
    return 0;
}

int main(int argc, char **argv)
{
    static char opts[16384];
    struct lp_cli cli;
    char lib[PATH_MAX], preload[PATH_MAX * 2];
    const char *old;
    int rc;

    rc = lp_cli_parse(&cli, argc, argv);
    if (rc == LP_CLI_DONE)
        return 0;
    if (rc != LP_CLI_RUN)
        return 1;
    if (cli.snapshot_pid)
        return send_snapshot(cli.snapshot_pid);
    if (find_library(argv[0], lib, sizeof(lib)) != 0) {
        fprintf(stderr, "leakprof: cannot find libleakprof.so (set LEAKPROF_LIB)\n");
        return 1;
    }
    old = getenv("LEAKPROF_OPTIONS");
    snprintf(opts, sizeof(opts), "%s%s%s%s", old ? old : "",
             old && *old && cli.opts[0] ? ":" : "",
             cli.opts[0] ? "origin=cmdline:" : "", cli.opts);
    if (strlen(opts) >= 4096) {
        fprintf(stderr, "leakprof: LEAKPROF_OPTIONS would be too long (4096)\n");
        return 1;
    }
    old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof(preload), "%s%s%s", lib, old && *old ? ":" : "",
             old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv("LEAKPROF_OPTIONS", opts, 1);
    lp_cli_warn_unreachable(argv[cli.prog]);
    execvp(argv[cli.prog], argv + cli.prog);
    fprintf(stderr, "leakprof: cannot run '%s': %s\n", argv[cli.prog],
            strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
