// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck shadow: one state byte per byte of every tracked page.
 *
 * Each tracked page owns one shadow page, pointed to by its struct page.
 * One shadow page per page (rather than one block per allocation) keeps
 * split_page() and partial frees of high-order blocks trivially right.
 *
 * The shadow page's private field counts the bytes of the page that keep
 * it hidden.  A page whose count drops to zero rests mapped, unless
 * kmemcheck.fastpath=0, and takes no fault until one of its bytes starts
 * to keep it hidden again (an allocation, a free, a copy of uninitialized
 * bytes into it).  With kmemcheck.fastpath=1 the count is of the bytes not
 * initialized: a resting page has nothing left to check, and stores to it
 * need no record.
 *
 * A slab page almost always holds a free object, so with fastpath=1 it
 * seldom rests.
 * kmemcheck.fastpath=2 counts only the uninitialized bytes and the bytes
 * of objects freed recently (quarantine.c): a slab page rests as soon as
 * every byte of its allocated objects is written and its last freed object
 * is either reused or out of quarantine, when its bytes become unallocated.
 * SLUB's free pointer stores mark the shadow themselves, so the state of a
 * free object stays right while its page rests, and a read of it is checked
 * whenever the page is hidden.  Constructors write free objects unseen:
 * unallocated bytes of their caches' pages are not checked in this mode.
 * The slack of a kmalloc() object, never written by correct code, is
 * unallocated too, or it would keep the page hidden for the object's life;
 * it is checked as uninitialized (kmemcheck_shadow_checked()).
 *
 * A state takes two bits of its shadow byte.  The six spare bits of the
 * first shadow bytes of an allocation carry the stack depot handles of its
 * allocation and free stacks (its origins), so that reports can say where
 * the memory came from without costing memory of its own.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#define pr_fmt(fmt) "kmemcheck: " fmt

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/gfp.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/string.h>

#include <asm/kmemcheck.h>

#include "../slab.h"
#include "kmemcheck.h"

/* Bit 0 of each of the four bytes of a shadow word. */
#define KMEMCHECK_BYTES_LOW	0x01010101U
/* The state bits of a shadow word, and those of four initialized bytes. */
#define KMEMCHECK_WORD_STATES	(KMEMCHECK_SHADOW_STATE_MASK * KMEMCHECK_BYTES_LOW)
#define KMEMCHECK_WORD_INIT	(KMEMCHECK_SHADOW_INITIALIZED * KMEMCHECK_BYTES_LOW)

enum kmemcheck_fastpath {
	KMEMCHECK_FASTPATH_OFF,		/* every access faults and is stepped */
	KMEMCHECK_FASTPATH_PAGES,	/* pages all initialized rest */
	KMEMCHECK_FASTPATH_OBJECTS,	/* pages with no uninit or fresh free rest */
};

/* Boot-time only: the counts of bytes keeping pages hidden depend on it. */
unsigned int kmemcheck_fastpath __read_mostly = KMEMCHECK_FASTPATH_OBJECTS;

static int kmemcheck_fastpath_set(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int mode;

	if (kstrtouint(val, 0, &mode) || mode > KMEMCHECK_FASTPATH_OBJECTS) {
		pr_warn("unknown boot value 'kmemcheck.fastpath=%s' (0, 1 or 2), keeping %u\n",
			val, kmemcheck_fastpath);
		return -EINVAL;
	}
	kmemcheck_fastpath = mode;
	return 0;
}

const struct kernel_param_ops kmemcheck_fastpath_ops = {
	.set = kmemcheck_fastpath_set,
	.get = param_get_uint,
};

/**
 * kmemcheck_fastpath_objects() - is kmemcheck.fastpath=2 in force?
 *
 * Return: true if freed objects only keep their page hidden while they are
 * in quarantine.
 */
bool kmemcheck_fastpath_objects(void)
{
	return kmemcheck_fastpath == KMEMCHECK_FASTPATH_OBJECTS;
}

/**
 * kmemcheck_may_emulate() - may the fault handler do instructions itself?
 *
 * kmemcheck.fastpath=0 single-steps every access, as mainline kmemcheck
 * did, to measure what the fast path saves.
 *
 * Return: true unless kmemcheck.fastpath=0.
 */
bool kmemcheck_may_emulate(void)
{
	return READ_ONCE(kmemcheck_fastpath) != KMEMCHECK_FASTPATH_OFF;
}

