/* SPDX-License-Identifier: MIT */
/*
 * test_unwind.c - the rule-cache walker gives exactly what libunwind's
 * unw_backtrace gives at the same point: through -O2 code without frame
 * pointers, -O0 code, libc callbacks (qsort, bsearch) reached through
 * the PLT, deep recursion, threads, signal handlers, a sigaltstack.
 * Where the walker must not need libunwind, the test also checks that it
 * did not fall back to it (else equality would prove nothing).
 * The paired captures and the recursions are unwind_pair.c's; the rules
 * themselves (CFI, rules files, dlclose) are tested in test_unwind_rules.c.
 */
#include "tests/unit/lp_test.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/hot/cfi.h"
#include "preload/hot/stack_walk.h"
#include "tests/unit/unwind_pair.h"

/* --- recursion through three kinds of code ----------------------------- */

static void test_unwind_mixed_recursion_matches_libunwind(void **state)
{
    static struct up_pair p;
    int depth;

    (void)state;
    for (depth = 0; depth <= 45; depth += 3) {
        uint64_t fb = lp_unwind_fallback_count();

        memset(&p, 0, sizeof(p));
        up_through_o2_nofp(&p, depth);
        up_assert_same(&p);
        assert_int_equal(lp_unwind_fallback_count(), fb);
    }
    /* Deeper than 30 frames, and all the way to _start. */
    assert_true(p.na > 45);
}

/* The walker remembers its previous walk per thread (frames at the same
 * stack position with the same return address reuse their rule): walks
 * that share some frames and not others must still be exact. */
static void test_unwind_alternating_paths_match_libunwind(void **state)
{
    static struct up_pair p;
    int i;

    (void)state;
    for (i = 0; i < 60; i++) {
        memset(&p, 0, sizeof(p));
        if (i % 3 == 0)
            up_through_o0(&p, i % 7);
        else if (i % 3 == 1)
            up_through_o2_nofp(&p, i % 5);
        else
            up_through_o2_fp(&p, i % 11);
        up_assert_same(&p);
    }
}

/* The walker replays its memo of the previous walk from the first frame
 * in the same state: a deep shared tail under a head that changes every
 * time, and tails that differ only in a caller at the same stack depth
 * (same sp, same return address below it) must still be exact. */
static __attribute__((noinline)) int tail_a(struct up_pair *p, int d, int h);
static __attribute__((noinline)) int tail_b(struct up_pair *p, int d, int h);

static __attribute__((noinline)) int tail_a(struct up_pair *p, int d, int h)
{
    volatile char pad[40];

    pad[0] = (char)d;
    if (d == 0) {
        if (h % 3 == 0)
            up_through_o0(p, h % 5);
        else if (h % 3 == 1)
            up_through_o2_nofp(p, h % 4);
        else
            up_through_o2_fp(p, h % 6);
        return pad[0];
    }
    return ((d + h) % 7 == 0 ? tail_b(p, d - 1, h) : tail_a(p, d - 1, h)) +
           pad[0];
}

static __attribute__((noinline)) int tail_b(struct up_pair *p, int d, int h)
{
    volatile char pad[40]; /* tail_a's frame size: same sp below */

    pad[1] = (char)d;
    if (d == 0) {
        up_through_o2_fp(p, h % 3);
        return pad[1];
    }
    return tail_a(p, d - 1, h) + pad[1];
}

static void test_unwind_changing_head_over_shared_tail(void **state)
{
    static struct up_pair p;
    int i;
    uint64_t fb = lp_unwind_fallback_count();

    (void)state;
    for (i = 0; i < 200; i++) {
        memset(&p, 0, sizeof(p));
        p.max = i % 4 == 0 ? 20 + i % 30 : 0;
        tail_a(&p, 30 + (i / 50), i);
        up_assert_same(&p);
    }
    assert_int_equal(lp_unwind_fallback_count(), fb);
}

/* A walk from a call site and depth it was made from before can answer
 * with the id of that walk's stack (stack.c then neither walks on nor
 * interns): same heads and tails as above, the same site at the same
 * depth under different callers, limits that change, and every id must
 * stand for exactly the frames libunwind finds. */
static void test_unwind_capture_ids_stand_for_the_same_frames(void **state)
{
    static struct up_pair p;
    int i;
    uint64_t fb = lp_unwind_fallback_count();

    (void)state;
    up_nknown = up_known_hits = 0;
    for (i = 0; i < 600; i++) {
        memset(&p, 0, sizeof(p));
        p.by_id = true;
        p.max = i % 5 == 0 ? 20 + i % 30 : 0;
        if (i % 4 == 3)
            up_through_o2_nofp(&p, i % 9);
        else
            tail_a(&p, 30 + (i / 200), i % 17);
        up_assert_same(&p);
    }
    assert_int_equal(lp_unwind_fallback_count(), fb);
    /* Else equality proved nothing about the ids. */
    assert_true(up_known_hits > 100);
    assert_true(up_nknown > 20);
}

