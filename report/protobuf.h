/* SPDX-License-Identifier: MIT */
#ifndef LP_REPORT_PROTOBUF_H
#define LP_REPORT_PROTOBUF_H
/*
 * protobuf.h - the few pieces of the protocol buffers wire format that a
 * writer of profile.proto needs: a growing byte buffer, base-128 varints,
 * tags, length-delimited fields (bytes, strings, nested messages) and
 * packed repeated integers. Nothing is decoded here.
 *
 * Wire format: a field is a varint key (field number << 3 | wire type)
 * followed by its value; wire type 0 is a varint, 2 is a varint length
 * and that many bytes. A message is the concatenation of its fields, in
 * any order; a repeated field may appear many times. int64 values are
 * written as the 64-bit two's complement varint (negative numbers take
 * ten bytes), as the reference encoder does.
 *
 * Errors are sticky: after a failed allocation every call is a no-op and
 * lp_pb.err stays -ENOMEM; check it once at the end.
 * Context: COLD. Memory: plain malloc.
 */
#include <stddef.h>
#include <stdint.h>

struct lp_pb {
    uint8_t *buf;
    size_t len, cap;
    int err; /* 0 or -ENOMEM, sticky */
};

#define LP_PB_VARINT 0
#define LP_PB_LEN 2

/* A zeroed struct lp_pb is an empty buffer; release frees it. */
void lp_pb_init(struct lp_pb *b);
void lp_pb_release(struct lp_pb *b);
/* Forget the contents, keep the memory (a scratch buffer reused). */
void lp_pb_clear(struct lp_pb *b);

void lp_pb_raw(struct lp_pb *b, const void *p, size_t n);
void lp_pb_varint(struct lp_pb *b, uint64_t v);
void lp_pb_key(struct lp_pb *b, unsigned field, unsigned wire);

/* field = v (uint64, int64 as two's complement, bool). Zero values are
 * written too; callers skip proto3 defaults themselves when they wish. */
void lp_pb_uint(struct lp_pb *b, unsigned field, uint64_t v);
void lp_pb_int(struct lp_pb *b, unsigned field, int64_t v);

/* field = n bytes at p (bytes, string). */
void lp_pb_bytes(struct lp_pb *b, unsigned field, const void *p, size_t n);
void lp_pb_string(struct lp_pb *b, unsigned field, const char *s);

/* field = the message encoded in sub (sub is left unchanged). */
void lp_pb_message(struct lp_pb *b, unsigned field, const struct lp_pb *sub);

/* Packed repeated uint64 / int64: one length-delimited field holding
 * n varints. Nothing is written when n == 0. */
void lp_pb_packed_uint(struct lp_pb *b, unsigned field, const uint64_t *v,
                       size_t n);
void lp_pb_packed_int(struct lp_pb *b, unsigned field, const int64_t *v,
                      size_t n);

/* Bytes the varint encoding of v takes (1..10). */
size_t lp_pb_varint_size(uint64_t v);

#endif /* LP_REPORT_PROTOBUF_H */
