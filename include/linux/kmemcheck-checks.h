/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck hooks for include/linux/instrumented.h, which cannot include
 * <linux/kmemcheck.h>: that header needs the atomics, which need this one.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _LINUX_KMEMCHECK_CHECKS_H
#define _LINUX_KMEMCHECK_CHECKS_H

#include <linux/compiler_types.h>

#ifdef CONFIG_KMEMCHECK
void kmemcheck_copy_to_user(void __user *to, const void *from,
			    unsigned long n);
#else
static inline void kmemcheck_copy_to_user(void __user *to, const void *from,
					  unsigned long n)
{
}
#endif

#endif /* _LINUX_KMEMCHECK_CHECKS_H */
