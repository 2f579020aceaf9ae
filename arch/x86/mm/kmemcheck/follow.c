// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck on x86-32: follow a value read from uninitialized memory to
 * where it is used, and report it there, not at the read.
 *
 * Correct C reads uninitialized bytes all the time without using them: a
 * bitfield store is a read-modify-write of the bytes around it, GCC loads
 * a short with a 32-bit MOV and stores back only %ax, small structures
 * are copied through registers with their padding.  So with
 * kmemcheck.follow=1, a read of uninitialized bytes is not reported: the
 * CPU keeps single-stepping, and each instruction is modelled before it
 * runs, with one "undefined" bit per bit of the eight registers, of the
 * arithmetic flags and of the stack words the value was spilled to, after
 * Valgrind's memcheck.  The value is reported where it decides something:
 * a conditional jump, move or set on undefined flags, an address, a
 * divisor or a count computed from undefined bits, arithmetic in place on
 * undefined memory, or a store of undefined bits to memory that has no
 * shadow (globals, user space).  A store to tracked memory hands the
 * undefined bytes back to the shadow.  Following stops, with no report,
 * once no undefined bit is left; and, not judged, at an instruction the
 * model does not cover, an exception, a change of stack or after
 * KMEMCHECK_FOLLOW_MAX_INSNS instructions: then what is left of the value
 * being computed is reported at its load, and what is left in variables
 * dropped (kf_give_up()).  A report names the first load whose bits
 * reached the use (kf_src_t).
 *
 * Each followed instruction is one single-step, with interrupts off and
 * the tracked pages it touches shown, as any kmemcheck step: its effect
 * on the shadow is recorded when the step completes, so an instruction
 * cut short by a fault leaves the shadow as it was.  A value is followed
 * only in the context that read it: not in NMIs, not under a debugger's
 * single-step, one value at a time per CPU.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/array_size.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/kmemcheck.h>
#include <linux/kprobes.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/swab.h>
#include <linux/thread_info.h>
#include <linux/uaccess.h>

#include <asm/insn.h>
#include <asm/insn-eval.h>
#include <asm/kmemcheck.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>

#include "decode.h"
#include "follow.h"
#include "seam.h"

/*
 * Instructions stepped for one value before it is given up: long enough
 * for a value kept in a stack local across a lock and a few calls.  A
 * window goes on while a load it met is younger than that, for up to
 * KMEMCHECK_FOLLOW_GRACE instructions more (kf_past_bound()).  The
 * interrupts of the CPU wait for the window to end.
 */
#define KMEMCHECK_FOLLOW_MAX_INSNS	4096
#define KMEMCHECK_FOLLOW_GRACE		1024
/* Stack words holding undefined bits, followed at once. */
#define KMEMCHECK_FOLLOW_SLOTS		16
/* Loads of uninitialized memory told apart in one window; see kf_load(). */
#define KMEMCHECK_FOLLOW_LOADS		8
/* Frames kept of the stack of a load, for a report made at the load. */
#define KMEMCHECK_FOLLOW_DEPTH		16

/* The flags an arithmetic instruction computes. */
#define KF_CF		X86_EFLAGS_CF
#define KF_PF		X86_EFLAGS_PF
#define KF_AF		X86_EFLAGS_AF
#define KF_ZF		X86_EFLAGS_ZF
#define KF_SF		X86_EFLAGS_SF
#define KF_OF		X86_EFLAGS_OF
#define KF_ARITH	(KF_CF | KF_PF | KF_AF | KF_ZF | KF_SF | KF_OF)

/* Registers by their ModRM number. */
enum { KF_AX, KF_CX, KF_DX, KF_BX, KF_SP, KF_BP, KF_SI, KF_DI };

/*
 * Where undefined bits came from: one bit per load of uninitialized memory
 * in kmemcheck_follow.load[], kept for each register, the flags and each
 * stack word.  A result takes the loads of all the undefined inputs of
 * the instruction that computed it (Valgrind's origin tracking keeps one
 * origin per value; the first one is what a report names).
 */
typedef u8 kf_src_t;
static_assert(sizeof(kf_src_t) * BITS_PER_BYTE >= KMEMCHECK_FOLLOW_LOADS);

/* A stack word with undefined bits, spilled while following. */
struct kmemcheck_slot {
	unsigned long addr;		/* 4-byte aligned */
	u32 undef;
	kf_src_t src;
};

/*
 * The interrupt flag, as the code has it, after the stepped instruction:
 * the steps run with the real one clear, so the code's is kept beside.
 */
enum kf_irq {
	KF_IRQ_SAME,			/* unchanged */
	KF_IRQ_OFF,			/* CLI */
	KF_IRQ_ON,			/* STI */
	KF_IRQ_POPPED,			/* POPF: as the word popped had it */
	KF_IRQ_PUSHED,			/* PUSHF: the word pushed must show it */
};

/* The value followed on this CPU. */
struct kmemcheck_follow {
	bool active;
	bool used;			/* reported: stop after this insn */
	unsigned int insns;
	unsigned long stack;		/* the stack it runs on, THREAD_SIZE aligned */
	u32 reg[8];			/* undefined bits, by ModRM number */
	kf_src_t reg_src[8];
	u32 flags;			/* undefined KF_ARITH flags */
	kf_src_t flags_src[6];		/* by kf_flag_bits[] */
	kf_src_t src;			/* loads the stepped insn read */
	struct kmemcheck_slot slot[KMEMCHECK_FOLLOW_SLOTS];
	/*
	 * The store of the instruction being stepped, recorded when the
	 * step completes.  A CMPXCHG stores only if it succeeds (ZF set).
	 */
	bool store, cmpxchg;
	unsigned long store_addr;
	unsigned int store_size;
	u64 store_undef;
	kf_src_t store_src;
	/* What the stepped instruction does to the interrupt flag. */
	enum kf_irq irq;
	unsigned long popped_if;	/* KF_IRQ_POPPED: the code's IF */
	unsigned int nr_loads;
	struct kmemcheck_load load[KMEMCHECK_FOLLOW_LOADS];
	/* f->insns when each load last ran: kf_load() */
	unsigned int load_at[KMEMCHECK_FOLLOW_LOADS];
};

static DEFINE_PER_CPU(struct kmemcheck_follow, kmemcheck_follow);
/* Its state before the instruction being modelled, if the model gives up. */
static DEFINE_PER_CPU(struct kmemcheck_follow, kmemcheck_follow_before);

/* An operand of a modelled instruction. */
struct kf_opnd {
	enum { KF_REG, KF_MEM, KF_IMM } kind;
	unsigned int size;		/* 1, 2 or 4 bytes */
	unsigned int reg, shift;	/* KF_REG; shift 8 for %ah-%bh */
	unsigned long addr;		/* KF_MEM */
	u32 imm;			/* KF_IMM */
};

static u32 kf_mask(unsigned int size)
{
	return size >= 4 ? ~0U : BIT(8 * size) - 1;
}

/* Every bit from the lowest undefined one up: where carries can reach. */
static u32 kf_smear(u32 undef)
{
	return undef ? ~((undef & -undef) - 1) : 0;
}

/* Register @n's undefined bits, as an input of the insn modelled. */
static u32 kf_reg(struct kmemcheck_follow *f, unsigned int n)
{
	if (f->reg[n])
		f->src |= f->reg_src[n];
	return f->reg[n];
}

/*
 * The loads of a result whose bits @fresh were computed now, from the
 * inputs read, and whose bits @kept are undefined as they were, from @old.
 */
static kf_src_t kf_result_src(struct kmemcheck_follow *f, u32 fresh,
			      u32 kept, kf_src_t old)
{
	return (fresh ? (f->src ?: old) : 0) | (kept ? old : 0);
}

/* Write the bits @mask of register @n: @undef of them are undefined. */
static void kf_write_reg(struct kmemcheck_follow *f, unsigned int n,
			 u32 mask, u32 undef)
{
	u32 kept = f->reg[n] & ~mask;

	f->reg_src[n] = kf_result_src(f, undef & mask, kept, f->reg_src[n]);
	f->reg[n] = kept | (undef & mask);
}

static void kf_set_reg(struct kmemcheck_follow *f, unsigned int n, u32 undef)
{
	kf_write_reg(f, n, ~0U, undef);
}

/* Each arithmetic flag keeps its loads: INC writes all of them but CF. */
static const u32 kf_flag_bits[6] = {
	X86_EFLAGS_CF, X86_EFLAGS_PF, X86_EFLAGS_AF,
	X86_EFLAGS_ZF, X86_EFLAGS_SF, X86_EFLAGS_OF,
};

/* The loads of the undefined flags among @mask. */
static kf_src_t kf_flags_src(const struct kmemcheck_follow *f, u32 mask)
{
	kf_src_t src = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kf_flag_bits); i++) {
		if (f->flags & mask & kf_flag_bits[i])
			src |= f->flags_src[i];
	}
	return src;
}

