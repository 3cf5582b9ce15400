/* SPDX-License-Identifier: MIT */
/*
 * symbolize.c - addresses of this process -> function, file:line, object,
 * inlined callers expanded, through libdwfl (with symbolize_cache.c, which
 * keeps what it learns across processes, the only includer of libdwfl).
 * Context: COLD (report time). Not thread-safe: callers serialise.
 *
 * How an address becomes frames, matching what Valgrind prints:
 *   - the object is the module's name as /proc/self/maps spells it;
 *   - the function of the out-of-line code is the ELF symbol (as Valgrind
 *     reads .symtab/.dynsym), demangled; DWARF only fills in when there is
 *     no symbol at all;
 *   - the line is the line table's row for the address, file as a base name
 *     (the full path and the CU's comp_dir ride along for SARIF);
 *   - when the address lies in DW_TAG_inlined_subroutine scopes, the
 *     innermost inlined function gets the address's line, and each caller
 *     in turn gets the DW_AT_call_file:DW_AT_call_line of the scope it
 *     inlined, ending with the out-of-line function.
 * Every string lives in one intern table, so frames share storage and stay
 * valid until lp_sym_free().
 */
#include "report/symbolize_impl.h"

#include "report/debug_find.h"
#include "report/symindex.h"
#include "report/demangle_rust.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <uthash.h>

static void free_mods(struct lp_sym *sym);
static Dwarf_Die *cu_of(struct lp_sym *sym, Dwfl_Module *mod, Dwarf_Addr addr,
                        Dwarf_Addr *bias);

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/*
 * __cxa_demangle without linking libstdc++: a C++ program already has it
 * loaded; for a C program that somehow shows _Z names we load libstdc++
 * privately. Resolved once; a failed lookup is remembered too.
 */
static cxa_demangle_fn find_demangler(void)
{
    static cxa_demangle_fn fn;
    static bool tried;

    if (tried)
        return fn;
    tried = true;
    fn = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (fn == NULL) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

        if (h != NULL)
            fn = (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
        /* h stays open: fn points into it for the life of the process. */
    }
    return fn;
}

const char *lp_sym_intern(struct lp_sym *sym, const char *s)
{
    struct sym_str *e;
    size_t len;

    if (s == NULL)
        return NULL;
    len = strlen(s);
    HASH_FIND(hh, sym->strs, s, len, e);
    if (e != NULL)
        return e->s;
    e = malloc(sizeof(*e) + len + 1);
    if (e == NULL)
        return NULL;
    memcpy(e->s, s, len + 1);
    HASH_ADD_KEYPTR(hh, sym->strs, e->s, len, e);
    return e->s;
}

const char *lp_sym_demangle(struct lp_sym *sym, const char *name)
{
    cxa_demangle_fn dem;
    char *out;
    const char *r;
    int status = -1;

    if (name == NULL || (strncmp(name, "_Z", 2) != 0 && strncmp(name, "_R", 2) != 0))
        return sym != NULL ? lp_sym_intern(sym, name) : name;
    /* Rust first, as Valgrind does: its legacy names are valid C++ ones
     * too, with a hash C++ would print. */
    out = lp_rust_demangle(name);
    if (out != NULL && sym != NULL) {
        r = lp_sym_intern(sym, out);
        free(out);
        return r != NULL ? r : lp_sym_intern(sym, name);
    }
    free(out);
    if (name[1] == 'R')
        return sym != NULL ? lp_sym_intern(sym, name) : name;
    dem = find_demangler();
    if (dem == NULL)
        return sym != NULL ? lp_sym_intern(sym, name) : name;
    out = dem(name, NULL, NULL, &status);
    if (status != 0 || out == NULL) {
        free(out);
        return sym != NULL ? lp_sym_intern(sym, name) : name;
    }
    if (sym == NULL) {
        /* No table to own the string: keep the raw name (documented). */
        free(out);
        return name;
    }
    r = lp_sym_intern(sym, out);
    free(out);
    return r != NULL ? r : lp_sym_intern(sym, name);
}

