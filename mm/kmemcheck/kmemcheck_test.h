/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kmemcheck's two KUnit suites share: suite kmemcheck
 * (mm/kmemcheck/kmemcheck_test.c, which defines all of this) and suite
 * kmemcheck_x86 (arch/x86/mm/kmemcheck/kmemcheck_x86_test.c, the cases
 * written in x86 instructions).  One report observer, one set of
 * allocation helpers, and one per-case and per-suite set-up, so that both
 * suites check reports, and leave kmemcheck, in the same way.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#ifndef _MM_KMEMCHECK_KMEMCHECK_TEST_H
#define _MM_KMEMCHECK_KMEMCHECK_TEST_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/gfp_types.h>
#include <linux/slab.h>
#include <linux/types.h>

#include "kmemcheck.h"

/**
 * struct kmemcheck_test_report - a report a case expects
 * @type: "uninit-value", "use-after-free", ... (UNINIT, UAF, ...)
 * @fn: function holding the faulting instruction
 * @size: bytes accessed (copied, for an infoleak)
 * @addr: first byte accessed (copied)
 * @dst: for an infoleak, where the bytes went
 * @bad: first bad byte, if not @addr
 * @dma: an infoleak to a device
 * @bytes: the "Bytes a-b of n are ..." line
 * @origin: a function of the allocation stack
 * @freed: a function of the free stack
 * @user: user address named, for copy_to_user()
 * @use: a value followed to its use: which use (USE_BRANCH, ...)
 * @loaded: ... and the function that read it
 * @merged: ... and how many loads it merged, if not 1
 * @unjudged: followed, not judged: the end of "Followed for N instructions"
 * @insns_min: ... and N at least, if @insns_max is not 0
 * @insns_max: ... and N at most
 * @cache: the cache named, for a slab object
 * @memory: bytes before the first bad one, as "Memory around it:" shows them
 * @any_access: the read and its first bad byte unchecked
 *
 * Fields left 0 are not checked, but for @unjudged: a report that says it
 * followed a value without judging it matches only a @unjudged.
 */
struct kmemcheck_test_report {
	const char *type;
	const void *fn;
	size_t size;
	const void *addr;
	const void *dst;
	const void *bad;
	bool dma;
	const char *bytes;
	const void *origin;
	const void *freed;
	unsigned long user;
	const char *use;
	const void *loaded;
	int merged;
	const char *unjudged;
	unsigned int insns_min, insns_max;
	const char *cache;
	const char *memory;
	bool any_access;
};

/* Report types, as titles name them. */
#define UNINIT		"uninit-value"
#define UAF		"use-after-free"
#define UNALLOCATED	"unallocated"
#define INFOLEAK	"kernel-infoleak"

/* Uses of a value followed to them, as "Use of uninit value in ..." says. */
#define USE_BRANCH	"a conditional branch"
#define USE_SELECT	"a conditional move or set"
#define USE_ADDRESS	"an address"
#define USE_ARITH	"arithmetic on memory"
#define USE_STORE	"a store to untracked memory"

/**
 * kmemcheck_test_expect_report() - expect a report
 * @test: the case
 * @r: what the report must say
 *
 * Print what kmemcheck queued, then fail @test unless a report printed
 * since the case started matches @r.  EXPECT_REPORT() builds @r.
 */
void kmemcheck_test_expect_report(struct kunit *test,
				  const struct kmemcheck_test_report *r);

/**
 * kmemcheck_test_expect_no_report() - expect no report
 * @test: the case
 *
 * Print what kmemcheck queued, then fail @test if any report was printed
 * since the case started.
 */
void kmemcheck_test_expect_no_report(struct kunit *test);

/* A report as struct kmemcheck_test_report's fields, in order or named. */
#define EXPECT_REPORT(test, ...)					\
	kmemcheck_test_expect_report(test,				\
		&(struct kmemcheck_test_report){ __VA_ARGS__ })
#define EXPECT_NO_REPORT(test)	kmemcheck_test_expect_no_report(test)

/**
 * kmemcheck_test_expect_shadow() - check the state of bytes
 * @test: the case
 * @addr: the first byte
 * @size: how many bytes
 * @state: the state every one of them must be in
 */
void kmemcheck_test_expect_shadow(struct kunit *test, const void *addr,
				  size_t size, enum kmemcheck_shadow state);

