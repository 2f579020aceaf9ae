// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck hidden pages: what keeps tracked pages from resting.
 *
 * Every access to a tracked page faults while some byte of it needs
 * checking (shadow.c): with kmemcheck.fastpath=2, an uninitialized byte or
 * a byte of an object in quarantine.  The hot file names the caches whose
 * pages take the faults; /sys/kernel/debug/kmemcheck/hidden says why those
 * pages do not rest.  For each slab cache, and for the page allocator, it
 * counts the tracked pages, those that may not rest now, and the bytes of
 * those pages that are uninitialized (fields never written, buffers never
 * filled) or freed (objects freed recently): a cache with many
 * uninitialized bytes per hidden page holds objects that are never written
 * whole; one with freed bytes pays for the quarantine.
 *
 * The file walks the memory map of low memory, where tracked pages are.
 * kmemcheck runs the machine on one CPU: with interrupts off, no page stops
 * being tracked, nor its shadow is freed, while it is counted.  slab_mutex
 * keeps the caches, and their names, from going away meanwhile.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "../slab.h"
#include "kmemcheck.h"

/* The pages of one cache (or of the page allocator) and their bytes. */
struct kmemcheck_hidden_line {
	const struct kmem_cache *cache;		/* NULL: the page allocator */
	struct kmemcheck_census census;
};

/**
 * kmemcheck_census_page() - count a page and the bytes keeping it hidden
 * @addr:	any address in the page
 * @c:		the counts to add to
 *
 * Must be called with interrupts off.
 *
 * Return: false, and @c unchanged, if the page is not tracked.
 */
bool kmemcheck_census_page(unsigned long addr, struct kmemcheck_census *c)
{
	const u8 *shadow;
	unsigned int i;

	lockdep_assert_irqs_disabled();
	addr &= PAGE_MASK;
	shadow = kmemcheck_shadow_of(addr);
	if (!shadow)
		return false;
	c->tracked++;
	if (kmemcheck_page_may_rest(addr))
		return true;
	c->hidden++;
	for (i = 0; i < PAGE_SIZE; i++) {
		switch (kmemcheck_shadow_state(&shadow[i])) {
		case KMEMCHECK_SHADOW_UNINITIALIZED:
			c->uninit++;
			break;
		case KMEMCHECK_SHADOW_FREED:
			c->freed++;
			break;
		}
	}
	return true;
}

/* The line of @cache among the @n of @lines, or NULL. */
static struct kmemcheck_hidden_line *
kmemcheck_hidden_find(struct kmemcheck_hidden_line *lines, unsigned int n,
		      const struct kmem_cache *cache)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (lines[i].cache == cache)
			return &lines[i];
	}
	return NULL;
}

/* Count every tracked page of low memory into its cache's line. */
static void kmemcheck_hidden_count(struct kmemcheck_hidden_line *lines,
				   unsigned int n)
{
	unsigned long pfn, flags;

	for (pfn = 0; pfn < max_low_pfn; pfn++) {
		struct kmemcheck_hidden_line *line;
		unsigned long addr;
		struct slab *slab;

		if (!pfn_valid(pfn) || !pfn_to_page(pfn)->kmemcheck_shadow)
			continue;
		addr = (unsigned long)pfn_to_kaddr(pfn);
		local_irq_save(flags);
		slab = virt_to_slab((void *)addr);
		line = kmemcheck_hidden_find(lines, n,
					     slab ? slab->slab_cache : NULL);
		if (line)
			kmemcheck_census_page(addr, &line->census);
		local_irq_restore(flags);
		cond_resched();
	}
}

static int kmemcheck_hidden_cmp(const void *a, const void *b)
{
	const struct kmemcheck_hidden_line *x = a, *y = b;

	if (x->census.hidden != y->census.hidden)
		return x->census.hidden < y->census.hidden ? 1 : -1;
	return x->census.tracked < y->census.tracked ? 1 :
	       x->census.tracked > y->census.tracked ? -1 : 0;
}

static int hidden_show(struct seq_file *seq, void *v)
{
	struct kmemcheck_hidden_line *lines;
	struct kmem_cache *s;
	unsigned int i, n = 1;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		n++;
	/* Untracked: filling it takes no fault. */
	lines = kvcalloc(n, sizeof(*lines), GFP_KERNEL | __GFP_NOTRACK);
	if (!lines) {
		mutex_unlock(&slab_mutex);
		return -ENOMEM;
	}
	/* Line 0, cache NULL, is the page allocator's. */
	i = 1;
	list_for_each_entry(s, &slab_caches, list)
		lines[i++].cache = s;
	kmemcheck_hidden_count(lines, n);
	sort(lines, n, sizeof(*lines), kmemcheck_hidden_cmp, NULL);
	seq_puts(seq, "tracked pages that may not rest, and their bytes keeping them hidden:\n");
	seq_printf(seq, "%8s %8s %10s %10s  %s\n", "hidden", "tracked",
		   "uninit", "freed", "cache");
	for (i = 0; i < n && lines[i].census.tracked; i++) {
		const struct kmemcheck_census *c = &lines[i].census;

		seq_printf(seq, "%8lu %8lu %10lu %10lu  %s\n", c->hidden,
			   c->tracked, c->uninit, c->freed,
			   lines[i].cache ? lines[i].cache->name :
					    "(page allocator)");
	}
	mutex_unlock(&slab_mutex);
	kvfree(lines);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hidden);

/**
 * kmemcheck_hidden_init() - create debugfs kmemcheck/hidden
 * @dir:	the kmemcheck debugfs directory
 */
void __init kmemcheck_hidden_init(struct dentry *dir)
{
	debugfs_create_file("hidden", 0400, dir, NULL, &hidden_fops);
}
