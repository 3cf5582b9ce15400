/* SPDX-License-Identifier: MIT */
#ifndef LP_TESTS_LEAKS_REPLAY_H
#define LP_TESTS_LEAKS_REPLAY_H
/*
 * leaks_replay.h - what test_leaks.c and test_leaks_live.c share: the
 * replay of a fixture program's allocations (each site captures its real
 * call stack, with ips[0] set to libc's malloc/calloc, the stand-in for
 * our hook, which the report prints in the "(in obj)" form) and the
 * comparison of the report writer's text with the Memcheck 3.19 output
 * saved in tests/fixtures/leaks, whose stack lines are rewritten to the
 * replay's addresses, files and lines: function names, numbering,
 * wording, commas, summaries, hints and ERROR SUMMARY come from Valgrind
 * verbatim.
 */
#include <stdbool.h>
#include <stdint.h>

#include "report/leaks.h"

#define LR_NOIPA __attribute__((noinline, noipa))
#define LR_MAXF 64

enum lr_hook { LR_HOOK_MALLOC, LR_HOOK_CALLOC };

struct lr_cap {
    uintptr_t ips[LR_MAXF];
    unsigned nips;
    int lines[LR_MAXF]; /* lines[k]: the source line frame k must print */
    const char *files[LR_MAXF]; /* and its file */
};

extern struct lr_cap lr_caps[32];
/* lr_site[d]: where the call made at depth d is (LR_SITE, on its line). */
extern int lr_site[4];
extern const char *lr_site_file[4];
#define LR_SITE(d) (lr_site[d] = __LINE__, lr_site_file[d] = __FILE_NAME__)

/* The symbolizer and the object of the hook addresses ("our library"),
 * from lr_setup. */
extern struct lp_sym *lr_sym;
extern const char *lr_self_obj;

/* Record the caller's stack (depth calls deep below the fixture's main)
 * as the preload would; returns its index in lr_caps. */
int lr_capture(enum lr_hook h, int depth);

/* A loss record of the stack captured as cap. */
struct lp_loss_record lr_rec(enum lp_kind kind, int cap, uint64_t bytes,
                             uint64_t blocks);
/* Memcheck's --leak-check=full defaults. */
struct lp_leak_opts lr_full_opts(void);

/* A fixture's text (malloc'd). */
char *lr_slurp(const char *name);
struct lr_text {
    char *s;
    size_t len, cap;
};
void lr_addf(struct lr_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int lr_fixture_pid(const char *text);
/* Name and object of a hook address, as our symbolizer gives them. */
struct lp_sym_frame lr_hook_frame(uintptr_t ip);

char *lr_print_to_string(struct lp_leak_set *set, const struct lp_leak_opts *o);
/* Print set with o and compare with the fixture (set must be sorted). */
void lr_check_against(const char *fixture, struct lp_leak_set *set,
                      const struct lp_leak_opts *o);

/* The group's setup (the hook addresses, the symbolizer) and teardown. */
int lr_setup(void **state);
int lr_teardown(void **state);

#endif /* LP_TESTS_LEAKS_REPLAY_H */
