/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck: detector of reads of uninitialized heap memory.
 *
 * Tracked heap pages are mapped not-present; every kernel access to them
 * page-faults, and the fault handler checks or updates a shadow that holds
 * the state of every byte.  See Documentation/dev-tools/kmemcheck.rst.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _LINUX_KMEMCHECK_H
#define _LINUX_KMEMCHECK_H

#include <linux/dma-direction.h>
#include <linux/errno.h>
#include <linux/gfp_types.h>
#include <linux/jump_label.h>
#include <linux/types.h>

struct kmem_cache;
struct page;
struct pt_regs;
struct scatterlist;

#ifdef CONFIG_KMEMCHECK

DECLARE_STATIC_KEY_FALSE(kmemcheck_enabled_key);

/**
 * kmemcheck_enabled() - is kmemcheck tracking memory?
 *
 * True when the kernel was booted with kmemcheck on; it stays true when
 * reporting is turned off at run time, because tracking must go on for the
 * shadow to stay right.
 *
 * Return: whether the kmemcheck hooks are active.
 */
static __always_inline bool kmemcheck_enabled(void)
{
	return static_branch_unlikely(&kmemcheck_enabled_key);
}

bool __init kmemcheck_direct_map_4k(void);
bool __init kmemcheck_boot_tracking(void);
void __init kmemcheck_init(void);

void __kmemcheck_alloc_pages(struct page *page, unsigned int order, gfp_t gfp);
void __kmemcheck_free_pages(struct page *page, unsigned int order);
void __kmemcheck_page_reused(struct page *page, unsigned int order);
void __kmemcheck_slab_alloc_pages(struct kmem_cache *s, struct page *page,
				  unsigned int order, gfp_t gfp);
void __kmemcheck_slab_alloc(struct kmem_cache *s, void *object, bool init,
			    unsigned int size, unsigned long caller);
void __kmemcheck_slab_free(struct kmem_cache *s, void *object);
void __kmemcheck_slab_ksize(const void *object, size_t size);
void __kmemcheck_slab_store_freeptr(void *freeptr, unsigned long val);

/**
 * kmemcheck_alloc_pages() - start tracking pages from the page allocator
 * @page:	first page of the allocation
 * @order:	order of the allocation
 * @gfp:	GFP flags of the allocation
 *
 * Pages are not tracked with __GFP_NOTRACK or __GFP_HIGHMEM (highmem-capable
 * pages are mapped to user space and written there without a fault).  They
 * start uninitialized, or initialized with __GFP_ZERO or init_on_alloc.
 * If no shadow can be allocated the pages simply stay untracked.
 */
static __always_inline void kmemcheck_alloc_pages(struct page *page,
						  unsigned int order, gfp_t gfp)
{
	if (kmemcheck_enabled() && page)
		__kmemcheck_alloc_pages(page, order, gfp);
}

/**
 * kmemcheck_free_pages() - pages are given back to the allocator
 * @page:	first page
 * @order:	order of the block being freed
 *
 * Their bytes become freed, and the pages stay hidden a while, so that a
 * read of them is a use-after-free (the page quarantine); or, if they are
 * not kept, they are shown again and their shadow freed.  Untracked pages
 * are ignored.
 */
static __always_inline void kmemcheck_free_pages(struct page *page,
						 unsigned int order)
{
	if (kmemcheck_enabled())
		__kmemcheck_free_pages(page, order);
}

/**
 * kmemcheck_page_reused() - free pages are about to be allocated again
 * @page:	first page
 * @order:	order of the block
 *
 * For every way pages leave the allocator's free lists, before anything
 * writes them: pages still kept hidden since they were freed are shown
 * again and stop being tracked.
 */
static __always_inline void kmemcheck_page_reused(struct page *page,
						  unsigned int order)
{
	if (kmemcheck_enabled())
		__kmemcheck_page_reused(page, order);
}

/**
 * kmemcheck_slab_alloc_pages() - start tracking a new slab
 * @s:		the cache the slab belongs to
 * @page:	first page of the slab
 * @order:	order of the slab
 * @gfp:	GFP flags the slab was allocated with
 *
 * The slab pages must have been allocated with __GFP_NOTRACK.  Unless the
 * cache is SLAB_NOTRACK or has debugging enabled, all its bytes become
 * unallocated before SLUB writes its freelist.
 */
