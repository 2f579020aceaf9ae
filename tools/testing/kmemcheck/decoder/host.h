/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the host programs built around decode.c. */
#ifndef KMEMCHECK_DECODER_HOST_H
#define KMEMCHECK_DECODER_HOST_H

#include <linux/kernel.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

#include "decode.h"

/* copy_from_kernel_nofault() fails at and above this address, if set. */
extern unsigned long test_mapping_end;

/* Parse "8b 43 08" (or "8b4308"); return the byte count, -1 if invalid. */
int parse_hex(const char *hex, unsigned char *buf, int size);

/* insn_decode() in 32-bit mode, then kmemcheck_decode_insn(). */
int decode_bytes(const unsigned char *buf, int len, struct pt_regs *regs,
		 struct kmemcheck_insn *out, int *insn_len);

#endif /* KMEMCHECK_DECODER_HOST_H */
