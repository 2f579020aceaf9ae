# SPDX-License-Identifier: GPL-2.0
"""kmemcheck as a patch series for upstream: git format-patch against base.

The prepared tree (kmemcheck_tree.prepare()) holds kmemcheck as changes on
top of the pristine 6.12 commit tagged "base".  export() cuts those changes
into the commits of SERIES, in upstream order, and writes them with
git format-patch and a cover letter.  The commits are made with a private
index in the prepared tree's repository: its work tree, index and branches
are left alone.

Each changed file goes to exactly one patch: the part that names it, or the
part whose directory contains it, or the part that reuses the patch of
patches/ that edits it.  Patches of patches/series that SERIES does not
name are exported unchanged where SERIES says OTHER_PATCHES.  The KMEMCHECK
MAINTAINERS section grows with the series: each patch that adds files adds
their F: lines, so checkpatch sees MAINTAINERS updated with every new file.

check_patches() runs checkpatch.pl --strict on the result; apply_check()
applies the series with git am to a fresh checkout of base and compares
the result with the prepared tree, which is what "build" builds.
"""

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import kmemcheck_lint as lint
import kmemcheck_tree as tree
from kmemcheck_tree import HarnessError, REPO

AUTHOR = ('kmemcheck team', 'kmemcheck@example.org')
SIGNOFF = f'Signed-off-by: {AUTHOR[0]} <{AUTHOR[1]}>'
OTHER_PATCHES = '*'


@dataclass
class Part:
	"""One exported patch: files by path, and/or a patch of patches/."""
	subject: str = ''
	body: str = ''
	paths: Tuple[str, ...] = ()  # exact files, or directories ending in '/'
	patch: str = ''  # reuse subject, body and files of patches/<patch>


SERIES: Tuple[Part, ...] = (
	Part(patch='0002-mm-add-kmemcheck-opt-out-flags.patch'),
	Part(patch='0003-mm-add-kmemcheck-state-to-page-and-task.patch'),
	Part(patch='0011-tracing-error_report-add-kmemcheck.patch'),
	Part('mm: kmemcheck: add the shadow, the checks and the reports', '''
kmemcheck finds reads of uninitialized heap memory without compiler
instrumentation, for the kernels KMSAN cannot build (x86-32, GCC).  It
was in the kernel until 4.14; this is a rewrite for today's mm.

Every tracked page has a shadow page holding one state byte per byte:
unallocated, uninitialized, initialized or freed.  The architecture maps
tracked pages not-present and, on each fault, asks the core to check the
bytes an instruction reads and to mark those it writes.  Bad reads are
reported as "BUG: KMEMCHECK: <type> in <function>", deduplicated per call
site, through irq_work, with the error_report_end trace event.

This patch adds the architecture-independent part: the shadow, the
allocator hooks (no allocator calls them yet), the kmemcheck= boot
parameter, the kernel.kmemcheck sysctl, the reports and the debugfs
files, and KUnit tests that make bad reads and assert their reports
(and correct accesses and assert the absence of one).  Nothing can
enable it until an architecture selects HAVE_ARCH_KMEMCHECK.
''', ('mm/kmemcheck/', 'include/linux/kmemcheck.h',
      'include/linux/kmemcheck-checks.h', 'lib/Kconfig.kmemcheck',
      'lib/Kconfig.debug', 'mm/Makefile')),
	Part(patch='0005-mm-slub-track-objects-with-kmemcheck.patch'),
	Part(patch='0004-mm-page_alloc-track-pages-with-kmemcheck.patch'),
	Part(patch='0007-mm-x86-never-track-page-tables-and-stacks.patch'),
	Part(patch='0008-dma-mapping-tell-kmemcheck-about-device-writes.patch'),
	Part(patch='0010-lib-string-no-word-at-a-time-strscpy-under-kmemcheck.patch'),
	Part(OTHER_PATCHES),
	Part('x86/mm: kmemcheck: add the page fault and single-step handler', '''
The x86-32 half of kmemcheck: hide and show tracked pages through a
software PTE bit, decode the faulting instruction with the in-tree
instruction decoder to learn which bytes it reads and writes, have the
core check them, then map the pages, single-step the instruction and
hide them again from the debug trap.  Plain moves and string
instructions within mapped pages are emulated, so most accesses cost
one fault and no trap.  KUnit tests check the decoder on the
instructions the kernel uses, and, with the helpers of the generic
suite, what the fault handler and the following of values do with
given instructions.

The next patch calls it from the page fault and debug trap handlers.
''', ('arch/x86/mm/kmemcheck/', 'arch/x86/include/asm/kmemcheck.h',
      'arch/x86/mm/Makefile')),
	Part(patch='0006-x86-mm-hook-kmemcheck-into-faults-and-traps.patch'),
	Part('x86: enable kmemcheck on 32-bit', '''
Let x86-32 select HAVE_ARCH_KMEMCHECK, now that the fault and trap hooks
are in place.  Only x86-32 qualifies: the direct map covers lowmem in 4K
pages when asked, a software PTE bit is free, and the machine can run on
one CPU.

With kmemcheck, turn off DCACHE_WORD_ACCESS, whose word loads read past
the end of names (as under KMSAN), and build the instruction decoder,
which kmemcheck uses.
''', ('arch/x86/Kconfig',)),
	Part('Documentation: dev-tools: add kmemcheck', '''
Document kmemcheck in the manner of KFENCE: usage, boot parameters and
run-time knobs, how to read a report, the annotations API, the debugfs
files, how it works, its limitations and what it found in 6.12, and how
it relates to KASAN, KFENCE and KMSAN.  List it in the dev-tools index.
''', ('Documentation/dev-tools/kmemcheck.rst',),
	     patch='0009-Documentation-dev-tools-list-kmemcheck.patch'),
	Part('selftests: kmemcheck: add a QEMU test harness', '''
tools/testing/kmemcheck/kmemcheck.py applies kmemcheck to a 6.12 tree,
builds an i386 kernel from config fragments and boots it under QEMU with
a busybox initramfs: KUnit, boot scenarios (boot parameters, sysctl,
one-shot, SMP, fault=panic, debugfs, the demo bugs), host tests of the
instruction decoder, checkpatch, sparse, kernel-doc and htmldocs.
''', ('tools/testing/kmemcheck/',)),
)