/* The undefined flags among @mask, as an input. */
static u32 kf_rflags(struct kmemcheck_follow *f, u32 mask)
{
	f->src |= kf_flags_src(f, mask);
	return f->flags & mask;
}

/* Write the flags @mask: @undef of them are undefined. */
static void kf_write_flags(struct kmemcheck_follow *f, u32 mask, u32 undef)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kf_flag_bits); i++) {
		u32 bit = kf_flag_bits[i];

		if (mask & bit)
			f->flags_src[i] = kf_result_src(f, undef & bit, 0,
							f->flags_src[i]);
	}
	f->flags = (f->flags & ~mask) | (undef & mask);
}

/* Is @addr on the stack the followed code runs on? */
static bool kf_on_stack(const struct pt_regs *regs, unsigned long addr)
{
	return kmemcheck_arch_on_stack(regs, addr);
}

static struct kmemcheck_slot *kf_slot(struct kmemcheck_follow *f,
				      unsigned long word)
{
	unsigned int i;

	for (i = 0; i < KMEMCHECK_FOLLOW_SLOTS; i++) {
		if (f->slot[i].undef && f->slot[i].addr == word)
			return &f->slot[i];
	}
	return NULL;
}

static u32 kf_stack_load(struct kmemcheck_follow *f, unsigned long addr,
			 unsigned int size)
{
	u32 undef = 0;
	unsigned int i;

	for (i = 0; i < size; i++) {
		struct kmemcheck_slot *s = kf_slot(f, (addr + i) & ~3UL);

		u32 byte = s ? (s->undef >> (8 * ((addr + i) & 3))) & 0xff : 0;

		if (byte)
			f->src |= s->src;
		undef |= byte << (8 * i);
	}
	return undef;
}

/* Spill undefined bits to the stack; false if there is no room left. */
static bool kf_stack_store(struct kmemcheck_follow *f, unsigned long addr,
			   unsigned int size, u64 undef)
{
	unsigned int i, j;
	u32 kept;

	for (i = 0; i < size; i++) {
		unsigned long word = (addr + i) & ~3UL;
		unsigned int shift = 8 * ((addr + i) & 3);
		u32 byte = (undef >> (8 * i)) & 0xff;
		struct kmemcheck_slot *s = kf_slot(f, word);

		if (!s && !byte)
			continue;
		for (j = 0; !s && j < KMEMCHECK_FOLLOW_SLOTS; j++) {
			if (!f->slot[j].undef) {
				s = &f->slot[j];
				s->addr = word;
				s->src = 0;
			}
		}
		if (!s)
			return false;
		kept = s->undef & ~(0xffU << shift);
		s->src = kf_result_src(f, byte, kept, s->src);
		s->undef = kept | (byte << shift);
	}
	return true;
}

/*
 * Add a load by the instruction at @ip, of @size bytes at @addr, the first
 * uninitialized at @bad, with the stack of @regs: a report made at the
 * load, if following ends unjudged, has its stack.
 */
static void kf_new_load(struct kmemcheck_follow *f, struct pt_regs *regs,
			unsigned long ip, unsigned long addr, unsigned int size,
			unsigned long bad)
{
	unsigned long entries[KMEMCHECK_FOLLOW_DEPTH];
	struct kmemcheck_load *l = &f->load[f->nr_loads];
	unsigned int nr;

	f->load_at[f->nr_loads] = f->insns;
	f->nr_loads++;
	l->ip = ip;
	l->addr = addr;
	l->size = size;
	l->bad = bad;
	l->merged = 1;
	/* No allocation: this may be a fault in the page allocator. */
	nr = stack_trace_save_regs(regs, entries, ARRAY_SIZE(entries), 0);
	l->stack = stack_depot_save_flags(entries, nr, 0, 0);
}

/*
 * Note a load of @undef bits of @size bytes at @addr, by the instruction
 * at @regs->ip; return its bit.  An instruction is one load however much
 * it reads (both words of CMPXCHG8B, the elements of a REP string, a
 * loop's turns).  The loads after KMEMCHECK_FOLLOW_LOADS count as the
 * last one: a report names the first load of a value, and says how many
 * it merged, at least.  A load met again is as young as its last run: a
 * driver's loop reading a ring entry again and again is followed for as
 * long each time.
 */
static kf_src_t kf_load(struct kmemcheck_follow *f, struct pt_regs *regs,
			unsigned long addr, unsigned int size, u32 undef)
{
	unsigned int i;

	for (i = 0; i < f->nr_loads; i++) {
		if (f->load[i].ip == regs->ip)
			break;
	}
	if (i == KMEMCHECK_FOLLOW_LOADS)
		i--;
	if (i < f->nr_loads) {
		f->load_at[i] = f->insns;
		return BIT(i);
	}
	kf_new_load(f, regs, regs->ip, addr, size, addr + __ffs(undef) / 8);
	return BIT(i);
}

/* The undefined bits of @size bytes of memory at @addr. */
static u32 kf_mem_undef(struct kmemcheck_follow *f, struct pt_regs *regs,
			unsigned long addr, unsigned int size)
{
	u32 undef;

	if (kf_on_stack(regs, addr))
		return kf_stack_load(f, addr, size);
	if (addr < TASK_SIZE_MAX)
		return 0;
	undef = kmemcheck_value_load(regs, addr, size);
	if (undef)
		f->src |= kf_load(f, regs, addr, size, undef);
	return undef;
}

static u32 kf_undef(struct kmemcheck_follow *f, struct pt_regs *regs,
		    const struct kf_opnd *o)
{
	u32 undef;

	switch (o->kind) {
	case KF_REG:
		undef = (f->reg[o->reg] >> o->shift) & kf_mask(o->size);
		if (undef)
			f->src |= f->reg_src[o->reg];
		return undef;
	case KF_MEM:
		return kf_mem_undef(f, regs, o->addr, o->size) &
		       kf_mask(o->size);
	default:
		return 0;
	}
}

/* The value of @o, if it can be read; kernel memory only. */
static bool kf_value(struct pt_regs *regs, const struct kf_opnd *o, u32 *val)
{
	switch (o->kind) {
	case KF_REG:
		*val = (*kmemcheck_reg(regs, o->reg) >> o->shift) & kf_mask(o->size);
		return true;
	case KF_IMM:
		*val = o->imm & kf_mask(o->size);
		return true;
	default:
		if (o->addr < TASK_SIZE_MAX ||
		    copy_from_kernel_nofault(val, (void *)o->addr, o->size))
			return false;
		*val &= kf_mask(o->size);
		return true;
	}
}

/*
 * The first load among @src, in the order the window met them, and how
 * many @src merged.  The first load of the window if @src is empty, for
 * an input the model does not trace.
 */
static struct kmemcheck_load kf_first_load(const struct kmemcheck_follow *f,
					   kf_src_t src)
{
	struct kmemcheck_load load;

	src &= BIT(f->nr_loads) - 1;
	load = f->load[src ? __ffs(src) : 0];
	load.merged = max(hweight8(src), 1);
	return load;
}

/* The instruction modelled uses the undefined bits it read: report. */
static void kf_use(struct kmemcheck_follow *f, struct pt_regs *regs,
		   enum kmemcheck_use use, unsigned long dst)
{
	struct kmemcheck_load load;

	if (f->used)
		return;
	load = kf_first_load(f, f->src);
	kmemcheck_report_use(regs, use, &load, dst);
	f->used = true;
}

/* Record a store of @undef to memory, or report it if it leaves tracking. */
static void kf_store(struct kmemcheck_follow *f, struct pt_regs *regs,
		     unsigned long addr, unsigned int size, u64 undef)
{
	if (!kf_on_stack(regs, addr) && !kmemcheck_page_tracked(addr) &&
	    !kmemcheck_page_tracked(addr + size - 1)) {
		if (undef)
			kf_use(f, regs, addr < TASK_SIZE_MAX ?
			       KMEMCHECK_USE_USER : KMEMCHECK_USE_STORE, addr);
		return;
	}
	f->store = true;
	f->store_addr = addr;
	f->store_size = size;
	f->store_undef = undef;
	f->store_src = f->src;
}

static void kf_write(struct kmemcheck_follow *f, struct pt_regs *regs,
		     const struct kf_opnd *o, u32 undef)
{
	u32 mask = kf_mask(o->size);

	if (o->kind == KF_REG)
		kf_write_reg(f, o->reg, mask << o->shift,
			     (undef & mask) << o->shift);
	else if (o->kind == KF_MEM)
		kf_store(f, regs, o->addr, o->size, undef & mask);
}

static struct kf_opnd kf_reg_opnd(unsigned int n, unsigned int size)
{
	struct kf_opnd o = { .kind = KF_REG, .size = size, .reg = n };

	/* Without REX, byte registers 4-7 are %ah, %ch, %dh, %bh. */
	if (size == 1 && n >= 4) {
		o.reg = n - 4;
		o.shift = 8;
	}
	return o;
}

static struct kf_opnd kf_imm_opnd(const struct insn *insn, unsigned int size)
{
	return (struct kf_opnd){ .kind = KF_IMM, .size = size,
				 .imm = insn->immediate.value };
}

