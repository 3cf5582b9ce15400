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
 *
 * Thread safety: none; one thread at a time per struct lp_sym (the exit
 * path or the dumper thread, which serialise on their own).
 * Debug info: separate files are found by build-id / .gnu_debuglink under
 * /usr/lib/debug (dwfl_standard_find_debuginfo); with DEBUGINFOD_URLS set
 * elfutils may also query debuginfod, which can be slow at exit.
 */
#include <stdbool.h>
#include <sys/types.h>
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
    bool inlined;        /* not the first frame of its address: a caller
                            of inlined code (the last such frame is the
                            out-of-line function itself) */
    /* For writers that must locate the source (SARIF); the text report
     * prints file, the base name, as Memcheck does. */
    const char *path;     /* the source file as libdw gives it from the
                             line table: the DWARF name joined with its
                             include directory and DW_AT_comp_dir (so
                             usually absolute, possibly with "..");
                             NULL whenever file is NULL */
    const char *comp_dir; /* DW_AT_comp_dir of the file's compilation
                             unit (the compiler's working directory),
                             NULL when unknown */
};

/* Memcheck's name for the frames below main (--show-below-main=no). */
#define LP_SYM_BELOW_MAIN "(below main)"

enum lp_fn_kind { LP_FN_NORMAL = 0, LP_FN_MAIN, LP_FN_BELOW_MAIN };

/* Maximum frames one address can expand to (inline depth + 1). */
#define LP_SYM_MAX_INLINE 64

/* How absolute paths of the process are opened when libdwfl cannot open
 * them itself (a program that chrooted itself); NULL: it cannot. */
extern int (*lp_sym_open)(const char *path, int flags, mode_t mode);

/* Whether addr lies in an object the symbolizer's own start loaded (libdw
 * and what it needs: preload/life/libdw_objects.c), given the loader's
 * count of loads when the objects were listed: such an address in a
 * stack was an object's the program unloaded since, and is named as
 * Memcheck names it, "???". NULL (tools, or nothing loaded): none. */
extern bool (*lp_sym_loaded_by_us)(uintptr_t addr, unsigned long long adds);

/* keep_debuginfo=yes: the i-th object the program unloaded (its path and
 * load bias), false past the last (preload/life/unloaded_objects.c). An
 * address no loaded object holds is named from these files. NULL (tools,
 * or nothing unloaded): none. */
extern bool (*lp_sym_unloaded)(size_t i, const char **path, uintptr_t *bias);

/* The pages an object of dl_iterate_phdr spans, [*lo, *hi): from its
 * lowest PT_LOAD segment to the end of its highest (*hi <= *lo: none). */
struct dl_phdr_info;
void lp_sym_object_span(const struct dl_phdr_info *info, uintptr_t *lo,
                        uintptr_t *hi);

/* Open, now, every file the symbolizer will want (each module's ELF file,
 * symbol table and debug information; the demangler): the program is
 * about to make them unreachable (chroot). */
void lp_sym_prime(struct lp_sym *sym);

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

/*
 * The ELF symbol containing addr (functions and objects alike, sized
 * symbols only): its start address in *start and its raw (mangled) name,
 * owned by sym. Returns NULL when no symbol covers addr. Used by the heap
 * error writer: the entry of a frame's function ("created by f (x.c:12)")
 * and the global a bad free points into ("inside data symbol \"g\"").
 */
const char *lp_sym_symbol(struct lp_sym *sym, uintptr_t addr,
                          uintptr_t *start);

/*
 * The demangled name of the out-of-line function containing ip (at
 * ip - 1 when is_return), as lp_sym_resolve's last frame names it, or
 * NULL when unknown. Cheaper than lp_sym_resolve: a symbol table lookup
 * (DWARF only for code without a symbol), no line table, no inline
 * scopes; cached per address. For deciding where a stack ends and which
 * frames are allocation functions without symbolizing every frame.
 */
const char *lp_sym_function(struct lp_sym *sym, uintptr_t ip, bool is_return);

