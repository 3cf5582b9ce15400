/* SPDX-License-Identifier: MIT */
/*
 * suppress.c - Valgrind .supp and LSan `leak:` suppressions.
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
 *
 * Loading is all-or-nothing per file: entries are appended while parsing
 * and cut back to the old count on the first error.
 */
#include "report/suppress.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum pat_type { PAT_FUN, PAT_OBJ, PAT_SRC, PAT_DOTS };

struct pat {
    enum pat_type type;
    char *glob; /* NULL for PAT_DOTS */
    int line;   /* PAT_SRC: required line, 0 for any */
};

struct entry {
    char *name;     /* Valgrind name line, or the LSan template */
    char *file;
    int line;
    bool lsan;
    unsigned kinds; /* LP_KIND_BIT set */
    struct pat *pats;
    int npats;
    uint64_t records, bytes, blocks;
};

struct lp_supp {
    struct entry *e;
    int n, cap;
    int *order;     /* Valgrind entries only, head = highest priority */
    int norder;
    int max_callers; /* frame lines used per entry, 0 = all */
};

/* Memcheck's error kinds; anything else after "Memcheck:" is fatal in
 * Valgrind, and so it is here. */
static const char *const memcheck_kinds[] = {
    "Value0", "Value1", "Value2", "Value4", "Value8", "Value16", "Value32",
    "Cond", "Addr1", "Addr2", "Addr4", "Addr8", "Addr16", "Addr32", "Jump",
    "Param", "User", "Free", "Overlap", "Leak", "FishyValue", "ReallocZero",
};

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

static void entry_release(struct entry *e)
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
        entry_release(&supp->e[i]);
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

/* ---- parsing ---------------------------------------------------------- */

struct parser {
    const char *file;
    char *buf;       /* our copy of the text, cut into lines in place */
    char *next;      /* start of the next unread line, NULL at EOF */
    int lineno;      /* line number of the line last returned */
    char *err;
    size_t errlen;
};

