/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_PPROF_H
#define LP_REPORT_PPROF_H
/*
 * pprof.h - build a profile in pprof's format (the public profile.proto
 * of github.com/google/pprof, package perftools.profiles) and write it
 * gzipped, as `go tool pprof`, Pyroscope and Parca read it.
 *
 * The builder interns strings (string_table[0] is ""), deduplicates
 * functions by (name, system name, file) and locations by address, and
 * encodes each Sample, Location, Function and Mapping as it is added, so
 * memory stays about the size of the encoded profile. Ids are 1, 2, ...
 * in order of addition. Conventions pprof relies on:
 *  - sample types are declared before the first sample, and every sample
 *    carries one value per type, in the same order;
 *  - a sample's location ids go leaf first;
 *  - a location's lines go innermost first: for inlined code, the last
 *    line is the out-of-line function the others were inlined into;
 *  - the first mapping is the main executable.
 *
 * Errors are sticky (the first failure is returned by lp_pprof_write);
 * adders then return 0 and do nothing.
 * Context: COLD. Memory: plain malloc.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct lp_pprof;

/* One source line of a location. fn may be NULL ("??" is written). */
struct lp_pprof_line {
    const char *fn;          /* name as users read it (demangled) */
    const char *system_name; /* linkage name, or NULL for fn */
    const char *file;        /* source file, or NULL */
    int64_t line;            /* 0 when unknown */
};

struct lp_pprof_mapping {
    uint64_t start, limit, offset; /* [start, limit) and its file offset */
    const char *file;              /* path of the object, or NULL */
    const char *build_id;          /* hex build-id, or NULL */
    bool has_functions, has_filenames, has_line_numbers, has_inline_frames;
};

/* A label attached to a sample: a string (str != NULL) or a number. */
struct lp_pprof_label {
    const char *key;
    const char *str;
    int64_t num;
    const char *num_unit; /* for numbers: "bytes", ... or NULL */
};

struct lp_pprof *lp_pprof_new(void);
void lp_pprof_free(struct lp_pprof *p);

/* Declare the next sample type ("alloc_space", "bytes"). */
void lp_pprof_add_type(struct lp_pprof *p, const char *type, const char *unit);
/* The sample type pprof shows when none is asked for. */
void lp_pprof_set_default_type(struct lp_pprof *p, const char *type);
/* period_type and period: what one sampling event measures. */
void lp_pprof_set_period(struct lp_pprof *p, const char *type,
                         const char *unit, int64_t period);
/* drop_frames: a regular expression (RE2, matched against whole function
 * names); pprof removes matching frames and those below them from every
 * stack when it loads the profile. */
void lp_pprof_set_drop_frames(struct lp_pprof *p, const char *regex);
void lp_pprof_set_time(struct lp_pprof *p, int64_t time_nanos,
                       int64_t duration_nanos);
void lp_pprof_add_comment(struct lp_pprof *p, const char *text);

/* Returns the new mapping's id (>= 1), or 0 after an error. */
uint64_t lp_pprof_add_mapping(struct lp_pprof *p,
                              const struct lp_pprof_mapping *m);

/* The id of the location added for addr, or 0 when there is none. */
uint64_t lp_pprof_find_location(struct lp_pprof *p, uint64_t addr);

/* Add a location for addr (mapping_id 0: unknown mapping) with lines
 * [0, n), innermost first. Returns its id, or 0 after an error. Adding an
 * address twice returns the first id and ignores the new lines. */
uint64_t lp_pprof_add_location(struct lp_pprof *p, uint64_t mapping_id,
                               uint64_t addr,
                               const struct lp_pprof_line *lines, size_t n);

/* Add a sample: locations (leaf first), one value per declared type,
 * labels (may be NULL with nlabels 0). Returns 0 or a negative errno. */
int lp_pprof_add_sample(struct lp_pprof *p, const uint64_t *locs, size_t n,
                        const int64_t *values,
                        const struct lp_pprof_label *labels, size_t nlabels);

/* Number of sample types declared so far. */
size_t lp_pprof_ntypes(const struct lp_pprof *p);

/* Encode the whole profile (uncompressed protobuf) into *out, which the
 * caller frees with free(). Returns 0 or a negative errno. */
int lp_pprof_encode(struct lp_pprof *p, uint8_t **out, size_t *len);

/* Write the profile to f, gzipped. Returns 0 or a negative errno. */
int lp_pprof_write(struct lp_pprof *p, FILE *f);

#endif /* LP_REPORT_PPROF_H */
