/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: the error codes the decoder returns, with Linux's values. */
#ifndef _LINUX_ERRNO_H
#define _LINUX_ERRNO_H

#define EFAULT		14
#define EINVAL		22
#define ENODATA		61
#define EOPNOTSUPP	95

#endif /* _LINUX_ERRNO_H */
