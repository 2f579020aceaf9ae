/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: the x86-32 SMP kernel's per-cpu segment selector. */
#ifndef _ASM_X86_SEGMENT_H
#define _ASM_X86_SEGMENT_H

#define GDT_ENTRY_PERCPU	27
#define __KERNEL_PERCPU		(GDT_ENTRY_PERCPU * 8)

#endif /* _ASM_X86_SEGMENT_H */
