/* SPDX-License-Identifier: MIT */
/*
 * test_debug_inflate.c - the inflated copy of a debug file is the same
 * ELF file less the compression: every section has the name, type and
 * contents (inflated) of the original's, none is compressed any more,
 * but the location lists and macro tables, which it keeps empty;
 * files with nothing to inflate, truncated ones and ones compressed
 * another way get no copy and leave nothing behind; while another
 * process makes a copy (its lock there) the others wait for it.
 */
#include "lp_test.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <utime.h>
#include <unistd.h>

#include "report/debug_inflate.h"

static char dir[64], compressed[96], copy[96];

/* This test binary's DWARF, zlib-compressed into a separate debug file,
 * as Debian's -dbg packages ship theirs. */
static int setup(void **state)
{
    char self[PATH_MAX], cmd[PATH_MAX + 256];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    (void)state;
    if (n <= 0)
        return -1;
    self[n] = '\0';
    strcpy(dir, "/tmp/lp_inflate_XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(compressed, sizeof(compressed), "%s/in.debug", dir);
    snprintf(copy, sizeof(copy), "%s/out.dbg", dir);
    snprintf(cmd, sizeof(cmd),
             "objcopy --only-keep-debug --compress-debug-sections=zlib '%s' '%s' "
             "2>/dev/null", self, compressed);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static Elf *open_elf(const char *path, int *fd)
{
    *fd = open(path, O_RDONLY);
    assert_true(*fd >= 0);
    return elf_begin(*fd, ELF_C_READ, NULL);
}

/* What the copy leaves empty (debug_inflate.c: nothing reads them). */
static bool left_empty(const char *name)
{
    return !strcmp(name, ".debug_loclists") || !strcmp(name, ".debug_loc") ||
           !strcmp(name, ".debug_macro") || !strcmp(name, ".debug_macinfo");
}

static void test_copy_is_the_file_less_the_compression(void **state)
{
    int a_fd, b_fd, in = open(compressed, O_RDONLY), out;
    Elf *a, *b;
    Elf_Scn *sa = NULL, *sb = NULL;
    size_t stra, strb;
    unsigned compressed_sections = 0, sections = 0, emptied = 0;

    (void)state;
    assert_true(in >= 0);
    /* This file's DWARF inflates to less than what a copy is made for. */
    assert_int_equal(lp_debug_inflate(in, copy, LP_INFLATE_MIN), -1);
    assert_int_equal(access(copy, F_OK), -1);
    out = lp_debug_inflate(in, copy, 0);
    assert_true(out >= 0);
    assert_int_equal(lseek(in, 0, SEEK_CUR), 0); /* fd left unmoved */
    close(in);
    close(out);
    elf_version(EV_CURRENT);
    a = open_elf(compressed, &a_fd);
    b = open_elf(copy, &b_fd);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(elf_getshdrstrndx(a, &stra), 0);
    assert_int_equal(elf_getshdrstrndx(b, &strb), 0);
    for (;;) {
        GElf_Shdr ha, hb;
        Elf_Data *da, *db;

        sa = elf_nextscn(a, sa);
        sb = elf_nextscn(b, sb);
        if (sa == NULL || sb == NULL)
            break;
        sections++;
        assert_non_null(gelf_getshdr(sa, &ha));
        assert_non_null(gelf_getshdr(sb, &hb));
        assert_string_equal(elf_strptr(a, stra, ha.sh_name),
                            elf_strptr(b, strb, hb.sh_name));
        assert_int_equal(ha.sh_type, hb.sh_type);
        assert_false(hb.sh_flags & SHF_COMPRESSED);
        if (ha.sh_flags & SHF_COMPRESSED) {
            compressed_sections++;
            assert_int_equal(elf_compress(sa, 0, 0), 1); /* inflate it here */
            assert_non_null(gelf_getshdr(sa, &ha));
        }
        assert_int_equal(ha.sh_flags, hb.sh_flags);
        assert_int_equal(ha.sh_addr, hb.sh_addr);
        if (ha.sh_type == SHT_NOBITS)
            continue;
        db = elf_getdata(sb, NULL);
        assert_non_null(db);
        if (left_empty(elf_strptr(a, stra, ha.sh_name))) {
            emptied++;
            assert_int_equal(hb.sh_size, 0);
            assert_int_equal(db->d_size, 0);
            continue;
        }
        da = elf_getdata(sa, NULL);
        assert_non_null(da);
        assert_int_equal(da->d_size, db->d_size);
        assert_int_equal(ha.sh_size, hb.sh_size);
        if (da->d_size)
            assert_memory_equal(da->d_buf, db->d_buf, da->d_size);
    }
    assert_null(sa);
    assert_null(sb);
    assert_true(compressed_sections >= 4); /* .debug_info, _abbrev, _line, _str */
    assert_true(emptied >= 1); /* -O2 -g: .debug_loclists */
    assert_true(sections > compressed_sections);
    elf_end(a);
    elf_end(b);
    close(a_fd);
    close(b_fd);
}

static bool dir_has_only(const char *name)
{
    char cmd[256];

    snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s')\" = '%s'", dir, name);
    return system(cmd) == 0;
}

/* Damage the first compressed section's zlib stream where inflate must
 * notice: its first deflate block gets the reserved block type (0xff:
 * final, type 3). Junk in the middle of the stream was caught only where
 * it broke the decoding or changed the inflated length, and the adler32
 * that would catch the rest is not checked (debug_inflate.c): in the ASan
 * build's .debug_aranges the damaged stream still inflated to its 2,272
 * bytes, a copy was made and the test failed there. */
static void corrupt_first_compressed(const char *path)
{
    static const unsigned char junk[4] = { 0xff, 0x13, 0x37, 0xff };
    int fd;
    Elf *e;
    Elf_Scn *scn = NULL;
    GElf_Shdr h;
    off_t at = -1;

    elf_version(EV_CURRENT);
    e = open_elf(path, &fd);
    assert_non_null(e);
    while ((scn = elf_nextscn(e, scn)) != NULL && at < 0)
        if (gelf_getshdr(scn, &h) && (h.sh_flags & SHF_COMPRESSED) &&
            h.sh_size > 200)
            at = (off_t)(h.sh_offset + sizeof(Elf64_Chdr) + 2);
    elf_end(e);
    close(fd);
    assert_true(at > 0);
    fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, junk, sizeof(junk), at), (ssize_t)sizeof(junk));
    close(fd);
}

