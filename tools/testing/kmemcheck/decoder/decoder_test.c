// SPDX-License-Identifier: GPL-2.0
/*
 * Table test of the kmemcheck decoder: hand-written encodings of every
 * class of instruction it knows, decoded with chosen registers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <asm/processor-flags.h>
#include <asm/segment.h>

#include "host.h"

#define RD	KMEMCHECK_ACCESS_READ
#define WR	KMEMCHECK_ACCESS_WRITE
#define RMW	KMEMCHECK_ACCESS_RMW

#define STR	KMEMCHECK_INSN_STRING
#define REP	KMEMCHECK_INSN_REP
#define COPY	KMEMCHECK_INSN_COPY
#define BACK	KMEMCHECK_INSN_BACKWARD

/* Registers unless a test says otherwise. */
#define AX	0xc1000010u
#define BX	0xc2000020u
#define CX	5u
#define DX	0xc3000030u
#define SI	0xc4000040u
#define DI	0xc5000050u
#define BP	0xc6000060u
#define SP	0xc7000070u
#define PERCPU	0x3f000000u		/* this_cpu_off, the %fs base */

struct test {
	const char *name;
	const char *hex;	/* exactly one instruction */
	const char *regs;	/* "reg=value ...": changes to the defaults */
	int ret;
	unsigned int flags;
	unsigned int nr;
	struct kmemcheck_access acc[KMEMCHECK_MAX_ACCESSES];
};

#define A(addr, size, kind)	{ (addr), (size), (kind) }
/* One access; no access; an error. */
#define T1(n, h, r, a, sz, k)	{ n, h, r, 0, 0, 1, { A(a, sz, k) } }
#define T0(n, h, r)		{ n, h, r, 0, 0, 0 }
#define TE(n, h, r, err)	{ n, h, r, -(err), 0, 0 }
/* The ModRM operand [ebx], by far the most common below. */
#define TB(n, h, sz, k)		T1(n, h, NULL, BX, sz, k)

