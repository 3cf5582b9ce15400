/* SPDX-License-Identifier: MIT */
/*
 * suppress.c - Valgrind .supp and LSan `leak:` suppressions: the set,
 * matching, and the usage report (reading them: suppress_parse.c).
 * Context: COLD (exit-time report, dumper thread, tools).
 *
 * Two syntaxes, two matching rules, kept apart on purpose:
 *
 * A Valgrind entry is a list of frame patterns that must match a *prefix*
 * of the allocation stack, innermost frame first. `...` stands for any
 * number of frames (zero included). We match with a small dynamic program
 * over (pattern position, frame position) instead of recursive
 * backtracking, so a pattern full of `...` costs O(patterns * frames) and
 * never blows up. When several entries match, Valgrind credits the one
 * nearest the head of its list: entries are pushed on the head as they
 * are read (so the last loaded wins) and an entry that matched is moved
 * to the head. The `-s` listing walks that list, so its order is "most
 * recently used first". `order[]` reproduces that list.
 *
 * An LSan line is a template tested against every frame: the module path
 * first, then the function name and the source file of each (inlined)
 * frame. The template language is LSan's: plain text is a substring,
 * `*` skips any text, `^` anchors the start and `$` the end. Each literal
 * piece is found at its *first* occurrence without backtracking, which is
 * how LSan behaves, so `ab$` does not match "abxab" there or here.
 */
#include "report/suppress_impl.h"
#include "report/line_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_words[LP_KIND_COUNT] = {
    [LP_KIND_REACHABLE] = "reachable",
    [LP_KIND_POSSIBLE] = "possible",
    [LP_KIND_INDIRECT] = "indirect",
    [LP_KIND_DEFINITE] = "definite",
};

const char *lp_supp_kind_word(enum lp_kind kind)
{
    if ((unsigned)kind >= LP_KIND_COUNT)
        return "?";
    return kind_words[kind];
}

