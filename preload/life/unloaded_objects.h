/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_UNLOADED_OBJECTS_H
#define LP_PRELOAD_UNLOADED_OBJECTS_H
/*
 * unloaded_objects.h - keep_debuginfo=yes: the objects dlclose unloaded,
 * recorded for the symbolizer (lp_sym_unloaded, report/symbolize.h).
 * Context: COLD (the dlclose hook).
 */
#include <stdbool.h>

/* Before the real dlclose: the loaded objects, listed (NULL without
 * keep_debuginfo=yes or memory); after it, with whether it succeeded:
 * record those gone, and free the listing. */
void *lp_unloaded_before(void);
void lp_unloaded_after(void *token, bool unloaded);

#endif /* LP_PRELOAD_UNLOADED_OBJECTS_H */