/* The r/m operand; its memory address comes from the decoder. */
static bool kf_rm(const struct insn *insn, const struct kmemcheck_insn *ki,
		  unsigned int size, struct kf_opnd *o)
{
	if (X86_MODRM_MOD(insn->modrm.value) == 3) {
		*o = kf_reg_opnd(X86_MODRM_RM(insn->modrm.value), size);
		return true;
	}
	if (!ki->nr)
		return false;
	*o = (struct kf_opnd){ .kind = KF_MEM, .size = size,
			       .addr = ki->access[0].addr };
	return true;
}

static struct kf_opnd kf_modrm_reg(const struct insn *insn, unsigned int size)
{
	return kf_reg_opnd(X86_MODRM_REG(insn->modrm.value), size);
}

/* The undefined bits of the registers forming a memory operand's address. */
static u32 kf_addr_undef(struct kmemcheck_follow *f, const struct insn *insn)
{
	struct kmemcheck_addr_mode m;
	u32 undef = 0;

	if (!kmemcheck_addr_mode_of(insn, &m))
		return 0;
	if (m.base != KMEMCHECK_NO_REG)
		undef |= kf_reg(f, m.base);
	if (m.index != KMEMCHECK_NO_REG)
		undef |= kf_reg(f, m.index) << m.scale;
	return undef;
}

/* Flags of a logical operation with result @res, undefined bits @undef. */
static u32 kf_logic_flags(u32 res, u32 undef, unsigned int size)
{
	u32 flags = 0;

	if (undef & BIT(8 * size - 1))
		flags |= KF_SF;
	if (undef & 0xff)
		flags |= KF_PF;
	/* A defined 1 bit makes the result non-zero whatever the rest. */
	if (undef && !(res & ~undef & kf_mask(size)))
		flags |= KF_ZF;
	return flags;
}

/* AND: a bit is defined if both are, or either is a defined 0. */
static u32 kf_and(u32 a, u32 ua, bool ka, u32 b, u32 ub, bool kb)
{
	u32 zeros = (ka ? ~a & ~ua : 0) | (kb ? ~b & ~ub : 0);

	return (ua | ub) & ~zeros;
}

/* OR: a bit is defined if both are, or either is a defined 1. */
static u32 kf_or(u32 a, u32 ua, bool ka, u32 b, u32 ub, bool kb)
{
	u32 ones = (ka ? a & ~ua : 0) | (kb ? b & ~ub : 0);

	return (ua | ub) & ~ones;
}

/* The group 1 operations, in ModRM.reg and opcode order. */
enum { KF_ADD, KF_OR, KF_ADC, KF_SBB, KF_AND, KF_SUB, KF_XOR, KF_CMP, KF_TEST };

static void kf_alu(struct kmemcheck_follow *f, struct pt_regs *regs,
		   unsigned int op, const struct kf_opnd *d,
		   const struct kf_opnd *s)
{
	u32 mask = kf_mask(d->size), a = 0, b = 0, ua, ub, res, flags;
	bool ka = kf_value(regs, d, &a), kb = kf_value(regs, s, &b);
	bool same = d->kind == KF_REG && s->kind == KF_REG &&
		    d->reg == s->reg && d->shift == s->shift;

	ua = kf_undef(f, regs, d);
	ub = kf_undef(f, regs, s);
	switch (op) {
	case KF_AND:
	case KF_TEST:
		res = kf_and(a, ua, ka, b, ub, kb);
		flags = kf_logic_flags(a & b, res, d->size);
		break;
	case KF_OR:
		res = kf_or(a, ua, ka, b, ub, kb);
		flags = kf_logic_flags(a | b, res, d->size);
		break;
	case KF_XOR:
		res = same ? 0 : ua | ub;
		flags = kf_logic_flags(a ^ b, res, d->size);
		break;
	default:
		/* ADD, ADC, SUB, SBB, CMP: carries move undefined bits up. */
		if (same && op == KF_SBB) {
			/* 0 or -1 by CF alone: array_index_mask_nospec(). */
			res = kf_rflags(f, KF_CF) ? mask : 0;
			flags = res ? KF_ARITH : 0;
			break;
		}
		if (same && (op == KF_SUB || op == KF_CMP)) {
			res = 0;
			flags = 0;
			break;
		}
		res = ua | ub;
		if ((op == KF_ADC || op == KF_SBB) && kf_rflags(f, KF_CF))
			res |= 1;
		res = kf_smear(res) & mask;
		flags = res ? KF_ARITH : 0;
		/* Operands differing in a defined bit are not equal. */
		if ((op == KF_SUB || op == KF_CMP) && ka && kb &&
		    ((a ^ b) & ~(ua | ub) & mask))
			flags &= ~KF_ZF;
		/* An uninitialized counter in memory is a bug. */
		if (d->kind == KF_MEM && ua && op != KF_CMP)
			kf_use(f, regs, KMEMCHECK_USE_ARITH, 0);
		break;
	}
	kf_write_flags(f, KF_ARITH, flags);
	if (op != KF_CMP && op != KF_TEST)
		kf_write(f, regs, d, res);
}

/* The flags each condition code reads. */
static const u32 kf_cc_flags[16] = {
	KF_OF, KF_OF, KF_CF, KF_CF, KF_ZF, KF_ZF, KF_CF | KF_ZF, KF_CF | KF_ZF,
	KF_SF, KF_SF, KF_PF, KF_PF, KF_SF | KF_OF, KF_SF | KF_OF,
	KF_ZF | KF_SF | KF_OF, KF_ZF | KF_SF | KF_OF,
};

static bool kf_cc_true(unsigned long flags, unsigned int cc)
{
	bool cf = flags & KF_CF, zf = flags & KF_ZF, sf = flags & KF_SF;
	bool of = flags & KF_OF, pf = flags & KF_PF, r;

	switch ((cc >> 1) & 7) {
	case 0:
		r = of;
		break;
	case 1:
		r = cf;
		break;
	case 2:
		r = zf;
		break;
	case 3:
		r = cf || zf;
		break;
	case 4:
		r = sf;
		break;
	case 5:
		r = pf;
		break;
	case 6:
		r = sf != of;
		break;
	default:
		r = zf || sf != of;
		break;
	}
	return (cc & 1) ? !r : r;
}

/* Does condition @cc read an undefined flag?  Then it is a use. */
static bool kf_cc_undef(struct kmemcheck_follow *f, unsigned int cc)
{
	return kf_rflags(f, kf_cc_flags[cc & 15]);
}

/*
 * The undefined flags of a rotate, whose undefined result is @res: the CPU
 * writes CF and OF only, CF with the bit rotated into the other end.
 */
static u32 kf_rotate_flags(unsigned int op, u32 res, unsigned int bits)
{
	switch (op) {
	case 0:		/* ROL */
		return res & 1 ? KF_CF : 0;
	case 1:		/* ROR */
		return res & BIT(bits - 1) ? KF_CF : 0;
	default:	/* RCL, RCR: all of it or none */
		return res ? KF_CF : 0;
	}
}

/*
 * The undefined flags of a shift by @count, 1 to 31, of bits @u into @res:
 * ZF, SF and PF tell of the result, CF of the last bit shifted out; AF
 * and OF (for a count over 1 undefined to the architecture) of any.  A
 * test of the bits that stay ("if (x >> 12)") is no use of those that
 * went.
 */
static u32 kf_shift_flags(unsigned int op, u32 u, u32 res,
			  unsigned int count, unsigned int bits)
{
	u32 flags = u ? KF_AF | KF_OF : 0, cf;

	if (res)
		flags |= KF_ZF;
	if (res & BIT(bits - 1))
		flags |= KF_SF;
	if (res & 0xff)
		flags |= KF_PF;
	if (count > bits)
		cf = u;
	else if (op == 5 || op == 7)	/* SHR, SAR */
		cf = u & BIT(count - 1);
	else				/* SHL */
		cf = u & BIT(bits - count);
	return flags | (cf ? KF_CF : 0);
}

/* Shifts and rotates, group 2, by @count (undefined bits @ucount). */
static void kf_shift(struct kmemcheck_follow *f, struct pt_regs *regs,
		     unsigned int op, const struct kf_opnd *d,
		     unsigned int count, u32 ucount)
{
	unsigned int bits = 8 * d->size;
	u32 mask = kf_mask(d->size), u = kf_undef(f, regs, d), res;

	count &= 31;
	if (ucount & 31) {
		/* Valgrind's rule: an undefined count, an undefined result. */
		kf_write(f, regs, d, mask);
		kf_write_flags(f, KF_ARITH, KF_ARITH);
		return;
	}
	if (!count)
		return;
	switch (op) {
	case 0:		/* ROL */
		count %= bits;
		res = count ? (u << count) | (u >> (bits - count)) : u;
		break;
	case 1:		/* ROR */
		count %= bits;
		res = count ? (u >> count) | (u << (bits - count)) : u;
		break;
	case 4:		/* SHL */
	case 6:
		res = count < bits ? u << count : 0;
		break;
	case 5:		/* SHR */
		res = count < bits ? u >> count : 0;
		break;
	case 7:		/* SAR: the undefinedness of the sign bit too */
		res = u >> min(count, bits - 1);
		if (u & BIT(bits - 1))
			res |= mask & ~(mask >> min(count, bits - 1));
		break;
	default:	/* RCL, RCR: through CF */
		res = (u || kf_rflags(f, KF_CF)) ? mask : 0;
		break;
	}
	res &= mask;
	kf_write(f, regs, d, res);
	if (op < 4)
		kf_write_flags(f, KF_CF | KF_OF,
			       kf_rotate_flags(op, res, bits) | (res ? KF_OF : 0));
	else
		kf_write_flags(f, KF_ARITH,
			       kf_shift_flags(op, u, res, count, bits));
}

