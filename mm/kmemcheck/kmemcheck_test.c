// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmemcheck: suite kmemcheck, and what it shares with
 * suite kmemcheck_x86 (arch/x86/mm/kmemcheck/kmemcheck_x86_test.c), the
 * cases written in x86 instructions (kmemcheck_test.h).
 *
 * Every case makes accesses to tracked memory and checks the reports that
 * kmemcheck prints for them, or that it prints none.  Reports are caught as
 * they reach the console, through the 'console' tracepoint, as in the KFENCE
 * and KMSAN tests.  A case that must report names the type, the function
 * holding the faulting instruction, the size and the address of the access
 * and its first bad byte; each has a twin that must not report.
 *
 * Addresses are compared as %p prints them: boot with no_hash_pointers for
 * the comparison to mean something, as until the pointer hash key is ready
 * every %p prints "(ptrval)".
 *
 * kmemcheck prints one report per call site and bug type in a minute (the
 * site is the instruction, or for the string and copy helpers the call of
 * the helper), so every case that expects a report makes its bad access
 * from a site of its own, in the test function itself.  The accesses here
 * use READ_ONCE() and WRITE_ONCE(), so that the compiler keeps them as they
 * are written; the cases that need given instructions are kmemcheck_x86's.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kmemcheck.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/seq_file.h>
#include <linux/set_memory.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sprintf.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <trace/events/printk.h>

#include <asm/kmemcheck.h>

#include "../slab.h"
#include "kmemcheck.h"
#include "kmemcheck_test.h"

/* Reports remembered per case. */
#define NR_REPORTS	4
#define LINE_LEN	160
/* Function names of an origin stack kept per report. */
#define STACK_LEN	512

/* Reports as observed on the console. */
static struct {
	spinlock_t lock;	/* the probe may run in any context */
	int nr;			/* reports seen, even beyond NR_REPORTS */
	bool in_report;		/* the lines that follow belong to the last */
	char title[NR_REPORTS][LINE_LEN];
	char access[NR_REPORTS][LINE_LEN];
	char bad[NR_REPORTS][LINE_LEN];
	char bytes[NR_REPORTS][LINE_LEN];	/* "Bytes a-b of n are ..." */
	char user[NR_REPORTS][LINE_LEN];	/* "Data copied to user ..." */
	char use[NR_REPORTS][LINE_LEN];		/* "Use of uninit value in ..." */
	char loaded[NR_REPORTS][STACK_LEN];	/* "Uninit was loaded at:" */
	int merged[NR_REPORTS];			/* "(the first of N loads merged)" */
	char followed[NR_REPORTS][LINE_LEN];	/* "Followed for N ..., not judged" */
	char object[NR_REPORTS][LINE_LEN];	/* "The first bad byte is ..." */
	/* Frames under "Uninit was created at:" or "Allocated at:". */
	char alloc[NR_REPORTS][STACK_LEN];
	char freed[NR_REPORTS][STACK_LEN];	/* under "Freed at:" */
	char trace[NR_REPORTS][STACK_LEN];	/* under "Call Trace:" */
	/* The bytes under "Memory around it:", and the carets under them. */
	char memory[NR_REPORTS][LINE_LEN];
	char caret[NR_REPORTS][LINE_LEN];
	char *stack;		/* where the frames that follow go */
	char *next;		/* where the next line goes, whatever it is */
} observed = {
	.lock = __SPIN_LOCK_UNLOCKED(observed.lock),
};

/* Keep @len bytes of @buf, without the trailing newline. */
static void save_line(char *to, const char *buf, size_t len)
{
	char *nl;

	/* @buf is not NUL-terminated: strscpy() adds the terminator. */
	strscpy(to, buf, min(len + 1, (size_t)LINE_LEN));
	nl = strchr(to, '\n');
	if (nl)
		*nl = '\0';
}

/* Does the console line @buf of @len bytes start with @prefix? */
static bool line_starts(const char *buf, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !strncmp(buf, prefix, n);
}

/* Is the console line @buf of @len bytes @text, but for its newline? */
static bool line_is(const char *buf, size_t len, const char *text)
{
	if (len && buf[len - 1] == '\n')
		len--;
	return len == strlen(text) && !strncmp(buf, text, len);
}

/* Append the function name of the frame line @buf to @stack. */
static void save_frame(char *stack, const char *buf, size_t len)
{
	size_t used = strlen(stack), n = 0;

	while (len && *buf == ' ') {
		buf++;
		len--;
	}
	while (n < len && buf[n] != '+' && buf[n] != '\n' && buf[n] != ' ')
		n++;
	if (n && used + n + 2 < STACK_LEN) {
		memcpy(stack + used, buf, n);
		stack[used + n] = ' ';
		stack[used + n + 1] = '\0';
	}
}

/* Start report @i: forget what an earlier one left in its slot. */
static void report_start(int i, const char *buf, size_t len)
{
	save_line(observed.title[i], buf, len);
	observed.access[i][0] = '\0';
	observed.bad[i][0] = '\0';
	observed.bytes[i][0] = '\0';
	observed.user[i][0] = '\0';
	observed.use[i][0] = '\0';
	observed.loaded[i][0] = '\0';
	observed.merged[i] = 0;
	observed.followed[i][0] = '\0';
	observed.object[i][0] = '\0';
	observed.alloc[i][0] = '\0';
	observed.freed[i][0] = '\0';
	observed.trace[i][0] = '\0';
	observed.memory[i][0] = '\0';
	observed.caret[i][0] = '\0';
	observed.stack = NULL;
	observed.next = NULL;
}

/* "Uninit was loaded at:", or "... at (the first of N loads merged):". */
static void report_loaded(int i, const char *buf, size_t len)
{
	char line[LINE_LEN];
	unsigned int n;

	save_line(line, buf, len);
	if (sscanf(line, "Uninit was loaded at (the first of %u loads merged):",
		   &n) == 1)
		observed.merged[i] = n;
	else
		observed.merged[i] = 1;
	observed.stack = observed.loaded[i];
}

/* A line of the report being printed, the last one seen. */
static void report_line(const char *buf, size_t len)
{
	int i = observed.nr - 1;

	if (observed.next) {
		save_line(observed.next, buf, len);
		observed.next = observed.next == observed.memory[i] ?
				observed.caret[i] : NULL;
		return;
	}
	if (line_is(buf, len, "Memory around it:")) {
		observed.next = observed.memory[i];
		return;
	}
	if (line_starts(buf, len, "Read of size ") ||
	    line_starts(buf, len, "Copy of size ") ||
	    line_starts(buf, len, "DMA to a device of size "))
		save_line(observed.access[i], buf, len);
	else if (line_starts(buf, len, "First bad byte at addr "))
		save_line(observed.bad[i], buf, len);
	else if (line_starts(buf, len, "Bytes "))
		save_line(observed.bytes[i], buf, len);
	else if (line_starts(buf, len, "Data copied to user address "))
		save_line(observed.user[i], buf, len);
	else if (line_starts(buf, len, "Use of uninit value in "))
		save_line(observed.use[i], buf, len);
	else if (line_starts(buf, len, "Uninit was loaded at"))
		report_loaded(i, buf, len);
	else if (line_starts(buf, len, "Followed for "))
		save_line(observed.followed[i], buf, len);
	else if (line_starts(buf, len, "The first bad byte is at offset "))
		save_line(observed.object[i], buf, len);
	else if (line_starts(buf, len, "Uninit was created at:") ||
		 line_starts(buf, len, "Allocated at:"))
		observed.stack = observed.alloc[i];
	else if (line_starts(buf, len, "Freed at:"))
		observed.stack = observed.freed[i];
	else if (line_starts(buf, len, "Call Trace:"))
		observed.stack = observed.trace[i];
	else if (observed.stack && line_starts(buf, len, " "))
		save_frame(observed.stack, buf, len);
	else
		observed.stack = NULL;
	/* The closing line: what follows is not this report's. */
	if (line_starts(buf, len, "====="))
		observed.in_report = false;
}

/*
 * Probe for console output.  trace_console fires once per printk() call,
 * and kmemcheck prints each line of a report with a call of its own.
 */
static void probe_console(void *ignore, const char *buf, size_t len)
{
	unsigned long flags;

	spin_lock_irqsave(&observed.lock, flags);
	if (line_starts(buf, len, "BUG: KMEMCHECK: ")) {
		if (observed.nr < NR_REPORTS)
			report_start(observed.nr, buf, len);
		observed.nr++;
		observed.in_report = observed.nr <= NR_REPORTS;
	} else if (observed.in_report) {
		report_line(buf, len);
	}
	spin_unlock_irqrestore(&observed.lock, flags);
}

static void report_reset(void)
{
	unsigned long flags;

	spin_lock_irqsave(&observed.lock, flags);
	observed.nr = 0;
	observed.in_report = false;
	spin_unlock_irqrestore(&observed.lock, flags);
}

/* A report a case expects. */
/*
 * Print the reports seen, to explain a failed expectation.  Printing calls
 * the probe: print a copy, without the lock.
 */
static void report_dump(struct kunit *test)
{
	static typeof(observed) seen;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&observed.lock, flags);
	memcpy(&seen, &observed, sizeof(seen));
	spin_unlock_irqrestore(&observed.lock, flags);

	kunit_info(test, "%d report(s) seen\n", seen.nr);
	for (i = 0; i < min(seen.nr, NR_REPORTS); i++) {
		kunit_info(test, "seen: \"%s\" / \"%s\" / \"%s\"\n",
			   seen.title[i], seen.access[i], seen.bad[i]);
		kunit_info(test, "seen: \"%s\" / \"%s\" / allocated at: %s / freed at: %s\n",
			   seen.bytes[i], seen.user[i], seen.alloc[i],
			   seen.freed[i]);
		kunit_info(test, "seen: \"%s\"\n", seen.object[i]);
		kunit_info(test, "seen: loads merged %d, \"%s\"\n",
			   seen.merged[i], seen.followed[i]);
		kunit_info(test, "seen: call trace: %s\n", seen.trace[i]);
	}
}

/* Does the stack @frames, names separated by spaces, name @fn? */
static bool stack_has(const char *frames, const void *fn)
{
	char name[LINE_LEN];
	const char *p;
	size_t n;

	scnprintf(name, sizeof(name), "%ps", fn);
	n = strlen(name);
	for (p = strstr(frames, name); p; p = strstr(p + 1, name)) {
		/* A whole name, or the name with a suffix such as .isra.0. */
		if ((p == frames || p[-1] == ' ') &&
		    (p[n] == ' ' || p[n] == '.'))
			return true;
	}
	return false;
}

/* Does the stack @frames start in kmemcheck, which reports leave out? */
static bool stack_starts_in_kmemcheck(const char *frames)
{
	return str_has_prefix(frames, "kmemcheck_") ||
	       str_has_prefix(frames, "__kmemcheck_");
}

/* Does report @i match the optional parts of @r? */
/*
 * Does the memory dump of report @i show @bytes ("de ad be ef") right
 * before the first bad byte, with the carets under that byte?
 */
static bool memory_dump_matches(const char *bytes, int i)
{
	const char *at = strstr(observed.memory[i], bytes);
	size_t col;

	if (!at)
		return false;
	col = at - observed.memory[i] + strlen(bytes) + 1;
	return strlen(observed.caret[i]) == col + 2 &&
	       !strcmp(observed.caret[i] + col, "^^");
}

/* Did report @i say it followed its value for @min to @max instructions? */
static bool followed_within(int i, unsigned int min, unsigned int max)
{
	unsigned int n;

	return sscanf(observed.followed[i], "Followed for %u instruction",
		      &n) == 1 && n >= min && n <= max;
}

static bool report_details(const struct kmemcheck_test_report *r, int i)
{
	char user[LINE_LEN];

	if (stack_starts_in_kmemcheck(observed.trace[i]) ||
	    stack_starts_in_kmemcheck(observed.alloc[i]) ||
	    stack_starts_in_kmemcheck(observed.freed[i]))
		return false;
	if (r->bytes && strcmp(observed.bytes[i], r->bytes))
		return false;
	if (r->origin && !stack_has(observed.alloc[i], r->origin))
		return false;
	if (r->freed && !stack_has(observed.freed[i], r->freed))
		return false;
	if (r->use && (!str_has_prefix(observed.use[i], "Use of uninit value in ") ||
		       !str_has_prefix(observed.use[i] +
				       strlen("Use of uninit value in "), r->use)))
		return false;
	if (r->loaded && !stack_has(observed.loaded[i], r->loaded))
		return false;
	if (r->loaded && observed.merged[i] != (r->merged ?: 1))
		return false;
	if (!r->unjudged != !observed.followed[i][0])
		return false;
	if (r->unjudged && !strstr(observed.followed[i], r->unjudged))
		return false;
	if (r->insns_max && !followed_within(i, r->insns_min, r->insns_max))
		return false;
	if (r->memory && !memory_dump_matches(r->memory, i))
		return false;
	if (r->cache) {
		scnprintf(user, sizeof(user), " of cache %s, ", r->cache);
		if (!strstr(observed.object[i], user))
			return false;
	}
	if (r->user) {
		scnprintf(user, sizeof(user),
			  "Data copied to user address 0x%08lx", r->user);
		if (strcmp(observed.user[i], user))
			return false;
	}
	return true;
}

