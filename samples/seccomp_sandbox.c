/* SPDX-License-Identifier: MIT */
/*
 * seccomp_sandbox.c - a program that puts itself in a seccomp sandbox,
 * as man-db does: from then on every open that asks to write or create
 * fails with ENOSYS (reads pass). Then it forks a child that leaks a
 * block and exits, and leaks one itself.
 *   seccomp_sandbox prctl    the filter through prctl(PR_SET_SECCOMP)
 *   seccomp_sandbox syscall  through syscall(SYS_seccomp) (libseccomp's way)
 *   seccomp_sandbox calls    no sandbox: syscall() as glibc's (its return
 *                            value and errno, a fork by SYS_clone)
 * Under leakprof the reports and profiles of both go to their files, and
 * the program's stderr stays empty (tests/e2e/reliability.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *keep;

static int sandbox(int through_syscall)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        /* openat(dirfd, path, flags): refused when flags ask to write or
         * create (glibc's open is openat here); everything else passes */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_WRONLY | O_RDWR | O_CREAT, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    if (through_syscall)
        return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* syscall() through the library's hook behaves as glibc's. */
static int calls(void)
{
    long tid = syscall(SYS_gettid), r;
    int e, st = 0;
    pid_t child;

    r = syscall(SYS_close, 12345);
    e = errno;
    child = (pid_t)syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
    if (child == 0)
        _exit(7);
    waitpid(child, &st, 0);
    printf("gettid %s, close(12345) %ld errno %s, clone child status %d\n",
           tid == getpid() ? "is the pid" : "differs", r,
           e == EBADF ? "EBADF" : "other", WEXITSTATUS(st));
    return 0;
}

int main(int argc, char **argv)
{
    int via_syscall = argc > 1 && strcmp(argv[1], "syscall") == 0;
    pid_t child;
    void *lost;

    if (argc > 1 && strcmp(argv[1], "calls") == 0)
        return calls();

    keep = malloc(100);
    if (sandbox(via_syscall) != 0) {
        perror("seccomp");
        return 1;
    }
    if (open("/tmp", O_WRONLY | O_CREAT, 0600) >= 0 || errno != ENOSYS) {
        fprintf(stderr, "the sandbox lets a write-open through\n");
        return 1;
    }
    fflush(stdout);
    child = fork();
    if (child == 0) {
        lost = malloc(33);
        lost = NULL;
        _exit(0);
    }
    waitpid(child, NULL, 0);
    lost = malloc(44);
    memset(lost, 0, 44);
    lost = NULL;
    printf("sandboxed, child done, %s\n", keep ? "kept" : "none");
    return 0;
}
