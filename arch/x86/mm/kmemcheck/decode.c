// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck: the memory a faulting x86-32 instruction touches
 *
 * The in-tree decoder (arch/x86/lib/insn.c) splits an instruction into
 * prefixes, opcode, ModRM, SIB, displacement and immediate; the tables
 * below say which of those forms access memory, how (read, write or both)
 * and how wide: insn->opnd_bytes is the operand-size attribute, not the
 * width of the memory operand (byte forms, MOVZX, CMPXCHG8B, x87, SSE).
 *
 * Only explicit memory operands are described: the ModRM one, the moffs
 * of MOV A0-A3 and the implicit %esi/%edi operands of the string and
 * port string instructions.  The stack accesses of PUSH, POP, CALL and
 * RET are left out: kmemcheck never tracks stacks.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/uaccess.h>

#include <asm/insn.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>
#include <asm/segment.h>

#include "decode.h"

/* ==== The tables ===================================================== */

/* What a table entry says about the memory form of an opcode. */
enum op_kind {
	OP_NONE = 0,		/* not known: -EOPNOTSUPP */
	OP_READ = KMEMCHECK_ACCESS_READ,
	OP_WRITE = KMEMCHECK_ACCESS_WRITE,
	OP_RMW = KMEMCHECK_ACCESS_RMW,
	OP_NOACCESS,		/* LEA, NOP, PREFETCH, CLFLUSH, INVLPG */
	OP_GROUP,		/* ModRM.reg selects: @size is a GRP_* */
	OP_SIMD,		/* 66/F2/F3 selects: @size indexes simd[] */
	OP_X87,			/* ModRM.reg selects: @size is opcode - 0xd8 */
};

/* Widths that depend on the operand-size attribute (prefix 0x66). */
enum {
	SZ_V = 0x8000,		/* 4, or 2 with 0x66 */
	SZ_FAR,			/* far pointer: SZ_V + 2 (LSS, LFS, LGS) */
	SZ_ENV,			/* x87 environment: 28, or 14 with 0x66 */
	SZ_STATE,		/* x87 state (FNSAVE): 108, or 94 with 0x66 */
};

/* The memory form of one opcode, or of one ModRM.reg value of a group. */
struct op_desc {
	u16 size;		/* bytes (up to 512), SZ_*, GRP_* or index */
	u8 kind;		/* enum op_kind */
};

#define R(sz)	{ .kind = OP_READ, .size = (sz) }
#define W(sz)	{ .kind = OP_WRITE, .size = (sz) }
#define M(sz)	{ .kind = OP_RMW, .size = (sz) }
#define NOACC	{ .kind = OP_NOACCESS }
#define G(grp)	{ .kind = OP_GROUP, .size = (grp) }
#define S(idx)	{ .kind = OP_SIMD, .size = (idx) }
#define V	SZ_V

/* Opcode groups: the instruction depends on ModRM.reg. */
enum {
	GRP1_B,			/* 80: ALU Eb,Ib */
	GRP1_V,			/* 81, 83: ALU Ev,Iz/Ib */
	GRP1A,			/* 8f: POP Ev */
	GRP2_B,			/* c0, d0, d2: shifts and rotates of Eb */
	GRP2_V,			/* c1, d1, d3: shifts and rotates of Ev */
	GRP3_B,			/* f6: TEST, NOT, NEG, MUL, IMUL, DIV, IDIV */
	GRP3_V,			/* f7: the same for Ev */
	GRP4,			/* fe: INC, DEC Eb */
	GRP5,			/* ff: INC, DEC, CALL, JMP, PUSH Ev */
	GRP6,			/* 0f 00: SLDT, STR, LLDT, LTR, VERR, VERW */
	GRP7,			/* 0f 01: SGDT, SIDT, LGDT, LIDT, SMSW, ... */
	GRP8,			/* 0f ba: BT, BTS, BTR, BTC Ev,Ib */
	GRP9,			/* 0f c7: CMPXCHG8B */
	GRP11_B,		/* c6: MOV Eb,Ib */
	GRP11_V,		/* c7: MOV Ev,Iz */
	GRP15,			/* 0f ae: FXSAVE, FXRSTOR, LDMXCSR, ... */
	GRP15_66,		/* 66 0f ae: CLWB, CLFLUSHOPT */
	GRP16,			/* 0f 18: PREFETCHNTA, PREFETCHT0-2 */
	GRP_PREFETCH,		/* 0f 0d: PREFETCH, PREFETCHW (3DNow!) */
	GRP_NOP,		/* 0f 1f: NOP Ev */
	NR_GROUPS
};

