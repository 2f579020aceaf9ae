// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck allocator hooks: what the page and slab allocators, DMA and the
 * copies of whole pages tell kmemcheck, and what it does of it: track or
 * untrack pages, set the shadow of objects allocated and freed, check the
 * bytes that leave the kernel.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kmemcheck.h>
#include <linux/kmemcheck-checks.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stackdepot.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <asm/kmemcheck.h>

#include "../slab.h"
#include "kmemcheck.h"

void __kmemcheck_alloc_pages(struct page *page, unsigned int order, gfp_t gfp)
{
	unsigned int nr = 1U << order;

	/*
	 * Highmem-capable pages (user, page cache) are mapped to user space
	 * and written there without a fault: their shadow would lie.
	 */
	if (gfp & (__GFP_NOTRACK | __GFP_HIGHMEM) || PageHighMem(page) ||
	    !kmemcheck_track_pages())
		return;
	kmemcheck_shadow_alloc(page, nr, gfp);
	kmemcheck_shadow_set_pages(page, nr, want_init_on_alloc(gfp) ?
				   KMEMCHECK_SHADOW_INITIALIZED :
				   KMEMCHECK_SHADOW_UNINITIALIZED);
	kmemcheck_origin_pages(page, nr, gfp);
}

void __kmemcheck_free_pages(struct page *page, unsigned int order)
{
	unsigned int i, nr = 1U << order;
	depot_stack_handle_t handle;

	if (!kmemcheck_page_quarantine_add(page, order)) {
		kmemcheck_shadow_free(page, nr);
		return;
	}
	/* As the allocation stack, the free stack is in every page. */
	handle = kmemcheck_save_stack(0);
	for (i = 0; i < nr; i++)
		kmemcheck_origin_set((unsigned long)page_address(page + i) +
				     KMEMCHECK_ORIGIN_BYTES,
				     KMEMCHECK_ORIGIN_FREE, handle);
}

void __kmemcheck_page_reused(struct page *page, unsigned int order)
{
	unsigned int i;

	for (i = 0; i < 1U << order; i++) {
		if (page[i].kmemcheck_shadow) {
			kmemcheck_page_quarantine_remove(page, order);
			return;
		}
	}
}

/* Caches kmemcheck leaves alone: opted out, or slub_debug's metadata. */
static bool kmemcheck_cache_untracked(struct kmem_cache *s)
{
	return s->flags & (SLAB_NOTRACK | SLAB_DEBUG_FLAGS);
}

void __kmemcheck_slab_alloc_pages(struct kmem_cache *s, struct page *page,
				  unsigned int order, gfp_t gfp)
{
	if (kmemcheck_cache_untracked(s) || PageHighMem(page) ||
	    !kmemcheck_track_slab(s))
		return;
	/*
	 * Everything starts unallocated.  SLUB's freelist stores initialize
	 * what they write (marked by set_freepointer() itself); so do the
	 * constructor's, through faults, unless kmemcheck.fastpath=2 lets
	 * the page rest first.  A slab is tracked whole or not at all: the
	 * hooks look at the first byte of an object only, and an object may
	 * straddle pages.
	 */
	if (!kmemcheck_shadow_alloc(page, 1U << order, gfp))
		kmemcheck_shadow_free(page, 1U << order);
}