static const struct test tests[] = {
	/* MOV */
	T1("mov eax,[ebx+8]", "8b 43 08", NULL, BX + 8, 4, RD),
	T1("mov [ebx+8],eax", "89 43 08", NULL, BX + 8, 4, WR),
	T1("mov [ebx+8],al", "88 43 08", NULL, BX + 8, 1, WR),
	T1("mov al,[ebx+8]", "8a 43 08", NULL, BX + 8, 1, RD),
	T1("mov ax,[ebx+8]", "66 8b 43 08", NULL, BX + 8, 2, RD),
	T1("mov [ebx+8],ax", "66 89 43 08", NULL, BX + 8, 2, WR),
	T1("mov byte [ebx+8],imm", "c6 43 08 7f", NULL, BX + 8, 1, WR),
	T1("mov dword [ebx+8],imm", "c7 43 08 78 56 34 12", NULL, BX + 8, 4,
	   WR),
	T1("mov word [ebx+8],imm", "66 c7 43 08 34 12", NULL, BX + 8, 2, WR),
	T1("mov eax,moffs", "a1 78 56 34 12", NULL, 0x12345678, 4, RD),
	T1("mov al,moffs", "a0 78 56 34 12", NULL, 0x12345678, 1, RD),
	T1("mov moffs,al", "a2 78 56 34 12", NULL, 0x12345678, 1, WR),
	T1("mov moffs,eax", "a3 78 56 34 12", NULL, 0x12345678, 4, WR),
	T1("mov moffs,ax", "66 a3 78 56 34 12", NULL, 0x12345678, 2, WR),
	T1("mov ds,[ebx]", "8e 1b", NULL, BX, 2, RD),
	T1("mov [ebx],ds", "8c 1b", NULL, BX, 2, WR),
	T0("mov eax,ebx (register form)", "89 d8", NULL),
	T0("add eax,ebx (register form)", "01 d8", NULL),

	/* Segments */
	T1("mov eax,fs:moffs", "64 a1 78 56 34 12", NULL, 0x12345678 + PERCPU,
	   4, RD),
	T1("mov eax,fs:[ebx] wraps at 4G", "64 8b 03", NULL,
	   (BX + PERCPU) & 0xffffffffu, 4, RD),
	T1("add fs:[0x100],eax", "64 01 05 00 01 00 00", NULL,
	   0x100 + PERCPU, 4, RMW),
	T1("mov eax,cs:[ebx]", "2e 8b 03", NULL, BX, 4, RD),
	T1("mov eax,ds:[ebx]", "3e 8b 03", NULL, BX, 4, RD),
	T1("mov eax,es:[ebx]", "26 8b 03", NULL, BX, 4, RD),
	T1("mov eax,ss:[ebx]", "36 8b 03", NULL, BX, 4, RD),
	TE("mov eax,gs:[ebx]", "65 8b 03", NULL, EINVAL),
	TE("mov eax,fs:[ebx], %fs not per-cpu", "64 8b 03", "fs=0", EINVAL),
	TE("mov eax,gs:moffs", "65 a1 78 56 34 12", NULL, EINVAL),
	TE("two segment overrides", "64 65 8b 03", NULL, EOPNOTSUPP),
	TE("16-bit addressing", "67 8b 07", NULL, EOPNOTSUPP),

	/* Addressing modes */
	T1("mov eax,[esp]", "8b 04 24", NULL, SP, 4, RD),
	T1("mov eax,[ebp-4]", "8b 45 fc", NULL, BP - 4, 4, RD),
	T1("mov eax,[ebx+ecx*4+0x10]", "8b 44 8b 10", NULL,
	   BX + CX * 4 + 0x10, 4, RD),
	T1("mov eax,[ecx*4+0x1000]", "8b 04 8d 00 10 00 00", NULL,
	   CX * 4 + 0x1000, 4, RD),
	T1("mov eax,[ebp+ecx*8]", "8b 44 cd 00", NULL, BP + CX * 8, 4, RD),
	T1("mov eax,[0x2000]", "8b 05 00 20 00 00", NULL, 0x2000, 4, RD),
	T1("mov eax,[esp+0x100]", "8b 84 24 00 01 00 00", NULL, SP + 0x100,
	   4, RD),
	T1("mov ecx,[esi] (SIB, no index)", "8b 0c 26", NULL, SI, 4, RD),
	T1("mov eax,[eax-0x80]", "8b 40 80", NULL, AX - 0x80, 4, RD),
	T1("mov eax,[ebx-0x12345678]", "8b 83 88 a9 cb ed", NULL,
	   BX - 0x12345678, 4, RD),
	T1("mov eax,[ebx] straddling a page", "8b 03", "bx=0xc0000ffe",
	   0xc0000ffe, 4, RD),

	/* MOVZX, MOVSX */
	TB("movzx eax,byte [ebx]", "0f b6 03", 1, RD),
	TB("movzx eax,word [ebx]", "0f b7 03", 2, RD),
	TB("movsx eax,byte [ebx]", "0f be 03", 1, RD),
	TB("movsx eax,word [ebx]", "0f bf 03", 2, RD),
	TB("movzx ax,byte [ebx]", "66 0f b6 03", 1, RD),

	/* ALU */
	TB("add [ebx],eax", "01 03", 4, RMW),
	TB("add [ebx],al", "00 03", 1, RMW),
	TB("add eax,[ebx]", "03 03", 4, RD),
	TB("add al,[ebx]", "02 03", 1, RD),
	TB("or [ebx],eax", "09 03", 4, RMW),
	TB("adc [ebx],eax", "11 03", 4, RMW),
	TB("sbb [ebx],eax", "19 03", 4, RMW),
	TB("and [ebx],eax", "21 03", 4, RMW),
	TB("sub [ebx],eax", "29 03", 4, RMW),
	TB("xor [ebx],eax", "31 03", 4, RMW),
	TB("xor eax,[ebx]", "33 03", 4, RD),
	TB("cmp [ebx],eax", "39 03", 4, RD),
	TB("cmp [ebx],al", "38 03", 1, RD),
	TB("cmp eax,[ebx]", "3b 03", 4, RD),
	TB("cmp al,[ebx]", "3a 03", 1, RD),
	TB("add [ebx],ax", "66 01 03", 2, RMW),
	TB("lock add [ebx],eax", "f0 01 03", 4, RMW),
	TB("add byte [ebx],5", "80 03 05", 1, RMW),
	TB("cmp byte [ebx],5", "80 3b 05", 1, RD),
	TB("add dword [ebx],imm32", "81 03 78 56 34 12", 4, RMW),
	TB("sub dword [ebx],1", "83 2b 01", 4, RMW),
	TB("cmp dword [ebx],0", "83 3b 00", 4, RD),
	TB("add word [ebx],1", "66 83 03 01", 2, RMW),
	TB("lock or dword [ebx],0", "f0 83 0b 00", 4, RMW),
	TB("test [ebx],eax", "85 03", 4, RD),
	TB("test [ebx],al", "84 03", 1, RD),
	TB("test byte [ebx],1", "f6 03 01", 1, RD),
	TB("test dword [ebx],1", "f7 03 01 00 00 00", 4, RD),

	/* INC, DEC, NEG, NOT */
	TB("inc byte [ebx]", "fe 03", 1, RMW),
	TB("dec byte [ebx]", "fe 0b", 1, RMW),
	TB("inc dword [ebx]", "ff 03", 4, RMW),
	TB("dec dword [ebx]", "ff 0b", 4, RMW),
	TB("lock dec dword [ebx]", "f0 ff 0b", 4, RMW),
	TB("inc word [ebx]", "66 ff 03", 2, RMW),
	TB("not byte [ebx]", "f6 13", 1, RMW),
	TB("neg byte [ebx]", "f6 1b", 1, RMW),
	TB("not dword [ebx]", "f7 13", 4, RMW),
	TB("neg dword [ebx]", "f7 1b", 4, RMW),

	/* MUL, IMUL, DIV, IDIV */
	TB("mul dword [ebx]", "f7 23", 4, RD),
	TB("imul dword [ebx]", "f7 2b", 4, RD),
	TB("div dword [ebx]", "f7 33", 4, RD),
	TB("idiv dword [ebx]", "f7 3b", 4, RD),
	TB("mul byte [ebx]", "f6 23", 1, RD),
	TB("idiv byte [ebx]", "f6 3b", 1, RD),
	TB("imul eax,[ebx]", "0f af 03", 4, RD),
	TB("imul ax,[ebx]", "66 0f af 03", 2, RD),
	TB("imul eax,[ebx],imm32", "69 03 10 00 00 00", 4, RD),
	TB("imul eax,[ebx],imm8", "6b 03 10", 4, RD),

	/* Shifts and rotates */
	TB("shl dword [ebx],4", "c1 23 04", 4, RMW),
	TB("shr byte [ebx],4", "c0 2b 04", 1, RMW),
	TB("sar dword [ebx],1", "d1 3b", 4, RMW),
	TB("rcl byte [ebx],1", "d0 13", 1, RMW),
	TB("rcr dword [ebx],1", "d1 1b", 4, RMW),
	TB("rol dword [ebx],cl", "d3 03", 4, RMW),
	TB("ror byte [ebx],cl", "d2 0b", 1, RMW),
	TB("shl word [ebx],cl", "66 d3 23", 2, RMW),
	TE("sal alias (c1 /6)", "c1 33 04", NULL, EOPNOTSUPP),
	TB("shld [ebx],eax,4", "0f a4 03 04", 4, RMW),
	TB("shld [ebx],eax,cl", "0f a5 03", 4, RMW),
	TB("shrd [ebx],eax,4", "0f ac 03 04", 4, RMW),
	TB("shrd [ebx],eax,cl", "0f ad 03", 4, RMW),

	/* PUSH, POP, CALL, JMP */
	TB("push dword [ebx]", "ff 33", 4, RD),
	TB("push word [ebx]", "66 ff 33", 2, RD),
	T1("push dword [esp+4]", "ff 74 24 04", NULL, SP + 4, 4, RD),
	TB("pop dword [ebx]", "8f 03", 4, WR),
	T1("pop dword [esp+4]: after the pop", "8f 44 24 04", NULL, SP + 8,
	   4, WR),
	T1("pop dword [esp+eax]", "8f 04 04", NULL,
	   SP + 4 + AX, 4, WR),
	TB("call [ebx]", "ff 13", 4, RD),
	TB("jmp [ebx]", "ff 23", 4, RD),
	T1("call [eax*4+0x1000]", "ff 14 85 00 10 00 00", NULL,
	   (AX * 4 + 0x1000) & 0xffffffffu, 4, RD),
	T1("jmp [ecx*4+table]", "ff 24 8d 00 00 10 c1", NULL,
	   0xc1100000 + CX * 4, 4, RD),
	TB("call far [ebx]", "ff 1b", 6, RD),
	TB("jmp far [ebx]", "ff 2b", 6, RD),
	TB("invpcid eax,[ebx]", "66 0f 38 82 03", 16, RD),

	/* XCHG, CMPXCHG, CMPXCHG8B, XADD */
	TB("xchg [ebx],eax", "87 03", 4, RMW),
	TB("xchg [ebx],al", "86 03", 1, RMW),
	TB("lock cmpxchg [ebx],ecx", "f0 0f b1 0b", 4, RMW),
	TB("cmpxchg [ebx],cl", "0f b0 0b", 1, RMW),
	TB("cmpxchg [ebx],cx", "66 0f b1 0b", 2, RMW),
	T1("lock cmpxchg8b [esi]", "f0 0f c7 0e", NULL, SI, 8, RMW),
	T1("cmpxchg8b [esi] straddling", "0f c7 0e", "si=0xc0000ffc",
	   0xc0000ffc, 8, RMW),
	T1("cmpxchg8b fs:[esi]", "64 0f c7 0e", NULL,
	   (SI + PERCPU) & 0xffffffffu, 8, RMW),
	TB("lock xadd [ebx],eax", "f0 0f c1 03", 4, RMW),
	TB("xadd [ebx],al", "0f c0 03", 1, RMW),

	/* BT, BTS, BTR, BTC */
	T1("bt [ebx],eax: bit 100", "0f a3 03", "ax=100", BX + 12, 4, RD),
	T1("bt [ebx],eax: bit 31", "0f a3 03", "ax=31", BX, 4, RD),
	T1("bt [ebx],eax: bit 32", "0f a3 03", "ax=32", BX + 4, 4, RD),
	T1("bt [ebx],eax: bit -1", "0f a3 03", "ax=0xffffffff", BX - 4, 4,
	   RD),
	T1("bt [ebx],eax: bit -32", "0f a3 03", "ax=0xffffffe0", BX - 4, 4,
	   RD),
	T1("bt [ebx],eax: bit -33", "0f a3 03", "ax=0xffffffdf", BX - 8, 4,
	   RD),
	T1("bt [ebx],ecx: bit 64", "0f a3 0b", "cx=64", BX + 8, 4, RD),
	T1("bts [ebx],eax", "0f ab 03", "ax=100", BX + 12, 4, RMW),
	T1("lock btr [ebx],eax", "f0 0f b3 03", "ax=0x80000000",
	   BX - 0x10000000, 4, RMW),
	T1("btc [ebx],eax", "0f bb 03", "ax=7", BX, 4, RMW),
	T1("bt [ebx],ax: bit 17", "66 0f a3 03", "ax=0xffff0011", BX + 2, 2,
	   RD),
	T1("bt [ebx],ax: bit -1", "66 0f a3 03", "ax=0x0000ffff", BX - 2, 2,
	   RD),
	TB("bt dword [ebx],5", "0f ba 23 05", 4, RD),
	TB("bt dword [ebx],0x45 (modulo 32)", "0f ba 23 45", 4, RD),
	TB("bts dword [ebx],5", "0f ba 2b 05", 4, RMW),
	TB("lock btr dword [ebx],5", "f0 0f ba 33 05", 4, RMW),
	TB("btc dword [ebx],5", "0f ba 3b 05", 4, RMW),
	TE("0f ba /3", "0f ba 1b 05", NULL, EOPNOTSUPP),

	/* SETcc, CMOVcc */
	TB("sete [ebx]", "0f 94 03", 1, WR),
	TB("setg [ebx]", "0f 9f 03", 1, WR),
	TB("cmove eax,[ebx]", "0f 44 03", 4, RD),
	TB("cmovg eax,[ebx]", "0f 4f 03", 4, RD),
	TB("cmove ax,[ebx]", "66 0f 44 03", 2, RD),

	/* No access: LEA, NOP, PREFETCH, CLFLUSH, INVLPG */
	T0("lea eax,[ebx+8]", "8d 43 08", NULL),
	T0("lea eax,[ecx*4]", "8d 04 8d 00 00 00 00", NULL),
	T0("nop [eax+eax*1]", "0f 1f 44 00 00", NULL),
	T0("nop word [eax+eax*1]", "66 0f 1f 44 00 00", NULL),
	T0("nop [eax+0]", "0f 1f 80 00 00 00 00", NULL),
	T0("nop cs:[eax+eax*1]", "2e 0f 1f 84 00 00 00 00 00", NULL),
	T0("prefetchnta [ebx]", "0f 18 03", NULL),
	T0("prefetcht0 [ebx]", "0f 18 0b", NULL),
	T0("prefetch [ebx]", "0f 0d 03", NULL),
	T0("prefetchw [ebx]", "0f 0d 0b", NULL),
	T0("clflush [ebx]", "0f ae 3b", NULL),
	T0("clflushopt [ebx]", "66 0f ae 3b", NULL),
	T0("clwb [ebx]", "66 0f ae 33", NULL),
	T0("invlpg [ebx]", "0f 01 3b", NULL),
	T0("mfence", "0f ae f0", NULL),

	/* System */
	TB("verw [ebx]", "0f 00 2b", 2, RD),
	TB("lgdt [ebx]", "0f 01 13", 6, RD),
	TB("sgdt [ebx]", "0f 01 03", 6, WR),
	TB("sidt [ebx]", "0f 01 0b", 6, WR),
	TB("lss esp,[ebx]", "0f b2 23", 6, RD),

	/* Strings */
	{ "movsl", "a5", NULL, 0, STR | COPY, 2,
	  { A(SI, 4, RD), A(DI, 4, WR) } },
	{ "rep movsl", "f3 a5", NULL, 0, STR | COPY | REP, 2,
	  { A(SI, 4, RD), A(DI, 4, WR) } },
	{ "rep movsl, ecx = 0", "f3 a5", "cx=0", 0, STR | COPY | REP, 0 },
	{ "rep movsl, DF set", "f3 a5", "flags=0x602", 0,
	  STR | COPY | REP | BACK, 2, { A(SI, 4, RD), A(DI, 4, WR) } },
	{ "rep movsl, DF set, straddling", "f3 a5",
	  "flags=0x602 si=0xc0000ffe di=0xc0001ffd", 0,
	  STR | COPY | REP | BACK, 2,
	  { A(0xc0000ffe, 4, RD), A(0xc0001ffd, 4, WR) } },
	{ "rep movsb", "f3 a4", NULL, 0, STR | COPY | REP, 2,
	  { A(SI, 1, RD), A(DI, 1, WR) } },
	{ "rep movsw", "66 f3 a5", NULL, 0, STR | COPY | REP, 2,
	  { A(SI, 2, RD), A(DI, 2, WR) } },
	{ "movs fs:[esi]", "64 a5", NULL, 0, STR | COPY, 2,
	  { A((SI + PERCPU) & 0xffffffffu, 4, RD), A(DI, 4, WR) } },
	{ "movs es:[esi]", "26 a5", NULL, 0, STR | COPY, 2,
	  { A(SI, 4, RD), A(DI, 4, WR) } },
	TE("movs gs:[esi]", "65 a4", NULL, EINVAL),
	TE("rep movsl, 16-bit addressing", "67 f3 a5", NULL, EOPNOTSUPP),
	{ "rep stosl", "f3 ab", NULL, 0, STR | REP, 1, { A(DI, 4, WR) } },
	{ "rep stosb, DF set", "f3 aa", "flags=0x402", 0, STR | REP | BACK, 1,
	  { A(DI, 1, WR) } },
	{ "rep stosb, ecx = 0", "f3 aa", "cx=0", 0, STR | REP, 0 },
	{ "stosb", "aa", "cx=0", 0, STR, 1, { A(DI, 1, WR) } },
	{ "stos word", "66 ab", NULL, 0, STR, 1, { A(DI, 2, WR) } },
	{ "lodsb", "ac", NULL, 0, STR, 1, { A(SI, 1, RD) } },
	{ "lodsl", "ad", NULL, 0, STR, 1, { A(SI, 4, RD) } },
	{ "repe cmpsb", "f3 a6", NULL, 0, STR | REP, 2,
	  { A(SI, 1, RD), A(DI, 1, RD) } },
	{ "cmpsl", "a7", NULL, 0, STR, 2, { A(SI, 4, RD), A(DI, 4, RD) } },
	{ "repne scasb", "f2 ae", NULL, 0, STR | REP, 1, { A(DI, 1, RD) } },
	{ "repne scasb, ecx = 0", "f2 ae", "cx=0", 0, STR | REP, 0 },
	{ "scasl", "af", NULL, 0, STR, 1, { A(DI, 4, RD) } },
	{ "rep insb: not STRING", "f3 6c", NULL, 0, REP, 1, { A(DI, 1, WR) } },
	{ "insl", "6d", NULL, 0, 0, 1, { A(DI, 4, WR) } },
	{ "rep outsl: not STRING", "f3 6f", NULL, 0, REP, 1,
	  { A(SI, 4, RD) } },
	{ "outsw", "66 6f", NULL, 0, 0, 1, { A(SI, 2, RD) } },

	/* x87 */
	TB("fld dword [ebx]", "d9 03", 4, RD),
	TB("fld qword [ebx]", "dd 03", 8, RD),
	TB("fld tbyte [ebx]", "db 2b", 10, RD),
	TB("fstp tbyte [ebx]", "db 3b", 10, WR),
	TB("fst dword [ebx]", "d9 13", 4, WR),
	TB("fstp dword [ebx]", "d9 1b", 4, WR),
	TB("fst qword [ebx]", "dd 13", 8, WR),
	TB("fstp qword [ebx]", "dd 1b", 8, WR),
	TB("fild word [ebx]", "df 03", 2, RD),
	TB("fild dword [ebx]", "db 03", 4, RD),
	TB("fild qword [ebx]", "df 2b", 8, RD),
	TB("fistp word [ebx]", "df 1b", 2, WR),
	TB("fistp dword [ebx]", "db 1b", 4, WR),
	TB("fistp qword [ebx]", "df 3b", 8, WR),
	TB("fisttp dword [ebx]", "db 0b", 4, WR),
	TB("fnstcw [ebx]", "d9 3b", 2, WR),
	TB("fldcw [ebx]", "d9 2b", 2, RD),
	TB("fnstsw [ebx]", "dd 3b", 2, WR),
	TB("fnsave [ebx]", "dd 33", 108, WR),
	TB("frstor [ebx]", "dd 23", 108, RD),
	TB("fnsave [ebx], 16-bit", "66 dd 33", 94, WR),
	TB("fnstenv [ebx]", "d9 33", 28, WR),
	TB("fldenv [ebx]", "d9 23", 28, RD),
	TB("fadd dword [ebx]", "d8 03", 4, RD),
	TB("fmul qword [ebx]", "dc 0b", 8, RD),
	TB("fiadd dword [ebx]", "da 03", 4, RD),
	TB("fiadd word [ebx]", "de 03", 2, RD),
	TB("fbld [ebx]", "df 23", 10, RD),
	T0("fxch st(1)", "d9 c9", NULL),
	TE("d9 /1", "d9 0b", NULL, EOPNOTSUPP),
	TB("fxsave [ebx]", "0f ae 03", 512, WR),
	TB("fxrstor [ebx]", "0f ae 0b", 512, RD),
	T1("fxsave straddling", "0f ae 06", "si=0xc0000f00", 0xc0000f00, 512,
	   WR),
	TB("ldmxcsr [ebx]", "0f ae 13", 4, RD),
	TB("stmxcsr [ebx]", "0f ae 1b", 4, WR),
	TE("xsave [ebx]", "0f ae 23", NULL, EOPNOTSUPP),
	TE("xrstor [ebx]", "0f ae 2b", NULL, EOPNOTSUPP),
	TE("xsaves [ebx]", "0f c7 2b", NULL, EOPNOTSUPP),

	/* MMX */
	TB("movq mm0,[ebx]", "0f 6f 03", 8, RD),
	TB("movq [ebx],mm0", "0f 7f 03", 8, WR),
	TB("movd mm0,[ebx]", "0f 6e 03", 4, RD),
	TB("movd [ebx],mm0", "0f 7e 03", 4, WR),
	TB("pxor mm0,[ebx]", "0f ef 03", 8, RD),
	TB("paddd mm0,[ebx]", "0f fe 03", 8, RD),
	TB("movntq [ebx],mm0", "0f e7 03", 8, WR),
	TB("punpcklbw mm0,[ebx]", "0f 60 03", 4, RD),

	/* SSE */
	TB("movups xmm0,[ebx]", "0f 10 03", 16, RD),
	TB("movups [ebx],xmm0", "0f 11 03", 16, WR),
	TB("movaps xmm0,[ebx]", "0f 28 03", 16, RD),
	TB("movaps [ebx],xmm0", "0f 29 03", 16, WR),
	TB("movntps [ebx],xmm0", "0f 2b 03", 16, WR),
	TB("xorps xmm0,[ebx]", "0f 57 03", 16, RD),
	TB("movdqa xmm0,[ebx]", "66 0f 6f 03", 16, RD),
	TB("movdqa [ebx],xmm0", "66 0f 7f 03", 16, WR),
	TB("movdqu xmm0,[ebx]", "f3 0f 6f 03", 16, RD),
	TB("movdqu [ebx],xmm0", "f3 0f 7f 03", 16, WR),
	TB("movntdq [ebx],xmm0", "66 0f e7 03", 16, WR),
	TB("movnti [ebx],eax", "0f c3 03", 4, WR),
	TB("movq xmm0,[ebx]", "f3 0f 7e 03", 8, RD),
	TB("movq [ebx],xmm0", "66 0f d6 03", 8, WR),
	TB("movd xmm0,[ebx]", "66 0f 6e 03", 4, RD),
	TB("movd [ebx],xmm0", "66 0f 7e 03", 4, WR),
	TB("movss xmm0,[ebx]", "f3 0f 10 03", 4, RD),
	TB("movsd [ebx],xmm0", "f2 0f 11 03", 8, WR),
	TB("pxor xmm0,[ebx]", "66 0f ef 03", 16, RD),
	TB("por xmm0,[ebx]", "66 0f eb 03", 16, RD),
	TB("pand xmm0,[ebx]", "66 0f db 03", 16, RD),
	TB("paddq xmm0,[ebx]", "66 0f d4 03", 16, RD),
	TB("pcmpeqb xmm0,[ebx]", "66 0f 74 03", 16, RD),
	TB("pshufd xmm0,[ebx],0", "66 0f 70 03 00", 16, RD),
	TB("popcnt eax,[ebx]", "f3 0f b8 03", 4, RD),
	TB("popcnt ax,[ebx]", "66 f3 0f b8 03", 2, RD),
	TB("tzcnt eax,[ebx]", "f3 0f bc 03", 4, RD),
	TB("bsr eax,[ebx]", "0f bd 03", 4, RD),

	/* AVX, as in xor_avx.h */
	TB("vmovdqa xmm0,[ebx]", "c5 f9 6f 03", 16, RD),
	TB("vmovdqa ymm0,[ebx]", "c5 fd 6f 03", 32, RD),
	TB("vmovdqa [ebx],ymm0", "c5 fd 7f 03", 32, WR),
	TB("vmovdqa ymm0,[ebx] (VEX3)", "c4 e1 7d 6f 03", 32, RD),
	TB("vxorps ymm0,ymm0,[ebx]", "c5 fc 57 03", 32, RD),
	TB("vmovss xmm0,[ebx]", "c5 fa 10 03", 4, RD),
	T0("vxorps ymm0,ymm0,ymm1", "c5 fc 57 c1", NULL),

	/* Unknown */
	TE("ud2", "0f 0b", NULL, EOPNOTSUPP),
	TE("ret", "c3", NULL, EOPNOTSUPP),
	TE("pshufb mm0,[ebx] (0f 38)", "0f 38 00 03", NULL, EOPNOTSUPP),
	TE("xgetbv (0f 01 mod 3)", "0f 01 d0", NULL, EOPNOTSUPP),
	TE("rdrand (0f c7 mod 3)", "0f c7 f0", NULL, EOPNOTSUPP),
	TE("vpshufb xmm0,xmm0,[ebx] (VEX 0f 38)", "c4 e2 79 00 03", NULL,
	   EOPNOTSUPP),
	TE("vmovups zmm0,[ebx] (EVEX)", "62 f1 7c 48 10 03", NULL,
	   EOPNOTSUPP),
	TE("xlat", "d7", NULL, EOPNOTSUPP),
	TE("bound eax,[ebx]", "62 03", NULL, EOPNOTSUPP),
	TE("xabort", "c6 f8 00", NULL, EOPNOTSUPP),
};

