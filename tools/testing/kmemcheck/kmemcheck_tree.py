# SPDX-License-Identifier: GPL-2.0
"""Host side of the kmemcheck harness: dependencies, the prepared tree, builds.

The repository holds kmemcheck as new files at their kernel-tree paths (the
"overlay") plus a quilt-style series of patches to existing 6.12 files.
prepare() turns the Debian linux-source-6.12 tarball into a git tree whose
base commit (tag "base") is pristine and whose uncommitted changes are exactly
ours; refresh() copies changes made in that tree back into the repository;
build() configures from fragments and builds out of tree.
"""

import fcntl
import hashlib
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))
HARNESS_DIR = 'tools/testing/kmemcheck'
CONFIGS_DIR = os.path.join(REPO, HARNESS_DIR, 'configs')

TARBALL = '/usr/src/linux-source-6.12.tar.xz'
SOURCE_PACKAGE = 'linux-source-6.12'

# The new files of kmemcheck: directories (trailing '/') and single files.
# Everything git tracks under these in the repository is copied into the tree.
OVERLAY = (
	'mm/kmemcheck/',
	'arch/x86/mm/kmemcheck/',
	'arch/x86/include/asm/kmemcheck.h',
	'include/linux/kmemcheck.h',
	'include/linux/kmemcheck-checks.h',
	'lib/Kconfig.kmemcheck',
	'Documentation/dev-tools/kmemcheck.rst',
	HARNESS_DIR + '/',
)

MAINTAINERS_SECTION = 'KMEMCHECK'

# Named configurations: fragments of configs/, merged in this order on top of
# "make ARCH=i386 tinyconfig".  Fragments listed in OPTIONAL_FRAGMENTS may
# name symbols the tree does not have (yet): those only warn.
CONFIGS: Dict[str, Tuple[str, ...]] = {
	'default': ('base', 'smp', 'kunit', 'ksuites', 'stress', 'devices',
		    'kmemcheck'),
	'nokmemcheck': ('base', 'smp', 'kunit', 'ksuites', 'stress', 'devices',
			'nokmemcheck'),
	'up': ('base', 'kunit', 'stress', 'kmemcheck'),
	# Debian's i386 flavour, 686-pae: default's kernel with PAE and highmem.
	'pae': ('base', 'smp', 'kunit', 'ksuites', 'stress', 'devices', 'pae',
		'kmemcheck'),
	# Debian's own i386 config, not tinyconfig, under the fragment.
	'debian': ('debian',),
}
# Configurations whose base is a distribution's config instead of
# tinyconfig: (Debian package, config file in it, what the base is called).
# Debian 12 ships i386 configs only for its 6.1 kernel; "make olddefconfig"
# takes the newer symbols of 6.12 at their defaults.
DISTRO_BASES: Dict[str, Tuple[str, str, str]] = {
	'debian': ('linux-config-6.1', 'usr/src/linux-config-6.1/config.i386_none_686-pae.xz',
		   "Debian 12's i386 686-pae config"),
}
OPTIONAL_FRAGMENTS = ('kmemcheck', 'nokmemcheck')

# Host packages: (command or file that proves it is there, Debian package).
HOST_DEPS = (
	(TARBALL, SOURCE_PACKAGE),
	('qemu-system-i386', 'qemu-system-x86'),
	('flex', 'flex'),
	('bison', 'bison'),
	('bc', 'bc'),
	('/usr/include/libelf.h', 'libelf-dev'),
	('/usr/include/openssl/ssl.h', 'libssl-dev'),
	('cpio', 'cpio'),
	('gcc', 'gcc'),
	('make', 'make'),
	('python3', 'python3'),
	('sparse', 'sparse'),
	('patch', 'patch'),
	('git', 'git'),
	('gzip', 'gzip'),
	('dpkg-deb', 'dpkg'),
	('objdump', 'binutils'),
	('perl', 'perl'),
	('sphinx-build', 'python3-sphinx'),
	('/usr/lib/python3/dist-packages/yaml', 'python3-yaml'),
	('gdb', 'gdb'),
	# mkfs.ext4 -d, for the ext4 image of the devices/ tests.
	('/sbin/mkfs.ext4', 'e2fsprogs'),
)
# What each subcommand needs, by the probes of HOST_DEPS: a group of them,
# and whether the guest userland (busybox; stress-ng) must be fetched.
DEP_GROUPS: Dict[str, Tuple[str, ...]] = {
	'tree': (TARBALL, 'git', 'patch', 'python3', 'perl'),
	'build': ('flex', 'bison', 'bc', '/usr/include/libelf.h', '/usr/include/openssl/ssl.h',
		  'gcc', 'make', 'objdump'),
	'boot': ('qemu-system-i386', 'cpio', 'gzip', 'dpkg-deb'),
	'lint': ('sparse', 'sphinx-build', '/usr/lib/python3/dist-packages/yaml'),
	'gdb': ('gdb',),
	'devices': ('/sbin/mkfs.ext4',),
}
ALL_DEPS = ('tree', 'build', 'boot', 'lint', 'devices')
# command: (groups, busybox, stress-ng)
COMMAND_DEPS: Dict[str, Tuple[Tuple[str, ...], bool, bool]] = {
	'deps': (ALL_DEPS, True, True),
	'prepare': (('tree',), False, False),
	'refresh': (('tree',), False, False),
	'export': (('tree',), False, False),
	'build': (('tree', 'build'), False, False),
	'run': (('tree', 'build', 'boot'), True, False),
	'lint': (('tree', 'build', 'lint'), False, False),
	'test': (ALL_DEPS, True, True),
	'bench': (('tree', 'build', 'boot'), True, True),
	'stress': (('tree', 'build', 'boot'), True, True),
	# The build tools only for the bench module, when it is missing.
	'profile': (('build', 'boot', 'gdb'), True, False),
}
GUEST_DEBS = ('busybox-static',)
# The kexec boot's userland on top of busybox (fetched when it runs).
KEXEC_PACKAGES = ('kexec-tools', 'libc6')
# The stress userland: these i386 packages and everything they Depend on
# (recursively), fetched into build/debs-stress by stress_debs().
STRESS_PACKAGES = ('stress-ng',)
# The fuzz/ layer's userland: Debian's trinity and what it Depends on,
# fetched into build/debs-fuzz by kmemcheck_fuzz.trinity_debs().
FUZZ_PACKAGES = ('trinity',)

