// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck on x86-32: where a fault on a hidden page becomes a check.
 *
 * kmemcheck_page_fault() decodes the faulting instruction, hands every
 * access to the generic checks (mm/kmemcheck/check.c), shows the pages the
 * instruction touches and single-steps it with TF set and IF clear.
 * kmemcheck_debug_trap() hides the pages again when the step completes.
 * MOVs, REP STOS/MOVS and arithmetic with a memory operand are done in
 * the handler instead (emulate.c), unless kmemcheck.fastpath=0 asks for
 * the single-step every time.  With kmemcheck.follow=1 an instruction that
 * reads uninitialized bytes is not checked but followed (follow.c): the
 * step goes on, one instruction at a time, until the value is used or
 * gone.
 *
 * The trap flag is kmemcheck's while one of its steps is pending: a
 * debugger's TF is remembered in the step and handed back when it
 * completes.  Block-stepping (DEBUGCTL.BTF, PTRACE_SINGLEBLOCK) would make
 * TF trap at the next branch only, so BTF is cleared while a step is
 * pending and set again when the last one completes.
 *
 * Steps nest: an NMI may touch tracked memory while a step is pending, and
 * the fault handler itself may touch tracked memory.  Each CPU keeps a
 * small stack of pending steps; a trap always completes the innermost one.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/atomic.h>
#include <linux/hardirq.h>
#include <linux/instrumentation.h>
#include <linux/irqflags.h>
#include <linux/kmemcheck.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/sched.h>

#include <asm/debugreg.h>
#include <asm/insn.h>
#include <asm/kmemcheck.h>
#include <asm/msr.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <asm/trap_pf.h>

#include "decode.h"
#include "emulate.h"
#include "follow.h"
#include "replay.h"
#include "seam.h"

/* Nesting depth: a fault, an NMI in its step, a fault in that NMI... */
#define KMEMCHECK_MAX_DEPTH	4
/* Pages one step may show: two operands, each maybe straddling, and CR2. */
#define KMEMCHECK_MAX_PAGES	(2 * KMEMCHECK_MAX_ACCESSES + 1)

/* One single-step in progress. */
struct kmemcheck_step {
	unsigned long ip;		/* of the stepped instruction */
	unsigned long sp;		/* tells a re-fault from an NMI */
	unsigned long flags;		/* TF and IF as they were */
	bool follow;			/* a value is being followed */
	/*
	 * Stores are recorded when the step completes, not before: an
	 * instruction cut short by a fault stored nothing.  A CMPXCHG stores
	 * only if it succeeds (ZF set).
	 */
	bool store_if_zf;
	unsigned int nr_stores;
	struct kmemcheck_access stores[KMEMCHECK_MAX_ACCESSES];
	unsigned int nr_pages;
	unsigned long pages[KMEMCHECK_MAX_PAGES];
};

struct kmemcheck_cpu {
	unsigned int depth;
	struct kmemcheck_step steps[KMEMCHECK_MAX_DEPTH];
};

static DEFINE_PER_CPU(struct kmemcheck_cpu, kmemcheck_cpu);

/*
 * Show the page holding @addr if kmemcheck hid it, and remember every
 * tracked page the step touches: a resting page written with uninitialized
 * bytes during the step must be hidden when it completes.
 */
static void kmemcheck_show(struct kmemcheck_step *step, unsigned long addr)
{
	unsigned long page = addr & PAGE_MASK;
	unsigned int i;

	for (i = 0; i < step->nr_pages; i++) {
		if (step->pages[i] == page)
			return;
	}
	if (step->nr_pages == KMEMCHECK_MAX_PAGES) {
		/* Cannot happen with a right decoder; never livelock. */
		if (kmemcheck_arch_show_page(page))
			pr_warn_once("kmemcheck: too many pages for one step at %pS; page %p no longer checked\n",
				     (void *)step->ip, (void *)page);
		return;
	}
	/*
	 * Listed before it is shown: an NMI's step in between sees the page
	 * as the step's, and leaves it shown when it completes.
	 */
	if (kmemcheck_page_tracked(page) || kmemcheck_arch_page_hidden(page)) {
		step->pages[step->nr_pages] = page;
		barrier();
		step->nr_pages++;
		barrier();
	}
	kmemcheck_arch_show_page(page);
}

