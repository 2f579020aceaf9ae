// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck quarantine: how long a freed object keeps its page hidden.
 *
 * With kmemcheck.fastpath=2 the bytes of a freed object keep its page
 * hidden, so that a read of them is caught as a use-after-free, but only
 * while the object is among the last kmemcheck.quarantine objects freed
 * (1024 by default).  Then those of its bytes still freed become
 * unallocated and no longer keep the page hidden.  Without a limit every
 * slab page holding a free object would stay hidden for good, which is the
 * cost of fastpath=1.
 *
 * The bet is KASAN's: most uses after free come soon after the free.  The
 * object is not kept from being reused, unlike in KASAN's quarantine: SLUB
 * hands out the last freed object first, so most entries find the object
 * allocated again when they expire, and leave it alone.  An object freed
 * again while an older entry of it is still queued leaves the quarantine
 * with that older entry, early.
 *
 * Pages given back to the page allocator have a quarantine of their own:
 * the last KMEMCHECK_PAGE_QUARANTINE blocks freed (of up to 1 <<
 * KMEMCHECK_PAGE_QUARANTINE_ORDER pages) keep their shadow, every byte
 * freed, and stay hidden in the allocator's free lists, which never touch
 * the memory of a free page.  A block leaves when a newer one pushes it
 * out, or as soon as any of its pages is allocated again: post_alloc_hook()
 * calls kmemcheck_page_reused() before anything writes the page, whichever
 * way it leaves the free lists.  The bound keeps the shadow held for free
 * pages at 1 MiB.
 *
 * kmemcheck runs the machine on one CPU, so the queues need interrupts off
 * and no lock.  Frees in NMI context are not queued: their objects stay
 * freed, and their page hidden, until reused.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#define pr_fmt(fmt) "kmemcheck: " fmt

#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/slab.h>

#include "../slab.h"
#include "kmemcheck.h"

/* Boot-time only: entries beyond a shorter length would never expire. */
unsigned int kmemcheck_quarantine_len __read_mostly = 1024;

static int kmemcheck_quarantine_set(const char *val,
				    const struct kernel_param *kp)
{
	unsigned int len;

	if (kstrtouint(val, 0, &len) || len > KMEMCHECK_QUARANTINE_MAX) {
		pr_warn("unknown boot value 'kmemcheck.quarantine=%s' (0 to %u), keeping %u\n",
			val, KMEMCHECK_QUARANTINE_MAX, kmemcheck_quarantine_len);
		return -EINVAL;
	}
	kmemcheck_quarantine_len = len;
	return 0;
}

const struct kernel_param_ops kmemcheck_quarantine_ops = {
	.set = kmemcheck_quarantine_set,
	.get = param_get_uint,
};

struct kmemcheck_quarantined {
	unsigned long addr;
	unsigned int size;
	/* Only compared: the cache may be gone when the entry expires. */
	const struct kmem_cache *cache;
};

static struct kmemcheck_quarantined
	kmemcheck_quarantine[KMEMCHECK_QUARANTINE_MAX];
static unsigned int kmemcheck_quarantine_next;

/*
 * The oldest entry leaves: its object's freed bytes become unallocated,
 * unless its slab has gone back to the page allocator meanwhile.  Most
 * objects have been allocated again, SLUB handing out the last freed
 * first, and have no freed byte left: their shadow is not walked.
 */
static void kmemcheck_quarantine_expire(struct kmemcheck_quarantined *q)
{
	struct slab *slab;

	if (!q->addr)
		return;
	slab = virt_to_slab((void *)q->addr);
	if (slab && slab->slab_cache == q->cache &&
	    !kmemcheck_object_allocated(q->cache, q->addr))
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
	/* No quarantine: the object is out of it at once. */
	if (!kmemcheck_quarantine_len) {
		kmemcheck_shadow_expire((unsigned long)object, s->object_size);
		return;
	}
	/* Raw: no lock is taken, the shadow's fill is all it calls. */
	raw_local_irq_save(flags);
	q = &kmemcheck_quarantine[kmemcheck_quarantine_next];
	kmemcheck_quarantine_next = (kmemcheck_quarantine_next + 1) %
				    kmemcheck_quarantine_len;
	kmemcheck_quarantine_expire(q);
	q->addr = (unsigned long)object;
	q->size = s->object_size;
	q->cache = s;
	raw_local_irq_restore(flags);
}

