// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the kmemcheck decoder on instructions in the kernel text.
 *
 * Each instruction sits between two labels in an asm block that is never
 * executed; kmemcheck_decode() reads it at its label, as it reads the
 * instruction of a fault, with registers chosen by the test.  The host
 * test in tools/testing/kmemcheck/decoder covers the tables in breadth.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/string.h>

#include <asm/processor-flags.h>
#include <asm/ptrace.h>
#include <asm/segment.h>

#include "decode.h"

/*
 * Named by the asm below, which the compiler does not see: on UP, where the
 * only C use is skipped, it would drop the variable and the link would fail.
 */
static DEFINE_PER_CPU(u32, kmemcheck_test_pcpu) __used;

/* An instruction between the labels name and name_end. */
#define INSN(name, insn)	#name ":\n\t" insn "\n" #name "_end:\n"

asm(".pushsection .text, \"ax\"\n"
    /* Never run: a stray jump here would stop at once. */
	"\tud2\n"
	INSN(insn_mov_load, "movl 8(%ebx), %eax")
	INSN(insn_movzbl, "movzbl -1(%esi,%ecx,2), %eax")
	INSN(insn_add_mem, "addl %eax, 4(%edi)")
	INSN(insn_movw_store, "movw %ax, (%ebx)")
	INSN(insn_cmpxchg8b, "lock cmpxchg8b (%esi)")
	INSN(insn_push_mem, "pushl 12(%ebp)")
	INSN(insn_call_mem, "call *16(%ebx)")
	INSN(insn_rep_movsl, "rep movsl")
	INSN(insn_rep_stosb, "rep stosb")
	INSN(insn_repe_cmpsb, "repe cmpsb")
	INSN(insn_percpu_load, "movl %fs:kmemcheck_test_pcpu, %eax")
	INSN(insn_percpu_add, "addl %eax, %fs:4(%ebx)")
	INSN(insn_bt_reg, "btl %eax, (%ebx)")
	INSN(insn_bts_imm, "lock btsl $3, (%ebx)")
	INSN(insn_sete, "sete 3(%ebx)")
	INSN(insn_lea, "leal 8(%ebx,%ecx,4), %eax")
	INSN(insn_nop, "nopl 0(%eax,%eax,1)")
	INSN(insn_fxsave, "fxsave (%eax)")
	INSN(insn_movdqu, "movdqu (%eax), %xmm0")
	INSN(insn_ud2, "ud2")
	".popsection\n");

#define DECLARE_INSN(name) extern const u8 name[], name##_end[]

DECLARE_INSN(insn_mov_load);
DECLARE_INSN(insn_movzbl);
DECLARE_INSN(insn_add_mem);
DECLARE_INSN(insn_movw_store);
DECLARE_INSN(insn_cmpxchg8b);
DECLARE_INSN(insn_push_mem);
DECLARE_INSN(insn_call_mem);
DECLARE_INSN(insn_rep_movsl);
DECLARE_INSN(insn_rep_stosb);
DECLARE_INSN(insn_repe_cmpsb);
DECLARE_INSN(insn_percpu_load);
DECLARE_INSN(insn_percpu_add);
DECLARE_INSN(insn_bt_reg);
DECLARE_INSN(insn_bts_imm);
DECLARE_INSN(insn_sete);
DECLARE_INSN(insn_lea);
DECLARE_INSN(insn_nop);
DECLARE_INSN(insn_fxsave);
DECLARE_INSN(insn_movdqu);
DECLARE_INSN(insn_ud2);

#define RD	KMEMCHECK_ACCESS_READ
#define WR	KMEMCHECK_ACCESS_WRITE
#define RMW	KMEMCHECK_ACCESS_RMW

/* Kernel-mode registers, all general ones distinct and recognizable. */
static void init_regs(struct pt_regs *regs)
{
	memset(regs, 0, sizeof(*regs));
	regs->ax = 0x1000;
	regs->bx = 0x2000;
	regs->cx = 3;
	regs->dx = 0x4000;
	regs->si = 0x5000;
	regs->di = 0x6000;
	regs->bp = 0x7000;
	regs->sp = 0x8000;
	regs->ds = __USER_DS;
	regs->es = __USER_DS;
	regs->fs = __KERNEL_PERCPU;
	regs->cs = __KERNEL_CS;
	regs->ss = __KERNEL_DS;
	regs->flags = X86_EFLAGS_FIXED;
}

