// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck checks: the accesses the fault handler decodes, checked against
 * the shadow and recorded in it, and the values it follows read from it and
 * stored back.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/export.h>
#include <linux/kmemcheck.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>

#include <asm/kmemcheck.h>

#include "kmemcheck.h"

/*
 * First tracked byte of [addr, addr + size) that is not initialized.  A page
 * at a time: copies to user space are checked whatever their source, and
 * most sources, such as the page cache, are not tracked.
 */
bool kmemcheck_find_bad(unsigned long addr, size_t size, unsigned long *bad,
			u8 *state)
{
	while (size) {
		size_t n = min_t(size_t, size, PAGE_SIZE - offset_in_page(addr));
		u8 *shadow = kmemcheck_shadow_of(addr);
		size_t i;

		/* Most copies are all initialized: a word at a time. */
		if (shadow && kmemcheck_shadow_range_initialized(addr, n))
			shadow = NULL;
		for (i = 0; shadow && i < n; i++) {
			u8 checked = kmemcheck_shadow_checked(addr + i,
							      &shadow[i]);

			if (checked != KMEMCHECK_SHADOW_INITIALIZED) {
				*bad = addr + i;
				*state = checked;
				return true;
			}
		}
		addr += n;
		size -= n;
	}
	return false;
}

/**
 * __kmemcheck_is_obj_initialized() - is every tracked byte of a range written?
 * @address:	first byte
 * @size:	number of bytes
 *
 * Return: false if any tracked byte in the range is not initialized.
 */
bool __kmemcheck_is_obj_initialized(const void *address, size_t size)
{
	unsigned long bad;
	u8 state;

	return !kmemcheck_find_bad((unsigned long)address, size, &bad, &state);
}
EXPORT_SYMBOL_GPL(__kmemcheck_is_obj_initialized);

enum kmemcheck_bug_type kmemcheck_bug_of(u8 state)
{
	switch (state) {
	case KMEMCHECK_SHADOW_FREED:
		return KMEMCHECK_BUG_USE_AFTER_FREE;
	case KMEMCHECK_SHADOW_UNALLOCATED:
		return KMEMCHECK_BUG_UNALLOCATED;
	default:
		return KMEMCHECK_BUG_UNINIT;
	}
}

bool kmemcheck_checking(void)
{
	return READ_ONCE(kmemcheck_mode) != KMEMCHECK_MODE_OFF &&
	       !current->kmemcheck_disabled;
}

/**
 * kmemcheck_access() - check or record one memory access
 * @regs:	registers of the access
 * @addr:	first byte
 * @size:	number of bytes
 * @read:	the instruction reads the bytes (reported unless initialized)
 * @write:	the instruction writes the bytes (they become initialized)
 *
 * The range may straddle a page boundary and cover untracked bytes.
 */
void kmemcheck_access(struct pt_regs *regs, unsigned long addr, size_t size,
		      bool read, bool write)
{
	unsigned long bad;
	u8 state;

	if (read && kmemcheck_checking() &&
	    kmemcheck_find_bad(addr, size, &bad, &state))
		kmemcheck_report(regs, kmemcheck_bug_of(state), addr, size,
				 bad, 0);
	if (write)
		kmemcheck_shadow_set(addr, size, KMEMCHECK_SHADOW_INITIALIZED);
}

/* === Following values ==================================================== */

/*
 * kmemcheck.follow=1, the default: a read of uninitialized bytes into a
 * register is not reported; the value is followed to where it is used.
 * kmemcheck.follow=0 reports the read, as mainline kmemcheck did.
 * Writable at run time: a change applies to the next such read.
 */
bool kmemcheck_follow __read_mostly = true;

/**
 * kmemcheck_follow_enabled() - follow loaded values to their use?
 *
 * Return: true if kmemcheck.follow is set and reads are checked at all.
 */
bool kmemcheck_follow_enabled(void)
{
	return READ_ONCE(kmemcheck_follow) && kmemcheck_checking();
}

/**
 * kmemcheck_range_uninit() - may a read of a range be followed?
 * @addr:	first byte
 * @size:	number of bytes
 * @bad:	set to the first uninitialized byte
 *
 * Return: true if some tracked byte of the range is uninitialized and none
 * is freed or unallocated: those are bugs at the access itself.
 */
bool kmemcheck_range_uninit(unsigned long addr, size_t size,
			    unsigned long *bad)
{
	bool found = false;
	size_t i;

	for (i = 0; i < size; i++) {
		u8 *shadow = kmemcheck_shadow_of(addr + i);
		u8 state;

		if (!shadow)
			continue;
		state = kmemcheck_shadow_checked(addr + i, shadow);
		if (state == KMEMCHECK_SHADOW_UNINITIALIZED) {
			if (!found)
				*bad = addr + i;
			found = true;
		} else if (state != KMEMCHECK_SHADOW_INITIALIZED) {
			return false;
		}
	}
	return found;
}

/**
 * kmemcheck_value_load() - the undefined bits of a read made while following
 * @regs:	registers of the reading instruction
 * @addr:	first byte
 * @size:	number of bytes, at most 8
 *
 * A read of freed or unallocated bytes is reported here, as at any access.
 *
 * Return: the undefined bits of the value read, little-endian: those of
 * each uninitialized byte that are not known to be initialized.
 */
u64 kmemcheck_value_load(struct pt_regs *regs, unsigned long addr,
			 unsigned int size)
{
	u64 undef = 0;
	unsigned int i;

	for (i = 0; i < size && i < sizeof(undef); i++) {
		u8 *shadow = kmemcheck_shadow_of(addr + i);
		u8 state;

		if (!shadow)
			continue;
		state = kmemcheck_shadow_checked(addr + i, shadow);
		if (state == KMEMCHECK_SHADOW_UNINITIALIZED) {
			u8 bits = ~kmemcheck_partial_defined(shadow);

			undef |= (u64)bits << (8 * i);
		} else if (state != KMEMCHECK_SHADOW_INITIALIZED) {
			kmemcheck_access(regs, addr, size, true, false);
			return 0;
		}
	}
	return undef;
}

