#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Builds, boots and tests kmemcheck for Linux 6.12 on i386 under QEMU.

  kmemcheck.py deps      check (as root: install) what the harness needs
  kmemcheck.py prepare   pristine 6.12 tree + our overlay and patches
  kmemcheck.py refresh   copy changes made in the prepared tree back
  kmemcheck.py build     configure from fragments and build out of tree
  kmemcheck.py run       boot the demo (or --shell) and summarize reports
  kmemcheck.py test      host tests, KUnit and boot scenarios
  kmemcheck.py export    the subsystem as a git format-patch series
  kmemcheck.py bench     cost of kmemcheck off and on (many boots)
  kmemcheck.py profile   instructions of a kmemcheck fault, by function (gdb)
  kmemcheck.py stress    stress-ng under kmemcheck, machinery stressed

Everything lives under --build-dir (default <repo>/build).
"""

import argparse
import contextlib
import dataclasses
import fnmatch
import hashlib
import io
import os
import re
import shutil
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional, Sequence, Tuple, Union

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kmemcheck_decode as decode  # noqa: E402
import kmemcheck_devices as devices  # noqa: E402
import kmemcheck_export as export  # noqa: E402
import kmemcheck_fuzz as fuzz  # noqa: E402
import kmemcheck_ktap as ktap  # noqa: E402
import kmemcheck_bench as bench  # noqa: E402
import kmemcheck_qemu as qemu  # noqa: E402
import kmemcheck_ksuites as ksuites  # noqa: E402
import kmemcheck_profile as profile  # noqa: E402
import kmemcheck_lint as lint  # noqa: E402
import kmemcheck_stress as stress  # noqa: E402
import kmemcheck_titles as titles  # noqa: E402
import kmemcheck_tree as tree  # noqa: E402
from kmemcheck_tree import HarnessError, REPO  # noqa: E402

# ------------------------------------------------------------------------
# Kernel strings the tests expect.  Adjust here when the kernel side changes.
# ------------------------------------------------------------------------
KSTR_MODE = r'kmemcheck-harness: kernel\.kmemcheck={}\b'
KSTR_BAD_PARAM = r"kmemcheck: unknown boot value 'kmemcheck=banana'"
KSTR_BAD_FASTPATH = r"kmemcheck: unknown boot value 'kmemcheck.fastpath=7'"
KSTR_BAD_TRACK = r"kmemcheck: kmemcheck.track: unknown term 'bogus:y'"
KSTR_TRACK_IGNORED = r'kmemcheck: kmemcheck.track: ignored, tracking everything'
KSTR_FASTPATH = r'kmemcheck-harness: fastpath={}$'
# debugfs hot: a cache and an instruction that took faults.
KSTR_HOT_CACHE = r'^ +[1-9][0-9]*  kmalloc-[0-9]+$'
KSTR_HOT_INSN = r'^ +[1-9][0-9]*  \S+\+0x[0-9a-f]+/0x[0-9a-f]+$'
# kmemcheck's own fault path must not fault (it once copied a cache's name,
# kmalloc'ed on a hidden page, at every fault); the demo's bugs may.
KSTR_HOT_SELF = r'^ +[1-9][0-9]*  (sized_strscpy|kmemcheck_(?!demo_)\w+)\S*\+0x'
KSTR_BAD_QUARANTINE = (r"kmemcheck: unknown boot value 'kmemcheck.quarantine=99999' "
		       r"\(0 to 4096\), keeping 1024")
KSTR_QUARANTINE = r'kmemcheck-harness: quarantine={}$'
KSTR_ONE_CPU = r'kmemcheck: limiting the machine to one CPU'
KSTR_BOOT_MODE = {0: r'kmemcheck: disabled$', 1: r'kmemcheck: enabled in report-all mode',
		  2: r'kmemcheck: enabled in one-shot mode'}
KSTR_UNINIT = r'BUG: KMEMCHECK: uninit-value in '
KSTR_INFOLEAK = r'BUG: KMEMCHECK: kernel-infoleak in '
KSTR_ANY_REPORT = r'BUG: KMEMCHECK: '
# The demo's call into the heap: the kernel uses NX, and refuses the fetch
# at the first instruction, the store kmemcheck would emulate on a data
# access ("EIP: 0x<address>", the address with no_hash_pointers).
KSTR_NX_ACTIVE = r'NX \(Execute Disable\) protection: active'
KSTR_NX = r'kernel tried to execute NX-protected page - exploit attempt\?'
KSTR_NX_AT_CODE = r'demo: calling code at (\w+), its page {}$[\s\S]*^.*EIP: 0x\1$'
KSTR_NX_RAN = r'demo: the code at \w+ ran'
# Memory auto-initialization (a distribution's INIT_ON_ALLOC_DEFAULT_ON, or
# init_on_alloc=1) would hide every uninitialized read: kmemcheck=1 turns
# it off (mm/mm_init.c), and report_meminit() says what stayed on.
KSTR_AUTOINIT_OFF = (r'mem auto-init: kmemcheck is on, disabling init_on_alloc and '
		     r'init_on_free: they would hide uninitialized memory')
KSTR_MEMINIT = r'mem auto-init: stack:\S+, heap alloc:{0}, heap free:{0}$'
# Must not appear in any boot (unless a scenario expects it): the kernel
# splats of kmemcheck_qemu.SPLATS, in the kernel's messages only.
KSTR_NEVER = qemu.SPLATS

REPORT_TITLE_RE = re.compile(r'BUG: KMEMCHECK: (\S+) in ([\w.]+)')
# Reports on 6.12 that are understood and may show in any boot: the lines of
# this section that are exactly ``<type> in <function>``.
FINDINGS_DOC = 'tools/testing/kmemcheck/README'
FINDINGS_SECTION = 'Findings on 6.12'
FINDING_RE = re.compile(r'^``(\S+ in \S+)``$', re.M)


def findings_section(path: str) -> str:
	"""The text of the findings section of @path (to the next heading)."""
	with open(path) as f:
		text = f.read()
	start = text.find(FINDINGS_SECTION + '\n')
	if start < 0:
		raise HarnessError(f'{path} has no "{FINDINGS_SECTION}" section')
	section = text[start + len(FINDINGS_SECTION) + 1:]
	end = re.search(r'\n\n[^\n]+\n[-=~]{3,}\n', section)
	return section[:end.start()] if end else section


def known_findings(path: str = '') -> List[str]:
	"""The ``<type> in <function>`` entries of the findings section."""
	return FINDING_RE.findall(findings_section(path or os.path.join(REPO, FINDINGS_DOC)))


def unexplained_reports(text: str, expected: Sequence[str],
			known: Optional[Sequence[str]] = None) -> List[str]:
	"""Report titles that are neither known findings nor expected here."""
	known = known_findings() if known is None else known
	found = []
	for kind, func in REPORT_TITLE_RE.findall(text):
		title = f'{kind} in {func}'
		if title in known or any(re.search(rx, title) for rx in expected):
			continue
		if title not in found:
			found.append(title)
	return found


DECODER_DIR = 'tools/testing/kmemcheck/decoder'
SUMMARY_RE = re.compile(r'\b(passed|failed|disagree|checked)\b')


# ------------------------------------------------------------------------
# Test tables: add a row to add a test.
# ------------------------------------------------------------------------

@dataclass
class HostTest:
	"""A make target of the decoder's host test directory."""
	name: str
	make_args: Callable[['Context'], List[str]]
	needs_kernel: bool = False
	mode: str = ''  # '-m32' or 'native'; '' for the one the Makefile probes


HOST_TESTS = (
	HostTest('decoder-check', lambda c: [f'KDIR={c.tree}', 'check']),
	HostTest('decoder-crosscheck',
		 lambda c: [f'KDIR={c.tree}', f'VMLINUX={os.path.join(c.obj, "vmlinux")}',
			    'crosscheck'],
		 needs_kernel=True),
	# Where -m32 runs, the native build too, so that it cannot rot.
	HostTest('decoder-check-native', lambda c: [f'KDIR={c.tree}', 'check'], mode='native'),
)
# The Makefile's variable for each mode.
DECODER_M32 = {'-m32': '-m32', 'native': ''}


@dataclass
class BootTest:
	"""One boot: extra command line, CPUs, scenario, regexes to (not) see."""
	name: str
	cmdline: str
	smp: Union[int, str]  # CPUs, or QEMU's -smp topology
	script: str
	must: Sequence[str] = ()
	must_not: Sequence[str] = ()
	allowed: Sequence[str] = ()  # splats exempt from KSTR_NEVER
	reports: Sequence[str] = ()  # expected '<type> in <function>' regexes
	max_reports: Optional[int] = None
	timeout: int = qemu.DEFAULT_TIMEOUT
	panics: bool = False  # the scenario must end in a kernel panic
	needs_nx: bool = False  # skipped where the kernel runs without NX
	needs: str = ''  # a CONFIG_ symbol; skipped on kernels without it
	kexec: bool = False  # the initramfs of kexec_initramfs()
	module: str = ''  # a module source directory, built and put in /root
	module_make: Sequence[str] = ()  # make variables of the module's build


