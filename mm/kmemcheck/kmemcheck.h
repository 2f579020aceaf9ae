/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemcheck internal declarations, shared by the generic files and the
 * KUnit tests.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _MM_KMEMCHECK_KMEMCHECK_H
#define _MM_KMEMCHECK_KMEMCHECK_H

#include <linux/atomic.h>
#include <linux/kmemcheck.h>
#include <linux/mm.h>
#include <linux/stackdepot.h>
#include <linux/types.h>

#include "seam.h"

struct dentry;
struct kmem_cache;
struct pt_regs;

/* State of one tracked byte; the shadow holds one per byte. */
enum kmemcheck_shadow {
	KMEMCHECK_SHADOW_UNALLOCATED,	/* 'a': slab memory not in an object */
	KMEMCHECK_SHADOW_UNINITIALIZED,	/* 'u': allocated, never written */
	KMEMCHECK_SHADOW_INITIALIZED,	/* 'i': written since allocation */
	KMEMCHECK_SHADOW_FREED,		/* 'f': freed object */
};

/*
 * The state takes the low bits of a shadow byte; the spare bits of the
 * first shadow bytes of an object or page hold its origins (shadow.c).
 */
#define KMEMCHECK_SHADOW_STATE_BITS	2
#define KMEMCHECK_SHADOW_STATE_MASK	0x03

static inline u8 kmemcheck_shadow_state(const u8 *shadow)
{
	return *shadow & KMEMCHECK_SHADOW_STATE_MASK;
}

/* What the stack in an origin slot is. */
enum kmemcheck_origin {
	KMEMCHECK_ORIGIN_NONE,
	KMEMCHECK_ORIGIN_ALLOC,		/* where the memory was allocated */
	KMEMCHECK_ORIGIN_FREE,		/* where it was freed */
};

/* Shadow bytes per origin slot, and the slots of an object. */
#define KMEMCHECK_ORIGIN_BYTES	6
#define KMEMCHECK_ORIGIN_SLOTS	2

/* What the kmemcheck= boot parameter and sysctl kernel.kmemcheck select. */
enum kmemcheck_mode {
	KMEMCHECK_MODE_OFF,		/* no checks (tracking goes on) */
	KMEMCHECK_MODE_ON,		/* report every bad read */
	KMEMCHECK_MODE_ONESHOT,		/* report once, then turn off */
};

extern int kmemcheck_mode;

/*
 * The kmemcheck.* parameters, all in params.c: their values, and the
 * operations of those with their own parsing, beside what they set.
 */
extern bool kmemcheck_follow;
extern unsigned int kmemcheck_quarantine_len;
extern unsigned int kmemcheck_report_limit;
extern unsigned int kmemcheck_fastpath;
extern const struct kernel_param_ops kmemcheck_quarantine_ops;
extern const struct kernel_param_ops kmemcheck_fault_ops;
extern const struct kernel_param_ops kmemcheck_fastpath_ops;
extern const struct kernel_param_ops kmemcheck_track_ops;

/* Bug types, in the order of kmemcheck_bug_names[]. */
enum kmemcheck_bug_type {
	KMEMCHECK_BUG_UNINIT,		/* read of 'u' */
	KMEMCHECK_BUG_USE_AFTER_FREE,	/* read of 'f' */
	KMEMCHECK_BUG_UNALLOCATED,	/* read of 'a' */
	KMEMCHECK_BUG_INFOLEAK,		/* 'u' to user space or a device */
	KMEMCHECK_BUG_TYPES,
};

/* Where the bytes of a reported copy went. */
enum kmemcheck_sink {
	KMEMCHECK_SINK_NONE,		/* not a copy: a read */
	KMEMCHECK_SINK_MEMORY,		/* untracked kernel memory */
	KMEMCHECK_SINK_USER,		/* user space, by copy_to_user() */
	KMEMCHECK_SINK_DEVICE,		/* a device, by a DMA mapping */
};

/* shadow.c: the per-byte state of tracked pages. */
u8 *kmemcheck_shadow_of(unsigned long addr);
bool kmemcheck_fastpath_objects(void);
unsigned int kmemcheck_shed_faults(void);
bool kmemcheck_slack_known(const struct kmem_cache *s);
bool kmemcheck_object_allocated(const struct kmem_cache *s,
				unsigned long object);
u8 kmemcheck_shadow_checked(unsigned long addr, const u8 *shadow);
bool kmemcheck_shadow_alloc(struct page *page, unsigned int nr, gfp_t gfp);
void kmemcheck_shadow_free(struct page *page, unsigned int nr);
void kmemcheck_shadow_copy_page(struct page *to, struct page *from);
bool kmemcheck_shadow_range_initialized(unsigned long addr, size_t n);
void kmemcheck_shadow_set(unsigned long addr, size_t size,
			  enum kmemcheck_shadow state);
void kmemcheck_shadow_expire(unsigned long addr, size_t size);
void kmemcheck_shadow_claim(unsigned long addr, size_t size);
void kmemcheck_shadow_set_pages(struct page *page, unsigned int nr,
				enum kmemcheck_shadow state);
