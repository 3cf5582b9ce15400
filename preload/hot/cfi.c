/* SPDX-License-Identifier: MIT */
/*
 * cfi.c - a small .eh_frame interpreter: the unwind rule at one address.
 *
 * Steps, all on memory the loader mapped read-only for the object:
 *  1. _dl_find_object(pc) gives the object's PT_GNU_EH_FRAME segment, the
 *     .eh_frame_hdr: a sorted table of (function start, FDE) pairs that
 *     the linker wrote for exactly this kind of lookup. Binary search.
 *  2. The FDE and its CIE: code/data alignment factors, the pointer
 *     encoding, the augmentation ('S' marks a signal frame: fallback).
 *  3. Run the CIE's initial instructions, then the FDE's, up to the row
 *     that covers pc, tracking only what the walker needs: the CFA rule,
 *     rbp's rule and the return address's rule.
 * Only the opcodes compilers emit for x86-64 are followed; an expression
 * or a register rule for anything the walker reads means FALLBACK.
 * Context: HOT (rule-cache misses). No lock, no allocation, no libc
 * beyond _dl_find_object.
 */
#include "preload/hot/cfi.h"

#include <dlfcn.h>
#include <string.h>

/* DWARF register numbers on x86-64. */
enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };

/* Pointer encodings (DW_EH_PE_*). */
enum {
    PE_ABSPTR = 0x00, PE_ULEB128 = 0x01, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03,
    PE_UDATA8 = 0x04, PE_SLEB128 = 0x09, PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b,
    PE_SDATA8 = 0x0c, PE_PCREL = 0x10, PE_DATAREL = 0x30,
    PE_INDIRECT = 0x80, PE_OMIT = 0xff,
};

/* A cursor over bytes that may not run past end. */
struct rd {
    const uint8_t *p, *end;
    bool bad;
};

static uint64_t rd_uleb(struct rd *r)
{
    uint64_t v = 0;
    unsigned shift = 0;

    while (r->p < r->end) {
        uint8_t b = *r->p++;

        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

static int64_t rd_sleb(struct rd *r)
{
    int64_t v = 0;
    unsigned shift = 0;

    while (r->p < r->end) {
        uint8_t b = *r->p++;

        if (shift < 64)
            v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40))
                v |= -((int64_t)1 << shift);
            return v;
        }
    }
    r->bad = true;
    return 0;
}

static uint64_t rd_fixed(struct rd *r, unsigned size)
{
    uint64_t v = 0;

    if ((size_t)(r->end - r->p) < size) {
        r->bad = true;
        return 0;
    }
    memcpy(&v, r->p, size); /* little-endian */
    r->p += size;
    return v;
}

static uint8_t rd_u8(struct rd *r) { return (uint8_t)rd_fixed(r, 1); }

/* A value in encoding enc's format (low nibble), without its base. */
static uint64_t rd_format(struct rd *r, uint8_t enc)
{
    switch (enc & 0x0f) {
    case PE_ABSPTR:
    case PE_UDATA8:
    case PE_SDATA8:
        return rd_fixed(r, 8);
    case PE_ULEB128:
        return rd_uleb(r);
    case PE_SLEB128:
        return (uint64_t)rd_sleb(r);
    case PE_UDATA2:
        return rd_fixed(r, 2);
    case PE_SDATA2:
        return (uint64_t)(int64_t)(int16_t)rd_fixed(r, 2);
    case PE_UDATA4:
        return rd_fixed(r, 4);
    case PE_SDATA4:
        return (uint64_t)(int64_t)(int32_t)rd_fixed(r, 4);
    }
    r->bad = true;
    return 0;
}

/* An encoded pointer; datarel is relative to base (the .eh_frame_hdr). */
static uintptr_t rd_ptr(struct rd *r, uint8_t enc, uintptr_t base)
{
    uintptr_t at = (uintptr_t)r->p;
    uint64_t v;

    if (enc == PE_OMIT || (enc & PE_INDIRECT)) {
        r->bad = true;
        return 0;
    }
    v = rd_format(r, enc);
    switch (enc & 0x70) {
    case 0:
        return v;
    case PE_PCREL:
        return at + v;
    case PE_DATAREL:
        return base + v;
    }
    r->bad = true;
    return 0;
}

