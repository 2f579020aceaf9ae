// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck.track=: track only what you debug.
 *
 * By default kmemcheck tracks every slab object and page-allocator page it
 * can.  A selection, given at boot as kmemcheck.track= or written at run
 * time to /sys/kernel/debug/kmemcheck/track, narrows that to a
 * comma-separated list of terms, any of which selects an allocation:
 *
 *	cache:GLOB	objects of the slab caches whose name matches
 *	func:GLOB	slab objects allocated by a function whose name matches
 *	module:GLOB	slab objects allocated by code of a matching module
 *	pages		pages from the page allocator (kmalloc() of more than
 *			two pages included)
 *	all		everything, as without a selection
 *
 * The function is the one that calls the slab allocator (kmalloc(),
 * kmem_cache_alloc() and their variants, inlined wrappers such as kzalloc()
 * looked through).  What is left out costs what it can:
 * - a slab is given a shadow only if its cache matches a cache: term, or
 *   if a func: or module: term may select any of its objects; the pages of
 *   every other cache are not tracked at all;
 * - an object of a tracked slab that is not selected is marked initialized
 *   when allocated, without a stack trace, and stays so when freed: it is
 *   never checked and never keeps its page hidden;
 * - pages are tracked only with the pages term.
 * Objects of caches with a constructor are selected by cache: only: their
 * state is the constructor's, not their allocator's.
 *
 * A new selection applies to allocations made after it; what is tracked
 * stays tracked until freed.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#define pr_fmt(fmt) "kmemcheck: " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/debugfs.h>
#include <linux/glob.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../slab.h"
#include "kmemcheck.h"

/* The bytes of a selection's text; its terms are KMEMCHECK_TRACK_TERMS. */
#define KMEMCHECK_TRACK_LEN	256

/*
 * Call sites whose verdict is remembered, per verdict: the slab allocator
 * is called from a few thousand places.  Open addressing, no deletion;
 * a site that finds no room is judged again at its next allocation.
 */
#define KMEMCHECK_TRACK_MEMO_BITS	9
#define KMEMCHECK_TRACK_MEMO		BIT(KMEMCHECK_TRACK_MEMO_BITS)
#define KMEMCHECK_TRACK_PROBES		8

enum kmemcheck_track_kind {
	KMEMCHECK_TRACK_CACHE,
	KMEMCHECK_TRACK_FUNC,
	KMEMCHECK_TRACK_MODULE,
};

static const char *const kmemcheck_track_kinds[] = {
	[KMEMCHECK_TRACK_CACHE]		= "cache:",
	[KMEMCHECK_TRACK_FUNC]		= "func:",
	[KMEMCHECK_TRACK_MODULE]	= "module:",
};

struct kmemcheck_track_term {
	enum kmemcheck_track_kind kind;
	const char *glob;		/* points into text */
};

struct kmemcheck_track {
	unsigned int nr_terms;
	bool pages;			/* the pages term */
	bool sites;			/* a func: or module: term */
	bool caches;			/* a cache: term */
	struct kmemcheck_track_term term[KMEMCHECK_TRACK_TERMS];
	char text[KMEMCHECK_TRACK_LEN];	/* the globs, NUL-separated */
	/* Call sites judged, by verdict; 0 is an empty slot. */
	unsigned long selected[KMEMCHECK_TRACK_MEMO];
	unsigned long rejected[KMEMCHECK_TRACK_MEMO];
};

/*
 * The selection in force, NULL for everything.  The boot selection is
 * parsed before the slab allocator runs, so it is static; later ones are
 * allocated, and freed after a grace period.
 */
static struct kmemcheck_track __rcu *kmemcheck_track_sel;
static struct kmemcheck_track kmemcheck_track_boot;
static DEFINE_MUTEX(kmemcheck_track_mutex);

/* === Parsing ============================================================= */

/*
 * Parse @text into @t, which must be zeroed.  Returns 0, or -EINVAL with a
 * message naming the bad term.  "all" (or nothing) leaves @t with no
 * terms and no pages: the caller installs no selection then.
 */
