/* dlopen_app.c - loads samples' libctorlib.so at run time: its
 * constructor's blocks (one kept, one lost) must be reported with the
 * library's own frames, symbolized after the dlopen. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    char path[4096];
    const char *slash = strrchr(argv[0], '/');
    void *h;
    int (*answer)(void);

    (void)argc;
    snprintf(path, sizeof(path), "%.*s/libctorlib.so",
             slash ? (int)(slash - argv[0]) : 1, slash ? argv[0] : ".");
    h = dlopen(path, RTLD_NOW);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    answer = (int (*)(void))dlsym(h, "ctorlib_answer");
    printf("%d\n", answer());
    return 0;
}
