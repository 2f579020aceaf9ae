// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck hot spots: the caches and the instructions that take the faults.
 *
 * What kmemcheck costs is its faults.  /sys/kernel/debug/kmemcheck/hot names
 * the slab caches whose pages take most of them and the instructions that
 * fault most, so that a developer can see where the time goes: a cache
 * whose objects keep bytes never written keeps its pages hidden for good,
 * and one that needs no checking can be made SLAB_NOTRACK.  Counting adds
 * to every fault, so it starts only when the file is first written, or at
 * boot with kmemcheck.hot=1; writing to the file clears the counts.  A
 * cache's name is copied when it first faults:
 * a cache created at the address of one destroyed meanwhile is shown under
 * the old name until the counts are cleared.
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
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "../slab.h"
#include "kmemcheck.h"

/*
 * Are faults counted?  Set at boot, or by the first write to the file.
 * Then every fault takes the full path, the only one that counts.
 */
bool kmemcheck_hot_on __read_mostly;

/*
 * A busy workload faults at a few thousand instructions, on pages of a
 * few dozen caches.  The tables are open-addressed, without deletion.
 */
#define KMEMCHECK_HOT_CACHE_BITS	8
#define KMEMCHECK_HOT_INSN_BITS		13
/* Slots tried before a new key is counted as "other". */
#define KMEMCHECK_HOT_PROBES	16
/* Bytes of a cache's name kept, NUL included. */
#define KMEMCHECK_HOT_NAME_LEN	24
/* Lines printed per table. */
#define KMEMCHECK_HOT_SHOWN	20

/* The key of faults on pages from the page allocator. */
#define KMEMCHECK_HOT_PAGES	1UL

struct kmemcheck_hot {
	unsigned long key;		/* cache or instruction address */
	unsigned long count;
};

struct kmemcheck_hot_table {
	unsigned int bits;
	struct kmemcheck_hot *slot;
	/* For caches: each slot's name, copied since the cache may go. */
	char (*name)[KMEMCHECK_HOT_NAME_LEN];
	unsigned long other;		/* keys that found no free slot */
};

static struct kmemcheck_hot
	kmemcheck_hot_cache_slots[BIT(KMEMCHECK_HOT_CACHE_BITS)],
	kmemcheck_hot_insn_slots[BIT(KMEMCHECK_HOT_INSN_BITS)];
static char kmemcheck_hot_cache_names[BIT(KMEMCHECK_HOT_CACHE_BITS)]
				 [KMEMCHECK_HOT_NAME_LEN];

static struct kmemcheck_hot_table kmemcheck_hot_caches = {
	.bits = KMEMCHECK_HOT_CACHE_BITS,
	.slot = kmemcheck_hot_cache_slots,
	.name = kmemcheck_hot_cache_names,
};

static struct kmemcheck_hot_table kmemcheck_hot_insns = {
	.bits = KMEMCHECK_HOT_INSN_BITS,
	.slot = kmemcheck_hot_insn_slots,
};

/*
 * Count a fault for @key in @t.  Return: the index of its slot if the slot
 * was free until now, else BIT(t->bits).
 */
static unsigned int kmemcheck_hot_count(struct kmemcheck_hot_table *t,
					unsigned long key)
{
	unsigned int mask = BIT(t->bits) - 1;
	unsigned int h = hash_long(key, t->bits), i;

	for (i = 0; i < KMEMCHECK_HOT_PROBES; i++) {
		struct kmemcheck_hot *e = &t->slot[(h + i) & mask];

		if (e->key == key) {
			e->count++;
			return BIT(t->bits);
		}
		if (!e->key) {
			e->key = key;
			e->count = 1;
			return (h + i) & mask;
		}
	}
	t->other++;
	return BIT(t->bits);
}

/**
 * kmemcheck_hot_fault() - count a fault for the hot spots
 * @ip:		address of the faulting instruction
 * @addr:	address it accessed
 */
void kmemcheck_hot_fault(unsigned long ip, unsigned long addr)
{
	unsigned long flags;
	struct slab *slab;
	unsigned int i;

	if (!READ_ONCE(kmemcheck_hot_on) || in_nmi())
		return;
	local_irq_save(flags);
	kmemcheck_hot_count(&kmemcheck_hot_insns, ip);
	slab = virt_to_slab((void *)addr);
	i = kmemcheck_hot_count(&kmemcheck_hot_caches, slab ?
				(unsigned long)slab->slab_cache :
				KMEMCHECK_HOT_PAGES);
	/*
	 * Copied once, when the cache takes its slot: the name may be in a
	 * kmalloc'ed string on a hidden page, whose every read is a fault.
	 */
	if (i < BIT(kmemcheck_hot_caches.bits))
		strscpy(kmemcheck_hot_caches.name[i], slab ?
			slab->slab_cache->name : "(page allocator)");
	local_irq_restore(flags);
}

/* A slot as shown: a copy, with its name for a cache. */
struct kmemcheck_hot_line {
	unsigned long key;
	unsigned long count;
	char name[KMEMCHECK_HOT_NAME_LEN];
};

static int kmemcheck_hot_cmp(const void *a, const void *b)
{
	const struct kmemcheck_hot_line *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* The busiest entries of @t, most faults first. */
static void kmemcheck_hot_show_table(struct seq_file *seq, const char *title,
				     struct kmemcheck_hot_table *t)
{
	unsigned int i, n = BIT(t->bits);
	struct kmemcheck_hot_line *line;
	unsigned long flags, other;

	/* Untracked: filling it takes no fault. */
	line = kvcalloc(n, sizeof(*line), GFP_KERNEL | __GFP_NOTRACK);
	if (!line)
		return;
	local_irq_save(flags);
	for (i = 0; i < n; i++) {
		line[i].key = t->slot[i].key;
		line[i].count = t->slot[i].count;
		if (t->name)
			strscpy(line[i].name, t->name[i]);
	}
	other = t->other;
	local_irq_restore(flags);
	sort(line, n, sizeof(*line), kmemcheck_hot_cmp, NULL);
	seq_printf(seq, "faults by %s:\n", title);
	for (i = 0; i < KMEMCHECK_HOT_SHOWN && line[i].count; i++) {
		if (t->name)
			seq_printf(seq, "%10lu  %s\n", line[i].count,
				   line[i].name);
		else
			seq_printf(seq, "%10lu  %pS\n", line[i].count,
				   (void *)line[i].key);
	}
	if (other)
		seq_printf(seq, "%10lu  (not counted: table full)\n", other);
	kvfree(line);
}

/* Forget every count of @t. */
static void kmemcheck_hot_clear(struct kmemcheck_hot_table *t)
{
	memset(t->slot, 0, BIT(t->bits) * sizeof(*t->slot));
	if (t->name)
		memset(t->name, 0, BIT(t->bits) * sizeof(*t->name));
	t->other = 0;
}

static int hot_show(struct seq_file *seq, void *v)
{
	if (!READ_ONCE(kmemcheck_hot_on))
		seq_puts(seq, "faults are not counted: write to this file to start\n");
	kmemcheck_hot_show_table(seq, "cache", &kmemcheck_hot_caches);
	kmemcheck_hot_show_table(seq, "instruction", &kmemcheck_hot_insns);
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
	kmemcheck_hot_clear(&kmemcheck_hot_caches);
	kmemcheck_hot_clear(&kmemcheck_hot_insns);
	WRITE_ONCE(kmemcheck_hot_on, true);
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
