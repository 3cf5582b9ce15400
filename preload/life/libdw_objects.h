/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_LIBDW_OBJECTS_H
#define LP_PRELOAD_LIBDW_OBJECTS_H
/*
 * libdw_objects.h - the objects our lazy load of libdw brought into the
 * process (libdw_lazy.c), so that no frame is named after them.
 * Context: COLD, the caller holds the guard.
 */

/* Around the dlopen of libdw: list the objects loaded before it, then
 * keep the spans of those that came with it, and let the symbolizer ask
 * (lp_sym_loaded_by_us, report/symbolize.h). */
void lp_libdw_objects_before(void);
void lp_libdw_objects_after(void);

#endif /* LP_PRELOAD_LIBDW_OBJECTS_H */