COVER_SUBJECT = 'kmemcheck: detect reads of uninitialized heap memory on x86-32'
COVER_BLURB = '''\
kmemcheck finds kernel code that reads heap memory nobody wrote, reads
freed slab objects, or copies uninitialized heap bytes to user space.
Linux had it on x86 until 4.14; KMSAN has since replaced it, but KMSAN
needs clang and x86-64.  This series brings kmemcheck back for x86-32
kernels built with GCC, rewritten for today's SLUB, page allocator and
x86 entry code, and modelled on KFENCE and KMSAN for its interfaces.

How it works: tracked pages (slab and page-allocator pages) are mapped
not-present; each kernel access faults, the instruction is decoded, the
bytes it reads are checked against a shadow of per-byte states, and the
instruction is single-stepped with the page mapped.  Reports read
"BUG: KMEMCHECK: <type> in <function>", with the access, the object, a
shadow window and a stack trace.  It is slow and runs the machine on one
CPU; booted with kmemcheck=0 it costs a few static branches.

The series: opt-out flags and struct fields, the core with its KUnit
tests, the allocator, DMA and string hooks, the x86-32 fault and trap
layer, the Kconfig switch that enables it, the documentation
(Documentation/dev-tools/kmemcheck.rst) and a QEMU test harness.

How to test: enable CONFIG_KMEMCHECK, CONFIG_KMEMCHECK_DEMO and
CONFIG_KMEMCHECK_KUNIT_TEST on an i386 configuration and boot with
kmemcheck=1: the KUnit suites run at boot, and

  echo uninit > /sys/kernel/debug/kmemcheck/demo
  cat /sys/kernel/debug/kmemcheck/demo

produce an uninit-value and a kernel-infoleak report.  Or, from a
checkout of the kmemcheck repository:

  tools/testing/kmemcheck/kmemcheck.py test

builds, boots and checks all of it under QEMU.

Based on {base}.
'''

