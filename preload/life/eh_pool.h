/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LIFE_EH_POOL_H
#define LP_PRELOAD_LIFE_EH_POOL_H
/*
 * eh_pool.h - libstdc++'s emergency exception pool, counted as freed.
 *
 * libstdc++'s constructor mallocs a pool (72,704 bytes in libstdc++ 12)
 * for exceptions thrown when memory runs out, and __gnu_cxx::__freeres
 * frees it; Valgrind calls that at exit once the other threads are gone,
 * so Memcheck never shows the pool. We call it only when no other thread
 * still runs (one may be throwing); otherwise exit.c counts what
 * Valgrind's freeres would free as freed without freeing it, and this is
 * the pool's part: node, with its worker threads at exit, showed the pool
 * as 72,704 suppressed bytes where Memcheck shows nothing.
 * Context: COLD (exit, before the report).
 */

/* Count the pool's block as freed; it stays allocated. */
void lp_eh_pool_forget(void);

#endif
