/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck on x86-32: MOVs replayed from their cached decode.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _ARCH_X86_MM_KMEMCHECK_REPLAY_H
#define _ARCH_X86_MM_KMEMCHECK_REPLAY_H

#include <linux/types.h>

#include "decode.h"

struct insn;
struct pt_regs;

/* What a replayable MOV does; 0 is "not replayable". */
enum kmemcheck_replay_kind {
	KMEMCHECK_REPLAY_NONE,
	KMEMCHECK_REPLAY_LOAD,		/* MOV r, m: the low bytes of r */
	KMEMCHECK_REPLAY_LOAD_ZX,	/* MOVZX r32, m8/m16 */
	KMEMCHECK_REPLAY_LOAD_SX,	/* MOVSX r32, m8/m16 */
	KMEMCHECK_REPLAY_STORE,		/* MOV m, r */
	KMEMCHECK_REPLAY_STORE_IMM,	/* MOV m, imm */
	KMEMCHECK_REPLAY_ALU,		/* arithmetic on initialized memory */
};

/**
 * struct kmemcheck_replay - a MOV or arithmetic on memory, compiled
 * @kind:	enum kmemcheck_replay_kind
 * @size:	bytes accessed: 1, 2 or 4
 * @reg:	the register operand, by number (kmemcheck_reg())
 * @reg_shift:	8 for %ah, %ch, %dh and %bh, else 0
 * @len:	length of the instruction
 * @mode:	how the memory operand is addressed, never from %esp
 * @imm:	the immediate of KMEMCHECK_REPLAY_STORE_IMM, or of an ALU one
 * @alu_op:	for KMEMCHECK_REPLAY_ALU: enum kmemcheck_alu_op
 * @alu_to_reg:	... the register is the destination
 * @alu_imm:	... the source is @imm
 *
 * Everything the early fault path needs to do the access from the
 * registers at the fault, without the decoder: flat segments, 32-bit
 * addressing, no prefix but the operand size, a flat segment's override
 * (and LOCK, for arithmetic).  emulate.c does its MOVs and arithmetic from
 * the same form, with kmemcheck_replay_do().
 */
struct kmemcheck_replay {
	u8 kind;
	u8 size;
	u8 reg;
	u8 reg_shift;
	struct kmemcheck_addr_mode mode;
	u32 imm;
	u8 len;
	u8 alu_op;
	bool alu_to_reg;
	bool alu_imm;
};

void kmemcheck_replay_compile(struct kmemcheck_replay *r,
			      struct insn *insn);
bool kmemcheck_replay(struct pt_regs *regs, unsigned long address);
unsigned long kmemcheck_replay_do(const struct kmemcheck_replay *r,
				  struct pt_regs *regs, void *mem);

/* decode_cache.c: the replay of the decode kept for @ip, if it holds. */
const struct kmemcheck_replay *kmemcheck_decoded_replay(unsigned long ip);

#endif /* _ARCH_X86_MM_KMEMCHECK_REPLAY_H */
