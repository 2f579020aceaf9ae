// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck demo: /sys/kernel/debug/kmemcheck/demo makes the kernel commit
 * the two bugs kmemcheck exists to catch, so anyone can watch it work.
 *
 *   echo uninit > demo	uses a field of a kmalloc()ed object never written
 *   cat demo		copies a struct with uninitialized padding to user
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kmemcheck.h"

struct kmemcheck_demo_reply {
	u8 version;
	/* Three bytes of padding here are never written. */
	u32 value;
};

/*
 * The bug: 'limit' decides something before anything is stored in it.  A
 * read alone would not do: kmemcheck reports an uninitialized value where
 * it is used, and a value never used is no bug.
 */
static noinline void kmemcheck_demo_uninit_read(void)
{
	struct kmemcheck_demo_config {
		int enabled;
		int limit;
	} *config;

	config = kmalloc(sizeof(*config), GFP_KERNEL);
	if (!config)
		return;
	config->enabled = 1;
	if (READ_ONCE(config->limit) > 0)
		WRITE_ONCE(config->enabled, 2);
	kfree(config);
}

static ssize_t demo_write(struct file *file, const char __user *ubuf,
			  size_t count, loff_t *ppos)
{
	char buf[16];

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (!sysfs_streq(buf, "uninit"))
		return -EINVAL;
	kmemcheck_demo_uninit_read();
	kmemcheck_report_flush();
	return count;
}

/* The bug: the padding of the reply leaks heap contents to user space. */
static ssize_t demo_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	struct kmemcheck_demo_reply *reply;
	ssize_t ret;

	reply = kmalloc(sizeof(*reply), GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	reply->version = 1;
	reply->value = 42;
	ret = simple_read_from_buffer(ubuf, count, ppos, reply, sizeof(*reply));
	kfree(reply);
	kmemcheck_report_flush();
	return ret;
}

static const struct file_operations demo_fops = {
	.owner	= THIS_MODULE,
	.read	= demo_read,
	.write	= demo_write,
	.llseek	= default_llseek,
};

void __init kmemcheck_demo_init(struct dentry *dir)
{
	debugfs_create_file("demo", 0600, dir, NULL, &demo_fops);
}