static void kmemcheck_show_range(struct kmemcheck_step *step,
				 unsigned long addr, unsigned int size)
{
	kmemcheck_show(step, addr);
	kmemcheck_show(step, addr + size - 1);
}

/* Does one of the @depth outermost steps map @page? */
static bool kmemcheck_in_steps(struct kmemcheck_cpu *kc, unsigned int depth,
			       unsigned long page)
{
	unsigned int i, j;

	for (i = 0; i < depth; i++) {
		for (j = 0; j < kc->steps[i].nr_pages; j++) {
			if (kc->steps[i].pages[j] == page)
				return true;
		}
	}
	return false;
}

/**
 * kmemcheck_arch_page_in_step() - is a page mapped by a pending step?
 * @addr:	any address in the page
 *
 * Return: true if a single-step in progress on this CPU needs the page.
 */
bool kmemcheck_arch_page_in_step(unsigned long addr)
{
	struct kmemcheck_cpu *kc = this_cpu_ptr(&kmemcheck_cpu);

	return kmemcheck_in_steps(kc, kc->depth, addr & PAGE_MASK);
}

/*
 * A task block-stepped by ptrace runs with DEBUGCTL.BTF set, and the #DB
 * handler sets it again on entry.  While a kmemcheck step is pending it
 * must be clear, or TF traps only at the next branch taken.
 */
static void kmemcheck_btf(bool on)
{
	unsigned long debugctl;

	if (!test_thread_flag(TIF_BLOCKSTEP))
		return;
	rdmsrl(MSR_IA32_DEBUGCTLMSR, debugctl);
	if (!!(debugctl & DEBUGCTLMSR_BTF) == on)
		return;
	debugctl ^= DEBUGCTLMSR_BTF;
	wrmsrl(MSR_IA32_DEBUGCTLMSR, debugctl);
}

/* Single-step the instruction at @regs with interrupts off. */
static void kmemcheck_arm_step(struct pt_regs *regs)
{
	regs->flags |= X86_EFLAGS_TF;
	regs->flags &= ~X86_EFLAGS_IF;
	kmemcheck_btf(false);
}

/*
 * Hide the pages of the innermost step, except those an outer step still
 * needs shown and those left with nothing to check, restore the flags it
 * changed, and pop it.
 */
static void kmemcheck_finish_step(struct kmemcheck_cpu *kc,
				  struct pt_regs *regs)
{
	struct kmemcheck_step *step = &kc->steps[kc->depth - 1];
	unsigned int i;

	for (i = 0; i < step->nr_pages; i++) {
		unsigned long page = step->pages[i];

		if (!kmemcheck_in_steps(kc, kc->depth - 1, page) &&
		    !kmemcheck_page_may_rest(page))
			kmemcheck_arch_hide_page(page);
	}
	regs->flags &= ~(X86_EFLAGS_TF | X86_EFLAGS_IF);
	regs->flags |= step->flags;
	/*
	 * A free slot is left empty: an NMI that pushes into it and pops
	 * before a push claims it must leave it as it found it.
	 */
	step->ip = 0;
	step->nr_pages = 0;
	barrier();
	kc->depth--;
	if (!kc->depth)
		kmemcheck_btf(true);
}

#if IS_ENABLED(CONFIG_KMEMCHECK_KUNIT_TEST)
void (*kmemcheck_test_push_hook)(void);

/* The KUnit test nests a fault in the middle of a push, as an NMI may. */
static void kmemcheck_test_push(void)
{
	typeof(kmemcheck_test_push_hook) hook = READ_ONCE(kmemcheck_test_push_hook);

	if (hook)
		hook();
}
#else
static inline void kmemcheck_test_push(void)
{
}
#endif

/*
 * Push a step for the instruction at @regs.  An NMI may come anywhere in
 * here and fault on tracked memory itself.  The slot is claimed first,
 * with no page and no instruction, so that an NMI's step goes above it and
 * takes nothing of it for its own: had the slot been filled first and
 * claimed after, the NMI would have pushed its step into the same slot,
 * and the flags of the NMI would have come back in ours.
 */
