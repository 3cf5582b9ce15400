/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_MASSIF_H
#define LP_REPORT_MASSIF_H
/*
 * massif.h - Valgrind Massif's massif.out format: data model, reader, writer.
 *
 * struct lp_massif holds one massif.out file: the three header values and a
 * list of snapshots, each with its counters and, for detailed and peak
 * snapshots, a heap tree. The same object is filled by the reader
 * (lp_massif_read*) and by the builder (lp_massif_new, lp_massif_add_snapshot),
 * and written back by lp_massif_write() in massif's exact byte layout
 * (FORMATS.md sections 1.3, 1.4 and 1.11).
 *
 * Context: COLD. Built -fPIC into libreport.a and linked into both leakprint
 * and libleakprof.so. Nothing here keeps global or static mutable state; two
 * threads may use two different objects at the same time, but one object
 * must not be used by two threads at once. Memory comes from libc malloc,
 * so libleakprof.so must call this with its hooks switched off (guard held).
 * Every string and node is owned by the struct lp_massif it belongs to and
 * lives until lp_massif_free().
 *
 * Errors: functions return 0 or a negative errno. The readers also fill a
 * caller-supplied buffer with one line "FILE:LINE: what is wrong" (no
 * trailing newline, no program name), suitable for
 * fprintf(stderr, "leakprint: %s\n", err).
 */
#include <stdint.h>
#include <stdio.h>

struct lp_massif;
struct lp_massif_node;

enum lp_massif_kind {
    LP_MASSIF_EMPTY = 0,    /* heap_tree=empty: no tree */
    LP_MASSIF_DETAILED = 1, /* heap_tree=detailed: has a tree */
    LP_MASSIF_PEAK = 2,     /* heap_tree=peak: has a tree; the peak */
};

/* The fixed root labels massif writes (FORMATS.md 1.4). */
#define LP_MASSIF_ROOT_LABEL \
    "(heap allocation functions) malloc/new/new[], --alloc-fns, etc."
#define LP_MASSIF_ROOT_LABEL_PAGES \
    "(page allocation syscalls) mmap/mremap/brk, --alloc-fns, etc."

/* Trees deeper than this are rejected by the reader and the builder, so
 * every recursive walk over a tree has a bounded stack. Massif itself never
 * goes beyond --depth=200 plus inline expansions. */
#define LP_MASSIF_MAX_DEPTH 2000

/* ------------------------------------------------------------------ */
/* Reading                                                             */

/*
 * Reader modes.
 *
 * LP_MASSIF_READ_STRICT accepts exactly the grammar massif writes and
 * massif-visualizer requires (FORMATS.md 1.10): one "desc: " line, "cmd: ",
 * "time_unit: " with i, ms or B; the "#-----------" separators around every
 * snapshot= line and no other comment or blank line; snapshot numbers
 * 0, 1, 2, ...; fields in order with plain unsigned decimal values;
 * heap_tree exactly empty, detailed or peak (at most one peak); tree lines
 * indented by exactly their depth, "nCOUNT: BYTES LABEL" with a non-empty
 * label, COUNT equal to the number of child lines; the root's bytes equal
 * mem_heap_B; LF line endings, final LF present.
 *
 * LP_MASSIF_READ_MS_PRINT accepts what ms_print 3.19 accepts and keeps what
 * ms_print would print (FORMATS.md 2.2): everything from the first '#' of a
 * line is dropped, blank lines are skipped anywhere, indentation of tree
 * lines is ignored, zero or more desc: lines are concatenated raw
 * (lp_massif_desc_raw), cmd:/time_unit: take optional whitespace, any
 * time_unit text is kept (the renderer checks it), heap_tree values that
 * contain "detailed" or "peak" carry a tree and only an exact "peak" marks
 * the peak. Numeric fields must still be decimal digits (optionally
 * followed by whitespace, which is kept in the text form).
 *
 * Both modes reject: a missing or out-of-order field, a tree line that does
 * not parse, a tree cut short by end of file, a node whose bytes exceed the
 * snapshot total (ms_print dies there too), numbers that overflow 64 bits,
 * NUL bytes, and trees deeper than LP_MASSIF_MAX_DEPTH. Memory use is
 * proportional to the input size; no input makes the reader loop or crash.
 */
