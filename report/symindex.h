/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_SYMINDEX_H
#define LP_REPORT_SYMINDEX_H
/*
 * symindex.h - one module's ELF symbols sorted by address, so that an
 * address -> symbol lookup is a binary search with libdwfl's own answer
 * (dwfl_module_addrinfo: the sized symbol containing the address that
 * starts closest, globals before locals, binding then size breaking
 * ties; with none, the sizeless label libdwfl falls back to; a label at
 * exactly the address is passed to libdwfl itself).
 * Also: compile units by address. Private to report/symbolize.c.
 * Context: COLD. Memory: libc malloc.
 */
#include <elfutils/libdwfl.h>
#include <stdbool.h>

struct lp_symindex;

/* Index mod's symbol table (loading it if needed); NULL when the module
 * has none or memory runs out. Names point into libdwfl's tables. */
struct lp_symindex *lp_symindex_new(Dwfl_Module *mod);

/* Among name and the defined, named STT_FUNC symbols (index > 0) at
 * exactly value, the one that better() ranks first (name on ties): the
 * symbolizer's choice among aliases. Symbols of one address are
 * neighbours in the sorted index, so no table of its own is built (a
 * hash entry a function symbol was 7% of a cc1 exit that had to index
 * cc1's 10^5 symbols). */
const char *lp_symindex_alias(const struct lp_symindex *ix, GElf_Addr value,
                              const char *name,
                              bool (*better)(const char *a, const char *b));
void lp_symindex_free(struct lp_symindex *ix);

/* dwfl_module_addrinfo(mod, addr, off, es, NULL, NULL, NULL), answered
 * from ix (ix == NULL: libdwfl itself). es gets st_info, st_size and
 * st_value only. */
const char *lp_symindex_lookup(struct lp_symindex *ix, Dwfl_Module *mod,
                               GElf_Addr addr, GElf_Off *off, GElf_Sym *es);
/* How many of ix's lookups were passed to libdwfl (a linear search over
 * the whole table each: 2 ms in libLLVM). */
unsigned long lp_symindex_fallbacks(const struct lp_symindex *ix);

/*
 * Compile units by address from the CUs' own DW_AT_low_pc/high_pc and
 * DW_AT_ranges, read once per module: clang emits no .debug_aranges,
 * which libdwfl's dwfl_module_addrdie relies on. lp_cuindex_find returns
 * the CU DIE containing addr (and the module's bias), or NULL.
 */
struct lp_cuindex;
struct lp_cuindex *lp_cuindex_new(Dwfl_Module *mod);
void lp_cuindex_free(struct lp_cuindex *ix);
Dwarf_Die *lp_cuindex_find(struct lp_cuindex *ix, Dwarf_Addr addr,
                           Dwarf_Addr *bias);

#endif /* LP_REPORT_SYMINDEX_H */
