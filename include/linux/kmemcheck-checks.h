/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck hooks for include/linux/instrumented.h, which cannot include
 * <linux/kmemcheck.h>: that header needs the atomics, which need this one.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _LINUX_KMEMCHECK_CHECKS_H
#define _LINUX_KMEMCHECK_CHECKS_H

#include <linux/compiler.h>
#include <linux/types.h>

#ifdef CONFIG_KMEMCHECK
/*
 * kmemcheck=1 at boot.  A plain flag, not the static key, which needs
 * <linux/jump_label.h> and so the atomics: still one load and one branch
 * when kmemcheck is off, instead of a call.
 */
extern bool kmemcheck_booted_on;

void __kmemcheck_copy_to_user(void __user *to, const void *from,
			      unsigned long n);

/**
 * kmemcheck_copy_to_user() - check bytes about to be copied to user space
 * @to:		user destination
 * @from:	kernel source
 * @n:		number of bytes
 *
 * Called by instrument_copy_to_user(), before the copy.  Bytes of tracked
 * memory that are not initialized are reported as kernel-infoleak (freed
 * or unallocated ones as use-after-free or unallocated), at the copy and
 * naming the user address.  The copy itself is then not reported again
 * by the fault handler.
 */
static __always_inline void kmemcheck_copy_to_user(void __user *to,
						   const void *from,
						   unsigned long n)
{
	if (unlikely(kmemcheck_booted_on))
		__kmemcheck_copy_to_user(to, from, n);
}
#else
static inline void kmemcheck_copy_to_user(void __user *to, const void *from,
					  unsigned long n)
{
}
#endif

#endif /* _LINUX_KMEMCHECK_CHECKS_H */
