/* SPDX-License-Identifier: MIT */
/*
 * guard.c - the per-thread guard and the process state, plus lp_panic.
 * Context: HOT/SIGNAL.
 */
#include "preload/hot/guard.h"

#include "preload/life/process.h"

#include <unistd.h>
#include <string.h>

#if !(defined(__x86_64__) && defined(__SEG_FS) && defined(__GLIBC__))
__thread struct lp_tcb_slot lp_self_tls __attribute__((tls_model("initial-exec")));
#endif
int lp_state = LP_STATE_BOOT;
#if defined(__x86_64__) && defined(__SEG_FS) && defined(__GLIBC__)
uintptr_t lp_errno_tp_off;
#endif
struct lp_hot_line lp_hot;
/* Defined here, not in process.c, which also defines exit(): unit tests
 * link this without taking over the test binary's exit. */
struct lp_process lp_process;

_Noreturn void lp_panic(const char *msg)
{
    static const char pre[] = "leakprof: fatal: ";

    (void)!write(2, pre, sizeof(pre) - 1);
    (void)!write(2, msg, strlen(msg));
    (void)!write(2, "\n", 1);
    __builtin_trap();
}
