/* SPDX-License-Identifier: MIT */
/*
 * heap_errors.c - invalid and mismatched frees in Memcheck's layout.
 * Context: COLD. The wording, the two-space indent of the description
 * lines and the lower-case address in them (frames print theirs in upper
 * case) are Valgrind 3.19's, read from its output for each shape.
 */
#include "report/heap_errors.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/leaks.h"

const char *lp_heap_error_title(enum lp_heap_error_kind kind)
{
    return kind == LP_HEAP_ERR_MISMATCH
               ? "Mismatched free() / delete / delete []"
               : "Invalid free() / delete / delete[] / realloc()";
}

/* One frame as "0xADDR: fn (file:line)", grown for long C++ names. */
static void frame_line(struct lp_line_writer *w, const char *lead,
                       const struct lp_sym_frame *f, const char *self_obj)
{
    char buf[2048];
    int len = lp_sym_describe(f, self_obj, buf, sizeof(buf));

    if (len >= (int)sizeof(buf)) {
        char *big = malloc((size_t)len + 1);

        if (big != NULL) {
            lp_sym_describe(f, self_obj, big, (size_t)len + 1);
            lp_line(w, "   %s %s", lead, big);
            free(big);
            return;
        }
    }
    lp_line(w, "   %s %s", lead, buf);
}

static void print_stack(struct lp_line_writer *w, const struct lp_heap_error_stack *s,
                        struct lp_sym *sym, const char *self_obj, int depth)
{
    unsigned nips = s->nips;
    struct lp_sym_frame *f;
    size_t cap;
    int nf, i;

    if (s->ips == NULL || nips == 0) {
        lp_line(w, "   at 0x0: ???");
        return;
    }
    nips = lp_leaks_nips(sym, s->ips, nips, depth);
    cap = (size_t)nips * LP_SYM_MAX_INLINE;
    f = malloc(cap * sizeof(*f));
    if (f == NULL) {
        w->err = -ENOMEM;
        return;
    }
    nf = lp_leaks_frames(sym, s->ips, nips, f, (int)cap);
    for (i = 0; i < nf; i++)
        frame_line(w, i == 0 ? "at" : "by", &f[i], self_obj);
    free(f);
}

bool lp_heap_error_created_by(const struct lp_heap_error *e,
                              struct lp_sym *sym, const char *self_obj,
                              char *out, size_t n)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    uintptr_t start = 0;
    char buf[2048];
    const char *text;
    int got;

    if (e->frame < 0 || lp_sym_symbol(sym, e->frame_ip - 1, &start) == NULL)
        return false; /* Memcheck prints no frame line without a function */
    got = lp_sym_resolve(sym, start, false, f, LP_SYM_MAX_INLINE);
    if (got < 1 || f[got - 1].fn == NULL)
        return false;
    /* The entry of an out-of-line function has no inlined callers. */
    lp_sym_describe(&f[got - 1], self_obj, buf, sizeof(buf));
    text = strstr(buf, ": ");
    text = text != NULL ? text + 2 : buf;
    snprintf(out, n, "in frame #%d, created by %s", e->frame, text);
    return true;
}

/* "stack_free (he.c:12)": the function of a frame, at its entry line. */
static void created_by(struct lp_line_writer *w, const struct lp_heap_error *e,
                       struct lp_sym *sym, const char *self_obj)
{
    char buf[2200];

    if (lp_heap_error_created_by(e, sym, self_obj, buf, sizeof(buf)))
        lp_line(w, " %s", buf);
}

int lp_heap_error_print(FILE *out, const struct lp_heap_error *e,
                        struct lp_sym *sym, const char *self_obj, int depth)
{
    struct lp_line_writer w = { .f = out, .pid = e->pid, .err = 0 };
    char off[32], size[32];

    lp_commify(e->offset, off, sizeof(off));
    lp_commify(e->size, size, sizeof(size));
    lp_line_error_begin(&w);
    if (e->thread_header > 0)
        lp_line(&w, "Thread %d:", e->thread_header);
    lp_line(&w, "%s", lp_heap_error_title(e->kind));
    print_stack(&w, &e->at, sym, self_obj, depth);
    switch (e->where) {
    case LP_WHERE_FREED:
        lp_line(&w, " Address %#" PRIxPTR " is %s bytes inside a block of size %s free'd",
             e->addr, off, size);
        print_stack(&w, &e->freed_at, sym, self_obj, depth);
        if (e->no_alloc_section)
            break;
        lp_line(&w, " Block was alloc'd at");
        print_stack(&w, &e->alloc_at, sym, self_obj, depth);
        break;
    case LP_WHERE_ALLOCD:
        lp_line(&w, " Address %#" PRIxPTR " is %s bytes inside a block of size %s alloc'd",
             e->addr, off, size);
        print_stack(&w, &e->alloc_at, sym, self_obj, depth);
        break;
    case LP_WHERE_STACK:
        lp_line(&w, " Address %#" PRIxPTR " is on thread %d's stack", e->addr,
             e->thread);
        if (e->frame >= 0)
            created_by(&w, e, sym, self_obj);
        break;
    case LP_WHERE_DATA:
        lp_line(&w, " Address %#" PRIxPTR " is %s bytes inside data symbol \"%s\"",
             e->addr, off, lp_sym_demangle(sym, e->name));
        break;
    case LP_WHERE_OBJECT:
        lp_line(&w, " Address %#" PRIxPTR " is in a rw- mapped file %s segment",
             e->addr, e->name ? e->name : "???");
        break;
    case LP_WHERE_SEGMENT:
        if (e->name != NULL && e->name[0] != '\0')
            lp_line(&w, " Address %#" PRIxPTR " is in a %s mapped file %s segment",
                 e->addr, e->perms, e->name);
        else
            lp_line(&w, " Address %#" PRIxPTR " is in a %s anonymous segment",
                 e->addr, e->perms);
        break;
    case LP_WHERE_NOWHERE:
        lp_line(&w, " Address %#" PRIxPTR " is not stack'd, malloc'd or (recently) free'd",
             e->addr);
        break;
    }
    lp_line(&w, "%s", "");
    lp_line_error_end(&w);
    if (w.err == 0 && fflush(out) != 0)
        w.err = errno != 0 ? -errno : -EIO;
    return w.err;
}
