# SPDX-License-Identifier: GPL-2.0
"""kmemcheck reports read the way syzkaller reads KMSAN's.

syzkaller's report parser (pkg/report/linux.go in google/syzkaller) knows
nothing of kmemcheck, and a fuzzing setup should need at most one line to
add it.  What it does with a "BUG: KMSAN:" report, which ours copy:

- Every console line starting with "BUG:" opens a report.  The KMSAN
  format wants "BUG: KMSAN: <type> in <function>", <type> lower-case
  letters and dashes (uninit-value, kernel-infoleak, ...).
- The bug's title is "KMSAN: <type> in <frame>": <frame> is not the
  function of the title line but the first frame of the stack after it
  that survives the skip rules, its "+0x../0x.." offset and compiler
  suffixes (.isra.0, .constprop.0, .part.0, .cold) dropped, so that a
  title deduplicates across builds.
- Skip rules: frames printed with " ? " (unreliable) are ignored, and so
  is every frame whose name contains one of a global list of fragments
  (SKIP_FRAGMENTS below, a subset: the copy and string helpers, printk,
  might_fault, ...).
- The guilty file, who gets the report, is the file of the first frame
  (symbolized, file:line) not on a list of files never blamed: any
  header, lib/, mm/kasan/, mm/kmsan/, the page allocator, RCU, locking,
  traps, panic, softirq (BLAME_SKIP below, a subset).  mm/kmemcheck/ is
  on no such list: a frame of ours above the buggy one would be blamed.

check_reports() applies these rules to the demo's reports: the title line
must name the expected function, the frame syzkaller picks and the file it
blames must be the expected ones (those it picks for KMSAN's report of the
same bug: the function that made the bad read; for a leak, the first
frame below the copy_to_user() helpers), and neither the call trace nor
the allocation stack ("Uninit was created at:") may start in kmemcheck:
a reader blames their first frame.
"""

import re
from typing import Dict, List, Optional, Sequence, Tuple

import kmemcheck_decode as decode

TITLE_RE = re.compile(r'^BUG: KMEMCHECK: ([a-z-]+) in ([\w.]+)(?:\+0x[0-9a-f]+/0x[0-9a-f]+)?')
# "  func+0x1c/0x2e", optionally " ? func..." or with "[module]" after it.
FRAME_RE = re.compile(r'^\s*(\?\s+)?([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+')
# decode_stacktrace.sh's rendering of a frame: "func+0x../0x.. (file:line)"
# or, for an inlined call, "func (file:line)".
DECODED_RE = re.compile(r'^\s*(?:\?\s+)?([\w.]+)(?:\+0x[0-9a-f]+/0x[0-9a-f]+)? '
			r'\(([\w./-]+):\d+\)')
TIMESTAMP_RE = re.compile(r'^\[\s*\d+\.\d+\] ')
SUFFIX_RE = re.compile(r'(\.(isra|constprop|part|cold|llvm|lto_priv)(\.\d+)?)+$')

SKIP_FRAGMENTS = (
	'copy_to_user', 'copy_from_user', 'put_user', 'get_user', 'might_fault',
	'might_sleep', 'list_add', 'list_del', 'string', 'pointer', 'snprintf',
	'scnprintf', 'kasprintf', 'printk', 'dev_err', 'dev_warn', 'dev_info',
	'_indirect_thunk_', 'memcpy', 'memmove', 'memset', 'strcpy', 'strscpy',
)
BLAME_SKIP = (
	r'\.h$', r'^lib/', r'^mm/kasan/', r'^mm/kmsan/', r'^mm/percpu', r'^mm/vmalloc\.c$',
	r'^mm/page_alloc\.c$', r'^kernel/rcu/', r'^arch/\w+/kernel/traps\.c$',
	r'^kernel/locking/', r'^kernel/panic\.c$', r'^kernel/softirq\.c$',
)
# What a frame of kmemcheck itself looks like (the demo is a bug of its own).
OWN_FRAME_RE = re.compile(r'^_*kmemcheck_(?!demo_)')


