/* SPDX-License-Identifier: MIT */
/*
 * xml.c - the leak report as Memcheck's XML (xml=yes).
 * Context: COLD.
 *
 * Written from Valgrind's XML protocol description (version 4) and from
 * what Memcheck 3.19 writes, which tests/e2e/xml.sh compares against: the
 * same elements, in the same order, with the same indentation, so a
 * reader that was tuned on Memcheck's files (Jenkins' plugin matches on
 * <kind> and walks <stack>) reads ours. Unknown parts of a frame are left
 * out, as Memcheck leaves them out. Everything that comes from the
 * program is escaped: C++ names are full of '<' and '>'.
 */
#include "report/xml.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"

#ifndef LP_VERSION
#define LP_VERSION "unknown"
#endif

static const char *const kind_name[LP_KIND_COUNT] = {
    [LP_KIND_REACHABLE] = "Leak_StillReachable",
    [LP_KIND_POSSIBLE] = "Leak_PossiblyLost",
    [LP_KIND_INDIRECT] = "Leak_IndirectlyLost",
    [LP_KIND_DEFINITE] = "Leak_DefinitelyLost",
};

void lp_xml_text(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;

    if (!s)
        return;
    while (*s) {
        int n;

        switch (*s) {
        case '&':
            fputs("&amp;", out);
            s++;
            continue;
        case '<':
            fputs("&lt;", out);
            s++;
            continue;
        case '>':
            fputs("&gt;", out);
            s++;
            continue;
        case '\t':
        case '\n':
            putc(*s++, out);
            continue;
        default:
            break;
        }
        if (*s < 0x20 || *s == 0x7f) {
            putc('?', out);
            s++;
            continue;
        }
        n = lp_json_utf8_len(s);
        if (n == 0) {
            putc('?', out);
            s++;
            continue;
        }
        fwrite(s, 1, (size_t)n, out);
        s += n;
    }
}

/* <tag>text</tag> on a line of its own, indent spaces in. */
static void element(FILE *out, int indent, const char *tag, const char *text)
{
    fprintf(out, "%*s<%s>", indent, "", tag);
    lp_xml_text(out, text);
    fprintf(out, "</%s>\n", tag);
}

char *lp_xml_time(char *buf, size_t n, uint64_t ms)
{
    uint64_t s = ms / 1000;

    snprintf(buf, n, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64
                     ".%03" PRIu64 " ",
             s / 86400, s / 3600 % 24, s / 60 % 60, s % 60, ms % 1000);
    return buf;
}

static void status(FILE *out, const char *state, uint64_t ms)
{
    char t[64];

    fprintf(out, "<status>\n  <state>%s</state>\n  <time>%s</time>\n"
                 "</status>\n\n",
            state, lp_xml_time(t, sizeof(t), ms));
}

void lp_xml_begin(FILE *out, const struct lp_xml_head *h)
{
    char cmd[8192];
    const char *a, *end;
    int i;

    fputs("<?xml version=\"1.0\"?>\n\n<valgrindoutput>\n\n"
          "<protocolversion>4</protocolversion>\n"
          "<protocoltool>memcheck</protocoltool>\n\n<preamble>\n", out);
    element(out, 2, "line",
            "leakprof-" LP_VERSION ", a memory leak checker and heap profiler");
    if (h->command && h->command_len) {
        lp_leaks_command(h->command, h->command_len, cmd, sizeof(cmd));
        fputs("  <line>Command: ", out);
        lp_xml_text(out, cmd);
        fputs("</line>\n", out);
    }
    fprintf(out, "</preamble>\n\n<pid>%d</pid>\n<ppid>%d</ppid>\n"
                 "<tool>memcheck</tool>\n",
            h->pid, h->ppid);
    /* As Valgrind's --xml-user-comment: the text as given, unescaped
     * (it may hold markup of its own), an empty one too. */
    if (h->user_comment)
        fprintf(out, "<usercomment>%s</usercomment>\n", h->user_comment);
    fputs("\n<args>\n  <vargv>\n", out);
    element(out, 4, "exe", h->vargv_exe ? h->vargv_exe : "leakprof");
    for (i = 0; i < h->nvargv; i++)
        element(out, 4, "arg", h->vargv[i]);
    fputs("  </vargv>\n  <argv>\n", out);
    a = h->command;
    end = a ? a + h->command_len : NULL;
    for (i = 0; a && a < end; i++) {
        element(out, 4, i == 0 ? "exe" : "arg", a);
        a += strlen(a) + 1;
    }
    fputs("  </argv>\n</args>\n\n", out);
    status(out, "RUNNING", h->start_ms);
    fputc('\n', out);
}

