/* SPDX-License-Identifier: MIT */
/*
 * eh_pool.c - find libstdc++'s emergency pool among the live blocks
 * (eh_pool.h).
 *
 * The pool has no exported name. Its block is the one our malloc hook
 * gave to libstdc++'s own code (the frame above the hook lies in
 * libstdc++) while the loader ran constructors (a frame below lies in
 * ld.so): the shape lp_supp_add_builtin's lp-libstdcxx-eh-pool entry
 * matches in the report. libstdc++ mallocs nothing else from its
 * constructor; a library's static std::string goes through operator new,
 * whose hook is not malloc. The stacks are read first (a few candidate
 * ids), then the table once for their blocks.
 * Context: COLD.
 */
#include "preload/life/eh_pool.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>

#include "preload/hot/guard.h"
#include "preload/hot/stack.h"
#include "preload/hot/table.h"
#include "preload/hot/track.h"
#include "preload/life/config.h"
#include "preload/life/exit.h"

#define MAX_CANDIDATES 8

struct range {
    uintptr_t lo, hi;
};

struct find {
    uint32_t id[MAX_CANDIDATES];
    unsigned n;
    uintptr_t addr[MAX_CANDIDATES];
    unsigned found;
};

static bool range_of(const void *p, struct range *r)
{
    struct dl_find_object obj;

    if (p == NULL || _dl_find_object((void *)(uintptr_t)p, &obj) != 0)
        return false;
    r->lo = (uintptr_t)obj.dlfo_map_start;
    r->hi = (uintptr_t)obj.dlfo_map_end;
    return true;
}

static bool in(const struct range *r, uintptr_t a) { return a >= r->lo && a < r->hi; }

static bool is_malloc_hook(uintptr_t pc)
{
    Dl_info info;

    return dladdr((void *)pc, &info) != 0 && info.dli_sname != NULL &&
           strcmp(info.dli_sname, "malloc") == 0;
}

static void collect(const struct lp_block *b, void *arg)
{
    struct find *f = arg;
    unsigned i;

    for (i = 0; i < f->n && f->found < MAX_CANDIDATES; i++)
        if (b->stack_id == f->id[i])
            f->addr[f->found++] = b->addr;
}

/* The candidates' blocks into f (guard held). libstdc++ is where the
 * weak reference to __gnu_cxx::__freeres was bound (exit.h): not looked
 * up, since any dlsym runs _dlerror_run, which frees the program's last
 * dlerror message, untracked under our guard. */
static void find_pool(struct find *f)
{
    struct range cxx, rtld;
    uint32_t id, n = lp_stack_count();
    unsigned k;

    if (!range_of((const void *)(uintptr_t)_ZN9__gnu_cxx9__freeresEv, &cxx) ||
        !range_of((const void *)getauxval(AT_BASE), &rtld))
        return; /* no libstdc++ (a C program), or no loader to tell */
    for (id = 1; id <= n && f->n < MAX_CANDIDATES; id++) {
        const struct lp_stack *s = lp_stack_get(id);

        if (s == NULL || s->nframes < 2 || !in(&cxx, lp_stack_frame(s, 1)) ||
            !is_malloc_hook(lp_stack_frame(s, 0)))
            continue;
        if (lp_config.unwind_fp) {
            /* Frame pointers end in libstdc++ (built without them): no
             * loader frame to see. The pool is libstdc++'s first malloc
             * (its constructor's), and stack ids count in order of first
             * sight: the first such stack is the pool's. */
            f->id[f->n++] = id;
            break;
        }
        for (k = 2; k < s->nframes && !in(&rtld, lp_stack_frame(s, k)); k++)
            ;
        if (k < s->nframes)
            f->id[f->n++] = id;
    }
    if (f->n > 0)
        lp_table_for_each(collect, f);
}

void lp_eh_pool_forget(void)
{
    struct find f = {0};
    struct lp_guard g;
    unsigned i;

    if (!lp_guard_enter(&g))
        return;
    find_pool(&f);
    lp_guard_leave(&g);
    for (i = 0; i < f.found; i++)
        lp_track_forget((void *)f.addr[i]); /* takes the guard itself */
}
