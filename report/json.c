/* SPDX-License-Identifier: MIT */
/*
 * json.c - the leak report as JSON (log_format=json) and the JSON string
 * primitive shared with sarif.c.
 * Context: COLD.
 *
 * The document carries the same facts as the Memcheck text report, with
 * nothing rounded or commified, so a CI step can diff or gate on it with
 * jq. Every string that comes from the program (function names, paths)
 * goes through lp_json_string: symbol names are bytes, not promised
 * UTF-8, and a report that a JSON parser rejects is worse than one with a
 * replacement character in it.
 */
#include "report/json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_text[LP_KIND_COUNT] = {
    [LP_KIND_REACHABLE] = "still reachable",
    [LP_KIND_POSSIBLE] = "possibly lost",
    [LP_KIND_INDIRECT] = "indirectly lost",
    [LP_KIND_DEFINITE] = "definitely lost",
};

/* LEAK SUMMARY keys, in Memcheck's line order. */
static const char *const summary_key[LP_KIND_COUNT] = {
    [LP_KIND_REACHABLE] = "still_reachable",
    [LP_KIND_POSSIBLE] = "possibly_lost",
    [LP_KIND_INDIRECT] = "indirectly_lost",
    [LP_KIND_DEFINITE] = "definitely_lost",
};

static const char *const heur_name[LP_HEUR_COUNT] = {
    "none", "stdstring", "length64", "newarray", "multipleinheritance",
};

static const char *const check_name[] = { "no", "summary", "full" };

#define DEFAULT_DEPTH 30

const char *lp_json_kind_text(enum lp_kind kind)
{
    return (unsigned)kind < LP_KIND_COUNT ? kind_text[kind] : "unknown";
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid
 * (json.h: the XML writer escapes with it too). */
int lp_json_utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    unsigned char lo = 0x80, hi = 0xbf;
    int n, i;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    /* Second-byte limits exclude overlong forms, surrogates and > U+10FFFF. */
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

void lp_json_string(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;

    if (!s) {
        fputs("null", out);
        return;
    }
    putc('"', out);
    while (*s) {
        int n;

        switch (*s) {
        case '"':
            fputs("\\\"", out);
            s++;
            continue;
        case '\\':
            fputs("\\\\", out);
            s++;
            continue;
        case '\n':
            fputs("\\n", out);
            s++;
            continue;
        case '\r':
            fputs("\\r", out);
            s++;
            continue;
        case '\t':
            fputs("\\t", out);
            s++;
            continue;
        case '\b':
            fputs("\\b", out);
            s++;
            continue;
        case '\f':
            fputs("\\f", out);
            s++;
            continue;
        default:
            break;
        }
        if (*s < 0x20 || *s == 0x7f) {
            fprintf(out, "\\u%04x", *s);
            s++;
            continue;
        }
        n = lp_json_utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", out);
            s++;
            continue;
        }
        fwrite(s, 1, (size_t)n, out);
        s += n;
    }
    putc('"', out);
}

int lp_json_record_frames(struct lp_sym *sym, const struct lp_loss_record *r,
                          const struct lp_leak_opts *opts,
                          struct lp_sym_frame **frames)
{
    unsigned nips = r->nips;
    int depth = opts && opts->depth > 0 ? opts->depth : DEFAULT_DEPTH;
    size_t cap;
    int n;

    *frames = NULL;
    if (!r->ips || nips == 0)
        return 0;
    nips = lp_leaks_nips(sym, r->ips, nips, depth);
    cap = (size_t)nips * LP_SYM_MAX_INLINE;
    *frames = calloc(cap, sizeof(**frames));
    if (!*frames)
        return -ENOMEM;
    n = lp_leaks_frames(sym, r->ips, nips, *frames, (int)cap);
    return n < 0 ? 0 : n;
}

static void bytes_blocks(FILE *out, const char *key, uint64_t bytes,
                         uint64_t blocks, const char *after)
{
    fprintf(out, "\"%s\": {\"bytes\": %" PRIu64 ", \"blocks\": %" PRIu64
                 "}%s",
            key, bytes, blocks, after);
}

static void write_frame(FILE *out, const struct lp_sym_frame *f, bool last)
{
    fprintf(out, "        {\"address\": \"0x%" PRIxPTR "\", \"function\": ",
            f->addr);
    lp_json_string(out, f->fn);
    fputs(", \"mangled\": ", out);
    lp_json_string(out, f->mangled);
    fputs(", \"file\": ", out);
    lp_json_string(out, f->file);
    if (f->file && f->line > 0)
        fprintf(out, ", \"line\": %d", f->line);
    else
        fputs(", \"line\": null", out);
    fputs(", \"object\": ", out);
    lp_json_string(out, f->obj);
    fprintf(out, ", \"inlined\": %s}%s\n", f->inlined ? "true" : "false",
            last ? "" : ",");
}

static bool full_mode(const struct lp_leak_opts *o)
{
    return o->leak_check == LP_CHECK_FULL;
}

