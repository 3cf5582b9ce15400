#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static char global_buf[64];
__attribute__((noinline)) static void double_free(void)
{
    char *p = malloc(16);
    free(p);
    free(p);
}
__attribute__((noinline)) static void stack_free(void)
{
    char buf[32];
    memset(buf, 0, sizeof buf);
    free(buf + 0);
}
__attribute__((noinline)) static void global_free(void)
{
    free(global_buf);
}
__attribute__((noinline)) static void interior_free(void)
{
    char *p = malloc(40);
    free(p + 8);
    free(p);
}
__attribute__((noinline)) static void realloc_freed(void)
{
    char *p = malloc(24);
    free(p);
    char *q = realloc(p, 48);
    printf("realloc returned %s\n", q ? "non-null" : "NULL");
}
int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "all";
    if (!strcmp(w, "double") || !strcmp(w, "all")) double_free();
    if (!strcmp(w, "stack") || !strcmp(w, "all")) stack_free();
    if (!strcmp(w, "global") || !strcmp(w, "all")) global_free();
    if (!strcmp(w, "interior") || !strcmp(w, "all")) interior_free();
    if (!strcmp(w, "realloc") || !strcmp(w, "all")) realloc_freed();
    printf("done %s\n", w);
    return 0;
}