void lp_xml_finished(FILE *out, uint64_t ms)
{
    status(out, "FINISHED", ms);
}

/* A frame's directory, as Memcheck's (lp_sym_frame_dir). */
static void frame_dir(FILE *out, const struct lp_sym_frame *f)
{
    char small[1024], *dir = small;
    int len = lp_sym_frame_dir(f, small, sizeof(small));

    if (len <= 0)
        return;
    if (len >= (int)sizeof(small)) {
        dir = malloc((size_t)len + 1);
        if (dir == NULL)
            return;
        lp_sym_frame_dir(f, dir, (size_t)len + 1);
    }
    fputs("      <dir>", out);
    lp_xml_text(out, dir);
    fputs("</dir>\n", out);
    if (dir != small)
        free(dir);
}

/* A frame of our own library (the allocator's hook) is written as
 * Memcheck writes its replacement's: object and function only. */
static void write_frame(FILE *out, const struct lp_sym_frame *f,
                        const char *self_obj)
{
    bool ours = self_obj && f->obj && !strcmp(f->obj, self_obj);

    fprintf(out, "    <frame>\n      <ip>0x%" PRIXPTR "</ip>\n", f->addr);
    if (f->obj)
        element(out, 6, "obj", f->obj);
    if (f->fn)
        element(out, 6, "fn", f->fn);
    if (f->file && !ours) {
        frame_dir(out, f);
        element(out, 6, "file", f->file);
        if (f->line > 0)
            fprintf(out, "      <line>%d</line>\n", f->line);
    }
    fputs("    </frame>\n", out);
}

void lp_xml_stack(FILE *out, const struct lp_sym_frame *f, int n,
                  const char *self_obj)
{
    int k;

    fputs("  <stack>\n", out);
    if (n <= 0)
        fputs("    <frame>\n      <ip>0x0</ip>\n    </frame>\n", out);
    for (k = 0; k < n; k++)
        write_frame(out, &f[k], self_obj);
    fputs("  </stack>\n", out);
}

void lp_xml_suppression(FILE *out, const char *raw)
{
    const char *p = raw, *nl;
    int lineno = 0;

    fputs("  <suppression>\n", out);
    for (; *p; p = nl + 1, lineno++) {
        char line[4096];
        size_t len;
        const char *s;

        nl = strchr(p, '\n');
        if (!nl)
            nl = p + strlen(p) - 1;
        len = (size_t)(nl - p) < sizeof(line) - 1 ? (size_t)(nl - p)
                                                  : sizeof(line) - 1;
        memcpy(line, p, len);
        line[len] = 0;
        s = line + strspn(line, " ");
        if (lineno == 0 || !strcmp(s, "}") || !*s)
            continue;
        if (lineno == 1) {
            size_t n = strlen(s);

            if (s[0] == '<' && n > 1 && s[n - 1] == '>') {
                line[len - 1] = 0;
                s++;
            }
            element(out, 4, "sname", s);
        } else if (lineno == 2) {
            element(out, 4, "skind", s);
        } else if (!strncmp(s, "fun:", 4) || !strncmp(s, "obj:", 4)) {
            fprintf(out, "    <sframe> <%.3s>", s);
            lp_xml_text(out, s + 4);
            fprintf(out, "</%.3s> </sframe>\n", s);
        } else if (!strcmp(s, "...")) {
            fputs("    <sframe> <fun>...</fun> </sframe>\n", out);
        } else {
            element(out, 4, "skaux", s);
        }
        if (!*nl)
            break;
    }
    fprintf(out, "    <rawtext>\n<![CDATA[\n%s]]>\n    </rawtext>\n"
                 "  </suppression>\n",
            raw);
}

void lp_xml_error_end(FILE *out, const char *raw)
{
    if (raw)
        lp_xml_suppression(out, raw);
    fputs("</error>\n\n", out);
    /* Memcheck writes the suppression a second time, after the error. */
    if (raw) {
        lp_xml_suppression(out, raw);
        fputc('\n', out);
    }
}