/* Was a report matching @r printed? */
static bool report_seen(struct kunit *test,
			const struct kmemcheck_test_report *r)
{
	char title[LINE_LEN], access[LINE_LEN], bad[LINE_LEN];
	unsigned long flags;
	bool ret = false;
	char *plus;
	int i;

	/* The offset will not match: keep the name and the '+' after it. */
	scnprintf(title, sizeof(title), "BUG: KMEMCHECK: %s in %pS", r->type,
		  r->fn);
	plus = strchr(title, '+');
	if (plus)
		plus[1] = '\0';
	if (r->dma)
		scnprintf(access, sizeof(access),
			  "DMA to a device of size %zu from addr %p by task ",
			  r->size, r->addr);
	else if (r->dst)
		scnprintf(access, sizeof(access),
			  "Copy of size %zu from addr %p to addr %p by task ",
			  r->size, r->addr, r->dst);
	else
		scnprintf(access, sizeof(access),
			  r->use ? "Read of size %zu at addr %p by " :
				   "Read of size %zu at addr %p by task ",
			  r->size, r->addr);
	scnprintf(bad, sizeof(bad), "First bad byte at addr %p",
		  r->bad ?: r->addr);

	spin_lock_irqsave(&observed.lock, flags);
	for (i = 0; i < min(observed.nr, NR_REPORTS) && !ret; i++)
		ret = strstr(observed.title[i], title) &&
		      (r->any_access || (strstr(observed.access[i], access) &&
					 strstr(observed.bad[i], bad))) &&
		      report_details(r, i);
	spin_unlock_irqrestore(&observed.lock, flags);

	if (!ret) {
		kunit_info(test, "expected: \"%s\" / \"%s\" / \"%s\"\n",
			   title, access, bad);
		kunit_info(test, "expected: \"%s\" / user 0x%08lx / allocated at: %ps / freed at: %ps\n",
			   r->bytes ?: "", r->user, r->origin, r->freed);
		report_dump(test);
	}
	return ret;
}

static int report_count(void)
{
	unsigned long flags;
	int nr;

	spin_lock_irqsave(&observed.lock, flags);
	nr = observed.nr;
	spin_unlock_irqrestore(&observed.lock, flags);
	return nr;
}

/* Print what kmemcheck queued, then check for a report matching @r. */
void kmemcheck_test_expect_report(struct kunit *test,
				  const struct kmemcheck_test_report *r)
{
	kmemcheck_report_flush();
	KUNIT_EXPECT_TRUE_MSG(test, report_seen(test, r),
			      "no matching KMEMCHECK report");
}

/* Print what kmemcheck queued, then check that there was nothing. */
void kmemcheck_test_expect_no_report(struct kunit *test)
{
	kmemcheck_report_flush();
	if (report_count())
		report_dump(test);
	KUNIT_EXPECT_EQ_MSG(test, report_count(), 0,
			    "unexpected KMEMCHECK report");
}

/* Check the shadow of @size bytes at @addr. */
void kmemcheck_test_expect_shadow(struct kunit *test, const void *addr,
				  size_t size, enum kmemcheck_shadow state)
{
	size_t i;

	for (i = 0; i < size; i++) {
		u8 *shadow = kmemcheck_shadow_of((unsigned long)addr + i);

		KUNIT_ASSERT_NOT_NULL_MSG(test, shadow, "byte %zu untracked",
					  i);
		KUNIT_EXPECT_EQ_MSG(test, kmemcheck_shadow_state(shadow), state,
				    "byte %zu", i);
	}
}

/*
 * Allocate with kmalloc() and free the buffer when the case ends.  A slab
 * left untracked (its shadow page could not be allocated, or it was made
 * while a case selected other allocations) hands out untracked objects:
 * when every allocation is tracked, take the next object until one is.
 */
void *kmemcheck_test_alloc(struct kunit *test, size_t size, gfp_t gfp)
{
	void *p = kunit_kmalloc(test, size, gfp);
	unsigned int tries = 512;

	while (p && !(gfp & __GFP_NOTRACK) && kmemcheck_enabled() &&
	       kmemcheck_track_everything() &&
	       !kmemcheck_shadow_of((unsigned long)p) && --tries)
		p = kunit_kmalloc(test, size, gfp);
	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* Order of the pages in test->priv, for kmemcheck_test_exit(). */
static unsigned int test_pages_order;

/* Pages freed when the case ends. */
void *kmemcheck_test_alloc_pages(struct kunit *test, gfp_t gfp,
				 unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);

	KUNIT_ASSERT_NOT_NULL(test, page);
	test->priv = page;
	test_pages_order = order;
	return page_address(page);
}

/* A cache destroyed when the case ends. */
static struct kmem_cache *test_cache;

struct kmem_cache *kmemcheck_test_cache_create(struct kunit *test, size_t size,
					       slab_flags_t flags,
					       void (*ctor)(void *))
{
	test_cache = kmem_cache_create("kmemcheck_test", size, 0,
				       flags | SLAB_NO_MERGE, ctor);
	KUNIT_ASSERT_NOT_NULL(test, test_cache);
	return test_cache;
}

/*
 * The bytes of a REP MOVS that one check covers: the chunk the fault
 * handler copies at once (here all of them), or one element when
 * kmemcheck.fastpath=0 single-steps the copy, as mainline kmemcheck did.
 */
size_t kmemcheck_test_rep_chunk(size_t whole, size_t element)
{
	return kmemcheck_may_emulate() ? whole : element;
}

/*
 * A memcpy() and memset() the compiler cannot inline: they use REP MOVS.
 * Inlined themselves, so that the caller of memcpy() is the test case.
 */
static __always_inline void *test_memcpy(void *to, const void *from, size_t n)
{
	void *(*fn)(void *to, const void *from, size_t n) = memcpy;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(to, from, n);
}

static void *test_memset(void *s, int c, size_t n)
{
	void *(*fn)(void *s, int c, size_t n) = memset;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(s, c, n);
}

/* ===== kmalloc ===== */

static void test_uninit_kmalloc(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	kmemcheck_test_expect_shadow(test, p, 16,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	READ_ONCE(*p);
	EXPECT_REPORT(test, UNINIT, test_uninit_kmalloc, 4, p);
}

static void test_init_kzalloc(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL | __GFP_ZERO);

	kmemcheck_test_expect_shadow(test, p, 16, KMEMCHECK_SHADOW_INITIALIZED);
	READ_ONCE(*p);
	EXPECT_NO_REPORT(test);
}

static void test_init_written(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(*p, 1);
	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_INITIALIZED);
	kmemcheck_test_expect_shadow(test, p + 1, 12,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	READ_ONCE(*p);
	EXPECT_NO_REPORT(test);
}

/*
 * kmalloc(4000) is an object of kmalloc-4096 alone in its page; its last
 * 96 bytes are the slack, never asked for.  Not inlined: reports name it
 * in the allocation stack.
 */
#define TEST_SLACK_SIZE		4000
#define TEST_SLACK_CACHE	4096

