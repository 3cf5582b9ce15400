/* SPDX-License-Identifier: MIT */
/*
 * command.c - the command line captured for the report header.
 * Context: BOOT (capture from the constructor), COLD (readers).
 */
#include "preload/life/command.h"
#include "preload/life/root_dir.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static struct {
    char args[4096];
    size_t len;
    int pid, ppid;
} command;

/* Whether path is a script the kernel ran through its #! interpreter. */
static bool is_script(const char *path)
{
    char head[2];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    bool yes;

    if (fd < 0)
        return false;
    yes = read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
          head[0] == '#' && head[1] == '!';
    close(fd);
    return yes;
}

/*
 * A script's command line as Valgrind shows it (it runs the #! line
 * itself): the script and its arguments. The kernel starts the
 * interpreter with argv = {interpreter, [its one argument,] the script
 * as execve was given it, the script's arguments...}; AT_EXECFN is that
 * script name. Returns where in raw the script's name starts, or 0.
 */
static size_t script_start(const char *raw, size_t len, size_t first)
{
    const char *path = (const char *)getauxval(AT_EXECFN);
    size_t at = first;
    int k;

    if (path == NULL || strcmp(raw, path) == 0)
        return 0;
    for (k = 1; k <= 2 && at < len; k++) {
        if (strcmp(raw + at, path) == 0)
            return is_script(path) ? at : 0;
        at += strlen(raw + at) + 1;
    }
    return 0;
}

void lp_command_capture(bool exec_child)
{
    char raw[sizeof(command.args)];
    size_t len = 0, first, script;
    ssize_t n;
    int fd;

    command.pid = getpid();
    command.ppid = getppid();
    fd = lp_proc_self_open("cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    while (len < sizeof(raw) - 1 &&
           ((n = read(fd, raw + len, sizeof(raw) - 1 - len)) > 0 ||
            (n < 0 && errno == EINTR)))
        if (n > 0)
            len += (size_t)n;
    close(fd);
    if (len == 0)
        return;
    if (raw[len - 1] != '\0')
        raw[len++] = '\0'; /* cut short: end the last argument */
    first = strlen(raw) + 1;
    if ((script = script_start(raw, len, first)) != 0) {
        memcpy(command.args, raw + script, len - script);
        command.len = len - script;
        return;
    }
    if (exec_child) {
        const char *path = (const char *)getauxval(AT_EXECFN);
        size_t plen = path ? strlen(path) + 1 : 0;

        if (plen && plen + (len - first) <= sizeof(command.args)) {
            memcpy(command.args, path, plen);
            memcpy(command.args + plen, raw + first, len - first);
            command.len = plen + (len - first);
            return;
        }
    }
    memcpy(command.args, raw, len);
    command.len = len;
}

const char *lp_command_args(size_t *len)
{
    *len = command.len;
    return command.args;
}

void lp_command_atfork_child(void)
{
    command.ppid = command.pid ? command.pid : getppid();
    command.pid = getpid();
}

int lp_command_parent_pid(void)
{
    if (command.pid != 0 && command.pid == getpid())
        return command.ppid;
    return getppid();
}
