// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck on x86-32: instructions done in the fault handler, no trap.
 *
 * Most faults are plain MOV loads and stores.  Single-stepping one costs a
 * debug trap on top of the fault; doing it here, with the page mapped,
 * costs nothing more.  The MOV forms are those insn_decode_mmio() knows,
 * as TDX and SEV emulate them for MMIO.
 *
 * A string instruction with a REP prefix traps after every element when
 * single-stepped, so memset() of a page would cost 1024 faults and 1024
 * traps.  Instead, the elements that lie in the pages the fault already
 * made present are done here, with the shadow updated for all of them at
 * once; the instruction then resumes where it stopped, if anything is
 * left, and faults on its next page.  REP string instructions may be
 * interrupted between any two elements, so this is invisible to the code.
 *
 * copy_to_user() and copy_from_user() are REP MOVS with one side in user
 * space.  Their elements are done here too, with page faults disabled: a
 * user page that is not there makes the handler fall back to the
 * single-step, and the instruction takes the fault itself.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/extable.h>
#include <linux/hardirq.h>
#include <linux/kmemcheck.h>
#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include <asm/cpufeature.h>
#include <asm/insn.h>
#include <asm/insn-eval.h>
#include <asm/kmemcheck.h>
#include <asm/page.h>
#include <asm/ptrace.h>

#include "decode.h"
#include "emulate.h"

/*
 * One load or store of 1, 2 or 4 bytes, as the instruction makes it: never
 * memcpy(), which may split it.
 */
static unsigned long kmemcheck_load(const void *p, unsigned int size)
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

static void kmemcheck_store(void *p, unsigned long val, unsigned int size)
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

/*
 * The register operand of a MOV, or NULL if it is one this code does not
 * handle: %ah-%bh share a register with %al-%bl, and %esp is left to the
 * single-step for simplicity (the kernel never keeps it in the heap).
 */
static unsigned long *kmemcheck_mov_reg(struct insn *insn,
					struct pt_regs *regs, int bytes)
{
	unsigned long *reg = insn_get_modrm_reg_ptr(insn, regs);

	if (!reg || reg == &regs->sp)
		return NULL;
	if (bytes == 1 && X86_MODRM_REG(insn->modrm.value) >= 4)
		return NULL;
	return reg;
}

/* Do a MOV, MOVZX or MOVSX between a register and present memory. */
static bool kmemcheck_mov(struct pt_regs *regs, struct insn *insn,
			  const struct kmemcheck_insn *kinsn)
{
	const struct kmemcheck_access *a = &kinsn->access[0];
	void *mem = (void *)a->addr;
	enum insn_mmio_type type;
	unsigned long *reg, val = 0;
	int bytes;

	type = insn_decode_mmio(insn, &bytes);
	if (type == INSN_MMIO_DECODE_FAILED || type == INSN_MMIO_MOVS ||
	    kinsn->nr != 1 || bytes != a->size ||
	    !kmemcheck_reachable(a->addr) ||
	    !kmemcheck_reachable(a->addr + a->size - 1))
		return false;

	if (type == INSN_MMIO_WRITE_IMM) {
		kmemcheck_access(regs, a->addr, bytes, false, true);
		kmemcheck_store(mem, insn->immediate.value, bytes);
		goto done;
	}
	reg = kmemcheck_mov_reg(insn, regs, bytes);
	if (!reg)
		return false;

	switch (type) {
	case INSN_MMIO_WRITE:
		kmemcheck_access(regs, a->addr, bytes, false, true);
		kmemcheck_store(mem, *reg, bytes);
		break;
	case INSN_MMIO_READ:
		kmemcheck_access(regs, a->addr, bytes, true, false);
		val = kmemcheck_load(mem, bytes);
		/* A 1- or 2-byte load keeps the rest of the register. */
		if (bytes < 4)
			val |= *reg & ~((1UL << (8 * bytes)) - 1);
		*reg = val;
		break;
	case INSN_MMIO_READ_ZERO_EXTEND:
	case INSN_MMIO_READ_SIGN_EXTEND:
		if (insn->opnd_bytes != 4)
			return false;
		kmemcheck_access(regs, a->addr, bytes, true, false);
		val = kmemcheck_load(mem, bytes);
		if (type == INSN_MMIO_READ_SIGN_EXTEND)
			val = bytes == 1 ? (long)(s8)val : (long)(s16)val;
		*reg = val;
		break;
	default:
		return false;
	}
done:
	regs->ip += insn->length;
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
		return kmemcheck_rep_string(regs, kinsn);
	return kmemcheck_mov(regs, insn, kinsn);
}
