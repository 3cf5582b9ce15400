/* SPDX-License-Identifier: MIT */
/*
 * libdw_lazy.c - libdw (and with it libelf) loaded when the first report
 * or snapshot is symbolized, not when the program starts.
 *
 * Why: libdw.so.1 and libelf.so.1 each have a TLS segment. Loaded at
 * startup (as DT_NEEDED of libleakprof.so) they are two more TLS modules,
 * and glibc sizes the DTV that pthread_create allocates for every new
 * thread from the number of modules: 32 bytes more per thread than under
 * Memcheck, in each live thread's "possibly lost" DTV block and in "total
 * heap usage" (see preload/hot/tcb_slot.h for the arithmetic). Loaded at
 * report time they change nothing the program allocated before.
 *
 * How: libleakprof.so is not linked against libdw. This file defines each
 * libdw function the library calls (hidden: the program never sees them),
 * with the prototype from <elfutils/libdwfl.h>, so a wrong signature does
 * not compile. The first call dlopens libdw.so.1 and looks up every
 * function; each definition forwards to the real one. If libdw cannot be
 * loaded, dwfl_begin returns NULL and the symbolizer prints addresses
 * with object names, as it does for a module without debug information.
 * A function missing from the list below is a link error (-z defs) that
 * names it: add one line.
 *
 * The caveat: after the first report (a snapshot signal, a live report),
 * threads the program creates get DTVs 32 bytes bigger than Memcheck's.
 *
 * Context: COLD; the caller holds the guard (dlopen allocates: untracked).
 */
#include <dlfcn.h>

#include "preload/life/libdw_objects.h"
#include "preload/life/own_tls.h"
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "preload/hot/guard.h"