char kmemcheck_shadow_letter(const u8 *shadow);
void kmemcheck_origin_set(unsigned long addr, enum kmemcheck_origin kind,
			  depot_stack_handle_t handle);
depot_stack_handle_t kmemcheck_origin_get(unsigned long addr,
					  enum kmemcheck_origin *kind);

/* origin.c: the stacks that allocated and freed tracked memory. */
depot_stack_handle_t kmemcheck_save_stack(gfp_t gfp);
void kmemcheck_origin_alloc(unsigned long addr, size_t size, gfp_t gfp);
void kmemcheck_origin_free(unsigned long addr, size_t size);
void kmemcheck_origin_pages(struct page *page, unsigned int nr, gfp_t gfp);

/* hooks.c: what the allocators tell kmemcheck. */
bool kmemcheck_slack_known_at(const void *addr);

/* check.c: accesses checked against the shadow. */
bool kmemcheck_checking(void);
enum kmemcheck_bug_type kmemcheck_bug_of(u8 state);
bool kmemcheck_find_bad(unsigned long addr, size_t size, unsigned long *bad,
			u8 *state);

/* partial.c: the initialized bits of partly initialized bytes. */
void kmemcheck_partial_init_shadow(const u8 *shadow);
u8 kmemcheck_partial_defined(const u8 *shadow);
bool kmemcheck_partial_set(u8 *shadow, u8 defined);
void __kmemcheck_partial_forget(const u8 *shadow, size_t n);

/*
 * Where the partial page of the page shadowed by @shadow is kept: the
 * shadow page's ->index, which kmemcheck owns as it owns ->private.
 */
static __always_inline unsigned long *kmemcheck_partial_slot(const u8 *shadow)
{
	return &virt_to_page(shadow)->index;
}

/*
 * kmemcheck_partial_forget() - no bit of a range of bytes is known any more
 * @shadow:	the shadow byte of the first
 * @n:		number of bytes, all in one page
 *
 * Called whenever the state of bytes changes; most pages have no partial
 * page, and it costs them a load.
 */
static __always_inline void kmemcheck_partial_forget(const u8 *shadow,
						     size_t n)
{
	if (READ_ONCE(*kmemcheck_partial_slot(shadow)))
		__kmemcheck_partial_forget(shadow, n);
}

void kmemcheck_partial_free(const u8 *shadow);

/* quarantine.c: how long freed objects stay checked with fastpath=2. */
#define KMEMCHECK_QUARANTINE_MAX	4096

void kmemcheck_quarantine_add(struct kmem_cache *s, void *object);
unsigned int kmemcheck_quarantine_length(void);
bool kmemcheck_page_quarantine_add(struct page *page, unsigned int order);
void kmemcheck_page_quarantine_remove(struct page *page, unsigned int order);

/* track.c: kmemcheck.track=, what is tracked. */
#define KMEMCHECK_TRACK_TERMS	16	/* terms of one selection, at most */
bool kmemcheck_track_slab(const struct kmem_cache *s);
bool kmemcheck_track_object(const struct kmem_cache *s, unsigned long caller);
bool kmemcheck_track_pages(void);
bool kmemcheck_track_everything(void);
int kmemcheck_track_set(const char *text);
void __init kmemcheck_track_init(struct dentry *dir);

/* report.c: recording in any context, printing later. */
void kmemcheck_report(struct pt_regs *regs, enum kmemcheck_bug_type type,
		      unsigned long addr, size_t size, unsigned long bad,
		      unsigned long dst);
void kmemcheck_report_copy(enum kmemcheck_bug_type type,
			   unsigned long addr, size_t size, unsigned long bad,
			   unsigned long dst, enum kmemcheck_sink sink);
void kmemcheck_report_flush(void);
void kmemcheck_kunit_expect_reports(bool expect);
void kmemcheck_kunit_hold_reports(bool hold);
struct seq_file;
void kmemcheck_report_counts_show(struct seq_file *seq);
void kmemcheck_sites_show(struct seq_file *seq);

/* hot.c: the caches and instructions that take the faults. */
void __init kmemcheck_hot_init(struct dentry *dir);
extern bool kmemcheck_hot_on;

/* Are faults counted for the hot spots (kmemcheck.hot)? */
static inline bool kmemcheck_hot_counting(void)
{
	return READ_ONCE(kmemcheck_hot_on);
}

/* hidden.c: what keeps tracked pages from resting. */
struct kmemcheck_census {
	unsigned long tracked;		/* tracked pages */
	unsigned long hidden;		/* ... of them that may not rest */
	unsigned long uninit;		/* their uninitialized bytes */
	unsigned long freed;		/* their freed bytes */
};

bool kmemcheck_census_page(unsigned long addr, struct kmemcheck_census *c);
void __init kmemcheck_hidden_init(struct dentry *dir);

/* demo.c: a deliberate bug on request, to see kmemcheck at work. */
#ifdef CONFIG_KMEMCHECK_DEMO
void __init kmemcheck_demo_init(struct dentry *dir);
#else
static inline void kmemcheck_demo_init(struct dentry *dir) { }
#endif

#endif /* _MM_KMEMCHECK_KMEMCHECK_H */