SHOW_MODE = 'echo "kmemcheck-harness: kernel.kmemcheck=$(cat /proc/sys/kernel/kmemcheck 2>&1)"\n'
SHOW_CPUS = 'echo "kmemcheck-harness: cpus online=$(cat /sys/devices/system/cpu/online)"\n'
# QEMU's -smp for a machine with SMT siblings: 2 cores of 2 threads.
SMT_2X2 = '4,cores=2,threads=2'
SMT_TOGGLE = (SHOW_MODE + SHOW_CPUS +
	      'echo off > /sys/devices/system/cpu/smt/control\n'
	      'echo "kmemcheck-harness: after smt off: cpus online='
	      '$(cat /sys/devices/system/cpu/online)"\n'
	      'echo on > /sys/devices/system/cpu/smt/control\n'
	      'echo "kmemcheck-harness: after smt on: cpus online='
	      '$(cat /sys/devices/system/cpu/online)"\n'
	      'sleep 1\n')
KSTR_SMT_REFUSED = r'kmemcheck: refusing to bring up CPU \d+: kmemcheck is on'
SHOW_FASTPATH = ('echo "kmemcheck-harness: fastpath='
		 '$(cat /sys/module/kmemcheck/parameters/fastpath)"\n')
SHOW_QUARANTINE = ('echo "kmemcheck-harness: quarantine='
		   '$(cat /sys/module/kmemcheck/parameters/quarantine)"\n')


def try_sysctl(value: str) -> str:
	"""Shell lines writing @value to the sysctl and saying what happened."""
	return (f'if echo {value} > /proc/sys/kernel/kmemcheck 2>/dev/null; '
		f'then echo "kmemcheck-harness: sysctl took {value}"; '
		f'else echo "kmemcheck-harness: sysctl refused {value}"; fi\n')


# Out of range is refused; so is turning checks on without tracking.
SYSCTL_ON = try_sysctl('3') + try_sysctl('0') + try_sysctl('1') + SHOW_MODE
SYSCTL_OFF = try_sysctl('1') + SHOW_MODE


def try_param(name: str, value: str) -> str:
	"""Shell lines writing @value to /sys/module/kmemcheck/parameters/@name."""
	path = f'/sys/module/kmemcheck/parameters/{name}'
	return (f'if echo {value} > {path} 2>/dev/null; then r=took; else r=refused; fi; '
		f'echo "kmemcheck-harness: {name} $r {value}, reads $(cat {path})"\n')


TRACK_FILE = '/sys/kernel/debug/kmemcheck/track'
SHOW_TRACK = f'echo "kmemcheck-harness: track=$(cat {TRACK_FILE})"\n'
SHOW_TRACKING = ('grep -E "^(tracked pages|allocations not selected):" '
		 '/sys/kernel/debug/kmemcheck/stats\n')


def try_track(value: str) -> str:
	"""Shell lines writing the selection @value to debugfs track."""
	return (f'if echo "{value}" > {TRACK_FILE} 2>/dev/null; then r=took; else r=refused; fi; '
		f'echo "kmemcheck-harness: track $r {value}, reads $(cat {TRACK_FILE})"\n')


# kmemcheck.fault at run time: both values, then garbage is refused.
FAULT_PARAM = try_param('fault', 'panic') + try_param('fault', 'banana') + \
	try_param('fault', 'report')

# debugfs hot counts nothing until written (or kmemcheck.hot=1): then it
# does.  The file is read back after a few file system calls.
HOT_FILE = '/sys/kernel/debug/kmemcheck/hot'
HOT_ON_WRITE = (f'cat {HOT_FILE}; echo > {HOT_FILE}; ls -lR /sys/kernel/debug > /dev/null; '
		f'cat {HOT_FILE}\n')
KSTR_HOT_OFF = r'^faults are not counted: write to this file to start$'
DEBUGFS = ('for f in stats reports hot; do echo "kmemcheck-harness: $f:"; '
	   'cat /sys/kernel/debug/kmemcheck/$f; done\n')
# The demo's infoleak twin: a read of only the initialized first byte of the
# reply copies nothing uninitialized.  Before the leaking read, whose
# repeats the per-site deduplication would hide.
LEAK_TWIN = ('echo "kmemcheck-harness: reading 1 byte"; '
	     'dd if=/sys/kernel/debug/kmemcheck/demo of=/dev/null bs=1 count=1 2>/dev/null; '
	     'echo "kmemcheck-harness: read 1 byte"\n')


def quiet_between(start: str, end: str) -> str:
	"""Regex: the harness says @start then @end, no report in between."""
	return (rf'^kmemcheck-harness: {start}$\n(?:(?!.*{KSTR_ANY_REPORT}).*\n)*?'
		rf'kmemcheck-harness: {end}$')


def debugfs_line(*fields: str) -> str:
	"""Regex: a line of debugfs kmemcheck/reports, count > 0, with @fields."""
	return r'^\s*[1-9]\d*\s.*' + r'.*'.join(rf'(?<!\S){f}' for f in fields)


DEMO_UNINIT = r'^uninit-value in kmemcheck_demo_uninit_read\b'

# The demo's call into the heap, from a child: the oops kills the writer.
DEMO_EXEC = ('echo "kmemcheck-harness: exec"\n'
	     'sh -c "echo exec > /sys/kernel/debug/kmemcheck/demo"\n'
	     'echo "kmemcheck-harness: exec rc=$?"\n')


def nx_fetch(mode: int, page: str) -> BootTest:
	"""The demo's call into the heap with kmemcheck=@mode: the NX oops at
	the first instruction, whose page is @page, as without kmemcheck.  The
	oops is the only splat allowed: a permission fault (0x0011, not a
	not-present one) on an instruction fetch."""
	return BootTest(f'nx-fetch-{mode}', f'kmemcheck={mode} no_hash_pointers', 1, DEMO_EXEC,
			must=[KSTR_NX_ACTIVE, KSTR_NX, KSTR_NX_AT_CODE.format(page),
			      r'#PF: supervisor instruction fetch in kernel mode',
			      r'^kmemcheck-harness: exec rc=[1-9]\d*$'],
			must_not=[KSTR_ANY_REPORT, KSTR_NX_RAN],
			allowed=[r'BUG: unable to handle page fault for address',
				 r'Oops: 0011 '],
			needs_nx=True)


# A divide error in the middle of a step: the demo's DIV reads its divisor,
# a zero, from a tracked object, so it faults and kmemcheck steps it.  The
# oops kills the writer, and must leave no step pending on the CPU: with
# one left, no later fault would be replayed (kmemcheck_early_fault() waits
# for none to be pending) nor any value followed.
REPLAYED = ("$(grep '^replayed instructions:' /sys/kernel/debug/kmemcheck/stats"
	    " | cut -d' ' -f3)")
DEMO_DIVIDE = ('echo "kmemcheck-harness: divide"\n'
	       'sh -c "echo divide > /sys/kernel/debug/kmemcheck/demo"\n'
	       'echo "kmemcheck-harness: divide rc=$?"\n'
	       f'a={REPLAYED}; ls -lR /sys > /dev/null 2>&1; b={REPLAYED}\n'
	       'echo "kmemcheck-harness: replayed $a, then $b"\n'
	       'if [ "$b" -gt "$a" ]; then echo "kmemcheck-harness: replaying goes on"; fi\n')
STEP_OOPS = BootTest('step-oops', 'kmemcheck=1', 1, DEMO_DIVIDE + qemu.DEMO_SCENARIO,
		     must=[r'Oops: divide error: 0000', r'demo: dividing by the zero at',
			   r'^kmemcheck-harness: divide rc=[1-9]\d*$',
			   r'^kmemcheck-harness: replaying goes on$', KSTR_UNINIT],
		     must_not=[r'demo: the division by zero gave'],
		     allowed=[r'Oops: divide error', r'Tainted: .*\[D\]=DIE'],
		     reports=[DEMO_UNINIT, r'^kernel-infoleak in \S+$'])


# Hibernation without a swap device: the whole snapshot is taken (every
# page copied, hidden ones through safe_copy_page(), which maps a page it
# finds not present around the copy with set_direct_map_*()), then writing
# the image fails and the kernel thaws and goes on.  The demo after it
# writes and reads tracked memory: pages the snapshot copied must still be
# hidden, writable and checked.
HIBERNATE = (
	'echo "kmemcheck-harness: hibernating"\n'
	'echo disk > /sys/power/state\n'
	'echo "kmemcheck-harness: hibernate rc=$?"\n'
	'echo "kmemcheck-harness: $(grep -c . /proc/meminfo) meminfo lines"\n')