static int perr(struct parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int perr(struct parser *p, const char *fmt, ...)
{
    va_list ap;
    int len;

    if (!p->err || p->errlen == 0)
        return -1;
    len = snprintf(p->err, p->errlen, "%s:%d: ", p->file, p->lineno);
    if (len >= 0 && (size_t)len < p->errlen) {
        va_start(ap, fmt);
        vsnprintf(p->err + len, p->errlen - len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next line with its white space trimmed, blank and `#` lines
 * skipped (Valgrind skips them inside entries too). NULL at EOF. */
static char *next_line(struct parser *p)
{
    while (p->next && *p->next) {
        char *s = p->next, *nl = strchr(s, '\n'), *end;

        p->lineno++;
        if (nl) {
            *nl = '\0';
            p->next = nl + 1;
        } else {
            p->next = NULL;
        }
        while (is_ws(*s))
            s++;
        end = s + strlen(s);
        while (end > s && is_ws(end[-1]))
            *--end = '\0';
        if (*s == '\0' || *s == '#')
            continue;
        return s;
    }
    return NULL;
}

static struct entry *entry_new(struct lp_supp *supp, struct parser *p)
{
    struct entry *e;

    if (supp->n == supp->cap) {
        int cap = supp->cap ? supp->cap * 2 : 16;
        struct entry *ne = realloc(supp->e, cap * sizeof(*ne));

        if (!ne)
            return NULL;
        supp->e = ne;
        supp->cap = cap;
    }
    e = &supp->e[supp->n];
    memset(e, 0, sizeof(*e));
    e->file = strdup(p->file);
    if (!e->file)
        return NULL;
    supp->n++;
    e->line = p->lineno;
    e->kinds = LP_KINDS_ALL;
    return e;
}

static int oom(struct parser *p)
{
    return perr(p, "out of memory");
}

static bool tool_listed(const char *tools, size_t len, const char *tool)
{
    size_t tl = strlen(tool);

    while (len > 0) {
        size_t w = 0;

        while (w < len && tools[w] != ',')
            w++;
        if (w == tl && strncmp(tools, tool, tl) == 0)
            return true;
        if (w == len)
            break;
        tools += w + 1;
        len -= w + 1;
    }
    return false;
}

static bool memcheck_kind_known(const char *kind)
{
    size_t i;

    for (i = 0; i < sizeof(memcheck_kinds) / sizeof(memcheck_kinds[0]); i++)
        if (strcmp(kind, memcheck_kinds[i]) == 0)
            return true;
    return false;
}

/* Skip the rest of an entry we do not use, up to its closing brace. */
static int skip_entry(struct parser *p)
{
    char *l;

    while ((l = next_line(p)))
        if (strcmp(l, "}") == 0)
            return 0;
    return perr(p, "unexpected end of file inside a suppression");
}

static int add_pat(struct parser *p, struct entry *e, enum pat_type type,
                   const char *glob)
{
    struct pat *np = realloc(e->pats, (e->npats + 1) * sizeof(*np));
    struct pat *pt;

    if (!np)
        return oom(p);
    e->pats = np;
    pt = &np[e->npats];
    memset(pt, 0, sizeof(*pt));
    pt->type = type;
    if (glob) {
        pt->glob = strdup(glob);
        if (!pt->glob)
            return oom(p);
    }
    e->npats++;
    if (type == PAT_SRC) {
        /* src:FILE:LINE when the text after the last ':' is a number. */
        char *colon = strrchr(pt->glob, ':');

        if (colon && colon[1] && strspn(colon + 1, "0123456789") ==
                                     strlen(colon + 1)) {
            long v = strtol(colon + 1, NULL, 10);

            if (v <= 0 || v > 100000000)
                return perr(p, "bad line number in '%s'", glob);
            pt->line = (int)v;
            *colon = '\0';
        }
    }
    return 0;
}

static int parse_valgrind(struct lp_supp *supp, struct parser *p)
{
    char *l, *colon;
    struct entry *e;
    int real = 0, nframes = 0;

    l = next_line(p);
    if (!l)
        return perr(p, "unexpected end of file after '{'");
    if (strcmp(l, "}") == 0 || strcmp(l, "{") == 0)
        return perr(p, "expected a suppression name, got '%s'", l);
    e = entry_new(supp, p);
    if (!e)
        return oom(p);
    e->name = strdup(l);
    if (!e->name)
        return oom(p);

    l = next_line(p);
    if (!l)
        return perr(p, "unexpected end of file inside a suppression");
    colon = strchr(l, ':');
    if (!colon || colon == l || colon[1] == '\0')
        return perr(p, "expected TOOL:KIND (e.g. Memcheck:Leak), got '%s'",
                    l);
    if (!tool_listed(l, colon - l, "Memcheck")) {
        /* Another tool's entry: Valgrind skips it unread. Drop our slot. */
        entry_release(e);
        supp->n--;
        return skip_entry(p);
    }
    if (!memcheck_kind_known(colon + 1))
        return perr(p, "unknown Memcheck suppression kind '%s'", colon + 1);
    if (strcmp(colon + 1, "Leak") != 0) {
        entry_release(e);
        supp->n--;
        return skip_entry(p);
    }

    l = next_line(p);
    if (l && strncmp(l, "match-leak-kinds:", 17) == 0) {
        char *set = l + 17;

        while (is_ws(*set))
            set++;
        if (lp_supp_parse_kinds(set, &e->kinds) < 0)
            return perr(p, "bad match-leak-kinds set '%s'", set);
        l = next_line(p);
    }
    for (;; l = next_line(p)) {
        if (!l)
            return perr(p, "unexpected end of file inside a suppression "
                           "(missing '}')");
        if (strcmp(l, "}") == 0)
            break;
        if (++nframes > LP_SUPP_MAX_FRAMES)
            return perr(p, "too many frames (more than %d)",
                        LP_SUPP_MAX_FRAMES);
        if (strcmp(l, "...") == 0) {
            if (add_pat(p, e, PAT_DOTS, NULL) < 0)
                return -1;
            continue;
        }
        if (strncmp(l, "fun:", 4) == 0) {
            if (add_pat(p, e, PAT_FUN, l + 4) < 0)
                return -1;
        } else if (strncmp(l, "obj:", 4) == 0) {
            if (add_pat(p, e, PAT_OBJ, l + 4) < 0)
                return -1;
        } else if (strncmp(l, "src:", 4) == 0) {
            if (add_pat(p, e, PAT_SRC, l + 4) < 0)
                return -1;
        } else {
            return perr(p, "expected fun:, obj:, src:, '...' or '}', "
                           "got '%s'", l);
        }
        real++;
    }
    if (real == 0)
        return perr(p, "suppression '%s' needs at least one frame that is "
                       "not '...'", e->name);
    return 0;
}

static int parse_lsan(struct lp_supp *supp, struct parser *p, char *l)
{
    char *colon = strchr(l, ':'), *end;
    struct entry *e;

    if (!colon)
        return perr(p, "expected '{' or 'leak:PATTERN', got '%s'", l);
    if (colon - l != 4 || strncmp(l, "leak", 4) != 0)
        return perr(p, "unsupported suppression type '%.*s' (only leak: "
                       "lines and Valgrind entries)", (int)(colon - l), l);
    /* LSan trims trailing blanks and '#' from a template. */
    end = colon + 1 + strlen(colon + 1);
    while (end > colon + 1 && (is_ws(end[-1]) || end[-1] == '#'))
        *--end = '\0';
    e = entry_new(supp, p);
    if (!e)
        return oom(p);
    e->lsan = true;
    e->name = strdup(colon + 1);
    if (!e->name)
        return oom(p);
    return 0;
}

int lp_supp_load_string(struct lp_supp *supp, const char *name,
                        const char *text, char *err, size_t errlen)
{
    struct parser p = { .file = name, .err = err, .errlen = errlen };
    int old = supp->n, rc = 0, i, k, *norder;
    char *l;

    if (err && errlen)
        err[0] = '\0';
    p.buf = strdup(text);
    if (!p.buf)
        return oom(&p);
    p.next = p.buf;
    while (rc == 0 && (l = next_line(&p))) {
        if (strcmp(l, "{") == 0)
            rc = parse_valgrind(supp, &p);
        else
            rc = parse_lsan(supp, &p, l);
    }
    free(p.buf);
    if (rc == 0) {
        /* Valgrind pushes each entry on the head as it reads it. */
        norder = realloc(supp->order, supp->n * sizeof(int) + 1);
        if (!norder) {
            rc = oom(&p);
        } else {
            supp->order = norder;
            k = 0;
            for (i = supp->n - 1; i >= old; i--)
                if (!supp->e[i].lsan)
                    k++;
            memmove(norder + k, norder, supp->norder * sizeof(int));
            k = 0;
            for (i = supp->n - 1; i >= old; i--)
                if (!supp->e[i].lsan)
                    norder[k++] = i;
            supp->norder += k;
        }
    }
    if (rc < 0) {
        while (supp->n > old)
            entry_release(&supp->e[--supp->n]);
        return -1;
    }
    return supp->n - old;
}

int lp_supp_load(struct lp_supp *supp, const char *path, char *err,
                 size_t errlen)
{
    FILE *f = fopen(path, "re");
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    int rc;

    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "cannot open '%s': %s", path,
                     strerror(errno));
        return -1;
    }
    for (;;) {
        if (cap - len < 4096) {
            char *nt = realloc(text, cap ? cap * 2 : 8192);

            if (!nt) {
                free(text);
                fclose(f);
                if (err && errlen)
                    snprintf(err, errlen, "cannot read '%s': out of memory",
                             path);
                return -1;
            }
            text = nt;
            cap = cap ? cap * 2 : 8192;
        }
        got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        if (err && errlen)
            snprintf(err, errlen, "cannot read '%s': %s", path,
                     strerror(errno ? errno : EIO));
        free(text);
        fclose(f);
        return -1;
    }
    fclose(f);
    text[len] = '\0';
    if (memchr(text, '\0', len)) {
        if (err && errlen)
            snprintf(err, errlen, "%s:1: not a text file (NUL byte)", path);
        free(text);
        return -1;
    }
    rc = lp_supp_load_string(supp, path, text, err, errlen);
    free(text);
    return rc;
}

/* ---- built-in entries --------------------------------------------------- */

/*
 * Written for this project from what Memcheck 3.19 shows for empty and
 * trivial programs on Debian 12 (glibc 2.36, libstdc++ 12):
 *
 * lp-libstdcxx-eh-pool: libstdc++'s constructor allocates a 72,704-byte
 *   emergency exception pool from _dl_init. It stays reachable through a
 *   libstdc++ global; Valgrind frees it via __gnu_cxx::__freeres, which a
 *   preload may be unable to call (old libstdc++, static libstdc++).
 * lp-dtv-tls-get-addr: __tls_get_addr allocates a dlopen'ed module's TLS
 *   block (and grows the DTV) lazily, per thread; the DTV is only reached
 *   through an interior pointer. Valgrind ships the same idea.
 * lp-stdio-buffer: the buffer stdio allocates on first use of a FILE; it
 *   is reachable from the FILE and freed by __libc_freeres under Valgrind.
 * lp-thread-dtv (opt-in): the DTV calloc'ed by pthread_create for a
 *   thread still running at exit, reached 16 bytes in (possibly lost).
 */
static const char builtin_supp[] =
    "{\n"
    "   lp-libstdcxx-eh-pool\n"
    "   Memcheck:Leak\n"
    "   match-leak-kinds: reachable\n"
    "   fun:malloc\n"
    "   obj:*/libstdc++.so*\n"
    "   ...\n"
    "   fun:_dl_init\n"
    "}\n"
    "{\n"
    "   lp-dtv-tls-get-addr\n"
    "   Memcheck:Leak\n"
    "   match-leak-kinds: possible,reachable\n"
    "   fun:*alloc\n"
    "   ...\n"
    "   fun:__tls_get_addr\n"
    "}\n"
    "{\n"
    "   lp-stdio-buffer\n"
    "   Memcheck:Leak\n"
    "   match-leak-kinds: reachable\n"
    "   fun:malloc\n"
    "   fun:_IO_file_doallocate\n"
    "}\n";

static const char builtin_threads_supp[] =
    "{\n"
    "   lp-thread-dtv\n"
    "   Memcheck:Leak\n"
    "   match-leak-kinds: possible\n"
    "   fun:calloc\n"
    "   ...\n"
    "   fun:_dl_allocate_tls\n"
    "   ...\n"
    "   fun:pthread_create*\n"
    "}\n";

const char *lp_supp_builtin_text(bool threads)
{
    return threads ? builtin_threads_supp : builtin_supp;
}

int lp_supp_add_builtin(struct lp_supp *supp)
{
    return lp_supp_load_string(supp, "<builtin>", builtin_supp, NULL, 0);
}

int lp_supp_add_builtin_threads(struct lp_supp *supp)
{
    return lp_supp_load_string(supp, "<builtin>", builtin_threads_supp, NULL,
                               0);
}

/* ---- matching ----------------------------------------------------------- */

static const char *or_unknown(const char *s)
{
    return s ? s : "???";
}

static bool pat_matches(const struct pat *pt, const struct lp_sym_frame *f)
{
    switch (pt->type) {
    case PAT_FUN:
        return lp_supp_glob(pt->glob, or_unknown(f->mangled ? f->mangled
                                                            : f->fn));
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
        commify(e->bytes, b, sizeof(b));
        commify(e->blocks, n, sizeof(n));
        fprintf(out,
                "--%d-- used_suppression: %6" PRIu64
                " %s %s:%d suppressed: %s bytes in %s blocks\n",
                pid, e->records, e->name, e->file, e->line, b, n);
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

int lp_supp_gen(FILE *out, enum lp_kind kind, const struct lp_sym_frame *frames,
                int n)
{
    int i;

    fprintf(out, "{\n   <insert_a_suppression_name_here>\n   Memcheck:Leak\n"
                 "   match-leak-kinds: %s\n",
            lp_supp_kind_word(kind));
    for (i = 0; i < n; i++) {
        const struct lp_sym_frame *f = &frames[i];
        const char *name = f->mangled ? f->mangled : f->fn;

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
