/* SPDX-License-Identifier: MIT */
/*
 * export.c - one entry point for the exported profiles, so the exit path
 * and the snapshot dumper each call a single function (export.h).
 * Context: COLD, guard held.
 */
#include "preload/massif/export.h"

#include "preload/massif/html_write.h"
#include "preload/massif/pprof_write.h"

void lp_export_write(unsigned seq)
{
    lp_pprof_write_file(seq);
    lp_html_write_file(seq);
}
