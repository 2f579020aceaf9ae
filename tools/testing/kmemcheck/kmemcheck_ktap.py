# SPDX-License-Identifier: GPL-2.0
"""The results of ``kmemcheck.py test`` as KTAP, and a check of the file.

One flat KTAP document: every test is a result line (``ok``, ``not ok``,
``ok ... # SKIP reason``) preceded by diagnostic lines with its detail,
its time and its log, so the kernel's tools/testing/kunit/kunit_parser.py
reads it (``parse_run_tests(open(path))``) and counts what the harness
counted.
"""

import re
from dataclasses import dataclass
from typing import Iterable, List, Optional

# Text that makes kunit_parser stop reading (its KTAP_END), wherever it is
# in a line.
_KTAP_END = re.compile(r'List of all partitions:|Kernel panic - not syncing: VFS:|'
		       r'reboot: System halted')


@dataclass
class Entry:
	"""One test for the file."""
	name: str
	ok: Optional[bool]  # None: skipped
	detail: str = ''
	seconds: Optional[float] = None
	log: str = ''


def _diagnostic(text: str) -> str:
	"""@text as a KTAP diagnostic line that kunit_parser keeps as such."""
	text = _KTAP_END.sub(lambda m: m.group(0).replace(' ', '_'), text)
	if text.startswith('Subtest:'):  # would open a subtest
		text = '-' + text
	return f'# {text}'.rstrip()


def _name(name: str) -> str:
	"""A test name kunit_parser reads back whole: no '#', one line."""
	return ' '.join(name.replace('#', '_').split())


def format_ktap(entries: Iterable[Entry], title: str = '') -> List[str]:
	"""The lines of the KTAP document for @entries."""
	entries = list(entries)
	lines = ['KTAP version 1']
	if title:
		lines.append(_diagnostic(title))
	lines.append(f'1..{len(entries)}')
	for i, e in enumerate(entries, 1):
		if e.ok is None:
			lines.append(f'ok {i} {_name(e.name)} # SKIP {" ".join(e.detail.split())}'
				     .rstrip())
			continue
		lines += [_diagnostic(l) for l in e.detail.splitlines() if l.strip()]
		if e.seconds is not None:
			lines.append(_diagnostic(f'time: {e.seconds:.1f} s'))
		if e.log:
			lines.append(_diagnostic(f'log: {e.log}'))
		lines.append(f'{"ok" if e.ok else "not ok"} {i} {_name(e.name)}')
	return lines


def write(path: str, entries: Iterable[Entry], title: str = '') -> None:
	with open(path, 'w') as f:
		f.write('\n'.join(format_ktap(entries, title)) + '\n')


def check(path: str, entries: Iterable[Entry], kunit_parser) -> Optional[str]:
	"""Why kunit_parser's reading of @path differs from @entries, or None.

	@kunit_parser is the kernel's module (its printing silenced).  Checks
	the counts of passed, failed and skipped tests, that nothing counts as
	crashed or as a parse error, and the name and status of every test.
	"""
	entries = list(entries)
	with open(path) as f:
		top = kunit_parser.parse_run_tests(f.read().splitlines())
	st = kunit_parser.TestStatus
	want = (sum(e.ok is True for e in entries), sum(e.ok is False for e in entries),
		sum(e.ok is None for e in entries))
	c = top.counts
	got = (c.passed, c.failed, c.skipped)
	if got != want or c.crashed or c.errors:
		return (f'kunit_parser counts {c.passed} passed, {c.failed} failed, '
			f'{c.skipped} skipped, {c.crashed} crashed, {c.errors} errors; '
			f'the harness {want[0]} passed, {want[1]} failed, {want[2]} skipped')
	status = {True: st.SUCCESS, False: st.FAILURE, None: st.SKIPPED}
	if len(top.subtests) != len(entries):
		return (f'kunit_parser read {len(top.subtests)} tests, '
			f'the harness wrote {len(entries)}')
	for e, t in zip(entries, top.subtests):
		if t.name != _name(e.name) or t.status != status[e.ok]:
			return (f'kunit_parser read {t.name!r} {t.status.name}, '
				f'the harness wrote {e.name!r} {status[e.ok].name}')
	return None
