// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck: which bits of a partly initialized byte are initialized.
 *
 * A bitfield store into a fresh object is a read-modify-write: "orb $4,
 * (%eax)" defines one bit of an uninitialized byte and leaves the other
 * seven as they were.  When values are followed (kmemcheck.follow=1), such
 * a byte keeps the uninitialized state in the shadow and, here, the mask of
 * its initialized bits: a later test of that bit alone is not reported, a
 * test of its neighbours is.
 *
 * Most tracked pages never hold such a byte.  A page gets a partial page,
 * one mask byte per byte, the first time one of its bytes is partly
 * initialized, and keeps it until it stops being tracked; a mask of 0 says
 * that no bit is known, and every change of a byte's state clears it.  The
 * partial page is found through the shadow page's own struct page, whose
 * ->index kmemcheck owns as it owns ->private.
 *
 * Masks are recorded from the fault and debug trap handlers, where nothing
 * may be allocated, so a few spare pages are kept, and refilled by a
 * worker, which irq_work wakes: process context, where the page allocator
 * may sleep.  Interrupts may stay off for long, as under a
 * spin_lock_irqsave() that initializes the flags of several new objects,
 * and no refill comes until they are back on.  When no spare is left, the
 * byte is taken as initialized in all its bits, and the "partial bytes
 * lost" counter says so: its other bits go unchecked, where taking it as
 * uninitialized in every bit would report the correct test of the bit
 * that was set.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/workqueue.h>

#include "kmemcheck.h"

/*
 * Spare partial pages: those a followed value may need before the worker
 * runs.  One pool for the machine, which runs on one CPU while kmemcheck
 * is on; taken with xchg(), so that an NMI may take one too.
 */
#define KMEMCHECK_PARTIAL_SPARES	8

static unsigned long kmemcheck_partial_spare[KMEMCHECK_PARTIAL_SPARES];

static void kmemcheck_partial_refill(struct work_struct *work)
{
	unsigned int i;

	for (i = 0; i < KMEMCHECK_PARTIAL_SPARES; i++) {
		unsigned long page;

		if (READ_ONCE(kmemcheck_partial_spare[i]))
			continue;
		page = __get_free_page(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
				       __GFP_NOTRACK);
		if (!page)
			return;
		if (cmpxchg(&kmemcheck_partial_spare[i], 0, page))
			free_page(page);
	}
}

static DECLARE_WORK(kmemcheck_partial_work, kmemcheck_partial_refill);

static void kmemcheck_partial_kick(struct irq_work *work)
{
	queue_work(system_wq, &kmemcheck_partial_work);
}

static DEFINE_IRQ_WORK(kmemcheck_partial_irq_work, kmemcheck_partial_kick);

/* A zeroed spare page, or 0; a refill is queued either way. */
static unsigned long kmemcheck_partial_take(void)
{
	unsigned long page = 0;
	unsigned int i;

	for (i = 0; i < KMEMCHECK_PARTIAL_SPARES && !page; i++)
		page = xchg(&kmemcheck_partial_spare[i], 0);
	irq_work_queue(&kmemcheck_partial_irq_work);
	return page;
}

/* Hand back a spare page that was taken but not used. */
static void kmemcheck_partial_give_back(unsigned long page)
{
	unsigned int i;

	for (i = 0; i < KMEMCHECK_PARTIAL_SPARES; i++) {
		if (!cmpxchg(&kmemcheck_partial_spare[i], 0, page))
			return;
	}
	/*
	 * Cannot happen: the page came from a slot, and the worker that
	 * fills them cannot run before this handler returns, on the one CPU
	 * kmemcheck runs on.  Not freed here, in a trap handler.
	 */
	WARN_ON_ONCE(1);
}

/* The mask byte of @shadow, or NULL if its page has no partial page. */
static __always_inline u8 *kmemcheck_partial_mask(const u8 *shadow)
{
	unsigned long page = READ_ONCE(*kmemcheck_partial_slot(shadow));

	return page ? (u8 *)page + offset_in_page(shadow) : NULL;
}

/**
 * kmemcheck_partial_init_shadow() - a new shadow page has no partial page
 * @shadow:	any byte of it
 */
void kmemcheck_partial_init_shadow(const u8 *shadow)
{
	WRITE_ONCE(*kmemcheck_partial_slot(shadow), 0);
}

/**
 * kmemcheck_partial_defined() - the initialized bits of an uninit byte
 * @shadow:	its shadow byte
 *
 * Return: the mask of its bits known to be initialized; 0 if none is.
 */
u8 kmemcheck_partial_defined(const u8 *shadow)
{
	u8 *mask = kmemcheck_partial_mask(shadow);

	return mask ? READ_ONCE(*mask) : 0;
}

/**
 * kmemcheck_partial_set() - record the initialized bits of an uninit byte
 * @shadow:	its shadow byte, in the uninitialized state
 * @defined:	the mask of its initialized bits
 *
 * Called with interrupts off, from the fault and debug trap handlers; never
 * sleeps, never allocates.
 *
 * Return: false if there was no room for the mask: the caller makes the
 * byte initialized, as the file comment says why.
 */
bool kmemcheck_partial_set(u8 *shadow, u8 defined)
{
	unsigned long *slot = kmemcheck_partial_slot(shadow);
	unsigned long page;
	u8 *mask = kmemcheck_partial_mask(shadow);

	if (!mask && defined) {
		page = kmemcheck_partial_take();
		if (!page) {
			kmemcheck_count(KMEMCHECK_COUNTER_PARTIAL_LOST);
			return false;
		}
		if (cmpxchg(slot, 0, page))
			kmemcheck_partial_give_back(page);
		else
			kmemcheck_count(KMEMCHECK_COUNTER_PARTIAL_PAGES);
		mask = kmemcheck_partial_mask(shadow);
	}
	if (mask)
		WRITE_ONCE(*mask, defined);
	return true;
}

/* kmemcheck_partial_forget() (kmemcheck.h) for a page with a partial page. */
void __kmemcheck_partial_forget(const u8 *shadow, size_t n)
{
	u8 *mask = kmemcheck_partial_mask(shadow);

	if (mask)
		memset(mask, 0, n);
}

/**
 * kmemcheck_partial_free() - a shadow page is about to be freed
 * @shadow:	any byte of it
 */
void kmemcheck_partial_free(const u8 *shadow)
{
	unsigned long page = xchg(kmemcheck_partial_slot(shadow), 0);

	if (!page)
		return;
	free_page(page);
	atomic_long_dec(&kmemcheck_counters[KMEMCHECK_COUNTER_PARTIAL_PAGES]);
}

static int __init kmemcheck_partial_init(void)
{
	if (kmemcheck_enabled())
		kmemcheck_partial_refill(NULL);
	return 0;
}
core_initcall(kmemcheck_partial_init);
