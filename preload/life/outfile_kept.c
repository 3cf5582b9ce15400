/* SPDX-License-Identifier: MIT */
/*
 * outfile_kept.c - output files kept across a change of credentials (see
 * outfile_kept.h for why).
 *
 * Each output kind (massif.out, pprof, HTML, SARIF, XML) has at most one kept
 * file: made by lp_outfile_keep_all before the first set*id, while the
 * process may still create it, and owned by the process that made it (a
 * fork child writes its own, made at its own set*id). A write goes the
 * ordinary way first (a temporary file renamed into place: outfile.c);
 * only when the directory refuses the new file or the rename over the
 * kept one (EACCES, EPERM, EROFS: the directory is closed to the new
 * user; a sticky directory keeps it from replacing the old user's file)
 * is the kept file truncated and written instead. A final file written
 * by rename leaves the kept one to close; a snapshot written into it
 * stays there until the exit's final file replaces it.
 * Context: COLD (guard held); lp_outfile_keep_all from a set*id hook
 * (no lock: the hook may run in a signal handler), the fork and exec
 * hooks.
 */
#include "preload/life/outfile_kept.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/life/config.h"
#include "preload/life/diag.h"
#include "preload/life/fd_guard.h"
#include "preload/life/outfile.h"
#include "preload/life/root_dir.h"
#include "preload/lp.h"

static struct kept {
    int fd, pid;   /* the kept file, this process's when pid == getpid() */
    int keeping;   /* lp_outfile_keep_all is making it */
    unsigned seq;  /* the snapshot last written into it */
} kept[LP_OUT_KINDS] = {
    [0 ... LP_OUT_KINDS - 1] = { .fd = -1 },
};

static const char *name_of(enum lp_outfile_kind k)
{
    switch (k) {
    case LP_OUT_MASSIF: return lp_config.massif;
    case LP_OUT_PPROF: return lp_config.pprof;
    case LP_OUT_HTML: return lp_config.html;
    case LP_OUT_SARIF: return lp_config.sarif;
    case LP_OUT_XML: return lp_config.xml ? lp_config.xml_file : "";
    default: return "";
    }
}

int lp_outfile_path(enum lp_outfile_kind k, unsigned seq, char *out,
                    size_t n)
{
    const char *name = name_of(k);
    size_t len;

    if (!name[0])
        return -ENOENT;
    /* A relative name is the start-up directory's (root_dir.c). */
    if (n < 16 || lp_config_expand(name, getpid(), out, n - 16) != 0)
        return -ENAMETOOLONG;
    len = strlen(out);
    if (seq)
        snprintf(out + len, n - len, ".%u", seq);
    return 0;
}

static bool mine(const struct kept *c)
{
    return lp_load_relaxed(&c->fd) >= 0 && c->pid == getpid();
}

static void keep(enum lp_outfile_kind k)
{
    struct kept *c = &kept[k];
    char path[LP_CONFIG_PATH_MAX + 32];
    int fd;

    if (mine(c) || lp_xchg_acq_rel(&c->keeping, 1))
        return;
    if (lp_outfile_path(k, 0, path, sizeof(path)) == 0) {
        fd = lp_root_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
                                    O_CLOEXEC, 0666); /* the umask applies */
        if (fd >= 0) { /* else the writer tries by itself */
            c->fd = lp_fd_guard_lift(fd);
            c->pid = getpid();
            c->seq = 0;
            lp_fd_guard_keep(&c->fd);
        }
    }
    lp_store_release(&c->keeping, 0);
}

void lp_outfile_keep_all(bool massif_on)
{
    unsigned k;

    for (k = 0; k < LP_OUT_KINDS; k++)
        if (k != LP_OUT_MASSIF || massif_on)
            keep((enum lp_outfile_kind)k);
}

void lp_outfile_kept_before_exec(void)
{
    char path[LP_CONFIG_PATH_MAX + 32];
    struct stat st, now;
    unsigned k;
    int fd;

    for (k = 0; k < LP_OUT_KINDS; k++) {
        struct kept *c = &kept[k];

        if (!mine(c))
            continue;
        /* Still empty, and still the file at that name: ours to remove. */
        if (fstat(c->fd, &st) == 0 && st.st_size == 0 &&
            lp_outfile_path((enum lp_outfile_kind)k, 0, path, sizeof(path)) == 0 &&
            (fd = lp_root_open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0)) >= 0) {
            if (fstat(fd, &now) == 0 && now.st_ino == st.st_ino &&
                now.st_dev == st.st_dev)
                (void)lp_root_unlink(path);
            close(fd);
        }
        lp_fd_guard_close(&c->fd);
    }
}

void lp_outfile_kept_atfork_child(void)
{
    unsigned k;

    for (k = 0; k < LP_OUT_KINDS; k++) {
        kept[k].keeping = 0;
        if (kept[k].fd >= 0) /* the parent's: not this child's to write */
            lp_fd_guard_close(&kept[k].fd);
    }
}

unsigned lp_outfile_kept_seq(enum lp_outfile_kind k)
{
    return k < LP_OUT_KINDS ? lp_load_relaxed(&kept[k].seq) : 0;
}

/* fill into the kept file, from its start. 0 or -errno. */
static int write_kept(struct kept *c, lp_outfile_fill_fn *fill, void *arg)
{
    int fd, rc;
    FILE *f;

    if (ftruncate(c->fd, 0) != 0 || lseek(c->fd, 0, SEEK_SET) < 0)
        return -errno;
    fd = fcntl(c->fd, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return -errno;
    f = fdopen(fd, "w");
    if (!f) {
        rc = -errno;
        close(fd);
        return rc;
    }
    rc = fill(f, arg);
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

/* The directory refuses a new file: closed to the new user, read-only,
 * or a seccomp sandbox's refusal (man-db's says ENOSYS). */
static bool refused(int e)
{
    return e == EACCES || e == EPERM || e == EROFS || e == ENOSYS;
}

int lp_outfile_write(enum lp_outfile_kind k, unsigned seq, const char *path,
                     lp_outfile_fill_fn *fill, void *arg)
{
    struct kept *c = k < LP_OUT_KINDS ? &kept[k] : NULL;
    char tmp[LP_CONFIG_PATH_MAX + 64], final[LP_CONFIG_PATH_MAX + 32];
    FILE *f = lp_outfile_open(path, tmp, sizeof(tmp));
    int rc, e;

    if (f) {
        rc = lp_outfile_commit(f, tmp, path, fill(f, arg));
        if (rc == 0) {
            if (seq == 0 && c && mine(c))
                lp_fd_guard_close(&c->fd); /* the file renamed over it */
            return 0;
        }
        e = -rc;
    } else {
        e = errno;
    }
    if (!c || !mine(c) || !refused(e))
        return -e;
    rc = write_kept(c, fill, arg);
    if (rc == 0 && seq != 0) {
        /* A snapshot after the set*id: it cannot have a file of its own,
         * so it goes where it can, into the final file, which the exit
         * replaces - the latest snapshot is there to read meanwhile. */
        lp_store_relaxed(&c->seq, seq);
        if (lp_outfile_path(k, 0, final, sizeof(final)) != 0)
            snprintf(final, sizeof(final), "%s", name_of(k));
        lp_diag("cannot create '%s' (%s, since the process changed its "
                "credentials): snapshot %u is in '%s' until the exit "
                "writes its profile there",
                path, strerror(e), seq, final);
    }
    return rc;
}