static noinline u8 *test_alloc_slack(struct kunit *test, gfp_t gfp)
{
	u8 *p = kmalloc(TEST_SLACK_SIZE, gfp);

	KUNIT_ASSERT_NOT_NULL(test, p);
	/* Not ksize(): it would hand the slack over (test_*_krealloc_*). */
	if (kmalloc_size_roundup(TEST_SLACK_SIZE) != TEST_SLACK_CACHE ||
	    offset_in_page(p)) {
		kfree(p);
		kunit_skip(test, "kmalloc(%d) is not alone in its page",
			   TEST_SLACK_SIZE);
	}
	/* The slack is read on purpose. */
	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/*
 * The slack is unallocated, so that it keeps no page hidden, but read
 * while the page is hidden it is uninitialized to the object's user, and
 * reported as such, with the allocation stack.
 */
static void test_uninit_kmalloc_slack(struct kunit *test)
{
	u8 *p = test_alloc_slack(test, GFP_KERNEL);
	u32 *slack = (u32 *)(p + TEST_SLACK_SIZE);

	kmemcheck_test_expect_shadow(test, p, TEST_SLACK_SIZE,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	kmemcheck_test_expect_shadow(test, slack,
				     TEST_SLACK_CACHE - TEST_SLACK_SIZE,
				     KMEMCHECK_SHADOW_UNALLOCATED);
	test_memset(p, 0, 3000);
	READ_ONCE(*slack);
	kfree(p);
	EXPECT_REPORT(test, UNINIT, test_uninit_kmalloc_slack, 4, slack,
		      .bytes = "Bytes 3000-4095 of 4096 are uninitialized",
		      .origin = test_alloc_slack);
}

/*
 * The twin: every byte asked for written, the page rests, slack and all,
 * and reads of the object are not checked, nor reported.
 */
static void test_init_kmalloc_slack(struct kunit *test)
{
	u8 *p = test_alloc_slack(test, GFP_KERNEL);

	KUNIT_EXPECT_FALSE(test, kmemcheck_page_may_rest((unsigned long)p));
	test_memset(p, 0, TEST_SLACK_SIZE);
	KUNIT_EXPECT_EQ(test, kmemcheck_page_may_rest((unsigned long)p),
			kmemcheck_fastpath_objects());
	READ_ONCE(*(u32 *)(p + TEST_SLACK_SIZE - 4));
	kfree(p);
	EXPECT_NO_REPORT(test);
}

/* An object written whole, grown by 8 bytes into its slack. */
static u8 *test_krealloc_into_slack(struct kunit *test)
{
	u8 *p = test_alloc_slack(test, GFP_KERNEL);
	u8 *q;

	test_memset(p, 0, TEST_SLACK_SIZE);
	q = krealloc(p, TEST_SLACK_SIZE + 8, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, q, p);
	return q;
}

/*
 * krealloc() into the slack keeps the object, and the bytes it adds are
 * uninitialized, even when the page rested: ksize() claimed the slack.
 */
static void test_uninit_krealloc_slack(struct kunit *test)
{
	u8 *q = test_krealloc_into_slack(test);

	kmemcheck_test_expect_shadow(test, q + TEST_SLACK_SIZE, 8,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	READ_ONCE(*(u32 *)(q + TEST_SLACK_SIZE));
	kfree(q);
	EXPECT_REPORT(test, UNINIT, test_uninit_krealloc_slack, 4,
		      q + TEST_SLACK_SIZE);
}

/* The twin: the bytes krealloc() added, once written, are initialized. */
static void test_init_krealloc_slack(struct kunit *test)
{
	u8 *q = test_krealloc_into_slack(test);

	WRITE_ONCE(*(u32 *)(q + TEST_SLACK_SIZE), 1);
	WRITE_ONCE(*(u32 *)(q + TEST_SLACK_SIZE + 4), 1);
	kmemcheck_test_expect_shadow(test, q + TEST_SLACK_SIZE, 8,
				     KMEMCHECK_SHADOW_INITIALIZED);
	READ_ONCE(*(u32 *)(q + TEST_SLACK_SIZE));
	kfree(q);
	EXPECT_NO_REPORT(test);
}

/*
 * kmemcheck_mark_slack(), as for the unused tail of a dentry's inline
 * name: the bytes are checked as uninitialized while the page is hidden...
 */
static void test_uninit_mark_slack(struct kunit *test)
{
	u8 *p = test_alloc_slack(test, GFP_KERNEL);
	u32 *tail = (u32 *)(p + 3000);

	test_memset(p, 0, 2000);
	kmemcheck_mark_slack(tail, TEST_SLACK_SIZE - 3000);
	kmemcheck_test_expect_shadow(test, tail, TEST_SLACK_SIZE - 3000,
				     KMEMCHECK_SHADOW_UNALLOCATED);
	READ_ONCE(*tail);
	kfree(p);
	EXPECT_REPORT(test, UNINIT, test_uninit_mark_slack, 4, tail,
		      .bytes = "Bytes 2000-4095 of 4096 are uninitialized");
}

/* ... and keep no page hidden. */
static void test_init_mark_slack(struct kunit *test)
{
	u8 *p = test_alloc_slack(test, GFP_KERNEL);

	test_memset(p, 0, 3000);
	kmemcheck_mark_slack(p + 3000, TEST_SLACK_SIZE - 3000);
	KUNIT_EXPECT_EQ(test, kmemcheck_page_may_rest((unsigned long)p),
			kmemcheck_fastpath_objects());
	READ_ONCE(*(u32 *)p);
	kfree(p);
	EXPECT_NO_REPORT(test);
}

/* A kzalloc() is zeroed whole: its slack is initialized, not unallocated. */
static void test_init_kzalloc_slack(struct kunit *test)
{
	u8 *p = test_alloc_slack(test, GFP_KERNEL | __GFP_ZERO);

	kmemcheck_test_expect_shadow(test, p, TEST_SLACK_CACHE,
				     KMEMCHECK_SHADOW_INITIALIZED);
	READ_ONCE(*(u32 *)(p + TEST_SLACK_SIZE));
	kfree(p);
	EXPECT_NO_REPORT(test);
}

/* The census of the page of @p, as debugfs hidden counts it. */
static struct kmemcheck_census test_census(const void *p)
{
	struct kmemcheck_census c = {};
	unsigned long flags;

	local_irq_save(flags);
	kmemcheck_census_page((unsigned long)p, &c);
	local_irq_restore(flags);
	return c;
}

/*
 * debugfs hidden counts an object never written as a hidden page, with
 * the bytes asked for uninitialized; not its slack.
 */
static void test_census_uninit(struct kunit *test)
{
	u8 *p = test_alloc_slack(test, GFP_KERNEL);
	struct kmemcheck_census c = test_census(p);

	kfree(p);
	KUNIT_EXPECT_EQ(test, c.tracked, 1);
	KUNIT_EXPECT_EQ(test, c.hidden, 1);
	KUNIT_EXPECT_EQ(test, c.uninit, TEST_SLACK_SIZE);
	KUNIT_EXPECT_EQ(test, c.freed, 0);
}

/*
 * The twin: written whole, its page rests (with kmemcheck.fastpath=2) and
 * nothing keeps it hidden; untracked memory is not counted at all.
 */
static void test_census_written(struct kunit *test)
{
	static u32 untracked;
	u8 *p = test_alloc_slack(test, GFP_KERNEL);
	struct kmemcheck_census c;
	unsigned long flags;
	bool counted;

	test_memset(p, 0, TEST_SLACK_SIZE);
	c = test_census(p);
	kfree(p);
	KUNIT_EXPECT_EQ(test, c.tracked, 1);
	KUNIT_EXPECT_EQ(test, c.hidden, kmemcheck_fastpath_objects() ? 0 : 1);
	KUNIT_EXPECT_EQ(test, c.uninit, 0);
	memset(&c, 0, sizeof(c));
	local_irq_save(flags);
	counted = kmemcheck_census_page((unsigned long)&untracked, &c);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, counted);
	KUNIT_EXPECT_EQ(test, c.tracked, 0);
}

/* ===== kmem_cache ===== */

static void test_ctor(void *object)
{
	size_t size = 32;

	/*
	 * One instruction (rep stosb) at any optimization level: GCC -O2
	 * inlines a 32-byte memset() as eight stores, and with the default
	 * fast path the new page rests after the first store's fault, so the
	 * others go unseen - by design, as unallocated bytes of the pages of
	 * caches with a constructor are not checked - and the shadow checked
	 * below would be right only under -Os.
	 */
	OPTIMIZER_HIDE_VAR(size);
	memset(object, 0, size);
}

static void test_init_memcache_ctor(struct kunit *test)
{
	struct kmem_cache *c = kmemcheck_test_cache_create(test, 32, 0,
							   test_ctor);
	u32 *p = kmem_cache_alloc(c, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	kmemcheck_test_expect_shadow(test, p, 32, KMEMCHECK_SHADOW_INITIALIZED);
	READ_ONCE(p[3]);
	kmem_cache_free(c, p);
	EXPECT_NO_REPORT(test);
}

static void test_uninit_memcache(struct kunit *test)
{
	struct kmem_cache *c = kmemcheck_test_cache_create(test, 32, 0, NULL);
	u32 *p = kmem_cache_alloc(c, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	READ_ONCE(p[3]);
	kmem_cache_free(c, p);
	EXPECT_REPORT(test, UNINIT, test_uninit_memcache, 4, &p[3]);
}

static void test_notrack_memcache(struct kunit *test)
{
	struct kmem_cache *c = kmemcheck_test_cache_create(test, 32,
							   SLAB_NOTRACK, NULL);
	u32 *p = kmem_cache_alloc(c, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NULL(test, kmemcheck_shadow_of((unsigned long)p));
	READ_ONCE(p[3]);
	kmem_cache_free(c, p);
	EXPECT_NO_REPORT(test);
}

/* kmalloc(__GFP_NOTRACK) comes from untracked caches; its twin is test_uninit_kmalloc. */
static void test_notrack_kmalloc(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL | __GFP_NOTRACK);

	KUNIT_EXPECT_NULL(test, kmemcheck_shadow_of((unsigned long)p));
	KUNIT_EXPECT_STREQ(test, virt_to_slab(p)->slab_cache->name,
			   "kmalloc-notrack-16");
	READ_ONCE(*p);
	EXPECT_NO_REPORT(test);
}

/*
 * The bytes right after a 20-byte object are either padding up to the
 * cache's alignment or, in a fresh cache, the next object, still free: they
 * are unallocated either way.
 */
static void test_unallocated_memcache(struct kunit *test)
{
	struct kmem_cache *c = kmemcheck_test_cache_create(test, 20, 0, NULL);
	u32 *p = kmem_cache_alloc(c, GFP_KERNEL);
	u32 *next = p + 5;
	u8 *shadow;

	KUNIT_ASSERT_NOT_NULL(test, p);
	shadow = kmemcheck_shadow_of((unsigned long)next);
	if (!shadow ||
	    kmemcheck_shadow_state(shadow) != KMEMCHECK_SHADOW_UNALLOCATED) {
		kmem_cache_free(c, p);
		kunit_skip(test, "the bytes after the object are not unallocated");
	}
	READ_ONCE(*next);
	kmem_cache_free(c, p);
	EXPECT_REPORT(test, UNALLOCATED, test_unallocated_memcache, 4, next);
}

static void test_init_memcache_object(struct kunit *test)
{
	struct kmem_cache *c = kmemcheck_test_cache_create(test, 20, 0, NULL);
	u32 *p = kmem_cache_alloc(c, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	WRITE_ONCE(p[4], 1);
	READ_ONCE(p[4]);
	kmem_cache_free(c, p);
	EXPECT_NO_REPORT(test);
}

/*
 * A report names the object's cache by a copy of its name taken at the bad
 * access: the cache may be destroyed, and its name freed, before the report
 * is printed.  The name given is on the heap, so the cache has its own copy.
 */
static struct kmem_cache *test_cache_gone(struct kunit *test)
{
	const char *name = kunit_kstrdup(test, "kmemcheck_test_gone",
					 GFP_KERNEL);
	struct kmem_cache *c;

	KUNIT_ASSERT_NOT_NULL(test, name);
	c = kmem_cache_create(name, 16, 0, SLAB_NO_MERGE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	return c;
}

static void test_uninit_memcache_destroyed(struct kunit *test)
{
	struct kmem_cache *c = test_cache_gone(test);
	u32 *p = kmem_cache_alloc(c, GFP_KERNEL);

	if (p) {
		kmemcheck_kunit_hold_reports(true);
		READ_ONCE(p[1]);
		kmem_cache_free(c, p);
	}
	kmem_cache_destroy(c);
	kmemcheck_kunit_hold_reports(false);
	KUNIT_ASSERT_NOT_NULL(test, p);
	EXPECT_REPORT(test, UNINIT, test_uninit_memcache_destroyed, 4, &p[1],
		      .cache = "kmemcheck_test_gone");
}

static void test_init_memcache_destroyed(struct kunit *test)
{
	struct kmem_cache *c = test_cache_gone(test);
	u32 *p = kmem_cache_alloc(c, GFP_KERNEL);

	if (p) {
		kmemcheck_kunit_hold_reports(true);
		WRITE_ONCE(p[1], 1);
		READ_ONCE(p[1]);
		kmem_cache_free(c, p);
	}
	kmem_cache_destroy(c);
	kmemcheck_kunit_hold_reports(false);
	KUNIT_ASSERT_NOT_NULL(test, p);
	EXPECT_NO_REPORT(test);
}

/* ===== Page allocator ===== */

static void test_uninit_pages(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL, 0);

	kmemcheck_test_expect_shadow(test, p, 8,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	READ_ONCE(p[10]);
	EXPECT_REPORT(test, UNINIT, test_uninit_pages, 4, &p[10]);
}

static void test_init_pages_zero(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL | __GFP_ZERO, 0);

	kmemcheck_test_expect_shadow(test, p, 8, KMEMCHECK_SHADOW_INITIALIZED);
	READ_ONCE(p[10]);
	EXPECT_NO_REPORT(test);
}

static void test_notrack_pages(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL | __GFP_NOTRACK,
					    0);

	KUNIT_EXPECT_NULL(test, kmemcheck_shadow_of((unsigned long)p));
	READ_ONCE(p[10]);
	EXPECT_NO_REPORT(test);
}

/*
 * A page with every byte initialized rests mapped after its first access;
 * a byte that stops being initialized must hide it again.
 */
static void test_uninit_pages_rehidden(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL | __GFP_ZERO, 0);

	READ_ONCE(p[0]);
	READ_ONCE(p[1]);
	kmemcheck_mark_uninitialized(&p[5], 4);
	READ_ONCE(p[5]);
	EXPECT_REPORT(test, UNINIT, test_uninit_pages_rehidden, 4, &p[5]);
}

/* A function of its own, for the free stack to name. */
static noinline void test_free_page(unsigned long addr)
{
	free_page(addr);
}

/*
 * A page read after free_page() is a use-after-free while it is in the
 * page quarantine.  Interrupts are off so that nobody takes the page in
 * between.
 */
static void test_uaf_page(struct kunit *test)
{
	unsigned long addr = __get_free_page(GFP_KERNEL), flags;
	u32 *p = (u32 *)addr;

	KUNIT_ASSERT_NE(test, addr, 0);
	if (!kmemcheck_quarantine_length()) {
		free_page(addr);
		kunit_skip(test, "booted with kmemcheck.quarantine=0");
	}
	WRITE_ONCE(p[1], 1);
	local_irq_save(flags);
	test_free_page(addr);
	READ_ONCE(p[1]);
	local_irq_restore(flags);
	EXPECT_REPORT(test, UAF, test_uaf_page, 4, &p[1],
		      .origin = test_uaf_page, .freed = test_free_page);
}

/* The twin: the page allocated again is a new page, checked as such. */
static void test_page_reused(struct kunit *test)
{
	unsigned long addr = __get_free_page(GFP_KERNEL), again, flags;
	u32 *p = (u32 *)addr;

	KUNIT_ASSERT_NE(test, addr, 0);
	WRITE_ONCE(p[1], 1);
	local_irq_save(flags);
	free_page(addr);
	/* The per-CPU lists hand out the page freed last. */
	again = __get_free_page(GFP_ATOMIC);
	local_irq_restore(flags);
	if (again)
		test->priv = virt_to_page((void *)again);
	KUNIT_ASSERT_EQ(test, again, addr);
	WRITE_ONCE(p[1], 2);
	READ_ONCE(p[1]);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_shadow(test, &p[2], 4,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
}

/*
 * Migration and compaction copy a page with copy_highpage(), compaction
 * into a free page nobody allocated: the shadow moves with the bytes, the
 * copy of uninitialized bytes is no infoleak, and a read of them in the
 * new page is reported, of the new page.
 */
static u32 *test_copy_tracked_page(struct kunit *test)
{
	unsigned long from = __get_free_page(GFP_KERNEL);
	unsigned long to = __get_free_page(GFP_KERNEL | __GFP_NOTRACK);

	if (!from || !to) {
		free_page(from);
		free_page(to);
		KUNIT_FAIL(test, "no page");
		return NULL;
	}
	WRITE_ONCE(((u32 *)from)[0], 1);
	KUNIT_EXPECT_NULL(test, kmemcheck_shadow_of(to));
	copy_highpage(virt_to_page((void *)to), virt_to_page((void *)from));
	free_page(from);
	kmemcheck_test_expect_shadow(test, (void *)to, 4,
				     KMEMCHECK_SHADOW_INITIALIZED);
	kmemcheck_test_expect_shadow(test, (void *)to + 4, 12,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	KUNIT_EXPECT_TRUE(test, kmemcheck_arch_page_hidden(to));
	test->priv = virt_to_page((void *)to);
	return (u32 *)to;
}

static void test_uninit_copied_page(struct kunit *test)
{
	u32 *p = test_copy_tracked_page(test);

	if (!p)
		return;
	READ_ONCE(p[1]);
	EXPECT_REPORT(test, UNINIT, test_uninit_copied_page, 4, &p[1]);
}

static void test_init_copied_page(struct kunit *test)
{
	u32 *p = test_copy_tracked_page(test);

	if (!p)
		return;
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[0]), 1);
	EXPECT_NO_REPORT(test);
}

/* The copy of an untracked page, as a user page, is not tracked either. */
static void test_copied_page_untracked(struct kunit *test)
{
	unsigned long from = __get_free_page(GFP_KERNEL | __GFP_NOTRACK);
	unsigned long to = __get_free_page(GFP_KERNEL);

	if (from && to) {
		KUNIT_EXPECT_NOT_NULL(test, kmemcheck_shadow_of(to));
		copy_highpage(virt_to_page((void *)to),
			      virt_to_page((void *)from));
		KUNIT_EXPECT_NULL(test, kmemcheck_shadow_of(to));
		KUNIT_EXPECT_FALSE(test, kmemcheck_arch_page_hidden(to));
		READ_ONCE(((u32 *)to)[1]);
	}
	free_page(from);
	free_page(to);
	EXPECT_NO_REPORT(test);
}

/* Pushed out of the page quarantine, a free page is no longer tracked. */
static void test_page_quarantine_expires(struct kunit *test)
{
	unsigned long others[64], addr, flags;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(others); i++) {
		others[i] = __get_free_page(GFP_KERNEL);
		KUNIT_ASSERT_NE(test, others[i], 0);
	}
	addr = __get_free_page(GFP_KERNEL);
	KUNIT_ASSERT_NE(test, addr, 0);
	local_irq_save(flags);
	free_page(addr);
	KUNIT_EXPECT_EQ(test, kmemcheck_shadow_state(kmemcheck_shadow_of(addr)),
			KMEMCHECK_SHADOW_FREED);
	KUNIT_EXPECT_TRUE(test, kmemcheck_arch_page_hidden(addr));
	for (i = 0; i < ARRAY_SIZE(others); i++)
		free_page(others[i]);
	KUNIT_EXPECT_NULL(test, kmemcheck_shadow_of(addr));
	KUNIT_EXPECT_FALSE(test, kmemcheck_arch_page_hidden(addr));
	local_irq_restore(flags);
	EXPECT_NO_REPORT(test);
}

/* ===== The direct map changed by others ===== */

/*
 * Hibernation's safe_copy_page() maps a page it finds not present around
 * its copy: a page kmemcheck hides must come back hidden, and stay
 * writable once kmemcheck shows it.
 */
static void test_direct_map_hidden(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL, 0);
	struct page *page = virt_to_page(p);

	KUNIT_ASSERT_TRUE(test, kmemcheck_arch_page_hidden((unsigned long)p));
	KUNIT_EXPECT_TRUE(test, kmemcheck_owns_direct_map(page));
	KUNIT_EXPECT_FALSE(test, kernel_page_present(page));
	KUNIT_ASSERT_EQ(test, set_direct_map_default_noflush(page), 0);
	KUNIT_EXPECT_TRUE(test, kernel_page_present(page));
	KUNIT_ASSERT_EQ(test, set_direct_map_invalid_noflush(page), 0);
	flush_tlb_kernel_range((unsigned long)p, (unsigned long)p + PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, kmemcheck_arch_page_hidden((unsigned long)p));
	WRITE_ONCE(p[3], 3);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[3]), 3);
	EXPECT_NO_REPORT(test);
}