static struct kmemcheck_step *kmemcheck_push_step(struct kmemcheck_cpu *kc,
						  struct pt_regs *regs,
						  unsigned long flags)
{
	unsigned int depth = kc->depth;
	struct kmemcheck_step *step = &kc->steps[depth];

	step->ip = 0;
	step->nr_pages = 0;
	barrier();
	WRITE_ONCE(kc->depth, depth + 1);
	barrier();
	kmemcheck_test_push();
	step->sp = regs->sp;
	step->flags = flags;
	step->follow = false;
	step->nr_stores = 0;
	step->store_if_zf = false;
	barrier();
	/* Now a fault of this instruction is taken for a re-fault. */
	step->ip = regs->ip;
	return step;
}

/*
 * The step of the innermost slot did not complete: its instruction faulted
 * elsewhere, or raised an exception.  Hide its pages, record none of its
 * stores, give the flags back.
 */
static void kmemcheck_cancel_step(struct kmemcheck_cpu *kc,
				  struct pt_regs *regs)
{
	if (kc->steps[kc->depth - 1].follow)
		kmemcheck_follow_cancel(regs, KMEMCHECK_UNJUDGED_FAULT);
	kmemcheck_finish_step(kc, regs);
	kmemcheck_count(KMEMCHECK_COUNTER_CANCELLED);
}

/* The innermost step of this CPU, if it is stepping @regs' instruction. */
static __always_inline struct kmemcheck_step *
kmemcheck_step_of(struct kmemcheck_cpu *kc, const struct pt_regs *regs)
{
	struct kmemcheck_step *step;

	if (!kc->depth)
		return NULL;
	step = &kc->steps[kc->depth - 1];
	if (step->ip != regs->ip || step->sp != regs->sp)
		return NULL;
	return step;
}

/*
 * atomic64_set() on i386 is a CMPXCHG8B loop, atomic64_set_cx8(): its
 * compare only fetches the old value to be replaced, and the loop ends
 * by storing the new one whatever the old bytes were.  It is a store,
 * often the first to a new object; the decoder, which sees an ordinary
 * CMPXCHG8B, calls it a read-modify-write.
 */
static bool kmemcheck_insn_is_store(const struct pt_regs *regs)
{
	return regs->ip == (unsigned long)atomic64_set_cx8;
}

/*
 * Follow the value of the fault's instruction?  Only in the context that
 * read it, outside NMIs and any other step, and not while a debugger
 * single-steps the code.  A store reads no value to follow, whatever its
 * encoding says.
 */
static bool kmemcheck_may_follow(struct kmemcheck_cpu *kc,
				 const struct kmemcheck_step *step,
				 const struct pt_regs *regs)
{
	return kc->depth == 1 && !in_nmi() && !(step->flags & X86_EFLAGS_TF) &&
	       !kmemcheck_insn_is_store(regs) && kmemcheck_follow_enabled();
}

/*
 * Is this the fetch of an instruction?  The CPU says so only with NX (PAE)
 * or SMEP on; otherwise the fetch faults at the address of the
 * instruction, or in its tail when it straddles into the next page.  No
 * data access of kernel code reaches there: the page holding the
 * instruction is present, and kernel text is never tracked.
 */
static bool kmemcheck_insn_fetch(struct pt_regs *regs,
				 unsigned long error_code,
				 unsigned long address)
{
	return (error_code & X86_PF_INSTR) ||
	       address - regs->ip < MAX_INSN_SIZE;
}

/* Is this a kernel-mode fault on a page kmemcheck hid? */
static bool kmemcheck_hidden_fault(struct pt_regs *regs,
				   unsigned long error_code,
				   unsigned long address)
{
	if (error_code & (X86_PF_USER | X86_PF_RSVD | X86_PF_PROT))
		return false;
	/* PnP BIOS and APM run with their own code segments. */
	if (user_mode(regs) || v8086_mode(regs) || regs->cs != __KERNEL_CS)
		return false;
	return kmemcheck_arch_page_hidden(address);
}

/*
 * Is this a kernel-mode data access to a page kmemcheck hid?  An
 * instruction fetch is never ours to emulate or step: that would execute
 * heap bytes that the CPU refuses with NX.
 */