KSTR_SNAPSHOT = r'PM: hibernation: Image created \([1-9]\d* pages copied'

# kexec -e into the same kernel, with the same command line, from a kernel
# running kmemcheck=1: kimage pages, the control page machine_kexec()
# jumps into among them, must not be hidden.  The second kernel runs the
# demo: both must be reported there.
KEXEC = (
	'kexec -l /root/bzImage --initrd=/root/second.cpio.gz '
	'--append="$(cat /proc/cmdline)"\n'
	'echo "kmemcheck-harness: kexec load rc=$?"\n'
	'kexec -e\n'
	'echo "kmemcheck-harness: kexec -e rc=$?"\n')
KEXEC_SECOND = 'echo "kmemcheck-harness: kexec: second kernel up"\n' + qemu.DEMO_SCENARIO


BOOT_TESTS = (
	BootTest('boot-kmemcheck-0', 'kmemcheck=0', 1, SHOW_MODE + SYSCTL_OFF + DEBUGFS,
		 must=[KSTR_BOOT_MODE[0], KSTR_MODE.format(0),
		       r'kmemcheck-harness: sysctl refused 1$',
		       r'^tracked pages: 0$', r'^page faults: 0$', r'^reports: 0$',
		       r'^reports uninit-value: 0$', r'^faults by cache:$',
		       r'^faults by instruction:$'],
		 must_not=[KSTR_ANY_REPORT, KSTR_HOT_CACHE, KSTR_HOT_INSN]),
	BootTest('boot-kmemcheck-1', 'kmemcheck=1', 1,
		 SHOW_MODE + SYSCTL_ON + FAULT_PARAM + HOT_ON_WRITE,
		 must=[KSTR_BOOT_MODE[1], KSTR_MODE.format(1), KSTR_HOT_OFF, KSTR_HOT_INSN,
		       r'kmemcheck-harness: fault took panic, reads panic$',
		       r'kmemcheck-harness: fault refused banana, reads panic$',
		       r'kmemcheck-harness: fault took report, reads report$',
		       r'kmemcheck-harness: sysctl refused 3$',
		       r'kmemcheck-harness: sysctl took 0$',
		       r'kmemcheck-harness: sysctl took 1$']),
	# One-shot: the first report (a known finding at boot, say) turns
	# checking off, so the sysctl reads 2 before any report and 0 after.
	# One-shot mode, and the page-by-page fast path, not the default.
	BootTest('boot-kmemcheck-2', 'kmemcheck=2 kmemcheck.fastpath=1', 1,
		 SHOW_MODE + SHOW_FASTPATH,
		 must=[KSTR_BOOT_MODE[2], KSTR_MODE.format('[02]'),
		       KSTR_FASTPATH.format(1)], max_reports=1),
	# Bad values are refused with a message; the defaults stay.
	BootTest('boot-kmemcheck-garbage',
		 'kmemcheck=banana kmemcheck.fastpath=7 kmemcheck.quarantine=99999 '
		 'kmemcheck.track=cache:x,bogus:y', 1,
		 SHOW_MODE + SHOW_FASTPATH + SHOW_QUARANTINE + SHOW_TRACK,
		 must=[KSTR_BAD_PARAM, KSTR_MODE.format(r'\d'), KSTR_BAD_FASTPATH,
		       KSTR_FASTPATH.format(2), KSTR_BAD_QUARANTINE,
		       KSTR_QUARANTINE.format(1024), KSTR_BAD_TRACK, KSTR_TRACK_IGNORED,
		       r'^kmemcheck-harness: track=all$']),
	BootTest('boot-smp2', 'kmemcheck=1', 2, SHOW_MODE + SHOW_CPUS,
		 must=[KSTR_ONE_CPU, KSTR_MODE.format(1),
		       r'kmemcheck-harness: cpus online=0$']),
	BootTest('boot-smp2-off', 'kmemcheck=0', 2, SHOW_MODE + SHOW_CPUS,
		 must=[KSTR_MODE.format(0), r'kmemcheck-harness: cpus online=0-1$'],
		 must_not=[KSTR_ONE_CPU]),
	# Two cores of two threads each; SMT turned off and on again as root.
	# cpuhp_smt_enable() ignores cpu_hotplug_disable(): kmemcheck must
	# refuse the siblings itself, and stay up on one CPU (it crashed).
	BootTest('boot-smt-toggle', 'kmemcheck=1', SMT_2X2, SMT_TOGGLE,
		 must=[KSTR_ONE_CPU, KSTR_MODE.format(1), KSTR_SMT_REFUSED,
		       r'kmemcheck-harness: cpus online=0$',
		       r'kmemcheck-harness: after smt on: cpus online=0$']),
	BootTest('boot-smt-toggle-off', 'kmemcheck=0', SMT_2X2, SMT_TOGGLE,
		 must=[KSTR_MODE.format(0), r'kmemcheck-harness: cpus online=0-3$',
		       r'kmemcheck-harness: after smt off: cpus online=0,2$',
		       r'kmemcheck-harness: after smt on: cpus online=0-3$'],
		 must_not=[KSTR_ONE_CPU, KSTR_SMT_REFUSED]),
	# The demo's bugs, then what debugfs says about them.  The infoleak
	# comes from user space (cat); the function in its title depends on
	# where the copy is checked, so any function will do.
	BootTest('demo', 'kmemcheck=1 kmemcheck.hot=1', 1,
		 LEAK_TWIN + qemu.DEMO_SCENARIO + DEBUGFS,
		 must=[KSTR_UNINIT, KSTR_INFOLEAK,
		       quiet_between('reading 1 byte', 'read 1 byte'),
		       r'^tracked pages: [1-9]', r'^page faults: [1-9]',
		       r'^single-steps: [1-9]', r'^emulated instructions: [1-9]',
		       r'^reports: [1-9]',
		       r'^reports uninit-value: [1-9]', r'^reports kernel-infoleak: [1-9]',
		       debugfs_line('uninit-value', r'kmemcheck_demo_uninit_read\S*', r'init/1\b'),
		       debugfs_line('kernel-infoleak', r'\S+', r'cat/\d+\b'),
		       KSTR_HOT_CACHE, KSTR_HOT_INSN],
		 must_not=[KSTR_HOT_SELF],
		 reports=[DEMO_UNINIT, r'^kernel-infoleak in \S+$']),
	# A distribution config zeroes every allocation (Debian's
	# INIT_ON_ALLOC_DEFAULT_ON=y, the same switch as init_on_alloc=1):
	# kmemcheck=1 turns auto-init off, saying so, and still sees the demo's
	# bug; with kmemcheck=0 auto-init stays on and nothing is said.
	BootTest('init-on-alloc', 'kmemcheck=1 init_on_alloc=1 init_on_free=1', 1,
		 qemu.DEMO_SCENARIO,
		 must=[KSTR_AUTOINIT_OFF, KSTR_MEMINIT.format('off'), KSTR_UNINIT],
		 reports=[DEMO_UNINIT, r'^kernel-infoleak in \S+$']),
	BootTest('init-on-alloc-off', 'kmemcheck=0 init_on_alloc=1 init_on_free=1', 1,
		 qemu.DEMO_SCENARIO, must=[KSTR_MEMINIT.format('on'), KSTR_MODE.format(0)],
		 must_not=[KSTR_AUTOINIT_OFF, KSTR_ANY_REPORT]),
	# kmemcheck.fault=panic: the first report panics, whichever it is (a
	# known finding at boot, of any type, may come before the demo's).
	BootTest('fault-panic', 'kmemcheck=1 kmemcheck.fault=panic', 1, qemu.DEMO_SCENARIO,
		 must=[KSTR_ANY_REPORT + r'\S+ in \S+[\s\S]*^.*Kernel panic - not syncing: .*kmemcheck'],
		 allowed=[r'Kernel panic'], reports=[DEMO_UNINIT], max_reports=1, panics=True),
	# An instruction fetch from a hidden page is never emulated nor
	# stepped: kmemcheck shows the page, and NX refuses the fetch.
	nx_fetch(1, 'hidden'),
	nx_fetch(0, 'mapped'),
	STEP_OOPS,
	BootTest('hibernate', 'kmemcheck=1 no_console_suspend', 1, HIBERNATE + qemu.DEMO_SCENARIO,
		 must=[KSTR_SNAPSHOT, r'PM: Cannot find swap device',
		       r'^kmemcheck-harness: hibernate rc=[1-9]\d*$',
		       r'^kmemcheck-harness: [1-9]\d* meminfo lines$', KSTR_UNINIT, KSTR_INFOLEAK],
		 reports=[DEMO_UNINIT, r'^kernel-infoleak in \S+$'], needs='CONFIG_HIBERNATION'),
	# kmemcheck.track=: a cache no allocation comes from tracks nothing at
	# all, and the demo's bugs go unseen.
	BootTest('track-cache', 'kmemcheck=1 kmemcheck.track=cache:kmemcheck_none', 1,
		 SHOW_TRACK + qemu.DEMO_SCENARIO + SHOW_TRACKING,
		 must=[r'^kmemcheck-harness: track=cache:kmemcheck_none$',
		       r'^tracked pages: 0$', r'^allocations not selected: [1-9]'],
		 must_not=[KSTR_ANY_REPORT]),
	# A function selection gives every slab a shadow and checks the
	# objects its functions allocate: none at first, then, once debugfs
	# selects the demo's uninit read, that bug and not the demo's infoleak,
	# whose buffer demo_read() allocates.
	BootTest('track-func', 'kmemcheck=1 kmemcheck.track=func:kmemcheck_none', 1,
		 SHOW_TRACK + qemu.DEMO_SCENARIO + 'echo "kmemcheck-harness: demo done"\n' +
		 try_track('bogus:x') + try_track('func:kmemcheck_demo_*') +
		 qemu.DEMO_SCENARIO + SHOW_TRACKING + try_track('all'),
		 must=[quiet_between('track=func:kmemcheck_none', 'demo done'),
		       r'^kmemcheck-harness: track refused bogus:x, reads func:kmemcheck_none$',
		       r'^kmemcheck-harness: track took func:kmemcheck_demo_\*, '
		       r'reads func:kmemcheck_demo_\*$',
		       r'^allocations not selected: [1-9]', KSTR_UNINIT,
		       r'^kmemcheck-harness: track took all, reads all$'],
		 reports=[DEMO_UNINIT]),
	# A module selection: the module's bug, not the demo's (built in).
	BootTest('track-module', 'kmemcheck=1 kmemcheck.track=module:kmemcheck_ex*', 1,
		 'insmod /root/kmemcheck_example.ko\n'
		 'echo "kmemcheck-harness: insmod rc=$?"\n' + qemu.DEMO_SCENARIO,
		 must=[r'^kmemcheck-harness: insmod rc=0$',
		       KSTR_UNINIT + r'kmemcheck_example_sum\+\S+ \[kmemcheck_example\]'],
		 reports=[r'^uninit-value in kmemcheck_example_sum$'],
		 module=os.path.join(REPO, tree.HARNESS_DIR, 'module')),
	BootTest('kexec', 'kmemcheck=1', 1, KEXEC,
		 must=[r'^kmemcheck-harness: kexec load rc=0$',
		       r'^kmemcheck-harness: kexec: second kernel up$', KSTR_UNINIT, KSTR_INFOLEAK],
		 must_not=[r'kmemcheck-harness: kexec -e rc='],
		 reports=[DEMO_UNINIT, r'^kernel-infoleak in \S+$'], needs='CONFIG_KEXEC',
		 kexec=True),
)

