# SPDX-License-Identifier: GPL-2.0
"""The command line of kmemcheck.py: its options (parse_args()) and its
commands (COMMANDS).  run, bench and profile are in modules of their own;
test runs the layers of kmemcheck_layers.py, devices/, fuzz/ and user/ in
order on each configuration.
"""

import argparse
import contextlib
import os
import sys
import time
from typing import Sequence, Tuple

import kmemcheck_bench as bench
import kmemcheck_context as context
import kmemcheck_devices as devices
import kmemcheck_export as export
import kmemcheck_fuzz as fuzz
import kmemcheck_layers as layers
import kmemcheck_profile as profile
import kmemcheck_qemu as qemu
import kmemcheck_run as run
import kmemcheck_stress as stress
import kmemcheck_tables as tables
import kmemcheck_tree as tree
import kmemcheck_user as user
from kmemcheck_tree import HarnessError, REPO

# The description of --help: the first line of kmemcheck.py's docstring.
DESCRIPTION = 'Builds, boots and tests kmemcheck for Linux 6.12 on i386 under QEMU.'


# ------------------------------------------------------------------------
# Subcommands
# ------------------------------------------------------------------------

def cmd_deps(ctx: context.Context, args: argparse.Namespace) -> int:
	tree.check_deps(ctx.build_dir)
	print('deps: all present')
	return 0


def cmd_prepare(ctx: context.Context, args: argparse.Namespace) -> int:
	context.prepare_tree(ctx)
	return 0


def cmd_refresh(ctx: context.Context, args: argparse.Namespace) -> int:
	tree.refresh(ctx.build_dir)
	return 0


def cmd_build(ctx: context.Context, args: argparse.Namespace) -> int:
	context.prepare_and_build(ctx)
	print(f'build: {ctx.kernel}')
	return 0


def cmd_stress(ctx: context.Context, args: argparse.Namespace) -> int:
	context.prepare_and_build(ctx)
	failed = 0
	for boot in range(1, args.boots + 1):
		name = f'stress-{args.mode}-boot{boot}'
		print(f'stress: boot {boot}/{args.boots}, kmemcheck={args.mode} {args.cmdline}, '
		      f'{len(stress.STRESSORS)} stressors x {args.duration} s', flush=True)
		res, why = layers.stress_boot(ctx, name, args.duration, args.mode, args.cmdline)
		context.print_report_summary(res.lines)
		if why:
			failed += 1
			print('--- console tail ---\n' + res.tail(), file=sys.stderr)
			print(f'stress: boot {boot} FAILED: {why} (console log: {res.log_path})')
		else:
			print(f'stress: boot {boot} passed (console log: {res.log_path})')
	print(f'stress: {args.boots - failed} of {args.boots} boots passed')
	return 1 if failed else 0


def cmd_lint(ctx: context.Context, args: argparse.Namespace) -> int:
	rep = layers.Reporter(None)
	context.prepare_and_build(ctx)
	layers.test_lint(ctx, rep)
	print(f'{rep.passed} passed, {rep.failed} failed')
	return 1 if rep.failed else 0


def cmd_export(ctx: context.Context, args: argparse.Namespace) -> int:
	out = os.path.abspath(args.out or os.path.join(ctx.build_dir, 'export'))
	patches = export.export(ctx.build_dir, out)
	ctx.tree = tree.tree_dir(ctx.build_dir)
	res, bad = layers.export_checkpatch(ctx, patches)
	print(f'export: checkpatch --strict: {res.errors} errors, {res.warnings} warnings, '
	      f'{res.checks} checks')
	for f in res.findings:
		print(f'export:   {f}')
	return 1 if bad else 0


def _harness(argv: Sequence[str], out_path: str) -> Tuple[int, str]:
	"""Runs a kmemcheck.py command line in this process, which holds the
	build directory's lock, its output into @out_path: (exit code, error)."""
	args = parse_args(argv)
	c = context.make_context(args)
	with open(out_path, 'w') as f, contextlib.redirect_stdout(f), \
	     contextlib.redirect_stderr(f):
		print('$ kmemcheck.py ' + ' '.join(argv), flush=True)
		try:
			return COMMANDS[args.command](c, args), ''
		except HarnessError as e:
			print(f'kmemcheck.py: error: {e}')
			return 1, str(e)


