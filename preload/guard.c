/* SPDX-License-Identifier: MIT */
/*
 * guard.c - the per-thread guard and the process state, plus lp_panic.
 * Context: HOT/SIGNAL.
 */
#include "preload/guard.h"

#include "preload/process.h"

#include <unistd.h>
#include <string.h>

LP_TLS bool lp_guard_held;
LP_TLS unsigned lp_in_libc;
int lp_state = LP_STATE_BOOT;
bool lp_threaded;
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
