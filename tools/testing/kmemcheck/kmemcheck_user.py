# SPDX-License-Identifier: GPL-2.0
"""The user/ layer of kmemcheck.py test: the README's worked example,
prepare --tree on a user's own git tree, then run --module on it.

Its tests run kmemcheck.py command lines in the harness's own process:
kmemcheck_cli.py passes test_user() the function that does.
"""

import os
import re
import shutil
import time
from typing import Callable, List, Optional, Sequence, Tuple

import kmemcheck_context as context
import kmemcheck_export as export
import kmemcheck_layers as layers
import kmemcheck_qemu as qemu
import kmemcheck_run as run
import kmemcheck_tables as tables
import kmemcheck_tree as tree
from kmemcheck_tree import REPO

# ------------------------------------------------------------ user/ ---
# A new user's work, as the README shows it: their own 6.12 git tree and an
# out-of-tree module.  The tree is a shared clone of build/linux at base
# with a commit and an untracked file of theirs; it is made once and kept,
# so that its kernel (build/obj-default-linux-*) builds incrementally.

USER_DIR = 'user-test'
USER_BRANCH = 'mine'
USER_FILE = 'mydriver/notes.txt'
USER_MODULE = os.path.join(REPO, tree.HARNESS_DIR, 'module')
USER_FUNC = 'kmemcheck_example_sum'
# kmemcheck.quarantine=7 shows that --cmdline adds to kmemcheck=1.
USER_SCRIPT = f'''#!/bin/sh
# The twin's workload: what --add put in, and what --cmdline added.
cat /root/data/notes.txt
grep -q "kmemcheck=1 .*kmemcheck.quarantine=7" /proc/cmdline || exit 7
[ "$(cat /sys/module/kmemcheck/parameters/quarantine)" = 7 ] || exit 8
grep -q "mine, not the harness's" /root/data/notes.txt || exit 9
exit 5
'''
USER_SCRIPT_RC = 5
USER_RUN_ARGS = ('--kconfig-add', 'CONFIG_MODULE_UNLOAD=y')
# Runs a kmemcheck.py command line in the harness's process, which holds
# the build directory's lock, its output into a file: (argv, output path)
# to (exit code, error).  kmemcheck_cli._harness().
Harness = Callable[[Sequence[str], str], Tuple[int, str]]


def make_user_tree(ctx: context.Context, path: str, sparse: Sequence[str] = ()) -> str:
	"""A user's tree at @path, made once: build/linux's base, a commit of
	theirs on branch "mine" and an untracked file.  @sparse: check out only
	these paths (a tree that is never built).  Returns the commit of theirs."""
	if not os.path.isdir(os.path.join(path, '.git')):
		shutil.rmtree(path, ignore_errors=True)
		tree.log(f'test: making a user tree in {path}')
		tree.run(['git', 'clone', '-q', '--shared', '--no-checkout', ctx.tree, path])
		if sparse:
			tree.run(['git', 'sparse-checkout', 'set', '--no-cone', '--stdin'],
				 cwd=path, input=''.join(f'/{f}\n' for f in sparse))
		tree.git(path, 'checkout', '-q', '-b', USER_BRANCH, 'base')
		readme = os.path.join(path, 'README')
		with open(readme, 'a') as f:
			f.write('\nMy tree.\n')
		tree.git(path, 'commit', '-q', '-m', 'README: my tree', '--', 'README')
	os.makedirs(os.path.join(path, os.path.dirname(USER_FILE)), exist_ok=True)
	with open(os.path.join(path, USER_FILE), 'w') as f:
		f.write("mine, not the harness's\n")
	return tree.git(path, 'rev-parse', USER_BRANCH).strip()


def reset_user_tree(path: str, series: str) -> None:
	"""Takes an old kmemcheck branch out of the test's user tree when the
	series changed (the user would do the same)."""
	have = tree.git(path, 'config', f'branch.{export.USER_BRANCH}.kmemcheck-series',
			check=False).strip()
	if have and have != series:
		tree.git(path, 'checkout', '-q', USER_BRANCH)
		# Deleting the branch deletes its config, series id included.
		tree.git(path, 'branch', '-q', '-D', export.USER_BRANCH)


