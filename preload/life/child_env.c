/* SPDX-License-Identifier: MIT */
/*
 * child_env.c - what exec'd programs inherit: LD_PRELOAD without us
 * (trace_children=no), LEAKPROF_OPTIONS marked (trace_children=yes:
 * renamed LEAKPROF_EXECOPT).
 *
 * Why environ is edited here rather than through setenv/unsetenv: those
 * are the program's to define, and bash does (lib/sh/getenv.c: they
 * bind and unbind shell variables). Called from our constructor, before
 * bash's main has made its variable table, bash's unsetenv did nothing:
 * LD_PRELOAD stayed in environ, bash imported it, exported it, and every
 * program a bash script ran was profiled with trace_children=no - env,
 * grep, tr, cat each wrote a report. So environ is edited directly:
 * main receives it after the constructors ran, and bash builds its table
 * from that. A string of the initial environment is rewritten in place,
 * to its own length (edit_in_place: the strings must stay end to end);
 * any other entry is replaced or taken out as glibc's own unsetenv does,
 * a replaced value in static storage (environ's strings must outlive
 * us).
 * Context: BOOT, single-threaded; the guard is held (no allocation of
 * ours is tracked).
 */
#include "preload/life/child_env.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

extern char **environ;

#define ENV_MAX 4096

/* The entry "name=..." of environ, or NULL. */
static char **find(const char *name)
{
    size_t len = strlen(name);
    char **e;

    for (e = environ; e != NULL && *e != NULL; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return e;
    return NULL;
}

const char *lp_env_get(const char *name)
{
    char **e = find(name);

    return e ? *e + strlen(name) + 1 : NULL;
}

/* Remove every "name=..." entry, moving the later ones up. */
static void env_remove(const char *name)
{
    char **e;

    while ((e = find(name)) != NULL)
        do
            e[0] = e[1];
        while (*e++ != NULL);
}

/* Set name to the string line ("name=value", static storage): in place
 * of its entry, or appended to a copy of the array (mapped: never
 * freed, as glibc never frees the arrays setenv makes). */
static void env_put(const char *name, char *line)
{
    char **e = find(name), **fresh;
    size_t n = 0;

    if (e != NULL) {
        *e = line;
        return;
    }
    while (environ != NULL && environ[n] != NULL)
        n++;
    fresh = mmap(NULL, (n + 2) * sizeof(*fresh), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fresh == MAP_FAILED)
        return;
    if (n > 0)
        memcpy(fresh, environ, n * sizeof(*fresh));
    fresh[n] = line;
    fresh[n + 1] = NULL;
    environ = fresh;
}

/*
 * The kernel lays the strings of argv and environ end to end at the top
 * of the main stack, and programs that set their process title (nginx,
 * PostgreSQL, libbsd's setproctitle) take that run of strings for the
 * title: they copy the environment strings out into a block of their
 * own, point environ's entries at the copies, and stop at the first
 * string that does not follow the one before. An entry taken out (its
 * later strings then follow a gap) or pointed elsewhere stopped nginx's
 * copy there: its block was left with no pointer to it, a leak natively
 * absent (nginx 1.22's master: 1,365 bytes definitely lost; Memcheck:
 * reachable). So an entry of the initial environment gets its new value
 * written over its old one, padded to the same length with ':' (an empty
 * element of a search list, as the loader reads LD_PRELOAD), and the run
 * stays whole. False (nothing done) for a string elsewhere (set by an
 * earlier constructor) or a longer value.
 */
static bool edit_in_place(const char *name, const char *line)
{
    extern void *__libc_stack_end;
    char **e = find(name);
    size_t was, now = strlen(line);

    if (e == NULL || (uintptr_t)*e <= (uintptr_t)__libc_stack_end)
        return false;
    was = strlen(*e);
    if (now > was)
        return false;
    memcpy(*e, line, now);
    memset(*e + now, ':', was - now);
    return true;
}

/*
 * Whether an LD_PRELOAD element (len bytes at e) names this library: by
 * its file name, or as the same file under another name (a renamed or
 * versioned copy, a link to it: such a copy was kept in LD_PRELOAD and
 * every child traced with trace_children=no).
 */
static bool element_is_us(const char *e, size_t len)
{
    static int known; /* 0: not looked up, 1: self_st holds us, -1: none */
    static struct stat self_st;
    const char *base = e;
    char path[ENV_MAX];
    struct stat st;
    size_t i;

    for (i = 0; i < len; i++)
        if (e[i] == '/')
            base = e + i + 1;
    if ((size_t)(e + len - base) == strlen("libleakprof.so") &&
        strncmp(base, "libleakprof.so", strlen("libleakprof.so")) == 0)
        return true;
    if (known == 0) {
        Dl_info di;

        known = dladdr((void *)(uintptr_t)element_is_us, &di) &&
                        di.dli_fname && stat(di.dli_fname, &self_st) == 0
                    ? 1
                    : -1;
    }
    if (known < 0 || len == 0 || len >= sizeof(path))
        return false;
    memcpy(path, e, len);
    path[len] = '\0';
    return stat(path, &st) == 0 && st.st_ino == self_st.st_ino &&
           st.st_dev == self_st.st_dev;
}

void lp_child_env_untraced(void)
{
    static char line[sizeof("LD_PRELOAD=") + ENV_MAX];
    const char *v = lp_env_get("LD_PRELOAD");
    char buf[ENV_MAX];
    char *tok, *save = NULL;
    size_t o = 0;

    if (!v || strlen(v) >= sizeof(buf))
        return;
    strcpy(buf, v);
    o = (size_t)snprintf(line, sizeof(line), "LD_PRELOAD=");
    for (tok = strtok_r(buf, ": ", &save); tok; tok = strtok_r(NULL, ": ", &save)) {
        bool first = line[o - 1] == '=';

        if (element_is_us(tok, strlen(tok)))
            continue;
        o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s",
                              first ? "" : ":", tok);
    }
    if (edit_in_place("LD_PRELOAD", line))
        return;
    if (line[o - 1] != '=')
        env_put("LD_PRELOAD", line);
    else
        env_remove("LD_PRELOAD");
}