static const struct op_desc groups[NR_GROUPS][8] = {
	[GRP1_B] = { [0 ... 6] = M(1), [7] = R(1) },	/* 7: CMP */
	[GRP1_V] = { [0 ... 6] = M(V), [7] = R(V) },
	[GRP1A] = { [0] = W(V) },
	/* 6 is an undocumented alias of SHL that compilers never emit. */
	[GRP2_B] = { [0 ... 5] = M(1), [7] = M(1) },
	[GRP2_V] = { [0 ... 5] = M(V), [7] = M(V) },
	[GRP3_B] = { [0] = R(1), [2 ... 3] = M(1), [4 ... 7] = R(1) },
	[GRP3_V] = { [0] = R(V), [2 ... 3] = M(V), [4 ... 7] = R(V) },
	[GRP4] = { [0 ... 1] = M(1) },
	/* 2-5: a function pointer is read (3, 5: far, by the BIOS calls) */
	[GRP5] = { [0 ... 1] = M(V), [2] = R(V), [3] = R(SZ_FAR),
		   [4] = R(V), [5] = R(SZ_FAR), [6] = R(V) },
	[GRP6] = { [0 ... 1] = W(2), [2 ... 5] = R(2) },
	/* A pseudo-descriptor is 6 bytes whatever the operand size. */
	[GRP7] = { [0 ... 1] = W(6), [2 ... 3] = R(6), [4] = W(2),
		   [6] = R(2), [7] = NOACC },
	[GRP8] = { [4] = R(V), [5 ... 7] = M(V) },
	[GRP9] = { [1] = M(8) },
	[GRP11_B] = { [0] = W(1) },
	[GRP11_V] = { [0] = W(V) },
	/*
	 * XSAVE and friends (4-6, and 0f c7 /3-/5) are left out: their size
	 * depends on XCR0 and on the header in memory, and they only work on
	 * fpstate, which lives in task_struct, never tracked.
	 */
	[GRP15] = { [0] = W(512), [1] = R(512), [2] = R(4), [3] = W(4),
		    [7] = NOACC },
	[GRP15_66] = { [6 ... 7] = NOACC },
	[GRP16] = { [0 ... 3] = NOACC },
	[GRP_PREFETCH] = { [0 ... 2] = NOACC },
	[GRP_NOP] = { [0] = NOACC },
};

/*
 * The one-byte opcode map.  A0-A3 (moffs) and the string instructions
 * have no ModRM and are handled in kmemcheck_decode_insn().
 */
static const struct op_desc one_byte[256] = {
	/*
	 * ALU ops r/m,reg and reg,r/m: the destination is updated, except
	 * by CMP (38-3b), which only reads.
	 */
	[0x00] = M(1), [0x01] = M(V), [0x02] = R(1), [0x03] = R(V), /* ADD */
	[0x08] = M(1), [0x09] = M(V), [0x0a] = R(1), [0x0b] = R(V), /* OR */
	[0x10] = M(1), [0x11] = M(V), [0x12] = R(1), [0x13] = R(V), /* ADC */
	[0x18] = M(1), [0x19] = M(V), [0x1a] = R(1), [0x1b] = R(V), /* SBB */
	[0x20] = M(1), [0x21] = M(V), [0x22] = R(1), [0x23] = R(V), /* AND */
	[0x28] = M(1), [0x29] = M(V), [0x2a] = R(1), [0x2b] = R(V), /* SUB */
	[0x30] = M(1), [0x31] = M(V), [0x32] = R(1), [0x33] = R(V), /* XOR */
	[0x38] = R(1), [0x39] = R(V), [0x3a] = R(1), [0x3b] = R(V), /* CMP */
	[0x69] = R(V), [0x6b] = R(V),			/* IMUL Gv,Ev,I */
	[0x80] = G(GRP1_B), [0x81] = G(GRP1_V), [0x83] = G(GRP1_V),
	[0x84] = R(1), [0x85] = R(V),			/* TEST */
	[0x86] = M(1), [0x87] = M(V),			/* XCHG */
	[0x88] = W(1), [0x89] = W(V), [0x8a] = R(1), [0x8b] = R(V),
	[0x8c] = W(2), [0x8e] = R(2),			/* MOV Sreg */
	[0x8d] = NOACC,					/* LEA */
	[0x8f] = G(GRP1A),
	[0xc0] = G(GRP2_B), [0xc1] = G(GRP2_V),
	[0xc6] = G(GRP11_B), [0xc7] = G(GRP11_V),
	[0xd0] = G(GRP2_B), [0xd1] = G(GRP2_V),
	[0xd2] = G(GRP2_B), [0xd3] = G(GRP2_V),
	[0xd8 ... 0xdf] = { .kind = OP_X87 },
	[0xf6] = G(GRP3_B), [0xf7] = G(GRP3_V),
	[0xfe] = G(GRP4), [0xff] = G(GRP5),
};