GIT_ENV = {
	'GIT_AUTHOR_NAME': AUTHOR[0], 'GIT_AUTHOR_EMAIL': AUTHOR[1],
	'GIT_COMMITTER_NAME': AUTHOR[0], 'GIT_COMMITTER_EMAIL': AUTHOR[1],
}


# ----------------------------------------------------------- the series ---

def _patch_message(name: str) -> Tuple[str, str]:
	"""Subject and body (without Signed-off-by) of patches/<name>."""
	with open(os.path.join(REPO, 'patches', name)) as f:
		header = tree._diff_body(f.read())[0]
	m = re.search(r'^Subject: (?:\[PATCH[^\]]*\] )?(.*(?:\n .*)*)', header, re.M)
	if not m:
		raise HarnessError(f'patches/{name} has no Subject: line')
	subject = ' '.join(m.group(1).split())
	body = header[m.end():].strip('\n')
	body = '\n'.join(l for l in body.splitlines() if not l.startswith('Signed-off-by:'))
	return subject, body.strip('\n')


@dataclass
class Commit:
	"""One patch of the exported series, resolved against the tree."""
	subject: str
	body: str
	files: List[str]


def _owner(path: str, exact: Dict[str, int], prefixes: List[Tuple[str, int]]) -> Optional[int]:
	if path in exact:
		return exact[path]
	best = max(((len(p), i) for p, i in prefixes if path.startswith(p)), default=None)
	return best[1] if best else None


def plan(changed: Sequence[str]) -> List[Commit]:
	"""Assigns every changed file of the tree to a patch of SERIES."""
	patches = {p.name: p for p in tree.read_series()}
	named = {part.patch for part in SERIES if part.patch}
	for name in named - set(patches):
		raise HarnessError(f'kmemcheck_export.SERIES names patches/{name}, '
				   'which is not in patches/series')
	listed = {p for part in SERIES for p in part.paths}
	parts: List[Tuple[str, str, List[str]]] = []  # subject, body, claims
	for part in SERIES:
		if part.subject == OTHER_PATCHES:
			# Unnamed patches, minus files SERIES places by path.
			for p in patches.values():
				files = [f for f in p.files if f not in listed]
				if p.name not in named and files:
					parts.append((*_patch_message(p.name), files))
			continue
		subject, body = _patch_message(part.patch) if part.patch else ('', '')
		if part.subject:
			subject, body = part.subject, part.body.strip('\n')
		claims = list(part.paths)
		if part.patch:
			claims += patches[part.patch].files
		parts.append((subject, body, claims))
	exact: Dict[str, int] = {}
	prefixes: List[Tuple[str, int]] = []
	for i, (_, _, claims) in enumerate(parts):
		for c in claims:
			if c.endswith('/'):
				prefixes.append((c, i))
			elif exact.setdefault(c, i) != i:
				raise HarnessError(f'{c} is claimed by two patches of the export: '
						   f'"{parts[exact[c]][0]}" and "{parts[i][0]}"')
	commits = [Commit(s, b, []) for s, b, _ in parts]
	stray = []
	for path in sorted(changed):
		if path == 'MAINTAINERS':
			continue
		i = _owner(path, exact, prefixes)
		if i is None:
			stray.append(path)
		else:
			commits[i].files.append(path)
	if stray:
		raise HarnessError('files that no patch of the export claims (add them to '
				   'SERIES in kmemcheck_export.py): ' + ' '.join(stray))
	return [c for c in commits if c.files]


def maintainers_steps(commits: List[Commit]) -> List[Optional[str]]:
	"""For each commit, the KMEMCHECK section it leaves, if it changes it.

	An F: line enters with the first commit that adds a file under it;
	the other lines of the section come with the first F: line.
	"""
	ours = tree._read(os.path.join(REPO, 'MAINTAINERS'))
	if not ours:
		return [None] * len(commits)
	lines = ours.decode().strip('\n').split('\n')
	entered: Dict[str, int] = {}
	for line in lines:
		if not line.startswith('F:'):
			continue
		pat = line.split(None, 1)[1].strip()
		for i, c in enumerate(commits):
			if any(f == pat or (pat.endswith('/') and f.startswith(pat))
			       for f in c.files):
				entered[line] = i
				break
	first = min(entered.values(), default=0)
	steps: List[Optional[str]] = []
	for i in range(len(commits)):
		if i != first and i not in entered.values():
			steps.append(None)
			continue
		keep = [l for l in lines if not l.startswith('F:') or entered.get(l, first) <= i]
		steps.append('\n'.join(keep) + '\n')
	return steps


