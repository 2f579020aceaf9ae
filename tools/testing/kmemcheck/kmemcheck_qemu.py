# SPDX-License-Identifier: GPL-2.0
"""Guest side of the kmemcheck harness: the busybox initramfs and QEMU boots.

The initramfs is busybox-static:i386 (and whatever other i386 .debs the
caller lists, e.g. stress-ng and its libraries) unpacked plus an /init
script that mounts the usual file systems, prints USERSPACE_MARKER, runs a
scenario script and powers the machine off.  boot() runs qemu-system-i386
under a deadline, keeps the console in a log and reports how the boot ended.
"""

import gzip
import os
import re
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, TextIO, Tuple

USERSPACE_MARKER = 'kmemcheck-harness: userspace up'
DONE_MARKER = 'kmemcheck-harness: scenario done'
PANIC_RE = re.compile(r'Kernel panic - not syncing|end Kernel panic')
BASE_CMDLINE = 'console=ttyS0 panic=-1 init_on_alloc=0'
DEFAULT_TIMEOUT = 300

INIT = f'''#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc none /proc
mount -t sysfs none /sys
mount -t devtmpfs none /dev 2>/dev/null
mount -t debugfs none /sys/kernel/debug
mount -t tmpfs none /tmp
echo "{USERSPACE_MARKER}"
. /scenario.sh
echo "{DONE_MARKER} rc=$?"
poweroff -f
'''

SHELL_SCENARIO = '''echo "kmemcheck-harness: interactive shell; 'poweroff -f' or exit to stop"
setsid cttyhack sh
'''

# The demo: provoke one uninit-value and one kernel-infoleak report.
DEMO_SCENARIO = '''DEMO=/sys/kernel/debug/kmemcheck/demo
if [ -e $DEMO ]; then
	echo "kmemcheck-harness: writing uninit to $DEMO"
	echo uninit > $DEMO
	echo "kmemcheck-harness: reading $DEMO"
	cat $DEMO > /dev/null
else
	echo "kmemcheck-harness: $DEMO does not exist (kernel without CONFIG_KMEMCHECK_DEMO?)"
fi
echo "kmemcheck-harness: kernel.kmemcheck=$(cat /proc/sys/kernel/kmemcheck 2>&1)"
'''


# ------------------------------------------------------------ initramfs ---

class CpioWriter:
	"""Writes a "newc" cpio archive, so device nodes need no mknod."""

	def __init__(self, out) -> None:
		self.out = out
		self.ino = 1

	def add(self, name: str, mode: int, data: bytes = b'',
		rdev: tuple = (0, 0)) -> None:
		name_b = name.encode() + b'\0'
		hdr = '070701' + ''.join(f'{v:08x}' for v in (
			self.ino, mode, 0, 0, 1, 0, len(data), 0, 0,
			rdev[0], rdev[1], len(name_b), 0))
		self.ino += 1
		self.out.write(hdr.encode() + name_b)
		self.out.write(b'\0' * (-(110 + len(name_b)) % 4))
		self.out.write(data)
		self.out.write(b'\0' * (-len(data) % 4))

	def add_tree(self, root: str) -> None:
		for dirpath, dirnames, filenames in os.walk(root):
			dirnames.sort()
			for name in sorted(dirnames) + sorted(filenames):
				full = os.path.join(dirpath, name)
				rel = os.path.relpath(full, root)
				st = os.lstat(full)
				if stat.S_ISLNK(st.st_mode):
					self.add(rel, st.st_mode, os.readlink(full).encode())
				elif stat.S_ISDIR(st.st_mode):
					self.add(rel, st.st_mode)
				elif stat.S_ISREG(st.st_mode):
					with open(full, 'rb') as f:
						self.add(rel, st.st_mode, f.read())

	def finish(self) -> None:
		self.add('TRAILER!!!', 0)


# Parts of the packages no program of ours reads: documentation, locales,
# X11 data and iconv modules.  Left out, they would only make the
# initramfs bigger and its unpacking at boot (tracked pages) slower.
INITRAMFS_PRUNE = ('usr/share', 'usr/lib/i386-linux-gnu/gconv')


