/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck on x86-32: instructions done in the fault handler.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _ARCH_X86_MM_KMEMCHECK_EMULATE_H
#define _ARCH_X86_MM_KMEMCHECK_EMULATE_H

#include <linux/compiler.h>
#include <linux/types.h>

struct insn;
struct kmemcheck_insn;
struct pt_regs;

/*
 * One load or store of 1, 2 or 4 bytes, as the instruction makes it: never
 * memcpy(), which may split it.
 */
static inline unsigned long kmemcheck_load(const void *p, unsigned int size)
{
	switch (size) {
	case 1:
		return READ_ONCE(*(const u8 *)p);
	case 2:
		return READ_ONCE(*(const u16 *)p);
	default:
		return READ_ONCE(*(const u32 *)p);
	}
}

static inline void kmemcheck_store(void *p, unsigned long val,
				   unsigned int size)
{
	switch (size) {
	case 1:
		WRITE_ONCE(*(u8 *)p, val);
		break;
	case 2:
		WRITE_ONCE(*(u16 *)p, val);
		break;
	default:
		WRITE_ONCE(*(u32 *)p, val);
		break;
	}
}

/* What an arithmetic instruction does with its memory operand. */
enum kmemcheck_alu_op {
	KMEMCHECK_ALU_ADD,
	KMEMCHECK_ALU_OR,
	KMEMCHECK_ALU_AND,
	KMEMCHECK_ALU_SUB,
	KMEMCHECK_ALU_XOR,
	KMEMCHECK_ALU_CMP,
	KMEMCHECK_ALU_TEST,
	KMEMCHECK_ALU_INC,
	KMEMCHECK_ALU_DEC,
	KMEMCHECK_ALU_XADD,
	KMEMCHECK_ALU_XCHG,
	KMEMCHECK_ALU_CMPXCHG,
	KMEMCHECK_ALU_NONE,
};

/* One arithmetic instruction with a memory operand, as decoded. */
struct kmemcheck_alu_insn {
	enum kmemcheck_alu_op op;
	bool to_reg;		/* the register is the destination */
	bool imm;		/* the source is the immediate */
	unsigned int size;
};

bool kmemcheck_alu_decode(struct insn *insn, struct kmemcheck_alu_insn *alu);
unsigned long kmemcheck_alu_do(const struct kmemcheck_alu_insn *alu,
			       struct pt_regs *regs, unsigned long addr,
			       unsigned long *reg, unsigned long val);

bool kmemcheck_emulate(struct pt_regs *regs, struct insn *insn,
		       const struct kmemcheck_insn *kinsn);

#endif /* _ARCH_X86_MM_KMEMCHECK_EMULATE_H */
