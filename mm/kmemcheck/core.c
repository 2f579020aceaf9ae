// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck core: controls, allocator hooks, and the checks made for every
 * access the fault handler decodes.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#define pr_fmt(fmt) "kmemcheck: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kmemcheck.h>
#include <linux/kmemcheck-checks.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/uaccess.h>

#include <asm/kmemcheck.h>

#include "../slab.h"
#include "kmemcheck.h"

/* === Data ================================================================ */

/* DEFINE_STATIC_KEY_FALSE(), spelt out to be exported: modules test it. */
struct static_key_false kmemcheck_enabled_key = STATIC_KEY_FALSE_INIT;
EXPORT_SYMBOL_GPL(kmemcheck_enabled_key);

/* The mode chosen at boot; tracking runs only if it is not off. */
static int kmemcheck_boot_mode __initdata = CONFIG_KMEMCHECK_DEFAULT_MODE;
/* Read inline by kmemcheck_copy_to_user(), in modules too. */
bool kmemcheck_booted_on __ro_after_init;
EXPORT_SYMBOL(kmemcheck_booted_on);

/* Reporting mode, changed at run time by the sysctl and by one-shot. */
int kmemcheck_mode __read_mostly;

atomic_long_t kmemcheck_counters[KMEMCHECK_COUNTER_COUNT];

/* === Controls ============================================================ */

static int __init kmemcheck_parse_boot(char *arg)
{
	int mode;

	if (!arg || kstrtoint(arg, 0, &mode) || mode < KMEMCHECK_MODE_OFF ||
	    mode > KMEMCHECK_MODE_ONESHOT) {
		pr_warn("unknown boot value 'kmemcheck=%s', keeping the default %d\n",
			arg ? arg : "", kmemcheck_boot_mode);
		return 0;
	}
	kmemcheck_boot_mode = mode;
	return 0;
}
early_param("kmemcheck", kmemcheck_parse_boot);

/**
 * kmemcheck_direct_map_4k() - must the direct map use 4K pages?
 *
 * Called by the architecture before it maps memory, after early parameters
 * are parsed.  Only a 4K PTE can be hidden for one page.
 *
 * Return: true if kmemcheck will track memory.
 */
bool __init kmemcheck_direct_map_4k(void)
{
	return kmemcheck_boot_tracking();
}

/**
 * kmemcheck_boot_tracking() - will kmemcheck track memory from this boot?
 *
 * Valid once early parameters are parsed, before kmemcheck_init(): the
 * memory auto-initialization options ask it, as zeroing every allocation
 * or freed object would hide every read of uninitialized memory.
 *
 * Return: true unless kmemcheck is off (kmemcheck=0).
 */
bool __init kmemcheck_boot_tracking(void)
{
	return kmemcheck_boot_mode != KMEMCHECK_MODE_OFF;
}

/*
 * Hiding and showing pages flushes the local TLB only: an IPI is impossible
 * with interrupts off in the fault and trap handlers.  So the machine runs
 * on one CPU: the boot brings up no other, CPU hotplug is disabled once
 * the boot is over, and the paths that bring CPUs up all the same (SMT
 * control, which ignores cpu_hotplug_disable(), resume) are refused before
 * the CPU starts.
 */
#ifdef CONFIG_SMP
static void __init kmemcheck_limit_cpus(void)
{
	pr_info("limiting the machine to one CPU; boot with kmemcheck=0 to use them all\n");
	setup_max_cpus = 1;
}

static int kmemcheck_cpu_prepare(unsigned int cpu)
{
	pr_warn_ratelimited("refusing to bring up CPU %u: kmemcheck is on, which needs a single CPU\n",
			    cpu);
	return -EBUSY;
}

