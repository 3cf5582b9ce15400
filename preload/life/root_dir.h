/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_ROOT_DIR_H
#define LP_PRELOAD_ROOT_DIR_H
/*
 * root_dir.h - absolute paths resolved from the root directory the
 * process started with, so that a program that chroots itself (a daemon
 * dropping into an empty jail) still lets us read /proc/self and write
 * our files where the user asked; relative paths from the directory the
 * process started in, as Valgrind resolves its output files.
 * Context: BOOT (init), then any (async-signal-safe).
 */
#include <sys/types.h>

/* Keep the start-up root and directory open (private descriptors,
 * fd_guard.h). */
void lp_root_dir_init(void);

/* The directory descriptor to hand an *at call for an absolute *path,
 * which it may advance (past the leading slashes): no libc call, for raw
 * callers (a relative path stays the current directory's here). */
int lp_root_dir(const char **path);

/* open(2), rename(2), unlink(2), readlink(2) with absolute paths taken
 * from the start-up root, relative ones from the start-up directory. */
int lp_root_open(const char *path, int flags, mode_t mode);
int lp_root_rename(const char *from, const char *to);
int lp_root_unlink(const char *path);
ssize_t lp_root_readlink(const char *path, char *buf, size_t size);

/* /proc/thread-self/NAME (else /proc/self/NAME: kernels before 3.17),
 * from the start-up root. Not /proc/self: once the main thread has left
 * by pthread_exit, /proc/self is that zombie's, and its maps, cmdline
 * and exe read empty, while the process goes on in its other threads. */
int lp_proc_self_open(const char *name, int flags);
ssize_t lp_proc_self_readlink(const char *name, char *buf, size_t size);

/* The text of /proc/DIR<id>/NAME (dir "" for a process, "self/task/" for
 * one of our threads) from the start-up root: at most size - 1 bytes,
 * NUL-terminated. Returns its length, or -1. */
ssize_t lp_proc_read_of(const char *dir, pid_t id, const char *name,
                        char *buf, size_t size);

#endif /* LP_PRELOAD_ROOT_DIR_H */
