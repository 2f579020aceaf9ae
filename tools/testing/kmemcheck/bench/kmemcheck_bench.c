// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck microbenchmark: slab-heavy kernel loops timed with ktime.
 *
 * Built as a module against every kernel the benchmark compares, with and
 * without CONFIG_KMEMCHECK, so it uses no kmemcheck interface.  Writing a
 * workload name to /sys/kernel/debug/kmemcheck_bench runs it once and
 * prints one line:
 *
 *	kmemcheck_bench: <workload> ops=<operations> ns=<nanoseconds>
 *
 * Reading the file gives ktime_get_ns(), a clock for timing user-space
 * workloads finer than /proc/uptime.  User space reads the kmemcheck
 * counters around each workload to divide the traps by the operations.
 * Every byte read was written first: a kmemcheck report here would be a
 * false positive.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define BENCH_KMALLOC_LOOPS	4000
#define BENCH_LIST_OBJECTS	1000
#define BENCH_LIST_WALKS	8
#define BENCH_MEMCPY_SIZE	4096
#define BENCH_MEMCPY_LOOPS	1000

/* Keeps the compiler from dropping the reads. */
static unsigned long bench_sink;

/* kmalloc, fill, read back and kfree objects of a few sizes. */
static int bench_kmalloc(unsigned long *ops)
{
	static const size_t sizes[] = { 32, 96, 256 };
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < BENCH_KMALLOC_LOOPS; i++) {
		size_t size = sizes[i % ARRAY_SIZE(sizes)];
		u32 *p = kmalloc(size, GFP_KERNEL);
		size_t j;

		if (!p)
			return -ENOMEM;
		for (j = 0; j < size / sizeof(*p); j++)
			WRITE_ONCE(p[j], i + j);
		for (j = 0; j < size / sizeof(*p); j++)
			sum += READ_ONCE(p[j]);
		kfree(p);
	}
	WRITE_ONCE(bench_sink, sum);
	*ops = BENCH_KMALLOC_LOOPS;
	return 0;
}

struct bench_node {
	struct list_head list;
	unsigned long key;
	unsigned long payload[5];
};

/* Walk a list of slab objects: the pointer chasing of most kernel code. */
static int bench_list(unsigned long *ops)
{
	struct kmem_cache *cache;
	struct bench_node *node, *tmp;
	unsigned long sum = 0;
	unsigned int i;
	LIST_HEAD(head);
	int ret = 0;

	cache = kmem_cache_create("kmemcheck_bench_node",
				  sizeof(struct bench_node), 0, 0, NULL);
	if (!cache)
		return -ENOMEM;
	for (i = 0; i < BENCH_LIST_OBJECTS; i++) {
		node = kmem_cache_alloc(cache, GFP_KERNEL);
		if (!node) {
			ret = -ENOMEM;
			goto out;
		}
		node->key = i;
		memset(node->payload, 0, sizeof(node->payload));
		list_add_tail(&node->list, &head);
	}
	for (i = 0; i < BENCH_LIST_WALKS; i++) {
		list_for_each_entry(node, &head, list)
			sum += node->key + node->payload[i % ARRAY_SIZE(node->payload)];
	}
	WRITE_ONCE(bench_sink, sum);
	*ops = BENCH_LIST_OBJECTS * BENCH_LIST_WALKS;
out:
	list_for_each_entry_safe(node, tmp, &head, list) {
		list_del(&node->list);
		kmem_cache_free(cache, node);
	}
	kmem_cache_destroy(cache);
	return ret;
}

/* memcpy() between two slab buffers, back and forth. */
static int bench_memcpy(unsigned long *ops)
{
	u8 *a = kmalloc(BENCH_MEMCPY_SIZE, GFP_KERNEL);
	u8 *b = kmalloc(BENCH_MEMCPY_SIZE, GFP_KERNEL);
	unsigned int i;
	int ret = 0;

	if (!a || !b) {
		ret = -ENOMEM;
		goto out;
	}
	memset(a, 0x5a, BENCH_MEMCPY_SIZE);
	memset(b, 0xa5, BENCH_MEMCPY_SIZE);
	for (i = 0; i < BENCH_MEMCPY_LOOPS; i++) {
		if (i & 1)
			memcpy(a, b, BENCH_MEMCPY_SIZE);
		else
			memcpy(b, a, BENCH_MEMCPY_SIZE);
	}
	WRITE_ONCE(bench_sink, a[BENCH_MEMCPY_SIZE - 1] + b[0]);
	*ops = BENCH_MEMCPY_LOOPS;
out:
	kfree(a);
	kfree(b);
	return ret;
}

struct bench_workload {
	const char *name;
	int (*run)(unsigned long *ops);
};

static const struct bench_workload bench_workloads[] = {
	{ "kmalloc", bench_kmalloc },
	{ "list", bench_list },
	{ "memcpy", bench_memcpy },
};

static int bench_run(const struct bench_workload *w)
{
	unsigned long ops = 0;
	u64 start, ns;
	int ret;

	start = ktime_get_ns();
	ret = w->run(&ops);
	ns = ktime_get_ns() - start;
	if (ret) {
		pr_err("%s failed: %d\n", w->name, ret);
		return ret;
	}
	pr_info("%s ops=%lu ns=%llu\n", w->name, ops, ns);
	return 0;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char name[16];
	unsigned int i;
	int ret;

	if (count >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	name[count] = '\0';
	strim(name);
	for (i = 0; i < ARRAY_SIZE(bench_workloads); i++) {
		if (!strcmp(name, bench_workloads[i].name)) {
			ret = bench_run(&bench_workloads[i]);
			return ret ? ret : count;
		}
	}
	pr_warn("unknown workload '%s'\n", name);
	return -EINVAL;
}

static ssize_t bench_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	char buf[24];
	int len = scnprintf(buf, sizeof(buf), "%llu\n", ktime_get_ns());

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations bench_fops = {
	.owner	= THIS_MODULE,
	.read	= bench_read,
	.write	= bench_write,
	.llseek	= noop_llseek,
};

static struct dentry *bench_file;

static int __init bench_init(void)
{
	bench_file = debugfs_create_file("kmemcheck_bench", 0600, NULL, NULL,
					 &bench_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove(bench_file);
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("kmemcheck microbenchmark: slab loops timed with ktime");
MODULE_LICENSE("GPL");
