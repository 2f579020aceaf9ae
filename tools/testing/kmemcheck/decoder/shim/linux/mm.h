/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: 4 KiB pages. */
#ifndef _LINUX_MM_H
#define _LINUX_MM_H

#define PAGE_SIZE		4096UL
#define offset_in_page(p)	((unsigned long)(p) & (PAGE_SIZE - 1))

#endif /* _LINUX_MM_H */
