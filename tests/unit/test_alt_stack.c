/* SPDX-License-Identifier: MIT */
/* test_alt_stack.c - the alternate signal stack we give a thread: the
 * kernel has it (raw system call), sigaltstack() answers "disabled" as the
 * thread would natively, the program's own stack replaces it, and turning
 * that off puts ours back; a thread that has a stack keeps it; a SIGSEGV
 * on a used-up stack reaches a handler. The stack-overflow report itself
 * runs in e2e (reliability.sh, fatal_ways overflow/thread_overflow). */
#include "tests/unit/lp_test.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/hot/tcb_slot.h"
#include "preload/life/alt_stack.h"

static stack_t kernel_view(void)
{
    stack_t ss;

    memset(&ss, 0, sizeof(ss));
    assert_int_equal(syscall(SYS_sigaltstack, NULL, &ss), 0);
    return ss;
}

static void views(void)
{
    static char theirs[65536];
    void *slot = NULL;
    stack_t ss, old, prog = { .ss_sp = theirs, .ss_size = sizeof(theirs) };
    stack_t off = { .ss_flags = SS_DISABLE }, before = kernel_view();

    /* A sanitizer's runtime may have given the thread one: put it aside. */
    assert_int_equal(syscall(SYS_sigaltstack, &off, NULL), 0);
    assert_true(kernel_view().ss_flags & SS_DISABLE);
    lp_alt_stack_give(&slot);
    assert_non_null(slot);
    ss = kernel_view();
    assert_false(ss.ss_flags & SS_DISABLE);
    assert_true((char *)ss.ss_sp > (char *)slot);
    /* What the program sees: nothing. */
    assert_int_equal(sigaltstack(NULL, &old), 0);
    assert_true(old.ss_flags & SS_DISABLE);
    assert_null(old.ss_sp);
    assert_int_equal(old.ss_size, 0);
    /* Its own replaces ours, and it is told it replaced nothing. */
    assert_int_equal(sigaltstack(&prog, &old), 0);
    assert_true(old.ss_flags & SS_DISABLE);
    assert_ptr_equal(kernel_view().ss_sp, theirs);
    assert_int_equal(sigaltstack(NULL, &old), 0);
    assert_ptr_equal(old.ss_sp, theirs);
    /* Off: ours again underneath, "disabled" on top. */
    assert_int_equal(sigaltstack(&off, NULL), 0);
    assert_ptr_equal(kernel_view().ss_sp, ss.ss_sp);
    assert_int_equal(sigaltstack(NULL, &old), 0);
    assert_true(old.ss_flags & SS_DISABLE);
    /* A second give keeps what the thread has. */
    assert_int_equal(sigaltstack(&prog, NULL), 0);
    lp_alt_stack_give(&slot);
    assert_ptr_equal(kernel_view().ss_sp, theirs);
    /* Leave the thread as it was (ours goes). */
    assert_int_equal(syscall(SYS_sigaltstack, &off, NULL), 0);
    lp_self.alt_stack = NULL;
    if (!(before.ss_flags & SS_DISABLE)) {
        before.ss_flags = 0;
        assert_int_equal(syscall(SYS_sigaltstack, &before, NULL), 0);
    }
}

static void test_program_sees_none(void **state)
{
    (void)state;
    views();
}

static volatile int seen_flags = -1;
static void *volatile seen_sp;

static void ask_in_handler(int sig)
{
    stack_t st;

    (void)sig;
    if (sigaltstack(NULL, &st) == 0) {
        seen_flags = st.ss_flags;
        seen_sp = st.ss_sp;
    }
}

/* On our stack, a handler that asks is told the truth (Go's handler
 * checks its stack pointer against the answer). */
static void *asks(void *arg)
{
    void *slot = NULL;
    struct sigaction sa, old;

    (void)arg;
    lp_alt_stack_give(&slot); /* ours already, when our pthread_create ran */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = ask_in_handler;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR2, &sa, &old);
    raise(SIGUSR2);
    sigaction(SIGUSR2, &old, NULL);
    return kernel_view().ss_sp;
}

static void test_handler_on_ours_is_told(void **state)
{
    pthread_t t;
    void *ours = NULL;

    (void)state;
    assert_int_equal(pthread_create(&t, NULL, asks, NULL), 0);
    assert_int_equal(pthread_join(t, &ours), 0);
    assert_non_null(ours);
    assert_true(seen_flags >= 0 && (seen_flags & SS_ONSTACK));
    assert_ptr_equal(seen_sp, ours);
}

static sigjmp_buf back;
static volatile int on_alt;

static void on_segv(int sig)
{
    (void)sig;
    on_alt = lp_alt_stack_on();
    siglongjmp(back, 1);
}

/* Endless recursion until the guard page of a small thread stack. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"
__attribute__((noinline)) static int deeper(int n)
{
    volatile char pad[512];

    pad[0] = (char)n;
    return deeper(n + 1) + pad[0];
}

static void *overflow(void *arg)
{
    void *slot = NULL;
    struct sigaction sa, old;

    (void)arg;
    lp_alt_stack_give(&slot);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_ONSTACK | SA_NODEFER;
    sigaction(SIGSEGV, &sa, &old);
    if (sigsetjmp(back, 1) == 0)
        (void)deeper(0);
    sigaction(SIGSEGV, &old, NULL);
    return NULL;
}

static void test_overflow_reaches_a_handler(void **state)
{
    pthread_attr_t a;
    pthread_t t;

    (void)state;
    on_alt = 0;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 * 1024);
    assert_int_equal(pthread_create(&t, &a, overflow, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&a);
    assert_int_equal(on_alt, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_sees_none),
        cmocka_unit_test(test_overflow_reaches_a_handler),
        cmocka_unit_test(test_handler_on_ours_is_told),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