static bool kmemcheck_our_fault(struct pt_regs *regs, unsigned long error_code,
				unsigned long address)
{
	return kmemcheck_hidden_fault(regs, error_code, address) &&
	       !kmemcheck_insn_fetch(regs, error_code, address);
}

/*
 * A kernel-mode instruction fetch from a hidden page: show the page, so
 * that the fetch, when it is made again, faults or runs as it would
 * without kmemcheck.  With NX the kernel then oopses with "kernel tried to
 * execute NX-protected page".  The page is no longer checked, which
 * matters little next to that oops.
 *
 * Return: true if the fault was such a fetch and the page is shown.
 */
static bool kmemcheck_fetch_fault(struct pt_regs *regs,
				  unsigned long error_code,
				  unsigned long address)
{
	if (!kmemcheck_hidden_fault(regs, error_code, address) ||
	    !kmemcheck_insn_fetch(regs, error_code, address))
		return false;
	if (!kmemcheck_arch_show_page(address))
		return false;
	pr_warn_once("kmemcheck: instruction fetch at %pS from a tracked page; page %p no longer checked\n",
		     (void *)regs->ip, (void *)(address & PAGE_MASK));
	return true;
}

/* Does one of the decoded accesses cover the faulting address? */
static bool kmemcheck_insn_covers(const struct kmemcheck_insn *insn,
				  unsigned long address)
{
	unsigned int i;

	for (i = 0; i < insn->nr; i++) {
		if (address - insn->access[i].addr < insn->access[i].size)
			return true;
	}
	return false;
}

/* Is @insn a CMPXCHG or CMPXCHG8B, which store only if they succeed? */
static bool kmemcheck_insn_is_cmpxchg(const struct insn *insn)
{
	u8 op1 = insn->opcode.bytes[1];

	return insn->opcode.nbytes == 2 && insn->opcode.bytes[0] == 0x0f &&
	       (op1 == 0xb0 || op1 == 0xb1 || op1 == 0xc7);
}

/*
 * Check every read of the instruction now, and keep its writes in @step
 * for kmemcheck_debug_trap() to record once it has run.
 */
static void kmemcheck_check_insn(struct pt_regs *regs,
				 struct kmemcheck_step *step,
				 const struct insn *raw,
				 const struct kmemcheck_insn *insn)
{
	const struct kmemcheck_access *a = insn->access;
	bool store = kmemcheck_insn_is_store(regs);
	unsigned int i;

	if (insn->flags & KMEMCHECK_INSN_COPY) {
		kmemcheck_copy(regs, a[0].addr, a[1].addr, a[0].size);
		return;
	}
	for (i = 0; i < insn->nr; i++) {
		if (!store && (a[i].kind & KMEMCHECK_ACCESS_READ))
			kmemcheck_access(regs, a[i].addr, a[i].size, true,
					 false);
		if (a[i].kind & KMEMCHECK_ACCESS_WRITE)
			step->stores[step->nr_stores++] = a[i];
	}
	step->store_if_zf = !store && kmemcheck_insn_is_cmpxchg(raw);
}

/* The stepped instruction has run: record what it stored. */
static void kmemcheck_record_stores(struct kmemcheck_step *step,
				    struct pt_regs *regs)
{
	unsigned int i;

	if (step->store_if_zf && !(regs->flags & X86_EFLAGS_ZF))
		return;
	for (i = 0; i < step->nr_stores; i++)
		kmemcheck_access(regs, step->stores[i].addr,
				 step->stores[i].size, false, true);
}

static void kmemcheck_follow_step(struct kmemcheck_cpu *kc,
				  struct pt_regs *regs, unsigned long flags);

/*
 * An emulated copy into the stack ("tmp = *obj;") that took uninitialized
 * bytes there is no use of them: they are followed from the instruction
 * after it, in the context that copied them, as a load's would be.
 * @flags are the code's TF and IF; the copy's step is finished, and done
 * whole (a REP MOVS whose source or destination goes on into a page not
 * shown is done in parts, and not followed).
 */