def check_user_tree(path: str, mine: str, n: int) -> Optional[str]:
	"""kmemcheck is n commits on branch kmemcheck on top of @mine; their
	file is still there."""
	if tree.git(path, 'symbolic-ref', '--short', 'HEAD').strip() != export.USER_BRANCH:
		return f'HEAD is not branch {export.USER_BRANCH}'
	got = tree.git(path, 'rev-list', '--count', f'{mine}..HEAD').strip()
	if got != str(n) or tree.git(path, 'rev-parse', f'HEAD~{n}').strip() != mine:
		return f'{got} commits on top of the user\'s, expected {n} on {mine[:12]}'
	if tree._read(os.path.join(path, USER_FILE)) != b"mine, not the harness's\n":
		return f'{USER_FILE} of the user changed or went away'
	# Debian's tarball ignores every untracked file ("/*" in .gitignore).
	status = tree.git(path, 'status', '--porcelain', '--untracked-files=no').strip()
	if status:
		return 'git status is not clean: ' + ' | '.join(status.splitlines()[:5])
	return None


def _first_removed_line(patch_path: str) -> Tuple[str, str]:
	"""(file, text) of the first line the patch removes or changes."""
	current = ''
	with open(patch_path) as f:
		for line in f:
			m = re.match(r'^\+\+\+ b/(\S+)', line)
			if m:
				current = m.group(1)
			elif line.startswith('-') and not line.startswith('---') and current:
				return current, line[1:]
	return '', ''


def test_user_conflict(ctx: context.Context, rep: layers.Reporter, patches: List[str],
		       harness: Harness) -> None:
	"""A user commit on a line a patch changes: prepare --tree stops, names
	the patch and the file, and leaves the tree as it was."""
	t0 = time.time()
	target = next(((p, *_first_removed_line(p)) for p in patches[1:]
		       if _first_removed_line(p)[0]), None)
	if target is None:
		rep.report(layers.Result('user/tree-conflict', False, 'no patch removes a line'))
		return
	patch, path, text = target
	touched = sorted({f for p in patches[1:] for f in tree.patch_files(p)} |
			 {'Makefile', 'README'})
	utree = os.path.join(ctx.build_dir, USER_DIR, 'conflict')
	make_user_tree(ctx, utree, sparse=touched)
	if tree.git(utree, 'log', '-1', '--format=%s').strip() != 'their change':
		full = os.path.join(utree, path)
		data = tree._read(full).decode()
		with open(full, 'w') as f:
			f.write(data.replace(text, text.rstrip('\n') + ' /* theirs */\n', 1))
		tree.git(utree, 'commit', '-q', '-m', 'their change', '--', path)
	mine = tree.git(utree, 'rev-parse', 'HEAD').strip()
	rc, err = harness(['prepare', '--build-dir', ctx.build_dir, '--tree', utree],
			  os.path.join(ctx.logs, 'user-tree-conflict.out'))
	name = os.path.basename(patch)
	why = None
	if rc == 0:
		why = 'prepare --tree applied a patch over a conflicting commit'
	elif name not in err or path not in err:
		why = f'the error does not name {name} and {path}: {err}'
	elif tree.git(utree, 'rev-parse', 'HEAD').strip() != mine or \
	     tree.git(utree, 'symbolic-ref', '--short', 'HEAD').strip() != USER_BRANCH:
		why = 'the tree is no longer on the user\'s commit'
	elif tree.git(utree, 'status', '--porcelain', '--untracked-files=no').strip():
		why = 'the user\'s files changed: ' + tree.git(utree, 'status', '--porcelain')
	elif tree.git(utree, 'branch', '--list', export.USER_BRANCH).strip():
		why = f'branch {export.USER_BRANCH} left behind'
	rep.report(layers.Result('user/tree-conflict', not why,
				 why or f'[stopped at {name}, {path}]', time.time() - t0))


def check_user_run(log_path: str, rc: int, err: str, want_rc: int,
		   must: Sequence[str], reports: Sequence[str]) -> Optional[str]:
	"""A user run's exit code, console lines and reports."""
	lines = tree._read(log_path)
	text = lines.decode(errors='replace') if lines else ''
	if err:
		return err.splitlines()[0]
	if rc != want_rc:
		return f'run exited {rc}, expected {want_rc}'
	kernel = qemu.kernel_text(text.splitlines())
	for rx in tables.KSTR_NEVER:
		m = re.search(rx, kernel, re.M)
		if m:
			return f'console has /{rx}/'
	bad = layers.unexplained_reports(text, reports)
	if bad:
		return f'unexplained kmemcheck report: {bad[0]}'
	for rx in must:
		if not re.search(rx, text, re.M):
			return f'console lacks /{rx}/'
	return None


