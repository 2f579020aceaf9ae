/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim: copy_from_kernel_nofault() copies from the test's memory and
 * fails, as on an unmapped page, for any byte at or above
 * test_mapping_end (when it is set).
 */
#ifndef __LINUX_UACCESS_H__
#define __LINUX_UACCESS_H__

#include <stddef.h>

long copy_from_kernel_nofault(void *dst, const void *src, size_t size);

#endif /* __LINUX_UACCESS_H__ */
