/* SPDX-License-Identifier: MIT */
/*
 * cli_options.c - the launcher's strict command-line reader.
 *
 * Order of lookup for --name[=value]: the launcher's own options, then
 * Valgrind's spellings (an alias table onto our keys), then the option
 * table of preload/life/config.c with dashes for underscores, then the
 * rest of Valgrind's options (cli_valgrind.c: accepted, mapped onto ours,
 * or refused with the reason), and last a did-you-mean over every
 * spelling we accept. A value is checked
 * by the same setter the library runs, on a scratch struct lp_config
 * that sees the options in order (so "more than 16 suppressions" is
 * caught too).
 */
#include "tools/cli_options.h"
#include "tools/cli_valgrind.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef LP_VERSION
#define LP_VERSION "unknown"
#endif

/* Valgrind's names for what we call differently. */
static const struct {
    const char *name, *key, *help;
} spellings[] = {
    {"log-file", "log", "Valgrind's spelling of --log"},
    {"num-callers", "depth", "Valgrind's spelling of --depth"},
    {"massif-out-file", "massif", "Massif's spelling of --massif"},
};

/* The launcher's own long options, for did-you-mean. */
static const char *const own[] = {
    "help", "version", "snapshot", "tool", "quiet", "verbose",
    "show-error-list",
};

static void dashes(char *out, size_t n, const char *key, char from, char to)
{
    size_t i;

    for (i = 0; key[i] && i + 1 < n; i++)
        out[i] = key[i] == from ? to : key[i];
    out[i] = 0;
}

int lp_cli_distance(const char *a, const char *b)
{
    int row[64], i, j, la = (int)strlen(a), lb = (int)strlen(b);

    if (la > 63 || lb > 63)
        return 99;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        int diag = row[0];

        row[0] = i;
        for (j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);

            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* Keep the closest candidate within reach of what was typed. */
static void consider(const char *typed, const char *cand, const char **best,
                     int *bestd)
{
    int d = lp_cli_distance(typed, cand);
    int reach = (int)strlen(typed) / 3;

    if (reach < 2)
        reach = 2;
    if (d <= reach && d < *bestd) {
        *bestd = d;
        *best = cand;
    }
}

/* The nearest long option to name (without "--"), or NULL. */
static const char *suggest_option(const char *name)
{
    static char keys[64][48];
    const char *best = NULL;
    int bestd = 99;
    size_t i, k = 0;

    for (i = 0; i < lp_noptions && k < LP_ARRAY_SIZE(keys); i++) {
        if (lp_options[i].flags & LP_OPT_INTERNAL)
            continue;
        dashes(keys[k], sizeof(keys[k]), lp_options[i].key, '_', '-');
        consider(name, keys[k++], &best, &bestd);
    }
    for (i = 0; i < LP_ARRAY_SIZE(spellings); i++)
        consider(name, spellings[i].name, &best, &bestd);
    for (i = 0; i < LP_ARRAY_SIZE(own); i++)
        consider(name, own[i], &best, &bestd);
    for (i = 0; lp_cli_valgrind_name(i); i++)
        consider(name, lp_cli_valgrind_name(i), &best, &bestd);
    return best;
}

/* For a bad value of an option whose values are plain words (a|b|c),
 * the nearest word, or NULL. */
static const char *suggest_value(const struct lp_option *o, const char *typed)
{
    static char word[32];
    const char *p = o->values, *best = NULL;
    int bestd = 99;

    if (strpbrk(o->values, " ,"))
        return NULL;
    while (*p) {
        size_t len = strcspn(p, "|");

        if (len < sizeof(word) && !(len == 1 && *p == 'N') &&
            !(len > 1 && p[0] >= 'A' && p[0] <= 'Z')) {
            int d;

            memcpy(word, p, len);
            word[len] = 0;
            d = lp_cli_distance(typed, word);
            if (d <= 2 && d < bestd && d < (int)len) {
                bestd = d;
                best = o->values + (p - o->values);
            }
        }
        p += len;
        if (*p == '|')
            p++;
    }
    if (!best)
        return NULL;
    snprintf(word, sizeof(word), "%.*s", (int)strcspn(best, "|"), best);
    return word;
}

/* Append key=value to the LEAKPROF_OPTIONS text, the value quoted when
 * it holds a separator (':', whitespace) or a quote: with " unless it
 * holds one (set_option refused a value holding both). */
static int add_item(struct lp_cli *cli, const char *key, const char *value)
{
    size_t len = strlen(cli->opts);
    const char *q = strpbrk(value, ": \t\n\r'\"") == NULL ? ""
                    : strchr(value, '"')                 ? "'"
                                                         : "\"";
    int n = snprintf(cli->opts + len, sizeof(cli->opts) - len, "%s%s=%s%s%s",
                     len ? ":" : "", key, q, value, q);

    if (n < 0 || (size_t)n >= sizeof(cli->opts) - len) {
        cli->opts[len] = 0;
        fprintf(stderr, "leakprof: too many options\n");
        return LP_CLI_ERROR;
    }
    return LP_CLI_RUN;
}

/* Validate key=value as the library will, then keep it. arg is what the
 * user typed, for messages. */
static int set_option(struct lp_cli *cli, const char *arg, const char *key,
                      const char *value)
{
    const struct lp_option *o = lp_option_find(key);
    const char *hint;

    if (strchr(value, '\'') && strchr(value, '"')) {
        fprintf(stderr,
                "leakprof: %s: a value cannot hold both ' and \" "
                "(LEAKPROF_OPTIONS quotes a value with one of them)\n", arg);
        return LP_CLI_ERROR;
    }
    if (!strcmp(key, "suppressions") &&
        cli->check.nsuppressions == LP_CONFIG_MAX_SUPP) {
        fprintf(stderr, "leakprof: %s: at most %d suppression files\n", arg,
                LP_CONFIG_MAX_SUPP);
        return LP_CLI_ERROR;
    }
    if (lp_config_apply(&cli->check, key, value) != 0) {
        hint = o ? suggest_value(o, value) : NULL;
        fprintf(stderr, "leakprof: %s: bad value '%s', expected %s", arg,
                value, o ? o->values : "?");
        if (hint)
            fprintf(stderr, " (did you mean '%s'?)", hint);
        fputc('\n', stderr);
        return LP_CLI_ERROR;
    }
    return add_item(cli, key, value);
}

static int set_verbosity(struct lp_cli *cli, int v)
{
    char num[16];

    snprintf(num, sizeof(num), "%d", v > 10 ? 10 : v);
    return set_option(cli, "-v", "verbosity", num);
}

static int parse_pid(const char *s, int *pid)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v <= 0 || v > 0x3fffffff) {
        fprintf(stderr, "leakprof: --snapshot: bad process id '%s'\n", s);
        return LP_CLI_ERROR;
    }
    *pid = (int)v;
    return LP_CLI_RUN;
}

