/* SPDX-License-Identifier: MIT */
/*
 * exec_forms.c - a fork child for each of execl, execlp, execle, execv,
 * execvp and execve, re-running this program with arguments (and, for
 * execle and execve, an environment of its own: FOO=bar and nothing
 * else). Each exec'd copy prints its arguments and FOO, and leaks 333
 * bytes. Checks that the exec family passes arguments and environments
 * as glibc's does (execl's argument list ends with its NULL) whether
 * the library traces exec'd programs or not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char *envp[] = {"FOO=bar", NULL};
    char *args[] = {argv[0], "v", "w", NULL};
    int k;

    if (argc > 1) {
        const char *foo = getenv("FOO");
        int i;

        printf("exec'd:");
        for (i = 1; i < argc; i++)
            printf(" %s", argv[i]);
        printf(" FOO=%s\n", foo ? foo : "-");
        memset(malloc(333), 1, 333);
        return 0;
    }
    for (k = 0; k < 6; k++) {
        pid_t p;
        int st;

        fflush(stdout);
        p = fork();
        if (p == 0) {
            switch (k) {
            case 0: execl(argv[0], argv[0], "a", "b", (char *)NULL); break;
            case 1: execlp(argv[0], argv[0], "c", (char *)NULL); break;
            case 2: execle(argv[0], argv[0], "d", "e", "f", (char *)NULL, envp); break;
            case 3: execv(argv[0], args); break;
            case 4: execvp(argv[0], args); break;
            default: execve(argv[0], args, envp); break;
            }
            _exit(9);
        }
        waitpid(p, &st, 0);
        printf("form %d: status %d\n", k, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    return 0;
}
