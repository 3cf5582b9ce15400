/* SPDX-License-Identifier: MIT */
/*
 * sarif.c - the leak report as SARIF 2.1.0.
 * Context: COLD.
 *
 * A leak has no single faulty line: the defect is "this allocation is
 * never freed", so the result points at the first frame of the program's
 * own code on the allocation stack (the same frame a reader of the
 * Memcheck report looks at first), and the whole stack goes along twice:
 * as a codeFlow, which code-scanning UIs render as steps, and as a SARIF
 * stack, which keeps module and address. Our own frames (the malloc hook
 * in libleakprof.so) are nobody's code to fix and are left out of both.
 *
 * Code scanning places a result by a URI relative to the repository, so
 * a source path is made relative to %SRCROOT%, which is the DWARF
 * comp_dir (the compiler's working directory, for most builds the top of
 * the checkout) of the results' own frames: src/util/list.c, not
 * list.c. The fingerprints hash names, files and lines, never addresses,
 * so ASLR does not turn one leak into a new finding on every run, while
 * two leaks in one function stay two findings.
 */
#include "report/sarif.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/suppress.h"

/* Rule order, as Memcheck's LEAK SUMMARY lists the kinds. */
static const enum lp_kind rule_kinds[LP_KIND_COUNT] = {
    LP_KIND_DEFINITE, LP_KIND_INDIRECT, LP_KIND_POSSIBLE, LP_KIND_REACHABLE,
};

static const struct {
    const char *name, *short_text, *full_text;
} rule_text[LP_KIND_COUNT] = {
    [LP_KIND_DEFINITE] = { "DefinitelyLost", "Memory definitely lost",
                           "No pointer to the block was found anywhere: the "
                           "memory leaked and can never be freed." },
    [LP_KIND_INDIRECT] = { "IndirectlyLost", "Memory indirectly lost",
                           "The block is reachable only from lost blocks; "
                           "fixing the definitely lost block that owns it "
                           "fixes this one." },
    [LP_KIND_POSSIBLE] = { "PossiblyLost", "Memory possibly lost",
                           "Only pointers into the middle of the block were "
                           "found: a leak, unless the program keeps interior "
                           "pointers on purpose." },
    [LP_KIND_REACHABLE] = { "StillReachable", "Memory still reachable",
                            "A pointer to the block was still held at exit: "
                            "it could have been freed." },
};

static int rule_index(enum lp_kind k)
{
    int i;

    for (i = 0; i < LP_KIND_COUNT; i++)
        if (rule_kinds[i] == k)
            return i;
    return 0;
}

static bool has_prefix(const char *s, const char *p)
{
    return s && strncmp(s, p, strlen(p)) == 0;
}

static bool system_path(const char *s)
{
    return has_prefix(s, "/usr/") || has_prefix(s, "/lib/") ||
           has_prefix(s, "/lib64/") || has_prefix(s, "/lib32/");
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;

    return slash ? slash + 1 : path;
}

/* Our library, however its name is spelled: the self_obj path (dladdr
 * may give it relative, as LD_PRELOAD did), its real path (what
 * /proc/self/maps shows), or a libleakprof.so* base name. */
struct self_id {
    const char *obj;
    char *real;
};

static bool is_self(const struct lp_sym_frame *f, const struct self_id *me)
{
    if (!f->obj)
        return false;
    if (me->obj && strcmp(me->obj, f->obj) == 0)
        return true;
    if (me->real && strcmp(me->real, f->obj) == 0)
        return true;
    return has_prefix(base_name(f->obj), "libleakprof.so");
}

/* libc, libstdc++ and the loader: their functions that allocate (strdup,
 * getline, std::string's _M_create, ...) wrap the call that leaks. */
static bool wrapper_lib(const char *obj)
{
    const char *b = base_name(obj);

    return has_prefix(b, "libc.so") || has_prefix(b, "libstdc++.so") ||
           has_prefix(b, "libgcc_s.so") || has_prefix(b, "ld-linux");
}

static bool own_source(const struct lp_sym_frame *f)
{
    if (!f->file || f->line <= 0)
        return false;
    if (system_path(f->obj) || system_path(f->path ? f->path : f->file))
        return false;
    return !wrapper_lib(f->obj);
}

/* Where the result points: the first frame of the program's own sources;
 * else the first with a line outside libc/libstdc++; else the first with
 * a line; else the first with a name. frames[] holds none of ours. */
