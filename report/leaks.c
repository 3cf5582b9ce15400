/* SPDX-License-Identifier: MIT */
/*
 * leaks.c - the end-of-run (and live) leak report in Memcheck's layout.
 * Context: COLD. Every wording, spacing and number format below was
 * checked against Valgrind 3.19's own output (tests/fixtures/leaks/).
 *
 * Memcheck decides three things per loss record, independently:
 *   considered  - the record takes part in this search at all: it has
 *                 blocks (or, in a live report, it grew / changed);
 *   printed     - full mode, considered, kind in show_kinds, unsuppressed;
 *   error       - full mode, considered, kind in error_kinds; a suppressed
 *                 error counts in "(suppressed: S from S)" instead.
 * The LEAK SUMMARY, by contrast, sums every record, suppressed ones on
 * their own line. Numbering "i of n" runs over the sorted list of all
 * records, shown or not.
 */
#include "report/leaks.h"

#include "report/signame.h"

#include "report/suppress.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Indexed by enum lp_kind. */
static const char *const kind_text[LP_KIND_COUNT] = {
    "still reachable", "possibly lost", "indirectly lost", "definitely lost",
};
/* Indexed by enum lp_heur; NONE is never printed. */
static const char *const heur_text[LP_HEUR_COUNT] = {
    "none", "stdstring", "length64", "newarray", "multipleinheritance",
};

#define DEFAULT_DEPTH 30
#define NUM_BUF 80

char *lp_commify(uint64_t v, char *buf, size_t n)
{
    char digits[24], out[32];
    int len = snprintf(digits, sizeof(digits), "%" PRIu64, v);
    int i, j = 0;

    for (i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            out[j++] = ',';
        out[j++] = digits[i];
    }
    out[j] = '\0';
    if (n > 0)
        snprintf(buf, n, "%s", out);
    return buf;
}

/* "1,234" or, with deltas, "1,234 (+12)" / "1,234 (-3)". */
static const char *num(char *buf, uint64_t cur, uint64_t old, bool deltas)
{
    char c[32], d[32];

    lp_commify(cur, c, sizeof(c));
    if (!deltas) {
        snprintf(buf, NUM_BUF, "%s", c);
        return buf;
    }
    lp_commify(cur >= old ? cur - old : old - cur, d, sizeof(d));
    snprintf(buf, NUM_BUF, "%s (%c%s)", c, cur >= old ? '+' : '-', d);
    return buf;
}

static int cmp_records(const void *pa, const void *pb)
{
    const struct lp_loss_record *a = pa, *b = pb;
    uint64_t ta = a->bytes + a->indirect_bytes, tb = b->bytes + b->indirect_bytes;

    if (ta != tb)
        return ta < tb ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->blocks != b->blocks)
        return a->blocks < b->blocks ? -1 : 1;
    if (a->stack_id != b->stack_id)
        return a->stack_id < b->stack_id ? -1 : 1;
    return 0;
}

void lp_leaks_sort(struct lp_leak_set *set)
{
    if (set->nrecs > 1)
        qsort(set->recs, set->nrecs, sizeof(set->recs[0]), cmp_records);
}

const struct lp_leak_opts lp_leak_opts_default = {
    .leak_check = LP_CHECK_FULL,
    .show_kinds = LP_KINDS_DEFAULT,
    .error_kinds = LP_KINDS_DEFAULT,
    .depth = DEFAULT_DEPTH,
};

static bool deltas_shown(const struct lp_leak_opts *o)
{
    return o->live && o->live_delta != LP_DELTA_ANY;
}

static bool considered(const struct lp_loss_record *r,
                       const struct lp_leak_opts *o)
{
    if (!o->live || o->live_delta == LP_DELTA_ANY)
        return r->blocks > 0;
    if (o->live_delta == LP_DELTA_INCREASED)
        return r->bytes > r->old_bytes || r->indirect_bytes > r->old_indirect_bytes ||
               r->blocks > r->old_blocks;
    return r->bytes != r->old_bytes || r->indirect_bytes != r->old_indirect_bytes ||
           r->blocks != r->old_blocks;
}

static bool full_mode(const struct lp_leak_opts *o)
{
    return o->leak_check == LP_CHECK_FULL;
}

static bool counts_as_error(const struct lp_loss_record *r,
                            const struct lp_leak_opts *o)
{
    return full_mode(o) && considered(r, o) &&
           (o->error_kinds & LP_KIND_BIT(r->kind)) != 0;
}

