# SPDX-License-Identifier: GPL-2.0
"""The fuzz/ layer: Debian's trinity system call fuzzer under kmemcheck=1.

fuzz/trinity boots the default kernel with kmemcheck=1 on a machine with a
virtio disk (a scratch ext4 image made here) and a virtio NIC (QEMU's user
network with restrict=on), and an initramfs holding busybox and Debian's
i386 trinity with the libraries it needs (its Depends, resolved
recursively and fetched with the harness's private apt state into
<build>/debs-fuzz).  The guest adds an unprivileged user, mounts the disk,
and runs trinity as that user from a directory on the disk, with a fixed
seed and a bounded number of system calls, under a time limit.  The test
passes when the guest gets back to the script and powers off in time,
without a splat, and every kmemcheck report is a known finding (the
"Findings on 6.12" of tools/testing/kmemcheck/README).

The layer is made of the BootTest of kmemcheck_tables.py and of the
check_boot() and Result of kmemcheck_layers.py, which kmemcheck.py passes
to test_fuzz(), as devices/ is.
"""

import contextlib
import os
import re
import shutil
import subprocess
from types import ModuleType
from typing import List, Optional

import kmemcheck_qemu as qemu
import kmemcheck_tables as tables
import kmemcheck_tree as tree
from kmemcheck_tree import HarnessError

LAYER = 'fuzz'
MARK = 'kmemcheck-fuzz:'

# ------------------------------------------------------------- packages ---

def trinity_debs(build_dir: str) -> List[str]:
	"""busybox-static's .deb, then those of tree.FUZZ_PACKAGES and all they
	Depend on (i386), fetched into <build>/debs-fuzz on first use; the
	resolved list is kept there in "closure", so later calls ask apt nothing."""
	directory = os.path.join(build_dir, 'debs-fuzz')
	os.makedirs(directory, exist_ok=True)
	manifest = os.path.join(directory, 'closure')
	want = ' '.join(tree.FUZZ_PACKAGES)
	names: List[str] = []
	if os.path.exists(manifest):
		with open(manifest) as f:
			head, *names = f.read().split('\n')
		names = [n for n in names if n] if head == want else []
	if not names:
		names = tree._depends_closure(build_dir, tree.FUZZ_PACKAGES)
	debs = tree.fetch_debs(build_dir, directory, names)
	with open(manifest, 'w') as f:
		f.write('\n'.join([want, *names]) + '\n')
	busybox = tree.fetch_debs(build_dir, os.path.join(build_dir, 'debs'), tree.GUEST_DEBS)
	return busybox + debs


# ----------------------------------------------------------------- disk ---

DISK_SIZE = '16M'


def scratch_disk(path: str) -> str:
	"""An empty ext4 image of DISK_SIZE at @path, made anew (the guest
	writes to it)."""
	search = os.pathsep.join([os.environ.get('PATH', ''), '/usr/sbin', '/sbin'])
	mkfs = shutil.which('mkfs.ext4', path=search)
	if not mkfs:
		raise HarnessError('no mkfs.ext4: install e2fsprogs (kmemcheck.py deps)')
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with contextlib.suppress(FileNotFoundError):
		os.unlink(path)
	subprocess.run(['truncate', '-s', DISK_SIZE, path], check=True)
	proc = subprocess.run([mkfs, '-q', '-F', path], stdout=subprocess.PIPE,
			      stderr=subprocess.STDOUT, text=True)
	if proc.returncode:
		raise HarnessError(f'mkfs.ext4 {path} failed: {proc.stdout.strip()}')
	return path


# ------------------------------------------------------------- scenario ---

USER = 'fuzz'
UID = 1000
WORK_DIR = '/mnt/fuzz'
SEED = 27
SYSCALLS = 40000		# trinity -N: system calls in all, then it exits
CHILDREN = 2		# trinity -C
# trinity's fallocate() of a memfd or of a tmpfs file filled a 512 MiB
# guest with shmem pages until the OOM killer took trinity's main process.
TMPFS_SIZE = '16m'
FILE_BLOCKS = 8192	# ulimit -f: 4 MiB
TRINITY_TIME = 210	# seconds before "timeout" interrupts trinity