def build_initramfs(debs: List[str], scenario: str, out_path: str,
		    compress: bool = True, add: Sequence[Tuple[str, str]] = ()) -> str:
	"""Writes <out_path> (a cpio, gzip'd if @compress) with the .debs
	unpacked (busybox first), the (host path, guest path) pairs of @add
	(files or directories, copied with their modes), /init and /scenario.sh.

	Large userlands want compress=False: with kmemcheck=1, the kernel's
	inflate writes its output a byte at a time into a tracked buffer, one
	page fault per byte, which makes unpacking some 20 MB take minutes.
	"""
	with tempfile.TemporaryDirectory(prefix='kmemcheck-initramfs-') as root:
		for deb in debs:
			subprocess.run(['dpkg-deb', '-x', deb, root], check=True)
		for path in INITRAMFS_PRUNE:
			shutil.rmtree(os.path.join(root, path), ignore_errors=True)
		if not os.path.exists(os.path.join(root, 'bin/busybox')):
			raise RuntimeError('busybox-static .deb has no /bin/busybox')
		for host, guest in add:
			dst = os.path.join(root, guest.lstrip('/'))
			os.makedirs(os.path.dirname(dst), exist_ok=True)
			if os.path.isdir(host):
				shutil.copytree(host, dst, symlinks=True, dirs_exist_ok=True)
			else:
				shutil.copy2(host, dst)
		os.makedirs(os.path.dirname(out_path), exist_ok=True)
		tmp = out_path + '.tmp'
		with (gzip.open(tmp, 'wb', compresslevel=6) if compress
		      else open(tmp, 'wb')) as out:
			cpio = CpioWriter(out)
			cpio.add_tree(root)
			for d in ('dev', 'proc', 'sys', 'tmp', 'sbin', 'usr', 'usr/bin',
				  'usr/sbin', 'root', 'etc'):
				if not os.path.exists(os.path.join(root, d)):
					cpio.add(d, stat.S_IFDIR | 0o755)
			cpio.add('dev/console', stat.S_IFCHR | 0o600, rdev=(5, 1))
			cpio.add('init', stat.S_IFREG | 0o755, INIT.encode())
			cpio.add('scenario.sh', stat.S_IFREG | 0o755, scenario.encode())
			cpio.finish()
		os.replace(tmp, out_path)
	return out_path


# ----------------------------------------------------------------- boot ---

@dataclass
class BootResult:
	"""How a boot ended and what the console said."""
	lines: List[str] = field(default_factory=list)
	timed_out: bool = False
	panicked: bool = False
	reached_userspace: bool = False
	finished_scenario: bool = False
	exit_code: Optional[int] = None
	seconds: float = 0.0
	log_path: str = ''

	def failure(self) -> Optional[str]:
		"""One-line reason the boot failed, or None."""
		if self.panicked:
			return 'kernel panic'
		if self.timed_out:
			return 'guest did not finish in time (hung or too slow)'
		if not self.reached_userspace:
			return 'guest never reached userspace'
		if not self.finished_scenario:
			return 'guest stopped before the scenario finished'
		return None

	def scenario_rc(self) -> Optional[int]:
		"""The exit status init reported for the scenario, if it finished."""
		m = re.search(DONE_MARKER + r' rc=(\d+)$', userspace_text(self.lines), re.M)
		return int(m.group(1)) if m else None

	def tail(self, n: int = 40) -> str:
		return '\n'.join(self.lines[-n:])


@dataclass(frozen=True)
class Machine:
	"""The guest machine a configuration boots on."""
	memory: int = 256  # MiB
	cpu: str = ''  # QEMU's -cpu model; '' for its default, which has no NX
	nx: bool = False  # the CPU model has NX (a PAE kernel then uses it)

	def args(self) -> List[str]:
		return ['-m', str(self.memory)] + (['-cpu', self.cpu] if self.cpu else [])


# The machine of each configuration (kmemcheck_tree.CONFIGS), default
# otherwise.  pae, and debian, which is a 686-pae kernel: more memory than the 896 MiB of lowmem a 3G/1G split
# maps, so that highmem exists (kmemcheck must never track it), and a CPU
# with NX, SMEP and SMAP, as Debian's 686-pae kernel runs on: under TCG
# QEMU's "max" model has them.  It says it is an AMD family 6 model 6, an
# Athlon, which the kernel warns is not fit for SMP: an Intel one is.
MACHINES = {
	'pae': Machine(memory=1280, cpu='max,vendor=GenuineIntel', nx=True),
	'debian': Machine(memory=1280, cpu='max,vendor=GenuineIntel', nx=True),
}


def machine(config: str) -> Machine:
	return MACHINES.get(config, Machine())


# The NIC of a guest with networking: virtio-net on QEMU's user network
# (slirp), where QEMU itself is the DHCP server (it hands out 10.0.2.15)
# and the gateway, GATEWAY, which answers pings.  "isolated" adds
# restrict=on: no packet of the guest leaves QEMU, only QEMU's own DHCP
# server and gateway answer it.
NETS = {'': 'none', 'user': 'user,model=virtio-net-pci',
	'isolated': 'user,model=virtio-net-pci,restrict=on'}
