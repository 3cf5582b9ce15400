/* SPDX-License-Identifier: MIT */
/*
 * dlopen_cxx.c - a C program that brings libstdc++ in by dlopen, as a
 * plugin's dependency would (binutils' nm loading LLVM's): libstdc++'s
 * constructor allocates its emergency exception pool then, and no
 * __gnu_cxx::__freeres was bound at start, under Valgrind either, so the
 * pool stays "still reachable", as Memcheck shows it. With the argument
 * "global" the library goes into the global scope (RTLD_GLOBAL), where a
 * lookup at exit would find its __freeres: Memcheck still shows the pool.
 * Compare: valgrind --leak-check=full --show-leak-kinds=all
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int global = argc > 1 && strcmp(argv[1], "global") == 0;
    void *h = dlopen("libstdc++.so.6", RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));

    printf("libstdc++ %s\n", h ? "loaded" : "not found");
    return 0;
}
