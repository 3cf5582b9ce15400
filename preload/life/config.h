/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_CONFIG_H
#define LP_PRELOAD_CONFIG_H
/*
 * config.h - LEAKPROF_OPTIONS, parsed once without allocating.
 *
 * The variable is a list of key=value separated by ':' or whitespace, as
 * ASAN_OPTIONS is (DESIGN.md has the table); a value may be quoted ('...'
 * or "...") to hold either. Every option is one row of lp_options[]: its key, its default,
 * the values it takes and its setter. The library and the leakprof
 * launcher both parse through that table, so an option is added in one
 * place and the launcher validates exactly what the library accepts.
 *
 * Two rules on bad input, one per caller:
 *  - inside the library (lp_config_parse, warn == true) an unknown key or
 *    a bad value gives one warning line, saying where it came from
 *    (LEAKPROF_OPTIONS or the leakprof command line), and is ignored: the
 *    program always runs;
 *  - the launcher applies each option with lp_config_apply and stops at
 *    the first error, before the program runs.
 *
 * Context: BOOT (lp_config_parse), then read-only everywhere. Also linked
 * into the leakprof launcher (tools/leakprof.c).
 */
#include "preload/lp.h"

#define LP_CONFIG_PATH_MAX 1024
#define LP_CONFIG_MAX_SUPP 16

enum lp_time_unit { LP_TIME_B = 0, LP_TIME_MS, LP_TIME_I };

struct lp_config {
    char log[LP_CONFIG_PATH_MAX];     /* "" = stderr (or log_fd) */
    int log_fd;                       /* -1: none */
    bool child_silent;                /* child_silent_after_fork=yes */
    int leak_check;                   /* enum lp_leak_check */
    unsigned show_kinds, error_kinds; /* LP_KIND_BIT sets */
    unsigned heuristics;              /* 1u << LP_HEUR_* (report/leaks.h) */
    int leak_resolution;              /* frames to agree on; 0: all */
    bool time_stamp;                  /* report lines stamped */
    bool no_demangle;                 /* demangle=no */
    bool show_below_main;             /* frames below main by their names */
    /* fullpath_after: each value given, NUL-terminated, one after the
     * other (an empty one too): frames show their source paths. */
    char fullpath_after[LP_CONFIG_PATH_MAX];
    int nfullpath_after;
    int malloc_fill, free_fill;       /* a byte, or -1: none */
    char error_markers[256];          /* "BEGIN,END", or "" */
    int error_exitcode;
    char suppressions[LP_CONFIG_MAX_SUPP][LP_CONFIG_PATH_MAX];
    int nsuppressions;
    bool builtin_suppressions;
    char massif[LP_CONFIG_PATH_MAX]; /* "" = disabled */
    enum lp_time_unit time_unit;
    int detailed_freq, max_snapshots;
    double threshold, peak_inaccuracy;
    int depth;
    int heap_admin; /* massif's admin bytes a block (Massif's --heap-admin) */
    /* alloc_fn=NAME, each given: more functions massif's trees take for
     * allocators (Massif's --alloc-fn), NUL-separated, "" at the end. */
    char alloc_fns[LP_CONFIG_PATH_MAX];
    int snapshot_signal; /* 0 = disabled */
    bool live_since_last; /* live_since=last: live reports list only the
                             blocks allocated since the previous signal */
    uint64_t sample_bytes;
    bool unwind_fp;
    bool keep_debuginfo; /* frames of dlclose'd objects named (Valgrind's) */
    bool trace_children;
    /* Comma-separated glob patterns (? and *) on the path an exec'd
     * program was started with: matching programs run untraced. */
    char trace_children_skip[LP_CONFIG_PATH_MAX];
    /* The same patterns on each of its arguments, argv[0] included. */
    char trace_children_skip_by_arg[LP_CONFIG_PATH_MAX];
    bool log_json;
    char sarif[LP_CONFIG_PATH_MAX];
    bool xml;                         /* xml=yes: Memcheck's XML at exit */
    char xml_file[LP_CONFIG_PATH_MAX]; /* "" = none; %p expands */
    int xml_fd;                       /* -1: none */
    bool xml_user_comment_set;        /* <usercomment> (even empty) */
    char xml_user_comment[LP_CONFIG_PATH_MAX]; /* verbatim */
    char pprof[LP_CONFIG_PATH_MAX]; /* "" = none; %p expands */
    char html[LP_CONFIG_PATH_MAX];  /* "" = none; %p expands */
    bool gen_suppressions;
    int verbosity; /* 1: list used suppressions, print Parent PID */
    uint64_t freelist_vol;  /* bytes of recently freed blocks remembered */
    bool quarantine;        /* ...and held back from reuse (freed.c) */
    bool keep_free_stacks;  /* keep_stacktraces: a free captures its stack */
    bool show_alloc_stack;  /* ... a heap error shows the block's alloc'd at */
    bool show_alloc_after_free; /* ... also for a block already freed */
    bool hide_mismatched;   /* show_mismatched_frees=no */
    int freeres;            /* 0 auto, 1 always, -1 never (exit.c) */
    bool quiet;    /* Valgrind's -q: only the loss records */
    /* Set by leakprof itself, never by the user: */
    bool exec_child;   /* a traced program exec'd by a profiled process */
    bool from_cmdline; /* the options that follow came from the launcher */
    char options_text[4096]; /* LEAKPROF_OPTIONS as given, for desc: */
};

