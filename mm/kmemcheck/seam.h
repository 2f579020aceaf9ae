/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck: the seam between the generic code and the architecture.
 *
 * The architecture (arch/x86/mm/kmemcheck/) takes the page faults and the
 * debug traps, decodes the instruction and runs it; it calls the generic
 * code declared here to check and update the shadow (kmemcheck_access(),
 * kmemcheck_copy()), to ask what it may do with a page or an instruction
 * (kmemcheck_page_may_rest(), kmemcheck_may_emulate()), to follow a value
 * (kmemcheck_value_load() and the rest) and to report.  The generic code
 * calls the architecture only through asm/kmemcheck.h: kmemcheck_arch_*()
 * to hide and show a page, save a stack, tell a stack address.  Nothing
 * here is for the rest of the kernel, which has include/linux/kmemcheck.h.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _MM_KMEMCHECK_SEAM_H
#define _MM_KMEMCHECK_SEAM_H

#include <linux/atomic.h>
#include <linux/types.h>

struct pt_regs;

/* Why following a value ended before a use or its end. */
enum kmemcheck_unjudged {
	KMEMCHECK_UNJUDGED_BOUND,	/* as many instructions as followed */
	KMEMCHECK_UNJUDGED_INSN,	/* an instruction outside the model */
	KMEMCHECK_UNJUDGED_FAULT,	/* an exception in a followed insn */
	KMEMCHECK_UNJUDGED_STACK,	/* the code left the stack it was on */
	KMEMCHECK_UNJUDGED_SPILL,	/* more stack words than are followed */
	KMEMCHECK_UNJUDGED_TYPES,
};

/* Counters shown in debugfs kmemcheck/stats. */
enum kmemcheck_counter {
	KMEMCHECK_COUNTER_TRACKED_PAGES,	/* pages with a shadow now */
	KMEMCHECK_COUNTER_SHADOW_FAILED,	/* shadow allocations failed */
	KMEMCHECK_COUNTER_FAULTS,		/* page faults handled */
	KMEMCHECK_COUNTER_STEPS,		/* single-steps completed */
	KMEMCHECK_COUNTER_EMULATED,		/* faults done without a step */
	KMEMCHECK_COUNTER_CANCELLED,		/* steps cut by a nested fault */
	KMEMCHECK_COUNTER_UNKNOWN_INSN,		/* faults on undecodable insns */
	KMEMCHECK_COUNTER_REPORTS,		/* reports printed */
	KMEMCHECK_COUNTER_SUPPRESSED,		/* repeats not printed */
	KMEMCHECK_COUNTER_LIMITED,		/* new reports past report_limit */
	KMEMCHECK_COUNTER_LOST,			/* reports dropped: queue full */
	KMEMCHECK_COUNTER_FOLLOWED,		/* uninit loads followed */
	KMEMCHECK_COUNTER_FOLLOW_DIED,		/* ... to no use: overwritten */
	KMEMCHECK_COUNTER_FOLLOW_USED,		/* ... to a use, reported */
	KMEMCHECK_COUNTER_FOLLOW_UNJUDGED,	/* ... not judged: reported at the load */
	KMEMCHECK_COUNTER_FOLLOW_DROPPED,	/* ... not judged, dropped */
	/* ... not judged, reported or dropped, by enum kmemcheck_unjudged */
	KMEMCHECK_COUNTER_FOLLOW_END,
	KMEMCHECK_COUNTER_FOLLOW_END_LAST = KMEMCHECK_COUNTER_FOLLOW_END +
					    KMEMCHECK_UNJUDGED_TYPES - 1,
	KMEMCHECK_COUNTER_FOLLOW_INSNS,		/* instructions stepped to follow */
	KMEMCHECK_COUNTER_PARTIAL_PAGES,	/* pages with partial bit masks */
	KMEMCHECK_COUNTER_PARTIAL_LOST,		/* bit masks not kept: no room */
	KMEMCHECK_COUNTER_UNSELECTED,		/* allocations kmemcheck.track= left out */
	KMEMCHECK_COUNTER_REPLAYED,		/* faults done before the fault entry */
	KMEMCHECK_COUNTER_SHED,			/* busy pages whose freed bytes expired */
	KMEMCHECK_COUNTER_STACK_LOST,		/* copied to the stack, not followed */
	KMEMCHECK_COUNTER_COUNT,
};

extern atomic_long_t kmemcheck_counters[KMEMCHECK_COUNTER_COUNT];

static __always_inline void kmemcheck_count(enum kmemcheck_counter c)
{
	raw_atomic_long_inc(&kmemcheck_counters[c]);
}

/* For the architecture's fault handler: accesses, and what it may do. */
void kmemcheck_access(struct pt_regs *regs, unsigned long addr, size_t size,
		      bool read, bool write);
bool kmemcheck_access_quick(unsigned long addr, size_t size, bool write,
			    bool *rest);
void kmemcheck_copy(struct pt_regs *regs, unsigned long src, unsigned long dst,
		    size_t size);
void kmemcheck_unknown_insn(struct pt_regs *regs);
bool kmemcheck_page_may_rest(unsigned long addr);
bool kmemcheck_may_emulate(void);
void kmemcheck_hot_fault(unsigned long ip, unsigned long addr);
bool kmemcheck_page_tracked(unsigned long addr);

/*
 * Following a value read from uninitialized memory to its use: the
 * architecture models the instructions, the generic code keeps the shadow
 * and reports.  See Documentation/dev-tools/kmemcheck.rst.
 */

/* What a followed value reached, when it is reported. */
enum kmemcheck_use {
	KMEMCHECK_USE_BRANCH,		/* a conditional jump */
	KMEMCHECK_USE_SELECT,		/* a conditional move or set */
	KMEMCHECK_USE_ADDRESS,		/* an address or a jump target */
	KMEMCHECK_USE_DIVISOR,		/* a divisor */
	KMEMCHECK_USE_COUNT,		/* a shift, string or loop count */
	KMEMCHECK_USE_ARITH,		/* arithmetic on memory in place */
	KMEMCHECK_USE_STORE,		/* a store to untracked memory */
	KMEMCHECK_USE_USER,		/* a store to user space */
	KMEMCHECK_USE_TYPES,
};

/**
 * struct kmemcheck_load - where a followed value was read
 * @ip:		the instruction that read it
 * @addr:	first byte read
 * @size:	bytes read
 * @bad:	first uninitialized byte read
 * @stack:	stack depot handle of the stack at the read, or 0
 * @merged:	loads of uninitialized memory the value reported was
 *		computed from; this is the first of them
 */
struct kmemcheck_load {
	unsigned long ip;
	unsigned long addr;
	unsigned int size;
	unsigned long bad;
	u32 stack;
	unsigned int merged;
};

bool kmemcheck_follow_enabled(void);
bool kmemcheck_range_uninit(unsigned long addr, size_t size,
			    unsigned long *bad);
u64 kmemcheck_value_load(struct pt_regs *regs, unsigned long addr,
			 unsigned int size);
void kmemcheck_value_store(unsigned long addr, unsigned int size, u64 undef);
u8 kmemcheck_value_undef(unsigned long addr);
void kmemcheck_report_use(struct pt_regs *regs, enum kmemcheck_use use,
			  const struct kmemcheck_load *load, unsigned long dst);
void kmemcheck_report_unjudged(const struct kmemcheck_load *load,
			       unsigned int insns, unsigned long end,
			       enum kmemcheck_unjudged why);

#endif /* _MM_KMEMCHECK_SEAM_H */