/* A page kmemcheck does not track is unmapped and mapped as without it. */
static void test_direct_map_untracked(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL | __GFP_NOTRACK,
					    0);
	struct page *page = virt_to_page(p);

	KUNIT_EXPECT_FALSE(test, kmemcheck_owns_direct_map(page));
	KUNIT_ASSERT_TRUE(test, kernel_page_present(page));
	KUNIT_ASSERT_EQ(test, set_direct_map_invalid_noflush(page), 0);
	KUNIT_EXPECT_FALSE(test, kernel_page_present(page));
	KUNIT_EXPECT_FALSE(test, kmemcheck_arch_page_hidden((unsigned long)p));
	KUNIT_ASSERT_EQ(test, set_direct_map_default_noflush(page), 0);
	flush_tlb_kernel_range((unsigned long)p, (unsigned long)p + PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, kernel_page_present(page));
	WRITE_ONCE(p[3], 3);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[3]), 3);
	EXPECT_NO_REPORT(test);
}

/*
 * Highmem is never tracked: user space writes it through mappings of its
 * own, without a fault.  A read of its never written bytes through the
 * kernel's temporary mapping is not reported.
 */
static void test_highmem_untracked(struct kunit *test)
{
	struct page *page = alloc_page(GFP_HIGHUSER);
	u32 *p;

	KUNIT_ASSERT_NOT_NULL(test, page);
	if (!PageHighMem(page)) {
		__free_page(page);
		kunit_skip(test, "no highmem");
	}
	KUNIT_EXPECT_NULL(test, READ_ONCE(page->kmemcheck_shadow));
	p = kmap_local_page(page);
	KUNIT_EXPECT_FALSE(test, kmemcheck_page_tracked((unsigned long)p));
	KUNIT_EXPECT_FALSE(test, kmemcheck_arch_page_hidden((unsigned long)p));
	READ_ONCE(p[1]);
	kunmap_local(p);
	__free_page(page);
	EXPECT_NO_REPORT(test);
}

/* ===== Use after free ===== */

/*
 * kmalloc-256 keeps its free pointer in the middle of the object: SLUB's
 * store makes those bytes initialized, so read the first ones.
 */
static void test_use_after_free(struct kunit *test)
{
	u32 *p = kmalloc(256, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	WRITE_ONCE(*p, 1);
	kfree(p);
	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_FREED);
	READ_ONCE(*p);
	EXPECT_REPORT(test, UAF, test_use_after_free, 4, p);
}

static void test_read_before_free(struct kunit *test)
{
	u32 *p = kmalloc(256, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	WRITE_ONCE(*p, 1);
	READ_ONCE(*p);
	kfree(p);
	EXPECT_NO_REPORT(test);
}

/* ===== Access sizes ===== */

static void test_uninit_read_u8(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	READ_ONCE(p[3]);
	EXPECT_REPORT(test, UNINIT, test_uninit_read_u8, 1, &p[3]);
}

static void test_uninit_read_u16(struct kunit *test)
{
	u16 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	READ_ONCE(p[3]);
	EXPECT_REPORT(test, UNINIT, test_uninit_read_u16, 2, &p[3]);
}

static void test_uninit_read_u32(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	READ_ONCE(p[3]);
	EXPECT_REPORT(test, UNINIT, test_uninit_read_u32, 4, &p[3]);
}

/*
 * i386 has no 8-byte general-purpose load: GCC compiles a u64 READ_ONCE()
 * to two 4-byte MOVs, low half first.  Both read uninitialized bytes, from
 * two instructions: two reports of size 4.
 */
static void test_uninit_read_u64(struct kunit *test)
{
	u64 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	READ_ONCE(p[1]);
	EXPECT_REPORT(test, UNINIT, test_uninit_read_u64, 4, &p[1]);
	EXPECT_REPORT(test, UNINIT, test_uninit_read_u64, 4, (u32 *)&p[1] + 1);
}

/*
 * A real 8-byte access without the FPU: CMPXCHG8B, which cmpxchg64()
 * emits, loads all 8 bytes at once.  It stores 0 only if they were 0:
 * otherwise they stay as uninitialized as they were.
 */
static void test_uninit_read_8_cmpxchg8b(struct kunit *test)
{
	u64 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);
	u64 old;

	old = cmpxchg64(&p[1], 0, 0);
	EXPECT_REPORT(test, UNINIT, test_uninit_read_8_cmpxchg8b, 8, &p[1]);
	kmemcheck_test_expect_shadow(test, &p[1], 8,
				     old ? KMEMCHECK_SHADOW_UNINITIALIZED :
					   KMEMCHECK_SHADOW_INITIALIZED);
}

/*
 * atomic64_set() may be a CMPXCHG8B loop too (i386), whose compare only
 * fetches the value to replace: a store, unlike cmpxchg64() above.
 */
static void test_init_atomic64_set(struct kunit *test)
{
	atomic64_t *v = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	atomic64_set(&v[1], 1);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_shadow(test, &v[0], 8,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	kmemcheck_test_expect_shadow(test, &v[1], 8,
				     KMEMCHECK_SHADOW_INITIALIZED);
	KUNIT_EXPECT_EQ(test, atomic64_read(&v[1]), 1);
	EXPECT_NO_REPORT(test);
}

static void test_init_read_sizes(struct kunit *test)
{
	u64 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(p[0], 0);
	WRITE_ONCE(p[1], 0);
	READ_ONCE(*(u8 *)p);
	READ_ONCE(*(u16 *)p);
	READ_ONCE(*(u32 *)p);
	READ_ONCE(p[1]);
	cmpxchg64(&p[1], 0, 0);
	EXPECT_NO_REPORT(test);
}

/* ===== Partial and straddling reads ===== */

static void test_uninit_partial(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(*(u16 *)p, 1);
	READ_ONCE(*p);
	EXPECT_REPORT(test, UNINIT, test_uninit_partial, 4, p,
		      .bad = (u8 *)p + 2);
}

static void test_init_partial(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(*(u16 *)p, 1);
	READ_ONCE(*(u16 *)p);
	EXPECT_NO_REPORT(test);
}

/* A u32 read at PAGE_SIZE - 2: two bytes on each page. */
static void test_uninit_straddle(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL, 1);
	u32 *q = (u32 *)(p + PAGE_SIZE - 2);

	test_memset(p, 0, PAGE_SIZE - 2);
	test_memset(p + PAGE_SIZE, 0, PAGE_SIZE);
	READ_ONCE(*q);
	EXPECT_REPORT(test, UNINIT, test_uninit_straddle, 4, q);
}

static void test_init_straddle(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc_pages(test, GFP_KERNEL, 1);
	u32 *q = (u32 *)(p + PAGE_SIZE - 2);

	test_memset(p, 0, 2 * PAGE_SIZE);
	READ_ONCE(*q);
	EXPECT_NO_REPORT(test);
}

/* ===== Copies ===== */

struct test_partly {
	u32 init[8];
	u32 uninit[8];
};

