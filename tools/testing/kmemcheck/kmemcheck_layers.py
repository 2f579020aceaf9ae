# SPDX-License-Identifier: GPL-2.0
"""The test layers of kmemcheck.py test, and what they report through.

Reporter counts and prints one line per test; each test_*() runs the
tests of one layer (host/, kunit/, kunitpy/, ksuites/, boot/, stress/,
lint/, export/, distro/) that the reporter wants, from the tables of
kmemcheck_tables.py; test_second_config() runs the layers of a second
configuration.  check_boot() judges a boot against its BootTest, the
known findings of the README included.  The devices/ and fuzz/ layers
(kmemcheck_devices.py, kmemcheck_fuzz.py) are given this module, and use
its Result, check_boot() and boot_test_modules().
"""

import contextlib
import dataclasses
import fnmatch
import io
import os
import re
import sys
import time
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple

import kmemcheck_context as context
import kmemcheck_devices as devices
import kmemcheck_export as export
import kmemcheck_ksuites as ksuites
import kmemcheck_ktap as ktap
import kmemcheck_qemu as qemu
import kmemcheck_stress as stress
import kmemcheck_tables as tables
import kmemcheck_tree as tree
from kmemcheck_tree import HarnessError, REPO


def findings_section(path: str) -> str:
	"""The text of the findings section of @path (to the next heading)."""
	with open(path) as f:
		text = f.read()
	start = text.find(tables.FINDINGS_SECTION + '\n')
	if start < 0:
		raise HarnessError(f'{path} has no "{tables.FINDINGS_SECTION}" section')
	section = text[start + len(tables.FINDINGS_SECTION) + 1:]
	end = re.search(r'\n\n[^\n]+\n[-=~]{3,}\n', section)
	return section[:end.start()] if end else section


def known_findings(path: str = '') -> List[str]:
	"""The ``<type> in <function>`` entries of the findings section."""
	return tables.FINDING_RE.findall(findings_section(
		path or os.path.join(REPO, tables.FINDINGS_DOC)))


def unexplained_reports(text: str, expected: Sequence[str],
			known: Optional[Sequence[str]] = None) -> List[str]:
	"""Report titles that are neither known findings nor expected here."""
	known = known_findings() if known is None else known
	found = []
	for kind, func in tables.REPORT_TITLE_RE.findall(text):
		title = f'{kind} in {func}'
		if title in known or any(re.search(rx, title) for rx in expected):
			continue
		if title not in found:
			found.append(title)
	return found


@dataclass
class Result:
	name: str
	ok: Optional[bool]  # None: skipped
	detail: str = ''
	seconds: Optional[float] = 0.0
	where: str = ''  # shown instead of the time when seconds is None
	log: str = ''  # the log of the test, for results.ktap


class Reporter:
	"""Prints one line per test and counts."""

	def __init__(self, pattern: Optional[str]) -> None:
		self.pattern = pattern
		self.passed = 0
		self.failed = 0
		self.results: List[Result] = []

	def wants(self, name: str) -> bool:
		return self.pattern is None or fnmatch.fnmatch(name, self.pattern) or \
			fnmatch.fnmatch(name.split('/', 1)[-1], self.pattern)

	def wants_layer(self, layer: str) -> bool:
		"""Whether the pattern may select tests of a layer ("kunit/...")."""
		if self.pattern is None:
			return True
		return fnmatch.fnmatch(layer, self.pattern.split('/', 1)[0])

	def entries(self) -> List[ktap.Entry]:
		return [ktap.Entry(r.name, r.ok, r.detail, r.seconds, r.log) for r in self.results]

	def report(self, r: Result, tail: str = '') -> None:
		self.results.append(r)
		if r.ok is None:
			print(f'SKIP {r.name}: {r.detail}', flush=True)
			return
		if r.ok:
			self.passed += 1
			extra = f' {r.detail}' if r.detail else ''
			took = f'{r.seconds:.1f} s' if r.seconds is not None else r.where
			print(f'PASS {r.name} ({took}){extra}', flush=True)
		else:
			self.failed += 1
			if tail:
				print(tail, flush=True)
			print(f'FAIL {r.name}: {r.detail}', flush=True)


