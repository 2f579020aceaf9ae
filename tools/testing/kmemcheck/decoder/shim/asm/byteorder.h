/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: the host is little-endian, as x86 is. */
#ifndef _ASM_X86_BYTEORDER_H
#define _ASM_X86_BYTEORDER_H

#include <endian.h>

#if __BYTE_ORDER != __LITTLE_ENDIAN
#error "the decoder tests need a little-endian host"
#endif

#define le16_to_cpu(x)	(x)
#define le32_to_cpu(x)	(x)
#define le64_to_cpu(x)	(x)

#endif /* _ASM_X86_BYTEORDER_H */