static void test_nothing_to_inflate_or_broken(void **state)
{
    char path[96], cmd[640];
    bool zstd;
    int fd;

    (void)state;
    /* The copy itself has nothing compressed left: no second copy. */
    fd = open("/proc/self/exe", O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(lp_debug_inflate(fd, copy, 0), -1);
    close(fd);
    /* Compressed with zstd (binutils 2.40 can): left to libelf. */
    snprintf(cmd, sizeof(cmd),
             "objcopy --decompress-debug-sections '%s' '%s/z.in' && "
             "objcopy --compress-debug-sections=zstd '%s/z.in' '%s/z.debug' "
             "2>/dev/null && rm '%s/z.in'", compressed, dir, dir, dir, dir);
    zstd = system(cmd) == 0;
    if (zstd) {
        snprintf(path, sizeof(path), "%s/z.debug", dir);
        fd = open(path, O_RDONLY);
        assert_true(fd >= 0);
        assert_int_equal(lp_debug_inflate(fd, copy, 0), -1);
        close(fd);
        assert_int_equal(unlink(path), 0);
    }
    /* A truncated compressed file (no section headers left): refused,
     * nothing left behind. */
    snprintf(path, sizeof(path), "%s/cut.debug", dir);
    snprintf(cmd, sizeof(cmd),
             "cp '%s' '%s' && truncate -s $(( $(stat -c %%s '%s') / 2 )) '%s'",
             compressed, path, compressed, path);
    assert_int_equal(system(cmd), 0);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(lp_debug_inflate(fd, copy, 0), -1);
    close(fd);
    /* A damaged zlib stream: the inflate fails, the copy is not made. */
    corrupt_first_compressed(compressed);
    fd = open(compressed, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(lp_debug_inflate(fd, copy, 0), -1);
    close(fd);
    assert_int_equal(unlink(compressed), 0);
    assert_true(dir_has_only("cut.debug"));
    snprintf(path, sizeof(path), "%s/cut.debug", dir);
    /* Not an ELF file at all. */
    fd = open("/etc/hostname", O_RDONLY);
    if (fd >= 0) {
        assert_int_equal(lp_debug_inflate(fd, copy, 0), -1);
        close(fd);
    }
    assert_true(dir_has_only("cut.debug"));
}

/* A copy another process is making (its lock there): this one waits and
 * answers with that copy, making none itself; a lock left by a crashed
 * maker (old) is taken away and the copy made. */
static void test_one_maker_the_others_wait(void **state)
{
    char lock[128], made[128], cmd[400];
    struct stat st;
    struct utimbuf old = {1000000000, 1000000000};
    ino_t theirs;
    pid_t pid;
    int in = open(compressed, O_RDONLY), fd, status;

    (void)state;
    assert_true(in >= 0);
    snprintf(lock, sizeof(lock), "%s.lock", copy);
    snprintf(made, sizeof(made), "%s/made.dbg", dir);
    /* The copy as the other process would write it. */
    fd = lp_debug_inflate(in, made, 0);
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    theirs = st.st_ino;
    close(fd);
    fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    close(fd);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the maker: done in 100 ms */
        usleep(100000);
        _exit(rename(made, copy) == 0 && unlink(lock) == 0 ? 0 : 1);
    }
    fd = lp_debug_inflate(in, copy, 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    close(fd);
    assert_true(st.st_ino == theirs); /* the other's copy, not one made here */
    assert_true(dir_has_only("in.debug\nout.dbg")); /* no copy of its own */
    /* A stale lock: taken away, the copy made, no lock left. */
    assert_int_equal(unlink(copy), 0);
    fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(utime(lock, &old), 0);
    fd = lp_debug_inflate(in, copy, 0);
    assert_true(fd >= 0);
    close(fd);
    assert_true(dir_has_only("in.debug\nout.dbg"));
    close(in);
    snprintf(cmd, sizeof(cmd), "test -s '%s'", copy);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_copy_is_the_file_less_the_compression,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing_to_inflate_or_broken, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_one_maker_the_others_wait, setup,
                                        teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