static int result_frame(const struct lp_sym_frame *f, int nf)
{
    int k;

    for (k = 0; k < nf; k++)
        if (own_source(&f[k]))
            return k;
    for (k = 0; k < nf; k++)
        if (f[k].file && f[k].line > 0 && !wrapper_lib(f[k].obj))
            return k;
    for (k = 0; k < nf; k++)
        if (f[k].file && f[k].line > 0)
            return k;
    for (k = 0; k < nf; k++)
        if (f[k].fn)
            return k;
    return -1;
}

/*
 * dir/path (path alone when absolute), with "." and ".." resolved
 * lexically and no trailing slash: a malloc'ed absolute path, or NULL
 * when there is no absolute path to be had (or no memory).
 */
static char *norm_path(const char *dir, const char *path)
{
    size_t dl = dir && path[0] != '/' ? strlen(dir) : 0;
    char *buf, *out;
    size_t o = 0;
    const char *p;

    if (path[0] != '/' && (!dir || dir[0] != '/'))
        return NULL;
    buf = malloc(dl + strlen(path) + 2);
    out = malloc(dl + strlen(path) + 2);
    if (!buf || !out) {
        free(buf);
        free(out);
        return NULL;
    }
    if (dl)
        sprintf(buf, "%s/%s", dir, path);
    else
        strcpy(buf, path);
    for (p = buf; *p;) {
        size_t len;

        while (*p == '/')
            p++;
        len = strcspn(p, "/");
        if (len == 0)
            break;
        if (len == 1 && p[0] == '.') {
            /* nothing */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            out[o++] = '/';
            memcpy(out + o, p, len);
            o += len;
        }
        p += len;
    }
    if (o == 0)
        out[o++] = '/';
    out[o] = '\0';
    free(buf);
    return out;
}

/* Is abs inside the directory root (both normalized)? Gives the rest. */
static const char *under(const char *abs, const char *root)
{
    size_t rl = strlen(root);

    if (strcmp(root, "/") == 0)
        return abs + 1;
    if (strncmp(abs, root, rl) == 0 && abs[rl] == '/')
        return abs + rl + 1;
    return NULL;
}

/* Percent-encode what may not appear in a URI path. */
static void uri_chars(FILE *out, const char *s)
{
    static const char ok[] = "-._~/!$&'()*+,;=:@";

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || (c && strchr(ok, c)))
            putc(c, out);
        else
            fprintf(out, "%%%02X", c);
    }
}

/*
 * A frame's source as a URI: relative to root (with uriBaseId SRCROOT)
 * when its absolute path lies under root; an absolute path elsewhere as
 * file://; a bare file name (no path known) relative, with SRCROOT when
 * there is a root. Writes the "artifactLocation" member to out, or, with
 * out == NULL, the same text (without base id) into key (for
 * fingerprints). The path is the DWARF one (f->path, made absolute with
 * f->comp_dir), else f->file.
 */
static void artifact(FILE *out, const struct lp_sym_frame *f, const char *root,
                     char *key, size_t keylen)
{
    const char *src = f->path ? f->path : f->file;
    char *abs = norm_path(f->comp_dir, src);
    const char *rel = abs && root ? under(abs, root) : NULL;

    if (!out) {
        snprintf(key, keylen, "%s", rel ? rel : abs ? abs : src);
        free(abs);
        return;
    }
    fputs("\"artifactLocation\": {\"uri\": \"", out);
    if (rel) {
        uri_chars(out, rel);
        fputs("\", \"uriBaseId\": \"SRCROOT\"}", out);
    } else if (abs) {
        fputs("file://", out);
        uri_chars(out, abs);
        fputs("\"}", out);
    } else {
        uri_chars(out, src);
        fprintf(out, "\"%s}", root ? ", \"uriBaseId\": \"SRCROOT\"" : "");
    }
    free(abs);
}