/* Error contexts among the unsuppressed (or the suppressed) records. */
static unsigned count_errors(const struct lp_leak_set *set,
                             const struct lp_leak_opts *opts, bool suppressed)
{
    const struct lp_leak_opts *o = opts != NULL ? opts : &lp_leak_opts_default;
    unsigned n = 0;
    size_t i;

    for (i = 0; i < set->nrecs; i++)
        if ((set->recs[i].supp >= 0) == suppressed &&
            counts_as_error(&set->recs[i], o))
            n++;
    return n;
}

unsigned lp_leaks_errors(const struct lp_leak_set *set,
                         const struct lp_leak_opts *opts)
{
    return count_errors(set, opts, false);
}

unsigned lp_leaks_suppressed_errors(const struct lp_leak_set *set,
                                    const struct lp_leak_opts *opts)
{
    return count_errors(set, opts, true);
}

void lp_leaks_totals(const struct lp_leak_set *set, struct lp_leak_totals *t)
{
    size_t i;

    memset(t, 0, sizeof(*t));
    for (i = 0; i < set->nrecs; i++) {
        const struct lp_loss_record *r = &set->recs[i];

        if (r->supp >= 0) {
            t->supp_bytes += r->bytes;
            t->supp_blocks += r->blocks;
        } else if ((unsigned)r->kind < LP_KIND_COUNT) {
            t->bytes[r->kind] += r->bytes;
            t->blocks[r->kind] += r->blocks;
        }
    }
    memcpy(t->heur_bytes, set->heur_bytes, sizeof(t->heur_bytes));
    memcpy(t->heur_blocks, set->heur_blocks, sizeof(t->heur_blocks));
}

/* The out-of-line function of ip: the last frame of its expansion. */
static struct lp_sym_frame outer_frame(struct lp_sym *sym, uintptr_t ip,
                                       bool is_return)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    int n = lp_sym_resolve(sym, ip, is_return, f, LP_SYM_MAX_INLINE);

    return f[n > 0 ? n - 1 : 0];
}

/* C++'s allocation operators, as Valgrind replaces them in any object
 * that defines them (its "somalloc" synonym matches every object). */
static bool is_new_operator(const char *mangled)
{
    static const char *const names[] = {
        "_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
        "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
        "_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZnamSt11align_val_tRKSt9nothrow_t",
    };
    size_t i;

    if (mangled == NULL)
        return false;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(mangled, names[i]) == 0)
            return true;
    return false;
}

/*
 * A program that links its own operator new (gcc's cc1plus: libstdc++
 * static) calls it directly, and it calls our malloc: the stack reads
 * "malloc (in libleakprof.so)" then "operator new(unsigned long) (in
 * cc1plus)". Memcheck replaces an operator new wherever it is defined
 * and shows one frame, "operator new(unsigned long) (in vgpreload...)":
 * the frames are shown as that one, the operator's name on our object.
 * Returns how many ips the frame stands for (0: ips does not start with
 * our hook and an operator new outside our object). A new[] that calls
 * new as a tail call leaves no frame: it is shown as new.
 */
static unsigned folds_new(struct lp_sym *sym, const uintptr_t *ips, unsigned nips,
                          struct lp_sym_frame *op)
{
    struct lp_sym_frame hook, f, g;
    unsigned k;

    if (nips < 2 || sym == NULL)
        return 0;
    hook = outer_frame(sym, ips[0], false);
    if (hook.mangled == NULL ||
        (strcmp(hook.mangled, "malloc") != 0 && strcmp(hook.mangled, "aligned_alloc") != 0 &&
         strcmp(hook.mangled, "memalign") != 0 && strcmp(hook.mangled, "posix_memalign") != 0))
        return 0;
    f = outer_frame(sym, ips[1], true);
    if (!is_new_operator(f.mangled) || (f.obj != NULL && hook.obj != NULL &&
                                        strcmp(f.obj, hook.obj) == 0))
        return 0;
    /* The nothrow and aligned forms call the plain one: the program
     * called the outermost. */
    for (k = 2; k < nips; k++) {
        g = outer_frame(sym, ips[k], true);
        if (!is_new_operator(g.mangled))
            break;
        f = g;
    }
    *op = hook;
    op->fn = f.fn;
    op->mangled = f.mangled;
    op->inlined = false;
    return k;
}