/**
 * kmemcheck_slack_known() - can the slack of an object of @s be told?
 * @s:		a slab cache
 *
 * The slack of an allocated object (its bytes past the size kmalloc() was
 * asked for) is left unallocated, and told from the unallocated bytes of
 * a free object by the object's first byte, which is never unallocated
 * nor freed in an allocated object.  In a free one it is, unless SLUB keeps
 * its free pointer there, or a constructor wrote it.
 *
 * Return: true if objects of @s may have their slack left unallocated.
 */
bool kmemcheck_slack_known(const struct kmem_cache *s)
{
	return s->offset && !s->ctor;
}

/**
 * kmemcheck_object_allocated() - is a slab object allocated, by its shadow?
 * @s:		its cache
 * @object:	address of the object
 *
 * The first byte of an allocated object is never unallocated nor freed;
 * in a free one it is, when @s keeps no free pointer there and has no
 * constructor to write it (kmemcheck_slack_known()).
 *
 * Return: true if the object is tracked, @s is such a cache, and the
 * object is allocated; false otherwise.
 */
bool kmemcheck_object_allocated(const struct kmem_cache *s,
				unsigned long object)
{
	const u8 *first = kmemcheck_shadow_of(object);
	u8 state;

	if (!first || !kmemcheck_slack_known(s))
		return false;
	state = kmemcheck_shadow_state(first);
	return state == KMEMCHECK_SHADOW_UNINITIALIZED ||
	       state == KMEMCHECK_SHADOW_INITIALIZED;
}

/* Is the unallocated byte at @addr, in @slab, the slack of an object? */
static bool kmemcheck_in_slack(const struct slab *slab, unsigned long addr)
{
	struct kmem_cache *s = slab->slab_cache;
	unsigned long offset = addr -
		(unsigned long)nearest_obj(s, slab, (void *)addr);

	return offset < s->object_size &&
	       kmemcheck_object_allocated(s, addr - offset);
}

/**
 * kmemcheck_shadow_checked() - the state a read of a byte is checked against
 * @addr:	the byte
 * @shadow:	its shadow byte
 *
 * The slack of an allocated object is unallocated, so that it does not
 * keep the page hidden; to its user it is uninitialized, and is checked
 * as such.  Objects of a cache with a constructor are not marked when
 * allocated: the bytes the constructor never wrote stay unallocated.  With
 * kmemcheck.fastpath=2 the constructor may even have written free objects
 * while their page rested, unseen: unallocated bytes of such a page count
 * as initialized.  Otherwise they count as what they are to the object's
 * user, uninitialized, and a value read from them is followed to its use.
 *
 * Return: the state of @shadow, as far as checks are concerned.
 */
u8 kmemcheck_shadow_checked(unsigned long addr, const u8 *shadow)
{
	u8 state = kmemcheck_shadow_state(shadow);
	struct slab *slab;

	if (state != KMEMCHECK_SHADOW_UNALLOCATED)
		return state;
	slab = virt_to_slab((void *)addr);
	if (!slab)
		return state;
	if (!slab->slab_cache->ctor)
		return kmemcheck_in_slack(slab, addr) ?
		       KMEMCHECK_SHADOW_UNINITIALIZED : state;
	return kmemcheck_fastpath == KMEMCHECK_FASTPATH_OBJECTS ?
	       KMEMCHECK_SHADOW_INITIALIZED : KMEMCHECK_SHADOW_UNINITIALIZED;
}

/* kmemcheck_shadow_of(), inline for the fault paths. */
static __always_inline u8 *__kmemcheck_shadow_of(unsigned long addr)
{
	struct page *page;
	u8 *shadow;

	/*
	 * Tracked pages are in the linear map of low memory, never in
	 * vmalloc space nor highmem: a range check and pfn_valid() say as
	 * much as virt_addr_valid(), which x86-32 calls out of line and
	 * which asks is_vmalloc_addr() too.  A fault looks up shadows a few
	 * times; this was 7% of its instructions.
	 */
	if (addr < PAGE_OFFSET || addr >= (unsigned long)high_memory ||
	    !pfn_valid(PHYS_PFN(__pa(addr))))
		return NULL;
	page = virt_to_page((void *)addr);
	shadow = READ_ONCE(page->kmemcheck_shadow);
	if (!shadow)
		return NULL;
	return shadow + offset_in_page(addr);
}

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
	return __kmemcheck_shadow_of(addr);
}

