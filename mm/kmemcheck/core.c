// SPDX-License-Identifier: GPL-2.0
/*
 * kmemcheck core: the kmemcheck= boot parameter and the kernel.kmemcheck
 * sysctl, turning tracking on at boot, and keeping the machine on the one
 * CPU kmemcheck needs.  The hooks are in hooks.c and annotate.c, the
 * checks in check.c, the origins in origin.c.
 *
 * Copyright (C) 2026 The kmemcheck authors
 */

#define pr_fmt(fmt) "kmemcheck: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kmemcheck.h>
#include <linux/kmemcheck-checks.h>
#include <linux/printk.h>
#include <linux/smp.h>
#include <linux/sysctl.h>

#include "kmemcheck.h"

/* === Data ================================================================ */

/* DEFINE_STATIC_KEY_FALSE(), spelt out to be exported: modules test it. */
struct static_key_false kmemcheck_enabled_key = STATIC_KEY_FALSE_INIT;
EXPORT_SYMBOL_GPL(kmemcheck_enabled_key);

/* The mode chosen at boot; tracking runs only if it is not off. */
static int kmemcheck_boot_mode __initdata = CONFIG_KMEMCHECK_DEFAULT_MODE;
/* Read inline by kmemcheck_copy_to_user(), in modules too. */
bool kmemcheck_booted_on __ro_after_init;
EXPORT_SYMBOL(kmemcheck_booted_on);

/* Reporting mode, changed at run time by the sysctl and by one-shot. */
int kmemcheck_mode __read_mostly;

atomic_long_t kmemcheck_counters[KMEMCHECK_COUNTER_COUNT];

/* === Controls ============================================================ */

static int __init kmemcheck_parse_boot(char *arg)
{
	int mode;

	if (!arg || kstrtoint(arg, 0, &mode) || mode < KMEMCHECK_MODE_OFF ||
	    mode > KMEMCHECK_MODE_ONESHOT) {
		pr_warn("unknown boot value 'kmemcheck=%s', keeping the default %d\n",
			arg ? arg : "", kmemcheck_boot_mode);
		return 0;
	}
	kmemcheck_boot_mode = mode;
	return 0;
}
early_param("kmemcheck", kmemcheck_parse_boot);

/**
 * kmemcheck_direct_map_4k() - must the direct map use 4K pages?
 *
 * Called by the architecture before it maps memory, after early parameters
 * are parsed.  Only a 4K PTE can be hidden for one page.
 *
 * Return: true if kmemcheck will track memory.
 */
bool __init kmemcheck_direct_map_4k(void)
{
	return kmemcheck_boot_tracking();
}

/**
 * kmemcheck_boot_tracking() - will kmemcheck track memory from this boot?
 *
 * Valid once early parameters are parsed, before kmemcheck_init(): the
 * memory auto-initialization options ask it, as zeroing every allocation
 * or freed object would hide every read of uninitialized memory.
 *
 * Return: true unless kmemcheck is off (kmemcheck=0).
 */
bool __init kmemcheck_boot_tracking(void)
{
	return kmemcheck_boot_mode != KMEMCHECK_MODE_OFF;
}

/*
 * Hiding and showing pages flushes the local TLB only: an IPI is impossible
 * with interrupts off in the fault and trap handlers.  So the machine runs
 * on one CPU: the boot brings up no other, CPU hotplug is disabled once
 * the boot is over, and the paths that bring CPUs up all the same (SMT
 * control, which ignores cpu_hotplug_disable(), resume) are refused before
 * the CPU starts.
 */
#ifdef CONFIG_SMP
static void __init kmemcheck_limit_cpus(void)
{
	pr_info("limiting the machine to one CPU; boot with kmemcheck=0 to use them all\n");
	setup_max_cpus = 1;
}

static int kmemcheck_cpu_prepare(unsigned int cpu)
{
	pr_warn_ratelimited("refusing to bring up CPU %u: kmemcheck is on, which needs a single CPU\n",
			    cpu);
	return -EBUSY;
}

static void __init kmemcheck_keep_one_cpu(void)
{
	int ret;

	WARN_ON_ONCE(num_online_cpus() > 1);
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					"mm/kmemcheck:prepare",
					kmemcheck_cpu_prepare, NULL);
	if (ret < 0)
		pr_err("cannot keep other CPUs down (%d): do not online them\n",
		       ret);
	cpu_hotplug_disable();
}
#else
static inline void kmemcheck_limit_cpus(void) { }
static inline void kmemcheck_keep_one_cpu(void) { }
#endif

/**
 * kmemcheck_init() - turn tracking on, before the slab allocator starts
 *
 * Pages allocated earlier, from memblock or the early page allocator, stay
 * untracked.
 */
void __init kmemcheck_init(void)
{
	if (kmemcheck_boot_mode == KMEMCHECK_MODE_OFF) {
		pr_info("disabled\n");
		return;
	}
	kmemcheck_limit_cpus();
	kmemcheck_mode = kmemcheck_boot_mode;
	kmemcheck_booted_on = true;
	static_branch_enable(&kmemcheck_enabled_key);
	pr_info("enabled in %s mode\n",
		kmemcheck_mode == KMEMCHECK_MODE_ONESHOT ? "one-shot" : "report-all");
}

static int kmemcheck_sysctl_mode(const struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table t = *table;
	int mode = READ_ONCE(kmemcheck_mode);
	int ret;

	t.data = &mode;
	ret = proc_dointvec_minmax(&t, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	/* Nothing is tracked: turning checks on would check nothing. */
	if (!kmemcheck_booted_on && mode != KMEMCHECK_MODE_OFF) {
		pr_warn_ratelimited("booted with kmemcheck=0: boot with kmemcheck=1 to enable it\n");
		return -EPERM;
	}
	WRITE_ONCE(kmemcheck_mode, mode);
	return 0;
}

static struct ctl_table kmemcheck_sysctl_table[] = {
	{
		.procname	= "kmemcheck",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= kmemcheck_sysctl_mode,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_TWO,
	},
};

static int __init kmemcheck_late_init(void)
{
	register_sysctl_init("kernel", kmemcheck_sysctl_table);
	if (kmemcheck_booted_on)
		kmemcheck_keep_one_cpu();
	return 0;
}
late_initcall(kmemcheck_late_init);