# Untracked files of the prepared tree that are not ours to refresh
# (.kunit/: the objects of tools/testing/kunit/kunit.py run in the tree).
UNTRACKED_IGNORE = ('-x', '__pycache__', '-x', '*.pyc', '-x', '.*.swp', '-x', '*~',
		    '-x', '/.kunit/')

GIT_ID = ('-c', 'user.name=kmemcheck harness',
	  '-c', 'user.email=kmemcheck@example.org')


class HarnessError(Exception):
	"""A failure explained in one line; the CLI prints it and exits 1."""


def log(msg: str) -> None:
	print(msg, flush=True)


def run(cmd: Sequence[str], cwd: Optional[str] = None, check: bool = True,
	capture: bool = True, input: Optional[str] = None) -> subprocess.CompletedProcess:
	"""Runs a command, capturing its output as text."""
	proc = subprocess.run(list(cmd), cwd=cwd, input=input, text=True,
			      stdout=subprocess.PIPE if capture else None,
			      stderr=subprocess.STDOUT if capture else None)
	if check and proc.returncode:
		out = (proc.stdout or '').strip().splitlines()[-20:]
		raise HarnessError(f'{" ".join(cmd)} failed (exit {proc.returncode})'
				   + ('\n' + '\n'.join(out) if out else ''))
	return proc


def git(tree: str, *args: str, check: bool = True) -> str:
	return run(('git', *GIT_ID, *args), cwd=tree, check=check).stdout


# ---------------------------------------------------------------- deps ---

def _have(probe: str) -> bool:
	if probe.startswith('/'):
		return os.path.exists(probe)
	return shutil.which(probe) is not None


def guest_apt_options(build_dir: str) -> List[str]:
	"""apt options that fetch i386 packages with private state only."""
	state = os.path.join(build_dir, 'apt-i386')
	return ['-o', 'APT::Architecture=i386', '-o', 'APT::Architectures::=i386',
		'-o', f'Dir::State::Lists={state}/lists',
		'-o', f'Dir::Cache={state}/cache',
		'-o', 'Dir::State::status=/dev/null']


def guest_debs(build_dir: str) -> Dict[str, Optional[str]]:
	"""Maps each guest package to its downloaded .deb, or None."""
	debs_dir = os.path.join(build_dir, 'debs')
	found: Dict[str, Optional[str]] = {}
	for pkg in GUEST_DEBS:
		found[pkg] = None
		if os.path.isdir(debs_dir):
			for name in sorted(os.listdir(debs_dir)):
				if name.startswith(pkg + '_') and name.endswith('_i386.deb'):
					found[pkg] = os.path.join(debs_dir, name)
	return found


def _download_guest_debs(build_dir: str, missing: List[str]) -> None:
	debs_dir = os.path.join(build_dir, 'debs')
	log(f'deps: downloading {" ".join(missing)}:i386 into {debs_dir} (private apt state)')
	fetch_debs(build_dir, debs_dir, missing)


def _apt_state(build_dir: str) -> None:
	state = os.path.join(build_dir, 'apt-i386')
	for sub in ('lists/partial', 'cache/archives/partial'):
		os.makedirs(os.path.join(state, sub), exist_ok=True)


def _apt_update(build_dir: str) -> None:
	"""Fetches the private i386 package lists, riding out mirror syncs.

	A mirror caught mid-sync serves an index of the wrong size and
	apt-get update fails; a later try usually gets a consistent one.  If
	every try fails but the lists of the main archive arrived, go on with
	those: the guest packages are there, only updates may be missing.
	"""
	_apt_state(build_dir)
	opts = guest_apt_options(build_dir)
	for attempt in range(3):
		if attempt:
			log(f'deps: apt-get update failed, retrying in {10 * attempt} s')
			time.sleep(10 * attempt)
		proc = run(['apt-get', *opts, 'update'], check=False)
		if not proc.returncode:
			return
	lists = os.path.join(build_dir, 'apt-i386', 'lists')
	if any(re.search(r'_dists_[a-z]+_main_binary-i386_Packages', n)
	       for n in os.listdir(lists)):
		log('deps: warning: some i386 package lists failed to download; '
		    'going on with those that did')
		return
	out = (proc.stdout or '').strip().splitlines()[-20:]
	raise HarnessError('apt-get update of the i386 package lists failed\n'
			   + '\n'.join(out))