/* MMX/SSE forms: which mandatory prefix, if any, the opcode carries. */
enum { PFX_NP, PFX_66, PFX_F3, PFX_F2, NR_PFX };

/* Sizes by prefix of the SSE opcodes, indexed by OP_SIMD's @size. */
enum {
	SIMD_MOVUPS, SIMD_MOVUPS_ST, SIMD_MOVLPS, SIMD_MOVLPS_ST,
	SIMD_UNPCK, SIMD_MOVHPS, SIMD_PS_PD, SIMD_PS_PD_ST, SIMD_CVTI2F,
	SIMD_CVTF2I, SIMD_COMIS, SIMD_ARITH, SIMD_CVTPS2PD, SIMD_CVTDQ2PS,
	SIMD_PUNPCKL, SIMD_MMX, SIMD_PUNPCKQDQ, SIMD_MOVD, SIMD_MOVQ_LD,
	SIMD_PSHUF, SIMD_HADD, SIMD_MOVD_ST, SIMD_MOVQ_ST, SIMD_POPCNT,
	SIMD_MOVNTI, SIMD_PINSRW, SIMD_ADDSUB, SIMD_MOVQ_XMM_ST, SIMD_CVTPD2DQ,
	SIMD_MOVNTQ, SIMD_LDDQU, NR_SIMD
};

static const struct op_desc simd[NR_SIMD][NR_PFX] = {
	/* MOVUPS, MOVUPD, MOVSS, MOVSD */
	[SIMD_MOVUPS] = { R(16), R(16), R(4), R(8) },
	[SIMD_MOVUPS_ST] = { W(16), W(16), W(4), W(8) },
	/* MOVLPS, MOVLPD, MOVSLDUP, MOVDDUP */
	[SIMD_MOVLPS] = { R(8), R(8), R(16), R(8) },
	[SIMD_MOVLPS_ST] = { W(8), W(8) },
	[SIMD_UNPCK] = { R(16), R(16) },
	/* MOVHPS, MOVHPD, MOVSHDUP */
	[SIMD_MOVHPS] = { R(8), R(8), R(16) },
	/* MOVAPS, logic ops of packed singles and doubles */
	[SIMD_PS_PD] = { R(16), R(16) },
	[SIMD_PS_PD_ST] = { W(16), W(16) },
	/* CVTPI2PS, CVTPI2PD, CVTSI2SS, CVTSI2SD */
	[SIMD_CVTI2F] = { R(8), R(8), R(4), R(4) },
	/* CVT(T)PS2PI, CVT(T)PD2PI, CVT(T)SS2SI, CVT(T)SD2SI */
	[SIMD_CVTF2I] = { R(8), R(16), R(4), R(8) },
	/* (U)COMISS, (U)COMISD */
	[SIMD_COMIS] = { R(4), R(8) },
	/* SQRT, ADD, MUL, SUB, MIN, DIV, MAX of PS, PD, SS, SD */
	[SIMD_ARITH] = { R(16), R(16), R(4), R(8) },
	[SIMD_CVTPS2PD] = { R(8), R(16), R(4), R(8) },
	[SIMD_CVTDQ2PS] = { R(16), R(16), R(16) },
	/* PUNPCKL*: the MMX form reads 32 bits */
	[SIMD_PUNPCKL] = { R(4), R(16) },
	/* MMX ALU ops on m64 and their SSE2 forms on m128 */
	[SIMD_MMX] = { R(8), R(16) },
	[SIMD_PUNPCKQDQ] = { [PFX_66] = R(16) },
	/* MOVD mm/xmm, r/m32 */
	[SIMD_MOVD] = { R(4), R(4) },
	/* MOVQ mm, m64; MOVDQA; MOVDQU */
	[SIMD_MOVQ_LD] = { R(8), R(16), R(16) },
	/* PSHUFW, PSHUFD, PSHUFHW, PSHUFLW */
	[SIMD_PSHUF] = { R(8), R(16), R(16), R(16) },
	[SIMD_HADD] = { [PFX_66] = R(16), [PFX_F2] = R(16) },
	/* MOVD r/m32, mm/xmm; F3: MOVQ xmm, m64 */
	[SIMD_MOVD_ST] = { W(4), W(4), R(8) },
	/* MOVQ m64, mm; MOVDQA; MOVDQU */
	[SIMD_MOVQ_ST] = { W(8), W(16), W(16) },
	[SIMD_POPCNT] = { [PFX_F3] = R(V) },
	[SIMD_MOVNTI] = { W(4) },
	[SIMD_PINSRW] = { R(2), R(2) },
	[SIMD_ADDSUB] = { [PFX_66] = R(16), [PFX_F2] = R(16) },
	[SIMD_MOVQ_XMM_ST] = { [PFX_66] = W(8) },
	/* CVTTPD2DQ, CVTDQ2PD, CVTPD2DQ */
	[SIMD_CVTPD2DQ] = { [PFX_66] = R(16), [PFX_F3] = R(8),
			    [PFX_F2] = R(16) },
	/* MOVNTQ, MOVNTDQ */
	[SIMD_MOVNTQ] = { W(8), W(16) },
	[SIMD_LDDQU] = { [PFX_F2] = R(16) },
};