KUNIT_CMDLINE = 'kunit.enable=1 kmemcheck=1 no_hash_pointers'
# Splats the KUnit boots may print: none.  kmemcheck's own reports are
# "BUG: KMEMCHECK:", which its tests provoke and check themselves.
KUNIT_ALLOWED: Sequence[str] = ()
KUNIT_TIMEOUT = 600


# ------------------------------------------------------------------------
# Shared state and helpers
# ------------------------------------------------------------------------

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


# ------------------------------------------------------------------------
# Subcommands
# ------------------------------------------------------------------------

def cmd_deps(ctx: Context, args: argparse.Namespace) -> int:
	tree.check_deps(ctx.build_dir)
	print('deps: all present')
	return 0


def cmd_prepare(ctx: Context, args: argparse.Namespace) -> int:
	prepare_tree(ctx)
	return 0


def cmd_refresh(ctx: Context, args: argparse.Namespace) -> int:
	tree.refresh(ctx.build_dir)
	return 0


def cmd_build(ctx: Context, args: argparse.Namespace) -> int:
	prepare_and_build(ctx)
	print(f'build: {ctx.kernel}')
	return 0


def print_report_summary(lines: List[str]) -> int:
	"""Prints the number of reports and each distinct one; returns the number."""
	reports = qemu.kmemcheck_reports(lines)
	print(f'run: {len(reports)} kmemcheck reports')
	for (kind, func), n in sorted(Counter(reports).items()):
		print(f'run:   {n:4d}  {kind} in {func}')
	return len(reports)


GUEST_MODULES = '/lib/modules/kmemcheck-run'
GUEST_SCRIPT = '/root/kmemcheck-script'
# What run reads back from the user's workload in the guest.
USER_RC_RE = re.compile(r'^kmemcheck-harness: (insmod|rmmod|script) (\S*) ?rc=(\d+)$', re.M)
# run's exit code when kmemcheck reported during a user workload.
EXIT_REPORTED = 2


def _module_kos(ctx: Context, spec: str, n: int) -> Tuple[List[str], List[str]]:
	"""(.ko files, insmod parameters) of one --module: a .ko, or a module
	source directory built against the kernel, then its parameters."""
	path, *params = spec.split()
	if os.path.isdir(path):
		out = os.path.join(ctx.build_dir, 'modules',
				   f'{n}-{os.path.basename(os.path.abspath(path))}')
		log_path = os.path.join(ctx.logs, f'module-{n}.log')
		print(f'run: building the module in {path} (log: {log_path})', flush=True)
		return tree.build_module(ctx.tree, ctx.obj, path, out, ctx.jobs, log_path), params
	if path.endswith('.ko') and os.path.isfile(path):
		return [os.path.abspath(path)], params
	raise HarnessError(f'--module {path}: neither a .ko file nor a module source directory')


def user_workload(ctx: Context, args: argparse.Namespace) -> Tuple[str, List[Tuple[str, str]]]:
	"""The scenario and initramfs additions of --add, --module and --script.

	Each module is loaded, the guest waits --module-wait seconds, and the
	modules are unloaded in reverse order (when the kernel can); then the
	script runs from /root.  Every step prints its exit status.
	"""
	add: List[Tuple[str, str]] = []
	for spec in args.add:
		host, _, guest = spec.partition(':')
		if not os.path.exists(host):
			raise HarnessError(f'--add {host}: no such file or directory')
		host = os.path.abspath(host)
		add.append((host, guest or f'/root/{os.path.basename(host)}'))
	load, unload = [], []
	for n, spec in enumerate(args.module):
		kos, params = _module_kos(ctx, spec, n)
		for ko in kos:
			name = os.path.basename(ko)[:-len('.ko')].replace('-', '_')
			guest = f'{GUEST_MODULES}/{os.path.basename(ko)}'
			add.append((ko, guest))
			load.append(f'echo "kmemcheck-harness: insmod {name}"\n'
				    f'insmod {guest} {" ".join(params)}\n'.replace(' \n', '\n') +
				    f'echo "kmemcheck-harness: insmod {name} rc=$?"\n')
			unload.insert(0, f'rmmod {name}\n'
				      f'echo "kmemcheck-harness: rmmod {name} rc=$?"\n')
	lines = load
	if load:
		lines.append(f'sleep {args.module_wait:g}\n')
		config = tree._parse_fragment(os.path.join(ctx.obj, '.config'))
		if config.get('CONFIG_MODULE_UNLOAD') == 'y':
			lines += unload
		else:
			lines.append('echo "kmemcheck-harness: no CONFIG_MODULE_UNLOAD, '
				     'modules stay loaded"\n')
	if args.script:
		if not os.path.isfile(args.script):
			raise HarnessError(f'--script {args.script}: no such file')
		add.append((os.path.abspath(args.script), GUEST_SCRIPT))
		lines.append(f'chmod +x {GUEST_SCRIPT}\n'
			     f'echo "kmemcheck-harness: script {args.script}"\n'
			     f'(cd /root && {GUEST_SCRIPT})\n'
			     f'echo "kmemcheck-harness: script rc=$?"\n')
	return ''.join(lines), add


def workload_exit(res: qemu.BootResult, reports: int) -> int:
	"""run's exit code after a user workload: EXIT_REPORTED when kmemcheck
	reported, else the script's, else 1 if insmod or rmmod failed."""
	if reports:
		return EXIT_REPORTED
	codes = USER_RC_RE.findall(qemu.userspace_text(res.lines))
	script = [int(rc) for what, _, rc in codes if what == 'script']
	if script and script[-1]:
		return script[-1]
	return 1 if any(int(rc) for what, _, rc in codes if what != 'script') else 0


