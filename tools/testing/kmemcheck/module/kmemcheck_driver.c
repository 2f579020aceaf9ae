// SPDX-License-Identifier: GPL-2.0
/*
 * A driver-shaped out-of-tree module for the harness's devices/ tests: it
 * reads sector 0 of a block device into a page of its own with a bio, then
 * looks at every byte of the page.  With len=512 (the default) the device
 * fills only the first 512 bytes: the rest is as alloc_page() left it,
 * uninitialized, and kmemcheck reports "uninit-value in
 * kmemcheck_driver_count".  With len=4096 the device fills the whole page,
 * and kmemcheck must not report.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static char *dev = "/dev/vda";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the block device to read (default: /dev/vda)");

static unsigned int len = SECTOR_SIZE;
module_param(len, uint, 0444);
MODULE_PARM_DESC(len, "bytes of the device to read into the page, a multiple of 512 up to the page size (default: 512)");

/*
 * What a driver does with a buffer it believes the device filled: it
 * decides on every byte.  Past the bytes the device wrote, kmemcheck
 * reports the first decision here.
 */
static noinline unsigned int kmemcheck_driver_count(const u8 *buf)
{
	unsigned int i, n = 0;

	for (i = 0; i < PAGE_SIZE; i++) {
		if (READ_ONCE(buf[i])) {
			/* A branch: without it, gcc counts with cmp and sbb. */
			barrier();
			n++;
		}
	}
	return n;
}

/* Reads the first @len bytes of @bdev into @page, and waits. */
static int kmemcheck_driver_read(struct block_device *bdev, struct page *page)
{
	struct bio *bio;
	int ret;

	bio = bio_alloc(bdev, 1, REQ_OP_READ, GFP_KERNEL);
	bio->bi_iter.bi_sector = 0;
	if (bio_add_page(bio, page, len, 0) != len) {
		bio_put(bio);
		return -EIO;
	}
	ret = submit_bio_wait(bio);
	bio_put(bio);
	return ret;
}

static int __init kmemcheck_driver_init(void)
{
	struct file *bdev_file;
	struct page *page;
	int ret;

	if (!len || len > PAGE_SIZE || len % SECTOR_SIZE)
		return -EINVAL;
	bdev_file = bdev_file_open_by_path(dev, BLK_OPEN_READ, NULL, NULL);
	if (IS_ERR(bdev_file))
		return PTR_ERR(bdev_file);
	/* Tracked by kmemcheck, and uninitialized until the device writes. */
	page = alloc_page(GFP_KERNEL);
	if (!page) {
		ret = -ENOMEM;
		goto out;
	}
	ret = kmemcheck_driver_read(file_bdev(bdev_file), page);
	if (!ret)
		pr_info("read %u bytes of %s, %u non-zero bytes in the page\n",
			len, dev, kmemcheck_driver_count(page_address(page)));
	else
		pr_err("reading %s: %d\n", dev, ret);
	__free_page(page);
out:
	fput(bdev_file);
	return ret;
}

static void __exit kmemcheck_driver_exit(void)
{
}

module_init(kmemcheck_driver_init);
module_exit(kmemcheck_driver_exit);
MODULE_DESCRIPTION("kmemcheck harness: a driver that reads less than its buffer");
MODULE_LICENSE("GPL");
