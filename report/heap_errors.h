/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_HEAP_ERRORS_H
#define LP_REPORT_HEAP_ERRORS_H
/*
 * heap_errors.h - one heap error block in Memcheck's words: an invalid
 * or mismatched free, with the stack of the bad call and a description of
 * the address (a freed or live block with its stacks, a thread's stack, a
 * global, or nothing we know).
 *
 * preload/ fills a struct lp_heap_error (raw addresses and stacks) and
 * hands it here with the symbolizer; this module writes the lines, each
 * prefixed "==PID== ", exactly as Valgrind 3.19 prints them (checked
 * against its output in tests/e2e/heap_errors.sh).
 *
 * Context: COLD. Memory: plain malloc (the caller holds the guard).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/symbolize.h"

enum lp_heap_error_kind {
    LP_HEAP_ERR_INVALID_FREE = 0, /* Invalid free() / delete / ... */
    LP_HEAP_ERR_MISMATCH,         /* Mismatched free() / delete / delete [] */
};

enum lp_heap_error_where {
    LP_WHERE_FREED = 0,   /* inside a recently freed block */
    LP_WHERE_ALLOCD,      /* inside a live block */
    LP_WHERE_STACK,       /* on a thread's stack */
    LP_WHERE_DATA,        /* inside a global (data symbol) */
    LP_WHERE_OBJECT,      /* in a loaded object, no symbol known */
    LP_WHERE_SEGMENT,     /* in some other mapping: name is its path or
                             NULL (anonymous), perms its "rw-" */
    LP_WHERE_NOWHERE,     /* not stack'd, malloc'd or (recently) free'd */
};

/* A stack as preload records it: ips[0] is a pc inside our hook, the
 * rest return addresses (see lp_leaks_frames). */
struct lp_heap_error_stack {
    const uintptr_t *ips;
    unsigned nips;
};

struct lp_heap_error {
    int pid;
    /* Valgrind's "Thread N:" line before the title: the number of the
     * thread that made the bad call, when it differs from the thread of
     * the previous error (the first is compared with 1); 0 = no line. */
    int thread_header;
    enum lp_heap_error_kind kind;
    uintptr_t addr;
    struct lp_heap_error_stack at; /* the bad free/delete/realloc */
    enum lp_heap_error_where where;
    /* FREED / ALLOCD: the block; DATA: offset into the symbol. */
    uint64_t offset, size;
    struct lp_heap_error_stack freed_at; /* FREED */
    struct lp_heap_error_stack alloc_at; /* FREED, ALLOCD */
    bool no_alloc_section; /* FREED: no "Block was alloc'd at" (Memcheck's
                              --keep-stacktraces=free, alloc-then-free, none) */
    /* STACK: Valgrind's thread number (main is 1) and, when the address
     * lies in a frame of the current stack, that frame's number (frame 0
     * is the hook) and its return address, else frame = -1. */
    int thread;
    int frame;
    uintptr_t frame_ip;
    /* DATA: the symbol's name (not yet demangled); OBJECT: the path. */
    const char *name;
    char perms[4]; /* SEGMENT */
};

/* Memcheck's first line for each kind. */
const char *lp_heap_error_title(enum lp_heap_error_kind kind);

/*
 * Write the block: title, "at"/"by" lines of the bad call, the address
 * description with its stacks, and an empty "==PID== " line. Stacks are
 * cut at depth frames (0: no limit) and symbolized as the leak report
 * does; frames of self_obj print "(in self_obj)". Returns 0 or -errno.
 */
int lp_heap_error_print(FILE *out, const struct lp_heap_error *e,
                        struct lp_sym *sym, const char *self_obj, int depth);

/* STACK with a frame: "in frame #N, created by fn (file:line)" into out;
 * false when Memcheck prints no such line (no function known). */
bool lp_heap_error_created_by(const struct lp_heap_error *e,
                              struct lp_sym *sym, const char *self_obj,
                              char *out, size_t n);

/*
 * The error as Memcheck's XML <error> (report/heap_errors_xml.c): unique,
 * tid (the thread's number), kind InvalidFree or MismatchedFree, <what>,
 * the bad call's <stack>, each address line as <auxwhat> with its stack;
 * with gen_suppressions its Memcheck:Free <suppression> inside, and again
 * after the error, as Memcheck writes it. Returns 0 or -errno.
 */
int lp_heap_error_xml(FILE *out, const struct lp_heap_error *e,
                      unsigned unique, int tid, struct lp_sym *sym,
                      const char *self_obj, int depth, bool gen_suppressions);

#endif /* LP_REPORT_HEAP_ERRORS_H */