/* --tool: what a Valgrind user means by it, as defaults that any explicit
 * option overrides. memcheck: the leak report only (no massif file);
 * massif: the massif file, and no leak search. */
static int set_tool(const char *v, char *tool, size_t n)
{
    if (!strcmp(v, "memcheck"))
        snprintf(tool, n, "massif=0");
    else if (!strcmp(v, "massif"))
        snprintf(tool, n, "leak_check=no");
    else {
        fprintf(stderr, "leakprof: --tool=%s is not supported (memcheck or "
                        "massif)\n", v);
        return LP_CLI_ERROR;
    }
    return LP_CLI_RUN;
}

/* One argument starting with '-'; *i may advance (--snapshot PID). */
static int parse_one(struct lp_cli *cli, int argc, char **argv, int *i,
                     char *tool, size_t tooln)
{
    const char *a = argv[*i], *eq, *value;
    char name[128], key[128];
    const struct lp_option *o;
    struct lp_vg_answer vg;
    size_t k;

    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        lp_cli_usage(stdout);
        return LP_CLI_DONE;
    }
    if (!strcmp(a, "--version")) {
        printf("leakprof %s\n", LP_VERSION);
        return LP_CLI_DONE;
    }
    if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
        return set_option(cli, a, "quiet", "yes");
    if (!strcmp(a, "-s"))
        return set_verbosity(cli, cli->check.verbosity > 1 ? cli->check.verbosity : 1);
    if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
        return set_verbosity(cli, cli->check.verbosity < 2 ? 2 : cli->check.verbosity + 1);
    if (a[1] != '-' || !a[2]) {
        fprintf(stderr, "leakprof: unknown option '%s' (leakprof --help lists them)\n", a);
        return LP_CLI_ERROR;
    }
    eq = strchr(a, '=');
    k = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    if (k >= sizeof(name)) {
        fprintf(stderr, "leakprof: unknown option '%s'\n", a);
        return LP_CLI_ERROR;
    }
    memcpy(name, a + 2, k);
    name[k] = 0;
    value = eq ? eq + 1 : NULL;

    if (!strcmp(name, "snapshot")) {
        if (!value && *i + 1 < argc)
            value = argv[++*i];
        if (!value) {
            fprintf(stderr, "leakprof: --snapshot needs a process id\n");
            return LP_CLI_ERROR;
        }
        return parse_pid(value, &cli->snapshot_pid);
    }
    if (!strcmp(name, "tool"))
        return set_tool(value ? value : "", tool, tooln);
    if (!strcmp(name, "show-error-list")) {
        bool b = false;

        if (value && !strcmp(value, "yes"))
            b = true;
        else if (!value || strcmp(value, "no")) {
            fprintf(stderr, "leakprof: %s: bad value, expected yes|no\n", a);
            return LP_CLI_ERROR;
        }
        return set_verbosity(cli, b ? (cli->check.verbosity ? cli->check.verbosity : 1) : 0);
    }
    for (k = 0; k < LP_ARRAY_SIZE(spellings); k++)
        if (!strcmp(name, spellings[k].name))
            break;
    if (k < LP_ARRAY_SIZE(spellings))
        snprintf(key, sizeof(key), "%s", spellings[k].key);
    else
        dashes(key, sizeof(key), name, '-', '_');
    o = strchr(name, '_') ? NULL : lp_option_find(key);
    if (o && !(o->flags & LP_OPT_INTERNAL)) {
        if (!value && (o->flags & LP_OPT_BOOL))
            value = "yes";
        if (!value) {
            fprintf(stderr, "leakprof: --%s needs a value: --%s=%s\n", name,
                    name, o->values);
            return LP_CLI_ERROR;
        }
        return set_option(cli, a, key, value);
    }
    switch (lp_cli_valgrind(name, value, &cli->check, &vg)) {
    case LP_VG_SAME:
        return LP_CLI_RUN;
    case LP_VG_MAP:
        return set_option(cli, a, vg.key, vg.value);
    case LP_VG_REFUSE:
        fprintf(stderr, "leakprof: %s is not supported (%s)\n", a, vg.why);
        return LP_CLI_ERROR;
    case LP_VG_BAD:
        fprintf(stderr, "leakprof: %s: bad value, expected %s\n", a, vg.why);
        return LP_CLI_ERROR;
    default:
        break;
    }
    value = suggest_option(name);
    if (value)
        fprintf(stderr, "leakprof: unknown option '%s' (did you mean --%s?)\n",
                a, value);
    else
        fprintf(stderr, "leakprof: unknown option '%s' (leakprof --help lists them)\n", a);
    return LP_CLI_ERROR;
}