static void kmemcheck_follow_stack_copy(struct kmemcheck_cpu *kc,
					struct pt_regs *regs, unsigned long ip,
					const struct kmemcheck_insn *insn,
					unsigned long flags)
{
	const struct kmemcheck_access *a = insn->access;

	if (!(insn->flags & KMEMCHECK_INSN_COPY) || regs->ip == ip ||
	    kc->depth || in_nmi() || (flags & X86_EFLAGS_TF) ||
	    !kmemcheck_follow_enabled() ||
	    !kmemcheck_arch_on_stack(regs, a[1].addr))
		return;
	/* The access is one element; the registers say how many went. */
	if (kmemcheck_follow_copy(regs, ip, a[0].addr, a[1].addr,
				  regs->di - a[1].addr))
		kmemcheck_follow_step(kc, regs, flags);
}

/**
 * kmemcheck_page_fault() - handle a page fault on a hidden page
 * @regs:	registers at the fault
 * @error_code:	hardware error code
 * @address:	faulting address (CR2)
 *
 * Called first thing in handle_page_fault(), for every fault.  A fault
 * taken by the instruction being stepped is either on a tracked page the
 * decoder did not predict, which is shown too, or on another page (a user
 * page not present under a copy_to_user()): then the step is cancelled and
 * its pages hidden again before the fault path may enable interrupts; the
 * instruction restarts and faults anew.
 *
 * Return: true if the fault was kmemcheck's and is handled.
 */
bool kmemcheck_page_fault(struct pt_regs *regs, unsigned long error_code,
			  unsigned long address)
{
	struct kmemcheck_cpu *kc = this_cpu_ptr(&kmemcheck_cpu);
	struct kmemcheck_step *step;
	struct kmemcheck_insn insn = {};
	u8 buf[MAX_INSN_SIZE];
	struct insn raw;
	unsigned int i;

	step = kmemcheck_step_of(kc, regs);
	if (step) {
		if (kmemcheck_our_fault(regs, error_code, address)) {
			/* A page the decoder missed: show it too. */
			kmemcheck_show(step, address);
			kmemcheck_count(KMEMCHECK_COUNTER_UNKNOWN_INSN);
			return true;
		}
		/* Hide before the fault path may enable interrupts. */
		kmemcheck_cancel_step(kc, regs);
	}
	if (!kmemcheck_our_fault(regs, error_code, address))
		return kmemcheck_fetch_fault(regs, error_code, address);
	if (kc->depth == KMEMCHECK_MAX_DEPTH) {
		/* Lose tracking of this page rather than the machine. */
		kmemcheck_arch_show_page(address);
		pr_warn_once("kmemcheck: steps nested too deep at %pS; page %p no longer checked\n",
			     (void *)regs->ip, (void *)address);
		return true;
	}
	/*
	 * TF already set here is a debugger's, unless a step of ours is
	 * pending in this context: then it is ours, and not to hand back.
	 */
	step = kmemcheck_push_step(kc, regs, regs->flags &
				   (kc->depth ? X86_EFLAGS_IF :
					X86_EFLAGS_TF | X86_EFLAGS_IF));
	kmemcheck_count(KMEMCHECK_COUNTER_FAULTS);
	kmemcheck_hot_fault(regs->ip, address);

	if (kmemcheck_decode_cached(regs, buf, &raw, &insn)) {
		kmemcheck_unknown_insn(regs);
		insn.nr = 0;
	}
	for (i = 0; i < insn.nr; i++)
		kmemcheck_show_range(step, insn.access[i].addr,
				     insn.access[i].size);
	/* Whatever the decoder said, the faulting page must be shown. */
	kmemcheck_show(step, address);

	if (insn.nr && kmemcheck_may_follow(kc, step, regs) &&
	    kmemcheck_follow_start(regs, &raw, &insn)) {
		step->follow = true;
		kmemcheck_arm_step(regs);
		return true;
	}

	/* Unless someone else is stepping it (a debugger), do it here. */
	if (insn.nr && !(step->flags & X86_EFLAGS_TF) &&
	    kmemcheck_insn_covers(&insn, address) &&
	    kmemcheck_may_emulate() && kmemcheck_emulate(regs, &raw, &insn)) {
		unsigned long ip = step->ip, flags = step->flags;

		kmemcheck_finish_step(kc, regs);
		kmemcheck_count(KMEMCHECK_COUNTER_EMULATED);
		kmemcheck_follow_stack_copy(kc, regs, ip, &insn, flags);
		return true;
	}
	kmemcheck_check_insn(regs, step, &raw, &insn);
	kmemcheck_arm_step(regs);
	return true;
}