def strip_frame(name: str) -> str:
	"""A frame as syzkaller titles it: no offset, no compiler suffix."""
	return SUFFIX_RE.sub('', name.split('+', 1)[0])


def _section(lines: Sequence[str], start: int, header: str) -> List[str]:
	"""The lines after @header (from @start) up to the next blank line."""
	out: List[str] = []
	inside = False
	for line in lines[start:]:
		if not inside:
			inside = line.strip() == header
			continue
		if not line.strip() or decode.SEPARATOR in line:
			break
		out.append(line)
	return out


def pick_frame(frames: Sequence[str]) -> Tuple[Optional[str], List[str]]:
	"""(syzkaller's frame, the frames it skipped before it)."""
	skipped = []
	for line in frames:
		m = FRAME_RE.match(line)
		if not m or m.group(1):
			continue
		name = strip_frame(m.group(2))
		if any(f in name for f in SKIP_FRAGMENTS):
			skipped.append(name)
			continue
		return name, skipped
	return None, skipped


def guilty_file(decoded: Sequence[str]) -> Optional[str]:
	"""The first file of the decoded call trace that may be blamed."""
	for line in decoded:
		m = DECODED_RE.match(line)
		if m and not any(re.search(rx, m.group(2)) for rx in BLAME_SKIP):
			return m.group(2)
	return None


def reports(lines: Sequence[str]) -> List[Tuple[str, str, List[str]]]:
	"""(type, title function, report lines) of each kmemcheck report."""
	text = [TIMESTAMP_RE.sub('', l.rstrip('\r')) for l in lines]
	out = []
	for i, line in enumerate(text):
		m = TITLE_RE.match(line)
		if not m:
			continue
		end = next((j for j in range(i + 1, len(text)) if decode.SEPARATOR in text[j]),
			   len(text))
		out.append((m.group(1), m.group(2), text[i:end + 1]))
	return out


def check_report(kind: str, func: str, body: List[str], want_frame: str,
		 want_file: str, decoded: Sequence[str]) -> Optional[str]:
	"""Why syzkaller would title or blame this report wrongly, or None."""
	title = f'{kind} in {strip_frame(func)}'
	trace = _section(body, 0, 'Call Trace:')
	if not trace:
		return f'{title}: no "Call Trace:"'
	frame, skipped = pick_frame(trace)
	if frame != want_frame:
		return (f'{title}: syzkaller would title it "KMEMCHECK: {kind} in {frame}" '
			f'(skipped {skipped})')
	first = strip_frame(FRAME_RE.match(trace[0]).group(2)) if FRAME_RE.match(trace[0]) else ''
	if OWN_FRAME_RE.match(first):
		return f'{title}: the call trace starts in kmemcheck ({first})'
	origin = _section(body, 0, 'Uninit was created at:')
	m = FRAME_RE.match(origin[0]) if origin else None
	if m and OWN_FRAME_RE.match(strip_frame(m.group(2))):
		return f'{title}: "Uninit was created at:" starts in kmemcheck ({m.group(2)})'
	blamed = guilty_file(_section(list(decoded), 0, 'Call Trace:'))
	if blamed != want_file:
		return f'{title}: syzkaller would blame {blamed}, not {want_file}'
	return None


def check_reports(lines: Sequence[str], want: Dict[str, Tuple[str, str, str]],
		  symbolize) -> Optional[str]:
	"""Checks the reports of types @want: {type: (title function, frame, file)}.

	@symbolize turns a report's text into decode_stacktrace.sh output."""
	seen = set()
	for kind, func, body in reports(lines):
		if kind not in want or kind in seen:
			continue
		want_func, want_frame, want_file = want[kind]
		if strip_frame(func) != want_func:
			return f'{kind} titled with {func}, expected {want_func}'
		decoded = [TIMESTAMP_RE.sub('', l) for l in symbolize('\n'.join(body) + '\n').splitlines()]
		why = check_report(kind, func, body, want_frame, want_file, decoded)
		if why:
			return why
		seen.add(kind)
	missing = sorted(set(want) - seen)
	return f'no {", ".join(missing)} report in the console' if missing else None
