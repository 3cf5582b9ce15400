/* SPDX-License-Identifier: MIT */
#ifndef LP_TOOLS_CLI_OPTIONS_H
#define LP_TOOLS_CLI_OPTIONS_H
/*
 * cli_options.h - the leakprof launcher's command line, read strictly.
 *
 * Every --key-with-dashes of preload/life/config.c's option table, Valgrind's
 * spellings of the same things (--log-file, --num-callers,
 * --massif-out-file, -q, -s, -v, --tool=memcheck|massif, ...), and the
 * launcher's own (--help, --version, --snapshot PID). Each option is
 * validated with the library's own setter (lp_config_apply), so the
 * launcher accepts exactly what the library accepts; an unknown option, a
 * Valgrind option we do not implement, or a bad value is one line on
 * stderr with a did-you-mean suggestion, before any program runs.
 *
 * Context: the launcher process (plain libc, stdio).
 */
#include <stdbool.h>
#include <stdio.h>

#include "preload/life/config.h"

struct lp_cli {
    char opts[8192];     /* key=value items for LEAKPROF_OPTIONS, ':' joined */
    struct lp_config check; /* the options applied in order, as the library will */
    int prog;            /* argv index of the program; 0 when none */
    int snapshot_pid;    /* --snapshot PID: nonzero */
};

enum {
    LP_CLI_RUN = 0,   /* run cli->prog (or signal cli->snapshot_pid) */
    LP_CLI_DONE = 1,  /* --help or --version printed: exit 0 */
    LP_CLI_ERROR = 2, /* one line printed on stderr: exit 1 */
};

/* Read argv[1..] up to the program (first non-option or after "--"). */
int lp_cli_parse(struct lp_cli *cli, int argc, char **argv);

/* The complete --help text: every option of the table, every Valgrind
 * spelling and the launcher's own. */
void lp_cli_usage(FILE *f);

/* Levenshtein distance of a and b (both at most 63 characters are
 * compared; longer strings count as far apart). */
int lp_cli_distance(const char *a, const char *b);

#endif /* LP_TOOLS_CLI_OPTIONS_H */
