// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck on x86-32: instructions done in the fault handler, no trap.
 *
 * Most faults are plain MOV loads and stores, then arithmetic and logic
 * on memory.  Single-stepping one costs a debug trap on top of the fault;
 * doing it here, with the page mapped, costs nothing more.  The MOV forms
 * are those insn_decode_mmio() knows, as TDX and SEV emulate them for
 * MMIO, compiled and done by the code of the early fault path (replay.c).
 * The arithmetic ones - group 1 (ADD, OR, AND, SUB, XOR, CMP) but
 * ADC and SBB, TEST, INC, DEC, XADD, XCHG and CMPXCHG - are run by the CPU
 * itself on the mapped memory, from registers loaded with the operands, so
 * that the result and the flags are exactly the instruction's.
 *
 * A string instruction with a REP prefix traps after every element when
 * single-stepped, so memset() of a page would cost 1024 faults and 1024
 * traps.  Instead, the elements that lie in the pages the fault already
 * made present are done here, with the shadow updated for all of them at
 * once; the instruction then resumes where it stopped, if anything is
 * left, and faults on its next page.  REP string instructions may be
 * interrupted between any two elements, so this is invisible to the code.
 * REPNE SCASB, strlen() and memchr(), is scanned the same way, as long as
 * the bytes it reads are initialized.
 *
 * copy_to_user() and copy_from_user() are REP MOVS with one side in user
 * space.  Their elements are done here too, with page faults disabled: a
 * user page that is not there makes the handler fall back to the
 * single-step, and the instruction takes the fault itself.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/compiler.h>
#include <linux/cpufeature.h>
#include <linux/extable.h>
#include <linux/hardirq.h>
#include <linux/kmemcheck.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include <asm/insn.h>
#include <asm/insn-eval.h>
#include <asm/kmemcheck.h>
#include <asm/page.h>
#include <asm/ptrace.h>

#include "decode.h"
#include "emulate.h"
#include "replay.h"
#include "seam.h"

/* Elements of @size bytes from @addr up to the end of its page. */
static unsigned long kmemcheck_rep_room(unsigned long addr, unsigned int size)
{
	return (PAGE_SIZE - offset_in_page(addr)) / size;
}

/*
 * Only kernel memory that is mapped right now: a user page may be absent
 * and its fault must be taken by the instruction itself, under its
 * exception table entry.
 */
static bool kmemcheck_reachable(unsigned long addr)
{
	return addr >= TASK_SIZE_MAX && kmemcheck_arch_page_present(addr);
}

/* kmemcheck_reachable() for the @size bytes at @addr: one walk per page. */
static bool kmemcheck_range_reachable(unsigned long addr, unsigned int size)
{
	unsigned long last = addr + size - 1;

	return kmemcheck_reachable(addr) &&
	       ((addr ^ last) < PAGE_SIZE || kmemcheck_reachable(last));
}

/*
 * User memory, for an instruction allowed to fault on it: one with an
 * exception table entry, as every user access has, and allowed to touch
 * it (with SMAP, inside user_access_begin()/end(): the copy here opens the
 * access itself).  Not from an NMI, which may come in the middle of a
 * switch of address space.
 */
static bool kmemcheck_user(const struct pt_regs *regs, unsigned long addr,
			   unsigned long size)
{
	return addr < TASK_SIZE_MAX && size <= TASK_SIZE_MAX - addr &&
	       !in_nmi() && search_exception_tables(regs->ip) &&
	       (regs->flags & X86_EFLAGS_AC ||
		!cpu_feature_enabled(X86_FEATURE_SMAP));
}

/* Copy @bytes between user and kernel memory, or fail without faulting. */
static bool kmemcheck_copy_user(unsigned long src, unsigned long dst,
				unsigned long bytes)
{
	unsigned long left;

	pagefault_disable();
	if (dst < TASK_SIZE_MAX)
		left = raw_copy_to_user((void __user *)dst, (void *)src, bytes);
	else
		left = raw_copy_from_user((void *)dst,
					  (const void __user *)src, bytes);
	pagefault_enable();
	return !left;
}