GATEWAY = '10.0.2.2'


def device_args(disks: Sequence[str] = (), net: str = '') -> List[str]:
	"""QEMU arguments of the guest's devices: each raw image of @disks as a
	virtio-blk disk (/dev/vda, /dev/vdb, ... in this order), and the NIC
	of @net (a key of NETS; '': none)."""
	args: List[str] = []
	for disk in disks:
		# In -drive's options a comma of the file name is written twice.
		args += ['-drive', f'file={disk.replace(",", ",,")},if=virtio,format=raw']
	if net not in NETS:
		raise ValueError(f'unknown network {net!r} (one of {", ".join(NETS)})')
	return args + ['-nic', NETS[net]]


def qemu_cmd(kernel: str, initrd: str, cmdline: str, smp: int,
	     interactive: bool = False, extra_args: Sequence[str] = (),
	     mach: Machine = Machine(), disks: Sequence[str] = (),
	     net: str = '') -> List[str]:
	"""The QEMU command line; @extra_args come last, verbatim."""
	cmd = ['qemu-system-i386', *mach.args(), '-nographic', '-no-reboot',
	       *device_args(disks, net), '-smp', str(smp),
	       '-kernel', kernel, '-initrd', initrd,
	       '-append', f'{BASE_CMDLINE} {cmdline}'.strip()]
	if not interactive:
		# No monitor on the console: a stray ^A must not reach it.
		cmd[cmd.index('-nographic') + 1:cmd.index('-nographic') + 1] = \
			['-monitor', 'none', '-serial', 'stdio']
		cmd.remove('-nographic')
		cmd[1:1] = ['-display', 'none']
	return cmd + list(extra_args)


def boot(kernel: str, initrd: str, cmdline: str, smp: int, timeout: float,
	 log_path: str, echo: Optional[TextIO] = None,
	 extra_args: Sequence[str] = (), mach: Machine = Machine(),
	 disks: Sequence[str] = (), net: str = '') -> BootResult:
	"""Boots @mach, with the devices of device_args(@disks, @net), and
	waits for QEMU to exit, a panic, or the deadline; @extra_args go to
	the end of QEMU's command line."""
	res = BootResult(log_path=log_path)
	os.makedirs(os.path.dirname(log_path), exist_ok=True)
	cmd = qemu_cmd(kernel, initrd, cmdline, smp, extra_args=extra_args, mach=mach,
		       disks=disks, net=net)
	t0 = time.time()
	proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
				stderr=subprocess.STDOUT, start_new_session=True)
	sel = selectors.DefaultSelector()
	sel.register(proc.stdout, selectors.EVENT_READ)
	buf = b''
	panic_deadline = None
	with open(log_path, 'w') as logf:
		logf.write(f'$ {" ".join(cmd)}\n')
		while True:
			now = time.time()
			deadline = t0 + timeout
			if panic_deadline is not None:
				deadline = min(deadline, panic_deadline)
			if now >= deadline:
				res.timed_out = panic_deadline is None or now < panic_deadline
				break
			if not sel.select(timeout=min(1.0, deadline - now)):
				continue
			chunk = os.read(proc.stdout.fileno(), 65536)
			if not chunk:
				break
			buf += chunk
			*done, buf = buf.split(b'\n')
			for raw in done:
				line = raw.decode('utf-8', 'replace').rstrip('\r')
				res.lines.append(line)
				logf.write(line + '\n')
				if echo is not None:
					echo.write(line + '\n')
					echo.flush()
				if USERSPACE_MARKER in line:
					res.reached_userspace = True
				if DONE_MARKER in line:
					res.finished_scenario = True
				if PANIC_RE.search(line):
					res.panicked = True
					# Let the panic message finish, then stop.
					panic_deadline = panic_deadline or time.time() + 10
		if buf:
			res.lines.append(buf.decode('utf-8', 'replace').rstrip('\r'))
			logf.write(res.lines[-1] + '\n')
		if proc.poll() is None:
			os.killpg(proc.pid, signal.SIGKILL)
		res.exit_code = proc.wait()
		user = userspace_text(res.lines)
		res.reached_userspace = res.reached_userspace or USERSPACE_MARKER in user
		res.finished_scenario = res.finished_scenario or DONE_MARKER in user
		res.seconds = time.time() - t0
		logf.write(f'# qemu exit {res.exit_code} after {res.seconds:.1f} s'
			   f'{" (timed out)" if res.timed_out else ""}\n')
	sel.close()
	proc.stdout.close()
	return res


