/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_SYMBOLIZE_H
#define LP_REPORT_SYMBOLIZE_H
/*
 * symbolize.h - addresses of the current process -> function, file:line,
 * object, with inlined frames expanded, using libdw (libdwfl).
 *
 * Context: COLD. Called only when a report or snapshot is written, by a
 * thread that holds the preload guard (so its own allocations are not
 * tracked), or by tools. Memory comes from plain malloc; every string
 * returned stays valid until lp_sym_free().
 *
 * Each distinct address is resolved once and cached.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lp_sym;

struct lp_sym_frame {
    uintptr_t addr;      /* address to print: ip, or ip - 1 for return addrs */
    const char *fn;      /* demangled function name, NULL when unknown */
    const char *mangled; /* linkage name as in the symbol table, or NULL */
    const char *file;    /* source file base name, NULL without line info */
    int line;            /* 0 without line info */
    const char *obj;     /* full path of the containing object, or NULL */
    bool inlined;        /* this frame is an inlined caller expansion */
};

/* Maximum frames one address can expand to (inline depth + 1). */
#define LP_SYM_MAX_INLINE 16

/* Open a symbolizer for the current process (reads /proc/self/maps).
 * Returns NULL on failure (the report then prints `???` frames). */
struct lp_sym *lp_sym_new(void);

/*
 * Resolve ip. When is_return is true, ip is a return address and the
 * lookup (and the printed address) is at ip - 1, as Memcheck and Massif
 * print caller frames. Writes the innermost frame first, then one frame
 * per inlined caller (each with the same addr), up to max. Returns the
 * number written (>= 1 always when max >= 1; an unknown address gives one
 * frame with fn == NULL).
 */
int lp_sym_resolve(struct lp_sym *sym, uintptr_t ip, bool is_return,
                   struct lp_sym_frame *out, int max);

/* Re-read the process's module list (after dlopen). */
void lp_sym_refresh(struct lp_sym *sym);

void lp_sym_free(struct lp_sym *sym);

/*
 * Format one frame as Valgrind's describe_IP does, without the
 * "at"/"by" prefix:  0xADDR: fn (file:line) | fn (in /obj) | ??? ...
 * self_obj, when non-NULL, is an object whose frames are always printed
 * in the "(in obj)" form (our own library, as Memcheck prints its
 * replacement malloc). Writes at most n bytes (NUL-terminated);
 * returns the length it would have needed, like snprintf.
 */
int lp_sym_describe(const struct lp_sym_frame *f, const char *self_obj,
                    char *buf, size_t n);

/* True when fn is main or a "below main" function, where stacks stop. */
bool lp_sym_is_below_main(const char *fn);

#endif /* LP_REPORT_SYMBOLIZE_H */