static __always_inline void kmemcheck_slab_alloc_pages(struct kmem_cache *s,
						       struct page *page,
						       unsigned int order,
						       gfp_t gfp)
{
	if (kmemcheck_enabled())
		__kmemcheck_slab_alloc_pages(s, page, order, gfp);
}

/**
 * kmemcheck_slab_alloc() - mark a newly allocated slab object
 * @s:		the object's cache
 * @object:	the object
 * @init:	whether the allocator zeroed it (__GFP_ZERO, init_on_alloc)
 * @size:	the size asked for: kmalloc()'s, or the cache's object size
 * @caller:	address of the call to the slab allocator, which
 *		kmemcheck.track= may select by function or module
 *
 * The object becomes uninitialized, or initialized when @init or when
 * kmemcheck.track= does not select it.  Its bytes past @size, the slack
 * of a kmalloc() rounded up to its cache, stay unallocated: they do not
 * keep the page hidden, and a read of them, while it is, counts as one of
 * uninitialized bytes.  Objects of caches with a constructor keep their
 * state: the constructor wrote them.
 */
static __always_inline void kmemcheck_slab_alloc(struct kmem_cache *s,
						 void *object, bool init,
						 unsigned int size,
						 unsigned long caller)
{
	if (kmemcheck_enabled() && object)
		__kmemcheck_slab_alloc(s, object, init, size, caller);
}

/**
 * kmemcheck_slab_free() - mark a freed slab object
 * @s:		the object's cache
 * @object:	the object
 *
 * The object becomes freed, except in caches with a constructor or
 * SLAB_TYPESAFE_BY_RCU, whose free objects may legitimately be read.
 */
static __always_inline void kmemcheck_slab_free(struct kmem_cache *s,
						void *object)
{
	if (kmemcheck_enabled())
		__kmemcheck_slab_free(s, object);
}

void __kmemcheck_handle_dma(struct page *page, size_t offset, size_t size,
			    enum dma_data_direction dir);

/**
 * kmemcheck_handle_dma() - note a buffer mapped for DMA
 * @page:	first page of the buffer
 * @offset:	offset of the buffer in @page
 * @size:	size of the buffer
 * @dir:	direction of the transfer
 *
 * A device reading the buffer (DMA_TO_DEVICE, DMA_BIDIRECTIONAL) must not
 * get bytes that were never written: they are reported as kernel-infoleak,
 * at the mapping.  A device writes the buffer behind kmemcheck's back: when
 * it may (DMA_FROM_DEVICE, DMA_BIDIRECTIONAL), the buffer becomes
 * initialized.
 */
static __always_inline void kmemcheck_handle_dma(struct page *page,
						 size_t offset, size_t size,
						 enum dma_data_direction dir)
{
	if (kmemcheck_enabled())
		__kmemcheck_handle_dma(page, offset, size, dir);
}

void __kmemcheck_handle_buffer(const void *buf, size_t size,
			       enum dma_data_direction dir);

/**
 * kmemcheck_handle_buffer() - note a buffer handed to a device by address
 * @buf:	the buffer, in the kernel's linear map or not (then ignored)
 * @size:	its size
 * @dir:	direction of the transfer
 *
 * As kmemcheck_handle_dma(), for a buffer given by its address, such as
 * the transfer buffer of a USB request block.  A NULL @buf is ignored.
 */
static __always_inline void kmemcheck_handle_buffer(const void *buf,
						    size_t size,
						    enum dma_data_direction dir)
{
	if (kmemcheck_enabled())
		__kmemcheck_handle_buffer(buf, size, dir);
}

bool __kmemcheck_copy_page(struct page *to, struct page *from);

/**
 * kmemcheck_copy_page() - copy a page whose contents move, with its shadow
 * @to:		the page getting the contents (migration's new page)
 * @from:	the page they come from
 *
 * For copy_highpage(), under migration, compaction and folio_copy(): the
 * shadow moves with the bytes.  If @from is tracked, kmemcheck copies the
 * page itself, tracking @to with @from's states, origins and partial bits
 * (or leaving it untracked if no shadow can be had for it).  If @from is
 * not, @to stops being tracked too: its bytes are whatever user space or
 * a device wrote, unseen.
 *
 * Return: true if kmemcheck copied the page; false if the caller must.
 */
