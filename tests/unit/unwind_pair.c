/* SPDX-License-Identifier: MIT */
/*
 * unwind_pair.c - the paired captures (walker and libunwind) and the
 * code they are taken in, shared by the unwinder's tests (unwind_pair.h).
 */
#include "tests/unit/lp_test.h"

#include <stdio.h>
#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "preload/hot/stack_walk.h"
#include "tests/unit/unwind_pair.h"

struct up_known up_ids[UP_KNOWN];
uint32_t up_nknown, up_known_hits;

__attribute__((noinline, section("lp_test_fp_own"))) void
up_capture_pair(struct up_pair *p)
{
    int max = p->max ? p->max : UP_MAXF;
    uint32_t *id = NULL;

    if (p->by_id)
        p->na = lp_unwind_capture(p->a, max, &id);
    else
        p->na = lp_unwind_backtrace(p->a, max);
    p->nb = unw_backtrace(p->b, max);
    __asm__ volatile("" ::: "memory");
    if (id && *id) {
        assert_true(*id <= up_nknown);
        assert_int_equal(p->na, up_ids[*id - 1].n);
        memcpy(p->a + 1, up_ids[*id - 1].f + 1,
               (p->na - 1) * sizeof(void *));
        up_known_hits++;
    } else if (id && up_nknown < UP_KNOWN) {
        up_ids[up_nknown].n = p->na;
        memcpy(up_ids[up_nknown].f, p->a, p->na * sizeof(void *));
        *id = ++up_nknown;
    }
}

void up_assert_same(const struct up_pair *p)
{
    int i;

    assert_int_equal(p->na, p->nb);
    assert_true(p->na >= 2);
    for (i = 1; i < p->na; i++)
        if (p->a[i] != p->b[i]) {
            print_error("frame %d: walker %p, libunwind %p\n", i, p->a[i],
                        p->b[i]);
            fail();
        }
}

__attribute__((noinline)) int up_through_o2_fp(struct up_pair *p, int d)
{
    volatile char pad[40];
    int r;

    pad[0] = (char)d;
    if (d == 0)
        up_capture_pair(p);
    r = d ? up_through_o2_nofp(p, d - 1) : 0;
    return r + pad[0];
}

__attribute__((noinline, optimize("omit-frame-pointer"))) int
up_through_o2_nofp(struct up_pair *p, int d)
{
    volatile char pad[88];
    int r;

    pad[3] = (char)d;
    if (d == 0)
        up_capture_pair(p);
    r = d ? up_through_o0(p, d - 1) : 0;
    return r + pad[3];
}

__attribute__((noinline, optimize("O0"))) int up_through_o0(struct up_pair *p,
                                                            int d)
{
    volatile char pad[24];
    int r;

    pad[1] = (char)d;
    if (d == 0)
        up_capture_pair(p);
    r = d ? up_through_o2_fp(p, d - 1) : 0;
    return r + pad[1];
}

struct up_pair up_cb_pair;
int up_cb_done;

int up_cmp_capture(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;

    if (!up_cb_done) {
        up_cb_done = 1;
        up_capture_pair(&up_cb_pair);
    }
    return (a > b) - (a < b);
}

int up_setup(void **state)
{
    (void)state;
    lp_unwind_set_self_range(1, 1);
    return 0;
}
