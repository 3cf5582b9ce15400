/* fork_exec.c - three processes, three leaks: the parent leaks 111 bytes,
 * a forked child leaks 222 and exits, a second child execs this program
 * again ("execd"), which leaks 333. Under Valgrind's rules the two forked
 * processes are always profiled, the exec'd program only with
 * --trace-children=yes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void leak(size_t n)
{
    char *p = malloc(n);

    memset(p, 1, n);
}

int main(int argc, char **argv)
{
    pid_t pid;
    int st;

    if (argc > 1 && strcmp(argv[1], "execd") == 0) {
        leak(333);
        printf("exec'd program\n");
        return 0;
    }
    leak(111);
    pid = fork();
    if (pid == 0) {
        leak(222);
        exit(0);
    }
    waitpid(pid, &st, 0);
    pid = fork();
    if (pid == 0) {
        execl(argv[0], argv[0], "execd", (char *)NULL);
        _exit(127);
    }
    waitpid(pid, &st, 0);
    printf("parent done\n");
    return 0;
}
