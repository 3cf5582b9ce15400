/* SPDX-License-Identifier: MIT */
/*
 * protobuf.c - protocol buffers wire format, writing side (protobuf.h).
 * Context: COLD.
 */
#include "report/protobuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void lp_pb_init(struct lp_pb *b) { memset(b, 0, sizeof(*b)); }

void lp_pb_release(struct lp_pb *b)
{
    free(b->buf);
    memset(b, 0, sizeof(*b));
}

void lp_pb_clear(struct lp_pb *b) { b->len = 0; }

/* Make room for n more bytes; false (and err set) when that fails. */
static int reserve(struct lp_pb *b, size_t n)
{
    size_t cap;
    uint8_t *p;

    if (b->err)
        return 0;
    if (b->cap - b->len >= n)
        return 1;
    cap = b->cap ? b->cap : 256;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->err = -ENOMEM;
            return 0;
        }
        cap *= 2;
    }
    p = realloc(b->buf, cap);
    if (!p) {
        b->err = -ENOMEM;
        return 0;
    }
    b->buf = p;
    b->cap = cap;
    return 1;
}

void lp_pb_raw(struct lp_pb *b, const void *p, size_t n)
{
    if (n == 0 || !reserve(b, n))
        return;
    memcpy(b->buf + b->len, p, n);
    b->len += n;
}

size_t lp_pb_varint_size(uint64_t v)
{
    size_t n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

void lp_pb_varint(struct lp_pb *b, uint64_t v)
{
    if (!reserve(b, 10))
        return;
    while (v >= 0x80) {
        b->buf[b->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->buf[b->len++] = (uint8_t)v;
}

void lp_pb_key(struct lp_pb *b, unsigned field, unsigned wire)
{
    lp_pb_varint(b, (uint64_t)field << 3 | wire);
}

void lp_pb_uint(struct lp_pb *b, unsigned field, uint64_t v)
{
    lp_pb_key(b, field, LP_PB_VARINT);
    lp_pb_varint(b, v);
}

void lp_pb_int(struct lp_pb *b, unsigned field, int64_t v)
{
    lp_pb_uint(b, field, (uint64_t)v);
}

void lp_pb_bytes(struct lp_pb *b, unsigned field, const void *p, size_t n)
{
    lp_pb_key(b, field, LP_PB_LEN);
    lp_pb_varint(b, n);
    lp_pb_raw(b, p, n);
}

void lp_pb_string(struct lp_pb *b, unsigned field, const char *s)
{
    lp_pb_bytes(b, field, s, s ? strlen(s) : 0);
}

void lp_pb_message(struct lp_pb *b, unsigned field, const struct lp_pb *sub)
{
    if (sub->err) {
        b->err = sub->err;
        return;
    }
    lp_pb_bytes(b, field, sub->buf, sub->len);
}

void lp_pb_packed_uint(struct lp_pb *b, unsigned field, const uint64_t *v,
                       size_t n)
{
    size_t i, len = 0;

    if (n == 0)
        return;
    for (i = 0; i < n; i++)
        len += lp_pb_varint_size(v[i]);
    lp_pb_key(b, field, LP_PB_LEN);
    lp_pb_varint(b, len);
    for (i = 0; i < n; i++)
        lp_pb_varint(b, v[i]);
}

void lp_pb_packed_int(struct lp_pb *b, unsigned field, const int64_t *v,
                      size_t n)
{
    size_t i, len = 0;

    if (n == 0)
        return;
    for (i = 0; i < n; i++)
        len += lp_pb_varint_size((uint64_t)v[i]);
    lp_pb_key(b, field, LP_PB_LEN);
    lp_pb_varint(b, len);
    for (i = 0; i < n; i++)
        lp_pb_varint(b, (uint64_t)v[i]);
}
