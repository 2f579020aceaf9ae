// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck annotations: code that knows better than the fault handler
 * marks memory unallocated, uninitialized, initialized or freed, or turns
 * checks off for the current task.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/export.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/kmemcheck.h>

#include "kmemcheck.h"

/**
 * __kmemcheck_mark_unallocated() - mark memory as not part of any object
 * @address:	first byte
 * @size:	number of bytes
 *
 * Untracked bytes in the range are ignored, as in every kmemcheck_mark_*().
 */
void __kmemcheck_mark_unallocated(const void *address, size_t size)
{
	kmemcheck_shadow_set((unsigned long)address, size,
			     KMEMCHECK_SHADOW_UNALLOCATED);
}
EXPORT_SYMBOL_GPL(__kmemcheck_mark_unallocated);

/**
 * __kmemcheck_mark_slack() - mark bytes of an object that are never written
 * @address:	first byte, in a slab object
 * @size:	number of bytes
 */
void __kmemcheck_mark_slack(const void *address, size_t size)
{
	if (size && kmemcheck_slack_known_at(address))
		kmemcheck_shadow_set((unsigned long)address, size,
				     KMEMCHECK_SHADOW_UNALLOCATED);
}
EXPORT_SYMBOL_GPL(__kmemcheck_mark_slack);

/**
 * __kmemcheck_mark_uninitialized() - mark memory as never written
 * @address:	first byte
 * @size:	number of bytes
 */
void __kmemcheck_mark_uninitialized(const void *address, size_t size)
{
	kmemcheck_shadow_set((unsigned long)address, size,
			     KMEMCHECK_SHADOW_UNINITIALIZED);
}
EXPORT_SYMBOL_GPL(__kmemcheck_mark_uninitialized);

/**
 * __kmemcheck_mark_initialized() - mark memory as written
 * @address:	first byte
 * @size:	number of bytes
 *
 * For memory written behind kmemcheck's back: by a device, by user space
 * through a mapping, or through another virtual alias.
 */
void __kmemcheck_mark_initialized(const void *address, size_t size)
{
	kmemcheck_shadow_set((unsigned long)address, size,
			     KMEMCHECK_SHADOW_INITIALIZED);
}
EXPORT_SYMBOL_GPL(__kmemcheck_mark_initialized);

/**
 * __kmemcheck_mark_freed() - mark memory as freed
 * @address:	first byte
 * @size:	number of bytes
 */
void __kmemcheck_mark_freed(const void *address, size_t size)
{
	kmemcheck_shadow_set((unsigned long)address, size,
			     KMEMCHECK_SHADOW_FREED);
}
EXPORT_SYMBOL_GPL(__kmemcheck_mark_freed);

/**
 * __kmemcheck_mark_unallocated_pages() - mark whole pages unallocated
 * @page:	first page
 * @n:		number of pages
 */
void __kmemcheck_mark_unallocated_pages(struct page *page, unsigned int n)
{
	kmemcheck_shadow_set_pages(page, n, KMEMCHECK_SHADOW_UNALLOCATED);
}
EXPORT_SYMBOL_GPL(__kmemcheck_mark_unallocated_pages);

/**
 * __kmemcheck_mark_uninitialized_pages() - mark whole pages never written
 * @page:	first page
 * @n:		number of pages
 */
void __kmemcheck_mark_uninitialized_pages(struct page *page, unsigned int n)
{
	kmemcheck_shadow_set_pages(page, n, KMEMCHECK_SHADOW_UNINITIALIZED);
}
EXPORT_SYMBOL_GPL(__kmemcheck_mark_uninitialized_pages);

/**
 * __kmemcheck_mark_initialized_pages() - mark whole pages written
 * @page:	first page
 * @n:		number of pages
 */
void __kmemcheck_mark_initialized_pages(struct page *page, unsigned int n)
{
	kmemcheck_shadow_set_pages(page, n, KMEMCHECK_SHADOW_INITIALIZED);
}
EXPORT_SYMBOL_GPL(__kmemcheck_mark_initialized_pages);

/**
 * kmemcheck_disable_current() - stop checking reads made by this task
 *
 * For runtime code that must read tracked memory whatever its state, such
 * as SLUB reading a free pointer another context may just have handed out.
 * Writes still update the shadow.  Calls nest; pair each with
 * kmemcheck_enable_current().
 */
void kmemcheck_disable_current(void)
{
	current->kmemcheck_disabled++;
}
EXPORT_SYMBOL_GPL(kmemcheck_disable_current);

/**
 * kmemcheck_enable_current() - undo kmemcheck_disable_current()
 */
void kmemcheck_enable_current(void)
{
	if (!WARN_ON_ONCE(!current->kmemcheck_disabled))
		current->kmemcheck_disabled--;
}
EXPORT_SYMBOL_GPL(kmemcheck_enable_current);