def test_user(ctx: context.Context, rep: layers.Reporter, harness: Harness) -> None:
	"""The README's worked example: prepare --tree, then run --module.

	Only when asked for by name (`test --filter 'user/*'`): it builds a
	second kernel, from the user tree, which CI does not have the time for
	until the two builds share their objects."""
	if not (rep.pattern or '').startswith('user/'):
		return
	t0 = time.time()
	patches = export.export(ctx.build_dir, os.path.join(ctx.build_dir, 'export'))
	series = export._series_id(patches[1:])
	if rep.wants('user/tree-conflict'):
		test_user_conflict(ctx, rep, patches, harness)
	names = ('user/prepare-tree', 'user/module-uninit', 'user/module-twin')
	if not any(rep.wants(n) for n in names):
		return
	utree = os.path.join(ctx.build_dir, USER_DIR, 'linux')
	mine = make_user_tree(ctx, utree)
	reset_user_tree(utree, series)
	rc, err = harness(['prepare', '--build-dir', ctx.build_dir, '--tree', utree],
			  os.path.join(ctx.logs, 'user-prepare-tree.out'))
	why = err.splitlines()[0] if rc else check_user_tree(utree, mine, len(patches) - 1)
	rep.report(layers.Result('user/prepare-tree', not why,
				 why or f'[{len(patches) - 1} commits on {USER_BRANCH}]',
				 time.time() - t0))
	if why:
		return
	common = ['run', '--build-dir', ctx.build_dir, '--jobs', str(ctx.jobs),
		  '--tree', utree, *USER_RUN_ARGS]
	uninit = rf'BUG: KMEMCHECK: uninit-value in {USER_FUNC}\+0x\w+/0x\w+ \[kmemcheck_example\]'
	if rep.wants('user/module-uninit'):
		t0 = time.time()
		log = 'user-module-uninit.log'
		rc, err = harness([*common, '--module', USER_MODULE, '--log', log],
				  os.path.join(ctx.logs, 'user-module-uninit.out'))
		why = check_user_run(os.path.join(ctx.logs, log), rc, err, run.EXIT_REPORTED,
				     [uninit, r'^kmemcheck-harness: insmod kmemcheck_example rc=0$',
				      r'^kmemcheck-harness: rmmod kmemcheck_example rc=0$'],
				     [rf'^uninit-value in {USER_FUNC}$'])
		rep.report(layers.Result('user/module-uninit', not why,
					 f'{why} (log: {ctx.logs}/{log})' if why else '',
					 time.time() - t0))
	if rep.wants('user/module-twin'):
		t0 = time.time()
		log = 'user-module-twin.log'
		script = os.path.join(ctx.build_dir, USER_DIR, 'script.sh')
		with open(script, 'w') as f:
			f.write(USER_SCRIPT)
		rc, err = harness([*common, '--module', f'{USER_MODULE} zero=1',
				   '--script', script, '--cmdline', 'kmemcheck.quarantine=7',
				   '--add', f'{os.path.join(utree, USER_FILE)}:/root/data/notes.txt',
				   '--log', log],
				  os.path.join(ctx.logs, 'user-module-twin.out'))
		why = check_user_run(os.path.join(ctx.logs, log), rc, err, USER_SCRIPT_RC,
				     [r'kmemcheck_example: sum \d+ \(kzalloc\)',
				      r'^kmemcheck-harness: insmod kmemcheck_example rc=0$',
				      r'^kmemcheck-harness: rmmod kmemcheck_example rc=0$',
				      rf'^kmemcheck-harness: script rc={USER_SCRIPT_RC}$'],
				     [])
		if not why and re.search(tables.KSTR_ANY_REPORT, tree._read(
				os.path.join(ctx.logs, log)).decode(errors='replace')):
			why = 'kmemcheck reported on the correct path'
		rep.report(layers.Result('user/module-twin', not why,
					 f'{why} (log: {ctx.logs}/{log})' if why else '',
					 time.time() - t0))