/* The two-byte opcode map (0f xx). */
static const struct op_desc two_byte[256] = {
	[0x00] = G(GRP6), [0x01] = G(GRP7),
	[0x0d] = G(GRP_PREFETCH),
	[0x10] = S(SIMD_MOVUPS), [0x11] = S(SIMD_MOVUPS_ST),
	[0x12] = S(SIMD_MOVLPS), [0x13] = S(SIMD_MOVLPS_ST),
	[0x14 ... 0x15] = S(SIMD_UNPCK),
	[0x16] = S(SIMD_MOVHPS), [0x17] = S(SIMD_MOVLPS_ST),
	[0x18] = G(GRP16), [0x1f] = G(GRP_NOP),
	[0x28] = S(SIMD_PS_PD), [0x29] = S(SIMD_PS_PD_ST),
	[0x2a] = S(SIMD_CVTI2F), [0x2b] = S(SIMD_PS_PD_ST),
	[0x2c ... 0x2d] = S(SIMD_CVTF2I),
	[0x2e ... 0x2f] = S(SIMD_COMIS),
	[0x40 ... 0x4f] = R(V),		/* CMOVcc: read even if false */
	[0x51 ... 0x53] = S(SIMD_ARITH),
	[0x54 ... 0x57] = S(SIMD_PS_PD),
	[0x58 ... 0x59] = S(SIMD_ARITH),
	[0x5a] = S(SIMD_CVTPS2PD), [0x5b] = S(SIMD_CVTDQ2PS),
	[0x5c ... 0x5f] = S(SIMD_ARITH),
	[0x60 ... 0x62] = S(SIMD_PUNPCKL),
	[0x63 ... 0x6b] = S(SIMD_MMX),
	[0x6c ... 0x6d] = S(SIMD_PUNPCKQDQ),
	[0x6e] = S(SIMD_MOVD), [0x6f] = S(SIMD_MOVQ_LD),
	[0x70] = S(SIMD_PSHUF),
	[0x74 ... 0x76] = S(SIMD_MMX),
	[0x7c ... 0x7d] = S(SIMD_HADD),
	[0x7e] = S(SIMD_MOVD_ST), [0x7f] = S(SIMD_MOVQ_ST),
	[0x90 ... 0x9f] = W(1),		/* SETcc */
	[0xa3] = R(V),			/* BT Ev,Gv */
	[0xa4 ... 0xa5] = M(V),		/* SHLD */
	[0xab] = M(V),			/* BTS Ev,Gv */
	[0xac ... 0xad] = M(V),		/* SHRD */
	[0xae] = G(GRP15),
	[0xaf] = R(V),			/* IMUL Gv,Ev */
	[0xb0] = M(1), [0xb1] = M(V),	/* CMPXCHG */
	[0xb2] = R(SZ_FAR),		/* LSS */
	[0xb3] = M(V),			/* BTR Ev,Gv */
	[0xb4 ... 0xb5] = R(SZ_FAR),	/* LFS, LGS */
	[0xb6] = R(1), [0xb7] = R(2),	/* MOVZX */
	[0xb8] = S(SIMD_POPCNT),
	[0xba] = G(GRP8),
	[0xbb] = M(V),			/* BTC Ev,Gv */
	[0xbc ... 0xbd] = R(V),		/* BSF, BSR, TZCNT, LZCNT */
	[0xbe] = R(1), [0xbf] = R(2),	/* MOVSX */
	[0xc0] = M(1), [0xc1] = M(V),	/* XADD */
	[0xc2] = S(SIMD_ARITH),		/* CMPPS, CMPPD, CMPSS, CMPSD */
	[0xc3] = S(SIMD_MOVNTI),
	[0xc4] = S(SIMD_PINSRW),
	[0xc6] = S(SIMD_PS_PD),		/* SHUFPS, SHUFPD */
	[0xc7] = G(GRP9),
	[0xd0] = S(SIMD_ADDSUB),
	[0xd1 ... 0xd5] = S(SIMD_MMX),
	[0xd6] = S(SIMD_MOVQ_XMM_ST),
	[0xd8 ... 0xdf] = S(SIMD_MMX),
	[0xe0 ... 0xe5] = S(SIMD_MMX),
	[0xe6] = S(SIMD_CVTPD2DQ),
	[0xe7] = S(SIMD_MOVNTQ),
	[0xe8 ... 0xef] = S(SIMD_MMX),
	[0xf0] = S(SIMD_LDDQU),
	[0xf1 ... 0xf6] = S(SIMD_MMX),
	[0xf8 ... 0xfe] = S(SIMD_MMX),
};