static int write_record(FILE *out, const struct lp_loss_record *r, size_t i,
                        size_t n, struct lp_sym *sym,
                        const struct lp_leak_opts *o,
                        const struct lp_supp *supp)
{
    struct lp_sym_frame *f = NULL;
    bool suppressed = r->supp >= 0;
    bool in_search = r->blocks > 0;
    int nf, k;

    nf = lp_json_record_frames(sym, r, o, &f);
    if (nf < 0)
        return nf;
    fprintf(out,
            "    {\"number\": %zu, \"of\": %zu, \"kind\": \"%s\", "
            "\"kind_id\": \"%s\",\n"
            "     \"bytes\": %" PRIu64 ", \"direct_bytes\": %" PRIu64
            ", \"indirect_bytes\": %" PRIu64 ", \"blocks\": %" PRIu64
            ", \"indirect_blocks\": %" PRIu64 ",\n",
            i + 1, n, lp_json_kind_text(r->kind), lp_supp_kind_word(r->kind),
            r->bytes + r->indirect_bytes, r->bytes, r->indirect_bytes,
            r->blocks, r->indirect_blocks);
    /* Ages in massif's byte time (bytes allocated+freed since start). */
    fprintf(out, "     \"oldest_block_time\": %" PRIu64
                 ", \"newest_block_time\": %" PRIu64 ",\n",
            r->first_time, r->last_time);
    fprintf(out, "     \"suppressed\": %s, \"suppression\": ",
            suppressed ? "true" : "false");
    if (!suppressed)
        fputs("null", out);
    else if (supp && lp_supp_name(supp, r->supp))
        lp_json_string(out, lp_supp_name(supp, r->supp));
    else
        fprintf(out, "%d", r->supp);
    fprintf(out, ", \"shown\": %s, \"error\": %s,\n     \"stack\": [%s",
            full_mode(o) && in_search && !suppressed &&
                    (o->show_kinds & LP_KIND_BIT(r->kind))
                ? "true"
                : "false",
            full_mode(o) && in_search && !suppressed &&
                    (o->error_kinds & LP_KIND_BIT(r->kind))
                ? "true"
                : "false",
            nf > 0 ? "\n" : "");
    for (k = 0; k < nf; k++)
        write_frame(out, &f[k], k == nf - 1);
    fprintf(out, "%s]}", nf > 0 ? "     " : "");
    free(f);
    return 0;
}

int lp_leaks_json_supp(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                       const struct lp_leak_opts *opts,
                       const struct lp_supp *supp)
{
    const struct lp_leak_opts *o = opts ? opts : &lp_leak_opts_default;
    uint64_t kb[LP_KIND_COUNT] = { 0 }, kn[LP_KIND_COUNT] = { 0 };
    uint64_t sb = 0, sn = 0;
    unsigned errors, serrors;
    size_t i;
    int k, rc = 0;

    lp_leaks_sort(set);
    for (i = 0; i < set->nrecs; i++) {
        const struct lp_loss_record *r = &set->recs[i];

        if ((unsigned)r->kind >= LP_KIND_COUNT)
            continue;
        if (r->supp >= 0) {
            sb += r->bytes;
            sn += r->blocks;
        } else {
            kb[r->kind] += r->bytes;
            kn[r->kind] += r->blocks;
        }
    }
    errors = lp_leaks_errors(set, o);
    serrors = lp_leaks_suppressed_errors(set, o);

    fprintf(out, "{\n  \"tool\": \"leakprof\",\n  \"format_version\": 1,\n"
                 "  \"pid\": %d,\n  \"leak_check\": \"%s\",\n",
            set->pid,
            (unsigned)o->leak_check <= LP_CHECK_FULL ? check_name[o->leak_check]
                                                     : "full");
    if (o->sample_bytes)
        fprintf(out, "  \"sample_bytes\": %" PRIu64 ", \"estimates\": true,\n",
                o->sample_bytes);
    if (o->live && o->live_since)
        fprintf(out, "  \"allocated_after_time\": %" PRIu64 ",\n",
                o->live_since_time);
    fprintf(out,
            "  \"heap_summary\": {\"in_use_bytes\": %" PRIu64
            ", \"in_use_blocks\": %" PRIu64 ", \"allocs\": %" PRIu64
            ", \"frees\": %" PRIu64 ", \"bytes_allocated\": %" PRIu64 "},\n",
            set->in_use_bytes, set->in_use_blocks, set->allocs, set->frees,
            set->bytes_allocated);
    fputs("  \"leak_summary\": {\n", out);
    for (k = LP_KIND_COUNT - 1; k >= 0; k--) {
        fputs("    ", out);
        bytes_blocks(out, summary_key[k], kb[k], kn[k], ",\n");
    }
    fputs("    ", out);
    bytes_blocks(out, "suppressed", sb, sn, ",\n");
    fputs("    \"reachable_via_heuristic\": {", out);
    for (k = 1; k < LP_HEUR_COUNT; k++)
        bytes_blocks(out, heur_name[k], set->heur_bytes[k],
                     set->heur_blocks[k], k + 1 < LP_HEUR_COUNT ? ", " : "");
    fputs("}\n  },\n", out);

    fprintf(out, "  \"loss_records\": [%s", set->nrecs ? "\n" : "");
    for (i = 0; i < set->nrecs && rc == 0; i++) {
        rc = write_record(out, &set->recs[i], i, set->nrecs, sym, o, supp);
        fputs(i + 1 < set->nrecs ? ",\n" : "\n  ", out);
    }
    if (rc < 0)
        return rc;
    fprintf(out,
            "],\n  \"errors\": %u,\n  \"error_contexts\": %u,\n"
            "  \"suppressed_errors\": %u,\n  \"suppressed_contexts\": %u\n}\n",
            errors + set->other_errors, errors + set->other_contexts,
            serrors + set->other_supp_errors, serrors + set->other_supp_contexts);
    if (fflush(out) != 0 || ferror(out))
        return errno ? -errno : -EIO;
    return 0;
}

int lp_leaks_json(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                  const struct lp_leak_opts *opts)
{
    return lp_leaks_json_supp(out, set, sym, opts, NULL);
}