/* memcpy() carries the state of the bytes it copies, and reports nothing. */
static void test_uninit_memcpy(struct kunit *test)
{
	struct test_partly *src = kmemcheck_test_alloc(test, sizeof(*src),
						       GFP_KERNEL);
	struct test_partly *dst = kmemcheck_test_alloc(test, sizeof(*dst),
						       GFP_KERNEL);

	test_memset(src->init, 0, sizeof(src->init));
	test_memcpy(dst, src, sizeof(*dst));
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_shadow(test, dst->init, sizeof(dst->init),
				     KMEMCHECK_SHADOW_INITIALIZED);
	kmemcheck_test_expect_shadow(test, dst->uninit, sizeof(dst->uninit),
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	READ_ONCE(dst->uninit[2]);
	EXPECT_REPORT(test, UNINIT, test_uninit_memcpy, 4, &dst->uninit[2]);
}

static void test_init_memcpy(struct kunit *test)
{
	struct test_partly *src = kmemcheck_test_alloc(test, sizeof(*src),
						       GFP_KERNEL);
	struct test_partly *dst = kmemcheck_test_alloc(test, sizeof(*dst),
						       GFP_KERNEL);

	test_memset(src->init, 0, sizeof(src->init));
	test_memcpy(dst, src, sizeof(*dst));
	READ_ONCE(dst->init[2]);
	EXPECT_NO_REPORT(test);
}

/* Unaligned: source and destination offsets differ within a word. */
static void test_uninit_memcpy_unaligned(struct kunit *test)
{
	u8 *src = kmemcheck_test_alloc(test, 64, GFP_KERNEL);
	u8 *dst = kmemcheck_test_alloc(test, 64, GFP_KERNEL);
	u32 *q = (u32 *)(dst + 30);

	test_memset(src, 0, 32);
	test_memcpy(dst + 1, src, 63);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_shadow(test, dst + 1, 32,
				     KMEMCHECK_SHADOW_INITIALIZED);
	kmemcheck_test_expect_shadow(test, dst + 33, 31,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	READ_ONCE(*q);
	EXPECT_REPORT(test, UNINIT, test_uninit_memcpy_unaligned, 4, q,
		      .bad = dst + 33);
}

static void test_init_memcpy_unaligned(struct kunit *test)
{
	u8 *src = kmemcheck_test_alloc(test, 64, GFP_KERNEL);
	u8 *dst = kmemcheck_test_alloc(test, 64, GFP_KERNEL);

	test_memset(src, 0, 32);
	test_memcpy(dst + 1, src, 63);
	READ_ONCE(*(u32 *)(dst + 29));
	EXPECT_NO_REPORT(test);
}

/* Untracked destination of the memcpy() infoleak cases, in one page. */
static u32 test_untracked[16] __aligned(64);

/*
 * memcpy() to a global, which has no shadow, is the use of the
 * uninitialized source bytes of its REP MOVSL.  kmemcheck does the elements
 * of a REP MOVS up to the end of the source or destination page at once,
 * and reports that whole chunk: here the whole copy, from its start.
 *
 * The report is titled with the caller of memcpy(), where the bug is.
 */
static void test_uninit_memcpy_global(struct kunit *test)
{
	u32 *src = kmemcheck_test_alloc(test, sizeof(test_untracked),
					GFP_KERNEL);

	WRITE_ONCE(src[0], 1);
	test_memcpy(test_untracked, src, sizeof(test_untracked));
	if (kmemcheck_may_emulate())
		EXPECT_REPORT(test, UNINIT, test_uninit_memcpy_global,
			      sizeof(test_untracked), src, test_untracked,
			      &src[1]);
	else
		EXPECT_REPORT(test, UNINIT, test_uninit_memcpy_global, 4,
			      &src[1], &test_untracked[1]);
}

static void test_init_memcpy_untracked(struct kunit *test)
{
	u32 *src = kmemcheck_test_alloc(test, sizeof(test_untracked),
					GFP_KERNEL | __GFP_ZERO);

	test_memcpy(test_untracked, src, sizeof(test_untracked));
	EXPECT_NO_REPORT(test);
}

/* ===== Read-modify-write instructions ===== */

static void test_uninit_cmpxchg(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	cmpxchg(p, 0, 1);
	EXPECT_REPORT(test, UNINIT, test_uninit_cmpxchg, 4, p);
}

static void test_init_cmpxchg(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(*p, 0);
	cmpxchg(p, 0, 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*p), 1);
	EXPECT_NO_REPORT(test);
}

/*
 * A CMPXCHG that fails stores nothing new: its bytes stay uninitialized
 * (emulated or stepped, the write is recorded only once it happened).
 */
static void test_cmpxchg_failed_keeps_shadow(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(*p, 5);
	kmemcheck_mark_uninitialized(p, 4);
	KUNIT_EXPECT_EQ(test, cmpxchg(p, 1, 2), 5);
	EXPECT_REPORT(test, UNINIT, test_cmpxchg_failed_keeps_shadow, 4, p);
	kmemcheck_test_expect_shadow(test, p, 4,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
}

static void test_cmpxchg_done_initializes(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(*p, 5);
	kmemcheck_mark_uninitialized(p, 4);
	KUNIT_EXPECT_EQ(test, cmpxchg(p, 5, 2), 5);
	EXPECT_REPORT(test, UNINIT, test_cmpxchg_done_initializes, 4, p);
	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_INITIALIZED);
}

static void test_uninit_xchg(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	xchg(p, 1);
	EXPECT_REPORT(test, UNINIT, test_uninit_xchg, 4, p);
}

static void test_init_xchg(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(*p, 0);
	KUNIT_EXPECT_EQ(test, xchg(p, 1), 0);
	EXPECT_NO_REPORT(test);
}

static void test_uninit_xadd(struct kunit *test)
{
	atomic_t *v = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	atomic_add_return(1, v);
	EXPECT_REPORT(test, UNINIT, test_uninit_xadd, 4, v);
}

static void test_init_xadd(struct kunit *test)
{
	atomic_t *v = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	atomic_set(v, 1);
	KUNIT_EXPECT_EQ(test, atomic_add_return(1, v), 2);
	EXPECT_NO_REPORT(test);
}

/* test_and_set_bit() is a LOCK BTS: it reads the word it sets a bit in. */
static void test_uninit_bts(struct kunit *test)
{
	unsigned long *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	test_and_set_bit(1, p);
	EXPECT_REPORT(test, UNINIT, test_uninit_bts, 4, p);
}

static void test_init_bts(struct kunit *test)
{
	unsigned long *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(*p, 0);
	KUNIT_EXPECT_FALSE(test, test_and_set_bit(1, p));
	EXPECT_NO_REPORT(test);
}

/* ===== Done in the fault handler ===== */

/*
 * strlen() is REPNE SCASB on x86-32: the fault handler scans an
 * initialized string at once, one fault in all (a fault per byte when
 * single-stepped, with kmemcheck.fastpath=0), and is not reported.
 */
static void test_init_strlen(struct kunit *test)
{
	static const char hello[] = "hello, kmemcheck";
	char *p = kmemcheck_test_alloc(test, 64, GFP_KERNEL);
	unsigned long irq;
	long faults;
	size_t len;

	test_memcpy(p, hello, sizeof(hello));
	local_irq_save(irq);
	faults = kmemcheck_test_counter(KMEMCHECK_COUNTER_FAULTS);
	len = strlen(p);
	faults = kmemcheck_test_counter(KMEMCHECK_COUNTER_FAULTS) -
		 faults;
	local_irq_restore(irq);
	KUNIT_EXPECT_EQ(test, len, sizeof(hello) - 1);
	KUNIT_EXPECT_EQ(test, faults,
			kmemcheck_may_emulate() ? 1 : (long)sizeof(hello));
	EXPECT_NO_REPORT(test);
}

/* The twin: a string with no NUL runs into uninitialized bytes. */
static void test_uninit_strlen(struct kunit *test)
{
	char *p = kmemcheck_test_alloc(test, 64, GFP_KERNEL);

	test_memset(p, 'a', 8);
	p[12] = '\0';
	KUNIT_EXPECT_LE(test, strlen(p), 12);
	/* Reports blame the caller of a string helper. */
	EXPECT_REPORT(test, UNINIT, test_uninit_strlen, 1, p + 8);
}

/*
 * An access to a hidden page costs one fault, also when the page's cache
 * has a kmalloc'ed name on a hidden page: what the fault handler reads of
 * the cache (debugfs hot, which once copied the name at every fault) must
 * not fault again each time.
 */
static void test_init_one_fault(struct kunit *test)
{
	char *name = kasprintf(GFP_KERNEL, "kmemcheck_test_%d", 1);
	unsigned long irq;
	long faults = 0;
	unsigned int i;
	u32 *p;

	KUNIT_ASSERT_NOT_NULL(test, name);
	/* The cache keeps a kmalloc'ed copy of a name not in .rodata. */
	test_cache = kmem_cache_create(name, 8, 0, SLAB_NO_MERGE, NULL);
	kfree(name);
	KUNIT_ASSERT_NOT_NULL(test, test_cache);
	if (!kmemcheck_page_tracked((unsigned long)test_cache->name))
		kunit_skip(test, "the cache's name is not on a tracked page");
	/* The second word stays uninitialized: the page stays hidden. */
	p = kmem_cache_alloc(test_cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	/* The first fault on the cache's pages may look its name up. */
	for (i = 0; i < 3; i++) {
		local_irq_save(irq);
		kmemcheck_arch_hide_page((unsigned long)test_cache->name);
		faults = kmemcheck_test_counter(KMEMCHECK_COUNTER_FAULTS);
		WRITE_ONCE(p[0], i);
		faults = kmemcheck_test_counter(KMEMCHECK_COUNTER_FAULTS) -
			 faults;
		local_irq_restore(irq);
	}
	KUNIT_EXPECT_EQ(test, faults, 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p[0]), 2);
	kmem_cache_free(test_cache, p);
	EXPECT_NO_REPORT(test);
}

/*
 * The stacks of origins come from the frame pointers (stack.c), not the
 * unwinder: the same frames as stack_trace_save() from the same function.
 */
static noinline void test_stacks(unsigned long *fast, unsigned int *nr_fast,
				 unsigned long *slow, unsigned int *nr_slow)
{
	*nr_fast = kmemcheck_arch_save_stack(fast, 16, 0);
	*nr_slow = stack_trace_save(slow, 16, 0);
}

static void test_origin_stack(struct kunit *test)
{
	unsigned long fast[16], slow[16];
	unsigned int nr_fast, nr_slow, i;

	test_stacks(fast, &nr_fast, slow, &nr_slow);
	KUNIT_ASSERT_GE(test, min(nr_fast, nr_slow), 4U);
	/* Both start in test_stacks(), at their own call. */
	KUNIT_EXPECT_GT(test, fast[0], (unsigned long)test_stacks);
	KUNIT_EXPECT_LT(test, fast[0], slow[0]);
	for (i = 1; i < min(nr_fast, nr_slow); i++)
		KUNIT_EXPECT_EQ_MSG(test, fast[i], slow[i], "frame %u: %pS, %pS",
				    i, (void *)fast[i], (void *)slow[i]);
}

/* ===== memset() and annotations ===== */

static void test_init_memset(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 64, GFP_KERNEL);

	test_memset(p, 0, 64);
	kmemcheck_test_expect_shadow(test, p, 64, KMEMCHECK_SHADOW_INITIALIZED);
	READ_ONCE(p[15]);
	EXPECT_NO_REPORT(test);
}

static void test_uninit_memset_half(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 64, GFP_KERNEL);

	test_memset(p, 0, 32);
	READ_ONCE(p[15]);
	EXPECT_REPORT(test, UNINIT, test_uninit_memset_half, 4, &p[15]);
}

static void test_init_mark_initialized(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	kmemcheck_mark_initialized(p, 16);
	READ_ONCE(p[2]);
	EXPECT_NO_REPORT(test);
}

static void test_uninit_mark_uninitialized(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL | __GFP_ZERO);

	kmemcheck_mark_uninitialized(p, 16);
	READ_ONCE(p[2]);
	EXPECT_REPORT(test, UNINIT, test_uninit_mark_uninitialized, 4, &p[2]);
}

/* ===== What reports say ===== */

/*
 * The allocation stack, the run of bytes never written around the first
 * bad one, and the memory window.  Allocated here, not through a helper,
 * so that this function is the one the allocation stack must name.
 */