/* 66 0f 38 82: INVPCID reads a 16-byte descriptor. */
static const struct op_desc invpcid = R(16);

/* x87 memory forms, by opcode - 0xd8 and ModRM.reg. */
static const struct op_desc x87[8][8] = {
	/* FADD FMUL FCOM FCOMP FSUB FSUBR FDIV FDIVR m32fp */
	[0] = { [0 ... 7] = R(4) },
	/* FLD, FST, FSTP m32fp; FLDENV, FLDCW, FNSTENV, FNSTCW */
	[1] = { [0] = R(4), [2 ... 3] = W(4), [4] = R(SZ_ENV), [5] = R(2),
		[6] = W(SZ_ENV), [7] = W(2) },
	/* FIADD ... FIDIVR m32int */
	[2] = { [0 ... 7] = R(4) },
	/* FILD, FISTTP, FIST, FISTP m32int; FLD, FSTP m80fp */
	[3] = { [0] = R(4), [1 ... 3] = W(4), [5] = R(10), [7] = W(10) },
	/* FADD ... FDIVR m64fp */
	[4] = { [0 ... 7] = R(8) },
	/* FLD, FISTTP, FST, FSTP m64; FRSTOR, FNSAVE, FNSTSW */
	[5] = { [0] = R(8), [1 ... 3] = W(8), [4] = R(SZ_STATE),
		[6] = W(SZ_STATE), [7] = W(2) },
	/* FIADD ... FIDIVR m16int */
	[6] = { [0 ... 7] = R(2) },
	/* FILD, FISTTP, FIST, FISTP m16int; FBLD, FILD m64, FBSTP, FISTP */
	[7] = { [0] = R(2), [1 ... 3] = W(2), [4] = R(10), [5] = R(8),
		[6] = W(10), [7] = W(8) },
};

#undef R
#undef W
#undef M
#undef NOACC
#undef G
#undef S
#undef V

/* ==== Decoding ======================================================= */

#define KMEMCHECK_REG_SLOT(r)	(offsetof(struct pt_regs, r) / sizeof(long))

/* Where pt_regs keeps each general register, in longs. */
const u8 kmemcheck_reg_slot[8] = {
	KMEMCHECK_REG_SLOT(ax), KMEMCHECK_REG_SLOT(cx),
	KMEMCHECK_REG_SLOT(dx), KMEMCHECK_REG_SLOT(bx),
	KMEMCHECK_REG_SLOT(sp), KMEMCHECK_REG_SLOT(bp),
	KMEMCHECK_REG_SLOT(si), KMEMCHECK_REG_SLOT(di),
};

/**
 * kmemcheck_addr_mode_of() - the addressing mode of a ModRM memory operand
 * @insn:	instruction decoded in 32-bit mode
 * @m:		filled in
 *
 * Return: false if @insn has no ModRM memory operand (no ModRM, or a
 * register form).
 */
bool kmemcheck_addr_mode_of(const struct insn *insn,
			    struct kmemcheck_addr_mode *m)
{
	u8 modrm = insn->modrm.bytes[0];
	unsigned int mod = X86_MODRM_MOD(modrm);
	unsigned int base = X86_MODRM_RM(modrm);

	if (!insn->modrm.nbytes || mod == 3)
		return false;
	m->index = KMEMCHECK_NO_REG;
	m->scale = 0;
	m->disp = insn->displacement.value;
	if (base == 4) {
		/* SIB: index 4 is none, base 5 with mod 0 a bare disp32. */
		u8 sib = insn->sib.bytes[0];

		base = X86_SIB_BASE(sib);
		if (X86_SIB_INDEX(sib) != 4) {
			m->index = X86_SIB_INDEX(sib);
			m->scale = X86_SIB_SCALE(sib);
		}
	}
	m->base = base == 5 && mod == 0 ? KMEMCHECK_NO_REG : base;
	return true;
}

/*
 * The segment override prefix, 0 if none; -EOPNOTSUPP if there are
 * several, as which one wins is undocumented and no compiler emits that.
 */
