/* SPDX-License-Identifier: MIT */
/*
 * root_dir.c - the root directory the process started with, kept open.
 *
 * A daemon that chroots itself into an empty directory (bind's -t, a
 * privilege-separated sshd child, vsftpd, ntpd) used to leave us without
 * /proc/self/maps at exit: "leak search failed" and every leak counted
 * as nothing, and no massif file ("cannot write", the start-up directory
 * being gone). Memcheck needs no /proc at exit. So an O_PATH descriptor
 * of "/" is taken at start (at a high number, close-on-exec, kept from
 * the program by fd_guard.c) and every absolute path we open (/proc/self,
 * the log, massif.out, the profiles) is looked up from it with the *at
 * calls. Relative ones are taken from the directory the process started
 * in: Valgrind opens --log-file and writes massif.out.PID there whatever
 * the program's chdir() did since (a report of ours used to land in the
 * directory the program ended in, with an empty file left where it
 * started). That directory is kept by name, not open: a daemon that
 * leaves it (chdir("/")) must leave its file system free to unmount.
 * Paths opened before the constructor ran go from the current directory.
 * For a program that neither chroots nor changes directory nothing
 * changes.
 * Context: BOOT (lp_root_dir_init), then any: the calls are system calls.
 */
#include "preload/life/root_dir.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "preload/life/fd_guard.h"
#include "preload/lp.h"

static int root_fd = -1;
static char start_dir[PATH_MAX]; /* "": unknown (the current one, then) */

void lp_root_dir_init(void)
{
    int fd;

    if (root_fd >= 0)
        return; /* a fork child: its parent's, as Valgrind's are */
    if (getcwd(start_dir, sizeof(start_dir)) == NULL || start_dir[0] != '/')
        start_dir[0] = '\0';
    fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    /* Off the low numbers: the program's first open must still get 3. */
    lp_store_relaxed(&root_fd, lp_fd_guard_lift(fd));
    lp_fd_guard_keep(&root_fd);
}

/* A relative path made absolute from the start-up directory, in buf
 * (path itself when unknown or too long). */
static const char *from_start(const char *path, char *buf, size_t n)
{
    int r;

    if (path[0] == '/' || start_dir[0] == '\0')
        return path;
    r = snprintf(buf, n, "%s/%s", start_dir, path);
    return r > 0 && (size_t)r < n ? buf : path;
}

int lp_root_dir(const char **path)
{
    int fd = lp_load_relaxed(&root_fd);

    if (fd < 0 || (*path)[0] != '/')
        return AT_FDCWD;
    while ((*path)[0] == '/')
        (*path)++;
    if ((*path)[0] == '\0')
        *path = ".";
    return fd;
}

int lp_root_open(const char *path, int flags, mode_t mode)
{
    char buf[PATH_MAX];
    int dir;

    path = from_start(path, buf, sizeof(buf));
    dir = lp_root_dir(&path);

    return openat(dir, path, flags, mode);
}

int lp_root_rename(const char *from, const char *to)
{
    char fbuf[PATH_MAX], tbuf[PATH_MAX];
    int fdir, tdir;

    from = from_start(from, fbuf, sizeof(fbuf));
    to = from_start(to, tbuf, sizeof(tbuf));
    fdir = lp_root_dir(&from);
    tdir = lp_root_dir(&to);

    return renameat(fdir, from, tdir, to);
}

int lp_root_unlink(const char *path)
{
    char buf[PATH_MAX];
    int dir;

    path = from_start(path, buf, sizeof(buf));
    dir = lp_root_dir(&path);

    return unlinkat(dir, path, 0);
}

ssize_t lp_root_readlink(const char *path, char *buf, size_t size)
{
    char full[PATH_MAX];
    int dir;

    path = from_start(path, full, sizeof(full));
    dir = lp_root_dir(&path);

    return readlinkat(dir, path, buf, size);
}

/* path = prefix + name, or false when it does not fit. */
static bool proc_path(char *path, size_t n, const char *prefix,
                      const char *name)
{
    int r = snprintf(path, n, "%s%s", prefix, name);

    return r > 0 && (size_t)r < n;
}

int lp_proc_self_open(const char *name, int flags)
{
    char path[96];
    int fd = -1;

    if (proc_path(path, sizeof(path), "/proc/thread-self/", name))
        fd = lp_root_open(path, flags, 0);
    if (fd < 0 && proc_path(path, sizeof(path), "/proc/self/", name))
        fd = lp_root_open(path, flags, 0);
    return fd;
}

ssize_t lp_proc_read_of(const char *dir, pid_t id, const char *name,
                        char *buf, size_t size)
{
    char path[96];
    int r = snprintf(path, sizeof(path), "/proc/%s%d/%s", dir, (int)id, name);
    int fd;
    ssize_t n;

    if (r <= 0 || (size_t)r >= sizeof(path) || size == 0)
        return -1;
    fd = lp_root_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

ssize_t lp_proc_self_readlink(const char *name, char *buf, size_t size)
{
    char path[96];
    ssize_t n = -1;

    if (proc_path(path, sizeof(path), "/proc/thread-self/", name))
        n = lp_root_readlink(path, buf, size);
    if (n < 0 && proc_path(path, sizeof(path), "/proc/self/", name))
        n = lp_root_readlink(path, buf, size);
    return n;
}
