/* SPDX-License-Identifier: MIT */
/*
 * cli_valgrind.c - the Valgrind options leakprof has no key of its own
 * for: accepted (they ask for what leakprof does, or tune only
 * Valgrind's engine), mapped onto one of our options, or refused with the
 * reason. cli_valgrind.h says why each answer; Valgrind 3.19's --help
 * lists the options and their defaults.
 */
#include "tools/cli_valgrind.h"

#include <stdio.h>
#include <string.h>

#include "report/leaks.h"

#define ANY "*"

/* name; the values that mean what leakprof does ('|' between them, ANY:
 * every value); what leakprof does instead, for any other value. */
static const struct row {
    const char *name, *same, *why;
} rows[] = {
    /* Valgrind's engine: nothing to tune in a native run. */
    {"smc-check", ANY, NULL},
    {"fair-sched", ANY, NULL},
    {"vgdb", ANY, NULL},
    {"vgdb-error", ANY, NULL},
    {"vgdb-stop-at", ANY, NULL},
    {"vgdb-prefix", ANY, NULL},
    {"vgdb-poll", ANY, NULL},
    {"vgdb-shadow-registers", ANY, NULL},
    {"max-stackframe", ANY, NULL},
    {"main-stacksize", ANY, NULL},
    {"max-threads", ANY, NULL},
    {"sim-hints", ANY, NULL},
    {"kernel-variant", ANY, NULL},
    {"num-transtab-sectors", ANY, NULL},
    {"avg-transtab-entry-size", ANY, NULL},
    {"aspace-minaddr", ANY, NULL},
    {"valgrind-stacksize", ANY, NULL},
    {"show-emwarns", ANY, NULL},
    {"sigill-diagnostics", ANY, NULL},
    {"unw-stack-scan-thresh", ANY, NULL},
    {"unw-stack-scan-frames", ANY, NULL},
    {"resync-filter", ANY, NULL},
    {"dsymutil", ANY, NULL},
    {"input-fd", ANY, NULL},
    {"redzone-size", ANY, NULL},
    {"soname-synonyms", ANY, NULL}, /* LD_PRELOAD interposes any soname */
    {"progress-interval", ANY, NULL},
    /* Memcheck's checks of reads and writes, which leakprof does not do:
     * their tuning changes nothing here. */
    {"expensive-definedness-checks", ANY, NULL},
    {"partial-loads-ok", ANY, NULL},
    {"workaround-gcc296-bugs", ANY, NULL},
    {"ignore-ranges", ANY, NULL},
    {"ignore-range-below-sp", ANY, NULL},
    {"freelist-big-blocks", ANY, NULL},
    {"read-var-info", ANY, NULL},
    {"allow-mismatched-debuginfo", ANY, NULL},
    {"undef-value-errors", "no",
     "leakprof reports no uninitialised-value errors"},
    {"track-origins", "no", "leakprof reports no uninitialised-value errors"},
    /* What leakprof does, when the value says so. */
    {"read-inline-info", "yes", "inlined frames are always shown"},
    {"merge-recursive-frames", "0", "recursive calls show frame by frame"},
    {"error-limit", "yes|no", NULL},
    {"exit-on-first-error", "no", "the program always runs to its end"},
    {"alignment", "8|16", "blocks have glibc's alignment (16 bytes)"},
    {"run-cxx-freeres", "yes",
     "libstdc++'s emergency pool is always counted freed"},
    {"track-fds", "no", "leakprof does not track file descriptors"},
    {"xtree-leak", "no", "leak profiles are pprof files (--pprof=FILE)"},
    {"xtree-memory", "none", "heap profiles are massif and pprof files"},
    {"heap", "yes", "the heap is always profiled"},
    {"stacks", "no", "stacks are not profiled"},
    {"pages-as-heap", "no", "the heap is profiled block by block"},
    {"stats", "no", NULL},
    {"profile-heap", "no", NULL},
    {"trace-malloc", "no", NULL},
    /* Refused whatever the value. */
    {"xml-socket", NULL,
     "the XML goes to a file (--xml-file=FILE) or a descriptor (--xml-fd=N)"},
    {"xtree-leak-file", NULL, "leak profiles are pprof files (--pprof=FILE)"},
    {"xtree-memory-file", NULL, "heap profiles are massif and pprof files"},
    {"log-socket", NULL, "the report goes to stderr or to --log-file=FILE"},
    {"db-attach", NULL, "attach gdb to the running program instead"},
    {"db-command", NULL, "attach gdb to the running program instead"},
    {"extra-debuginfo-path", NULL,
     "debug info is found by build-id and in /usr/lib/debug"},
    {"debuginfo-server", NULL,
     "debug info is found by build-id and in /usr/lib/debug"},
    {"require-text-symbol", NULL, "no such check"},
    {"ignore-fn", NULL,
     "no function's allocations can be left out of the heap (--alloc-fn folds a wrapper into its callers)"},
};

