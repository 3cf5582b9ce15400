/* SPDX-License-Identifier: MIT */
/*
 * unloaded_objects.c - keep_debuginfo=yes (Valgrind's --keep-debuginfo):
 * the objects dlclose unloaded, so that frames of their code are still
 * named in the report (report/symbolize_unloaded.c reads them back from
 * their files). Without it such frames are "???", as Memcheck prints them.
 *
 * The dlclose hook lists the loaded objects before the real dlclose and
 * looks for them after: those gone (the handle's object and the
 * dependencies only it used) are recorded with their path and load bias.
 * The names are copied before, since the loader frees them with the
 * object. A dlclose that unloads nothing (the object still referenced)
 * records nothing. Records are never dropped: an object unloaded and
 * loaded again is recorded once per unload, and the symbolizer names an
 * address by the objects mapped at the report first.
 *
 * Context: COLD (the program's thread, in dlclose; no loader lock held
 * between the calls). Memory: the arena (no allocation through the hooks).
 */
#include "preload/life/unloaded_objects.h"

#include <link.h>
#include <string.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/life/config.h"
#include "report/symbolize.h"

struct gone {
    struct gone *next;
    uintptr_t bias;
    char path[]; /* NUL-terminated */
};

static struct gone *gone_list; /* push-only, newest first */
static size_t gone_count;

/* The objects before the dlclose: bias and a copy of the name. */
struct seen {
    uintptr_t bias;
    char *name;
    bool still; /* found again after the dlclose */
};

struct listing {
    struct seen *v;
    size_t n, cap;
    bool failed;
};

static int note(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct listing *l = arg;
    size_t len;

    (void)size;
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
        return 0; /* the program: never unloaded */
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct seen *v = lp_arena_alloc(sizeof(*v) * cap);

        if (v == NULL) {
            l->failed = true;
            return 1;
        }
        if (l->v != NULL) {
            memcpy(v, l->v, sizeof(*v) * l->n);
            lp_arena_free(l->v, sizeof(*v) * l->cap);
        }
        l->v = v;
        l->cap = cap;
    }
    len = strlen(info->dlpi_name) + 1;
    l->v[l->n].name = lp_arena_alloc(len);
    if (l->v[l->n].name == NULL) {
        l->failed = true;
        return 1;
    }
    memcpy(l->v[l->n].name, info->dlpi_name, len);
    l->v[l->n].bias = info->dlpi_addr;
    l->v[l->n].still = false;
    l->n++;
    return 0;
}

static int find_again(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct listing *l = arg;
    size_t i;

    (void)size;
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
        return 0;
    for (i = 0; i < l->n; i++)
        if (l->v[i].bias == info->dlpi_addr &&
            strcmp(l->v[i].name, info->dlpi_name) == 0) {
            l->v[i].still = true;
            break;
        }
    return 0;
}

/* Recorded with an absolute path: a name dlopen was given relative to
 * the working directory ("./plugin.so") is taken from the directory the
 * program is in now, which the report may no longer be in. */
static void record(const struct seen *s)
{
    char cwd[4096];
    size_t dir = 0, len = strlen(s->name) + 1;
    struct gone *g;

    if (s->name[0] != '/') {
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return;
        dir = strlen(cwd) + 1;
    }
    if ((g = lp_arena_alloc(sizeof(*g) + dir + len)) == NULL)
        return;
    g->bias = s->bias;
    if (dir > 0) {
        memcpy(g->path, cwd, dir - 1);
        g->path[dir - 1] = '/';
    }
    memcpy(g->path + dir, s->name, len);
    g->next = lp_load_relaxed(&gone_list);
    while (!__atomic_compare_exchange_n(&gone_list, &g->next, g, false,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    lp_add_relaxed(&gone_count, 1);
}

/* The i-th record (any order), or false past the last. */
static bool unloaded_at(size_t i, const char **path, uintptr_t *bias)
{
    const struct gone *g = lp_load_acquire(&gone_list);

    for (; g != NULL && i > 0; i--)
        g = g->next;
    if (g == NULL)
        return false;
    *path = g->path;
    *bias = g->bias;
    return true;
}

void *lp_unloaded_before(void)
{
    struct listing *l;

    if (!lp_config.keep_debuginfo)
        return NULL;
    l = lp_arena_alloc(sizeof(*l));
    if (l == NULL)
        return NULL;
    dl_iterate_phdr(note, l);
    return l;
}

void lp_unloaded_after(void *token, bool unloaded)
{
    struct listing *l = token;
    size_t i;

    if (l == NULL)
        return;
    if (unloaded && !l->failed) {
        dl_iterate_phdr(find_again, l);
        for (i = 0; i < l->n; i++) {
            if (!l->v[i].still)
                record(&l->v[i]);
        }
        if (lp_load_relaxed(&gone_count) > 0)
            lp_sym_unloaded = unloaded_at;
    }
    for (i = 0; i < l->n; i++)
        lp_arena_free(l->v[i].name, strlen(l->v[i].name) + 1);
    if (l->v != NULL)
        lp_arena_free(l->v, sizeof(*l->v) * l->cap);
    lp_arena_free(l, sizeof(*l));
}