/* Do the elements of a REP STOS or REP MOVS that lie in present pages. */
static bool kmemcheck_rep_string(struct pt_regs *regs,
				 const struct kmemcheck_insn *insn)
{
	bool copy = insn->flags & KMEMCHECK_INSN_COPY;
	unsigned int size = insn->access[0].size;
	unsigned long src = regs->si, dst = regs->di;
	unsigned long n = regs->cx, i;

	if ((insn->flags & (KMEMCHECK_INSN_STRING | KMEMCHECK_INSN_REP |
			    KMEMCHECK_INSN_BACKWARD)) !=
	    (KMEMCHECK_INSN_STRING | KMEMCHECK_INSN_REP))
		return false;
	/* STOS is the one REP string insn with a single write access. */
	if (copy ? insn->nr != 2 :
		   insn->nr != 1 ||
		   insn->access[0].kind != KMEMCHECK_ACCESS_WRITE)
		return false;
	if (size != 1 && size != 2 && size != 4)
		return false;

	n = min(n, kmemcheck_rep_room(dst, size));
	if (copy)
		n = min(n, kmemcheck_rep_room(src, size));
	if (!n)
		return false;
	if (copy && (kmemcheck_user(regs, src, n * size) ||
		     kmemcheck_user(regs, dst, n * size))) {
		unsigned long kernel = src < TASK_SIZE_MAX ? dst : src;

		if (!kmemcheck_reachable(kernel) ||
		    !kmemcheck_copy_user(src, dst, n * size))
			return false;
		kmemcheck_copy(regs, src, dst, n * size);
		goto done;
	}
	if (!kmemcheck_reachable(dst) || (copy && !kmemcheck_reachable(src)))
		return false;

	if (copy)
		kmemcheck_copy(regs, src, dst, n * size);
	else
		kmemcheck_access(regs, dst, n * size, false, true);

	/* Element by element, forward: exactly what the CPU would store. */
	for (i = 0; i < n; i++) {
		void *to = (void *)(dst + i * size);

		if (copy)
			kmemcheck_store(to, kmemcheck_load((void *)(src + i * size),
							   size), size);
		else
			kmemcheck_store(to, regs->ax, size);
	}
done:
	regs->di += n * size;
	if (copy)
		regs->si += n * size;
	regs->cx -= n;
	if (!regs->cx)
		regs->ip += insn->len;
	return true;
}

/* The flags an arithmetic operation sets. */
#define KMEMCHECK_ALU_FLAGS	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
				 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_OF)

/* Has @insn a REPNE prefix? */
static bool kmemcheck_repne(const struct insn *insn)
{
	insn_byte_t prefix;
	int i;

	for_each_insn_prefix(insn, i, prefix) {
		if (prefix == 0xf2)
			return true;
	}
	return false;
}

/*
 * REPNE SCASB, the loop of strlen() and memchr() on x86-32: one fault per
 * byte when single-stepped.  Scan the bytes of the page the fault showed
 * up to the one equal to %al, the count, or the page's end; only if every
 * byte read is initialized, or the single-step is left to check them one
 * at a time.  The CPU itself compares the last byte, for the flags.
 */
static bool kmemcheck_repne_scasb(struct pt_regs *regs, struct insn *insn,
				  const struct kmemcheck_insn *kinsn)
{
	unsigned long dst = regs->di, n, i;
	u8 al = regs->ax, byte = 0;
	bool found = false;
	unsigned long fl;

	if (kinsn->flags != (KMEMCHECK_INSN_STRING | KMEMCHECK_INSN_REP) ||
	    insn->opcode.bytes[0] != 0xae || !kmemcheck_repne(insn) ||
	    !kmemcheck_reachable(dst))
		return false;
	n = min(regs->cx, kmemcheck_rep_room(dst, 1));
	for (i = 0; i < n && !found; i++) {
		byte = READ_ONCE(*(u8 *)(dst + i));
		found = byte == al;
	}
	if (!i || !kmemcheck_is_obj_initialized((void *)dst, i))
		return false;
	asm("cmpb %[m], %[a]\n\t"
	    "pushfl\n\t"
	    "popl %[fl]"
	    : [fl] "=r" (fl) : [a] "q" (al), [m] "q" (byte) : "cc");
	regs->flags = (regs->flags & ~KMEMCHECK_ALU_FLAGS) |
		      (fl & KMEMCHECK_ALU_FLAGS);
	regs->di += i;
	regs->cx -= i;
	if (found || !regs->cx)
		regs->ip += kinsn->len;
	return true;
}

