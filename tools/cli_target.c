/* SPDX-License-Identifier: MIT */
/*
 * cli_target.c - what the launcher can tell of the program before it
 * runs it: an executable that LD_PRELOAD cannot reach.
 *
 * Memcheck runs any program, and says "0 allocs" of one whose allocator
 * it could not replace. We work through the dynamic loader, so two kinds
 * of program run without us, silently: a statically linked executable
 * (no PT_INTERP: no loader at all) and a set-user-ID or set-group-ID one
 * run by another user (the loader ignores LD_PRELOAD there). The launcher
 * says so on one line of stderr and runs the program all the same: its
 * output and status are the program's.
 */
#include "tools/cli_target.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file execvp would run for name, as it searches PATH; 0 or -1. */
static int resolve(const char *name, char *out, size_t n)
{
    const char *path = getenv("PATH"), *p, *end;

    if (strchr(name, '/'))
        return snprintf(out, n, "%s", name) < (int)n ? 0 : -1;
    if (path == NULL)
        path = "/bin:/usr/bin";
    for (p = path;; p = end + 1) {
        size_t len;

        end = strchr(p, ':');
        if (end == NULL)
            end = p + strlen(p);
        len = (size_t)(end - p);
        if (snprintf(out, n, "%.*s%s%s", (int)len, p, len ? "/" : "",
                     name) < (int)n &&
            access(out, X_OK) == 0)
            return 0;
        if (*end == '\0')
            return -1;
    }
}

/* 1: an ELF executable without PT_INTERP; 0: anything else. */
static int is_static_elf(int fd)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph;
    int i;

    if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
        eh.e_phentsize != sizeof(ph))
        return 0;
    for (i = 0; i < eh.e_phnum; i++) {
        if (pread(fd, &ph, sizeof(ph),
                  (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof(ph))) !=
            (ssize_t)sizeof(ph))
            return 0;
        if (ph.p_type == PT_INTERP)
            return 0;
        if (ph.p_type == PT_DYNAMIC && eh.e_type == ET_DYN)
            return 0; /* a shared object run directly, or static-pie: the
                         loader of its own is not ours to judge */
    }
    return 1;
}

void lp_cli_warn_unreachable(const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    int fd;

    if (resolve(name, path, sizeof(path)) != 0)
        return; /* execvp says what is wrong */
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 &&
        (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
         ((st.st_mode & S_ISGID) && st.st_gid != getegid())))
        fprintf(stderr, "leakprof: warning: '%s' is set-user-ID or "
                        "set-group-ID: the loader ignores LD_PRELOAD for it "
                        "and nothing is tracked\n", name);
    else if (is_static_elf(fd))
        fprintf(stderr, "leakprof: warning: '%s' is statically linked: "
                        "LD_PRELOAD cannot reach its allocator and nothing "
                        "is tracked (link it dynamically)\n", name);
    close(fd);
}
