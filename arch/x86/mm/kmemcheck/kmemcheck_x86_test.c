// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmemcheck written in x86 instructions: suite
 * kmemcheck_x86.
 *
 * What the fault handler does itself (REP MOVS, arithmetic, the replay of
 * a cached decode), instruction by instruction, and the following of
 * values to their use (kmemcheck.follow=1) through registers, flags and
 * the stack, need given instructions, in given registers: inline assembly,
 * which the compiler neither changes nor reorders.  Each case makes its
 * bad access, or the use reported, in a site of its own, as reports are
 * printed once per site and bug type in a minute.
 *
 * The report observer, the allocation helpers and the per-case and
 * per-suite set-up are those of suite kmemcheck, in
 * mm/kmemcheck/kmemcheck_test.c (kmemcheck_test.h), and so are the
 * conventions: a case that must report names the type, the function
 * holding the faulting instruction, the size and the address of the
 * access; each has a twin that must not report.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kmemcheck.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <asm/asm.h>
#include <asm/kmemcheck.h>
#include <asm/processor-flags.h>

#include "kmemcheck.h"
#include "kmemcheck_test.h"

/* ===== The page table entry of a hidden page ===== */

/*
 * Hiding and showing a page flips its present bit and kmemcheck's mark,
 * nothing else: the PFN reads the same (with PAE, through the L1TF
 * inversion of a not-present PTE's PFN bits), and _PAGE_NX (bit 63 with
 * PAE) stays as the direct map has it, set where the CPU has NX.
 */
static void test_hide_keeps_pte(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL, 0);
	unsigned long addr = (unsigned long)p;
	unsigned long pfn = page_to_pfn(virt_to_page(p));
	pte_t *pte = kmemcheck_arch_pte(addr);
	pteval_t hidden, shown;

	KUNIT_ASSERT_NOT_NULL(test, pte);
	KUNIT_ASSERT_TRUE(test, kmemcheck_arch_page_hidden(addr));
	hidden = pte_val(*pte);
	KUNIT_ASSERT_TRUE(test, kmemcheck_arch_show_page(addr));
	shown = pte_val(*pte);
	KUNIT_ASSERT_TRUE(test, kmemcheck_arch_hide_page(addr));
	KUNIT_EXPECT_EQ(test, pte_val(*pte), hidden);
	KUNIT_EXPECT_EQ(test, (hidden ^ shown) & ~PTE_PFN_MASK,
			_PAGE_PRESENT | _PAGE_KMEMCHECK);
	KUNIT_EXPECT_EQ(test, shown & _PAGE_NX, __supported_pte_mask & _PAGE_NX);
	KUNIT_EXPECT_EQ(test, pte_pfn(__pte(hidden)), pfn);
	KUNIT_EXPECT_EQ(test, pte_pfn(__pte(shown)), pfn);
	EXPECT_NO_REPORT(test);
}

/* ===== Instruction fetches ===== */

/* movl 4(%eax), %eax; ret: a load of 4 bytes after the code itself. */
static const u8 test_code_load[] = { 0x8b, 0x40, 0x04, 0xc3 };

/*
 * A call into a hidden page is an instruction fetch, never emulated nor
 * stepped: kmemcheck shows the page and the code runs as it would without
 * kmemcheck.  Its load of never written bytes is then not checked: were
 * the fetched instruction decoded and emulated, as it once was, it would
 * be reported.  With NX the call oopses instead (boot scenarios
 * nx-fetch-1 and nx-fetch-0, on the pae config).
 */
static void test_fetch_not_emulated(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL, 0);
	unsigned long (*fn)(const void *p);

	if (__supported_pte_mask & _PAGE_NX)
		kunit_skip(test, "tracked pages are not executable with NX");
	memcpy(p, test_code_load, sizeof(test_code_load));
	KUNIT_ASSERT_TRUE(test, kmemcheck_arch_page_hidden((unsigned long)p));
	fn = (void *)p;
	OPTIMIZER_HIDE_VAR(fn);
	fn(p);
	EXPECT_NO_REPORT(test);
	KUNIT_EXPECT_TRUE(test, kmemcheck_arch_page_present((unsigned long)p));
}

/* The same load from kernel text is checked, and the page stays hidden. */
static void test_fetch_twin_load(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL, 0);

	memcpy(p, test_code_load, sizeof(test_code_load));
	READ_ONCE(*(u32 *)(p + 4));
	EXPECT_REPORT(test, UNINIT, test_fetch_twin_load, 4, p + 4);
	KUNIT_EXPECT_TRUE(test, kmemcheck_arch_page_hidden((unsigned long)p));
}

/* ===== Copies ===== */

/*
 * A REP MOVSB of the test's own to a stack buffer: no use of the bytes,
 * which are followed from there (test_stack_copy_*() use them).
 */
static noinline void test_movsb_stack(struct kunit *test, bool follow)
{
	u8 *src = kmemcheck_test_alloc(test, 16, GFP_KERNEL);
	u8 buf[16] __aligned(16);
	void *s = src, *d = buf;
	size_t n = sizeof(buf);

	WRITE_ONCE(kmemcheck_follow, follow);
	WRITE_ONCE(src[0], 1);
	asm volatile("rep movsb"
		     : "+S" (s), "+D" (d), "+c" (n)
		     : : "memory");
	if (follow)
		EXPECT_NO_REPORT(test);
	else if (kmemcheck_may_emulate())
		EXPECT_REPORT(test, UNINIT, test_movsb_stack, sizeof(buf), src,
			      buf, &src[1]);
	else
		EXPECT_REPORT(test, UNINIT, test_movsb_stack, 1, &src[1],
			      &buf[1]);
}

static void test_init_movsb_stack(struct kunit *test)
{
	test_movsb_stack(test, true);
}

/* With kmemcheck.follow=0 the copy is the use, as into a global. */
static void test_uninit_movsb_stack_nofollow(struct kunit *test)
{
	test_movsb_stack(test, false);
}

/* Copying freed bytes is the use-after-free; they arrive uninitialized. */
static void test_uaf_movsb(struct kunit *test)
{
	u8 *src = kmalloc(256, GFP_KERNEL);
	u8 *dst = kmemcheck_test_alloc(test, 16, GFP_KERNEL);
	void *s = src, *d = dst;
	size_t n = 16;

	KUNIT_ASSERT_NOT_NULL(test, src);
	memset(src, 1, 16);
	kfree(src);
	asm volatile("rep movsb"
		     : "+S" (s), "+D" (d), "+c" (n)
		     : : "memory");
	EXPECT_REPORT(test, UAF, test_uaf_movsb,
		      kmemcheck_test_rep_chunk(16, 1), src);
	kmemcheck_test_expect_shadow(test, dst, 16,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
}

static void test_init_movsb(struct kunit *test)
{
	u8 *src = kmemcheck_test_alloc(test, 16, GFP_KERNEL | __GFP_ZERO);
	u8 *dst = kmemcheck_test_alloc(test, 16, GFP_KERNEL);
	void *s = src, *d = dst;
	size_t n = 16;

	asm volatile("rep movsb"
		     : "+S" (s), "+D" (d), "+c" (n)
		     : : "memory");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_shadow(test, dst, 16,
				     KMEMCHECK_SHADOW_INITIALIZED);
}

/* ===== Arithmetic done in the fault handler ===== */

#define TEST_ALU_FLAGS	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_OF)

/*
 * Define test_alu_<name>(), which runs @insn with %[m] the u32 at @m, %[r]
 * %eax, holding *@eax, and %[s] another register, holding @src, after STC
 * (INC and DEC must keep CF), and returns the arithmetic flags it left.
 */
#define TEST_ALU(name, insn)						\
static unsigned long test_alu_##name(u32 *m, unsigned long *eax,	\
				     unsigned long src)			\
{									\
	unsigned long flags;						\
									\
	asm volatile("stc\n\t" insn "\n\t"				\
		     "pushfl\n\t"					\
		     "popl %[f]"					\
		     : [m] "+m" (*m), [r] "+a" (*eax), [f] "=r" (flags)	\
		     : [s] "q" (src) : "cc");				\
	return flags & TEST_ALU_FLAGS;					\
}

TEST_ALU(add_to_mem, "addl %[s], %[m]")
TEST_ALU(add_to_reg, "addl %[m], %[r]")
TEST_ALU(or_byte, "orb %b[r], %[m]")
TEST_ALU(and_word, "andw %w[r], %[m]")
TEST_ALU(sub_to_reg, "subl %[m], %[r]")
TEST_ALU(xor, "xorl %[r], %[m]")
TEST_ALU(cmp_mem_reg, "cmpl %[r], %[m]")
TEST_ALU(cmp_reg_mem, "cmpl %[m], %[r]")
TEST_ALU(test, "testl %[r], %[m]")
TEST_ALU(test_imm_byte, "testb $0x80, %[m]")
TEST_ALU(add_imm8, "addl $-3, %[m]")
TEST_ALU(cmp_imm_word, "cmpw $0x1234, %[m]")
TEST_ALU(and_imm, "andl $0x0f0f0f0f, %[m]")
TEST_ALU(inc, "incl %[m]")
TEST_ALU(dec_byte, "decb %[m]")
TEST_ALU(xadd, "xaddl %[r], %[m]")
TEST_ALU(xchg, "xchgl %[r], %[m]")
TEST_ALU(cmpxchg, "lock cmpxchgl %[s], %[m]")
TEST_ALU(cmpxchg_byte, "lock cmpxchgb %b[s], %[m]")
/* LOCK_PREFIX as the alternatives leave it on one CPU: %ds. */
TEST_ALU(ds_xadd, ".byte 0x3e\n\txaddl %[r], %[m]")
TEST_ALU(ds_cmpxchg, ".byte 0x3e\n\tcmpxchgl %[s], %[m]")