/* Is fn one of the alloc_fn names? */
bool lp_config_is_alloc_fn(const struct lp_config *c, const char *fn);

/* One option: a row of the table both the library and launcher parse by. */
struct lp_option {
    const char *key;    /* LEAKPROF_OPTIONS key; --key-with-dashes */
    const char *defval; /* the default, as text; NULL = none */
    const char *values; /* what it accepts, for --help and messages */
    const char *help;   /* one line for --help */
    bool (*set)(struct lp_config *c, const char *v); /* false: bad value */
    unsigned flags;     /* LP_OPT_* */
};
#define LP_OPT_BOOL 1u     /* yes|no: a bare --flag on the command line means yes */
#define LP_OPT_INTERNAL 2u /* written by leakprof itself: not a user option */

extern const struct lp_option lp_options[];
extern const size_t lp_noptions;

extern struct lp_config lp_config;

/* The row for key (underscores), or NULL. */
const struct lp_option *lp_option_find(const char *key);

/* Set every option to its default. */
void lp_config_defaults(struct lp_config *c);

/* Apply one key=value to c, strictly: 0, -ENOENT (no such key) or
 * -EINVAL (bad value; c is unchanged for that option). */
int lp_config_apply(struct lp_config *c, const char *key, const char *value);

/* The next item of an options text, from *p (moved past it), into item
 * (n bytes) with its quotes taken out: items are separated by ':' or
 * whitespace, which a quoted run ('...' or "...") keeps. Returns its
 * length (1 for an item of quotes only, which is empty), 0 at the end of
 * the text, -1 when it did not fit (item holds its start). */
int lp_config_next_item(const char **p, char *item, size_t n);

/* Set defaults, then apply text (a LEAKPROF_OPTIONS value; may be NULL).
 * Returns the number of problems reported. warn == false stays silent. */
int lp_config_parse(struct lp_config *c, const char *text, bool warn);

/* Expand %p (pid) and %% in pattern into out. Returns 0 or -ENAMETOOLONG. */
int lp_config_expand(const char *pattern, int pid, char *out, size_t n);

/* Does the pattern expand %p (a file per process)? %% is a plain '%'. */
bool lp_config_per_process(const char *pattern);

/* Does path match one of the comma-separated glob patterns in list?
 * '*' matches any run of characters ('/' included), '?' any one, as in
 * Valgrind's --trace-children-skip. No allocation (BOOT). */
bool lp_config_glob_list(const char *list, const char *path);

#endif /* LP_PRELOAD_CONFIG_H */