# -------------------------------------------------------------- commits ---

def _git(ktree: str, env: Dict[str, str], *args: str, input: Optional[str] = None) -> str:
	proc = subprocess.run(['git', *args], cwd=ktree, env={**os.environ, **env},
			      input=input, text=True, stdout=subprocess.PIPE,
			      stderr=subprocess.PIPE)
	if proc.returncode:
		raise HarnessError(f'git {" ".join(args[:2])} failed: {proc.stderr.strip()}')
	return proc.stdout


def _stage(ktree: str, env: Dict[str, str], files: Sequence[str]) -> None:
	"""Puts the work-tree state of @files into the private index."""
	present = [f for f in files if os.path.lexists(os.path.join(ktree, f))]
	shas = _git(ktree, env, 'hash-object', '-w', '--no-filters', '--stdin-paths',
		    input=''.join(f + '\n' for f in present)).split()
	info = []
	for f, sha in zip(present, shas):
		mode = '100755' if os.access(os.path.join(ktree, f), os.X_OK) else '100644'
		info.append(f'{mode} {sha}\t{f}\n')
	for f in files:
		if f not in present:
			info.append(f'0 {"0" * 40}\t{f}\n')
	_git(ktree, env, 'update-index', '--index-info', input=''.join(info))


def _stage_maintainers(ktree: str, env: Dict[str, str], section: str) -> None:
	base = tree._base_blob(ktree, 'MAINTAINERS') or b''
	text = tree.merge_maintainers(base.decode(), section)
	sha = _git(ktree, env, 'hash-object', '-w', '--stdin', input=text).strip()
	_git(ktree, env, 'update-index', '--cacheinfo', f'100644,{sha},MAINTAINERS')


def prepared_tree_id(ktree: str) -> str:
	"""The git tree id of the prepared tree: base plus every change of ours."""
	changed, new = tree.changed_files(ktree)
	with tempfile.TemporaryDirectory(prefix='kmemcheck-index-') as tmp:
		env = {'GIT_INDEX_FILE': os.path.join(tmp, 'index')}
		_git(ktree, env, 'read-tree', 'base')
		_stage(ktree, env, sorted(set(changed) | set(new)))
		return _git(ktree, env, 'write-tree').strip()


def _date() -> str:
	"""The repository's last commit date: the same commit exports the same."""
	proc = tree.run(['git', 'log', '-1', '--format=%ad', '--date=raw'], cwd=REPO,
			check=False)
	return proc.stdout.strip() or '0 +0000'


def make_commits(ktree: str, commits: List[Commit]) -> str:
	"""Commits the series on base with a private index; returns the tip."""
	steps = maintainers_steps(commits)
	date = _date()
	with tempfile.TemporaryDirectory(prefix='kmemcheck-index-') as tmp:
		env = {**GIT_ENV, 'GIT_INDEX_FILE': os.path.join(tmp, 'index'),
		       'GIT_AUTHOR_DATE': date, 'GIT_COMMITTER_DATE': date}
		parent = _git(ktree, env, 'rev-parse', 'base^{commit}').strip()
		_git(ktree, env, 'read-tree', 'base')
		for c, section in zip(commits, steps):
			_stage(ktree, env, c.files)
			if section is not None:
				_stage_maintainers(ktree, env, section)
			tid = _git(ktree, env, 'write-tree').strip()
			msg = f'{c.subject}\n\n{c.body}\n\n{SIGNOFF}\n'
			parent = _git(ktree, env, 'commit-tree', tid, '-p', parent,
				      input=msg).strip()
	return parent


# --------------------------------------------------------------- export ---