static int kmemcheck_track_parse(struct kmemcheck_track *t, const char *text)
{
	bool all = false;
	char *p, *term;

	if (strscpy(t->text, text, sizeof(t->text)) < 0) {
		pr_warn("kmemcheck.track: selection longer than %u bytes\n",
			KMEMCHECK_TRACK_LEN - 1);
		return -EINVAL;
	}
	p = strim(t->text);
	while ((term = strsep(&p, ",")) != NULL) {
		struct kmemcheck_track_term *tt = &t->term[t->nr_terms];
		unsigned int k;

		if (!strcmp(term, "all")) {
			all = true;
			continue;
		}
		if (!strcmp(term, "pages")) {
			t->pages = true;
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(kmemcheck_track_kinds); k++) {
			if (str_has_prefix(term, kmemcheck_track_kinds[k]))
				break;
		}
		if (k == ARRAY_SIZE(kmemcheck_track_kinds) ||
		    !term[strlen(kmemcheck_track_kinds[k])]) {
			pr_warn("kmemcheck.track: unknown term '%s' (cache:GLOB, func:GLOB, module:GLOB, pages or all)\n",
				term);
			return -EINVAL;
		}
		if (k == KMEMCHECK_TRACK_FUNC && !IS_ENABLED(CONFIG_KALLSYMS)) {
			pr_warn("kmemcheck.track: '%s' needs CONFIG_KALLSYMS\n",
				term);
			return -EINVAL;
		}
		if (t->nr_terms == KMEMCHECK_TRACK_TERMS) {
			pr_warn("kmemcheck.track: more than %u terms\n",
				KMEMCHECK_TRACK_TERMS);
			return -EINVAL;
		}
		tt->kind = k;
		tt->glob = term + strlen(kmemcheck_track_kinds[k]);
		if (k == KMEMCHECK_TRACK_CACHE)
			t->caches = true;
		else
			t->sites = true;
		t->nr_terms++;
	}
	if (all) {
		memset(t->term, 0, sizeof(t->term));
		t->nr_terms = 0;
		t->pages = false;
		t->sites = false;
		t->caches = false;
	} else if (!t->nr_terms && !t->pages) {
		pr_warn("kmemcheck.track: empty selection (use 'all' to track everything)\n");
		return -EINVAL;
	}
	return 0;
}

/* Parsed with the other boot parameters, before anything allocates. */
static int kmemcheck_track_param(const char *val,
				 const struct kernel_param *kp)
{
	struct kmemcheck_track *t = &kmemcheck_track_boot;

	RCU_INIT_POINTER(kmemcheck_track_sel, NULL);
	memset(t, 0, sizeof(*t));
	if (kmemcheck_track_parse(t, val ?: "")) {
		pr_warn("kmemcheck.track: ignored, tracking everything\n");
		return 0;
	}
	if (t->nr_terms || t->pages)
		RCU_INIT_POINTER(kmemcheck_track_sel, t);
	return 0;
}

const struct kernel_param_ops kmemcheck_track_ops = {
	.set = kmemcheck_track_param,
};

/**
 * kmemcheck_track_set() - select what kmemcheck tracks from now on
 * @text:	a selection, as for kmemcheck.track=; "all" for everything
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL for a bad selection (the one in force stays), or
 * -ENOMEM.
 */
int kmemcheck_track_set(const char *text)
{
	struct kmemcheck_track *t, *old;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL | __GFP_NOTRACK);
	if (!t)
		return -ENOMEM;
	ret = kmemcheck_track_parse(t, text);
	if (ret) {
		kfree(t);
		return ret;
	}
	if (!t->nr_terms && !t->pages) {
		kfree(t);
		t = NULL;
	}
	mutex_lock(&kmemcheck_track_mutex);
	old = rcu_replace_pointer(kmemcheck_track_sel, t,
				  lockdep_is_held(&kmemcheck_track_mutex));
	mutex_unlock(&kmemcheck_track_mutex);
	synchronize_rcu();
	if (old != &kmemcheck_track_boot)
		kfree(old);
	return 0;
}

/* === Verdicts ============================================================ */