/*
 * The mark: LEAKPROF_OPTIONS renamed in place to LEAKPROF_EXECOPT, the
 * same length, so that the string keeps its place in the kernel's run of
 * argv and environ strings (edit_in_place's reason: a value made longer
 * by ":exec_child=yes" had to be a string of our own, and a process
 * title program run with trace_children=yes and LEAKPROF_OPTIONS first
 * lost its block of environment copies: definitely lost under us,
 * reachable natively). An exec'd program reads its options from there
 * and knows it is not the first process (lp_child_env_options). A string
 * that is not the kernel's (an earlier constructor's setenv) gets the old
 * mark, a value of our own.
 */
void lp_child_env_mark_exec_child(void)
{
    extern void *__libc_stack_end;
    static char line[sizeof(LP_EXEC_OPTIONS "=") + ENV_MAX];
    char **e = find("LEAKPROF_OPTIONS");
    const char *v = e ? *e + sizeof("LEAKPROF_OPTIONS") : NULL;
    int n;

    if (e != NULL && find(LP_EXEC_OPTIONS) == NULL &&
        (uintptr_t)*e > (uintptr_t)__libc_stack_end) {
        memcpy(*e, LP_EXEC_OPTIONS, sizeof(LP_EXEC_OPTIONS) - 1);
        return;
    }
    n = snprintf(line, sizeof(line), "LEAKPROF_OPTIONS=%s%sexec_child=yes",
                 v ? v : "", v && *v ? ":" : "");
    if (n > 0 && (size_t)n < sizeof(line))
        env_put("LEAKPROF_OPTIONS", line);
}

/*
 * Both names: the program that ran this one set LEAKPROF_OPTIONS itself
 * after our mark renamed it (a script's export
 * LEAKPROF_OPTIONS="$LEAKPROF_OPTIONS:suppressions=x.supp" sees it unset,
 * and its children got ":suppressions=x.supp" alone: no log file, no
 * trace_children, their reports on stderr). Its options then come after
 * the marked ones, as a later setting of a key wins.
 */