# out_dir -> (prepared tree id, repository commit, patches) of the last
# export() of this process: the same tree exports the same series.
_EXPORTED: Dict[str, Tuple[str, str, List[str]]] = {}


def export(build_dir: str, out_dir: str) -> List[str]:
	"""Writes the series into @out_dir; returns the patch files, cover first."""
	ktree = tree.prepare(build_dir)
	want = prepared_tree_id(ktree)
	last = _EXPORTED.get(out_dir)
	if last and last[:2] == (want, _date()) and all(os.path.isfile(p) for p in last[2]):
		return list(last[2])
	changed, new = tree.changed_files(ktree)
	commits = plan(sorted(set(changed) | set(new)))
	tip = make_commits(ktree, commits)
	got = _git(ktree, {}, 'rev-parse', f'{tip}^{{tree}}').strip()
	if got != want:
		raise HarnessError(f'export: the series ends at tree {got}, '
				   f'the prepared tree is {want}')
	if os.path.isdir(out_dir):
		for name in os.listdir(out_dir):
			if name.endswith('.patch'):
				os.unlink(os.path.join(out_dir, name))
	os.makedirs(out_dir, exist_ok=True)
	date_env = {**GIT_ENV, 'GIT_AUTHOR_DATE': _date(), 'GIT_COMMITTER_DATE': _date()}
	names = _git(ktree, date_env, 'format-patch', '--cover-letter', '--no-renames',
		     '--zero-commit', '--no-signature', '--thread=shallow',
		     '-o', out_dir, f'base..{tip}').split()
	_write_cover(names[0], tree.base_description(ktree))
	tree.log(f'export: {len(names) - 1} patches and a cover letter in {out_dir}')
	_EXPORTED[out_dir] = (want, _date(), list(names))
	return names


def _write_cover(path: str, base: str) -> None:
	with open(path) as f:
		text = f.read()
	text = text.replace('*** SUBJECT HERE ***', COVER_SUBJECT)
	text = text.replace('*** BLURB HERE ***\n', COVER_BLURB.format(base=base))
	with open(path, 'w') as f:
		f.write(text)


# --------------------------------------------------------------- checks ---

@dataclass
class CheckpatchResult:
	"""checkpatch --strict over the series."""
	errors: int = 0
	warnings: int = 0
	checks: int = 0
	findings: Tuple[str, ...] = ()  # 'patch: TYPE: message'


# CHECKs that remain on purpose, by checkpatch type: why each is right.
EXPLAINED_CHECKS: Dict[str, str] = {}

TOTAL_RE = re.compile(r'total: (\d+) errors, (\d+) warnings, (\d+) checks')


def check_patches(ktree: str, patches: Sequence[str], cache_dir: str) -> CheckpatchResult:
	"""checkpatch.pl --strict --show-types on every patch but the cover letter.

	One run for the whole series, from @cache_dir: checkpatch seeds its
	CamelCase exceptions from every header of the tree once per run and
	caches them in its working directory, which must not be the tree.
	"""
	res = CheckpatchResult()
	findings: List[str] = []
	script = os.path.join(ktree, 'scripts', 'checkpatch.pl')
	todo = [p for p in patches if not os.path.basename(p).startswith('0000-')]
	os.makedirs(cache_dir, exist_ok=True)
	proc = subprocess.run(['perl', script, '--strict', '--show-types',
			       '--ignore', lint.UNVERIFIABLE, f'--root={ktree}', *todo],
			      cwd=cache_dir, text=True, stdout=subprocess.PIPE,
			      stderr=subprocess.STDOUT)
	lines = proc.stdout.splitlines()
	totals = 0
	for i, line in enumerate(lines):
		m = TOTAL_RE.search(line)
		if m:
			res.errors += int(m.group(1))
			res.warnings += int(m.group(2))
			res.checks += int(m.group(3))
			totals += 1
		elif line.startswith(('ERROR:', 'WARNING:', 'CHECK:')) and totals < len(todo):
			where = lines[i + 1].strip() if i + 1 < len(lines) else ''
			findings.append(f'{os.path.basename(todo[totals])}: {line} {where}')
	if totals != len(todo):
		raise HarnessError(f'checkpatch gave {totals} totals for {len(todo)} patches:\n'
				   + proc.stdout[-2000:])
	res.findings = tuple(findings)
	return res