/* Deeper than the walker's memo of a walk: two callers that differ only
 * beyond its last entry (same frame size, so the same stack depth below
 * them) must still get their own stacks, never each other's id. */
static __attribute__((noinline)) int deep(struct up_pair *p, int d)
{
    volatile char pad[24];

    pad[0] = (char)d;
    if (d == 0)
        up_capture_pair(p);
    else
        deep(p, d - 1);
    return pad[0];
}

static __attribute__((noinline)) int outer_x(struct up_pair *p)
{
    volatile char pad[40];

    pad[0] = 1;
    return deep(p, 60) + pad[0];
}

static __attribute__((noinline)) int outer_y(struct up_pair *p)
{
    volatile char pad[40];

    pad[0] = 2;
    return deep(p, 60) + pad[0];
}

static void test_unwind_capture_ids_past_the_memo(void **state)
{
    static struct up_pair p;
    int i;

    (void)state;
    up_nknown = up_known_hits = 0;
    for (i = 0; i < 40; i++) {
        memset(&p, 0, sizeof(p));
        p.by_id = true;
        if (i % 2)
            outer_y(&p);
        else
            outer_x(&p);
        assert_true(p.nb > 60);
        up_assert_same(&p);
    }
}

/* The same call site and depth reached through different inner frames
 * (a call through a pointer to malloc or to calloc: the hooks differ,
 * the program's frames do not) must not share an id either. Here the
 * walk's frame 1 is inner(), frame 2 via_a() or via_b() (frames of other
 * sizes, so nothing below the site is in the same state), frame 3 the
 * site. */
static __attribute__((noinline)) void inner(struct up_pair *p)
{
    up_capture_pair(p);
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void via_a(struct up_pair *p)
{
    inner(p);
    __asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void via_b(struct up_pair *p)
{
    volatile char pad[72];

    pad[0] = 1;
    inner(p);
    __asm__ volatile("" ::: "memory");
    (void)pad[0];
}

static void (*volatile via)(struct up_pair *);

static __attribute__((noinline)) void one_site(struct up_pair *p)
{
    via(p);
    __asm__ volatile("" ::: "memory");
}

static void test_unwind_capture_ids_of_other_inner_frames(void **state)
{
    static struct up_pair p;
    int i;

    (void)state;
    up_nknown = up_known_hits = 0;
    for (i = 0; i < 40; i++) {
        memset(&p, 0, sizeof(p));
        p.by_id = true;
        via = i % 2 ? via_b : via_a;
        one_site(&p);
        up_assert_same(&p);
    }
    assert_true(up_known_hits > 10);
}

static void test_unwind_truncates_at_max_as_libunwind(void **state)
{
    static struct up_pair p;
    int max;

    (void)state;
    for (max = 2; max < 40; max += 5) {
        memset(&p, 0, sizeof(p));
        p.max = max;
        up_through_o0(&p, 50);
        assert_int_equal(p.na, max);
        up_assert_same(&p);
    }
}

/* --- callbacks from libc ------------------------------------------------ */

static void test_unwind_qsort_callback_matches_libunwind(void **state)
{
    int v[200], i;
    uint64_t fb = lp_unwind_fallback_count();

    (void)state;
    for (i = 0; i < 200; i++)
        v[i] = (i * 7919) % 200;
    up_cb_done = 0;
    qsort(v, 200, sizeof(v[0]), up_cmp_capture);
    up_assert_same(&up_cb_pair);
    assert_int_equal(lp_unwind_fallback_count(), fb);
}

static void test_unwind_bsearch_callback_matches_libunwind(void **state)
{
    /* Through a pointer: glibc's inline bsearch would not be libc's. */
    void *(*bs)(const void *, const void *, size_t, size_t,
                int (*)(const void *, const void *)) = bsearch;
    int v[64], key = 40, i;
    uint64_t fb = lp_unwind_fallback_count();

    (void)state;
    for (i = 0; i < 64; i++)
        v[i] = i;
    up_cb_done = 0;
    assert_non_null(bs(&key, v, 64, sizeof(v[0]), up_cmp_capture));
    up_assert_same(&up_cb_pair);
    assert_int_equal(lp_unwind_fallback_count(), fb);
}

/* --- signal frames ------------------------------------------------------ */

static struct up_pair sig_pair;

static void on_signal(int sig)
{
    (void)sig;
    up_through_o2_fp(&sig_pair, 4);
}

static void test_unwind_signal_frame_matches_libunwind(void **state)
{
    struct sigaction sa, old;

    (void)state;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGUSR2, &sa, &old);
    memset(&sig_pair, 0, sizeof(sig_pair));
    up_through_o0(&sig_pair, 1); /* warm the cache with the same frames */
    raise(SIGUSR2);
    sigaction(SIGUSR2, &old, NULL);
    up_assert_same(&sig_pair);
}

static void test_unwind_sigaltstack_matches_libunwind(void **state)
{
    static char alt[256 * 1024];
    struct sigaction sa, old;
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof(alt)}, oss;

    (void)state;
    sigaltstack(&ss, &oss);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR2, &sa, &old);
    memset(&sig_pair, 0, sizeof(sig_pair));
    raise(SIGUSR2);
    sigaction(SIGUSR2, &old, NULL);
    sigaltstack(&oss, NULL);
    up_assert_same(&sig_pair);
}

