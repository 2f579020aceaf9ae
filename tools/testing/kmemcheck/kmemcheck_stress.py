# SPDX-License-Identifier: GPL-2.0
"""The stress scenario: stress-ng on a Debian i386 userland, machinery stressed.

The guest runs stress-ng stressors one after the other, each for a given
time with --verify, and checks their exit status.  Meanwhile it turns the
function tracer on for a few stressors, toggles kernel.kmemcheck 1->0->1
under one of them, and makes kmemcheck's shadow allocations fail now and
then (fail_page_alloc, with a stack trace filter on
kmemcheck_shadow_alloc()).  The host injects NMIs through the QEMU monitor
all along.  check() reads the console and says what went wrong.
"""

import os
import re
import socket
import threading
import time
from typing import List, Optional, Sequence, TextIO, Tuple

import kmemcheck_qemu as qemu

MARK = 'kmemcheck-stress:'

# (stressor, extra options).  Sizes fit a 256 MB guest where kmemcheck
# doubles the memory of every tracked page; temporary files go to tmpfs.
STRESSORS: Tuple[Tuple[str, str], ...] = (
	('fork', ''),
	('exec', ''),
	('clone', ''),
	('pipe', ''),
	('msg', ''),
	('mq', ''),
	('sem', ''),
	('sem-sysv', ''),
	('shm', '--shm-bytes 1M'),
	('shm-sysv', '--shm-sysv-bytes 1M'),
	('mmap', '--mmap-bytes 2M'),
	('brk', ''),
	('vm', '--vm-bytes 4M'),
	('malloc', '--malloc-bytes 64K'),
	('memcpy', ''),
	('str', ''),
	('sock', '--sock-domain ipv4'),
	('udp', ''),
	('sockfd', ''),
	('sockpair', ''),
	('epoll', ''),
	('eventfd', ''),
	('futex', ''),
	('timer', ''),
	('timerfd', ''),
	('signal', ''),
	('sigfd', ''),
	('kill', ''),
	('dentry', '--dentries 256'),
	('dir', ''),
	('inotify', ''),
	('file-ioctl', ''),
	('hdd', '--hdd-bytes 1M'),
	('get', ''),
	('sysinfo', ''),
	('poll', ''),
	('procfs', ''),
	('sysfs', ''),
)

# The function tracer runs during these stressors (softirq-heavy loopback
# networking and signal delivery), the sysctl toggle during the last one.
FTRACE_DURING = ('udp', 'signal')
TOGGLE_DURING = 'malloc'

DEFAULT_DURATION = 1		# seconds per stressor in "kmemcheck.py test"
NMI_INTERVAL = 1.0		# seconds between two injected NMIs
FAIL_PROBABILITY = 20		# percent of shadow allocations to fail

# On top of the harness's KSTR_NEVER: what a hang or a lock bug prints.
MUST_NOT = (r'INFO: task .* blocked for more than', r'soft lockup',
	    r'hard LOCKUP', r'rcu: INFO: .* detected stalls',
	    r'possible circular locking dependency', r'inconsistent lock state',
	    r'kmemcheck: .*no longer checked')
MUST = (MARK + r' all stressors passed$',)


def boot_timeout(duration: int) -> int:
	"""Seconds a stress boot may take: boot, then each stressor, slowly."""
	return 600 + len(STRESSORS) * (duration + 30)


def shadow_alloc_range(system_map: str) -> Tuple[int, int]:
	"""[start, end) of kmemcheck_shadow_alloc() in System.map."""
	addrs = []
	with open(system_map) as f:
		for line in f:
			addr, kind, name = line.split()[:3]
			if kind in 'tT':
				addrs.append((int(addr, 16), name))
	addrs.sort()
	for i, (addr, name) in enumerate(addrs):
		if name == 'kmemcheck_shadow_alloc' and i + 1 < len(addrs):
			return addr, addrs[i + 1][0]
	raise ValueError(f'no kmemcheck_shadow_alloc in {system_map}')


def _stressor(name: str, opts: str, duration: int) -> str:
	label = f'{name}{opts and " " + opts}'
	return (f'echo "{MARK} run {label}"\n'
		f'stress-ng --{name} 1 {opts} --timeout {duration}s --verify '
		f'--metrics-brief --temp-path /tmp --oomable\n'
		f'rc=$?\n'
		f'echo "{MARK} result {label} rc=$rc"\n'
		f'[ $rc -eq 0 ] || failed=$((failed + 1))\n')


