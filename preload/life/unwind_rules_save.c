/* SPDX-License-Identifier: MIT */
/*
 * unwind_rules_save.c - the unwind-rule files (unwind_rules_file.h) at
 * the two ends of a process: where they are, at start; at exit, each
 * object whose process computed rules its file lacks gets the file
 * written anew, old records and new sorted, to a temporary name renamed
 * into place (two processes racing lose one's additions, never the
 * file). A warm compile writes nothing.
 * Context: COLD (init, and the exit report's thread).
 */
#include "preload/hot/unwind_rules_file.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/hot/unwind_rules.h"
#include "report/cache_prune.h"
#include "report/symcache.h"

void lp_rules_file_init(void)
{
    const char *self = NULL, *dir = lp_symcache_where(&self);

    lp_rules_file_set_dir(dir, self);
}

static int rec_order(const void *a, const void *b)
{
    const struct lp_rules_rec *x = a, *y = b;

    return (x->off > y->off) - (x->off < y->off);
}

static bool save_obj(const struct lp_rules_obj *o, const struct lp_rules *t)
{
    const struct lp_rules_set *had = lp_load_acquire(&o->set);
    size_t had_n = had ? had->n : 0;
    bool wrote = false;
    size_t i, n = 0, cap = 256;
    struct lp_rules_rec *all = malloc(cap * sizeof(*all));
    char path[700], tmp[760];
    uint64_t cnt;
    int fd;

    if (all == NULL)
        return false;
    for (i = 0; i < ((size_t)1 << t->bits); i++) {
        uint64_t k = lp_load_acquire(&t->slots[i].key);
        struct dl_find_object fo;

        if (k <= LP_RULE_KEY_TOMB || _dl_find_object((void *)(k - 1), &fo) != 0 ||
            (uintptr_t)fo.dlfo_map_start != o->start || lp_rules_set_has(had, k - o->bias, NULL))
            continue;
        if (n == cap) {
            struct lp_rules_rec *g = realloc(all, (cap *= 2) * sizeof(*all));

            if (g == NULL) {
                free(all);
                return false;
            }
            all = g;
        }
        all[n].off = k - o->bias;
        all[n].rule = lp_load_relaxed(&t->slots[i].rule);
        n++;
    }
    if (n == 0 || n + had_n > LP_RULES_MAX || !lp_rules_file_name(o, path, sizeof(path))) {
        free(all);
        return false; /* nothing new (a warm run), or no room for it */
    }
    if (n + had_n > cap) {
        struct lp_rules_rec *g = realloc(all, (n + had_n) * sizeof(*all));

        if (g == NULL) {
            free(all);
            return false;
        }
        all = g;
    }
    if (had_n)
        memcpy(all + n, had->r, had_n * sizeof(*all));
    n += had_n;
    qsort(all, n, sizeof(*all), rec_order);
    cnt = n;
    (void)lp_symcache_make_dirs(path);
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
        bool ok = lp_symcache_write_all(fd, LP_RULES_MAGIC, LP_RULES_MAGIC_LEN) &&
                  lp_symcache_write_all(fd, &cnt, 8) &&
                  lp_symcache_write_all(fd, all, n * sizeof(*all));

        if (close(fd) != 0 || !ok || rename(tmp, path) != 0)
            unlink(tmp);
        else
            wrote = true;
    }
    free(all);
    return wrote;
}

void lp_rules_file_save(void)
{
    const struct lp_rules *t = lp_load_acquire(&lp_rules_now);
    const struct lp_rules_obj *o;
    const char *self12 = NULL, *dir;
    bool wrote = false;
    size_t i;

    /* Every rule came from a file (a warm run): nothing to write, and no
     * walk over the table, whose untouched pages each cost a fault
     * (0.8 ms of a short sampled run's 5 ms). */
    if (t == NULL || lp_load_relaxed(&lp_rules_computed) == 0)
        return;
    for (i = 0; i < ((size_t)1 << t->bits); i++) {
        uint64_t k = lp_load_acquire(&t->slots[i].key);

        if (k > LP_RULE_KEY_TOMB)
            lp_rules_file_claim(k);
    }
    for (i = 0; lp_rules_file_obj(i, &o); i++)
        if (o != NULL)
            wrote |= save_obj(o, t);
    /* A process that added to the cache keeps it bounded. */
    if (wrote && (dir = lp_symcache_where(&self12)) != NULL)
        lp_cache_prune_maybe(dir, self12);
}