static int seg_override(const struct insn *insn)
{
	int i, seg = 0;
	insn_byte_t p;

	for_each_insn_prefix(insn, i, p) {
		switch (p) {
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:
		case 0x64:
		case 0x65:
			if (seg)
				return -EOPNOTSUPP;
			seg = p;
		}
	}
	return seg;
}

/*
 * Turn the offset @ea in the segment of prefix @seg (0: the default one)
 * into a linear address.
 *
 * In kernel mode on x86-32 %cs, %ds, %es and %ss are flat (__KERNEL_CS,
 * __USER_DS, __KERNEL_DS; fault.c only comes here for __KERNEL_CS), so
 * only %fs needs a base: it holds __KERNEL_PERCPU, the segment based at
 * this CPU's per-cpu offset, which setup_per_cpu_areas() also stores in
 * this_cpu_off.  %gs holds the user's value and the kernel does not
 * address memory through it.
 *
 * insn_get_addr_ref() would read the segment descriptor from the GDT
 * instead (taking a mutex for an LDT selector), is traceable, and cannot
 * be built outside the kernel: the per-cpu offset gives the same base
 * with none of that, in the page fault handler with interrupts off.
 */
static int linear_address(const struct pt_regs *regs, int seg, u32 ea,
			  unsigned long *addr)
{
	switch (seg) {
	case 0x64:
		if (!__KERNEL_PERCPU || (u16)regs->fs != __KERNEL_PERCPU)
			return -EINVAL;
		ea += this_cpu_read(this_cpu_off);
		break;
	case 0x65:
		return -EINVAL;
	}
	*addr = ea;
	return 0;
}

/*
 * The linear address of the ModRM memory operand, @sp_bias added to %esp
 * as a base (see kmemcheck_addr_offset()).
 */
static int modrm_address(const struct insn *insn, const struct pt_regs *regs,
			 u32 sp_bias, unsigned long *addr)
{
	struct kmemcheck_addr_mode m;
	int seg;

	if (!kmemcheck_addr_mode_of(insn, &m))
		return -EINVAL;
	/* Default segments (%ss for %esp/%ebp) are flat: only overrides count. */
	seg = seg_override(insn);
	if (seg < 0)
		return seg;
	return linear_address(regs, seg,
			      kmemcheck_addr_offset(&m, regs, sp_bias), addr);
}

static void add_access(struct kmemcheck_insn *out, unsigned long addr,
		       unsigned int size, enum kmemcheck_access_kind kind)
{
	struct kmemcheck_access *a = &out->access[out->nr++];

	a->addr = addr;
	a->size = size;
	a->kind = kind;
}

/* The operand width of a table entry, in bytes. */
static unsigned int op_size(const struct insn *insn, const struct op_desc *op)
{
	unsigned int v = insn->opnd_bytes;

	switch (op->size) {
	case SZ_V:
		return v;
	case SZ_FAR:
		return v + 2;
	case SZ_ENV:
		return v == 2 ? 14 : 28;
	case SZ_STATE:
		return v == 2 ? 94 : 108;
	default:
		return op->size;
	}
}

/*
 * The mandatory prefix of an MMX/SSE opcode.  0x66 also reads as one, as
 * in the SDM's opcode tables; F2 and F3 together are never emitted.
 */
static int simd_prefix(const struct insn *insn)
{
	bool p66 = false, f2 = false, f3 = false;
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p) {
		if (p == 0x66)
			p66 = true;
		else if (p == 0xf2)
			f2 = true;
		else if (p == 0xf3)
			f3 = true;
	}
	if (f2 && f3)
		return -EOPNOTSUPP;
	if (f3)
		return PFX_F3;
	if (f2)
		return PFX_F2;
	return p66 ? PFX_66 : PFX_NP;
}

static bool has_prefix(const struct insn *insn, insn_byte_t prefix)
{
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p)
		if (p == prefix)
			return true;
	return false;
}

/*
 * MOVS, CMPS, STOS, LODS, SCAS (and INS, OUTS): one element at %ds:%esi
 * (or another segment by override) and/or %es:%edi, whichever way EFLAGS.DF
 * makes them go.
 */
static int decode_string(const struct insn *insn, const struct pt_regs *regs,
			 struct kmemcheck_insn *out)
{
	u8 op = insn->opcode.bytes[0];
	unsigned int size = (op & 1) ? insn->opnd_bytes : 1;
	bool src, dst;
	enum kmemcheck_access_kind src_kind = KMEMCHECK_ACCESS_READ;
	enum kmemcheck_access_kind dst_kind = KMEMCHECK_ACCESS_READ;
	unsigned long addr;
	int seg, ret;

