// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck demo: /sys/kernel/debug/kmemcheck/demo makes the kernel commit
 * the two bugs kmemcheck exists to catch, so anyone can watch it work.
 *
 *   echo uninit > demo	uses a field of a kmalloc()ed object never written
 *   cat demo		copies a struct with uninitialized padding to user
 *   echo exec > demo	calls code in a kmalloc()ed object: with NX, the
 *			kernel oopses and kills the writer, as it must
 *   echo divide > demo	divides by a zero in a kmalloc()ed object: the
 *			divide error oopses and kills the writer, and
 *			kmemcheck, whose step it cut short, goes on
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>

#include <asm/kmemcheck.h>

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

/*
 * Not a bug kmemcheck reports: one it must leave alone.  A call into the
 * heap is an instruction fetch, which kmemcheck never emulates nor steps,
 * so that the CPU refuses it with NX as it would without kmemcheck: the
 * kernel oopses with "kernel tried to execute NX-protected page" at the
 * first instruction.  That instruction is one kmemcheck emulates when it
 * is a data access to a hidden page: a store to the code itself, covering
 * the faulting address.  Had kmemcheck emulated it, the oops would come
 * at the ret after it, and the code would no longer start with the store.
 */
static noinline void kmemcheck_demo_exec(void)
{
	void (*fn)(void);
	u8 *code;

	/* Most of the object stays uninitialized, so its page stays hidden. */
	code = kmalloc(64, GFP_KERNEL);
	if (!code)
		return;
	/* movl $0x4e584e58, code; ret */
	code[0] = 0xc7;
	code[1] = 0x05;
	put_unaligned((u32)(unsigned long)code, (u32 *)(code + 2));
	put_unaligned(0x4e584e58, (u32 *)(code + 6));
	code[10] = 0xc3;
	pr_info("kmemcheck: demo: calling code at %p, its page %s\n", code,
		kmemcheck_arch_page_hidden((unsigned long)code) ? "hidden" :
		"mapped");
	fn = (void *)code;
	OPTIMIZER_HIDE_VAR(fn);
	fn();
	pr_info("kmemcheck: demo: the code at %p ran, it starts with %*ph\n",
		code, 4, code);
	kfree(code);
}

/*
 * Not a bug kmemcheck reports either: a divide error in the middle of one
 * of its steps.  The divisor is read from a tracked object by the DIV
 * itself, so the DIV faults, kmemcheck checks the divisor (initialized)
 * and single-steps the DIV, which raises #DE: the oops kills the writer
 * and must leave no step pending on the CPU.
 */
static noinline void kmemcheck_demo_divide(void)
{
	u32 *divisor = kzalloc(sizeof(*divisor), GFP_KERNEL);

	if (!divisor)
		return;
	pr_info("kmemcheck: demo: dividing by the zero at %p\n", divisor);
	pr_info("kmemcheck: demo: the division by zero gave %u\n",
		kmemcheck_arch_divide_one_by(divisor));
	kfree(divisor);
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
	if (sysfs_streq(buf, "exec")) {
		kmemcheck_demo_exec();
		return count;
	}
	if (sysfs_streq(buf, "divide")) {
		kmemcheck_demo_divide();
		return count;
	}
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
