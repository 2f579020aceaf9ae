// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck error reports.
 *
 * A report is recorded in the fault handler, where printing is unsafe: the
 * console path may itself touch tracked memory, and the handler may run in
 * NMI context.  Records wait in a small queue and are printed by a worker,
 * which irq_work wakes: with interrupts on, in a context that may sleep,
 * so that a flood of reports to a slow serial console cannot stall the
 * machine.  Repeats of one report (one call site, one kind of bug, one
 * allocation stack) are counted rather than printed, new reports beyond
 * kmemcheck.report_limit in a minute are counted too, and so is a full
 * queue: no report is ever lost silently.
 *
 * The call site of a report is the first frame of its stack outside the
 * string and copy helpers, so that a memcpy() or copy_to_user() of bad
 * bytes is told apart by its caller, and titled with it.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/panic.h>
#include <linux/panic_notifier.h>
#include <linux/printk.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sprintf.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <asm/kmemcheck.h>

#include <kunit/test.h>
#include <kunit/test-bug.h>

#include <trace/events/error_report.h>

#include "../slab.h"
#include "kmemcheck.h"

/* Stack entries kept per report. */
#define KMEMCHECK_STACK_DEPTH	32
/* Bytes of shadow shown around the access, a power of two. */
#define KMEMCHECK_WINDOW	32
/* Bytes of a cache's name kept in a report, NUL included. */
#define KMEMCHECK_CACHE_NAME_LEN	32
/* Bytes shown of an instruction that could not be decoded. */
#define KMEMCHECK_CODE_LEN	8
/* Reports waiting to be printed: a burst within the limit, mostly. */
#define KMEMCHECK_QUEUE_LEN	32
/* Call sites remembered for deduplication. */
#define KMEMCHECK_SITES		128
/* A site reports again, with the count of repeats, after this long. */
#define KMEMCHECK_REPEAT_INTERVAL	(60 * HZ)
/* The period of kmemcheck.report_limit. */
#define KMEMCHECK_LIMIT_INTERVAL	(60 * HZ)

static const char *const kmemcheck_bug_names[KMEMCHECK_BUG_TYPES] = {
	[KMEMCHECK_BUG_UNINIT]		= "uninit-value",
	[KMEMCHECK_BUG_USE_AFTER_FREE]	= "use-after-free",
	[KMEMCHECK_BUG_UNALLOCATED]	= "unallocated",
	[KMEMCHECK_BUG_INFOLEAK]	= "kernel-infoleak",
};

/* Completes "Followed for N instructions, to F, not judged: ". */
static const char *const kmemcheck_unjudged_names[KMEMCHECK_UNJUDGED_TYPES] = {
	[KMEMCHECK_UNJUDGED_BOUND]	= "as far as kmemcheck follows a value",
	[KMEMCHECK_UNJUDGED_INSN]	= "an instruction kmemcheck does not model",
	[KMEMCHECK_UNJUDGED_FAULT]	= "an exception in a followed instruction",
	[KMEMCHECK_UNJUDGED_STACK]	= "a change of stack",
	[KMEMCHECK_UNJUDGED_SPILL]	= "more stack words than kmemcheck follows",
};

/* What a followed value reached, in "Use of uninit value in %s". */
static const char *const kmemcheck_use_names[KMEMCHECK_USE_TYPES] = {
	[KMEMCHECK_USE_BRANCH]	= "a conditional branch",
	[KMEMCHECK_USE_SELECT]	= "a conditional move or set",
	[KMEMCHECK_USE_ADDRESS]	= "an address",
	[KMEMCHECK_USE_DIVISOR]	= "a divisor",
	[KMEMCHECK_USE_COUNT]	= "a count",
	[KMEMCHECK_USE_ARITH]	= "arithmetic on memory",
	[KMEMCHECK_USE_STORE]	= "a store to untracked memory",
	[KMEMCHECK_USE_USER]	= "a store to user space",
};

/* Reports printed, by type, for debugfs. */
static atomic_long_t kmemcheck_reports_by_type[KMEMCHECK_BUG_TYPES];

static const char *const kmemcheck_state_names[] = {
	[KMEMCHECK_SHADOW_UNALLOCATED]		= "unallocated",
	[KMEMCHECK_SHADOW_UNINITIALIZED]	= "uninitialized",
	[KMEMCHECK_SHADOW_INITIALIZED]		= "initialized",
	[KMEMCHECK_SHADOW_FREED]		= "freed",
};

/*
 * Functions that only move or compare bytes for their caller: a report in
 * one of them is the caller's, and is titled and counted with the caller.
 */
static const char *const kmemcheck_helpers[] = {
	"memcpy", "__memcpy", "memmove", "__memmove", "memset", "__memset",
	"memcmp", "__memcmp", "bcmp", "memchr", "memscan", "kmemdup",
	"strcpy", "strncpy", "strscpy", "sized_strscpy", "strlcpy", "strcat",
	"strncat", "strlcat", "strcmp", "strncmp", "strlen", "strnlen",
	"strchr", "strrchr", "strstr",
	"__copy_user", "_copy_to_user", "copy_to_user", "raw_copy_to_user",
	"_copy_to_iter", "copy_to_iter", "copy_page_to_iter",
	"simple_read_from_buffer", "dma_map_", "__dma_map_",
};

/* kmemcheck's own hooks, whose frames lead the stacks saved in them. */
static const char *const kmemcheck_hooks[] = { "kmemcheck_", "__kmemcheck_" };

