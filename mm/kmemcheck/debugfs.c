// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck debugfs interface: /sys/kernel/debug/kmemcheck/stats and
 * reports (hot.c, hidden.c, track.c and demo.c add their own files).
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/seq_file.h>

#include "kmemcheck.h"

static const char *const kmemcheck_counter_names[] = {
	[KMEMCHECK_COUNTER_TRACKED_PAGES]	= "tracked pages",
	[KMEMCHECK_COUNTER_SHADOW_FAILED]	= "shadow allocation failures",
	[KMEMCHECK_COUNTER_FAULTS]		= "page faults",
	[KMEMCHECK_COUNTER_STEPS]		= "single-steps",
	[KMEMCHECK_COUNTER_EMULATED]		= "emulated instructions",
	[KMEMCHECK_COUNTER_CANCELLED]		= "cancelled steps",
	[KMEMCHECK_COUNTER_UNKNOWN_INSN]	= "unknown instructions",
	[KMEMCHECK_COUNTER_REPORTS]		= "reports",
	[KMEMCHECK_COUNTER_SUPPRESSED]		= "suppressed reports",
	[KMEMCHECK_COUNTER_LIMITED]		= "reports past the limit",
	[KMEMCHECK_COUNTER_LOST]		= "lost reports",
	[KMEMCHECK_COUNTER_FOLLOWED]		= "uninit loads followed",
	[KMEMCHECK_COUNTER_FOLLOW_DIED]		= "followed to no use",
	[KMEMCHECK_COUNTER_FOLLOW_USED]		= "followed to a use",
	[KMEMCHECK_COUNTER_FOLLOW_UNJUDGED]	= "followed, not judged",
	[KMEMCHECK_COUNTER_FOLLOW_DROPPED]	= "followed, dropped",
	[KMEMCHECK_COUNTER_FOLLOW_END + KMEMCHECK_UNJUDGED_BOUND] =
		"not judged: the bound",
	[KMEMCHECK_COUNTER_FOLLOW_END + KMEMCHECK_UNJUDGED_INSN] =
		"not judged: an unmodelled instruction",
	[KMEMCHECK_COUNTER_FOLLOW_END + KMEMCHECK_UNJUDGED_FAULT] =
		"not judged: an exception",
	[KMEMCHECK_COUNTER_FOLLOW_END + KMEMCHECK_UNJUDGED_STACK] =
		"not judged: a change of stack",
	[KMEMCHECK_COUNTER_FOLLOW_END + KMEMCHECK_UNJUDGED_SPILL] =
		"not judged: too many stack words",
	[KMEMCHECK_COUNTER_FOLLOW_INSNS]	= "instructions followed",
	[KMEMCHECK_COUNTER_PARTIAL_PAGES]	= "partial pages",
	[KMEMCHECK_COUNTER_PARTIAL_LOST]	= "partial bytes lost",
	[KMEMCHECK_COUNTER_UNSELECTED]		= "allocations not selected",
	[KMEMCHECK_COUNTER_REPLAYED]		= "replayed instructions",
	[KMEMCHECK_COUNTER_SHED]		= "busy pages shed",
	[KMEMCHECK_COUNTER_STACK_LOST]		= "stack bytes not followed",
};

static_assert(ARRAY_SIZE(kmemcheck_counter_names) == KMEMCHECK_COUNTER_COUNT);

static int stats_show(struct seq_file *seq, void *v)
{
	unsigned int i;

	seq_printf(seq, "enabled: %d\n", kmemcheck_enabled());
	seq_printf(seq, "mode: %d\n", READ_ONCE(kmemcheck_mode));
	for (i = 0; i < KMEMCHECK_COUNTER_COUNT; i++)
		seq_printf(seq, "%s: %ld\n", kmemcheck_counter_names[i],
			   atomic_long_read(&kmemcheck_counters[i]));
	/* One shadow byte per tracked byte. */
	seq_printf(seq, "shadow bytes: %ld\n",
		   atomic_long_read(&kmemcheck_counters[KMEMCHECK_COUNTER_TRACKED_PAGES]) *
		   (long)PAGE_SIZE);
	/* And a mask byte per byte of pages with partly initialized bytes. */
	seq_printf(seq, "partial bytes: %ld\n",
		   atomic_long_read(&kmemcheck_counters[KMEMCHECK_COUNTER_PARTIAL_PAGES]) *
		   (long)PAGE_SIZE);
	kmemcheck_report_counts_show(seq);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int reports_show(struct seq_file *seq, void *v)
{
	kmemcheck_sites_show(seq);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(reports);

static int __init kmemcheck_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kmemcheck", NULL);

	debugfs_create_file("stats", 0444, dir, NULL, &stats_fops);
	debugfs_create_file("reports", 0444, dir, NULL, &reports_fops);
	kmemcheck_hot_init(dir);
	kmemcheck_hidden_init(dir);
	kmemcheck_track_init(dir);
	kmemcheck_demo_init(dir);
	return 0;
}
late_initcall(kmemcheck_debugfs_init);