void __kmemcheck_slab_alloc(struct kmem_cache *s, void *object, bool init,
			    unsigned int size, unsigned long caller)
{
	unsigned long addr = (unsigned long)object;

	if (s->ctor || !kmemcheck_shadow_of(addr))
		return;
	if (!kmemcheck_track_object(s, caller)) {
		/*
		 * Left out by kmemcheck.track=: never checked, and known as
		 * such when freed by having no allocation stack.
		 */
		kmemcheck_shadow_set(addr, s->object_size,
				     KMEMCHECK_SHADOW_INITIALIZED);
		if (s->object_size >= KMEMCHECK_ORIGIN_BYTES)
			kmemcheck_origin_set(addr, KMEMCHECK_ORIGIN_NONE, 0);
		return;
	}
	if (init || size >= s->object_size || !kmemcheck_slack_known(s)) {
		kmemcheck_shadow_set(addr, s->object_size,
				     init ? KMEMCHECK_SHADOW_INITIALIZED :
					    KMEMCHECK_SHADOW_UNINITIALIZED);
	} else {
		/*
		 * The slack past the size asked for is never written: were
		 * it uninitialized, it would keep the page hidden for as
		 * long as the object lives, and every access to its
		 * neighbours would fault.
		 */
		kmemcheck_shadow_set(addr, size, KMEMCHECK_SHADOW_UNINITIALIZED);
		kmemcheck_shadow_set(addr + size, s->object_size - size,
				     KMEMCHECK_SHADOW_UNALLOCATED);
	}
	/* Allocations happen in any context: never reclaim nor wake kswapd. */
	kmemcheck_origin_alloc(addr, s->object_size, 0);
}

/*
 * Was the object at @addr left out by kmemcheck.track= when allocated?
 * Those have no stack in their first origin slot, as have the rare
 * selected objects whose stack the depot could not save: their free is
 * not checked either.
 */
static bool kmemcheck_object_unselected(struct kmem_cache *s,
					unsigned long addr)
{
	enum kmemcheck_origin kind = KMEMCHECK_ORIGIN_NONE;

	if (kmemcheck_track_everything() ||
	    s->object_size < KMEMCHECK_ORIGIN_BYTES)
		return false;
	kmemcheck_origin_get(addr, &kind);
	return kind == KMEMCHECK_ORIGIN_NONE;
}

void __kmemcheck_slab_free(struct kmem_cache *s, void *object)
{
	/* Free objects of these caches may legitimately be read. */
	if (s->ctor || (s->flags & SLAB_TYPESAFE_BY_RCU) ||
	    !kmemcheck_shadow_of((unsigned long)object))
		return;
	/* Still all initialized, it is never checked, used or freed. */
	if (kmemcheck_object_unselected(s, (unsigned long)object))
		return;
	kmemcheck_shadow_set((unsigned long)object, s->object_size,
			     KMEMCHECK_SHADOW_FREED);
	kmemcheck_origin_free((unsigned long)object, s->object_size);
	kmemcheck_quarantine_add(s, object);
}

/* Is @addr in a slab object whose cache can tell its slack? */
bool kmemcheck_slack_known_at(const void *addr)
{
	struct slab *slab = virt_to_slab(addr);

	return slab && kmemcheck_slack_known(slab->slab_cache);
}

void __kmemcheck_slab_ksize(const void *object, size_t size)
{
	if (kmemcheck_slack_known_at(object))
		kmemcheck_shadow_claim((unsigned long)object, size);
}

void __kmemcheck_slab_store_freeptr(void *freeptr, unsigned long val)
{
	unsigned long addr = (unsigned long)freeptr, flags;
	bool shown, rest = false;

	/*
	 * Interrupts off, as in the shadow's fill: the store is recorded as
	 * a fault's would be, the page shown for it, and hidden again if
	 * other bytes keep it so.  A page shown for a single-step is not
	 * hidden and is left alone.
	 */
	raw_local_irq_save(flags);
	if (!kmemcheck_access_quick(addr, sizeof(val), true, &rest))
		kmemcheck_shadow_set(addr, sizeof(val),
				     KMEMCHECK_SHADOW_INITIALIZED);
	shown = kmemcheck_arch_show_page(addr);
	WRITE_ONCE(*(unsigned long *)freeptr, val);
	barrier();
	if (shown && !rest)
		kmemcheck_arch_hide_page(addr);
	raw_local_irq_restore(flags);
}

/*
 * Bytes about to leave the kernel, for user space or a device: report
 * those not initialized here, where the copy is, rather than never.
 */
static void kmemcheck_check_leaving(unsigned long addr, size_t size,
				    unsigned long dst,
				    enum kmemcheck_sink sink)
{
	unsigned long bad;
	u8 state;