/*
 * Memcheck 3.19 (Debian 12's) implements valloc and aligned_alloc as tail
 * calls to its memalign, and posix_memalign as a call to it, so their
 * blocks read "memalign", and "memalign" then "posix_memalign". Our
 * hook's frame f[0] is shown so; returns the frames in f (1 or 2).
 */
static int as_memcheck_names_aligned(struct lp_sym_frame *f)
{
    const char *m = f[0].mangled;

    if (m == NULL)
        return 1;
    if (strcmp(m, "valloc") == 0 || strcmp(m, "aligned_alloc") == 0) {
        f[0].fn = f[0].mangled = "memalign";
    } else if (strcmp(m, "posix_memalign") == 0) {
        f[1] = f[0];
        f[0].fn = f[0].mangled = "memalign";
        return 2;
    }
    return 1;
}

/* The top of a stack as Memcheck shows it: our hook's frame, named as
 * Memcheck names its own (as_memcheck_names_aligned), or folded with the
 * program's operators new above it (folds_new). Fills f (1 or 2 frames:
 * f has room for LP_SYM_MAX_INLINE) and returns their count; *took is how
 * many ips they stand for. */
static int head_frames(struct lp_sym *sym, const uintptr_t *ips, unsigned nips,
                       struct lp_sym_frame *f, unsigned *took)
{
    unsigned k = folds_new(sym, ips, nips, &f[0]);

    if (k > 0) {
        *took = k;
        return 1;
    }
    f[0] = outer_frame(sym, ips[0], false);
    f[0].inlined = false;
    *took = 1;
    return as_memcheck_names_aligned(f);
}

unsigned lp_leaks_nips(struct lp_sym *sym, const uintptr_t *ips, unsigned nips,
                       int depth)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    unsigned took, want;
    int shown;

    if (depth <= 0)
        return nips;
    if (sym == NULL || nips == 0)
        return nips < (unsigned)depth ? nips : (unsigned)depth;
    /* Memcheck's depth counts its own top frames: shown of them stand for
     * took of ours. */
    shown = head_frames(sym, ips, nips, f, &took);
    want = (unsigned)depth + took - (unsigned)shown;
    return nips < want ? nips : want;
}

/* show_below_main: after _start, the "???" frames Memcheck's unwinder
 * makes of the words past _start's frame (lp_sym_below_main), as many as
 * its depth leaves room for: it counts addresses, not inlined frames. */
static int past_start(struct lp_sym_frame *out, int n, int max,
                      const struct lp_sym_below_main *below)
{
    int addrs = 0, i;

    for (i = 0; i < n; i++)
        addrs += !out[i].inlined;
    for (i = 0; i < below->n && n < max &&
                (below->depth <= 0 || addrs < below->depth);
         i++, addrs++, n++) {
        memset(&out[n], 0, sizeof(out[n]));
        out[n].addr = below->past[i] - 1;
    }
    return n;
}

/* The frames Memcheck shows for ips: cut at main, names below it
 * replaced. alloc_head: ips[0] is our allocation hook (head_frames); else
 * the exact instruction where a thread was, with its inlined callers. */
static int frames_of(struct lp_sym *sym, const uintptr_t *ips, unsigned nips,
                     struct lp_sym_frame *out, int max, bool alloc_head)
{
    const struct lp_sym_below_main *below = lp_sym_below_main();
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    unsigned used = nips, i, took;
    int n = 0, k, got;

    if (max <= 0 || nips == 0)
        return 0;
    /* Valgrind's apply_StackTrace: from the outermost frame inwards, the
     * stack ends at each main or below-main function seen, main final;
     * unless show_below_main=yes. */
    for (i = below->on ? 0 : nips; i-- > 0;) {
        enum lp_fn_kind kind = lp_sym_fn_kind(lp_sym_function(sym, ips[i], i > 0));

        if (kind != LP_FN_NORMAL)
            used = i + 1;
        if (kind == LP_FN_MAIN)
            break;
    }
    for (i = 0; i < used && n < max; i++) {
        if (i == 0 && alloc_head) {
            got = head_frames(sym, ips, nips, f, &took);
            i = took - 1;
        } else if (i == 0) {
            got = lp_sym_resolve(sym, ips[0], false, f, LP_SYM_MAX_INLINE);
        } else {
            got = lp_sym_resolve(sym, ips[i], true, f, LP_SYM_MAX_INLINE);
        }
        for (k = 0; k < got && n < max; k++) {
            out[n] = f[k];
            if (!below->on && lp_sym_fn_kind(f[k].fn) == LP_FN_BELOW_MAIN)
                out[n].fn = out[n].mangled = LP_SYM_BELOW_MAIN;
            n++;
        }
    }
    if (below->on && used == nips && n > 0 && out[n - 1].fn != NULL &&
        strcmp(out[n - 1].fn, "_start") == 0)
        n = past_start(out, n, max, below);
    return n;
}

