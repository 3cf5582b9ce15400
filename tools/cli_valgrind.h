/* SPDX-License-Identifier: MIT */
#ifndef LP_TOOLS_CLI_VALGRIND_H
#define LP_TOOLS_CLI_VALGRIND_H
/*
 * cli_valgrind.h - Valgrind's options that leakprof has no key of its own
 * for, and what the launcher does with each.
 *
 * A command line written for Valgrind should run as it is. Three answers:
 *  - SAME: the option, with that value, asks for what leakprof does
 *    anyway (--track-origins=no, --leak-resolution=high, --demangle=yes),
 *    or tunes only Valgrind's own engine (--smc-check, --fair-sched,
 *    --vgdb, --max-stackframe, ...), which a native run has no use for:
 *    accepted and dropped;
 *  - MAP: it means one of our options (--default-suppressions=no is
 *    builtin_suppressions=no, --show-possibly-lost=no takes possible out
 *    of show_leak_kinds): *key and *value say which;
 *  - REFUSE: with that value it asks for something leakprof does not do
 *    (--track-origins=yes, --xml=yes): the launcher stops with one line
 *    saying why, rather than run with the option silently dropped.
 *
 * Context: the launcher process.
 */
#include <stddef.h>

#include "preload/life/config.h"

enum lp_vg_verdict {
    LP_VG_UNKNOWN, /* not a Valgrind option the table knows */
    LP_VG_SAME,
    LP_VG_MAP,
    LP_VG_REFUSE,
    LP_VG_BAD, /* a mapped option with a bad value: why lists the values */
};

struct lp_vg_answer {
    char key[64], value[128]; /* MAP: our key=value */
    const char *why; /* REFUSE: what leakprof does instead; BAD: values */
};

/* The verdict on --name[=value] (value NULL when no '=' was given);
 * now: the options applied so far (for show-possibly-lost). */
enum lp_vg_verdict lp_cli_valgrind(const char *name, const char *value,
                                   const struct lp_config *now,
                                   struct lp_vg_answer *a);

/* Each Valgrind option name the table knows, in turn (i from 0): for
 * did-you-mean; NULL past the end. */
const char *lp_cli_valgrind_name(size_t i);

#endif /* LP_TOOLS_CLI_VALGRIND_H */
