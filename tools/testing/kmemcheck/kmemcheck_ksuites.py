# SPDX-License-Identifier: GPL-2.0
"""The kernel's own tests as a peer test suite: ksuites/<suite>.

The kernel of the "default" config carries a chosen set of the kernel's
tests as modules (configs/ksuites.config).  It is booted twice, with
kmemcheck=1 and with kmemcheck=0; each time the guest loads the modules one
by one, between markers, so that the console splits into one window per
module.  KUnit suites are parsed from the window with the kernel's own
tools/testing/kunit/kunit_parser.py, kselftest-style modules from their
summary line.  A suite passes when it passes in both boots with the same
result for every case, and kmemcheck reports nothing while it runs.
"""

import gzip
import os
import re
import stat
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import kmemcheck_qemu as qemu

MODES = (1, 0)
# Built-in KUnit suites (kmemcheck's own) stay out of these boots: none
# matches the glob at boot; the scenario sets it for each module, with
# echo -n: a charp parameter keeps the newline, which no name matches.
# Slow cases are left out by globs, not by kunit.filter=speed>slow: on
# 6.12 a glob that matches no case of a suite, then an attribute filter,
# oops in kunit_filter_attr_tests().
CMDLINE = 'kunit.enable=1 kunit.filter_glob=ksuites-modules-only no_hash_pointers'
KUNIT_PARAMS = '/sys/module/kunit/parameters'
TIMEOUT = 1200
GUEST_DIR = 'lib/ksuites'
BEGIN_RE = re.compile(r'ksuites: begin (\S+) ([\d.]+)')
END_RE = re.compile(r'ksuites: end (\S+) rc=(-?\d+) ([\d.]+)')
TIME_RE = re.compile(r'^\[\s*(\d+\.\d+)\]')
REPORT_RE = re.compile(r'BUG: KMEMCHECK: (\S+) in ([\w.]+)')
# Never expected while a test runs.
CRASH_RE = re.compile(r'Kernel panic|Oops|BUG: unable to handle|WARNING:|'
		      r'general protection fault|\bBUG: (?!KMEMCHECK)')


@dataclass
class Module:
	"""A test module: what it is called, how it says it passed."""
	name: str			# lib/<name>.ko
	suites: Sequence[str] = ()	# its KUnit suites; none: kselftest-style
	params: str = ''		# insmod parameters
	glob: str = '*'			# KUnit: the cases to run
	passed: str = ''		# kselftest-style: regex of success ...
	failed: str = ''		# ... and of failure


# kselftest_module.h's summary lines.
KSTM_PASSED = r'\b(?:all|remaining) (?P<cases>\d+) tests passed'
KSTM_FAILED = r'failed (?P<failed>\d+) out of (?P<cases>\d+) tests'

MODULES: Tuple[Module, ...] = (
	Module('slub_kunit', ('slub_test',)),
	Module('list-test', ('list-kunit-test', 'hlist', 'klist')),
	Module('string_helpers_kunit', ('string_helpers',)),
	# memset_test and memcpy_test: the others are marked slow (seconds
	# natively, many minutes under TCG).
	Module('memcpy_kunit', ('memcpy',), glob='memcpy.mem[cs][pe][yt]_test'),
	Module('test_hash', ('hash',)),
	Module('hashtable_test', ('hashtable',)),
	Module('test_sort', ('lib_sort',)),
	Module('test_list_sort', ('list_sort',)),
	Module('overflow_kunit', ('overflow',)),
	Module('bitfield_kunit', ('bitfields',)),
	Module('cmdline_kunit', ('cmdline',)),
	Module('siphash_kunit', ('siphash',)),
	Module('test_printf', passed=KSTM_PASSED, failed=KSTM_FAILED),
	# No kfifo test in 6.12 (samples/kfifo only): min_heap is the other
	# array-backed queue of lib/ with a self-test.
	Module('test_min_heap', passed=r'min_heap_test: test passed',
	       failed=r'min_heap_test: test failed with (?P<failed>\d+) errors'),
	# A benchmark with invariant checks (WARN_ON_ONCE): fewer loops than
	# its defaults of 1000 and 100, each touching every node, keep it to
	# seconds under kmemcheck=1.  It never prints success: reaching its
	# last test is success, a WARNING failure.
	Module('rbtree_test', params='perf_loops=2 check_loops=2',
	       passed=r'-> test 2 \(latency of nnodes cached insert\+delete\)'),
	# Not memset16/32/64: each checks every element after each of n
	# calls, n^3 reads of tracked memory, which take hours under
	# kmemcheck=1.  The str*() cases are kept.
	Module('string_kunit', ('string',), glob='string.string_test_str*'),
	Module('test_bitmap', passed=KSTM_PASSED, failed=KSTM_FAILED),
	Module('test_scanf', passed=KSTM_PASSED, failed=KSTM_FAILED),
)