def _depends_closure(build_dir: str, packages: Sequence[str]) -> List[str]:
	"""The packages and their Depends/Pre-Depends, recursively (i386)."""
	cmd = ['apt-cache', *guest_apt_options(build_dir), 'depends', '--recurse',
	       '--no-recommends', '--no-suggests', '--no-conflicts', '--no-breaks',
	       '--no-replaces', '--no-enhances', *packages]
	proc = run(cmd, check=False)
	if proc.returncode:
		# The private lists may not exist yet (or be stale): fetch them.
		_apt_update(build_dir)
		proc = run(cmd)
	# Top-level lines name packages; "<virtual>" ones are provided by a
	# real package that is listed too.
	names = {line.strip() for line in proc.stdout.splitlines()
		 if line and not line[0].isspace() and not line.startswith('<')}
	return sorted(n.split(':')[0] for n in names)


def _deb_in(directory: str, pkg: str) -> Optional[str]:
	for name in sorted(os.listdir(directory)):
		if name.startswith(pkg + '_') and \
		   (name.endswith('_i386.deb') or name.endswith('_all.deb')):
			return os.path.join(directory, name)
	return None


def stress_debs(build_dir: str) -> List[str]:
	"""The .debs of the stress userland, downloading what is missing.

	Returns busybox-static's .deb followed by those of STRESS_PACKAGES and
	the shared libraries they need, so that
	kmemcheck_qemu.build_initramfs(stress_debs(d), script, out) gives an
	initramfs where /usr/bin/stress-ng runs.  The resolved list is kept in
	build/debs-stress/closure, so later calls ask apt nothing.
	"""
	directory = os.path.join(build_dir, 'debs-stress')
	os.makedirs(directory, exist_ok=True)
	manifest = os.path.join(directory, 'closure')
	want = ' '.join(STRESS_PACKAGES)
	names: List[str] = []
	if os.path.exists(manifest):
		with open(manifest) as f:
			head, *names = f.read().split('\n')
		if head != want:
			names = []
	names = [n for n in names if n]
	if not names:
		names = _depends_closure(build_dir, STRESS_PACKAGES)
	missing = [n for n in names if not _deb_in(directory, n)]
	if missing:
		_apt_state(build_dir)
		log(f'deps: downloading {len(missing)} i386 packages for stress-ng '
		    f'into {directory}')
		run(['apt-get', *guest_apt_options(build_dir), 'download', *missing],
		    cwd=directory)
	debs = [_deb_in(directory, n) for n in names]
	lost = [n for n, d in zip(names, debs) if not d]
	if lost:
		raise HarnessError(f'could not download {" ".join(lost)}:i386 into {directory}')
	with open(manifest, 'w') as f:
		f.write('\n'.join([want, *names]) + '\n')
	busybox = [d for d in guest_debs(build_dir).values() if d]
	return busybox + [d for d in debs if d]


def check_deps(build_dir: str, install: bool = True, command: str = 'deps') -> None:
	"""Checks host packages and the i386 guest userland that @command needs
	(COMMAND_DEPS); installs what is missing as root."""
	groups, busybox, stress = COMMAND_DEPS[command]
	probes = {p for g in groups for p in DEP_GROUPS[g]}
	missing = sorted({pkg for probe, pkg in HOST_DEPS
			  if probe in probes and not _have(probe)})
	if missing:
		cmd = ['apt-get', 'install', '-y', *missing]
		if os.geteuid() != 0 or not install:
			raise HarnessError('missing packages; run as root: '
					   + ' '.join(cmd))
		log('deps: ' + ' '.join(cmd))
		if run(cmd, check=False, capture=False).returncode:
			# A failed index (a mirror mid-sync) need not stop
			# the install that follows.
			run(['apt-get', 'update'], check=False, capture=False)
			run(cmd, capture=False)
	missing_debs = [p for p, deb in guest_debs(build_dir).items() if not deb]
	if missing_debs and busybox:
		_download_guest_debs(build_dir, missing_debs)
		still = [p for p, deb in guest_debs(build_dir).items() if not deb]
		if still:
			raise HarnessError(f'could not download {" ".join(still)}:i386 '
					   f'into {build_dir}/debs')
	if stress:
		stress_debs(build_dir)


def lock_build_dir(build_dir: str):
	"""Serializes harness runs on one build directory; returns the lock file."""
	os.makedirs(build_dir, exist_ok=True)
	f = open(os.path.join(build_dir, '.lock'), 'w')
	try:
		fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
	except BlockingIOError:
		log(f'waiting for another kmemcheck.py working in {build_dir}')
		fcntl.flock(f, fcntl.LOCK_EX)
	return f


# ------------------------------------------------------------ versions ---

def tree_version(tree: str) -> str:
	"""VERSION.PATCHLEVEL.SUBLEVEL from the tree's Makefile."""
	fields = {}
	with open(os.path.join(tree, 'Makefile')) as f:
		for line in f:
			m = re.match(r'(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(\S*)', line)
			if m:
				fields[m.group(1)] = m.group(2)
			if len(fields) == 4:
				break
	return '{VERSION}.{PATCHLEVEL}.{SUBLEVEL}{EXTRAVERSION}'.format(
		**{k: fields.get(k, '') for k in
		   ('VERSION', 'PATCHLEVEL', 'SUBLEVEL', 'EXTRAVERSION')})


def package_version() -> str:
	proc = run(['dpkg-query', '-W', '-f=${Version}', SOURCE_PACKAGE], check=False)
	return proc.stdout.strip() if proc.returncode == 0 else 'unknown'


def base_description(tree: str) -> str:
	return (f'Linux {tree_version(tree)} '
		f'(Debian {SOURCE_PACKAGE} {package_version()})')


# ------------------------------------------------------------- overlay ---