static void test_origin_kmalloc(struct kunit *test)
{
	u32 *p = kmalloc(16, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	WRITE_ONCE(p[0], 1);
	WRITE_ONCE(p[3], 1);
	READ_ONCE(p[1]);
	kfree(p);
	EXPECT_REPORT(test, UNINIT, test_origin_kmalloc, 4, &p[1],
		      .bytes = "Bytes 4-11 of 16 are uninitialized",
		      .origin = test_origin_kmalloc);
}

static void test_origin_kmalloc_init(struct kunit *test)
{
	u32 *p = kmalloc(16, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	WRITE_ONCE(p[1], 1);
	READ_ONCE(p[1]);
	kfree(p);
	EXPECT_NO_REPORT(test);
}

/* Origins live in spare shadow bits: they must not change any state. */
static void test_origin_keeps_state(struct kunit *test)
{
	u8 *p = kmalloc(16, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	kmemcheck_test_expect_shadow(test, p, 16,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	WRITE_ONCE(p[2], 1);
	kmemcheck_test_expect_shadow(test, p + 2, 1,
				     KMEMCHECK_SHADOW_INITIALIZED);
	kmemcheck_test_expect_shadow(test, p + 3, 13,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	kfree(p);
	kmemcheck_test_expect_shadow(test, p, 2, KMEMCHECK_SHADOW_FREED);
	EXPECT_NO_REPORT(test);
}

/* A page: the run reaches the end of the page, not of an object. */
static void test_origin_pages(struct kunit *test)
{
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, page);
	p = page_address(page);
	test_memset(p, 0, 100);
	READ_ONCE(p[200]);
	__free_pages(page, 0);
	EXPECT_REPORT(test, UNINIT, test_origin_pages, 1, &p[200],
		      .bytes = "Bytes 100-4095 of 4096 are uninitialized",
		      .origin = test_origin_pages);
}

static void test_origin_pages_init(struct kunit *test)
{
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, page);
	p = page_address(page);
	test_memset(p, 0, 300);
	READ_ONCE(p[200]);
	__free_pages(page, 0);
	EXPECT_NO_REPORT(test);
}

/* A function of its own, for the free stack to name. */
static noinline void test_free(void *p)
{
	kfree(p);
}

/* A use-after-free names both the allocation and the free. */
static void test_uaf_stacks(struct kunit *test)
{
	u32 *p = kmalloc(256, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	WRITE_ONCE(p[0], 1);
	test_free(p);
	READ_ONCE(p[1]);
	EXPECT_REPORT(test, UAF, test_uaf_stacks, 4, &p[1],
		      .origin = test_uaf_stacks, .freed = test_free);
}

/* The twin: the same object read before it is freed. */
static void test_uaf_stacks_before_free(struct kunit *test)
{
	u32 *p = kmalloc(256, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	WRITE_ONCE(p[1], 1);
	READ_ONCE(p[1]);
	test_free(p);
	EXPECT_NO_REPORT(test);
}

/* ===== Quarantine (kmemcheck.fastpath=2) ===== */

/*
 * Free an object written all over, then @others objects of another cache.
 * *@keep, written all over too, keeps the slab alive; the caller frees it.
 */
static u32 *test_free_then_others(struct kunit *test, unsigned int others,
				  u32 **keep)
{
	struct kmem_cache *c = kmemcheck_test_cache_create(test, 64, 0, NULL);
	u32 *p;

	if (!kmemcheck_fastpath_objects() || !kmemcheck_quarantine_length())
		kunit_skip(test, "needs kmemcheck.fastpath=2 and a quarantine");
	*keep = kmem_cache_alloc(c, GFP_KERNEL);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *keep);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(*keep, 1, 64);
	memset(p, 1, 64);
	kmem_cache_free(c, p);
	while (others--)
		kfree(kmalloc(128, GFP_KERNEL));
	return p;
}

/*
 * A freed object stays checked while it is in quarantine, however many
 * objects are freed after it: its page is hidden, a read is caught.
 */
static void test_uaf_in_quarantine(struct kunit *test)
{
	u32 *keep;
	u32 *p = test_free_then_others(test,
				       kmemcheck_quarantine_length() / 8,
				       &keep);

	KUNIT_EXPECT_FALSE(test, kmemcheck_page_may_rest((unsigned long)p));
	READ_ONCE(p[1]);
	kmem_cache_free(test_cache, keep);
	EXPECT_REPORT(test, UAF, test_uaf_in_quarantine, 4, &p[1]);
}

/*
 * The twin: out of quarantine, its bytes are unallocated like those of any
 * free object, and its page, all the rest of it written, rests again.
 */
static void test_quarantine_expires(struct kunit *test)
{
	u32 *keep;
	u32 *p = test_free_then_others(test,
				       kmemcheck_quarantine_length(),
				       &keep);

	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_UNALLOCATED);
	KUNIT_EXPECT_TRUE(test, kmemcheck_page_may_rest((unsigned long)p));
	kmem_cache_free(test_cache, keep);
	EXPECT_NO_REPORT(test);
}

/*
 * @n reads of the live object next to a freed one, each a fault while the
 * freed bytes keep the page hidden.  One instruction: after the first
 * fault, the early fault path takes them, and counts them.
 */
static noinline void test_read_neighbour(const u32 *keep, unsigned int n)
{
	while (n--)
		READ_ONCE(keep[1]);
}

/* A page read a little while a freed object on it is in quarantine. */
static void test_uaf_after_neighbour_reads(struct kunit *test)
{
	u32 *keep;
	u32 *p = test_free_then_others(test, 0, &keep);

	test_read_neighbour(keep, kmemcheck_shed_faults() / 2);
	KUNIT_EXPECT_FALSE(test, kmemcheck_page_may_rest((unsigned long)p));
	READ_ONCE(p[1]);
	kmem_cache_free(test_cache, keep);
	EXPECT_REPORT(test, UAF, test_uaf_after_neighbour_reads, 4, &p[1]);
}

/*
 * The twin: a page that busy sheds its freed bytes early, as if they had
 * left the quarantine, and rests; a read of them is no longer caught.
 */
static void test_busy_page_shed(struct kunit *test)
{
	u32 *keep;
	u32 *p = test_free_then_others(test, 0, &keep);

	if (kmemcheck_hot_counting())
		kunit_skip(test, "hot counting sends every fault the full way");
	test_read_neighbour(keep, 4 * kmemcheck_shed_faults());
	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_UNALLOCATED);
	KUNIT_EXPECT_TRUE(test, kmemcheck_page_may_rest((unsigned long)p));
	READ_ONCE(p[1]);
	kmem_cache_free(test_cache, keep);
	EXPECT_NO_REPORT(test);
}

/*
 * The free stack sits in the second origin slot of a 32-byte object; a
 * new allocation of the object clears it, or a use of the new object
 * would show the free of the old.  @keep keeps the slab from being given
 * back, and its shadow with it, when @p is freed.
 */
static void test_realloc_forgets_free(struct kunit *test)
{
	struct kmem_cache *c = kmemcheck_test_cache_create(test, 32, 0, NULL);
	enum kmemcheck_origin kind = KMEMCHECK_ORIGIN_NONE;
	u32 *keep = kmem_cache_alloc(c, GFP_KERNEL);
	u32 *p = kmem_cache_alloc(c, GFP_KERNEL);
	unsigned long slot;

	KUNIT_ASSERT_NOT_NULL(test, keep);
	KUNIT_ASSERT_NOT_NULL(test, p);
	slot = (unsigned long)p + KMEMCHECK_ORIGIN_BYTES;
	KUNIT_EXPECT_EQ(test, kmemcheck_origin_get(slot, &kind), 0);
	kmem_cache_free(c, p);
	kmemcheck_test_expect_shadow(test, p, 4, KMEMCHECK_SHADOW_FREED);
	KUNIT_EXPECT_NE(test, kmemcheck_origin_get(slot, &kind), 0);
	KUNIT_EXPECT_EQ(test, kind, KMEMCHECK_ORIGIN_FREE);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	if ((unsigned long)p + KMEMCHECK_ORIGIN_BYTES != slot) {
		kmem_cache_free(c, p);
		kmem_cache_free(c, keep);
		kunit_skip(test, "the cache handed out another object");
	}
	KUNIT_EXPECT_EQ(test, kmemcheck_origin_get(slot, &kind), 0);
	READ_ONCE(p[2]);
	kmem_cache_free(c, p);
	kmem_cache_free(c, keep);
	EXPECT_REPORT(test, UNINIT, test_realloc_forgets_free, 4, &p[2],
		      .origin = test_realloc_forgets_free);
}

/* A user mapping for copy_to_user(), unmapped when the case ends. */
void __user *kmemcheck_test_user_buffer(struct kunit *test, size_t size)
{
	unsigned long addr = kunit_vm_mmap(test, NULL, 0, size,
					   PROT_READ | PROT_WRITE,
					   MAP_ANONYMOUS | MAP_PRIVATE, 0);

	if (IS_ERR_VALUE(addr) || !addr)
		kunit_skip(test, "no user mapping: %ld", (long)addr);
	return (void __user *)addr;
}

/*
 * copy_to_user() of bytes never written: reported at the copy, by the
 * hook in instrument_copy_to_user(), titled with the caller of
 * copy_to_user() and naming the user address; the fault handler, which
 * sees the same copy, does not report it a second time.
 */
static void test_infoleak_copy_to_user(struct kunit *test)
{
	u8 __user *user = kmemcheck_test_user_buffer(test, PAGE_SIZE);
	u32 *src = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(src[0], 1);
	WRITE_ONCE(src[1], 1);
	KUNIT_EXPECT_EQ(test, copy_to_user(user + 8, src, 16), 0);
	/* The report prints the user address like any other, with %p. */
	EXPECT_REPORT(test, INFOLEAK, test_infoleak_copy_to_user, 16, src,
		      (__force const void *)(user + 8), &src[2],
		      .user = (unsigned long)(user + 8),
		      .bytes = "Bytes 8-15 of 16 are uninitialized",
		      .origin = test_infoleak_copy_to_user);
	KUNIT_EXPECT_EQ(test, report_count(), 1);
}

static void test_init_copy_to_user(struct kunit *test)
{
	u8 __user *user = kmemcheck_test_user_buffer(test, PAGE_SIZE);
	u32 *src = kmemcheck_test_alloc(test, 16, GFP_KERNEL | __GFP_ZERO);

	KUNIT_EXPECT_EQ(test, copy_to_user(user + 8, src, 16), 0);
	EXPECT_NO_REPORT(test);
}

/*
 * copy_from_user() initializes what it copies, and only that: whether the
 * user page is there (the fault handler copies) or not yet (the copy takes
 * the user fault itself, single-stepped).
 */
static u32 *test_copy_from_user(struct kunit *test, bool user_present)
{
	u8 __user *user = kmemcheck_test_user_buffer(test, PAGE_SIZE);
	u32 *dst = kmemcheck_test_alloc(test, 64, GFP_KERNEL);

	if (user_present)
		KUNIT_ASSERT_EQ(test, clear_user(user, 64), 0);
	KUNIT_EXPECT_EQ(test, copy_from_user(dst, user, 32), 0);
	kmemcheck_test_expect_shadow(test, dst, 32,
				     KMEMCHECK_SHADOW_INITIALIZED);
	kmemcheck_test_expect_shadow(test, &dst[8], 32,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	return dst;
}

static void test_init_copy_from_user(struct kunit *test)
{
	READ_ONCE(test_copy_from_user(test, true)[7]);
	EXPECT_NO_REPORT(test);
}

static void test_init_copy_from_user_absent(struct kunit *test)
{
	READ_ONCE(test_copy_from_user(test, false)[7]);
	EXPECT_NO_REPORT(test);
}

/* The twin: the bytes after those copied are still uninitialized. */
/*
 * A copy from a user address with nothing mapped, made with page faults
 * disabled: the step is cut by the fault and the exception table, nothing
 * is copied, and the destination stays uninitialized.
 */
static void test_cancelled_copy_keeps_shadow(struct kunit *test)
{
	u8 __user *user = kmemcheck_test_user_buffer(test, PAGE_SIZE);
	u32 *dst = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	KUNIT_ASSERT_EQ(test, vm_munmap((unsigned long)user, PAGE_SIZE), 0);
	KUNIT_EXPECT_NE(test, copy_from_user_nofault(dst, user, 16), 0L);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_shadow(test, dst, 16,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
}

static void test_done_copy_initializes(struct kunit *test)
{
	u8 __user *user = kmemcheck_test_user_buffer(test, PAGE_SIZE);
	u32 *dst = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	KUNIT_ASSERT_EQ(test, clear_user(user, 16), 0UL);
	KUNIT_EXPECT_EQ(test, copy_from_user_nofault(dst, user, 16), 0L);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_shadow(test, dst, 16,
				     KMEMCHECK_SHADOW_INITIALIZED);
}

static void test_uninit_after_copy_from_user(struct kunit *test)
{
	u32 *dst = test_copy_from_user(test, true);

	READ_ONCE(dst[8]);
	EXPECT_REPORT(test, UNINIT, test_uninit_after_copy_from_user, 4,
		      &dst[8]);
}

/* A buffer mapped for a device to read must be initialized. */
static void test_infoleak_dma_to_device(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 32, GFP_KERNEL);

	test_memset(p, 0, 20);
	kmemcheck_handle_dma(virt_to_page(p), offset_in_page(p), 32,
			     DMA_TO_DEVICE);
	EXPECT_REPORT(test, INFOLEAK, test_infoleak_dma_to_device, 32, p,
		      .bad = p + 20, .dma = true,
		      .bytes = "Bytes 20-31 of 32 are uninitialized");
}

/* Twins: an initialized buffer to a device; any buffer from a device. */
static void test_init_dma(struct kunit *test)
{
	u8 *p = kmemcheck_test_alloc(test, 32, GFP_KERNEL | __GFP_ZERO);
	u8 *q = kmemcheck_test_alloc(test, 32, GFP_KERNEL);

	kmemcheck_handle_dma(virt_to_page(p), offset_in_page(p), 32,
			     DMA_TO_DEVICE);
	kmemcheck_handle_dma(virt_to_page(q), offset_in_page(q), 32,
			     DMA_FROM_DEVICE);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_shadow(test, q, 32, KMEMCHECK_SHADOW_INITIALIZED);
}

/* Two callers of memcpy() into a global: two call sites. */
static noinline void test_copy_out_a(void *dst, const void *src, size_t n)
{
	test_memcpy(dst, src, n);
}

static noinline void test_copy_out_b(void *dst, const void *src, size_t n)
{
	test_memcpy(dst, src, n);
}

/*
 * Room for every line of the sites file: the suites before this case have
 * made scores of sites, and the ones asked for may come last.
 */
#define TEST_SITES_SIZE		SZ_32K

/* The count of bad accesses of the site in function @fn, from debugfs. */
static unsigned long site_count(struct kunit *test, const void *fn)
{
	struct seq_file seq = { .size = TEST_SITES_SIZE };
	unsigned long count = 0;
	char name[LINE_LEN];
	char *line, *next;

	seq.buf = kunit_kzalloc(test, TEST_SITES_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seq.buf);
	kmemcheck_sites_show(&seq);
	KUNIT_ASSERT_FALSE_MSG(test, seq_has_overflowed(&seq),
			       "the sites file is longer than %d bytes",
			       TEST_SITES_SIZE);
	scnprintf(name, sizeof(name), " %ps+", fn);
	for (line = seq.buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strstr(line, name))
			continue;
		/* The count is the first field. */
		line[strcspn(line, " ")] = '\0';
		if (!kstrtoul(line, 10, &count))
			break;
	}
	return count;
}

/*
 * The site of a report in memcpy() is the caller: two callers are two
 * sites, with a report each; a repeat from one is counted, not printed.
 */
static void test_dedup_sites(struct kunit *test)
{
	u32 *src = kmemcheck_test_alloc(test, sizeof(test_untracked),
					GFP_KERNEL);
	size_t chunk = kmemcheck_test_rep_chunk(sizeof(test_untracked), 4);
	unsigned long bad = sizeof(test_untracked) / chunk;

	test_copy_out_a(test_untracked, src, sizeof(test_untracked));
	test_copy_out_a(test_untracked, src, sizeof(test_untracked));
	test_copy_out_b(test_untracked, src, sizeof(test_untracked));
	EXPECT_REPORT(test, UNINIT, test_copy_out_a, chunk, src, test_untracked);
	EXPECT_REPORT(test, UNINIT, test_copy_out_b, chunk, src, test_untracked);
	KUNIT_EXPECT_EQ(test, report_count(), 2);
	/* Bad accesses: one per copy, or per element when single-stepped. */
	KUNIT_EXPECT_EQ(test, site_count(test, test_copy_out_a), 2 * bad);
	KUNIT_EXPECT_EQ(test, site_count(test, test_copy_out_b), bad);
}

/* An allocation stack of its own, for test_dedup_origins(). */
static noinline void *test_alloc_elsewhere(struct kunit *test, size_t size)
{
	void *p = kmemcheck_test_alloc(test, size, GFP_KERNEL);

	/* Not a tail call: this frame must be in the allocation stack. */
	barrier();
	return p;
}

/*
 * Two copies through one helper, of memory allocated in two places,
 * are two bugs: two reports (test_dedup_sites() is the twin, one
 * allocation copied twice: one report).
 */
static void test_dedup_origins(struct kunit *test)
{
	u32 *one = kmemcheck_test_alloc(test, sizeof(test_untracked),
					GFP_KERNEL);
	u32 *two = test_alloc_elsewhere(test, sizeof(test_untracked));
	size_t chunk = kmemcheck_test_rep_chunk(sizeof(test_untracked), 4);

	test_copy_out_a(test_untracked, one, sizeof(test_untracked));
	test_copy_out_a(test_untracked, two, sizeof(test_untracked));
	EXPECT_REPORT(test, UNINIT, test_copy_out_a, chunk, one, test_untracked);
	EXPECT_REPORT(test, UNINIT, test_copy_out_a, chunk, two, test_untracked);
	KUNIT_EXPECT_EQ(test, report_count(), 2);
}

/* The twin: the same callers with initialized bytes. */
static void test_dedup_sites_init(struct kunit *test)
{
	u32 *src = kmemcheck_test_alloc(test, sizeof(test_untracked),
					GFP_KERNEL | __GFP_ZERO);
	unsigned long a = site_count(test, test_copy_out_a);

	test_copy_out_a(test_untracked, src, sizeof(test_untracked));
	test_copy_out_b(test_untracked, src, sizeof(test_untracked));
	EXPECT_NO_REPORT(test);
	KUNIT_EXPECT_EQ(test, site_count(test, test_copy_out_a), a);
}

/* ===== Modes ===== */

/* One-shot: the first report turns checking off. */
static void test_oneshot(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(kmemcheck_mode, KMEMCHECK_MODE_ONESHOT);
	READ_ONCE(p[0]);
	READ_ONCE(p[1]);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kmemcheck_mode), KMEMCHECK_MODE_OFF);
	WRITE_ONCE(kmemcheck_mode, KMEMCHECK_MODE_ON);
	EXPECT_REPORT(test, UNINIT, test_oneshot, 4, &p[0]);
	KUNIT_EXPECT_EQ(test, report_count(), 1);
}