def suite_names(m: Module) -> List[str]:
	return list(m.suites) or [m.name]


def all_suites() -> List[str]:
	return [s for m in MODULES for s in suite_names(m)]


# ------------------------------------------------------------- guest side ---

def scenario(modules: Sequence[Module]) -> str:
	"""Shell lines loading each module between begin/end markers."""
	lines = []
	for m in modules:
		lines.append(f"echo -n '{m.glob}' > {KUNIT_PARAMS}/filter_glob")
		lines.append(f'echo "ksuites: begin {m.name} $(cut -d" " -f1 /proc/uptime)"')
		lines.append(f'insmod /{GUEST_DIR}/{m.name}.ko {m.params}'.rstrip() +
			     ' 2>/dev/null')
		lines.append(f'echo "ksuites: end {m.name} rc=$? $(cut -d" " -f1 /proc/uptime)"')
	lines.append(qemu.FOLLOW_STATS)
	return '\n'.join(lines) + '\n'


def module_archive(obj: str, modules: Sequence[Module], out_path: str) -> str:
	"""A gzip'd cpio with the modules, to append to the base initramfs.

	The kernel unpacks concatenated archives in turn, so the base one
	needs no change.
	"""
	os.makedirs(os.path.dirname(out_path), exist_ok=True)
	with gzip.open(out_path, 'wb', compresslevel=6) as gz:
		cpio = qemu.CpioWriter(gz)
		path = ''
		for part in GUEST_DIR.split('/'):
			path = os.path.join(path, part)
			cpio.add(path, stat.S_IFDIR | 0o755)
		for m in modules:
			ko = os.path.join(obj, 'lib', f'{m.name}.ko')
			if not os.path.isfile(ko):
				raise FileNotFoundError(f'{ko} missing: is ksuites.config in the config?')
			with open(ko, 'rb') as f:
				cpio.add(f'{GUEST_DIR}/{m.name}.ko', stat.S_IFREG | 0o644, f.read())
		cpio.finish()
	return out_path


# ------------------------------------------------------------- results ---

@dataclass
class SuiteRun:
	"""One suite in one boot."""
	status: str = 'MISSING'		# PASS, FAIL, SKIP, MISSING
	cases: int = 0
	passed: int = 0
	seconds: Optional[float] = None
	detail: str = ''
	reports: List[str] = field(default_factory=list)
	case_status: Dict[str, str] = field(default_factory=dict)

	def cell(self) -> str:
		if self.status in ('PASS', 'FAIL') and self.cases:
			return f'{self.status} {self.passed}/{self.cases}'
		return self.status


def windows(lines: List[str]) -> Dict[str, Tuple[List[str], Optional[float]]]:
	"""Console lines of each module, and its run time (None: did not end)."""
	out: Dict[str, Tuple[List[str], Optional[float]]] = {}
	name, start, t0 = None, 0, 0.0
	for i, line in enumerate(lines):
		m = BEGIN_RE.search(line)
		if m:
			name, start, t0 = m.group(1), i + 1, float(m.group(2))
			continue
		m = END_RE.search(line)
		if m and m.group(1) == name:
			out[name] = (lines[start:i], float(m.group(3)) - t0)
			name = None
	if name:
		out[name] = (lines[start:], None)
	return out


def stamp(line: str) -> Optional[float]:
	m = TIME_RE.match(line)
	return float(m.group(1)) if m else None


def suite_span(lines: List[str], suite: str) -> Optional[Tuple[int, int]]:
	"""Indexes of the suite's "# Subtest:" line and of its result line."""
	start = None
	sub = re.compile(r'# Subtest: ' + re.escape(suite) + r'$')
	res = re.compile(r'\] (?:not )?ok \d+ ' + re.escape(suite) + r'\b')
	for i, line in enumerate(lines):
		if start is None and sub.search(line):
			start = i
		elif start is not None and res.search(line):
			return start, i
	return None