/*
 * Write what was resolved since the last save into the per-object cache
 * files (report/symcache.h), so the next process running the same
 * objects need not read their debug info again. Also done by
 * lp_sym_refresh(). Failures are silent (the cache is an optimisation).
 */
void lp_sym_save_cache(struct lp_sym *sym);

/* Re-read the process's module list (after dlopen). */
void lp_sym_refresh(struct lp_sym *sym);

void lp_sym_free(struct lp_sym *sym);

/*
 * Format one frame as Valgrind's describe_IP does, without the
 * "at"/"by" prefix:  0xADDR: fn (file:line) | fn (in /obj) | ??? ...
 * self_obj, when non-NULL, is an object whose frames are always printed
 * in the "(in obj)" form (our own library, as Memcheck prints its
 * replacement malloc); it may be spelled differently from the maps path
 * (dladdr's dli_fname works): paths are compared, then real paths.
 * Shapes: "fn (file:line)" needs fn, file and line > 0; otherwise
 * "fn (in obj)", "fn (in ???)", "??? (in obj)", "???". The address is
 * "0x%lX" (upper case, no padding). Writes at most n bytes (NUL-terminated);
 * returns the length it would have needed, like snprintf.
 */
int lp_sym_describe(const struct lp_sym_frame *f, const char *self_obj,
                    char *buf, size_t n);

/*
 * Valgrind's --fullpath-after (fullpath_after=): from now on
 * lp_sym_describe shows a frame's source file with its directory, less
 * the part up to and including the first of the n values in list (each
 * NUL-terminated, one after the other; kept, not copied) that the
 * directory holds. n == 0: the base name, as by default.
 */
void lp_sym_set_fullpath_after(const char *list, int n);

/* A frame's source directory as Memcheck's XML <dir> gives it: the path
 * up to its last '/', under the compilation directory when relative.
 * Writes at most n bytes; returns the length it needed (0: none). */
int lp_sym_frame_dir(const struct lp_sym_frame *f, char *buf, size_t n);

/*
 * Valgrind's classification of a function name (Vg_FnNameKind): "main";
 * below main: __libc_start_main, __libc_start_main.*, __libc_start_call_main,
 * generic_start_main, generic_start_main.*, _start, and LP_SYM_BELOW_MAIN
 * itself; everything else (NULL too) is normal.
 */
enum lp_fn_kind lp_sym_fn_kind(const char *fn);

/* True when fn is main or a "below main" function, where stacks stop. */
bool lp_sym_is_below_main(const char *fn);

/*
 * Valgrind's --show-below-main (show_below_main=): with on, stacks do
 * not stop at main and the functions below it keep their names. past,
 * n: the words Memcheck's unwinder reads as return addresses past
 * _start's frame (its last-ditch step: the word at the stack pointer,
 * until a 0 or 1), which it prints as "???" frames at each word - 1;
 * depth: its --num-callers, which counts them. Kept, not copied.
 */
struct lp_sym_below_main {
    bool on;
    const uintptr_t *past;
    int n, depth;
};
void lp_sym_set_below_main(const struct lp_sym_below_main *b);
const struct lp_sym_below_main *lp_sym_below_main(void);

/*
 * Demangle a C++ linkage name ("_Znwm" -> "operator new(unsigned long)")
 * with the process's __cxa_demangle, or libstdc++.so.6 loaded privately
 * (RTLD_LOCAL) when the process has none; our library never links
 * libstdc++. Names not starting with "_Z", or failing to demangle, come
 * back unchanged. The result is owned by sym (valid until lp_sym_free);
 * with sym == NULL nothing can own a new string, so name itself is
 * returned.
 */
/* demangle=no (Valgrind's --demangle=no): from now on lp_sym_resolve
 * names each frame that has one by its linkage name (fn = mangled). */
void lp_sym_set_demangle(bool on);

const char *lp_sym_demangle(struct lp_sym *sym, const char *name);

#endif /* LP_REPORT_SYMBOLIZE_H */
