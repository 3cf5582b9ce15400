/* SPDX-License-Identifier: MIT */
/*
 * report_log.c - where the leak report goes.
 *
 * Without log=, to the stderr the process started with (diag.c keeps a
 * private duplicate). With log=FILE, to that file, where %p is the pid:
 *  - a shared file (no %p) is truncated once, by the first process, at
 *    start-up; every report after, of this process or of any later one
 *    (fork child, traced exec'd program), is appended;
 *  - a %p file is this process's own: truncated the first time it is
 *    written, appended to after (the live reports, then the exit's).
 * A fork child's %p file is opened at the fork, as Valgrind opens it: a
 * worker that drops privileges (nginx's, apache's setuid to www-data)
 * could no longer create it in a directory of root's by the time of its
 * report (it went to stderr instead). The descriptor is one of ours
 * (fd_guard.h). If the child execs while its file is still empty, the
 * file goes: the program it becomes opens its own if it is traced, and a
 * fork+exec of an untraced one leaves nothing behind.
 * A process about to change its credentials (cred_hooks.c) opens its
 * file then, for the same reason: a daemon started as root that drops
 * them could not open its own %p file (nor append to a shared one, root's
 * 0644) at exit any more. A fork child opens a shared file at the fork
 * too (or keeps its parent's), to append to it as Valgrind's children
 * append to the log they inherit.
 * A file that cannot be opened costs one line, and the report goes to
 * stderr: nothing is lost.
 * log_fd=N (Valgrind's --log-fd) writes to a copy of N taken at start,
 * shared with fork children; child_silent_after_fork=yes silences a fork
 * child until it execs, as Valgrind's option.
 */
#include "preload/scan/report_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/life/config.h"
#include "preload/life/diag.h"
#include "preload/life/fd_guard.h"
#include "preload/life/root_dir.h"

#define OPEN_FLAGS (O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC)

static struct {
    bool truncated; /* this process's %p file was truncated (by truncated_pid) */
    int truncated_pid;
    int fd, fd_pid; /* a fork child's %p file, opened at the fork; -1: none */
    int log_fd;     /* log_fd=N, lifted out of the program's way; -1: none */
    int silent_pid; /* child_silent_after_fork: this fork child writes nothing */
} lg = {.fd = -1, .log_fd = -1};

void lp_report_log_begin(void)
{
    char path[LP_CONFIG_PATH_MAX + 32];
    int fd;

    if (lp_config.log_fd >= 0) {
        /* A copy of ours, as Valgrind keeps one: the program may close N
         * or reuse the number for a file of its own. */
        lg.log_fd = lp_fd_guard_dup_high(lp_config.log_fd);
        if (lg.log_fd < 0)
            lp_diag("log_fd=%d is not an open descriptor; report goes to "
                    "stderr", lp_config.log_fd);
        else
            lp_fd_guard_keep(&lg.log_fd);
        return;
    }

    if (!lp_config.log[0] || lp_config.exec_child ||
        lp_config_per_process(lp_config.log) ||
        lp_config_expand(lp_config.log, getpid(), path, sizeof(path)) != 0)
        return;
    fd = lp_root_open(path, OPEN_FLAGS | O_TRUNC, 0666);
    if (fd >= 0)
        close(fd);
}

void lp_report_log_write(const char *buf, size_t len, bool append_only)
{
    char path[LP_CONFIG_PATH_MAX + 32];
    const char *pattern = lp_config.log;
    int fd, pid = getpid(), flags = OPEN_FLAGS | O_APPEND;

    if (lg.silent_pid == pid)
        return;
    if (lg.log_fd >= 0) {
        lp_write_all(lg.log_fd, buf, len);
        return;
    }
    if (lg.fd >= 0 && lg.fd_pid == pid) {
        lp_write_all(lg.fd, buf, len);
        return;
    }
    if (!pattern[0]) {
        lp_stderr_write(buf, len);
        return;
    }
    if (lp_config_expand(pattern, pid, path, sizeof(path)) != 0) {
        lp_diag("log path '%s' too long, writing to stderr", pattern);
        lp_stderr_write(buf, len);
        return;
    }
    if (!append_only && lp_config_per_process(pattern) &&
        (!lg.truncated || lg.truncated_pid != pid))
        flags |= O_TRUNC;
    fd = lp_root_open(path, flags, 0666); /* the umask applies */
    if (fd < 0) {
        lp_diag("cannot open '%s': %s; report goes to stderr", path,
                strerror(errno));
        lp_stderr_write(buf, len);
        return;
    }
    lg.truncated = true;
    lg.truncated_pid = pid;
    lp_write_all(fd, buf, len);
    close(fd);
}

