/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim: the x86-32 struct pt_regs, field for field.  On a 64-bit host
 * unsigned long is wider; the decoder computes addresses in 32 bits.
 */
#ifndef _ASM_X86_PTRACE_H
#define _ASM_X86_PTRACE_H

struct pt_regs {
	unsigned long bx;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long bp;
	unsigned long ax;
	unsigned short ds;
	unsigned short __dsh;
	unsigned short es;
	unsigned short __esh;
	unsigned short fs;
	unsigned short __fsh;
	unsigned short gs;
	unsigned short __gsh;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned short cs;
	unsigned short __csh;
	unsigned long flags;
	unsigned long sp;
	unsigned short ss;
	unsigned short __ssh;
};

#endif /* _ASM_X86_PTRACE_H */
