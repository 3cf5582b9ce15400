/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_ALT_STACK_H
#define LP_PRELOAD_ALT_STACK_H
/*
 * alt_stack.h - an alternate signal stack of ours in every thread that has
 * none, so that a stack overflow's SIGSEGV still reaches the fatal-signal
 * handler (which needs a stack to run on); sigaltstack() is interposed so
 * that the program never sees it.
 * Context: BOOT and thread start (lp_alt_stack_give), SIGNAL (the rest).
 */
#include <stdbool.h>
#include <stdint.h>

/* Give the calling thread an alternate signal stack of ours, unless it
 * has one: *slot holds the stack (made on first use, kept for the next
 * thread that gets the same slot). */
void lp_alt_stack_give(void **slot);

/* The calling thread runs on its alternate signal stack (ours or the
 * program's). */
bool lp_alt_stack_on(void);

#endif /* LP_PRELOAD_ALT_STACK_H */
