// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck: decoded instructions kept by address
 *
 * A workload takes its faults at a few thousand instructions, over and
 * over, and decoding one costs the in-tree decoder some hundreds of
 * instructions.  The last decode of each address is kept in a two-way
 * table of 8192, 1.1 MiB allocated with kmemcheck on (two addresses that
 * hash alike, such as a store and the load after it, do not evict each
 * other; TCP alone faults at some thousands of addresses, and a table of
 * 2048 missed a third of its faults).  A decode is used only while the
 * bytes at the address are still those it was decoded from, so text
 * patched or reused since (alternatives, kprobes, module text) is decoded
 * afresh.  A MOV or arithmetic instruction is kept compiled too, for the
 * early fault path (replay.c).
 *
 * The table is written by the page fault handler, which runs with
 * interrupts off; NMI-like contexts (NMIs, the debug trap of a step) may
 * interrupt it halfway, so they neither read nor write it.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kmemcheck.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>

#include <asm/inat.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

#include "decode.h"
#include "replay.h"

#define KMEMCHECK_DECODED_BITS	12

struct kmemcheck_decoded {
	unsigned long ip;		/* 0: empty, or being written */
	struct insn insn;
	struct kmemcheck_replay replay;
	u8 bytes[MAX_INSN_SIZE];	/* the first insn.length are valid */
};

/* Ways of a set: [0] the newer decode, [1] the older. */
#define KMEMCHECK_DECODED_WAYS	2

/* Allocated at boot with kmemcheck on; none before, nor with it off. */
static struct kmemcheck_decoded
	(*kmemcheck_decoded)[KMEMCHECK_DECODED_WAYS] __read_mostly;

static int __init kmemcheck_decoded_init(void)
{
	size_t size = sizeof(*kmemcheck_decoded) << KMEMCHECK_DECODED_BITS;

	if (!kmemcheck_enabled())
		return 0;
	/* Untracked: the fault handler reads it. */
	kmemcheck_decoded = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO |
					      __GFP_NOTRACK | __GFP_NOWARN);
	if (!kmemcheck_decoded)
		pr_warn("kmemcheck: no memory for the decode cache; faults will decode every time\n");
	return 0;
}
early_initcall(kmemcheck_decoded_init);

/* The set of decodes where @ip may be kept, or NULL if there is no table. */
static struct kmemcheck_decoded *kmemcheck_decoded_set(unsigned long ip)
{
	if (!kmemcheck_decoded)
		return NULL;
	return kmemcheck_decoded[hash_long(ip, KMEMCHECK_DECODED_BITS)];
}

/* Keep a decode in @d, emptied first: a reader may not see it half done. */
static void kmemcheck_decoded_keep(struct kmemcheck_decoded *d,
				   unsigned long ip, const struct insn *insn,
				   const struct kmemcheck_replay *replay,
				   const u8 *bytes)
{
	WRITE_ONCE(d->ip, 0);
	barrier();
	d->insn = *insn;
	d->replay = *replay;
	memcpy(d->bytes, bytes, insn->length);
	barrier();
	WRITE_ONCE(d->ip, ip);
}

/*
 * Keep the decode of the instruction at @ip, of @bytes, in its set @d,
 * compiled for the early path too; the newer decode there ages, unless it
 * is of this address (whose text changed).  Return where it is kept.
 */
static struct kmemcheck_decoded *
kmemcheck_decoded_insert(struct kmemcheck_decoded *d, unsigned long ip,
			 struct insn *insn, const u8 *bytes)
{
	struct kmemcheck_replay replay;

	if (d[0].ip && d[0].ip != ip)
		kmemcheck_decoded_keep(&d[1], d[0].ip, &d[0].insn, &d[0].replay,
				       d[0].bytes);
	kmemcheck_replay_compile(&replay, insn);
	kmemcheck_decoded_keep(&d[0], ip, insn, &replay, bytes);
	return &d[0];
}

/*
 * Is the decode kept in @d that of the instruction at @ip?  Its bytes are
 * read into @buf.
 */
static bool kmemcheck_decoded_valid(const struct kmemcheck_decoded *d,
				    unsigned long ip, u8 *buf)
{
	unsigned int len = d->insn.length;

	if (d->ip != ip || !len || len > MAX_INSN_SIZE)
		return false;
	/*
	 * The CPU is running the instruction at @ip: its page is mapped.
	 * Only bytes kept from an older instruction there may run into the
	 * next page, which may not be.
	 */
	if (offset_in_page(ip) + len <= PAGE_SIZE)
		memcpy(buf, (void *)ip, len);
	else if (copy_from_kernel_nofault(buf, (void *)ip, len))
		return false;
	return !memcmp(buf, d->bytes, len);
}