/* --- threads ------------------------------------------------------------ */

struct thread_case {
    bool register_stack;
    struct up_pair p;
    uint64_t fallbacks;
};

static void *thread_body(void *arg)
{
    struct thread_case *c = arg;

    if (c->register_stack) {
        pthread_attr_t a;
        void *addr;
        size_t size;

        pthread_getattr_np(pthread_self(), &a);
        pthread_attr_getstack(&a, &addr, &size);
        pthread_attr_destroy(&a);
        lp_unwind_set_thread_stack((uintptr_t)addr, (uintptr_t)addr + size, NULL);
    } else {
        /* (Linked in here, thread_registry.c's pthread_create told us already.) */
        lp_unwind_set_thread_stack(0, 0, NULL);
    }
    c->fallbacks = lp_unwind_fallback_count();
    up_through_o2_nofp(&c->p, 33);
    c->fallbacks = lp_unwind_fallback_count() - c->fallbacks;
    return NULL;
}

static void test_unwind_thread_stack_matches_libunwind(void **state)
{
    static struct thread_case known = {.register_stack = true}, unknown;
    pthread_t t;

    (void)state;
    pthread_create(&t, NULL, thread_body, &known);
    pthread_join(t, NULL);
    up_assert_same(&known.p);
    assert_int_equal(known.fallbacks, 0);
    /* A thread whose stack nobody told us: libunwind walks it. */
    pthread_create(&t, NULL, thread_body, &unknown);
    pthread_join(t, NULL);
    up_assert_same(&unknown.p);
    assert_int_equal(unknown.fallbacks, 1);
}

static void test_unwind_many_threads_share_the_cache(void **state)
{
    static struct thread_case c[4];
    pthread_t t[4];
    int i;

    (void)state;
    for (i = 0; i < 4; i++) {
        c[i].register_stack = true;
        pthread_create(&t[i], NULL, thread_body, &c[i]);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        up_assert_same(&c[i].p);
    }
}

/*
 * JIT code: in no object, so neither unwinder has unwind information for
 * it. libunwind then guesses a frame-pointer frame when rbp looks like
 * one (at or above the frame's rsp, at most 0x4000 above), and ends the
 * walk when it does not; the walker makes the same guess itself, where it
 * used to hand every capture through such a frame to libunwind (node:
 * 390,977 rt_sigprocmask calls, 26% of its time, from libunwind's locks).
 */
static __attribute__((noinline)) void jit_callee(struct up_pair *p)
{
    up_capture_pair(p);
    __asm__ volatile("" ::: "memory");
}

typedef void jit_fn(struct up_pair *p, void (*callee)(struct up_pair *));

/* Machine code calling callee(p): with a frame pointer, or with rbp = 1. */
static const unsigned char jit_fp[] = {
    0x55,             /* push %rbp */
    0x48, 0x89, 0xe5, /* mov %rsp,%rbp */
    0x48, 0x89, 0xf0, /* mov %rsi,%rax */
    0xff, 0xd0,       /* call *%rax */
    0x5d,             /* pop %rbp */
    0xc3,             /* ret */
};
static const unsigned char jit_nofp[] = {
    0x55,                         /* push %rbp */
    0xbd, 0x01, 0x00, 0x00, 0x00, /* mov $1,%ebp */
    0x48, 0x89, 0xf0,             /* mov %rsi,%rax */
    0xff, 0xd0,                   /* call *%rax */
    0x5d,                         /* pop %rbp */
    0xc3,                         /* ret */
};

