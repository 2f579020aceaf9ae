/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: EFLAGS bits. */
#ifndef _ASM_X86_PROCESSOR_FLAGS_H
#define _ASM_X86_PROCESSOR_FLAGS_H

#define X86_EFLAGS_IF	0x00000200
#define X86_EFLAGS_DF	0x00000400

#endif /* _ASM_X86_PROCESSOR_FLAGS_H */
