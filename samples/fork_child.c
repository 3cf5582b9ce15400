/* fork_child.c - parent and forked child each leak their own block; the
 * child leaves by _exit after its own work, the parent waits. Each
 * process writes its own report (log=...%p). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void *leak_in(const char *who, size_t n)
{
    char *p = malloc(n);

    memset(p, 0, n);
    (void)who;
    return NULL;
}

int main(void)
{
    pid_t pid;
    int st = 0;

    leak_in("parent", 111);
    pid = fork();
    if (pid == 0) {
        leak_in("child", 222);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