int lp_supp_parse_kinds(const char *set, unsigned *out)
{
    unsigned bits = 0;
    const char *p = set;

    if (strcmp(set, "all") == 0) {
        *out = LP_KINDS_ALL;
        return 0;
    }
    if (strcmp(set, "none") == 0) {
        *out = 0;
        return 0;
    }
    for (;;) {
        size_t len = strcspn(p, ",");
        int k, found = -1;

        for (k = 0; k < LP_KIND_COUNT; k++)
            if (strlen(kind_words[k]) == len &&
                strncmp(p, kind_words[k], len) == 0)
                found = k;
        if (found < 0)
            return -1;
        bits |= LP_KIND_BIT(found);
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *out = bits;
    return 0;
}

bool lp_supp_glob(const char *pat, const char *str)
{
    /* Iterative glob: on a mismatch, let the last `*` swallow one more
     * character. Linear in practice, never exponential. */
    const char *star = NULL, *resume = NULL;

    while (*str) {
        if (*pat == '*') {
            star = pat++;
            resume = str;
        } else if (*pat == '?' || *pat == *str) {
            pat++;
            str++;
        } else if (star) {
            pat = star + 1;
            str = ++resume;
        } else {
            return false;
        }
    }
    while (*pat == '*')
        pat++;
    return *pat == '\0';
}

bool lp_supp_lsan_match(const char *t, const char *s)
{
    bool anchored = false, star = false;

    if (!s || !*s)
        return false;
    if (*t == '^') {
        anchored = true;
        t++;
    }
    while (*t) {
        size_t len;
        const char *hit;

        if (*t == '*') {
            t++;
            anchored = false;
            star = true;
            continue;
        }
        if (*t == '$')
            return *s == '\0' || star;
        if (*s == '\0')
            return false;
        len = strcspn(t, "*$");
        hit = memmem(s, strlen(s), t, len);
        if (!hit || (anchored && hit != s))
            return false;
        s = hit + len;
        t += len;
        anchored = false;
        star = false;
    }
    return true;
}

struct lp_supp *lp_supp_new(void)
{
    return calloc(1, sizeof(struct lp_supp));
}

void lp_supp_entry_release(struct entry *e)
{
    int i;

    for (i = 0; i < e->npats; i++)
        free(e->pats[i].glob);
    free(e->pats);
    free(e->name);
    free(e->file);
    memset(e, 0, sizeof(*e));
}

void lp_supp_free(struct lp_supp *supp)
{
    int i;

    if (!supp)
        return;
    for (i = 0; i < supp->n; i++)
        lp_supp_entry_release(&supp->e[i]);
    free(supp->e);
    free(supp->order);
    free(supp);
}

int lp_supp_count(const struct lp_supp *supp)
{
    return supp ? supp->n : 0;
}

static const struct entry *entry_at(const struct lp_supp *supp, int idx)
{
    if (!supp || idx < 0 || idx >= supp->n)
        return NULL;
    return &supp->e[idx];
}

const char *lp_supp_name(const struct lp_supp *supp, int idx)
{
    const struct entry *e = entry_at(supp, idx);

    return e ? e->name : NULL;
}

const char *lp_supp_file(const struct lp_supp *supp, int idx, int *line)
{
    const struct entry *e = entry_at(supp, idx);

    if (line)
        *line = e ? e->line : 0;
    return e ? e->file : NULL;
}

bool lp_supp_is_lsan(const struct lp_supp *supp, int idx)
{
    const struct entry *e = entry_at(supp, idx);

    return e && e->lsan;
}
/* ---- matching ----------------------------------------------------------- */

static const char *or_unknown(const char *s)
{
    return s ? s : "???";
}

/*
 * The name Memcheck gives this frame where it differs from ours: glibc's
 * clone3, where a thread starts, is "clone" under Valgrind 3.19, which
 * fails clone3 with ENOSYS so that glibc falls back to clone. A
 * suppression Memcheck generated for a thread's block ends in fun:clone
 * and must match here too; the entries we generate say clone as well, so
 * one file serves both tools. NULL: the same name.
 */
static const char *memcheck_alias(const struct lp_sym_frame *f)
{
    const char *base;

    if (f->fn == NULL || strcmp(f->fn, "clone3") != 0 || f->obj == NULL)
        return NULL;
    base = strrchr(f->obj, '/');
    base = base ? base + 1 : f->obj;
    return strncmp(base, "libc.so", strlen("libc.so")) == 0 ? "clone" : NULL;
}

static bool pat_matches(const struct pat *pt, const struct lp_sym_frame *f)
{
    const char *alias;

    switch (pt->type) {
    case PAT_FUN:
        if (lp_supp_glob(pt->glob, or_unknown(f->mangled ? f->mangled : f->fn)))
            return true;
        alias = memcheck_alias(f);
        return alias != NULL && lp_supp_glob(pt->glob, alias);
    case PAT_OBJ:
        return lp_supp_glob(pt->glob, or_unknown(f->obj));
    case PAT_SRC:
        if (pt->line && pt->line != f->line)
            return false;
        return lp_supp_glob(pt->glob, or_unknown(f->file));
    case PAT_DOTS:
        return true;
    }
    return false;
}

/*
 * ok[j]: patterns i.. match a prefix of frames j.. . Computed for i from
 * the last pattern down; after the last pattern anything may follow.
 */
static bool valgrind_matches(const struct entry *e, int npats,
                             const struct lp_sym_frame *frames, int n)
{
    bool a[LP_SUPP_MAX_FRAMES + 1], b[LP_SUPP_MAX_FRAMES + 1];
    bool *next = a, *cur = b, *t;
    int i, j;

    if (npats <= 0 || npats > e->npats)
        npats = e->npats;
    if (n > LP_SUPP_MAX_FRAMES)
        n = LP_SUPP_MAX_FRAMES;
    for (j = 0; j <= n; j++)
        next[j] = true;
    for (i = npats - 1; i >= 0; i--) {
        const struct pat *pt = &e->pats[i];

        if (pt->type == PAT_DOTS) {
            cur[n] = next[n];
            for (j = n - 1; j >= 0; j--)
                cur[j] = next[j] || cur[j + 1];
        } else {
            cur[n] = false;
            for (j = n - 1; j >= 0; j--)
                cur[j] = next[j + 1] && pat_matches(pt, &frames[j]);
        }
        t = next;
        next = cur;
        cur = t;
    }
    return next[0];
}

static int lsan_match_stack(const struct lp_supp *supp,
                            const struct lp_sym_frame *frames, int n)
{
    int j = 0, i, k;

    /* One machine address at a time, as LSan walks the stack: the module
     * first, then each (inlined) frame's function and file. */
    while (j < n) {
        int end = j + 1;

        while (end < n && frames[end].inlined && frames[end].addr ==
                                                     frames[j].addr)
            end++;
        for (i = 0; i < supp->n; i++)
            if (supp->e[i].lsan &&
                lp_supp_lsan_match(supp->e[i].name, frames[j].obj))
                return i;
        for (k = j; k < end; k++)
            for (i = 0; i < supp->n; i++)
                if (supp->e[i].lsan &&
                    (lp_supp_lsan_match(supp->e[i].name, frames[k].fn) ||
                     lp_supp_lsan_match(supp->e[i].name, frames[k].file)))
                    return i;
        j = end;
    }
    return -1;
}

int lp_supp_match(struct lp_supp *supp, enum lp_kind kind,
                  const struct lp_sym_frame *frames, int n)
{
    int i;

    if (!supp || !frames || n <= 0 || (unsigned)kind >= LP_KIND_COUNT)
        return -1;
    for (i = 0; i < supp->norder; i++) {
        const struct entry *e = &supp->e[supp->order[i]];

        if ((e->kinds & LP_KIND_BIT(kind)) &&
            valgrind_matches(e, supp->max_callers, frames, n))
            return supp->order[i];
    }
    return lsan_match_stack(supp, frames, n);
}

/* The patterns an entry may use (max_callers), and how many lead before
 * its first `...`. */
static int leading_pats(const struct lp_supp *supp, const struct entry *e)
{
    int npats = supp->max_callers > 0 && supp->max_callers < e->npats
                    ? supp->max_callers
                    : e->npats,
        p = 0;

    while (p < npats && e->pats[p].type != PAT_DOTS)
        p++;
    return p;
}

int lp_supp_prefix_len(const struct lp_supp *supp)
{
    int i, most = 0;

    if (!supp)
        return 0;
    for (i = 0; i < supp->n; i++) {
        const struct entry *e = &supp->e[i];

        if (e->lsan)
            return -1;
        if (!e->free_err && leading_pats(supp, e) > most)
            most = leading_pats(supp, e);
    }
    return most;
}

bool lp_supp_prefix_may_match(const struct lp_supp *supp, enum lp_kind kind,
                              const struct lp_sym_frame *frames, int n)
{
    int i, p, lead;

    if (!supp || (unsigned)kind >= LP_KIND_COUNT)
        return false;
    for (i = 0; i < supp->norder; i++) {
        const struct entry *e = &supp->e[supp->order[i]];

        if (!(e->kinds & LP_KIND_BIT(kind)))
            continue;
        lead = leading_pats(supp, e);
        for (p = 0; p < lead && p < n; p++)
            if (!pat_matches(&e->pats[p], &frames[p]))
                break;
        if (p == lead || p == n)
            return true; /* its leading patterns hold: the rest decides */
    }
    for (i = 0; i < supp->n; i++)
        if (supp->e[i].lsan)
            return true;
    return false;
}

int lp_supp_match_free(struct lp_supp *supp, const struct lp_sym_frame *frames,
                       int n)
{
    int i;

    if (!supp || !frames || n <= 0)
        return -1;
    for (i = 0; i < supp->norder; i++) {
        const struct entry *e = &supp->e[supp->order[i]];

        if (e->free_err && valgrind_matches(e, supp->max_callers, frames, n))
            return supp->order[i];
    }
    return -1;
}

void lp_supp_set_max_callers(struct lp_supp *supp, int n)
{
    if (supp)
        supp->max_callers = n > 0 ? n : 0;
}

void lp_supp_note_use(struct lp_supp *supp, int idx, uint64_t bytes,
                      uint64_t blocks)
{
    struct entry *e;
    int i;

    if (!supp || idx < 0 || idx >= supp->n)
        return;
    e = &supp->e[idx];
    e->records++;
    e->bytes += bytes;
    e->blocks += blocks;
    if (e->lsan)
        return;
    for (i = 0; i < supp->norder && supp->order[i] != idx; i++)
        ;
    if (i < supp->norder) {
        memmove(supp->order + 1, supp->order, i * sizeof(int));
        supp->order[0] = idx;
    }
}

void lp_supp_get_use(const struct lp_supp *supp, int idx, uint64_t *records,
                     uint64_t *bytes, uint64_t *blocks)
{
    const struct entry *e = entry_at(supp, idx);

    if (records)
        *records = e ? e->records : 0;
    if (bytes)
        *bytes = e ? e->bytes : 0;
    if (blocks)
        *blocks = e ? e->blocks : 0;
}

/* ---- output ------------------------------------------------------------- */

static void commify(uint64_t v, char *buf, size_t n)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), i, o = 0;

    for (i = 0; i < len && (size_t)o + 2 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = '\0';
}