static __always_inline bool kmemcheck_copy_page(struct page *to,
						struct page *from)
{
	return kmemcheck_enabled() && __kmemcheck_copy_page(to, from);
}

void __kmemcheck_handle_dma_sg(struct scatterlist *sg, int nents,
			       enum dma_data_direction dir);

/**
 * kmemcheck_handle_dma_sg() - note a scatterlist mapped for DMA
 * @sg:		the scatterlist
 * @nents:	number of entries
 * @dir:	direction of the transfer
 *
 * As kmemcheck_handle_dma(), for every entry.
 */
static __always_inline void kmemcheck_handle_dma_sg(struct scatterlist *sg,
						    int nents,
						    enum dma_data_direction dir)
{
	if (kmemcheck_enabled())
		__kmemcheck_handle_dma_sg(sg, nents, dir);
}

void __kmemcheck_mark_unallocated(const void *address, size_t size);
void __kmemcheck_mark_slack(const void *address, size_t size);
void __kmemcheck_mark_uninitialized(const void *address, size_t size);
void __kmemcheck_mark_initialized(const void *address, size_t size);
void __kmemcheck_mark_freed(const void *address, size_t size);
void __kmemcheck_mark_unallocated_pages(struct page *page, unsigned int n);
void __kmemcheck_mark_uninitialized_pages(struct page *page, unsigned int n);
void __kmemcheck_mark_initialized_pages(struct page *page, unsigned int n);
bool __kmemcheck_is_obj_initialized(const void *address, size_t size);

/**
 * kmemcheck_mark_unallocated() - mark memory as not part of any object
 * @address:	first byte
 * @size:	number of bytes
 *
 * Untracked bytes in the range are ignored, as in every kmemcheck_mark_*().
 * With kmemcheck off, as in every annotation, only a static branch is
 * executed.
 */
static __always_inline void kmemcheck_mark_unallocated(const void *address,
						       size_t size)
{
	if (kmemcheck_enabled())
		__kmemcheck_mark_unallocated(address, size);
}

/**
 * kmemcheck_mark_slack() - mark bytes of an object that are never written
 * @address:	first byte, in a slab object
 * @size:	number of bytes
 *
 * For the unused tail of an array inside an object, such as the inline
 * name of a dentry, that correct code never uses: like the slack of a
 * kmalloc() object, the bytes keep no page hidden, and a read of them
 * while it is hidden is checked as one of uninitialized bytes.  Not for
 * bytes that correct code writes later and reads: a store to them while
 * their page rests mapped is not seen, and the read would be reported
 * (mark such a field initialized, kmemcheck_annotate_variable()).  The
 * bytes stay uninitialized if the object's cache cannot tell slack from
 * free bytes (it has a constructor, or keeps its free pointer first); a
 * write makes them initialized, as any.
 */
static __always_inline void kmemcheck_mark_slack(const void *address,
						 size_t size)
{
	if (kmemcheck_enabled())
		__kmemcheck_mark_slack(address, size);
}

/**
 * kmemcheck_mark_uninitialized() - mark memory as never written
 * @address:	first byte
 * @size:	number of bytes
 */
static __always_inline void kmemcheck_mark_uninitialized(const void *address,
							 size_t size)
{
	if (kmemcheck_enabled())
		__kmemcheck_mark_uninitialized(address, size);
}

/**
 * kmemcheck_mark_initialized() - mark memory as written
 * @address:	first byte
 * @size:	number of bytes
 *
 * For memory written behind kmemcheck's back: by a device, by user space
 * through a mapping, or through another virtual alias.
 */
static __always_inline void kmemcheck_mark_initialized(const void *address,
						       size_t size)
{
	if (kmemcheck_enabled())
		__kmemcheck_mark_initialized(address, size);
}

/**
 * kmemcheck_mark_freed() - mark memory as freed
 * @address:	first byte
 * @size:	number of bytes
 */
static __always_inline void kmemcheck_mark_freed(const void *address,
						 size_t size)
{
	if (kmemcheck_enabled())
		__kmemcheck_mark_freed(address, size);
}