/* Everything a report prints, captured at fault time. */
struct kmemcheck_record {
	enum kmemcheck_bug_type type;
	enum kmemcheck_sink sink;	/* where an infoleak went */
	unsigned long ip;		/* the faulting instruction */
	/* For a value followed to its use: the use, and the read. */
	bool at_use;
	enum kmemcheck_use use;
	unsigned long load_ip;
	unsigned int merged;		/* loads the value merged */
	/* For a value followed, not judged, reported at the read. */
	bool unjudged;
	enum kmemcheck_unjudged why;
	unsigned int insns;		/* instructions followed */
	unsigned long end;		/* where following ended */
	unsigned long site;		/* the caller the report is titled with */
	unsigned long addr;		/* first byte accessed (copy source) */
	unsigned long dst;		/* copy destination, for infoleaks */
	size_t size;			/* bytes accessed */
	unsigned long bad;		/* first byte not initialized */
	unsigned long suppressed;	/* repeats from this site since */
	pid_t pid;
	char comm[TASK_COMM_LEN];
	/*
	 * Slab object holding @addr, if any (else @cache_name is empty).  The
	 * name is a copy: the cache may be destroyed before the report is
	 * printed.
	 */
	char cache_name[KMEMCHECK_CACHE_NAME_LEN];
	unsigned long object;
	unsigned int object_size;
	/*
	 * The run of bytes not initialized around @bad, as offsets in the
	 * object, or in the page; @bad_state is the state of @bad.
	 */
	unsigned int run_start, run_end, extent;
	u8 bad_state;
	/*
	 * Stacks recorded when the memory was allocated and freed, and how
	 * many of their first frames are kmemcheck's own hooks.
	 */
	depot_stack_handle_t alloc_stack, free_stack;
	unsigned int alloc_skip, free_skip;
	/* Shadow of the window around @bad: 'a', 'u', 'i', 'f' or '-'. */
	unsigned long window;
	char shadow[KMEMCHECK_WINDOW];
	/* The memory of the window, if it could be read. */
	bool memory_valid;
	u8 memory[KMEMCHECK_WINDOW];
	unsigned int nr_entries;
	unsigned long entries[KMEMCHECK_STACK_DEPTH];
};

/*
 * A report seen: its repeats are counted.  Two reports differ by their
 * call site, their type, or the stack that allocated their memory: two
 * leaks through one copy helper from two allocations are two bugs.
 */
struct kmemcheck_site {
	unsigned long ip;		/* kmemcheck_record.site */
	enum kmemcheck_bug_type type;
	depot_stack_handle_t alloc_stack;
	unsigned long last;		/* jiffies of the last printed report */
	unsigned long suppressed;	/* repeats since then */
	unsigned long count;		/* bad accesses seen, printed or not */
	unsigned long seen;		/* jiffies of the last one */
	pid_t pid;			/* task of the first one */
	char comm[TASK_COMM_LEN];
};

static DEFINE_RAW_SPINLOCK(kmemcheck_report_lock);
/* Set while this CPU records a report: an NMI report then counts as lost. */
static atomic_t kmemcheck_recording = ATOMIC_INIT(0);
static struct kmemcheck_record kmemcheck_queue[KMEMCHECK_QUEUE_LEN];
static unsigned int kmemcheck_queue_head, kmemcheck_queue_len;
static struct kmemcheck_site kmemcheck_sites[KMEMCHECK_SITES];
/* The stack of the report being recorded, under kmemcheck_recording. */
static unsigned long kmemcheck_stack[KMEMCHECK_STACK_DEPTH];
static char kmemcheck_symbol[KSYM_NAME_LEN];
static unsigned long kmemcheck_lost_printed;
/*
 * The first instruction kmemcheck could not decode, until it is printed:
 * its address, published once its first bytes are copied, and those bytes.
 */
static atomic_t kmemcheck_unknown_taken = ATOMIC_INIT(0);
static unsigned long kmemcheck_unknown_ip;
static u8 kmemcheck_unknown_code[KMEMCHECK_CODE_LEN];
static unsigned int kmemcheck_unknown_len;
static bool kmemcheck_unknown_printed;

/* kmemcheck.fault=panic: panic after the first report is printed. */
static bool kmemcheck_fault_panic __read_mostly;

static int kmemcheck_fault_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "report"))
		kmemcheck_fault_panic = false;
	else if (sysfs_streq(val, "panic"))
		kmemcheck_fault_panic = true;
	else
		return -EINVAL;
	return 0;
}

static int kmemcheck_fault_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", kmemcheck_fault_panic ? "panic" : "report");
}

const struct kernel_param_ops kmemcheck_fault_ops = {
	.set = kmemcheck_fault_set,
	.get = kmemcheck_fault_get,
};

/* Set while kmemcheck's own KUnit suite, which checks reports, runs. */
static bool kmemcheck_kunit_expecting;

/*
 * kmemcheck.report_limit: new reports printed in a minute at most, 0 for
 * no limit.  Past it, reports are counted, and the count printed when
 * reports are printed again.  Serial consoles print a few reports a
 * second at best.
 */
unsigned int kmemcheck_report_limit __read_mostly = 30;

/* The period of the limit, under kmemcheck_report_lock. */
static unsigned long kmemcheck_limit_start;
static unsigned int kmemcheck_limit_used;
static unsigned long kmemcheck_limited;		/* not printed since */

static void kmemcheck_print_kick(struct irq_work *work);
static DEFINE_IRQ_WORK(kmemcheck_irq_work, kmemcheck_print_kick);
static void kmemcheck_print_work(struct work_struct *work);
static DECLARE_WORK(kmemcheck_work, kmemcheck_print_work);

/*
 * May one more new report be printed?  Not past kmemcheck.report_limit in
 * the current period, except while kmemcheck's own tests check reports.
 * Called with kmemcheck_report_lock held.
 */