/* Everything undefined if anything is: MUL, BSF, POPCNT and the like. */
static u32 kf_all_or_none(u32 undef, unsigned int size)
{
	return undef ? kf_mask(size) : 0;
}

static void kf_push(struct kmemcheck_follow *f, struct pt_regs *regs,
		    unsigned int size, u32 undef)
{
	if (kf_reg(f, KF_SP))
		kf_use(f, regs, KMEMCHECK_USE_ADDRESS, 0);
	kf_store(f, regs, regs->sp - size, size, undef);
}

static u32 kf_pop(struct kmemcheck_follow *f, struct pt_regs *regs,
		  unsigned int size)
{
	if (kf_reg(f, KF_SP))
		kf_use(f, regs, KMEMCHECK_USE_ADDRESS, 0);
	return kf_stack_load(f, regs->sp, size);
}

/* One-byte opcodes 0x00-0x3f: ALU between r/m and reg, or acc and imm. */
static bool kf_alu_0x(struct kmemcheck_follow *f, struct pt_regs *regs,
		      const struct insn *insn, const struct kmemcheck_insn *ki,
		      unsigned int opsz)
{
	u8 op0 = insn->opcode.bytes[0];
	unsigned int size = (op0 & 1) ? opsz : 1;
	struct kf_opnd rm, r;

	switch (op0 & 7) {
	case 0:
	case 1:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		r = kf_modrm_reg(insn, size);
		kf_alu(f, regs, op0 >> 3, &rm, &r);
		return true;
	case 2:
	case 3:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		r = kf_modrm_reg(insn, size);
		kf_alu(f, regs, op0 >> 3, &r, &rm);
		return true;
	default:
		r = kf_reg_opnd(KF_AX, size);
		rm = kf_imm_opnd(insn, size);
		kf_alu(f, regs, op0 >> 3, &r, &rm);
		return true;
	}
}

/* Group 3: TEST, NOT, NEG, MUL, IMUL, DIV, IDIV with an r/m operand. */
static bool kf_group3(struct kmemcheck_follow *f, struct pt_regs *regs,
		      const struct insn *insn, const struct kf_opnd *rm)
{
	unsigned int op = X86_MODRM_REG(insn->modrm.value);
	unsigned int size = rm->size;
	struct kf_opnd imm = kf_imm_opnd(insn, size);
	u32 u = kf_undef(f, regs, rm), ua = f->reg[KF_AX];
	u32 any;

	switch (op) {
	case 0:
	case 1:
		kf_alu(f, regs, KF_TEST, rm, &imm);
		return true;
	case 2:		/* NOT */
		kf_write(f, regs, rm, u);
		return true;
	case 3:		/* NEG */
		if (rm->kind == KF_MEM && u)
			kf_use(f, regs, KMEMCHECK_USE_ARITH, 0);
		kf_write(f, regs, rm, kf_smear(u));
		kf_write_flags(f, KF_ARITH, u ? KF_ARITH : 0);
		return true;
	case 4:		/* MUL, IMUL: %edx:%eax = %eax * r/m */
	case 5:
		if (ua & kf_mask(size))
			kf_reg(f, KF_AX);
		any = u | (ua & kf_mask(size));
		if (size == 1) {
			kf_write_reg(f, KF_AX, 0xffff, kf_all_or_none(any, 2));
		} else {
			kf_write_reg(f, KF_AX, kf_mask(size),
				     kf_all_or_none(any, size));
			kf_write_reg(f, KF_DX, kf_mask(size),
				     kf_all_or_none(any, size));
		}
		kf_write_flags(f, KF_ARITH, any ? KF_ARITH : 0);
		return true;
	default:	/* DIV, IDIV */
		if (u)
			kf_use(f, regs, KMEMCHECK_USE_DIVISOR, 0);
		any = (kf_reg(f, KF_AX) |
		       (size > 1 ? kf_reg(f, KF_DX) : 0)) &
		      kf_mask(size == 1 ? 2 : size);
		if (size == 1) {
			kf_write_reg(f, KF_AX, 0xffff, kf_all_or_none(any, 2));
		} else {
			kf_write_reg(f, KF_AX, kf_mask(size),
				     kf_all_or_none(any, size));
			kf_write_reg(f, KF_DX, kf_mask(size),
				     kf_all_or_none(any, size));
		}
		/*
		 * The flags DIV leaves are undefined to the architecture, not
		 * to kmemcheck: no code branches on them, and they hold no
		 * bit of memory unless the dividend does.
		 */
		kf_write_flags(f, KF_ARITH, any ? KF_ARITH : 0);
		return true;
	}
}

/* BT, BTS, BTR, BTC: CF takes the bit; BTS and BTR define it. */
static void kf_bit(struct kmemcheck_follow *f, struct pt_regs *regs,
		   unsigned int op, const struct kf_opnd *d, unsigned int bit)
{
	u32 u = kf_undef(f, regs, d);

	bit &= 8 * d->size - 1;
	kf_write_flags(f, KF_CF, (u & BIT(bit)) ? KF_CF : 0);
	if (op == 5 || op == 6)		/* BTS, BTR */
		kf_write(f, regs, d, u & ~BIT(bit));
	else if (op == 7)		/* BTC */
		kf_write(f, regs, d, u);
}

/*
 * CMPXCHG: ZF from the compare; the store happens only if it succeeds.
 * Either way the accumulator ends with the old value of the destination:
 * loaded if the compare failed, equal to it if it succeeded.
 */
static void kf_cmpxchg(struct kmemcheck_follow *f, struct pt_regs *regs,
		       const struct kf_opnd *d, const struct kf_opnd *s)
{
	struct kf_opnd acc = kf_reg_opnd(KF_AX, d->size);
	kf_src_t sd, ss;
	u32 ud, us;

	/* Each output takes the loads of what it is made of. */
	f->src = 0;
	ud = kf_undef(f, regs, d);
	sd = f->src;
	kf_alu(f, regs, KF_CMP, &acc, d);
	f->src = 0;
	us = kf_undef(f, regs, s);
	ss = f->src;
	if (d->kind == KF_REG) {
		/* Register forms: the outcome is not known yet; merge. */
		f->src = sd;
		kf_write(f, regs, &acc, ud);
		f->src = sd | ss;
		kf_write(f, regs, d, ud | us);
		return;
	}
	f->store = false;
	kf_write(f, regs, d, us);
	f->cmpxchg = f->store;
	f->src = sd;
	kf_write(f, regs, &acc, ud);
}

