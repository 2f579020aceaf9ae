# SPDX-License-Identifier: GPL-2.0
"""The test tables of kmemcheck.py: add a row to add a test.

The kernel strings the tests expect (KSTR_*), the host tests, the boot
scenarios (BOOT_TESTS, the shell lines they run, and the tests on their
consoles), the KUnit boots, the second configurations `test` runs, the
lint checks and the Debian route.  The layers that run them are in
kmemcheck_layers.py.
"""

import os
import re
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Union

import kmemcheck_context as context
import kmemcheck_decode as decode
import kmemcheck_lint as lint
import kmemcheck_qemu as qemu
import kmemcheck_stress as stress
import kmemcheck_titles as titles
import kmemcheck_tree as tree
from kmemcheck_tree import REPO

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

# The KUnit boots: the default fast path; the other one, which keeps
# every check; and none at all, where every access is single-stepped, as
# the fast paths do most instructions in the fault handler instead.  That
# one is slow enough under TCG on a busy host for an initcall to run 26
# seconds without scheduling (param_sysfs_builtin_init() was seen to): the
# soft lockup detector waits its longest there.
KUNIT_RUNS = (('kunit', ''), ('kunit-fastpath1', 'kmemcheck.fastpath=1'),
	      ('kunit-fastpath0', 'kmemcheck.fastpath=0 watchdog_thresh=60'))

# The kernel's own KUnit route: tools/testing/kunit/kunit.py with our
# .kunitconfig, its i386 QEMU config and its own build directory (a kernel
# of Kconfig defaults, not our fragments: what a KUnit user gets).
KUNITPY_KUNITCONFIG = 'mm/kmemcheck'
KUNITPY_ARGS = ('kmemcheck=1', 'no_hash_pointers')
KUNITPY_TIMEOUT = 900
KUNITPY_SUMMARY_RE = re.compile(r'Testing complete\. Ran (\d+) tests: (.*)$', re.M)


def check_decode(ctx: context.Context, res: qemu.BootResult) -> Optional[str]:
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


def check_syzkaller(ctx: context.Context, res: qemu.BootResult) -> Optional[str]:
	"""syzkaller's rules for KMSAN reports title and blame the demo's right."""
	vmlinux = os.path.join(ctx.obj, 'vmlinux')
	return titles.check_reports(res.lines, SYZKALLER_DEMO,
				       lambda text: decode.decode(ctx.tree, vmlinux, text))


# Tests on the console of a boot test: (boot, name, check).
CONSOLE_TESTS = (
	('demo', 'decode-stacktrace', check_decode),
	('demo', 'syzkaller-titles', check_syzkaller),
)

# kmemcheck= of the stress boots in `test`: the scenario is about kmemcheck
# surviving real work, so it runs with kmemcheck on (about 11 minutes with
# 1-second stressors); `kmemcheck.py stress --mode 0` checks the other.
STRESS_TEST_MODES = (1,)


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

LINT_CHECKS = (
	('lint/checkpatch', lambda c: lint.checkpatch(c.tree)),
	('lint/kernel-doc', lambda c: lint.kernel_doc(c.tree)),
	('lint/w1-sparse', lambda c: lint.compiler_warnings(c.tree, c.obj, c.jobs)),
	('lint/htmldocs', lambda c: lint.htmldocs(c.tree, os.path.join(c.build_dir, 'obj-docs'),
						  c.jobs)),
)

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