def _toggle(duration: int) -> str:
	"""Background 1->0->1 of kernel.kmemcheck while a stressor runs."""
	pause = max(duration / 3, 0.2)
	return (f'(sleep {pause:.1f}; '
		f'echo 0 > /proc/sys/kernel/kmemcheck && '
		f'echo "{MARK} toggled to $(cat /proc/sys/kernel/kmemcheck)"; '
		f'sleep {pause:.1f}; '
		f'echo 1 > /proc/sys/kernel/kmemcheck && '
		f'echo "{MARK} toggled to $(cat /proc/sys/kernel/kmemcheck)") &\n'
		'toggler=$!\n')


FAULT_SETUP = '''F=/sys/kernel/debug/fail_page_alloc
echo {start:#x} > $F/require-start
echo {end:#x} > $F/require-end
echo 0 > $F/min-order
echo N > $F/ignore-gfp-wait
echo N > $F/ignore-gfp-highmem
echo 0 > $F/verbose
echo 1 > $F/interval
echo -1 > $F/times
echo {probability} > $F/probability
'''

SHOW_NMI = (f'echo "{MARK} nmi count $(awk \'/^ *NMI:/ {{print $2}}\' '
	    '/proc/interrupts)"\n')


def scenario(duration: int, shadow_range: Tuple[int, int]) -> str:
	"""The guest's shell script for stressors of @duration seconds each."""
	tracing = '/sys/kernel/tracing'
	script = [
		f'mount -t tracefs none {tracing}\n',
		'ip link set lo up\n',
		'mkdir -p /dev/shm && mount -t tmpfs none /dev/shm\n',
		'cd /tmp\n',
		'failed=0\n',
		SHOW_NMI,
		FAULT_SETUP.format(start=shadow_range[0], end=shadow_range[1],
				   probability=FAIL_PROBABILITY),
	]
	for name, opts in STRESSORS:
		if name in FTRACE_DURING:
			script.append(f'echo function > {tracing}/current_tracer\n')
		if name == TOGGLE_DURING:
			script.append(_toggle(duration))
		script.append(_stressor(name, opts, duration))
		if name == TOGGLE_DURING:
			script.append('wait $toggler\n')
		if name in FTRACE_DURING:
			# Before the tracer changes, which empties the buffer.
			script.append(
				f'echo "{MARK} ftrace $(grep -E \'^(entries|overrun):\' '
				f'{tracing}/per_cpu/cpu0/stats | tr \'\\n\' \' \')"\n'
				f'echo nop > {tracing}/current_tracer\n')
	script += [
		'echo 0 > /sys/kernel/debug/fail_page_alloc/probability\n',
		SHOW_NMI,
		f'echo "{MARK} kernel.kmemcheck=$(cat /proc/sys/kernel/kmemcheck)"\n',
		'cat /sys/kernel/debug/kmemcheck/stats | '
		f'sed "s/^/{MARK} stats /"\n',
		f'if [ $failed -eq 0 ]; then echo "{MARK} all stressors passed"; '
		f'else echo "{MARK} $failed stressors failed"; fi\n',
	]
	return ''.join(script)


class NmiInjector(threading.Thread):
	"""Sends "nmi" to QEMU's human monitor on a Unix socket, periodically,
	from the moment user space is up: an NMI before the kernel has set up
	its IDT would triple-fault the guest."""

	def __init__(self, path: str, interval: float = NMI_INTERVAL) -> None:
		super().__init__(daemon=True)
		self.path = path
		self.interval = interval
		self.sent = 0
		self.stop = threading.Event()
		self.start_event = threading.Event()

	def _connect(self) -> Optional[socket.socket]:
		while not self.stop.is_set():
			try:
				sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
				sock.connect(self.path)
				sock.setblocking(False)
				return sock
			except OSError:
				sock.close()
				self.stop.wait(0.2)
		return None

	def run(self) -> None:
		while not self.start_event.wait(0.2):
			if self.stop.is_set():
				return
		sock = self._connect()
		if sock is None:
			return
		with sock:
			while not self.stop.wait(self.interval):
				try:
					while sock.recv(4096):
						pass
				except BlockingIOError:
					pass
				except OSError:
					return
				try:
					sock.sendall(b'nmi\n')
				except OSError:
					return
				self.sent += 1


