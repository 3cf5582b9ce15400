/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_OUTFILE_KEPT_H
#define LP_PRELOAD_OUTFILE_KEPT_H
/*
 * outfile_kept.h - output files kept across a change of credentials.
 *
 * A process that drops its privileges (nginx's workers, a daemon started
 * as root) may no longer create a file in its start-up directory, nor (in
 * a sticky directory such as /tmp) rename one over a file its old self
 * made: its profiles went lost at exit ("cannot write ... Permission
 * denied"). So before the first set*id each output's final file is made
 * and kept open, and a write the directory then refuses goes into it. A
 * process that execs removes its kept files still empty (the new image
 * writes its own), as report_log.c does for the log.
 * Context: COLD (guard held), except lp_outfile_keep_all (a set*id hook,
 * maybe in a signal handler: no lock, no allocation) and the fork and
 * exec hooks.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The outputs, each with at most one kept file. */
enum lp_outfile_kind {
    LP_OUT_MASSIF,
    LP_OUT_PPROF,
    LP_OUT_HTML,
    LP_OUT_SARIF,
    LP_OUT_XML,
    LP_OUT_KINDS
};

/* Output k's file name in this process (lp_config's name, %p expanded),
 * with ".seq" for a snapshot's (seq > 0). 0, -ENOENT when k is off, or
 * -ENAMETOOLONG. */
int lp_outfile_path(enum lp_outfile_kind k, unsigned seq, char *out,
                    size_t n);

/* Before a set*id (cred_hooks.c; no lock: it may be a signal handler's):
 * make and keep the final file of every output that is on (massif: when
 * massif_on). */
void lp_outfile_keep_all(bool massif_on);

/* Before an exec: remove the kept files still empty (the new image makes
 * its own) and close them. */
void lp_outfile_kept_before_exec(void);

/* In a fork child: the parent's kept files are not the child's. */
void lp_outfile_kept_atfork_child(void);

/* Write one output file of kind k: fill(f, arg) (0 or -errno) into path
 * through lp_outfile_open/commit; when the directory refuses that (EACCES,
 * EPERM, EROFS) and this process kept k's file, into that file instead.
 * seq: 0 for the final file; a snapshot's number otherwise, which then
 * stands in the kept file until the exit writes there (said on stderr
 * in one line). Returns 0 or a negative errno. */
typedef int lp_outfile_fill_fn(FILE *f, void *arg);
int lp_outfile_write(enum lp_outfile_kind k, unsigned seq, const char *path,
                     lp_outfile_fill_fn *fill, void *arg);

/* The snapshot that went into k's kept file last, 0 for none. */
unsigned lp_outfile_kept_seq(enum lp_outfile_kind k);


#endif /* LP_PRELOAD_OUTFILE_KEPT_H */
