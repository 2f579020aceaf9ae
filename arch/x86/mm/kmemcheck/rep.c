// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck on x86-32: REP STOS and REP MOVS without a trap per element.
 *
 * A string instruction with a REP prefix traps after every element when
 * single-stepped, so memset() of a page would cost 1024 faults and 1024
 * traps.  Instead, the elements that lie in the pages the fault already
 * made present are done here, with the shadow updated for all of them at
 * once; the instruction then resumes where it stopped, if anything is
 * left, and faults on its next page.  REP string instructions may be
 * interrupted between any two elements, so this is invisible to the code.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/kmemcheck.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>

#include <asm/kmemcheck.h>
#include <asm/page.h>
#include <asm/ptrace.h>

#include "decode.h"
#include "rep.h"

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
static bool kmemcheck_rep_reachable(unsigned long addr)
{
	return addr >= TASK_SIZE_MAX && kmemcheck_arch_page_present(addr);
}

/**
 * kmemcheck_rep_string() - do the elements of a REP STOS or MOVS in place
 * @regs:	registers at the fault; advanced past the elements done
 * @insn:	the decoded instruction
 *
 * The caller has made present every page the first element touches.
 *
 * Return: true if elements were done and no single-step is needed.
 */
bool kmemcheck_rep_string(struct pt_regs *regs,
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
	if (copy ? insn->nr != 2 : (insn->nr != 1 ||
	    insn->access[0].kind != KMEMCHECK_ACCESS_WRITE))
		return false;
	if (size != 1 && size != 2 && size != 4)
		return false;

	n = min(n, kmemcheck_rep_room(dst, size));
	if (copy)
		n = min(n, kmemcheck_rep_room(src, size));
	if (!n || !kmemcheck_rep_reachable(dst) ||
	    (copy && !kmemcheck_rep_reachable(src)))
		return false;

	if (copy)
		kmemcheck_copy(regs, src, dst, n * size);
	else
		kmemcheck_access(regs, dst, n * size, false, true);

	/* Element by element, forward: exactly what the CPU would store. */
	for (i = 0; i < n; i++) {
		void *to = (void *)(dst + i * size);

		if (copy)
			memcpy(to, (void *)(src + i * size), size);
		else
			memcpy(to, &regs->ax, size);
	}

	regs->di += n * size;
	if (copy)
		regs->si += n * size;
	regs->cx -= n;
	if (!regs->cx)
		regs->ip += insn->len;
	return true;
}
