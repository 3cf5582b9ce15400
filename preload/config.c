/* SPDX-License-Identifier: MIT */
/*
 * config.c - LEAKPROF_OPTIONS parsing.
 * Context: BOOT. No allocation: everything lands in fixed buffers.
 */
#include "preload/config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "report/leaks.h"

struct lp_config lp_config;

static void warn_line(bool warn, const char *what, const char *key,
                      const char *val)
{
    char buf[512];
    int n;

    if (!warn)
        return;
    n = snprintf(buf, sizeof(buf),
                 "==%d== leakprof: %s '%s%s%s' in LEAKPROF_OPTIONS, ignored\n",
                 (int)getpid(), what, key, val ? "=" : "", val ? val : "");
    if (n > (int)sizeof(buf))
        n = sizeof(buf);
    (void)!write(2, buf, n);
}

static bool parse_kinds(const char *v, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bits;
    } names[] = {
        {"definite", LP_KIND_BIT(LP_KIND_DEFINITE)},
        {"indirect", LP_KIND_BIT(LP_KIND_INDIRECT)},
        {"possible", LP_KIND_BIT(LP_KIND_POSSIBLE)},
        {"reachable", LP_KIND_BIT(LP_KIND_REACHABLE)},
        {"all", LP_KINDS_ALL},
        {"none", 0},
    };
    unsigned bits = 0;
    const char *p = v;

    if (!*v)
        return false;
    while (*p) {
        size_t len = strcspn(p, ","), i;

        for (i = 0; i < LP_ARRAY_SIZE(names); i++)
            if (strlen(names[i].name) == len &&
                strncmp(names[i].name, p, len) == 0)
                break;
        if (i == LP_ARRAY_SIZE(names))
            return false;
        bits |= names[i].bits;
        p += len;
        if (*p == ',')
            p++;
    }
    *out = bits;
    return true;
}

static bool parse_long(const char *v, long lo, long hi, long *out)
{
    char *end;
    long x;

    errno = 0;
    x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return false;
    *out = x;
    return true;
}

static bool parse_double(const char *v, double lo, double hi, double *out)
{
    char *end;
    double x;

    errno = 0;
    x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo && x <= hi))
        return false;
    *out = x;
    return true;
}

static bool parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true") ||
        !strcmp(v, "all")) {
        *out = true;
        return true;
    }
    if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false")) {
        *out = false;
        return true;
    }
    return false;
}

static bool parse_signal(const char *v, int *out)
{
    long n;

    if (!strcmp(v, "0")) {
        *out = 0;
        return true;
    }
    if (!strncasecmp(v, "SIG", 3))
        v += 3;
    if (!strcasecmp(v, "USR1"))
        *out = SIGUSR1;
    else if (!strcasecmp(v, "USR2"))
        *out = SIGUSR2;
    else if (!strcasecmp(v, "HUP"))
        *out = SIGHUP;
    else if (!strcasecmp(v, "PROF"))
        *out = SIGPROF;
    else if (!strcasecmp(v, "URG"))
        *out = SIGURG;
    else if (!strcasecmp(v, "WINCH"))
        *out = SIGWINCH;
    else if (parse_long(v, 1, 64, &n) && n != SIGKILL && n != SIGSTOP &&
             n != SIGSEGV && n != SIGBUS)
        *out = (int)n;
    else
        return false;
    return true;
}

static bool copy_path(char *dst, const char *v)
{
    size_t n = strlen(v);

    if (n >= LP_CONFIG_PATH_MAX)
        return false;
    memcpy(dst, v, n + 1);
    return true;
}

static void set_defaults(struct lp_config *c)
{
    memset(c, 0, sizeof(*c));
    c->leak_check = LP_CHECK_FULL;
    c->show_kinds = LP_KINDS_DEFAULT;
    c->error_kinds = LP_KINDS_DEFAULT;
    c->builtin_suppressions = true;
    strcpy(c->massif, "massif.out.%p");
    c->time_unit = LP_TIME_B;
    c->detailed_freq = 10;
    c->max_snapshots = 100;
    c->threshold = 1.0;
    c->peak_inaccuracy = 1.0;
    c->depth = 30;
    c->snapshot_signal = SIGUSR1;
    c->trace_children = true;
}

