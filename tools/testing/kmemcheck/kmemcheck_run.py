# SPDX-License-Identifier: GPL-2.0
"""kmemcheck.py run: boot the demo, a shell, or the user's workload
(--module, --script, --add) and summarize kmemcheck's reports.
"""

import argparse
import os
import re
import sys
from typing import List, Sequence, Tuple

import kmemcheck_context as context
import kmemcheck_qemu as qemu
import kmemcheck_tree as tree
from kmemcheck_tree import HarnessError

GUEST_MODULES = '/lib/modules/kmemcheck-run'
GUEST_SCRIPT = '/root/kmemcheck-script'
# What run reads back from the user's workload in the guest.
USER_RC_RE = re.compile(r'^kmemcheck-harness: (insmod|rmmod|script) (\S*) ?rc=(\d+)$', re.M)
# run's exit code when kmemcheck reported during a user workload.
EXIT_REPORTED = 2


def _module_kos(ctx: context.Context, spec: str, n: int) -> Tuple[List[str], List[str]]:
	"""(.ko files, insmod parameters) of one --module: a .ko, or a module
	source directory built against the kernel, then its parameters."""
	path, *params = spec.split()
	if os.path.isdir(path):
		out = os.path.join(ctx.build_dir, 'modules',
				   f'{n}-{os.path.basename(os.path.abspath(path))}')
		log_path = os.path.join(ctx.logs, f'module-{n}.log')
		print(f'run: building the module in {path} (log: {log_path})', flush=True)
		return tree.build_module(ctx.tree, ctx.obj, path, out, ctx.jobs, log_path), params
	if path.endswith('.ko') and os.path.isfile(path):
		return [os.path.abspath(path)], params
	raise HarnessError(f'--module {path}: neither a .ko file nor a module source directory')


def user_workload(ctx: context.Context,
		  args: argparse.Namespace) -> Tuple[str, List[Tuple[str, str]]]:
	"""The scenario and initramfs additions of --add, --module and --script.

	Each module is loaded, the guest waits --module-wait seconds, and the
	modules are unloaded in reverse order (when the kernel can); then the
	script runs from /root.  Every step prints its exit status.
	"""
	add: List[Tuple[str, str]] = []
	for spec in args.add:
		host, _, guest = spec.partition(':')
		if not os.path.exists(host):
			raise HarnessError(f'--add {host}: no such file or directory')
		host = os.path.abspath(host)
		add.append((host, guest or f'/root/{os.path.basename(host)}'))
	load, unload = [], []
	for n, spec in enumerate(args.module):
		kos, params = _module_kos(ctx, spec, n)
		for ko in kos:
			name = os.path.basename(ko)[:-len('.ko')].replace('-', '_')
			guest = f'{GUEST_MODULES}/{os.path.basename(ko)}'
			add.append((ko, guest))
			load.append(f'echo "kmemcheck-harness: insmod {name}"\n'
				    f'insmod {guest} {" ".join(params)}\n'.replace(' \n', '\n') +
				    f'echo "kmemcheck-harness: insmod {name} rc=$?"\n')
			unload.insert(0, f'rmmod {name}\n'
				      f'echo "kmemcheck-harness: rmmod {name} rc=$?"\n')
	lines = load
	if load:
		lines.append(f'sleep {args.module_wait:g}\n')
		config = tree._parse_fragment(os.path.join(ctx.obj, '.config'))
		if config.get('CONFIG_MODULE_UNLOAD') == 'y':
			lines += unload
		else:
			lines.append('echo "kmemcheck-harness: no CONFIG_MODULE_UNLOAD, '
				     'modules stay loaded"\n')
	if args.script:
		if not os.path.isfile(args.script):
			raise HarnessError(f'--script {args.script}: no such file')
		add.append((os.path.abspath(args.script), GUEST_SCRIPT))
		lines.append(f'chmod +x {GUEST_SCRIPT}\n'
			     f'echo "kmemcheck-harness: script {args.script}"\n'
			     f'(cd /root && {GUEST_SCRIPT})\n'
			     f'echo "kmemcheck-harness: script rc=$?"\n')
	return ''.join(lines), add


def workload_exit(res: qemu.BootResult, reports: int) -> int:
	"""run's exit code after a user workload: EXIT_REPORTED when kmemcheck
	reported, else the script's, else 1 if insmod or rmmod failed."""
	if reports:
		return EXIT_REPORTED
	codes = USER_RC_RE.findall(qemu.userspace_text(res.lines))
	script = [int(rc) for what, _, rc in codes if what == 'script']
	if script and script[-1]:
		return script[-1]
	return 1 if any(int(rc) for what, _, rc in codes if what != 'script') else 0


def run_disks(disks: Sequence[str]) -> List[str]:
	"""The images of --disk, checked and made absolute."""
	for disk in disks:
		if not os.path.isfile(disk):
			raise HarnessError(f'--disk {disk}: no such file')
	return [os.path.abspath(d) for d in disks]


def cmd_run(ctx: context.Context, args: argparse.Namespace) -> int:
	devices = dict(disks=run_disks(args.disk), net=args.net, extra_args=args.qemu_arg)
	if args.kernel:
		ctx.kernel = os.path.abspath(args.kernel)
	else:
		context.prepare_and_build(ctx)
	workload = bool(args.module or args.script or args.add)
	script, add = user_workload(ctx, args) if workload else ('', [])
	if args.shell:
		script = qemu.SHELL_SCENARIO
	elif not workload:
		script = qemu.DEMO_SCENARIO
	name = 'shell' if args.shell else 'run'
	debs = [d for d in tree.guest_debs(ctx.build_dir).values() if d]
	initrd = qemu.build_initramfs(
		debs, script, os.path.join(ctx.build_dir, 'initramfs', f'{name}.cpio.gz'),
		add=add)
	cmdline = f'kunit.enable=0 kmemcheck=1 {args.cmdline}'.strip()
	if args.shell:
		return qemu.boot_interactive(ctx.kernel, initrd, cmdline, args.smp, ctx.machine,
					     **devices)
	log_path = os.path.join(ctx.logs, args.log)
	res = qemu.boot(ctx.kernel, initrd, cmdline, args.smp, args.timeout,
			log_path, echo=sys.stdout, mach=ctx.machine, **devices)
	print(f'run: qemu finished in {res.seconds:.1f} s (console log: {log_path})')
	reports = context.print_report_summary(res.lines)
	why = res.failure()
	if why:
		print('--- console tail ---\n' + res.tail(), file=sys.stderr)
		raise HarnessError(f'run: {why}')
	if not workload:
		return 0
	rc = workload_exit(res, reports)
	print(f'run: exit {rc}' + (' (kmemcheck reported)' if rc == EXIT_REPORTED and reports
				   else ''))
	return rc