static bool kmemcheck_within_limit(void)
{
	unsigned int limit = READ_ONCE(kmemcheck_report_limit);

	if (!limit || READ_ONCE(kmemcheck_kunit_expecting))
		return true;
	if (!kmemcheck_limit_used ||
	    time_after(jiffies, kmemcheck_limit_start + KMEMCHECK_LIMIT_INTERVAL)) {
		kmemcheck_limit_start = jiffies;
		kmemcheck_limit_used = 0;
	}
	if (kmemcheck_limit_used < limit) {
		kmemcheck_limit_used++;
		return true;
	}
	kmemcheck_limited++;
	kmemcheck_count(KMEMCHECK_COUNTER_LIMITED);
	return false;
}

/*
 * Should the report from @ip of memory allocated by @alloc_stack be
 * printed?  Returns false for a repeat, and counts it.  Called with
 * kmemcheck_report_lock held.
 */
static bool kmemcheck_site_first(unsigned long ip,
				 enum kmemcheck_bug_type type,
				 depot_stack_handle_t alloc_stack,
				 unsigned long *suppressed)
{
	struct kmemcheck_site *site, *free = NULL;
	unsigned int i;

	for (i = 0; i < KMEMCHECK_SITES; i++) {
		site = &kmemcheck_sites[i];
		if (!site->ip) {
			free = free ?: site;
			continue;
		}
		if (site->ip != ip || site->type != type ||
		    site->alloc_stack != alloc_stack)
			continue;
		site->count++;
		site->seen = jiffies;
		if (time_before(jiffies, site->last + KMEMCHECK_REPEAT_INTERVAL)) {
			site->suppressed++;
			kmemcheck_count(KMEMCHECK_COUNTER_SUPPRESSED);
			return false;
		}
		/* Held back by the limit: the next repeat may be printed. */
		if (!kmemcheck_within_limit())
			return false;
		*suppressed = site->suppressed;
		site->suppressed = 0;
		site->last = jiffies;
		return true;
	}
	if (!kmemcheck_within_limit())
		return false;
	/* With the table full, every new report is: the limit holds them. */
	if (free) {
		free->ip = ip;
		free->type = type;
		free->alloc_stack = alloc_stack;
		free->last = jiffies;
		free->count = 1;
		free->seen = jiffies;
		free->pid = task_pid_nr(current);
		strscpy_pad(free->comm, current->comm);
	}
	*suppressed = 0;
	return true;
}

/*
 * Does the name of the function holding @ip start with one of the @n
 * @prefixes?  Called under kmemcheck_recording.
 */
static bool kmemcheck_ip_in(unsigned long ip, const char *const *prefixes,
			    unsigned int n)
{
	unsigned int i;

	if (lookup_symbol_name(ip, kmemcheck_symbol))
		return false;
	for (i = 0; i < n; i++) {
		if (str_has_prefix(kmemcheck_symbol, prefixes[i]))
			return true;
	}
	return false;
}

/*
 * How many of the first frames of @entries, saved in kmemcheck's own hooks
 * (the copy checks, the allocator hooks that save origins), are the hooks'
 * own, which a report need not show.  Called under kmemcheck_recording.
 */
static unsigned int kmemcheck_own_frames(const unsigned long *entries,
					 unsigned int nr)
{
	unsigned int i;

	for (i = 0; i + 1 < nr; i++) {
		if (!kmemcheck_ip_in(entries[i], kmemcheck_hooks,
				     ARRAY_SIZE(kmemcheck_hooks)))
			break;
	}
	return i;
}

/* The frames of kmemcheck's own hooks at the top of a saved stack. */
static unsigned int kmemcheck_own_frames_of(depot_stack_handle_t handle)
{
	unsigned long *entries;
	unsigned int nr;

	nr = handle ? stack_depot_fetch(handle, &entries) : 0;
	return nr ? kmemcheck_own_frames(entries, nr) : 0;
}

/* The first frame of @entries outside the helpers, or else the first. */
static unsigned long kmemcheck_site_of(const unsigned long *entries,
				       unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (!kmemcheck_ip_in(entries[i], kmemcheck_helpers,
				     ARRAY_SIZE(kmemcheck_helpers)))
			return entries[i];
	}
	return nr ? entries[0] : 0;
}

static void kmemcheck_fill_object(struct kmemcheck_record *r)
{
	/* Not page_slab(virt_to_page()): the byte may be in a tail page. */
	struct slab *slab = virt_to_slab((void *)r->bad);
	struct kmem_cache *s;
	void *object;

	if (!slab)
		return;
	s = slab->slab_cache;
	object = nearest_obj(s, slab, (void *)r->bad);
	/*
	 * kmem_cache is not tracked: reading it here cannot fault.  The name
	 * may be kmalloc'ed on a hidden page: copying it may fault, which
	 * nests, as in hot.c.
	 */
	strscpy(r->cache_name, s->name);
	r->object = (unsigned long)object;
	r->object_size = s->object_size;
}

/* The state of a byte as the checks see it: slack is uninitialized. */
static u8 kmemcheck_state_at(unsigned long addr)
{
	u8 *shadow = kmemcheck_shadow_of(addr);

	return shadow ? kmemcheck_shadow_checked(addr, shadow) :
			KMEMCHECK_SHADOW_INITIALIZED;
}