def unexplained(res: CheckpatchResult) -> List[str]:
	"""Errors, warnings, and checks of a type EXPLAINED_CHECKS lacks."""
	bad = []
	for f in res.findings:
		m = re.search(r': CHECK:(\w+):', f)
		if m and m.group(1) in EXPLAINED_CHECKS:
			continue
		bad.append(f)
	return bad


def apply_check(build_dir: str, patches: Sequence[str]) -> str:
	"""git am the series on a fresh checkout of base; compare with prepared.

	The checkout is sparse: only the paths the series touches are written
	out (the other 80000 files take minutes to check out and git am does
	not read them); the index, and so the resulting tree, is whole.
	Returns '' when the result is the prepared tree, else why not.
	"""
	ktree = tree.tree_dir(build_dir)
	work = os.path.join(build_dir, 'export-am')
	todo = [p for p in patches if not os.path.basename(p).startswith('0000-')]
	touched = set()
	for p in todo:
		touched.update(tree.patch_files(p))
	_remove_worktree(ktree, work)
	env = {**GIT_ENV}
	_git(ktree, env, 'worktree', 'add', '-q', '--no-checkout', '--detach', work, 'base')
	try:
		_git(work, env, 'sparse-checkout', 'set', '--no-cone', '--stdin',
		     input=''.join(f'/{f}\n' for f in sorted(touched)))
		_git(work, env, 'checkout', '-q', '--detach', 'base')
		proc = subprocess.run(['git', 'am', '-q', '--whitespace=error-all', *todo],
				      cwd=work, env={**os.environ, **env}, text=True,
				      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
		if proc.returncode:
			lines = proc.stdout.strip().splitlines()
			return 'git am failed: ' + ' | '.join(lines[:4])
		got = _git(work, env, 'rev-parse', 'HEAD^{tree}').strip()
		want = prepared_tree_id(ktree)
		if got != want:
			diff = _git(ktree, env, 'diff-tree', '--name-only', '-r', want, got)
			return ('the tree after git am differs from the prepared tree in: '
				+ ' '.join(diff.split()[:10]))
		return ''
	finally:
		_remove_worktree(ktree, work)


def _remove_worktree(ktree: str, work: str) -> None:
	if os.path.isdir(work):
		shutil.rmtree(work)
	subprocess.run(['git', 'worktree', 'prune'], cwd=ktree,
		       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# ------------------------------------------------------ the user's tree ---

USER_BRANCH = 'kmemcheck'
PATCH_FAILED_RES = (re.compile(r'^error: patch failed: (\S+?):\d+$', re.M),
		    re.compile(r'^error: (\S+): (?:does not match index|already exists in '
			       r'(?:working directory|index)|does not exist in index)$', re.M))


def _user_git(utree: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
	proc = subprocess.run(['git', *args], cwd=utree, text=True, stdout=subprocess.PIPE,
			      stderr=subprocess.STDOUT)
	if check and proc.returncode:
		raise HarnessError(f'{utree}: git {" ".join(args)} failed: '
				   + ' | '.join(proc.stdout.strip().splitlines()[-3:]))
	return proc


# Mail headers of format-patch that change from one export to the next.
VOLATILE_HEADERS = ('From ', 'Date: ', 'Message-ID: ', 'Message-Id: ', 'In-Reply-To: ',
		    'References: ')


def _series_id(patches: Sequence[str]) -> str:
	"""What the series says, without its dates and ids: same text, same id."""
	h = hashlib.sha256()
	for p in patches:
		with open(p) as f:
			h.update(''.join(l for l in f.read().splitlines(keepends=True)
					 if not l.startswith(VOLATILE_HEADERS)).encode())
	return h.hexdigest()[:16]


def apply_to_tree(build_dir: str, utree: str) -> str:
	"""Puts kmemcheck into the user's 6.12 git tree @utree as a branch.

	The series (export()) goes in with git am on a new branch "kmemcheck"
	made at the user's HEAD; nothing of theirs is reverted or deleted (git
	am refuses to touch a file with uncommitted changes, and we stop
	then).  Once applied, the branch is left alone while the series stays
	the same: commits the user adds on it stay.  When the series changed,
	the old kmemcheck commits must go first, which we leave to the user.
	A patch that does not apply stops it with the patch and file named;
	the tree is then as it was.  Returns @utree's absolute path.
	"""
	utree = os.path.abspath(utree)
	if not os.path.isdir(os.path.join(utree, '.git')) and \
	   _user_git(utree, 'rev-parse', '--git-dir', check=False).returncode:
		raise HarnessError(f'--tree {utree}: not a git tree')
	version = tree.tree_version(utree)
	if not version.startswith('6.12'):
		raise HarnessError(f'--tree {utree}: Linux {version}, kmemcheck is for 6.12')
	if os.path.exists(os.path.join(utree, '.config')):
		raise HarnessError(f'--tree {utree}: has an in-tree build (.config); we build '
				   'with O=, which needs it clean: make mrproper there')
	patches = export(build_dir, os.path.join(build_dir, 'export'))[1:]
	want = _series_id(patches)
	branch = _user_git(utree, 'symbolic-ref', '-q', '--short', 'HEAD',
			   check=False).stdout.strip()
	have = _user_git(utree, 'config', f'branch.{USER_BRANCH}.kmemcheck-series',
			 check=False).stdout.strip()
	exists = not _user_git(utree, 'rev-parse', '-q', '--verify',
			       f'refs/heads/{USER_BRANCH}', check=False).returncode
	if exists and have == want:
		if branch != USER_BRANCH:
			_user_git(utree, 'checkout', '-q', USER_BRANCH)
		tree.log(f'prepare: {utree}: branch {USER_BRANCH} has this series '
			 f'({len(patches)} patches) already')
		return utree
	if exists:
		raise HarnessError(f'--tree {utree}: branch {USER_BRANCH} holds another version '
				   f'of kmemcheck; rename or delete it (git branch -m '
				   f'{USER_BRANCH} old-{USER_BRANCH}) and run again')
	if _user_git(utree, 'diff', '--cached', '--quiet', check=False).returncode:
		raise HarnessError(f'--tree {utree}: staged changes; commit or unstage them '
				   'first (git am needs a clean index)')
	head = _user_git(utree, 'rev-parse', 'HEAD').stdout.strip()
	_user_git(utree, 'checkout', '-q', '-b', USER_BRANCH)
	proc = subprocess.run(['git', '-c', 'user.name=' + AUTHOR[0],
			       '-c', 'user.email=' + AUTHOR[1], 'am', '--3way', *patches],
			      cwd=utree, text=True, stdout=subprocess.PIPE,
			      stderr=subprocess.STDOUT)
	if proc.returncode:
		out = proc.stdout
		m = re.search(r'^Patch failed at (\d+) (.*)$', out, re.M)
		failed = patches[int(m.group(1)) - 1] if m else '?'
		files = [f for rx in PATCH_FAILED_RES for f in rx.findall(out)]
		files += re.findall(r'^CONFLICT \([^)]*\): Merge conflict in (\S+)$', out, re.M)
		_user_git(utree, 'am', '--abort', check=False)
		_user_git(utree, 'checkout', '-q', branch or head)
		_user_git(utree, 'branch', '-q', '-D', USER_BRANCH, check=False)
		said = [l for l in out.splitlines() if l.startswith(('error:', 'CONFLICT'))]
		raise HarnessError(f'--tree {utree}: {os.path.basename(failed)} does not apply '
				   f'to {", ".join(dict.fromkeys(files)) or "the tree"}; '
				   f'the tree is back on {branch or head[:12]} as it was '
				   f'(git am: {" | ".join(said[:3]) or out.strip()[-300:]})')
	_user_git(utree, 'config', f'branch.{USER_BRANCH}.kmemcheck-series', want)
	tree.log(f'prepare: {utree}: {len(patches)} kmemcheck commits on branch '
		 f'{USER_BRANCH}, on top of {branch or "HEAD"} ({head[:12]})')
	return utree