/* Decode the insn from @start to @end with @regs. */
static struct kmemcheck_insn *decode(struct kunit *test, struct pt_regs *regs,
				     const u8 *start, const u8 *end)
{
	struct kmemcheck_insn *out = kunit_kzalloc(test, sizeof(*out),
						   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, out);
	regs->ip = (unsigned long)start;
	KUNIT_ASSERT_EQ(test, kmemcheck_decode(regs, out), 0);
	KUNIT_EXPECT_EQ(test, out->len, end - start);
	return out;
}

#define DECODE(test, regs, name)	decode(test, regs, name, name##_end)

static void expect_access(struct kunit *test, const struct kmemcheck_insn *out,
			  unsigned int i, unsigned long addr,
			  unsigned int size, enum kmemcheck_access_kind kind)
{
	KUNIT_ASSERT_LT(test, i, out->nr);
	KUNIT_EXPECT_EQ(test, out->access[i].addr, addr);
	KUNIT_EXPECT_EQ(test, out->access[i].size, size);
	KUNIT_EXPECT_EQ(test, out->access[i].kind, kind);
}

/* One instruction with one access and no flags. */
static void expect_one(struct kunit *test, struct pt_regs *regs,
		       const u8 *start, const u8 *end, unsigned long addr,
		       unsigned int size, enum kmemcheck_access_kind kind)
{
	struct kmemcheck_insn *out = decode(test, regs, start, end);

	KUNIT_EXPECT_EQ(test, out->flags, 0);
	KUNIT_EXPECT_EQ(test, out->nr, 1);
	expect_access(test, out, 0, addr, size, kind);
}

