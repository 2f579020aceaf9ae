// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck's parameters: kmemcheck.<name>= on the command line, and
 * /sys/module/kmemcheck/parameters/<name> for those that can change at
 * run time.  Their values and parsing live beside the code they steer;
 * Documentation/dev-tools/kmemcheck.rst describes them all.  The boot
 * switch kmemcheck=0|1|2 is an early parameter, in core.c.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#include <linux/moduleparam.h>

#include "kmemcheck.h"

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "kmemcheck."

/* follow=1 (the default): a read of uninit is followed to its use. */
module_param_named(follow, kmemcheck_follow, bool, 0644);

/* hot=1: count the faults of each cache and instruction from boot on. */
module_param_named(hot, kmemcheck_hot_on, bool, 0444);

/* quarantine=N: freed objects kept from reuse, at boot only. */
module_param_cb(quarantine, &kmemcheck_quarantine_ops,
		&kmemcheck_quarantine_len, 0444);

/* fault=report|panic: what follows a report. */
module_param_cb(fault, &kmemcheck_fault_ops, NULL, 0644);

/* report_limit=N: new reports printed per minute, 0 for no limit. */
module_param_named(report_limit, kmemcheck_report_limit, uint, 0644);

/* fastpath=0|1|2: which accesses go without a fault, at boot only. */
module_param_cb(fastpath, &kmemcheck_fastpath_ops, &kmemcheck_fastpath,
		0444);

/* track=...: what is tracked from boot on; debugfs "track" after. */
module_param_cb(track, &kmemcheck_track_ops, NULL, 0);