/* The stacks in the origin slots of an object or page of @extent bytes. */
static void kmemcheck_origins_at(unsigned long base, unsigned int extent,
				 depot_stack_handle_t *alloc_stack,
				 depot_stack_handle_t *free_stack)
{
	enum kmemcheck_origin kind;
	depot_stack_handle_t handle;
	unsigned int slot;

	for (slot = 0; slot < KMEMCHECK_ORIGIN_SLOTS; slot++) {
		if ((slot + 1) * KMEMCHECK_ORIGIN_BYTES > extent)
			break;
		handle = kmemcheck_origin_get(base + slot *
					      KMEMCHECK_ORIGIN_BYTES, &kind);
		if (handle && kind == KMEMCHECK_ORIGIN_ALLOC)
			*alloc_stack = handle;
		else if (handle && kind == KMEMCHECK_ORIGIN_FREE)
			*free_stack = handle;
	}
}

/* The allocation stack of the object, or else page, holding @bad. */
static depot_stack_handle_t kmemcheck_alloc_stack_at(unsigned long bad)
{
	depot_stack_handle_t alloc_stack = 0, free_stack = 0;
	struct slab *slab = virt_to_slab((void *)bad);

	if (slab) {
		struct kmem_cache *s = slab->slab_cache;

		kmemcheck_origins_at((unsigned long)nearest_obj(s, slab,
								(void *)bad),
				     s->object_size, &alloc_stack, &free_stack);
	} else {
		kmemcheck_origins_at(bad & PAGE_MASK, PAGE_SIZE, &alloc_stack,
				     &free_stack);
	}
	return alloc_stack;
}

/*
 * The run of bytes not initialized that holds the first bad byte, within
 * its object, or its page outside slabs; and the stacks of the object or
 * page, from the spare bits of its first shadow bytes.
 */
static void kmemcheck_fill_origin(struct kmemcheck_record *r)
{
	unsigned long base = r->cache_name[0] ? r->object :
					       r->bad & PAGE_MASK;

	r->extent = r->cache_name[0] ? r->object_size : PAGE_SIZE;
	r->bad_state = kmemcheck_state_at(r->bad);
	r->run_start = r->bad - base;
	while (r->run_start &&
	       kmemcheck_state_at(base + r->run_start - 1) !=
	       KMEMCHECK_SHADOW_INITIALIZED)
		r->run_start--;
	r->run_end = r->bad - base;
	while (r->run_end + 1 < r->extent &&
	       kmemcheck_state_at(base + r->run_end + 1) !=
	       KMEMCHECK_SHADOW_INITIALIZED)
		r->run_end++;

	kmemcheck_origins_at(base, r->extent, &r->alloc_stack, &r->free_stack);
	r->alloc_skip = kmemcheck_own_frames_of(r->alloc_stack);
	r->free_skip = kmemcheck_own_frames_of(r->free_stack);
}

/*
 * Copy the memory of the window.  Its page is tracked, so hidden unless an
 * access to it is being stepped: show it for the copy.
 */
static void kmemcheck_fill_memory(struct kmemcheck_record *r)
{
	bool hidden = kmemcheck_arch_page_hidden(r->window);
	unsigned long flags;

	if (!hidden && !kmemcheck_arch_page_present(r->window))
		return;
	local_irq_save(flags);
	if (hidden)
		kmemcheck_arch_show_page(r->window);
	memcpy(r->memory, (void *)r->window, sizeof(r->memory));
	if (hidden)
		kmemcheck_arch_hide_page(r->window);
	local_irq_restore(flags);
	r->memory_valid = true;
}

static void kmemcheck_fill_window(struct kmemcheck_record *r)
{
	unsigned int i;

	r->window = r->bad & ~(unsigned long)(KMEMCHECK_WINDOW - 1);
	for (i = 0; i < KMEMCHECK_WINDOW; i++) {
		u8 *shadow = kmemcheck_shadow_of(r->window + i);

		r->shadow[i] = kmemcheck_shadow_letter(shadow);
	}
}

/**
 * kmemcheck_kunit_expect_reports() - stop or resume failing KUnit tests
 * @expect:	true while the running suite checks kmemcheck's reports itself
 *
 * For kmemcheck's own tests, as kasan_kunit_test_suite_start() for KASAN's.
 */
void kmemcheck_kunit_expect_reports(bool expect)
{
	WRITE_ONCE(kmemcheck_kunit_expecting, expect);
}

/* Set while a test keeps reports queued, to check what they hold. */
static bool kmemcheck_kunit_holding;

/**
 * kmemcheck_kunit_hold_reports() - keep reports queued, or release them
 * @hold:	true to keep reports in the queue unprinted, false to release them
 *
 * For kmemcheck's own tests: a report must print what was true at the bad
 * access, whatever happened before it is printed (a cache destroyed, say).
 */
void kmemcheck_kunit_hold_reports(bool hold)
{
	WRITE_ONCE(kmemcheck_kunit_holding, hold);
}

/*
 * A bad access made by a task running a KUnit test fails that test, as
 * KASAN's reports do, unless the suite expects reports.  The access of an
 * interrupt that arrived during the test is not the test's doing.  Only
 * marks the test: safe in any context.
 */
static void kmemcheck_fail_kunit_test(void)
{
	struct kunit *test = kunit_get_current_test();

	if (test && in_task() && !READ_ONCE(kmemcheck_kunit_expecting))
		kunit_set_failure(test);
}

/* For a report of a followed value: what became of it. */
struct kmemcheck_followed {
	const struct kmemcheck_load *load;
	enum kmemcheck_use use;		/* reported at its use, */
	bool unjudged;			/* or at the load, with: */
	enum kmemcheck_unjudged why;
	unsigned int insns;
	unsigned long end;
};

/*
 * Record a report of the access whose stack is in kmemcheck_stack.  Called
 * with kmemcheck_recording set, so the stack and symbol buffers are ours.
 */
