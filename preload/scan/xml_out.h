/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_XML_OUT_H
#define LP_PRELOAD_XML_OUT_H
/*
 * xml_out.h - xml=yes: the exit's report as Memcheck's XML, written to
 * xml_file (%p: pid, a file per process, as the other outputs) or to
 * descriptor xml_fd. report/xml.c formats it; this file gathers what the
 * document's head names and writes it. With xml=yes the text report is
 * not written, as Memcheck's --xml=yes writes no text commentary.
 * Context: BOOT (lp_xml_out_note_options), COLD (the rest, lock of
 * leakcheck.c held).
 */
#include <stdbool.h>
#include <stdint.h>

#include "report/heap_errors.h"
#include "report/leaks.h"
#include "report/suppress.h"
#include "report/symbolize.h"

/* At start-up: the options text this process was started with (its
 * items become <vargv>), and the time (RUNNING's). */
void lp_xml_out_note_options(const char *text);

/* xml=yes with a destination. */
/* BOOT: xml_fd=N is copied to a descriptor of ours (fd_guard.h), as
 * log_fd is, so the program may close N before the exit writes. */
void lp_xml_out_begin(void);

bool lp_xml_out_on(void);

/*
 * A heap error of a new context ci (heap_errors.c's index), shown: its
 * <error> is formatted now (its stacks may not symbolize at exit: a
 * library unloaded) and kept for the document, with a count of 1. The
 * caller holds the symbolizer (lp_leakcheck_sym_get).
 */
void lp_xml_out_heap_error(int ci, const struct lp_heap_error *e, int tid,
                           struct lp_sym *sym, const char *self_obj);

/* One more error of context ci, already shown. */
void lp_xml_out_heap_repeat(int ci);

/* In a fork child: the lock is the child's (the errors kept stay). */
void lp_xml_out_atfork_child(void);

/* Write the document: set's records (lp_leaks_xml), the suppressions
 * used in supp and err_supp (either may be NULL), finished_ms (ms since
 * the process started) as FINISHED's time. Says on the log in one line
 * when the file cannot be written. */
void lp_xml_out_write(struct lp_leak_set *set, struct lp_sym *sym,
                      const struct lp_leak_opts *o, const struct lp_supp *supp,
                      const struct lp_supp *err_supp, uint64_t finished_ms);

#endif /* LP_PRELOAD_XML_OUT_H */
