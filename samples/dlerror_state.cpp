// SPDX-License-Identifier: MIT
//
// dlerror_state.cpp - a program whose last dlsym failed: glibc keeps the
// error (a 24-byte record and its message, reached from a thread-local
// pointer) until the next dl call of that thread or the exit's freeres.
// A dl call of leakprof's own on that thread, made under its guard,
// would free the message behind its back; the block then read
// "definitely lost". Alone, they are freed at exit, as Memcheck shows;
// with "thread" (a thread still running at exit, so no freeres) the
// record stays reachable. Either way the program's own 16-byte leak (and
// the thread object) are all that is lost.
// Compare: valgrind --leak-check=full --show-leak-kinds=all
#include <atomic>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <thread>
#include <unistd.h>

static std::atomic<long> spins;

int main(int argc, char **argv)
{
    std::thread *t = nullptr;

    if (argc > 1 && std::strcmp(argv[1], "thread") == 0) {
        t = new std::thread([] {
            for (;;) {
                spins++;
                usleep(1000);
            }
        });
        while (spins.load() == 0)
            usleep(1000);
    }
    char *volatile lost = new char[16]; // a leak of its own: a summary
    lost = nullptr;
    void *s = dlsym(RTLD_DEFAULT, "leakprof_no_such_symbol");
    std::printf("dlsym: %s\n", s ? "found" : "not found");
    (void)t; // still reachable: the thread object
    return 0;
}
