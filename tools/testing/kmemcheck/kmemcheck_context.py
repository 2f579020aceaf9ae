# SPDX-License-Identifier: GPL-2.0
"""What the commands and test layers of kmemcheck.py share: the Context
(directories and options), the prepared tree and the kernel built from
it, and the summary of a boot's kmemcheck reports.
"""

import argparse
import hashlib
import os
from collections import Counter
from dataclasses import dataclass
from typing import List, Sequence, Tuple

import kmemcheck_export as export
import kmemcheck_qemu as qemu
import kmemcheck_tree as tree


@dataclass
class Context:
	"""What the subcommands share: directories and options."""
	build_dir: str
	jobs: int
	config: str = 'default'
	tree: str = ''
	obj: str = ''
	kernel: str = ''
	user_tree: bool = False  # --tree: tree is the user's, kmemcheck a branch
	kconfig_files: Sequence[str] = ()
	kconfig_add: Sequence[str] = ()
	log_dir: str = ''  # under <build>/logs: the layers of a second config

	@property
	def logs(self) -> str:
		return os.path.join(self.build_dir, 'logs', self.log_dir).rstrip('/')

	@property
	def machine(self) -> qemu.Machine:
		return qemu.machine(self.config)

	def has(self, symbol: str) -> bool:
		"""The kernel's .config has @symbol=y."""
		config = tree._parse_fragment(os.path.join(self.obj, '.config'))
		return config.get(symbol) == 'y'

	@property
	def nx(self) -> bool:
		"""The kernel runs with NX: a PAE kernel on a CPU model with NX."""
		config = tree._parse_fragment(os.path.join(self.obj, '.config'))
		return self.machine.nx and config.get('CONFIG_X86_PAE') == 'y'

	def initramfs(self, name: str, script: str,
		      add: Sequence[Tuple[str, str]] = ()) -> str:
		debs = [d for d in tree.guest_debs(self.build_dir).values() if d]
		return qemu.build_initramfs(
			debs, script, os.path.join(self.build_dir, 'initramfs', f'{name}.cpio.gz'),
			add=add)


def user_obj_dir(build_dir: str, config: str, utree: str) -> str:
	"""Objects of a --tree build: <build>/obj-<config>-<tree name>-<hash>."""
	tag = hashlib.sha1(utree.encode()).hexdigest()[:6]
	return os.path.join(build_dir, f'obj-{config}-{os.path.basename(utree)}-{tag}')


def make_context(args: argparse.Namespace) -> Context:
	ctx = Context(os.path.abspath(args.build_dir), args.jobs,
		      getattr(args, 'config', None) or 'default')
	ctx.obj = tree.obj_dir(ctx.build_dir, ctx.config)
	ctx.tree = tree.tree_dir(ctx.build_dir)
	if getattr(args, 'tree', None):
		ctx.tree = os.path.abspath(args.tree)
		ctx.user_tree = True
		ctx.obj = user_obj_dir(ctx.build_dir, ctx.config, ctx.tree)
	ctx.kconfig_files = getattr(args, 'kconfig', None) or ()
	ctx.kconfig_add = getattr(args, 'kconfig_add', None) or ()
	return ctx


def prepare_tree(ctx: Context) -> None:
	"""build/linux prepared; with --tree, kmemcheck on a branch of that tree."""
	if ctx.user_tree:
		export.apply_to_tree(ctx.build_dir, ctx.tree)
	else:
		ctx.tree = tree.prepare(ctx.build_dir)


def prepare_and_build(ctx: Context) -> None:
	prepare_tree(ctx)
	extra = tree.user_fragment(ctx.obj, ctx.kconfig_files, ctx.kconfig_add)
	ctx.kernel = tree.build(ctx.build_dir, ctx.tree, ctx.config, ctx.jobs, ctx.obj, extra)


def print_report_summary(lines: List[str]) -> int:
	"""Prints the number of reports and each distinct one; returns the number."""
	reports = qemu.kmemcheck_reports(lines)
	print(f'run: {len(reports)} kmemcheck reports')
	for (kind, func), n in sorted(Counter(reports).items()):
		print(f'run:   {n:4d}  {kind} in {func}')
	return len(reports)