const char *lp_child_env_options(bool *exec_child)
{
    static char both[2 * ENV_MAX + 2];
    const char *v = lp_env_get("LEAKPROF_OPTIONS"),
               *x = lp_env_get(LP_EXEC_OPTIONS);
    int n;

    *exec_child = x != NULL;
    if (v != NULL && x != NULL && *x != '\0') {
        n = snprintf(both, sizeof(both), "%s:%s", x, v);
        if (n > 0 && (size_t)n < sizeof(both))
            return both;
    }
    return v ? v : x;
}

/* ---- exec'd programs, trace_children=yes ------------------------------ */

static char keep_preload[sizeof("LD_PRELOAD=") + ENV_MAX]; /* ours alone */
static char keep_options[sizeof("LEAKPROF_OPTIONS=") + ENV_MAX];
_Static_assert(sizeof(LP_EXEC_OPTIONS) == sizeof("LEAKPROF_OPTIONS"),
               "the mark renames in place; keep_options holds either name");
static bool keep_ok;

void lp_child_env_keep_for_exec(void)
{
    bool marked;
    const char *opts = lp_child_env_options(&marked);
    char real[ENV_MAX];
    Dl_info di;
    int n;

    if (!dladdr((void *)(uintptr_t)lp_child_env_keep_for_exec, &di) ||
        !di.dli_fname || realpath(di.dli_fname, real) == NULL)
        return;
    n = snprintf(keep_preload, sizeof(keep_preload), "LD_PRELOAD=%s", real);
    if (n <= 0 || (size_t)n >= sizeof(keep_preload))
        return;
    /* Under the marked name (the options' own entry as the mark left
     * it, or, when that gave the value the mark, under the plain one). */
    n = marked || !opts
            ? snprintf(keep_options, sizeof(keep_options), LP_EXEC_OPTIONS "=%s",
                       opts ? opts : "")
            : snprintf(keep_options, sizeof(keep_options), "LEAKPROF_OPTIONS=%s",
                       opts);
    if (n <= 0 || (size_t)n >= sizeof(keep_options))
        return;
    keep_ok = true;
}

bool lp_child_env_traced(void) { return keep_ok; }

size_t lp_child_env_count(char *const *envp)
{
    size_t n = 0;

    while (envp != NULL && envp[n] != NULL)
        n++;
    return n;
}

/* Whether the value v of an LD_PRELOAD names this library. */
static bool names_us(const char *v)
{
    const char *p = v;

    while (*p) {
        size_t len = strcspn(p, ": ");

        if (element_is_us(p, len))
            return true;
        p += len;
        p += strspn(p, ": ");
    }
    return false;
}

char *const *lp_child_env_for_exec(char *const *envp, char **out, size_t cap,
                                   char *line, size_t linecap)
{
    static const char pre[] = "LD_PRELOAD=", opt[] = "LEAKPROF_OPTIONS=",
                      xopt[] = LP_EXEC_OPTIONS "=";
    size_t n = lp_child_env_count(envp), i, k = 0;
    const char *preload = NULL;
    bool options = false;

    if (!keep_ok)
        return envp;
    for (i = 0; i < n; i++) {
        if (strncmp(envp[i], pre, sizeof(pre) - 1) == 0)
            preload = envp[i] + sizeof(pre) - 1;
        else if (strncmp(envp[i], opt, sizeof(opt) - 1) == 0 ||
                 strncmp(envp[i], xopt, sizeof(xopt) - 1) == 0)
            options = true;
    }
    if ((preload && names_us(preload) && options) || n + 3 > cap)
        return envp;
    for (i = 0; i < n; i++)
        if (strncmp(envp[i], pre, sizeof(pre) - 1) != 0)
            out[k++] = envp[i];
    if (preload && *preload && !names_us(preload) &&
        (size_t)snprintf(line, linecap, "%s:%s", keep_preload, preload) < linecap)
        out[k++] = line; /* ours first, then the program's own */
    else if (preload && names_us(preload))
        out[k++] = (char *)preload - (sizeof(pre) - 1);
    else
        out[k++] = keep_preload;
    if (!options)
        out[k++] = keep_options;
    out[k] = NULL;
    return out;
}