class PrefixReporter(Reporter):
	"""The tests of a second configuration, named "<prefix>/<name>", for
	the layer functions, which name them without the prefix.  A pattern
	that starts with the prefix selects within it ('pae/kunit/kmemcheck.*'
	boots with that KUnit glob); any other must match the whole name: '*'
	does, 'boot/*' (the default config's boots) does not."""

	def __init__(self, parent: Reporter, prefix: str) -> None:
		pattern = parent.pattern
		self.inside = pattern is None or pattern.startswith(prefix + '/')
		super().__init__(pattern[len(prefix) + 1:] if pattern and self.inside else pattern)
		self.parent = parent
		self.prefix = prefix

	def wants(self, name: str) -> bool:
		if self.inside or self.pattern is None:
			return super().wants(name)
		return fnmatch.fnmatch(f'{self.prefix}/{name}', self.pattern)

	def wants_layer(self, layer: str) -> bool:
		if self.inside or self.pattern is None:
			return super().wants_layer(layer)
		return fnmatch.fnmatch(f'{self.prefix}/{layer}', self.pattern.split('/', 1)[0])

	def report(self, r: Result, tail: str = '') -> None:
		self.parent.report(dataclasses.replace(r, name=f'{self.prefix}/{r.name}'), tail)


def decoder_mode(path: str) -> str:
	"""'-m32' where a -m32 program links and runs, else 'native' (the
	Makefile's probe; M32_RUN in the environment reaches it)."""
	proc = tree.run(['make', '-s', '-C', path, 'mode'], check=False)
	mode = proc.stdout.strip().splitlines()[-1:] if proc.returncode == 0 else []
	if mode and mode[0] in tables.DECODER_M32:
		return mode[0]
	raise HarnessError(f'{tables.DECODER_DIR}: make mode printed {proc.stdout.strip()!r}')


def test_host(ctx: context.Context, rep: Reporter, kernel_ok: bool) -> None:
	path = os.path.join(REPO, tables.DECODER_DIR)
	probed = ''
	for t in tables.HOST_TESTS:
		name = f'host/{t.name}'
		if not rep.wants(name):
			continue
		if not os.path.isfile(os.path.join(path, 'Makefile')):
			rep.report(Result(name, None,
					  f'{tables.DECODER_DIR}/Makefile does not exist yet'))
			continue
		if t.needs_kernel and not kernel_ok:
			rep.report(Result(name, False, 'needs the kernel, which did not build'))
			continue
		try:
			probed = probed or decoder_mode(path)
		except HarnessError as e:
			rep.report(Result(name, False, str(e)))
			continue
		mode = t.mode or probed
		if t.mode and t.mode == probed:
			rep.report(Result(name, None,
					  f'{mode} is the mode the other host tests ran in'))
			continue
		# Each mode builds in a directory of its own.
		out = os.path.join(ctx.build_dir, 'decoder-' + mode.lstrip('-'))
		t0 = time.time()
		proc = tree.run(['make', '-C', path, f'M32={tables.DECODER_M32[mode]}',
				 f'OUT={out}', *t.make_args(ctx)], check=False)
		log_path = os.path.join(ctx.logs, f'{t.name}.log')
		with open(log_path, 'w') as f:
			f.write(proc.stdout)
		lines = [l.strip() for l in proc.stdout.splitlines()
			 if l.strip() and not l.startswith('make')]
		# The summary line of the test program, else its last line.
		summary = [l for l in lines if tables.SUMMARY_RE.search(l)]
		last = (summary or lines or [''])[-1]
		ok = proc.returncode == 0
		rep.report(Result(name, ok, (f'[{mode}: {last}]' if ok else
					     f'exit {proc.returncode} ({mode}): {last} '
					     f'(log: {log_path})'),
				  time.time() - t0, log=log_path),
			   tail='' if ok else '\n'.join(proc.stdout.splitlines()[-20:]))


