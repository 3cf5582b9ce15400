/* SPDX-License-Identifier: MIT */
#ifndef LP_PRELOAD_CFI_H
#define LP_PRELOAD_CFI_H
/*
 * cfi.h - the unwind rule of one return address, computed from the
 * module's DWARF call-frame information (.eh_frame_hdr, .eh_frame).
 *
 * A rule says how to go from a frame to its caller on x86-64, in the
 * only shape the fast walker (stack_walk.c) follows: CFA = rsp or rbp plus
 * an offset, the return address at CFA-8, rbp either unchanged, saved at
 * CFA+offset, or undefined. Everything else gcc, clang or hand-written
 * assembly may emit (CFA expressions, a CFA in another register, signal
 * frames, no FDE at all) yields LP_RULE_FALLBACK: the caller hands that
 * capture to libunwind, so stacks stay what libunwind would give - except
 * code no FDE covers, where the walker guesses as libunwind would
 * (LP_RULE_NO_INFO).
 *
 * The object holding the address is found with glibc's _dl_find_object,
 * which is lock-free and async-signal-safe: no dl_iterate_phdr, so no
 * loader lock, and objects loaded by dlopen (or by libc's own dlopen for
 * NSS and iconv) are seen as soon as their constructors run.
 *
 * Context: HOT (on a rule-cache miss only); no lock, no allocation, reads
 * only the object's mapped unwind tables.
 */
#include "preload/lp.h"

/* A rule packed in one word, so a cache slot is written in one store. */
enum lp_rule_kind {
    LP_RULE_NONE = 0,     /* not a rule (empty cache slot) */
    LP_RULE_FRAME = 1,    /* an ordinary frame: follow it */
    LP_RULE_LAST = 2,     /* return address undefined: outermost frame */
    LP_RULE_FALLBACK = 3, /* not expressible: let libunwind do it */
};
#define LP_RULE_KIND(r) ((unsigned)((r) & 3))
#define LP_RULE_CFA_RBP ((uint64_t)1 << 2) /* CFA = rbp + off, else rsp */
#define LP_RULE_RBP_SAVED ((uint64_t)1 << 3) /* rbp at CFA + rbp_off */
#define LP_RULE_RBP_LOST ((uint64_t)1 << 4)  /* rbp undefined below */
/* On a FALLBACK rule: no unwind information covers the address - no
 * object holds it (JIT code), or its object's .eh_frame has no FDE for it
 * (node's embedded V8 builtins). libunwind (built without .debug_frame
 * support on x86-64, as Debian's is) then guesses a
 * frame-pointer frame: if rbp is known, nonzero, at or above the frame's
 * rsp and at most 0x4000 above it, CFA = rbp + 16, the return address at
 * CFA - 8 and rbp saved at CFA - 16; otherwise the walk ends there. The
 * walker makes the same guess itself (stack_walk.c). The rule carries the
 * guessed shape (CFA_RBP, RBP_SAVED, the offsets) for the memos' replays,
 * which must compare the saved rbp; once the guess holds, the walker
 * follows that shape as an ordinary frame. Not cached when no object
 * holds the address (LP_RULE_NO_OBJECT): code may be mapped there later. A return address
 * into a signal trampoline without an FDE, which libunwind would know by
 * its code bytes, is not told apart (reading them could fault). */
#define LP_RULE_NO_INFO ((uint64_t)1 << 5)
#define LP_RULE_NO_OBJECT ((uint64_t)1 << 6) /* with NO_INFO: JIT code */
#define LP_RULE_GUESS_FP \
    ((uint64_t)LP_RULE_FALLBACK | LP_RULE_NO_INFO | LP_RULE_CFA_RBP | \
     LP_RULE_RBP_SAVED | (uint64_t)(uint16_t)-16 << 16 | (uint64_t)16 << 32)
#define LP_RULE_RBP_OFF(r) ((int64_t)(int16_t)((r) >> 16))
#define LP_RULE_CFA_OFF(r) ((int64_t)(int32_t)((r) >> 32))

/* The rule for the frame whose return address (or, for the first frame
 * of a walk, whose resume address) is ra: the CFI row that covers ra - 1,
 * the call instruction. */
uint64_t lp_cfi_rule(uintptr_t ra);

#endif /* LP_PRELOAD_CFI_H */