int lp_leaks_frames(struct lp_sym *sym, const uintptr_t *ips, unsigned nips,
                    struct lp_sym_frame *out, int max)
{
    return frames_of(sym, ips, nips, out, max, true);
}

#ifndef LP_VERSION
#define LP_VERSION "unknown"
#endif

static void print_header(struct lp_line_writer *w, const struct lp_loss_record *r,
                         size_t idx, size_t n, bool d)
{
    char tot[NUM_BUF], dir[NUM_BUF], ind[NUM_BUF], blk[NUM_BUF];
    char i_s[32], n_s[32];

    lp_commify(idx, i_s, sizeof(i_s));
    lp_commify(n, n_s, sizeof(n_s));
    num(blk, r->blocks, r->old_blocks, d);
    if (r->indirect_bytes > 0) {
        num(tot, r->bytes + r->indirect_bytes, r->old_bytes + r->old_indirect_bytes, d);
        num(dir, r->bytes, r->old_bytes, d);
        num(ind, r->indirect_bytes, r->old_indirect_bytes, d);
        lp_line(w, "%s (%s direct, %s indirect) bytes in %s blocks are %s in loss record %s of %s",
             tot, dir, ind, blk, kind_text[r->kind], i_s, n_s);
    } else {
        num(tot, r->bytes, r->old_bytes, d);
        lp_line(w, "%s bytes in %s blocks are %s in loss record %s of %s", tot, blk,
             kind_text[r->kind], i_s, n_s);
    }
}

/* The --gen-suppressions=all block: report/suppress.c owns its shape. */
static void print_suppression(struct lp_line_writer *w, const struct lp_loss_record *r,
                              const struct lp_sym_frame *f, int nf)
{
    int rc;

    if (w->err == 0 && (rc = lp_supp_gen(w->f, r->kind, f, nf)) != 0)
        w->err = rc;
}

/* "   at ..." then "   by ..." lines. */
static void print_frames(struct lp_line_writer *w,
                         const struct lp_sym_frame *f, int nf,
                         const struct lp_leak_opts *o)
{
    char buf[4096];
    int i;

    for (i = 0; i < nf; i++) {
        int len = lp_sym_describe(&f[i], o->self_obj, buf, sizeof(buf));

        if (len >= (int)sizeof(buf)) {
            /* Demangled C++ names can run to kilobytes. */
            char *big = malloc((size_t)len + 1);

            if (big == NULL) {
                lp_line(w, "   %s %s", i == 0 ? "at" : "by", buf);
                continue;
            }
            lp_sym_describe(&f[i], o->self_obj, big, (size_t)len + 1);
            lp_line(w, "   %s %s", i == 0 ? "at" : "by", big);
            free(big);
        } else {
            lp_line(w, "   %s %s", i == 0 ? "at" : "by", buf);
        }
    }
}

static int print_record(struct lp_line_writer *w, const struct lp_loss_record *r,
                        size_t idx, size_t n, struct lp_sym *sym,
                        const struct lp_leak_opts *o)
{
    unsigned nips = r->nips;
    size_t cap;
    struct lp_sym_frame *f;
    int nf;

    if (r->ips != NULL)
        nips = lp_leaks_nips(sym, r->ips, nips, o->depth);
    cap = (size_t)nips * LP_SYM_MAX_INLINE;
    f = malloc((cap > 0 ? cap : 1) * sizeof(*f));
    if (f == NULL)
        return -ENOMEM;
    nf = r->ips != NULL ? lp_leaks_frames(sym, r->ips, nips, f, (int)cap) : 0;
    lp_line_error_begin(w);
    print_header(w, r, idx, n, deltas_shown(o));
    print_frames(w, f, nf, o);
    lp_line(w, "%s", "");
    lp_line_error_end(w);
    if (o->gen_suppressions)
        print_suppression(w, r, f, nf);
    free(f);
    return 0;
}