/* X(return type, name, (parameters), (arguments), value on failure) */
#define LP_DW_FUNCS(X) \
    X(Dwarf_Attribute *, dwarf_attr, \
      (Dwarf_Die * die, unsigned int name, Dwarf_Attribute *res), \
      (die, name, res), NULL) \
    X(Dwarf_Attribute *, dwarf_attr_integrate, \
      (Dwarf_Die * die, unsigned int name, Dwarf_Attribute *res), \
      (die, name, res), NULL) \
    X(int, dwarf_child, (Dwarf_Die * die, Dwarf_Die *res), (die, res), -1) \
    X(const char *, dwarf_diename, (Dwarf_Die * die), (die), NULL) \
    X(const char *, dwarf_filesrc, \
      (Dwarf_Files * f, size_t idx, Dwarf_Word *mtime, Dwarf_Word *len), \
      (f, idx, mtime, len), NULL) \
    X(Dwarf_Die *, dwarf_formref_die, (Dwarf_Attribute * a, Dwarf_Die *mem), \
      (a, mem), NULL) \
    X(const char *, dwarf_formstring, (Dwarf_Attribute * a), (a), NULL) \
    X(int, dwarf_formudata, (Dwarf_Attribute * a, Dwarf_Word *v), (a, v), -1) \
    X(int, dwarf_getscopes, (Dwarf_Die * cu, Dwarf_Addr pc, Dwarf_Die **s), \
      (cu, pc, s), -1) \
    X(int, dwarf_getscopes_die, (Dwarf_Die * die, Dwarf_Die **s), (die, s), \
      -1) \
    X(int, dwarf_haspc, (Dwarf_Die * die, Dwarf_Addr pc), (die, pc), -1) \
    X(int, dwarf_getsrcdirs, \
      (Dwarf_Files * files, const char *const **dirs, size_t *n), \
      (files, dirs, n), -1) \
    X(int, dwarf_getsrcfiles, \
      (Dwarf_Die * cu, Dwarf_Files **files, size_t *n), (cu, files, n), -1) \
    X(int, dwarf_siblingof, (Dwarf_Die * die, Dwarf_Die *res), (die, res), \
      -1) \
    X(int, dwarf_tag, (Dwarf_Die * die), (die), -1) \
    X(Dwarf_Line *, dwarf_getsrc_die, (Dwarf_Die * cu, Dwarf_Addr a), \
      (cu, a), NULL) \
    X(int, dwarf_lineno, (Dwarf_Line * l, int *linep), (l, linep), -1) \
    X(const char *, dwarf_linesrc, \
      (Dwarf_Line * l, Dwarf_Word *mtime, Dwarf_Word *len), \
      (l, mtime, len), NULL) \
    X(ptrdiff_t, dwarf_ranges, \
      (Dwarf_Die * die, ptrdiff_t off, Dwarf_Addr *basep, \
       Dwarf_Addr *startp, Dwarf_Addr *endp), \
      (die, off, basep, startp, endp), -1) \
    X(const char *, dwfl_line_comp_dir, (Dwfl_Line * l), (l), NULL) \
    X(int, dwfl_module_build_id, \
      (Dwfl_Module * m, const unsigned char **bits, GElf_Addr *vaddr), \
      (m, bits, vaddr), -1) \
    X(Elf *, dwfl_module_getelf, (Dwfl_Module * m, GElf_Addr *bias), \
      (m, bias), NULL) \
    X(int, dwfl_module_getsymtab_first_global, (Dwfl_Module * m), (m), -1) \
    X(Dwarf_Die *, dwfl_module_nextcu, \
      (Dwfl_Module * m, Dwarf_Die *last, Dwarf_Addr *bias), \
      (m, last, bias), NULL) \
    X(Dwfl_Module *, dwfl_addrmodule, (Dwfl * d, Dwarf_Addr a), (d, a), NULL) \
    X(Elf_Scn *, dwfl_module_address_section, \
      (Dwfl_Module * m, Dwarf_Addr *a, Dwarf_Addr *bias), (m, a, bias), NULL) \
    X(Dwfl *, dwfl_begin, (const Dwfl_Callbacks *cb), (cb), NULL) \
    X(const char *, dwfl_lineinfo, \
      (Dwfl_Line * l, Dwarf_Addr *a, int *line, int *col, Dwarf_Word *mtime, \
       Dwarf_Word *len), \
      (l, a, line, col, mtime, len), NULL) \
    X(int, dwfl_linux_proc_find_elf, \
      (Dwfl_Module * m, void **ud, const char *name, Dwarf_Addr base, \
       char **file, Elf **elf), \
      (m, ud, name, base, file, elf), -1) \
    X(int, dwfl_linux_proc_report, (Dwfl * d, pid_t pid), (d, pid), -1) \
    X(Dwfl_Module *, dwfl_report_elf, \
      (Dwfl * d, const char *name, const char *file, int fd, GElf_Addr base, \
       bool add_p_vaddr), \
      (d, name, file, fd, base, add_p_vaddr), NULL) \
    X(Dwarf_Die *, dwfl_module_addrdie, \
      (Dwfl_Module * m, Dwarf_Addr a, Dwarf_Addr *bias), (m, a, bias), NULL) \
    X(const char *, dwfl_module_addrinfo, \
      (Dwfl_Module * m, GElf_Addr a, GElf_Off *off, GElf_Sym *sym, \
       GElf_Word *shndx, Elf **elf, Dwarf_Addr *bias), \
      (m, a, off, sym, shndx, elf, bias), NULL) \
    X(Dwfl_Line *, dwfl_module_getsrc, (Dwfl_Module * m, Dwarf_Addr a), \
      (m, a), NULL) \
    X(const char *, dwfl_module_getsym_info, \
      (Dwfl_Module * m, int ndx, GElf_Sym *sym, GElf_Addr *a, \
       GElf_Word *shndx, Elf **elf, Dwarf_Addr *bias), \
      (m, ndx, sym, a, shndx, elf, bias), NULL) \
    X(int, dwfl_module_getsymtab, (Dwfl_Module * m), (m), -1) \
    X(Dwarf *, dwfl_module_getdwarf, (Dwfl_Module * m, Dwarf_Addr *bias), \
      (m, bias), NULL) \
    X(ptrdiff_t, dwfl_getmodules, \
      (Dwfl * d, \
       int (*cb)(Dwfl_Module *, void **, const char *, Dwarf_Addr, void *), \
       void *arg, ptrdiff_t offset), \
      (d, cb, arg, offset), -1) \
    X(int, dwfl_linux_proc_maps_report, (Dwfl * d, FILE *f), (d, f), -1) \
    X(const char *, dwfl_module_info, \
      (Dwfl_Module * m, void ***ud, Dwarf_Addr *start, Dwarf_Addr *end, \
       Dwarf_Addr *dwbias, Dwarf_Addr *symbias, const char **mainfile, \
       const char **debugfile), \
      (m, ud, start, end, dwbias, symbias, mainfile, debugfile), NULL) \
    X(int, dwfl_report_end, \
      (Dwfl * d, \
       int (*removed)(Dwfl_Module *, void *, const char *, Dwarf_Addr, \
                      void *), \
       void *arg), \
      (d, removed, arg), -1) \
    X(int, dwfl_standard_find_debuginfo, \
      (Dwfl_Module * m, void **ud, const char *name, Dwarf_Addr base, \
       const char *file, const char *debuglink, GElf_Word crc, \
       char **debugfile), \
      (m, ud, name, base, file, debuglink, crc, debugfile), -1)

