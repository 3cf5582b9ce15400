/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LIFE_EXIT_LISTS_H
#define LP_PRELOAD_LIFE_EXIT_LISTS_H
/*
 * exit_lists.h - glibc's blocks of atexit handlers, freed after our report.
 *
 * Past its first 32 registrations (atexit, __cxa_atexit: every C++ static
 * object with a destructor makes one) glibc's __new_exitfn callocs a block
 * of 32 more, and exit frees each block once its handlers have run. Our
 * report runs from a handler registered inside _dl_fini, while the blocks
 * registered before _dl_fini's own (a library's static objects, made
 * before main) are still allocated; Memcheck reports after exit freed
 * them. So those blocks are counted as freed at a normal exit, as Memcheck
 * counts them: two "still reachable" blocks of 1,040 bytes fewer in a C++
 * program with 80 static strings in a library.
 * Context: lp_exit_lists_note is called from the calloc hook (lock-free,
 * async-signal-safe); the rest is COLD.
 */
#include <stddef.h>
#include <stdint.h>

/* sizeof(struct exit_function_list) on x86-64 glibc: next, idx and 32
 * handlers of 32 bytes. */
#define LP_EXIT_LIST_SIZE 1040u

/* Where libc's code lies: read once at start-up. */
void lp_exit_lists_init(void);

/* calloc(1, LP_EXIT_LIST_SIZE) returned p to caller: a handler block if
 * the caller is in libc. */
void lp_exit_lists_note(void *p, uintptr_t caller);

/* At a normal exit, before the report: count the handler blocks still
 * allocated as freed (exit frees them right after the report). */
void lp_exit_lists_forget(void);

#endif