/* Are the @n shadow bytes from @shadow all initialized?  A word at a time. */
static __always_inline bool kmemcheck_shadow_bytes_initialized(const u8 *shadow,
							       size_t n)
{
	for (; n && !IS_ALIGNED((unsigned long)shadow, sizeof(u32)); n--) {
		if (kmemcheck_shadow_state(shadow++) !=
		    KMEMCHECK_SHADOW_INITIALIZED)
			return false;
	}
	for (; n >= sizeof(u32); n -= sizeof(u32), shadow += sizeof(u32)) {
		if ((*(const u32 *)shadow & KMEMCHECK_WORD_STATES) !=
		    KMEMCHECK_WORD_INIT)
			return false;
	}
	for (; n; n--) {
		if (kmemcheck_shadow_state(shadow++) !=
		    KMEMCHECK_SHADOW_INITIALIZED)
			return false;
	}
	return true;
}

/**
 * kmemcheck_shadow_range_initialized() - are the bytes of a range all written?
 * @addr:	first byte
 * @n:		number of bytes, all in the page of @addr
 *
 * The quick test of a copy or check of many bytes: four shadow bytes at a
 * time.  Only the state in the shadow counts: a byte that a read would
 * take as initialized although it is not in that state (see
 * kmemcheck_shadow_checked()) makes it false.
 *
 * Return: true if the page is tracked and every byte is initialized.
 */
bool kmemcheck_shadow_range_initialized(unsigned long addr, size_t n)
{
	const u8 *shadow = kmemcheck_shadow_of(addr);

	return shadow && kmemcheck_shadow_bytes_initialized(shadow, n);
}

/**
 * kmemcheck_page_tracked() - does kmemcheck track the page?
 * @addr:	any address in the page
 */
bool kmemcheck_page_tracked(unsigned long addr)
{
	return kmemcheck_shadow_of(addr);
}

/* For kmemcheck_owns_direct_map(). */
bool __kmemcheck_owns_direct_map(struct page *page)
{
	return !PageHighMem(page) &&
	       kmemcheck_page_tracked((unsigned long)page_address(page));
}

/**
 * kmemcheck_set_direct_map() - hide or show a page kmemcheck tracks
 * @page:	a page for which kmemcheck_owns_direct_map() is true
 * @present:	show it (set_direct_map_default_noflush()) or hide it
 *
 * Hibernation's safe_copy_page() finds a hidden page not present, maps it
 * around its copy and unmaps it again: it gets it back hidden, as
 * kmemcheck knows it, or the next access would fault on a page kmemcheck
 * no longer knows as hidden.
 *
 * Return: 0, or -EINVAL if the page cannot be hidden: it has no PTE of its
 * own, or is not present and not hidden by kmemcheck.
 */
int kmemcheck_set_direct_map(struct page *page, bool present)
{
	unsigned long addr = (unsigned long)page_address(page);

	if (present) {
		/* False if it was shown already: as good. */
		kmemcheck_arch_show_page(addr);
		return 0;
	}
	return kmemcheck_arch_hide_page(addr) ? 0 : -EINVAL;
}

/* The count of bytes keeping the page of @shadow hidden. */
static __always_inline unsigned long *kmemcheck_pending(const u8 *shadow)
{
	return &virt_to_page(shadow)->private;
}

/**
 * kmemcheck_page_may_rest() - may a tracked page stay mapped?
 * @addr:	any address in the page
 *
 * Return: true if the fast path is on and no byte of the page keeps it
 * hidden (see kmemcheck.fastpath), false for an untracked page.
 */
bool kmemcheck_page_may_rest(unsigned long addr)
{
	u8 *shadow = kmemcheck_shadow_of(addr);

	return shadow && READ_ONCE(kmemcheck_fastpath) &&
	       !*kmemcheck_pending(shadow);
}

/*
 * A resting page got bytes that are not initialized: hide it, unless a
 * single-step has it mapped, which hides it when the step completes.
 */
static void kmemcheck_wake_page(unsigned long addr)
{
	if (!kmemcheck_arch_page_in_step(addr))
		kmemcheck_arch_hide_page(addr);
}

/* Every state, as a mask of kmemcheck_shadow_fill()'s @from. */
#define KMEMCHECK_SHADOW_ANY	GENMASK(KMEMCHECK_SHADOW_FREED, 0)

/* The states keeping a page hidden with kmemcheck.fastpath=2. */
#define KMEMCHECK_SHADOW_HIDING_OBJECTS \
	(BIT(KMEMCHECK_SHADOW_UNINITIALIZED) | BIT(KMEMCHECK_SHADOW_FREED))

/*
 * Bit 0 set in each byte of the shadow word @w, among those in @valid,
 * whose state is in the mask @states.  A state is two bits: bit 0 is set
 * for uninitialized and freed, bit 1 for initialized and freed.
 */
