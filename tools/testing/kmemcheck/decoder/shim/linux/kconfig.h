/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: an x86-32 kernel, no option enabled (CONFIG_X86_64 is off). */
#ifndef _LINUX_KCONFIG_H
#define _LINUX_KCONFIG_H

#define IS_ENABLED(option)	0

#endif /* _LINUX_KCONFIG_H */
