// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck hot spots: the caches and the instructions that take the faults.
 *
 * What kmemcheck costs is its faults.  /sys/kernel/debug/kmemcheck/hot names
 * the slab caches whose pages take most of them and the instructions that
 * fault most, so that a developer can see where the time goes: a cache
 * whose objects keep bytes never written keeps its pages hidden for good,
 * and one that needs no checking can be made SLAB_NOTRACK.  Writing to the
 * file clears the counts.
 *
 * kmemcheck runs the machine on one CPU, so interrupts off is all the
 * locking the tables need; faults in NMI context are not counted.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "../slab.h"
#include "kmemcheck.h"

#define KMEMCHECK_HOT_BITS	8
#define KMEMCHECK_HOT_SLOTS	BIT(KMEMCHECK_HOT_BITS)
/* Slots tried before a new key is counted as "other". */
#define KMEMCHECK_HOT_PROBES	8
/* Lines printed per table. */
#define KMEMCHECK_HOT_SHOWN	20

/* The key of faults on pages from the page allocator. */
#define KMEMCHECK_HOT_PAGES	1UL

struct kmemcheck_hot {
	unsigned long key;		/* cache or instruction address */
	unsigned long count;
	char name[24];			/* the cache's, copied: it may go */
};

struct kmemcheck_hot_table {
	struct kmemcheck_hot slot[KMEMCHECK_HOT_SLOTS];
	unsigned long other;		/* keys that found no free slot */
};

static struct kmemcheck_hot_table kmemcheck_hot_caches, kmemcheck_hot_insns;

static struct kmemcheck_hot *kmemcheck_hot_slot(struct kmemcheck_hot_table *t,
						unsigned long key)
{
	unsigned int h = hash_long(key, KMEMCHECK_HOT_BITS), i;

	for (i = 0; i < KMEMCHECK_HOT_PROBES; i++) {
		struct kmemcheck_hot *e = &t->slot[(h + i) % KMEMCHECK_HOT_SLOTS];

		if (e->key == key || !e->key) {
			e->key = key;
			return e;
		}
	}
	t->other++;
	return NULL;
}

/**
 * kmemcheck_hot_fault() - count a fault for the hot spots
 * @ip:		address of the faulting instruction
 * @addr:	address it accessed
 */
void kmemcheck_hot_fault(unsigned long ip, unsigned long addr)
{
	struct kmemcheck_hot *e;
	unsigned long flags;
	struct slab *slab;

	if (in_nmi())
		return;
	local_irq_save(flags);
	e = kmemcheck_hot_slot(&kmemcheck_hot_insns, ip);
	if (e)
		e->count++;
	slab = virt_to_slab((void *)addr);
	e = kmemcheck_hot_slot(&kmemcheck_hot_caches, slab ?
			       (unsigned long)slab->slab_cache :
			       KMEMCHECK_HOT_PAGES);
	if (e) {
		/* Every time: a new cache may take the place of one destroyed. */
		strscpy(e->name, slab ? slab->slab_cache->name :
			"(page allocator)", sizeof(e->name));
		e->count++;
	}
	local_irq_restore(flags);
}

static int kmemcheck_hot_cmp(const void *a, const void *b)
{
	const struct kmemcheck_hot *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* The busiest entries of @t, most faults first. */
static void kmemcheck_hot_show_table(struct seq_file *seq, const char *title,
				     struct kmemcheck_hot_table *t, bool insns)
{
	struct kmemcheck_hot_table *copy;
	unsigned long flags;
	unsigned int i;

	copy = kmalloc(sizeof(*copy), GFP_KERNEL | __GFP_NOTRACK);
	if (!copy)
		return;
	local_irq_save(flags);
	*copy = *t;
	local_irq_restore(flags);
	sort(copy->slot, KMEMCHECK_HOT_SLOTS, sizeof(copy->slot[0]),
	     kmemcheck_hot_cmp, NULL);
	seq_printf(seq, "faults by %s:\n", title);
	for (i = 0; i < KMEMCHECK_HOT_SHOWN && copy->slot[i].count; i++) {
		if (insns)
			seq_printf(seq, "%10lu  %pS\n", copy->slot[i].count,
				   (void *)copy->slot[i].key);
		else
			seq_printf(seq, "%10lu  %s\n", copy->slot[i].count,
				   copy->slot[i].name);
	}
	if (copy->other)
		seq_printf(seq, "%10lu  (not counted: table full)\n",
			   copy->other);
	kfree(copy);
}

static int hot_show(struct seq_file *seq, void *v)
{
	kmemcheck_hot_show_table(seq, "cache", &kmemcheck_hot_caches, false);
	kmemcheck_hot_show_table(seq, "instruction", &kmemcheck_hot_insns,
				 true);
	return 0;
}

static int hot_open(struct inode *inode, struct file *file)
{
	return single_open(file, hot_show, NULL);
}

static ssize_t hot_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	unsigned long flags;

	local_irq_save(flags);
	memset(&kmemcheck_hot_caches, 0, sizeof(kmemcheck_hot_caches));
	memset(&kmemcheck_hot_insns, 0, sizeof(kmemcheck_hot_insns));
	local_irq_restore(flags);
	return count;
}

static const struct file_operations hot_fops = {
	.open		= hot_open,
	.read		= seq_read,
	.write		= hot_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * kmemcheck_hot_init() - create debugfs kmemcheck/hot
 * @dir:	the kmemcheck debugfs directory
 */
void __init kmemcheck_hot_init(struct dentry *dir)
{
	debugfs_create_file("hot", 0600, dir, NULL, &hot_fops);
}