static const char *base_name(const char *path)
{
    const char *slash;

    if (path == NULL)
        return NULL;
    slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/*
 * The name a source file has in its line table, as Memcheck prints it:
 * the file entry's own name, with whatever directories the compiler
 * wrote into it ("library/alloc/src/fmt.rs" from rustc, "src/main.c"
 * from clang given a relative path), not the directory entry it hangs
 * from. libdw hands out only the joined path, directory + "/" + name;
 * the directory is the longest of the table's that prefixes it. With no
 * table, or no directory that fits, the path's last component.
 */
static const char *entry_name(Dwarf_Files *files, const char *path)
{
    const char *const *dirs;
    const char *name = NULL;
    size_t ndirs = 0, best = 0, i;

    if (path == NULL)
        return NULL;
    if (files != NULL && dwarf_getsrcdirs(files, &dirs, &ndirs) == 0)
        for (i = 0; i < ndirs; i++) {
            size_t len = dirs[i] != NULL ? strlen(dirs[i]) : 0;

            while (len > 1 && dirs[i][len - 1] == '/')
                len--;
            if (len > best && strncmp(path, dirs[i], len) == 0 &&
                path[len] == '/' && path[len + 1] != '\0') {
                best = len;
                name = path + len + 1;
            }
        }
    return name != NULL ? name : base_name(path);
}

static int loader_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *c = arg;

    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
        c[0] = info->dlpi_adds;
        c[1] = info->dlpi_subs;
    }
    return 1;
}


static int report_modules(struct lp_sym *sym)
{
    unsigned long long c[2] = {0, 0};

    dl_iterate_phdr(loader_counts, c);
    sym->adds = c[0];
    sym->subs = c[1];
    dwfl_report_begin(sym->dwfl);
    /* The calling thread's /proc entry: /proc/PID is the main thread's,
     * empty once it left by pthread_exit. */
    if (dwfl_linux_proc_report(sym->dwfl, (pid_t)syscall(SYS_gettid)) != 0 &&
        !lp_sym_maps_report(sym->dwfl)) {
        dwfl_report_end(sym->dwfl, NULL, NULL);
        return -1;
    }
    return dwfl_report_end(sym->dwfl, NULL, NULL) == 0 ? 0 : -1;
}

bool (*lp_sym_loaded_by_us)(uintptr_t addr, unsigned long long adds);

struct lp_sym *lp_sym_new(void)
{
    struct lp_sym *sym = calloc(1, sizeof(*sym));

    if (sym == NULL)
        return NULL;
    sym->cb.find_elf = dwfl_linux_proc_find_elf;
    sym->cb.find_debuginfo = lp_debug_find;
    sym->cb.debuginfo_path = &sym->debuginfo_path;
    return sym;
}

/*
 * libdwfl on first use, not in lp_sym_new: a process with nothing to
 * name (no loss record, no allocation in a massif tree) never loads
 * libdw nor reads its modules (the dlopen and the report were about a
 * fifth of what leakprof adds to an empty program). False when libdw or
 * the report failed: addresses then stay unnamed, as without a symbolizer.
 */
bool lp_sym_ensure(struct lp_sym *sym)
{
    if (sym == NULL)
        return false;
    if (!sym->started) {
        sym->started = true;
        sym->dwfl = dwfl_begin(&sym->cb);
        if (sym->dwfl != NULL && report_modules(sym) != 0) {
            dwfl_end(sym->dwfl);
            sym->dwfl = NULL;
        }
    }
    return sym->dwfl != NULL;
}

static void clear_cache(struct lp_sym *sym)
{
    struct sym_entry *e, *tmp;
    struct sym_fn *f, *ftmp;

    HASH_ITER(hh, sym->cache, e, tmp) {
        HASH_DEL(sym->cache, e);
        free(e);
    }
    HASH_ITER(hh, sym->fns, f, ftmp) {
        HASH_DEL(sym->fns, f);
        free(f);
    }
    lp_sym_cache_drop(sym);
}

void lp_sym_refresh(struct lp_sym *sym)
{
    unsigned long long c[2] = {0, 0};
    bool dw_stale, mc_stale;

    if (sym == NULL || (sym->dwfl == NULL && !sym->mc_built))
        return; /* nothing looked at yet: the first use looks */
    /* Nothing loaded or unloaded since the modules and the objects were
     * listed: keep it all (a refresh drops every module's names and
     * symbol index, read again after). */
    dl_iterate_phdr(loader_counts, c);
    dw_stale = sym->dwfl != NULL && (c[0] != sym->adds || c[1] != sym->subs);
    mc_stale = sym->mc_built && (c[0] != sym->mc_adds || c[1] != sym->mc_subs);
    if (!dw_stale && !mc_stale)
        return;
    /* An address may now belong to a new object (dlclose + dlopen), and
     * a module that went away takes its symbol names with it. */
    lp_sym_save_cache(sym);
    clear_cache(sym); /* the objects too: listed again on next use */
    if (dw_stale) {
        free_mods(sym);
        report_modules(sym);
    }
}

