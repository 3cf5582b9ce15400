/* SPDX-License-Identifier: MIT */
/*
 * demangle_rust.c - Rust symbol names as Memcheck prints them.
 *
 * Valgrind demangles Rust's two manglings before C++'s, and so do we:
 *   legacy  _ZN3std2rt10lang_start17h0123456789abcdefE: Itanium-shaped,
 *           but the last component is a hash (h + 16 hex digits) that is
 *           left out, and components escape punctuation ($LT$, $u7b$..);
 *   v0      _RNvMs4_NtCs..._5alloc7raw_vecNtB5_11RawVecInner11finish_grow
 *           (RFC 2603): paths, impls and types in a small grammar with
 *           back-references; printed without crate hashes, as
 *           "<alloc::raw_vec::RawVecInner>::finish_grow".
 * A ".llvm.<hex>" suffix (LTO clones) is dropped. Anything this does not
 * parse whole is not Rust: NULL, and the caller tries C++.
 * Written from the RFC and the shapes Memcheck prints, tested against it.
 * Context: COLD (report time).
 */
#include "report/demangle_rust.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
    char *p;
    size_t len, cap;
    bool oom;
};

static void put_n(struct out *o, const char *s, size_t n)
{
    if (o->oom)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 128;
        char *p;

        while (cap < o->len + n + 1)
            cap *= 2;
        p = realloc(o->p, cap);
        if (p == NULL) {
            o->oom = true;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

static void put(struct out *o, const char *s) { put_n(o, s, strlen(s)); }

/* A ".llvm." suffix of hex digits and '@' (what LLVM appends to a symbol
 * it renames); *end is where the name proper ends. */
static bool llvm_suffix(const char *s, const char **end)
{
    const char *dot = strstr(s, ".llvm.");
    const char *q;

    if (dot == NULL) {
        *end = s + strlen(s);
        return true;
    }
    for (q = dot + 6; *q; q++)
        if (!((*q >= '0' && *q <= '9') || (*q >= 'A' && *q <= 'F') || *q == '@'))
            return false;
    *end = dot;
    return true;
}

/* ---- legacy ---- */

static bool is_hash(const char *s, size_t n)
{
    size_t i;

    if (n != 17 || s[0] != 'h')
        return false;
    for (i = 1; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

static const struct {
    const char *esc, *text;
} legacy_escapes[] = {
    {"$SP$", "@"}, {"$BP$", "*"}, {"$RF$", "&"}, {"$LT$", "<"},
    {"$GT$", ">"}, {"$LP$", "("}, {"$RP$", ")"}, {"$C$", ","},
};

/* One component, its escapes decoded; false if one is malformed. */
static bool legacy_component(struct out *o, const char *s, size_t n)
{
    size_t i = 0, k;

    if (n >= 2 && s[0] == '_' && s[1] == '$')
        i = 1; /* an identifier cannot start with '$': rustc prefixed '_' */
    while (i < n) {
        if (s[i] == '.') {
            if (i + 1 < n && s[i + 1] == '.') {
                put(o, "::");
                i += 2;
            } else {
                put(o, ".");
                i++;
            }
            continue;
        }
        if (s[i] != '$') {
            put_n(o, s + i, 1);
            i++;
            continue;
        }
        for (k = 0; k < sizeof(legacy_escapes) / sizeof(legacy_escapes[0]); k++) {
            size_t el = strlen(legacy_escapes[k].esc);

            if (i + el <= n && memcmp(s + i, legacy_escapes[k].esc, el) == 0) {
                put(o, legacy_escapes[k].text);
                i += el;
                break;
            }
        }
        if (k < sizeof(legacy_escapes) / sizeof(legacy_escapes[0]))
            continue;
        if (i + 1 < n && s[i + 1] == 'u') { /* $uXX$: a character by code */
            size_t j = i + 2;
            unsigned long c = 0;
            char ch;

            while (j < n && s[j] != '$') {
                char h = s[j];

                if (h >= '0' && h <= '9')
                    c = c * 16 + (unsigned)(h - '0');
                else if (h >= 'a' && h <= 'f')
                    c = c * 16 + (unsigned)(h - 'a' + 10);
                else
                    return false;
                j++;
            }
            if (j >= n || j == i + 2 || c == 0 || c > 0x7e)
                return false;
            ch = (char)c;
            put_n(o, &ch, 1);
            i = j + 1;
            continue;
        }
        return false;
    }
    return true;
}

static char *legacy(const char *s)
{
    const char *p = s + 3, *end;
    struct out o = {0};
    int ncomp = 0;
    bool hashed = false;

    if (!llvm_suffix(s, &end))
        return NULL;
    while (p < end && *p != 'E') {
        size_t n = 0;

        if (*p < '1' || *p > '9')
            goto fail;
        while (p < end && *p >= '0' && *p <= '9') {
            n = n * 10 + (size_t)(*p - '0');
            if (n > 4096)
                goto fail;
            p++;
        }
        if ((size_t)(end - p) < n)
            goto fail;
        if (is_hash(p, n) && p + n < end && p[n] == 'E' && ncomp > 0) {
            hashed = true;
        } else {
            if (ncomp > 0)
                put(&o, "::");
            if (!legacy_component(&o, p, n))
                goto fail;
        }
        p += n;
        ncomp++;
    }
    if (!hashed || p + 1 != end || o.oom)
        goto fail;
    return o.p;
fail:
    free(o.p);
    return NULL;
}

/* ---- v0 ---- */

struct v0 {
    const char *s; /* after "_R" */
    size_t n, pos;
    int depth;
    bool bad;
    struct out *o;
};

static char peek(struct v0 *d) { return d->pos < d->n ? d->s[d->pos] : '\0'; }

static bool eat(struct v0 *d, char c)
{
    if (peek(d) != c)
        return false;
    d->pos++;
    return true;
}

static char next(struct v0 *d)
{
    if (d->pos >= d->n) {
        d->bad = true;
        return '\0';
    }
    return d->s[d->pos++];
}

/* base-62-number: "_" is 0, else digits then "_" are value + 1. */
static uint64_t base62(struct v0 *d)
{
    uint64_t v = 0;

    if (eat(d, '_'))
        return 0;
    for (;;) {
        char c = next(d);
        unsigned dig;

        if (c == '_')
            break;
        if (c >= '0' && c <= '9')
            dig = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'z')
            dig = 10 + (unsigned)(c - 'a');
        else if (c >= 'A' && c <= 'Z')
            dig = 36 + (unsigned)(c - 'A');
        else {
            d->bad = true;
            return 0;
        }
        if (v > (UINT64_MAX - dig) / 62) {
            d->bad = true;
            return 0;
        }
        v = v * 62 + dig;
    }
    return v + 1;
}

/* An optional "s" disambiguator: 0 when absent, else base62 + 1. */
static uint64_t disambiguator(struct v0 *d)
{
    if (!eat(d, 's'))
        return 0;
    return base62(d) + 1;
}

static size_t decimal(struct v0 *d)
{
    size_t v = 0;

    if (peek(d) < '0' || peek(d) > '9') {
        d->bad = true;
        return 0;
    }
    if (eat(d, '0'))
        return 0;
    while (peek(d) >= '0' && peek(d) <= '9') {
        v = v * 10 + (size_t)(next(d) - '0');
        if (v > d->n) {
            d->bad = true;
            return 0;
        }
    }
    return v;
}

/* undisambiguated-identifier: ["u"] decimal ["_"] bytes. Punycode ("u")
 * is not decoded: not Rust we can print. */
static void ident(struct v0 *d, const char **p, size_t *len)
{
    size_t n;

    *p = "";
    *len = 0;
    if (eat(d, 'u')) {
        d->bad = true;
        return;
    }
    n = decimal(d);
    eat(d, '_');
    if (d->bad || d->n - d->pos < n) {
        d->bad = true;
        return;
    }
    *p = d->s + d->pos;
    *len = n;
    d->pos += n;
}

static void path(struct v0 *d, bool in_value);
static void type(struct v0 *d);

/* Run fn at a back-reference's target, then come back. */
#define AT_BACKREF(d, call) \
    do { \
        size_t at_ = (d)->pos - 1; /* the 'B' */ \
        uint64_t to_ = base62(d); \
        size_t back_ = (d)->pos; \
        if ((d)->bad || to_ >= at_ || ++(d)->depth > 200) { \
            (d)->bad = true; \
            break; \
        } \
        (d)->pos = (size_t)to_; \
        call; \
        (d)->pos = back_; \
        (d)->depth--; \
    } while (0)

static bool enter(struct v0 *d)
{
    if (++d->depth > 200)
        d->bad = true;
    return !d->bad;
}

static void lifetime_print(struct v0 *d, uint64_t lt)
{
    char buf[24];

    if (lt == 0) {
        put(d->o, "'_");
        return;
    }
    if (lt <= 26) {
        buf[0] = '\'';
        buf[1] = (char)('a' + lt - 1);
        buf[2] = '\0';
    } else {
        snprintf(buf, sizeof(buf), "'_%llu", (unsigned long long)lt);
    }
    put(d->o, buf);
}

static void const_value(struct v0 *d)
{
    char t, buf[64];
    bool neg;
    uint64_t v = 0;
    int digits = 0;

    if (!enter(d))
        return;
    if (eat(d, 'B')) {
        AT_BACKREF(d, const_value(d));
        d->depth--;
        return;
    }
    if (eat(d, 'p')) {
        put(d->o, "_");
        d->depth--;
        return;
    }
    t = next(d);
    neg = eat(d, 'n');
    while (!d->bad && peek(d) != '_') {
        char c = next(d);
        unsigned h;

        if (c >= '0' && c <= '9')
            h = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            h = 10 + (unsigned)(c - 'a');
        else {
            d->bad = true;
            break;
        }
        if (++digits > 16) {
            d->bad = true;
            break;
        }
        v = v * 16 + h;
    }
    eat(d, '_');
    if (d->bad) {
        d->depth--;
        return;
    }
    if (t == 'b')
        put(d->o, v ? "true" : "false");
    else if (t == 'c' && v >= 0x20 && v < 0x7f) {
        snprintf(buf, sizeof(buf), "'%c'", (char)v);
        put(d->o, buf);
    } else if (strchr("ahjmtyilnosx", t) != NULL && t != '\0') {
        snprintf(buf, sizeof(buf), "%s%llu", neg ? "-" : "", (unsigned long long)v);
        put(d->o, buf);
    } else {
        d->bad = true;
    }
    d->depth--;
}

static void generic_arg(struct v0 *d)
{
    if (eat(d, 'L'))
        lifetime_print(d, base62(d));
    else if (eat(d, 'K'))
        const_value(d);
    else
        type(d);
}

static void generic_args(struct v0 *d)
{
    bool first = true;

    while (!d->bad && !eat(d, 'E')) {
        if (!first)
            put(d->o, ", ");
        first = false;
        generic_arg(d);
    }
}

static void binder(struct v0 *d)
{
    uint64_t n, i;

    if (!eat(d, 'G'))
        return;
    n = base62(d) + 1;
    if (n > 26) {
        d->bad = true;
        return;
    }
    put(d->o, "for<");
    for (i = 1; i <= n; i++) {
        if (i > 1)
            put(d->o, ", ");
        lifetime_print(d, i);
    }
    put(d->o, "> ");
}

static const char *basic_type(char c)
{
    switch (c) {
    case 'a': return "i8";
    case 'b': return "bool";
    case 'c': return "char";
    case 'd': return "f64";
    case 'e': return "str";
    case 'f': return "f32";
    case 'h': return "u8";
    case 'i': return "isize";
    case 'j': return "usize";
    case 'l': return "i32";
    case 'm': return "u32";
    case 'n': return "i128";
    case 'o': return "u128";
    case 's': return "i16";
    case 't': return "u16";
    case 'u': return "()";
    case 'v': return "...";
    case 'x': return "i64";
    case 'y': return "u64";
    case 'z': return "!";
    case 'p': return "_";
    default: return NULL;
    }
}

static void fn_sig(struct v0 *d)
{
    bool first = true;

    binder(d);
    if (eat(d, 'U'))
        put(d->o, "unsafe ");
    if (eat(d, 'K')) {
        put(d->o, "extern \"");
        if (eat(d, 'C')) {
            put(d->o, "C");
        } else {
            const char *p;
            size_t n, i;

            ident(d, &p, &n);
            for (i = 0; i < n; i++)
                put_n(d->o, p[i] == '_' ? "-" : p + i, 1);
        }
        put(d->o, "\" ");
    }
    put(d->o, "fn(");
    while (!d->bad && !eat(d, 'E')) {
        if (!first)
            put(d->o, ", ");
        first = false;
        type(d);
    }
    put(d->o, ")");
    if (eat(d, 'u'))
        return; /* returns () */
    put(d->o, " -> ");
    type(d);
}

/* A trait path of a dyn type, with its associated-type bindings. */
static void dyn_trait(struct v0 *d)
{
    bool open = false;

    /* The path may end in generic args we must merge with the bindings:
     * print it, then add the bindings inside one pair of brackets. */
    path(d, false);
    while (!d->bad && eat(d, 'p')) {
        const char *p;
        size_t n;

        if (!open) {
            if (d->o->len > 0 && d->o->p[d->o->len - 1] == '>') {
                d->o->len--; /* reopen "Trait<A>" */
                d->o->p[d->o->len] = '\0';
                put(d->o, ", ");
            } else {
                put(d->o, "<");
            }
            open = true;
        } else {
            put(d->o, ", ");
        }
        ident(d, &p, &n);
        put_n(d->o, p, n);
        put(d->o, " = ");
        type(d);
    }
    if (open)
        put(d->o, ">");
}

static void type(struct v0 *d)
{
    char c;
    const char *b;

    if (!enter(d))
        return;
    c = next(d);
    b = basic_type(c);
    if (b != NULL) {
        put(d->o, b);
    } else {
        switch (c) {
        case 'A':
        case 'S':
            put(d->o, "[");
            type(d);
            if (c == 'A') {
                put(d->o, "; ");
                const_value(d);
            }
            put(d->o, "]");
            break;
        case 'R':
        case 'Q':
            put(d->o, "&");
            if (eat(d, 'L')) {
                uint64_t lt = base62(d);

                if (lt != 0) {
                    lifetime_print(d, lt);
                    put(d->o, " ");
                }
            }
            if (c == 'Q')
                put(d->o, "mut ");
            type(d);
            break;
        case 'P':
            put(d->o, "*const ");
            type(d);
            break;
        case 'O':
            put(d->o, "*mut ");
            type(d);
            break;
        case 'F':
            fn_sig(d);
            break;
        case 'D': {
            bool first = true;

            put(d->o, "dyn ");
            binder(d);
            while (!d->bad && !eat(d, 'E')) {
                if (!first)
                    put(d->o, " + ");
                first = false;
                dyn_trait(d);
            }
            if (!eat(d, 'L')) {
                d->bad = true;
                break;
            }
            {
                uint64_t lt = base62(d);

                if (lt != 0) {
                    put(d->o, " + ");
                    lifetime_print(d, lt);
                }
            }
            break;
        }
        case 'T': {
            int count = 0;

            put(d->o, "(");
            while (!d->bad && !eat(d, 'E')) {
                if (count++ > 0)
                    put(d->o, ", ");
                type(d);
            }
            put(d->o, count == 1 ? ",)" : ")");
            break;
        }
        case 'B':
            AT_BACKREF(d, type(d));
            break;
        default:
            d->pos--;
            path(d, false);
            break;
        }
    }
    d->depth--;
}

/* Parse a path without printing it. */
static void skip_path(struct v0 *d)
{
    struct out *keep = d->o, sink = {0};

    d->o = &sink;
    path(d, false);
    d->o = keep;
    free(sink.p);
}

static void path(struct v0 *d, bool in_value)
{
    char c;

    if (!enter(d))
        return;
    c = next(d);
    switch (c) {
    case 'C': {
        const char *p;
        size_t n;

        disambiguator(d);
        ident(d, &p, &n);
        put_n(d->o, p, n);
        break;
    }
    case 'M':
        disambiguator(d);
        skip_path(d); /* the impl's own path: only its self type shows */
        put(d->o, "<");
        type(d);
        put(d->o, ">");
        break;
    case 'X':
        disambiguator(d);
        skip_path(d);
        /* fall through */
    case 'Y':
        put(d->o, "<");
        type(d);
        put(d->o, " as ");
        path(d, false);
        put(d->o, ">");
        break;
    case 'N': {
        char ns = next(d);
        const char *p;
        size_t n;
        uint64_t dis;

        if (!((ns >= 'a' && ns <= 'z') || (ns >= 'A' && ns <= 'Z'))) {
            d->bad = true;
            break;
        }
        path(d, in_value);
        dis = disambiguator(d);
        ident(d, &p, &n);
        if (ns >= 'A' && ns <= 'Z') {
            char buf[32];

            put(d->o, "::{");
            put(d->o, ns == 'C' ? "closure" : ns == 'S' ? "shim" : "");
            if (ns != 'C' && ns != 'S')
                put_n(d->o, &ns, 1);
            if (n > 0) {
                put(d->o, ":");
                put_n(d->o, p, n);
            }
            snprintf(buf, sizeof(buf), "#%llu}", (unsigned long long)dis);
            put(d->o, buf);
        } else if (n > 0) {
            put(d->o, "::");
            put_n(d->o, p, n);
        }
        break;
    }
    case 'I':
        path(d, in_value);
        put(d->o, in_value ? "::<" : "<");
        generic_args(d);
        put(d->o, ">");
        break;
    case 'B':
        AT_BACKREF(d, path(d, in_value));
        break;
    default:
        d->bad = true;
        break;
    }
    d->depth--;
}

static char *v0(const char *s)
{
    struct out o = {0};
    struct v0 d = {0};
    const char *end;

    if (!llvm_suffix(s, &end))
        return NULL;
    d.s = s + 2;
    d.n = (size_t)(end - d.s);
    d.o = &o;
    if (peek(&d) >= '0' && peek(&d) <= '9') {
        if (decimal(&d) != 0) /* an encoding version we do not know */
            d.bad = true;
    }
    path(&d, true);
    if (!d.bad && d.pos < d.n)
        skip_path(&d); /* the instantiating crate: parsed, not printed */
    if (d.bad || d.pos != d.n || o.oom || o.p == NULL) {
        free(o.p);
        return NULL;
    }
    return o.p;
}

char *lp_rust_demangle(const char *sym)
{
    if (sym == NULL)
        return NULL;
    if (strncmp(sym, "_R", 2) == 0)
        return v0(sym);
    if (strncmp(sym, "_ZN", 3) == 0)
        return legacy(sym);
    return NULL;
}