static const struct test_alu_case {
	const char *name;
	unsigned long (*run)(u32 *m, unsigned long *eax, unsigned long src);
	u32 mem;
	unsigned long eax, src;
	bool no_flags;		/* sets none: they are what they were */
} test_alu_cases[] = {
	{ "add to memory", test_alu_add_to_mem, 0x7fffffff, 0, 1 },
	{ "add to a register", test_alu_add_to_reg, 0xfffffff0, 0x20, 0 },
	{ "or byte", test_alu_or_byte, 0x12345600, 0x80, 0 },
	{ "and word", test_alu_and_word, 0xffff00ff, 0xf0f0, 0 },
	{ "sub from a register", test_alu_sub_to_reg, 5, 3, 0 },
	{ "xor", test_alu_xor, 0x5a5a5a5a, 0x5a5a5a5a, 0 },
	{ "cmp memory, register", test_alu_cmp_mem_reg, 1, 2, 0 },
	{ "cmp register, memory", test_alu_cmp_reg_mem, 1, 2, 0 },
	{ "test", test_alu_test, 0xf0, 0x0f, 0 },
	{ "test byte, immediate", test_alu_test_imm_byte, 0x80, 0, 0 },
	{ "add sign-extended imm8", test_alu_add_imm8, 2, 0, 0 },
	{ "cmp word, immediate", test_alu_cmp_imm_word, 0xffff1234, 0, 0 },
	{ "and immediate", test_alu_and_imm, 0xf0f0f0f0, 0, 0 },
	{ "inc", test_alu_inc, 0xffffffff, 0, 0 },
	{ "dec byte", test_alu_dec_byte, 0x100, 0, 0 },
	{ "xadd", test_alu_xadd, 40, 2, 0 },
	{ "xchg", test_alu_xchg, 1, 2, 0, true },
	{ "cmpxchg that swaps", test_alu_cmpxchg, 7, 7, 9 },
	{ "cmpxchg that fails", test_alu_cmpxchg, 7, 8, 9 },
	{ "cmpxchg byte", test_alu_cmpxchg_byte, 0x107, 7, 9 },
	{ "xadd after %ds", test_alu_ds_xadd, 40, 2, 0 },
	{ "cmpxchg after %ds", test_alu_ds_cmpxchg, 7, 7, 9 },
};

/*
 * Run a case on a u32 of a hidden tracked page, and on one of the stack,
 * and expect the same memory, %eax and flags.  Unless kmemcheck.fastpath=0
 * the fault handler does the instruction itself, with no single-step:
 * expect that too.  Interrupts are off, so that the counters move for
 * this instruction only.
 */
static void expect_alu_same(struct kunit *test, u32 *p,
			    const struct test_alu_case *c, bool replay)
{
	unsigned long eax = c->eax, local_eax = c->eax, flags, local_flags;
	long emulated, steps, replayed;
	unsigned long irq;
	u32 local = c->mem;

	WRITE_ONCE(*p, c->mem);
	local_irq_save(irq);
	emulated = kmemcheck_test_counter(KMEMCHECK_COUNTER_EMULATED);
	steps = kmemcheck_test_counter(KMEMCHECK_COUNTER_STEPS);
	replayed = kmemcheck_test_counter(KMEMCHECK_COUNTER_REPLAYED);
	flags = c->run(p, &eax, c->src);
	emulated = kmemcheck_test_counter(KMEMCHECK_COUNTER_EMULATED) -
		   emulated;
	steps = kmemcheck_test_counter(KMEMCHECK_COUNTER_STEPS) - steps;
	replayed = kmemcheck_test_counter(KMEMCHECK_COUNTER_REPLAYED) -
		   replayed;
	local_irq_restore(irq);
	local_flags = c->run(&local, &local_eax, c->src);

	KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(*p), local, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, eax, local_eax, "%s: %%eax", c->name);
	if (!c->no_flags)
		KUNIT_EXPECT_EQ_MSG(test, flags, local_flags, "%s: flags",
				    c->name);
	if (kmemcheck_may_emulate()) {
		KUNIT_EXPECT_EQ_MSG(test, emulated, 1, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, steps, 0, "%s", c->name);
		if (replay)
			KUNIT_EXPECT_EQ_MSG(test, replayed, 1, "%s replayed",
					    c->name);
	}
}

/* Every form the fault handler does itself gives what the CPU gives. */
static void test_init_alu_emulated(struct kunit *test)
{
	/* The second word stays uninitialized: the page stays hidden. */
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	unsigned int i;

	/*
	 * The second run of each is replayed before the fault entry, from
	 * the decode the first one kept.
	 */
	for (i = 0; i < ARRAY_SIZE(test_alu_cases); i++) {
		expect_alu_same(test, p, &test_alu_cases[i], false);
		expect_alu_same(test, p, &test_alu_cases[i], true);
	}
	EXPECT_NO_REPORT(test);
}

/* ===== The early fault path: MOVs replayed from a cached decode ===== */

/* One MOV each, at one address for every call. */
static noinline u32 test_replay_load(const u32 *p)
{
	return READ_ONCE(*p);
}

static noinline void test_replay_store(u32 *p, u32 v)
{
	WRITE_ONCE(*p, v);
}

/*
 * A store to a fresh object, through an instruction the fault handler has
 * seen before: replayed, one fault and no step, and the bytes initialized.
 */
static void test_init_replayed_store(struct kunit *test)
{
	u32 *a = kmemcheck_test_alloc(test, 16, GFP_KERNEL);
	u32 *b = kmemcheck_test_alloc(test, 16, GFP_KERNEL);
	long faults, replayed;
	unsigned long irq;

	/* The first fault there decodes the store, and keeps it. */
	test_replay_store(&a[0], 1);
	local_irq_save(irq);
	faults = kmemcheck_test_counter(KMEMCHECK_COUNTER_FAULTS);
	replayed = kmemcheck_test_counter(KMEMCHECK_COUNTER_REPLAYED);
	test_replay_store(&b[0], 2);
	faults = kmemcheck_test_counter(KMEMCHECK_COUNTER_FAULTS) - faults;
	replayed = kmemcheck_test_counter(KMEMCHECK_COUNTER_REPLAYED) -
		   replayed;
	local_irq_restore(irq);

	KUNIT_EXPECT_EQ(test, faults, 1);
	KUNIT_EXPECT_EQ(test, replayed, kmemcheck_may_emulate() ? 1 : 0);
	kmemcheck_test_expect_shadow(test, &b[0], 4,
				     KMEMCHECK_SHADOW_INITIALIZED);
	kmemcheck_test_expect_shadow(test, &b[1], 12,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	KUNIT_EXPECT_EQ(test, test_replay_load(&b[0]), 2);
	KUNIT_EXPECT_EQ(test, test_replay_load(&a[0]), 1);
	EXPECT_NO_REPORT(test);
}

/*
 * A load of uninitialized bytes through an instruction whose decode is
 * kept: not replayed, but reported as at any other load.
 */
static void test_uninit_replayed_load(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	test_replay_store(&p[0], 1);
	KUNIT_EXPECT_EQ(test, test_replay_load(&p[0]), 1);
	KUNIT_EXPECT_EQ(test, test_replay_load(&p[0]), 1);
	EXPECT_NO_REPORT(test);
	test_replay_load(&p[2]);
	EXPECT_REPORT(test, UNINIT, test_replay_load, 4, &p[2]);
}

static noinline void test_replay_add(u32 *p)
{
	asm volatile("lock addl $1, %0" : "+m" (*p));
}

/*
 * Arithmetic is replayed only on initialized memory: on uninitialized
 * bytes, through the same instruction, it is reported.
 */
static void test_uninit_replayed_alu(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	test_replay_store(&p[0], 1);
	test_replay_add(&p[0]);
	test_replay_add(&p[0]);
	KUNIT_EXPECT_EQ(test, test_replay_load(&p[0]), 3);
	EXPECT_NO_REPORT(test);
	test_replay_add(&p[2]);
	EXPECT_REPORT(test, UNINIT, test_replay_add, 4, &p[2]);
}

/* The register forms the replay decodes itself: %ah-%bh, 16 bits, extended. */
static noinline void test_replay_store_ah(u8 *p, u32 v)
{
	asm volatile("movb %%ah, %0" : "=m" (*p) : "a" (v));
}

static noinline u32 test_replay_load_bh(const u8 *p, u32 v)
{
	asm volatile("movb %1, %%bh" : "+b" (v) : "m" (*p));
	return v;
}

static noinline void test_replay_store_u16(u16 *p, u16 v)
{
	WRITE_ONCE(*p, v);
}

static noinline void test_replay_store_imm(u32 *p)
{
	WRITE_ONCE(*p, 0x5a5a1234);
}

static noinline s32 test_replay_load_s8(const s8 *p)
{
	return READ_ONCE(*p);
}

static noinline u32 test_replay_load_u16(const u16 *p)
{
	return READ_ONCE(*p);
}

/*
 * Each form twice, on objects whose last word stays uninitialized (so
 * their page stays hidden): the first fault decodes, the second replays
 * the decode kept.  Both must give what the CPU gives, and leave the
 * shadow right.
 */
static void test_init_replayed_forms(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		u8 *p = kmemcheck_test_alloc(test, 32, GFP_KERNEL);

		test_replay_store_ah(&p[0], 0x1234);
		test_replay_store_u16((u16 *)&p[2], 0xbeef);
		test_replay_store_imm((u32 *)&p[4]);
		test_replay_store_ah(&p[8], 0x80ff);
		KUNIT_EXPECT_EQ(test, READ_ONCE(p[0]), 0x12);
		KUNIT_EXPECT_EQ(test, test_replay_load_bh(&p[0], 0xaabbccdd),
				0xaabb12dd);
		KUNIT_EXPECT_EQ(test, test_replay_load_u16((u16 *)&p[2]),
				0xbeef);
		KUNIT_EXPECT_EQ(test, READ_ONCE(*(u32 *)&p[4]), 0x5a5a1234);
		KUNIT_EXPECT_EQ(test, test_replay_load_s8((s8 *)&p[8]), -128);
		kmemcheck_test_expect_shadow(test, &p[0], 1,
					     KMEMCHECK_SHADOW_INITIALIZED);
		kmemcheck_test_expect_shadow(test, &p[1], 1,
					     KMEMCHECK_SHADOW_UNINITIALIZED);
		kmemcheck_test_expect_shadow(test, &p[2], 7,
					     KMEMCHECK_SHADOW_INITIALIZED);
		kmemcheck_test_expect_shadow(test, &p[9], 23,
					     KMEMCHECK_SHADOW_UNINITIALIZED);
	}
	EXPECT_NO_REPORT(test);
}

/* ===== Arithmetic and compares on memory ===== */

/* An ADD to memory reads it first. */
static void test_uninit_add_imm(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	asm volatile("addl $1, %0" : "+m" (*p) : : "cc");
	EXPECT_REPORT(test, UNINIT, test_uninit_add_imm, 4, p);
	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_INITIALIZED);
}

static void test_init_add_imm(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	WRITE_ONCE(*p, 1);
	asm volatile("addl $1, %0" : "+m" (*p) : : "cc");
	KUNIT_EXPECT_EQ(test, READ_ONCE(*p), 2);
	EXPECT_NO_REPORT(test);
}