void lp_sym_free(struct lp_sym *sym)
{
    struct sym_str *s, *tmp;

    if (sym == NULL)
        return;
    clear_cache(sym);
    free_mods(sym);
    HASH_ITER(hh, sym->strs, s, tmp) {
        HASH_DEL(sym->strs, s);
        free(s);
    }
    if (sym->dwfl != NULL)
        dwfl_end(sym->dwfl);
    lp_sym_unloaded_end(sym);
    free(sym);
}

/* The name a (possibly abstract) function DIE is known by: the linkage
 * name when there is one (C++), else DW_AT_name. */
static const char *die_linkage_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name;

    name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (name == NULL)
        name = dwarf_formstring(
            dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
    if (name == NULL)
        name = dwarf_diename(die);
    if (name == NULL) {
        Dwarf_Die origin;

        if (dwarf_attr_integrate(die, DW_AT_abstract_origin, &attr) != NULL &&
            dwarf_formref_die(&attr, &origin) != NULL)
            name = dwarf_diename(&origin);
    }
    return name;
}

/*
 * The name an inlined scope is shown by, as Memcheck shows it: the
 * DW_AT_name of the function it inlines (followed through the abstract
 * origin and a declaration's specification), "allocate" and "push_back"
 * rather than the whole demangled signature, "try_allocate_in<alloc::
 * alloc::Global>" for Rust. The linkage name only when there is no name.
 */
static const char *die_inline_name(Dwarf_Die *die)
{
    const char *name = dwarf_diename(die);

    return name != NULL ? name : die_linkage_name(die);
}

static void set_name(struct lp_sym *sym, struct lp_sym_frame *f,
                     const char *linkage)
{
    f->mangled = lp_sym_intern(sym, linkage);
    f->fn = lp_sym_demangle(sym, linkage);
}

/*
 * The innermost scope at pc whose function lies inside a namespace or a
 * type: dwarf_getscopes skips every DIE without an address range, so it
 * never finds Rust's functions (rustc nests each definition in the DIEs
 * of its module path, impl blocks included) where Memcheck, which reads
 * every DIE, expands their inlined frames. Descends only through DIEs
 * that may own code and into the one whose range holds pc; true with
 * *out the innermost such DIE below the CU.
 */