	switch (op & ~1) {
	case 0xa4:		/* MOVS */
		src = true;
		dst = true;
		dst_kind = KMEMCHECK_ACCESS_WRITE;
		out->flags |= KMEMCHECK_INSN_COPY;
		break;
	case 0xa6:		/* CMPS */
		src = true;
		dst = true;
		break;
	case 0xaa:		/* STOS */
		src = false;
		dst = true;
		dst_kind = KMEMCHECK_ACCESS_WRITE;
		break;
	case 0xac:		/* LODS */
		src = true;
		dst = false;
		break;
	case 0xae:		/* SCAS */
		src = false;
		dst = true;
		break;
	case 0x6c:		/* INS: the data comes from a port */
		src = false;
		dst = true;
		dst_kind = KMEMCHECK_ACCESS_WRITE;
		break;
	default:		/* 0x6e, OUTS */
		src = true;
		dst = false;
		break;
	}

	/*
	 * Not KMEMCHECK_INSN_STRING for INS and OUTS: a user of the flags
	 * must not take INS for STOS, nor OUTS for LODS.
	 */
	if (op >= 0xa4)
		out->flags |= KMEMCHECK_INSN_STRING;
	if (regs->flags & X86_EFLAGS_DF)
		out->flags |= KMEMCHECK_INSN_BACKWARD;
	if (has_prefix(insn, 0xf3) || has_prefix(insn, 0xf2)) {
		out->flags |= KMEMCHECK_INSN_REP;
		if (!(u32)regs->cx)
			return 0;	/* no iteration at all */
	}

	if (src) {
		seg = seg_override(insn);
		if (seg < 0)
			return seg;
		ret = linear_address(regs, seg, regs->si, &addr);
		if (ret)
			return ret;
		add_access(out, addr, size, src_kind);
	}
	/* %es:%edi cannot be overridden, and %es is flat. */
	if (dst)
		add_access(out, (u32)regs->di, size, dst_kind);
	return 0;
}

/* BT, BTS, BTR, BTC with a register bit offset: the word holding the bit. */
static unsigned long bit_string_address(const struct insn *insn,
					const struct pt_regs *regs,
					unsigned long addr)
{
	u32 offset = kmemcheck_reg_value(regs,
					 X86_MODRM_REG(insn->modrm.bytes[0]));

	/*
	 * The offset is signed and may reach far outside the operand; the
	 * CPU accesses the operand-sized word that holds the bit.
	 */
	if (insn->opnd_bytes == 2)
		return (u32)(addr + ((s16)offset >> 4) * 2);
	return (u32)(addr + ((s32)offset >> 5) * 4);
}

/* The table entry for a ModRM instruction, or NULL if unknown. */
static const struct op_desc *lookup(struct insn *insn)
{
	u8 reg = X86_MODRM_REG(insn->modrm.bytes[0]);
	const struct op_desc *op;
	int pfx;

	if (insn->vex_prefix.nbytes) {
		/*
		 * AVX, as in xor_avx.h: the 0f map only, with the SSE
		 * opcodes' shapes; VEX.pp is the mandatory prefix.  No EVEX.
		 */
		if (insn->vex_prefix.nbytes > 3 || insn_vex_m_bits(insn) != 1)
			return NULL;
		op = &two_byte[insn->opcode.bytes[0]];
		if (op->kind != OP_SIMD)
			return NULL;
		return &simd[op->size][insn_vex_p_bits(insn)];
	}

	if (insn->opcode.nbytes == 1) {
		op = &one_byte[insn->opcode.bytes[0]];
	} else if (insn->opcode.nbytes == 2 &&
		   insn->opcode.bytes[0] == 0x0f) {
		op = &two_byte[insn->opcode.bytes[1]];
	} else if (insn->opcode.bytes[1] == 0x38 &&
		   insn->opcode.bytes[2] == 0x82 &&
		   simd_prefix(insn) == PFX_66) {
		return &invpcid;
	} else {
		return NULL;	/* the rest of 0f 38 and 0f 3a */
	}

	switch (op->kind) {
	case OP_GROUP:
		if (op->size == GRP15) {
			pfx = simd_prefix(insn);
			if (pfx == PFX_66)
				return &groups[GRP15_66][reg];
			if (pfx != PFX_NP)
				return NULL;
		}
		return &groups[op->size][reg];
	case OP_SIMD:
		pfx = simd_prefix(insn);
		if (pfx < 0)
			return NULL;
		return &simd[op->size][pfx];
	case OP_X87:
		return &x87[insn->opcode.bytes[0] - 0xd8][reg];
	default:
		return op;
	}
}

