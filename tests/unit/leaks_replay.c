/* SPDX-License-Identifier: MIT */
/*
 * leaks_replay.c - the fixture replay and the Memcheck comparison that
 * the leak report's tests share (leaks_replay.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/leaks_replay.h"

struct lr_cap lr_caps[32];
static int lr_ncaps;
int lr_site[4];
const char *lr_site_file[4];
static uintptr_t lr_hook_addr[2];
struct lp_sym *lr_sym;
const char *lr_self_obj;

/* libc's malloc or calloc: the stand-in for our hook (looked up at the
 * first capture, which comes before the group's setup). */
static uintptr_t hook_of(enum lr_hook h)
{
    if (lr_hook_addr[h] == 0)
        lr_hook_addr[h] = (uintptr_t)dlsym(RTLD_DEFAULT,
                                           h == LR_HOOK_MALLOC ? "malloc" : "calloc");
    return lr_hook_addr[h];
}

LR_NOIPA int lr_capture(enum lr_hook h, int depth)
{
    struct lr_cap *c = &lr_caps[lr_ncaps];
    void *buf[LR_MAXF];
    int n = unw_backtrace(buf, LR_MAXF), i;

    c->ips[0] = hook_of(h);
    for (i = 1; i < n; i++)
        c->ips[i] = (uintptr_t)buf[i];
    c->nips = (unsigned)(n > 0 ? n : 1);
    for (i = 1; i <= depth + 1; i++) {
        c->lines[i] = lr_site[depth + 1 - i];
        c->files[i] = lr_site_file[depth + 1 - i];
    }
    __asm__ volatile("" ::: "memory");
    return lr_ncaps++;
}

static struct lr_cap *cap_of(const struct lp_loss_record *r)
{
    return &lr_caps[r->stack_id];
}

struct lp_loss_record lr_rec(enum lp_kind kind, int cap, uint64_t bytes,
                             uint64_t blocks)
{
    struct lp_loss_record r = {
        .kind = kind, .stack_id = (uint32_t)cap, .ips = lr_caps[cap].ips,
        .nips = lr_caps[cap].nips, .bytes = bytes, .blocks = blocks, .supp = -1,
    };
    return r;
}


struct lp_leak_opts lr_full_opts(void)
{
    struct lp_leak_opts o = {
        .leak_check = LP_CHECK_FULL, .show_kinds = LP_KINDS_DEFAULT,
        .error_kinds = LP_KINDS_DEFAULT, .self_obj = lr_self_obj, .depth = 30,
    };
    return o;
}

/* ---- fixtures --------------------------------------------------------- */

