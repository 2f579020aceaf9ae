// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck origins: the stacks that allocated and freed tracked memory,
 * saved in the stack depot when it happens and kept in the shadow, so that
 * a report can say where the bytes came from.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/stackdepot.h>
#include <linux/string.h>

#include <asm/kmemcheck.h>

#include "kmemcheck.h"

/* Stack entries saved per allocation and free. */
#define KMEMCHECK_ORIGIN_DEPTH	16

/* Stacks remembered per CPU with their handles. */
#define KMEMCHECK_STACK_CACHE	4

/*
 * The last stacks saved on this CPU.  A loop allocates and frees from the
 * same places over and over, and comparing a few stacks costs a tenth of
 * the depot's lookup (its hash, and RCU with lockdep).
 */
struct kmemcheck_stack_cache {
	unsigned int next;
	struct {
		unsigned int nr;
		depot_stack_handle_t handle;	/* 0: empty */
		unsigned long entries[KMEMCHECK_ORIGIN_DEPTH];
	} slot[KMEMCHECK_STACK_CACHE];
};

static DEFINE_PER_CPU(struct kmemcheck_stack_cache, kmemcheck_stack_cache);

/*
 * The handle of a stack of @nr @entries saved on this CPU lately, or 0.
 * Raw interrupt toggles, here and in kmemcheck_stack_remember(): a few
 * loads and stores, no lock.
 */
static depot_stack_handle_t kmemcheck_stack_cached(const unsigned long *entries,
						   unsigned int nr)
{
	depot_stack_handle_t handle = 0;
	struct kmemcheck_stack_cache *c;
	unsigned long flags;
	unsigned int i;

	raw_local_irq_save(flags);
	c = this_cpu_ptr(&kmemcheck_stack_cache);
	for (i = 0; i < KMEMCHECK_STACK_CACHE && !handle; i++) {
		unsigned int j;

		if (!c->slot[i].handle || c->slot[i].nr != nr)
			continue;
		/* memcmp() goes byte by byte on x86-32. */
		for (j = 0; j < nr && c->slot[i].entries[j] == entries[j]; j++)
			;
		if (j == nr)
			handle = c->slot[i].handle;
	}
	raw_local_irq_restore(flags);
	return handle;
}

static void kmemcheck_stack_remember(const unsigned long *entries,
				     unsigned int nr,
				     depot_stack_handle_t handle)
{
	struct kmemcheck_stack_cache *c;
	unsigned long flags;
	unsigned int i;

	raw_local_irq_save(flags);
	c = this_cpu_ptr(&kmemcheck_stack_cache);
	i = c->next++ % KMEMCHECK_STACK_CACHE;
	c->slot[i].nr = nr;
	memcpy(c->slot[i].entries, entries, nr * sizeof(*entries));
	c->slot[i].handle = handle;
	raw_local_irq_restore(flags);
}

/*
 * Save the current stack in the stack depot.  The depot allocates its pools
 * with __GFP_NOTRACK, so this cannot recurse into kmemcheck; it cannot
 * allocate at all in NMI context, and then saves only known stacks.  An
 * NMI may come while the cache of stacks is being written: it does not
 * use it.
 */
depot_stack_handle_t kmemcheck_save_stack(gfp_t gfp)
{
	unsigned long entries[KMEMCHECK_ORIGIN_DEPTH];
	depot_stack_handle_t handle;
	unsigned int nr;

	/* Skip this function: the stack starts at the allocator hook. */
	nr = kmemcheck_arch_save_stack(entries, ARRAY_SIZE(entries), 1);
	if (in_nmi())
		return stack_depot_save_flags(entries, nr, gfp, 0);
	handle = kmemcheck_stack_cached(entries, nr);
	if (handle)
		return handle;
	handle = stack_depot_save_flags(entries, nr, gfp,
					STACK_DEPOT_FLAG_CAN_ALLOC);
	if (handle)
		kmemcheck_stack_remember(entries, nr, handle);
	return handle;
}

/*
 * Record the allocation stack of @size bytes at @addr in the first origin
 * slot, and clear the free stack of an earlier life in the second.
 * Allocations too small for a slot have no origin.
 */
void kmemcheck_origin_alloc(unsigned long addr, size_t size, gfp_t gfp)
{
	if (size < KMEMCHECK_ORIGIN_BYTES)
		return;
	kmemcheck_origin_set(addr, KMEMCHECK_ORIGIN_ALLOC,
			     kmemcheck_save_stack(gfp));
	if (size >= KMEMCHECK_ORIGIN_SLOTS * KMEMCHECK_ORIGIN_BYTES)
		kmemcheck_origin_set(addr + KMEMCHECK_ORIGIN_BYTES,
				     KMEMCHECK_ORIGIN_NONE, 0);
}

/*
 * Record the free stack in the second slot, or in the first, replacing the
 * allocation stack, when the object is too small for two.
 */
void kmemcheck_origin_free(unsigned long addr, size_t size)
{
	depot_stack_handle_t handle;

	if (size < KMEMCHECK_ORIGIN_BYTES)
		return;
	/* Frees happen under any lock: never reclaim nor wake kswapd. */
	handle = kmemcheck_save_stack(0);
	if (size >= KMEMCHECK_ORIGIN_SLOTS * KMEMCHECK_ORIGIN_BYTES)
		addr += KMEMCHECK_ORIGIN_BYTES;
	kmemcheck_origin_set(addr, KMEMCHECK_ORIGIN_FREE, handle);
}

/* Every page holds the origin, so that any page of a block can tell it. */
void kmemcheck_origin_pages(struct page *page, unsigned int nr, gfp_t gfp)
{
	depot_stack_handle_t handle = kmemcheck_save_stack(gfp);
	unsigned int i;

	for (i = 0; i < nr; i++)
		kmemcheck_origin_set((unsigned long)page_address(page + i),
				     KMEMCHECK_ORIGIN_ALLOC, handle);
}