/* Replace the low @size bytes of @reg, as a 1- or 2-byte operation does. */
static void kmemcheck_set_low(unsigned long *reg, unsigned long val,
			      unsigned int size)
{
	unsigned long mask = size < 4 ? (1UL << (8 * size)) - 1 : ~0UL;

	*reg = (*reg & ~mask) | (val & mask);
}

/* The group 1 operations, by ModRM.reg, and by bits 5:3 of opcodes 00-3F. */
static const u8 kmemcheck_alu_group1[8] = {
	KMEMCHECK_ALU_ADD, KMEMCHECK_ALU_OR, KMEMCHECK_ALU_NONE /* ADC */,
	KMEMCHECK_ALU_NONE /* SBB */, KMEMCHECK_ALU_AND, KMEMCHECK_ALU_SUB,
	KMEMCHECK_ALU_XOR, KMEMCHECK_ALU_CMP,
};

/* The flags an operation sets: INC and DEC keep CF, XCHG sets none. */
static unsigned long kmemcheck_alu_flags(enum kmemcheck_alu_op op)
{
	switch (op) {
	case KMEMCHECK_ALU_INC:
	case KMEMCHECK_ALU_DEC:
		return KMEMCHECK_ALU_FLAGS & ~X86_EFLAGS_CF;
	case KMEMCHECK_ALU_XCHG:
		return 0;
	default:
		return KMEMCHECK_ALU_FLAGS;
	}
}

/*
 * One instruction on the memory at @d, with @s (and @a, %eax, for
 * CMPXCHG) in registers of the operand size of @insn's suffix, named by
 * the operand modifier @mod: the CPU computes the result and the flags
 * exactly as the faulting instruction would have.  No LOCK prefix:
 * kmemcheck runs the machine on one CPU, and a single instruction is
 * atomic against the NMIs that may come in.
 */
#define KMEMCHECK_ALU_ASM(insn, mod, d, s, a)				\
({									\
	unsigned long __flags;						\
									\
	asm volatile(insn " %" mod "[src], (%[dst])\n\t"		\
		     "pushfl\n\t"					\
		     "popl %[fl]"					\
		     : [src] "+q" (s), [fl] "=r" (__flags), "+a" (a)	\
		     : [dst] "r" (d) : "cc", "memory");			\
	__flags;							\
})

#define KMEMCHECK_ALU_UNARY(insn, d)					\
({									\
	unsigned long __flags;						\
									\
	asm volatile(insn " (%[dst])\n\t"				\
		     "pushfl\n\t"					\
		     "popl %[fl]"					\
		     : [fl] "=r" (__flags)				\
		     : [dst] "r" (d) : "cc", "memory");			\
	__flags;							\
})

/*
 * kmemcheck_alu_b(), _w() and _l(): do @op on the memory at @d with *@s,
 * which XADD, XCHG and CMPXCHG also write, and *@a as %eax for CMPXCHG.
 * Return the flags the CPU set.
 */
