/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: an x86-32 kernel, no option enabled (CONFIG_X86_64 is off). */
#ifndef _LINUX_KCONFIG_H
#define _LINUX_KCONFIG_H

/* The name is only stringified, so that an undefined option is no error. */
#define IS_ENABLED(CONFIG_OPTION)	(0 && sizeof(#CONFIG_OPTION))

#endif /* _LINUX_KCONFIG_H */
