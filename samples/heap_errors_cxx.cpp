// SPDX-License-Identifier: MIT
// heap_errors_cxx.cpp - a block released by the wrong family is
// Memcheck's "Mismatched free() / delete / delete []" (the block is still
// freed); a pointer into memory the heap never handed out is an invalid
// free. heap_errors_cxx CASE, CASE one of: newarr_delete malloc_delete
// new_free new_deletearr new_realloc wild unmapped all (default all), or
// correct: every operator new/delete variant used rightly (no error).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>

#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#pragma GCC diagnostic ignored "-Wmismatched-dealloc"
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"

__attribute__((noinline)) static void newarr_delete()
{
    int *p = new int[4];
    delete p;
}

__attribute__((noinline)) static void malloc_delete()
{
    int *p = static_cast<int *>(malloc(12));
    delete p;
}

__attribute__((noinline)) static void new_free()
{
    int *p = new int;
    free(p);
}

__attribute__((noinline)) static void new_deletearr()
{
    int *p = new int;
    delete[] p;
}

__attribute__((noinline)) static void new_realloc()
{
    char *p = new char[8];
    p = static_cast<char *>(realloc(p, 64));
    free(p);
}

// A pointer into memory the program mapped itself.
__attribute__((noinline)) static void wild()
{
    void *m = mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    free(static_cast<char *>(m) + 16);
    munmap(m, 4096);
}

// A pointer into memory that is not mapped any more.
__attribute__((noinline)) static void unmapped()
{
    void *m = mmap(nullptr, 8192, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    munmap(m, 8192);
    free(static_cast<char *>(m) + 4096);
}

struct alignas(64) Wide {
    char c[64];
};

// Every variant, each released by its own family: no error at all.
__attribute__((noinline)) static void correct()
{
    int *a = new int;
    int *b = new int[3];
    int *c = new (std::nothrow) int;
    int *d = new (std::nothrow) int[5];
    Wide *e = new Wide;
    Wide *f = new Wide[2];
    void *g = ::operator new(40, std::align_val_t(32));
    void *h = ::operator new[](40, std::align_val_t(32), std::nothrow);
    void *i = std::malloc(7);

    delete a;
    delete[] b;
    ::operator delete(c, std::nothrow);
    ::operator delete[](d, std::nothrow);
    delete e;
    delete[] f;
    ::operator delete(g, 40, std::align_val_t(32));
    ::operator delete[](h, std::align_val_t(32), std::nothrow);
    i = std::realloc(i, 70);
    std::free(i);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "all";
    bool all = std::strcmp(w, "all") == 0;

    if (all || !std::strcmp(w, "newarr_delete"))
        newarr_delete();
    if (all || !std::strcmp(w, "malloc_delete"))
        malloc_delete();
    if (all || !std::strcmp(w, "new_free"))
        new_free();
    if (all || !std::strcmp(w, "new_deletearr"))
        new_deletearr();
    if (all || !std::strcmp(w, "new_realloc"))
        new_realloc();
    if (all || !std::strcmp(w, "wild"))
        wild();
    if (all || !std::strcmp(w, "unmapped"))
        unmapped();
    if (!std::strcmp(w, "correct"))
        correct();
    std::printf("heap_errors_cxx %s: done\n", w);
    return 0;
}
