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
 * stack, which keeps module and address. The fingerprint hashes function
 * names, never addresses, so ASLR does not turn one leak into a new
 * finding on every run.
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

/* Our own malloc hook is never where a leak is. */
static bool is_self(const struct lp_sym_frame *f, const char *self_obj)
{
    return self_obj && f->obj && strcmp(self_obj, f->obj) == 0;
}

static bool own_source(const struct lp_sym_frame *f, const char *self_obj)
{
    if (!f->file || f->line <= 0)
        return false;
    if (system_path(f->obj) || system_path(f->file))
        return false;
    return !is_self(f, self_obj);
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

/* The "uri" (and "uriBaseId") members of an artifactLocation. */
static void artifact(FILE *out, const char *file, const char *root)
{
    size_t rl = root ? strlen(root) : 0;

    fputs("\"artifactLocation\": {\"uri\": \"", out);
    if (file[0] == '/' && root && strncmp(file, root, rl) == 0 &&
        file[rl] == '/') {
        uri_chars(out, file + rl + 1);
        fputs("\", \"uriBaseId\": \"SRCROOT\"}", out);
    } else if (file[0] == '/') {
        fputs("file://", out);
        uri_chars(out, file);
        fputs("\"}", out);
    } else {
        uri_chars(out, file);
        fprintf(out, "\"%s}", root ? ", \"uriBaseId\": \"SRCROOT\"" : "");
    }
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
            artifact(out, f->file, root);
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

static int write_result(FILE *out, const struct lp_loss_record *r, size_t i,
                        size_t n, lp_sarif_frames_fn frames_fn, void *ctx,
                        const struct lp_leak_opts *o, const char *root,
                        bool first)
{
    struct lp_sym_frame *f = NULL;
    char msg[256];
    uint64_t h = 0xcbf29ce484222325ull;
    int nf, k, at = -1;

    nf = frames_fn(ctx, r, &f);
    if (nf < 0)
        return nf;
    for (k = 0; k < nf && at < 0; k++)
        if (own_source(&f[k], o->self_obj))
            at = k;
    for (k = 0; k < nf && at < 0; k++)
        if (f[k].file && f[k].line > 0 && !is_self(&f[k], o->self_obj))
            at = k;
    for (k = 0; k < nf && at < 0; k++)
        if (f[k].fn && !is_self(&f[k], o->self_obj))
            at = k;

    h = fnv1a(h, lp_supp_kind_word(r->kind));
    for (k = 0; k < nf; k++)
        h = fnv1a(h, f[k].mangled ? f[k].mangled
                                  : f[k].fn ? f[k].fn : f[k].obj);

    message_text(msg, sizeof(msg), r);
    fprintf(out, "%s        {\n          \"ruleId\": \"leak/%s\",\n"
                 "          \"ruleIndex\": %d,\n"
                 "          \"level\": \"%s\",\n"
                 "          \"message\": {\"text\": ",
            first ? "" : ",\n", lp_supp_kind_word(r->kind), rule_index(r->kind),
            r->kind == LP_KIND_DEFINITE ? "error" : "warning");
    lp_json_string(out, msg);
    fputs("},\n          \"locations\": [", out);
    if (at >= 0)
        location(out, &f[at], root, o->self_obj, false, false);
    fputs("],\n", out);
    if (nf > 0) {
        fputs("          \"codeFlows\": [{\"threadFlows\": [{\"locations\": [\n",
              out);
        for (k = 0; k < nf; k++) {
            fputs("            {\"location\": ", out);
            location(out, &f[k], root, o->self_obj, true, false);
            fprintf(out, "}%s\n", k + 1 < nf ? "," : "");
        }
        fputs("          ]}]}],\n", out);
        fputs("          \"stacks\": [{\"message\": {\"text\": \"allocation "
              "stack\"}, \"frames\": [\n",
              out);
        for (k = 0; k < nf; k++) {
            fputs("            {\"location\": ", out);
            location(out, &f[k], root, o->self_obj, false, true);
            if (f[k].obj) {
                fputs(", \"module\": ", out);
                lp_json_string(out, f[k].obj);
            }
            fprintf(out, "}%s\n", k + 1 < nf ? "," : "");
        }
        fputs("          ]}],\n", out);
    }
    fprintf(out,
            "          \"partialFingerprints\": {\"leakStack/v1\": "
            "\"%016" PRIx64 "\"},\n"
            "          \"properties\": {\"bytes\": %" PRIu64
            ", \"directBytes\": %" PRIu64 ", \"indirectBytes\": %" PRIu64
            ", \"blocks\": %" PRIu64 ", \"lossRecord\": %zu"
            ", \"lossRecords\": %zu}\n        }",
            h, r->bytes + r->indirect_bytes, r->bytes, r->indirect_bytes,
            r->blocks, i + 1, n);
    free(f);
    return 0;
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
    char *root = NULL;
    size_t i;
    int k, rc = 0;
    bool first = true;

    if (srcroot && *srcroot) {
        root = realpath(srcroot, NULL);
        if (!root)
            root = strdup(srcroot);
        if (!root)
            return -ENOMEM;
        /* "/src/" and "/src" name the same root. */
        while (strlen(root) > 1 && root[strlen(root) - 1] == '/')
            root[strlen(root) - 1] = '\0';
    }
    lp_leaks_sort(set);

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

        if (o->leak_check == LP_CHECK_NO || r->supp >= 0 || r->blocks == 0 ||
            (unsigned)r->kind >= LP_KIND_COUNT ||
            !(o->error_kinds & LP_KIND_BIT(r->kind)))
            continue;
        rc = write_result(out, r, i, set->nrecs, frames_fn, ctx, o, root,
                          first);
        first = false;
    }
    free(root);
    if (rc < 0)
        return rc;
    fputs(first ? "      ]\n    }\n  ]\n}\n" : "\n      ]\n    }\n  ]\n}\n",
          out);
    if (fflush(out) != 0 || ferror(out))
        return errno ? -errno : -EIO;
    return 0;
}
