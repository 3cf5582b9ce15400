/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_UNWIND_RULES_FILE_H
#define LP_PRELOAD_UNWIND_RULES_FILE_H
/*
 * unwind_rules_file.h - the unwind rules (unwind_rules.h) of each loaded
 * object, kept across processes beside the symbolizer's files: one file
 * per object build-id and libleakprof.so build, OBJID.OURID12.rules in
 * the symbol cache's directory (symcache.h), a sorted array of (offset in
 * the object, rule). A rule miss looks there before interpreting the
 * CFI (unwind_rules_file.c); the exit writes back what the process
 * computed anew (preload/life/unwind_rules_save.c). cc1 misses about
 * 3,000 return addresses a compile: 3-4 ms of CFI interpretation in
 * every compile of a build.
 *
 * File: "leakprof-rules1\n" (16 bytes), a u64 count, then count pairs
 * of u64 (offset of the return address in the object, rule), strictly
 * ascending by offset; host byte order (read only by the build of
 * libleakprof.so that wrote it: its id is in the name). Anything else
 * and the file is not used.
 *
 * Context: lp_rules_file_find is HOT (a rule miss: _dl_find_object, raw
 * system calls, arena memory, no lock, one CAS per object).
 */
#include "preload/lp.h"

#define LP_RULES_MAGIC "leakprof-rules1\n"
#define LP_RULES_MAGIC_LEN 16
#define LP_RULES_MAX 4194304 /* records a file may hold */

struct lp_rules_rec {
    uint64_t off, rule;
};

/* What an object's file held when it was read: published whole (one
 * pointer), so a reader never pairs one reading's count with another's
 * records. */
struct lp_rules_set {
    size_t n;
    struct lp_rules_rec r[];
};

/* An object as a miss found it: where it is mapped, its build-id, what
 * its file held. */
struct lp_rules_obj {
    uintptr_t start; /* the mapping's start: the key (0: a free slot) */
    uintptr_t bias;
    unsigned gen; /* lp_rules_gen when it was claimed */
    int state;
    int idlen;
    /* In a fork child: the file may have grown since the parent read it
     * (a sibling wrote it); a miss the set does not answer reads it once
     * more. */
    int stale;
    unsigned char id[64];
    const struct lp_rules_set *set; /* arena memory, never freed; NULL:
                                     * no file (or none usable) */
};

/* Where the files are (dir/, 12 hex digits of our build-id), from init:
 * until then, and after a NULL dir, no file is read. */
void lp_rules_file_set_dir(const char *dir, const char *self12);

/* ra's rule from its object's file: true and *rule when the file has it. */
bool lp_rules_file_find(uintptr_t ra, uint64_t *rule);

/* The objects whose file was looked for under the current rules
 * generation, one at a time (i from 0 while it returns true; *o is NULL
 * for an unused slot); and a file's name. For the exit's write-back. */
bool lp_rules_file_obj(size_t i, const struct lp_rules_obj **o);
/* ra's object gets its slot (and its file read) if it has none: a rule
 * that came into the table before the files were known still goes out. */
void lp_rules_file_claim(uintptr_t ra);
bool lp_rules_file_name(const struct lp_rules_obj *o, char *buf, size_t n);
/* Whether a set of records (NULL: none) holds offset off (its rule into
 * *rule, unless NULL). */
bool lp_rules_set_has(const struct lp_rules_set *s, uint64_t off,
                      uint64_t *rule);

/* In a fork child (COLD): every file read so far is read again at the
 * child's first miss in its object that the records do not answer. A
 * shell's subshells with an empty cache each computed and wrote again
 * the rules the one before had just written. */
void lp_rules_file_atfork_child(void);

/* At start and exit (preload/life/unwind_rules_save.c, COLD). */
void lp_rules_file_init(void);
void lp_rules_file_save(void);

/* Tests: forget every object (their files are read again). */
void lp_rules_file_forget(void);

#endif /* LP_PRELOAD_UNWIND_RULES_FILE_H */