int lp_cli_parse(struct lp_cli *cli, int argc, char **argv)
{
    char tool[64] = "";
    int i, rc;

    memset(cli, 0, sizeof(*cli));
    lp_config_defaults(&cli->check);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        if (argv[i][0] != '-' || !argv[i][1])
            break;
        rc = parse_one(cli, argc, argv, &i, tool, sizeof(tool));
        if (rc != LP_CLI_RUN)
            return rc;
    }
    /* --tool gives defaults: its items go first, so explicit ones win. */
    if (tool[0]) {
        size_t tl = strlen(tool) + 1, ol = strlen(cli->opts);

        if (tl + ol + 1 > sizeof(cli->opts)) {
            fprintf(stderr, "leakprof: too many options\n");
            return LP_CLI_ERROR;
        }
        memmove(cli->opts + tl, cli->opts, ol + 1);
        memcpy(cli->opts, tool, tl - 1);
        cli->opts[tl - 1] = ol ? ':' : 0;
    }
    /* Valgrind refuses --xml=yes without a destination too. */
    if (cli->check.xml && !cli->check.xml_file[0] && cli->check.xml_fd < 0) {
        fprintf(stderr, "leakprof: --xml=yes needs a destination: "
                        "--xml-file=FILE or --xml-fd=N\n");
        return LP_CLI_ERROR;
    }
    if (cli->snapshot_pid) {
        if (i < argc || cli->opts[0]) {
            fprintf(stderr, "leakprof: --snapshot PID takes no other "
                            "options and no program\n");
            return LP_CLI_ERROR;
        }
        return LP_CLI_RUN;
    }
    if (i >= argc) {
        fprintf(stderr, "leakprof: no program given (leakprof --help for usage)\n");
        return LP_CLI_ERROR;
    }
    cli->prog = i;
    return LP_CLI_RUN;
}