static void default_regs(struct pt_regs *regs)
{
	memset(regs, 0, sizeof(*regs));
	regs->ax = AX;
	regs->bx = BX;
	regs->cx = CX;
	regs->dx = DX;
	regs->si = SI;
	regs->di = DI;
	regs->bp = BP;
	regs->sp = SP;
	regs->flags = 0x202;
	regs->cs = 0x60;
	regs->ds = 0x7b;
	regs->es = 0x7b;
	regs->fs = __KERNEL_PERCPU;
	regs->ss = 0x68;
}

/* Apply "reg=value ..." to @regs; false if it does not parse. */
static bool set_regs(struct pt_regs *regs, const char *spec)
{
	char name[8];
	long long val;	/* %li would saturate 0xc0000000 at LONG_MAX with -m32 */
	int n;

	while (spec && sscanf(spec, " %7[a-z]=%lli%n", name, &val, &n) == 2) {
		spec += n;
		if (!strcmp(name, "ax"))
			regs->ax = val;
		else if (!strcmp(name, "bx"))
			regs->bx = val;
		else if (!strcmp(name, "cx"))
			regs->cx = val;
		else if (!strcmp(name, "si"))
			regs->si = val;
		else if (!strcmp(name, "di"))
			regs->di = val;
		else if (!strcmp(name, "flags"))
			regs->flags = val;
		else if (!strcmp(name, "fs"))
			regs->fs = val;
		else
			return false;
		while (*spec == ' ')
			spec++;
	}
	return !spec || !*spec;
}