static int stream_status(FILE *out)
{
    return ferror(out) ? -(errno ? errno : EIO) : 0;
}

int lp_supp_used_at(const struct lp_supp *supp, int i)
{
    return supp && i >= 0 && i < supp->norder ? supp->order[i] : -1;
}

int lp_supp_print_used_valgrind(const struct lp_supp *supp, FILE *out, int pid)
{
    int i, listed = 0;

    if (!supp)
        return 0;
    for (i = 0; i < supp->norder; i++) {
        const struct entry *e = &supp->e[supp->order[i]];
        char b[32], n[32];

        if (e->records == 0)
            continue;
        lp_line_prefix(out, pid, '-', false);
        if (e->free_err) { /* errors, not bytes */
            fprintf(out, "used_suppression: %6" PRIu64 " %s %s:%d\n",
                    e->records, e->name, e->file, e->line);
            listed++;
            continue;
        }
        commify(e->bytes, b, sizeof(b));
        commify(e->blocks, n, sizeof(n));
        fprintf(out,
                "used_suppression: %6" PRIu64
                " %s %s:%d suppressed: %s bytes in %s blocks\n",
                e->records, e->name, e->file, e->line, b, n);
        listed++;
    }
    return stream_status(out) < 0 ? stream_status(out) : listed;
}