class _Console:
	"""The console as qemu.boot() echoes it: starts the NMIs at user space."""

	def __init__(self, nmi: NmiInjector, echo: Optional[TextIO]) -> None:
		self.nmi = nmi
		self.echo = echo

	def write(self, text: str) -> None:
		if qemu.USERSPACE_MARKER in text:
			self.nmi.start_event.set()
		if self.echo is not None:
			self.echo.write(text)

	def flush(self) -> None:
		if self.echo is not None:
			self.echo.flush()


def boot(kernel: str, initrd: str, cmdline: str, timeout: float, log_path: str,
	 echo: Optional[TextIO] = None,
	 mach: qemu.Machine = qemu.Machine()) -> Tuple[qemu.BootResult, int]:
	"""Boots the stress initramfs with NMIs injected; (result, NMIs sent)."""
	sock_path = log_path + '.monitor'
	if os.path.exists(sock_path):
		os.unlink(sock_path)
	nmi = NmiInjector(sock_path)
	nmi.start()
	try:
		res = qemu.boot(kernel, initrd, cmdline, 1, timeout, log_path,
				echo=_Console(nmi, echo),  # type: ignore[arg-type]
				extra_args=['-monitor', f'unix:{sock_path},server=on,wait=off'],
				mach=mach)
	finally:
		nmi.stop.set()
		nmi.join()
		if os.path.exists(sock_path):
			os.unlink(sock_path)
	return res, nmi.sent


def _values(text: str, rx: str) -> List[str]:
	return re.findall(rx, text, re.M)


def check(res: qemu.BootResult, want_mode: int) -> Optional[str]:
	"""What the stress scenario's console says went wrong, or None."""
	text = qemu.userspace_text(res.lines)
	bad = _values(text, rf'^{MARK} result (.*) rc=([1-9]\d*)$')
	if bad:
		return (f'{len(bad)} stressors failed: '
			+ ', '.join(f'{n} (rc {rc})' for n, rc in bad))
	ran = len(_values(text, rf'^{MARK} result .* rc=0$'))
	if ran != len(STRESSORS):
		return f'{ran} of {len(STRESSORS)} stressors finished'
	nmis = [int(n) for n in _values(text, rf'^{MARK} nmi count (\d+)$')]
	if len(nmis) != 2 or nmis[1] <= nmis[0]:
		return f'no NMI arrived during the workload (counts {nmis})'
	for entries in _values(text, rf'^{MARK} ftrace entries: (\d+)'):
		if int(entries) == 0:
			return 'the function tracer recorded nothing'
	if len(_values(text, rf'^{MARK} ftrace entries: ')) != len(FTRACE_DURING):
		return 'the function tracer did not run'
	if want_mode:
		toggles = _values(text, rf'^{MARK} toggled to (\d)$')
		if toggles != ['0', '1']:
			return f'kernel.kmemcheck toggle 1->0->1 gave {toggles}'
		failures = _values(text, rf'^{MARK} stats shadow allocation failures: (\d+)$')
		if not failures or int(failures[0]) == 0:
			return 'no shadow allocation failed under fault injection'
	mode = _values(text, rf'^{MARK} kernel\.kmemcheck=(\d)$')
	if mode != [str(want_mode)]:
		return f'kernel.kmemcheck ends as {mode}, expected {want_mode}'
	return None


def summary(res: qemu.BootResult, nmis_sent: int) -> List[str]:
	"""Figures of one stress boot, one per line."""
	text = qemu.userspace_text(res.lines)
	nmis = _values(text, rf'^{MARK} nmi count (\d+)$')
	out = [f'{len(_values(text, rf"^{MARK} result .* rc=0$"))}/{len(STRESSORS)} '
	       f'stressors passed in {res.seconds:.0f} s',
	       f'NMIs: {nmis_sent} injected, guest count {" -> ".join(nmis)}']
	out += [f'ftrace {m}' for m in _values(text, rf'^{MARK} ftrace (.*)$')]
	out += _values(text, rf'^{MARK} stats (.*)$')
	return out


def known_console_noise() -> Sequence[str]:
	"""Messages the injected NMIs cause, which are expected."""
	return (r'NMI received for unknown reason', r'Dazed and confused')
