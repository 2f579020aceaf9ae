/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-32 kmemcheck support: hiding and showing direct-map pages.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _ASM_X86_KMEMCHECK_H
#define _ASM_X86_KMEMCHECK_H

#ifndef MODULE

#include <linux/pgtable.h>
#include <linux/thread_info.h>
#include <linux/types.h>

#include <asm/debugreg.h>
#include <asm/ptrace.h>
#include <asm/tlbflush.h>

/*
 * A tracked page is mapped not-present with this software bit set, so the
 * fault handler tells our pages from every other not-present kernel page
 * with a single PTE read.  Bit 11 is only _PAGE_SOFT_DIRTY, which needs
 * HAVE_ARCH_SOFT_DIRTY (x86-64 only): it is free on i386, PAE or not.
 */
#define _PAGE_BIT_KMEMCHECK	_PAGE_BIT_SOFTW3
#define _PAGE_KMEMCHECK		(_AT(pteval_t, 1) << _PAGE_BIT_KMEMCHECK)

/*
 * The kernel's PMD for @addr, or NULL.  Not lookup_address(): a fault
 * walks several times, and the general walk, with its large-page levels
 * and attributes, was a sixth of the instructions of a fault.  On i386
 * the p4d and pud levels are folded.
 */
static inline pmd_t *kmemcheck_arch_pmd(unsigned long addr)
{
	pgd_t *pgd = pgd_offset_k(addr);
	p4d_t *p4d = p4d_offset(pgd, addr);
	pud_t *pud = pud_offset(p4d, addr);

	if (!pud_present(*pud) || pud_leaf(*pud))
		return NULL;
	return pmd_offset(pud, addr);
}

/* The 4K PTE that maps @addr in the kernel's page table, or NULL. */
static inline pte_t *kmemcheck_arch_pte(unsigned long addr)
{
	pmd_t *pmd = kmemcheck_arch_pmd(addr);

	if (!pmd || !pmd_present(*pmd) || pmd_leaf(*pmd))
		return NULL;
	return pte_offset_kernel(pmd, addr);
}

/*
 * The PTE's value, read whole.  With PAE it is 64 bits, two loads: an NMI
 * that faults on the same page between them, and leaves it shown, would
 * give the low half of the hidden PTE and the high half of the shown one,
 * whose PFN bits are not inverted, and writing back a value made from both
 * would map a wrong PFN.  ptep_get_lockless() reads the halves again until
 * they agree; without PAE it is one load.
 */
static inline pteval_t kmemcheck_arch_pte_val(pte_t *pte)
{
	return pte_val(ptep_get_lockless(pte));
}

/*
 * Flip the present bit as kfence_protect_page() does: through
 * flip_protnone_guard(), so a PAE PTE keeps its L1TF-safe inverted PFN and
 * pte_pfn() still reads right while the page is hidden.  The inversion
 * covers the PFN bits only: _PAGE_NX (bit 63) and every other attribute
 * stay as they are, hidden or shown.
 */
static inline void kmemcheck_arch_set_pte(pte_t *pte, pteval_t old,
					  pteval_t new)
{
	set_pte_atomic(pte, __pte(flip_protnone_guard(old, new, PTE_PFN_MASK)));
}

/* Is a PTE of that value one kmemcheck hid? */
static inline bool kmemcheck_arch_pte_hidden(pteval_t val)
{
	return (val & (_PAGE_PRESENT | _PAGE_KMEMCHECK)) == _PAGE_KMEMCHECK;
}

/*
 * Map the page of a PTE kmemcheck hid, whose value is @val.  A not-present
 * page is never cached in the TLB: no flush is needed.
 */
static inline void kmemcheck_arch_show_pte(pte_t *pte, pteval_t val)
{
	kmemcheck_arch_set_pte(pte, val,
			       (val | _PAGE_PRESENT) & ~_PAGE_KMEMCHECK);
}

/*
 * Flush the local TLB's entry of a direct-map page.  x86-32 has no PCID:
 * without PTI or paravirt, INVLPG is all flush_tlb_one_kernel() does,
 * and a call to it was 3% of the instructions of a replayed fault.
 */