static bool nested_scope_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out,
                            int depth)
{
    Dwarf_Die child;

    if (depth > 64 || dwarf_child(parent, &child) != 0)
        return false;
    do {
        switch (dwarf_tag(&child)) {
        case DW_TAG_namespace:
        case DW_TAG_structure_type:
        case DW_TAG_class_type:
        case DW_TAG_union_type:
        case DW_TAG_enumeration_type:
        case DW_TAG_module:
            if (nested_scope_at(&child, pc, out, depth + 1))
                return true;
            break;
        case DW_TAG_subprogram:
        case DW_TAG_lexical_block:
        case DW_TAG_inlined_subroutine:
            if (dwarf_haspc(&child, pc) == 1) {
                *out = child;
                nested_scope_at(&child, pc, out, depth + 1);
                return true;
            }
            break;
        default:
            break;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
}

/* Where the inlined scope s was called from: f's file and line (none
 * when the scope does not say, or names no file of the CU's table). */
static void call_site(struct lp_sym *sym, Dwarf_Die *cudie, Dwarf_Files *files,
                      size_t nfiles, Dwarf_Die *s, struct lp_sym_frame *f)
{
    Dwarf_Attribute attr;
    Dwarf_Word call_file = 0, call_line = 0;

    f->file = f->path = f->comp_dir = NULL;
    f->line = 0;
    if (dwarf_formudata(dwarf_attr(s, DW_AT_call_file, &attr), &call_file) == 0 &&
        files != NULL && call_file < nfiles) {
        const char *src = dwarf_filesrc(files, call_file, NULL, NULL);

        f->file = lp_sym_intern(sym, entry_name(files, src));
        f->path = lp_sym_intern(sym, src);
        f->comp_dir = lp_sym_intern(sym, dwarf_formstring(
                                        dwarf_attr(cudie, DW_AT_comp_dir, &attr)));
    }
    if (dwarf_formudata(dwarf_attr(s, DW_AT_call_line, &attr), &call_line) == 0)
        f->line = (int)call_line;
    if (f->file == NULL)
        f->line = 0;
}

/*
 * Expand the inlined scopes at addr into out[], innermost first. out[0]
 * already holds the address's own file:line; the last frame written is
 * the out-of-line function, whose name the caller fills in. Returns the
 * number of frames (>= 1).
 */
static int expand_inlines(struct lp_sym *sym, Dwfl_Module *mod, Dwarf_Addr addr,
                          struct lp_sym_frame *out, int max)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cudie = cu_of(sym, mod, addr, &bias);
    Dwarf_Die *scopes = NULL, innermost;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    int nscopes, i, n = 1;

    if (cudie == NULL)
        return 1;
    nscopes = dwarf_getscopes(cudie, addr - bias, &scopes);
    if (nscopes > 0) {
        /* Past the first inlined scope dwarf_getscopes continues with the
         * inlined function's abstract definition; the concrete nesting
         * (who inlined whom) is the DIE parent chain of the innermost
         * scope. */
        innermost = scopes[0];
        free(scopes);
        scopes = NULL;
    } else if (!nested_scope_at(cudie, addr - bias, &innermost, 0)) {
        free(scopes);
        return 1;
    }
    nscopes = dwarf_getscopes_die(&innermost, &scopes);
    if (nscopes <= 0)
        return 1;
    if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0)
        files = NULL;
    for (i = 0; i < nscopes && n < max; i++) {
        Dwarf_Die *s = &scopes[i];
        struct lp_sym_frame *cur = &out[n - 1], *next = &out[n];

        if (dwarf_tag(s) == DW_TAG_subprogram)
            break;
        if (dwarf_tag(s) != DW_TAG_inlined_subroutine)
            continue;
        /* This scope's function runs at the current level... */
        set_name(sym, cur, die_inline_name(s));
        cur->inlined = n > 1;
        /* ...and was called from the next level out, at call_file:line. */
        *next = *cur;
        next->fn = next->mangled = NULL;
        next->inlined = true;
        call_site(sym, cudie, files, nfiles, s, next);
        n++;
    }
    /* Cut at max: the last frame is the out-of-line function's
     * (resolve_uncached names it so), so it takes the call of the
     * outermost inlined scope, which lies in that function; the call of
     * an inner one paired the function's name with a line of another. */
    if (n == max && i < nscopes) {
        int k, outer = -1;

        for (k = i; k < nscopes && dwarf_tag(&scopes[k]) != DW_TAG_subprogram; k++)
            if (dwarf_tag(&scopes[k]) == DW_TAG_inlined_subroutine)
                outer = k;
        if (outer >= 0)
            call_site(sym, cudie, files, nfiles, &scopes[outer], &out[n - 1]);
    }
    free(scopes);
    return n;
}

/* The DWARF subprogram name at addr, for code without an ELF symbol. */
static const char *dwarf_function_name(struct lp_sym *sym, Dwfl_Module *mod,
                                       Dwarf_Addr addr)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cudie = cu_of(sym, mod, addr, &bias);
    Dwarf_Die *scopes = NULL;
    const char *name = NULL;
    int n, i;

    if (cudie == NULL)
        return NULL;
    n = dwarf_getscopes(cudie, addr - bias, &scopes);
    for (i = 0; i < n; i++)
        if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
            name = die_linkage_name(&scopes[i]);
            break;
        }
    free(scopes);
    return name;
}

/* Valgrind's preference among names of one address: the default version
 * ("@@") first, then the fewest leading underscores. Lower is better. */
static size_t alias_rank(const char *name)
{
    return (strstr(name, "@@") != NULL ? 0 : 1000) + strspn(name, "_");
}

/* A name's length without its version. */
static size_t unversioned_len(const char *name)
{
    return strcspn(name, "@");
}