int lp_supp_print_used_lsan(const struct lp_supp *supp, FILE *out)
{
    static const char rule[] =
        "-----------------------------------------------------";
    int i, listed = 0;

    if (!supp)
        return 0;
    for (i = 0; i < supp->n; i++) {
        const struct entry *e = &supp->e[i];

        if (!e->lsan || e->records == 0)
            continue;
        if (listed++ == 0)
            fprintf(out, "%s\nSuppressions used:\n  count      bytes "
                         "template\n", rule);
        fprintf(out, "%7" PRIu64 " %10" PRIu64 " %s\n", e->blocks, e->bytes,
                e->name);
    }
    if (listed)
        fprintf(out, "%s\n\n", rule);
    return stream_status(out) < 0 ? stream_status(out) : listed;
}

int lp_supp_print_used(const struct lp_supp *supp, FILE *out, int pid)
{
    int a = lp_supp_print_used_valgrind(supp, out, pid), b;

    if (a < 0)
        return a;
    b = lp_supp_print_used_lsan(supp, out);
    return b < 0 ? b : a + b;
}

/* A generated entry's frame lines and its closing brace. */
static int gen_frames(FILE *out, const struct lp_sym_frame *frames, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        const struct lp_sym_frame *f = &frames[i];
        const char *name = memcheck_alias(f);

        if (name == NULL)
            name = f->mangled ? f->mangled : f->fn;
        if (name)
            fprintf(out, "   fun:%s\n", name);
        else if (f->obj)
            fprintf(out, "   obj:%s\n", f->obj);
        else
            fputs("   obj:*\n", out);
    }
    fputs("}\n", out);
    return stream_status(out);
}

int lp_supp_gen(FILE *out, enum lp_kind kind, const struct lp_sym_frame *frames,
                int n)
{
    fprintf(out, "{\n   <insert_a_suppression_name_here>\n   Memcheck:Leak\n"
                 "   match-leak-kinds: %s\n",
            lp_supp_kind_word(kind));
    return gen_frames(out, frames, n);
}

int lp_supp_gen_free(FILE *out, const struct lp_sym_frame *frames, int n)
{
    fputs("{\n   <insert_a_suppression_name_here>\n   Memcheck:Free\n", out);
    return gen_frames(out, frames, n);
}