def check_findings(tmp_dir: str) -> Optional[str]:
	"""Why the findings list would not do its job, or None.

	The list once held only bullets, which the parser skipped: every report
	failed the boots and no entry excused one.  So the real section must
	hold each ``<type> in <function>`` alone on its line, and check_boot()
	must pass a boot whose one report is listed (in a section of the same
	format, parsed by the same code) and fail it when it is not."""
	real = os.path.join(REPO, tables.FINDINGS_DOC)
	try:
		section = findings_section(real)
	except (HarnessError, OSError) as e:
		return str(e)
	for line in section.splitlines():
		if re.search(r'``\S+ in \S+``', line) and not tables.FINDING_RE.match(line):
			return f'{tables.FINDINGS_DOC}: not read as a finding: {line.strip()!r}'
	doc = os.path.join(tmp_dir, 'findings-check.rst')
	with open(doc, 'w') as f:
		f.write(f'{tables.FINDINGS_SECTION}\n{"-" * len(tables.FINDINGS_SECTION)}\n\n'
			'Prose first.\n\n``uninit-value in kmemcheck_listed_read``\n\n'
			'Next section\n------------\n\n``uninit-value in kmemcheck_after_read``\n')
	known = known_findings(doc)
	if known != ['uninit-value in kmemcheck_listed_read']:
		return f'the parser read {known} from a section of one finding'
	t = tables.BootTest('findings-check', '', 1, '')
	for func, want_ok in (('kmemcheck_listed_read', True), ('kmemcheck_after_read', False),
			      ('kmemcheck_other_read', False)):
		res = qemu.BootResult(lines=[f'[    1.000000] BUG: KMEMCHECK: uninit-value in '
					     f'{func}+0x1c/0x2e', f'{qemu.DONE_MARKER} rc=0'],
				      reached_userspace=True, finished_scenario=True)
		why = check_boot(t, res, known)
		if bool(why) == want_ok:
			return (f'a boot reporting uninit-value in {func} '
				f'{"failed" if why else "passed"}: {why or "no reason"}')
	return None


def test_findings(ctx: context.Context, rep: Reporter) -> None:
	"""host/known-findings: the list of findings is read and obeyed."""
	name = 'host/known-findings'
	if not rep.wants(name):
		return
	t0 = time.time()
	os.makedirs(ctx.logs, exist_ok=True)
	why = check_findings(ctx.logs)
	n = len(known_findings()) if not why else 0
	rep.report(Result(name, not why, why or f'[{n} findings listed in {tables.FINDINGS_DOC}]',
			  time.time() - t0))


def write_results(ctx: context.Context, rep: Reporter, title: str) -> str:
	"""build/logs/results.ktap: every test so far, for kunit_parser and CI."""
	path = os.path.join(ctx.logs, 'results.ktap')
	os.makedirs(ctx.logs, exist_ok=True)
	ktap.write(path, rep.entries(), title)
	return path


def test_results(ctx: context.Context, rep: Reporter, title: str) -> None:
	"""host/results-ktap: kunit_parser reads back what the harness counted.

	Runs last, on the file of all the tests before it, which is then
	written again with this one."""
	name = 'host/results-ktap'
	if not rep.wants(name):
		return
	t0 = time.time()
	path = write_results(ctx, rep, title)
	try:
		why = ktap.check(path, rep.entries(), _import_kunit_parser(ctx))
	except ImportError as e:
		why = f'no kunit_parser in {ctx.tree}: {e}'
	n = len(rep.results)
	rep.report(Result(name, not why, why or f'[{n} tests read back by kunit_parser]',
			  time.time() - t0, log=path))


def _import_kunit_parser(ctx: context.Context):
	sys.dont_write_bytecode = True
	sys.path.insert(0, os.path.join(ctx.tree, 'tools', 'testing', 'kunit'))
	import kunit_parser  # type: ignore
	import kunit_printer  # type: ignore
	# Keep kunit_parser's own progress printing out of our one-line output.
	kunit_parser.stdout = kunit_printer.Printer(io.StringIO())
	return kunit_parser


def _walk_cases(test, prefix: str = '') -> Iterator[Tuple[str, object]]:
	"""Leaf test cases as ('suite.case', Test); parameterized cases are leaves."""
	for sub in test.subtests:
		name = f'{prefix}.{sub.name}' if prefix else sub.name
		if sub.subtests and prefix:
			yield name, sub
		elif sub.subtests:
			yield from _walk_cases(sub, name)
		else:
			yield name, sub


def test_kunit(ctx: context.Context, rep: Reporter, layers: Optional[Sequence[str]] = None) -> None:
	"""The KUNIT_RUNS named in @layers (default: all)."""
	for layer, extra in tables.KUNIT_RUNS:
		if (layers is None or layer in layers) and rep.wants_layer(layer):
			kunit_boot(ctx, rep, layer, f'{tables.KUNIT_CMDLINE} {extra}'.strip())