#define KMEMCHECK_ALU_FN(sfx, mod)					\
static unsigned long kmemcheck_alu_##sfx(enum kmemcheck_alu_op op,	\
					 unsigned long d,		\
					 unsigned long *s,		\
					 unsigned long *a)		\
{									\
	unsigned long flags = 0;					\
									\
	switch (op) {							\
	case KMEMCHECK_ALU_ADD:						\
		flags = KMEMCHECK_ALU_ASM("add" #sfx, #mod, d, *s, *a);	\
		break;							\
	case KMEMCHECK_ALU_OR:						\
		flags = KMEMCHECK_ALU_ASM("or" #sfx, #mod, d, *s, *a);	\
		break;							\
	case KMEMCHECK_ALU_AND:						\
		flags = KMEMCHECK_ALU_ASM("and" #sfx, #mod, d, *s, *a);	\
		break;							\
	case KMEMCHECK_ALU_SUB:						\
		flags = KMEMCHECK_ALU_ASM("sub" #sfx, #mod, d, *s, *a);	\
		break;							\
	case KMEMCHECK_ALU_XOR:						\
		flags = KMEMCHECK_ALU_ASM("xor" #sfx, #mod, d, *s, *a);	\
		break;							\
	case KMEMCHECK_ALU_CMP:						\
		flags = KMEMCHECK_ALU_ASM("cmp" #sfx, #mod, d, *s, *a);	\
		break;							\
	case KMEMCHECK_ALU_TEST:					\
		flags = KMEMCHECK_ALU_ASM("test" #sfx, #mod, d, *s, *a); \
		break;							\
	case KMEMCHECK_ALU_XADD:					\
		flags = KMEMCHECK_ALU_ASM("xadd" #sfx, #mod, d, *s, *a); \
		break;							\
	case KMEMCHECK_ALU_XCHG:					\
		flags = KMEMCHECK_ALU_ASM("xchg" #sfx, #mod, d, *s, *a); \
		break;							\
	case KMEMCHECK_ALU_CMPXCHG:					\
		flags = KMEMCHECK_ALU_ASM("cmpxchg" #sfx, #mod, d, *s, *a); \
		break;							\
	case KMEMCHECK_ALU_INC:						\
		flags = KMEMCHECK_ALU_UNARY("inc" #sfx, d);		\
		break;							\
	case KMEMCHECK_ALU_DEC:						\
		flags = KMEMCHECK_ALU_UNARY("dec" #sfx, d);		\
		break;							\
	default:							\
		break;							\
	}								\
	return flags;							\
}

KMEMCHECK_ALU_FN(b, b)
KMEMCHECK_ALU_FN(w, w)
KMEMCHECK_ALU_FN(l, k)

/*
 * Do @op on @size bytes at @dst with the register value *@src, and %eax in
 * *@ax; both are updated as the instruction updates them.  Return the flags
 * it set.
 */
static unsigned long kmemcheck_alu(enum kmemcheck_alu_op op, void *dst,
				   unsigned long *src, unsigned long *ax,
				   unsigned int size)
{
	unsigned long d = (unsigned long)dst, s = *src, a = *ax, flags;

	if (size == 1)
		flags = kmemcheck_alu_b(op, d, &s, &a);
	else if (size == 2)
		flags = kmemcheck_alu_w(op, d, &s, &a);
	else
		flags = kmemcheck_alu_l(op, d, &s, &a);
	kmemcheck_set_low(src, s, size);
	kmemcheck_set_low(ax, a, size);
	return flags;
}

/*
 * Sort the arithmetic instructions that this code does: group 1 but ADC
 * and SBB, TEST, INC, DEC, XADD, XCHG and CMPXCHG, with a register or an
 * immediate; all set their flags whatever the flags were.
 */
bool kmemcheck_alu_decode(struct insn *insn, struct kmemcheck_alu_insn *alu)
{
	u8 op0 = insn->opcode.bytes[0], op1 = insn->opcode.bytes[1];
	unsigned int reg = X86_MODRM_REG(insn->modrm.value);
	bool byte = !(op0 & 1);

	alu->to_reg = false;
	alu->imm = false;
	alu->op = KMEMCHECK_ALU_NONE;

	if (insn->opcode.nbytes == 1 && op0 < 0x40 && (op0 & 7) < 4) {
		alu->op = kmemcheck_alu_group1[op0 >> 3];
		alu->to_reg = op0 & 2;
	} else if (insn->opcode.nbytes == 1) {
		switch (op0) {
		case 0x80:
		case 0x81:
		case 0x83:
			alu->op = kmemcheck_alu_group1[reg];
			alu->imm = true;
			byte = op0 == 0x80;
			break;
		case 0x84:
		case 0x85:
			alu->op = KMEMCHECK_ALU_TEST;
			break;
		case 0x86:
		case 0x87:
			alu->op = KMEMCHECK_ALU_XCHG;
			break;
		case 0xf6:
		case 0xf7:
			if (reg == 0) {
				alu->op = KMEMCHECK_ALU_TEST;
				alu->imm = true;
			}
			break;
		case 0xfe:
		case 0xff:
			if (reg <= 1)
				alu->op = reg ? KMEMCHECK_ALU_DEC :
						KMEMCHECK_ALU_INC;
			break;
		}
	} else if (insn->opcode.nbytes == 2 && op0 == 0x0f) {
		byte = !(op1 & 1);
		if (op1 == 0xb0 || op1 == 0xb1)
			alu->op = KMEMCHECK_ALU_CMPXCHG;
		else if (op1 == 0xc0 || op1 == 0xc1)
			alu->op = KMEMCHECK_ALU_XADD;
	}
	alu->size = byte ? 1 : insn->opnd_bytes;
	return alu->op != KMEMCHECK_ALU_NONE &&
	       X86_MODRM_MOD(insn->modrm.value) != 3;
}

/**
 * kmemcheck_alu_do() - run a decoded arithmetic instruction on mapped memory
 * @alu:	the instruction
 * @regs:	registers; %eax (CMPXCHG) and the flags are updated
 * @addr:	its memory operand, mapped
 * @reg:	its register operand, updated as the instruction updates it;
 *		NULL for an immediate or unary one
 * @val:	the value of the register or immediate operand
 *
 * Return: the flags the CPU set.
 */
unsigned long kmemcheck_alu_do(const struct kmemcheck_alu_insn *alu,
			       struct pt_regs *regs, unsigned long addr,
			       unsigned long *reg, unsigned long val)
{
	unsigned long mem, mask, flags;

	if (alu->to_reg) {
		/* reg op= mem: the register is the destination. */
		mem = kmemcheck_load((void *)addr, alu->size);
		flags = kmemcheck_alu(alu->op, &val, &mem, &regs->ax,
				      alu->size);
		if (alu->op != KMEMCHECK_ALU_CMP)
			*reg = val;
	} else {
		flags = kmemcheck_alu(alu->op, (void *)addr, &val, &regs->ax,
				      alu->size);
		/* XADD and XCHG hand the old value back in the register. */
		if (alu->op == KMEMCHECK_ALU_XADD ||
		    alu->op == KMEMCHECK_ALU_XCHG)
			*reg = val;
	}
	mask = kmemcheck_alu_flags(alu->op);
	regs->flags = (regs->flags & ~mask) | (flags & mask);
	return flags;
}

/*
 * A MOV between a register or an immediate and memory, or arithmetic on
 * memory, as compiled for the early fault path (replay.c) and run by the
 * same code: the shadow is checked and updated first, as the fault path
 * would, then the instruction is done on the mapped memory.
 */
static bool kmemcheck_mov_or_arith(struct pt_regs *regs, struct insn *insn,
				   const struct kmemcheck_insn *kinsn)
{
	const struct kmemcheck_access *a = &kinsn->access[0];
	struct kmemcheck_replay r;
	unsigned long flags;
	bool cmpxchg;

	kmemcheck_replay_compile(&r, insn);
	if (r.kind == KMEMCHECK_REPLAY_NONE || kinsn->nr != 1 ||
	    r.size != a->size || !kmemcheck_range_reachable(a->addr, a->size))
		return false;

	/* A CMPXCHG that fails writes nothing new: recorded once it ran. */
	cmpxchg = r.kind == KMEMCHECK_REPLAY_ALU &&
		  r.alu_op == KMEMCHECK_ALU_CMPXCHG;
	kmemcheck_access(regs, a->addr, a->size,
			 a->kind & KMEMCHECK_ACCESS_READ,
			 (a->kind & KMEMCHECK_ACCESS_WRITE) && !cmpxchg);
	flags = kmemcheck_replay_do(&r, regs, (void *)a->addr);
	if (cmpxchg && (flags & X86_EFLAGS_ZF))
		kmemcheck_access(regs, a->addr, a->size, false, true);
	regs->ip += r.len;
	return true;
}

/**
 * kmemcheck_emulate() - do the faulting instruction in the handler
 * @regs:	registers at the fault; updated as the instruction would
 * @insn:	the instruction, as decoded by insn_decode()
 * @kinsn:	its accesses, as decoded by kmemcheck_decode_at()
 *
 * Only for a few common instructions, and only when every page they touch
 * is present: the caller has shown the tracked ones.  The shadow is checked
 * and updated here, as kmemcheck_page_fault() would.
 *
 * Return: true if the instruction (or some REP elements) was done and no
 * single-step is needed.
 */
bool kmemcheck_emulate(struct pt_regs *regs, struct insn *insn,
		       const struct kmemcheck_insn *kinsn)
{
	if (kinsn->flags & KMEMCHECK_INSN_STRING)
		return kmemcheck_rep_string(regs, kinsn) ||
		       kmemcheck_repne_scasb(regs, insn, kinsn);
	return kmemcheck_mov_or_arith(regs, insn, kinsn);
}