static __always_inline u32 kmemcheck_shadow_select(u32 w, unsigned int states,
						   u32 valid)
{
	u32 lo = w & valid, hi = (w >> 1) & valid, sel = 0;

	if (states == KMEMCHECK_SHADOW_ANY)
		return valid;
	/* kmemcheck.fastpath=2's hiding states, the bytes of most fills. */
	if (states == KMEMCHECK_SHADOW_HIDING_OBJECTS)
		return lo;
	if (states & BIT(KMEMCHECK_SHADOW_UNALLOCATED))
		sel |= ~(lo | hi) & valid;
	if (states & BIT(KMEMCHECK_SHADOW_UNINITIALIZED))
		sel |= lo & ~hi;
	if (states & BIT(KMEMCHECK_SHADOW_INITIALIZED))
		sel |= hi & ~lo;
	if (states & BIT(KMEMCHECK_SHADOW_FREED))
		sel |= lo & hi;
	return sel;
}

/* The number of bytes kmemcheck_shadow_select() selected. */
static __always_inline unsigned int kmemcheck_shadow_selected(u32 sel)
{
	return (sel * KMEMCHECK_BYTES_LOW) >> 24;
}

/* The states whose bytes keep their page hidden, as a mask. */
static __always_inline unsigned int kmemcheck_hiding_states(void)
{
	if (kmemcheck_fastpath == KMEMCHECK_FASTPATH_OBJECTS)
		return KMEMCHECK_SHADOW_HIDING_OBJECTS;
	return KMEMCHECK_SHADOW_ANY & ~BIT(KMEMCHECK_SHADOW_INITIALIZED);
}

/*
 * Set the bytes of the shadow word @w, among @valid, whose state is in
 * @from to @state, keeping their spare bits.  Returns the change in the
 * number of bytes keeping the page hidden.
 */
static __always_inline long kmemcheck_shadow_fill_word(u32 *w, u32 valid,
						       unsigned int from,
						       u8 state,
						       unsigned int hiding)
{
	u32 sel = kmemcheck_shadow_select(*w, from, valid);
	u32 bits = sel * KMEMCHECK_SHADOW_STATE_MASK;
	long delta;

	if (!sel)
		return 0;
	delta = (hiding & BIT(state)) ? kmemcheck_shadow_selected(sel) : 0;
	delta -= kmemcheck_shadow_selected(sel &
			kmemcheck_shadow_select(*w, hiding, valid));
	*w = (*w & ~bits) | ((state * KMEMCHECK_BYTES_LOW) & bits);
	return delta;
}

/*
 * The aligned words from *@words to @end of a fill of every byte with
 * kmemcheck.fastpath=2's hiding states, whose bytes have bit 0 of their
 * state set: allocations and frees.  The bytes that kept the page hidden
 * are counted by summing those bits in byte lanes, 255 words at most
 * before a lane could overflow.  Leaves *@words at the last word not
 * filled; returns the change in the number of bytes keeping the page
 * hidden.
 */
static __always_inline long kmemcheck_shadow_fill_any(u32 **words,
						      const u32 *end,
						      u8 state)
{
	u32 set = state * KMEMCHECK_BYTES_LOW;
	long before = 0, filled = 0;
	u32 *w = *words;

	while (end - w > 0) {
		const u32 *stop = end - w > 255 ? w + 255 : end;
		u32 lanes = 0;

		for (; w < stop; w++) {
			lanes += *w & KMEMCHECK_BYTES_LOW;
			*w = (*w & ~KMEMCHECK_WORD_STATES) | set;
		}
		filled += sizeof(u32) * (stop - *words);
		lanes = (lanes & 0x00ff00ff) + ((lanes >> 8) & 0x00ff00ff);
		before += (lanes & 0xffff) + (lanes >> 16);
		*words = w;
	}
	return ((KMEMCHECK_SHADOW_HIDING_OBJECTS & BIT(state)) ? filled : 0) -
	       before;
}

