// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck on x86-32: the faults done before the kernel's fault entry.
 *
 * Most faults on hidden pages are plain MOVs: a store to a fresh object, a
 * load of a written field.  Through the full fault path each costs some
 * 2000 instructions, a third of them in the exception entry and exit
 * (lockdep walks the locks the task holds when the exit turns interrupts
 * back on) and in the decoder, which runs again even for a cached decode
 * because the addresses depend on the registers.  So when the slow path
 * caches the decode of a MOV between a register and memory, it also
 * compiles it here into a struct kmemcheck_replay: register numbers,
 * scale and displacement.  The next fault at that instruction is then
 * replayed from exc_page_fault() before irqentry_enter(): address from the
 * registers, the shadow checked or updated by kmemcheck_access_quick(),
 * the access done with the page briefly shown.  Whatever needs more - an
 * access not all initialized, one straddling a page, a debugger's
 * single-step, an NMI, a step of kmemcheck pending - goes the full way.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/kmemcheck.h>
#include <linux/mm.h>

#include <asm/insn.h>
#include <asm/insn-eval.h>
#include <asm/kmemcheck.h>
#include <asm/ptrace.h>

#include "emulate.h"
#include "replay.h"
#include "seam.h"

/* The kind of a MOV of insn_decode_mmio()'s @type, or NONE. */
static u8 kmemcheck_replay_kind(const struct insn *insn,
				enum insn_mmio_type type)
{
	switch (type) {
	case INSN_MMIO_WRITE:
		return KMEMCHECK_REPLAY_STORE;
	case INSN_MMIO_WRITE_IMM:
		/* C6 /0 and C7 /0 only. */
		return X86_MODRM_REG(insn->modrm.value) ?
		       KMEMCHECK_REPLAY_NONE : KMEMCHECK_REPLAY_STORE_IMM;
	case INSN_MMIO_READ:
		return KMEMCHECK_REPLAY_LOAD;
	case INSN_MMIO_READ_ZERO_EXTEND:
		return insn->opnd_bytes == 4 ? KMEMCHECK_REPLAY_LOAD_ZX :
		       KMEMCHECK_REPLAY_NONE;
	case INSN_MMIO_READ_SIGN_EXTEND:
		return insn->opnd_bytes == 4 ? KMEMCHECK_REPLAY_LOAD_SX :
		       KMEMCHECK_REPLAY_NONE;
	default:
		return KMEMCHECK_REPLAY_NONE;
	}
}

/*
 * Arithmetic on memory, with a register, an immediate or alone, as
 * emulate.c does it; the register forms with %eax-%ebx or their low byte.
 */
static u8 kmemcheck_replay_alu(struct kmemcheck_replay *r, struct insn *insn)
{
	struct kmemcheck_alu_insn alu;

	if (insn_has_rep_prefix(insn) || !kmemcheck_alu_decode(insn, &alu))
		return KMEMCHECK_REPLAY_NONE;
	r->alu_op = alu.op;
	r->alu_to_reg = alu.to_reg;
	r->alu_imm = alu.imm;
	r->size = alu.size;
	if (alu.size == 1 && !alu.imm && alu.op != KMEMCHECK_ALU_INC &&
	    alu.op != KMEMCHECK_ALU_DEC && X86_MODRM_REG(insn->modrm.value) >= 4)
		return KMEMCHECK_REPLAY_NONE;
	return KMEMCHECK_REPLAY_ALU;
}

/* Has an ALU replay a register operand? */
static bool kmemcheck_replay_alu_reg(const struct kmemcheck_replay *r)
{
	return !r->alu_imm && r->alu_op != KMEMCHECK_ALU_INC &&
	       r->alu_op != KMEMCHECK_ALU_DEC;
}

/* The register operand of @r, from ModRM.reg; false for %esp. */
static bool kmemcheck_replay_reg(struct kmemcheck_replay *r,
				 const struct insn *insn)
{
	unsigned int n = X86_MODRM_REG(insn->modrm.value);
	bool byte_reg = r->size == 1 && (r->kind == KMEMCHECK_REPLAY_LOAD ||
					 r->kind == KMEMCHECK_REPLAY_STORE);

	if (r->kind == KMEMCHECK_REPLAY_STORE_IMM ||
	    (r->kind == KMEMCHECK_REPLAY_ALU && !kmemcheck_replay_alu_reg(r)))
		return true;
	/* %ah-%bh: the second byte of %eax-%ebx. */
	if (byte_reg && n >= 4) {
		n -= 4;
		r->reg_shift = 8;
	}
	r->reg = n;
	return n != 4;
}

/* The addressing mode of the memory operand; false if %esp-based. */
static bool kmemcheck_replay_address(struct kmemcheck_replay *r,
				     const struct insn *insn)
{
	return kmemcheck_addr_mode_of(insn, &r->mode) && r->mode.base != 4;
}

/**
 * kmemcheck_replay_compile() - compile a decoded MOV or arithmetic on memory
 * @r:		filled in; r->kind is KMEMCHECK_REPLAY_NONE if it cannot be
 * @insn:	the instruction, as decoded by insn_decode() in 32-bit mode
 */