def is_overlay(path: str) -> bool:
	return any(path.startswith(p) if p.endswith('/') else path == p
		   for p in OVERLAY)


def overlay_files() -> List[str]:
	"""Every file of the repository under the overlay paths that git tracks
	or would track (new files count before they are committed; ignored
	build products do not)."""
	out = git(REPO, 'ls-files', '-z', '--cached', '--others', '--exclude-standard',
		  '--', *[p.rstrip('/') for p in OVERLAY])
	return sorted({p for p in out.split('\0')
		       if p and is_overlay(p) and os.path.isfile(os.path.join(REPO, p))})


# ------------------------------------------------------------- patches ---

@dataclass
class Patch:
	"""One patch of patches/series and the files it touches."""
	name: str
	path: str
	files: List[str] = field(default_factory=list)


def read_series() -> List[Patch]:
	"""Parses patches/series; a missing series means no patches."""
	series = os.path.join(REPO, 'patches', 'series')
	if not os.path.exists(series):
		return []
	patches = []
	with open(series) as f:
		for line in f:
			name = line.split('#', 1)[0].strip()
			if not name:
				continue
			path = os.path.join(REPO, 'patches', name.split()[0])
			if not os.path.exists(path):
				raise HarnessError(f'patches/series names {name}, '
						   'which does not exist')
			patches.append(Patch(name.split()[0], path, patch_files(path)))
	return patches


def patch_files(path: str) -> List[str]:
	"""Files a patch touches, from its ---/+++ lines."""
	files: List[str] = []
	with open(path, errors='replace') as f:
		lines = f.read().splitlines()
	for i, line in enumerate(lines):
		if not line.startswith('+++ ') or i == 0 or not lines[i - 1].startswith('--- '):
			continue
		new = line[4:].split('\t')[0].strip()
		old = lines[i - 1][4:].split('\t')[0].strip()
		name = new if new != '/dev/null' else old
		name = name.split('/', 1)[1] if '/' in name else name
		if name not in files:
			files.append(name)
	return files


def _patch_failure(patch: Patch, output: str) -> str:
	"""One line naming the patch, the file and the hunk that failed."""
	current = '?'
	for line in output.splitlines():
		m = re.match(r'(?:patching|checking) file (.*)', line)
		if m:
			current = m.group(1).strip().strip("'")
			continue
		m = re.match(r'(Hunk #\d+ FAILED at \d+.*?)\.?$', line)
		if m:
			return f'patch {patch.name} does not apply: {current}: {m.group(1)}'
		if 'Reversed (or previously applied) patch detected' in line:
			return (f'patch {patch.name} does not apply: {current}: '
				'already applied or reversed')
		if "can't find file to patch" in line or 'No file to patch' in line:
			return f'patch {patch.name} does not apply: a file it patches does not exist'
		if 'Only garbage was found' in line or 'malformed patch' in line:
			return f'patch {patch.name} is malformed: {line.strip()}'
	last = output.strip().splitlines()[-1:] or ['no output']
	return f'patch {patch.name} does not apply: {last[0]}'


def apply_patch(patch: Patch, tree: str) -> None:
	cmd = ['patch', '-p1', '--forward', '--no-backup-if-mismatch', '-s',
	       '-i', patch.path, '-d', tree]
	for dry in (True, False):
		proc = subprocess.run(cmd + (['--dry-run', '--verbose'] if dry else []),
				      text=True, stdout=subprocess.PIPE,
				      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
		if proc.returncode:
			raise HarnessError(_patch_failure(patch, proc.stdout))


# ---------------------------------------------------------- MAINTAINERS ---

def _sections(text: str) -> List[str]:
	return re.split(r'\n(?=\n)', text)


def _section_title(block: str) -> Optional[str]:
	lines = block.strip('\n').split('\n')
	if len(lines) >= 2 and re.match(r'[A-Z]:\t', lines[1]) and lines[0].strip():
		return lines[0]
	return None


def merge_maintainers(base_text: str, ours: str) -> str:
	"""Inserts our section into MAINTAINERS in alphabetical position.

	The file is not perfectly sorted, so go right after the section with
	the greatest title below ours rather than before the first one above.
	"""
	ours = ours.strip('\n')
	title = ours.split('\n', 1)[0].upper()
	blocks = _sections(base_text)
	best, best_title = None, ''
	for i, block in enumerate(blocks):
		t = _section_title(block)
		if t is not None and best_title <= t.upper() < title:
			best, best_title = i, t.upper()
	if best is None:
		raise HarnessError('MAINTAINERS: found no place for our section')
	blocks.insert(best + 1, '\n' + ours)
	return '\n'.join(blocks)


def extract_maintainers(text: str) -> Optional[str]:
	for block in _sections(text):
		if _section_title(block) == MAINTAINERS_SECTION:
			return block.strip('\n') + '\n'
	return None


# ------------------------------------------------------------- prepare ---

def tree_dir(build_dir: str) -> str:
	return os.path.join(build_dir, 'linux')


def _base_stamp() -> str:
	st = os.stat(TARBALL)
	return f'{TARBALL} {st.st_size} {int(st.st_mtime)} {package_version()}\n'


def _create_base(tree: str, stamp_path: str) -> None:
	if os.path.exists(tree):
		shutil.rmtree(tree)
	os.makedirs(tree)
	t0 = time.time()
	log(f'prepare: unpacking {TARBALL} into {tree}')
	run(['tar', '-xf', TARBALL, '--strip-components=1', '-C', tree])
	log('prepare: committing the pristine tree as tag "base" (takes a while)')
	git(tree, 'init', '-q')
	git(tree, 'config', 'core.autocrlf', 'false')
	git(tree, 'config', 'gc.auto', '0')
	git(tree, 'add', '-A', '-f', '.')
	git(tree, 'commit', '-q', '--no-verify', '-m',
	    f'Pristine {base_description(tree)}')
	git(tree, 'tag', 'base')
	with open(stamp_path, 'w') as f:
		f.write(_base_stamp())
	log(f'prepare: base created in {time.time() - t0:.0f} s')


def _base_ok(tree: str, stamp_path: str) -> bool:
	try:
		with open(stamp_path) as f:
			if f.read() != _base_stamp():
				return False
	except OSError:
		return False
	return git(tree, 'rev-parse', '-q', '--verify', 'base^{commit}',
		   check=False).strip() != ''


def _read(path: str) -> Optional[bytes]:
	try:
		with open(path, 'rb') as f:
			return f.read()
	except FileNotFoundError:
		return None


def _write_if_changed(path: str, data: bytes, mode: Optional[int] = None) -> bool:
	if _read(path) == data and (mode is None or
				    (os.stat(path).st_mode & 0o777) == mode):
		return False
	os.makedirs(os.path.dirname(path), exist_ok=True)
	if os.path.lexists(path) and not os.path.isfile(path):
		shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)
	with open(path, 'wb') as f:
		f.write(data)
	if mode is not None:
		os.chmod(path, mode)
	return True


