/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck on x86-32: instructions done in the fault handler.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _ARCH_X86_MM_KMEMCHECK_EMULATE_H
#define _ARCH_X86_MM_KMEMCHECK_EMULATE_H

#include <linux/types.h>

struct insn;
struct kmemcheck_insn;
struct pt_regs;

bool kmemcheck_emulate(struct pt_regs *regs, struct insn *insn,
		       const struct kmemcheck_insn *kinsn);

#endif /* _ARCH_X86_MM_KMEMCHECK_EMULATE_H */
