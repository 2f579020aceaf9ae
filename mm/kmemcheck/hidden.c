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
 * whole; one with freed bytes pays for the quarantine.  Hidden pages of
 * the page allocator are listed by the stack that allocated them, which
 * each keeps in its shadow.
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
#include <linux/kallsyms.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/memblock.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stackdepot.h>
#include <linux/string.h>

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

/* Allocation stacks of hidden pages from the page allocator, counted. */
#define KMEMCHECK_HIDDEN_STACKS	8
/* Frames of a stack shown, after the allocator's own. */
#define KMEMCHECK_HIDDEN_FRAMES	4

struct kmemcheck_hidden_stack {
	depot_stack_handle_t handle;
	unsigned long pages;
};

/* Return: false if the table had no room for the stack of @addr. */
static bool kmemcheck_hidden_stack_count(struct kmemcheck_hidden_stack *stacks,
					 unsigned long addr)
{
	enum kmemcheck_origin kind;
	depot_stack_handle_t handle;
	unsigned int i;

	handle = kmemcheck_origin_get(addr, &kind);
	if (kind != KMEMCHECK_ORIGIN_ALLOC)
		handle = 0;
	for (i = 0; i < KMEMCHECK_HIDDEN_STACKS; i++) {
		if (stacks[i].handle == handle || !stacks[i].pages) {
			stacks[i].handle = handle;
			stacks[i].pages++;
			return true;
		}
	}
	return false;
}

static int kmemcheck_hidden_stack_cmp(const void *a, const void *b)
{
	const struct kmemcheck_hidden_stack *x = a, *y = b;

	return x->pages < y->pages ? 1 : x->pages > y->pages ? -1 : 0;
}

/* The page allocator and kmemcheck's hook, at the top of every stack. */
static const char *const kmemcheck_hidden_allocator[] = {
	"kmemcheck_", "__kmemcheck_", "post_alloc_hook", "prep_new_page",
	"get_page_from_freelist", "__alloc_pages", "alloc_pages",
	"__get_free_pages", "get_zeroed_page", "__folio_alloc", "folio_alloc",
};

static bool kmemcheck_hidden_in_allocator(unsigned long ip, char *name)
{
	unsigned int i;

	if (lookup_symbol_name(ip, name))
		return false;
	for (i = 0; i < ARRAY_SIZE(kmemcheck_hidden_allocator); i++) {
		if (str_has_prefix(name, kmemcheck_hidden_allocator[i]))
			return true;
	}
	return false;
}

static void kmemcheck_hidden_stack_show(struct seq_file *seq,
					const struct kmemcheck_hidden_stack *st)
{
	char name[KSYM_NAME_LEN];
	unsigned long *entries;
	unsigned int nr, i, shown = 0;

	seq_printf(seq, "%8lu  ", st->pages);
	nr = st->handle ? stack_depot_fetch(st->handle, &entries) : 0;
	if (!nr) {
		seq_puts(seq, "(no stack)\n");
		return;
	}
	for (i = 0; i < nr && shown < KMEMCHECK_HIDDEN_FRAMES; i++) {
		if (!shown && i + 1 < nr &&
		    kmemcheck_hidden_in_allocator(entries[i], name))
			continue;
		seq_printf(seq, "%s%pS", shown++ ? " <- " : "", (void *)entries[i]);
	}
	seq_putc(seq, '\n');
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

/*
 * Count every tracked page of low memory into its cache's line, and the
 * hidden ones of the page allocator by stack.  Return: those hidden pages
 * whose stack found no room in @stacks.
 */
static unsigned long
kmemcheck_hidden_count(struct kmemcheck_hidden_line *lines, unsigned int n,
		       struct kmemcheck_hidden_stack *stacks)
{
	unsigned long other = 0;
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
		if (line) {
			unsigned long hidden = line->census.hidden;

			kmemcheck_census_page(addr, &line->census);
			if (!slab && line->census.hidden != hidden &&
			    !kmemcheck_hidden_stack_count(stacks, addr))
				other++;
		}
		local_irq_restore(flags);
		cond_resched();
	}
	return other;
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
	struct kmemcheck_hidden_stack stacks[KMEMCHECK_HIDDEN_STACKS] = {};
	struct kmemcheck_hidden_line *lines;
	struct kmem_cache *s;
	unsigned int i, n = 1;
	unsigned long other;

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
	other = kmemcheck_hidden_count(lines, n, stacks);
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
	seq_puts(seq, "hidden pages of the page allocator, by allocation stack:\n");
	sort(stacks, KMEMCHECK_HIDDEN_STACKS, sizeof(*stacks),
	     kmemcheck_hidden_stack_cmp, NULL);
	for (i = 0; i < KMEMCHECK_HIDDEN_STACKS && stacks[i].pages; i++)
		kmemcheck_hidden_stack_show(seq, &stacks[i]);
	if (other)
		seq_printf(seq, "%8lu  (other stacks)\n", other);
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