static void kmemcheck_record(unsigned int nr_entries, unsigned long ip,
			     enum kmemcheck_bug_type type, unsigned long addr,
			     size_t size, unsigned long bad, unsigned long dst,
			     enum kmemcheck_sink sink,
			     const struct kmemcheck_followed *fw)
{
	unsigned long site = kmemcheck_site_of(kmemcheck_stack, nr_entries);
	depot_stack_handle_t alloc_stack = kmemcheck_alloc_stack_at(bad);
	struct kmemcheck_record *r;
	unsigned long flags, suppressed;

	/* Before deduplication: every bad access of a test fails it. */
	kmemcheck_fail_kunit_test();
	if (!raw_spin_trylock_irqsave(&kmemcheck_report_lock, flags)) {
		kmemcheck_count(KMEMCHECK_COUNTER_LOST);
		return;
	}
	if (!kmemcheck_site_first(site, type, alloc_stack, &suppressed))
		goto unlock;
	if (kmemcheck_queue_len == KMEMCHECK_QUEUE_LEN) {
		kmemcheck_count(KMEMCHECK_COUNTER_LOST);
		goto unlock;
	}
	r = &kmemcheck_queue[(kmemcheck_queue_head + kmemcheck_queue_len) %
			     KMEMCHECK_QUEUE_LEN];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->sink = sink;
	r->ip = ip;
	r->site = site;
	r->addr = addr;
	r->dst = dst;
	r->size = size;
	r->bad = bad;
	r->suppressed = suppressed;
	r->pid = task_pid_nr(current);
	/* Not get_task_comm(): task_lock() may be held by this very CPU. */
	strscpy_pad(r->comm, current->comm);
	kmemcheck_fill_object(r);
	kmemcheck_fill_origin(r);
	if (fw) {
		r->at_use = !fw->unjudged;
		r->use = fw->use;
		r->load_ip = fw->load->ip;
		r->merged = fw->load->merged;
		r->unjudged = fw->unjudged;
		r->why = fw->why;
		r->insns = fw->insns;
		r->end = fw->end;
		/* Written since the read, maybe: the read was of uninit. */
		r->bad_state = KMEMCHECK_SHADOW_UNINITIALIZED;
	}
	kmemcheck_fill_window(r);
	kmemcheck_fill_memory(r);
	r->nr_entries = nr_entries;
	memcpy(r->entries, kmemcheck_stack, nr_entries * sizeof(r->entries[0]));
	kmemcheck_queue_len++;
	if (READ_ONCE(kmemcheck_mode) == KMEMCHECK_MODE_ONESHOT)
		WRITE_ONCE(kmemcheck_mode, KMEMCHECK_MODE_OFF);
unlock:
	raw_spin_unlock_irqrestore(&kmemcheck_report_lock, flags);
}

/*
 * Take kmemcheck_stack and kmemcheck_symbol for one report.  An NMI hitting
 * a report in progress must not deadlock, nor corrupt the queue where a
 * uniprocessor trylock always succeeds: its report is counted as lost.
 */
static bool kmemcheck_start_recording(void)
{
	if (!atomic_xchg(&kmemcheck_recording, 1))
		return true;
	kmemcheck_count(KMEMCHECK_COUNTER_LOST);
	irq_work_queue(&kmemcheck_irq_work);
	return false;
}

/* Release them, and have the queue printed soon. */
static void kmemcheck_stop_recording(void)
{
	atomic_set(&kmemcheck_recording, 0);
	irq_work_queue(&kmemcheck_irq_work);
}

/**
 * kmemcheck_report() - record a bad access, to be printed soon
 * @regs:	registers of the faulting instruction
 * @type:	what is wrong
 * @addr:	first byte accessed; for a copy, the first byte copied
 * @size:	number of bytes accessed
 * @bad:	first byte that is not initialized
 * @dst:	for a copy, its destination; otherwise 0
 *
 * Safe in any context, NMI included.
 */
void kmemcheck_report(struct pt_regs *regs, enum kmemcheck_bug_type type,
		      unsigned long addr, size_t size, unsigned long bad,
		      unsigned long dst)
{
	unsigned int nr;

	if (!kmemcheck_start_recording())
		return;
	nr = stack_trace_save_regs(regs, kmemcheck_stack,
				   KMEMCHECK_STACK_DEPTH, 0);
	kmemcheck_record(nr, instruction_pointer(regs), type, addr, size,
			 bad, dst,
			 dst ? KMEMCHECK_SINK_MEMORY : KMEMCHECK_SINK_NONE,
			 NULL);
	kmemcheck_stop_recording();
}

/**
 * kmemcheck_report_use() - record the use of a value read from uninit memory
 * @regs:	registers of the instruction that uses it
 * @use:	what the instruction does with it
 * @load:	where the value was read
 * @dst:	for a store, where it goes; otherwise 0
 *
 * The report is titled with the function of the use, and tells the read
 * and the allocation.  A store to user space is a kernel-infoleak.  Safe
 * in any context, NMI included.
 */
void kmemcheck_report_use(struct pt_regs *regs, enum kmemcheck_use use,
			  const struct kmemcheck_load *load, unsigned long dst)
{
	struct kmemcheck_followed fw = { .load = load, .use = use };
	unsigned int nr;

	if (!kmemcheck_start_recording())
		return;
	nr = stack_trace_save_regs(regs, kmemcheck_stack,
				   KMEMCHECK_STACK_DEPTH, 0);
	kmemcheck_record(nr, instruction_pointer(regs),
			 use == KMEMCHECK_USE_USER ?
			 KMEMCHECK_BUG_INFOLEAK : KMEMCHECK_BUG_UNINIT,
			 load->addr, load->size, load->bad, dst,
			 KMEMCHECK_SINK_NONE, &fw);
	kmemcheck_stop_recording();
}