/**
 * kmemcheck_value_undef() - the undefined bits of a byte, not checked
 * @addr:	the byte
 *
 * For the bytes of a copy, which kmemcheck_copy() has checked.
 *
 * Return: the bits of an uninitialized byte that are not known to be
 * initialized; 0 for a byte in any other state, or untracked.
 */
u8 kmemcheck_value_undef(unsigned long addr)
{
	u8 *shadow = kmemcheck_shadow_of(addr);

	if (!shadow || kmemcheck_shadow_checked(addr, shadow) !=
		       KMEMCHECK_SHADOW_UNINITIALIZED)
		return 0;
	return ~kmemcheck_partial_defined(shadow);
}

/**
 * kmemcheck_value_store() - record a store made while following
 * @addr:	first byte
 * @size:	number of bytes, at most 8
 * @undef:	the undefined bits of the value stored, little-endian
 *
 * Called once the store has happened.  A byte with no undefined bit
 * becomes initialized, the others uninitialized, keeping which of their
 * bits are initialized; untracked bytes are ignored.
 */
void kmemcheck_value_store(unsigned long addr, unsigned int size, u64 undef)
{
	unsigned int i;

	for (i = 0; i < size && i < sizeof(undef); i++) {
		u8 bits = undef >> (8 * i);
		u8 *shadow;

		kmemcheck_shadow_set(addr + i, 1, bits ?
				     KMEMCHECK_SHADOW_UNINITIALIZED :
				     KMEMCHECK_SHADOW_INITIALIZED);
		shadow = kmemcheck_shadow_of(addr + i);
		if (shadow && bits && bits != 0xff &&
		    !kmemcheck_partial_set(shadow, ~bits))
			kmemcheck_shadow_set(addr + i, 1,
					     KMEMCHECK_SHADOW_INITIALIZED);
	}
}

/**
 * kmemcheck_copy() - propagate the shadow of a memory-to-memory copy
 * @regs:	registers of the copy
 * @src:	source
 * @dst:	destination
 * @size:	number of bytes
 *
 * Copying uninitialized bytes is not a bug; using them is.  So the shadow
 * follows the bytes into tracked memory, where a later read of them is
 * reported.  Into the stack, as "tmp = *obj;" copies, they are not
 * reported either with kmemcheck.follow=1: the caller follows them from
 * there, as values read from the heap, or loses them.  Into other
 * untracked kernel memory (a global, a __GFP_NOTRACK buffer, vmalloc),
 * where no shadow keeps them, the copy is their use: uninit-value, at
 * the copy.  Copying freed or unallocated bytes is reported at the copy,
 * where the bug is, and they arrive uninitialized.  Copies to user space
 * are checked before they start, by kmemcheck_copy_to_user(): bytes
 * leaving the kernel are kernel-infoleak.
 */
void kmemcheck_copy(struct pt_regs *regs, unsigned long src, unsigned long dst,
		    size_t size)
{
	bool checking = kmemcheck_checking();
	/* Bytes to the stack are followed, when following is on. */
	bool to_stack = kmemcheck_follow_enabled() &&
			kmemcheck_arch_on_stack(regs, dst);
	bool reported = false;
	size_t i, chunk_end = 0;

	/*
	 * A copy to user space was checked by kmemcheck_copy_to_user(),
	 * before it started: report it once.
	 */
	if (dst < TASK_SIZE_MAX)
		checking = false;

	for (i = 0; i < size; i++) {
		u8 *from = kmemcheck_shadow_of(src + i);
		u8 *to, state;
		bool stale;

		/*
		 * Initialized bytes, or bytes from untracked memory, arrive
		 * initialized: as many at once as both pages hold.  A chunk
		 * that is not is copied byte by byte, and tried whole once.
		 */
		if (i == chunk_end) {
			size_t n = min3(size - i,
					PAGE_SIZE - offset_in_page(src + i),
					PAGE_SIZE - offset_in_page(dst + i));

			chunk_end = i + n;
			if (!from ||
			    kmemcheck_shadow_range_initialized(src + i, n)) {
				kmemcheck_shadow_set(dst + i, n,
						     KMEMCHECK_SHADOW_INITIALIZED);
				i = chunk_end - 1;
				continue;
			}
		}
		to = kmemcheck_shadow_of(dst + i);
		state = from ? kmemcheck_shadow_checked(src + i, from) :
			       KMEMCHECK_SHADOW_INITIALIZED;
		stale = state == KMEMCHECK_SHADOW_FREED ||
			state == KMEMCHECK_SHADOW_UNALLOCATED;
		if (!reported && checking &&
		    (stale || (!to && state != KMEMCHECK_SHADOW_INITIALIZED &&
			       !to_stack))) {
			kmemcheck_report(regs, stale ? kmemcheck_bug_of(state) :
					 KMEMCHECK_BUG_UNINIT, src, size,
					 src + i, to ? 0 : dst);
			reported = true;
		}
		if (!to)
			continue;
		kmemcheck_shadow_set(dst + i, 1, stale ?
				     KMEMCHECK_SHADOW_UNINITIALIZED : state);
		/* Bits known initialized go with the byte. */
		if (state == KMEMCHECK_SHADOW_UNINITIALIZED &&
		    !kmemcheck_partial_set(to, kmemcheck_partial_defined(from)))
			kmemcheck_shadow_set(dst + i, 1,
					     KMEMCHECK_SHADOW_INITIALIZED);
	}
}