/* The same for functions returning nothing. */
#define LP_DW_VOID_FUNCS(X) \
    X(dwfl_end, (Dwfl * d), (d)) \
    X(dwfl_report_begin, (Dwfl * d), (d))

#define PTR(ret, name, params, args, fail) ret(*name) params;
#define VPTR(name, params, args) void(*name) params;
static struct {
    LP_DW_FUNCS(PTR)
    LP_DW_VOID_FUNCS(VPTR)
} real_dw;
#undef PTR
#undef VPTR

static int load_state; /* 0 not tried, 1 loaded, -1 failed; atomic */
static int load_lock;

LP_COLD static bool load(void)
{
    bool held = lp_guard_held;
    void *h;
    bool ok = true;
    unsigned tls_before;

    lp_spin_lock(&load_lock);
    if (lp_load_relaxed(&load_state) != 0) {
        lp_spin_unlock(&load_lock);
        return lp_load_relaxed(&load_state) > 0;
    }
    lp_guard_held = true;
    /* libdw and libelf have TLS: new threads' DTVs grow (own_tls.c). */
    tls_before = lp_own_tls_count_before();
    lp_libdw_objects_before();
    h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    lp_libdw_objects_after();
    lp_own_tls_count_after(tls_before);
    if (h == NULL)
        ok = false;
#define SYM(name) \
    if (ok && (*(void **)&real_dw.name = dlsym(h, #name)) == NULL) \
        ok = false;
#define GET(ret, name, params, args, fail) SYM(name)
#define VGET(name, params, args) SYM(name)
    LP_DW_FUNCS(GET)
    LP_DW_VOID_FUNCS(VGET)
#undef GET
#undef VGET
#undef SYM
    lp_guard_restore(held);
    lp_store_release(&load_state, ok ? 1 : -1);
    lp_spin_unlock(&load_lock);
    return ok;
}

static inline bool loaded(void)
{
    int s = lp_load_acquire(&load_state);

    return LP_LIKELY(s > 0) || (s == 0 && load());
}

#define DEF(ret, name, params, args, fail) \
    ret name params \
    { \
        if (!loaded()) \
            return fail; \
        return real_dw.name args; \
    }
#define VDEF(name, params, args) \
    void name params \
    { \
        if (loaded()) \
            real_dw.name args; \
    }
LP_DW_FUNCS(DEF)
LP_DW_VOID_FUNCS(VDEF)