static void test_mode_off(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	WRITE_ONCE(kmemcheck_mode, KMEMCHECK_MODE_OFF);
	READ_ONCE(p[0]);
	WRITE_ONCE(kmemcheck_mode, KMEMCHECK_MODE_ON);
	EXPECT_NO_REPORT(test);
}

static void test_disable_current(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	kmemcheck_disable_current();
	READ_ONCE(p[0]);
	WRITE_ONCE(p[1], 1);
	kmemcheck_enable_current();
	kmemcheck_test_expect_shadow(test, &p[1], 4,
				     KMEMCHECK_SHADOW_INITIALIZED);
	EXPECT_NO_REPORT(test);
}

/* kmemcheck_unchecked(): the reads of its expression are not checked... */
static void test_unchecked(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	(void)kmemcheck_unchecked(READ_ONCE(p[0]));
	EXPECT_NO_REPORT(test);
}

/* ... and those after it are. */
static void test_unchecked_ends(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	(void)kmemcheck_unchecked(READ_ONCE(p[0]));
	READ_ONCE(p[1]);
	EXPECT_REPORT(test, UNINIT, test_unchecked_ends, 4, &p[1]);
}

/* ===== Reports fail other suites' tests ===== */

/*
 * Run the accesses that follow as if a test of another suite, @other, made
 * them: that suite does not expect reports, so a report must fail @other,
 * and only @other.
 */
static void other_test_begin(struct kunit *other, bool expect_reports)
{
	kunit_init_test(other, "other", NULL);
	kmemcheck_kunit_expect_reports(expect_reports);
	current->kunit_test = other;
}

static void other_test_end(struct kunit *test)
{
	current->kunit_test = test;
	kmemcheck_kunit_expect_reports(true);
}

static void test_uninit_fails_kunit_test(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);
	struct kunit other;

	other_test_begin(&other, false);
	READ_ONCE(*p);
	other_test_end(test);
	KUNIT_EXPECT_EQ(test, other.status, KUNIT_FAILURE);
	EXPECT_REPORT(test, UNINIT, test_uninit_fails_kunit_test, 4, p);
}

static void test_init_passes_kunit_test(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL | __GFP_ZERO);
	struct kunit other;

	other_test_begin(&other, false);
	READ_ONCE(*p);
	other_test_end(test);
	KUNIT_EXPECT_EQ(test, other.status, KUNIT_SUCCESS);
	EXPECT_NO_REPORT(test);
}

/* A suite that checks reports itself, as this one, is not failed. */
static void test_uninit_expected_passes_kunit_test(struct kunit *test)
{
	u32 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);
	struct kunit other;

	other_test_begin(&other, true);
	READ_ONCE(*p);
	other_test_end(test);
	KUNIT_EXPECT_EQ(test, other.status, KUNIT_SUCCESS);
	EXPECT_REPORT(test, UNINIT, test_uninit_expected_passes_kunit_test, 4,
		      p);
}

/* ===== Following values to their use (kmemcheck.follow=1) ===== */

/* kmemcheck.follow as the suite found it, restored after each case. */
static bool saved_follow;

/* Values whose following ended unjudged before the case started. */
static long follow_unjudged_before;

static long follow_unjudged_count(void)
{
	return atomic_long_read(&kmemcheck_counters[KMEMCHECK_COUNTER_FOLLOW_UNJUDGED]) +
	       atomic_long_read(&kmemcheck_counters[KMEMCHECK_COUNTER_FOLLOW_DROPPED]);
}

void kmemcheck_test_follow_on(struct kunit *test)
{
	follow_unjudged_before = follow_unjudged_count();
	WRITE_ONCE(kmemcheck_follow, true);
}

/*
 * No report is no proof unless every value was judged: followed until
 * its undefined bits were gone, not given up at an instruction the model
 * does not cover.
 */
void kmemcheck_test_expect_follow_judged(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, follow_unjudged_count(), follow_unjudged_before,
			    "following a value ended unjudged");
}

/*
 * atomic64_set() on a fresh object: i386's CMPXCHG8B loop compares the
 * uninitialized old value and branches on the outcome, but it stores
 * whatever it saw.  Not a use.
 */
static void test_follow_atomic64_set(struct kunit *test)
{
	atomic64_t *v = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	atomic64_set(&v[1], 1);
	EXPECT_NO_REPORT(test);
	kmemcheck_test_expect_follow_judged(test);
	kmemcheck_test_expect_shadow(test, &v[1], 8,
				     KMEMCHECK_SHADOW_INITIALIZED);
	KUNIT_EXPECT_EQ(test, atomic64_read(&v[1]), 1);
	EXPECT_NO_REPORT(test);
}

/* ... a compare-and-exchange whose outcome is branched on uses it. */
static void test_follow_cmpxchg64_used(struct kunit *test)
{
	u64 *p = kmemcheck_test_alloc(test, 16, GFP_KERNEL);

	kmemcheck_test_follow_on(test);
	if (cmpxchg64(&p[1], 0, 1) == 0)
		WRITE_ONCE(p[0], 1);
	EXPECT_REPORT(test, UNINIT, test_follow_cmpxchg64_used, 8, &p[1],
		      .use = USE_BRANCH, .loaded = test_follow_cmpxchg64_used);
}

/* ===== kmemcheck.track= ===== */

/*
 * Did the case change the selection?  kmemcheck_test_exit() restores
 * everything.
 */
static bool test_track_changed;

static void test_track(struct kunit *test, const char *selection)
{
	test_track_changed = true;
	KUNIT_ASSERT_EQ(test, kmemcheck_track_set(selection), 0);
}

/*
 * Call sites of the slab allocator, in functions of their own.  Their code
 * differs, or GCC folds one into the other (-fipa-icf).
 */
