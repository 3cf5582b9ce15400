/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_SUPPRESS_IMPL_H
#define LP_REPORT_SUPPRESS_IMPL_H
/*
 * suppress_impl.h - the suppression set's insides, shared by suppress.c
 * (the set, matching, usage output) and suppress_parse.c (reading .supp
 * files, LSan lines and the built-in entries). Not for other modules.
 */
#include "report/suppress.h"

enum pat_type { PAT_FUN, PAT_OBJ, PAT_SRC, PAT_DOTS };

struct pat {
    enum pat_type type;
    char *glob; /* NULL for PAT_DOTS */
    int line;   /* PAT_SRC: required line, 0 for any */
};

struct entry {
    char *name;     /* Valgrind name line, or the LSan template */
    char *file;
    int line;
    bool lsan;
    unsigned kinds; /* LP_KIND_BIT set; 0 for a Free entry */
    bool free_err;  /* Memcheck:Free: an invalid or mismatched free */
    struct pat *pats;
    int npats;
    uint64_t records, bytes, blocks;
};

struct lp_supp {
    struct entry *e;
    int n, cap;
    int *order;     /* Valgrind entries only, head = highest priority */
    int norder;
    int max_callers; /* frame lines used per entry, 0 = all */
};

/* Free an entry's strings and patterns and zero it. */
void lp_supp_entry_release(struct entry *e);

#endif /* LP_REPORT_SUPPRESS_IMPL_H */
