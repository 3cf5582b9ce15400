/* SPDX-License-Identifier: MIT */
/*
 * debug_find.c - where a module's separate debug file is (see
 * debug_find.h for the order and why).
 * Context: COLD. Memory: libc malloc.
 */
#include "report/debug_find.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/debug_inflate.h"
#include "report/symcache.h"

#define DEBUG_ROOT "/usr/lib/debug"

static bool exists(const char *a, const char *b, const char *c)
{
    char path[PATH_MAX];
    int r = snprintf(path, sizeof(path), "%s%s%s", a, b, c);

    return r > 0 && (size_t)r < sizeof(path) && access(path, F_OK) == 0;
}

/* A file called name where the default search path looks for the main
 * file spelled file: the file's own directory (unless !own_dir), its
 * .debug subdirectory, and under DEBUG_ROOT the file's directory with its
 * leading components dropped one at a time, down to DEBUG_ROOT itself. */
static bool in_path(const char *file, const char *name, bool own_dir)
{
    const char *slash = strrchr(file, '/'), *sub;
    char dir[PATH_MAX];
    size_t dlen;

    if (slash == NULL || (dlen = (size_t)(slash - file)) >= sizeof(dir))
        return true; /* a relative name: not ours to second-guess */
    memcpy(dir, file, dlen);
    dir[dlen] = '\0';
    if ((own_dir && exists(dir, "/", name)) || exists(dir, "/.debug/", name))
        return true;
    if (dir[0] != '/')
        return false;
    for (sub = dir + 1; *sub != '\0';) {
        const char *next = strchr(sub, '/');
        char pre[PATH_MAX];
        int r = snprintf(pre, sizeof(pre), DEBUG_ROOT "/%s/", sub);

        if (r > 0 && (size_t)r < sizeof(pre) && exists(pre, name, ""))
            return true;
        if (next == NULL)
            break;
        sub = next + 1;
    }
    return exists(DEBUG_ROOT "/", name, "");
}

/* The names searched for: the debuglink's, or without one the main
 * file's name with .debug added and, but in the file's own directory
 * (that is the file itself), the bare name. */
static bool names_in_path(const char *file, const char *debuglink)
{
    const char *base = strrchr(file, '/');
    char made[NAME_MAX + 8];

    if (debuglink != NULL)
        return in_path(file, debuglink, true);
    base = base ? base + 1 : file;
    if ((size_t)snprintf(made, sizeof(made), "%s.debug", base) >= sizeof(made))
        return true;
    return in_path(file, made, true) || in_path(file, base, false);
}

/* The debug file's place by build-id: DEBUG_ROOT/.build-id/xx/rest.debug. */
static bool build_id_path(const unsigned char *id, int idlen, char *name,
                          size_t n)
{
    char hex[140];

    if (id == NULL || idlen < 2 || idlen > 64)
        return false;
    lp_symcache_hex(id, idlen, hex);
    return (size_t)snprintf(name, n, "%s/.build-id/%.2s/%s.debug", DEBUG_ROOT,
                            hex, hex + 2) < n;
}

bool lp_debug_local_candidate(const unsigned char *id, int idlen,
                              const char *file_name, const char *debuglink)
{
    char name[sizeof(DEBUG_ROOT) + 160], *canon;
    bool found;

    if (build_id_path(id, idlen, name, sizeof(name)) &&
        access(name, F_OK) == 0)
        return true;
    if (file_name == NULL)
        return true;
    if (names_in_path(file_name, debuglink))
        return true;
    canon = realpath(file_name, NULL);
    found = canon != NULL && strcmp(canon, file_name) != 0 &&
            names_in_path(canon, debuglink);
    free(canon);
    return found;
}

/* A debuginfod server is configured: libdwfl may ask it. */
static bool server_configured(void)
{
    const char *urls = getenv("DEBUGINFOD_URLS");

    return urls != NULL && urls[0] != '\0';
}

/* fd (of the file at path) as libdwfl's answer: *name gets a copy of
 * path. -1 (fd closed) when fd is, or the copy cannot be made. */
static int answer(int fd, const char *path, char **name)
{
    char *dup;

    if (fd < 0)
        return -1;
    if ((dup = strdup(path)) == NULL) {
        close(fd);
        return -1;
    }
    *name = dup;
    return fd;
}

/*
 * The debug file at the build-id's own place (.build-id/xx/rest.debug,
 * where Debian's -dbg and -dbgsym packages put theirs), opened directly
 * when a copy is to be made of it: dwfl_standard_find_debuginfo, once it
 * has found a debug file, opens a Dwarf on it to look for a dwz
 * alternate, and that inflated every compressed section in memory - a
 * cold process inflated libc's DWARF twice, once there and once for the
 * copy. The copy itself is what libdwfl then reads (and asks for its
 * alternate again: the first branch of lp_debug_find).
 */
static int open_by_build_id(const unsigned char *id, int idlen)
{
    char name[sizeof(DEBUG_ROOT) + 160];

    return build_id_path(id, idlen, name, sizeof(name))
               ? open(name, O_RDONLY | O_CLOEXEC)
               : -1;
}

int lp_debug_find(Dwfl_Module *mod, void **userdata, const char *modname,
                  Dwarf_Addr base, const char *file_name,
                  const char *debuglink_file, GElf_Word debuglink_crc,
                  char **debuginfo_file_name)
{
    const unsigned char *id = NULL;
    const char *mainfile = NULL, *debugfile = NULL;
    GElf_Addr vaddr;
    char path[4200], *found;
    int n, fd, copy;
    bool cached;

    /* The module's debug file is known already: this asks for its dwz
     * alternate, which is libdwfl's business. */
    dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
    if (debugfile != NULL || file_name == NULL ||
        (mainfile != NULL && strcmp(mainfile, file_name) != 0))
        return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
                                            file_name, debuglink_file,
                                            debuglink_crc, debuginfo_file_name);
    n = dwfl_module_build_id(mod, &id, &vaddr);
    if (n < 0)
        id = NULL;
    cached = id != NULL && lp_debug_inflated_path(id, n, path, sizeof(path)) == 0;
    if (cached &&
        (fd = answer(open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), path,
                     debuginfo_file_name)) >= 0)
        return fd;
    if (cached && (fd = open_by_build_id(id, n)) >= 0) {
        copy = answer(lp_debug_inflate(fd, path, LP_INFLATE_MIN), path,
                      debuginfo_file_name);
        close(fd);
        if (copy >= 0)
            return copy;
    }
    if (!server_configured() &&
        !lp_debug_local_candidate(id, n, file_name, debuglink_file))
        return -1; /* nothing to find here, and no server to ask */
    fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
                                      debuglink_file, debuglink_crc,
                                      debuginfo_file_name);
    /* A separate debug file only (not the object itself). */
    if (fd < 0 || !cached || *debuginfo_file_name == NULL ||
        strcmp(*debuginfo_file_name, file_name) == 0)
        return fd;
    found = *debuginfo_file_name;
    copy = answer(lp_debug_inflate(fd, path, LP_INFLATE_MIN), path,
                  debuginfo_file_name);
    if (copy < 0)
        return fd;
    close(fd);
    free(found); /* the original's name: the copy answers instead */
    return copy;
}