# Not fuzzed (trinity -x), with why: none.  Trinity's own AVOID list keeps
# it from exit, fork and the like; as an unprivileged user reboot,
# kexec_load, init_module, swapoff, iopl... fail with EPERM (and this
# kernel has no kexec_load, SysV IPC, bpf, userfaultfd... at all: ENOSYS).
# The one cause of a flaky run met was memory, not a system call:
# fallocate() of a memfd or a tmpfs file filled the guest with shmem
# until the OOM killer took trinity's main process, and its count of
# system calls with it.  The limits of TMPFS_SIZE and FILE_BLOCKS bound
# that instead of excluding fallocate, ftruncate, write or memfd_create.
EXCLUDE: tuple = ()

# --disable-fds=sockets: Debian 12's trinity reads past net_protocols[]
# when it opens its socket fds at start-up and crashes before fuzzing.
# -l off: no per-child log files (an fsync before every call); -T: only
# a WARN or an oops (DIE) taint stops trinity, not kmemcheck's BAD_PAGE
# taint: every report is read from the console, and a known finding
# must not end the run.
TRINITY_ARGS = (f'-q -l off -s {SEED} -N {SYSCALLS} -C {CHILDREN} '
		'--disable-fds=sockets -T WARN,DIE' +
		''.join(f' -x {name}' for name in EXCLUDE))


def scenario() -> str:
	"""The guest's script: the user, the disk, the NIC, trinity as the user."""
	return f'''M={MARK}
echo 'root:x:0:0:root:/root:/bin/sh' > /etc/passwd
echo '{USER}:x:{UID}:{UID}:trinity:{WORK_DIR}:/bin/sh' >> /etc/passwd
echo 'root:x:0:' > /etc/group
echo '{USER}:x:{UID}:' >> /etc/group
mkdir -p {WORK_DIR}
if mount -t ext4 /dev/vda {WORK_DIR}; then echo "$M disk mounted"; else echo "$M disk FAIL"; fi
chown {UID}:{UID} {WORK_DIR}
ip link set lo up
ip link set eth0 up && echo "$M nic up"
# The user's files in memory are bounded: {TMPFS_SIZE} per tmpfs, and no
# file (a memfd's too) larger than {FILE_BLOCKS} blocks of 512 bytes.
mount -o remount,size={TMPFS_SIZE} /tmp
mkdir -p /dev/shm && mount -t tmpfs -o size={TMPFS_SIZE} none /dev/shm
# The OOM killer takes trinity's processes, never this script.
echo -1000 > /proc/self/oom_score_adj
echo "$M user $(su -s /bin/sh {USER} -c 'id -u')"
echo "$M trinity start {TRINITY_ARGS}"
cd {WORK_DIR}
timeout -s INT {TRINITY_TIME} su -s /bin/sh {USER} -c \\
	'ulimit -f {FILE_BLOCKS}; echo 500 > /proc/self/oom_score_adj; exec trinity {TRINITY_ARGS}' 2>&1
echo "$M trinity rc=$?"
# Children that outlived trinity's main process would keep the disk busy.
su -s /bin/sh {USER} -c 'kill -9 -1' 2>/dev/null
sleep 1
cd /
sync
umount {WORK_DIR} && echo "$M disk unmounted"
cat /proc/sys/kernel/tainted | sed "s/^/$M tainted /"
grep -E '^(reports|faults):' /sys/kernel/debug/kmemcheck/stats | sed "s/^/$M stats /"
echo "$M done"
'''


# What the guest must print: the user, trinity's end, the disk back.
KSTR_USER = rf'^{MARK} user {UID}$'
KSTR_RAN = r'Ran (\d+) syscalls\. Successes: (\d+)\s+Failures: (\d+)'
KSTR_RC = rf'^{MARK} trinity rc=(\d+)$'
MUST = (rf'^{MARK} disk mounted$', rf'^{MARK} nic up$', KSTR_USER, KSTR_RAN,
	rf'^{MARK} disk unmounted$', rf'^{MARK} done$')
