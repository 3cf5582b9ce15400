/* SPDX-License-Identifier: MIT */
/*
 * xml_out.c - xml=yes at exit: the head's facts (pid, parent, the
 * launcher's options, the program's command line, the times) gathered
 * here, the document formatted by report/xml.c, written to its file or
 * descriptor in one go.
 *
 * <vargv> names what started the tool: under Valgrind its own argv; here
 * "leakprof" and the options the process was started with, written as
 * the launcher's --key=value (our internal items left out), whether they
 * came from the launcher or from LEAKPROF_OPTIONS.
 * Context: see xml_out.h.
 */
#include "preload/scan/xml_out.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "preload/life/command.h"
#include "preload/life/config.h"
#include "preload/life/diag.h"
#include "preload/life/fd_guard.h"
#include "preload/life/outfile_kept.h"
#include "preload/scan/report_log.h"
#include "report/xml.h"

#define MAX_CONTEXTS 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int fd; /* xml_fd=N: our copy of N, taken at start; -1: none */
    char options[4096];
    uint64_t start_ns; /* CLOCK_MONOTONIC at start-up */
    /* Heap errors: their <error> elements, and per unique (the order
     * their contexts were first shown) the context and its count. */
    char *errors;
    size_t errors_len;
    int ctx[MAX_CONTEXTS];
    unsigned count[MAX_CONTEXTS];
    unsigned nuniques;
} xo = {.fd = -1};

void lp_xml_out_begin(void)
{
    if (!lp_config.xml || lp_config.xml_fd < 0)
        return;
    /* A copy of ours, as Valgrind keeps one (and as log_fd's): the
     * program may close N or reuse its number before the exit. */
    xo.fd = lp_fd_guard_dup_high(lp_config.xml_fd);
    if (xo.fd < 0)
        lp_diag("xml_fd=%d is not an open descriptor; no XML is written",
                lp_config.xml_fd);
    else
        lp_fd_guard_keep(&xo.fd);
}

void lp_xml_out_atfork_child(void)
{
    pthread_mutex_init(&lock, NULL);
}

void lp_xml_out_heap_error(int ci, const struct lp_heap_error *e, int tid,
                           struct lp_sym *sym, const char *self_obj)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem;
    unsigned u;

    pthread_mutex_lock(&lock);
    u = xo.nuniques;
    if (u < MAX_CONTEXTS && (mem = open_memstream(&buf, &len)) != NULL) {
        lp_heap_error_xml(mem, e, u, tid, sym, self_obj, lp_config.depth,
                          lp_config.gen_suppressions);
        fclose(mem);
        {
            char *more = realloc(xo.errors, xo.errors_len + len + 1);

            if (more) {
                memcpy(more + xo.errors_len, buf, len + 1);
                xo.errors = more;
                xo.errors_len += len;
                xo.ctx[u] = ci;
                xo.count[u] = 1;
                xo.nuniques++;
            }
        }
        free(buf);
    }
    pthread_mutex_unlock(&lock);
}