/* The words, and the bytes around them, of kmemcheck_shadow_fill(). */
static __always_inline long kmemcheck_shadow_fill_bytes(u8 *shadow, size_t n,
							unsigned int from,
							u8 state,
							unsigned int hiding)
{
	u8 *end = shadow + n;
	long delta = 0;
	u32 w;

	while (shadow < end && !IS_ALIGNED((unsigned long)shadow, sizeof(u32))) {
		w = *shadow;
		delta += kmemcheck_shadow_fill_word(&w, 1, from, state, hiding);
		*shadow++ = w;
	}
	if (from == KMEMCHECK_SHADOW_ANY &&
	    hiding == KMEMCHECK_SHADOW_HIDING_OBJECTS)
		delta += kmemcheck_shadow_fill_any((u32 **)&shadow,
				(const u32 *)ALIGN_DOWN((unsigned long)end,
							sizeof(u32)),
				state);
	for (; shadow + sizeof(u32) <= end; shadow += sizeof(u32))
		delta += kmemcheck_shadow_fill_word((u32 *)shadow,
						    KMEMCHECK_BYTES_LOW, from,
						    state, hiding);
	while (shadow < end) {
		w = *shadow;
		delta += kmemcheck_shadow_fill_word(&w, 1, from, state, hiding);
		*shadow++ = w;
	}
	return delta;
}

/*
 * kmemcheck_shadow_fill_bytes() with the hiding states of the fast path in
 * force, those of kmemcheck.fastpath=2, the default, known to the compiler.
 */
static __always_inline long kmemcheck_shadow_fill_delta(u8 *shadow, size_t n,
							unsigned int from,
							u8 state)
{
	unsigned int hiding = kmemcheck_hiding_states();

	if (hiding == KMEMCHECK_SHADOW_HIDING_OBJECTS)
		return kmemcheck_shadow_fill_bytes(shadow, n, from, state,
						   KMEMCHECK_SHADOW_HIDING_OBJECTS);
	return kmemcheck_shadow_fill_bytes(shadow, n, from, state, hiding);
}

/*
 * Set those of @n bytes from @shadow, all in one page, whose state is in the
 * mask @from, to @state.  Allocations and frees fill whole objects: a word
 * of four shadow bytes at a time, the common masks known to the compiler.
 */
static __always_inline void kmemcheck_shadow_fill(unsigned long addr,
						  u8 *shadow, size_t n,
						  unsigned int from, u8 state)
{
	unsigned long *pending = kmemcheck_pending(shadow);
	unsigned long before, flags;
	long delta;

	/*
	 * A fault in an interrupt may change the same page meanwhile.  Raw:
	 * a few stores and no lock, where lockdep's tracing of interrupts
	 * coming back on, which walks the locks held, would cost more.
	 */
	raw_local_irq_save(flags);
	/* Only uninitialized bytes have partial masks (partial.c). */
	if (from & BIT(KMEMCHECK_SHADOW_UNINITIALIZED))
		kmemcheck_partial_forget(shadow, n);
	before = *pending;
	delta = kmemcheck_shadow_fill_delta(shadow, n, from, state);
	*pending = before + delta;
	if (!before && *pending)
		kmemcheck_wake_page(addr);
	else if (before && !*pending && READ_ONCE(kmemcheck_fastpath))
		kmemcheck_arch_show_page(addr);
	raw_local_irq_restore(flags);
}

/**
 * kmemcheck_shadow_alloc() - start tracking @nr pages
 * @page:	first page (lowmem)
 * @nr:		number of pages
 * @gfp:	flags of the allocation being tracked, to pick the shadow's
 *
 * Gives every page a shadow page, all unallocated, and hides it.  Pages
 * whose shadow cannot be allocated, or which cannot be hidden, stay
 * untracked.
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
	/* The bytes keeping a new page hidden: all of them, or none. */
	unsigned long hidden = (kmemcheck_hiding_states() &
				 BIT(KMEMCHECK_SHADOW_UNALLOCATED)) ?
			       PAGE_SIZE : 0;
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
		memset(page_address(shadow), KMEMCHECK_SHADOW_UNALLOCATED,
		       PAGE_SIZE);
		set_page_private(shadow, hidden);
		kmemcheck_partial_init_shadow(page_address(shadow));
		WRITE_ONCE(page[i].kmemcheck_shadow, page_address(shadow));
		if (!kmemcheck_arch_hide_page(addr)) {
			WRITE_ONCE(page[i].kmemcheck_shadow, NULL);
			set_page_private(shadow, 0);
			__free_page(shadow);
			all = false;
			continue;
		}
		kmemcheck_count(KMEMCHECK_COUNTER_TRACKED_PAGES);
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
		set_page_private(virt_to_page(shadow), 0);
		kmemcheck_partial_free(shadow);
		free_page((unsigned long)shadow);
		atomic_long_dec(&kmemcheck_counters[KMEMCHECK_COUNTER_TRACKED_PAGES]);
	}
}

