/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - how leakprof creates the files it writes (massif.out, SARIF).
 *
 * A reader must never see half a file, and a file must never land where
 * the user did not ask: each file is written under a fresh temporary name
 * in the same directory, created with O_EXCL (never an existing file, never
 * through a symlink), with mode 0666 minus the umask as any program's
 * output, and renamed into place once complete. Absolute paths are taken
 * from the root the process started with (root_dir.c: a program that
 * chroots itself).
 *
 * A destination that exists and is no regular file or directory
 * (`massif=/dev/null`, a FIFO, `/dev/stderr`) is opened and written
 * directly, as Valgrind writes it: renamed over, /dev/null became a
 * regular file (as root), for every program after.
 * Context: COLD, guard held.
 */
#include "preload/life/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/hot/fault.h"
#include "preload/life/root_dir.h"

/* Whether path (its symlinks followed) is a device, FIFO or socket. */
static bool is_special(const char *path)
{
    int fd = lp_root_open(path, O_PATH | O_CLOEXEC, 0);
    struct stat st;
    bool special;

    if (fd < 0)
        return false;
    special = fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) &&
              !S_ISDIR(st.st_mode);
    close(fd);
    return special;
}

FILE *lp_outfile_open(const char *path, char *tmp, size_t tmpsz)
{
    unsigned attempt;
    FILE *f;
    int fd = -1, e;

    if (tmpsz == 0) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    tmp[0] = '\0'; /* no temporary file: written in place */
    if (is_special(path) &&
        (fd = lp_root_open(path, O_WRONLY | O_CLOEXEC, 0)) < 0)
        return NULL;
    for (attempt = 0; attempt < 100 && fd < 0; attempt++) {
        int n = attempt ? snprintf(tmp, tmpsz, "%s.tmp.%d.%u", path,
                                   (int)getpid(), attempt)
                        : snprintf(tmp, tmpsz, "%s.tmp.%d", path,
                                   (int)getpid());

        if (n < 0 || (size_t)n >= tmpsz) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        if (lp_fault(LP_FAULT_OPEN)) {
            errno = EACCES;
            return NULL;
        }
        fd = lp_root_open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                                   O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return NULL;
    }
    if (fd < 0)
        return NULL;
    f = fdopen(fd, "w");
    if (!f) {
        e = errno;
        close(fd);
        if (tmp[0])
            lp_root_unlink(tmp);
        errno = e;
    }
    return f;
}

int lp_outfile_commit(FILE *f, const char *tmp, const char *path, int rc)
{
    if (rc == 0 && lp_fault(LP_FAULT_WRITE)) {
        rc = -ENOSPC;
    }
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    if (tmp[0] == '\0')
        return rc; /* written in place (a device, a FIFO) */
    if (rc == 0 && lp_fault(LP_FAULT_RENAME))
        rc = -EXDEV;
    else if (rc == 0 && lp_root_rename(tmp, path) != 0)
        rc = -errno;
    if (rc != 0)
        lp_root_unlink(tmp);
    return rc;
}
