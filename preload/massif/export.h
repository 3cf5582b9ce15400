/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_EXPORT_H
#define LP_PRELOAD_EXPORT_H
/*
 * export.h - the optional profile files other tools read (pprof=, html=),
 * written after the leak report and the massif file.
 * Context: COLD, guard held.
 */
#include "preload/lp.h"

/* seq 0: the exit-time files; seq N: the Nth snapshot signal's (PATH.N).
 * Each option left unset costs nothing. */
void lp_export_write(unsigned seq);

#endif /* LP_PRELOAD_EXPORT_H */