def kunit_boot(ctx: context.Context, rep: Reporter, layer: str, cmdline: str) -> None:
	if rep.pattern and rep.pattern.startswith(f'{layer}/'):
		cmdline += f' kunit.filter_glob={rep.pattern[len(layer) + 1:]}'
	initrd = ctx.initramfs('kunit', 'true\n')
	res = qemu.boot(ctx.kernel, initrd, cmdline, 1, tables.KUNIT_TIMEOUT,
			os.path.join(ctx.logs, f'{layer}.log'), mach=ctx.machine)
	kp = _import_kunit_parser(ctx)
	top = kp.parse_run_tests(res.lines)
	# A splat fails the boot even when every case passed: a test that
	# sleeps in atomic context, say, only taints the kernel.
	why = res.failure() or qemu.first_splat(res.lines, tables.KUNIT_ALLOWED)
	seen = 0
	for name, case in _walk_cases(top):
		full = f'{layer}/{name}'
		if not rep.wants(full):
			continue
		seen += 1
		status = case.status
		if status == kp.TestStatus.SUCCESS:
			rep.report(Result(full, True, '', None, 'in the kunit boot', res.log_path))
		elif status == kp.TestStatus.SKIPPED:
			rep.report(Result(full, None, 'skipped by the test', log=res.log_path))
		else:
			detail = [l.strip() for l in case.log if l.strip()][-3:]
			rep.report(Result(full, False, f'{status.name}: ' + ' | '.join(detail),
					  log=res.log_path))
	if why or not seen:
		reason = why or ('no KUnit results in the console' if top.name == '<missing>'
				 else 'no test case matched')
		rep.report(Result(f'{layer}/boot', False, f'{reason} (log: {res.log_path})',
				  res.seconds, log=res.log_path), tail=res.tail())
	else:
		rep.report(Result(f'{layer}/boot', True, f'[{seen} cases]', res.seconds,
				  log=res.log_path))


def kunitpy_cmd(ctx: context.Context, build_dir: str) -> List[str]:
	"""The command line the documentation gives, run in the prepared tree."""
	return [sys.executable, 'tools/testing/kunit/kunit.py', 'run', '--arch=i386',
		f'--kunitconfig={tables.KUNITPY_KUNITCONFIG}', f'--build_dir={build_dir}',
		f'--jobs={ctx.jobs}', f'--timeout={tables.KUNITPY_TIMEOUT}',
		*[f'--kernel_args={a}' for a in tables.KUNITPY_ARGS]]


def check_kunitpy(rc: int, out: str, console: List[str]) -> Tuple[Optional[str], str]:
	"""(why kunit.py's run failed or None, its summary)."""
	m = tables.KUNITPY_SUMMARY_RE.search(re.sub(r'\x1b\[[0-9;]*m', '', out))
	summary = f'{m.group(1)} tests: {m.group(2)}' if m else ''
	if rc != 0:
		return f'kunit.py exited {rc}' + (f' ({summary})' if summary else ''), summary
	if not m:
		return 'kunit.py printed no "Testing complete" summary', summary
	# Skips are the tests' own (the per-CPU decoder case needs SMP, which
	# kunit.py's i386 kernel has not); anything else but a pass fails.
	counts = dict(re.findall(r'(\w+): (\d+)', m.group(2)))
	if not int(counts.get('passed', 0)) or set(counts) - {'passed', 'skipped'}:
		return f'not every test passed: {summary}', summary
	# kunit.py passes a run whose kernel printed a splat between cases.
	# Its kernel has no PRINTK_TIME and no user space: every line is the
	# kernel's, which first_splat() knows by a timestamp.
	splat = qemu.first_splat([l if qemu.KERNEL_LINE_RE.match(l) else f'[    0.000000] {l}'
				  for l in console], tables.KUNIT_ALLOWED)
	if splat:
		return f'console has {splat}', summary
	return None, summary


def test_kunitpy(ctx: context.Context, rep: Reporter) -> None:
	"""kunitpy/kmemcheck: kunit.py run --arch=i386 --kunitconfig=mm/kmemcheck."""
	name = 'kunitpy/kmemcheck'
	if not rep.wants(name):
		return
	build_dir = os.path.join(ctx.build_dir, 'kunitpy')
	log_path = os.path.join(ctx.logs, 'kunitpy.log')
	t0 = time.time()
	proc = tree.run(kunitpy_cmd(ctx, build_dir), cwd=ctx.tree, check=False)
	with open(log_path, 'w') as f:
		f.write(proc.stdout)
	console: List[str] = []
	with contextlib.suppress(OSError), open(os.path.join(build_dir, 'test.log')) as f:
		console = f.read().splitlines()
	why, summary = check_kunitpy(proc.returncode, proc.stdout, console)
	rep.report(Result(name, not why, why and f'{why} (log: {log_path})' or f'[{summary}]',
			  time.time() - t0, log=log_path),
		   tail='' if not why else '\n'.join(proc.stdout.splitlines()[-20:]))


