/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_FLAME_H
#define LP_REPORT_FLAME_H
/*
 * flame.h - flame graphs of one massif snapshot's heap tree.
 * Context: COLD (leakprint; libleakprof.so's html= writer).
 *
 * A stack is the path from the outermost frame (main, start_thread, ...)
 * to the innermost caller of the allocation function, i.e. a heap-tree
 * path read bottom-up. Its weight is the node's self bytes: bytes minus
 * the sum of its children's bytes. Frames are shown by function name
 * (the label without "0xADDR: " and without the "(file:line)" suffix;
 * "???" frames keep their "(in object)" suffix); equal paths are merged.
 * massif's aggregate leaves ("in K places, all below massif's threshold")
 * are callers massif dropped: their bytes go to their parent's stack,
 * which then starts at the parent (a truncated stack); top-level ones to
 * a "(heap allocation functions)" frame. No stack starts at an aggregate.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct lp_massif;

/* The snapshot shown when none is named: the peak, else the last
 * detailed snapshot, else the last one; -1 when there is none. */
long lp_flame_default_snapshot(const struct lp_massif *m);

/* Collapsed stacks "outer;...;inner BYTES\n", one per distinct path with
 * non-zero self bytes, sorted by path. ';' inside a name becomes ':'.
 * snap = -1 means lp_flame_default_snapshot(). Returns 0, -EINVAL (err set:
 * no such snapshot, or it has no heap tree) or -ENOMEM. */
int lp_flame_folded(FILE *out, const struct lp_massif *m, const char *name,
                    long snap, char *err, size_t errlen);

/* A self-contained SVG flame graph (no external resources; every frame
 * has a <title> tooltip with bytes, thousands separators, and percent),
 * interactive through its embedded script (flame_script.h: search, click
 * to zoom, reset). */
int lp_flame_svg(FILE *out, const struct lp_massif *m, const char *name,
                 long snap, char *err, size_t errlen);

/* The same; standalone == false leaves out the XML declaration, for an
 * <svg> element inline in an HTML page. */
int lp_flame_svg_write(FILE *out, const struct lp_massif *m, const char *name,
                       long snap, bool standalone, char *err, size_t errlen);

/* The text a flame frame shows for a massif tree label or a report frame
 * "fn (file:line)": see the banner. Returns a malloc'd string or NULL. */
char *lp_flame_frame_name(const char *label);

/*
 * Flame graphs of any stacks (allocation sites with other costs: calls,
 * temporary allocations... report/flame_sites.h): add stacks outermost
 * frame first with their weight; equal paths merge. The SVG is the same
 * interactive one; unit names the weight in titles ("bytes", "calls");
 * frames narrower than min_width pixels are left out (0.1 as
 * flamegraph.pl; more keeps pages of a million stacks small).
 */
struct lp_flame;
struct lp_flame *lp_flame_new(void);
void lp_flame_free(struct lp_flame *f);
int lp_flame_add(struct lp_flame *f, const char *const *names, size_t n,
                 uint64_t weight);
/* The same for stacks given in sorted order (equal prefixes adjacent):
 * names[0..same) equal the previous call's first frames; frames past
 * them are new children, appended without a search (a million stacks
 * cost one pass). With same == 0 the outermost frame is looked up. */
int lp_flame_add_sorted(struct lp_flame *f, const char *const *names,
                        size_t n, size_t same, uint64_t weight);
uint64_t lp_flame_total(struct lp_flame *f);
int lp_flame_write_folded(FILE *out, struct lp_flame *f);
int lp_flame_write_svg(FILE *out, struct lp_flame *f, const char *title,
                       const char *unit, bool standalone, double min_width);

#endif /* LP_REPORT_FLAME_H */