static bool better_alias(const char *a, const char *b)
{
    size_t ra = alias_rank(a), rb = alias_rank(b);
    size_t la = unversioned_len(a), lb = unversioned_len(b);

    /* Then the shorter name (raise, not its alias gsignal; index, not
     * strchr: as Memcheck names them), then the one that sorts first:
     * _ZN6WidgetC1Ei, not C2. */
    if (ra != rb)
        return ra < rb;
    return la != lb ? la < lb : strcmp(a, b) < 0;
}

/* A module's symbol facts, read once: the address -> symbol index
 * (symindex.h), which also answers the aliases below. */
static struct sym_mod *get_mod(struct lp_sym *sym, Dwfl_Module *mod)
{
    struct sym_mod *m;

    HASH_FIND_PTR(sym->mods, &mod, m);
    if (m != NULL)
        return m;
    m = calloc(1, sizeof(*m));
    if (m == NULL)
        return NULL;
    m->mod = mod;
    HASH_ADD_PTR(sym->mods, mod, m);
    m->index = lp_symindex_new(mod);
    return m;
}

static const char *addr_symbol(struct lp_sym *sym, Dwfl_Module *mod,
                               GElf_Addr addr, GElf_Off *off, GElf_Sym *es)
{
    struct sym_mod *m = get_mod(sym, mod);

    return lp_symindex_lookup(m != NULL ? m->index : NULL, mod, addr, off, es);
}

/*
 * Several names for one address (libc's __libc_malloc and malloc, ASan's
 * __interceptor_malloc and malloc, pthread_create@GLIBC_2.2.5 and
 * pthread_create@@GLIBC_2.34, C1/C2 constructors): pick the one Valgrind
 * prints, from the module's sorted symbol index.
 */
static const char *preferred_alias(struct lp_sym *sym, Dwfl_Module *mod,
                                   GElf_Addr start, const char *name)
{
    struct sym_mod *m = get_mod(sym, mod);

    return m == NULL ? name : lp_symindex_alias(m->index, start, name, better_alias);
}

/*
 * Does cu's own range list hold rel? A CU that states none is taken at
 * libdwfl's word. Go's linker writes .debug_aranges for the C objects of
 * a cgo program only, and libdwfl then answered an address of Go's
 * assembly (runtime.asmcgocall, asm_amd64.s:844) with the nearest C unit
 * (gcc_mmap.c): its line table named the wrong file.
 */
static bool cu_covers(Dwarf_Die *cu, Dwarf_Addr rel)
{
    Dwarf_Addr base, start, end;
    ptrdiff_t off = 0;
    bool any = false;

    while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
        any = true;
        if (rel >= start && rel < end)
            return true;
    }
    return !any;
}

/* libdwfl's CU for addr (.debug_aranges), when its ranges hold addr. */
static Dwarf_Die *aranges_cu(Dwfl_Module *mod, Dwarf_Addr addr,
                             Dwarf_Addr *bias)
{
    Dwarf_Die *d = dwfl_module_addrdie(mod, addr, bias);

    return d != NULL && cu_covers(d, addr - *bias) ? d : NULL;
}

/* The CU containing addr: libdwfl's lookup (.debug_aranges) first, then
 * the CUs' own ranges (symindex.h). */
static Dwarf_Die *cu_of(struct lp_sym *sym, Dwfl_Module *mod, Dwarf_Addr addr,
                        Dwarf_Addr *bias)
{
    Dwarf_Die *d = aranges_cu(mod, addr, bias);
    struct sym_mod *m;

    if (d != NULL || (m = get_mod(sym, mod)) == NULL)
        return d;
    if (!m->cus_read) {
        m->cus_read = true;
        m->cus = lp_cuindex_new(mod);
    }
    return lp_cuindex_find(m->cus, addr, bias);
}

static void free_mods(struct lp_sym *sym)
{
    struct sym_mod *m, *mtmp;

    HASH_ITER(hh, sym->mods, m, mtmp) {
        HASH_DEL(sym->mods, m);
        lp_symindex_free(m->index);
        lp_cuindex_free(m->cus);
        free(m);
    }
}

/* The linkage name of the out-of-line function at addr: the ELF symbol
 * as Valgrind reads it, DWARF only when there is none. */