NOKPROBE_SYMBOL(kmemcheck_page_fault);

/**
 * __kmemcheck_exception() - an exception cut a step short
 * @regs:	registers at the exception
 *
 * Called where the kernel fixes up an exception, or dies of one, other
 * than a page fault: #DE, #GP, #UD...  If the instruction one of our steps
 * was stepping raised it, that instruction did not complete.  The step is
 * cancelled: its pages hidden again, its stores not recorded, and the
 * flags of the code given back, so that a fixup runs without our trap
 * flag, and an oops leaves no step pending on the CPU.
 */
void __kmemcheck_exception(struct pt_regs *regs)
{
	struct kmemcheck_cpu *kc = this_cpu_ptr(&kmemcheck_cpu);

	if (kmemcheck_step_of(kc, regs))
		kmemcheck_cancel_step(kc, regs);
}

NOKPROBE_SYMBOL(__kmemcheck_exception);

/**
 * kmemcheck_step_irqs_on() - does @regs return to a step, interrupts on?
 * @regs:	registers an exception returns to
 *
 * A step runs with IF clear in @regs, so the page fault that arms it, and
 * the debug trap that arms the next one while a value is followed, return
 * with lockdep believing interrupts off.  They are off for the step alone:
 * where the code had them on, lockdep must see them on, or
 * lockdep_assert_irqs_enabled() warns on correct code in the window.
 *
 * Return: true if @regs is at the instruction of this CPU's innermost
 * step, and interrupts were on before it.
 */
noinstr bool kmemcheck_step_irqs_on(const struct pt_regs *regs)
{
	struct kmemcheck_step *step;

	step = kmemcheck_step_of(this_cpu_ptr(&kmemcheck_cpu), regs);
	return step && (step->flags & X86_EFLAGS_IF) &&
	       (regs->flags & X86_EFLAGS_TF);
}

/**
 * kmemcheck_early_fault() - handle a fault on a hidden page, the quick way
 * @regs:	registers at the fault
 * @error_code:	hardware error code
 * @address:	faulting address (CR2)
 *
 * Called from exc_page_fault() before irqentry_enter(), with interrupts
 * off, for every fault.  A kernel-mode MOV whose decode is cached is done
 * here (replay.c) and the exception returns at once: lockdep and RCU are
 * not told, as nothing here takes a lock, turns interrupts on or waits.
 * Not in the idle task, which may run with RCU not watching; not in NMIs,
 * nor while a step of kmemcheck or a debugger's is pending.  Everything
 * else goes on to kmemcheck_page_fault().
 *
 * Return: true if the fault was handled.
 */
noinstr bool kmemcheck_early_fault(struct pt_regs *regs,
				   unsigned long error_code,
				   unsigned long address)
{
	bool done;

	if ((error_code & (X86_PF_USER | X86_PF_RSVD | X86_PF_PROT |
			   X86_PF_INSTR)) ||
	    regs->cs != __KERNEL_CS ||
	    (regs->flags & (X86_EFLAGS_TF | X86_EFLAGS_VM)) ||
	    address - regs->ip < MAX_INSN_SIZE ||
	    in_nmi() || is_idle_task(current) ||
	    __this_cpu_read(kmemcheck_cpu.depth))
		return false;
	instrumentation_begin();
	done = kmemcheck_replay(regs, address);
	if (done) {
		kmemcheck_count(KMEMCHECK_COUNTER_FAULTS);
		kmemcheck_count(KMEMCHECK_COUNTER_EMULATED);
		kmemcheck_count(KMEMCHECK_COUNTER_REPLAYED);
	}
	instrumentation_end();
	return done;
}

/**
 * __kmemcheck_fault_exit() - a page fault returns, maybe to a step
 * @regs:	registers it returns to
 * @rcu_idle:	RCU was not watching at the fault, nor is it again now
 *
 * Called after irqentry_exit().  If the fault armed a step where the code
 * had interrupts on, have lockdep and the irqsoff tracer see them on, as
 * irqentry_exit() would have without the step (kmemcheck_step_irqs_on()).
 * Not where RCU is not watching: the idle task's windows keep lockdep's
 * view as it was.
 */
