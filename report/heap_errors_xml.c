/* SPDX-License-Identifier: MIT */
/*
 * heap_errors_xml.c - one heap error as Memcheck's XML <error>.
 * Context: COLD.
 *
 * The same facts as lp_heap_error_print's text, in the elements Memcheck
 * 3.19 writes for an invalid or mismatched free: the title in <what>, the
 * bad call's <stack>, then each description line as an <auxwhat>, the
 * stack it introduces after it (tests/e2e/xml.sh compares them).
 */
#include "report/heap_errors.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "report/leaks.h"
#include "report/suppress.h"
#include "report/xml.h"

/* The frames of s as the text report cuts them; n in *n (0 for none). */
static struct lp_sym_frame *frames_of(const struct lp_heap_error_stack *s,
                                      struct lp_sym *sym, int depth, int *n)
{
    struct lp_sym_frame *f;
    unsigned nips;
    size_t cap;

    *n = 0;
    if (s->ips == NULL || s->nips == 0)
        return NULL;
    nips = lp_leaks_nips(sym, s->ips, s->nips, depth);
    cap = (size_t)nips * LP_SYM_MAX_INLINE;
    f = malloc((cap ? cap : 1) * sizeof(*f));
    if (f)
        *n = lp_leaks_frames(sym, s->ips, nips, f, (int)cap);
    return f;
}

static void stack(FILE *out, const struct lp_heap_error_stack *s,
                  struct lp_sym *sym, const char *self_obj, int depth)
{
    int n;
    struct lp_sym_frame *f = frames_of(s, sym, depth, &n);

    lp_xml_stack(out, f, n, self_obj);
    free(f);
}

static void auxwhat(FILE *out, const char *text)
{
    fputs("  <auxwhat>", out);
    lp_xml_text(out, text);
    fputs("</auxwhat>\n", out);
}

int lp_heap_error_xml(FILE *out, const struct lp_heap_error *e,
                      unsigned unique, int tid, struct lp_sym *sym,
                      const char *self_obj, int depth, bool gen_suppressions)
{
    char off[32], size[32], text[4400];
    char *raw = NULL;
    size_t rawlen = 0;

    lp_commify(e->offset, off, sizeof(off));
    lp_commify(e->size, size, sizeof(size));
    fprintf(out, "<error>\n  <unique>0x%x</unique>\n  <tid>%d</tid>\n"
                 "  <kind>%s</kind>\n  <what>%s</what>\n",
            unique, tid,
            e->kind == LP_HEAP_ERR_MISMATCH ? "MismatchedFree" : "InvalidFree",
            lp_heap_error_title(e->kind));
    stack(out, &e->at, sym, self_obj, depth);
    switch (e->where) {
    case LP_WHERE_FREED:
        snprintf(text, sizeof(text),
                 "Address %#" PRIxPTR " is %s bytes inside a block of size %s free'd",
                 e->addr, off, size);
        auxwhat(out, text);
        stack(out, &e->freed_at, sym, self_obj, depth);
        if (e->no_alloc_section)
            break;
        auxwhat(out, "Block was alloc'd at");
        stack(out, &e->alloc_at, sym, self_obj, depth);
        break;
    case LP_WHERE_ALLOCD:
        snprintf(text, sizeof(text),
                 "Address %#" PRIxPTR " is %s bytes inside a block of size %s alloc'd",
                 e->addr, off, size);
        auxwhat(out, text);
        stack(out, &e->alloc_at, sym, self_obj, depth);
        break;
    case LP_WHERE_STACK:
        snprintf(text, sizeof(text), "Address %#" PRIxPTR " is on thread %d's stack",
                 e->addr, e->thread);
        auxwhat(out, text);
        if (lp_heap_error_created_by(e, sym, self_obj, text, sizeof(text)))
            auxwhat(out, text);
        break;
    case LP_WHERE_DATA:
        snprintf(text, sizeof(text),
                 "Address %#" PRIxPTR " is %s bytes inside data symbol \"%s\"",
                 e->addr, off, lp_sym_demangle(sym, e->name));
        auxwhat(out, text);
        break;
    case LP_WHERE_OBJECT:
        snprintf(text, sizeof(text),
                 "Address %#" PRIxPTR " is in a rw- mapped file %s segment",
                 e->addr, e->name ? e->name : "???");
        auxwhat(out, text);
        break;
    case LP_WHERE_SEGMENT:
        if (e->name != NULL && e->name[0] != '\0')
            snprintf(text, sizeof(text),
                     "Address %#" PRIxPTR " is in a %s mapped file %s segment",
                     e->addr, e->perms, e->name);
        else
            snprintf(text, sizeof(text),
                     "Address %#" PRIxPTR " is in a %s anonymous segment",
                     e->addr, e->perms);
        auxwhat(out, text);
        break;
    case LP_WHERE_NOWHERE:
        snprintf(text, sizeof(text),
                 "Address %#" PRIxPTR " is not stack'd, malloc'd or (recently) free'd",
                 e->addr);
        auxwhat(out, text);
        break;
    }
    if (gen_suppressions) {
        FILE *mem = open_memstream(&raw, &rawlen);

        if (mem) {
            int n;
            struct lp_sym_frame *f = frames_of(&e->at, sym, depth, &n);

            lp_supp_gen_free(mem, f, n);
            free(f);
            fclose(mem);
        }
    }
    lp_xml_error_end(out, raw);
    free(raw);
    if (fflush(out) != 0 || ferror(out))
        return errno ? -errno : -EIO;
    return 0;
}