# On top of the harness's splats: a hang or a lock bug, trinity's own
# word that it crashed or saw the kernel tainted by a WARN or an oops.
MUST_NOT = (r'INFO: task .* blocked for more than', r'soft lockup', r'hard LOCKUP',
	    r'rcu: INFO: .* detected stalls', r'kmemcheck: .*no longer checked',
	    r'kernel became tainted', r'Detected kernel tainting', rf'^{MARK} disk FAIL')

# Measured on the harness's 2-core machine under TCG, shared: user space
# after 30 s, trinity's start-up (it opens files of /proc, /sys and /dev)
# 20 s, 12000 system calls in 50 s; with SYSCALLS, TRINITY_TIME bounds
# the run (38537 calls in 240 s, 297 s for the whole boot).  A guest
# that hangs costs TIMEOUT, not more.
TIMEOUT = 420
MEMORY = 512	# MiB: trinity's mappings on top of kmemcheck's shadow


def detail(res: qemu.BootResult) -> str:
	"""What a boot tells: system calls run, reports seen."""
	text = qemu.userspace_text(res.lines)
	parts = []
	m = re.search(KSTR_RAN, text)
	if m:
		parts.append(f'{m.group(1)} syscalls ({m.group(2)} ok, {m.group(3)} failed)')
	m = re.search(KSTR_RC, text, re.M)
	if m:
		parts.append(f'trinity rc={m.group(1)}')
	reports = qemu.kmemcheck_reports(res.lines)
	if reports:
		parts.append(f'{len(reports)} reports: ' +
			     ', '.join(sorted({f'{k} in {f}' for k, f in reports})))
	return f'[{", ".join(parts)}]' if parts else ''


def boot(ctx, name: str = 'trinity', cmdline: str = 'kmemcheck=1', echo=None):
	"""One boot of the trinity scenario; (BootTest, BootResult)."""
	t = tables.BootTest(name, cmdline, 1, scenario(), must=[tables.KSTR_BOOT_MODE[1], *MUST],
			    must_not=list(MUST_NOT), timeout=TIMEOUT)
	log_name = f'{LAYER}-{name}'
	initrd = qemu.build_initramfs(
		trinity_debs(ctx.build_dir), t.script,
		os.path.join(ctx.build_dir, 'initramfs', f'{log_name}.cpio'), compress=False)
	disk = scratch_disk(os.path.join(ctx.build_dir, LAYER, f'{name}.img'))
	mach = qemu.Machine(max(ctx.machine.memory, MEMORY), ctx.machine.cpu, ctx.machine.nx)
	try:
		res = qemu.boot(ctx.kernel, initrd, f'kunit.enable=0 {t.cmdline}', t.smp,
				t.timeout, os.path.join(ctx.logs, f'{log_name}.log'), echo=echo,
				mach=mach, disks=[disk], net='isolated')
	finally:
		with contextlib.suppress(FileNotFoundError):
			os.unlink(disk)
	return t, res


def test_fuzz(ctx, rep, h: ModuleType) -> None:
	"""fuzz/trinity, if @rep wants it, on ctx's kernel (@h: kmemcheck_layers.py)."""
	name = f'{LAYER}/trinity'
	if not rep.wants_layer(LAYER) or not rep.wants(name):
		return
	os.makedirs(ctx.logs, exist_ok=True)
	try:
		t, res = boot(ctx)
	except (HarnessError, OSError, subprocess.CalledProcessError) as e:
		rep.report(h.Result(name, False, str(e).splitlines()[0]))
		return
	why = h.check_boot(t, res)
	if why:
		# An unexplained report: print it whole, not only the console's end.
		report = first_report(res.lines)
		rep.report(h.Result(name, False, f'{why} (log: {res.log_path})', res.seconds,
				    log=res.log_path), tail=report or res.tail())
	else:
		rep.report(h.Result(name, True, detail(res), res.seconds, log=res.log_path))


def first_report(lines: List[str]) -> Optional[str]:
	"""The lines of the first kmemcheck report of the console, or None."""
	for i, line in enumerate(lines):
		if 'BUG: KMEMCHECK:' in line:
			end = i + 1
			while end < len(lines) and end < i + 80 and '====' not in lines[end]:
				end += 1
			return '\n'.join(lines[max(i - 1, 0):end + 1])
	return None