def test_ksuites(ctx: context.Context, rep: Reporter) -> None:
	"""The kernel's own tests, kmemcheck=1 against 0 (kmemcheck_ksuites.py)."""
	if not rep.wants_layer('ksuites'):
		return
	env = ksuites.Env(ctx.kernel, ctx.obj, ctx.logs, ctx.build_dir,
			  ctx.initramfs, _import_kunit_parser(ctx), ctx.machine)
	for o in ksuites.run(env, rep.wants):
		rep.report(Result(o.name, o.ok, o.detail, o.seconds, 'in the ksuites boots'),
			   tail=o.tail)


def check_boot(t: tables.BootTest, res: qemu.BootResult,
	       known: Optional[Sequence[str]] = None) -> Optional[str]:
	"""Why a boot test failed, or None (@known: the findings, for tests)."""
	why = res.failure()
	if t.panics:
		why = None if res.panicked else f'no kernel panic ({why or "scenario finished"})'
	if why:
		return why
	text = '\n'.join(res.lines)
	# Unwanted messages first: they usually explain a missing one.  The
	# kernel's splats are looked for in its messages only.
	for rx in t.must_not:
		m = re.search(rx, text, re.M)
		if m:
			line = text[text.rfind('\n', 0, m.start()) + 1:].split('\n', 1)[0]
			return f'console has /{rx}/: {line.strip()}'
	splat = qemu.first_splat(res.lines, t.allowed)
	if splat:
		return f'console has {splat}'
	# Every kmemcheck report must be explained: expected, or a finding.
	bad = unexplained_reports(text, t.reports, known)
	if bad:
		return f'unexplained kmemcheck report: {bad[0]} (see {tables.FINDINGS_DOC})'
	user = qemu.userspace_text(res.lines)
	for rx in t.must:
		if not re.search(rx, text, re.M) and not re.search(rx, user, re.M):
			return f'console lacks /{rx}/'
	n = len(tables.REPORT_TITLE_RE.findall(text))
	if t.max_reports is not None and n > t.max_reports:
		return f'{n} kmemcheck reports, expected at most {t.max_reports}'
	if t.panics:
		return None
	if t.max_reports == 1 and n == 0 and not re.search(tables.KSTR_MODE.format(2), text):
		return 'no report, yet one-shot mode was switched off'
	if t.max_reports == 1 and n == 1 and not re.search(tables.KSTR_MODE.format(0), text):
		return 'one-shot mode still on after a report'
	return None


def kexec_initramfs(ctx: context.Context, t: tables.BootTest) -> str:
	"""The initramfs of a kexec boot: busybox, kexec-tools and its C
	library, the kernel itself and the initramfs of the kernel it kexecs
	into.  Not compressed: kmemcheck=1 inflates a byte per page fault."""
	second = ctx.initramfs(f'{t.name}-second', tables.KEXEC_SECOND)
	debs = [d for d in tree.guest_debs(ctx.build_dir).values() if d]
	return qemu.build_initramfs(
		debs + tree.kexec_debs(ctx.build_dir), t.script,
		os.path.join(ctx.build_dir, 'initramfs', f'{t.name}.cpio'), compress=False,
		add=[(ctx.kernel, '/root/bzImage'), (second, '/root/second.cpio.gz')])


def boot_test_modules(ctx: context.Context, t: tables.BootTest) -> List[Tuple[str, str]]:
	"""The module of @t built against the kernel, as initramfs additions:
	each .ko in /root."""
	if not t.module:
		return []
	out = os.path.join(ctx.build_dir, 'modules', f'boot-{t.name}')
	kos = tree.build_module(ctx.tree, ctx.obj, t.module, out, ctx.jobs,
				os.path.join(ctx.logs, f'module-{t.name}.log'), t.module_make)
	return [(ko, f'/root/{os.path.basename(ko)}') for ko in kos]


