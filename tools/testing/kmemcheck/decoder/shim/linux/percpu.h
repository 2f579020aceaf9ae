/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: this CPU's per-cpu offset, the base of %fs, set by the test. */
#ifndef _LINUX_PERCPU_H
#define _LINUX_PERCPU_H

extern unsigned long this_cpu_off;
#define this_cpu_read(var)	(var)

#endif /* _LINUX_PERCPU_H */