/* What a fault the kernel raised was, as Memcheck words it; NULL when
 * the signal carries no such detail. *addr: whether the address follows. */
static const char *fault_event(int signo, int code, bool *addr)
{
    static const char *const segv[] = { NULL, "Access not within mapped region",
                                        "Bad permissions for mapped region" };
    static const char *const bus[] = { NULL, "Invalid address alignment",
                                       "Non-existent physical address",
                                       "Hardware error" };
    static const char *const ill[] = { NULL, "Illegal opcode",
        "Illegal operand", "Illegal addressing mode", "Illegal trap",
        "Privileged opcode", "Privileged register", "Coprocessor error",
        "Internal stack error" };
    static const char *const fpe[] = { NULL, "Integer divide by zero",
        "Integer overflow", "FP divide by zero", "FP overflow",
        "FP underflow", "FP inexact", "FP invalid operation",
        "FP subscript out of range" };

    *addr = true;
    switch (signo) {
    case SIGSEGV:
        if (code == SI_KERNEL) { /* a general protection fault */
            *addr = false;
            return "General Protection Fault";
        }
        return code > 0 && code < 3 ? segv[code] : NULL;
    case SIGBUS:
        return code > 0 && code < 4 ? bus[code] : NULL;
    case SIGILL:
        return code > 0 && code < 9 ? ill[code] : NULL;
    case SIGFPE:
        return code > 0 && code < 9 ? fpe[code] : NULL;
    default:
        return NULL;
    }
}

static void print_overflow(struct lp_line_writer *w,
                           const struct lp_leak_opts *o)
{
    lp_line(w, "Stack overflow in thread #1: can't grow stack to %#" PRIxPTR,
            o->fatal_overflow_page);
}

/* Memcheck's block for a process dying of a signal. */
static void print_fatal(struct lp_line_writer *w, struct lp_sym *sym,
                        const struct lp_leak_opts *o)
{
    unsigned nips = o->fatal_nips;
    struct lp_sym_frame *f = NULL;
    const char *event;
    char name[32];
    bool addr;
    size_t cap;
    int nf = 0;

    lp_signal_name(o->fatal_signo, name, sizeof(name));
    lp_line(w, "Process terminating with default action of signal %d (%s)",
            o->fatal_signo, name);
    event = fault_event(o->fatal_signo, o->fatal_code, &addr);
    if (event != NULL && addr)
        lp_line(w, " %s at address 0x%" PRIXPTR, event, o->fatal_addr);
    else if (event != NULL)
        lp_line(w, " %s", event);
    if (o->fatal_overflow_page != 0)
        print_overflow(w, o);
    if (o->fatal_ips != NULL && nips > 0) {
        if (o->depth > 0 && nips > (unsigned)o->depth)
            nips = (unsigned)o->depth;
        cap = (size_t)nips * LP_SYM_MAX_INLINE;
        f = malloc(cap * sizeof(*f));
        if (f != NULL)
            nf = frames_of(sym, o->fatal_ips, nips, f, (int)cap, false);
        print_frames(w, f, nf, o);
        free(f);
    }
    /* Memcheck's advice on a fault outside any mapping, in any thread. */
    if (o->fatal_signo == SIGSEGV && o->fatal_code == SEGV_MAPERR) {
        lp_line(w, " If you believe this happened as a result of a stack");
        lp_line(w, " overflow in your program's main thread (unlikely but");
        lp_line(w, " possible), you can try to increase the size of the");
        lp_line(w, " main thread stack using the --main-stacksize= flag.");
        lp_line(w, " The main thread stack size used in this run was %" PRIu64 ".",
                o->main_stack_bytes);
    }
}