char *lr_slurp(const char *name)
{
    const char *top = getenv("LP_TOP");
    char path[4096];
    FILE *f;
    char *buf;
    long n;

    snprintf(path, sizeof(path), "%s/tests/fixtures/leaks/%s", top != NULL ? top : ".", name);
    f = fopen(path, "r");
    if (f == NULL)
        fail_msg("cannot open '%s'", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

void lr_addf(struct lr_text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if ((size_t)n < t->cap - t->len)
            break;
        t->cap = (t->cap + (size_t)n) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    t->len += (size_t)n;
}

int lr_fixture_pid(const char *text)
{
    const char *p = strstr(text, "==");

    assert_non_null(p);
    return atoi(p + 2);
}

struct lp_sym_frame lr_hook_frame(uintptr_t ip)
{
    struct lp_sym_frame f[LP_SYM_MAX_INLINE];
    int n = lp_sym_resolve(lr_sym, ip, false, f, LP_SYM_MAX_INLINE);

    return f[n - 1];
}

/*
 * Memcheck's text with its stack lines moved onto our binary: the k-th
 * frame line of record i becomes "0x<ip-1>: <same fn> (<file>:<line>)"
 * and the allocator frame "<hook> (in <libc>)". The preamble, `sending
 * command` and other non-message lines are dropped. set must be sorted.
 */
static char *expected(const char *name, const struct lp_leak_set *set, bool live)
{
    char *src = lr_slurp(name), *save = NULL, *ln;
    struct lr_text t = { 0 };
    const struct lp_loss_record *r = NULL;
    bool started = live;
    int k = 0, gen_k = 0;

    t.cap = 4096;
    t.s = malloc(t.cap);
    t.s[0] = '\0';
    for (ln = strtok_r(src, "\n", &save); ln != NULL; ln = strtok_r(NULL, "\n", &save)) {
        char *msg = ln[0] == '=' ? strstr(ln + 2, "== ") : NULL;
        unsigned long idx, n;
        char fn[512];

        if (msg != NULL)
            msg += 3;
        if (!started) {
            if (msg != NULL && strcmp(msg, "HEAP SUMMARY:") == 0) {
                started = true;
                lr_addf(&t, "==%d== \n", set->pid);
            } else {
                continue;
            }
        }
        if (msg == NULL) {
            /* gen-suppressions blocks; the first fun: is the allocator. */
            if (ln[0] == '{') {
                gen_k = 0;
                lr_addf(&t, "%s\n", ln);
            } else if (strncmp(ln, "   fun:", 7) == 0 && gen_k++ == 0) {
                lr_addf(&t, "   fun:%s\n", lr_hook_frame(r->ips[0]).mangled);
            } else if (ln[0] == '}' || strncmp(ln, "   ", 3) == 0) {
                lr_addf(&t, "%s\n", ln);
            }
            continue;
        }
        if (strstr(msg, " in loss record ") != NULL) {
            /* Record numbers here stay below 1,000 (no commas to parse). */
            assert_int_equal(sscanf(strstr(msg, " in loss record "), " in loss record %lu of %lu",
                                    &idx, &n), 2);
            assert_int_equal(n, set->nrecs);
            assert_true(idx >= 1 && idx <= set->nrecs);
            r = &set->recs[idx - 1];
            k = 0;
            lr_addf(&t, "==%d== %s\n", set->pid, msg);
            continue;
        }
        if (strncmp(msg, "   at 0x", 8) == 0 || strncmp(msg, "   by 0x", 8) == 0) {
            assert_non_null(r);
            if (k == 0) {
                struct lp_sym_frame hf = lr_hook_frame(r->ips[0]);

                lr_addf(&t, "==%d==    at 0x%lX: %s (in %s)\n", set->pid,
                     (unsigned long)r->ips[0], hf.fn, lr_self_obj);
            } else {
                assert_int_equal(sscanf(strchr(msg, ':') + 2, "%511[^ ]", fn), 1);
                assert_true((unsigned)k < r->nips);
                lr_addf(&t, "==%d==    by 0x%lX: %s (%s:%d)\n", set->pid,
                     (unsigned long)(r->ips[k] - 1), fn, cap_of(r)->files[k],
                     cap_of(r)->lines[k]);
            }
            k++;
            continue;
        }
        /* Memcheck's monitor-command hints name vgdb's leak_check
         * arguments; leakprof's live report gives its own options, the
         * exit-time wording (see leaks.h). */
        if (live && strcmp(msg, "To see details of leaked memory, give 'full' arg to leak_check") == 0)
            msg = "Rerun with --leak-check=full to see details of leaked memory";
        else if (live && strcmp(msg, "To see them, add 'reachable any' args to leak_check") == 0)
            msg = "To see them, rerun with: --leak-check=full --show-leak-kinds=all";
        lr_addf(&t, "==%d== %s\n", set->pid, msg);
    }
    free(src);
    return t.s;
}

char *lr_print_to_string(struct lp_leak_set *set, const struct lp_leak_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    assert_int_equal(lp_leaks_print(f, set, lr_sym, o), 0);
    fclose(f);
    return buf;
}

void lr_check_against(const char *fixture, struct lp_leak_set *set,
                          const struct lp_leak_opts *o)
{
    char *got = lr_print_to_string(set, o);
    char *want = expected(fixture, set, o->live);

    if (getenv("LP_TEST_VERBOSE") != NULL)
        fprintf(stderr, "--- %s:\n%s", fixture, got);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "--- %s expected:\n%s--- got:\n%s", fixture, want, got);
    assert_string_equal(got, want);
    free(got);
    free(want);
}

int lr_setup(void **state)
{
    (void)state;
    lr_sym = lp_sym_new();
    if (lr_sym == NULL)
        return -1;
    lr_self_obj = lr_hook_frame(hook_of(LR_HOOK_MALLOC)).obj;
    return lr_self_obj != NULL ? 0 : -1;
}

int lr_teardown(void **state)
{
    (void)state;
    lp_sym_free(lr_sym);
    return 0;
}
