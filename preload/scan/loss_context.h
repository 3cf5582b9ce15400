/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_SCAN_LOSS_CONTEXT_H
#define LP_PRELOAD_SCAN_LOSS_CONTEXT_H
/*
 * loss_context.h - the context a loss record is kept by, as Memcheck keeps
 * it: the first depth frames of the allocation stack.
 *
 * Memcheck records --num-callers frames of each allocation and groups
 * blocks whose recorded frames are equal; we keep a few frames more
 * (stack.c: massif's own cuts need them), so stacks equal in their first
 * depth frames but not beyond must fall into one record, or a deep
 * program (python3 under gdb) shows two records where Memcheck shows one.
 * Context: COLD (the leak report, under its lock).
 */
#include <stdint.h>

/* The stack id that stands for every stack whose first depth frames (as
 * Memcheck counts them, with sym: lp_leaks_nips) are stack_id's: the first such id this process asked about, so a live
 * report's records keep their identity from one report to the next.
 * stack_id itself when memory runs out. */
struct lp_sym;
uint32_t lp_loss_context(uint32_t stack_id, unsigned depth, struct lp_sym *sym);

#endif