static inline void kmemcheck_arch_flush_one(unsigned long addr)
{
	if (IS_ENABLED(CONFIG_X86_32) && !IS_ENABLED(CONFIG_PARAVIRT) &&
	    !static_cpu_has(X86_FEATURE_PTI))
		asm volatile("invlpg (%0)" : : "r" (addr) : "memory");
	else
		flush_tlb_one_kernel(addr);
}

/*
 * Hide the page at @addr again, shown from the hidden value @val, and
 * flush the local TLB only: it may run with interrupts off, in the fault
 * and trap handlers, where no IPI can be sent; kmemcheck runs the machine
 * on one CPU.
 */
static inline void kmemcheck_arch_hide_pte(pte_t *pte, pteval_t val,
					   unsigned long addr)
{
	set_pte_atomic(pte, __pte(val));
	kmemcheck_arch_flush_one(addr & PAGE_MASK);
}

/**
 * kmemcheck_arch_hide_page() - make a direct-map page fault on every access
 * @addr:	any address in the page
 *
 * Return: false if the page is not mapped by a present 4K PTE.
 */
static inline bool kmemcheck_arch_hide_page(unsigned long addr)
{
	pte_t *pte = kmemcheck_arch_pte(addr);
	pteval_t val, hidden;

	if (!pte)
		return false;
	val = kmemcheck_arch_pte_val(pte);
	if (!(val & _PAGE_PRESENT))
		return val & _PAGE_KMEMCHECK;
	hidden = (val & ~_PAGE_PRESENT) | _PAGE_KMEMCHECK;
	kmemcheck_arch_hide_pte(pte, flip_protnone_guard(val, hidden,
							 PTE_PFN_MASK), addr);
	return true;
}

/**
 * kmemcheck_arch_show_page() - map a hidden page again
 * @addr:	any address in the page
 *
 * Return: false if the page was not hidden by kmemcheck.
 */
static inline bool kmemcheck_arch_show_page(unsigned long addr)
{
	pte_t *pte = kmemcheck_arch_pte(addr);
	pteval_t val;

	if (!pte)
		return false;
	val = kmemcheck_arch_pte_val(pte);
	if (!kmemcheck_arch_pte_hidden(val))
		return false;
	kmemcheck_arch_show_pte(pte, val);
	return true;
}

/**
 * kmemcheck_arch_page_hidden() - is the page hidden by kmemcheck?
 * @addr:	any address in the page
 *
 * Return: true if the page is tracked and not mapped right now.
 */
static inline bool kmemcheck_arch_page_hidden(unsigned long addr)
{
	pte_t *pte = kmemcheck_arch_pte(addr);

	return pte && kmemcheck_arch_pte_hidden(pte_val(*pte));
}

/**
 * kmemcheck_arch_page_present() - is the page mapped right now?
 * @addr:	any kernel address in the page
 *
 * Return: true if a present PTE maps the page.
 */
static inline bool kmemcheck_arch_page_present(unsigned long addr)
{
	pmd_t *pmd = kmemcheck_arch_pmd(addr);

	if (!pmd || !(pmd_flags(*pmd) & _PAGE_PRESENT))
		return false;
	if (pmd_leaf(*pmd))
		return true;
	/* Not pte_present(): a hidden page's _PAGE_GLOBAL reads as PROTNONE. */
	return pte_flags(*pte_offset_kernel(pmd, addr)) & _PAGE_PRESENT;
}

/**
 * kmemcheck_arch_on_stack() - is @addr on the stack @regs runs on?
 * @regs:	registers of the code
 * @addr:	any address
 *
 * The task's stack, or the per-CPU hardirq or softirq stack: on x86-32
 * each is THREAD_SIZE bytes, THREAD_SIZE aligned.
 *
 * Return: true if @addr is in the stack holding @regs->sp.
 */
static inline bool kmemcheck_arch_on_stack(const struct pt_regs *regs,
					   unsigned long addr)
{
	return (addr & ~(THREAD_SIZE - 1)) == (regs->sp & ~(THREAD_SIZE - 1));
}