def test_boots(ctx: context.Context, rep: Reporter, only: Optional[Sequence[str]] = None) -> None:
	"""The BOOT_TESTS and their CONSOLE_TESTS, or those named in @only."""
	for t in tables.BOOT_TESTS:
		name = f'boot/{t.name}'
		derived = [(f'boot/{n}', check) for b, n, check in tables.CONSOLE_TESTS
			   if b == t.name and rep.wants(f'boot/{n}') and
			   (only is None or n in only)]
		if (only is not None and t.name not in only) or \
		   (not rep.wants(name) and not derived):
			continue
		if t.needs_nx and not ctx.nx:
			rep.report(Result(name, None, f'needs NX, which the {ctx.config} config '
					  f'does not run with (PAE and a CPU with NX: see pae/)'))
			continue
		if t.needs and not ctx.has(t.needs):
			rep.report(Result(name, None, f'needs {t.needs}, which the {ctx.config} '
					  f'config does not have (see pae/)'))
			continue
		if t.kexec:
			initrd = kexec_initramfs(ctx, t)
		else:
			initrd = ctx.initramfs(t.name, t.script, boot_test_modules(ctx, t))
		res = qemu.boot(ctx.kernel, initrd, f'kunit.enable=0 {t.cmdline}', t.smp,
				t.timeout, os.path.join(ctx.logs, f'{t.name}.log'),
				mach=ctx.machine)
		why = check_boot(t, res)
		if not rep.wants(name):
			pass
		elif why:
			rep.report(Result(name, False, f'{why} (log: {res.log_path})', res.seconds,
					  log=res.log_path), tail=res.tail())
		else:
			rep.report(Result(name, True, '', res.seconds, log=res.log_path))
		for dname, check in derived:
			t0 = time.time()
			why = check(ctx, res)
			rep.report(Result(dname, not why, why or f'[{t.name} console]',
					  time.time() - t0, log=res.log_path))


def stress_boot(ctx: context.Context, name: str, duration: int, mode: int,
		extra: str = '') -> Tuple[qemu.BootResult, Optional[str]]:
	"""One boot of the stress scenario; (result, why it failed or None)."""
	script = stress.scenario(duration, stress.shadow_alloc_range(
		os.path.join(ctx.obj, 'System.map')))
	t = tables.BootTest(name, f'kmemcheck={mode} {extra}'.strip(), 1, script, must=stress.MUST,
			    must_not=stress.MUST_NOT, timeout=stress.boot_timeout(duration))
	initrd = qemu.build_initramfs(
		tree.stress_debs(ctx.build_dir), script,
		os.path.join(ctx.build_dir, 'initramfs', f'{name}.cpio'), compress=False)
	res, nmis = stress.boot(ctx.kernel, initrd, f'kunit.enable=0 {t.cmdline}',
				t.timeout, os.path.join(ctx.logs, f'{name}.log'), mach=ctx.machine)
	for line in stress.summary(res, nmis):
		print(f'{name}: {line}', flush=True)
	return res, check_boot(t, res) or stress.check(res, mode)


def test_stress(ctx: context.Context, rep: Reporter,
		duration: int = stress.DEFAULT_DURATION) -> None:
	for mode in tables.STRESS_TEST_MODES:
		name = f'stress/kmemcheck-{mode}'
		if not rep.wants(name):
			continue
		res, why = stress_boot(ctx, f'stress-{mode}', duration, mode)
		context.print_report_summary(res.lines)
		rep.report(Result(name, not why, f'{why} (log: {res.log_path})' if why else '',
				  res.seconds, log=res.log_path), tail=res.tail() if why else '')


def test_second_config(ctx: context.Context, rep: Reporter, second: tables.SecondConfig) -> None:
	"""The layers of @second on its own build (build/obj-<name>) of the
	prepared tree, with the same initramfs; logs in build/logs/<name>/."""
	sub = PrefixReporter(rep, second.name)
	layers = (*second.kunit, 'boot', 'stress', *(('devices',) if second.devices else ()))
	if not any(sub.wants_layer(layer) for layer in layers):
		return
	c = dataclasses.replace(ctx, config=second.name, log_dir=second.name,
				obj=tree.obj_dir(ctx.build_dir, second.name))
	t0 = time.time()
	name = f'build/{second.name}'
	try:
		c.kernel = tree.build(c.build_dir, c.tree, c.config, c.jobs, c.obj)
	except HarnessError as e:
		rep.report(Result(name, False, str(e).splitlines()[0]))
		return
	rep.report(Result(name, True, '', time.time() - t0,
			  log=os.path.join(ctx.logs, f'build-{second.name}.log')))
	test_kunit(c, sub, second.kunit)
	test_boots(c, sub, second.boots)
	if second.devices:
		devices.test_devices(c, sub, sys.modules[__name__])
	test_stress(c, sub, second.stress_duration)


