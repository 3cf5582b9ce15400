/* SPDX-License-Identifier: MIT */
/*
 * guard.c - the per-thread guard and the process state, plus lp_panic.
 * Context: HOT/SIGNAL.
 */
#include "preload/guard.h"

#include <unistd.h>
#include <string.h>

LP_TLS bool lp_guard_held;
int lp_state = LP_STATE_BOOT;

_Noreturn void lp_panic(const char *msg)
{
    static const char pre[] = "leakprof: fatal: ";

    (void)!write(2, pre, sizeof(pre) - 1);
    (void)!write(2, msg, strlen(msg));
    (void)!write(2, "\n", 1);
    __builtin_trap();
}
