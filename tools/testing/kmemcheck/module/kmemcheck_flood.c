// SPDX-License-Identifier: GPL-2.0
/*
 * A flood of reports for the harness's devices/flood test of kmemcheck's
 * report rate limit: 256 distinct functions, each of which reads a byte of
 * a fresh kmalloc() object that nothing wrote and decides on it, every one
 * called once per round, for @rounds rounds.  Every function is a call site
 * of its own, more than kmemcheck remembers.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#define FLOOD_SIZE 64

static unsigned int rounds = 5;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "calls of each function (default: 5)");

static unsigned long kmemcheck_flood_nonzero;

/* kmemcheck_flood_<n>(), <n> two hex digits: a read of byte <n> % 64. */
#define FLOOD(n)							\
static noinline void kmemcheck_flood_##n(void)				\
{									\
	u8 *p = kmalloc(FLOOD_SIZE, GFP_KERNEL);			\
									\
	if (!p)								\
		return;							\
	if (READ_ONCE(p[0x##n % FLOOD_SIZE]))				\
		kmemcheck_flood_nonzero++;				\
	kfree(p);							\
}

/* The functions, 00 to ff. */
FLOOD(00) FLOOD(01) FLOOD(02) FLOOD(03) FLOOD(04) FLOOD(05) FLOOD(06) FLOOD(07)
FLOOD(08) FLOOD(09) FLOOD(0a) FLOOD(0b) FLOOD(0c) FLOOD(0d) FLOOD(0e) FLOOD(0f)
FLOOD(10) FLOOD(11) FLOOD(12) FLOOD(13) FLOOD(14) FLOOD(15) FLOOD(16) FLOOD(17)
FLOOD(18) FLOOD(19) FLOOD(1a) FLOOD(1b) FLOOD(1c) FLOOD(1d) FLOOD(1e) FLOOD(1f)
FLOOD(20) FLOOD(21) FLOOD(22) FLOOD(23) FLOOD(24) FLOOD(25) FLOOD(26) FLOOD(27)
FLOOD(28) FLOOD(29) FLOOD(2a) FLOOD(2b) FLOOD(2c) FLOOD(2d) FLOOD(2e) FLOOD(2f)
FLOOD(30) FLOOD(31) FLOOD(32) FLOOD(33) FLOOD(34) FLOOD(35) FLOOD(36) FLOOD(37)
FLOOD(38) FLOOD(39) FLOOD(3a) FLOOD(3b) FLOOD(3c) FLOOD(3d) FLOOD(3e) FLOOD(3f)
FLOOD(40) FLOOD(41) FLOOD(42) FLOOD(43) FLOOD(44) FLOOD(45) FLOOD(46) FLOOD(47)
FLOOD(48) FLOOD(49) FLOOD(4a) FLOOD(4b) FLOOD(4c) FLOOD(4d) FLOOD(4e) FLOOD(4f)
FLOOD(50) FLOOD(51) FLOOD(52) FLOOD(53) FLOOD(54) FLOOD(55) FLOOD(56) FLOOD(57)
FLOOD(58) FLOOD(59) FLOOD(5a) FLOOD(5b) FLOOD(5c) FLOOD(5d) FLOOD(5e) FLOOD(5f)
FLOOD(60) FLOOD(61) FLOOD(62) FLOOD(63) FLOOD(64) FLOOD(65) FLOOD(66) FLOOD(67)
FLOOD(68) FLOOD(69) FLOOD(6a) FLOOD(6b) FLOOD(6c) FLOOD(6d) FLOOD(6e) FLOOD(6f)
FLOOD(70) FLOOD(71) FLOOD(72) FLOOD(73) FLOOD(74) FLOOD(75) FLOOD(76) FLOOD(77)
FLOOD(78) FLOOD(79) FLOOD(7a) FLOOD(7b) FLOOD(7c) FLOOD(7d) FLOOD(7e) FLOOD(7f)
FLOOD(80) FLOOD(81) FLOOD(82) FLOOD(83) FLOOD(84) FLOOD(85) FLOOD(86) FLOOD(87)
FLOOD(88) FLOOD(89) FLOOD(8a) FLOOD(8b) FLOOD(8c) FLOOD(8d) FLOOD(8e) FLOOD(8f)
FLOOD(90) FLOOD(91) FLOOD(92) FLOOD(93) FLOOD(94) FLOOD(95) FLOOD(96) FLOOD(97)
FLOOD(98) FLOOD(99) FLOOD(9a) FLOOD(9b) FLOOD(9c) FLOOD(9d) FLOOD(9e) FLOOD(9f)
FLOOD(a0) FLOOD(a1) FLOOD(a2) FLOOD(a3) FLOOD(a4) FLOOD(a5) FLOOD(a6) FLOOD(a7)
FLOOD(a8) FLOOD(a9) FLOOD(aa) FLOOD(ab) FLOOD(ac) FLOOD(ad) FLOOD(ae) FLOOD(af)
FLOOD(b0) FLOOD(b1) FLOOD(b2) FLOOD(b3) FLOOD(b4) FLOOD(b5) FLOOD(b6) FLOOD(b7)
FLOOD(b8) FLOOD(b9) FLOOD(ba) FLOOD(bb) FLOOD(bc) FLOOD(bd) FLOOD(be) FLOOD(bf)
FLOOD(c0) FLOOD(c1) FLOOD(c2) FLOOD(c3) FLOOD(c4) FLOOD(c5) FLOOD(c6) FLOOD(c7)
FLOOD(c8) FLOOD(c9) FLOOD(ca) FLOOD(cb) FLOOD(cc) FLOOD(cd) FLOOD(ce) FLOOD(cf)
FLOOD(d0) FLOOD(d1) FLOOD(d2) FLOOD(d3) FLOOD(d4) FLOOD(d5) FLOOD(d6) FLOOD(d7)
FLOOD(d8) FLOOD(d9) FLOOD(da) FLOOD(db) FLOOD(dc) FLOOD(dd) FLOOD(de) FLOOD(df)
FLOOD(e0) FLOOD(e1) FLOOD(e2) FLOOD(e3) FLOOD(e4) FLOOD(e5) FLOOD(e6) FLOOD(e7)
FLOOD(e8) FLOOD(e9) FLOOD(ea) FLOOD(eb) FLOOD(ec) FLOOD(ed) FLOOD(ee) FLOOD(ef)
FLOOD(f0) FLOOD(f1) FLOOD(f2) FLOOD(f3) FLOOD(f4) FLOOD(f5) FLOOD(f6) FLOOD(f7)
FLOOD(f8) FLOOD(f9) FLOOD(fa) FLOOD(fb) FLOOD(fc) FLOOD(fd) FLOOD(fe) FLOOD(ff)

#define FLOOD_REF16(h) \
	[0x##h##0] = kmemcheck_flood_##h##0, [0x##h##1] = kmemcheck_flood_##h##1, \
	[0x##h##2] = kmemcheck_flood_##h##2, [0x##h##3] = kmemcheck_flood_##h##3, \
	[0x##h##4] = kmemcheck_flood_##h##4, [0x##h##5] = kmemcheck_flood_##h##5, \
	[0x##h##6] = kmemcheck_flood_##h##6, [0x##h##7] = kmemcheck_flood_##h##7, \
	[0x##h##8] = kmemcheck_flood_##h##8, [0x##h##9] = kmemcheck_flood_##h##9, \
	[0x##h##a] = kmemcheck_flood_##h##a, [0x##h##b] = kmemcheck_flood_##h##b, \
	[0x##h##c] = kmemcheck_flood_##h##c, [0x##h##d] = kmemcheck_flood_##h##d, \
	[0x##h##e] = kmemcheck_flood_##h##e, [0x##h##f] = kmemcheck_flood_##h##f

static void (*const kmemcheck_flood_fns[])(void) = {
	FLOOD_REF16(0), FLOOD_REF16(1), FLOOD_REF16(2), FLOOD_REF16(3),
	FLOOD_REF16(4), FLOOD_REF16(5), FLOOD_REF16(6), FLOOD_REF16(7),
	FLOOD_REF16(8), FLOOD_REF16(9), FLOOD_REF16(a), FLOOD_REF16(b),
	FLOOD_REF16(c), FLOOD_REF16(d), FLOOD_REF16(e), FLOOD_REF16(f),
};

static int __init kmemcheck_flood_init(void)
{
	unsigned int round, i;

	for (round = 0; round < rounds; round++) {
		for (i = 0; i < ARRAY_SIZE(kmemcheck_flood_fns); i++)
			kmemcheck_flood_fns[i]();
		cond_resched();
	}
	pr_info("%u rounds of %zu functions, %lu non-zero bytes read\n",
		rounds, ARRAY_SIZE(kmemcheck_flood_fns), kmemcheck_flood_nonzero);
	return 0;
}

static void __exit kmemcheck_flood_exit(void)
{
}

module_init(kmemcheck_flood_init);
module_exit(kmemcheck_flood_exit);
MODULE_DESCRIPTION("kmemcheck harness: uninitialized reads from 256 call sites");
MODULE_LICENSE("GPL");
