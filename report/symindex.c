/* SPDX-License-Identifier: MIT */
/*
 * symindex.c - address -> ELF symbol for one module, answering as
 * libdwfl's dwfl_module_addrinfo does, by binary search over the module's
 * symbols sorted once by address: libdwfl walks every symbol on each
 * lookup (cc1 has ~10^5), which made exit time grow with the binary.
 * Context: COLD (report time). Memory: libc malloc.
 */
#include "report/symindex.h"

#include <stdlib.h>
#include <string.h>

/* One candidate of the address -> symbol search, as libdwfl's
 * dwfl_module_addrinfo considers them (named, defined, not a section,
 * file or TLS symbol). */
struct sym_rec {
    GElf_Addr value, size;
    GElf_Addr max_end; /* max value + size over recs[0..i], sorted order */
    const char *name;
    unsigned char info; /* st_info */
    int idx;            /* symbol table index: libdwfl's search order */
    GElf_Word shndx;    /* its section (SHN_XINDEX resolved) */
};

struct lp_symindex {
    struct sym_rec *recs; /* sorted by value */
    size_t nrecs;
    int first_global;
    unsigned long fallbacks; /* lookups answered by libdwfl */
};

static int cmp_rec(const void *a, const void *b)
{
    const struct sym_rec *x = a, *y = b;

    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Records in (value, symbol index) order. They are made in index order,
 * so a stable sort by value alone gives it: an LSD radix sort of (value,
 * position) keys, one byte a pass, skipping the bytes all values share
 * (a module's addresses differ in three or four), then one gather. qsort
 * was the exit's largest single cost after libdw itself whenever cc1's
 * 10^5 symbols were indexed (5% of a gcc -c whose symbol files were
 * gone). Falls back to qsort without memory.
 */
struct sort_key {
    GElf_Addr value;
    size_t at;
};

static void sort_recs(struct sym_rec *recs, size_t n)
{
    struct sort_key *k = malloc(2 * n * sizeof(*k)), *in, *out, *sw;
    struct sym_rec *sorted = malloc(n * sizeof(*sorted));
    size_t i, shift;

    if (k == NULL || sorted == NULL || n < 64) {
        free(k);
        free(sorted);
        qsort(recs, n, sizeof(*recs), cmp_rec);
        return;
    }
    in = k;
    out = k + n;
    for (i = 0; i < n; i++) {
        in[i].value = recs[i].value;
        in[i].at = i;
    }
    for (shift = 0; shift < 64; shift += 8) {
        size_t count[256] = {0}, sum = 0, d;

        for (i = 0; i < n; i++)
            count[(in[i].value >> shift) & 255]++;
        if (count[(in[0].value >> shift) & 255] == n)
            continue; /* every value has this byte */
        for (d = 0; d < 256; d++) {
            size_t c = count[d];

            count[d] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            out[count[(in[i].value >> shift) & 255]++] = in[i];
        sw = in;
        in = out;
        out = sw;
    }
    for (i = 0; i < n; i++)
        sorted[i] = recs[in[i].at];
    memcpy(recs, sorted, n * sizeof(*recs));
    free(sorted);
    free(k);
}

struct lp_symindex *lp_symindex_new(Dwfl_Module *mod)
{
    struct lp_symindex *m = calloc(1, sizeof(*m));
    int i, n = dwfl_module_getsymtab(mod);
    size_t k;

    if (m == NULL)
        return NULL;
    m->first_global = n > 0 ? dwfl_module_getsymtab_first_global(mod) : 0;
    m->recs = n > 0 ? malloc(sizeof(*m->recs) * (size_t)n) : NULL;
    if (m->recs == NULL) {
        free(m);
        return NULL;
    }
    /* From 1: neither of libdwfl's passes looks at entry 0. */
    for (i = 1; i < n; i++) {
        GElf_Sym es;
        GElf_Addr value;
        GElf_Word shndx = SHN_UNDEF;
        const char *nm = dwfl_module_getsym_info(mod, i, &es, &value, &shndx,
                                                 NULL, NULL);
        int type = GELF_ST_TYPE(es.st_info);

        if (nm == NULL || nm[0] == '\0' || es.st_shndx == SHN_UNDEF)
            continue;
        if (type != STT_SECTION && type != STT_FILE && type != STT_TLS) {
            struct sym_rec *r = &m->recs[m->nrecs++];

            r->value = value;
            r->size = es.st_size;
            r->name = nm;
            r->info = es.st_info;
            r->idx = i;
            r->shndx = shndx;
        }
    }
    if (m->nrecs > 0)
        sort_recs(m->recs, m->nrecs);
    for (k = 0; k < m->nrecs; k++) {
        struct sym_rec *r = &m->recs[k];
        GElf_Addr end = r->value + r->size;

        r->max_end = k > 0 && m->recs[k - 1].max_end > end ? m->recs[k - 1].max_end : end;
    }
    return m;
}

unsigned long lp_symindex_fallbacks(const struct lp_symindex *ix)
{
    return ix != NULL ? ix->fallbacks : 0;
}

const char *lp_symindex_alias(const struct lp_symindex *m, GElf_Addr value,
                              const char *name,
                              bool (*better)(const char *a, const char *b))
{
    size_t lo = 0, hi;

    if (m == NULL || m->recs == NULL)
        return name;
    hi = m->nrecs;
    while (lo < hi) { /* first rec with value >= value */
        size_t mid = lo + (hi - lo) / 2;

        if (m->recs[mid].value < value)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < m->nrecs && m->recs[lo].value == value; lo++) {
        const struct sym_rec *r = &m->recs[lo];

        if (r->idx != 0 && GELF_ST_TYPE(r->info) == STT_FUNC &&
            better(r->name, name))
            name = r->name;
    }
    return name;
}

void lp_symindex_free(struct lp_symindex *ix)
{
    if (ix != NULL) {
        free(ix->recs);
        free(ix);
    }
}

/* libdwfl's preference between symbols (GELF_ST_BIND, higher better). */
static int binding_value(unsigned char info)
{
    switch (GELF_ST_BIND(info)) {
    case STB_GLOBAL:
        return 3;
    case STB_WEAK:
        return 2;
    case STB_LOCAL:
        return 1;
    default:
        return 0;
    }
}

/* Would libdwfl's search take r over the current best c? */
static bool rec_better(const struct sym_rec *c, const struct sym_rec *r)
{
    if (c == NULL || c->value < r->value ||
        binding_value(c->info) < binding_value(r->info))
        return true;
    return c->value == r->value &&
           ((c->size > r->size && binding_value(c->info) <= binding_value(r->info)) ||
            (c->size >= r->size && binding_value(c->info) < binding_value(r->info)));
}

#define SYM_MAX_CONTAINING 32
#define SYM_MAX_WALK 256

/* The question to libdwfl itself, counted. */
static const char *by_libdwfl(struct lp_symindex *m, Dwfl_Module *mod,
                              GElf_Addr addr, GElf_Off *off, GElf_Sym *es)
{
    if (m != NULL)
        m->fallbacks++;
    return dwfl_module_addrinfo(mod, addr, off, es, NULL, NULL, NULL);
}

/* The section libdwfl finds a at (NULL: none), by its own search. */
static Elf_Scn *section_at(Dwfl_Module *mod, GElf_Addr a)
{
    Dwarf_Addr rel = a, bias;

    return dwfl_module_address_section(mod, &rel, &bias);
}

/*
 * libdwfl's answer for an address no sized symbol contains, top being
 * the last record at or below it. libdwfl then falls back to a sizeless
 * symbol (an assembler label) of addr's section, one it met at or past
 * the end of every symbol it had seen below addr, and keeps it only if
 * it still lies at or past all of them once both passes are done. So
 * the label must sit at exactly M, the highest end of any symbol at or
 * below addr (recs[top].max_end): the records at M are the index's
 * topmost, and all sizeless. Among them its passes keep the last one
 * met: the highest-numbered local when the locals were searched (after
 * the globals), else the highest-numbered global. NULL when there is
 * none, or when M is in another section than addr.
 */
static const struct sym_rec *label_at_end(const struct lp_symindex *m,
                                          Dwfl_Module *mod, size_t top,
                                          GElf_Addr addr)
{
    GElf_Addr at = m->recs[top].max_end;
    const struct sym_rec *local = NULL, *global = NULL;
    bool two_passes = m->first_global > 1;
    size_t j;

    if (m->recs[top].value != at || section_at(mod, at) != section_at(mod, addr))
        return NULL;
    for (j = top + 1; j-- > 0 && m->recs[j].value == at;) {
        const struct sym_rec *r = &m->recs[j];

        if (r->shndx >= SHN_LORESERVE) /* SHN_ABS...: only at addr itself */
            continue;
        if (two_passes && r->idx < m->first_global) {
            if (local == NULL || r->idx > local->idx)
                local = r;
        } else if (global == NULL || r->idx > global->idx) {
            global = r;
        }
    }
    return local != NULL ? local : global;
}

/*
 * dwfl_module_addrinfo's answer (the name, st_info, st_size, offset) from
 * the sorted index. libdwfl searches the globals first, then (only when
 * no sized global contains addr) the locals, keeping the sized symbol
 * containing addr that starts closest (binding, then size, break ties);
 * only with no such symbol does it fall back to a sizeless label in the
 * same section (label_at_end). All of that is answered here; a label at
 * exactly addr, and addresses inside more symbols than the index looks
 * through, go to libdwfl.
 */
const char *lp_symindex_lookup(struct lp_symindex *m, Dwfl_Module *mod,
                               GElf_Addr addr, GElf_Off *off, GElf_Sym *es)
{
    const struct sym_rec *in[SYM_MAX_CONTAINING], *best = NULL;
    size_t lo = 0, hi, nin = 0, j, steps = 0;
    int pass;

    if (m == NULL || m->recs == NULL)
        return by_libdwfl(m, mod, addr, off, es);
    hi = m->nrecs;
    while (lo < hi) { /* first rec with value > addr */
        size_t mid = lo + (hi - lo) / 2;

        if (m->recs[mid].value <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    for (j = lo; j-- > 0 && m->recs[j].max_end > addr;) {
        const struct sym_rec *r = &m->recs[j];

        if (++steps > SYM_MAX_WALK || nin == SYM_MAX_CONTAINING)
            return by_libdwfl(m, mod, addr, off, es);
        if (r->size != 0 && addr - r->value < r->size)
            in[nin++] = r;
    }
    for (j = lo; j-- > 0 && m->recs[j].value == addr;)
        if (m->recs[j].size == 0) /* an exact label: libdwfl's own rules */
            return by_libdwfl(m, mod, addr, off, es);
    /* Replay libdwfl's loop over the containing symbols, in its order:
     * globals, then (when none was taken) locals, each by index. */
    for (pass = 0; pass < 2 && best == NULL; pass++) {
        int last = -1;

        for (;;) {
            const struct sym_rec *r = NULL;
            size_t k;

            for (k = 0; k < nin; k++)
                if ((in[k]->idx >= m->first_global) == (pass == 0) &&
                    in[k]->idx > last && (r == NULL || in[k]->idx < r->idx))
                    r = in[k];
            if (r == NULL)
                break;
            last = r->idx;
            if (rec_better(best, r))
                best = r;
        }
    }
    if (best == NULL) {
        best = label_at_end(m, mod, lo - 1, addr);
        if (best == NULL)
            return NULL;
    }
    memset(es, 0, sizeof(*es));
    es->st_info = best->info;
    es->st_size = best->size;
    es->st_value = best->value;
    *off = addr - best->value;
    return best->name;
}

/* ---- compile units by address ------------------------------------------ */

/* One address range of a compile unit (DW_AT_low_pc/high_pc/ranges). */
struct sym_cu {
    Dwarf_Addr lo, hi;
    Dwarf_Die die;
};

struct lp_cuindex {
    struct sym_cu *cus; /* sorted by lo */
    size_t ncus;
    Dwarf_Addr cu_bias;
};

static int cmp_cu(const void *a, const void *b)
{
    const struct sym_cu *x = a, *y = b;

    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Every CU's address ranges, from the CUs themselves: clang emits no
 * .debug_aranges, which libdwfl's address -> CU lookup relies on. */
static void read_cus(struct lp_cuindex *m, Dwfl_Module *mod)
{
    Dwarf_Die *cu = NULL;
    Dwarf_Addr bias = 0;
    size_t cap = 0;

    while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
        Dwarf_Addr base, start, end;
        ptrdiff_t off = 0;

        m->cu_bias = bias;
        while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
            if (start >= end)
                continue;
            if (m->ncus == cap) {
                struct sym_cu *more;

                cap = cap ? cap * 2 : 64;
                more = realloc(m->cus, cap * sizeof(*more));
                if (more == NULL)
                    return;
                m->cus = more;
            }
            m->cus[m->ncus].lo = start;
            m->cus[m->ncus].hi = end;
            m->cus[m->ncus].die = *cu;
            m->ncus++;
        }
    }
    if (m->ncus > 1)
        qsort(m->cus, m->ncus, sizeof(*m->cus), cmp_cu);
}

struct lp_cuindex *lp_cuindex_new(Dwfl_Module *mod)
{
    struct lp_cuindex *ix = calloc(1, sizeof(*ix));

    if (ix != NULL)
        read_cus(ix, mod);
    return ix;
}

void lp_cuindex_free(struct lp_cuindex *ix)
{
    if (ix != NULL) {
        free(ix->cus);
        free(ix);
    }
}

Dwarf_Die *lp_cuindex_find(struct lp_cuindex *m, Dwarf_Addr addr,
                           Dwarf_Addr *bias)
{
    size_t lo = 0, hi, steps;
    Dwarf_Addr rel;

    if (m == NULL)
        return NULL;
    rel = addr - m->cu_bias;
    hi = m->ncus;
    while (lo < hi) { /* first range starting above rel */
        size_t mid = lo + (hi - lo) / 2;

        if (m->cus[mid].lo <= rel)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (steps = 0; lo-- > 0 && steps < 16; steps++)
        if (rel < m->cus[lo].hi) {
            *bias = m->cu_bias;
            return &m->cus[lo].die;
        }
    return NULL;
}
