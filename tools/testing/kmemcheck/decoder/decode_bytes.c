// SPDX-License-Identifier: GPL-2.0
/*
 * Decode instructions given as hex bytes, one per line on stdin, and print
 * for each: the return value, the decoded length, the flags and every
 * access as size:kind (r, w, m).  For crosscheck.py.
 */
#include <stdio.h>
#include <string.h>

#include <linux/percpu.h>
#include <asm/segment.h>

#include "host.h"

int main(void)
{
	static const char kinds[] = "?rwm";
	struct kmemcheck_insn out;
	unsigned char buf[64];
	struct pt_regs regs;
	char line[512];
	int len, ilen, ret;
	unsigned int i;

	this_cpu_off = 0x3f000000;
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		memset(&regs, 0, sizeof(regs));
		regs.cx = 1;		/* a REP insn does one iteration */
		regs.flags = 0x202;
		regs.fs = __KERNEL_PERCPU;
		memset(&out, 0, sizeof(out));
		len = parse_hex(line, buf, sizeof(buf));
		if (len <= 0) {
			printf("bad\n");
			continue;
		}
		ret = decode_bytes(buf, len, &regs, &out, &ilen);
		printf("%d %d %#x", ret, ilen, ret ? 0 : out.flags);
		for (i = 0; !ret && i < out.nr; i++)
			printf(" %u:%c", out.access[i].size,
			       kinds[out.access[i].kind & 3]);
		printf("\n");
	}
	return 0;
}
