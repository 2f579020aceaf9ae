/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck on x86-32: REP string instructions done in the fault handler.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _ARCH_X86_MM_KMEMCHECK_REP_H
#define _ARCH_X86_MM_KMEMCHECK_REP_H

#include <linux/types.h>

struct kmemcheck_insn;
struct pt_regs;

bool kmemcheck_rep_string(struct pt_regs *regs,
			  const struct kmemcheck_insn *insn);

#endif /* _ARCH_X86_MM_KMEMCHECK_REP_H */