noinstr void __kmemcheck_fault_exit(struct pt_regs *regs, bool rcu_idle)
{
	if (rcu_idle || !kmemcheck_step_irqs_on(regs))
		return;
	instrumentation_begin();
	trace_hardirqs_on_prepare();
	lockdep_hardirqs_on_prepare();
	instrumentation_end();
	lockdep_hardirqs_on(CALLER_ADDR0);
}

/*
 * The decoder knows the instructions that may fault on a hidden page; the
 * others it refuses.  Following also steps jumps, calls, pushes and
 * register operations: those with no explicit memory operand (but the
 * string and absolute-address forms, which the decoder knows) touch no
 * tracked memory, and the model sees to their registers.
 */
static bool kmemcheck_insn_no_memory(const struct insn *raw)
{
	u8 op0 = raw->opcode.bytes[0];

	if (!raw->length)
		return false;
	if (raw->modrm.nbytes)
		return X86_MODRM_MOD(raw->modrm.value) == 3;
	/* A0-AF: MOV moffs and the string instructions, but TEST imm. */
	return raw->opcode.nbytes != 1 || op0 < 0xa0 || op0 > 0xaf ||
	       op0 == 0xa8 || op0 == 0xa9;
}

/*
 * Step the next instruction of a followed value, with the tracked pages it
 * touches shown: no fault needed.  If following ends here, the instruction
 * runs as any other, with the flags of the context that read the value.
 */
static void kmemcheck_follow_step(struct kmemcheck_cpu *kc,
				  struct pt_regs *regs, unsigned long flags)
{
	struct kmemcheck_step *step = kmemcheck_push_step(kc, regs, flags);
	struct kmemcheck_insn insn = {};
	u8 buf[MAX_INSN_SIZE];
	struct insn raw;
	unsigned int i;
	int ret = kmemcheck_decode_at(regs, buf, &raw, &insn);

	if (ret && !(ret == -EOPNOTSUPP && kmemcheck_insn_no_memory(&raw))) {
		kmemcheck_follow_cancel(regs, KMEMCHECK_UNJUDGED_INSN);
		kmemcheck_finish_step(kc, regs);
		return;
	}
	for (i = 0; i < insn.nr; i++)
		kmemcheck_show_range(step, insn.access[i].addr,
				     insn.access[i].size);
	if (!kmemcheck_follow_next(regs, &raw, &insn)) {
		kmemcheck_finish_step(kc, regs);
		return;
	}
	step->follow = true;
	kmemcheck_arm_step(regs);
}

/**
 * kmemcheck_debug_trap() - complete a single-step started by a fault
 * @regs:	registers at the debug trap
 *
 * Called from the #DB handler when DR6 reports a single-step.
 *
 * Return: true if the step was kmemcheck's alone and DR_STEP is consumed;
 * false if there was none pending, or TF had been set by someone else
 * (a debugger or kprobes) who must see the trap too.
 */
bool kmemcheck_debug_trap(struct pt_regs *regs)
{
	struct kmemcheck_cpu *kc = this_cpu_ptr(&kmemcheck_cpu);
	struct kmemcheck_step *step;
	unsigned long flags;
	bool theirs, follow;

	if (!kc->depth)
		return false;
	step = &kc->steps[kc->depth - 1];
	/* Record what the instruction stored before hiding its pages. */
	kmemcheck_record_stores(step, regs);
	/* A followed CLI, STI or POPF changes the flags given back. */
	follow = step->follow && kmemcheck_follow_retire(regs, &step->flags);
	flags = step->flags;
	theirs = flags & X86_EFLAGS_TF;
	kmemcheck_finish_step(kc, regs);
	kmemcheck_count(KMEMCHECK_COUNTER_STEPS);
	if (follow)
		kmemcheck_follow_step(kc, regs, flags);
	else if (kc->depth)
		kmemcheck_btf(false);	/* the #DB entry set it again */
	return !theirs;
}

NOKPROBE_SYMBOL(kmemcheck_debug_trap);