/**
 * kmemcheck_shadow_copy_page() - give a page the shadow of another
 * @to:		a tracked page, taking the contents of @from
 * @from:	a tracked page
 *
 * The states and origins of every byte, the initialized bits of partly
 * initialized ones, and the count of bytes keeping the page hidden.  The
 * caller hides @to or lets it rest, by kmemcheck_page_may_rest().
 */
void kmemcheck_shadow_copy_page(struct page *to, struct page *from)
{
	u8 *dst = to->kmemcheck_shadow, *src = from->kmemcheck_shadow;
	unsigned long flags;
	unsigned int i;

	raw_local_irq_save(flags);
	kmemcheck_partial_forget(dst, PAGE_SIZE);
	memcpy(dst, src, PAGE_SIZE);
	*kmemcheck_pending(dst) = *kmemcheck_pending(src);
	if (READ_ONCE(*kmemcheck_partial_slot(src))) {
		for (i = 0; i < PAGE_SIZE; i++) {
			u8 defined;

			if (kmemcheck_shadow_state(&src[i]) !=
			    KMEMCHECK_SHADOW_UNINITIALIZED)
				continue;
			defined = kmemcheck_partial_defined(&src[i]);
			if (defined && !kmemcheck_partial_set(&dst[i], defined))
				kmemcheck_shadow_set((unsigned long)
						     page_address(to) + i, 1,
						     KMEMCHECK_SHADOW_INITIALIZED);
		}
	}
	raw_local_irq_restore(flags);
}

/* Set the bytes of a range whose state is in the mask @from to @state. */
static __always_inline void kmemcheck_shadow_replace(unsigned long addr,
						     size_t size,
				     unsigned int from, u8 state)
{
	while (size) {
		size_t n = min_t(size_t, size, PAGE_SIZE - offset_in_page(addr));
		u8 *shadow = __kmemcheck_shadow_of(addr);

		if (shadow)
			kmemcheck_shadow_fill(addr, shadow, n, from, state);
		addr += n;
		size -= n;
	}
}

/*
 * A page kept hidden only by freed bytes in quarantine, while the objects
 * around them are read, takes a fault at every read that finds nothing to
 * report: when a workload starts, the objects it reuses share pages with
 * those others freed just before, and the last kmemcheck.quarantine frees
 * must go by before those pages rest.  After this many such faults in a
 * row on one page, the freed bytes of the page leave the quarantine early
 * and become unallocated, as they would on expiry.  A use after free on a
 * page that busy is then missed; one soon after the free, the bet of the
 * quarantine, is not.
 */
#define KMEMCHECK_SHED_FAULTS	64

struct kmemcheck_busy_page {
	const u8 *shadow;	/* first shadow byte of the page */
	unsigned int faults;	/* in a row that found nothing to report */
};

static DEFINE_PER_CPU(struct kmemcheck_busy_page, kmemcheck_busy_page);

/**
 * kmemcheck_shed_faults() - faults in a row before a busy page is shed
 *
 * Return: how many loads of initialized bytes in a row a page kept hidden
 * takes before its freed bytes leave the quarantine early.
 */
unsigned int kmemcheck_shed_faults(void)
{
	return KMEMCHECK_SHED_FAULTS;
}

/* Expire every freed byte of the page of @addr, whose shadow is @first. */
static noinline void kmemcheck_shed_page(unsigned long addr, u8 *first)
{
	kmemcheck_shadow_fill(addr & PAGE_MASK, first, PAGE_SIZE,
			      BIT(KMEMCHECK_SHADOW_FREED),
			      KMEMCHECK_SHADOW_UNALLOCATED);
	kmemcheck_count(KMEMCHECK_COUNTER_SHED);
}

/*
 * A load of initialized bytes at @addr, whose shadow is @shadow, left the
 * page hidden: count it, and shed the page once it is busy enough.
 * Interrupts are off.
 */
static noinline void kmemcheck_busy_load(unsigned long addr, u8 *shadow)
{
	struct kmemcheck_busy_page *busy = this_cpu_ptr(&kmemcheck_busy_page);
	u8 *first = shadow - offset_in_page(addr);

	if (busy->shadow != first) {
		busy->shadow = first;
		busy->faults = 0;
	}
	if (++busy->faults == KMEMCHECK_SHED_FAULTS)
		kmemcheck_shed_page(addr, first);
}

