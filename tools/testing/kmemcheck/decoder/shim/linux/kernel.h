/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: what insn.c and decode.c take from <linux/kernel.h>. */
#ifndef _LINUX_KERNEL_H
#define _LINUX_KERNEL_H

#include <string.h>
#include <linux/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define fallthrough	__attribute__((__fallthrough__))
#define BUILD_BUG()	__builtin_trap()

#endif /* _LINUX_KERNEL_H */