/**
 * kmemcheck_quarantine_length() - how many freed objects stay checked
 *
 * Return: kmemcheck.quarantine, as set at boot.
 */
unsigned int kmemcheck_quarantine_length(void)
{
	return kmemcheck_quarantine_len;
}

/* === Pages ================================================================ */

#define KMEMCHECK_PAGE_QUARANTINE	64
#define KMEMCHECK_PAGE_QUARANTINE_ORDER	2

struct kmemcheck_freed_block {
	struct page *page;		/* first page; NULL if the slot is free */
	unsigned int order;
};

static struct kmemcheck_freed_block
	kmemcheck_freed_blocks[KMEMCHECK_PAGE_QUARANTINE];
static unsigned int kmemcheck_freed_next;

/* A block leaves the quarantine: shown again, and no longer tracked. */
static void kmemcheck_freed_release(struct kmemcheck_freed_block *b)
{
	if (!b->page)
		return;
	kmemcheck_shadow_free(b->page, 1U << b->order);
	b->page = NULL;
}

/**
 * kmemcheck_page_quarantine_add() - keep a block just freed hidden
 * @page:	first page of the block
 * @order:	its order
 *
 * Every byte of the block becomes freed.  Blocks not tracked whole, too
 * large, or freed in NMI context are not queued.
 *
 * Return: true if the block is queued; false if it is to be untracked now.
 */
bool kmemcheck_page_quarantine_add(struct page *page, unsigned int order)
{
	struct kmemcheck_freed_block *b;
	unsigned int i, nr = 1U << order;
	unsigned long flags;

	if (order > KMEMCHECK_PAGE_QUARANTINE_ORDER || in_nmi() ||
	    !kmemcheck_quarantine_len)
		return false;
	for (i = 0; i < nr; i++) {
		if (!page[i].kmemcheck_shadow)
			return false;
	}
	kmemcheck_shadow_set_pages(page, nr, KMEMCHECK_SHADOW_FREED);
	local_irq_save(flags);
	/* SLUB untracks a slab's pages before the page allocator does. */
	for (i = 0; i < KMEMCHECK_PAGE_QUARANTINE; i++) {
		b = &kmemcheck_freed_blocks[i];
		if (b->page == page && b->order == order)
			goto out;
	}
	b = &kmemcheck_freed_blocks[kmemcheck_freed_next];
	kmemcheck_freed_next = (kmemcheck_freed_next + 1) %
			       KMEMCHECK_PAGE_QUARANTINE;
	kmemcheck_freed_release(b);
	b->page = page;
	b->order = order;
out:
	local_irq_restore(flags);
	return true;
}

/**
 * kmemcheck_page_quarantine_remove() - a block is allocated again
 * @page:	first page of the new block
 * @order:	its order
 *
 * Any queued block that shares a page with it leaves the quarantine.
 */
void kmemcheck_page_quarantine_remove(struct page *page, unsigned int order)
{
	unsigned long first = page_to_pfn(page), last = first + (1UL << order);
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	for (i = 0; i < KMEMCHECK_PAGE_QUARANTINE; i++) {
		struct kmemcheck_freed_block *b = &kmemcheck_freed_blocks[i];
		unsigned long pfn;

		if (!b->page)
			continue;
		pfn = page_to_pfn(b->page);
		if (pfn < last && first < pfn + (1UL << b->order))
			kmemcheck_freed_release(b);
	}
	local_irq_restore(flags);
}