static bool kf_0f(struct kmemcheck_follow *f, struct pt_regs *regs,
		  const struct insn *insn, const struct kmemcheck_insn *ki,
		  unsigned int opsz)
{
	u8 op1 = insn->opcode.bytes[1];
	unsigned int reg = X86_MODRM_REG(insn->modrm.value);
	unsigned int size = (op1 & 1) ? opsz : 1;
	struct kf_opnd rm, r;
	kf_src_t src;
	u32 u;

	if (op1 >= 0x80 && op1 <= 0x8f) {		/* Jcc rel32 */
		if (kf_cc_undef(f, op1))
			kf_use(f, regs, KMEMCHECK_USE_BRANCH, 0);
		return true;
	}
	if (op1 >= 0x90 && op1 <= 0x9f) {		/* SETcc */
		if (!kf_rm(insn, ki, 1, &rm))
			return false;
		if (kf_cc_undef(f, op1))
			kf_use(f, regs, KMEMCHECK_USE_SELECT, 0);
		kf_write(f, regs, &rm, 0);
		return true;
	}
	if (op1 >= 0x40 && op1 <= 0x4f) {		/* CMOVcc */
		if (!kf_rm(insn, ki, opsz, &rm))
			return false;
		r = kf_modrm_reg(insn, opsz);
		if (kf_cc_undef(f, op1))
			kf_use(f, regs, KMEMCHECK_USE_SELECT, 0);
		else if (kf_cc_true(regs->flags, op1))
			kf_write(f, regs, &r, kf_undef(f, regs, &rm));
		return true;
	}
	if (op1 >= 0xc8 && op1 <= 0xcf) {		/* BSWAP */
		u = kf_reg(f, op1 - 0xc8);
		kf_set_reg(f, op1 - 0xc8, swab32(u));
		return true;
	}
	switch (op1) {
	case 0x0d:	/* PREFETCHW */
	case 0x18:	/* PREFETCHh */
	case 0x1f:	/* NOP r/m */
		return true;
	case 0x31:	/* RDTSC */
		kf_set_reg(f, KF_AX, 0);
		kf_set_reg(f, KF_DX, 0);
		return true;
	case 0xa2:	/* CPUID */
		kf_set_reg(f, KF_AX, 0);
		kf_set_reg(f, KF_BX, 0);
		kf_set_reg(f, KF_CX, 0);
		kf_set_reg(f, KF_DX, 0);
		return true;
	case 0xae:	/* fences; CLFLUSH */
		return X86_MODRM_MOD(insn->modrm.value) == 3 ? reg >= 5 :
		       reg == 7;
	case 0xb6:	/* MOVZX */
	case 0xb7:
	case 0xbe:	/* MOVSX */
	case 0xbf:
		size = (op1 & 1) ? 2 : 1;
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		u = kf_undef(f, regs, &rm);
		if (op1 >= 0xbe && (u & BIT(8 * size - 1)))
			u |= ~kf_mask(size);
		r = kf_modrm_reg(insn, opsz);
		kf_write(f, regs, &r, u);
		return true;
	case 0xaf:	/* IMUL r, r/m */
		if (!kf_rm(insn, ki, opsz, &rm))
			return false;
		r = kf_modrm_reg(insn, opsz);
		u = kf_undef(f, regs, &rm) | kf_undef(f, regs, &r);
		kf_write(f, regs, &r, kf_all_or_none(u, opsz));
		kf_write_flags(f, KF_ARITH, u ? KF_ARITH : 0);
		return true;
	case 0xa3:	/* BT, BTS, BTR, BTC r/m, reg */
	case 0xab:
	case 0xb3:
	case 0xbb:
		if (!kf_rm(insn, ki, opsz, &rm))
			return false;
		r = kf_modrm_reg(insn, opsz);
		if (kf_undef(f, regs, &r))
			kf_use(f, regs, rm.kind == KF_MEM ?
			       KMEMCHECK_USE_ADDRESS : KMEMCHECK_USE_COUNT, 0);
		kf_bit(f, regs, op1 == 0xa3 ? 4 : (op1 >> 3) & 7, &rm,
		       *kmemcheck_reg(regs, r.reg));
		return true;
	case 0xba:	/* BT, BTS, BTR, BTC r/m, imm8 */
		if (reg < 4 || !kf_rm(insn, ki, opsz, &rm))
			return false;
		kf_bit(f, regs, reg, &rm, insn->immediate.value);
		return true;
	case 0xa4:	/* SHLD, SHRD */
	case 0xa5:
	case 0xac:
	case 0xad:
		if (!kf_rm(insn, ki, opsz, &rm))
			return false;
		r = kf_modrm_reg(insn, opsz);
		u = kf_undef(f, regs, &rm) | kf_undef(f, regs, &r);
		if (op1 & 1)
			u |= kf_reg(f, KF_CX) & 31;
		kf_write(f, regs, &rm, kf_all_or_none(u, opsz));
		kf_write_flags(f, KF_ARITH, u ? KF_ARITH : 0);
		return true;
	case 0xb0:	/* CMPXCHG */
	case 0xb1:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		r = kf_modrm_reg(insn, size);
		kf_cmpxchg(f, regs, &rm, &r);
		return true;
	case 0xc0:	/* XADD */
	case 0xc1:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		r = kf_modrm_reg(insn, size);
		f->src = 0;
		u = kf_undef(f, regs, &rm);
		src = f->src;
		kf_alu(f, regs, KF_ADD, &rm, &r);
		/* The register takes the old destination, and its loads. */
		f->src = src;
		kf_write(f, regs, &r, u);
		return true;
	case 0xb8:	/* POPCNT */
	case 0xbc:	/* BSF, TZCNT */
	case 0xbd:	/* BSR, LZCNT */
		if ((op1 == 0xb8 && !insn_has_rep_prefix((struct insn *)insn)) ||
		    !kf_rm(insn, ki, opsz, &rm))
			return false;
		r = kf_modrm_reg(insn, opsz);
		u = kf_undef(f, regs, &rm);
		kf_write(f, regs, &r, kf_all_or_none(u, opsz));
		kf_write_flags(f, KF_ARITH, u ? KF_ARITH : 0);
		return true;
	case 0xc7:	/* CMPXCHG8B */
		if (reg != 1 || !ki->nr)
			return false;
		f->src = 0;
		u = kf_mem_undef(f, regs, ki->access[0].addr, 4) |
		    kf_mem_undef(f, regs, ki->access[0].addr + 4, 4);
		src = f->src;
		/*
		 * atomic64_set_cx8() loops until it stores, whatever it
		 * compared: its ZF decides nothing (see fault.c).
		 */
		if (regs->ip != (unsigned long)atomic64_set_cx8 &&
		    (u || kf_reg(f, KF_AX) || kf_reg(f, KF_DX)))
			kf_write_flags(f, KF_ZF, KF_ZF);
		else
			kf_write_flags(f, KF_ZF, 0);
		f->store = false;
		kf_store(f, regs, ki->access[0].addr, 8,
			 kf_reg(f, KF_BX) | (u64)kf_reg(f, KF_CX) << 32);
		f->cmpxchg = f->store;
		/* %edx:%eax end with the old value, as CMPXCHG's accumulator. */
		f->src = src;
		kf_set_reg(f, KF_AX,
			   kf_mem_undef(f, regs, ki->access[0].addr, 4));
		kf_set_reg(f, KF_DX,
			   kf_mem_undef(f, regs, ki->access[0].addr + 4, 4));
		return true;
	}
	return false;
}

/* String instructions: one element, at %esi and/or %edi. */
static bool kf_string(struct kmemcheck_follow *f, struct pt_regs *regs,
		      const struct insn *insn, const struct kmemcheck_insn *ki,
		      unsigned int opsz)
{
	u8 op0 = insn->opcode.bytes[0];
	unsigned int size = (op0 & 1) ? opsz : 1;
	struct kf_opnd acc = kf_reg_opnd(KF_AX, size);
	u32 u;

	if ((ki->flags & KMEMCHECK_INSN_REP) && kf_reg(f, KF_CX))
		kf_use(f, regs, KMEMCHECK_USE_COUNT, 0);
	if (kf_reg(f, KF_SI) || kf_reg(f, KF_DI))
		kf_use(f, regs, KMEMCHECK_USE_ADDRESS, 0);
	if (!ki->nr)
		return true;
	switch (op0) {
	case 0xa4:	/* MOVS */
	case 0xa5:
		u = kf_mem_undef(f, regs, ki->access[0].addr, size);
		kf_store(f, regs, ki->access[1].addr, size, u);
		return true;
	case 0xaa:	/* STOS */
	case 0xab:
		kf_store(f, regs, ki->access[0].addr, size,
			 kf_undef(f, regs, &acc));
		return true;
	case 0xac:	/* LODS */
	case 0xad:
		kf_write(f, regs, &acc,
			 kf_mem_undef(f, regs, ki->access[0].addr, size));
		return true;
	default:	/* CMPS, SCAS */
		u = kf_mem_undef(f, regs, ki->access[0].addr, size);
		if (ki->nr > 1)
			u |= kf_mem_undef(f, regs, ki->access[1].addr, size);
		else
			u |= kf_undef(f, regs, &acc);
		kf_write_flags(f, KF_ARITH, u ? KF_ARITH : 0);
		return true;
	}
}

/*
 * STI holds interrupts off for one more instruction: "sti; hlt" must not
 * take the wakeup before it halts, nor "sti; sysexit" an interrupt on the
 * kernel stack with user registers.  A step would end that shadow: with
 * such an instruction next, the window ends at STI, which runs as it is.
 * Elsewhere STI is modelled as CLI is: the code's flag, not the real one.
 */
static bool kf_sti_shadowed(const struct pt_regs *regs)
{
	u8 next[3];

	if (copy_from_kernel_nofault(next, (void *)(regs->ip + 1),
				     sizeof(next)))
		return true;
	return next[0] == 0xf4 ||					/* HLT */
	       (next[0] == 0x0f && next[1] == 0x35) ||			/* SYSEXIT */
	       (next[0] == 0x0f && next[1] == 0x01 && next[2] == 0xc9);	/* MWAIT */
}

/* A NOP or a prefetch with a memory operand: 0f 1f, 0f 18, 0f 0d. */
static bool kf_touches_nothing(const struct insn *insn)
{
	u8 op1 = insn->opcode.bytes[1];

	return insn->opcode.nbytes == 2 && insn->opcode.bytes[0] == 0x0f &&
	       (op1 == 0x1f || op1 == 0x18 || op1 == 0x0d);
}

/*
 * Model one instruction about to run: check its uses, compute what it
 * leaves undefined.  Return: false if it is not modelled.
 */