#define EXPECT_ONE(test, regs, name, addr, size, kind) \
	expect_one(test, regs, name, name##_end, addr, size, kind)

static void test_mov(struct kunit *test)
{
	struct pt_regs regs;

	init_regs(&regs);
	EXPECT_ONE(test, &regs, insn_mov_load, 0x2008, 4, RD);
	EXPECT_ONE(test, &regs, insn_movzbl, 0x5000 + 3 * 2 - 1, 1, RD);
	EXPECT_ONE(test, &regs, insn_movw_store, 0x2000, 2, WR);
	/* The address wraps at 4 GiB, as on the CPU. */
	regs.bx = 0xfffffffc;
	EXPECT_ONE(test, &regs, insn_mov_load, 4, 4, RD);
}

static void test_rmw(struct kunit *test)
{
	struct pt_regs regs;

	init_regs(&regs);
	EXPECT_ONE(test, &regs, insn_add_mem, 0x6004, 4, RMW);
	EXPECT_ONE(test, &regs, insn_cmpxchg8b, 0x5000, 8, RMW);
	EXPECT_ONE(test, &regs, insn_sete, 0x2003, 1, WR);
	/* 8 bytes across a page boundary: the caller shows both pages. */
	regs.si = 0x5ffc;
	EXPECT_ONE(test, &regs, insn_cmpxchg8b, 0x5ffc, 8, RMW);
}

static void test_push_call(struct kunit *test)
{
	struct pt_regs regs;

	init_regs(&regs);
	/* The stack write of PUSH is not reported: stacks are untracked. */
	EXPECT_ONE(test, &regs, insn_push_mem, 0x700c, 4, RD);
	EXPECT_ONE(test, &regs, insn_call_mem, 0x2010, 4, RD);
}

static void test_bit_ops(struct kunit *test)
{
	struct pt_regs regs;

	init_regs(&regs);
	EXPECT_ONE(test, &regs, insn_bts_imm, 0x2000, 4, RMW);
	regs.ax = 100;
	EXPECT_ONE(test, &regs, insn_bt_reg, 0x2000 + 12, 4, RD);
	/* A negative bit offset addresses below the operand. */
	regs.ax = -1;
	EXPECT_ONE(test, &regs, insn_bt_reg, 0x2000 - 4, 4, RD);
}

static void test_percpu(struct kunit *test)
{
	struct pt_regs regs;

	if (!IS_ENABLED(CONFIG_SMP))
		kunit_skip(test, "%%fs is not the per-cpu segment on UP");

	init_regs(&regs);
	/*
	 * this_cpu_ptr() and this CPU's %fs base must be of one CPU.  Not
	 * preempt_disable(): the helpers kunit_kzalloc() their result with
	 * GFP_KERNEL, which may sleep.
	 */
	migrate_disable();
	EXPECT_ONE(test, &regs, insn_percpu_load,
		   (unsigned long)this_cpu_ptr(&kmemcheck_test_pcpu), 4, RD);
	EXPECT_ONE(test, &regs, insn_percpu_add,
		   0x2004 + this_cpu_read(this_cpu_off), 4, RMW);
	migrate_enable();
}

static void test_percpu_bad_fs(struct kunit *test)
{
	struct kmemcheck_insn out;
	struct pt_regs regs;

	/* Not the kernel's %fs: no guess at its base. */
	init_regs(&regs);
	regs.fs = 0;
	regs.ip = (unsigned long)insn_percpu_load;
	KUNIT_EXPECT_EQ(test, kmemcheck_decode(&regs, &out), -EINVAL);
}

static void test_string(struct kunit *test)
{
	struct kmemcheck_insn *out;
	struct pt_regs regs;

	init_regs(&regs);
	out = DECODE(test, &regs, insn_rep_movsl);
	KUNIT_EXPECT_EQ(test, out->flags, KMEMCHECK_INSN_STRING |
			KMEMCHECK_INSN_REP | KMEMCHECK_INSN_COPY);
	KUNIT_EXPECT_EQ(test, out->nr, 2);
	expect_access(test, out, 0, 0x5000, 4, RD);
	expect_access(test, out, 1, 0x6000, 4, WR);

	/* Backwards: still the element at %esi and %edi. */
	regs.flags |= X86_EFLAGS_DF;
	out = DECODE(test, &regs, insn_rep_movsl);
	KUNIT_EXPECT_EQ(test, out->flags, KMEMCHECK_INSN_STRING |
			KMEMCHECK_INSN_REP | KMEMCHECK_INSN_COPY |
			KMEMCHECK_INSN_BACKWARD);
	expect_access(test, out, 0, 0x5000, 4, RD);
	expect_access(test, out, 1, 0x6000, 4, WR);

	/* No iteration left: nothing is accessed. */
	regs.cx = 0;
	out = DECODE(test, &regs, insn_rep_movsl);
	KUNIT_EXPECT_EQ(test, out->nr, 0);

	init_regs(&regs);
	out = DECODE(test, &regs, insn_rep_stosb);
	KUNIT_EXPECT_EQ(test, out->flags,
			KMEMCHECK_INSN_STRING | KMEMCHECK_INSN_REP);
	KUNIT_EXPECT_EQ(test, out->nr, 1);
	expect_access(test, out, 0, 0x6000, 1, WR);

	out = DECODE(test, &regs, insn_repe_cmpsb);
	KUNIT_EXPECT_EQ(test, out->flags,
			KMEMCHECK_INSN_STRING | KMEMCHECK_INSN_REP);
	KUNIT_EXPECT_EQ(test, out->nr, 2);
	expect_access(test, out, 0, 0x5000, 1, RD);
	expect_access(test, out, 1, 0x6000, 1, RD);
}

static void test_no_access(struct kunit *test)
{
	struct kmemcheck_insn *out;
	struct pt_regs regs;

	init_regs(&regs);
	out = DECODE(test, &regs, insn_lea);
	KUNIT_EXPECT_EQ(test, out->nr, 0);
	out = DECODE(test, &regs, insn_nop);
	KUNIT_EXPECT_EQ(test, out->nr, 0);
}

static void test_fpu_sse(struct kunit *test)
{
	struct pt_regs regs;

	init_regs(&regs);
	EXPECT_ONE(test, &regs, insn_fxsave, 0x1000, 512, WR);
	EXPECT_ONE(test, &regs, insn_movdqu, 0x1000, 16, RD);
}

static void test_unknown(struct kunit *test)
{
	struct kmemcheck_insn out;
	struct pt_regs regs;

	init_regs(&regs);
	regs.ip = (unsigned long)insn_ud2;
	KUNIT_EXPECT_EQ(test, kmemcheck_decode(&regs, &out), -EOPNOTSUPP);
}

static struct kunit_case kmemcheck_decode_test_cases[] = {
	KUNIT_CASE(test_mov),
	KUNIT_CASE(test_rmw),
	KUNIT_CASE(test_push_call),
	KUNIT_CASE(test_bit_ops),
	KUNIT_CASE(test_percpu),
	KUNIT_CASE(test_percpu_bad_fs),
	KUNIT_CASE(test_string),
	KUNIT_CASE(test_no_access),
	KUNIT_CASE(test_fpu_sse),
	KUNIT_CASE(test_unknown),
	{}
};

static struct kunit_suite kmemcheck_decode_test_suite = {
	.name = "kmemcheck_decode",
	.test_cases = kmemcheck_decode_test_cases,
};

kunit_test_suite(kmemcheck_decode_test_suite);