def boot_interactive(kernel: str, initrd: str, cmdline: str, smp: int,
		     mach: Machine = Machine(), extra_args: Sequence[str] = (),
		     disks: Sequence[str] = (), net: str = '') -> int:
	"""Boots with the console on this terminal; returns QEMU's exit code."""
	cmd = qemu_cmd(kernel, initrd, cmdline, smp, interactive=True, mach=mach,
		       extra_args=extra_args, disks=disks, net=net)
	print('$ ' + ' '.join(cmd), flush=True)
	return subprocess.call(cmd)


# Kernel messages from another CPU can land in the middle of a line that
# user space writes to the same serial port: drop them to read user space.
KERNEL_LINE_RE = re.compile(r'\[\s*\d+\.\d+\][^\n]*(?:\n|$)')


def userspace_text(lines: List[str]) -> str:
	"""The console with kernel messages (timestamped) cut out."""
	return KERNEL_LINE_RE.sub('', '\n'.join(lines))


def kernel_text(lines: List[str]) -> str:
	"""The kernel messages (timestamped) of the console, without user space's
	output: stress-ng prints "WARNING:" lines of its own."""
	return ''.join(KERNEL_LINE_RE.findall('\n'.join(lines)))


# -------------------------------------------------------------- splats ---

# What the kernel prints when something went wrong that is not a kmemcheck
# report: no boot may print one unless its scenario expects it.  Besides
# the oopses and warnings, lockdep's splats (some of which are not titled
# WARNING:), the hang detectors, UBSAN, and a taint left by a warning or
# an oops, which every later dump repeats.
SPLATS = (r'Kernel panic', r'Oops', r'BUG: unable to handle', r'kernel BUG at',
	  r'\bBUG: (?!KMEMCHECK)', r'WARNING:', r'general protection fault',
	  r'sysfs: cannot create duplicate filename', r'UBSAN:',
	  r'possible circular locking dependency', r'possible recursive locking',
	  r'inconsistent lock state', r'possible irq lock inversion',
	  r'INFO: trying to register non-static key', r'DEBUG_LOCKS_WARN_ON',
	  r'lock held when returning to user space', r'INFO: task .* blocked for more than',
	  r'soft lockup', r'hard LOCKUP', r'rcu: INFO: .* detected stalls',
	  r'Tainted: .*\[[WD]\]=')


def first_splat(lines: List[str], allowed: Sequence[str] = ()) -> Optional[str]:
	"""The first kernel line matching SPLATS and none of @allowed, as
	"/regex/: line", or None.  Only the kernel's own (timestamped) lines:
	user space may print "WARNING:" of its own."""
	for line in kernel_text(lines).splitlines():
		for rx in SPLATS:
			if rx in allowed or not re.search(rx, line):
				continue
			if any(re.search(a, line) for a in allowed):
				continue
			return f'/{rx}/: {line.strip()}'
	return None


# ------------------------------------------------------------- reports ---

REPORT_RE = re.compile(r'BUG: KMEMCHECK: (\S+) in (\S+)')

# What became of the values followed (kmemcheck.follow=1, the default):
# judged at a use or dead, or given up unjudged: reported at the load
# ("followed, not judged") or dropped ("followed, dropped"), and why
# ("not judged: ...", in the log only).  A scenario ends with FOLLOW_STATS;
# follow_stats() reads them back.
FOLLOW_STATS = ("grep -E '^(uninit loads followed|followed|not judged)' "
		"/sys/kernel/debug/kmemcheck/stats 2>/dev/null | "
		"sed 's/^/kmemcheck-harness: follow /'\n")
FOLLOW_STATS_RE = re.compile(r'kmemcheck-harness: follow '
			     r'(uninit loads followed|followed, not judged|followed, dropped): (\d+)')


def follow_stats(lines: Sequence[str]) -> str:
	"""'N values followed, M not judged, K dropped', from the last stats."""
	stats = {}
	for line in lines:
		m = FOLLOW_STATS_RE.search(line)
		if m:
			stats[m.group(1)] = int(m.group(2))
	if len(stats) != 3:
		return ''
	return (f'{stats["uninit loads followed"]} values followed, '
		f'{stats["followed, not judged"]} not judged, '
		f'{stats["followed, dropped"]} dropped')



def kmemcheck_reports(lines: List[str]) -> List[tuple]:
	"""(type, function) of every kmemcheck report title in the console."""
	out = []
	for line in lines:
		m = REPORT_RE.search(line)
		if m:
			out.append((m.group(1), m.group(2).split('+')[0]))
	return out
