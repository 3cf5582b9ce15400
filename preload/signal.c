/* SPDX-License-Identifier: MIT */
/*
 * signal.c - snapshot_signal handling.
 * Context: SIGNAL / COLD.
 */
#include "preload/signal.h"

#include <unistd.h>

static int fork_child_pid;

void lp_signal_init(void) {}

void lp_signal_atfork_child(void) { fork_child_pid = getpid(); }

bool lp_signal_in_fork_child(void)
{
    return fork_child_pid != 0 && fork_child_pid == getpid();
}