	if (in_nmi() || !kmemcheck_checking() ||
	    !kmemcheck_find_bad(addr, size, &bad, &state))
		return;
	kmemcheck_report_copy(state == KMEMCHECK_SHADOW_UNINITIALIZED ?
			      KMEMCHECK_BUG_INFOLEAK : kmemcheck_bug_of(state),
			      addr, size, bad, dst, sink);
}

void __kmemcheck_handle_buffer(const void *buf, size_t size,
			       enum dma_data_direction dir)
{
	unsigned long addr = (unsigned long)buf;

	/* Tracked pages are all in the linear map of low memory. */
	if (!buf || !virt_addr_valid(buf))
		return;
	/* The device reads the buffer: check it as it stands now. */
	if (dir == DMA_TO_DEVICE || dir == DMA_BIDIRECTIONAL)
		kmemcheck_check_leaving(addr, size, 0, KMEMCHECK_SINK_DEVICE);
	/* It may write the buffer, behind kmemcheck's back. */
	if (dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL)
		kmemcheck_shadow_set(addr, size, KMEMCHECK_SHADOW_INITIALIZED);
}
EXPORT_SYMBOL_GPL(__kmemcheck_handle_buffer);

void __kmemcheck_handle_dma(struct page *page, size_t offset, size_t size,
			    enum dma_data_direction dir)
{
	/* Highmem is never tracked; its address may not even be mapped. */
	if (PageHighMem(page))
		return;
	__kmemcheck_handle_buffer(page_address(page) + offset, size, dir);
}
EXPORT_SYMBOL_GPL(__kmemcheck_handle_dma);

void __kmemcheck_handle_dma_sg(struct scatterlist *sg, int nents,
			       enum dma_data_direction dir)
{
	struct scatterlist *s;
	int i;

	for_each_sg(sg, s, nents, i)
		__kmemcheck_handle_dma(sg_page(s), s->offset, s->length, dir);
}
EXPORT_SYMBOL_GPL(__kmemcheck_handle_dma_sg);

bool __kmemcheck_copy_page(struct page *to, struct page *from)
{
	unsigned long src, dst, flags;
	bool src_shown;
	void *vto;

	if (PageHighMem(from) || !READ_ONCE(from->kmemcheck_shadow)) {
		if (!PageHighMem(to))
			kmemcheck_shadow_free(to, 1);
		return false;
	}
	/* Migration's new page: from the allocator, or isolated free pages. */
	if (!PageHighMem(to) && !READ_ONCE(to->kmemcheck_shadow))
		kmemcheck_shadow_alloc(to, 1, GFP_NOWAIT);
	src = (unsigned long)page_address(from);
	vto = kmap_local_page(to);
	dst = (unsigned long)vto;
	/*
	 * Both pages shown for the copy, with interrupts off as in the
	 * shadow's fills; then @to is hidden as its new states want, and
	 * @from as it was.
	 */
	raw_local_irq_save(flags);
	src_shown = kmemcheck_arch_show_page(src);
	if (READ_ONCE(to->kmemcheck_shadow)) {
		kmemcheck_arch_show_page(dst);
		copy_page(vto, (void *)src);
		kmemcheck_shadow_copy_page(to, from);
		if (!kmemcheck_page_may_rest(dst))
			kmemcheck_arch_hide_page(dst);
	} else {
		copy_page(vto, (void *)src);
	}
	if (src_shown)
		kmemcheck_arch_hide_page(src);
	raw_local_irq_restore(flags);
	kunmap_local(vto);
	return true;
}
EXPORT_SYMBOL_GPL(__kmemcheck_copy_page);

void __kmemcheck_copy_to_user(void __user *to, const void *from,
			      unsigned long n)
{
	kmemcheck_check_leaving((unsigned long)from, n, (unsigned long)to,
				KMEMCHECK_SINK_USER);
}
EXPORT_SYMBOL(__kmemcheck_copy_to_user);