static bool kf_model(struct kmemcheck_follow *f, struct pt_regs *regs,
		     const struct insn *insn, const struct kmemcheck_insn *ki)
{
	u8 op0 = insn->opcode.bytes[0];
	unsigned int opsz = insn->opnd_bytes;
	unsigned int reg = X86_MODRM_REG(insn->modrm.value);
	unsigned int size = (op0 & 1) ? opsz : 1;
	struct kf_opnd rm, r, imm;
	unsigned long *top;
	kf_src_t src;
	u32 u;

	/*
	 * A memory operand whose address is undefined is a use, but for LEA,
	 * which computes a value, and the NOPs and prefetches, which touch
	 * nothing: the alternatives patch NOPs such as "nopl 0(%eax,%eax)"
	 * into code whatever %eax holds.
	 */
	if (kf_addr_undef(f, insn) && op0 != 0x8d && !kf_touches_nothing(insn))
		kf_use(f, regs, KMEMCHECK_USE_ADDRESS, 0);

	if (insn->opcode.nbytes == 2 && op0 == 0x0f)
		return kf_0f(f, regs, insn, ki, opsz);
	if (insn->opcode.nbytes != 1)
		return false;
	if (op0 < 0x40 && (op0 & 7) < 6)
		return kf_alu_0x(f, regs, insn, ki, opsz);
	if (op0 >= 0x40 && op0 <= 0x4f) {		/* INC, DEC r32 */
		r = kf_reg_opnd(op0 & 7, opsz);
		u = kf_undef(f, regs, &r);
		kf_write(f, regs, &r, kf_smear(u));
		kf_write_flags(f, KF_ARITH & ~KF_CF, u ? KF_ARITH & ~KF_CF : 0);
		return true;
	}
	if (op0 >= 0x50 && op0 <= 0x57) {		/* PUSH r32 */
		kf_push(f, regs, opsz, kf_reg(f, op0 & 7) & kf_mask(opsz));
		return true;
	}
	if (op0 >= 0x58 && op0 <= 0x5f) {		/* POP r32 */
		r = kf_reg_opnd(op0 & 7, opsz);
		kf_write(f, regs, &r, kf_pop(f, regs, opsz));
		return true;
	}
	if (op0 >= 0x70 && op0 <= 0x7f) {		/* Jcc rel8 */
		if (kf_cc_undef(f, op0))
			kf_use(f, regs, KMEMCHECK_USE_BRANCH, 0);
		return true;
	}
	if (op0 >= 0x91 && op0 <= 0x97) {		/* XCHG %eax, r32 */
		swap(f->reg[KF_AX], f->reg[op0 & 7]);
		swap(f->reg_src[KF_AX], f->reg_src[op0 & 7]);
		return true;
	}
	if (op0 >= 0xb0 && op0 <= 0xbf) {		/* MOV r, imm */
		r = kf_reg_opnd(op0 & 7, op0 >= 0xb8 ? opsz : 1);
		kf_write(f, regs, &r, 0);
		return true;
	}
	if (op0 >= 0xa4 && op0 <= 0xaf && op0 != 0xa8 && op0 != 0xa9)
		return kf_string(f, regs, insn, ki, opsz);

	switch (op0) {
	case 0x68:	/* PUSH imm */
	case 0x6a:
		kf_push(f, regs, opsz, 0);
		return true;
	case 0x69:	/* IMUL r, r/m, imm */
	case 0x6b:
		if (!kf_rm(insn, ki, opsz, &rm))
			return false;
		r = kf_modrm_reg(insn, opsz);
		u = kf_undef(f, regs, &rm);
		kf_write(f, regs, &r, kf_all_or_none(u, opsz));
		kf_write_flags(f, KF_ARITH, u ? KF_ARITH : 0);
		return true;
	case 0x80:	/* group 1 r/m, imm */
	case 0x81:
	case 0x82:
	case 0x83:
		size = op0 == 0x81 || op0 == 0x83 ? opsz : 1;
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		imm = kf_imm_opnd(insn, size);
		kf_alu(f, regs, reg, &rm, &imm);
		return true;
	case 0x84:	/* TEST r/m, r */
	case 0x85:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		r = kf_modrm_reg(insn, size);
		kf_alu(f, regs, KF_TEST, &rm, &r);
		return true;
	case 0x86:	/* XCHG r/m, r */
	case 0x87:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		r = kf_modrm_reg(insn, size);
		/* Each side takes the other's bits, and their loads. */
		f->src = 0;
		u = kf_undef(f, regs, &rm);
		src = f->src;
		f->src = 0;
		kf_write(f, regs, &rm, kf_undef(f, regs, &r));
		f->src = src;
		kf_write(f, regs, &r, u);
		return true;
	case 0x88:	/* MOV r/m, r */
	case 0x89:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		r = kf_modrm_reg(insn, size);
		kf_write(f, regs, &rm, kf_undef(f, regs, &r));
		return true;
	case 0x8a:	/* MOV r, r/m */
	case 0x8b:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		r = kf_modrm_reg(insn, size);
		kf_write(f, regs, &r, kf_undef(f, regs, &rm));
		return true;
	case 0x8c:	/* MOV r/m, Sreg */
		if (!kf_rm(insn, ki, X86_MODRM_MOD(insn->modrm.value) == 3 ?
			   opsz : 2, &rm))
			return false;
		kf_write(f, regs, &rm, 0);
		return true;
	case 0x8d:	/* LEA: an address computed, not used */
		if (X86_MODRM_MOD(insn->modrm.value) == 3)
			return false;
		r = kf_modrm_reg(insn, opsz);
		kf_write(f, regs, &r, kf_smear(kf_addr_undef(f, insn)));
		return true;
	case 0x8f:	/* POP r/m */
		if (reg || !kf_rm(insn, ki, opsz, &rm))
			return false;
		kf_write(f, regs, &rm, kf_pop(f, regs, opsz));
		return true;
	case 0x90:	/* NOP, PAUSE */
		return true;
	case 0x98:	/* CBW, CWDE */
		u = kf_reg(f, KF_AX) & kf_mask(opsz / 2);
		if (u & BIT(4 * opsz - 1))
			u |= kf_mask(opsz) & ~kf_mask(opsz / 2);
		kf_write_reg(f, KF_AX, kf_mask(opsz), u);
		return true;
	case 0x99:	/* CWD, CDQ */
		u = (kf_reg(f, KF_AX) & BIT(8 * opsz - 1)) ? kf_mask(opsz) : 0;
		kf_write_reg(f, KF_DX, kf_mask(opsz), u);
		return true;
	case 0x9c:	/* PUSHF: the arithmetic flags, undefined or not */
		if (opsz != 4)
			return false;
		kf_push(f, regs, 4, kf_rflags(f, KF_ARITH));
		f->irq = KF_IRQ_PUSHED;
		return true;
	case 0x9d:	/* POPF */
		if (opsz != 4)
			return false;
		kf_write_flags(f, KF_ARITH, kf_pop(f, regs, 4));
		/*
		 * The code's IF is kept; the step pops ours, with TF set,
		 * so that it traps and interrupts stay off.  POPF cannot
		 * fault: the word is at %esp.
		 */
		top = (unsigned long *)regs->sp;
		f->popped_if = *top & X86_EFLAGS_IF;
		*top = (*top & ~X86_EFLAGS_IF) | X86_EFLAGS_TF;
		f->irq = KF_IRQ_POPPED;
		return true;
	case 0xfa:	/* CLI */
		f->irq = KF_IRQ_OFF;
		return true;
	case 0xfb:	/* STI */
		if (kf_sti_shadowed(regs))
			return false;
		f->irq = KF_IRQ_ON;
		return true;
	case 0x9e:	/* SAHF */
		u = (kf_reg(f, KF_AX) >> 8) & 0xff;
		kf_write_flags(f, KF_ARITH & ~KF_OF, u & (KF_ARITH & ~KF_OF));
		return true;
	case 0x9f:	/* LAHF */
		u = kf_rflags(f, KF_ARITH & ~KF_OF) ? 0xff00 : 0;
		kf_write_reg(f, KF_AX, 0xff00, u);
		return true;
	case 0xa0:	/* MOV %al/%eax, moffs and back */
	case 0xa1:
	case 0xa2:
	case 0xa3:
		if (!ki->nr)
			return false;
		rm = (struct kf_opnd){ .kind = KF_MEM, .size = size,
				       .addr = ki->access[0].addr };
		r = kf_reg_opnd(KF_AX, size);
		if (op0 < 0xa2)
			kf_write(f, regs, &r, kf_undef(f, regs, &rm));
		else
			kf_write(f, regs, &rm, kf_undef(f, regs, &r));
		return true;
	case 0xa8:	/* TEST %al/%eax, imm */
	case 0xa9:
		r = kf_reg_opnd(KF_AX, size);
		imm = kf_imm_opnd(insn, size);
		kf_alu(f, regs, KF_TEST, &r, &imm);
		return true;
	case 0xc0:	/* group 2 by imm8, by 1, by %cl */
	case 0xc1:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		if (op0 <= 0xc1)
			kf_shift(f, regs, reg, &rm, insn->immediate.value, 0);
		else if (op0 <= 0xd1)
			kf_shift(f, regs, reg, &rm, 1, 0);
		else
			kf_shift(f, regs, reg, &rm, regs->cx, kf_reg(f, KF_CX));
		return true;
	case 0xc2:	/* RET imm16, RET */
	case 0xc3:
		if (kf_pop(f, regs, 4))
			kf_use(f, regs, KMEMCHECK_USE_ADDRESS, 0);
		return true;
	case 0xc6:	/* MOV r/m, imm */
	case 0xc7:
		if (reg || !kf_rm(insn, ki, size, &rm))
			return false;
		kf_write(f, regs, &rm, 0);
		return true;
	case 0xc9:	/* LEAVE */
		if (kf_reg(f, KF_BP))
			kf_use(f, regs, KMEMCHECK_USE_ADDRESS, 0);
		kf_set_reg(f, KF_SP, 0);
		kf_set_reg(f, KF_BP, kf_stack_load(f, regs->bp, 4));
		return true;
	case 0xd7:	/* XLAT */
		if (kf_reg(f, KF_BX) || (kf_reg(f, KF_AX) & 0xff))
			kf_use(f, regs, KMEMCHECK_USE_ADDRESS, 0);
		kf_write_reg(f, KF_AX, 0xff, 0);
		return true;
	case 0xe0:	/* LOOPNE, LOOPE, LOOP, JECXZ */
	case 0xe1:
	case 0xe2:
	case 0xe3:
		if (kf_reg(f, KF_CX) ||
		    (op0 < 0xe2 && kf_cc_undef(f, 4)))
			kf_use(f, regs, KMEMCHECK_USE_BRANCH, 0);
		return true;
	case 0xe8:	/* CALL rel32: the return address is defined */
		kf_push(f, regs, 4, 0);
		return true;
	case 0xe9:	/* JMP rel */
	case 0xeb:
	case 0xf8:	/* CLC, STC, CMC, CLD, STD */
	case 0xf9:
	case 0xf5:
	case 0xfc:
	case 0xfd:
		if (op0 == 0xf8 || op0 == 0xf9)
			kf_write_flags(f, KF_CF, 0);
		return true;
	case 0xf6:	/* group 3 */
	case 0xf7:
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		return kf_group3(f, regs, insn, &rm);
	case 0xfe:	/* group 4: INC, DEC r/m8 */
	case 0xff:	/* group 5 */
		if (!kf_rm(insn, ki, size, &rm))
			return false;
		u = kf_undef(f, regs, &rm);
		switch (reg) {
		case 0:	/* INC, DEC */
		case 1:
			if (rm.kind == KF_MEM && u)
				kf_use(f, regs, KMEMCHECK_USE_ARITH, 0);
			kf_write(f, regs, &rm, kf_smear(u));
			kf_write_flags(f, KF_ARITH & ~KF_CF, u ? KF_ARITH & ~KF_CF : 0);
			return true;
		case 2:	/* CALL r/m */
		case 4:	/* JMP r/m */
			if (op0 != 0xff)
				return false;
			if (u)
				kf_use(f, regs, KMEMCHECK_USE_ADDRESS, 0);
			if (reg == 2)
				kf_push(f, regs, 4, 0);
			return true;
		case 6:	/* PUSH r/m */
			if (op0 != 0xff)
				return false;
			kf_push(f, regs, opsz, u);
			return true;
		}
		return false;
	}
	return false;
}