static void print_summary(struct lp_line_writer *w, const struct lp_leak_set *set,
                          const struct lp_leak_opts *o)
{
    static const struct {
        enum lp_kind kind;
        const char *label;
    } rows[] = {
        { LP_KIND_DEFINITE, "   definitely lost" },
        { LP_KIND_INDIRECT, "   indirectly lost" },
        { LP_KIND_POSSIBLE, "     possibly lost" },
        { LP_KIND_REACHABLE, "   still reachable" },
    };
    struct lp_leak_totals t;
    const struct lp_leak_totals *old = &set->old;
    bool d = deltas_shown(o), any_heur = false;
    char b[NUM_BUF], n[NUM_BUF];
    uint64_t unsuppressed;
    size_t i;

    lp_leaks_totals(set, &t);
    lp_line(w, "LEAK SUMMARY:");
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        enum lp_kind k = rows[i].kind;

        lp_line(w, "%s: %s bytes in %s blocks", rows[i].label,
             num(b, t.bytes[k], old->bytes[k], d), num(n, t.blocks[k], old->blocks[k], d));
    }
    for (i = 1; i < LP_HEUR_COUNT; i++)
        if (t.heur_blocks[i] > 0 || (d && old->heur_blocks[i] > 0))
            any_heur = true;
    if (any_heur) {
        lp_line(w, "                      of which reachable via heuristic:");
        for (i = 1; i < LP_HEUR_COUNT; i++)
            if (t.heur_blocks[i] > 0 || (d && old->heur_blocks[i] > 0))
                lp_line(w, "                        %-19s: %s bytes in %s blocks", heur_text[i],
                     num(b, t.heur_bytes[i], old->heur_bytes[i], d),
                     num(n, t.heur_blocks[i], old->heur_blocks[i], d));
    }
    lp_line(w, "        suppressed: %s bytes in %s blocks",
         num(b, t.supp_bytes, old->supp_bytes, d), num(n, t.supp_blocks, old->supp_blocks, d));

    unsuppressed = 0;
    for (i = 0; i < LP_KIND_COUNT; i++)
        unsuppressed += t.blocks[i];
    /* Live reports too: Memcheck's monitor wording here would point at
     * vgdb's leak_check command, which leakprof has no equivalent of. */
    if (!full_mode(o) && unsuppressed > 0)
        lp_line(w, "Rerun with --leak-check=full to see details of leaked memory");
    if (full_mode(o) && t.blocks[LP_KIND_REACHABLE] > 0 &&
        (o->show_kinds & LP_KIND_BIT(LP_KIND_REACHABLE)) == 0) {
        lp_line(w, "Reachable blocks (those to which a pointer was found) are not shown.");
        lp_line(w, "To see them, rerun with: --leak-check=full --show-leak-kinds=all");
    }
    lp_line(w, "%s", "");
}