/* Apply one key=value; false when the value is bad. */
static bool apply(struct lp_config *c, const char *k, const char *v,
                  bool *known)
{
    long n;

    *known = true;
    if (!strcmp(k, "log"))
        return copy_path(c->log, v);
    if (!strcmp(k, "leak_check")) {
        if (!strcmp(v, "no"))
            c->leak_check = LP_CHECK_NO;
        else if (!strcmp(v, "summary"))
            c->leak_check = LP_CHECK_SUMMARY;
        else if (!strcmp(v, "full") || !strcmp(v, "yes"))
            c->leak_check = LP_CHECK_FULL;
        else
            return false;
        return true;
    }
    if (!strcmp(k, "show_leak_kinds"))
        return parse_kinds(v, &c->show_kinds);
    if (!strcmp(k, "show_reachable")) {
        bool b;

        if (!parse_bool(v, &b))
            return false;
        c->show_kinds = b ? LP_KINDS_ALL : LP_KINDS_DEFAULT;
        return true;
    }
    if (!strcmp(k, "errors_for_leak_kinds"))
        return parse_kinds(v, &c->error_kinds);
    if (!strcmp(k, "error_exitcode")) {
        if (!parse_long(v, 0, 255, &n))
            return false;
        c->error_exitcode = (int)n;
        return true;
    }
    if (!strcmp(k, "suppressions")) {
        if (c->nsuppressions == LP_CONFIG_MAX_SUPP)
            return false;
        if (!copy_path(c->suppressions[c->nsuppressions], v) || !*v)
            return false;
        c->nsuppressions++;
        return true;
    }
    if (!strcmp(k, "builtin_suppressions"))
        return parse_bool(v, &c->builtin_suppressions);
    if (!strcmp(k, "massif")) {
        if (!strcmp(v, "0") || !strcmp(v, "no")) {
            c->massif[0] = 0;
            return true;
        }
        return *v && copy_path(c->massif, v);
    }
    if (!strcmp(k, "time_unit")) {
        if (!strcmp(v, "B"))
            c->time_unit = LP_TIME_B;
        else if (!strcmp(v, "ms"))
            c->time_unit = LP_TIME_MS;
        else if (!strcmp(v, "i"))
            c->time_unit = LP_TIME_I;
        else
            return false;
        return true;
    }
    if (!strcmp(k, "detailed_freq")) {
        if (!parse_long(v, 1, 1000000, &n))
            return false;
        c->detailed_freq = (int)n;
        return true;
    }
    if (!strcmp(k, "max_snapshots")) {
        if (!parse_long(v, 10, 1000, &n))
            return false;
        c->max_snapshots = (int)n;
        return true;
    }
    if (!strcmp(k, "threshold"))
        return parse_double(v, 0, 100, &c->threshold);
    if (!strcmp(k, "peak_inaccuracy"))
        return parse_double(v, 0, 100, &c->peak_inaccuracy);
    if (!strcmp(k, "depth")) {
        if (!parse_long(v, 1, 200, &n))
            return false;
        c->depth = (int)n;
        return true;
    }
    if (!strcmp(k, "snapshot_signal"))
        return parse_signal(v, &c->snapshot_signal);
    if (!strcmp(k, "sample_bytes")) {
        if (!parse_long(v, 0, 1L << 40, &n))
            return false;
        c->sample_bytes = (uint64_t)n;
        return true;
    }
    if (!strcmp(k, "unwind")) {
        if (!strcmp(v, "libunwind"))
            c->unwind_fp = false;
        else if (!strcmp(v, "fp"))
            c->unwind_fp = true;
        else
            return false;
        return true;
    }
    if (!strcmp(k, "trace_children"))
        return parse_bool(v, &c->trace_children);
    if (!strcmp(k, "log_format")) {
        if (!strcmp(v, "text"))
            c->log_json = false;
        else if (!strcmp(v, "json"))
            c->log_json = true;
        else
            return false;
        return true;
    }
    if (!strcmp(k, "sarif"))
        return *v && copy_path(c->sarif, v);
    if (!strcmp(k, "pprof") || !strcmp(k, "html"))
        return *v && copy_path(k[0] == 'p' ? c->pprof : c->html, v);
    if (!strcmp(k, "gen_suppressions"))
        return parse_bool(v, &c->gen_suppressions);
    if (!strcmp(k, "verbosity")) {
        if (!parse_long(v, 0, 10, &n))
            return false;
        c->verbosity = (int)n;
        return true;
    }
    *known = false;
    return false;
}

int lp_config_parse(struct lp_config *c, const char *text, bool warn)
{
    char buf[4096];
    char *p, *item, *save = NULL;
    int problems = 0;

    set_defaults(c);
    if (!text || !*text)
        return 0;
    if (strlen(text) >= sizeof(buf)) {
        warn_line(warn, "value too long", "LEAKPROF_OPTIONS", NULL);
        return 1;
    }
    strcpy(buf, text);
    strcpy(c->options_text, text);
    for (p = buf; (item = strtok_r(p, ":", &save)) != NULL; p = NULL) {
        char *eq = strchr(item, '=');
        bool known;

        if (!*item)
            continue;
        if (!eq) {
            warn_line(warn, "option without a value", item, NULL);
            problems++;
            continue;
        }
        *eq = 0;
        if (!apply(c, item, eq + 1, &known)) {
            warn_line(warn, known ? "bad value" : "unknown option", item,
                      eq + 1);
            problems++;
        }
    }
    return problems;
}

int lp_config_expand(const char *pattern, int pid, char *out, size_t n)
{
    size_t o = 0;
    const char *p;

    for (p = pattern; *p; p++) {
        char num[24];
        const char *add = num;
        size_t len;

        if (p[0] == '%' && p[1] == 'p') {
            snprintf(num, sizeof(num), "%d", pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            num[0] = '%';
            num[1] = 0;
            p++;
        } else {
            num[0] = *p;
            num[1] = 0;
        }
        len = strlen(add);
        if (o + len + 1 > n)
            return -ENAMETOOLONG;
        memcpy(out + o, add, len);
        o += len;
    }
    out[o] = 0;
    return 0;
}
