/* SPDX-License-Identifier: MIT */
/*
 * reach_fork.c - fork without exec. The child inherits the parent's heap
 * (a block held in a global stays reachable in both), leaks a block of its
 * own and exits normally; the parent waits for it, leaks another and
 * exits with the child's status plus one. Each process writes its own
 * report, as Memcheck does for a forked child.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 *          (its report for each pid)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void *shared_kept;

int main(void)
{
    pid_t pid;
    int status = 0;
    void *volatile drop;

    shared_kept = malloc(100);
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        void *volatile leak = malloc(200); /* the child's leak */

        (void)leak;
        printf("child\n");
        return 4;
    }
    waitpid(pid, &status, 0);
    drop = malloc(300); /* the parent's leak */
    printf("parent: child exited %d\n", WEXITSTATUS(status));
    return WEXITSTATUS(status) + 1;
}