/*
 * Does anything stay undefined?  Stack words above the stack pointer are
 * dead: the frames that held them have returned.
 */
static bool kf_live(struct kmemcheck_follow *f, const struct pt_regs *regs)
{
	bool live = f->flags;
	unsigned int i;

	for (i = 0; i < 8; i++)
		live |= f->reg[i] != 0;
	for (i = 0; i < KMEMCHECK_FOLLOW_SLOTS; i++) {
		if (f->slot[i].undef && f->slot[i].addr + 4 <= regs->sp) {
			f->slot[i].undef = 0;
			f->slot[i].src = 0;
		}
		live |= f->slot[i].undef != 0;
	}
	return live;
}

static void kf_stop(struct kmemcheck_follow *f, enum kmemcheck_counter why)
{
	f->active = false;
	kmemcheck_count(why);
}

/*
 * Registers a callee must keep for its caller, in the i386 kernel ABI: it
 * saves one before it writes it and restores it before it returns.  They
 * hold a function's variables across its calls, as its stack words do;
 * %eax, %ecx, %edx and the flags hold the value being computed, and do
 * not outlive a call.
 */
static bool kf_callee_saved(unsigned int n)
{
	return n == KF_BX || n == KF_BP || n == KF_SI || n == KF_DI;
}

/*
 * The loads of the undefined bits of the value being computed, in the
 * flags and the registers that are not callee-saved; @live: are there any?
 */
static kf_src_t kf_computed_src(const struct kmemcheck_follow *f, bool *live)
{
	kf_src_t src = kf_flags_src(f, KF_ARITH);
	unsigned int i;

	*live = f->flags;
	for (i = 0; i < 8; i++) {
		if (f->reg[i] && !kf_callee_saved(i)) {
			src |= f->reg_src[i];
			*live = true;
		}
	}
	return src;
}

/* When the load a report names for @src (kf_first_load()) last ran. */
static unsigned int kf_load_at(const struct kmemcheck_follow *f, kf_src_t src)
{
	src &= BIT(f->nr_loads) - 1;
	return src ? f->load_at[__ffs(src)] : 0;
}

/* When the youngest load whose bits are left anywhere last ran. */
static unsigned int kf_youngest_load(const struct kmemcheck_follow *f)
{
	kf_src_t src = kf_flags_src(f, KF_ARITH);
	unsigned int i, at = 0;

	for (i = 0; i < 8; i++) {
		if (f->reg[i])
			src |= f->reg_src[i];
	}
	for (i = 0; i < KMEMCHECK_FOLLOW_SLOTS; i++) {
		if (f->slot[i].undef)
			src |= f->slot[i].src;
	}
	for (i = 0; i < f->nr_loads; i++) {
		if (src & BIT(i))
			at = max(at, f->load_at[i]);
	}
	return at;
}

/*
 * Following ends before a judgement.  Undefined bits left in the value
 * being computed (%eax, %ecx, %edx, the flags) are reported at their first
 * load, as with kmemcheck.follow=0, and the report says how far they went.
 * Bits left only in variables (stack words and callee-saved registers)
 * are dropped, unreported: padding copied into a local lives as long as
 * its frame, and is no bug; GCC reads a 16-bit field with a 32-bit MOV,
 * padding and all, into %edi, and keeps it there across the calls of the
 * function (virtqueue_get_buf_ctx() and last_used_idx).  A variable used
 * after such an end is missed.  Both ends are counted.
 */
static void kf_give_up(struct kmemcheck_follow *f, const struct pt_regs *regs,
		       enum kmemcheck_unjudged why)
{
	struct kmemcheck_load load;
	bool live;
	kf_src_t src = kf_computed_src(f, &live);

	/* Reported already, by the instruction that could not complete. */
	if (f->used) {
		kf_stop(f, KMEMCHECK_COUNTER_FOLLOW_USED);
		return;
	}
	kmemcheck_count(KMEMCHECK_COUNTER_FOLLOW_END + why);
	/*
	 * A context switch leaves callee-saved registers as they were, and
	 * an instruction that faulted runs again after the fault: what they
	 * hold is not lost to the code, only to kmemcheck.
	 */
	if (!live || why == KMEMCHECK_UNJUDGED_STACK ||
	    why == KMEMCHECK_UNJUDGED_FAULT) {
		kf_stop(f, KMEMCHECK_COUNTER_FOLLOW_DROPPED);
		return;
	}
	load = kf_first_load(f, src);
	kmemcheck_report_unjudged(&load, f->insns - kf_load_at(f, src),
				  regs->ip, why);
	kf_stop(f, KMEMCHECK_COUNTER_FOLLOW_UNJUDGED);
}

/*
 * Past the bound: no load whose bits are left ran in the last
 * KMEMCHECK_FOLLOW_MAX_INSNS instructions, or the grace is over.  Counted
 * from the start of the window, a window that met a second load after
 * 4,000 instructions of the first would end a few instructions later, not
 * judged, and report the fresh value in %eax; counted from the last run
 * of the youngest load, a value is followed for as long wherever in the
 * window it was read.
 */
static bool kf_past_bound(const struct kmemcheck_follow *f)
{
	if (f->insns < KMEMCHECK_FOLLOW_MAX_INSNS)
		return false;
	if (f->insns >= KMEMCHECK_FOLLOW_MAX_INSNS + KMEMCHECK_FOLLOW_GRACE)
		return true;
	return f->insns - kf_youngest_load(f) >= KMEMCHECK_FOLLOW_MAX_INSNS;
}

/*
 * Model @insn for @f.  Returns false, with nothing changed, if the model
 * does not cover it.
 */