# ------------------------------------------------------------------ test ---

def test_config(ctx: context.Context, rep: layers.Reporter) -> None:
	"""Every layer, on the kernel of ctx.config."""
	kernel_ok = False
	t0 = time.time()
	build_log = os.path.join(ctx.logs, f'build-{ctx.config}.log')
	try:
		context.prepare_and_build(ctx)
		kernel_ok = True
		rep.report(layers.Result(f'build/{ctx.config}', True, '', time.time() - t0,
					 log=build_log))
	except HarnessError as e:
		rep.report(layers.Result(f'build/{ctx.config}', False, str(e).splitlines()[0],
					 log=build_log))
	layers.test_host(ctx, rep, kernel_ok)
	layers.test_findings(ctx, rep)
	if kernel_ok:
		layers.test_lint(ctx, rep)
		layers.test_export(ctx, rep)
		layers.test_distro(ctx, rep)
		layers.test_kunit(ctx, rep)
		layers.test_kunitpy(ctx, rep)
		layers.test_ksuites(ctx, rep)
		layers.test_boots(ctx, rep)
		# The layers use kmemcheck_layers' check_boot() and Result.
		devices.test_devices(ctx, rep, layers)
		fuzz.test_fuzz(ctx, rep, layers)
		user.test_user(ctx, rep, _harness)
		layers.test_stress(ctx, rep)


def cmd_test(ctx: context.Context, args: argparse.Namespace) -> int:
	rep = layers.Reporter(args.filter)
	# The second configurations run after default's layers; a filter
	# within one of them ('pae/*') builds and runs only that one.
	seconds = tables.SECOND_CONFIGS if ctx.config == 'default' else ()
	if any((args.filter or '').startswith(f'{s.name}/') for s in seconds):
		context.prepare_tree(ctx)
	else:
		test_config(ctx, rep)
	for second in seconds:
		layers.test_second_config(ctx, rep, second)
	title = (f'kmemcheck.py test --config {ctx.config}' +
		 (f" --filter '{args.filter}'" if args.filter else '') +
		 time.strftime(', %Y-%m-%d %H:%M:%S UTC', time.gmtime()))
	layers.test_results(ctx, rep, title)
	print(f'results: {layers.write_results(ctx, rep, title)}', flush=True)
	print(f'{rep.passed} passed, {rep.failed} failed')
	return 1 if rep.failed else 0


# ------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------