/* A CMP of a byte reads that byte only. */
static void test_uninit_cmp_byte(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	bool zero;

	WRITE_ONCE(p[0], 0);
	asm volatile("cmpb $0, %1\n\tsete %0"
		     : "=q" (zero) : "m" (p[1]) : "cc");
	EXPECT_REPORT(test, UNINIT, test_uninit_cmp_byte, 1, p + 1);
}

static void test_init_cmp_byte(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	bool zero;

	WRITE_ONCE(p[0], 0);
	asm volatile("cmpb $0, %1\n\tsete %0"
		     : "=q" (zero) : "m" (p[0]) : "cc");
	KUNIT_EXPECT_TRUE(test, zero);
	EXPECT_NO_REPORT(test);
}

/* ===== SETcc, PUSH and POP ===== */

/* SETE writes one byte: that byte only becomes initialized. */
static void test_init_setcc(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	asm volatile("cmpl %%eax, %%eax\n\tsete (%0)"
		     : : "r" (p) : "memory", "cc");
	kmemcheck_test_expect_shadow(test, p, 1, KMEMCHECK_SHADOW_INITIALIZED);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*p), 1);
	EXPECT_NO_REPORT(test);
}

static void test_uninit_setcc_neighbour(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	asm volatile("cmpl %%eax, %%eax\n\tsete (%0)"
		     : : "r" (p) : "memory", "cc");
	READ_ONCE(*(u16 *)p);
	EXPECT_REPORT(test, UNINIT, test_uninit_setcc_neighbour, 2, p,
		      .bad = p + 1);
}

static void test_uninit_push(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);
	u32 v;

	asm volatile("pushl (%1)\n\tpopl %0" : "=r" (v) : "r" (p) : "memory");
	EXPECT_REPORT(test, UNINIT, test_uninit_push, 4, p);
}

static void test_init_pop(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	asm volatile("pushl $7\n\tpopl (%0)" : : "r" (p) : "memory");
	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_INITIALIZED);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*p), 7);
	EXPECT_NO_REPORT(test);
}

/* ===== Following values to their use (kmemcheck.follow=1) ===== */

/* Untracked memory: a store of undefined bits there is a use. */
static u32 test_global;
static const u32 test_table[4] = { 1, 2, 3, 4 };

/*
 * Four bytes read where only the first two were written, as GCC reads a
 * short with its padding, and only %ax stored: the correct C of a 16-bit
 * field copy.  Not reported; the two bytes stored are initialized.
 */