static const char *kind_name(unsigned int kind)
{
	switch (kind) {
	case RD:
		return "read";
	case WR:
		return "write";
	case RMW:
		return "rmw";
	default:
		return "?";
	}
}

static void print_insn(const char *what, int ret,
		       const struct kmemcheck_insn *out)
{
	unsigned int i;

	printf("    %s: ret %d flags %#x nr %u", what, ret, out->flags,
	       out->nr);
	for (i = 0; i < out->nr && i < KMEMCHECK_MAX_ACCESSES; i++)
		printf(" [%#lx %u %s]", out->access[i].addr,
		       out->access[i].size, kind_name(out->access[i].kind));
	printf("\n");
}

static bool run_one(const struct test *t)
{
	struct kmemcheck_insn out, want = {
		.flags = t->flags, .nr = t->nr,
	};
	unsigned char buf[32];
	struct pt_regs regs;
	int len, ilen, ret;
	unsigned int i;
	bool ok;

	len = parse_hex(t->hex, buf, sizeof(buf));
	default_regs(&regs);
	if (len <= 0 || !set_regs(&regs, t->regs)) {
		printf("FAIL %s: bad test\n", t->name);
		return false;
	}
	memcpy(want.access, t->acc, sizeof(want.access));
	memset(&out, 0xa5, sizeof(out));
	ret = decode_bytes(buf, len, &regs, &out, &ilen);

	ok = ret == t->ret && ilen == len;
	if (ok && !ret) {
		ok = out.len == (unsigned int)len && out.flags == t->flags &&
		     out.nr == t->nr;
		for (i = 0; ok && i < t->nr; i++)
			ok = out.access[i].addr == t->acc[i].addr &&
			     out.access[i].size == t->acc[i].size &&
			     out.access[i].kind == t->acc[i].kind;
	}
	if (!ok) {
		printf("FAIL %s (%s), length %d of %d\n", t->name, t->hex,
		       ilen, len);
		print_insn("got ", ret, &out);
		print_insn("want", t->ret, &want);
	}
	return ok;
}