/**
 * kmemcheck_report_unjudged() - report a followed value at its load
 * @load:	the first load of what was left undefined
 * @insns:	instructions it was followed
 * @end:	address of the instruction where following ended
 * @why:	why it ended there
 *
 * Following ended before the value was used or dropped: the read is
 * reported, titled and with the stack of the load, as with
 * kmemcheck.follow=0, and the report says how far the value went.
 *
 * Context: any context, NMI included.
 */
void kmemcheck_report_unjudged(const struct kmemcheck_load *load,
			       unsigned int insns, unsigned long end,
			       enum kmemcheck_unjudged why)
{
	struct kmemcheck_followed fw = {
		.load = load, .unjudged = true, .why = why,
		.insns = insns, .end = end,
	};
	unsigned long *entries;
	unsigned int nr = 0;

	if (!kmemcheck_start_recording())
		return;
	if (load->stack)
		nr = stack_depot_fetch(load->stack, &entries);
	nr = min(nr, KMEMCHECK_STACK_DEPTH);
	if (nr)
		memcpy(kmemcheck_stack, entries, nr * sizeof(*entries));
	else
		kmemcheck_stack[nr++] = load->ip;
	kmemcheck_record(nr, load->ip, KMEMCHECK_BUG_UNINIT, load->addr,
			 load->size, load->bad, 0, KMEMCHECK_SINK_NONE, &fw);
	kmemcheck_stop_recording();
}

/**
 * kmemcheck_report_copy() - record bad bytes leaving the kernel
 * @type:	what is wrong
 * @addr:	first byte copied
 * @size:	number of bytes copied
 * @bad:	first byte that is not initialized
 * @dst:	user address of the copy; 0 for a device
 * @sink:	where the bytes go
 *
 * For the hooks of copies to user space and of DMA mappings, which see
 * the bytes before they go: the report is made at the copy, with the
 * stack of its caller.  Safe in any context but NMI.
 */
noinline void kmemcheck_report_copy(enum kmemcheck_bug_type type,
				    unsigned long addr, size_t size,
				    unsigned long bad, unsigned long dst,
				    enum kmemcheck_sink sink)
{
	unsigned int nr, skip;

	if (!kmemcheck_start_recording())
		return;
	nr = stack_trace_save(kmemcheck_stack, KMEMCHECK_STACK_DEPTH, 1);
	/* The stack starts at the copy, not in the hooks that check it. */
	skip = kmemcheck_own_frames(kmemcheck_stack, nr);
	nr -= skip;
	memmove(kmemcheck_stack, kmemcheck_stack + skip,
		nr * sizeof(kmemcheck_stack[0]));
	kmemcheck_record(nr, nr ? kmemcheck_stack[0] : _RET_IP_, type, addr,
			 size, bad, dst, sink, NULL);
	kmemcheck_stop_recording();
}

static void kmemcheck_print_shadow(const struct kmemcheck_record *r)
{
	unsigned int caret = r->bad - r->window;

	pr_err("Shadow of the memory around the first bad byte (a: unallocated, u: uninitialized, i: initialized, f: freed):\n");
	pr_err(" %p: %.*s\n", (void *)r->window, KMEMCHECK_WINDOW, r->shadow);
	pr_err(" %*s^\n", (int)(2 * sizeof(void *) + 2 + caret), "");
}

/*
 * The bytes of the window, only if booted with no_hash_pointers, as KFENCE
 * prints the bytes of a canary: a log is not to leak kernel memory by
 * default.  The caret points at the first bad byte.
 */
static void kmemcheck_print_memory(const struct kmemcheck_record *r)
{
	unsigned int caret = r->bad - r->window;

	if (!r->memory_valid)
		return;
	if (!no_hash_pointers) {
		pr_err("Memory around it: shown with no_hash_pointers\n");
		return;
	}
	pr_err("Memory around it:\n");
	pr_err(" %p: %*ph\n", (void *)r->window, KMEMCHECK_WINDOW, r->memory);
	pr_err(" %*s^^\n", (int)(2 * sizeof(void *) + 2 + caret * 3), "");
}

static void kmemcheck_print_stack(const char *title,
				  depot_stack_handle_t handle,
				  unsigned int skip)
{
	unsigned long *entries;
	unsigned int nr;

	nr = stack_depot_fetch(handle, &entries);
	if (nr <= skip)
		return;
	pr_err("%s\n", title);
	stack_trace_print(entries + skip, nr - skip, 1);
	pr_err("\n");
}

/*
 * The stacks that say where the memory came from: for uninitialized bytes
 * its allocation, for freed ones its allocation and its free.
 */
static void kmemcheck_print_origins(const struct kmemcheck_record *r)
{
	if (r->bad_state == KMEMCHECK_SHADOW_FREED) {
		if (r->alloc_stack)
			kmemcheck_print_stack("Allocated at:", r->alloc_stack,
					      r->alloc_skip);
		if (r->free_stack)
			kmemcheck_print_stack("Freed at:", r->free_stack,
					      r->free_skip);
	} else if (r->bad_state == KMEMCHECK_SHADOW_UNINITIALIZED &&
		   r->alloc_stack) {
		kmemcheck_print_stack("Uninit was created at:",
				      r->alloc_stack, r->alloc_skip);
	}
}

