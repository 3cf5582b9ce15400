/* SPDX-License-Identifier: MIT */
/*
 * spike_service.c - a service whose start-up spike is its heap peak, for
 * `leakprint --diff massif.out.PID.1 massif.out.PID.2`.
 *
 * At start it fills 10 MB of start-up buffers (10 blocks of 1,048,576
 * bytes at load_config) and frees them again, keeps a 4,096-byte baseline
 * (open_sessions), prints "ready" and then reads commands from stdin, one
 * per line, with read(2) (so reading allocates nothing):
 *   grow    allocate 200 blocks of 1,000 bytes at grow_cache (200,000
 *           bytes, kept reachable from a global list); print "grown N"
 * At end of input it frees everything, prints "bye" and exits 0. A
 * snapshot signal between two "grow" commands therefore sees exactly
 * 200,000 more bytes at grow_cache, and every file's peak is the spike.
 *
 *   spike_service < commands
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPIKE_BLOCKS 10
#define SPIKE_SIZE (1024 * 1024)
#define GROW_BLOCKS 200
#define GROW_SIZE 1000

struct entry {
    struct entry *next;
    char data[GROW_SIZE - sizeof(struct entry *)];
};

static struct entry *cache;
static void *sessions;

__attribute__((noinline)) static void load_config(void)
{
    void *buf[SPIKE_BLOCKS];
    int i;

    for (i = 0; i < SPIKE_BLOCKS; i++) {
        buf[i] = malloc(SPIKE_SIZE);
        memset(buf[i], i, SPIKE_SIZE);
    }
    for (i = 0; i < SPIKE_BLOCKS; i++)
        free(buf[i]);
}

__attribute__((noinline)) static void open_sessions(void)
{
    sessions = calloc(1, 4096);
}

__attribute__((noinline)) static void grow_cache(void)
{
    int i;

    for (i = 0; i < GROW_BLOCKS; i++) {
        struct entry *e = malloc(sizeof(*e));

        memset(e->data, i, sizeof(e->data));
        e->next = cache;
        cache = e;
    }
}

/* One line from fd 0 into buf (without the newline); false at EOF. */
static int read_line(char *buf, size_t n)
{
    size_t len = 0;
    char c;

    for (;;) {
        ssize_t r = read(0, &c, 1);

        if (r <= 0)
            break;
        if (c == '\n') {
            buf[len] = '\0';
            return 1;
        }
        if (len + 1 < n)
            buf[len++] = c;
    }
    buf[len] = '\0';
    return len > 0;
}

int main(void)
{
    char cmd[64];
    int grown = 0;

    load_config();
    open_sessions();
    printf("ready\n");
    fflush(stdout);
    while (read_line(cmd, sizeof(cmd))) {
        if (strcmp(cmd, "grow") == 0) {
            grow_cache();
            printf("grown %d\n", ++grown);
        } else {
            printf("unknown command '%s'\n", cmd);
        }
        fflush(stdout);
    }
    while (cache) {
        struct entry *e = cache;

        cache = e->next;
        free(e);
    }
    free(sessions);
    printf("bye\n");
    return 0;
}