/**
 * kmemcheck_mark_unallocated_pages() - mark whole pages unallocated
 * @page:	first page
 * @n:		number of pages
 */
static __always_inline void kmemcheck_mark_unallocated_pages(struct page *page,
							     unsigned int n)
{
	if (kmemcheck_enabled())
		__kmemcheck_mark_unallocated_pages(page, n);
}

/**
 * kmemcheck_mark_uninitialized_pages() - mark whole pages never written
 * @page:	first page
 * @n:		number of pages
 */
static __always_inline void
kmemcheck_mark_uninitialized_pages(struct page *page, unsigned int n)
{
	if (kmemcheck_enabled())
		__kmemcheck_mark_uninitialized_pages(page, n);
}

/**
 * kmemcheck_mark_initialized_pages() - mark whole pages written
 * @page:	first page
 * @n:		number of pages
 */
static __always_inline void kmemcheck_mark_initialized_pages(struct page *page,
							     unsigned int n)
{
	if (kmemcheck_enabled())
		__kmemcheck_mark_initialized_pages(page, n);
}

/**
 * kmemcheck_is_obj_initialized() - is every tracked byte of a range written?
 * @address:	first byte
 * @size:	number of bytes
 *
 * Return: false if any tracked byte in the range is not initialized; true
 * with kmemcheck off.
 */
static __always_inline bool kmemcheck_is_obj_initialized(const void *address,
							 size_t size)
{
	return !kmemcheck_enabled() ||
	       __kmemcheck_is_obj_initialized(address, size);
}

void kmemcheck_disable_current(void);
void kmemcheck_enable_current(void);

/**
 * kmemcheck_slab_ksize() - note that ksize() gave a caller an object's slack
 * @object:	a live object
 * @size:	what ksize() returned
 *
 * The slack of an object, unallocated until now, becomes uninitialized:
 * the caller may write it, and does, through krealloc() for one.
 */
static __always_inline void kmemcheck_slab_ksize(const void *object,
						 size_t size)
{
	if (kmemcheck_enabled())
		__kmemcheck_slab_ksize(object, size);
}

/**
 * kmemcheck_slab_store_freeptr() - store SLUB's free pointer in an object
 * @freeptr:	where the free pointer goes, in a free object, aligned
 * @val:	its value, encoded
 *
 * With kmemcheck.fastpath=2 the page of a free object may be mapped, and
 * the store then unseen by the fault handler: kmemcheck marks the free
 * pointer initialized itself, or SLUB's read of it would be reported as a
 * read of unallocated memory.  It also does the store, with the page shown
 * if it is hidden: the object was just freed, which hides it, and a fault
 * at every kfree() would cost more than the free.
 *
 * Return: true if kmemcheck stored the pointer; false if the caller must.
 */
static __always_inline bool kmemcheck_slab_store_freeptr(void *freeptr,
							 unsigned long val)
{
	if (!kmemcheck_enabled())
		return false;
	__kmemcheck_slab_store_freeptr(freeptr, val);
	return true;
}

bool __kmemcheck_owns_direct_map(struct page *page);
int kmemcheck_set_direct_map(struct page *page, bool present);

/**
 * kmemcheck_owns_direct_map() - is a page's direct map kmemcheck's?
 * @page:	a page
 *
 * kmemcheck alone maps a page it tracks: hidden, the page is not present
 * with a mark of kmemcheck's.  Code that unmaps and maps pages of the
 * direct map must do it with kmemcheck_set_direct_map() for such a page,
 * which leaves it hidden as kmemcheck knows it, and need not flush the
 * TLB of other CPUs: kmemcheck runs on one.
 *
 * Return: true if @page is tracked and in the direct map.
 */
static __always_inline bool kmemcheck_owns_direct_map(struct page *page)
{
	return kmemcheck_enabled() && __kmemcheck_owns_direct_map(page);
}

#else /* CONFIG_KMEMCHECK */

static inline bool kmemcheck_enabled(void) { return false; }
static inline bool kmemcheck_direct_map_4k(void) { return false; }
static inline bool kmemcheck_boot_tracking(void) { return false; }
static inline void kmemcheck_init(void) { }
static inline void kmemcheck_alloc_pages(struct page *page, unsigned int order,
					 gfp_t gfp) { }
