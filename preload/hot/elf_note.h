/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_ELF_NOTE_H
#define LP_PRELOAD_ELF_NOTE_H
/*
 * elf_note.h - the GNU build-id note of a loaded object, read from its
 * program headers in memory (the loader mapped the notes with the first
 * segment). For the symbolizer's and the unwind rules' cache files, both
 * named by it. No libc beyond memcpy/memcmp: the unwind rules read it
 * inside malloc.
 * Context: HOT-safe.
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

/* The id into out (64 bytes): its length, or 0 without one. */
static inline int lp_elf_build_id(const ElfW(Phdr) *ph, unsigned phnum,
                                  uintptr_t bias, unsigned char *out)
{
    unsigned i;

    for (i = 0; i < phnum; i++) {
        const char *p = (const char *)(bias + ph[i].p_vaddr);
        const char *end = p + ph[i].p_filesz;

        if (ph[i].p_type != PT_NOTE)
            continue;
        while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof(*nh);
            const char *desc = name + ((nh->n_namesz + 3) & ~3u);

            if (desc > end || (size_t)(end - desc) < nh->n_descsz)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0 && nh->n_descsz >= 4 &&
                nh->n_descsz <= 64) {
                memcpy(out, desc, nh->n_descsz);
                return (int)nh->n_descsz;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 0;
}

/* The same for the object whose first segment (file offset 0) is mapped
 * at start, bias its load bias (what _dl_find_object gives: no loader
 * lock), from its ELF header and program headers in memory. */
static inline int lp_elf_build_id_at(uintptr_t start, uintptr_t bias,
                                     unsigned char *out)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)start;
    const ElfW(Phdr) *ph;
    size_t first_len = 0, end;
    unsigned i;

    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phnum > 128)
        return 0;
    /* The headers must lie in the first segment, which is what start
     * maps: within its first page before their own sizes are read. */
    end = eh->e_phoff + (size_t)eh->e_phnum * sizeof(*ph);
    if (end > 4096)
        return 0;
    ph = (const ElfW(Phdr) *)(start + eh->e_phoff);
    for (i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
            first_len = ph[i].p_filesz;
    if (end > first_len)
        return 0;
    return lp_elf_build_id(ph, eh->e_phnum, bias, out);
}

#endif /* LP_PRELOAD_ELF_NOTE_H */
