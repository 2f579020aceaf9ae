// SPDX-License-Identifier: GPL-2.0
/*
 * An out-of-tree module with a read of uninitialized kmalloc() memory, for
 * the harness's test of "kmemcheck.py run --module": loaded as is, it makes
 * kmemcheck report "uninit-value in kmemcheck_example_sum"; loaded with
 * zero=1, it takes the correct path (kzalloc()) and must not.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#define NR_WORDS 8

static bool zero;
module_param(zero, bool, 0444);
MODULE_PARM_DESC(zero, "allocate with kzalloc(), the correct path (default: kmalloc())");

/* The bug is kmalloc(): it leaves the object's bytes uninitialized. */
static int *kmemcheck_example_alloc(void)
{
	return zero ? kzalloc(NR_WORDS * sizeof(int), GFP_KERNEL) :
		      kmalloc(NR_WORDS * sizeof(int), GFP_KERNEL);
}

/*
 * Only the first half is written: the sum reads the other half, and
 * decides on it here (which words to add), where kmemcheck reports it.
 */
static noinline int kmemcheck_example_sum(int *words)
{
	int i, sum = 0;

	for (i = 0; i < NR_WORDS; i++) {
		int w = READ_ONCE(words[i]);

		if (w > 0)
			sum += w;
	}
	return sum;
}

static int __init kmemcheck_example_init(void)
{
	int *words = kmemcheck_example_alloc();
	int i;

	if (!words)
		return -ENOMEM;
	for (i = 0; i < NR_WORDS / 2; i++)
		words[i] = i;
	pr_info("kmemcheck_example: sum %d (%s)\n", kmemcheck_example_sum(words),
		zero ? "kzalloc" : "kmalloc");
	kfree(words);
	return 0;
}

static void __exit kmemcheck_example_exit(void)
{
}

module_init(kmemcheck_example_init);
module_exit(kmemcheck_example_exit);
MODULE_DESCRIPTION("kmemcheck harness: a read of uninitialized kmalloc() memory");
MODULE_LICENSE("GPL");
