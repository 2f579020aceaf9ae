/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck on x86-32: following a value read from uninitialized memory.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _ARCH_X86_MM_KMEMCHECK_FOLLOW_H
#define _ARCH_X86_MM_KMEMCHECK_FOLLOW_H

#include <linux/kmemcheck.h>
#include <linux/types.h>

#include "seam.h"

struct insn;
struct kmemcheck_insn;
struct pt_regs;

bool kmemcheck_follow_start(struct pt_regs *regs, const struct insn *insn,
			    const struct kmemcheck_insn *ki);
bool kmemcheck_follow_copy(struct pt_regs *regs, unsigned long ip,
			   unsigned long src, unsigned long dst, size_t size);
bool kmemcheck_follow_retire(struct pt_regs *regs, unsigned long *flags);
bool kmemcheck_follow_next(struct pt_regs *regs, const struct insn *insn,
			   const struct kmemcheck_insn *ki);
void kmemcheck_follow_cancel(const struct pt_regs *regs,
			     enum kmemcheck_unjudged why);

#endif /* _ARCH_X86_MM_KMEMCHECK_FOLLOW_H */