static bool kmemcheck_memo_find(const unsigned long *memo, unsigned long key)
{
	unsigned int h = hash_long(key, KMEMCHECK_TRACK_MEMO_BITS), i;

	for (i = 0; i < KMEMCHECK_TRACK_PROBES; i++) {
		unsigned long v = READ_ONCE(memo[(h + i) % KMEMCHECK_TRACK_MEMO]);

		if (v == key)
			return true;
		if (!v)
			return false;
	}
	return false;
}

static void kmemcheck_memo_add(unsigned long *memo, unsigned long key)
{
	unsigned int h = hash_long(key, KMEMCHECK_TRACK_MEMO_BITS), i;

	for (i = 0; i < KMEMCHECK_TRACK_PROBES; i++) {
		unsigned long *slot = &memo[(h + i) % KMEMCHECK_TRACK_MEMO];
		unsigned long v = 0;

		/* An interrupt may have added it meanwhile: keep one copy. */
		if (try_cmpxchg(slot, &v, key) || v == key)
			return;
	}
}

/* Symbol names are long; one buffer, used with interrupts off. */
static char kmemcheck_track_sym[KSYM_NAME_LEN];
static DEFINE_RAW_SPINLOCK(kmemcheck_track_sym_lock);

static bool kmemcheck_func_matches(const char *glob, unsigned long ip)
{
	unsigned long flags;
	bool match;

	raw_spin_lock_irqsave(&kmemcheck_track_sym_lock, flags);
	match = !lookup_symbol_name(ip, kmemcheck_track_sym) &&
		glob_match(glob, kmemcheck_track_sym);
	raw_spin_unlock_irqrestore(&kmemcheck_track_sym_lock, flags);
	return match;
}

#ifdef CONFIG_MODULES
static bool kmemcheck_module_matches(const char *glob, unsigned long ip)
{
	struct module *mod;
	bool match;

	preempt_disable();
	mod = __module_address(ip);
	match = mod && glob_match(glob, mod->name);
	preempt_enable();
	return match;
}
#else
static bool kmemcheck_module_matches(const char *glob, unsigned long ip)
{
	return false;
}
#endif

/* Does a func: or module: term of @t select the call site @ip? */
static bool kmemcheck_site_selected(struct kmemcheck_track *t,
				    unsigned long ip)
{
	bool match = false;
	unsigned int i;

	if (kmemcheck_memo_find(t->selected, ip))
		return true;
	if (kmemcheck_memo_find(t->rejected, ip))
		return false;
	for (i = 0; i < t->nr_terms && !match; i++) {
		if (t->term[i].kind == KMEMCHECK_TRACK_FUNC)
			match = kmemcheck_func_matches(t->term[i].glob, ip);
		else if (t->term[i].kind == KMEMCHECK_TRACK_MODULE)
			match = kmemcheck_module_matches(t->term[i].glob, ip);
	}
	kmemcheck_memo_add(match ? t->selected : t->rejected, ip);
	return match;
}

/* Does a cache: term of @t select the cache @s? */
static bool kmemcheck_cache_selected(const struct kmemcheck_track *t,
				     const struct kmem_cache *s)
{
	unsigned int i;

	for (i = 0; i < t->nr_terms; i++) {
		if (t->term[i].kind == KMEMCHECK_TRACK_CACHE &&
		    glob_match(t->term[i].glob, s->name))
			return true;
	}
	return false;
}

/**
 * kmemcheck_track_slab() - may a new slab of @s hold selected objects?
 * @s:	the cache
 *
 * Return: true if the slab should be given a shadow.
 */
bool kmemcheck_track_slab(const struct kmem_cache *s)
{
	struct kmemcheck_track *t;
	bool ret;

	rcu_read_lock();
	t = rcu_dereference(kmemcheck_track_sel);
	ret = !t || (t->sites && !s->ctor) || kmemcheck_cache_selected(t, s);
	rcu_read_unlock();
	return ret;
}

/**
 * kmemcheck_track_object() - is a new object of @s selected?
 * @s:		the object's cache
 * @caller:	address of the call to the slab allocator
 *
 * Return: true if the object is to be checked.
 */