def run_disks(disks: Sequence[str]) -> List[str]:
	"""The images of --disk, checked and made absolute."""
	for disk in disks:
		if not os.path.isfile(disk):
			raise HarnessError(f'--disk {disk}: no such file')
	return [os.path.abspath(d) for d in disks]


def cmd_run(ctx: Context, args: argparse.Namespace) -> int:
	devices = dict(disks=run_disks(args.disk), net=args.net, extra_args=args.qemu_arg)
	if args.kernel:
		ctx.kernel = os.path.abspath(args.kernel)
	else:
		prepare_and_build(ctx)
	workload = bool(args.module or args.script or args.add)
	script, add = user_workload(ctx, args) if workload else ('', [])
	if args.shell:
		script = qemu.SHELL_SCENARIO
	elif not workload:
		script = qemu.DEMO_SCENARIO
	name = 'shell' if args.shell else 'run'
	debs = [d for d in tree.guest_debs(ctx.build_dir).values() if d]
	initrd = qemu.build_initramfs(
		debs, script, os.path.join(ctx.build_dir, 'initramfs', f'{name}.cpio.gz'),
		add=add)
	cmdline = f'kunit.enable=0 kmemcheck=1 {args.cmdline}'.strip()
	if args.shell:
		return qemu.boot_interactive(ctx.kernel, initrd, cmdline, args.smp, ctx.machine,
					     **devices)
	log_path = os.path.join(ctx.logs, args.log)
	res = qemu.boot(ctx.kernel, initrd, cmdline, args.smp, args.timeout,
			log_path, echo=sys.stdout, mach=ctx.machine, **devices)
	print(f'run: qemu finished in {res.seconds:.1f} s (console log: {log_path})')
	reports = print_report_summary(res.lines)
	why = res.failure()
	if why:
		print('--- console tail ---\n' + res.tail(), file=sys.stderr)
		raise HarnessError(f'run: {why}')
	if not workload:
		return 0
	rc = workload_exit(res, reports)
	print(f'run: exit {rc}' + (' (kmemcheck reported)' if rc == EXIT_REPORTED and reports
				   else ''))
	return rc


# ------------------------------------------------------------------ test ---

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
	if mode and mode[0] in DECODER_M32:
		return mode[0]
	raise HarnessError(f'{DECODER_DIR}: make mode printed {proc.stdout.strip()!r}')


def test_host(ctx: Context, rep: Reporter, kernel_ok: bool) -> None:
	path = os.path.join(REPO, DECODER_DIR)
	probed = ''
	for t in HOST_TESTS:
		name = f'host/{t.name}'
		if not rep.wants(name):
			continue
		if not os.path.isfile(os.path.join(path, 'Makefile')):
			rep.report(Result(name, None, f'{DECODER_DIR}/Makefile does not exist yet'))
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
		proc = tree.run(['make', '-C', path, f'M32={DECODER_M32[mode]}', f'OUT={out}',
				 *t.make_args(ctx)], check=False)
		log_path = os.path.join(ctx.logs, f'{t.name}.log')
		with open(log_path, 'w') as f:
			f.write(proc.stdout)
		lines = [l.strip() for l in proc.stdout.splitlines()
			 if l.strip() and not l.startswith('make')]
		# The summary line of the test program, else its last line.
		summary = [l for l in lines if SUMMARY_RE.search(l)]
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
	real = os.path.join(REPO, FINDINGS_DOC)
	try:
		section = findings_section(real)
	except (HarnessError, OSError) as e:
		return str(e)
	for line in section.splitlines():
		if re.search(r'``\S+ in \S+``', line) and not FINDING_RE.match(line):
			return f'{FINDINGS_DOC}: not read as a finding: {line.strip()!r}'
	doc = os.path.join(tmp_dir, 'findings-check.rst')
	with open(doc, 'w') as f:
		f.write(f'{FINDINGS_SECTION}\n{"-" * len(FINDINGS_SECTION)}\n\n'
			'Prose first.\n\n``uninit-value in kmemcheck_listed_read``\n\n'
			'Next section\n------------\n\n``uninit-value in kmemcheck_after_read``\n')
	known = known_findings(doc)
	if known != ['uninit-value in kmemcheck_listed_read']:
		return f'the parser read {known} from a section of one finding'
	t = BootTest('findings-check', '', 1, '')
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


def test_findings(ctx: Context, rep: Reporter) -> None:
	"""host/known-findings: the list of findings is read and obeyed."""
	name = 'host/known-findings'
	if not rep.wants(name):
		return
	t0 = time.time()
	os.makedirs(ctx.logs, exist_ok=True)
	why = check_findings(ctx.logs)
	n = len(known_findings()) if not why else 0
	rep.report(Result(name, not why, why or f'[{n} findings listed in {FINDINGS_DOC}]',
			  time.time() - t0))


def write_results(ctx: Context, rep: Reporter, title: str) -> str:
	"""build/logs/results.ktap: every test so far, for kunit_parser and CI."""
	path = os.path.join(ctx.logs, 'results.ktap')
	os.makedirs(ctx.logs, exist_ok=True)
	ktap.write(path, rep.entries(), title)
	return path


def test_results(ctx: Context, rep: Reporter, title: str) -> None:
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


def _import_kunit_parser(ctx: Context):
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


# The KUnit boots: the default fast path; the other one, which keeps
# every check; and none at all, where every access is single-stepped, as
# the fast paths do most instructions in the fault handler instead.  That
# one is slow enough under TCG on a busy host for an initcall to run 26
# seconds without scheduling (param_sysfs_builtin_init() was seen to): the
# soft lockup detector waits its longest there.
KUNIT_RUNS = (('kunit', ''), ('kunit-fastpath1', 'kmemcheck.fastpath=1'),
	      ('kunit-fastpath0', 'kmemcheck.fastpath=0 watchdog_thresh=60'))


def test_kunit(ctx: Context, rep: Reporter, layers: Optional[Sequence[str]] = None) -> None:
	"""The KUNIT_RUNS named in @layers (default: all)."""
	for layer, extra in KUNIT_RUNS:
		if (layers is None or layer in layers) and rep.wants_layer(layer):
			kunit_boot(ctx, rep, layer, f'{KUNIT_CMDLINE} {extra}'.strip())


def kunit_boot(ctx: Context, rep: Reporter, layer: str, cmdline: str) -> None:
	if rep.pattern and rep.pattern.startswith(f'{layer}/'):
		cmdline += f' kunit.filter_glob={rep.pattern[len(layer) + 1:]}'
	initrd = ctx.initramfs('kunit', 'true\n')
	res = qemu.boot(ctx.kernel, initrd, cmdline, 1, KUNIT_TIMEOUT,
			os.path.join(ctx.logs, f'{layer}.log'), mach=ctx.machine)
	kp = _import_kunit_parser(ctx)
	top = kp.parse_run_tests(res.lines)
	# A splat fails the boot even when every case passed: a test that
	# sleeps in atomic context, say, only taints the kernel.
	why = res.failure() or qemu.first_splat(res.lines, KUNIT_ALLOWED)
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


# The kernel's own KUnit route: tools/testing/kunit/kunit.py with our
# .kunitconfig, its i386 QEMU config and its own build directory (a kernel
# of Kconfig defaults, not our fragments: what a KUnit user gets).
KUNITPY_KUNITCONFIG = 'mm/kmemcheck'
KUNITPY_ARGS = ('kmemcheck=1', 'no_hash_pointers')
KUNITPY_TIMEOUT = 900
KUNITPY_SUMMARY_RE = re.compile(r'Testing complete\. Ran (\d+) tests: (.*)$', re.M)


def kunitpy_cmd(ctx: Context, build_dir: str) -> List[str]:
	"""The command line the documentation gives, run in the prepared tree."""
	return [sys.executable, 'tools/testing/kunit/kunit.py', 'run', '--arch=i386',
		f'--kunitconfig={KUNITPY_KUNITCONFIG}', f'--build_dir={build_dir}',
		f'--jobs={ctx.jobs}', f'--timeout={KUNITPY_TIMEOUT}',
		*[f'--kernel_args={a}' for a in KUNITPY_ARGS]]


def check_kunitpy(rc: int, out: str, console: List[str]) -> Tuple[Optional[str], str]:
	"""(why kunit.py's run failed or None, its summary)."""
	m = KUNITPY_SUMMARY_RE.search(re.sub(r'\x1b\[[0-9;]*m', '', out))
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
				  for l in console], KUNIT_ALLOWED)
	if splat:
		return f'console has {splat}', summary
	return None, summary


def test_kunitpy(ctx: Context, rep: Reporter) -> None:
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