/* Is v one of the '|'-separated words of list? */
static bool one_of(const char *list, const char *v)
{
    size_t n = strlen(v);

    while (*list) {
        size_t w = strcspn(list, "|");

        if (w == n && !strncmp(list, v, n))
            return true;
        list += w;
        if (*list == '|')
            list++;
    }
    return false;
}

static enum lp_vg_verdict map_to(struct lp_vg_answer *a, const char *key,
                                 const char *value)
{
    snprintf(a->key, sizeof(a->key), "%s", key);
    snprintf(a->value, sizeof(a->value), "%s", value);
    return LP_VG_MAP;
}

/* --show-possibly-lost=no|yes: possible out of (or into) the kinds shown
 * so far, as Memcheck's old option does. */
static enum lp_vg_verdict show_possibly_lost(const char *value,
                                             const struct lp_config *now,
                                             struct lp_vg_answer *a)
{
    static const char *const names[] = {
        [LP_KIND_DEFINITE] = "definite", [LP_KIND_INDIRECT] = "indirect",
        [LP_KIND_POSSIBLE] = "possible", [LP_KIND_REACHABLE] = "reachable",
    };
    unsigned kinds = now->show_kinds, k;
    char list[64] = "";

    if (!strcmp(value, "yes"))
        kinds |= LP_KIND_BIT(LP_KIND_POSSIBLE);
    else
        kinds &= ~LP_KIND_BIT(LP_KIND_POSSIBLE);
    for (k = 0; k < LP_ARRAY_SIZE(names); k++)
        if (kinds & LP_KIND_BIT(k))
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                     list[0] ? "," : "", names[k]);
    return map_to(a, "show_leak_kinds", list[0] ? list : "none");
}

enum lp_vg_verdict lp_cli_valgrind(const char *name, const char *value,
                                   const struct lp_config *now,
                                   struct lp_vg_answer *a)
{
    size_t i;

    a->why = NULL;
    if (!strcmp(name, "default-suppressions") ||
        !strcmp(name, "show-possibly-lost") ||
        !strcmp(name, "run-libc-freeres")) {
        if (!value || !one_of("yes|no", value)) {
            a->why = "yes|no";
            return LP_VG_BAD;
        }
        if (name[0] == 'd')
            return map_to(a, "builtin_suppressions", value);
        if (name[0] == 's')
            return show_possibly_lost(value, now, a);
        /* run-libc-freeres=yes: freeres=auto, the default. */
        return value[0] == 'y' ? LP_VG_SAME : map_to(a, "freeres", "never");
    }
    for (i = 0; i < LP_ARRAY_SIZE(rows); i++) {
        const struct row *r = &rows[i];

        if (strcmp(name, r->name))
            continue;
        if (r->same && value &&
            (!strcmp(r->same, ANY) || one_of(r->same, value)))
            return LP_VG_SAME;
        a->why = r->why ? r->why : "leakprof does not do that";
        return LP_VG_REFUSE;
    }
    return LP_VG_UNKNOWN;
}

const char *lp_cli_valgrind_name(size_t i)
{
    static const char *const mapped[] = {
        "default-suppressions", "show-possibly-lost", "run-libc-freeres",
    };

    if (i < LP_ARRAY_SIZE(mapped))
        return mapped[i];
    i -= LP_ARRAY_SIZE(mapped);
    return i < LP_ARRAY_SIZE(rows) ? rows[i].name : NULL;
}