bool kmemcheck_track_object(const struct kmem_cache *s, unsigned long caller)
{
	struct kmemcheck_track *t;
	bool ret;

	if (!rcu_access_pointer(kmemcheck_track_sel))
		return true;
	rcu_read_lock();
	t = rcu_dereference(kmemcheck_track_sel);
	ret = !t || (t->sites && kmemcheck_site_selected(t, caller)) ||
	      (t->caches && kmemcheck_cache_selected(t, s));
	rcu_read_unlock();
	if (!ret)
		kmemcheck_count(KMEMCHECK_COUNTER_UNSELECTED);
	return ret;
}

/**
 * kmemcheck_track_pages() - are new pages from the page allocator selected?
 *
 * Return: true if they are to be tracked.
 */
bool kmemcheck_track_pages(void)
{
	struct kmemcheck_track *t;
	bool ret;

	if (!rcu_access_pointer(kmemcheck_track_sel))
		return true;
	rcu_read_lock();
	t = rcu_dereference(kmemcheck_track_sel);
	ret = !t || t->pages;
	rcu_read_unlock();
	if (!ret)
		kmemcheck_count(KMEMCHECK_COUNTER_UNSELECTED);
	return ret;
}

/**
 * kmemcheck_track_everything() - is there no selection?
 *
 * Return: true unless kmemcheck.track= or debugfs track narrowed tracking.
 */
bool kmemcheck_track_everything(void)
{
	return !rcu_access_pointer(kmemcheck_track_sel);
}

#ifdef CONFIG_MODULES
/*
 * Module text is reused once a module is gone: forget every verdict when
 * one comes, so that none is of code that was at its address before.
 */
static int kmemcheck_track_module_notify(struct notifier_block *nb,
					 unsigned long action, void *data)
{
	struct kmemcheck_track *t;
	unsigned int i;

	if (action != MODULE_STATE_COMING)
		return NOTIFY_DONE;
	mutex_lock(&kmemcheck_track_mutex);
	t = rcu_dereference_protected(kmemcheck_track_sel,
				      lockdep_is_held(&kmemcheck_track_mutex));
	for (i = 0; t && i < KMEMCHECK_TRACK_MEMO; i++) {
		WRITE_ONCE(t->selected[i], 0);
		WRITE_ONCE(t->rejected[i], 0);
	}
	mutex_unlock(&kmemcheck_track_mutex);
	return NOTIFY_OK;
}

static struct notifier_block kmemcheck_track_module_nb = {
	.notifier_call = kmemcheck_track_module_notify,
};

static void __init kmemcheck_track_modules_init(void)
{
	register_module_notifier(&kmemcheck_track_module_nb);
}
#else
static inline void kmemcheck_track_modules_init(void) { }
#endif

/* === debugfs ============================================================= */

static int track_show(struct seq_file *seq, void *v)
{
	struct kmemcheck_track *t;
	unsigned int i;

	mutex_lock(&kmemcheck_track_mutex);
	t = rcu_dereference_protected(kmemcheck_track_sel,
				      lockdep_is_held(&kmemcheck_track_mutex));
	if (!t)
		seq_puts(seq, "all");
	for (i = 0; t && i < t->nr_terms; i++)
		seq_printf(seq, "%s%s%s", i ? "," : "",
			   kmemcheck_track_kinds[t->term[i].kind],
			   t->term[i].glob);
	if (t && t->pages)
		seq_printf(seq, "%spages", t->nr_terms ? "," : "");
	seq_putc(seq, '\n');
	mutex_unlock(&kmemcheck_track_mutex);
	return 0;
}

static int track_open(struct inode *inode, struct file *file)
{
	return single_open(file, track_show, NULL);
}

static ssize_t track_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char *text;
	int ret;

	if (count >= KMEMCHECK_TRACK_LEN)
		return -EINVAL;
	text = memdup_user_nul(ubuf, count);
	if (IS_ERR(text))
		return PTR_ERR(text);
	ret = kmemcheck_track_set(text);
	kfree(text);
	return ret ?: count;
}

static const struct file_operations track_fops = {
	.open		= track_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= track_write,
};

void __init kmemcheck_track_init(struct dentry *dir)
{
	kmemcheck_track_modules_init();
	debugfs_create_file("track", 0600, dir, NULL, &track_fops);
}