/* One --help entry: the option at column 2, its text wrapped at column
 * 32 to 79 columns (on the next line when the option is long). */
static void item(FILE *f, const char *lhs, const char *text, const char *def)
{
    char buf[512];
    const char *p = buf;
    int col;

    snprintf(buf, sizeof(buf), "%s%s%s%s", text, def ? " [" : "",
             def ? (def[0] ? def : "none") : "", def ? "]" : "");
    col = fprintf(f, "  %s", lhs);
    if (col > 31) {
        fputc('\n', f);
        col = 0;
    }
    while (*p) {
        size_t w = strcspn(p, " ");

        if (col >= 31 && col + 1 + (int)w > 79) {
            fputc('\n', f);
            col = 0;
        }
        if (col < 31) {
            col += fprintf(f, "%*s", 32 - col, "");
        } else {
            fputc(' ', f);
            col++;
        }
        col += fprintf(f, "%.*s", (int)w, p);
        p += w;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}

void lp_cli_usage(FILE *f)
{
    size_t i;

    fprintf(f,
            "usage: leakprof [options] [--] program [args...]\n"
            "       leakprof --snapshot PID\n"
            "\n"
            "Runs program with libleakprof.so preloaded: a Memcheck-style leak report\n"
            "when it exits, its heap over time in massif.out.PID, and a snapshot and\n"
            "live leak report on the snapshot signal. Exits with the program's status.\n"
            "Options are the LEAKPROF_OPTIONS keys with dashes; a bad option or value\n"
            "stops leakprof before the program runs (exit status 1).\n"
            "\n"
            "Options (default in brackets):\n");
    for (i = 0; i < lp_noptions; i++) {
        const struct lp_option *o = &lp_options[i];
        char key[64], lhs[128];

        if (o->flags & LP_OPT_INTERNAL)
            continue;
        dashes(key, sizeof(key), o->key, '_', '-');
        snprintf(lhs, sizeof(lhs), "--%s=%s", key, o->values);
        item(f, lhs, o->help, o->defval);
    }
    fprintf(f, "\nValgrind's spellings:\n");
    for (i = 0; i < LP_ARRAY_SIZE(spellings); i++) {
        char lhs[128];

        snprintf(lhs, sizeof(lhs), "--%s=%s", spellings[i].name,
                 lp_option_find(spellings[i].key)->values);
        item(f, lhs, spellings[i].help, NULL);
    }
    item(f, "-q, --quiet", "print only the loss records (--quiet=yes)", NULL);
    item(f, "-s, --show-error-list=yes|no",
         "list the used suppressions (--verbosity=1)", NULL);
    item(f, "-v, --verbose",
         "also Parent PID and the used suppressions (--verbosity=2)", NULL);
    item(f, "--tool=memcheck", "the leak report only: --massif=0 unless given", NULL);
    item(f, "--tool=massif", "the massif file only: --leak-check=no unless given", NULL);
    fprintf(f, "\nleakprof itself:\n");
    item(f, "--snapshot PID", "send a running profiled process its snapshot signal", NULL);
    item(f, "-h, --help", "this text", NULL);
    item(f, "--version", "print the version (the same as leakprint's)", NULL);
    fprintf(f,
            "\nOther Valgrind options: those that ask for what leakprof does anyway\n"
            "(--track-origins=no, --undef-value-errors=no) or that tune Valgrind's own\n"
            "engine (--vgdb, --smc-check, --fair-sched, ...) are accepted; the old\n"
            "--show-possibly-lost, --default-suppressions and --run-libc-freeres map\n"
            "onto the options above; the rest (--xml-socket, --track-origins=yes, ...) are\n"
            "refused with the reason: leakprof checks leaks and profiles the heap, it\n"
            "does not emulate the CPU.\n"
            "\nExamples:\n"
            "  leakprof --leak-check=full --show-leak-kinds=all --log-file=out.txt ./app\n"
            "  leakprof --error-exitcode=23 --suppressions=known.supp ./test_parser\n"
            "  leakprof --massif-out-file=heap.out --time-unit=ms ./service &\n"
            "  leakprof --snapshot $!\n"
            "\nSee leakprof(1) and leakprint(1).\n");
}