def span_seconds(lines: List[str], span: Optional[Tuple[int, int]]) -> Optional[float]:
	if span is None:
		return None
	t0, t1 = stamp(lines[span[0]]), stamp(lines[span[1]])
	return t1 - t0 if t0 is not None and t1 is not None else None


def reports_in(lines: Sequence[str]) -> List[str]:
	return [f'{k} in {f}' for line in lines for k, f in REPORT_RE.findall(line)]


def first_crash(lines: List[str]) -> str:
	return next((l.strip() for l in lines if CRASH_RE.search(l)), '')


def parse_kunit(kp, m: Module, lines: List[str]) -> Dict[str, SuiteRun]:
	"""One SuiteRun per KUnit suite of @m, from its console window."""
	top = kp.parse_run_tests(lines)
	runs = {}
	for suite in m.suites:
		span = suite_span(lines, suite)
		run = SuiteRun(seconds=span_seconds(lines, span))
		# Reports outside every suite (module init) count for all.
		run.reports = reports_in(lines[span[0]:span[1] + 1] if span else lines)
		found = [t for t in top.subtests if t.name == suite]
		if not found:
			run.detail = 'no KTAP output'
			runs[suite] = run
			continue
		for case in found[0].subtests:
			st = case.status.name
			run.case_status[case.name] = st
			run.cases += 1
			run.passed += st == 'SUCCESS'
		skipped = sum(s == 'SKIPPED' for s in run.case_status.values())
		bad = [n for n, s in run.case_status.items() if s not in ('SUCCESS', 'SKIPPED')]
		suite_ok = found[0].status.name in ('SUCCESS', 'SKIPPED')
		if bad or not suite_ok:
			run.status = 'FAIL'
			run.detail = 'failed: ' + (', '.join(bad) or found[0].status.name)
		elif run.cases and skipped == run.cases:
			run.status = 'SKIP'
		else:
			run.status = 'PASS'
			if skipped:
				run.detail = f'{skipped} skipped'
		runs[suite] = run
	return runs


def parse_kselftest(m: Module, lines: List[str]) -> SuiteRun:
	text = '\n'.join(lines)
	run = SuiteRun()
	ok = re.search(m.passed, text)
	bad = re.search(m.failed, text) if m.failed else None
	if bad:
		run.status = 'FAIL'
		groups = bad.groupdict()
		run.cases = int(groups.get('cases') or 0)
		run.passed = run.cases - int(groups.get('failed') or 0)
		run.detail = bad.group(0)
	elif ok:
		run.status = 'PASS'
		run.cases = run.passed = int(ok.groupdict().get('cases') or 0)
	else:
		run.status = 'FAIL'
		run.detail = 'no summary line'
	run.case_status = {'summary': run.cell()}
	return run


def parse_boot(kp, modules: Sequence[Module], lines: List[str]) -> Dict[str, SuiteRun]:
	"""Every suite of @modules in one boot's console."""
	wins = windows(lines)
	runs: Dict[str, SuiteRun] = {}
	for m in modules:
		if m.name not in wins:
			for s in suite_names(m):
				runs[s] = SuiteRun(detail='module never loaded')
			continue
		win, seconds = wins[m.name]
		if m.suites:
			mine = parse_kunit(kp, m, win)
			spans = [suite_span(win, s) for s in m.suites]
			outside = [l for i, l in enumerate(win)
				   if not any(sp and sp[0] <= i <= sp[1] for sp in spans)]
			for run in mine.values():
				run.reports += reports_in(outside)
		else:
			mine = {m.name: parse_kselftest(m, win)}
			mine[m.name].seconds = seconds
			mine[m.name].reports = reports_in(win)
		crash = first_crash(win)
		for run in mine.values():
			if seconds is None:
				run.status, run.detail = 'FAIL', 'module load did not return'
			elif crash:
				run.status, run.detail = 'FAIL', crash
		runs.update(mine)
	return runs


# ------------------------------------------------------------- verdict ---

@dataclass
class Outcome:
	"""One line for the test reporter."""
	name: str
	ok: Optional[bool]
	detail: str = ''
	seconds: Optional[float] = None
	tail: str = ''