char *lp_leaks_command(const char *args, size_t len, char *out, size_t n)
{
    size_t i, o = 0;

    if (n == 0)
        return out;
    /* A trailing NUL ends the last argument; the others separate them. */
    if (len > 0 && args[len - 1] == '\0')
        len--;
    for (i = 0; i < len && o + 1 < n; i++) {
        unsigned char c = (unsigned char)args[i];

        if (c == '\0') {
            out[o++] = ' ';
            continue;
        }
        if (c == ' ' || c == '<' || c == '>' || c == '\\') {
            if (o + 2 >= n)
                break;
            out[o++] = '\\';
        } else if (c < 0x20 || c >= 0x80) {
            c = '_';
        }
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return out;
}

static void print_command(struct lp_line_writer *w, const struct lp_leak_opts *o)
{
    char *text = malloc(o->command_len * 2 + 1);

    if (text == NULL)
        return;
    lp_line(w, "Command: %s",
         lp_leaks_command(o->command, o->command_len, text, o->command_len * 2 + 1));
    free(text);
}

static void print_preamble(struct lp_line_writer *w, const struct lp_leak_opts *o)
{
    w->at_start = true;
    lp_line(w, "leakprof-%s, a memory leak checker and heap profiler", LP_VERSION);
    print_command(w, o);
    if (o->parent_pid > 0)
        lp_line(w, "Parent PID: %d", o->parent_pid);
    if (o->sample_bytes > 0)
        lp_line(w, "Sampled run (sample_bytes=%" PRIu64 "): heap and leak figures are estimates",
                o->sample_bytes);
    lp_line(w, "%s", "");
    w->at_start = false;
}

int lp_leaks_print_preamble(FILE *out, int pid, const struct lp_leak_opts *o)
{
    struct lp_line_writer w = { .f = out, .pid = pid, .err = 0 };

    if (o->command != NULL && o->command_len > 0 && !o->quiet)
        print_preamble(&w, o);
    return w.err;
}

/* The live report's first line: which signal, when, which .N file. */
static void live_header(struct lp_line_writer *w, const struct lp_leak_opts *o)
{
    char sig[32];

    lp_signal_name(o->live_signo, sig, sizeof(sig));
    lp_line(w, "Live leak check %u on %s, %" PRIu64 ".%02u s after start; %s%s",
         o->live_seq, sig, o->live_ms / 1000,
         (unsigned)(o->live_ms % 1000 / 10),
         o->live_massif ? "heap profile " : "no heap profile",
         o->live_massif ? o->live_massif : "");
    if (o->live_since) {
        char t[32];

        /* The byte time runs with massif= only. */
        if (o->live_since_time)
            lp_line(w, "Only blocks allocated since live leak check %u "
                       "(time %s B) and still live",
                    o->live_since_seq,
                    lp_commify(o->live_since_time, t, sizeof(t)));
        else
            lp_line(w, "Only blocks allocated since live leak check %u and "
                       "still live", o->live_since_seq);
    }
}

int lp_leaks_print(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                   const struct lp_leak_opts *opts)
{
    struct lp_line_writer w = { .f = out, .pid = set->pid, .err = 0 };
    struct lp_leak_opts o = opts != NULL ? *opts : lp_leak_opts_default;
    char a[32], b[32], c[32];
    bool preamble;
    size_t i;
    int rc;

    if (o.live && o.leak_check == LP_CHECK_NO)
        o.leak_check = LP_CHECK_SUMMARY;
    lp_leaks_sort(set);
    preamble = !o.live && o.command != NULL && o.command_len > 0;
    if (preamble && !o.quiet)
        print_preamble(&w, &o);
    w.mute = o.quiet && !o.live;
    if (o.live && o.live_seq > 0)
        live_header(&w, &o);
    if (!o.live) {
        /* Valgrind's warnings come between the preamble and the exit's
         * lines, as they happened. */
        if (o.warning != NULL)
            lp_line(&w, "Warning: %s", o.warning);
        /* Memcheck says it when the fault happens, then in the block. */
        if (o.fatal_signo > 0 && o.fatal_overflow_page != 0)
            print_overflow(&w, &o);
        lp_line(&w, "%s", "");
        if (o.fatal_signo > 0) {
            print_fatal(&w, sym, &o);
            lp_line(&w, "%s", "");
        }
        lp_line(&w, "HEAP SUMMARY:");
        lp_line(&w, "    in use at exit: %s bytes in %s blocks",
             lp_commify(set->in_use_bytes, a, sizeof(a)),
             lp_commify(set->in_use_blocks, b, sizeof(b)));
        lp_line(&w, "  total heap usage: %s allocs, %s frees, %s bytes allocated",
             lp_commify(set->allocs, a, sizeof(a)), lp_commify(set->frees, b, sizeof(b)),
             lp_commify(set->bytes_allocated, c, sizeof(c)));
        lp_line(&w, "%s", "");
    }
    if (o.leak_check == LP_CHECK_NO) {
        lp_line(&w, "For a detailed leak analysis, rerun with: --leak-check=full");
        lp_line(&w, "%s", "");
    } else if (set->in_use_blocks == 0) {
        lp_line(&w, "All heap blocks were freed -- no leaks are possible");
        lp_line(&w, "%s", "");
    } else {
        for (i = 0; i < set->nrecs && full_mode(&o); i++) {
            const struct lp_loss_record *r = &set->recs[i];

            if (r->supp >= 0 || (o.show_kinds & LP_KIND_BIT(r->kind)) == 0 ||
                !considered(r, &o))
                continue;
            if (w.mute) {
                /* Quiet: records only, the first says whose they are. */
                w.mute = false;
                if (preamble)
                    print_command(&w, &o);
            }
            rc = print_record(&w, r, i + 1, set->nrecs, sym, &o);
            if (rc != 0 && w.err == 0)
                w.err = rc;
        }
        w.mute = o.quiet && !o.live;
        print_summary(&w, set, &o);
    }
    if (!o.live) {
        unsigned e = lp_leaks_errors(set, &o), s = lp_leaks_suppressed_errors(set, &o);
        unsigned ctx = e + set->other_contexts;

        e += set->other_errors;
        if (!o.list_suppressions)
            lp_line(&w, "For lists of detected and suppressed errors, rerun with: -s");
        w.mute = o.quiet && !o.list_suppressions;
        lp_line(&w, "ERROR SUMMARY: %u errors from %u contexts (suppressed: %u from %u)",
                e, ctx, s + set->other_supp_errors, s + set->other_supp_contexts);
    }
    if (w.err == 0 && fflush(out) != 0)
        w.err = errno != 0 ? -errno : -EIO;
    return w.err;
}
