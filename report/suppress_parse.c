/* SPDX-License-Identifier: MIT */
/*
 * suppress_parse.c - reading suppressions: Valgrind .supp entries, LSan
 * `leak:` lines, and the built-in entries (suppress.h).
 * Context: COLD.
 *
 * Loading is all-or-nothing per file: entries are appended while parsing
 * and cut back to the old count on the first error.
 */
#include "report/suppress_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Memcheck's error kinds; anything else after "Memcheck:" is fatal in
 * Valgrind, and so it is here. */
static const char *const memcheck_kinds[] = {
    "Value0", "Value1", "Value2", "Value4", "Value8", "Value16", "Value32",
    "Cond", "Addr1", "Addr2", "Addr4", "Addr8", "Addr16", "Addr32", "Jump",
    "Param", "User", "Free", "Overlap", "Leak", "FishyValue", "ReallocZero",
};

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
        lp_supp_entry_release(e);
        supp->n--;
        return skip_entry(p);
    }
    if (!memcheck_kind_known(colon + 1))
        return perr(p, "unknown Memcheck suppression kind '%s'", colon + 1);
    if (strcmp(colon + 1, "Free") == 0) {
        /* Heap errors: an invalid or a mismatched free (heap_errors.c). */
        e->free_err = true;
        e->kinds = 0;
    } else if (strcmp(colon + 1, "Leak") != 0) {
        lp_supp_entry_release(e);
        supp->n--;
        return skip_entry(p);
    }

    l = next_line(p);
    if (l && !e->free_err && strncmp(l, "match-leak-kinds:", 17) == 0) {
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
            lp_supp_entry_release(&supp->e[--supp->n]);
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
 *   preload may be unable to call (old libstdc++, static libstdc++). Not
 *   when the process dies of a signal (no freeres runs), nor when
 *   libstdc++ came by dlopen (Valgrind's preload binds __freeres at
 *   start): Memcheck counts the pool still reachable then.
 * No entry for the blocks __tls_get_addr allocates (a dlopen'ed module's
 *   TLS block, per thread, and the DTV it grows): Valgrind's default.supp
 *   means to hide them (dtv-addr-*: fun:malloc, then allocate_dtv_entry or
 *   tls_get_addr_tail*), but on Debian 12 an inlined malloc
 *   (rtld-malloc.h) frame comes between, so Memcheck 3.19 reports them,
 *   still reachable or possibly lost; our entry for them (fun:*alloc, ...,
 *   fun:__tls_get_addr) hid them, so the figures differed from Memcheck's
 *   (java -version: 715 bytes in 11 blocks "suppressed").
 * lp-stdio-buffer: the buffer stdio allocates on first use of a FILE; it
 *   is reachable from the FILE and freed by __libc_freeres under Valgrind
 *   (not when the process dies of a signal: lp_supp_add_builtin_for).
 * lp-thread-dtv (opt-in): the DTV calloc'ed by pthread_create for a
 *   thread still running at exit, reached 16 bytes in (possibly lost).
 */
#define STDIO_ENTRY \
    "{\n" \
    "   lp-stdio-buffer\n" \
    "   Memcheck:Leak\n" \
    "   match-leak-kinds: reachable\n" \
    "   fun:malloc\n" \
    "   fun:_IO_file_doallocate\n" \
    "}\n"

#define EH_POOL_ENTRY \
    "{\n" \
    "   lp-libstdcxx-eh-pool\n" \
    "   Memcheck:Leak\n" \
    "   match-leak-kinds: reachable\n" \
    "   fun:malloc\n" \
    "   obj:*/libstdc++.so*\n" \
    "   ...\n" \
    "   fun:_dl_init\n" \
    "}\n"

/* What a death by signal keeps: the runtime's buffers are not freed then,
 * and Memcheck reports them: nothing to hide. */
static const char builtin_supp_signal[] = "";
/* No libstdc++ at start: no __gnu_cxx::__freeres to free the pool. */
static const char builtin_supp_no_cxx[] = STDIO_ENTRY;
static const char builtin_supp[] = EH_POOL_ENTRY STDIO_ENTRY;

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
    return lp_supp_add_builtin_for(supp, true, true);
}

int lp_supp_add_builtin_for(struct lp_supp *supp, bool libc_freed,
                            bool cxx_freed)
{
    const char *text = !libc_freed ? builtin_supp_signal
                       : cxx_freed ? builtin_supp
                                   : builtin_supp_no_cxx;

    return lp_supp_load_string(supp, "<builtin>", text, NULL, 0);
}

int lp_supp_add_builtin_threads(struct lp_supp *supp)
{
    return lp_supp_load_string(supp, "<builtin>", builtin_threads_supp, NULL,
                               0);
}
