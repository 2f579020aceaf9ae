# SPDX-License-Identifier: GPL-2.0
"""scripts/decode_stacktrace.sh on a kmemcheck report captured from a boot.

A developer pastes a report into decode_stacktrace.sh to get file:line for
each frame.  check_demo_report() does that with the demo's uninit-value
report and checks that the frames of the bug land on the lines of
mm/kmemcheck/demo.c that make it: the use in kmemcheck_demo_uninit_read()
and the call in demo_write().
"""

import os
import re
import subprocess
from typing import List, Optional, Tuple

DEMO_SOURCE = 'mm/kmemcheck/demo.c'
DEMO_TITLE = 'BUG: KMEMCHECK: uninit-value in kmemcheck_demo_uninit_read'
# (function, source text of the line its frame must resolve to, whether it
# is a caller: a return address resolves to the call or the line after it).
DEMO_FRAMES = (
	('kmemcheck_demo_uninit_read', 'if (READ_ONCE(config->limit) > 0)', False),
	('demo_write', 'kmemcheck_demo_uninit_read();', True),
)
SEPARATOR = '=' * 20


def extract_report(lines: List[str], title: str) -> Optional[str]:
	"""The report (separator to separator) whose title contains @title."""
	for i, line in enumerate(lines):
		if title not in line:
			continue
		start = i - 1 if i and SEPARATOR in lines[i - 1] else i
		for j in range(i + 1, len(lines)):
			if SEPARATOR in lines[j]:
				return '\n'.join(lines[start:j + 1]) + '\n'
		return None
	return None


def _source_line(ktree: str, text: str) -> int:
	with open(os.path.join(ktree, DEMO_SOURCE)) as f:
		for n, line in enumerate(f, 1):
			if text in line:
				return n
	return 0


def decode(ktree: str, vmlinux: str, report: str) -> str:
	"""decode_stacktrace.sh output for @report, paths relative to @ktree."""
	proc = subprocess.run([os.path.join(ktree, 'scripts', 'decode_stacktrace.sh'),
			       vmlinux, ktree], cwd=ktree, input=report, text=True,
			      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
	return proc.stdout


def check_demo_report(ktree: str, vmlinux: str, lines: List[str]) -> Tuple[Optional[str], str]:
	"""(why it failed or None, decoded report) for the demo boot's console."""
	report = extract_report(lines, DEMO_TITLE)
	if report is None:
		return f'no complete "{DEMO_TITLE}" report in the console', ''
	out = decode(ktree, vmlinux, report)
	for func, text, caller in DEMO_FRAMES:
		want = _source_line(ktree, text)
		if not want:
			return f'{DEMO_SOURCE} has no line "{text}"', out
		m = re.search(rf'(?<![\w.]){func}[\w.]* \({re.escape(DEMO_SOURCE)}:(\d+)', out)
		if not m:
			return f'{func} does not resolve to {DEMO_SOURCE}:<line>', out
		got = int(m.group(1))
		if got != want and not (caller and got == want + 1):
			return f'{func} resolves to {DEMO_SOURCE}:{got}, expected :{want}', out
	return None, out
