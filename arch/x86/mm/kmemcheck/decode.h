/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck: which memory does a faulting x86-32 instruction touch?
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _ARCH_X86_MM_KMEMCHECK_DECODE_H
#define _ARCH_X86_MM_KMEMCHECK_DECODE_H

#include <linux/types.h>

struct insn;
struct pt_regs;

/* How an instruction uses one memory operand. */
enum kmemcheck_access_kind {
	KMEMCHECK_ACCESS_READ = 1,	/* loaded, never stored */
	KMEMCHECK_ACCESS_WRITE = 2,	/* stored, never loaded */
	KMEMCHECK_ACCESS_RMW = 3,	/* loaded, then stored */
};

/* One memory operand of one execution (one REP iteration) of an insn. */
struct kmemcheck_access {
	unsigned long addr;		/* linear address of the first byte */
	unsigned int size;		/* bytes touched, 1..512 (FXSAVE) */
	enum kmemcheck_access_kind kind;
};

/*
 * The general registers by their number in ModRM, SIB and opcodes: %eax,
 * %ecx, %edx, %ebx, %esp, %ebp, %esi, %edi.  Every part of kmemcheck that
 * reads or writes one by its number goes through kmemcheck_reg().
 */
#define KMEMCHECK_NO_REG	0xff

extern const u8 kmemcheck_reg_slot[8];

/* The general register @n (0-7) of @regs. */
static __always_inline unsigned long *kmemcheck_reg(struct pt_regs *regs,
						    unsigned int n)
{
	return (unsigned long *)regs + kmemcheck_reg_slot[n & 7];
}

static __always_inline unsigned long
kmemcheck_reg_value(const struct pt_regs *regs, unsigned int n)
{
	return ((const unsigned long *)regs)[kmemcheck_reg_slot[n & 7]];
}

/**
 * struct kmemcheck_addr_mode - how an instruction addresses memory
 * @base:	register number of the base, or KMEMCHECK_NO_REG
 * @index:	register number of the index, or KMEMCHECK_NO_REG
 * @scale:	the index is shifted left by @scale
 * @disp:	displacement
 *
 * The offset in the segment is disp + base + (index << scale), wrapping
 * at 4 GiB (kmemcheck_addr_offset()).
 */
struct kmemcheck_addr_mode {
	u8 base;
	u8 index;
	u8 scale;
	s32 disp;
};

bool kmemcheck_addr_mode_of(const struct insn *insn,
			    struct kmemcheck_addr_mode *m);

/*
 * The offset @m addresses with the registers @regs; @sp_bias is added to
 * %esp as a base: POP computes its destination after incrementing %esp.
 */
static __always_inline u32
kmemcheck_addr_offset(const struct kmemcheck_addr_mode *m,
		      const struct pt_regs *regs, u32 sp_bias)
{
	u32 ea = m->disp;

	if (m->base != KMEMCHECK_NO_REG)
		ea += kmemcheck_reg_value(regs, m->base) +
		      (m->base == 4 ? sp_bias : 0);
	if (m->index != KMEMCHECK_NO_REG)
		ea += kmemcheck_reg_value(regs, m->index) << m->scale;
	return ea;
}

/* Flags describing the instruction as a whole. */
#define KMEMCHECK_INSN_STRING	0x1	/* MOVS/CMPS/STOS/LODS/SCAS */
#define KMEMCHECK_INSN_REP	0x2	/* with a REP/REPE/REPNE prefix */
#define KMEMCHECK_INSN_COPY	0x4	/* MOVS: access[0] is copied to access[1] */
#define KMEMCHECK_INSN_BACKWARD	0x8	/* string insn with EFLAGS.DF set */

#define KMEMCHECK_MAX_ACCESSES	2

/**
 * struct kmemcheck_insn - the memory accesses of one decoded instruction
 * @len:	length of the instruction in bytes
 * @flags:	KMEMCHECK_INSN_* flags
 * @nr:		number of valid entries in @access: 0 for register forms
 *		and for memory operands that are not accessed (LEA, NOP,
 *		PREFETCH, CLFLUSH, INVLPG)
 * @access:	the accesses; for MOVS and CMPS, [0] is the source (%esi)
 *		and [1] the destination (%edi)
 *
 * For a string instruction the accesses describe the iteration about to
 * execute (one element at %esi/%edi); with REP and %ecx == 0 nothing is
 * accessed and @nr is 0.  INS and OUTS are described the same way, with
 * KMEMCHECK_INSN_REP but without KMEMCHECK_INSN_STRING.
 *
 * Only explicit memory operands are described: the stack accesses of
 * PUSH, POP, CALL and RET are not, as stacks are never tracked.
 */
struct kmemcheck_insn {
	unsigned int len;
	unsigned int flags;
	unsigned int nr;
	struct kmemcheck_access access[KMEMCHECK_MAX_ACCESSES];
};

/**
 * kmemcheck_decode_insn() - describe the memory accesses of a decoded insn
 * @insn:	instruction decoded by insn_decode() in 32-bit mode
 * @regs:	register state the instruction executes with
 * @out:	filled in on success
 *
 * Pure function of its arguments: it reads no memory but this CPU's
 * per-cpu offset (the base of %fs), so it is also built and tested in
 * user space.  BT, BTS, BTR and BTC with a register bit offset report the
 * operand-sized word that holds the bit, wherever the offset points.
 *
 * Return: 0 on success; -EOPNOTSUPP if the instruction is not one
 * kmemcheck knows (it is never guessed); -EINVAL if the address of an
 * operand cannot be computed.
 */
int kmemcheck_decode_insn(struct insn *insn, struct pt_regs *regs,
			  struct kmemcheck_insn *out);

/**
 * kmemcheck_decode() - decode the kernel instruction at regs->ip
 * @regs:	kernel-mode registers at a fault
 * @out:	filled in on success
 *
 * Return: as kmemcheck_decode_insn(), or -EFAULT if the instruction bytes
 * cannot be read.
 */
int kmemcheck_decode(struct pt_regs *regs, struct kmemcheck_insn *out);

/**
 * kmemcheck_decode_at() - decode the kernel instruction at regs->ip, keeping it
 * @regs:	kernel-mode registers at a fault
 * @buf:	MAX_INSN_SIZE bytes for the instruction, referred to by @insn
 * @insn:	the decoded instruction, for callers that emulate it
 * @out:	filled in on success
 *
 * Return: as kmemcheck_decode().
 */
int kmemcheck_decode_at(struct pt_regs *regs, u8 *buf, struct insn *insn,
			struct kmemcheck_insn *out);

/* decode_cache.c: the same, with the decodes of recent faults kept. */
int kmemcheck_decode_cached(struct pt_regs *regs, u8 *buf, struct insn *insn,
			    struct kmemcheck_insn *out);

#endif /* _ARCH_X86_MM_KMEMCHECK_DECODE_H */
