/* SPDX-License-Identifier: MIT */
/*
 * unload_app.c - blocks allocated by a plugin's code, then the plugin
 * dlclose'd: at exit the stacks hold addresses of an object that is no
 * longer mapped. Memcheck names those frames "???"; so must we, whatever
 * is mapped there by the time the report is written (the symbolizer's
 * own libdw, libelf, libz loaded into the hole: libdw_objects.c).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static char *keep[16];

int main(int argc, char **argv)
{
    char path[4096], name[32];
    const char *slash = strrchr(argv[0], '/');
    void *h;
    int i;

    (void)argc;
    snprintf(path, sizeof(path), "%.*s/libbigplug.so",
             slash ? (int)(slash - argv[0]) : 1, slash ? argv[0] : ".");
    h = dlopen(path, RTLD_NOW);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    for (i = 0; i < 16; i++) {
        char *(*make)(int);

        snprintf(name, sizeof(name), "bigplug_make%d", i);
        *(void **)&make = dlsym(h, name);
        keep[i] = make(16 + i);
    }
    keep[0] = NULL; /* one block lost, the rest reachable */
    dlclose(h);
    printf("%d blocks\n", i);
    return 0;
}