static void test_unwind_jit_frames_guessed_as_libunwind(void **state)
{
    uint64_t fallbacks = lp_unwind_fallback_count();
    unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct up_pair p;
    int i;

    (void)state;
    assert_true(page != MAP_FAILED);
    memcpy(page, jit_fp, sizeof(jit_fp));
    memcpy(page + 64, jit_nofp, sizeof(jit_nofp));
    assert_int_equal(mprotect(page, 4096, PROT_READ | PROT_EXEC), 0);
    assert_true(lp_cfi_rule((uintptr_t)page + 9) & LP_RULE_NO_INFO);
    for (i = 0; i < 40; i++) {
        memset(&p, 0, sizeof(p));
        p.by_id = i % 2;
        ((jit_fn *)(void *)page)(&p, jit_callee);
        up_assert_same(&p);
        /* Through the JIT frame and on to main. */
        assert_true(p.na > 3);
        memset(&p, 0, sizeof(p));
        p.by_id = i % 2;
        ((jit_fn *)(void *)(page + 64))(&p, jit_callee);
        up_assert_same(&p);
        /* rbp = 1 is no frame pointer: both end at the JIT frame. */
        assert_true((uintptr_t)p.a[p.na - 1] - (uintptr_t)page < 4096);
    }
    /* Walked, not handed to libunwind. */
    assert_int_equal(lp_unwind_fallback_count(), fallbacks);
    munmap(page, 4096);
}

/* --- our own frames, followed by their frame pointers ----------------- */

/* Three frames with frame pointers in a section of their own, standing for
 * the library's capture, tracking and hook frames: the walk follows them
 * by rbp (lp_unwind_set_self_range) and then the program's frames, of every
 * kind, by their rules. The first KEY_FRAME frames are ours either way. */
#define FP_OWN __attribute__((noinline, section("lp_test_fp_own")))
extern const char __start_lp_test_fp_own[], __stop_lp_test_fp_own[];

static FP_OWN void own_capture(struct up_pair *p)
{
    up_capture_pair(p);
    __asm__ volatile("" ::: "memory");
}

static FP_OWN void own_track(struct up_pair *p)
{
    own_capture(p);
    __asm__ volatile("" ::: "memory");
}

static FP_OWN void own_hook(struct up_pair *p)
{
    own_track(p);
    __asm__ volatile("" ::: "memory");
}

static int own_depth;
static __attribute__((noinline)) int program_nofp(struct up_pair *p, int d);
static __attribute__((noinline)) int program_fp(struct up_pair *p, int d)
{
    volatile char pad[24];

    pad[1] = (char)d;
    if (d == 0)
        own_hook(p);
    else
        (void)program_nofp(p, d - 1);
    return pad[1];
}

static __attribute__((noinline, optimize("omit-frame-pointer"))) int
program_nofp(struct up_pair *p, int d)
{
    volatile char pad[72];

    pad[2] = (char)d;
    if (d == 0)
        own_hook(p);
    else
        (void)program_fp(p, d - 1);
    return pad[2];
}

static void test_unwind_own_frames_by_frame_pointer_match_libunwind(void **state)
{
    uint64_t fallbacks = lp_unwind_fallback_count();
    struct up_pair p;
    int i;

    (void)state;
    /* capture_pair, frame 0, is in the section too. */
    lp_unwind_set_self_range((uintptr_t)__start_lp_test_fp_own,
                           (uintptr_t)__stop_lp_test_fp_own);
    for (i = 0; i < 200; i++) {
        memset(&p, 0, sizeof(p));
        p.by_id = i % 2;
        own_depth = i % 9;
        if (i % 3)
            program_fp(&p, own_depth);
        else
            program_nofp(&p, own_depth);
        up_assert_same(&p);
    }
    /* Walked, not handed to libunwind (which would hide a wrong step). */
    assert_int_equal(lp_unwind_fallback_count(), fallbacks);
    lp_unwind_set_self_range(1, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unwind_mixed_recursion_matches_libunwind),
        cmocka_unit_test(test_unwind_alternating_paths_match_libunwind),
        cmocka_unit_test(test_unwind_truncates_at_max_as_libunwind),
        cmocka_unit_test(test_unwind_changing_head_over_shared_tail),
        cmocka_unit_test(test_unwind_capture_ids_stand_for_the_same_frames),
        cmocka_unit_test(test_unwind_capture_ids_past_the_memo),
        cmocka_unit_test(test_unwind_capture_ids_of_other_inner_frames),
        cmocka_unit_test(test_unwind_qsort_callback_matches_libunwind),
        cmocka_unit_test(test_unwind_bsearch_callback_matches_libunwind),
        cmocka_unit_test(test_unwind_signal_frame_matches_libunwind),
        cmocka_unit_test(test_unwind_sigaltstack_matches_libunwind),
        cmocka_unit_test(test_unwind_thread_stack_matches_libunwind),
        cmocka_unit_test(test_unwind_many_threads_share_the_cache),
        cmocka_unit_test(test_unwind_own_frames_by_frame_pointer_match_libunwind),
        cmocka_unit_test(test_unwind_jit_frames_guessed_as_libunwind),
    };

    return cmocka_run_group_tests_name("unwind", tests, up_setup, NULL);
}