def test_ksuites(ctx: Context, rep: Reporter) -> None:
	"""The kernel's own tests, kmemcheck=1 against 0 (kmemcheck_ksuites.py)."""
	if not rep.wants_layer('ksuites'):
		return
	env = ksuites.Env(ctx.kernel, ctx.obj, ctx.logs, ctx.build_dir,
			  ctx.initramfs, _import_kunit_parser(ctx), ctx.machine)
	for o in ksuites.run(env, rep.wants):
		rep.report(Result(o.name, o.ok, o.detail, o.seconds, 'in the ksuites boots'),
			   tail=o.tail)


def check_boot(t: BootTest, res: qemu.BootResult,
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
		return f'unexplained kmemcheck report: {bad[0]} (see {FINDINGS_DOC})'
	user = qemu.userspace_text(res.lines)
	for rx in t.must:
		if not re.search(rx, text, re.M) and not re.search(rx, user, re.M):
			return f'console lacks /{rx}/'
	n = len(REPORT_TITLE_RE.findall(text))
	if t.max_reports is not None and n > t.max_reports:
		return f'{n} kmemcheck reports, expected at most {t.max_reports}'
	if t.panics:
		return None
	if t.max_reports == 1 and n == 0 and not re.search(KSTR_MODE.format(2), text):
		return 'no report, yet one-shot mode was switched off'
	if t.max_reports == 1 and n == 1 and not re.search(KSTR_MODE.format(0), text):
		return 'one-shot mode still on after a report'
	return None


def check_decode(ctx: Context, res: qemu.BootResult) -> Optional[str]:
	"""decode_stacktrace.sh turns the demo report's frames into demo.c lines."""
	why, out = decode.check_demo_report(ctx.tree, os.path.join(ctx.obj, 'vmlinux'),
					    res.lines)
	with open(os.path.join(ctx.logs, 'decode-stacktrace.log'), 'w') as f:
		f.write(out)
	return why


# The demo's reports: (function of the title line, the frame syzkaller
# must title the bug with, the file it must blame).  The uninit read is
# blamed on the function that read.  The infoleak's title names demo_read(),
# the caller of simple_read_from_buffer(), but syzkaller skips only the
# copy_to_user() frames: it titles and blames the leak as it would KMSAN's
# report of it, on simple_read_from_buffer() in fs/libfs.c.
SYZKALLER_DEMO = {
	'uninit-value': ('kmemcheck_demo_uninit_read', 'kmemcheck_demo_uninit_read',
			 decode.DEMO_SOURCE),
	'kernel-infoleak': ('demo_read', 'simple_read_from_buffer', 'fs/libfs.c'),
}


def check_syzkaller(ctx: Context, res: qemu.BootResult) -> Optional[str]:
	"""syzkaller's rules for KMSAN reports title and blame the demo's right."""
	vmlinux = os.path.join(ctx.obj, 'vmlinux')
	return titles.check_reports(res.lines, SYZKALLER_DEMO,
				       lambda text: decode.decode(ctx.tree, vmlinux, text))


# Tests on the console of a boot test: (boot, name, check).
CONSOLE_TESTS = (
	('demo', 'decode-stacktrace', check_decode),
	('demo', 'syzkaller-titles', check_syzkaller),
)


def kexec_initramfs(ctx: Context, t: BootTest) -> str:
	"""The initramfs of a kexec boot: busybox, kexec-tools and its C
	library, the kernel itself and the initramfs of the kernel it kexecs
	into.  Not compressed: kmemcheck=1 inflates a byte per page fault."""
	second = ctx.initramfs(f'{t.name}-second', KEXEC_SECOND)
	debs = [d for d in tree.guest_debs(ctx.build_dir).values() if d]
	return qemu.build_initramfs(
		debs + tree.kexec_debs(ctx.build_dir), t.script,
		os.path.join(ctx.build_dir, 'initramfs', f'{t.name}.cpio'), compress=False,
		add=[(ctx.kernel, '/root/bzImage'), (second, '/root/second.cpio.gz')])


def boot_test_modules(ctx: Context, t: BootTest) -> List[Tuple[str, str]]:
	"""The module of @t built against the kernel, as initramfs additions:
	each .ko in /root."""
	if not t.module:
		return []
	out = os.path.join(ctx.build_dir, 'modules', f'boot-{t.name}')
	kos = tree.build_module(ctx.tree, ctx.obj, t.module, out, ctx.jobs,
				os.path.join(ctx.logs, f'module-{t.name}.log'), t.module_make)
	return [(ko, f'/root/{os.path.basename(ko)}') for ko in kos]


def test_boots(ctx: Context, rep: Reporter, only: Optional[Sequence[str]] = None) -> None:
	"""The BOOT_TESTS and their CONSOLE_TESTS, or those named in @only."""
	for t in BOOT_TESTS:
		name = f'boot/{t.name}'
		derived = [(f'boot/{n}', check) for b, n, check in CONSOLE_TESTS
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


def stress_boot(ctx: Context, name: str, duration: int, mode: int,
		extra: str = '') -> Tuple[qemu.BootResult, Optional[str]]:
	"""One boot of the stress scenario; (result, why it failed or None)."""
	script = stress.scenario(duration, stress.shadow_alloc_range(
		os.path.join(ctx.obj, 'System.map')))
	t = BootTest(name, f'kmemcheck={mode} {extra}'.strip(), 1, script, must=stress.MUST,
		     must_not=stress.MUST_NOT, timeout=stress.boot_timeout(duration))
	initrd = qemu.build_initramfs(
		tree.stress_debs(ctx.build_dir), script,
		os.path.join(ctx.build_dir, 'initramfs', f'{name}.cpio'), compress=False)
	res, nmis = stress.boot(ctx.kernel, initrd, f'kunit.enable=0 {t.cmdline}',
				t.timeout, os.path.join(ctx.logs, f'{name}.log'), mach=ctx.machine)
	for line in stress.summary(res, nmis):
		print(f'{name}: {line}', flush=True)
	return res, check_boot(t, res) or stress.check(res, mode)


# kmemcheck= of the stress boots in `test`: the scenario is about kmemcheck
# surviving real work, so it runs with kmemcheck on (about 11 minutes with
# 1-second stressors); `kmemcheck.py stress --mode 0` checks the other.
STRESS_TEST_MODES = (1,)


def test_stress(ctx: Context, rep: Reporter, duration: int = stress.DEFAULT_DURATION) -> None:
	for mode in STRESS_TEST_MODES:
		name = f'stress/kmemcheck-{mode}'
		if not rep.wants(name):
			continue
		res, why = stress_boot(ctx, f'stress-{mode}', duration, mode)
		print_report_summary(res.lines)
		rep.report(Result(name, not why, f'{why} (log: {res.log_path})' if why else '',
				  res.seconds, log=res.log_path), tail=res.tail() if why else '')


@dataclass(frozen=True)
class SecondConfig:
	"""A configuration `test` runs after default, its tests named
	"<name>/<layer>/...": the layers where it differs from default."""
	name: str
	kunit: Sequence[str]  # layers of KUNIT_RUNS
	boots: Sequence[str]  # names of BOOT_TESTS
	stress_duration: int  # seconds per stressor
	devices: bool = False  # the devices/ layer too


SECOND_CONFIGS = (
	# Debian's 686-pae: 64-bit PTEs, a real PMD level, NX and highmem.
	# The boots that look at memory and modes; the command line parsing,
	# the report's decoding and kmemcheck.fault=panic are the same there.
	SecondConfig('pae', kunit=('kunit',),
		     boots=('boot-kmemcheck-0', 'boot-kmemcheck-1', 'boot-kmemcheck-2',
			    'boot-smp2', 'boot-smp2-off', 'boot-smt-toggle',
			    'boot-smt-toggle-off', 'demo', 'nx-fetch-1', 'nx-fetch-0',
			    'step-oops', 'hibernate', 'kexec'),
		     stress_duration=stress.DEFAULT_DURATION, devices=True),
)


def test_second_config(ctx: Context, rep: Reporter, second: SecondConfig) -> None:
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


def cmd_stress(ctx: Context, args: argparse.Namespace) -> int:
	prepare_and_build(ctx)
	failed = 0
	for boot in range(1, args.boots + 1):
		name = f'stress-{args.mode}-boot{boot}'
		print(f'stress: boot {boot}/{args.boots}, kmemcheck={args.mode} {args.cmdline}, '
		      f'{len(stress.STRESSORS)} stressors x {args.duration} s', flush=True)
		res, why = stress_boot(ctx, name, args.duration, args.mode, args.cmdline)
		print_report_summary(res.lines)
		if why:
			failed += 1
			print('--- console tail ---\n' + res.tail(), file=sys.stderr)
			print(f'stress: boot {boot} FAILED: {why} (console log: {res.log_path})')
		else:
			print(f'stress: boot {boot} passed (console log: {res.log_path})')
	print(f'stress: {args.boots - failed} of {args.boots} boots passed')
	return 1 if failed else 0


LINT_CHECKS = (
	('lint/checkpatch', lambda c: lint.checkpatch(c.tree)),
	('lint/kernel-doc', lambda c: lint.kernel_doc(c.tree)),
	('lint/w1-sparse', lambda c: lint.compiler_warnings(c.tree, c.obj, c.jobs)),
	('lint/htmldocs', lambda c: lint.htmldocs(c.tree, os.path.join(c.build_dir, 'obj-docs'),
						  c.jobs)),
)


def test_lint(ctx: Context, rep: Reporter) -> None:
	"""checkpatch --strict, kernel-doc, W=1 and sparse: no finding passes."""
	for name, check in LINT_CHECKS:
		if not rep.wants(name):
			continue
		t0 = time.time()
		problems = check(ctx)
		if problems:
			rep.report(Result(name, False, f'{len(problems)} problems'),
				   tail='\n'.join(problems[:40]))
		else:
			rep.report(Result(name, True, '', time.time() - t0))


def cmd_lint(ctx: Context, args: argparse.Namespace) -> int:
	rep = Reporter(None)
	prepare_and_build(ctx)
	test_lint(ctx, rep)
	print(f'{rep.passed} passed, {rep.failed} failed')
	return 1 if rep.failed else 0


def export_checkpatch(ctx: Context, patches: List[str]) -> Tuple[export.CheckpatchResult, List[str]]:
	res = export.check_patches(ctx.tree, patches, os.path.join(ctx.build_dir, 'checkpatch'))
	return res, export.unexplained(res)


def test_export(ctx: Context, rep: Reporter) -> None:
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


def _harness(argv: Sequence[str], out_path: str) -> Tuple[int, str]:
	"""Runs a kmemcheck.py command line in this process, which holds the
	build directory's lock, its output into @out_path: (exit code, error)."""
	args = parse_args(argv)
	c = make_context(args)
	with open(out_path, 'w') as f, contextlib.redirect_stdout(f), \
	     contextlib.redirect_stderr(f):
		print('$ kmemcheck.py ' + ' '.join(argv), flush=True)
		try:
			return COMMANDS[args.command](c, args), ''
		except HarnessError as e:
			print(f'kmemcheck.py: error: {e}')
			return 1, str(e)


def make_user_tree(ctx: Context, path: str, sparse: Sequence[str] = ()) -> str:
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


def test_user_conflict(ctx: Context, rep: Reporter, patches: List[str]) -> None:
	"""A user commit on a line a patch changes: prepare --tree stops, names
	the patch and the file, and leaves the tree as it was."""
	t0 = time.time()
	target = next(((p, *_first_removed_line(p)) for p in patches[1:]
		       if _first_removed_line(p)[0]), None)
	if target is None:
		rep.report(Result('user/tree-conflict', False, 'no patch removes a line'))
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
	rc, err = _harness(['prepare', '--build-dir', ctx.build_dir, '--tree', utree],
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
	rep.report(Result('user/tree-conflict', not why,
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
	for rx in KSTR_NEVER:
		m = re.search(rx, kernel, re.M)
		if m:
			return f'console has /{rx}/'
	bad = unexplained_reports(text, reports)
	if bad:
		return f'unexplained kmemcheck report: {bad[0]}'
	for rx in must:
		if not re.search(rx, text, re.M):
			return f'console lacks /{rx}/'
	return None


# The Debian route: Debian's own i386 config (kmemcheck_tree.DISTRO_BASES)
# with kmemcheck added.  Its .config keeps what a distribution kernel has,
# PAE and the zeroing of every allocation among it.
DISTRO_CONFIG_MUST = {
	'CONFIG_KMEMCHECK': 'y',
	'CONFIG_X86_PAE': 'y',
	'CONFIG_INIT_ON_ALLOC_DEFAULT_ON': 'y',
}
# ... and kmemcheck=1 on it turns the zeroing off and sees both demo bugs.
# init_on_alloc=1 undoes the init_on_alloc=0 of every harness boot
# (qemu.BASE_CMDLINE): Debian's kernel boots with its config's default.
DISTRO_DEMO = BootTest('debian-demo', 'kmemcheck=1 init_on_alloc=1', 1, qemu.DEMO_SCENARIO,
		       must=[KSTR_AUTOINIT_OFF, KSTR_UNINIT, KSTR_INFOLEAK],
		       reports=[DEMO_UNINIT, r'^kernel-infoleak in \S+$'], timeout=1200)


def test_distro(ctx: Context, rep: Reporter) -> None:
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
			       for sym, val in DISTRO_CONFIG_MUST.items()
			       if got.get(sym, 'n') != val]
			rep.report(Result(name, not bad, bad[0] if bad else f'[{path}]',
					  time.time() - t0, log=path))
		except HarnessError as e:
			rep.report(Result(name, False, str(e).splitlines()[0]))
	name = 'distro/' + DISTRO_DEMO.name
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
	t = DISTRO_DEMO
	res = qemu.boot(c.kernel, c.initramfs(t.name, t.script), f'kunit.enable=0 {t.cmdline}',
			t.smp, t.timeout, os.path.join(c.logs, f'{t.name}.log'), mach=c.machine)
	why = check_boot(t, res)
	rep.report(Result(name, not why, f'{why} (log: {res.log_path})' if why else '',
			  res.seconds, log=res.log_path), tail=res.tail() if why else '')


def test_user(ctx: Context, rep: Reporter) -> None:
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
		test_user_conflict(ctx, rep, patches)
	names = ('user/prepare-tree', 'user/module-uninit', 'user/module-twin')
	if not any(rep.wants(n) for n in names):
		return
	utree = os.path.join(ctx.build_dir, USER_DIR, 'linux')
	mine = make_user_tree(ctx, utree)
	reset_user_tree(utree, series)
	rc, err = _harness(['prepare', '--build-dir', ctx.build_dir, '--tree', utree],
			   os.path.join(ctx.logs, 'user-prepare-tree.out'))
	why = err.splitlines()[0] if rc else check_user_tree(utree, mine, len(patches) - 1)
	rep.report(Result('user/prepare-tree', not why,
			  why or f'[{len(patches) - 1} commits on {USER_BRANCH}]', time.time() - t0))
	if why:
		return
	common = ['run', '--build-dir', ctx.build_dir, '--jobs', str(ctx.jobs),
		  '--tree', utree, *USER_RUN_ARGS]
	uninit = rf'BUG: KMEMCHECK: uninit-value in {USER_FUNC}\+0x\w+/0x\w+ \[kmemcheck_example\]'
	if rep.wants('user/module-uninit'):
		t0 = time.time()
		log = 'user-module-uninit.log'
		rc, err = _harness([*common, '--module', USER_MODULE, '--log', log],
				   os.path.join(ctx.logs, 'user-module-uninit.out'))
		why = check_user_run(os.path.join(ctx.logs, log), rc, err, EXIT_REPORTED,
				     [uninit, r'^kmemcheck-harness: insmod kmemcheck_example rc=0$',
				      r'^kmemcheck-harness: rmmod kmemcheck_example rc=0$'],
				     [rf'^uninit-value in {USER_FUNC}$'])
		rep.report(Result('user/module-uninit', not why,
				  f'{why} (log: {ctx.logs}/{log})' if why else '',
				  time.time() - t0))
	if rep.wants('user/module-twin'):
		t0 = time.time()
		log = 'user-module-twin.log'
		script = os.path.join(ctx.build_dir, USER_DIR, 'script.sh')
		with open(script, 'w') as f:
			f.write(USER_SCRIPT)
		rc, err = _harness([*common, '--module', f'{USER_MODULE} zero=1',
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
		if not why and re.search(KSTR_ANY_REPORT, tree._read(
				os.path.join(ctx.logs, log)).decode(errors='replace')):
			why = 'kmemcheck reported on the correct path'
		rep.report(Result('user/module-twin', not why,
				  f'{why} (log: {ctx.logs}/{log})' if why else '',
				  time.time() - t0))


def cmd_export(ctx: Context, args: argparse.Namespace) -> int:
	out = os.path.abspath(args.out or os.path.join(ctx.build_dir, 'export'))
	patches = export.export(ctx.build_dir, out)
	ctx.tree = tree.tree_dir(ctx.build_dir)
	res, bad = export_checkpatch(ctx, patches)
	print(f'export: checkpatch --strict: {res.errors} errors, {res.warnings} warnings, '
	      f'{res.checks} checks')
	for f in res.findings:
		print(f'export:   {f}')
	return 1 if bad else 0


def test_config(ctx: Context, rep: Reporter) -> None:
	"""Every layer, on the kernel of ctx.config."""
	kernel_ok = False
	t0 = time.time()
	build_log = os.path.join(ctx.logs, f'build-{ctx.config}.log')
	try:
		prepare_and_build(ctx)
		kernel_ok = True
		rep.report(Result(f'build/{ctx.config}', True, '', time.time() - t0, log=build_log))
	except HarnessError as e:
		rep.report(Result(f'build/{ctx.config}', False, str(e).splitlines()[0],
				  log=build_log))
	test_host(ctx, rep, kernel_ok)
	test_findings(ctx, rep)
	if kernel_ok:
		test_lint(ctx, rep)
		test_export(ctx, rep)
		test_distro(ctx, rep)
		test_kunit(ctx, rep)
		test_kunitpy(ctx, rep)
		test_ksuites(ctx, rep)
		test_boots(ctx, rep)
		# The layer uses this module's BootTest and checks.
		devices.test_devices(ctx, rep, sys.modules[__name__])
		fuzz.test_fuzz(ctx, rep, sys.modules[__name__])
		test_user(ctx, rep)
		test_stress(ctx, rep)


def cmd_test(ctx: Context, args: argparse.Namespace) -> int:
	rep = Reporter(args.filter)
	# The second configurations run after default's layers; a filter
	# within one of them ('pae/*') builds and runs only that one.
	seconds = SECOND_CONFIGS if ctx.config == 'default' else ()
	if any((args.filter or '').startswith(f'{s.name}/') for s in seconds):
		prepare_tree(ctx)
	else:
		test_config(ctx, rep)
	for second in seconds:
		test_second_config(ctx, rep, second)
	title = (f'kmemcheck.py test --config {ctx.config}' +
		 (f" --filter '{args.filter}'" if args.filter else '') +
		 time.strftime(', %Y-%m-%d %H:%M:%S UTC', time.gmtime()))
	test_results(ctx, rep, title)
	print(f'results: {write_results(ctx, rep, title)}', flush=True)
	print(f'{rep.passed} passed, {rep.failed} failed')
	return 1 if rep.failed else 0


# ------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------

def _global_options(parser: argparse.ArgumentParser, defaults: bool) -> None:
	"""--build-dir and --jobs, before or after the subcommand."""
	def default(value):
		return value if defaults else argparse.SUPPRESS
	parser.add_argument('--build-dir', default=default(os.path.join(REPO, 'build')),
			    help='where the tree, objects, logs go (default: <repo>/build)')
	parser.add_argument('--jobs', type=int, default=default(os.cpu_count() or 1),
			    help='parallel make jobs (default: number of CPUs)')


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
	parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
	_global_options(parser, defaults=True)
	common = argparse.ArgumentParser(add_help=False)
	_global_options(common, defaults=False)
	sub = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')

	# The user's own tree and config options: prepare, build, run, lint, test.
	user_tree = argparse.ArgumentParser(add_help=False)
	user_tree.add_argument('--tree', default=None, metavar='DIR',
			       help='your 6.12 git tree: kmemcheck goes in as branch '
			       '"kmemcheck" on top of its HEAD (default: <build-dir>/linux)')
	kconfig = argparse.ArgumentParser(add_help=False)
	kconfig.add_argument('--kconfig', action='append', default=[], metavar='FILE',
			     help='a config fragment of yours, merged after ours (repeatable)')
	kconfig.add_argument('--kconfig-add', action='append', default=[],
			     metavar='CONFIG_FOO=y', help='one more option (repeatable)')

	sub.add_parser('deps', parents=[common], help='check/install dependencies')
	sub.add_parser('prepare', parents=[common, user_tree],
		       help='unpack 6.12, apply overlay + patches/series (--tree: '
		       'kmemcheck as a branch of your tree)')
	sub.add_parser('refresh', parents=[common],
		       help='copy changes in the prepared tree back to the repo')
	configs = list(tree.CONFIGS)
	p = sub.add_parser('build', parents=[common, user_tree, kconfig], help='build a kernel')
	p.add_argument('--config', choices=configs, default='default')
	p = sub.add_parser('run', parents=[common, user_tree, kconfig],
			   help='boot the demo, your workload, or a shell')
	p.add_argument('--config', choices=configs, default='default')
	p.add_argument('--cmdline', default='',
		       help='more kernel parameters, added after kmemcheck=1')
	p.add_argument('--kernel', default=None, help='boot this bzImage, build nothing')
	p.add_argument('--shell', action='store_true', help='interactive busybox shell')
	p.add_argument('--module', action='append', default=[], metavar='"KO|DIR [PARAMS]"',
		       help='insmod this module (a .ko, or a module source directory '
		       'built against the kernel), wait, rmmod (repeatable)')
	p.add_argument('--module-wait', type=float, default=1, metavar='S',
		       help='seconds between loading and unloading the modules '
		       '(default: %(default)s)')
	p.add_argument('--script', default=None, metavar='FILE',
		       help='run FILE as root in the guest after boot; its exit code '
		       'becomes run\'s')
	p.add_argument('--add', action='append', default=[], metavar='PATH[:GUEST_PATH]',
		       help='put a file or directory into the initramfs '
		       '(default guest path: /root/<name>; repeatable)')
	p.add_argument('--log', default='run.log', metavar='NAME',
		       help='console log file in <build-dir>/logs (default: %(default)s)')
	p.add_argument('--timeout', type=float, default=qemu.DEFAULT_TIMEOUT,
		       help='seconds before the guest counts as hung (default: %(default)s)')
	p.add_argument('--smp', type=int, default=1, help='guest CPUs (default: 1)')
	p.add_argument('--disk', action='append', default=[], metavar='IMG',
		       help='attach the raw image IMG as a virtio-blk disk, /dev/vda, '
		       '/dev/vdb, ... in order; the guest writes to it (repeatable)')
	p.add_argument('--net', nargs='?', const='user', default='',
		       choices=[n for n in qemu.NETS if n], metavar='user|isolated',
		       help='a virtio-net NIC (eth0) on QEMU\'s user network, '
		       'DHCP and gateway %s from QEMU itself; "isolated": no packet '
		       'leaves QEMU (default: no NIC)' % qemu.GATEWAY)
	p.add_argument('--qemu-arg', action='append', default=[], metavar='ARG',
		       help='append ARG to QEMU\'s command line, verbatim (repeatable; '
		       'write --qemu-arg=-ARG for one that starts with a dash)')
	p = sub.add_parser('lint', parents=[common],
			   help='checkpatch, kernel-doc, W=1 and sparse on our code')
	p.add_argument('--config', choices=configs, default='default')
	p = sub.add_parser('test', parents=[common], help='run all tests')
	p.add_argument('--filter', default=None,
		       help='glob on test names, e.g. "boot/*" or "kunit/kmemcheck*"')
	p.add_argument('--config', choices=configs, default='default')
	p = sub.add_parser('export', parents=[common],
			   help='write the git format-patch series, run checkpatch on it')
	p.add_argument('--out', default=None,
		       help='directory for the patches (default: <build-dir>/export)')
	bench.register(sub, common)
	profile.register(sub, common)
	p = sub.add_parser('stress', parents=[common],
			   help='stress-ng under kmemcheck, NMIs, ftrace, fault injection')
	p.add_argument('--duration', type=int, default=10,
		       help='seconds per stressor (default: %(default)s)')
	p.add_argument('--boots', type=int, default=1,
		       help='consecutive boots (default: %(default)s)')
	p.add_argument('--mode', type=int, choices=(0, 1), default=1,
		       help='kmemcheck= of the boots (default: %(default)s)')
	p.add_argument('--cmdline', default='',
		       help='more kernel parameters, e.g. kmemcheck.fastpath=1')
	p.add_argument('--config', choices=configs, default='default')
	return parser.parse_args(argv)


COMMANDS = {
	'deps': cmd_deps, 'prepare': cmd_prepare, 'refresh': cmd_refresh,
	'build': cmd_build, 'run': cmd_run, 'lint': cmd_lint, 'test': cmd_test,
	'export': cmd_export,
	'bench': bench.cmd_bench,
	'profile': profile.cmd_profile,
	'stress': cmd_stress,
}

# Commands that run beside the others: profile builds nothing (at most
# the missing bench module) and writes only <build-dir>/profile/.
UNLOCKED = ('profile',)


def main(argv: Sequence[str]) -> int:
	args = parse_args(argv)
	ctx = make_context(args)
	try:
		lock = None if args.command in UNLOCKED else tree.lock_build_dir(ctx.build_dir)
		tree.check_deps(ctx.build_dir, command=args.command)
		return COMMANDS[args.command](ctx, args)
	except HarnessError as e:
		print(f'kmemcheck.py: error: {e}', file=sys.stderr)
		return 1
	except KeyboardInterrupt:
		print('kmemcheck.py: interrupted', file=sys.stderr)
		return 130


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
