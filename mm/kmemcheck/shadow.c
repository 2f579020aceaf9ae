// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck shadow: one state byte per byte of every tracked page.
 *
 * Each tracked page owns one shadow page, pointed to by its struct page.
 * One shadow page per page (rather than one block per allocation) keeps
 * split_page() and partial frees of high-order blocks trivially right.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/string.h>

#include <asm/kmemcheck.h>

#include "kmemcheck.h"

/**
 * kmemcheck_shadow_of() - find the shadow byte of an address
 * @addr:	any address
 *
 * Safe from any context: it only reads the memory map.
 *
 * Return: the shadow byte, or NULL if @addr is not in a tracked page.
 */
u8 *kmemcheck_shadow_of(unsigned long addr)
{
	struct page *page;
	u8 *shadow;

	if (!virt_addr_valid((void *)addr))
		return NULL;
	page = virt_to_page((void *)addr);
	shadow = READ_ONCE(page->kmemcheck_shadow);
	if (!shadow)
		return NULL;
	return shadow + offset_in_page(addr);
}

/**
 * kmemcheck_shadow_alloc() - start tracking @nr pages
 * @page:	first page (lowmem)
 * @nr:		number of pages
 * @gfp:	flags of the allocation being tracked, to pick the shadow's
 *
 * Gives every page a shadow page and hides it.  Pages whose shadow cannot be
 * allocated, or which cannot be hidden, stay untracked.
 *
 * Return: true if every page is tracked.
 */
bool kmemcheck_shadow_alloc(struct page *page, unsigned int nr, gfp_t gfp)
{
	/*
	 * Never sleep longer than the caller allowed, never fail loudly, and
	 * never track the shadow itself.
	 */
	gfp_t shadow_gfp = (gfp & (__GFP_RECLAIM | __GFP_IO | __GFP_FS)) |
			   __GFP_NOWARN | __GFP_NORETRY | __GFP_NOTRACK;
	bool all = true;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		unsigned long addr = (unsigned long)page_address(page + i);
		struct page *shadow;

		if (WARN_ON_ONCE(page[i].kmemcheck_shadow))
			continue;
		shadow = alloc_page(shadow_gfp);
		if (!shadow) {
			kmemcheck_count(KMEMCHECK_COUNTER_SHADOW_FAILED);
			all = false;
			continue;
		}
		/* Untracked until hidden: the caller marks the state. */
		memset(page_address(shadow), KMEMCHECK_SHADOW_UNALLOCATED,
		       PAGE_SIZE);
		WRITE_ONCE(page[i].kmemcheck_shadow, page_address(shadow));
		if (!kmemcheck_arch_hide_page(addr)) {
			WRITE_ONCE(page[i].kmemcheck_shadow, NULL);
			__free_page(shadow);
			all = false;
			continue;
		}
		atomic_long_inc(&kmemcheck_counters[KMEMCHECK_COUNTER_TRACKED_PAGES]);
	}
	return all;
}

/**
 * kmemcheck_shadow_free() - stop tracking @nr pages
 * @page:	first page
 * @nr:		number of pages
 *
 * Shows the pages again and frees their shadow; untracked pages are skipped.
 */
void kmemcheck_shadow_free(struct page *page, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		void *shadow = page[i].kmemcheck_shadow;

		if (!shadow)
			continue;
		kmemcheck_arch_show_page((unsigned long)page_address(page + i));
		WRITE_ONCE(page[i].kmemcheck_shadow, NULL);
		free_page((unsigned long)shadow);
		atomic_long_dec(&kmemcheck_counters[KMEMCHECK_COUNTER_TRACKED_PAGES]);
	}
}

/**
 * kmemcheck_shadow_set() - set the state of a range of bytes
 * @addr:	first byte
 * @size:	number of bytes
 * @state:	new state
 *
 * Bytes in untracked pages are skipped, so the range may span tracked and
 * untracked pages.
 */
void kmemcheck_shadow_set(unsigned long addr, size_t size,
			  enum kmemcheck_shadow state)
{
	while (size) {
		size_t n = min_t(size_t, size, PAGE_SIZE - offset_in_page(addr));
		u8 *shadow = kmemcheck_shadow_of(addr);

		if (shadow)
			memset(shadow, state, n);
		addr += n;
		size -= n;
	}
}

/**
 * kmemcheck_shadow_set_pages() - set the state of whole pages
 * @page:	first page
 * @nr:		number of pages
 * @state:	new state
 */
void kmemcheck_shadow_set_pages(struct page *page, unsigned int nr,
				enum kmemcheck_shadow state)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (page[i].kmemcheck_shadow)
			memset(page[i].kmemcheck_shadow, state, PAGE_SIZE);
	}
}

/**
 * kmemcheck_shadow_letter() - the letter reports use for a shadow byte
 * @shadow:	shadow byte, or NULL for an untracked byte
 *
 * Return: 'a', 'u', 'i' or 'f'; '-' for untracked bytes, '?' for garbage.
 */
char kmemcheck_shadow_letter(const u8 *shadow)
{
	static const char letters[] = "auif";

	if (!shadow)
		return '-';
	if (*shadow >= sizeof(letters) - 1)
		return '?';
	return letters[*shadow];
}