static void kmemcheck_print_record(const struct kmemcheck_record *r)
{
	const char *bug = kmemcheck_bug_names[r->type];

	/* Do not allow lockdep to mangle the report. */
	lockdep_off();
	pr_err("==================================================================\n");
	pr_err("BUG: KMEMCHECK: %s in %pS\n", bug, (void *)r->site);
	pr_err("\n");
	if (r->sink == KMEMCHECK_SINK_DEVICE)
		pr_err("DMA to a device of size %zu from addr %p by task %s/%d\n",
		       r->size, (void *)r->addr, r->comm, r->pid);
	else if (r->sink != KMEMCHECK_SINK_NONE)
		pr_err("Copy of size %zu from addr %p to addr %p by task %s/%d\n",
		       r->size, (void *)r->addr, (void *)r->dst, r->comm,
		       r->pid);
	else if (r->at_use && r->use == KMEMCHECK_USE_USER)
		pr_err("Use of uninit value in %s at user address 0x%08lx by task %s/%d\n",
		       kmemcheck_use_names[r->use], r->dst, r->comm, r->pid);
	else if (r->at_use && r->dst)
		pr_err("Use of uninit value in %s at addr %p by task %s/%d\n",
		       kmemcheck_use_names[r->use], (void *)r->dst, r->comm,
		       r->pid);
	else if (r->at_use)
		pr_err("Use of uninit value in %s by task %s/%d\n",
		       kmemcheck_use_names[r->use], r->comm, r->pid);
	if (r->at_use)
		pr_err("Read of size %zu at addr %p by %pS\n", r->size,
		       (void *)r->addr, (void *)r->load_ip);
	else if (r->sink == KMEMCHECK_SINK_NONE)
		pr_err("Read of size %zu at addr %p by task %s/%d\n", r->size,
		       (void *)r->addr, r->comm, r->pid);
	if (r->unjudged)
		pr_err("Followed for %u instruction%s, to %pS, not judged: %s\n",
		       r->insns, r->insns == 1 ? "" : "s", (void *)r->end,
		       kmemcheck_unjudged_names[r->why]);
	if (r->unjudged && r->merged > 1)
		pr_err("The value merged %u loads of uninit memory: this is the first\n",
		       r->merged);
	pr_err("First bad byte at addr %p\n", (void *)r->bad);
	/* A user address is no secret of the kernel: print it as it is. */
	if (r->sink == KMEMCHECK_SINK_USER)
		pr_err("Data copied to user address 0x%08lx\n", r->dst);
	if (r->suppressed)
		pr_err("(%lu reports from this site suppressed since the previous one)\n",
		       r->suppressed);
	pr_err("\n");
	if (r->cache_name[0])
		pr_err("The first bad byte is at offset %lu of the object at %p of cache %s, size %u\n",
		       r->bad - r->object, (void *)r->object, r->cache_name,
		       r->object_size);
	else
		pr_err("The first bad byte is at offset %lu of the page at %p\n",
		       offset_in_page(r->bad), (void *)(r->bad & PAGE_MASK));
	pr_err("Bytes %u-%u of %u are %s\n", r->run_start, r->run_end,
	       r->extent, kmemcheck_state_names[r->bad_state]);
	pr_err("\n");
	kmemcheck_print_shadow(r);
	kmemcheck_print_memory(r);
	pr_err("\n");
	pr_err("Call Trace:\n");
	stack_trace_print(r->entries, r->nr_entries, 1);
	pr_err("\n");
	if (r->at_use && r->merged > 1)
		pr_err("Uninit was loaded at (the first of %u loads merged):\n",
		       r->merged);
	else if (r->at_use)
		pr_err("Uninit was loaded at:\n");
	if (r->at_use) {
		pr_err(" %pS\n", (void *)r->load_ip);
		pr_err("\n");
	}
	kmemcheck_print_origins(r);
	dump_stack_print_info(KERN_ERR);
	trace_error_report_end(ERROR_DETECTOR_KMEMCHECK, r->bad);
	pr_err("==================================================================\n");
	add_taint(TAINT_BAD_PAGE, LOCKDEP_STILL_OK);
	lockdep_on();
	kmemcheck_count(KMEMCHECK_COUNTER_REPORTS);
	atomic_long_inc(&kmemcheck_reports_by_type[r->type]);
	check_panic_on_warn("KMEMCHECK");
	if (READ_ONCE(kmemcheck_fault_panic))
		panic("kmemcheck.fault=panic set ...\n");
}

/*
 * Take one record off the queue, and the count of reports the limit held
 * back before it.  The copy is printed unlocked, so that a fault while
 * printing can queue a report of its own.
 */
static bool kmemcheck_dequeue(struct kmemcheck_record *r,
			      unsigned long *limited)
{
	unsigned long flags;
	bool found = false;

	raw_spin_lock_irqsave(&kmemcheck_report_lock, flags);
	*limited = kmemcheck_limited;
	kmemcheck_limited = 0;
	if (kmemcheck_queue_len) {
		*r = kmemcheck_queue[kmemcheck_queue_head];
		kmemcheck_queue_head = (kmemcheck_queue_head + 1) %
				       KMEMCHECK_QUEUE_LEN;
		kmemcheck_queue_len--;
		found = true;
	}
	raw_spin_unlock_irqrestore(&kmemcheck_report_lock, flags);
	return found;
}

static DEFINE_MUTEX(kmemcheck_print_mutex);