/* A SARIF location object for one frame. */
static void location(FILE *out, const struct lp_sym_frame *f, const char *root,
                     const char *self_obj, bool with_message, bool with_addr)
{
    bool phys = f->file || with_addr;

    fputs("{", out);
    if (phys) {
        fputs("\"physicalLocation\": {", out);
        if (f->file) {
            artifact(out, f, root, NULL, 0);
            if (f->line > 0)
                fprintf(out, ", \"region\": {\"startLine\": %d}", f->line);
        }
        if (with_addr)
            fprintf(out, "%s\"address\": {\"absoluteAddress\": %" PRIuPTR "}",
                    f->file ? ", " : "", f->addr);
        fputs("}", out);
    }
    if (f->fn) {
        fprintf(out, "%s\"logicalLocations\": [{\"fullyQualifiedName\": ",
                phys ? ", " : "");
        lp_json_string(out, f->fn);
        if (f->mangled && strcmp(f->mangled, f->fn) != 0) {
            fputs(", \"decoratedName\": ", out);
            lp_json_string(out, f->mangled);
        }
        fputs(", \"kind\": \"function\"}]", out);
    }
    if (with_message) {
        char buf[512];
        int len = lp_sym_describe(f, self_obj, buf, sizeof(buf));

        fprintf(out, "%s\"message\": {\"text\": ", phys || f->fn ? ", " : "");
        if (len < 0)
            snprintf(buf, sizeof(buf), "0x%" PRIxPTR, f->addr);
        lp_json_string(out, buf);
        fputs("}", out);
    }
    fputs("}", out);
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    h ^= 0xff; /* separator, so "ab"+"c" differs from "a"+"bc" */
    h *= 0x100000001b3ull;
    return h;
}

static void message_text(char *buf, size_t n, const struct lp_loss_record *r)
{
    char tot[32], dir[32], ind[32], blk[32];

    lp_commify(r->blocks, blk, sizeof(blk));
    if (r->indirect_bytes > 0) {
        lp_commify(r->bytes + r->indirect_bytes, tot, sizeof(tot));
        lp_commify(r->bytes, dir, sizeof(dir));
        lp_commify(r->indirect_bytes, ind, sizeof(ind));
        snprintf(buf, n, "%s (%s direct, %s indirect) bytes in %s blocks are %s",
                 tot, dir, ind, blk, lp_json_kind_text(r->kind));
    } else {
        lp_commify(r->bytes, tot, sizeof(tot));
        snprintf(buf, n, "%s bytes in %s blocks are %s", tot, blk,
                 lp_json_kind_text(r->kind));
    }
}

/* One record's frames without ours; *alloc names the allocation function
 * (our hook's name, "malloc", "operator new[](unsigned long)") if any. */
struct rec_frames {
    struct lp_sym_frame *f;
    int n, at;
    const char *alloc;
};

static int get_frames(struct rec_frames *rf, const struct lp_loss_record *r,
                      lp_sarif_frames_fn frames_fn, void *ctx,
                      const struct self_id *me)
{
    int nf, k, w = 0;

    memset(rf, 0, sizeof(*rf));
    nf = frames_fn(ctx, r, &rf->f);
    if (nf < 0)
        return nf;
    for (k = 0; k < nf; k++) {
        if (is_self(&rf->f[k], me)) {
            if (!rf->alloc)
                rf->alloc = rf->f[k].fn;
            continue;
        }
        rf->f[w++] = rf->f[k];
    }
    rf->n = w;
    rf->at = result_frame(rf->f, rf->n);
    return 0;
}

static bool is_result(const struct lp_loss_record *r,
                      const struct lp_leak_opts *o)
{
    return o->leak_check != LP_CHECK_NO && r->supp < 0 && r->blocks > 0 &&
           (unsigned)r->kind < LP_KIND_COUNT &&
           (o->error_kinds & LP_KIND_BIT(r->kind));
}