int kmemcheck_decode_insn(struct insn *insn, struct pt_regs *regs,
			  struct kmemcheck_insn *out)
{
	const struct op_desc *op;
	unsigned int size;
	unsigned long addr;
	u8 op0, op1;
	u32 sp_bias = 0;
	int ret;

	out->len = insn->length;
	out->flags = 0;
	out->nr = 0;

	/* 16-bit addressing (0x67) is never used on the heap. */
	if (!insn->length || insn->x86_64 || insn->addr_bytes != 4)
		return -EOPNOTSUPP;

	op0 = insn->opcode.bytes[0];
	op1 = insn->opcode.bytes[1];
	if (insn->opcode.nbytes == 1 && !insn->vex_prefix.nbytes) {
		switch (op0) {
		case 0xa0 ... 0xa3:	/* MOV between AL/eAX and moffs */
			ret = seg_override(insn);
			if (ret < 0)
				return ret;
			ret = linear_address(regs, ret,
					     (u32)insn->moffset1.value, &addr);
			if (ret)
				return ret;
			add_access(out, addr, (op0 & 1) ? insn->opnd_bytes : 1,
				   op0 < 0xa2 ? KMEMCHECK_ACCESS_READ :
						KMEMCHECK_ACCESS_WRITE);
			return 0;
		case 0x6c ... 0x6f:
		case 0xa4 ... 0xa7:
		case 0xaa ... 0xaf:
			return decode_string(insn, regs, out);
		}
	}

	if (!insn->modrm.nbytes)
		return -EOPNOTSUPP;
	op = lookup(insn);

	if (X86_MODRM_MOD(insn->modrm.bytes[0]) == 3) {
		/*
		 * Register forms touch no memory.  With mod == 3, x87 opcodes
		 * and 0f ae encode instructions of their own (FXCH, the
		 * fences...), none with a memory operand either; 0f 01 and
		 * 0f c7 encode some that are not so plain (MONITOR...).
		 */
		if (insn->opcode.nbytes == 1 && !insn->vex_prefix.nbytes &&
		    op0 >= 0xd8 && op0 <= 0xdf)
			return 0;
		if (insn->opcode.nbytes == 2 && op1 == 0xae)
			return 0;
		if (insn->opcode.nbytes == 2 && (op1 == 0x01 || op1 == 0xc7))
			return -EOPNOTSUPP;
	}
	if (!op || op->kind == OP_NONE)
		return -EOPNOTSUPP;
	if (X86_MODRM_MOD(insn->modrm.bytes[0]) == 3 ||
	    op->kind == OP_NOACCESS)
		return 0;

	if (insn->opcode.nbytes == 1 && op0 == 0x8f)
		sp_bias = insn->opnd_bytes;
	ret = modrm_address(insn, regs, sp_bias, &addr);
	if (ret)
		return ret;

	if (insn->opcode.nbytes == 2 &&
	    (op1 == 0xa3 || op1 == 0xab || op1 == 0xb3 || op1 == 0xbb))
		addr = bit_string_address(insn, regs, addr);

	size = op_size(insn, op);
	/* VEX.L: 256-bit forms of the 128-bit operations. */
	if (size == 16 && insn->vex_prefix.nbytes &&
	    X86_VEX_L(insn->vex_prefix.bytes[insn->vex_prefix.nbytes - 1]))
		size = 32;
	add_access(out, addr, size, op->kind);
	return 0;
}

int kmemcheck_decode(struct pt_regs *regs, struct kmemcheck_insn *out)
{
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	return kmemcheck_decode_at(regs, buf, &insn, out);
}

int kmemcheck_decode_at(struct pt_regs *regs, u8 *buf, struct insn *insn,
			struct kmemcheck_insn *out)
{
	unsigned long ip = regs->ip;
	int len = MAX_INSN_SIZE;

	/* Nothing half-filled survives a failure. */
	memset(out, 0, sizeof(*out));

	/*
	 * The instruction may end closer than MAX_INSN_SIZE bytes to an
	 * unmapped page (the end of the kernel text): then take what is
	 * left of its page and let the decoder say if that is enough.
	 */
	if (copy_from_kernel_nofault(buf, (void *)ip, len)) {
		len = PAGE_SIZE - offset_in_page(ip);
		if (len >= MAX_INSN_SIZE ||
		    copy_from_kernel_nofault(buf, (void *)ip, len))
			return -EFAULT;
	}
	if (insn_decode(insn, buf, len, INSN_MODE_32))
		return len < MAX_INSN_SIZE ? -EFAULT : -EOPNOTSUPP;
	return kmemcheck_decode_insn(insn, regs, out);
}
