/* SPDX-License-Identifier: MIT */
/*
 * massif_write.c - massif.out files: copy the recorded history out of the
 * snapshot lock, build each detailed snapshot's tree over one lazy index
 * of the file's contexts (massif_tree.c), which filters and sorts them
 * only as far as the trees' significant nodes need (contexts.c), label
 * frames through the symbolizer and write with report/massif's writer to
 * a temporary file renamed into place.
 * Past a change of credentials (nginx's workers setuid to www-data), a
 * write the directory refuses goes into the final file made before it
 * (outfile_kept.c), a snapshot (massif.out.PID.N) included.
 * Context: COLD (exit, dumper thread; guard held); BOOT for
 * lp_massif_write_init(). Memory: libc malloc (guard held).
 */
#include "preload/life/outfile_kept.h"
#include "preload/hot/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/life/config.h"
#include "preload/life/diag.h"
#include "preload/life/root_dir.h"
#include "preload/scan/leakcheck.h"
#include "preload/hot/massif_state.h"
#include "preload/life/command.h"
#include "preload/hot/stack.h"
#include "preload/massif/contexts.h"
#include "preload/scan/report_log.h"
#include "report/massif.h"
#include "report/symbolize.h"

static struct {
    /* Start-up facts for the header. */
    char cmd[8192];
    int final_done;
    pthread_mutex_t write_lock;
} wr = {
    .write_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void read_cmdline(void)
{
    int fd = lp_proc_self_open("cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = 0, r;
    size_t i;

    if (fd >= 0) {
        while (n < (ssize_t)sizeof(wr.cmd) - 1 &&
               (r = read(fd, wr.cmd + n, sizeof(wr.cmd) - 1 - n)) > 0)
            n += r;
        close(fd);
    }
    while (n > 0 && wr.cmd[n - 1] == '\0')
        n--;
    for (i = 0; i < (size_t)n; i++)
        if (wr.cmd[i] == '\0' || wr.cmd[i] == '\n')
            wr.cmd[i] = ' ';
    wr.cmd[n] = '\0';
}

void lp_massif_write_init(void)
{
    read_cmdline();
}

/* The "cmd:" text: the command the report's Command: line shows (the
 * exec'd path for a traced child, a #! script's own name: command.c), as
 * Massif writes it, arguments joined by spaces; /proc/self/cmdline as
 * read at start when none was captured. */
static const char *cmd_text(void)
{
    size_t len, i;
    const char *a = lp_command_args(&len);

    if (len == 0)
        return wr.cmd;
    if (len > sizeof(wr.cmd) - 1)
        len = sizeof(wr.cmd) - 1;
    memcpy(wr.cmd, a, len);
    while (len > 0 && wr.cmd[len - 1] == '\0')
        len--;
    for (i = 0; i < len; i++)
        if (wr.cmd[i] == '\0' || wr.cmd[i] == '\n')
            wr.cmd[i] = ' ';
    wr.cmd[len] = '\0';
    return wr.cmd;
}

/* The writer's lock is taken first in fork's prepare: a writer takes the
 * leak report's lock while holding it (fork.c lists the order). */
void lp_snapshot_write_lock(void) { pthread_mutex_lock(&wr.write_lock); }
void lp_snapshot_write_unlock(void) { pthread_mutex_unlock(&wr.write_lock); }

void lp_massif_write_atfork_child(void)
{
    pthread_mutex_init(&wr.write_lock, NULL);
    wr.final_done = 0;
}

struct hist {
    size_t n;
    struct lp_sched_snap *s; /* trees are malloc'd copies */
};

static struct lp_massif_raw *dup_tree(const struct lp_massif_raw *t)
{
    struct lp_massif_raw *c = t ? malloc(t->size) : NULL;

    if (c)
        memcpy(c, t, t->size);
    return c;
}

/* Copy the history (and, with now, a detailed snapshot of this moment)
 * out of the lock's protection. */
static int copy_history(struct hist *h, bool now)
{
    const struct lp_sched *sc;
    size_t i;

    lp_massif_hist_lock();
    sc = lp_massif_sched();
    h->n = sc->n;
    h->s = calloc(h->n + 1, sizeof(*h->s));
    if (!h->s) {
        lp_massif_hist_unlock();
        return -ENOMEM;
    }
    for (i = 0; i < h->n; i++) {
        h->s[i] = sc->snaps[i];
        h->s[i].tree = dup_tree(sc->snaps[i].tree);
        if (h->s[i].kind != LP_SCHED_EMPTY && !h->s[i].tree)
            h->s[i].kind = LP_SCHED_EMPTY;
    }
    if (now) {
        struct lp_sched_snap *sn = &h->s[h->n];
        struct lp_massif_raw *t;

        lp_massif_take_now(sn);
        t = sn->tree;
        sn->tree = dup_tree(t);
        lp_massif_raw_free(t);
        if (!sn->tree)
            sn->kind = LP_SCHED_EMPTY;
        h->n++;
    }
    lp_massif_hist_unlock();
    return 0;
}

static void free_history(struct hist *h)
{
    size_t i;

    for (i = 0; i < h->n; i++)
        free(h->s[i].tree);
    free(h->s);
}

struct writer {
    struct lp_sym *sym;
    uint32_t nids;
    struct lp_massif_contexts ctxs; /* set up on the first tree */
    bool have_ctxs;
    struct lp_snapshot_index *ix; /* over ctxs, built with it */
    char **labels;      /* scratch: strings of the last label() call */
    int nlabels;
};

static int sym_label(void *ctx, uintptr_t ip, const char **out, int max)
{
    struct writer *w = ctx;
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    int n = lp_sym_resolve(w->sym, ip, true, f, LP_SYM_MAX_INLINE), i;

    if (n < 1) {
        memset(f, 0, sizeof(f[0]));
        f[0].addr = ip - 1;
        n = 1;
    }
    if (n > max)
        n = max;
    for (i = 0; i < w->nlabels; i++)
        free(w->labels[i]);
    w->nlabels = 0;
    for (i = 0; i < n; i++) {
        int len;
        char *buf;

        if (!lp_config.show_below_main &&
            lp_sym_fn_kind(f[i].fn) == LP_FN_BELOW_MAIN)
            f[i].fn = LP_SYM_BELOW_MAIN;
        len = lp_sym_describe(&f[i], NULL, NULL, 0);
        buf = malloc((size_t)len + 1);
        if (!buf)
            break;
        lp_sym_describe(&f[i], NULL, buf, (size_t)len + 1);
        w->labels[w->nlabels++] = buf;
        out[i] = buf;
    }
    if (w->nlabels == 0) {
        out[0] = "???";
        return 1;
    }
    return w->nlabels;
}

static struct lp_massif_node *tree_of(struct writer *w, struct lp_massif *m,
                                      const struct lp_sched_snap *s)
{
    const struct lp_massif_raw *t = s->tree;

    if (!w->ix) {
        if (!w->have_ctxs &&
            lp_massif_contexts_init(&w->ctxs, w->sym, w->nids) != 0)
            return NULL;
        w->have_ctxs = true;
        w->ix = lp_snapshot_index_lazy(w->ctxs.ids, w->nids - 1,
                                       lp_massif_contexts_order, &w->ctxs);
        if (!w->ix)
            return NULL;
    }
    /* Every context seen by the time of the snapshot, empty ones too
     * (massif keeps them in the tree): ids up to nstacks. */
    return lp_snapshot_build_tree_indexed(
        m, w->ix, t->e, t->nents, t->nstacks,
        lp_snapshot_sig(s->heap, s->heap + s->extra + s->stacks,
                        lp_config.threshold),
        lp_config.threshold, sym_label, w);
}

/* "desc:" text: our options in massif's spelling (snapshot.h). */
static void make_desc(char *out, size_t n)
{
    static const struct {
        const char *key, *flag;
    } map[] = {
        { "massif", "--massif-out-file=" },
        { "time_unit", "--time-unit=" },
        { "detailed_freq", "--detailed-freq=" },
        { "max_snapshots", "--max-snapshots=" },
        { "threshold", "--threshold=" },
        { "peak_inaccuracy", "--peak-inaccuracy=" },
        { "depth", "--depth=" },
        { "heap_admin", "--heap-admin=" },
        { "alloc_fn", "--alloc-fn=" },
        { "sample_bytes", "--sample-bytes=" }, /* ours: estimates */
    };
    const char *p = lp_config.options_text;
    char item[LP_CONFIG_PATH_MAX * 2];
    size_t o = 0;
    int len;

    out[0] = '\0';
    while ((len = lp_config_next_item(&p, item, sizeof(item))) != 0) {
        const char *eq = strchr(item, '=');
        size_t i;

        for (i = 0; len > 0 && eq && i < LP_ARRAY_SIZE(map); i++)
            if (strlen(map[i].key) == (size_t)(eq - item) &&
                !strncmp(item, map[i].key, (size_t)(eq - item))) {
                int r = snprintf(out + o, n - o, "%s%s%s", o ? " " : "",
                                 map[i].flag, eq + 1);

                if (r > 0 && (size_t)r < n - o)
                    o += (size_t)r;
                break;
            }
    }
    if (o == 0)
        snprintf(out, n, "(none)");
}

static int fill_massif(FILE *f, void *m)
{
    return lp_massif_write(m, f);
}

static int write_profile(unsigned seq, bool now)
{
    static const char *const units[] = { "B", "ms", "i" };
    char path[LP_CONFIG_PATH_MAX + 32], desc[sizeof(lp_config.options_text)];
    struct writer w = { 0 };
    struct lp_massif *m = NULL;
    struct hist h = { 0, NULL };
    char *labels[LP_SYM_MAX_INLINE];
    size_t i;
    int rc;

    path[0] = '\0';
    rc = lp_outfile_path(LP_OUT_MASSIF, seq, path, sizeof(path));
    if (rc == 0)
        rc = copy_history(&h, now);
    if (rc != 0)
        goto out;
    w.labels = labels;
    w.nids = lp_stack_count() + 1;
    make_desc(desc, sizeof(desc));
    m = lp_massif_new(desc, cmd_text()[0] ? wr.cmd : "???",
                      units[lp_massif_unit() <= LP_TIME_I ? lp_massif_unit() : 0]);
    if (!m) {
        rc = -ENOMEM;
        goto out;
    }
    w.sym = lp_leakcheck_sym_get(); /* shared with the leak report */
    for (i = 0; i < h.n && rc == 0; i++) {
        struct lp_sched_snap *s = &h.s[i];
        struct lp_massif_node *tree = NULL;
        enum lp_massif_kind kind = LP_MASSIF_EMPTY;

        if (s->tree) {
            tree = tree_of(&w, m, s);
            if (tree)
                kind = s->kind == LP_SCHED_PEAK ? LP_MASSIF_PEAK
                                                : LP_MASSIF_DETAILED;
            if (kind == LP_MASSIF_EMPTY)
                tree = NULL;
        }
        rc = lp_massif_add_snapshot(m, s->time, s->heap, s->extra, s->stacks,
                                    kind, tree);
    }
    if (rc == 0)
        rc = lp_outfile_write(LP_OUT_MASSIF, seq, path, fill_massif, m);
out:
    if (rc != 0)
        lp_report_log_cannot_write(path[0] ? path : lp_config.massif,
                                   strerror(-rc));
    for (i = 0; i < (size_t)w.nlabels; i++)
        free(w.labels[i]);
    lp_snapshot_index_free(w.ix);
    if (w.have_ctxs)
        lp_massif_contexts_free(&w.ctxs);
    if (w.sym)
        lp_leakcheck_sym_put();
    lp_massif_free(m);
    free_history(&h);
    return rc;
}

void lp_snapshot_write_final(void)
{
    if (!lp_massif_enabled() ||
        lp_xchg_acq_rel(&wr.final_done, 1))
        return;
    pthread_mutex_lock(&wr.write_lock);
    write_profile(0, false);
    pthread_mutex_unlock(&wr.write_lock);
}

bool lp_snapshot_dump_kept(unsigned n)
{
    return n != 0 && lp_outfile_kept_seq(LP_OUT_MASSIF) == n;
}

int lp_snapshot_dump(unsigned n)
{
    int rc;

    if (!lp_massif_enabled())
        return -ENOENT;
    pthread_mutex_lock(&wr.write_lock);
    rc = write_profile(n, true);
    pthread_mutex_unlock(&wr.write_lock);
    return rc;
}