/* Find the FDE covering pc through the .eh_frame_hdr table. */
static const uint8_t *find_fde(const uint8_t *hdr, uintptr_t pc)
{
    struct rd r = {hdr, hdr + 4096, false};
    uint8_t version = rd_u8(&r), ptr_enc = rd_u8(&r), count_enc = rd_u8(&r),
            table_enc = rd_u8(&r);
    const int32_t *table;
    uint64_t count;
    size_t lo, hi;

    (void)ptr_enc;
    if (version != 1 || table_enc != (PE_DATAREL | PE_SDATA4))
        return NULL;
    rd_ptr(&r, ptr_enc, (uintptr_t)hdr); /* eh_frame_ptr: unused */
    count = rd_ptr(&r, count_enc, (uintptr_t)hdr);
    if (r.bad || count == 0)
        return NULL;
    table = (const int32_t *)(const void *)r.p;
    /* The last entry whose start is <= pc. */
    lo = 0;
    hi = count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;

        if ((uintptr_t)hdr + (intptr_t)table[2 * mid] <= pc)
            lo = mid;
        else
            hi = mid;
    }
    if ((uintptr_t)hdr + (intptr_t)table[2 * lo] > pc)
        return NULL;
    return hdr + (intptr_t)table[2 * lo + 1];
}

/* What the walker tracks of one CFI row. */
enum { R_SAME = 0, R_OFFSET, R_UNDEF, R_OTHER };
struct row {
    int cfa_reg;
    int64_t cfa_off;
    bool cfa_expr;
    uint8_t rbp, ra, rsp; /* R_* */
    int64_t rbp_off, ra_off;
};

struct cie {
    uint64_t code_align;
    int64_t data_align;
    uint64_t ra_reg;
    uint8_t fde_enc;
    bool has_z, signal;
    struct rd insns;
};

static bool parse_cie(const uint8_t *p, struct cie *c)
{
    struct rd r = {p, p + 12, false};
    uint64_t len = rd_fixed(&r, 4);
    const char *aug;
    uint8_t version;

    if (len == 0 || len == 0xffffffffu)
        return false;
    r.end = p + 4 + len;
    if (rd_fixed(&r, 4) != 0) /* CIE id */
        return false;
    version = rd_u8(&r);
    if (version != 1 && version != 3)
        return false;
    aug = (const char *)r.p;
    while (r.p < r.end && *r.p)
        r.p++;
    if (r.p >= r.end)
        return false;
    r.p++;
    c->code_align = rd_uleb(&r);
    c->data_align = rd_sleb(&r);
    c->ra_reg = version == 1 ? rd_u8(&r) : rd_uleb(&r);
    c->fde_enc = PE_ABSPTR;
    c->has_z = aug[0] == 'z';
    c->signal = false;
    if (c->has_z) {
        uint64_t alen = rd_uleb(&r);
        const uint8_t *after = r.p + alen;
        const char *a;

        if (r.bad || alen > (uint64_t)(r.end - r.p))
            return false;
        for (a = aug + 1; *a; a++) {
            if (*a == 'R')
                c->fde_enc = rd_u8(&r);
            else if (*a == 'L')
                rd_u8(&r);
            else if (*a == 'P') {
                uint8_t penc = rd_u8(&r);

                if ((penc & 0x70) == 0x50) /* aligned */
                    return false;
                rd_format(&r, penc);
            } else if (*a == 'S')
                c->signal = true;
            else if (*a == 'B' || *a == 'G')
                ; /* no data */
            else
                return false;
        }
        r.p = after;
    } else if (aug[0] != 0) {
        return false;
    }
    c->insns = r;
    return !r.bad && c->ra_reg == REG_RA;
}

/* Apply a "register reg is saved at CFA+off" style rule. */
static void set_rule(struct row *s, uint64_t reg, uint8_t kind, int64_t off)
{
    if (reg == REG_RBP) {
        s->rbp = kind;
        s->rbp_off = off;
    } else if (reg == REG_RA) {
        s->ra = kind;
        s->ra_off = off;
    } else if (reg == REG_RSP) {
        s->rsp = kind == R_SAME ? R_SAME : R_OTHER;
    }
}

#define MAX_REMEMBER 8

/*
 * Run instructions until the row that covers target. loc is the address
 * of the current row; init is the CIE's row, for DW_CFA_restore. Returns
 * false on anything this interpreter does not follow.
 */
