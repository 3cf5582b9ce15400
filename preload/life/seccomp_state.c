/* SPDX-License-Identifier: MIT */
/*
 * seccomp_state.c - the process's seccomp mode, read from /proc.
 * Context: BOOT and COLD (open/read/close only).
 */
#include "preload/life/seccomp_state.h"
#include "preload/life/root_dir.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int lp_seccomp_mode(void)
{
    char buf[2048];
    const char *p;
    size_t len = 0;
    ssize_t n;
    int fd = lp_proc_self_open("status", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    while (len < sizeof(buf) - 1 &&
           (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
        len += (size_t)n;
    close(fd);
    buf[len] = '\0';
    p = strstr(buf, "\nSeccomp:");
    if (p == NULL)
        return -1;
    for (p += 9; *p == ' ' || *p == '\t'; p++)
        ;
    return *p >= '0' && *p <= '9' ? *p - '0' : -1;
}
