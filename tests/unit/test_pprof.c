/* SPDX-License-Identifier: MIT */
/*
 * test_pprof.c - report/protobuf, report/gzip and report/pprof: varints,
 * fields and nested messages byte for byte, CRC-32 of known strings, the
 * gzip stored blocks decoded back, and a small profile decoded field by
 * field (string table, sample types in order, deduplicated locations and
 * functions). tests/e2e/pprof.sh loads real profiles in `go tool pprof`.
 */
#include "tests/unit/lp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/gzip.h"
#include "report/pprof.h"
#include "report/protobuf.h"

static void assert_bytes(const struct lp_pb *b, const uint8_t *want, size_t n)
{
    assert_int_equal(b->err, 0);
    assert_int_equal(b->len, n);
    assert_memory_equal(b->buf, want, n);
}

static void test_pprof_varints_are_base_128_little_endian(void **state)
{
    static const uint8_t want[] = {
        0x00, 0x01, 0x7f, 0x80, 0x01, 0xac, 0x02,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    };
    struct lp_pb b;

    (void)state;
    lp_pb_init(&b);
    lp_pb_varint(&b, 0);
    lp_pb_varint(&b, 1);
    lp_pb_varint(&b, 127);
    lp_pb_varint(&b, 128);
    lp_pb_varint(&b, 300);
    lp_pb_varint(&b, UINT64_MAX);
    assert_bytes(&b, want, sizeof(want));
    assert_int_equal(lp_pb_varint_size(0), 1);
    assert_int_equal(lp_pb_varint_size(300), 2);
    assert_int_equal(lp_pb_varint_size(UINT64_MAX), 10);
    lp_pb_release(&b);
}

static void test_pprof_fields_and_nested_messages(void **state)
{
    /* The protobuf documentation's examples: field 1 = 150 is 08 96 01;
     * field 2 = "testing" is 12 07 74 65 73 74 69 6e 67; field 3 holding
     * that first message is 1a 03 08 96 01; int64 -1 takes ten bytes. */
    static const uint8_t want[] = {
        0x08, 0x96, 0x01,
        0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
        0x1a, 0x03, 0x08, 0x96, 0x01,
        0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        0x2a, 0x03, 0x01, 0xac, 0x02,
        0x32, 0x00,
    };
    static const uint64_t packed[] = { 1, 300 };
    struct lp_pb b, sub;

    (void)state;
    lp_pb_init(&b);
    lp_pb_init(&sub);
    lp_pb_uint(&b, 1, 150);
    lp_pb_string(&b, 2, "testing");
    lp_pb_uint(&sub, 1, 150);
    lp_pb_message(&b, 3, &sub);
    lp_pb_int(&b, 4, -1);
    lp_pb_packed_uint(&b, 5, packed, 2);
    lp_pb_packed_uint(&b, 7, packed, 0); /* empty packed: nothing */
    lp_pb_string(&b, 6, "");
    assert_bytes(&b, want, sizeof(want));
    lp_pb_release(&b);
    lp_pb_release(&sub);
}