def _global_options(parser: argparse.ArgumentParser, defaults: bool) -> None:
	"""--build-dir and --jobs, before or after the subcommand."""
	def default(value):
		return value if defaults else argparse.SUPPRESS
	parser.add_argument('--build-dir', default=default(os.path.join(REPO, 'build')),
			    help='where the tree, objects, logs go (default: <repo>/build)')
	parser.add_argument('--jobs', type=int, default=default(os.cpu_count() or 1),
			    help='parallel make jobs (default: number of CPUs)')


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
	parser = argparse.ArgumentParser(description=DESCRIPTION)
	_global_options(parser, defaults=True)
	common = argparse.ArgumentParser(add_help=False)
	_global_options(common, defaults=False)
	sub = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')

	# The user's own tree and config options: prepare, build, run, lint, test.
	user_tree = argparse.ArgumentParser(add_help=False)
	user_tree.add_argument('--tree', default=None, metavar='DIR',
			       help='your 6.12 git tree: kmemcheck goes in as branch '
			       '"kmemcheck" on top of its HEAD (default: <build-dir>/linux)')
	kconfig = argparse.ArgumentParser(add_help=False)
	kconfig.add_argument('--kconfig', action='append', default=[], metavar='FILE',
			     help='a config fragment of yours, merged after ours (repeatable)')
	kconfig.add_argument('--kconfig-add', action='append', default=[],
			     metavar='CONFIG_FOO=y', help='one more option (repeatable)')

	sub.add_parser('deps', parents=[common], help='check/install dependencies')
	sub.add_parser('prepare', parents=[common, user_tree],
		       help='unpack 6.12, apply overlay + patches/series (--tree: '
		       'kmemcheck as a branch of your tree)')
	sub.add_parser('refresh', parents=[common],
		       help='copy changes in the prepared tree back to the repo')
	configs = list(tree.CONFIGS)
	p = sub.add_parser('build', parents=[common, user_tree, kconfig], help='build a kernel')
	p.add_argument('--config', choices=configs, default='default')
	p = sub.add_parser('run', parents=[common, user_tree, kconfig],
			   help='boot the demo, your workload, or a shell')
	p.add_argument('--config', choices=configs, default='default')
	p.add_argument('--cmdline', default='',
		       help='more kernel parameters, added after kmemcheck=1')
	p.add_argument('--kernel', default=None, help='boot this bzImage, build nothing')
	p.add_argument('--shell', action='store_true', help='interactive busybox shell')
	p.add_argument('--module', action='append', default=[], metavar='"KO|DIR [PARAMS]"',
		       help='insmod this module (a .ko, or a module source directory '
		       'built against the kernel), wait, rmmod (repeatable)')
	p.add_argument('--module-wait', type=float, default=1, metavar='S',
		       help='seconds between loading and unloading the modules '
		       '(default: %(default)s)')
	p.add_argument('--script', default=None, metavar='FILE',
		       help='run FILE as root in the guest after boot; its exit code '
		       'becomes run\'s')
	p.add_argument('--add', action='append', default=[], metavar='PATH[:GUEST_PATH]',
		       help='put a file or directory into the initramfs '
		       '(default guest path: /root/<name>; repeatable)')
	p.add_argument('--log', default='run.log', metavar='NAME',
		       help='console log file in <build-dir>/logs (default: %(default)s)')
	p.add_argument('--timeout', type=float, default=qemu.DEFAULT_TIMEOUT,
		       help='seconds before the guest counts as hung (default: %(default)s)')
	p.add_argument('--smp', type=int, default=1, help='guest CPUs (default: 1)')
	p.add_argument('--disk', action='append', default=[], metavar='IMG',
		       help='attach the raw image IMG as a virtio-blk disk, /dev/vda, '
		       '/dev/vdb, ... in order; the guest writes to it (repeatable)')
	p.add_argument('--net', nargs='?', const='user', default='',
		       choices=[n for n in qemu.NETS if n], metavar='user|isolated',
		       help='a virtio-net NIC (eth0) on QEMU\'s user network, '
		       'DHCP and gateway %s from QEMU itself; "isolated": no packet '
		       'leaves QEMU (default: no NIC)' % qemu.GATEWAY)
	p.add_argument('--qemu-arg', action='append', default=[], metavar='ARG',
		       help='append ARG to QEMU\'s command line, verbatim (repeatable; '
		       'write --qemu-arg=-ARG for one that starts with a dash)')
	p = sub.add_parser('lint', parents=[common],
			   help='checkpatch, kernel-doc, W=1 and sparse on our code')
	p.add_argument('--config', choices=configs, default='default')
	p = sub.add_parser('test', parents=[common], help='run all tests')
	p.add_argument('--filter', default=None,
		       help='glob on test names, e.g. "boot/*" or "kunit/kmemcheck*"')
	p.add_argument('--config', choices=configs, default='default')
	p = sub.add_parser('export', parents=[common],
			   help='write the git format-patch series, run checkpatch on it')
	p.add_argument('--out', default=None,
		       help='directory for the patches (default: <build-dir>/export)')
	bench.register(sub, common)
	profile.register(sub, common)
	p = sub.add_parser('stress', parents=[common],
			   help='stress-ng under kmemcheck, NMIs, ftrace, fault injection')
	p.add_argument('--duration', type=int, default=10,
		       help='seconds per stressor (default: %(default)s)')
	p.add_argument('--boots', type=int, default=1,
		       help='consecutive boots (default: %(default)s)')
	p.add_argument('--mode', type=int, choices=(0, 1), default=1,
		       help='kmemcheck= of the boots (default: %(default)s)')
	p.add_argument('--cmdline', default='',
		       help='more kernel parameters, e.g. kmemcheck.fastpath=1')
	p.add_argument('--config', choices=configs, default='default')
	return parser.parse_args(argv)


COMMANDS = {
	'deps': cmd_deps, 'prepare': cmd_prepare, 'refresh': cmd_refresh,
	'build': cmd_build, 'run': run.cmd_run, 'lint': cmd_lint, 'test': cmd_test,
	'export': cmd_export,
	'bench': bench.cmd_bench,
	'profile': profile.cmd_profile,
	'stress': cmd_stress,
}
