/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_CHILD_ENV_H
#define LP_PRELOAD_CHILD_ENV_H
/*
 * child_env.h - the environment the programs this one execs inherit, and
 * our reads of it. Context: BOOT (single-threaded, from the constructor
 * or the first allocation); lp_child_env_for_exec: any thread, a vfork
 * child, a signal handler.
 */
#include <stdbool.h>
#include <stddef.h>

/* name's value in environ, read directly; NULL when it is not there. */
const char *lp_env_get(const char *name);

/* trace_children=no: drop libleakprof.so from LD_PRELOAD, so that exec'd
 * programs run without us. */
void lp_child_env_untraced(void);

/* trace_children=yes: mark the options for exec'd programs, so that
 * they know they are not the first process: LEAKPROF_OPTIONS renamed
 * LEAKPROF_EXECOPT in place (or, for a string that is not the kernel's,
 * exec_child=yes added to its value). */
#define LP_EXEC_OPTIONS "LEAKPROF_EXECOPT"
void lp_child_env_mark_exec_child(void);

/* The options to read: LEAKPROF_OPTIONS, else LEAKPROF_EXECOPT; and
 * whether this process is an exec'd child of a traced one (the latter
 * is there). */
const char *lp_child_env_options(bool *exec_child);

/* trace_children=yes, once the environment is marked: keep copies of
 * our LD_PRELOAD entry (this library by its real path) and of our
 * options entry (marked), which exec_hooks.c puts back into an exec's
 * environment that lacks them. */
void lp_child_env_keep_for_exec(void);

/* Whether exec'd programs are to be traced (lp_child_env_keep_for_exec
 * succeeded). */
bool lp_child_env_traced(void);

/*
 * The environment to exec with: envp itself when it already names this
 * library in LD_PRELOAD and carries our options (LEAKPROF_OPTIONS or
 * LEAKPROF_EXECOPT; or when tracing is
 * off); otherwise out, filled with envp's entries (at most cap - 3 of
 * them, else envp is returned unchanged) and ours, an LD_PRELOAD that
 * keeps envp's own preloads after ours being written to line (linecap
 * bytes). Writes nothing but out and line: callable in a vfork child.
 */
char *const *lp_child_env_for_exec(char *const *envp, char **out, size_t cap,
                                   char *line, size_t linecap);

/* How many entries envp has (envp may be NULL: none). */
size_t lp_child_env_count(char *const *envp);

#endif /* LP_PRELOAD_CHILD_ENV_H */