/**
 * kmemcheck_test_alloc() - kmalloc() for the case
 * @test: the case
 * @size: bytes to allocate
 * @gfp: allocation flags
 *
 * Unless @gfp says __GFP_NOTRACK, and when every allocation is tracked,
 * the object is tracked: objects of a slab left untracked are skipped.
 * Asserts that the allocation succeeded.
 *
 * Return: the object, freed when the case ends.
 */
void *kmemcheck_test_alloc(struct kunit *test, size_t size, gfp_t gfp);

/**
 * kmemcheck_test_alloc_pages() - alloc_pages() for the case
 * @test: the case
 * @gfp: allocation flags
 * @order: order of the allocation
 *
 * One such allocation per case: it is kept in @test->priv.  Asserts that
 * the allocation succeeded.
 *
 * Return: the address of the pages, freed when the case ends.
 */
void *kmemcheck_test_alloc_pages(struct kunit *test, gfp_t gfp,
				 unsigned int order);

/**
 * kmemcheck_test_cache_create() - a slab cache for the case
 * @test: the case
 * @size: object size
 * @flags: cache flags, with which the cache is never merged
 * @ctor: constructor, or NULL
 *
 * One such cache per case, named "kmemcheck_test".  Asserts that it was
 * created.
 *
 * Return: the cache, destroyed when the case ends.
 */
struct kmem_cache *kmemcheck_test_cache_create(struct kunit *test,
					       size_t size, slab_flags_t flags,
					       void (*ctor)(void *));

/**
 * kmemcheck_test_rep_chunk() - the bytes of a REP MOVS one check covers
 * @whole: bytes the instruction copies
 * @element: bytes of one of its elements
 *
 * Return: @whole, which the fault handler copies at once, or @element when
 * kmemcheck.fastpath=0 single-steps the copy.
 */
size_t kmemcheck_test_rep_chunk(size_t whole, size_t element);

/**
 * kmemcheck_test_user_buffer() - a user mapping for the case
 * @test: the case
 * @size: bytes to map
 *
 * Skips the case if there is no user mapping to be had.
 *
 * Return: the address of the mapping, unmapped when the case ends.
 */
void __user *kmemcheck_test_user_buffer(struct kunit *test, size_t size);

/**
 * kmemcheck_test_counter() - a kmemcheck counter, as debugfs stats shows it
 * @c: the counter
 *
 * Return: its value now.
 */
static inline long kmemcheck_test_counter(enum kmemcheck_counter c)
{
	return atomic_long_read(&kmemcheck_counters[c]);
}

/**
 * kmemcheck_test_follow_on() - follow values to their use in this case
 * @test: the case
 *
 * Turns kmemcheck.follow on, which cases start with off, until the case
 * ends, and notes how many values ended unjudged so far, for
 * kmemcheck_test_expect_follow_judged().
 */
void kmemcheck_test_follow_on(struct kunit *test);

/**
 * kmemcheck_test_expect_follow_judged() - expect every value judged
 * @test: the case
 *
 * No report is no proof unless every value followed since
 * kmemcheck_test_follow_on() was judged: followed until its undefined bits
 * were gone, not given up at an instruction the model does not cover.
 */
void kmemcheck_test_expect_follow_judged(struct kunit *test);

/**
 * kmemcheck_test_init() - per-case set-up of both suites
 * @test: the case
 *
 * Skips the case if kmemcheck is off; forgets the reports seen; turns
 * kmemcheck.follow off.
 *
 * Return: 0.
 */
int kmemcheck_test_init(struct kunit *test);

/**
 * kmemcheck_test_exit() - per-case clean-up of both suites
 * @test: the case
 *
 * Frees what the helpers above allocated for the case, restores the
 * allocations tracked and kmemcheck.follow, and prints the reports still
 * queued, so that none leaks into the next case.
 */
void kmemcheck_test_exit(struct kunit *test);

/**
 * kmemcheck_test_suite_init() - per-suite set-up of both suites
 * @suite: the suite
 *
 * Saves kmemcheck's mode and kmemcheck.follow, turns reporting on, starts
 * observing the console, and tells kmemcheck that the suite's cases check
 * their reports themselves: reports must not fail them.
 *
 * Return: 0.
 */
int kmemcheck_test_suite_init(struct kunit_suite *suite);

/**
 * kmemcheck_test_suite_exit() - per-suite clean-up of both suites
 * @suite: the suite
 *
 * Undoes kmemcheck_test_suite_init(); kmemcheck.follow was restored after
 * each case.
 */
void kmemcheck_test_suite_exit(struct kunit_suite *suite);

#endif /* _MM_KMEMCHECK_KMEMCHECK_TEST_H */