enum lp_massif_read_mode {
    LP_MASSIF_READ_STRICT = 0,
    LP_MASSIF_READ_MS_PRINT = 1,
};

/*
 * Parse the whole of f (read to EOF, not closed). name is used in error
 * messages only. On success returns 0 and sets *out (free it with
 * lp_massif_free). On failure returns -EINVAL for malformed input (err then
 * holds "NAME:LINE: message"), -ENOMEM, or -errno from reading (err holds
 * "cannot read 'NAME': strerror"); *out is set to NULL.
 */
int lp_massif_read(FILE *f, const char *name, enum lp_massif_read_mode mode,
                   struct lp_massif **out, char *err, size_t errlen);

/* Same for a file by path ("-" is stdin). Open failures give
 * "cannot open 'PATH': strerror" and the negative errno. */
int lp_massif_read_path(const char *path, enum lp_massif_read_mode mode,
                        struct lp_massif **out, char *err, size_t errlen);

/* Same for a memory buffer of len bytes (need not be NUL-terminated). */
int lp_massif_read_mem(const char *data, size_t len, const char *name,
                       enum lp_massif_read_mode mode, struct lp_massif **out,
                       char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Building (what libleakprof.so's snapshot writer uses)               */

/*
 * Make an empty profile. desc is the text after "desc: " (NULL or "" gives
 * "(none)"), cmd the text after "cmd: ", time_unit "B", "ms" or "i". The
 * strings are copied. Returns NULL on allocation failure.
 * Neither desc nor cmd may contain '#' or a newline; such characters are
 * replaced by '=' (for '#', as ms_print would cut the line there) and ' '
 * when they are copied, so the file always stays readable.
 */
struct lp_massif *lp_massif_new(const char *desc, const char *cmd,
                                const char *time_unit);

/*
 * Tree nodes for lp_massif_add_snapshot(). A node belongs to m from the
 * moment it is made. label is the full text after "BYTES ", e.g.
 * "0x109180: leaf_alloc (prog1.c:6)" or LP_MASSIF_ROOT_LABEL; it is copied,
 * with '#' replaced by '=' and newlines by ' '. An empty label becomes "???".
 * lp_massif_node_add_child() appends child as the last child of parent (the
 * writer prints children in this order, so add them sorted by bytes,
 * descending, as massif does). A node must be added to at most one parent
 * and to no snapshot if it has a parent. Returns NULL / -ENOMEM on failure.
 */
struct lp_massif_node *lp_massif_node_new(struct lp_massif *m, uint64_t bytes,
                                          const char *label);
int lp_massif_node_add_child(struct lp_massif_node *parent,
                             struct lp_massif_node *child);

/*
 * Append a snapshot. Its number is its position (0, 1, ...). tree must be
 * NULL for LP_MASSIF_EMPTY and non-NULL for the other kinds; it becomes part
 * of the snapshot. Checks (-EINVAL, nothing added): time is not below the
 * previous snapshot's time; a tree is given exactly when kind is not empty;
 * no node's bytes exceed heap + extra + stacks; the tree is not deeper than
 * LP_MASSIF_MAX_DEPTH; at most one peak per profile. Adding a second peak
 * is allowed if the earlier one is first demoted with
 * lp_massif_set_kind(m, i, LP_MASSIF_DETAILED), as massif does.
 */
int lp_massif_add_snapshot(struct lp_massif *m, int64_t time, uint64_t heap,
                           uint64_t extra, uint64_t stacks,
                           enum lp_massif_kind kind,
                           struct lp_massif_node *tree);

/* Change snapshot i's kind between DETAILED and PEAK (it must have a tree).
 * Returns -EINVAL if i is out of range, has no tree, or the change would
 * make a second peak. */
int lp_massif_set_kind(struct lp_massif *m, size_t i, enum lp_massif_kind kind);

/* Free everything, including all nodes and strings. NULL is fine. */
void lp_massif_free(struct lp_massif *m);

/* ------------------------------------------------------------------ */
/* Writing                                                             */

/*
 * Write m to f in massif's exact layout: "desc: ", "cmd: ", "time_unit: ",
 * then per snapshot the separators, snapshot=N (renumbered 0..n-1), the
 * counters and the tree with one space of indentation per depth and
 * nCOUNT equal to the number of children. A profile read in ms_print mode
 * is normalised (its desc_raw is turned into one desc line). Returns 0 or
 * -EIO if a write to f failed (the first error sticks; f is not closed).
 */
int lp_massif_write(const struct lp_massif *m, FILE *f);

/* ------------------------------------------------------------------ */
/* Accessors. Strings are NUL-terminated and owned by m.               */

/* The desc value (text after "desc: " of the first desc line; "(none)" for
 * built profiles without options; NULL if the file had no desc line). */
const char *lp_massif_desc(const struct lp_massif *m);
/* ms_print's DESC: every desc: line's text after "desc:", each including
 * its leading space and its LF, concatenated; "" if there were none. */
const char *lp_massif_desc_raw(const struct lp_massif *m);
const char *lp_massif_cmd(const struct lp_massif *m);
const char *lp_massif_time_unit(const struct lp_massif *m);
size_t lp_massif_count(const struct lp_massif *m);

/* Snapshot i (0 <= i < count) in file order. The *_text forms give the
 * value text as it appeared in the file (for a built profile, the decimal
 * number); ms_print prints these texts, not the numbers. */
uint64_t lp_massif_snap_number(const struct lp_massif *m, size_t i);
int64_t lp_massif_snap_time(const struct lp_massif *m, size_t i);
uint64_t lp_massif_snap_heap(const struct lp_massif *m, size_t i);
uint64_t lp_massif_snap_extra(const struct lp_massif *m, size_t i);
uint64_t lp_massif_snap_stacks(const struct lp_massif *m, size_t i);
/* heap + extra + stacks, saturating at UINT64_MAX. */
uint64_t lp_massif_snap_total(const struct lp_massif *m, size_t i);
enum lp_massif_kind lp_massif_snap_kind(const struct lp_massif *m, size_t i);
const struct lp_massif_node *lp_massif_snap_tree(const struct lp_massif *m,
                                                 size_t i);
const char *lp_massif_snap_number_text(const struct lp_massif *m, size_t i);
const char *lp_massif_snap_time_text(const struct lp_massif *m, size_t i);
const char *lp_massif_snap_heap_text(const struct lp_massif *m, size_t i);
const char *lp_massif_snap_extra_text(const struct lp_massif *m, size_t i);
const char *lp_massif_snap_stacks_text(const struct lp_massif *m, size_t i);

/* The index of the snapshot marked peak (the last one if a lenient file
 * has several), or -1 if none. */
long lp_massif_peak_index(const struct lp_massif *m);

/* Tree nodes. lp_massif_node_label() is the text after "BYTES " (the
 * massif label). lp_massif_node_details() is what ms_print prints after the
 * byte count: for a strict or built node " " + label; for a node read in
 * ms_print mode everything after the digits, verbatim. nchildren is the
 * number of children actually present. Children are walked with
 * first_child/next_sibling in file order. */
uint64_t lp_massif_node_bytes(const struct lp_massif_node *n);
/* Its bytes as the file wrote them (leading zeros kept, as ms_print
 * prints them), or the number for a node made in memory; NUL-terminated
 * in out[cap]. */
void lp_massif_node_bytes_text(const struct lp_massif_node *n, char *out,
                               size_t cap);
const char *lp_massif_node_label(const struct lp_massif_node *n);
const char *lp_massif_node_details(const struct lp_massif_node *n);
size_t lp_massif_node_nchildren(const struct lp_massif_node *n);
const struct lp_massif_node *
lp_massif_node_first_child(const struct lp_massif_node *n);
const struct lp_massif_node *
lp_massif_node_next_sibling(const struct lp_massif_node *n);

#endif /* LP_REPORT_MASSIF_H */