/**
 * kmemcheck_access_quick() - kmemcheck_access() for an access with nothing to say
 * @addr:	first byte, in a tracked page
 * @size:	number of bytes, all in that page
 * @write:	the access stores the bytes; otherwise it loads them
 * @rest:	set to whether the page may stay mapped after the access
 *
 * For the architecture's early fault path, which runs with interrupts off
 * before the kernel's fault entry and may not report, follow a value,
 * count hot spots or take a lock.  A load passes if every byte is
 * initialized, a store always: its bytes become initialized.  The caller
 * shows the page for the access, and hides it again unless @rest.  It is
 * kmemcheck_access() cut to what such an access needs, and kept here,
 * next to the shadow, as it runs at most faults: some fifty
 * instructions.
 *
 * Return: true if the access is checked and recorded; false, with nothing
 * changed, if it must go through kmemcheck_access() instead.
 */
bool kmemcheck_access_quick(unsigned long addr, size_t size, bool write,
			    bool *rest)
{
	u8 *shadow = __kmemcheck_shadow_of(addr);
	unsigned long *pending;

	if (!shadow || kmemcheck_fastpath == KMEMCHECK_FASTPATH_OFF ||
	    kmemcheck_hot_counting())
		return false;
	pending = kmemcheck_pending(shadow);
	if (!write) {
		if (!kmemcheck_shadow_bytes_initialized(shadow, size))
			return false;
		if (*pending &&
		    kmemcheck_fastpath == KMEMCHECK_FASTPATH_OBJECTS)
			kmemcheck_busy_load(addr, shadow);
	} else {
		kmemcheck_partial_forget(shadow, size);
		/* Most are aligned words: the fill of one word, and no loop. */
		if (size == sizeof(u32) &&
		    IS_ALIGNED((unsigned long)shadow, sizeof(u32)) &&
		    kmemcheck_fastpath == KMEMCHECK_FASTPATH_OBJECTS)
			*pending += kmemcheck_shadow_fill_word((u32 *)shadow,
					KMEMCHECK_BYTES_LOW, KMEMCHECK_SHADOW_ANY,
					KMEMCHECK_SHADOW_INITIALIZED,
					KMEMCHECK_SHADOW_HIDING_OBJECTS);
		else
			*pending += kmemcheck_shadow_fill_delta(shadow, size,
					KMEMCHECK_SHADOW_ANY,
					KMEMCHECK_SHADOW_INITIALIZED);
	}
	*rest = !*pending;
	return true;
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
	/* A constant state for each: the fill of a word folds to a few ops. */
	switch (state) {
	case KMEMCHECK_SHADOW_UNALLOCATED:
		kmemcheck_shadow_replace(addr, size, KMEMCHECK_SHADOW_ANY,
					 KMEMCHECK_SHADOW_UNALLOCATED);
		break;
	case KMEMCHECK_SHADOW_UNINITIALIZED:
		kmemcheck_shadow_replace(addr, size, KMEMCHECK_SHADOW_ANY,
					 KMEMCHECK_SHADOW_UNINITIALIZED);
		break;
	case KMEMCHECK_SHADOW_INITIALIZED:
		kmemcheck_shadow_replace(addr, size, KMEMCHECK_SHADOW_ANY,
					 KMEMCHECK_SHADOW_INITIALIZED);
		break;
	default:
		kmemcheck_shadow_replace(addr, size, KMEMCHECK_SHADOW_ANY,
					 KMEMCHECK_SHADOW_FREED);
		break;
	}
}

/**
 * kmemcheck_shadow_expire() - make the freed bytes of a range unallocated
 * @addr:	first byte
 * @size:	number of bytes
 *
 * Bytes in other states, such as those of an object allocated again since
 * it was freed, are left alone.
 */
void kmemcheck_shadow_expire(unsigned long addr, size_t size)
{
	kmemcheck_shadow_replace(addr, size, BIT(KMEMCHECK_SHADOW_FREED),
				 KMEMCHECK_SHADOW_UNALLOCATED);
}

/**
 * kmemcheck_shadow_claim() - make the unallocated bytes of a range uninitialized
 * @addr:	first byte
 * @size:	number of bytes
 *
 * For the slack of an object handed to its user by ksize(): bytes in
 * other states, written already or not, are left alone.
 */
void kmemcheck_shadow_claim(unsigned long addr, size_t size)
{
	kmemcheck_shadow_replace(addr, size, BIT(KMEMCHECK_SHADOW_UNALLOCATED),
				 KMEMCHECK_SHADOW_UNINITIALIZED);
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
			kmemcheck_shadow_set((unsigned long)page_address(page + i),
					     PAGE_SIZE, state);
	}
}

/**
 * kmemcheck_shadow_letter() - the letter reports use for a shadow byte
 * @shadow:	shadow byte, or NULL for an untracked byte
 *
 * Return: 'a', 'u', 'i' or 'f'; '-' for untracked bytes.
 */