/*
 * kmemcheck_decode() itself, over a "mapping" that ends at a page boundary:
 * an instruction right before the end decodes, one cut by it does not.
 */
static int run_decode_tests(int *run)
{
	/* Room for two whole pages at a page boundary. */
	static unsigned char buf[3 * 4096];
	static const unsigned char load[] = { 0x8b, 0x43, 0x08 };
	static const unsigned char store[] = { 0xc7, 0x43, 0x08, 0x78 };
	unsigned char *end = (unsigned char *)(((unsigned long)buf + 2 * 4096) & ~4095UL);
	unsigned char *page = end - 4096;
	struct kmemcheck_insn out;
	struct pt_regs regs;
	int failed = 0, ret;

	default_regs(&regs);
	test_mapping_end = (unsigned long)end;

	/* 3 bytes before the end, with MAX_INSN_SIZE not readable. */
	memcpy(end - sizeof(load), load, sizeof(load));
	regs.ip = (unsigned long)(end - sizeof(load));
	ret = kmemcheck_decode(&regs, &out);
	(*run)++;
	if (ret || out.len != 3 || out.nr != 1 || out.access[0].addr != BX + 8) {
		printf("FAIL kmemcheck_decode: insn at the end of a mapping\n");
		print_insn("got ", ret, &out);
		failed++;
	}

	/* 4 bytes of a 7-byte instruction before the end. */
	memcpy(end - sizeof(store), store, sizeof(store));
	regs.ip = (unsigned long)(end - sizeof(store));
	ret = kmemcheck_decode(&regs, &out);
	(*run)++;
	if (ret != -EFAULT) {
		printf("FAIL kmemcheck_decode: insn cut by the end of a mapping: ret %d\n",
		       ret);
		failed++;
	}

	/* ip itself unmapped. */
	regs.ip = (unsigned long)end;
	ret = kmemcheck_decode(&regs, &out);
	(*run)++;
	if (ret != -EFAULT) {
		printf("FAIL kmemcheck_decode: unmapped ip: ret %d\n", ret);
		failed++;
	}

	/* In the middle of the mapping: the full MAX_INSN_SIZE is read. */
	memcpy(page + 100, store, sizeof(store));
	memcpy(page + 104, "\x56\x34\x12", 3);
	regs.ip = (unsigned long)(page + 100);
	ret = kmemcheck_decode(&regs, &out);
	(*run)++;
	if (ret || out.len != 7 || out.nr != 1 ||
	    out.access[0].kind != KMEMCHECK_ACCESS_WRITE) {
		printf("FAIL kmemcheck_decode: insn inside a mapping\n");
		print_insn("got ", ret, &out);
		failed++;
	}

	test_mapping_end = 0;
	return failed;
}

int main(void)
{
	int run = 0, failed = 0;
	size_t i;

	this_cpu_off = PERCPU;
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		run++;
		if (!run_one(&tests[i]))
			failed++;
	}
	failed += run_decode_tests(&run);

	printf("%d tests run, %d passed, %d failed\n", run, run - failed,
	       failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
