// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck on x86-32: the stacks of origins, from the frame pointers.
 *
 * kmemcheck records the stack of every allocation and free of tracked
 * memory, for the reports that say where uninitialized bytes came from.
 * stack_trace_save() took some 4000 instructions for a stack of a dozen
 * frames, more than the allocation itself under kmemcheck: the unwinder
 * checks each return address against the kernel's and the modules' text
 * and each frame against the stacks it may be on.  With frame pointers
 * the chain of saved %ebp is all the origins need: it is followed as long
 * as it climbs the stack it starts on, and stops at the frame the entry
 * code marks as a pt_regs (its top bit cleared), where the exception or
 * interrupt came in.  The stack depot would cut the frames of an
 * interrupt's entry there too.  The addresses are printed with %pS, which
 * copes with any value.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/kmemcheck.h>
#include <linux/stacktrace.h>
#include <linux/thread_info.h>

#include <asm/kmemcheck.h>

#ifdef CONFIG_FRAME_POINTER
/* Move *@fp to the frame above it; false at the top of @stack's chain. */
static __always_inline bool kmemcheck_frame_up(unsigned long **fp,
					       unsigned long stack)
{
	unsigned long *next = (unsigned long *)(*fp)[0];

	if (next <= *fp || (unsigned long)next - stack >
			   THREAD_SIZE - 2 * sizeof(long))
		return false;
	*fp = next;
	return true;
}
#endif

/**
 * kmemcheck_arch_save_stack() - the return addresses of the current stack
 * @entries:	where to store them
 * @max:	room in @entries
 * @skip:	callers to leave out, as for stack_trace_save()
 *
 * Return: the number of entries stored.  As with stack_trace_save(), with
 * @skip 0 the first is in the function calling this one.
 */
noinline unsigned int kmemcheck_arch_save_stack(unsigned long *entries,
						unsigned int max,
						unsigned int skip)
{
#ifdef CONFIG_FRAME_POINTER
	unsigned long *fp = __builtin_frame_address(0);
	unsigned long stack = (unsigned long)fp & ~(THREAD_SIZE - 1);
	unsigned int nr = 0;

	/*
	 * Our own frame first: its return address is into our caller.  Each
	 * step goes up the same stack only, to a pt_regs mark or its end.
	 */
	if (!max)
		return 0;
	for (; skip; skip--) {
		if (!kmemcheck_frame_up(&fp, stack))
			return 0;
	}
	do {
		entries[nr++] = fp[1];
	} while (nr < max && kmemcheck_frame_up(&fp, stack));
	return nr;
#else
	return stack_trace_save(entries, max, skip + 1);
#endif
}