def verdict(suite: str, on: SuiteRun, off: SuiteRun) -> Outcome:
	"""Pass in both, the same results, no kmemcheck report."""
	name = f'ksuites/{suite}'
	why = []
	for mode, run in ((1, on), (0, off)):
		if run.status not in ('PASS', 'SKIP'):
			why.append(f'kmemcheck={mode}: {run.status} {run.detail}'.strip())
	if on.case_status != off.case_status and not why:
		diff = sorted(k for k in set(on.case_status) | set(off.case_status)
			      if on.case_status.get(k) != off.case_status.get(k))
		why.append('results differ: ' + ', '.join(diff[:5]))
	reports = sorted(set(on.reports + off.reports))
	if reports:
		why.append('kmemcheck reports: ' + '; '.join(reports))
	if on.status == 'SKIP' and off.status == 'SKIP' and not why:
		return Outcome(name, None, 'skipped in both boots')
	detail = f'[{on.cases} cases]' if not why else ' | '.join(why)
	return Outcome(name, not why, detail, on.seconds)


def fmt_seconds(s: Optional[float]) -> str:
	return f'{s:.1f} s' if s is not None else '-'


def table(suites: Sequence[str], runs: Dict[int, Dict[str, SuiteRun]]) -> List[str]:
	"""Side by side: suite, cases, result and time in each mode."""
	head = (f'{"suite":<16} {"cases":>6}  {"kmemcheck=1":<19} {"kmemcheck=0":<19}'
		f' {"time=1":>8} {"time=0":>8}  reports')
	out = [head, '-' * len(head)]
	for s in suites:
		on, off = runs[1].get(s, SuiteRun()), runs[0].get(s, SuiteRun())
		out.append(f'{s:<16} {max(on.cases, off.cases):>6}  {on.cell():<19} '
			   f'{off.cell():<19} {fmt_seconds(on.seconds):>8} '
			   f'{fmt_seconds(off.seconds):>8}  {len(on.reports)}')
	return out


# ------------------------------------------------------------- the layer ---

@dataclass
class Env:
	"""What the layer needs from the harness."""
	kernel: str
	obj: str
	logs: str
	build_dir: str
	initramfs: Callable[[str, str], str]	# (name, scenario) -> base archive
	kunit_parser: object
	mach: qemu.Machine = qemu.Machine()	# the machine of the kernel's config


def boot_mode(env: Env, modules: Sequence[Module], mode: int) -> qemu.BootResult:
	name = f'ksuites-kmemcheck-{mode}'
	base = env.initramfs(name, scenario(modules))
	extra = module_archive(env.obj, modules,
			       os.path.join(env.build_dir, 'initramfs', 'ksuites-modules.cpio.gz'))
	both = os.path.join(env.build_dir, 'initramfs', f'{name}-full.cpio.gz')
	with open(both, 'wb') as out:
		for part in (base, extra):
			with open(part, 'rb') as f:
				out.write(f.read())
	return qemu.boot(env.kernel, both, f'{CMDLINE} kmemcheck={mode}', 1, TIMEOUT,
			 os.path.join(env.logs, f'{name}.log'), mach=env.mach)


def run(env: Env, wants: Callable[[str], bool],
	print_line: Callable[[str], None] = print) -> List[Outcome]:
	"""Boot twice, compare, and return one outcome per wanted suite."""
	modules = [m for m in MODULES
		   if any(wants(f'ksuites/{s}') for s in suite_names(m))]
	if not modules:
		return []
	outcomes = []
	runs: Dict[int, Dict[str, SuiteRun]] = {}
	for mode in MODES:
		res = boot_mode(env, modules, mode)
		runs[mode] = parse_boot(env.kunit_parser, modules, res.lines)
		why = res.failure() or qemu.first_splat(res.lines)
		stats = qemu.follow_stats(res.lines)
		outcomes.append(Outcome(f'ksuites/boot-kmemcheck-{mode}', not why,
					f'{why} (log: {res.log_path})' if why else
					f'[{stats}]' if stats else '',
					res.seconds, res.tail() if why else ''))
	suites = [s for m in modules for s in suite_names(m) if wants(f'ksuites/{s}')]
	for line in table(suites, runs):
		print_line(f'ksuites: {line}')
	for mode in MODES:
		for s in suites:
			for title in sorted(set(runs[mode][s].reports)):
				print_line(f'ksuites: kmemcheck={mode} {s}: BUG: KMEMCHECK: {title}')
	outcomes += [verdict(s, runs[1][s], runs[0][s]) for s in suites]
	return outcomes