/* Print the queue; the caller holds kmemcheck_print_mutex, or panics. */
static void kmemcheck_print_queue(void)
{
	static struct kmemcheck_record r;
	unsigned long lost, ip, limited;
	bool found;

	for (;;) {
		found = kmemcheck_dequeue(&r, &limited);
		if (limited)
			pr_err("kmemcheck: %lu reports suppressed by the rate limit (kmemcheck.report_limit=%u a minute)\n",
			       limited, READ_ONCE(kmemcheck_report_limit));
		if (!found)
			break;
		kmemcheck_print_record(&r);
		if (!oops_in_progress)
			cond_resched();
	}
	/* Pairs with kmemcheck_unknown_insn(): the bytes are copied first. */
	ip = smp_load_acquire(&kmemcheck_unknown_ip);
	if (ip && !kmemcheck_unknown_printed) {
		pr_warn("kmemcheck: cannot decode the instruction at %pS (%*ph); its accesses are not checked\n",
			(void *)ip, kmemcheck_unknown_len,
			kmemcheck_unknown_code);
		kmemcheck_unknown_printed = true;
	}
	lost = atomic_long_read(&kmemcheck_counters[KMEMCHECK_COUNTER_LOST]);
	if (lost != kmemcheck_lost_printed) {
		pr_err("kmemcheck: %lu reports lost so far (queue full or nested)\n",
		       lost);
		kmemcheck_lost_printed = lost;
	}
}

/**
 * kmemcheck_report_flush() - print every queued report now
 *
 * Called by the worker, and by the tests to see their reports at once.
 * Must be called in a context that may sleep.
 */
void kmemcheck_report_flush(void)
{
	if (READ_ONCE(kmemcheck_kunit_holding))
		return;
	/* One printer at a time; the record is too large for the stack. */
	mutex_lock(&kmemcheck_print_mutex);
	kmemcheck_print_queue();
	mutex_unlock(&kmemcheck_print_mutex);
}

static void kmemcheck_print_work(struct work_struct *work)
{
	kmemcheck_report_flush();
}

/*
 * From the fault handler's irq_work to the worker: the workqueues exist
 * from early in start_kernel(), and reports queued before are printed by
 * kmemcheck_report_init().
 */
static void kmemcheck_print_kick(struct irq_work *work)
{
	if (system_wq)
		queue_work(system_wq, &kmemcheck_work);
}

/* What is queued is printed, if it can be, before a panic stops all. */
static int kmemcheck_report_panic(struct notifier_block *nb,
				  unsigned long action, void *data)
{
	/* Not if the panic comes from printing: the other CPUs are stopped. */
	if (!mutex_is_locked(&kmemcheck_print_mutex))
		kmemcheck_print_queue();
	return NOTIFY_DONE;
}

static struct notifier_block kmemcheck_panic_nb = {
	.notifier_call = kmemcheck_report_panic,
};

static int __init kmemcheck_report_init(void)
{
	atomic_notifier_chain_register(&panic_notifier_list,
				       &kmemcheck_panic_nb);
	queue_work(system_wq, &kmemcheck_work);
	return 0;
}
early_initcall(kmemcheck_report_init);

/**
 * kmemcheck_unknown_insn() - note a fault on an instruction not decoded
 * @regs:	registers at the fault
 *
 * The page is shown and the instruction stepped all the same; only its
 * accesses go unchecked.  The first such instruction is named in a warning
 * printed later, like reports; all are counted.  Its bytes are copied now,
 * one at a time and without faulting: the text may end within the
 * instruction's longest length (the end of a module's text), and a module
 * may be gone by the time the warning is printed.
 */
void kmemcheck_unknown_insn(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs);
	unsigned int n;

	kmemcheck_count(KMEMCHECK_COUNTER_UNKNOWN_INSN);
	if (atomic_xchg(&kmemcheck_unknown_taken, 1))
		return;
	for (n = 0; n < KMEMCHECK_CODE_LEN; n++) {
		if (copy_from_kernel_nofault(&kmemcheck_unknown_code[n],
					     (void *)(ip + n), 1))
			break;
	}
	kmemcheck_unknown_len = n;
	/* Publish the bytes with the address: kmemcheck_report_flush(). */
	smp_store_release(&kmemcheck_unknown_ip, ip);
	irq_work_queue(&kmemcheck_irq_work);
}

/**
 * kmemcheck_report_counts_show() - print the number of reports by type
 * @seq:	where to print
 */
void kmemcheck_report_counts_show(struct seq_file *seq)
{
	unsigned int i;

	for (i = 0; i < KMEMCHECK_BUG_TYPES; i++)
		seq_printf(seq, "reports %s: %ld\n", kmemcheck_bug_names[i],
			   atomic_long_read(&kmemcheck_reports_by_type[i]));
}

/**
 * kmemcheck_sites_show() - print the call sites that made bad accesses
 * @seq:	where to print
 *
 * One line per site: bad accesses seen, type, function, first task, and
 * seconds since the last one.
 */
void kmemcheck_sites_show(struct seq_file *seq)
{
	struct kmemcheck_site *sites;
	unsigned long flags;
	unsigned int i;

	sites = kmalloc_array(KMEMCHECK_SITES, sizeof(*sites), GFP_KERNEL);
	if (!sites)
		return;
	raw_spin_lock_irqsave(&kmemcheck_report_lock, flags);
	memcpy(sites, kmemcheck_sites, sizeof(kmemcheck_sites));
	raw_spin_unlock_irqrestore(&kmemcheck_report_lock, flags);

	seq_puts(seq, "# count type function first-task seconds-since-last\n");
	for (i = 0; i < KMEMCHECK_SITES && sites[i].ip; i++)
		seq_printf(seq, "%lu %s %pS %s/%d %lu\n", sites[i].count,
			   kmemcheck_bug_names[sites[i].type],
			   (void *)sites[i].ip, sites[i].comm, sites[i].pid,
			   (jiffies - sites[i].seen) / HZ);
	kfree(sites);
}
