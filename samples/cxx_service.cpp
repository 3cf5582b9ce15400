// SPDX-License-Identifier: MIT
/*
 * cxx_service.cpp - a C++ service that waits to be killed: keeps a
 * std::string, prints "ready", then churns a small block every 10 ms for
 * at most 30 s. libstdc++ allocated its emergency pool at start; killed
 * by SIGTERM (no freeres runs), Memcheck reports that pool still
 * reachable, whether or not a snapshot signal came before.
 */
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

static std::string *keep;

int main()
{
    keep = new std::string(100, 'x');
    std::puts("ready");
    std::fflush(stdout);
    for (int i = 0; i < 3000; i++) {
        void *p = std::malloc(10);
        std::free(p);
        usleep(10000);
    }
    return 0;
}