static inline void kmemcheck_free_pages(struct page *page,
					unsigned int order) { }
static inline void kmemcheck_page_reused(struct page *page,
					 unsigned int order) { }
static inline void kmemcheck_slab_alloc_pages(struct kmem_cache *s,
					      struct page *page,
					      unsigned int order, gfp_t gfp) { }
static inline void kmemcheck_slab_alloc(struct kmem_cache *s, void *object,
					bool init, unsigned int size,
					unsigned long caller) { }
static inline void kmemcheck_slab_free(struct kmem_cache *s, void *object) { }
static inline void kmemcheck_slab_ksize(const void *object,
					size_t size) { }
static inline bool kmemcheck_slab_store_freeptr(void *freeptr,
						unsigned long val)
{
	return false;
}

static inline void kmemcheck_handle_dma(struct page *page, size_t offset,
					size_t size,
					enum dma_data_direction dir) { }
static inline void kmemcheck_handle_dma_sg(struct scatterlist *sg, int nents,
					   enum dma_data_direction dir) { }
static inline void kmemcheck_handle_buffer(const void *buf, size_t size,
					   enum dma_data_direction dir) { }
static inline bool kmemcheck_copy_page(struct page *to, struct page *from)
{
	return false;
}

static inline void kmemcheck_mark_unallocated(const void *address,
					      size_t size) { }
static inline void kmemcheck_mark_slack(const void *address,
					size_t size) { }
static inline void kmemcheck_mark_uninitialized(const void *address,
						size_t size) { }
static inline void kmemcheck_mark_initialized(const void *address,
					      size_t size) { }
static inline void kmemcheck_mark_freed(const void *address, size_t size) { }
static inline void kmemcheck_mark_unallocated_pages(struct page *page,
						    unsigned int n) { }
static inline void kmemcheck_mark_uninitialized_pages(struct page *page,
						      unsigned int n) { }
static inline void kmemcheck_mark_initialized_pages(struct page *page,
						    unsigned int n) { }
static inline bool kmemcheck_is_obj_initialized(const void *address,
						size_t size)
{
	return true;
}

static inline void kmemcheck_disable_current(void) { }
static inline void kmemcheck_enable_current(void) { }
static inline bool kmemcheck_owns_direct_map(struct page *page)
{
	return false;
}

static inline int kmemcheck_set_direct_map(struct page *page, bool present)
{
	return -EINVAL;
}

#endif /* CONFIG_KMEMCHECK */

/**
 * kmemcheck_annotate_variable() - mark a variable initialized
 * @var:	the variable (an lvalue)
 */
#define kmemcheck_annotate_variable(var)				\
	kmemcheck_mark_initialized(&(var), sizeof(var))

/**
 * kmemcheck_annotate_bitfield() - mark a group of bitfields initialized
 * @group:	a struct_group() wrapping the bitfields, as an lvalue
 *
 * A store to one bitfield is a read-modify-write of the bytes that hold it,
 * which reads the neighbouring, still uninitialized fields.  Wrap the
 * bitfields of a structure in struct_group() and annotate the group of a
 * new object before storing to any of them::
 *
 *	struct foo {
 *		int a;
 *		struct_group(flags,
 *			unsigned int x : 1;
 *			unsigned int y : 3;
 *		);
 *	};
 *
 *	p = kmalloc(sizeof(*p), GFP_KERNEL);
 *	kmemcheck_annotate_bitfield(p->flags);
 *	p->y = 2;
 */
#define kmemcheck_annotate_bitfield(group)	kmemcheck_annotate_variable(group)

/**
 * kmemcheck_unchecked() - evaluate an expression, its reads unchecked
 * @expr:	the expression
 *
 * For runtime code that reads tracked memory whatever its state and
 * throws the value away when it was not what it expected, as SLUB does
 * with a free pointer another context may just have handed out.  Writes
 * still update the shadow.
 *
 * Return: the value of @expr.
 */
#define kmemcheck_unchecked(expr)					\
({									\
	typeof(expr) __kmemcheck_val;					\
									\
	kmemcheck_disable_current();					\
	__kmemcheck_val = (expr);					\
	kmemcheck_enable_current();					\
	__kmemcheck_val;						\
})

#endif /* _LINUX_KMEMCHECK_H */