void kmemcheck_replay_compile(struct kmemcheck_replay *r, struct insn *insn)
{
	enum insn_mmio_type type;
	insn_byte_t prefix;
	bool lock = false;
	int bytes, i;

	memset(r, 0, sizeof(*r));
	if (insn->addr_bytes != 4 || !insn->modrm.nbytes ||
	    X86_MODRM_MOD(insn->modrm.value) == 3)
		return;
	/*
	 * %cs, %ds, %es and %ss are flat in the kernel: their overrides
	 * change no address.  On one CPU the alternatives turn every
	 * LOCK_PREFIX into %ds, so all the kernel's atomics carry one.
	 * %fs, %gs and REP are the slow path's, LOCK a MOV's.
	 */
	for_each_insn_prefix(insn, i, prefix) {
		switch (prefix) {
		case 0xf0:
			lock = true;
			break;
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:
		case 0x66:
			break;
		default:
			return;
		}
	}
	type = insn_decode_mmio(insn, &bytes);
	r->kind = lock ? KMEMCHECK_REPLAY_NONE :
		      kmemcheck_replay_kind(insn, type);
	r->size = bytes;
	if (r->kind == KMEMCHECK_REPLAY_NONE)
		r->kind = kmemcheck_replay_alu(r, insn);
	r->len = insn->length;
	r->imm = insn->immediate.value;
	if (r->kind == KMEMCHECK_REPLAY_NONE ||
	    (r->size != 1 && r->size != 2 && r->size != 4) ||
	    !kmemcheck_replay_reg(r, insn) || !kmemcheck_replay_address(r, insn))
		r->kind = KMEMCHECK_REPLAY_NONE;
}

/* The arithmetic of @r on @addr, mapped; the flags it set. */
static unsigned long kmemcheck_replay_arith(const struct kmemcheck_replay *r,
					    struct pt_regs *regs,
					    unsigned long addr)
{
	struct kmemcheck_alu_insn alu = {
		.op = r->alu_op,
		.to_reg = r->alu_to_reg,
		.imm = r->alu_imm,
		.size = r->size,
	};
	unsigned long *reg = NULL, val = (long)(s32)r->imm;

	if (kmemcheck_replay_alu_reg(r)) {
		reg = kmemcheck_reg(regs, r->reg);
		val = *reg;
	}
	return kmemcheck_alu_do(&alu, regs, addr, reg, val);
}

/**
 * kmemcheck_replay_do() - do a compiled instruction's access
 * @r:		the instruction, compiled
 * @regs:	registers; updated as the instruction would, but for %eip
 * @mem:	its memory operand, present now
 *
 * The one place MOVs are done for kmemcheck, by the early fault path and
 * by emulate.c alike; arithmetic is kmemcheck_alu_do()'s.
 *
 * Return: the flags an arithmetic instruction set, else 0.
 */
unsigned long kmemcheck_replay_do(const struct kmemcheck_replay *r,
				  struct pt_regs *regs, void *mem)
{
	unsigned long *reg = kmemcheck_reg(regs, r->reg);
	unsigned long mask, val;

	switch (r->kind) {
	case KMEMCHECK_REPLAY_STORE:
		kmemcheck_store(mem, *reg >> r->reg_shift, r->size);
		break;
	case KMEMCHECK_REPLAY_STORE_IMM:
		kmemcheck_store(mem, r->imm, r->size);
		break;
	case KMEMCHECK_REPLAY_LOAD:
		val = kmemcheck_load(mem, r->size);
		mask = r->size < 4 ? (1UL << (8 * r->size)) - 1 : ~0UL;
		*reg = (*reg & ~(mask << r->reg_shift)) |
		       (val << r->reg_shift);
		break;
	case KMEMCHECK_REPLAY_LOAD_ZX:
		*reg = kmemcheck_load(mem, r->size);
		break;
	case KMEMCHECK_REPLAY_LOAD_SX:
		val = kmemcheck_load(mem, r->size);
		*reg = r->size == 1 ? (long)(s8)val : (long)(s16)val;
		break;
	case KMEMCHECK_REPLAY_ALU:
		return kmemcheck_replay_arith(r, regs, (unsigned long)mem);
	}
	return 0;
}

/**
 * kmemcheck_replay() - do a faulting MOV from its compiled decode
 * @regs:	registers at the fault, in kernel mode; updated as the MOV would
 * @address:	the faulting address, on a page kmemcheck may have hidden
 *
 * Called with interrupts off, outside NMIs, with no kmemcheck step pending.
 *
 * Return: true if the MOV was done and the shadow checked or updated;
 * false, with nothing changed, if the full fault path must take it.
 */
bool kmemcheck_replay(struct pt_regs *regs, unsigned long address)
{
	pte_t *pte = kmemcheck_arch_pte(address);
	const struct kmemcheck_replay *r;
	unsigned long addr;
	pteval_t val;
	bool rest;

	if (!pte)
		return false;
	val = kmemcheck_arch_pte_val(pte);
	if (!kmemcheck_arch_pte_hidden(val))
		return false;
	r = kmemcheck_decoded_replay(regs->ip);
	if (!r)
		return false;
	addr = kmemcheck_addr_offset(&r->mode, regs, 0);
	if (address - addr >= r->size ||
	    offset_in_page(addr) + r->size > PAGE_SIZE)
		return false;
	/*
	 * Arithmetic only on initialized bytes, which it leaves initialized:
	 * the check of a load is all it needs.
	 */
	if (!kmemcheck_access_quick(addr, r->size,
				    r->kind == KMEMCHECK_REPLAY_STORE ||
				    r->kind == KMEMCHECK_REPLAY_STORE_IMM, &rest))
		return false;
	kmemcheck_arch_show_pte(pte, val);
	kmemcheck_replay_do(r, regs, (void *)addr);
	if (!rest)
		kmemcheck_arch_hide_pte(pte, val, addr);
	regs->ip += r->len;
	return true;
}
