/* SPDX-License-Identifier: MIT */
/*
 * go_exit.c - the end of a Go program (built with cgo, so dynamically
 * linked and preloadable): Go never calls the C library's exit. Its
 * runtime.exit is an exit_group system call of its own, so no atexit
 * handler and no destructor runs (golang/go#20713), and the leak report
 * and the massif file were simply never written. Valgrind sees the system
 * call; a preload has to see the function.
 *
 * At start, in a program that carries Go's build-id note, we look for
 * runtime.exit in its executable code by its instructions, the same in
 * every Go release since 1.5 (src/runtime/sys_linux_amd64.s):
 *     mov 8(%rsp),%edi ; mov $231,%eax ; syscall ; ret
 * and, found exactly once, replace those 12 bytes with a jump to our
 * entry below (movabs $entry,%rax ; jmp *%rax: %rax is the system call
 * number there, free to clobber). The entry takes the status where Go's
 * ABI0 passes it (8(%rsp)), moves to a stack of ours (a goroutine's may
 * have a few hundred bytes left: runtime.exit is NOSPLIT), writes the
 * exit's outputs as an _exit does (Go flushes no C stdio either), and
 * ends the process with the same system call and status (or
 * error_exitcode). Anything unexpected (no note, no match, two matches,
 * mprotect refused) leaves the program untouched, as before.
 * Context: BOOT (install, single-threaded, from our constructor); COLD
 * (the exit).
 */
#include "preload/life/go_exit.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/hot/arena.h"
#include "preload/life/exit.h"
#include "preload/life/process.h"

#define GO_EXIT_STACK (8u << 20)

/* Go's runtime.exit, ABI0 (src/runtime/sys_linux_amd64.s). */
static const unsigned char go_exit_code[] = {
    0x8b, 0x7c, 0x24, 0x08,       /* mov 0x8(%rsp),%edi */
    0xb8, 0xe7, 0x00, 0x00, 0x00, /* mov $SYS_exit_group,%eax */
    0x0f, 0x05,                   /* syscall */
    0xc3,                         /* ret */
};

/* Top of the stack the exit runs on (read by the entry). */
uintptr_t lp_go_exit_stack_top;

struct find {
    bool is_go;
    uintptr_t at;   /* the match */
    unsigned found; /* matches */
};

/* Go's build-id note: owner "Go" (written "Go\0\0", name size 4, by
 * cmd/link), type 4 (its GOBUILDID tag). */
static bool has_go_note(const char *p, size_t len)
{
    size_t off = 0;

    while (off + sizeof(ElfW(Nhdr)) <= len) {
        const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(p + off);
        size_t name = (n->n_namesz + 3) & ~(size_t)3,
               desc = (n->n_descsz + 3) & ~(size_t)3;

        if ((n->n_namesz == 3 || n->n_namesz == 4) && n->n_type == 4 &&
            off + sizeof(*n) + 4 <= len &&
            memcmp(p + off + sizeof(*n), "Go", 3) == 0)
            return true;
        off += sizeof(*n) + name + desc;
    }
    return false;
}

/* The main program: the first object dl_iterate_phdr gives. */
static int scan_main(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct find *f = arg;
    int i;

    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type == PT_NOTE &&
            has_go_note((const char *)(info->dlpi_addr + ph->p_vaddr),
                        ph->p_memsz))
            f->is_go = true;
    }
    for (i = 0; f->is_go && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const char *lo, *hi, *p;

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        lo = (const char *)(info->dlpi_addr + ph->p_vaddr);
        hi = lo + ph->p_filesz;
        for (p = lo; p < hi; p++) {
            p = memmem(p, (size_t)(hi - p), go_exit_code,
                       sizeof(go_exit_code));
            if (p == NULL)
                break;
            f->at = (uintptr_t)p;
            f->found++;
        }
    }
    return 1; /* the main program only */
}

void lp_go_exit_entry(void);
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl lp_go_exit_entry\n"
        ".hidden lp_go_exit_entry\n"
        ".type lp_go_exit_entry,@function\n"
        "lp_go_exit_entry:\n"
        "  movl 8(%rsp), %edi\n"
        "  mov %rsp, %rsi\n"
        "  mov lp_go_exit_stack_top(%rip), %rsp\n"
        "  and $-16, %rsp\n"
        "  call lp_go_exit\n"
        "  ud2\n"
        ".size lp_go_exit_entry, .-lp_go_exit_entry\n");
#endif

/* sp: the stack pointer runtime.exit was entered with. The report runs
 * on our stack, so it says where the exiting thread's live stack begins:
 * without it the scan took that thread's whole stack, dead frames and
 * all, for a root (a block's address left there by an earlier call kept
 * a leak "still reachable"). */
_Noreturn void lp_go_exit(int status, uintptr_t sp);
_Noreturn void lp_go_exit(int status, uintptr_t sp)
{
    lp_process.exit_status = status;
    lp_process.exit_status_known = true;
    lp_exit_report(LP_EXIT_QUICK, sp);
    status = lp_exit_final_status(status, false);
    for (;;)
        syscall(SYS_exit_group, status);
}

/* Write the jump over the 12 bytes at at; false when the pages could not
 * be made writable (then nothing changed). */
static bool patch(uintptr_t at)
{
    unsigned char jump[12] = { 0x48, 0xb8 }; /* movabs $entry,%rax */
    uintptr_t entry = (uintptr_t)&lp_go_exit_entry;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo = at & ~(uintptr_t)(page - 1),
              hi = (at + sizeof(jump) + page - 1) & ~(uintptr_t)(page - 1);

    memcpy(jump + 2, &entry, sizeof(entry));
    jump[10] = 0xff; /* jmp *%rax */
    jump[11] = 0xe0;
    /* Writable and still executable throughout: a policy that refuses
     * W+X refuses here, before anything changed, rather than on the way
     * back to R+X, which would leave Go's code unexecutable. */
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        return false;
    memcpy((void *)at, jump, sizeof(jump));
    (void)mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
    return true;
}

void lp_go_exit_init(void)
{
#if defined(__x86_64__)
    struct find f = { false, 0, 0 };
    void *stack;

    dl_iterate_phdr(scan_main, &f);
    if (!f.is_go || f.found != 1)
        return;
    stack = lp_arena_alloc(GO_EXIT_STACK); /* ours: no root of the scan */
    if (stack == NULL)
        return;
    lp_go_exit_stack_top = (uintptr_t)stack + GO_EXIT_STACK;
    if (!patch(f.at))
        lp_arena_free(stack, GO_EXIT_STACK);
#endif
}