def changed_files(tree: str) -> Tuple[List[str], List[str]]:
	"""Files differing from base: (tracked-but-changed-or-deleted, new)."""
	changed = git(tree, 'diff', '--name-only', '-z', '--no-renames', 'base')
	# Not --exclude-standard: Debian's top-level .gitignore ignores "/*".
	new = git(tree, 'ls-files', '-z', '--others', *UNTRACKED_IGNORE)
	return ([p for p in changed.split('\0') if p],
		[p for p in new.split('\0') if p])


def _base_blob(tree: str, path: str) -> Optional[bytes]:
	proc = subprocess.run(['git', 'show', f'base:{path}'], cwd=tree,
			      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
	return proc.stdout if proc.returncode == 0 else None


def desired_changes(tree: str, patches: List[Patch]) -> Dict[str, Tuple[Optional[bytes], int]]:
	"""What the tree must hold besides base: path -> (content or None=absent, mode)."""
	want: Dict[str, Tuple[Optional[bytes], int]] = {}
	owner: Dict[str, str] = {}
	for p in patches:
		for f in p.files:
			if f in owner:
				log(f'prepare: warning: {f} is patched by both {owner[f]} '
				    f'and {p.name}; refresh needs one patch per file')
			owner.setdefault(f, p.name)
	with tempfile.TemporaryDirectory(prefix='kmemcheck-stage-') as stage:
		for f in owner:
			blob = _base_blob(tree, f)
			if blob is not None:
				_write_if_changed(os.path.join(stage, f), blob,
						  os.stat(os.path.join(tree, f)).st_mode & 0o777
						  if os.path.exists(os.path.join(tree, f)) else None)
		for p in patches:
			apply_patch(p, stage)
		for f in owner:
			path = os.path.join(stage, f)
			data = _read(path)
			want[f] = (data, os.stat(path).st_mode & 0o777 if data is not None else 0)
	for f in overlay_files():
		src = os.path.join(REPO, f)
		want[f] = (_read(src), os.stat(src).st_mode & 0o777)
	ours = _read(os.path.join(REPO, 'MAINTAINERS'))
	if ours:
		base = _base_blob(tree, 'MAINTAINERS') or b''
		want['MAINTAINERS'] = (merge_maintainers(base.decode(), ours.decode()).encode(),
				       0o644)
	return want


def prepare(build_dir: str) -> str:
	"""Creates or updates <build>/linux; returns its path."""
	tree = tree_dir(build_dir)
	stamp = os.path.join(build_dir, 'base.stamp')
	t0 = time.time()
	if not _base_ok(tree, stamp):
		_create_base(tree, stamp)
	patches = read_series()
	want = desired_changes(tree, patches)
	changed, new = changed_files(tree)
	written = 0
	for path in sorted(set(changed) | set(new) | set(want)):
		full = os.path.join(tree, path)
		if path in want:
			data, mode = want[path]
		else:
			data = _base_blob(tree, path)
			mode = 0o644
			if data is not None:
				git(tree, 'checkout', '-q', 'base', '--', path)
				written += 1
				continue
		if data is None:
			if os.path.lexists(full):
				os.unlink(full)
				written += 1
			continue
		written += _write_if_changed(full, data, mode)
	# Leave the index at base so "git diff base" and "git status" show us.
	git(tree, 'reset', '-q', 'base')
	new_files = [p for p, (data, _) in want.items()
		     if data is not None and _base_blob(tree, p) is None]
	if new_files:
		git(tree, 'add', '-N', '-f', '--', *new_files)
	log(f'prepare: {tree}: {len(patches)} patches, {len(overlay_files())} '
	    f'overlay files, {written} files written ({time.time() - t0:.1f} s)')
	log(f'prepare: base is {base_description(tree)}')
	return tree


# ------------------------------------------------------------- refresh ---

def _diff_body(text: str) -> Tuple[str, str]:
	"""Splits a patch into (header, diff); the diff starts at 'diff --git'/'---'."""
	lines = text.splitlines(keepends=True)
	for i, line in enumerate(lines):
		if line.startswith('diff --git') or line.rstrip('\n') == '---' or \
		   line.startswith('--- '):
			return ''.join(lines[:i]), ''.join(lines[i:])
	return text, ''


def _normalize(diff: str) -> List[str]:
	out = []
	for line in diff.splitlines():
		if line.startswith('index ') or line.startswith('diff --git'):
			continue
		if line.startswith('@@'):
			line = line.split('@@')[1]
		out.append(line)
	return out


def _only_diff(body: str) -> str:
	i = body.find('diff --git')
	return body[i:] if i >= 0 else body


def regenerate_patch(tree: str, patch: Patch) -> bool:
	"""Rewrites one patch from the tree; returns True if it changed."""
	with open(patch.path) as f:
		old = f.read()
	header, body = _diff_body(old)
	m = re.search(r'^index ([0-9a-f]+)\.\.', body, re.M)
	abbrev = str(len(m.group(1))) if m else '9'
	diff = git(tree, 'diff', f'--abbrev={abbrev}', '--no-renames', 'base', '--',
		   *patch.files)
	if _normalize(_only_diff(body)) == _normalize(diff):
		return False
	stat = git(tree, 'diff', '--stat=72', '--summary', '--no-renames', 'base', '--',
		   *patch.files)
	with open(patch.path, 'w') as f:
		f.write(header + '---\n' + stat + '\n' + diff)
	return True


def refresh(build_dir: str) -> None:
	"""Copies the prepared tree's changes back into the repository."""
	tree = tree_dir(build_dir)
	if not os.path.isdir(os.path.join(tree, '.git')):
		raise HarnessError(f'no prepared tree at {tree}: run prepare first')
	changed, new = changed_files(tree)
	patches = read_series()
	owner = {}
	for p in patches:
		for f in p.files:
			if f in owner and owner[f] != p.name:
				raise HarnessError(f'{f} is in both {owner[f]} and {p.name}; '
						   'one file must belong to one patch')
			owner[f] = p.name
	stray = [p for p in sorted(set(changed) | set(new))
		 if not is_overlay(p) and p != 'MAINTAINERS' and p not in owner]
	if stray:
		raise HarnessError('changed files that belong to no patch and are not '
				   'in the overlay (add them to a patch in patches/ or to '
				   'the overlay list in kmemcheck_tree.py): ' + ' '.join(stray))
	dirty, copied = set(), 0
	for path in sorted(set(changed) | set(new)):
		if is_overlay(path):
			src, dst = os.path.join(tree, path), os.path.join(REPO, path)
			if os.path.exists(src):
				copied += _write_if_changed(dst, _read(src) or b'',
							    os.stat(src).st_mode & 0o777)
			elif os.path.exists(dst):
				os.unlink(dst)
				copied += 1
		elif path == 'MAINTAINERS':
			section = extract_maintainers(_read(os.path.join(tree, path)).decode())
			if section is None:
				raise HarnessError(f'{tree}/MAINTAINERS has no {MAINTAINERS_SECTION} section')
			copied += _write_if_changed(os.path.join(REPO, 'MAINTAINERS'),
						    section.encode())
		else:
			dirty.add(owner[path])
	# Overlay files deleted in the tree do not show in "git diff base".
	for path in overlay_files():
		if not os.path.exists(os.path.join(tree, path)):
			os.unlink(os.path.join(REPO, path))
			copied += 1
	# A patch whose files all went back to base must become empty too.
	for p in patches:
		if p.name not in dirty and any(f in owner for f in p.files):
			dirty.add(p.name)
	rewritten = [p.name for p in patches if p.name in dirty and regenerate_patch(tree, p)]
	log(f'refresh: {copied} overlay/MAINTAINERS files updated, '
	    f'{len(rewritten)} patches rewritten' +
	    (': ' + ' '.join(rewritten) if rewritten else ''))


# --------------------------------------------------------------- build ---

def fetch_debs(build_dir: str, out_dir: str, packages: Sequence[str]) -> List[str]:
	"""The i386 .debs of @packages in @out_dir, downloaded there with the
	private apt state unless they already are."""
	os.makedirs(out_dir, exist_ok=True)
	missing = [p for p in packages if not _deb_in(out_dir, p)]
	if missing:
		_apt_state(build_dir)
		cmd = ['apt-get', *guest_apt_options(build_dir), 'download', *missing]
		if run(cmd, cwd=out_dir, check=False).returncode:
			_apt_update(build_dir)
			run(cmd, cwd=out_dir)
	debs = [_deb_in(out_dir, p) for p in packages]
	lost = [p for p, deb in zip(packages, debs) if not deb]
	if lost:
		raise HarnessError(f'could not download {" ".join(lost)}:i386 into {out_dir}')
	return [deb for deb in debs if deb]


def kexec_debs(build_dir: str) -> List[str]:
	"""kexec-tools and the C library it links, for the kexec boot."""
	return fetch_debs(build_dir, os.path.join(build_dir, 'debs-kexec'), KEXEC_PACKAGES)


def distro_base(build_dir: str, config: str) -> str:
	"""The distribution config under @config, fetched on first use into
	<build>/distro/ (the Debian package, with the private i386 apt state);
	returns its path."""
	package, member, what = DISTRO_BASES[config]
	out_dir = os.path.join(build_dir, 'distro')
	path = os.path.join(out_dir, f'{config}.config')
	if os.path.exists(path):
		return path
	log(f'build: fetching {what} ({package}:i386)')
	deb = fetch_debs(build_dir, out_dir, (package,))[0]
	with tempfile.TemporaryDirectory() as tmp:
		run(['dpkg-deb', '-x', deb, tmp])
		src = os.path.join(tmp, member)
		if not os.path.exists(src):
			raise HarnessError(f'{deb} has no {member}')
		with lzma.open(src) as f:
			data = f.read()
	_write_if_changed(path, data)
	log(f'build: {what}: {path} (from {os.path.basename(deb)})')
	return path


def obj_dir(build_dir: str, config: str) -> str:
	return os.path.join(build_dir, f'obj-{config}')


def fragment_paths(config: str) -> List[str]:
	if config not in CONFIGS:
		raise HarnessError(f'unknown config {config!r}; known: {", ".join(CONFIGS)}')
	return [os.path.join(CONFIGS_DIR, f'{name}.config') for name in CONFIGS[config]]


def _parse_fragment(path: str) -> Dict[str, str]:
	"""CONFIG_X -> value ('n' for '# CONFIG_X is not set')."""
	syms = {}
	with open(path) as f:
		for line in f:
			line = line.strip()
			m = re.match(r'(CONFIG_\w+)=(.*)', line)
			if m:
				syms[m.group(1)] = m.group(2)
			m = re.match(r'# (CONFIG_\w+) is not set', line)
			if m:
				syms[m.group(1)] = 'n'
	return syms


def _kconfig_symbols(tree: str, names: List[str]) -> set:
	"""The subset of names that some Kconfig file of the tree defines."""
	# Not git grep --untracked: it finds nothing in a tree with files
	# added with intent-to-add (git 2.39), as a prepared tree has.
	defined = set()
	for dirpath, dirnames, filenames in os.walk(tree):
		# Not the test cases of Kconfig itself (scripts/kconfig/tests).
		dirnames[:] = [d for d in dirnames if not d.startswith('.') and
			       not (d == 'tests' and dirpath.endswith('kconfig'))]
		for name in filenames:
			if name.startswith('Kconfig'):
				text = _read(os.path.join(dirpath, name)) or b''
				defined |= set(re.findall(rb'^\s*(?:menu)?config\s+(\w+)',
							  text, re.M))
	return {n for n in names if n[len('CONFIG_'):].encode() in defined}


def user_fragment(obj: str, files: Sequence[str], options: Sequence[str]) -> List[str]:
	"""The user's config (--kconfig FILE, --kconfig-add CONFIG_X=v) as one
	fragment in @obj, merged after ours; [] when there is none."""
	if not files and not options:
		return []
	text = ''
	for path in files:
		data = _read(path)
		if data is None:
			raise HarnessError(f'--kconfig {path}: no such file')
		text += f'# {os.path.abspath(path)}\n' + data.decode().rstrip('\n') + '\n'
	for opt in options:
		if not re.fullmatch(r'CONFIG_\w+=\S.*|# CONFIG_\w+ is not set', opt):
			raise HarnessError(f'--kconfig-add {opt!r}: expected CONFIG_FOO=value')
		text += opt + '\n'
	bad = [l for l in text.splitlines()
	       if l.strip() and not l.startswith('#') and not re.match(r'CONFIG_\w+=', l)]
	if bad:
		raise HarnessError(f'--kconfig: not a config line: {bad[0]}')
	path = os.path.join(obj, 'user.config')
	os.makedirs(obj, exist_ok=True)
	_write_if_changed(path, text.encode())
	return [path]


def check_config(tree: str, obj: str, config: str, extra: Sequence[str] = ()) -> List[str]:
	"""Compares the fragments with .config; returns errors, prints warnings."""
	final = _parse_fragment(os.path.join(obj, '.config'))
	wanted: List[Tuple[str, str, str]] = []
	for frag in fragment_paths(config) + list(extra):
		name = os.path.basename(frag)[:-len('.config')]
		wanted += [(name, s, v) for s, v in _parse_fragment(frag).items()]
	bad = [(f, s, v) for f, s, v in wanted if final.get(s, 'n') != v]
	if not bad:
		return []
	exists = _kconfig_symbols(tree, [s for _, s, _ in bad])
	errors = []
	for frag, sym, val in bad:
		got = final.get(sym, 'n')
		what = f'{sym}={val} ({frag}.config) did not stick: .config has {sym}={got}'
		if sym not in exists:
			what = f'{sym}={val} ({frag}.config): no such symbol in this tree'
		if frag in OPTIONAL_FRAGMENTS and sym not in exists:
			log(f'build: warning: {what}')
		else:
			errors.append(what)
	return errors


def _config_stamp(config: str, tree: str, extra: Sequence[str] = (),
		  base: str = '') -> str:
	h = hashlib.sha256()
	for frag in ([base] if base else []) + fragment_paths(config) + list(extra):
		h.update(frag.encode() + b'\0' + (_read(frag) or b'') + b'\0')
	h.update(tree_version(tree).encode())
	return h.hexdigest()


def make_cmd(tree: str, obj: str, jobs: int, *targets: str) -> List[str]:
	return ['make', '-C', tree, f'O={obj}', 'ARCH=i386', f'-j{jobs}', *targets]


def _run_logged(cmd: List[str], logf, cwd: Optional[str] = None) -> int:
	logf.write(f'$ {" ".join(cmd)}\n')
	logf.flush()
	return subprocess.run(cmd, cwd=cwd, stdout=logf, stderr=subprocess.STDOUT,
			      stdin=subprocess.DEVNULL).returncode


def _fail_with_log(log_path: str, msg: str) -> None:
	with open(log_path, errors='replace') as f:
		lines = f.read().splitlines()
	print('\n'.join(lines[-40:]), file=sys.stderr)
	# With -jN the first error may be far above the tail: name it.
	first = next((l.strip() for l in lines if re.search(
		r'\berror:|\*\*\* No rule|undefined reference|Error \d', l)), '')
	raise HarnessError(f'{msg}: {first} (full log: {log_path})' if first
			   else f'{msg} (full log: {log_path})')


def configure(tree: str, obj: str, config: str, jobs: int, logf, log_path: str,
	      extra: Sequence[str] = (), base: str = '') -> None:
	"""tinyconfig, or the distribution config @base, with the fragments
	of @config and @extra merged on top."""
	frags = fragment_paths(config) + list(extra)
	log(f'build: configuring {config}: '
	    + (DISTRO_BASES[config][2] if base else 'tinyconfig') + ' + '
	    + ' '.join(os.path.basename(f) for f in frags))
	if base:
		shutil.copyfile(base, os.path.join(obj, '.config'))
	steps = [
		make_cmd(tree, obj, jobs, 'olddefconfig' if base else 'tinyconfig'),
		[os.path.join(tree, 'scripts/kconfig/merge_config.sh'), '-m', '-O', obj,
		 os.path.join(obj, '.config'), *frags],
		make_cmd(tree, obj, jobs, 'olddefconfig'),
	]
	for cmd in steps:
		if _run_logged(cmd, logf, cwd=tree):
			logf.flush()
			_fail_with_log(log_path, f'configuring {config} failed')


def build(build_dir: str, tree: str, config: str, jobs: int, obj: str = '',
	  extra: Sequence[str] = (), config_only: bool = False) -> str:
	"""Configures (when fragments changed) and builds; returns bzImage's path.

	@obj defaults to <build>/obj-<config>; @extra are more fragments
	(user_fragment()), merged last.  With @config_only, stops once
	.config is written and checked, and returns its path.
	"""
	obj = obj or obj_dir(build_dir, config)
	logs = os.path.join(build_dir, 'logs')
	os.makedirs(obj, exist_ok=True)
	os.makedirs(logs, exist_ok=True)
	log_path = os.path.join(logs, f'build-{os.path.basename(obj)[len("obj-"):]}.log')
	stamp_path = os.path.join(obj, '.kmemcheck-config.stamp')
	base = distro_base(build_dir, config) if config in DISTRO_BASES else ''
	stamp = _config_stamp(config, tree, extra, base)
	t0 = time.time()
	with open(log_path, 'w') as logf:
		fresh = _read(stamp_path) == stamp.encode() and \
			os.path.exists(os.path.join(obj, '.config'))
		if fresh:
			# syncconfig inside make picks up Kconfig changes; redo the
			# whole config step only if the fragments no longer stick.
			_run_logged(make_cmd(tree, obj, jobs, 'olddefconfig'), logf, cwd=tree)
			if check_config(tree, obj, config, extra):
				fresh = False
		if not fresh:
			configure(tree, obj, config, jobs, logf, log_path, extra, base)
			errors = check_config(tree, obj, config, extra)
			for e in errors:
				log(f'build: error: {e}')
			if errors:
				raise HarnessError(f'{len(errors)} config options of {config} '
						   'did not stick (see above)')
			with open(stamp_path, 'w') as f:
				f.write(stamp)
		if config_only:
			return os.path.join(obj, '.config')
		targets = ['bzImage']
		# A distribution config builds thousands of modules the guest
		# never loads: only the kernel, which has what it boots with.
		if 'CONFIG_MODULES' in _parse_fragment(os.path.join(obj, '.config')) \
		   and not base:
			targets.append('modules')
		log(f'build: make -j{jobs} {" ".join(targets)} in {obj} (log: {log_path})')
		if _run_logged(make_cmd(tree, obj, jobs, *targets), logf, cwd=tree):
			logf.flush()
			_fail_with_log(log_path, f'building {config} failed')
	log(f'build: {config} of {base_description(tree)} built in '
	    f'{time.time() - t0:.0f} s')
	return os.path.join(obj, 'arch/x86/boot/bzImage')


def build_module(tree: str, obj: str, src: str, out_dir: str, jobs: int,
		 log_path: str, make_args: Sequence[str] = ()) -> List[str]:
	"""Builds the out-of-tree module source directory @src against the
	kernel in @obj, with the make variables of @make_args; returns the .ko
	files.

	Kbuild writes its objects next to the sources (M=), so the sources are
	copied into @out_dir first: the user's directory is only read.
	"""
	src = os.path.abspath(src)
	if not any(os.path.isfile(os.path.join(src, m)) for m in ('Kbuild', 'Makefile')):
		raise HarnessError(f'--module {src}: a directory needs a Kbuild or Makefile')
	for dirpath, _, filenames in os.walk(src):
		for name in filenames:
			full = os.path.join(dirpath, name)
			data = _read(full)
			if data is not None:
				_write_if_changed(os.path.join(out_dir, os.path.relpath(full, src)),
						  data, os.stat(full).st_mode & 0o777)
	with open(log_path, 'w') as logf:
		if _run_logged(make_cmd(tree, obj, jobs, f'M={out_dir}', *make_args, 'modules'),
			       logf, cwd=tree):
			logf.flush()
			_fail_with_log(log_path, f'building the module in {src} failed')
	kos = []
	for dirpath, _, filenames in os.walk(out_dir):
		kos += [os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith('.ko')]
	if not kos:
		raise HarnessError(f'--module {src}: make built no .ko (log: {log_path})')
	return kos