static void __init kmemcheck_keep_one_cpu(void)
{
	int ret;

	WARN_ON_ONCE(num_online_cpus() > 1);
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					"mm/kmemcheck:prepare",
					kmemcheck_cpu_prepare, NULL);
	if (ret < 0)
		pr_err("cannot keep other CPUs down (%d): do not online them\n",
		       ret);
	cpu_hotplug_disable();
}
#else
static inline void kmemcheck_limit_cpus(void) { }
static inline void kmemcheck_keep_one_cpu(void) { }
#endif

/**
 * kmemcheck_init() - turn tracking on, before the slab allocator starts
 *
 * Pages allocated earlier, from memblock or the early page allocator, stay
 * untracked.
 */
void __init kmemcheck_init(void)
{
	if (kmemcheck_boot_mode == KMEMCHECK_MODE_OFF) {
		pr_info("disabled\n");
		return;
	}
	kmemcheck_limit_cpus();
	kmemcheck_mode = kmemcheck_boot_mode;
	kmemcheck_booted_on = true;
	static_branch_enable(&kmemcheck_enabled_key);
	pr_info("enabled in %s mode\n",
		kmemcheck_mode == KMEMCHECK_MODE_ONESHOT ? "one-shot" : "report-all");
}

static int kmemcheck_sysctl_mode(const struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table t = *table;
	int mode = READ_ONCE(kmemcheck_mode);
	int ret;

	t.data = &mode;
	ret = proc_dointvec_minmax(&t, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	/* Nothing is tracked: turning checks on would check nothing. */
	if (!kmemcheck_booted_on && mode != KMEMCHECK_MODE_OFF) {
		pr_warn_ratelimited("booted with kmemcheck=0: boot with kmemcheck=1 to enable it\n");
		return -EPERM;
	}
	WRITE_ONCE(kmemcheck_mode, mode);
	return 0;
}

static struct ctl_table kmemcheck_sysctl_table[] = {
	{
		.procname	= "kmemcheck",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= kmemcheck_sysctl_mode,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_TWO,
	},
};

static int __init kmemcheck_late_init(void)
{
	register_sysctl_init("kernel", kmemcheck_sysctl_table);
	if (kmemcheck_booted_on)
		kmemcheck_keep_one_cpu();
	return 0;
}
late_initcall(kmemcheck_late_init);

/* === Origins ============================================================= */

/* Stack entries saved per allocation and free. */
#define KMEMCHECK_ORIGIN_DEPTH	16

/* Stacks remembered per CPU with their handles. */
#define KMEMCHECK_STACK_CACHE	4

/*
 * The last stacks saved on this CPU.  A loop allocates and frees from the
 * same places over and over, and comparing a few stacks costs a tenth of
 * the depot's lookup (its hash, and RCU with lockdep).
 */
struct kmemcheck_stack_cache {
	unsigned int next;
	struct {
		unsigned int nr;
		depot_stack_handle_t handle;	/* 0: empty */
		unsigned long entries[KMEMCHECK_ORIGIN_DEPTH];
	} slot[KMEMCHECK_STACK_CACHE];
};

static DEFINE_PER_CPU(struct kmemcheck_stack_cache, kmemcheck_stack_cache);

/*
 * The handle of a stack of @nr @entries saved on this CPU lately, or 0.
 * Raw interrupt toggles, here and in kmemcheck_stack_remember(): a few
 * loads and stores, no lock.
 */
static depot_stack_handle_t kmemcheck_stack_cached(const unsigned long *entries,
						   unsigned int nr)
{
	depot_stack_handle_t handle = 0;
	struct kmemcheck_stack_cache *c;
	unsigned long flags;
	unsigned int i;

	raw_local_irq_save(flags);
	c = this_cpu_ptr(&kmemcheck_stack_cache);
	for (i = 0; i < KMEMCHECK_STACK_CACHE && !handle; i++) {
		unsigned int j;

		if (!c->slot[i].handle || c->slot[i].nr != nr)
			continue;
		/* memcmp() goes byte by byte on x86-32. */
		for (j = 0; j < nr && c->slot[i].entries[j] == entries[j]; j++)
			;
		if (j == nr)
			handle = c->slot[i].handle;
	}
	raw_local_irq_restore(flags);
	return handle;
}

static void kmemcheck_stack_remember(const unsigned long *entries,
				     unsigned int nr,
				     depot_stack_handle_t handle)
{
	struct kmemcheck_stack_cache *c;
	unsigned long flags;
	unsigned int i;

	raw_local_irq_save(flags);
	c = this_cpu_ptr(&kmemcheck_stack_cache);
	i = c->next++ % KMEMCHECK_STACK_CACHE;
	c->slot[i].nr = nr;
	memcpy(c->slot[i].entries, entries, nr * sizeof(*entries));
	c->slot[i].handle = handle;
	raw_local_irq_restore(flags);
}

/*
 * Save the current stack in the stack depot.  The depot allocates its pools
 * with __GFP_NOTRACK, so this cannot recurse into kmemcheck; it cannot
 * allocate at all in NMI context, and then saves only known stacks.  An
 * NMI may come while the cache of stacks is being written: it does not
 * use it.
 */
static depot_stack_handle_t kmemcheck_save_stack(gfp_t gfp)
{
	unsigned long entries[KMEMCHECK_ORIGIN_DEPTH];
	depot_stack_handle_t handle;
	unsigned int nr;

	/* Skip this function: the stack starts at the allocator hook. */
	nr = kmemcheck_arch_save_stack(entries, ARRAY_SIZE(entries), 1);
	if (in_nmi())
		return stack_depot_save_flags(entries, nr, gfp, 0);
	handle = kmemcheck_stack_cached(entries, nr);
	if (handle)
		return handle;
	handle = stack_depot_save_flags(entries, nr, gfp,
					STACK_DEPOT_FLAG_CAN_ALLOC);
	if (handle)
		kmemcheck_stack_remember(entries, nr, handle);
	return handle;
}

/*
 * Record the allocation stack of @size bytes at @addr in the first origin
 * slot, and clear the free stack of an earlier life in the second.
 * Allocations too small for a slot have no origin.
 */
static void kmemcheck_origin_alloc(unsigned long addr, size_t size, gfp_t gfp)
{
	if (size < KMEMCHECK_ORIGIN_BYTES)
		return;
	kmemcheck_origin_set(addr, KMEMCHECK_ORIGIN_ALLOC,
			     kmemcheck_save_stack(gfp));
	if (size >= KMEMCHECK_ORIGIN_SLOTS * KMEMCHECK_ORIGIN_BYTES)
		kmemcheck_origin_set(addr + KMEMCHECK_ORIGIN_BYTES,
				     KMEMCHECK_ORIGIN_NONE, 0);
}

/*
 * Record the free stack in the second slot, or in the first, replacing the
 * allocation stack, when the object is too small for two.
 */
static void kmemcheck_origin_free(unsigned long addr, size_t size)
{
	depot_stack_handle_t handle;

	if (size < KMEMCHECK_ORIGIN_BYTES)
		return;
	/* Frees happen under any lock: never reclaim nor wake kswapd. */
	handle = kmemcheck_save_stack(0);
	if (size >= KMEMCHECK_ORIGIN_SLOTS * KMEMCHECK_ORIGIN_BYTES)
		addr += KMEMCHECK_ORIGIN_BYTES;
	kmemcheck_origin_set(addr, KMEMCHECK_ORIGIN_FREE, handle);
}

/* === Allocator hooks ===================================================== */

/* Every page holds the origin, so that any page of a block can tell it. */
static void kmemcheck_origin_pages(struct page *page, unsigned int nr,
				   gfp_t gfp)
{
	depot_stack_handle_t handle = kmemcheck_save_stack(gfp);
	unsigned int i;

	for (i = 0; i < nr; i++)
		kmemcheck_origin_set((unsigned long)page_address(page + i),
				     KMEMCHECK_ORIGIN_ALLOC, handle);
}

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
static bool kmemcheck_slack_known_at(const void *addr)
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

static bool kmemcheck_find_bad(unsigned long addr, size_t size,
			       unsigned long *bad, u8 *state);
static bool kmemcheck_checking(void);
static enum kmemcheck_bug_type kmemcheck_bug_of(u8 state);

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

/* === Pages whose contents move =========================================== */

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

/* === Annotations ========================================================= */

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

/*
 * First tracked byte of [addr, addr + size) that is not initialized.  A page
 * at a time: copies to user space are checked whatever their source, and
 * most sources, such as the page cache, are not tracked.
 */
static bool kmemcheck_find_bad(unsigned long addr, size_t size,
			       unsigned long *bad, u8 *state)
{
	while (size) {
		size_t n = min_t(size_t, size, PAGE_SIZE - offset_in_page(addr));
		u8 *shadow = kmemcheck_shadow_of(addr);
		size_t i;

		/* Most copies are all initialized: a word at a time. */
		if (shadow && kmemcheck_shadow_range_initialized(addr, n))
			shadow = NULL;
		for (i = 0; shadow && i < n; i++) {
			u8 checked = kmemcheck_shadow_checked(addr + i,
							      &shadow[i]);

			if (checked != KMEMCHECK_SHADOW_INITIALIZED) {
				*bad = addr + i;
				*state = checked;
				return true;
			}
		}
		addr += n;
		size -= n;
	}
	return false;
}

/**
 * __kmemcheck_is_obj_initialized() - is every tracked byte of a range written?
 * @address:	first byte
 * @size:	number of bytes
 *
 * Return: false if any tracked byte in the range is not initialized.
 */
bool __kmemcheck_is_obj_initialized(const void *address, size_t size)
{
	unsigned long bad;
	u8 state;

	return !kmemcheck_find_bad((unsigned long)address, size, &bad, &state);
}
EXPORT_SYMBOL_GPL(__kmemcheck_is_obj_initialized);

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

/* === Checks, called by the fault handler ================================= */

static enum kmemcheck_bug_type kmemcheck_bug_of(u8 state)
{
	switch (state) {
	case KMEMCHECK_SHADOW_FREED:
		return KMEMCHECK_BUG_USE_AFTER_FREE;
	case KMEMCHECK_SHADOW_UNALLOCATED:
		return KMEMCHECK_BUG_UNALLOCATED;
	default:
		return KMEMCHECK_BUG_UNINIT;
	}
}

static bool kmemcheck_checking(void)
{
	return READ_ONCE(kmemcheck_mode) != KMEMCHECK_MODE_OFF &&
	       !current->kmemcheck_disabled;
}

/**
 * kmemcheck_access() - check or record one memory access
 * @regs:	registers of the access
 * @addr:	first byte
 * @size:	number of bytes
 * @read:	the instruction reads the bytes (reported unless initialized)
 * @write:	the instruction writes the bytes (they become initialized)
 *
 * The range may straddle a page boundary and cover untracked bytes.
 */
void kmemcheck_access(struct pt_regs *regs, unsigned long addr, size_t size,
		      bool read, bool write)
{
	unsigned long bad;
	u8 state;

	if (read && kmemcheck_checking() &&
	    kmemcheck_find_bad(addr, size, &bad, &state))
		kmemcheck_report(regs, kmemcheck_bug_of(state), addr, size,
				 bad, 0);
	if (write)
		kmemcheck_shadow_set(addr, size, KMEMCHECK_SHADOW_INITIALIZED);
}

/* === Following values ==================================================== */

/*
 * kmemcheck.follow=1, the default: a read of uninitialized bytes into a
 * register is not reported; the value is followed to where it is used.
 * kmemcheck.follow=0 reports the read, as mainline kmemcheck did.
 * Writable at run time: a change applies to the next such read.
 */
bool kmemcheck_follow __read_mostly = true;

/**
 * kmemcheck_follow_enabled() - follow loaded values to their use?
 *
 * Return: true if kmemcheck.follow is set and reads are checked at all.
 */
bool kmemcheck_follow_enabled(void)
{
	return READ_ONCE(kmemcheck_follow) && kmemcheck_checking();
}

/**
 * kmemcheck_range_uninit() - may a read of a range be followed?
 * @addr:	first byte
 * @size:	number of bytes
 * @bad:	set to the first uninitialized byte
 *
 * Return: true if some tracked byte of the range is uninitialized and none
 * is freed or unallocated: those are bugs at the access itself.
 */
bool kmemcheck_range_uninit(unsigned long addr, size_t size,
			    unsigned long *bad)
{
	bool found = false;
	size_t i;

	for (i = 0; i < size; i++) {
		u8 *shadow = kmemcheck_shadow_of(addr + i);
		u8 state;

		if (!shadow)
			continue;
		state = kmemcheck_shadow_checked(addr + i, shadow);
		if (state == KMEMCHECK_SHADOW_UNINITIALIZED) {
			if (!found)
				*bad = addr + i;
			found = true;
		} else if (state != KMEMCHECK_SHADOW_INITIALIZED) {
			return false;
		}
	}
	return found;
}

/**
 * kmemcheck_value_load() - the undefined bits of a read made while following
 * @regs:	registers of the reading instruction
 * @addr:	first byte
 * @size:	number of bytes, at most 8
 *
 * A read of freed or unallocated bytes is reported here, as at any access.
 *
 * Return: the undefined bits of the value read, little-endian: those of
 * each uninitialized byte that are not known to be initialized.
 */
u64 kmemcheck_value_load(struct pt_regs *regs, unsigned long addr,
			 unsigned int size)
{
	u64 undef = 0;
	unsigned int i;

	for (i = 0; i < size && i < sizeof(undef); i++) {
		u8 *shadow = kmemcheck_shadow_of(addr + i);
		u8 state;

		if (!shadow)
			continue;
		state = kmemcheck_shadow_checked(addr + i, shadow);
		if (state == KMEMCHECK_SHADOW_UNINITIALIZED) {
			u8 bits = ~kmemcheck_partial_defined(shadow);

			undef |= (u64)bits << (8 * i);
		} else if (state != KMEMCHECK_SHADOW_INITIALIZED) {
			kmemcheck_access(regs, addr, size, true, false);
			return 0;
		}
	}
	return undef;
}

/**
 * kmemcheck_value_undef() - the undefined bits of a byte, not checked
 * @addr:	the byte
 *
 * For the bytes of a copy, which kmemcheck_copy() has checked.
 *
 * Return: the bits of an uninitialized byte that are not known to be
 * initialized; 0 for a byte in any other state, or untracked.
 */
u8 kmemcheck_value_undef(unsigned long addr)
{
	u8 *shadow = kmemcheck_shadow_of(addr);

	if (!shadow || kmemcheck_shadow_checked(addr, shadow) !=
		       KMEMCHECK_SHADOW_UNINITIALIZED)
		return 0;
	return ~kmemcheck_partial_defined(shadow);
}

/**
 * kmemcheck_value_store() - record a store made while following
 * @addr:	first byte
 * @size:	number of bytes, at most 8
 * @undef:	the undefined bits of the value stored, little-endian
 *
 * Called once the store has happened.  A byte with no undefined bit
 * becomes initialized, the others uninitialized, keeping which of their
 * bits are initialized; untracked bytes are ignored.
 */
void kmemcheck_value_store(unsigned long addr, unsigned int size, u64 undef)
{
	unsigned int i;

	for (i = 0; i < size && i < sizeof(undef); i++) {
		u8 bits = undef >> (8 * i);
		u8 *shadow;

		kmemcheck_shadow_set(addr + i, 1, bits ?
				     KMEMCHECK_SHADOW_UNINITIALIZED :
				     KMEMCHECK_SHADOW_INITIALIZED);
		shadow = kmemcheck_shadow_of(addr + i);
		if (shadow && bits && bits != 0xff &&
		    !kmemcheck_partial_set(shadow, ~bits))
			kmemcheck_shadow_set(addr + i, 1,
					     KMEMCHECK_SHADOW_INITIALIZED);
	}
}

/**
 * kmemcheck_copy() - propagate the shadow of a memory-to-memory copy
 * @regs:	registers of the copy
 * @src:	source
 * @dst:	destination
 * @size:	number of bytes
 *
 * Copying uninitialized bytes is not a bug; using them is.  So the shadow
 * follows the bytes into tracked memory, where a later read of them is
 * reported.  Into the stack, as "tmp = *obj;" copies, they are not
 * reported either with kmemcheck.follow=1: the caller follows them from
 * there, as values read from the heap, or loses them.  Into other
 * untracked kernel memory (a global, a __GFP_NOTRACK buffer, vmalloc),
 * where no shadow keeps them, the copy is their use: uninit-value, at
 * the copy.  Copying freed or unallocated bytes is reported at the copy,
 * where the bug is, and they arrive uninitialized.  Copies to user space
 * are checked before they start, by kmemcheck_copy_to_user(): bytes
 * leaving the kernel are kernel-infoleak.
 */
void kmemcheck_copy(struct pt_regs *regs, unsigned long src, unsigned long dst,
		    size_t size)
{
	bool checking = kmemcheck_checking();
	/* Bytes to the stack are followed, when following is on. */
	bool to_stack = kmemcheck_follow_enabled() &&
			kmemcheck_arch_on_stack(regs, dst);
	bool reported = false;
	size_t i, chunk_end = 0;

	/*
	 * A copy to user space was checked by kmemcheck_copy_to_user(),
	 * before it started: report it once.
	 */
	if (dst < TASK_SIZE_MAX)
		checking = false;

	for (i = 0; i < size; i++) {
		u8 *from = kmemcheck_shadow_of(src + i);
		u8 *to, state;
		bool stale;

		/*
		 * Initialized bytes, or bytes from untracked memory, arrive
		 * initialized: as many at once as both pages hold.  A chunk
		 * that is not is copied byte by byte, and tried whole once.
		 */
		if (i == chunk_end) {
			size_t n = min3(size - i,
					PAGE_SIZE - offset_in_page(src + i),
					PAGE_SIZE - offset_in_page(dst + i));

			chunk_end = i + n;
			if (!from ||
			    kmemcheck_shadow_range_initialized(src + i, n)) {
				kmemcheck_shadow_set(dst + i, n,
						     KMEMCHECK_SHADOW_INITIALIZED);
				i = chunk_end - 1;
				continue;
			}
		}
		to = kmemcheck_shadow_of(dst + i);
		state = from ? kmemcheck_shadow_checked(src + i, from) :
			       KMEMCHECK_SHADOW_INITIALIZED;
		stale = state == KMEMCHECK_SHADOW_FREED ||
			state == KMEMCHECK_SHADOW_UNALLOCATED;
		if (!reported && checking &&
		    (stale || (!to && state != KMEMCHECK_SHADOW_INITIALIZED &&
			       !to_stack))) {
			kmemcheck_report(regs, stale ? kmemcheck_bug_of(state) :
					 KMEMCHECK_BUG_UNINIT, src, size,
					 src + i, to ? 0 : dst);
			reported = true;
		}
		if (!to)
			continue;
		kmemcheck_shadow_set(dst + i, 1, stale ?
				     KMEMCHECK_SHADOW_UNINITIALIZED : state);
		/* Bits known initialized go with the byte. */
		if (state == KMEMCHECK_SHADOW_UNINITIALIZED &&
		    !kmemcheck_partial_set(to, kmemcheck_partial_defined(from)))
			kmemcheck_shadow_set(dst + i, 1,
					     KMEMCHECK_SHADOW_INITIALIZED);
	}
}