static int write_error(FILE *out, const struct lp_loss_record *r, size_t i,
                       size_t n, struct lp_sym *sym,
                       const struct lp_leak_opts *o)
{
    char tot[32], dir[32], ind[32], blk[32], ii[32], nn[32], text[256];
    struct lp_sym_frame *f = NULL;
    char *raw = NULL;
    size_t rawlen = 0;
    int nf;

    nf = lp_json_record_frames(sym, r, o, &f);
    if (nf < 0)
        return nf;
    lp_commify(r->bytes + r->indirect_bytes, tot, sizeof(tot));
    lp_commify(r->blocks, blk, sizeof(blk));
    lp_commify(i + 1, ii, sizeof(ii));
    lp_commify(n, nn, sizeof(nn));
    if (r->indirect_bytes > 0)
        snprintf(text, sizeof(text),
                 "%s (%s direct, %s indirect) bytes in %s blocks are %s in "
                 "loss record %s of %s",
                 tot, lp_commify(r->bytes, dir, sizeof(dir)),
                 lp_commify(r->indirect_bytes, ind, sizeof(ind)), blk,
                 lp_json_kind_text(r->kind), ii, nn);
    else
        snprintf(text, sizeof(text),
                 "%s bytes in %s blocks are %s in loss record %s of %s", tot,
                 blk, lp_json_kind_text(r->kind), ii, nn);
    fprintf(out, "<error>\n  <unique>0x%zx</unique>\n  <tid>1</tid>\n"
                 "  <kind>%s</kind>\n  <xwhat>\n    <text>%s</text>\n"
                 "    <leakedbytes>%" PRIu64 "</leakedbytes>\n"
                 "    <leakedblocks>%" PRIu64 "</leakedblocks>\n"
                 "  </xwhat>\n",
            i, kind_name[r->kind], text, r->bytes + r->indirect_bytes,
            r->blocks);
    lp_xml_stack(out, f, nf, o->self_obj);
    if (o->gen_suppressions) {
        FILE *mem = open_memstream(&raw, &rawlen);

        if (mem) {
            lp_supp_gen(mem, r->kind, f, nf);
            fclose(mem);
        }
    }
    lp_xml_error_end(out, raw);
    free(raw);
    free(f);
    return 0;
}

int lp_leaks_xml(FILE *out, struct lp_leak_set *set, struct lp_sym *sym,
                 const struct lp_leak_opts *opts)
{
    const struct lp_leak_opts *o = opts ? opts : &lp_leak_opts_default;
    size_t i;
    int rc = 0;

    lp_leaks_sort(set);
    if (o->leak_check != LP_CHECK_FULL)
        return 0;
    for (i = 0; i < set->nrecs && rc == 0; i++) {
        const struct lp_loss_record *r = &set->recs[i];

        if ((unsigned)r->kind >= LP_KIND_COUNT || r->blocks == 0 ||
            r->supp >= 0 || !(o->show_kinds & LP_KIND_BIT(r->kind)))
            continue;
        rc = write_error(out, r, i, set->nrecs, sym, o);
    }
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = errno ? -errno : -EIO;
    return rc;
}

void lp_xml_end(FILE *out, const unsigned *count, unsigned nuniques,
                const struct lp_supp *const *supps, int nsupps)
{
    int s, i, idx;
    unsigned u;

    fputs("<errorcounts>\n", out);
    for (u = nuniques; u-- > 0;)
        fprintf(out, "  <pair>\n    <count>%u</count>\n"
                     "    <unique>0x%x</unique>\n  </pair>\n",
                count[u], u);
    fputs("</errorcounts>\n\n<suppcounts>\n", out);
    for (s = 0; s < nsupps; s++)
        for (i = 0; (idx = lp_supp_used_at(supps[s], i)) >= 0; i++) {
            uint64_t records, bytes, blocks;

            lp_supp_get_use(supps[s], idx, &records, &bytes, &blocks);
            if (records == 0 || lp_supp_is_lsan(supps[s], idx))
                continue;
            fprintf(out, "  <pair>\n    <count>%" PRIu64 "</count>\n",
                    records);
            element(out, 4, "name", lp_supp_name(supps[s], idx));
            fputs("  </pair>\n", out);
        }
    fputs("</suppcounts>\n\n</valgrindoutput>\n\n", out);
}