static bool run(struct rd *r, const struct cie *c, struct row *s,
                const struct row *init, uintptr_t *loc, uintptr_t target,
                uint8_t fde_enc)
{
    struct row stack[MAX_REMEMBER];
    unsigned depth = 0;

    while (r->p < r->end && !r->bad) {
        uint8_t op = rd_u8(r);
        uint64_t reg, delta = 0;
        bool advance = false;

        switch (op & 0xc0) {
        case 0x40: /* DW_CFA_advance_loc */
            delta = op & 0x3f;
            advance = true;
            break;
        case 0x80: /* DW_CFA_offset */
            set_rule(s, op & 0x3f, R_OFFSET,
                     (int64_t)rd_uleb(r) * c->data_align);
            continue;
        case 0xc0: /* DW_CFA_restore */
            reg = op & 0x3f;
            if (!init)
                return false;
            if (reg == REG_RBP) {
                s->rbp = init->rbp;
                s->rbp_off = init->rbp_off;
            } else if (reg == REG_RA) {
                s->ra = init->ra;
                s->ra_off = init->ra_off;
            } else if (reg == REG_RSP)
                s->rsp = init->rsp;
            continue;
        }
        if (!advance) {
            switch (op) {
            case 0x00: /* nop */
                break;
            case 0x01: /* set_loc */
                if (!init)
                    return false;
                {
                    uintptr_t nl = rd_ptr(r, fde_enc, 0);

                    if (nl > target)
                        return !r->bad;
                    *loc = nl;
                }
                break;
            case 0x02:
                delta = rd_fixed(r, 1);
                advance = true;
                break;
            case 0x03:
                delta = rd_fixed(r, 2);
                advance = true;
                break;
            case 0x04:
                delta = rd_fixed(r, 4);
                advance = true;
                break;
            case 0x05: /* offset_extended */
                reg = rd_uleb(r);
                set_rule(s, reg, R_OFFSET,
                         (int64_t)rd_uleb(r) * c->data_align);
                break;
            case 0x06: /* restore_extended */
                reg = rd_uleb(r);
                if (!init)
                    return false;
                if (reg == REG_RBP) {
                    s->rbp = init->rbp;
                    s->rbp_off = init->rbp_off;
                } else if (reg == REG_RA) {
                    s->ra = init->ra;
                    s->ra_off = init->ra_off;
                } else if (reg == REG_RSP)
                    s->rsp = init->rsp;
                break;
            case 0x07: /* undefined */
                set_rule(s, rd_uleb(r), R_UNDEF, 0);
                break;
            case 0x08: /* same_value */
                set_rule(s, rd_uleb(r), R_SAME, 0);
                break;
            case 0x09: /* register */
                reg = rd_uleb(r);
                rd_uleb(r);
                set_rule(s, reg, R_OTHER, 0);
                break;
            case 0x0a: /* remember_state */
                if (depth == MAX_REMEMBER)
                    return false;
                stack[depth++] = *s;
                break;
            case 0x0b: /* restore_state */
                if (depth == 0)
                    return false;
                {
                    /* The CFA is part of the state too (DWARF 5). */
                    *s = stack[--depth];
                }
                break;
            case 0x0c: /* def_cfa */
                s->cfa_reg = (int)rd_uleb(r);
                s->cfa_off = (int64_t)rd_uleb(r);
                s->cfa_expr = false;
                break;
            case 0x0d: /* def_cfa_register */
                s->cfa_reg = (int)rd_uleb(r);
                s->cfa_expr = false;
                break;
            case 0x0e: /* def_cfa_offset */
                s->cfa_off = (int64_t)rd_uleb(r);
                break;
            case 0x0f: /* def_cfa_expression */
                s->cfa_expr = true;
                r->p += rd_uleb(r);
                break;
            case 0x10: /* expression */
            case 0x16: /* val_expression */
                reg = rd_uleb(r);
                set_rule(s, reg, R_OTHER, 0);
                r->p += rd_uleb(r);
                break;
            case 0x11: /* offset_extended_sf */
                reg = rd_uleb(r);
                set_rule(s, reg, R_OFFSET, rd_sleb(r) * c->data_align);
                break;
            case 0x12: /* def_cfa_sf */
                s->cfa_reg = (int)rd_uleb(r);
                s->cfa_off = rd_sleb(r) * c->data_align;
                s->cfa_expr = false;
                break;
            case 0x13: /* def_cfa_offset_sf */
                s->cfa_off = rd_sleb(r) * c->data_align;
                break;
            case 0x14: /* val_offset */
                reg = rd_uleb(r);
                rd_uleb(r);
                set_rule(s, reg, R_OTHER, 0);
                break;
            case 0x15: /* val_offset_sf */
                reg = rd_uleb(r);
                rd_sleb(r);
                set_rule(s, reg, R_OTHER, 0);
                break;
            case 0x2e: /* GNU_args_size: information only */
                rd_uleb(r);
                break;
            case 0x2f: /* GNU_negative_offset_extended */
                reg = rd_uleb(r);
                set_rule(s, reg, R_OFFSET,
                         -(int64_t)rd_uleb(r) * c->data_align);
                break;
            default:
                return false;
            }
        }
        if (advance) {
            uintptr_t next = *loc + delta * c->code_align;

            if (next > target)
                return !r->bad;
            *loc = next;
        }
    }
    return !r->bad && r->p <= r->end;
}