static void test_pprof_crc32_of_known_strings(void **state)
{
    (void)state;
    /* The standard check value, and two well-known ones. */
    assert_int_equal(lp_crc32(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(lp_crc32(0, "", 0), 0);
    assert_int_equal(lp_crc32(0, "The quick brown fox jumps over the lazy dog",
                              43),
                     0x414FA339u);
    assert_int_equal(lp_crc32(lp_crc32(0, "12345", 5), "6789", 4),
                     0xCBF43926u);
}

static uint32_t le32(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Gzip n bytes at in through a memory stream, then take the member
 * apart: header, stored blocks (checked one by one), CRC and size. */
static void roundtrip(const uint8_t *in, size_t n, unsigned want_blocks)
{
    char *gz = NULL;
    size_t gzlen = 0, pos = 10, out = 0;
    uint8_t *dec = malloc(n + 1);
    unsigned blocks = 0;
    FILE *f = open_memstream(&gz, &gzlen);
    bool final = false;

    assert_non_null(f);
    assert_non_null(dec);
    assert_int_equal(lp_gzip_write(f, in, n), 0);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(gzlen, lp_gzip_size(n));
    assert_int_equal((uint8_t)gz[0], 0x1f);
    assert_int_equal((uint8_t)gz[1], 0x8b);
    assert_int_equal(gz[2], 8); /* deflate */
    assert_int_equal(gz[3], 0); /* no optional fields */
    while (!final) {
        const uint8_t *h = (const uint8_t *)gz + pos;
        size_t len = h[1] | (size_t)h[2] << 8;

        assert_true(pos + 5 <= gzlen);
        assert_int_equal(h[0] & 6, 0); /* BTYPE 00: stored */
        final = h[0] & 1;
        assert_int_equal((uint16_t)(len ^ (h[3] | h[4] << 8)), 0xffff);
        assert_true(pos + 5 + len + 8 <= gzlen);
        memcpy(dec + out, h + 5, len);
        out += len;
        pos += 5 + len;
        blocks++;
    }
    assert_int_equal(blocks, want_blocks);
    assert_int_equal(pos + 8, gzlen);
    assert_int_equal(out, n);
    assert_memory_equal(dec, in, n);
    assert_int_equal(le32((const uint8_t *)gz + pos), lp_crc32(0, in, n));
    assert_int_equal(le32((const uint8_t *)gz + pos + 4), (uint32_t)n);
    free(gz);
    free(dec);
}

static void test_pprof_gzip_stored_blocks_decode_back(void **state)
{
    size_t n = 150000, i;
    uint8_t *in = malloc(n);

    (void)state;
    assert_non_null(in);
    for (i = 0; i < n; i++)
        in[i] = (uint8_t)(i * 7 + (i >> 9));
    roundtrip(in, n, 3);         /* 65535 + 65535 + 18930 */
    roundtrip(in, 65535, 1);     /* exactly one full block */
    roundtrip(in, 65536, 2);
    roundtrip((const uint8_t *)"", 0, 1); /* one empty final block */
    free(in);
}

/* ---- a minimal protobuf reader, for checking what pprof.c wrote ---- */

struct field {
    unsigned num, wire;
    uint64_t v;        /* varint value, or length */
    const uint8_t *p;  /* length-delimited contents */
};

static uint64_t rd_varint(const uint8_t **p, const uint8_t *end)
{
    uint64_t v = 0;
    int shift = 0;

    for (;;) {
        assert_true(*p < end && shift < 64);
        v |= (uint64_t)(**p & 0x7f) << shift;
        shift += 7;
        if (!(*(*p)++ & 0x80))
            return v;
    }
}

static bool next_field(const uint8_t **p, const uint8_t *end, struct field *f)
{
    uint64_t key;

    if (*p >= end)
        return false;
    key = rd_varint(p, end);
    f->num = (unsigned)(key >> 3);
    f->wire = (unsigned)(key & 7);
    assert_true(f->wire == 0 || f->wire == 2);
    f->v = rd_varint(p, end);
    f->p = NULL;
    if (f->wire == 2) {
        assert_true(f->v <= (uint64_t)(end - *p));
        f->p = *p;
        *p += f->v;
    }
    return true;
}

/* Value of varint field num in the message [p, p + n), or -1. */
static int64_t msg_uint(const uint8_t *p, size_t n, unsigned num)
{
    const uint8_t *end = p + n;
    struct field f;
    int64_t v = -1;

    while (next_field(&p, end, &f))
        if (f.num == num && f.wire == 0)
            v = (int64_t)f.v;
    return v;
}

static void test_pprof_profile_decodes_field_by_field(void **state)
{
    struct lp_pprof *p = lp_pprof_new();
    struct lp_pprof_line inl[2] = {
        { "inner", NULL, "a.c", 10 },
        { "outer", "_Z5outerv", "a.c", 20 },
    };
    struct lp_pprof_line leaf = { "malloc", NULL, NULL, 0 };
    struct lp_pprof_mapping m = { 0x1000, 0x2000, 0, "/bin/app", "abcd",
                                  true, true, true, true };
    uint64_t l1, l2, l3, locs[2];
    int64_t vals[4] = { 3, 300, 1, 100 };
    struct lp_pprof_label lab = { "bytes", NULL, 100, "bytes" };
    uint8_t *buf;
    size_t len, nstr = 0, ntypes = 0, nloc = 0, nfunc = 0, nsample = 0;
    const char *strs[64];
    int64_t types[8][2], def = -1;
    const uint8_t *q, *end;
    struct field f;

    (void)state;
    assert_non_null(p);
    lp_pprof_add_type(p, "alloc_objects", "count");
    lp_pprof_add_type(p, "alloc_space", "bytes");
    lp_pprof_add_type(p, "inuse_objects", "count");
    lp_pprof_add_type(p, "inuse_space", "bytes");
    lp_pprof_set_default_type(p, "inuse_space");
    assert_int_equal(lp_pprof_ntypes(p), 4);
    assert_int_equal(lp_pprof_add_mapping(p, &m), 1);
    l1 = lp_pprof_add_location(p, 1, 0x1100, &leaf, 1);
    l2 = lp_pprof_add_location(p, 1, 0x1200, inl, 2);
    l3 = lp_pprof_add_location(p, 1, 0x1100, inl, 2); /* same address */
    assert_int_equal(l1, 1);
    assert_int_equal(l2, 2);
    assert_int_equal(l3, 1);
    assert_int_equal(lp_pprof_find_location(p, 0x1200), 2);
    assert_int_equal(lp_pprof_find_location(p, 0x9999), 0);
    locs[0] = l1;
    locs[1] = l2;
    assert_int_equal(lp_pprof_add_sample(p, locs, 2, vals, &lab, 1), 0);
    assert_int_equal(lp_pprof_encode(p, &buf, &len), 0);

    /* First pass: the string table, in order. */
    q = buf;
    end = buf + len;
    while (next_field(&q, end, &f))
        if (f.num == 6) {
            char *s = strndup((const char *)f.p, f.v);

            assert_true(nstr < 64);
            strs[nstr++] = s;
        }
    assert_true(nstr > 8);
    assert_string_equal(strs[0], "");
    /* Second pass: everything else, strings resolved. */
    q = buf;
    while (next_field(&q, end, &f)) {
        switch (f.num) {
        case 1:
            types[ntypes][0] = msg_uint(f.p, f.v, 1);
            types[ntypes][1] = msg_uint(f.p, f.v, 2);
            ntypes++;
            break;
        case 2: {
            const uint8_t *s = f.p, *se = f.p + f.v, *r;
            struct field g;
            uint64_t got[8];
            size_t k = 0;

            while (next_field(&s, se, &g))
                if (g.num == 2)
                    for (r = g.p; r < g.p + g.v && k < 8;)
                        got[k++] = rd_varint(&r, g.p + g.v);
            assert_int_equal(k, 4);
            assert_int_equal(got[1], 300);
            assert_int_equal(got[3], 100);
            nsample++;
            break;
        }
        case 4:
            nloc++;
            break;
        case 5: {
            int64_t name = msg_uint(f.p, f.v, 2), sys = msg_uint(f.p, f.v, 3);

            if (!strcmp(strs[name], "outer"))
                assert_string_equal(strs[sys], "_Z5outerv");
            else
                assert_string_equal(strs[sys], strs[name]);
            nfunc++;
            break;
        }
        case 3:
            assert_string_equal(strs[msg_uint(f.p, f.v, 5)], "/bin/app");
            assert_string_equal(strs[msg_uint(f.p, f.v, 6)], "abcd");
            assert_int_equal(msg_uint(f.p, f.v, 2), 0x1000);
            break;
        case 14:
            def = (int64_t)f.v;
            break;
        }
    }
    assert_int_equal(ntypes, 4);
    assert_string_equal(strs[types[0][0]], "alloc_objects");
    assert_string_equal(strs[types[0][1]], "count");
    assert_string_equal(strs[types[1][0]], "alloc_space");
    assert_string_equal(strs[types[3][0]], "inuse_space");
    assert_string_equal(strs[types[3][1]], "bytes");
    assert_string_equal(strs[def], "inuse_space");
    assert_int_equal(nsample, 1);
    assert_int_equal(nloc, 2);  /* the repeated address made no third */
    assert_int_equal(nfunc, 3); /* malloc, inner, outer */
    while (nstr)
        free((void *)strs[--nstr]);
    free(buf);
    lp_pprof_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pprof_varints_are_base_128_little_endian),
        cmocka_unit_test(test_pprof_fields_and_nested_messages),
        cmocka_unit_test(test_pprof_crc32_of_known_strings),
        cmocka_unit_test(test_pprof_gzip_stored_blocks_decode_back),
        cmocka_unit_test(test_pprof_profile_decodes_field_by_field),
    };
    return cmocka_run_group_tests_name("pprof", tests, NULL, NULL);
}
