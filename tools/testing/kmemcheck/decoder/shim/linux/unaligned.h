/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: unaligned loads. */
#ifndef __LINUX_UNALIGNED_H
#define __LINUX_UNALIGNED_H

#include <string.h>

#define get_unaligned(p)					\
({								\
	__typeof__(p) __p = (p);				\
	__typeof__(*__p) __v;					\
	memcpy(&__v, __p, sizeof(__v));				\
	__v;							\
})

#endif /* __LINUX_UNALIGNED_H */