void lp_xml_out_heap_repeat(int ci)
{
    unsigned u;

    pthread_mutex_lock(&lock);
    for (u = 0; u < xo.nuniques; u++)
        if (xo.ctx[u] == ci) {
            xo.count[u]++;
            break;
        }
    pthread_mutex_unlock(&lock);
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void lp_xml_out_note_options(const char *text)
{
    snprintf(xo.options, sizeof(xo.options), "%s", text ? text : "");
    xo.start_ns = now_ns();
}

bool lp_xml_out_on(void)
{
    return lp_config.xml && (lp_config.xml_file[0] || lp_config.xml_fd >= 0);
}

/* The options as --key-with-dashes=value, in a malloc'ed array of
 * malloc'ed strings; the count, 0 on no memory. */
static int vargv_of(char ***out)
{
    const char *p = xo.options;
    char item[LP_CONFIG_PATH_MAX + 128];
    char **v = NULL;
    int n = 0;

    while (lp_config_next_item(&p, item, sizeof(item)) > 0) {
        char *eq = strchr(item, '='), *a, *c, **more;
        const struct lp_option *o;

        if (eq)
            *eq = 0;
        o = lp_option_find(item);
        if (!o || (o->flags & LP_OPT_INTERNAL))
            continue;
        if (asprintf(&a, "--%s%s%s", item, eq ? "=" : "", eq ? eq + 1 : "") < 0)
            break;
        for (c = a + 2; *c && *c != '='; c++)
            if (*c == '_')
                *c = '-';
        more = realloc(v, sizeof(*v) * (size_t)(n + 1));
        if (!more) {
            free(a);
            break;
        }
        v = more;
        v[n++] = a;
    }
    *out = v;
    return n;
}

struct job {
    struct lp_leak_set *set;
    struct lp_sym *sym;
    const struct lp_leak_opts *o;
    const struct lp_supp *supps[2];
    uint64_t finished_ms;
};

static int fill(FILE *f, void *arg)
{
    const struct job *j = arg;
    struct lp_xml_head h;
    char **vargv = NULL;
    uint64_t ran_ms = (now_ns() - xo.start_ns) / 1000000u;
    int i, rc;

    memset(&h, 0, sizeof(h));
    h.pid = getpid();
    h.ppid = lp_command_parent_pid();
    h.command = lp_command_args(&h.command_len);
    h.vargv_exe = "leakprof";
    h.nvargv = vargv_of(&vargv);
    h.vargv = (const char *const *)vargv;
    h.start_ms = j->finished_ms > ran_ms ? j->finished_ms - ran_ms : 0;
    h.user_comment =
        lp_config.xml_user_comment_set ? lp_config.xml_user_comment : NULL;
    lp_xml_begin(f, &h);
    /* Memcheck writes a heap error when it happens: before FINISHED. */
    pthread_mutex_lock(&lock);
    if (xo.errors_len)
        fwrite(xo.errors, 1, xo.errors_len, f);
    pthread_mutex_unlock(&lock);
    lp_xml_finished(f, j->finished_ms > h.start_ms ? j->finished_ms
                                                   : h.start_ms);
    rc = lp_leaks_xml(f, j->set, j->sym, j->o);
    pthread_mutex_lock(&lock);
    lp_xml_end(f, xo.count, xo.nuniques, j->supps, 2);
    pthread_mutex_unlock(&lock);
    for (i = 0; i < h.nvargv; i++)
        free(vargv[i]);
    free(vargv);
    if (rc == 0 && (fflush(f) != 0 || ferror(f)))
        rc = -EIO;
    return rc;
}

/* xml_fd=N: the whole document with write(2). */
static void write_fd(struct job *j)
{
    char *buf = NULL;
    size_t len = 0, off = 0;
    FILE *mem = open_memstream(&buf, &len);

    if (!mem)
        return;
    fill(mem, j);
    fclose(mem);
    while (xo.fd >= 0 && off < len) {
        ssize_t w = write(xo.fd, buf + off, len - off);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
            lp_write_wait(xo.fd))
            continue;
        if (w <= 0) {
            char what[32];

            snprintf(what, sizeof(what), "xml_fd=%d", lp_config.xml_fd);
            lp_report_log_cannot_write(what, strerror(errno ? errno : EIO));
            break;
        }
        off += (size_t)w;
    }
    free(buf);
}

void lp_xml_out_write(struct lp_leak_set *set, struct lp_sym *sym,
                      const struct lp_leak_opts *o, const struct lp_supp *supp,
                      const struct lp_supp *err_supp, uint64_t finished_ms)
{
    char path[LP_CONFIG_PATH_MAX + 32];
    struct job j = { set, sym, o, { supp, err_supp }, finished_ms };
    int rc;

    if (!lp_xml_out_on())
        return;
    if (lp_config.xml_fd >= 0) {
        write_fd(&j);
        return;
    }
    if (lp_outfile_path(LP_OUT_XML, 0, path, sizeof(path)) != 0)
        return;
    rc = lp_outfile_write(LP_OUT_XML, 0, path, fill, &j);
    if (rc != 0)
        lp_report_log_cannot_write(path, strerror(-rc));
}