char kmemcheck_shadow_letter(const u8 *shadow)
{
	static const char letters[] = "auif";

	if (!shadow)
		return '-';
	return letters[kmemcheck_shadow_state(shadow)];
}

/*
 * An origin slot: KMEMCHECK_ORIGIN_BYTES shadow bytes whose spare bits hold
 * a 32-bit stack depot handle and, above it, the kind of the stack.
 */
#define KMEMCHECK_ORIGIN_BITS	(8 - KMEMCHECK_SHADOW_STATE_BITS)
#define KMEMCHECK_ORIGIN_KIND_SHIFT	32

static_assert(KMEMCHECK_ORIGIN_BYTES * KMEMCHECK_ORIGIN_BITS >=
	      KMEMCHECK_ORIGIN_KIND_SHIFT + 2);

/*
 * Store the low bits of @v in the spare bits of a shadow byte, keeping
 * its state, and shift them out of @v.
 */
static __always_inline void kmemcheck_origin_put(u8 *shadow, u64 *v)
{
	*shadow = kmemcheck_shadow_state(shadow) |
		  (*v & GENMASK(KMEMCHECK_ORIGIN_BITS - 1, 0)) <<
		  KMEMCHECK_SHADOW_STATE_BITS;
	*v >>= KMEMCHECK_ORIGIN_BITS;
}

/* kmemcheck_origin_set() for a slot across two pages. */
static noinline void kmemcheck_origin_set_split(unsigned long addr, u64 v)
{
	u8 *shadow[KMEMCHECK_ORIGIN_BYTES];
	unsigned long flags;
	unsigned int i;

	shadow[0] = __kmemcheck_shadow_of(addr);
	for (i = 1; i < KMEMCHECK_ORIGIN_BYTES; i++) {
		if (!shadow[i - 1])
			return;
		shadow[i] = offset_in_page(addr + i) ? shadow[i - 1] + 1 :
			    kmemcheck_shadow_of(addr + i);
	}
	if (!shadow[KMEMCHECK_ORIGIN_BYTES - 1])
		return;
	/* An interrupt may change the states meanwhile; raw, as in fill. */
	raw_local_irq_save(flags);
	for (i = 0; i < KMEMCHECK_ORIGIN_BYTES; i++)
		kmemcheck_origin_put(shadow[i], &v);
	raw_local_irq_restore(flags);
}

/**
 * kmemcheck_origin_set() - record a stack in an origin slot
 * @addr:	first byte of the slot (of an object or page)
 * @kind:	what the stack is
 * @handle:	stack depot handle, or 0 to clear the slot
 *
 * Does nothing unless all the bytes of the slot are tracked.
 */
void kmemcheck_origin_set(unsigned long addr, enum kmemcheck_origin kind,
			  depot_stack_handle_t handle)
{
	u64 v = handle ? (u64)kind << KMEMCHECK_ORIGIN_KIND_SHIFT | handle : 0;
	unsigned long flags;
	unsigned int i;
	u8 *row;

	/* A slot within a page, as nearly all are: its shadow in a row. */
	if (offset_in_page(addr) > PAGE_SIZE - KMEMCHECK_ORIGIN_BYTES) {
		kmemcheck_origin_set_split(addr, v);
		return;
	}
	row = __kmemcheck_shadow_of(addr);
	if (!row)
		return;
	raw_local_irq_save(flags);
	for (i = 0; i < KMEMCHECK_ORIGIN_BYTES; i++)
		kmemcheck_origin_put(&row[i], &v);
	raw_local_irq_restore(flags);
}

/**
 * kmemcheck_origin_get() - read the stack recorded in an origin slot
 * @addr:	first byte of the slot
 * @kind:	where to store what the stack is
 *
 * Return: the stack depot handle, or 0 if the slot holds none.
 */
depot_stack_handle_t kmemcheck_origin_get(unsigned long addr,
					  enum kmemcheck_origin *kind)
{
	unsigned int i;
	u64 v = 0;

	for (i = 0; i < KMEMCHECK_ORIGIN_BYTES; i++) {
		u8 *shadow = kmemcheck_shadow_of(addr + i);

		if (!shadow)
			return 0;
		v |= (u64)(*shadow >> KMEMCHECK_SHADOW_STATE_BITS) <<
		     (i * KMEMCHECK_ORIGIN_BITS);
	}
	*kind = v >> KMEMCHECK_ORIGIN_KIND_SHIFT;
	return (u32)v;
}
