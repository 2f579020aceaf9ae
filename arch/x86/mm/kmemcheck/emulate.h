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

bool kmemcheck_emulate(struct pt_regs *regs, struct insn *insn,
		       const struct kmemcheck_insn *kinsn);

#endif /* _ARCH_X86_MM_KMEMCHECK_EMULATE_H */
