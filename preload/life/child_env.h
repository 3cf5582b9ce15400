/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_CHILD_ENV_H
#define LP_PRELOAD_CHILD_ENV_H
/*
 * child_env.h - the environment the programs this one execs inherit, and
 * our reads of it. Context: BOOT (single-threaded, from the constructor
 * or the first allocation).
 */

/* name's value in environ, read directly; NULL when it is not there. */
const char *lp_env_get(const char *name);

/* trace_children=no: drop libleakprof.so from LD_PRELOAD, so that exec'd
 * programs run without us. */
void lp_child_env_untraced(void);

/* trace_children=yes: add exec_child=yes to LEAKPROF_OPTIONS, so that
 * exec'd programs know they are not the first process. */
void lp_child_env_mark_exec_child(void);

#endif /* LP_PRELOAD_CHILD_ENV_H */