void lp_report_log_cannot_write(const char *path, const char *why)
{
    char buf[LP_CONFIG_PATH_MAX + 256];
    int n = snprintf(buf, sizeof(buf), "==%d== leakprof: cannot write '%s': %s\n",
                     (int)getpid(), path, why);

    if (n <= 0)
        return;
    if ((size_t)n >= sizeof(buf)) {
        n = (int)sizeof(buf) - 1;
        buf[n - 1] = '\n';
    }
    lp_report_log_write(buf, (size_t)n, false);
}

/* No lock: set*id may be called from a signal handler. */
void lp_report_log_keep_file(void)
{
    char path[LP_CONFIG_PATH_MAX + 32];
    int fd, pid = getpid(), flags = OPEN_FLAGS | O_APPEND;

    if (!lp_config.log[0] || (lg.fd >= 0 && lg.fd_pid == pid) ||
        lp_config_expand(lp_config.log, pid, path, sizeof(path)) != 0)
        return;
    if (lp_config_per_process(lp_config.log) &&
        (!lg.truncated || lg.truncated_pid != pid))
        flags |= O_TRUNC;
    fd = lp_root_open(path, flags, 0666); /* the umask applies */
    if (fd < 0)
        return; /* the report tries again, then stderr */
    if (lg.fd >= 0)
        lp_fd_guard_close(&lg.fd);
    lg.fd = lp_fd_guard_lift(fd);
    lg.fd_pid = pid;
    if (flags & O_TRUNC) {
        lg.truncated = true;
        lg.truncated_pid = pid;
    }
    lp_fd_guard_keep(&lg.fd);
}

void lp_report_log_atfork_child(void)
{
    char path[LP_CONFIG_PATH_MAX + 32];
    int fd, pid = getpid();
    bool shared = lp_config.log[0] && !lp_config_per_process(lp_config.log);

    if (lp_config.child_silent) {
        /* Valgrind's --child-silent-after-fork: nothing until an exec,
         * whose program starts afresh. */
        lg.silent_pid = pid;
        return;
    }
    if (lg.fd >= 0 && shared) {
        lg.fd_pid = pid; /* the one shared file: the child appends too */
        return;
    }
    if (!lp_config.log[0] ||
        lp_config_expand(lp_config.log, pid, path, sizeof(path)) != 0) {
        if (lg.fd >= 0) /* the parent's: not this child's to write */
            lp_fd_guard_close(&lg.fd);
        return;
    }
    /* A shared file as Valgrind's child shares its parent's: appended. */
    fd = lp_root_open(path, OPEN_FLAGS | O_APPEND | (shared ? 0 : O_TRUNC),
                      0666);
    if (fd < 0 && lg.fd >= 0) {
        /* No file of its own (a seccomp sandbox refuses the open, a
         * directory closed to it): its report goes after its parent's,
         * in the file the parent kept, not on the program's stderr. */
        lg.fd_pid = pid;
        return;
    }
    if (lg.fd >= 0) /* the parent's: not this child's to write */
        lp_fd_guard_close(&lg.fd);
    if (fd < 0)
        return; /* the report tries again, then stderr */
    lg.fd = lp_fd_guard_lift(fd);
    lg.fd_pid = pid;
    if (!shared) {
        lg.truncated = true;
        lg.truncated_pid = pid;
    }
    lp_fd_guard_keep(&lg.fd);
}

bool lp_report_log_shared(void)
{
    return lp_config.log_fd >= 0 || !lp_config.log[0] ||
           !lp_config_per_process(lp_config.log);
}

void lp_report_log_before_exec(void)
{
    char path[LP_CONFIG_PATH_MAX + 32];
    struct stat st;

    if (lg.fd < 0 || lg.fd_pid != getpid())
        return;
    if (lp_config_per_process(lp_config.log) && /* a shared file stays */
        fstat(lg.fd, &st) == 0 && st.st_size == 0 &&
        lp_config_expand(lp_config.log, getpid(), path, sizeof(path)) == 0)
        (void)lp_root_unlink(path);
    lp_fd_guard_close(&lg.fd);
    lg.truncated = false;
}