static noinline u32 *track_alloc_selected(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline u32 *track_alloc_other(size_t size)
{
	return kmalloc(size, GFP_KERNEL | __GFP_NOWARN);
}

static void test_track_cache_selected(struct kunit *test)
{
	struct kmem_cache *c;
	u32 *p;

	test_track(test, "cache:kmemcheck_t?st");
	c = kmemcheck_test_cache_create(test, 32, 0, NULL);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kmemcheck_test_expect_shadow(test, p, 32,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	READ_ONCE(p[2]);
	kmem_cache_free(c, p);
	EXPECT_REPORT(test, UNINIT, test_track_cache_selected, 4, &p[2]);
}

/* A cache no term names gets no shadow at all. */
static void test_track_cache_other(struct kunit *test)
{
	struct kmem_cache *c;
	u32 *p;

	test_track(test, "cache:kmemcheck_other,cache:kmemcheck_test_*");
	c = kmemcheck_test_cache_create(test, 32, 0, NULL);
	p = kmem_cache_alloc(c, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NULL(test, kmemcheck_shadow_of((unsigned long)p));
	READ_ONCE(p[2]);
	kmem_cache_free(c, p);
	EXPECT_NO_REPORT(test);
}

static void test_track_func_selected(struct kunit *test)
{
	u32 *p;

	test_track(test, "cache:kmemcheck_other,func:track_alloc_sel*");
	p = track_alloc_selected(16);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kmemcheck_test_expect_shadow(test, p, 16,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	READ_ONCE(p[1]);
	kfree(p);
	EXPECT_REPORT(test, UNINIT, test_track_func_selected, 4, &p[1]);
}

/*
 * An object allocated elsewhere, in a cache whose pages are tracked for
 * the selected function: never checked, neither its uninitialized bytes
 * nor, once freed, the object itself.
 */
static void test_track_func_other(struct kunit *test)
{
	u32 *p;

	test_track(test, "cache:kmemcheck_other,func:track_alloc_sel*");
	p = track_alloc_other(16);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kmemcheck_test_expect_shadow(test, p, 16, KMEMCHECK_SHADOW_INITIALIZED);
	READ_ONCE(p[1]);
	kfree(p);
	READ_ONCE(p[2]);
	EXPECT_NO_REPORT(test);
}

/* The tests are built in: no module term selects what they allocate. */
static void test_track_module_other(struct kunit *test)
{
	u32 *p;

	test_track(test, "module:kmemcheck*");
	p = track_alloc_selected(16);
	KUNIT_ASSERT_NOT_NULL(test, p);
	READ_ONCE(p[1]);
	kfree(p);
	EXPECT_NO_REPORT(test);
}

static void test_track_pages_selected(struct kunit *test)
{
	u32 *p;

	test_track(test, "cache:kmemcheck_other,pages");
	p = kmemcheck_test_alloc_pages(test, GFP_KERNEL, 0);
	kmemcheck_test_expect_shadow(test, p, 16,
				     KMEMCHECK_SHADOW_UNINITIALIZED);
	READ_ONCE(p[3]);
	EXPECT_REPORT(test, UNINIT, test_track_pages_selected, 4, &p[3]);
}

static void test_track_pages_other(struct kunit *test)
{
	u32 *p;

	test_track(test, "cache:kmemcheck_other");
	p = kmemcheck_test_alloc_pages(test, GFP_KERNEL, 0);
	KUNIT_EXPECT_NULL(test, kmemcheck_shadow_of((unsigned long)p));
	READ_ONCE(p[3]);
	EXPECT_NO_REPORT(test);
}

/* Bad selections are refused and leave the one in force. */
static void test_track_parse(struct kunit *test)
{
	static const char *const bad[] = {
		"", ",", "cache:", "func:", "module:", "slab:x", "cache:a,",
		"pages,cache", "all,bogus",
	};
	char many[(KMEMCHECK_TRACK_TERMS + 1) * sizeof(",cache:x")];
	unsigned int i;
	size_t len = 0;
	u32 *p;

	test_track(test, "cache:kmemcheck_other,func:track_alloc_sel*");
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, kmemcheck_track_set(bad[i]), -EINVAL,
				    "selection \"%s\"", bad[i]);
	/* One term more than a selection takes. */
	for (i = 0; i <= KMEMCHECK_TRACK_TERMS; i++)
		len += scnprintf(many + len, sizeof(many) - len, "%scache:%c",
				 i ? "," : "", 'a' + i);
	KUNIT_EXPECT_EQ(test, kmemcheck_track_set(many), -EINVAL);
	/* The selection in force is still the first. */
	p = track_alloc_other(16);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kmemcheck_test_expect_shadow(test, p, 16, KMEMCHECK_SHADOW_INITIALIZED);
	kfree(p);
	KUNIT_EXPECT_EQ(test, kmemcheck_track_set("pages,all\n"), 0);
	KUNIT_EXPECT_TRUE(test, kmemcheck_track_everything());
	KUNIT_EXPECT_EQ(test, kmemcheck_track_set("cache:a*,func:b,module:c,pages\n"), 0);
	KUNIT_EXPECT_FALSE(test, kmemcheck_track_everything());
	EXPECT_NO_REPORT(test);
}

/* ===== Suite ===== */

int kmemcheck_test_init(struct kunit *test)
{
	/* Skipped one by one: a suite_init cannot skip the suite. */
	if (!kmemcheck_enabled())
		kunit_skip(test, "booted with kmemcheck=0");
	report_reset();
	/*
	 * The cases test the checks at each access; those of values
	 * followed to their use (test_follow_*) turn following on.
	 */
	WRITE_ONCE(kmemcheck_follow, false);
	test->priv = NULL;
	test_cache = NULL;
	test_pages_order = 0;
	test_track_changed = false;
	return 0;
}

void kmemcheck_test_exit(struct kunit *test)
{
	struct page *page = test->priv;

	if (page)
		__free_pages(page, test_pages_order);
	kmem_cache_destroy(test_cache);
	test_cache = NULL;
	if (test_track_changed)
		KUNIT_EXPECT_EQ(test, kmemcheck_track_set("all"), 0);
	WRITE_ONCE(kmemcheck_follow, saved_follow);
	/* No report may leak into the next case. */
	kmemcheck_report_flush();
}

static int saved_mode;

int kmemcheck_test_suite_init(struct kunit_suite *suite)
{
	char ptr[16];

	scnprintf(ptr, sizeof(ptr), "%p", &observed);
	if (strstr(ptr, "ptrval"))
		pr_notice("%s: %%p prints (ptrval): addresses always match\n",
			  suite->name);
	saved_mode = READ_ONCE(kmemcheck_mode);
	saved_follow = READ_ONCE(kmemcheck_follow);
	if (kmemcheck_enabled())
		WRITE_ONCE(kmemcheck_mode, KMEMCHECK_MODE_ON);
	register_trace_console(probe_console, NULL);
	/* Cases check their reports: reports must not fail them. */
	kmemcheck_kunit_expect_reports(true);
	return 0;
}

void kmemcheck_test_suite_exit(struct kunit_suite *suite)
{
	kmemcheck_kunit_expect_reports(false);
	unregister_trace_console(probe_console, NULL);
	tracepoint_synchronize_unregister();
	WRITE_ONCE(kmemcheck_mode, saved_mode);
}

static struct kunit_case kmemcheck_test_cases[] = {
	KUNIT_CASE(test_uninit_kmalloc),
	KUNIT_CASE(test_init_kzalloc),
	KUNIT_CASE(test_init_written),
	KUNIT_CASE(test_uninit_kmalloc_slack),
	KUNIT_CASE(test_init_kmalloc_slack),
	KUNIT_CASE(test_uninit_krealloc_slack),
	KUNIT_CASE(test_init_krealloc_slack),
	KUNIT_CASE(test_uninit_mark_slack),
	KUNIT_CASE(test_init_mark_slack),
	KUNIT_CASE(test_census_uninit),
	KUNIT_CASE(test_census_written),
	KUNIT_CASE(test_init_kzalloc_slack),
	KUNIT_CASE(test_init_memcache_ctor),
	KUNIT_CASE(test_uninit_memcache),
	KUNIT_CASE(test_notrack_memcache),
	KUNIT_CASE(test_notrack_kmalloc),
	KUNIT_CASE(test_unallocated_memcache),
	KUNIT_CASE(test_init_memcache_object),
	KUNIT_CASE(test_uninit_memcache_destroyed),
	KUNIT_CASE(test_init_memcache_destroyed),
	KUNIT_CASE(test_uninit_pages),
	KUNIT_CASE(test_init_pages_zero),
	KUNIT_CASE(test_notrack_pages),
	KUNIT_CASE(test_uninit_pages_rehidden),
	KUNIT_CASE(test_direct_map_hidden),
	KUNIT_CASE(test_direct_map_untracked),
	KUNIT_CASE(test_highmem_untracked),
	KUNIT_CASE(test_use_after_free),
	KUNIT_CASE(test_uaf_in_quarantine),
	KUNIT_CASE(test_uaf_page),
	KUNIT_CASE(test_page_reused),
	KUNIT_CASE(test_uninit_copied_page),
	KUNIT_CASE(test_init_copied_page),
	KUNIT_CASE(test_copied_page_untracked),
	KUNIT_CASE(test_page_quarantine_expires),
	KUNIT_CASE(test_track_cache_selected),
	KUNIT_CASE(test_track_cache_other),
	KUNIT_CASE(test_track_func_selected),
	KUNIT_CASE(test_track_func_other),
	KUNIT_CASE(test_track_module_other),
	KUNIT_CASE(test_track_pages_selected),
	KUNIT_CASE(test_track_pages_other),
	KUNIT_CASE(test_track_parse),
	KUNIT_CASE(test_quarantine_expires),
	KUNIT_CASE(test_uaf_after_neighbour_reads),
	KUNIT_CASE(test_busy_page_shed),
	KUNIT_CASE(test_read_before_free),
	KUNIT_CASE(test_uninit_read_u8),
	KUNIT_CASE(test_uninit_read_u16),
	KUNIT_CASE(test_uninit_read_u32),
	KUNIT_CASE(test_uninit_read_u64),
	KUNIT_CASE(test_uninit_read_8_cmpxchg8b),
	KUNIT_CASE(test_init_atomic64_set),
	KUNIT_CASE(test_init_read_sizes),
	KUNIT_CASE(test_uninit_partial),
	KUNIT_CASE(test_init_partial),
	KUNIT_CASE(test_uninit_straddle),
	KUNIT_CASE(test_init_straddle),
	KUNIT_CASE(test_uninit_memcpy),
	KUNIT_CASE(test_init_memcpy),
	KUNIT_CASE(test_uninit_memcpy_unaligned),
	KUNIT_CASE(test_init_memcpy_unaligned),
	KUNIT_CASE(test_uninit_memcpy_global),
	KUNIT_CASE(test_init_memcpy_untracked),
	KUNIT_CASE(test_uninit_cmpxchg),
	KUNIT_CASE(test_init_cmpxchg),
	KUNIT_CASE(test_uninit_xchg),
	KUNIT_CASE(test_init_xchg),
	KUNIT_CASE(test_uninit_xadd),
	KUNIT_CASE(test_init_xadd),
	KUNIT_CASE(test_uninit_bts),
	KUNIT_CASE(test_init_bts),
	KUNIT_CASE(test_init_one_fault),
	KUNIT_CASE(test_origin_stack),
	KUNIT_CASE(test_init_strlen),
	KUNIT_CASE(test_uninit_strlen),
	KUNIT_CASE(test_init_memset),
	KUNIT_CASE(test_uninit_memset_half),
	KUNIT_CASE(test_init_mark_initialized),
	KUNIT_CASE(test_uninit_mark_uninitialized),
	KUNIT_CASE(test_oneshot),
	KUNIT_CASE(test_mode_off),
	KUNIT_CASE(test_disable_current),
	KUNIT_CASE(test_unchecked),
	KUNIT_CASE(test_unchecked_ends),
	KUNIT_CASE(test_uninit_fails_kunit_test),
	KUNIT_CASE(test_init_passes_kunit_test),
	KUNIT_CASE(test_uninit_expected_passes_kunit_test),
	KUNIT_CASE(test_origin_kmalloc),
	KUNIT_CASE(test_origin_kmalloc_init),
	KUNIT_CASE(test_origin_keeps_state),
	KUNIT_CASE(test_origin_pages),
	KUNIT_CASE(test_origin_pages_init),
	KUNIT_CASE(test_uaf_stacks),
	KUNIT_CASE(test_uaf_stacks_before_free),
	KUNIT_CASE(test_realloc_forgets_free),
	KUNIT_CASE(test_infoleak_copy_to_user),
	KUNIT_CASE(test_init_copy_to_user),
	KUNIT_CASE(test_init_copy_from_user),
	KUNIT_CASE(test_init_copy_from_user_absent),
	KUNIT_CASE(test_uninit_after_copy_from_user),
	KUNIT_CASE(test_infoleak_dma_to_device),
	KUNIT_CASE(test_init_dma),
	KUNIT_CASE(test_dedup_sites),
	KUNIT_CASE(test_dedup_origins),
	KUNIT_CASE(test_dedup_sites_init),
	KUNIT_CASE(test_follow_atomic64_set),
	KUNIT_CASE(test_follow_cmpxchg64_used),
	KUNIT_CASE(test_cmpxchg_failed_keeps_shadow),
	KUNIT_CASE(test_cmpxchg_done_initializes),
	KUNIT_CASE(test_cancelled_copy_keeps_shadow),
	KUNIT_CASE(test_done_copy_initializes),
	{}
};

static struct kunit_suite kmemcheck_test_suite = {
	.name = "kmemcheck",
	.test_cases = kmemcheck_test_cases,
	.init = kmemcheck_test_init,
	.exit = kmemcheck_test_exit,
	.suite_init = kmemcheck_test_suite_init,
	.suite_exit = kmemcheck_test_suite_exit,
};

kunit_test_suites(&kmemcheck_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for kmemcheck");
