// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel would provide to decode.c: the per-cpu offset and
 * copy_from_kernel_nofault(), over the host's own memory.
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/uaccess.h>
#include <linux/percpu.h>

#include "host.h"

unsigned long this_cpu_off;
unsigned long test_mapping_end;

long copy_from_kernel_nofault(void *dst, const void *src, size_t size)
{
	uintptr_t from = (uintptr_t)src;

	if (test_mapping_end && from + size > test_mapping_end)
		return -EFAULT;
	memcpy(dst, src, size);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int parse_hex(const char *hex, unsigned char *buf, int size)
{
	int n = 0, hi, lo;

	while (*hex) {
		if (isspace((unsigned char)*hex)) {
			hex++;
			continue;
		}
		hi = hexval(hex[0]);
		lo = hex[1] ? hexval(hex[1]) : -1;
		if (hi < 0 || lo < 0 || n == size)
			return -1;
		buf[n++] = hi << 4 | lo;
		hex += 2;
	}
	return n;
}

int decode_bytes(const unsigned char *buf, int len, struct pt_regs *regs,
		 struct kmemcheck_insn *out, int *insn_len)
{
	struct insn insn;

	*insn_len = 0;
	if (insn_decode(&insn, buf, len, INSN_MODE_32))
		return -ENODATA;
	*insn_len = insn.length;
	return kmemcheck_decode_insn(&insn, regs, out);
}
