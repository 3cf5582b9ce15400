/* SPDX-License-Identifier: MIT */
#ifndef LP_TESTS_UNWIND_PAIR_H
#define LP_TESTS_UNWIND_PAIR_H
/*
 * unwind_pair.h - what test_unwind.c and test_unwind_rules.c share: two
 * captures taken at one point, by the rule-cache walker and by
 * libunwind's unw_backtrace, and the recursions and the libc callback
 * they are taken in (frames of -O2 code with and without frame pointers,
 * -O0 code, qsort's and bsearch's through the PLT).
 */
#include <stdbool.h>
#include <stdint.h>

#define UP_MAXF 256

struct up_pair {
    void *a[UP_MAXF], *b[UP_MAXF];
    int na, nb;
    int max;
    bool by_id; /* through lp_unwind_capture, ids from up_ids[] */
};

/* lp_unwind_capture's ids, as stack.c would store them: here an index
 * into the frames each stood for when it was stored. */
#define UP_KNOWN 4096
struct up_known {
    void *f[UP_MAXF];
    int n;
};
extern struct up_known up_ids[UP_KNOWN];
extern uint32_t up_nknown, up_known_hits;

/* Both captures from one frame: a[0] and b[0] are two return addresses
 * into this function, everything above them must be equal. With by_id,
 * a walk that answers with an id stands for the frames of the walk that
 * stored it: those must be what libunwind finds now. It lies in section
 * lp_test_fp_own, with test_unwind.c's stand-ins for our own frames. */
void up_capture_pair(struct up_pair *p);
/* The walker's frames are libunwind's (cmocka failure otherwise). */
void up_assert_same(const struct up_pair *p);

/* Recursion through the three kinds of code, d calls deep, capturing at
 * the bottom. */
int up_through_o2_fp(struct up_pair *p, int d);
int up_through_o2_nofp(struct up_pair *p, int d);
int up_through_o0(struct up_pair *p, int d);

/* A qsort/bsearch comparison that captures up_cb_pair on its first call
 * after up_cb_done was cleared. */
extern struct up_pair up_cb_pair;
extern int up_cb_done;
int up_cmp_capture(const void *x, const void *y);

/* A group setup: the unit tests walk through test code without frame
 * pointers, in the same object as the walker, so no range of it is taken
 * for our own frames (only test_unwind's own-frames test names one). */
int up_setup(void **state);

#endif /* LP_TESTS_UNWIND_PAIR_H */
