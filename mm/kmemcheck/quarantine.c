// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck quarantine: how long a freed object keeps its page hidden.
 *
 * With kmemcheck.fastpath=2 the bytes of a freed object keep its page
 * hidden, so that a read of them is caught as a use-after-free, but only
 * while the object is among the last KMEMCHECK_QUARANTINE_OBJECTS objects
 * freed.  Then those of its bytes still freed become unallocated and no
 * longer keep the page hidden.  Without a limit every slab page holding a
 * free object would stay hidden for good, which is the cost of fastpath=1.
 *
 * The bet is KASAN's: most uses after free come soon after the free.  The
 * object is not kept from being reused, unlike in KASAN's quarantine: SLUB
 * hands out the last freed object first, so most entries find the object
 * allocated again when they expire, and leave it alone.
 *
 * kmemcheck runs the machine on one CPU, so the queue needs interrupts off
 * and no lock.  Frees in NMI context are not queued: their objects stay
 * freed, and their page hidden, until reused.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/slab.h>

#include "../slab.h"
#include "kmemcheck.h"

struct kmemcheck_quarantined {
	unsigned long addr;
	unsigned int size;
	/* Only compared: the cache may be gone when the entry expires. */
	const struct kmem_cache *cache;
};

static struct kmemcheck_quarantined
	kmemcheck_quarantine[KMEMCHECK_QUARANTINE_OBJECTS];
static unsigned int kmemcheck_quarantine_next;

/*
 * The oldest entry leaves: its object's freed bytes become unallocated,
 * unless its slab has gone back to the page allocator meanwhile.
 */
static void kmemcheck_quarantine_expire(struct kmemcheck_quarantined *q)
{
	struct slab *slab;

	if (!q->addr)
		return;
	slab = virt_to_slab((void *)q->addr);
	if (slab && slab->slab_cache == q->cache)
		kmemcheck_shadow_expire(q->addr, q->size);
}

/**
 * kmemcheck_quarantine_add() - queue an object just freed
 * @s:		its cache
 * @object:	the object, whose bytes are freed
 *
 * Does nothing unless kmemcheck.fastpath=2.
 */
void kmemcheck_quarantine_add(struct kmem_cache *s, void *object)
{
	struct kmemcheck_quarantined *q;
	unsigned long flags;

	if (!kmemcheck_fastpath_objects() || in_nmi())
		return;
	local_irq_save(flags);
	q = &kmemcheck_quarantine[kmemcheck_quarantine_next];
	kmemcheck_quarantine_next = (kmemcheck_quarantine_next + 1) %
				    KMEMCHECK_QUARANTINE_OBJECTS;
	kmemcheck_quarantine_expire(q);
	q->addr = (unsigned long)object;
	q->size = s->object_size;
	q->cache = s;
	local_irq_restore(flags);
}