/**
 * kmemcheck_decode_cached() - kmemcheck_decode_at(), from the table if it can
 * @regs:	registers at the instruction
 * @buf:	MAX_INSN_SIZE bytes for its bytes
 * @insn:	where to decode it
 * @out:	its memory accesses
 *
 * Return: as kmemcheck_decode_at().
 */
int kmemcheck_decode_cached(struct pt_regs *regs, u8 *buf, struct insn *insn,
			    struct kmemcheck_insn *out)
{
	unsigned long ip = regs->ip;
	struct kmemcheck_decoded *d;
	unsigned int way;
	int ret;

	d = kmemcheck_decoded_set(ip);
	if (in_nmi() || !d)
		return kmemcheck_decode_at(regs, buf, insn, out);
	for (way = 0; way < KMEMCHECK_DECODED_WAYS; way++) {
		if (!kmemcheck_decoded_valid(&d[way], ip, buf))
			continue;
		*insn = d[way].insn;
		/* The decoder's pointers are into the buffer it was given. */
		insn->kaddr = buf;
		insn->end_kaddr = buf + insn->length;
		insn->next_byte = buf + insn->length;
		memset(out, 0, sizeof(*out));
		return kmemcheck_decode_insn(insn, regs, out);
	}
	ret = kmemcheck_decode_at(regs, buf, insn, out);
	if (ret)
		return ret;
	kmemcheck_decoded_insert(d, ip, insn, buf);
	return 0;
}

/*
 * The early path's miss: decode the instruction at @ip from its own page
 * and keep it, with its replay if it compiles to one.  The bytes are read
 * in place: the CPU is running them, so their page is mapped; an
 * instruction that runs into the next page is left to the full path.
 * Out of line: the hit, the common case, then needs no stack frame of it.
 */
static noinline const struct kmemcheck_replay *
kmemcheck_decoded_fill(struct kmemcheck_decoded *d, unsigned long ip)
{
	unsigned int len = min_t(unsigned long, MAX_INSN_SIZE,
				 PAGE_SIZE - offset_in_page(ip));
	struct insn insn;

	if (insn_decode(&insn, (void *)ip, len, INSN_MODE_32))
		return NULL;
	/* Kept whatever it is: the full path then finds it decoded. */
	d = kmemcheck_decoded_insert(d, ip, &insn, (const u8 *)ip);
	return d->replay.kind == KMEMCHECK_REPLAY_NONE ? NULL : &d->replay;
}

/**
 * kmemcheck_decoded_replay() - the compiled instruction for an address
 * @ip:		address of the faulting instruction
 *
 * Called by the early fault path, with interrupts off and not in an NMI:
 * the table does not change under it.  An address the table does not
 * hold is decoded and kept, so that its first fault too is replayed.
 *
 * Return: the compiled MOV or arithmetic instruction at @ip, or NULL if
 * there is none: the decode kept for @ip is of another kind, or the bytes
 * at @ip are not those it was decoded from.
 */
const struct kmemcheck_replay *kmemcheck_decoded_replay(unsigned long ip)
{
	struct kmemcheck_decoded *d = kmemcheck_decoded_set(ip);
	const u8 *text = (const u8 *)ip;
	unsigned int i, way, len;

	if (!d)
		return NULL;
	way = d[0].ip == ip ? 0 : 1;
	if (d[way].ip != ip)
		return kmemcheck_decoded_fill(d, ip);
	len = d[way].replay.len;
	/* Only the page of @ip is sure to be mapped. */
	if (d[way].replay.kind == KMEMCHECK_REPLAY_NONE ||
	    offset_in_page(ip) + len > PAGE_SIZE)
		return NULL;
	/* A MOV is a few bytes: words, then bytes, and no call to memcmp(). */
	for (i = 0; i + sizeof(u32) <= len; i += sizeof(u32)) {
		if (get_unaligned((const u32 *)&text[i]) !=
		    get_unaligned((const u32 *)&d[way].bytes[i]))
			return NULL;
	}
	for (; i < len; i++) {
		if (text[i] != d[way].bytes[i])
			return NULL;
	}
	return &d[way].replay;
}