/**
 * kmemcheck_arch_divide_one_by() - divide 1 by a word in memory
 * @divisor:	the word, read by the DIV itself
 *
 * For the demo of a divide error in the middle of a kmemcheck step: the
 * DIV faults on @divisor's hidden page and is single-stepped, and a zero
 * raises #DE from the step.  A C division would load @divisor first.
 *
 * Return: the quotient, if @divisor is not 0.
 */
static inline u32 kmemcheck_arch_divide_one_by(const u32 *divisor)
{
	u32 eax = 1, edx = 0;

	asm volatile("divl %2" : "+a" (eax), "+d" (edx) : "m" (*divisor));
	return eax;
}

#endif /* !MODULE */

#ifdef CONFIG_KMEMCHECK
#include <linux/kmemcheck.h>

bool kmemcheck_page_fault(struct pt_regs *regs, unsigned long error_code,
			  unsigned long address);
bool kmemcheck_debug_trap(struct pt_regs *regs);
void __kmemcheck_exception(struct pt_regs *regs);
bool kmemcheck_step_irqs_on(const struct pt_regs *regs);
void __kmemcheck_fault_exit(struct pt_regs *regs, bool rcu_idle);
bool kmemcheck_arch_page_in_step(unsigned long addr);
bool kmemcheck_early_fault(struct pt_regs *regs, unsigned long error_code,
			   unsigned long address);
unsigned int kmemcheck_arch_save_stack(unsigned long *entries,
				       unsigned int max, unsigned int skip);
#if IS_ENABLED(CONFIG_KMEMCHECK_KUNIT_TEST)
extern void (*kmemcheck_test_push_hook)(void);
#endif

/*
 * An exception other than a page fault, about to be fixed up or to oops:
 * if it cut one of kmemcheck's steps short, cancel the step.
 */
static __always_inline void kmemcheck_exception(struct pt_regs *regs)
{
	if (kmemcheck_enabled())
		__kmemcheck_exception(regs);
}

/*
 * From the #DB handler, whose DR6 is @dr6: complete the single-step
 * kmemcheck set up to check a memory access, if this trap is one, and
 * consume it.  The step ran with IF clear, so the page fault left lockdep
 * with interrupts off; IF back on is what the code we return to expects.
 * Return: true if lockdep must be told, on the way out, that they are on.
 */
static __always_inline bool kmemcheck_debug(struct pt_regs *regs,
					    unsigned long *dr6)
{
	bool irqs_off;

	if (!(*dr6 & DR_STEP) || !kmemcheck_enabled())
		return false;
	irqs_off = regs_irqs_disabled(regs);
	if (!kmemcheck_debug_trap(regs))
		return false;
	*dr6 &= ~DR_STEP;
	return irqs_off && !regs_irqs_disabled(regs);
}

/*
 * After irqentry_exit() of a page fault, whose state.exit_rcu is
 * @rcu_idle: lockdep sees interrupts on while a step runs where the code
 * has them on.
 */
static __always_inline void kmemcheck_fault_exit(struct pt_regs *regs,
						 bool rcu_idle)
{
	if (kmemcheck_enabled())
		__kmemcheck_fault_exit(regs, rcu_idle);
}
#else
static inline void kmemcheck_exception(struct pt_regs *regs)
{
}

static inline bool kmemcheck_debug(struct pt_regs *regs, unsigned long *dr6)
{
	return false;
}

static inline void kmemcheck_fault_exit(struct pt_regs *regs, bool rcu_idle)
{
}

static inline bool kmemcheck_page_fault(struct pt_regs *regs,
					unsigned long error_code,
					unsigned long address)
{
	return false;
}

static inline bool kmemcheck_debug_trap(struct pt_regs *regs)
{
	return false;
}

static inline bool kmemcheck_early_fault(struct pt_regs *regs,
					 unsigned long error_code,
					 unsigned long address)
{
	return false;
}
#endif /* CONFIG_KMEMCHECK */

#endif /* _ASM_X86_KMEMCHECK_H */