static bool kf_step(struct kmemcheck_follow *f, struct pt_regs *regs,
		    const struct insn *insn, const struct kmemcheck_insn *ki)
{
	struct kmemcheck_follow *before = this_cpu_ptr(&kmemcheck_follow_before);

	*before = *f;
	f->src = 0;
	f->store = false;
	f->cmpxchg = false;
	f->irq = KF_IRQ_SAME;
	if (!kf_model(f, regs, insn, ki)) {
		/* Not modelled, but maybe reported: not twice. */
		bool used = f->used;

		*f = *before;
		f->used = used;
		return false;
	}
	f->insns++;
	kmemcheck_count(KMEMCHECK_COUNTER_FOLLOW_INSNS);
	return true;
}

/* The stack @regs runs on, to tell when the code leaves it. */
static unsigned long kf_stack_of(const struct pt_regs *regs)
{
	return regs->sp & ~(THREAD_SIZE - 1);
}

/**
 * kmemcheck_follow_start() - follow the value an instruction reads?
 * @regs:	registers at the fault
 * @insn:	the faulting instruction
 * @ki:		its accesses; the tracked pages they touch are shown
 *
 * Called for a fault outside NMI and outside any other step, before the
 * instruction is checked.  If it reads uninitialized bytes (and no freed
 * or unallocated ones) and the model covers it, it is not checked but
 * followed: the caller single-steps it, and kmemcheck_follow_retire() and
 * kmemcheck_follow_next() take over from the debug trap.
 *
 * Return: true if the instruction is followed.
 */
bool kmemcheck_follow_start(struct pt_regs *regs, const struct insn *insn,
			    const struct kmemcheck_insn *ki)
{
	struct kmemcheck_follow *f = this_cpu_ptr(&kmemcheck_follow);
	unsigned long bad;
	unsigned int i;

	if (f->active || (ki->flags & KMEMCHECK_INSN_COPY))
		return false;
	for (i = 0; i < ki->nr; i++) {
		if ((ki->access[i].kind & KMEMCHECK_ACCESS_READ) &&
		    kmemcheck_range_uninit(ki->access[i].addr,
					   ki->access[i].size, &bad))
			break;
	}
	if (i == ki->nr)
		return false;

	memset(f, 0, sizeof(*f));
	f->stack = kf_stack_of(regs);
	/* The model finds it again: the same instruction. */
	kf_new_load(f, regs, regs->ip, ki->access[i].addr, ki->access[i].size,
		    bad);
	if (!kf_step(f, regs, insn, ki))
		return false;
	f->active = true;
	kmemcheck_count(KMEMCHECK_COUNTER_FOLLOWED);
	return true;
}

NOKPROBE_SYMBOL(kmemcheck_follow_start);

/*
 * The code's interrupt flag in @flags after an instruction that changed
 * it.  The step ran with the real flag clear: a PUSHF pushed it clear,
 * and with our TF set, so the word on the stack gets the code's flags.
 */
static void kf_retire_irq(struct kmemcheck_follow *f, struct pt_regs *regs,
			  unsigned long *flags)
{
	const unsigned long mask = X86_EFLAGS_TF | X86_EFLAGS_IF;
	unsigned long *top = (unsigned long *)regs->sp;

	switch (f->irq) {
	case KF_IRQ_SAME:
		break;
	case KF_IRQ_OFF:
		*flags &= ~X86_EFLAGS_IF;
		break;
	case KF_IRQ_ON:
		*flags |= X86_EFLAGS_IF;
		break;
	case KF_IRQ_POPPED:
		*flags = (*flags & ~X86_EFLAGS_IF) | f->popped_if;
		break;
	case KF_IRQ_PUSHED:
		*top = (*top & ~mask) | (*flags & mask);
		break;
	}
	f->irq = KF_IRQ_SAME;
}

/**
 * kmemcheck_follow_copy() - follow what a copy left undefined on the stack
 * @regs:	registers after the copy
 * @ip:		address of the copy
 * @src:	its tracked source
 * @dst:	its destination, on the stack
 * @size:	number of bytes copied
 *
 * "tmp = *obj;" copies a structure, padding and all, into a stack local:
 * no use of the bytes.  Its uninitialized bytes are followed from the
 * next instruction, as a load's: a later use of a field nobody wrote is
 * reported there.  Those beyond the stack words a window holds are lost,
 * and counted ("stack bytes not followed").
 *
 * Return: true if undefined bits went to the stack: the caller steps the
 * next instruction and follows them.
 */
bool kmemcheck_follow_copy(struct pt_regs *regs, unsigned long ip,
			   unsigned long src, unsigned long dst, size_t size)
{
	struct kmemcheck_follow *f = this_cpu_ptr(&kmemcheck_follow);
	unsigned long bad = 0;
	struct pt_regs at;
	size_t i;

	if (f->active)
		return false;
	for (i = 0; i < size && !bad; i++) {
		if (kmemcheck_value_undef(src + i))
			bad = src + i;
	}
	if (!bad)
		return false;
	memset(f, 0, sizeof(*f));
	f->stack = kf_stack_of(regs);
	/* The stack of the copy: the registers after it, at its address. */
	at = *regs;
	at.ip = ip;
	kf_new_load(f, &at, ip, src, size, bad);
	f->src = BIT(0);
	for (i = bad - src; i < size; i++) {
		u8 undef = kmemcheck_value_undef(src + i);

		if (undef && !kf_stack_store(f, dst + i, 1, undef))
			kmemcheck_count(KMEMCHECK_COUNTER_STACK_LOST);
	}
	f->active = true;
	kmemcheck_count(KMEMCHECK_COUNTER_FOLLOWED);
	return true;
}

NOKPROBE_SYMBOL(kmemcheck_follow_copy);

/**
 * kmemcheck_follow_retire() - the followed instruction has run
 * @regs:	registers after it
 * @flags:	TF and IF as the code has them, which it may have changed
 *
 * Records its store in the shadow, or on the stack.  CLI, STI and POPF
 * change the code's interrupt flag in @flags, not the real one, which
 * stays clear while kmemcheck steps.
 *
 * Return: true if undefined bits are left to follow.
 */
bool kmemcheck_follow_retire(struct pt_regs *regs, unsigned long *flags)
{
	struct kmemcheck_follow *f = this_cpu_ptr(&kmemcheck_follow);
	bool ok = true;

	if (!f->active)
		return false;
	kf_retire_irq(f, regs, flags);
	/* A CMPXCHG that failed stored nothing. */
	if (f->cmpxchg && !(regs->flags & X86_EFLAGS_ZF))
		f->store = false;
	f->src = f->store_src;
	if (f->store && kf_on_stack(regs, f->store_addr))
		ok = kf_stack_store(f, f->store_addr, f->store_size,
				    f->store_undef);
	else if (f->store)
		kmemcheck_value_store(f->store_addr, f->store_size,
				      f->store_undef);
	f->store = false;
	f->cmpxchg = false;

	if (f->used)
		kf_stop(f, KMEMCHECK_COUNTER_FOLLOW_USED);
	else if (kf_stack_of(regs) != f->stack)
		kf_give_up(f, regs, KMEMCHECK_UNJUDGED_STACK);
	else if (!kf_live(f, regs))
		kf_stop(f, KMEMCHECK_COUNTER_FOLLOW_DIED);
	else if (!ok)
		kf_give_up(f, regs, KMEMCHECK_UNJUDGED_SPILL);
	else if (kf_past_bound(f))
		kf_give_up(f, regs, KMEMCHECK_UNJUDGED_BOUND);
	return f->active;
}

NOKPROBE_SYMBOL(kmemcheck_follow_retire);

/**
 * kmemcheck_follow_next() - model the next instruction of a followed value
 * @regs:	registers before it
 * @insn:	the instruction, decoded
 * @ki:		its accesses; the tracked pages they touch are shown
 *
 * Return: true if it is to be single-stepped and followed; false if
 * following ends here, and the instruction runs as any other.
 */
bool kmemcheck_follow_next(struct pt_regs *regs, const struct insn *insn,
			   const struct kmemcheck_insn *ki)
{
	struct kmemcheck_follow *f = this_cpu_ptr(&kmemcheck_follow);

	if (!f->active)
		return false;
	if (!kf_step(f, regs, insn, ki)) {
		kf_give_up(f, regs, KMEMCHECK_UNJUDGED_INSN);
		return false;
	}
	return true;
}

NOKPROBE_SYMBOL(kmemcheck_follow_next);

/**
 * kmemcheck_follow_cancel() - the next instruction cannot be followed
 * @regs:	registers at its address
 * @why:	it raised an exception, or could not be decoded
 *
 * What it would have stored is forgotten, and following ends there,
 * unjudged.
 */
void kmemcheck_follow_cancel(const struct pt_regs *regs,
			     enum kmemcheck_unjudged why)
{
	struct kmemcheck_follow *f = this_cpu_ptr(&kmemcheck_follow);

	if (f->active)
		kf_give_up(f, regs, why);
}

NOKPROBE_SYMBOL(kmemcheck_follow_cancel);