static void test_follow_wide_load(struct kunit *test)
{
	u16 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u16 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	kmemcheck_test_follow_on(test);
	WRITE_ONCE(p[0], 1);
	asm volatile("movl (%1), %0\n\tmovw %w0, (%2)"
		     : "=&r" (v) : "r" (p), "r" (q) : "memory");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
	kmemcheck_test_expect_shadow(test, q, 2, KMEMCHECK_SHADOW_INITIALIZED);
	kmemcheck_test_expect_shadow(test, q + 1, 2,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
}

/* The same read with kmemcheck.follow=0: reported at the read. */
static void test_follow_off_reports_load(struct kunit *test)
{
	u16 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u16 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	WRITE_ONCE(kmemcheck_follow, false);
	WRITE_ONCE(p[0], 1);
	asm volatile("movl (%1), %0\n\tmovw %w0, (%2)"
		     : "=&r" (v) : "r" (p), "r" (q) : "memory");
	EXPECT_REPORT(test, UNINIT, test_follow_off_reports_load, 4, p,
		      .bad = p + 1);
}

/* A branch on uninitialized bits: reported at the branch, not the read. */
static void test_follow_branch(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	kmemcheck_test_follow_on(test);
	asm volatile("movl (%1), %0\n\ttestl %0, %0\n\tjz 1f\n\tnop\n1:"
		     : "=&r" (v) : "r" (p) : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_branch, 4, p,
		      .use = USE_BRANCH, .loaded = test_follow_branch,
		      .origin = test_follow_branch);
}

/*
 * The report shows the bytes around the first bad one (no_hash_pointers):
 * four written, then the carets under the fifth, never written.  Its twin
 * writes all eight.
 */
static noinline void test_branch_on(const void *p)
{
	asm volatile("movl (%0), %%eax\n\ttestl %%eax, %%eax\n\tjz 1f\n\tnop\n"
		     "1:\txorl %%eax, %%eax" : : "r" (p) : "eax", "memory", "cc");
}

static void test_report_memory_dump(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	if (!no_hash_pointers)
		kunit_skip(test, "the bytes are shown with no_hash_pointers");
	memcpy(p, "\xde\xad\xbe\xef", 4);
	kmemcheck_test_follow_on(test);
	test_branch_on(p + 4);
	EXPECT_REPORT(test, UNINIT, test_branch_on, 4, p + 4,
		      .use = USE_BRANCH, .memory = "de ad be ef");
}

static void test_report_memory_dump_init(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	memcpy(p, "\xde\xad\xbe\xef\x01\x02\x03\x04", 8);
	kmemcheck_test_follow_on(test);
	test_branch_on(p + 4);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* A branch on the defined bits of a partly uninitialized word. */
static void test_follow_branch_masked(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	kmemcheck_test_follow_on(test);
	WRITE_ONCE(p[0], 1);
	asm volatile("movl (%1), %0\n\tandl $0xff, %0\n\tjz 1f\n\tnop\n1:"
		     : "=&r" (v) : "r" (p) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* An index with uninitialized bits: reported at the access it selects. */
static void test_follow_address(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v, w;

	kmemcheck_test_follow_on(test);
	asm volatile("movl (%2), %0\n\tandl $3, %0\n\tmovl (%3,%0,4), %1"
		     : "=&r" (v), "=&r" (w) : "r" (p), "r" (test_table)
		     : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_address, 4, p,
		      .use = USE_ADDRESS, .loaded = test_follow_address);
}

/*
 * The NOPs the alternatives patch in, "nopl 0(%eax,%eax,1)", and the
 * prefetches touch no memory: an undefined index there is no address.
 */
static void test_follow_address_nop(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	kmemcheck_test_follow_on(test);
	asm volatile("movl (%1), %0\n\t"
		     "nopl 0(%0,%0,1)\n\tprefetcht0 (%0)\n\t"
		     "xorl %0, %0"
		     : "=&r" (v) : "r" (p) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_address_defined(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v, w;

	kmemcheck_test_follow_on(test);
	asm volatile("movl (%2), %0\n\tandl $0, %0\n\tmovl (%3,%0,4), %1"
		     : "=&r" (v), "=&r" (w) : "r" (p), "r" (test_table)
		     : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* Uninitialized bits stored where kmemcheck cannot follow them: a use. */
static void test_follow_store_global(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	kmemcheck_test_follow_on(test);
	asm volatile("movl (%1), %0\n\tmovl %0, %2"
		     : "=&r" (v) : "r" (p), "m" (test_global) : "memory");
	EXPECT_REPORT(test, UNINIT, test_follow_store_global, 4, p,
		      .use = USE_STORE, .loaded = test_follow_store_global);
}

/* ... and stored to tracked memory: they stay uninitialized there. */
static void test_follow_store_tracked(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	kmemcheck_test_follow_on(test);
	WRITE_ONCE(q[1], 0);
	asm volatile("movl (%1), %0\n\tmovl %0, (%2)"
		     : "=&r" (v) : "r" (p), "r" (q) : "memory");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
	kmemcheck_test_expect_shadow(test, q, 4,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	kmemcheck_test_expect_shadow(test, q + 1, 4,
				     KMEMCHECK_SHADOW_INITIALIZED);
}

/* An uninitialized counter incremented in place is a bug... */
static void test_follow_counter(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	asm volatile("addl $1, (%0)" : : "r" (p) : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_counter, 4, p,
		      .use = USE_ARITH, .loaded = test_follow_counter);
}

/* ... a flag set in place, next to bits nobody set yet, is not. */
static void test_follow_flag_set(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	asm volatile("orl $1, (%0)" : : "r" (p) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* A value spilled to the stack and reloaded is still followed. */
static void test_follow_spill(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v, w;

	kmemcheck_test_follow_on(test);
	asm volatile("movl (%2), %0\n\tpushl %0\n\tpopl %1\n\t"
		     "testl %1, %1\n\tjz 1f\n\tnop\n1:"
		     : "=&r" (v), "=&r" (w) : "r" (p) : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_spill, 4, p,
		      .use = USE_BRANCH, .loaded = test_follow_spill);
}

static void test_follow_spill_masked(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v, w;

	kmemcheck_test_follow_on(test);
	WRITE_ONCE(p[0], 1);
	/*
	 * %0 dies undefined: cleared here, as the compiler may keep it in
	 * a register nothing overwrites before the bound.
	 */
	asm volatile("movl (%2), %0\n\tpushl %0\n\tpopl %1\n\t"
		     "xorl %0, %0\n\t"
		     "movzbl %b1, %1\n\ttestl %1, %1\n\tjz 1f\n\tnop\n1:"
		     : "=&r" (v), "=&q" (w) : "r" (p) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* SETcc on flags computed from uninitialized bits. */
static void test_follow_setcc(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u8 v;

	kmemcheck_test_follow_on(test);
	asm volatile("cmpb $0, (%1)\n\tsete %0"
		     : "=q" (v) : "r" (p) : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_setcc, 1, p,
		      .use = USE_SELECT, .loaded = test_follow_setcc);
}

static void test_follow_setcc_defined(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u8 v;

	kmemcheck_test_follow_on(test);
	WRITE_ONCE(p[0], 0);
	asm volatile("cmpb $0, (%1)\n\tsete %0"
		     : "=q" (v) : "r" (p) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * A structure copied through a register, padding and all, then copied to
 * user space: the padding is a kernel-infoleak at the copy, the fields
 * are not.
 */
static void test_follow_padding_to_user(struct kunit *test)
{
	u8 __user *user = kmemcheck_test_user_buffer(test, PAGE_SIZE);
	u16 *src = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u16 *dst = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	kmemcheck_test_follow_on(test);
	WRITE_ONCE(src[0], 7);
	asm volatile("movl (%1), %0\n\tmovl %0, (%2)"
		     : "=&r" (v) : "r" (src), "r" (dst) : "memory");
	EXPECT_NO_REPORT(test);
	KUNIT_EXPECT_EQ(test, copy_to_user(user, dst, 2), 0);
	EXPECT_NO_REPORT(test);
	KUNIT_EXPECT_EQ(test, copy_to_user(user, dst, 4), 0);
	EXPECT_REPORT(test, INFOLEAK, test_follow_padding_to_user, 4, dst,
		      (__force const void *)user, dst + 1,
		      .user = (unsigned long)user);
}

/* An argument passed in a register is not a use; a branch on it is. */
static noinline int test_follow_callee(u32 arg)
{
	/* A branch for sure: GCC may compute "arg ? 1 : 2" with SBB. */
	asm volatile("testl %0, %0\n\tjz 1f\n\tnop\n1:"
		     : : "r" (arg) : "cc");
	return 1;
}

static noinline int test_follow_ignores(u32 arg)
{
	return 3;
}

static void test_follow_call(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	int (*fn)(u32 arg) = test_follow_ignores;
	u32 v;

	kmemcheck_test_follow_on(test);
	OPTIMIZER_HIDE_VAR(fn);
	asm volatile("movl (%1), %0" : "=&r" (v) : "r" (p) : "memory");
	KUNIT_EXPECT_EQ(test, fn(v), 3);
	EXPECT_NO_REPORT(test);

	fn = test_follow_callee;
	OPTIMIZER_HIDE_VAR(fn);
	asm volatile("movl (%1), %0" : "=&r" (v) : "r" (p) : "memory");
	fn(v);
	EXPECT_REPORT(test, UNINIT, test_follow_callee, 4, p,
		      .use = USE_BRANCH, .loaded = test_follow_call);
}

/* A freed object is reported at the read, whether following or not. */
static void test_follow_uaf_at_read(struct kunit *test)
{
	u32 *p, v;

	if (!kmemcheck_fastpath_objects() || !kmemcheck_quarantine_length())
		kunit_skip(test, "needs kmemcheck.fastpath=2 and a quarantine");
	p = kmalloc(8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kmemcheck_test_follow_on(test);
	WRITE_ONCE(p[0], 1);
	kfree(p);
	asm volatile("movl (%1), %0" : "=&r" (v) : "r" (p) : "memory");
	EXPECT_REPORT(test, UAF, test_follow_uaf_at_read, 4, p);
}

/*
 * A constructor that sets a short and leaves the padding after it, as
 * sock_alloc_inode()'s cache does with socket->type.
 */
static void test_ctor_short(void *object)
{
	*(u16 *)object = 1;
}

/*
 * GCC loads the short as a word, padding included, and stores %ax: the
 * padding the constructor never wrote is not used, in any fast path mode.
 */
static void test_follow_ctor_padding(struct kunit *test)
{
	struct kmem_cache *c = kmemcheck_test_cache_create(test, 8, 0,
							   test_ctor_short);
	u16 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u16 *p = kmem_cache_alloc(c, GFP_KERNEL);
	u32 v;

	KUNIT_ASSERT_NOT_NULL(test, p);
	kmemcheck_test_follow_on(test);
	asm volatile("movl (%1), %0\n\tmovw %w0, (%2)"
		     : "=&r" (v) : "r" (p), "r" (q) : "memory");
	kmem_cache_free(c, p);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * ... a test of the padding is a use of it, unless kmemcheck.fastpath=2
 * lets constructors write unseen: then bytes they did not write count as
 * initialized.  (A test of the whole word is decided by the short, 1.)
 */
static void test_follow_ctor_padding_used(struct kunit *test)
{
	struct kmem_cache *c = kmemcheck_test_cache_create(test, 8, 0,
							   test_ctor_short);
	u16 *p = kmem_cache_alloc(c, GFP_KERNEL);
	u32 v;

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (kmemcheck_fastpath_objects()) {
		kmem_cache_free(c, p);
		kunit_skip(test, "kmemcheck.fastpath=2 trusts constructors");
	}
	kmemcheck_test_follow_on(test);
	asm volatile("movl (%1), %0\n\ttestl $0xffff0000, %0\n\tjz 1f\n\tnop\n1:"
		     : "=&r" (v) : "r" (p) : "memory", "cc");
	kmem_cache_free(c, p);
	EXPECT_REPORT(test, UNINIT, test_follow_ctor_padding_used, 4, p,
		      .use = USE_BRANCH, .bad = p + 1);
}

/* ===== Bits of partly initialized bytes (kmemcheck.follow=1) ===== */

/* Which bits of the byte at @addr kmemcheck knows are initialized. */
static u8 test_defined_bits(struct kunit *test, const void *addr)
{
	u8 *shadow = kmemcheck_shadow_of((unsigned long)addr);

	KUNIT_ASSERT_NOT_NULL(test, shadow);
	if (kmemcheck_shadow_state(shadow) == KMEMCHECK_SHADOW_INITIALIZED)
		return 0xff;
	return kmemcheck_partial_defined(shadow);
}

/*
 * A bitfield set in a fresh object, as "x->flag = 1" compiles, then
 * tested: the test reads only the bit that was set.  LOCK or not, the
 * read-modify-write is no use of the other bits.
 */
static void test_follow_bitfield_test(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	asm volatile("lock orb $4, (%0)" : : "r" (p) : "memory", "cc");
	asm volatile("testb $4, (%0)\n\tjz 1f\n\tnop\n1:"
		     : : "r" (p) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
	kmemcheck_test_expect_shadow(test, p, 1,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	KUNIT_EXPECT_EQ(test, test_defined_bits(test, p), 4);
	KUNIT_EXPECT_GT(test, atomic_long_read(&kmemcheck_counters
						[KMEMCHECK_COUNTER_PARTIAL_PAGES]), 0);
}

/* ... a test of a bit nobody set is a use, reported at the branch. */
static void test_follow_bitfield_other(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	asm volatile("orb $4, (%0)" : : "r" (p) : "memory", "cc");
	asm volatile("testb $8, (%0)\n\tjz 1f\n\tnop\n1:"
		     : : "r" (p) : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_bitfield_other, 1, p,
		      .use = USE_BRANCH, .loaded = test_follow_bitfield_other);
}

/*
 * A bit cleared in place ("x->flag = 0"), the byte then loaded into a
 * register and the bit tested there.
 */
static void test_follow_bit_cleared(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	kmemcheck_test_follow_on(test);
	asm volatile("andb $0xfe, (%0)" : : "r" (p) : "memory", "cc");
	asm volatile("movzbl (%1), %0\n\ttestl $1, %0\n\tjz 1f\n\tnop\n1:"
		     : "=&r" (v) : "r" (p) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
	KUNIT_EXPECT_EQ(test, test_defined_bits(test, p), 1);
}

static void test_follow_bit_cleared_other(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;

	kmemcheck_test_follow_on(test);
	asm volatile("andb $0xfe, (%0)" : : "r" (p) : "memory", "cc");
	asm volatile("movzbl (%1), %0\n\ttestl $2, %0\n\tjz 1f\n\tnop\n1:"
		     : "=&r" (v) : "r" (p) : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_bit_cleared_other, 1, p,
		      .use = USE_BRANCH, .loaded = test_follow_bit_cleared_other);
}

/* BTS sets one bit of a word in place; BT reads that bit alone. */
static void test_follow_bts(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	asm volatile("lock btsl $11, (%0)" : : "r" (p) : "memory", "cc");
	asm volatile("btl $11, (%0)\n\tjnc 1f\n\tnop\n1:"
		     : : "r" (p) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
	KUNIT_EXPECT_EQ(test, test_defined_bits(test, (u8 *)p + 1), 8);
	kmemcheck_test_expect_shadow(test, p, 4,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
}

static void test_follow_bts_other(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	asm volatile("lock btsl $11, (%0)" : : "r" (p) : "memory", "cc");
	asm volatile("btl $12, (%0)\n\tjnc 1f\n\tnop\n1:"
		     : : "r" (p) : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_bts_other, 4, p,
		      .use = USE_BRANCH, .loaded = test_follow_bts_other);
}

/*
 * A structure with a bitfield copied by REP MOVSB: the bits known to be
 * initialized go with the bytes.  The CMP of a register with itself ends
 * the following of the OR, so that the copy is the fault handler's.
 */
static void test_follow_bits_copied(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u8 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	unsigned long n = 8, src = (unsigned long)p, dst = (unsigned long)q;

	kmemcheck_test_follow_on(test);
	asm volatile("orb $4, (%0)\n\tcmpl %0, %0" : : "r" (p) : "memory", "cc");
	asm volatile("rep movsb" : "+c" (n), "+S" (src), "+D" (dst) : : "memory");
	asm volatile("testb $4, (%0)\n\tjz 1f\n\tnop\n1:"
		     : : "r" (q) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
	KUNIT_EXPECT_EQ(test, test_defined_bits(test, q), 4);
}

static void test_follow_bits_copied_other(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u8 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	unsigned long n = 8, src = (unsigned long)p, dst = (unsigned long)q;

	kmemcheck_test_follow_on(test);
	asm volatile("orb $4, (%0)\n\tcmpl %0, %0" : : "r" (p) : "memory", "cc");
	asm volatile("rep movsb" : "+c" (n), "+S" (src), "+D" (dst) : : "memory");
	asm volatile("testb $1, (%0)\n\tjz 1f\n\tnop\n1:"
		     : : "r" (q) : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_bits_copied_other, 1, q,
		      .use = USE_BRANCH, .loaded = test_follow_bits_copied_other);
}

/* A store of a whole byte forgets which of its bits were known. */
static void test_follow_bits_forgotten(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	asm volatile("orb $4, (%0)\n\tcmpl %0, %0" : : "r" (p) : "memory", "cc");
	KUNIT_EXPECT_EQ(test, test_defined_bits(test, p), 4);
	kmemcheck_mark_uninitialized(p, 1);
	KUNIT_EXPECT_EQ(test, test_defined_bits(test, p), 0);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * CMPXCHG that succeeds leaves in %eax the value it compared, equal to the
 * old contents of memory: as undefined as they were.  Here the memory is
 * zero, so the exchange succeeds, but its shadow says uninitialized.
 */
static u32 *test_cmpxchg_uninit_zero(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	WRITE_ONCE(*p, 0);
	kmemcheck_mark_uninitialized(p, sizeof(*p));
	kmemcheck_test_follow_on(test);
	return p;
}

/* "if (cmpxchg(p, 0, 1) == 0)" on a fresh object: a use of its bytes. */
static void test_follow_cmpxchg_old_used(struct kunit *test)
{
	u32 *p = test_cmpxchg_uninit_zero(test);
	u32 old = 0;

	asm volatile("lock cmpxchgl %2, (%1)\n\t"
		     "testl %0, %0\n\tjz 1f\n\tnop\n1:"
		     : "+a" (old) : "r" (p), "r" (1) : "memory", "cc");
	EXPECT_REPORT(test, UNINIT, test_follow_cmpxchg_old_used, 4, p,
		      .use = USE_BRANCH, .loaded = test_follow_cmpxchg_old_used);
	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_INITIALIZED);
}

/* The old value thrown away: the store initialized the word. */
static void test_follow_cmpxchg_old_unused(struct kunit *test)
{
	u32 *p = test_cmpxchg_uninit_zero(test);
	u32 old = 0;

	asm volatile("lock cmpxchgl %2, (%1)\n\txorl %0, %0"
		     : "+a" (old) : "r" (p), "r" (1) : "memory", "cc");
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_INITIALIZED);
}

/*
 * A value live across local_irq_save() and local_irq_restore(), as in
 * every spin_lock_irqsave() section: PUSHF, CLI and POPF are modelled, so
 * the window goes on to the use.  Return: whether interrupts were on after.
 */
static noinline bool test_irqsave_then_test(u32 *p, bool mask)
{
	u32 v;

	asm volatile("movl (%1), %0\n\t"
		     "pushfl\n\tcli\n\tpopfl\n\t"
		     "testl %2, %2\n\tjz 2f\n\tandl $0, %0\n2:\t"
		     "testl %0, %0\n\tjz 1f\n\tnop\n1:"
		     : "=&r" (v) : "r" (p), "r" ((u32)mask) : "memory", "cc");
	return !irqs_disabled();
}

static void test_follow_irqsave_used(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	KUNIT_EXPECT_TRUE(test, test_irqsave_then_test(p, false));
	EXPECT_REPORT(test, UNINIT, test_irqsave_then_test, 4, p,
		      .use = USE_BRANCH, .loaded = test_irqsave_then_test);
}

static void test_follow_irqsave_masked(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	KUNIT_EXPECT_TRUE(test, test_irqsave_then_test(p, true));
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * PUSHF in a window pushes the flags of the code, interrupts on, not those
 * of the step (TF set, IF clear); CLI turns the code's interrupts off for
 * good when the window ends.  (STI ends a window: its interrupt shadow
 * must cover the next instruction.)
 */
static void test_follow_pushf_cli(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	unsigned long pushed;
	bool off;
	u32 v;

	kmemcheck_test_follow_on(test);
	asm volatile("movl (%2), %0\n\tpushfl\n\tpopl %1\n\t"
		     "cli\n\txorl %0, %0"
		     : "=&r" (v), "=&r" (pushed) : "r" (p) : "memory", "cc");
	off = irqs_disabled();
	raw_local_irq_enable();
	KUNIT_EXPECT_EQ(test, pushed & (X86_EFLAGS_TF | X86_EFLAGS_IF),
			X86_EFLAGS_IF);
	KUNIT_EXPECT_TRUE(test, off);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* ===== Where following ends, and which load a report names ===== */

/* A filter, as a netlink dump parses one into a stack local. */
struct test_filter {
	u32 table;
	u32 flags;
};

static DEFINE_SPINLOCK(test_filter_lock);

/* Work between parsing and filtering: some 2,000 instructions. */
static noinline u32 test_busy(unsigned int n)
{
	u32 sum = 0;
	unsigned int i;

	/* Volatile: the call is not dropped, though its result is. */
	for (i = 0; i < n; i++) {
		sum += i;
		asm volatile("" : "+r" (sum));
	}
	return sum;
}

/* The filter's use, in a function of its own: a branch on a field. */
static noinline void test_filter_branch(const u32 *field)
{
	asm volatile("cmpl $0, %0\n\tjz 1f\n\tnop\n1:" : : "m" (*field) : "cc");
}

/*
 * Parse @obj's first word, never written, into a stack filter, with
 * flags set; take a lock and work; then branch on the table (@table) or
 * the flags.  The undefined word lives in the frame all along.
 */
static noinline void test_filter_dump(const u32 *obj, bool table)
{
	struct test_filter flt;
	unsigned long flags;

	flt.table = READ_ONCE(obj[0]);
	flt.flags = 1;
	spin_lock_irqsave(&test_filter_lock, flags);
	test_busy(400);
	spin_unlock_irqrestore(&test_filter_lock, flags);
	test_filter_branch(table ? &flt.table : &flt.flags);
}

/*
 * Lockdep registers a lock class at its first acquisition, in more
 * instructions than a value is followed: take the lock once before.
 */
static void test_filter_lock_warm(void)
{
	unsigned long flags;

	spin_lock_irqsave(&test_filter_lock, flags);
	spin_unlock_irqrestore(&test_filter_lock, flags);
}

static void test_follow_stack_late_use(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	long insns = kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_INSNS);

	test_filter_lock_warm();
	kmemcheck_test_follow_on(test);
	test_filter_dump(p, true);
	EXPECT_REPORT(test, UNINIT, test_filter_branch, 4, p,
		      .use = USE_BRANCH, .loaded = test_filter_dump);
	kmemcheck_test_expect_follow_judged(test);
	insns = kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_INSNS) - insns;
	KUNIT_EXPECT_GT(test, insns, 1000);
}

static void test_follow_stack_late_init(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	test_filter_lock_warm();
	kmemcheck_test_follow_on(test);
	test_filter_dump(p, false);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * AAA is not modelled: following ends there, and undefined bits left in
 * a register are reported at the load, with its stack, as with
 * kmemcheck.follow=0; those left on the stack are dropped, unreported.
 */
static noinline void test_unmodelled_with(const u32 *p)
{
	asm volatile("movl (%0), %%edx\n\taaa\n\txorl %%edx, %%edx"
		     : : "r" (p) : "eax", "edx", "memory", "cc");
}

static noinline void test_unmodelled_after(const u32 *p)
{
	asm volatile("movl (%0), %%edx\n\txorl %%edx, %%edx\n\taaa"
		     : : "r" (p) : "eax", "edx", "memory", "cc");
}

static noinline void test_unmodelled_pushed(const u32 *p)
{
	asm volatile("movl (%0), %%edx\n\tpushl %%edx\n\txorl %%edx, %%edx\n\t"
		     "aaa\n\tpopl %%edx\n\txorl %%edx, %%edx"
		     : : "r" (p) : "eax", "edx", "memory", "cc");
}

#define NOT_MODELLED	"an instruction kmemcheck does not model"

static void test_follow_unjudged_reported(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	long unjudged =
		kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_UNJUDGED);

	kmemcheck_test_follow_on(test);
	test_unmodelled_with(p);
	EXPECT_REPORT(test, UNINIT, test_unmodelled_with, 4, p,
		      .unjudged = NOT_MODELLED);
	KUNIT_EXPECT_EQ(test,
			kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_UNJUDGED),
			unjudged + 1);
}

static void test_follow_unjudged_dead(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_unmodelled_after(p);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_unjudged_stack_only(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	long dropped = kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_DROPPED);

	kmemcheck_test_follow_on(test);
	test_unmodelled_pushed(p);
	EXPECT_NO_REPORT(test);
	KUNIT_EXPECT_EQ(test,
			kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_DROPPED),
			dropped + 1);
}

/*
 * A value kept in a register past the bound of following (5,000 turns of
 * a loop): reported at the load.  Its twin drops the value first.
 */
static noinline void test_hold_value(const u32 *p, bool drop)
{
	u32 n = 5000;

	asm volatile("movl (%1), %%edx\n\t"
		     "testl %2, %2\n\tjz 1f\n\txorl %%edx, %%edx\n1:\t"
		     "decl %0\n\tjnz 1b\n\txorl %%edx, %%edx"
		     : "+r" (n) : "r" (p), "r" ((u32)drop)
		     : "edx", "memory", "cc");
}

static void test_follow_bound_reported(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_hold_value(p, false);
	EXPECT_REPORT(test, UNINIT, test_hold_value, 4, p,
		      .unjudged = "as far as kmemcheck follows a value",
		      .insns_min = 4096, .insns_max = 4096);
}

static void test_follow_bound_dropped(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_hold_value(p, true);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * The same value kept past the bound in %edi, a callee-saved register,
 * where a function keeps its variables: dropped as a stack word is, not
 * reported.
 */
static noinline void test_hold_variable(const u32 *p)
{
	u32 n = 5000;

	asm volatile("movl (%1), %%edi\n"
		     "1:\tdecl %0\n\tjnz 1b\n\txorl %%edi, %%edi"
		     : "+r" (n) : "r" (p) : "edi", "memory", "cc");
}

static void test_follow_bound_variable(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	long unjudged =
		kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_UNJUDGED);
	long dropped = kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_DROPPED);

	kmemcheck_test_follow_on(test);
	test_hold_variable(p);
	EXPECT_NO_REPORT(test);
	KUNIT_EXPECT_EQ(test,
			kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_DROPPED),
			dropped + 1);
	KUNIT_EXPECT_EQ(test,
			kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_UNJUDGED),
			unjudged);
}

/*
 * A window that meets a second load just before its bound: the first
 * value is kept in %edi for some 4,060 instructions, then @q's word is
 * read into %eax, the first value dropped, and @q's kept for @hold turns
 * of a loop, across the bound, then dropped or branched on.  The late
 * load is followed on to its judgement: no report at the bound for a
 * value loaded a few instructions before it; but kept past the grace, it
 * is reported at its load, followed some 1,060 instructions.
 */
static noinline void test_late_load(const u32 *p, const u32 *q, u32 hold,
				    bool use)
{
	u32 n = 2030, used = use;

	asm volatile("movl (%[p]), %%edi\n"
		     "1:\tdecl %[n]\n\tjnz 1b\n\t"
		     "movl (%[q]), %%eax\n\txorl %%edi, %%edi\n\t"
		     "movl %[hold], %[n]\n"
		     "2:\tdecl %[n]\n\tjnz 2b\n\t"
		     "cmpl $0, %[use]\n\tjz 3f\n\t"
		     "testl %%eax, %%eax\n\tjz 3f\n\tnop\n"
		     "3:\txorl %%eax, %%eax"
		     : [n] "+r" (n)
		     : [p] "r" (p), [q] "r" (q), [hold] "rm" (hold),
		       [use] "rm" (used)
		     : "eax", "edi", "memory", "cc");
}

static void test_follow_late_load_dead(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_late_load(p, q, 50, false);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_late_load_used(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_late_load(p, q, 50, true);
	EXPECT_REPORT(test, UNINIT, test_late_load, 4, q,
		      .use = USE_BRANCH, .loaded = test_late_load);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_late_load_capped(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_late_load(p, q, 600, false);
	EXPECT_REPORT(test, UNINIT, test_late_load, 4, q,
		      .unjudged = "as far as kmemcheck follows a value",
		      .insns_min = 1000, .insns_max = 1100);
}

/*
 * The same late load into %esi, a callee-saved register: followed on as
 * well, though what is left in such registers at an unjudged end is not
 * reported.
 */
static noinline void test_late_variable(const u32 *p, const u32 *q, bool use)
{
	u32 n = 2030, used = use;

	asm volatile("movl (%[p]), %%edi\n"
		     "1:\tdecl %[n]\n\tjnz 1b\n\t"
		     "movl (%[q]), %%esi\n\txorl %%edi, %%edi\n\t"
		     "movl $50, %[n]\n"
		     "2:\tdecl %[n]\n\tjnz 2b\n\t"
		     "cmpl $0, %[use]\n\tjz 3f\n\t"
		     "testl %%esi, %%esi\n\tjz 3f\n\tnop\n"
		     "3:\txorl %%esi, %%esi"
		     : [n] "+r" (n)
		     : [p] "r" (p), [q] "r" (q), [use] "rm" (used)
		     : "esi", "edi", "memory", "cc");
}

static void test_follow_late_variable_dead(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_late_variable(p, q, false);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_late_variable_used(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_late_variable(p, q, true);
	EXPECT_REPORT(test, UNINIT, test_late_variable, 4, q,
		      .use = USE_BRANCH, .loaded = test_late_variable);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * One load instruction run twice, some 4,060 instructions apart, its value
 * kept in %eax between the runs and for 100 instructions after the second,
 * across the bound, then dropped or branched on: a load met again is as
 * young as its last run.
 */
static noinline void test_reload(const u32 *q, bool use)
{
	u32 n = 2030, k = 2, used = use;

	asm volatile("1:\tmovl (%[q]), %%eax\n"
		     "2:\tdecl %[n]\n\tjnz 2b\n\t"
		     "movl $50, %[n]\n\tdecl %[k]\n\tjnz 1b\n\t"
		     "cmpl $0, %[use]\n\tjz 3f\n\t"
		     "testl %%eax, %%eax\n\tjz 3f\n\tnop\n"
		     "3:\txorl %%eax, %%eax"
		     : [n] "+r" (n), [k] "+r" (k)
		     : [q] "r" (q), [use] "rm" (used)
		     : "eax", "memory", "cc");
}

static void test_follow_reload_dead(struct kunit *test)
{
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_reload(q, false);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_reload_used(struct kunit *test)
{
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_reload(q, true);
	EXPECT_REPORT(test, UNINIT, test_reload, 4, q,
		      .use = USE_BRANCH, .loaded = test_reload);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * A 16-bit field read with a 32-bit MOV into %edi, its two padding bytes
 * with it, and kept there across a call that runs past the bound of
 * following, as virtqueue_get_buf_ctx() keeps last_used_idx across
 * detach_buf_split(): the bits are in a callee-saved register, where a
 * function keeps its variables, and dropped with no report.  The twins call a short
 * function: the bits die at the XOR, or are branched on after the return
 * and reported there (the field is 0: whether %edi is zero is up to the
 * padding).
 */
static noinline void test_park_value(const u32 *p, unsigned int n, bool use)
{
	asm volatile("movl (%[p]), %%edi\n\t"
		     "call %c[busy]\n\t"
		     "testl %[use], %[use]\n\tjz 1f\n\t"
		     "testl %%edi, %%edi\n\tjz 1f\n\tnop\n"
		     "1:\txorl %%edi, %%edi"
		     : "+a" (n)
		     : [p] "r" (p), [use] "r" ((u32)use), [busy] "i" (test_busy)
		     : "ecx", "edx", "edi", "memory", "cc");
}

static void test_follow_parked_dropped(struct kunit *test)
{
	u16 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	long unjudged =
		kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_UNJUDGED);
	long dropped = kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_DROPPED);

	p[0] = 0;
	kmemcheck_test_follow_on(test);
	test_park_value((u32 *)p, 5000, false);
	EXPECT_NO_REPORT(test);
	KUNIT_EXPECT_EQ(test,
			kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_DROPPED),
			dropped + 1);
	KUNIT_EXPECT_EQ(test,
			kmemcheck_test_counter(KMEMCHECK_COUNTER_FOLLOW_UNJUDGED),
			unjudged);
}

static void test_follow_parked_dead(struct kunit *test)
{
	u16 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	p[0] = 0;
	kmemcheck_test_follow_on(test);
	test_park_value((u32 *)p, 10, false);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_parked_used(struct kunit *test)
{
	u16 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	p[0] = 0;
	kmemcheck_test_follow_on(test);
	test_park_value((u32 *)p, 10, true);
	EXPECT_REPORT(test, UNINIT, test_park_value, 4, p, .bad = p + 1,
		      .use = USE_BRANCH, .loaded = test_park_value);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * "a = p->x; b = q->y; if (b)": the report names q's load, not the
 * first of the window; "if (a + b)" names p's, and says it merged two.
 */
static noinline void test_two_loads(const u32 *p, const u32 *q, int which)
{
	asm volatile("movl (%0), %%eax\n\tmovl (%1), %%edx\n\t"
		     "cmpl $1, %2\n\tje 1f\n\tjg 2f\n\t"
		     "testl %%eax, %%eax\n\tjmp 3f\n"
		     "1:\ttestl %%edx, %%edx\n\tjmp 3f\n"
		     "2:\taddl %%edx, %%eax\n"
		     "3:\tjz 4f\n\tnop\n4:\txorl %%eax, %%eax\n\txorl %%edx, %%edx"
		     : : "r" (p), "r" (q), "r" (which)
		     : "eax", "edx", "memory", "cc");
}

static void test_follow_second_load(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_two_loads(p, q, 1);
	EXPECT_REPORT(test, UNINIT, test_two_loads, 4, q,
		      .use = USE_BRANCH, .loaded = test_two_loads);
}

static void test_follow_first_load(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_two_loads(p, q, 0);
	EXPECT_REPORT(test, UNINIT, test_two_loads, 4, p,
		      .use = USE_BRANCH, .loaded = test_two_loads);
}

static void test_follow_merged_loads(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_two_loads(p, q, 2);
	EXPECT_REPORT(test, UNINIT, test_two_loads, 4, p,
		      .use = USE_BRANCH, .loaded = test_two_loads,
		      .merged = 2);
}

/*
 * Flags written in part keep the loads of the rest: ADD makes CF
 * undefined from p, INC (which leaves CF) the others from q.  JC names
 * p's load, JZ q's.
 */
static noinline void test_flags_two_loads(const u32 *p, const u32 *q,
					  bool carry)
{
	asm volatile("testl %2, %2\n\tjz 1f\n\t"
		     "movl (%0), %%eax\n\tmovl (%1), %%ecx\n\t"
		     "addl $1, %%eax\n\tincl %%ecx\n\t"
		     "jc 2f\n\tnop\n\tjmp 2f\n"
		     "1:\tmovl (%0), %%eax\n\tmovl (%1), %%ecx\n\t"
		     "addl $1, %%eax\n\tincl %%ecx\n\t"
		     "jz 2f\n\tnop\n"
		     "2:\txorl %%eax, %%eax\n\txorl %%ecx, %%ecx"
		     : : "r" (p), "r" (q), "r" ((u32)carry)
		     : "eax", "ecx", "memory", "cc");
}

static void test_follow_flags_kept_load(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_flags_two_loads(p, q, true);
	EXPECT_REPORT(test, UNINIT, test_flags_two_loads, 4, p,
		      .use = USE_BRANCH, .loaded = test_flags_two_loads);
}

static void test_follow_flags_written_load(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_flags_two_loads(p, q, false);
	EXPECT_REPORT(test, UNINIT, test_flags_two_loads, 4, q,
		      .use = USE_BRANCH, .loaded = test_flags_two_loads);
}

/*
 * DIV leaves the arithmetic flags undefined to the architecture: with a
 * defined dividend they carry no bit of memory, so a branch on them is
 * no use of the value a window holds in %edi; with the dividend loaded
 * from @p they do, and the branch is a use.
 */
static noinline void test_divide_flags(const u32 *p, bool from_memory)
{
	u32 divisor = 3, load = from_memory;

	asm volatile("movl (%[p]), %%edi\n\tmovl $7, %%eax\n\t"
		     "cmpl $0, %[load]\n\tjz 1f\n\t"
		     "movl %%edi, %%eax\n"
		     "1:\txorl %%edx, %%edx\n\tdivl %[d]\n\t"
		     "jz 2f\n\tnop\n"
		     "2:\txorl %%eax, %%eax\n\txorl %%edx, %%edx\n\t"
		     "xorl %%edi, %%edi"
		     : : [p] "r" (p), [load] "rm" (load), [d] "r" (divisor)
		     : "eax", "edx", "edi", "memory", "cc");
}

static void test_follow_divide_flags_defined(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_divide_flags(p, false);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_divide_flags_undefined(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_divide_flags(p, true);
	EXPECT_REPORT(test, UNINIT, test_divide_flags, 4, p,
		      .use = USE_BRANCH, .loaded = test_divide_flags);
}

/*
 * array_index_mask_nospec(): "cmp; sbb %eax, %eax" makes %eax 0 or -1 by
 * CF alone, whatever undefined bits it held before.  With CF computed from
 * @p's bytes, the mask is undefined, and a branch on it a use.
 */
static noinline void test_sbb_mask(const u32 *p, bool cf_from_memory)
{
	u32 load = cf_from_memory;

	asm volatile("movl (%[p]), %%eax\n\tmovl $3, %%ecx\n\t"
		     "cmpl $0, %[load]\n\tjz 1f\n\t"
		     "movl %%eax, %%ecx\n"
		     "1:\tcmpl $5, %%ecx\n\tsbbl %%eax, %%eax\n\t"
		     "testl %%eax, %%eax\n\tjz 2f\n\tnop\n"
		     "2:\txorl %%eax, %%eax\n\txorl %%ecx, %%ecx"
		     : : [p] "r" (p), [load] "rm" (load)
		     : "eax", "ecx", "memory", "cc");
}

static void test_follow_sbb_mask_defined(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_sbb_mask(p, false);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_sbb_mask_undefined(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_sbb_mask(p, true);
	EXPECT_REPORT(test, UNINIT, test_sbb_mask, 4, p,
		      .use = USE_BRANCH, .loaded = test_sbb_mask);
}

/* "if (x >> 8)": a branch on the bits a shift keeps. */
static noinline void test_shift_out(const u32 *p)
{
	asm volatile("movl (%0), %%eax\n\tshrl $8, %%eax\n\t"
		     "jz 1f\n\tnop\n"
		     "1:\txorl %%eax, %%eax"
		     : : "r" (p) : "eax", "memory", "cc");
}

/* Only the byte shifted out is uninitialized: no use. */
static void test_follow_shift_out_defined(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	WRITE_ONCE(p[1], 1);
	WRITE_ONCE(p[2], 0);
	WRITE_ONCE(p[3], 0);
	test_shift_out((u32 *)p);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* A byte that stays is uninitialized: the branch uses it. */
static void test_follow_shift_out_undefined(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	WRITE_ONCE(p[0], 1);
	WRITE_ONCE(p[1], 0);
	WRITE_ONCE(p[2], 0);
	test_shift_out((u32 *)p);
	EXPECT_REPORT(test, UNINIT, test_shift_out, 4, p, .bad = &p[3],
		      .use = USE_BRANCH, .loaded = test_shift_out);
}

/*
 * A rotate writes CF and OF only: ZF set by a compare before it is the
 * compare's.  @zf_from_memory: the compare reads @p's word, and the
 * rotate is of a defined register; else the other way round.
 */
static noinline void test_rotate_keeps_zf(const u32 *p, bool zf_from_memory)
{
	u32 load = zf_from_memory;

	asm volatile("movl (%[p]), %%eax\n\tmovl $1, %%ecx\n\t"
		     "cmpl $0, %[load]\n\tjz 1f\n\t"
		     "cmpl $0, %%eax\n\troll $1, %%ecx\n\tjmp 2f\n"
		     "1:\tcmpl $0, %%ecx\n\troll $1, %%eax\n"
		     "2:\tjz 3f\n\tnop\n"
		     "3:\txorl %%eax, %%eax\n\txorl %%ecx, %%ecx"
		     : : [p] "r" (p), [load] "rm" (load)
		     : "eax", "ecx", "memory", "cc");
}

static void test_follow_rotate_keeps_zf_defined(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_rotate_keeps_zf(p, false);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

static void test_follow_rotate_keeps_zf_undefined(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	test_rotate_keeps_zf(p, true);
	EXPECT_REPORT(test, UNINIT, test_rotate_keeps_zf, 4, p,
		      .use = USE_BRANCH, .loaded = test_rotate_keeps_zf);
}

/* The twin: q initialized, "if (b)" is no use of uninit. */
static void test_follow_second_load_init(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 *q = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	WRITE_ONCE(*q, 1);
	kmemcheck_test_follow_on(test);
	test_two_loads(p, q, 1);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* ===== Copies into the stack ===== */

/* A padded object: a flag, three bytes of padding, words. */
#define TEST_PADDED(n)						\
	struct test_padded_##n {				\
		u8 flag;					\
		u32 words[(n) / 4 - 1];				\
	}

TEST_PADDED(8);
TEST_PADDED(32);
TEST_PADDED(256);

/* Branch on the byte or the word at @p, in a function of its own. */
static noinline void test_stack_branch_byte(const u8 *p)
{
	asm volatile("cmpb $0, %0\n\tjz 1f\n\tnop\n1:" : : "m" (*p) : "cc");
}

static noinline void test_stack_branch_word(const u32 *p)
{
	asm volatile("cmpl $0, %0\n\tjz 1f\n\tnop\n1:" : : "m" (*p) : "cc");
}

/*
 * "tmp = *obj;", then branches on fields of the copy: the flag and word
 * @word.  GCC copies 8 and 32 bytes through registers, 256 bytes with
 * REP MOVSL: followed from a load, or from the copy.
 */
#define TEST_COPY_FN(n)							\
static noinline void test_stack_copy_use_##n(				\
		const struct test_padded_##n *obj, unsigned int word)	\
{									\
	struct test_padded_##n tmp = *obj;				\
									\
	test_stack_branch_byte(&tmp.flag);				\
	test_stack_branch_word(&tmp.words[word]);			\
}

TEST_COPY_FN(8)
TEST_COPY_FN(32)
TEST_COPY_FN(256)

/* A new padded object of @size bytes, every field written but @unset. */
static void *test_padded(struct kunit *test, size_t size, int unset)
{
	u8 *obj = kmemcheck_test_alloc(test, size, GFP_KERNEL);
	u32 *words = (u32 *)(obj + 4);
	int i;

	WRITE_ONCE(obj[0], 1);
	for (i = 0; i < size / 4 - 1; i++) {
		if (i != unset)
			WRITE_ONCE(words[i], i + 1);
	}
	return obj;
}

/* Only written fields used: the padding copied along is no use. */
static void test_stack_copy_init(struct kunit *test)
{
	void *obj8 = test_padded(test, 8, -1);
	void *obj32 = test_padded(test, 32, -1);
	void *obj256 = test_padded(test, 256, -1);

	kmemcheck_test_follow_on(test);
	test_stack_copy_use_8(obj8, 0);
	test_stack_copy_use_32(obj32, 3);
	test_stack_copy_use_256(obj256, 31);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/*
 * A field nobody wrote, branched on in another function after the copy:
 * reported there.  Which load or copy it came from depends on how GCC
 * copies: the read is not checked.
 */
static void expect_stack_copy_report(struct kunit *test)
{
	EXPECT_REPORT(test, UNINIT, test_stack_branch_word, 0, NULL,
		      .use = USE_BRANCH, .any_access = true);
}

/*
 * GCC copies 32 bytes and more with REP MOVSL: a copy kmemcheck
 * single-steps (kmemcheck.fastpath=0), element by element, is not
 * followed.
 */
#define TEST_STACK_COPY_UNINIT(n, word)					\
static void test_stack_copy_uninit_##n(struct kunit *test)		\
{									\
	const size_t size = sizeof(struct test_padded_##n);		\
	const unsigned int field = word;				\
	void *obj = test_padded(test, size, field);			\
									\
	if (size > 8 && !kmemcheck_may_emulate())			\
		kunit_skip(test, "kmemcheck.fastpath=0 single-steps copies"); \
	kmemcheck_test_follow_on(test);					\
	test_stack_copy_use_##n(obj, field);				\
	expect_stack_copy_report(test);					\
}

TEST_STACK_COPY_UNINIT(8, 0)
TEST_STACK_COPY_UNINIT(32, 3)
TEST_STACK_COPY_UNINIT(256, 31)

/* ===== Steps cut short, nested faults and interrupts ===== */

/*
 * A DIV whose divisor is in a tracked object: its page fault sets up a
 * step.  A zero divisor ends the step in #DE, which the exception table
 * sends to the next instruction, as a *_safe() accessor's is sent to its
 * fixup.  Return: the flags the code after the DIV runs with.
 */
static noinline unsigned long test_divide_fixup(u32 *divisor)
{
	unsigned long flags;
	u32 eax = 1, edx = 0;

	asm volatile("1:	divl (%[d])\n"
		     "2:	pushfl\n"
		     "	popl %[f]\n"
		     _ASM_EXTABLE(1b, 2b)
		     : [f] "=r" (flags), "+a" (eax), "+d" (edx)
		     : [d] "r" (divisor) : "memory", "cc");
	return flags;
}

/*
 * A word of a new object, zero or left uninitialized, on a page that
 * faults: the object's other word keeps it hidden.
 */
static u32 *test_alloc_hidden_word(struct kunit *test, bool zero)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);

	if (zero)
		WRITE_ONCE(*p, 0);
	KUNIT_ASSERT_TRUE(test, kmemcheck_arch_page_hidden((unsigned long)p));
	return p;
}

/*
 * The fixup runs with the flags of the code, not with the trap flag and
 * interrupts off of a step that the exception cut short: the step is over.
 */
static void test_step_fixup_flags(struct kunit *test)
{
	u32 *p = test_alloc_hidden_word(test, true);
	unsigned long flags = test_divide_fixup(p);

	KUNIT_EXPECT_EQ(test, flags & X86_EFLAGS_TF, 0UL);
	KUNIT_EXPECT_EQ(test, flags & X86_EFLAGS_IF, X86_EFLAGS_IF);
	KUNIT_EXPECT_FALSE(test, kmemcheck_arch_page_in_step((unsigned long)p));
	EXPECT_NO_REPORT(test);
}

/* ... and the DIV is checked all the same: an uninitialized divisor. */
static void test_step_fixup_uninit(struct kunit *test)
{
	u32 *p = test_alloc_hidden_word(test, false);
	unsigned long flags = test_divide_fixup(p);

	KUNIT_EXPECT_EQ(test, flags & X86_EFLAGS_TF, 0UL);
	EXPECT_REPORT(test, UNINIT, test_divide_fixup, 4, p);
}

/* Interrupts must be on; turn them on again if not, for the next cases. */
static void expect_irqs_on(struct kunit *test)
{
	if (!irqs_disabled())
		return;
	KUNIT_FAIL(test, "interrupts left off");
	local_irq_enable();
}

/* The object a fault nested in a push reads, and whether it did. */
static u32 *test_nested_object;
static bool test_nested_done;

/* In the middle of a push, a fault on tracked memory, as an NMI's. */
static void test_nested_push(void)
{
	WRITE_ONCE(kmemcheck_test_push_hook, NULL);
	asm volatile("btl $0, (%0)" : : "r" (test_nested_object)
		     : "memory", "cc");
	test_nested_done = true;
}

/*
 * A fault that nests while the step of another is being pushed leaves
 * that step as it was: interrupts come back on after it.  BT is done in
 * the fault handler, after a push; a MOV or CMP could be replayed, before
 * the fault entry, without one.
 */
static void test_nested_fault_in_push(struct kunit *test)
{
	u32 *p = test_alloc_hidden_word(test, true);

	test_nested_object = test_alloc_hidden_word(test, true);
	test_nested_done = false;
	WRITE_ONCE(kmemcheck_test_push_hook, test_nested_push);
	asm volatile("btl $0, (%0)" : : "r" (p) : "memory", "cc");
	WRITE_ONCE(kmemcheck_test_push_hook, NULL);
	KUNIT_EXPECT_TRUE(test, test_nested_done);
	expect_irqs_on(test);
	EXPECT_NO_REPORT(test);
}

/* ... and a nested read of an uninitialized word is reported as any. */
static void test_nested_fault_uninit(struct kunit *test)
{
	u32 *p = test_alloc_hidden_word(test, true);

	test_nested_object = test_alloc_hidden_word(test, false);
	test_nested_done = false;
	WRITE_ONCE(kmemcheck_test_push_hook, test_nested_push);
	asm volatile("btl $0, (%0)" : : "r" (p) : "memory", "cc");
	WRITE_ONCE(kmemcheck_test_push_hook, NULL);
	KUNIT_EXPECT_TRUE(test, test_nested_done);
	expect_irqs_on(test);
	EXPECT_REPORT(test, UNINIT, test_nested_push, 4, test_nested_object);
}

/*
 * What lockdep believes of this CPU's interrupts, called with the
 * undefined value @v live in %eax: inside the window that follows it.
 */
static noinline bool test_lockdep_irqs_on(u32 v)
{
	bool on = false;

#ifdef CONFIG_PROVE_LOCKING
	on = lockdep_hardirqs_enabled();
#endif
	asm volatile("" : : "a" (v));
	return on;
}

/*
 * While a value is followed, interrupts are off for the steps, not for
 * the code: lockdep sees them on, or lockdep_assert_irqs_enabled() in
 * local_bh_enable() warns on correct code.
 */
static void test_follow_lockdep_irqs_on(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	u32 v;
	bool on;

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "needs CONFIG_PROVE_LOCKING");
	kmemcheck_test_follow_on(test);
	asm volatile("movl (%1), %0" : "=&a" (v) : "r" (p) : "memory");
	on = test_lockdep_irqs_on(v);
	KUNIT_EXPECT_TRUE(test, on);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* ... and off where the code turned them off. */
static void test_follow_lockdep_irqs_off(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 8, GFP_KERNEL);
	unsigned long flags;
	u32 v;
	bool on;

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "needs CONFIG_PROVE_LOCKING");
	kmemcheck_test_follow_on(test);
	local_irq_save(flags);
	asm volatile("movl (%1), %0" : "=&a" (v) : "r" (p) : "memory");
	on = test_lockdep_irqs_on(v);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, on);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* Fresh objects of a page each: more than the spare partial pages. */
#define TEST_BITFIELD_OBJECTS	12

/*
 * "x->flag = 1" in fresh objects on as many pages, with interrupts off,
 * as code initializing objects under a spin_lock_irqsave() does: the spare
 * partial pages run out, and none can be refilled until interrupts are
 * back on.  Return: the objects, the flag set in each, interrupts still
 * off (@flags).
 */
static void test_bitfields_irqs_off(struct kunit *test, u8 **p,
				    unsigned long *flags)
{
	unsigned int i;

	for (i = 0; i < TEST_BITFIELD_OBJECTS; i++)
		p[i] = kmemcheck_test_alloc(test, PAGE_SIZE, GFP_KERNEL);
	kmemcheck_test_follow_on(test);
	local_irq_save(*flags);
	for (i = 0; i < TEST_BITFIELD_OBJECTS; i++)
		asm volatile("orb $4, (%0)\n\tcmpl %0, %0"
			     : : "r" (p[i]) : "memory", "cc");
}

/* The flag is then tested in each: no report. */
static void test_follow_bitfields_irqs_off(struct kunit *test)
{
	u8 *p[TEST_BITFIELD_OBJECTS];
	unsigned long flags;
	unsigned int i;

	test_bitfields_irqs_off(test, p, &flags);
	for (i = 0; i < TEST_BITFIELD_OBJECTS; i++)
		asm volatile("testb $4, (%0)\n\tjz 1f\n\tnop\n1:"
			     : : "r" (p[i]) : "memory", "cc");
	local_irq_restore(flags);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
}

/* The first object's other bits are still uninitialized: reported. */
static void test_follow_bitfields_irqs_off_other(struct kunit *test)
{
	u8 *p[TEST_BITFIELD_OBJECTS];
	unsigned long flags;

	test_bitfields_irqs_off(test, p, &flags);
	asm volatile("testb $8, (%0)\n\tjz 1f\n\tnop\n1:"
		     : : "r" (p[0]) : "memory", "cc");
	local_irq_restore(flags);
	EXPECT_REPORT(test, UNINIT, test_follow_bitfields_irqs_off_other, 1,
		      p[0], .use = USE_BRANCH,
		      .loaded = test_follow_bitfields_irqs_off_other);
}

static struct kunit_case kmemcheck_x86_test_cases[] = {
	KUNIT_CASE(test_hide_keeps_pte),
	KUNIT_CASE(test_fetch_not_emulated),
	KUNIT_CASE(test_fetch_twin_load),
	KUNIT_CASE(test_uaf_movsb),
	KUNIT_CASE(test_init_movsb),
	KUNIT_CASE(test_init_movsb_stack),
	KUNIT_CASE(test_uninit_movsb_stack_nofollow),
	KUNIT_CASE(test_init_alu_emulated),
	KUNIT_CASE(test_init_replayed_store),
	KUNIT_CASE(test_uninit_replayed_load),
	KUNIT_CASE(test_uninit_replayed_alu),
	KUNIT_CASE(test_init_replayed_forms),
	KUNIT_CASE(test_uninit_add_imm),
	KUNIT_CASE(test_init_add_imm),
	KUNIT_CASE(test_uninit_cmp_byte),
	KUNIT_CASE(test_init_cmp_byte),
	KUNIT_CASE(test_init_setcc),
	KUNIT_CASE(test_uninit_setcc_neighbour),
	KUNIT_CASE(test_uninit_push),
	KUNIT_CASE(test_init_pop),
	KUNIT_CASE(test_follow_wide_load),
	KUNIT_CASE(test_follow_off_reports_load),
	KUNIT_CASE(test_follow_branch),
	KUNIT_CASE(test_follow_branch_masked),
	KUNIT_CASE(test_report_memory_dump),
	KUNIT_CASE(test_report_memory_dump_init),
	KUNIT_CASE(test_follow_address),
	KUNIT_CASE(test_follow_address_defined),
	KUNIT_CASE(test_follow_address_nop),
	KUNIT_CASE(test_follow_store_global),
	KUNIT_CASE(test_follow_store_tracked),
	KUNIT_CASE(test_follow_counter),
	KUNIT_CASE(test_follow_flag_set),
	KUNIT_CASE(test_follow_spill),
	KUNIT_CASE(test_follow_spill_masked),
	KUNIT_CASE(test_follow_setcc),
	KUNIT_CASE(test_follow_setcc_defined),
	KUNIT_CASE(test_follow_padding_to_user),
	KUNIT_CASE(test_follow_call),
	KUNIT_CASE(test_follow_uaf_at_read),
	KUNIT_CASE(test_follow_ctor_padding),
	KUNIT_CASE(test_follow_ctor_padding_used),
	KUNIT_CASE(test_follow_bitfield_test),
	KUNIT_CASE(test_follow_bitfield_other),
	KUNIT_CASE(test_follow_bit_cleared),
	KUNIT_CASE(test_follow_bit_cleared_other),
	KUNIT_CASE(test_follow_bts),
	KUNIT_CASE(test_follow_bts_other),
	KUNIT_CASE(test_follow_bits_copied),
	KUNIT_CASE(test_follow_bits_copied_other),
	KUNIT_CASE(test_follow_bits_forgotten),
	KUNIT_CASE(test_follow_cmpxchg_old_used),
	KUNIT_CASE(test_follow_cmpxchg_old_unused),
	KUNIT_CASE(test_follow_irqsave_used),
	KUNIT_CASE(test_follow_irqsave_masked),
	KUNIT_CASE(test_follow_pushf_cli),
	KUNIT_CASE(test_follow_stack_late_use),
	KUNIT_CASE(test_follow_stack_late_init),
	KUNIT_CASE(test_follow_unjudged_reported),
	KUNIT_CASE(test_follow_unjudged_dead),
	KUNIT_CASE(test_follow_unjudged_stack_only),
	KUNIT_CASE(test_follow_bound_reported),
	KUNIT_CASE(test_follow_bound_dropped),
	KUNIT_CASE(test_follow_bound_variable),
	KUNIT_CASE(test_follow_parked_dropped),
	KUNIT_CASE(test_follow_parked_dead),
	KUNIT_CASE(test_follow_parked_used),
	KUNIT_CASE(test_follow_late_load_dead),
	KUNIT_CASE(test_follow_late_load_used),
	KUNIT_CASE(test_follow_late_load_capped),
	KUNIT_CASE(test_follow_late_variable_dead),
	KUNIT_CASE(test_follow_late_variable_used),
	KUNIT_CASE(test_follow_reload_dead),
	KUNIT_CASE(test_follow_reload_used),
	KUNIT_CASE(test_follow_second_load),
	KUNIT_CASE(test_follow_first_load),
	KUNIT_CASE(test_follow_merged_loads),
	KUNIT_CASE(test_follow_second_load_init),
	KUNIT_CASE(test_follow_flags_kept_load),
	KUNIT_CASE(test_follow_flags_written_load),
	KUNIT_CASE(test_follow_divide_flags_defined),
	KUNIT_CASE(test_follow_divide_flags_undefined),
	KUNIT_CASE(test_follow_sbb_mask_defined),
	KUNIT_CASE(test_follow_sbb_mask_undefined),
	KUNIT_CASE(test_follow_shift_out_defined),
	KUNIT_CASE(test_follow_shift_out_undefined),
	KUNIT_CASE(test_follow_rotate_keeps_zf_defined),
	KUNIT_CASE(test_follow_rotate_keeps_zf_undefined),
	KUNIT_CASE(test_stack_copy_init),
	KUNIT_CASE(test_stack_copy_uninit_8),
	KUNIT_CASE(test_stack_copy_uninit_32),
	KUNIT_CASE(test_stack_copy_uninit_256),
	KUNIT_CASE(test_step_fixup_flags),
	KUNIT_CASE(test_step_fixup_uninit),
	KUNIT_CASE(test_nested_fault_in_push),
	KUNIT_CASE(test_nested_fault_uninit),
	KUNIT_CASE(test_follow_lockdep_irqs_on),
	KUNIT_CASE(test_follow_lockdep_irqs_off),
	KUNIT_CASE(test_follow_bitfields_irqs_off),
	KUNIT_CASE(test_follow_bitfields_irqs_off_other),
	{}
};

static struct kunit_suite kmemcheck_x86_test_suite = {
	.name = "kmemcheck_x86",
	.test_cases = kmemcheck_x86_test_cases,
	.init = kmemcheck_test_init,
	.exit = kmemcheck_test_exit,
	.suite_init = kmemcheck_test_suite_init,
	.suite_exit = kmemcheck_test_suite_exit,
};

kunit_test_suites(&kmemcheck_x86_test_suite);