static const char *function_symbol(struct lp_sym *sym, Dwfl_Module *mod,
                                   Dwarf_Addr addr)
{
    GElf_Off off = 0;
    GElf_Sym esym;
    const char *symname = addr_symbol(sym, mod, addr, &off, &esym);

    /* Valgrind ignores untyped, sizeless labels (ld.so's _dl_start_user):
     * an address past one is "???" there, and must be here too. */
    if (symname != NULL && GELF_ST_TYPE(esym.st_info) == STT_NOTYPE &&
        esym.st_size == 0)
        symname = NULL;
    if (symname != NULL)
        symname = preferred_alias(sym, mod, addr - off, symname);
    if (symname == NULL || symname[0] == '\0')
        symname = dwarf_function_name(sym, mod, addr);
    return symname;
}

/* The file table of a CU, or NULL. */
static Dwarf_Files *files_of(Dwarf_Die *cu)
{
    Dwarf_Files *files = NULL;
    size_t n = 0;

    if (cu == NULL || dwarf_getsrcfiles(cu, &files, &n) != 0)
        return NULL;
    return files;
}

/* The file table of the CU holding addr, or NULL. */
static Dwarf_Files *files_at(struct lp_sym *sym, Dwfl_Module *mod, Dwarf_Addr addr)
{
    Dwarf_Addr bias = 0;

    return files_of(cu_of(sym, mod, addr, &bias));
}

/* The module mapped at addr, or NULL. dwfl_addrmodule alone also names
 * the highest module for an address past every mapping (a smashed
 * stack's 0x7878787878787877 came out "in ld-linux-x86-64.so.2", where
 * Memcheck prints "???"): the module's own bounds decide. */
static Dwfl_Module *module_at(struct lp_sym *sym, uintptr_t addr)
{
    Dwfl_Module *mod;
    Dwarf_Addr lo = 0, hi = 0;

    if (lp_sym_loaded_by_us != NULL && lp_sym_loaded_by_us(addr, sym->adds))
        return lp_sym_unloaded_module(sym, addr);
    mod = dwfl_addrmodule(sym->dwfl, addr);
    if (mod == NULL)
        return lp_sym_unloaded_module(sym, addr);
    if (dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL) == NULL)
        return mod;
    return addr >= lo && addr < hi ? mod : lp_sym_unloaded_module(sym, addr);
}

static int resolve_uncached(struct lp_sym *sym, uintptr_t addr,
                            struct lp_sym_frame *out, int max)
{
    Dwfl_Module *mod;
    const char *modname, *symname;
    Dwfl_Line *line;
    int n, lineno = 0;

    memset(out, 0, sizeof(*out));
    out->addr = addr;
    if (!lp_sym_ensure(sym))
        return 1;
    mod = module_at(sym, addr);
    if (mod == NULL)
        return 1;
    modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (modname != NULL && modname[0] == '/')
        out->obj = lp_sym_intern(sym, modname);
    else if (modname != NULL)
        out->obj = lp_sym_intern(sym, modname); /* [vdso] and friends, as maps says */

    line = dwfl_module_getsrc(mod, addr);
    if (line != NULL) {
        Dwarf_Addr b = 0;

        if (aranges_cu(mod, addr, &b) == NULL)
            line = NULL; /* from a CU that does not hold addr */
    }
    if (line != NULL) {
        const char *src = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);

        if (src != NULL && lineno >= 0) {
            out->file = lp_sym_intern(sym, entry_name(files_at(sym, mod, addr), src));
            out->path = lp_sym_intern(sym, src);
            out->comp_dir = lp_sym_intern(sym, dwfl_line_comp_dir(line));
            out->line = lineno;
        }
    } else {
        /* No CU by .debug_aranges (clang): the line table of the CU
         * found by its own ranges. */
        Dwarf_Addr bias = 0;
        Dwarf_Die *cu = cu_of(sym, mod, addr, &bias);
        Dwarf_Line *l = cu != NULL ? dwarf_getsrc_die(cu, addr - bias) : NULL;
        const char *src = l != NULL ? dwarf_linesrc(l, NULL, NULL) : NULL;

        if (src != NULL && dwarf_lineno(l, &lineno) == 0 && lineno >= 0) {
            out->file = lp_sym_intern(sym, entry_name(files_of(cu), src));
            out->line = lineno;
        }
    }

    n = expand_inlines(sym, mod, addr, out, max);
    symname = function_symbol(sym, mod, addr);
    if (symname != NULL)
        set_name(sym, &out[n - 1], symname);
    return n;
}

