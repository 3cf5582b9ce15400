/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_OUTFILE_H
#define LP_PRELOAD_OUTFILE_H
/*
 * outfile.h - creating leakprof's output files safely: a temporary name
 * opened with O_EXCL | O_NOFOLLOW, mode 0666 & ~umask, renamed into place.
 * Context: COLD, guard held (stdio on our own file).
 */
#include <stdio.h>

/* Open a new temporary file for path; its name goes to tmp. When path is
 * a device, FIFO or socket, path itself is opened and tmp is "". NULL
 * with errno set on failure. */
FILE *lp_outfile_open(const char *path, char *tmp, size_t tmpsz);

/* Close f and, when rc (the writer's result, 0 or -errno) is 0 and the
 * close succeeds, rename tmp to path; otherwise remove tmp (nothing to
 * rename or remove when tmp is ""). Returns 0 or a negative errno. */
int lp_outfile_commit(FILE *f, const char *tmp, const char *path, int rc);

#endif /* LP_PRELOAD_OUTFILE_H */