def test_lint(ctx: context.Context, rep: Reporter) -> None:
	"""checkpatch --strict, kernel-doc, W=1 and sparse: no finding passes."""
	for name, check in tables.LINT_CHECKS:
		if not rep.wants(name):
			continue
		t0 = time.time()
		problems = check(ctx)
		if problems:
			rep.report(Result(name, False, f'{len(problems)} problems'),
				   tail='\n'.join(problems[:40]))
		else:
			rep.report(Result(name, True, '', time.time() - t0))


def export_checkpatch(ctx: context.Context,
		      patches: List[str]) -> Tuple[export.CheckpatchResult, List[str]]:
	res = export.check_patches(ctx.tree, patches, os.path.join(ctx.build_dir, 'checkpatch'))
	return res, export.unexplained(res)


def test_export(ctx: context.Context, rep: Reporter) -> None:
	"""The series checkpatch-clean, and git am of it gives the prepared tree."""
	if not (rep.wants('export/checkpatch') or rep.wants('export/git-am')):
		return
	t0 = time.time()
	patches = export.export(ctx.build_dir, os.path.join(ctx.build_dir, 'export'))
	n = len(patches) - 1
	if rep.wants('export/checkpatch'):
		res, bad = export_checkpatch(ctx, patches)
		totals = f'[{n} patches: {res.errors} errors, {res.warnings} warnings, {res.checks} checks]'
		rep.report(Result('export/checkpatch', not bad,
				  totals if not bad else f'{totals} {len(bad)} not allowed',
				  time.time() - t0), tail='\n'.join(bad[:40]))
	if rep.wants('export/git-am'):
		t0 = time.time()
		why = export.apply_check(ctx.build_dir, patches)
		rep.report(Result('export/git-am', not why,
				  why or f'[{n} patches applied, tree identical to build/linux]',
				  time.time() - t0))


def test_distro(ctx: context.Context, rep: Reporter) -> None:
	"""distro/debian-config: Debian's config fetched, through olddefconfig,
	kmemcheck's fragment sticking.  distro/debian-demo builds that kernel
	and runs the demo on it: only when asked for by name (`test --filter
	'distro/*'`), the build takes longer than CI has (the harness manual)."""
	if ctx.user_tree:
		return
	name = 'distro/debian-config'
	if rep.wants(name):
		t0 = time.time()
		try:
			path = tree.build(ctx.build_dir, ctx.tree, 'debian', ctx.jobs,
					  config_only=True)
			got = tree._parse_fragment(path)
			bad = [f'{sym}={got.get(sym, "n")}, not {val}'
			       for sym, val in tables.DISTRO_CONFIG_MUST.items()
			       if got.get(sym, 'n') != val]
			rep.report(Result(name, not bad, bad[0] if bad else f'[{path}]',
					  time.time() - t0, log=path))
		except HarnessError as e:
			rep.report(Result(name, False, str(e).splitlines()[0]))
	name = 'distro/' + tables.DISTRO_DEMO.name
	if not (rep.pattern or '').startswith('distro/') or not rep.wants(name):
		return
	c = dataclasses.replace(ctx, config='debian', log_dir='debian',
				obj=tree.obj_dir(ctx.build_dir, 'debian'))
	t0 = time.time()
	try:
		c.kernel = tree.build(c.build_dir, c.tree, c.config, c.jobs, c.obj)
	except HarnessError as e:
		rep.report(Result('build/debian', False, str(e).splitlines()[0]))
		return
	rep.report(Result('build/debian', True, '', time.time() - t0))
	t = tables.DISTRO_DEMO
	res = qemu.boot(c.kernel, c.initramfs(t.name, t.script), f'kunit.enable=0 {t.cmdline}',
			t.smp, t.timeout, os.path.join(c.logs, f'{t.name}.log'), mach=c.machine)
	why = check_boot(t, res)
	rep.report(Result(name, not why, f'{why} (log: {res.log_path})' if why else '',
			  res.seconds, log=res.log_path), tail=res.tail() if why else '')
