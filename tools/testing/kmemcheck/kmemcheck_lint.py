# SPDX-License-Identifier: GPL-2.0
"""Static checks of kmemcheck: the kernel's own tools on our files.

- checkpatch.pl --strict on every C file, header and Kconfig of the overlay,
  and on every patch of the series;
- W=1 and sparse (C=2) on the kmemcheck objects of a configured build;
- kernel-doc -none -Wall on our headers;
- make htmldocs of Documentation/dev-tools: no warning about our files.

Each check returns a list of problems; an empty list is a pass.
"""

import os
import re
import shutil
import subprocess
import tempfile
from typing import List, Sequence

import kmemcheck_tree as tree

# Objects built with W=1 and sparse: every directory of ours with C files.
LINT_DIRS = ('mm/kmemcheck/', 'arch/x86/mm/kmemcheck/')
# Headers whose kernel-doc must be complete.
KERNEL_DOC_FILES = ('include/linux/kmemcheck.h',
		    'arch/x86/include/asm/kmemcheck.h',
		    'mm/kmemcheck/kmemcheck.h',
		    'mm/kmemcheck/kmemcheck_test.h',
		    'arch/x86/mm/kmemcheck/decode.h',
		    'arch/x86/mm/kmemcheck/emulate.h')
CHECKPATCH_TIMEOUT = 300
# User-space stand-ins for kernel headers, shaped by the headers they replace.
CHECKPATCH_SKIP = ('tools/testing/kmemcheck/decoder/shim/',)



# The base tree is Debian's tarball, without history: checkpatch cannot
# look up the commit of a Fixes: tag there.  Its format is still checked.
UNVERIFIABLE = 'UNKNOWN_COMMIT_ID'

def _run(cmd: Sequence[str], cwd: str, timeout: int = 1200) -> str:
	"""Run @cmd, return stdout and stderr together, whatever its status."""
	res = subprocess.run(list(cmd), cwd=cwd, stdout=subprocess.PIPE,
			     stderr=subprocess.STDOUT, text=True, timeout=timeout)
	return res.stdout


def _checkpatch_problems(output: str) -> List[str]:
	"""The ERROR/WARNING/CHECK lines of checkpatch, with their location."""
	lines = output.splitlines()
	found = []
	for i, line in enumerate(lines):
		if line.startswith(('ERROR:', 'WARNING:', 'CHECK:')):
			where = lines[i + 1].strip() if i + 1 < len(lines) else ''
			found.append(f'{line} {where}')
	return found


def checkpatch(ktree: str) -> List[str]:
	"""checkpatch --strict on our source files and on the patches.

	Runs outside any git repository: checkpatch treats a file tracked by
	git as a source file even when it is a patch.
	"""
	script = os.path.join(ktree, 'scripts', 'checkpatch.pl')
	problems = []
	with tempfile.TemporaryDirectory(prefix='kmemcheck-lint-') as tmp:
		for rel in tree.overlay_files():
			base = os.path.basename(rel)
			if not (rel.endswith(('.c', '.h')) or base.startswith('Kconfig')):
				continue
			if rel.startswith(CHECKPATCH_SKIP):
				continue
			out = _run(['perl', script, '--strict', '--no-tree', '-q',
				    '-f', os.path.join(tree.REPO, rel)], cwd=tmp,
				   timeout=CHECKPATCH_TIMEOUT)
			problems += [f'{rel}: {p}' for p in _checkpatch_problems(out)]
		for patch in tree.read_series():
			copy = os.path.join(tmp, os.path.basename(patch.path))
			shutil.copyfile(patch.path, copy)
			out = _run(['perl', script, '--strict', '--no-tree', '-q',
				    '--ignore', UNVERIFIABLE, copy], cwd=tmp,
				   timeout=CHECKPATCH_TIMEOUT)
			problems += [f'{patch.name}: {p}'
				     for p in _checkpatch_problems(out)]
	return problems


def compiler_warnings(ktree: str, obj: str, jobs: int) -> List[str]:
	"""Rebuild our objects with W=1 and sparse; every warning is a problem."""
	for d in LINT_DIRS:
		for name in os.listdir(os.path.join(ktree, d)):
			if name.endswith('.c'):
				os.utime(os.path.join(ktree, d, name))
	out = _run(['make', '-C', ktree, f'O={obj}', 'ARCH=i386', f'-j{jobs}',
		    'W=1', 'C=1'] + list(LINT_DIRS), cwd=ktree)
	return [line for line in out.splitlines()
		if 'warning:' in line or 'error:' in line or 'Error ' in line]


def kernel_doc(ktree: str) -> List[str]:
	"""kernel-doc -none -Wall on our headers."""
	script = os.path.join(ktree, 'scripts', 'kernel-doc')
	out = _run(['perl', script, '-none', '-Wall'] +
		   [os.path.join(tree.REPO, f) for f in KERNEL_DOC_FILES],
		   cwd=tree.REPO)
	return [line for line in out.splitlines() if line.strip()]


# The rst and the headers it pulls in with kernel-doc.
HTMLDOCS_DIR = 'dev-tools'
HTMLDOCS_RST = 'Documentation/dev-tools/kmemcheck.rst'
HTMLDOCS_WARNING_RE = re.compile(r'WARNING|ERROR|warning:|error:|CRITICAL|SEVERE')


def htmldocs(ktree: str, obj: str, jobs: int) -> List[str]:
	"""make SPHINXDIRS=dev-tools htmldocs; warnings that name kmemcheck.

	The rest of dev-tools links to documents outside SPHINXDIRS, which
	Sphinx reports as missing: those are not ours.  Sphinx only re-reads
	changed documents, and only reports on those: touch ours so that its
	warnings come every time.
	"""
	os.utime(os.path.join(ktree, HTMLDOCS_RST))
	out = _run(['make', '-C', ktree, f'O={obj}', f'-j{jobs}',
		    f'SPHINXDIRS={HTMLDOCS_DIR}', 'htmldocs'], cwd=ktree)
	problems = [line for line in out.splitlines()
		    if HTMLDOCS_WARNING_RE.search(line) and 'kmemcheck' in line]
	html = os.path.join(obj, 'Documentation', 'output', HTMLDOCS_DIR, 'kmemcheck.html')
	if not os.path.exists(html):
		problems.append(f'{html} was not written:\n' + '\n'.join(out.splitlines()[-20:]))
	return problems