static int write_result(FILE *out, const struct lp_loss_record *r, size_t i,
                        size_t n, lp_sarif_frames_fn frames_fn, void *ctx,
                        const struct self_id *me, const char *root, bool first)
{
    struct rec_frames rf;
    struct lp_sym_frame *f;
    char msg[256], site[1100], file[1024], line[32];
    uint64_t h = 0xcbf29ce484222325ull;
    int k, rc;

    rc = get_frames(&rf, r, frames_fn, ctx, me);
    if (rc < 0)
        return rc;
    f = rf.f;

    /* The stack hash: kind, then per frame its name, file and line. */
    h = fnv1a(h, lp_supp_kind_word(r->kind));
    for (k = 0; k < rf.n; k++) {
        snprintf(line, sizeof(line), "%d", f[k].line);
        h = fnv1a(h, f[k].mangled ? f[k].mangled
                                  : f[k].fn ? f[k].fn : base_name(f[k].obj));
        h = fnv1a(h, f[k].file);
        h = fnv1a(h, line);
    }
    /* The allocation site: where the result points, file:line. */
    site[0] = '\0';
    if (rf.at >= 0 && f[rf.at].file) {
        artifact(NULL, &f[rf.at], root, file, sizeof(file));
        snprintf(site, sizeof(site), "%s:%d", file, f[rf.at].line);
    } else if (rf.at >= 0 && f[rf.at].fn) {
        snprintf(site, sizeof(site), "%s", f[rf.at].fn);
    }

    message_text(msg, sizeof(msg), r);
    fprintf(out, "%s        {\n          \"ruleId\": \"leak/%s\",\n"
                 "          \"ruleIndex\": %d,\n"
                 "          \"level\": \"%s\",\n"
                 "          \"message\": {\"text\": ",
            first ? "" : ",\n", lp_supp_kind_word(r->kind), rule_index(r->kind),
            r->kind == LP_KIND_DEFINITE ? "error" : "warning");
    lp_json_string(out, msg);
    fputs("},\n          \"locations\": [", out);
    if (rf.at >= 0)
        location(out, &f[rf.at], root, me->obj, false, false);
    fputs("],\n", out);
    if (rf.n > 0) {
        fputs("          \"codeFlows\": [{\"threadFlows\": [{\"locations\": [\n",
              out);
        for (k = 0; k < rf.n; k++) {
            fputs("            {\"location\": ", out);
            location(out, &f[k], root, me->obj, true, false);
            fprintf(out, "}%s\n", k + 1 < rf.n ? "," : "");
        }
        fputs("          ]}]}],\n", out);
        fputs("          \"stacks\": [{\"message\": {\"text\": \"allocation "
              "stack\"}, \"frames\": [\n",
              out);
        for (k = 0; k < rf.n; k++) {
            fputs("            {\"location\": ", out);
            location(out, &f[k], root, me->obj, false, true);
            if (f[k].obj) {
                fputs(", \"module\": ", out);
                lp_json_string(out, f[k].obj);
            }
            fprintf(out, "}%s\n", k + 1 < rf.n ? "," : "");
        }
        fputs("          ]}],\n", out);
    }
    fprintf(out,
            "          \"partialFingerprints\": {\"leakStack/v2\": "
            "\"%016" PRIx64 "\", \"leakSite/v1\": ",
            h);
    lp_json_string(out, site);
    fprintf(out,
            "},\n"
            "          \"properties\": {\"bytes\": %" PRIu64
            ", \"directBytes\": %" PRIu64 ", \"indirectBytes\": %" PRIu64
            ", \"blocks\": %" PRIu64 ", \"lossRecord\": %zu"
            ", \"lossRecords\": %zu",
            r->bytes + r->indirect_bytes, r->bytes, r->indirect_bytes,
            r->blocks, i + 1, n);
    if (rf.alloc) {
        fputs(", \"allocator\": ", out);
        lp_json_string(out, rf.alloc);
    }
    fputs("}\n        }", out);
    free(f);
    return 0;
}

/* Count of result locations per comp_dir, to pick %SRCROOT%. */
struct dir_count {
    const char *dir;
    size_t n;
};

/*
 * %SRCROOT% when the caller gives none: the comp_dir most of the results'
 * locations were compiled in (the first met on a tie), if at least one of
 * them lies under it. Returns a malloc'ed normalized path or NULL.
 */
static char *pick_root(struct lp_leak_set *set, const struct lp_leak_opts *o,
                       lp_sarif_frames_fn frames_fn, void *ctx,
                       const struct self_id *me, int *err)
{
    struct dir_count *dc = NULL;
    size_t i, j, ndc = 0, best = 0;
    char *root = NULL;

    *err = 0;
    for (i = 0; i < set->nrecs; i++) {
        struct rec_frames rf;
        const struct lp_sym_frame *at;
        char *abs, *dir;

        if (!is_result(&set->recs[i], o))
            continue;
        *err = get_frames(&rf, &set->recs[i], frames_fn, ctx, me);
        if (*err < 0)
            break;
        at = rf.at >= 0 ? &rf.f[rf.at] : NULL;
        dir = at && at->comp_dir ? norm_path(NULL, at->comp_dir) : NULL;
        abs = dir ? norm_path(dir, at->path ? at->path : at->file) : NULL;
        if (abs && under(abs, dir)) {
            for (j = 0; j < ndc && strcmp(dc[j].dir, dir) != 0; j++)
                ;
            if (j == ndc) {
                struct dir_count *v = realloc(dc, (ndc + 1) * sizeof(*dc));

                if (!v) {
                    *err = -ENOMEM;
                    free(abs);
                    free(dir);
                    free(rf.f);
                    break;
                }
                dc = v;
                dc[ndc].dir = dir;
                dc[ndc++].n = 0;
                dir = NULL;
            }
            dc[j].n++;
        }
        free(abs);
        free(dir);
        free(rf.f);
    }
    for (j = 0; j < ndc; j++) {
        if (dc[j].n > dc[best].n)
            best = j;
    }
    if (*err == 0 && ndc > 0) {
        root = (char *)dc[best].dir;
        dc[best].dir = NULL;
    }
    for (j = 0; j < ndc; j++)
        free((char *)dc[j].dir);
    free(dc);
    return root;
}

