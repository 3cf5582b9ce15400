/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_CONFIG_H
#define LP_PRELOAD_CONFIG_H
/*
 * config.h - LEAKPROF_OPTIONS, parsed once without allocating.
 *
 * The variable is a colon-separated list of key=value (DESIGN.md has the
 * table). Unknown keys and bad values give one warning line each on
 * stderr and are ignored; the program always runs.
 *
 * Context: BOOT (lp_config_parse), then read-only everywhere.
 */
#include "preload/lp.h"

#define LP_CONFIG_PATH_MAX 1024
#define LP_CONFIG_MAX_SUPP 16

enum lp_time_unit { LP_TIME_B = 0, LP_TIME_MS, LP_TIME_I };

struct lp_config {
    char log[LP_CONFIG_PATH_MAX];     /* "" = stderr */
    int leak_check;                   /* enum lp_leak_check */
    unsigned show_kinds, error_kinds; /* LP_KIND_BIT sets */
    int error_exitcode;
    char suppressions[LP_CONFIG_MAX_SUPP][LP_CONFIG_PATH_MAX];
    int nsuppressions;
    bool builtin_suppressions;
    char massif[LP_CONFIG_PATH_MAX]; /* "" = disabled */
    enum lp_time_unit time_unit;
    int detailed_freq, max_snapshots;
    double threshold, peak_inaccuracy;
    int depth;
    int snapshot_signal; /* 0 = disabled */
    uint64_t sample_bytes;
    bool unwind_fp;
    bool trace_children;
    bool log_json;
    char sarif[LP_CONFIG_PATH_MAX];
    char pprof[LP_CONFIG_PATH_MAX]; /* "" = none; %p expands */
    char html[LP_CONFIG_PATH_MAX];  /* "" = none; %p expands */
    bool gen_suppressions;
    int verbosity;
    char options_text[4096]; /* LEAKPROF_OPTIONS as given, for desc: */
};

extern struct lp_config lp_config;

/* Set defaults, then apply text (a LEAKPROF_OPTIONS value; may be NULL).
 * Returns the number of problems reported. warn == false stays silent. */
int lp_config_parse(struct lp_config *c, const char *text, bool warn);

/* Expand %p (pid) and %% in pattern into out. Returns 0 or -ENAMETOOLONG. */
int lp_config_expand(const char *pattern, int pid, char *out, size_t n);

#endif /* LP_PRELOAD_CONFIG_H */
