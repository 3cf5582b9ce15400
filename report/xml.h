/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_XML_H
#define LP_REPORT_XML_H
/*
 * xml.h - the leak report as Valgrind Memcheck's XML (--xml=yes, XML
 * protocol version 4), the format CI tools (Jenkins' Valgrind plugin,
 * IDEs) read.
 *
 * Context: COLD (exit-time report). Memory: plain malloc, freed before
 * return. Output goes through stdio.
 *
 * The document, in the order Memcheck writes it:
 *   <?xml version="1.0"?> <valgrindoutput> <protocolversion>4
 *   <protocoltool>memcheck <preamble> (our tool line, Command:) <pid>
 *   <ppid> <tool>memcheck [<usercomment>] <args> (<vargv>: the launcher
 *   and its options;
 *   <argv>: the program) <status> RUNNING        -- lp_xml_begin
 *   <status> FINISHED                             -- lp_xml_finished
 *   one <error> per loss record the text report prints, each followed
 *   (gen_suppressions) by its <suppression>      -- lp_leaks_xml
 *   <errorcounts> <suppcounts> </valgrindoutput>  -- lp_xml_end
 * Every string from the program goes through lp_xml_text.
 */
#include <stdint.h>
#include <stdio.h>

#include "report/leaks.h"
#include "report/suppress.h"
#include "report/symbolize.h"

struct lp_xml_head {
    int pid, ppid;
    const char *command;  /* the program's argv, NUL-separated */
    size_t command_len;
    const char *vargv_exe;          /* "leakprof" */
    const char *const *vargv;       /* the options, as --key=value */
    int nvargv;
    uint64_t start_ms;              /* RUNNING's time */
    const char *user_comment;       /* <usercomment>, verbatim; NULL: none */
};

/*
 * Write s as XML character data: & < > escaped, valid UTF-8 passed
 * through, a byte XML 1.0 cannot carry (a control character other than
 * tab and newline, an invalid UTF-8 sequence's bytes) written as '?'.
 * NULL writes nothing.
 */
void lp_xml_text(FILE *out, const char *s);

/* Valgrind's elapsed time "DD:HH:MM:SS.mmm " (with its trailing space)
 * for ms milliseconds, into buf (at least 24 bytes). Returns buf. */
char *lp_xml_time(char *buf, size_t n, uint64_t ms);

/* The document's start, through the RUNNING status. */
void lp_xml_begin(FILE *out, const struct lp_xml_head *h);

/* The FINISHED status, ms milliseconds after the start. */
void lp_xml_finished(FILE *out, uint64_t ms);

/*
 * One <error> per loss record the text report shows (full mode, kind in
 * opts->show_kinds, not suppressed), in Memcheck's order (sorts set),
 * with <unique> the record's number less one, as Memcheck's. With
 * opts->gen_suppressions, each is followed by its <suppression>.
 * Returns 0 or -errno.
 */
int lp_leaks_xml(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                 const struct lp_leak_opts *opts);

/* <stack> with one <frame> per frame (n of them; an empty stack writes
 * Memcheck's unknown frame, ip 0x0), frames of self_obj as Memcheck's
 * replacement functions: obj and fn only. */
void lp_xml_stack(FILE *out, const struct lp_sym_frame *f, int n,
                  const char *self_obj);

/*
 * The <suppression> element for raw, a suppression as lp_supp_gen
 * writes it ("{", name, kind, optional aux line, frames, "}"), indented
 * as Memcheck's, with raw itself in <rawtext>.
 */
void lp_xml_suppression(FILE *out, const char *raw);
/* The end of an <error>: its <suppression> (raw: a generated entry's text,
 * or NULL), "</error>", and the suppression again after it, as Memcheck
 * writes them. */
void lp_xml_error_end(FILE *out, const char *raw);

/*
 * <errorcounts>: one pair per heap error context, count[u] for unique u
 * (nuniques of them), the latest first, as Memcheck lists them; leaks
 * are not counted there. <suppcounts>: one pair per Valgrind entry of
 * each set (may be NULL) that suppressed something, most recently used
 * first. Then the end of the document.
 */
void lp_xml_end(FILE *out, const unsigned *count, unsigned nuniques,
                const struct lp_supp *const *supps, int nsupps);

#endif /* LP_REPORT_XML_H */
