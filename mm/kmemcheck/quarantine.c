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
 * kmemcheck runs the machine on one CPU, so the queue needs interrupts off
 * and no lock.  Frees in NMI context are not queued: their objects stay
 * freed, and their page hidden, until reused.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#define pr_fmt(fmt) "kmemcheck: " fmt

#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/slab.h>

#include "../slab.h"
#include "kmemcheck.h"

#ifdef MODULE_PARAM_PREFIX
#undef MODULE_PARAM_PREFIX
#endif
#define MODULE_PARAM_PREFIX "kmemcheck."

/* Boot-time only: entries beyond a shorter length would never expire. */
static unsigned int kmemcheck_quarantine_len __read_mostly = 1024;

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

static const struct kernel_param_ops kmemcheck_quarantine_ops = {
	.set = kmemcheck_quarantine_set,
	.get = param_get_uint,
};
module_param_cb(quarantine, &kmemcheck_quarantine_ops,
		&kmemcheck_quarantine_len, 0444);

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
	/* No quarantine: the object is out of it at once. */
	if (!kmemcheck_quarantine_len) {
		kmemcheck_shadow_expire((unsigned long)object, s->object_size);
		return;
	}
	local_irq_save(flags);
	q = &kmemcheck_quarantine[kmemcheck_quarantine_next];
	kmemcheck_quarantine_next = (kmemcheck_quarantine_next + 1) %
				    kmemcheck_quarantine_len;
	kmemcheck_quarantine_expire(q);
	q->addr = (unsigned long)object;
	q->size = s->object_size;
	q->cache = s;
	local_irq_restore(flags);
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
