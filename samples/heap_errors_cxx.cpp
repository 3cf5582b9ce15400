#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>
__attribute__((noinline)) static void new_arr_delete(void)
{
    int *p = new int[4];
    delete p;
}
__attribute__((noinline)) static void malloc_delete(void)
{
    int *p = (int *)malloc(12);
    delete p;
}
__attribute__((noinline)) static void new_free(void)
{
    int *p = new int;
    free(p);
}
__attribute__((noinline)) static void new_delete_arr(void)
{
    int *p = new int;
    delete[] p;
}
__attribute__((noinline)) static void wild_free(void)
{
    char *m = (char *)mmap(0, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    free(m + 16);
    munmap(m, 4096);
}
int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "all";
    bool all = !strcmp(w, "all");
    if (all || !strcmp(w, "newarr_delete")) new_arr_delete();
    if (all || !strcmp(w, "malloc_delete")) malloc_delete();
    if (all || !strcmp(w, "new_free")) new_free();
    if (all || !strcmp(w, "new_deletearr")) new_delete_arr();
    if (all || !strcmp(w, "wild")) wild_free();
    printf("done %s\n", w);
    return 0;
}