uint64_t lp_cfi_rule(uintptr_t ra)
{
    uintptr_t pc = ra - 1, start, range, loc;
    struct dl_find_object obj;
    const uint8_t *fde;
    struct rd r;
    struct cie c;
    struct row s, init;
    uint64_t len, rule;
    int32_t cie_ptr;

    /* No object (JIT code), or no FDE covering pc in its table (V8's
     * embedded builtins in node): what libunwind calls no information,
     * and answers with its frame-pointer guess. */
    if (_dl_find_object((void *)pc, &obj) != 0)
        return LP_RULE_GUESS_FP | LP_RULE_NO_OBJECT;
    if (obj.dlfo_eh_frame == NULL)
        return LP_RULE_FALLBACK;
    fde = find_fde(obj.dlfo_eh_frame, pc);
    if (fde == NULL)
        return LP_RULE_GUESS_FP;
    r.p = fde;
    r.end = fde + 8;
    r.bad = false;
    len = rd_fixed(&r, 4);
    if (len == 0 || len == 0xffffffffu)
        return LP_RULE_FALLBACK;
    r.end = fde + 4 + len;
    cie_ptr = (int32_t)rd_fixed(&r, 4);
    if (cie_ptr == 0 || !parse_cie(fde + 4 - cie_ptr, &c) || c.signal)
        return LP_RULE_FALLBACK;
    start = rd_ptr(&r, c.fde_enc, 0);
    range = rd_format(&r, c.fde_enc & 0x0f);
    if (r.bad)
        return LP_RULE_FALLBACK;
    if (pc < start || pc - start >= range)
        return LP_RULE_GUESS_FP; /* the nearest FDE ends before pc */
    if (c.has_z)
        r.p += rd_uleb(&r);
    memset(&s, 0, sizeof(s));
    s.cfa_reg = -1;
    loc = start;
    /* The CIE's instructions describe the function's entry: run them all. */
    if (!run(&c.insns, &c, &s, NULL, &loc, UINTPTR_MAX, c.fde_enc))
        return LP_RULE_FALLBACK;
    init = s;
    loc = start;
    if (!run(&r, &c, &s, &init, &loc, pc, c.fde_enc))
        return LP_RULE_FALLBACK;

    if (s.ra == R_UNDEF)
        return LP_RULE_LAST;
    if (s.cfa_expr || (s.cfa_reg != REG_RSP && s.cfa_reg != REG_RBP) ||
        s.ra != R_OFFSET || s.ra_off != -8 || s.rsp != R_SAME ||
        s.rbp == R_OTHER || s.cfa_off != (int32_t)s.cfa_off ||
        (s.rbp == R_OFFSET && s.rbp_off != (int16_t)s.rbp_off))
        return LP_RULE_FALLBACK;
    rule = LP_RULE_FRAME | (uint64_t)(uint32_t)(int32_t)s.cfa_off << 32;
    if (s.cfa_reg == REG_RBP)
        rule |= LP_RULE_CFA_RBP;
    if (s.rbp == R_OFFSET)
        rule |= LP_RULE_RBP_SAVED |
                (uint64_t)(uint16_t)(int16_t)s.rbp_off << 16;
    else if (s.rbp == R_UNDEF)
        rule |= LP_RULE_RBP_LOST;
    return rule;
}
