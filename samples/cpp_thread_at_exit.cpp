// SPDX-License-Identifier: MIT
//
// cpp_thread_at_exit.cpp - a C++ program that exits while a thread still
// runs: the C++ runtime cannot be told to free its buffers then (the
// thread might throw), yet Memcheck frees them once the thread is gone,
// libstdc++'s emergency exception pool included. leakprof counts the pool
// as freed: nothing suppressed, nothing more in use than under Memcheck.
// Compare: valgrind --leak-check=full --show-leak-kinds=all
//          build/samples/cpp_thread_at_exit
#include <atomic>
#include <cstdio>
#include <thread>
#include <unistd.h>

static std::atomic<long> spins;

int main()
{
    std::thread *t = new std::thread([] {
        for (;;) {
            spins++;
            usleep(1000);
        }
    });
    while (spins.load() == 0)
        usleep(1000);
    std::printf("running\n");
    (void)t; // still reachable: the thread object
    return 0;
}