const char *lp_sym_symbol(struct lp_sym *sym, uintptr_t addr,
                          uintptr_t *start)
{
    Dwfl_Module *mod;
    const char *name;
    GElf_Off off = 0;
    GElf_Sym esym;

    if (!lp_sym_ensure(sym))
        return NULL;
    mod = module_at(sym, addr);
    if (mod == NULL)
        return NULL;
    name = addr_symbol(sym, mod, addr, &off, &esym);
    if (name == NULL || name[0] == '\0' || esym.st_size == 0 ||
        off >= esym.st_size)
        return NULL;
    if (start != NULL)
        *start = addr - off;
    return lp_sym_intern(sym, name);
}

/* addr's function as this process knows it already: *name, true. */
static bool known_function(struct lp_sym *sym, uintptr_t addr,
                           const char **name)
{
    struct sym_entry *e = NULL;
    struct sym_fn *f = NULL;

    HASH_FIND(hh, sym->cache, &addr, sizeof(addr), e);
    if (e != NULL) {
        *name = e->frames[e->n - 1].fn;
        return true;
    }
    HASH_FIND(hh, sym->fns, &addr, sizeof(addr), f);
    if (f != NULL) {
        *name = f->fn;
        return true;
    }
    return false;
}

const char *lp_sym_function(struct lp_sym *sym, uintptr_t ip, bool is_return)
{
    uintptr_t addr = is_return && ip != 0 ? ip - 1 : ip;
    struct sym_fn *f;
    Dwfl_Module *mod;
    const char *name = NULL;

    if (sym == NULL)
        return NULL;
    /* This process's answers, then the object's cache file (no libdwfl
     * for either), then libdwfl. */
    if (known_function(sym, addr, &name) ||
        (lp_sym_cache_lookup(sym, addr, false) &&
         known_function(sym, addr, &name)))
        return name;
    if (!lp_sym_ensure(sym))
        return NULL;
    lp_sym_cache_miss(sym, addr);
    mod = module_at(sym, addr);
    if (mod != NULL)
        name = function_symbol(sym, mod, addr);
    if (name != NULL)
        name = lp_sym_demangle(sym, name);
    if ((f = malloc(sizeof(*f))) != NULL) {
        f->addr = addr;
        f->fn = name;
        HASH_ADD(hh, sym->fns, addr, sizeof(f->addr), f);
    }
    return name;
}

/* Valgrind's --demangle=no: frames named by their linkage names. */
static bool demangle_names = true;

int lp_sym_resolve(struct lp_sym *sym, uintptr_t ip, bool is_return,
                   struct lp_sym_frame *out, int max)
{
    uintptr_t addr = is_return && ip != 0 ? ip - 1 : ip;
    struct lp_sym_frame tmp[LP_SYM_MAX_INLINE];
    struct sym_entry *e = NULL;
    int n;

    if (max <= 0)
        return 0;
    if (sym != NULL) {
        HASH_FIND(hh, sym->cache, &addr, sizeof(addr), e);
        if (e == NULL && lp_sym_cache_lookup(sym, addr, true))
            HASH_FIND(hh, sym->cache, &addr, sizeof(addr), e);
        if (e == NULL)
            lp_sym_cache_miss(sym, addr);
    }
    if (e == NULL) {
        n = resolve_uncached(sym, addr, tmp, LP_SYM_MAX_INLINE);
        if (sym != NULL && (e = sym_entry_new(addr, n)) != NULL) {
            memcpy(e->frames, tmp, (size_t)n * sizeof(tmp[0]));
            HASH_ADD(hh, sym->cache, addr, sizeof(e->addr), e);
        }
    } else {
        n = e->n;
        memcpy(tmp, e->frames, (size_t)n * sizeof(tmp[0]));
    }
    if (n > max)
        n = max;
    memcpy(out, tmp, (size_t)n * sizeof(tmp[0]));
    if (!demangle_names) {
        int i;

        for (i = 0; i < n; i++)
            if (out[i].mangled != NULL)
                out[i].fn = out[i].mangled;
    }
    return n;
}

void lp_sym_set_demangle(bool on)
{
    demangle_names = on;
}