struct sym_ctx {
    struct lp_sym *sym;
    const struct lp_leak_opts *o;
};

static int sym_frames(void *ctx, const struct lp_loss_record *r,
                      struct lp_sym_frame **frames)
{
    struct sym_ctx *c = ctx;

    return lp_json_record_frames(c->sym, r, c->o, frames);
}

int lp_leaks_sarif(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                   const struct lp_leak_opts *opts, const char *srcroot)
{
    struct sym_ctx c = { sym, opts ? opts : &lp_leak_opts_default };

    return lp_leaks_sarif_frames(out, set, c.o, srcroot, sym_frames, &c);
}

int lp_leaks_sarif_frames(FILE *out, struct lp_leak_set *set,
                          const struct lp_leak_opts *opts, const char *srcroot,
                          lp_sarif_frames_fn frames_fn, void *ctx)
{
    const struct lp_leak_opts *o = opts ? opts : &lp_leak_opts_default;
    struct self_id me = { o->self_obj, NULL };
    char *root = NULL;
    size_t i;
    int k, rc = 0;
    bool first = true;

    if (me.obj)
        me.real = realpath(me.obj, NULL);
    lp_leaks_sort(set);
    if (srcroot && *srcroot) {
        char *real = realpath(srcroot, NULL);

        root = norm_path(NULL, real ? real : srcroot);
        free(real);
        if (!root && srcroot[0] == '/')
            rc = -ENOMEM;
    } else {
        root = pick_root(set, o, frames_fn, ctx, &me, &rc);
    }
    if (rc < 0) {
        free(me.real);
        return rc;
    }

    fputs("{\n  \"$schema\": \"" LP_SARIF_SCHEMA "\",\n"
          "  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n"
          "      \"tool\": {\"driver\": {\n"
          "        \"name\": \"leakprof\",\n"
          "        \"rules\": [\n",
          out);
    for (k = 0; k < LP_KIND_COUNT; k++) {
        enum lp_kind kind = rule_kinds[k];

        fprintf(out,
                "          {\"id\": \"leak/%s\", \"name\": \"%s\", "
                "\"shortDescription\": {\"text\": \"%s\"}, "
                "\"fullDescription\": {\"text\": \"%s\"}, "
                "\"defaultConfiguration\": {\"level\": \"%s\"}}%s\n",
                lp_supp_kind_word(kind), rule_text[kind].name,
                rule_text[kind].short_text, rule_text[kind].full_text,
                kind == LP_KIND_DEFINITE ? "error" : "warning",
                k + 1 < LP_KIND_COUNT ? "," : "");
    }
    fputs("        ]\n      }},\n", out);
    if (root) {
        fputs("      \"originalUriBaseIds\": {\"SRCROOT\": {\"uri\": \"file://",
              out);
        uri_chars(out, root);
        fputs(strcmp(root, "/") == 0 ? "\"}},\n" : "/\"}},\n", out);
    }
    fprintf(out,
            "      \"invocations\": [{\"executionSuccessful\": true, "
            "\"processId\": %d}],\n"
            "      \"results\": [\n",
            set->pid);
    for (i = 0; i < set->nrecs && rc == 0; i++) {
        const struct lp_loss_record *r = &set->recs[i];

        if (!is_result(r, o))
            continue;
        rc = write_result(out, r, i, set->nrecs, frames_fn, ctx, &me, root,
                          first);
        first = false;
    }
    free(root);
    free(me.real);
    if (rc < 0)
        return rc;
    fputs(first ? "      ]\n    }\n  ]\n}\n" : "\n      ]\n    }\n  ]\n}\n",
          out);
    if (fflush(out) != 0 || ferror(out))
        return errno ? -errno : -EIO;
    return 0;
}
