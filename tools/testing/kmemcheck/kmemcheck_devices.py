# SPDX-License-Identifier: GPL-2.0
"""The devices/ layer: kmemcheck on the machine people debug on.

The default kernel has virtio-blk, virtio-net, ext4, packet sockets,
compaction and kmemleak (configs/devices.config).  The layer boots it with
a virtio disk holding an ext4 image built here, a virtio NIC on QEMU's
user network and kmemleak=on, and a scenario that uses them all: the
file system through the page cache and the raw device, memory compaction,
DHCP and ping, a kmemleak scan.  The same scenario must give the same
results with kmemcheck=0 and kmemcheck=1, and kmemcheck=1 must not report:
buffers that a device writes are initialized.  A driver-shaped module that
reads less of the disk than its buffer holds must be reported, and its
twin that reads the whole buffer must not; a module that makes 256 call
sites report at once must leave the guest working, its reports held back
by kmemcheck's rate limit.

The layer is made of the BootTest of kmemcheck_tables.py and of the
check_boot(), boot_test_modules() and Result of kmemcheck_layers.py, which
kmemcheck.py passes to test_devices(), as the boot/ layer is.
"""

import contextlib
import hashlib
import inspect
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Dict, List, Optional, Tuple

import kmemcheck_qemu as qemu
import kmemcheck_tables as tables
import kmemcheck_tree as tree
from kmemcheck_tree import HarnessError

LAYER = 'devices'

# ------------------------------------------------------------------ image ---
# The ext4 image: IMAGE_FILES files of FILE_SIZES bytes, pseudo-random
# from IMAGE_SEED, some in subdirectories, and the sha256 sums of them all.
IMAGE_FILES = 300
IMAGE_SEED = 26
FILE_SIZES = (100, 8192)
IMAGE_SIZE = 64 << 20
SUBDIRS = ('', 'etc', 'lib/modules', 'srv/data', 'srv/data/deep/er')
MKFS = ('mkfs.ext4', '-q', '-F', '-b', '1024')


def make_files(root: str) -> List[Tuple[str, str]]:
	"""Writes the image's files under @root; returns their (sha256, path
	relative to @root), sorted by path."""
	rng = random.Random(IMAGE_SEED)
	sums = []
	for i in range(IMAGE_FILES):
		# Names of many lengths: directory entries of many sizes.
		name = f'f{i:03d}' + 'x' * rng.randrange(40)
		rel = os.path.join(SUBDIRS[i % len(SUBDIRS)], name)
		data = rng.randbytes(rng.randint(*FILE_SIZES))
		os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
		with open(os.path.join(root, rel), 'wb') as f:
			f.write(data)
		sums.append((hashlib.sha256(data).hexdigest(), rel))
	return sorted(sums, key=lambda s: s[1])


def _mkfs() -> str:
	path = os.pathsep.join([os.environ.get('PATH', ''), '/usr/sbin', '/sbin'])
	found = shutil.which(MKFS[0], path=path)
	if not found:
		raise HarnessError(f'no {MKFS[0]}: install e2fsprogs (kmemcheck.py deps)')
	return found


def image_key() -> str:
	"""What the image is made of: the generator, its constants, mkfs's
	options.  A change to any of them makes a new image."""
	h = hashlib.sha256(inspect.getsource(make_files).encode())
	h.update(repr((IMAGE_FILES, IMAGE_SEED, FILE_SIZES, IMAGE_SIZE, SUBDIRS,
		       MKFS)).encode())
	return h.hexdigest()


def image_dir(build_dir: str) -> str:
	return os.path.join(build_dir, 'devices')


def build_image(build_dir: str) -> Tuple[str, str]:
	"""(the ext4 image, its manifest of sums), made in <build>/devices/ once,
	and again only when image_key() changes."""
	out = image_dir(build_dir)
	image, manifest = os.path.join(out, 'ext4.img'), os.path.join(out, 'ext4.sha256')
	stamp = os.path.join(out, 'ext4.stamp')
	key = image_key()
	if all(os.path.isfile(p) for p in (image, manifest)) and tree._read(stamp) == key.encode():
		return image, manifest
	os.makedirs(out, exist_ok=True)
	t0 = time.time()
	with tempfile.TemporaryDirectory(prefix='kmemcheck-ext4-', dir=out) as tmp:
		root = os.path.join(tmp, 'root')
		sums = make_files(root)
		proc = subprocess.run([_mkfs(), *MKFS[1:], '-d', root, image + '.tmp',
				       f'{IMAGE_SIZE >> 20}M'],
				      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
		if proc.returncode:
			raise HarnessError(f'{" ".join(MKFS)} -d failed: {proc.stdout.strip()}')
	with open(manifest + '.tmp', 'w') as f:
		f.writelines(f'{sha}  {rel}\n' for sha, rel in sums)
	os.replace(manifest + '.tmp', manifest)
	os.replace(image + '.tmp', image)
	with open(stamp, 'w') as f:
		f.write(key)
	tree.log(f'devices: made {image} ({IMAGE_FILES} files, {time.time() - t0:.1f} s)')
	return image, manifest


# --------------------------------------------------------------- scenario ---
# The guest's files, under GUEST_DIR: the manifest and udhcpc's script.
GUEST_DIR = '/root/devices'
NEW_FILES = 100

# udhcpc calls it with the lease in its environment: the address, then the
# default route, through the router the lease names, else (QEMU's DHCP
# server names none under restrict=on) on the link.
DHCP_SCRIPT = '''#!/bin/sh
case "$1" in
deconfig)
	ip -4 addr flush dev "$interface"
	ip link set "$interface" up
	;;
bound|renew)
	ip -4 addr flush dev "$interface"
	ip addr add "$ip/${mask:-24}" dev "$interface"
	ip route del default 2>/dev/null
	if [ -n "$router" ]; then
		ip route add default via "${router%% *}" dev "$interface"
	else
		ip route add default dev "$interface"
	fi
	echo "devices-info: dhcp: $ip/${mask:-24}, router ${router:-none}"
	;;
esac
exit 0
'''

# Each step prints "devices: <step> ok [(detail)]" or "devices: <step> FAIL
# (why)"; "devices-info:" lines tell what may differ from boot to boot.
# The details of the ok lines are the same on every boot (STEPS).
SCENARIO = f'''D={GUEST_DIR}
ok() {{ echo "devices: $1 ok${{2:+ ($2)}}"; }}
fail() {{ echo "devices: $1 FAIL ($2)"; }}
# sums_ok STEP SUMS: the sums of SUMS, of files under /mnt
sums_ok() {{
	(cd /mnt && sha256sum -c "$2") > /tmp/verify.out 2>&1
	good=$(grep -c ': OK$' /tmp/verify.out)
	bad=$(grep -vc ': OK$' /tmp/verify.out)
	if [ "$bad" = 0 ]; then ok $1 "$good files"; else
		fail $1 "$bad bad"; grep -v ': OK$' /tmp/verify.out | head -n 5
	fi
}}
mkdir -p /mnt
if mount -t ext4 /dev/vda /mnt; then ok mount; else fail mount "rc=$?"; fi
sums_ok verify $D/image.sha256
mkdir -p /mnt/new
i=0
while [ $i -lt {NEW_FILES} ]; do
	dd if=/dev/urandom of=/mnt/new/f$i bs=$((100 + i * 81)) count=1 2>/dev/null || break
	i=$((i + 1))
done
(cd /mnt && sha256sum new/*) > /tmp/new.sha256
n=$(ls /mnt/new | wc -l)
if [ "$n" = {NEW_FILES} ]; then ok write "$n files"; else fail write "$n files"; fi
# Read back from the disk, not from the page cache.
sync
echo 3 > /proc/sys/vm/drop_caches
sums_ok readback /tmp/new.sha256
rm -r /mnt/new
sync
if [ -e /mnt/new ]; then fail delete "still there"; else ok delete; fi
if umount /mnt; then ok umount; else fail umount "rc=$?"; fi
if mount -t ext4 /dev/vda /mnt; then ok remount; else fail remount "rc=$?"; fi
if [ -e /mnt/new ]; then fail reverify "deleted files back"; else
	sums_ok reverify $D/image.sha256
fi
umount /mnt
dd if=/dev/vda of=/dev/null bs=64k 2> /tmp/dd.out
rc=$?
n=$(sed -n 's/^\\([0-9]*\\)+0 records in$/\\1/p' /tmp/dd.out)
if [ $rc = 0 ]; then ok rawread "$((n * 65536)) bytes"; else fail rawread "rc=$rc"; fi
if echo 1 > /proc/sys/vm/compact_memory; then ok compact; else fail compact "rc=$?"; fi
if ip link set eth0 up; then ok link; else fail link "rc=$?"; fi
if udhcpc -i eth0 -n -q -t 5 -s $D/dhcp.script > /tmp/udhcpc.out 2>&1; then
	ok dhcp "$(ip -4 addr show dev eth0 | sed -n 's/^ *inet \\([0-9.]*\\)\\/.*/\\1/p')"
else
	fail dhcp "rc=$?"
fi
cat /tmp/udhcpc.out
if ip route | grep -q '^default '; then ok route; else fail route "no default route"; fi
ping -c 3 -W 5 {qemu.GATEWAY} > /tmp/ping.out 2>&1
n=$(sed -n 's/.* \\([0-9]*\\) packets received.*/\\1/p' /tmp/ping.out)
if [ "$n" = 3 ]; then ok ping "3 of 3"; else fail ping "${{n:-0}} of 3"; cat /tmp/ping.out; fi
K=/sys/kernel/debug/kmemleak
if echo scan > $K; then
	cat $K > /tmp/kmemleak.out
	ok kmemleak
	echo "devices-info: kmemleak: $(grep -c '^unreferenced object' /tmp/kmemleak.out) suspected leaks"
	head -n 100 /tmp/kmemleak.out
else
	fail kmemleak "rc=$?"
fi
{qemu.FOLLOW_STATS}echo "devices: done"
'''

# The step lines every boot of SCENARIO must print, in this order.
STEPS = (
	('mount', ''), ('verify', f'{IMAGE_FILES} files'), ('write', f'{NEW_FILES} files'),
	('readback', f'{NEW_FILES} files'), ('delete', ''), ('umount', ''), ('remount', ''),
	('reverify', f'{IMAGE_FILES} files'), ('rawread', f'{IMAGE_SIZE} bytes'),
	('compact', ''), ('link', ''), ('dhcp', '10.0.2.15'), ('route', ''), ('ping', '3 of 3'),
	('kmemleak', ''),
)
STEP_RE = re.compile(r'^devices: (\w+) (ok|FAIL)(?: \((.*)\))?$', re.M)
KSTR_STEP_FAILED = r'^devices: \w+ FAIL\b.*$'
KSTR_LEAKS = r'^devices-info: kmemleak: (\d+) suspected leaks$'
# kmemleak=on must take: no "disabled" for kmemleak, which would also
# leave the scan step without its file.
KSTR_KMEMLEAK_OFF = r'kmemleak: Kernel memory leak detector disabled'


def step_regex(step: str, detail: str) -> str:
	return rf'^devices: {step} ok' + (rf' \({re.escape(detail)}\)' if detail else '') + '$'


def steps_of(text: str) -> List[str]:
	"""The step lines of a console, as printed."""
	return [m.group(0) for m in STEP_RE.finditer(text)]


# ---------------------------------------------------------------- modules ---
# The driver-shaped module reads sector 0 into a page from alloc_page().
KSTR_DRIVER_READ = r'^.*kmemcheck_driver: read {} bytes of /dev/vda, \d+ non-zero bytes in the page$'
KSTR_DRIVER_REPORT = r'BUG: KMEMCHECK: uninit-value in kmemcheck_driver_count\+\S+ \[kmemcheck_driver\]'
# The device wrote the first 512 bytes: the first bad byte is the next one.
KSTR_DRIVER_OFFSET = r'^.*The first bad byte is at offset 512 of the page at '
KSTR_FLOOD_DONE = r'^.*kmemcheck_flood: 5 rounds of 256 functions, \d+ non-zero bytes read$'
KSTR_RATE_LIMITED = r'kmemcheck: \d+ reports suppressed'
INSMOD_OK = r'^kmemcheck-harness: insmod rc=0$'


def insmod(ko: str, params: str = '') -> str:
	"""Shell lines loading /root/@ko, then a second for the reports to print."""
	return (f'insmod /root/{ko} {params}'.rstrip() + '\n'
		'echo "kmemcheck-harness: insmod rc=$?"\nsleep 1\n')


FLOOD_SCENARIO = insmod('kmemcheck_flood.ko') + (
	'grep -E "^(reports|suppressed reports|reports past the limit|lost reports):" '
	'/sys/kernel/debug/kmemcheck/stats\n')


# With kmemcheck=1 under TCG, ACPI evaluates each PCI interrupt link of
# the virtio devices in PID 1 for 7 to 15 s, without a schedule
# (PREEMPT_NONE): 23 s for two links on the pae kernel on 2026-12-07,
# beyond RCU's stall timeout of 21 s, which then warns of a stall that is
# the emulated machine's slowness, not a hang (the boot's deadline catches
# those).  A minute, for these boots only.
STALL_CMDLINE = 'rcupdate.rcu_cpu_stall_timeout=60'


@dataclass
class DevicesTest:
	"""A BootTest of kmemcheck_tables.py and the devices of its machine."""
	boot: tables.BootTest
	disk: bool = True
	net: bool = False
	same_steps_as: str = ''  # a test whose step lines this one must print too


# About 3 times the boots' times on the harness's 2-core machine under
# TCG, busy with other QEMUs (the harness manual, README): kmemcheck-0
# 22 to 44 s, kmemcheck-1 57 to 76 s, the module boots 7 to 23 s.  A
# flood that the rate limit no longer holds back prints a report a site,
# and runs out of time.
TIMEOUT_OFF = 120
TIMEOUT_ON = 240
TIMEOUT_MODULE = 60


def tests() -> List[DevicesTest]:
	"""The layer's tests, made of kmemcheck_tables.py's BootTest."""
	module = os.path.join(tree.REPO, tree.HARNESS_DIR, 'module')
	make = ('KMEMCHECK_DEVICES=m',)
	steps = [step_regex(s, d) for s, d in STEPS] + [r'^devices: done$']
	return [
		DevicesTest(tables.BootTest('kmemcheck-0', 'kmemcheck=0 kmemleak=on', 1, SCENARIO,
					    must=steps,
					    must_not=[KSTR_STEP_FAILED, KSTR_KMEMLEAK_OFF,
						      tables.KSTR_ANY_REPORT],
					    timeout=TIMEOUT_OFF), net=True),
		DevicesTest(tables.BootTest('kmemcheck-1', 'kmemcheck=1 kmemleak=on', 1, SCENARIO,
					    must=[tables.KSTR_BOOT_MODE[1]] + steps,
					    must_not=[KSTR_STEP_FAILED, KSTR_KMEMLEAK_OFF,
						      tables.KSTR_ANY_REPORT],
					    max_reports=0, timeout=TIMEOUT_ON),
			    net=True, same_steps_as='kmemcheck-0'),
		DevicesTest(tables.BootTest('driver-bug', 'kmemcheck=1', 1,
					    insmod('kmemcheck_driver.ko', 'dev=/dev/vda len=512'),
					    must=[INSMOD_OK, KSTR_DRIVER_READ.format(512),
					          KSTR_DRIVER_REPORT, KSTR_DRIVER_OFFSET],
					    reports=[r'^uninit-value in kmemcheck_driver_count$'],
					    timeout=TIMEOUT_MODULE, module=module,
					    module_make=make)),
		DevicesTest(tables.BootTest('driver-twin', 'kmemcheck=1', 1,
					    insmod('kmemcheck_driver.ko', 'dev=/dev/vda len=4096'),
					    must=[INSMOD_OK, KSTR_DRIVER_READ.format(4096)],
					    must_not=[tables.KSTR_ANY_REPORT], max_reports=0,
					    timeout=TIMEOUT_MODULE, module=module,
					    module_make=make)),
		DevicesTest(tables.BootTest('flood', 'kmemcheck=1', 1, FLOOD_SCENARIO,
					    must=[INSMOD_OK, KSTR_FLOOD_DONE, tables.KSTR_UNINIT,
					          KSTR_RATE_LIMITED],
					    reports=[r'^uninit-value in kmemcheck_flood_[0-9a-f]{2}$'],
					    timeout=TIMEOUT_MODULE, module=module,
					    module_make=make),
			    disk=False),
	]


def disk_copy(build_dir: str, image: str, name: str) -> str:
	"""A copy of @image for the boot @name, which may write to it."""
	path = os.path.join(image_dir(build_dir), f'{name}.img')
	shutil.copyfile(image, path)
	return path


def check_steps(lines: List[str], steps: Dict[str, List[str]], t: DevicesTest) -> Optional[str]:
	"""Why the step lines of a boot differ from those of its reference
	(when that ran in this invocation), or None."""
	mine = steps_of(qemu.userspace_text(lines))
	steps[t.boot.name] = mine
	ref = steps.get(t.same_steps_as)
	if not t.same_steps_as or ref is None or ref == mine:
		return None
	diff = [f'{a!r} here, {b!r} there' for a, b in zip(mine, ref) if a != b]
	return (f'steps differ from devices/{t.same_steps_as}: ' +
		(diff[0] if diff else f'{len(mine)} steps here, {len(ref)} there'))


def detail(res: qemu.BootResult) -> str:
	"""What a passed boot tells: its leaks, its reports."""
	text = '\n'.join(res.lines)
	parts = [f'{len(steps_of(qemu.userspace_text(res.lines)))} steps ok'] \
		if STEP_RE.search(text) else []
	m = re.search(KSTR_LEAKS, qemu.userspace_text(res.lines), re.M)
	if m:
		parts.append(f'kmemleak: {m.group(1)} suspected leaks')
	stats = qemu.follow_stats(res.lines)
	if stats:
		parts.append(stats)
	reports = qemu.kmemcheck_reports(res.lines)
	if reports:
		parts.append(f'{len(reports)} reports from {len(set(reports))} sites')
	m = re.search(r'kmemcheck: (\d+) reports suppressed', text)
	if m:
		parts.append(f'{m.group(1)} suppressed by the rate limit')
	return f'[{", ".join(parts)}]' if parts else ''


def test_devices(ctx, rep, h: ModuleType) -> None:
	"""The devices/ tests that @rep wants, on ctx's kernel (@h: kmemcheck_layers.py)."""
	if not rep.wants_layer(LAYER):
		return
	wanted = [t for t in tests() if rep.wants(f'{LAYER}/{t.boot.name}')]
	if not wanted:
		return
	os.makedirs(ctx.logs, exist_ok=True)
	image = manifest = ''
	if any(t.disk for t in wanted):
		try:
			image, manifest = build_image(ctx.build_dir)
		except (HarnessError, OSError) as e:
			for t in wanted:
				rep.report(h.Result(f'{LAYER}/{t.boot.name}', False, f'no image: {e}'))
			return
	with open(os.path.join(image_dir(ctx.build_dir), 'dhcp.script'), 'w') as f:
		f.write(DHCP_SCRIPT)
	os.chmod(f.name, 0o755)
	add = [(f.name, f'{GUEST_DIR}/dhcp.script')]
	if manifest:
		add.append((manifest, f'{GUEST_DIR}/image.sha256'))
	steps: Dict[str, List[str]] = {}
	for t in wanted:
		name = f'{LAYER}/{t.boot.name}'
		log_name = f'{LAYER}-{t.boot.name}'
		try:
			kos = h.boot_test_modules(ctx, t.boot)
		except HarnessError as e:
			rep.report(h.Result(name, False, str(e).splitlines()[0]))
			continue
		initrd = ctx.initramfs(log_name, t.boot.script, add + kos)
		disks = [disk_copy(ctx.build_dir, image, log_name)] if t.disk else []
		res = qemu.boot(ctx.kernel, initrd,
				f'kunit.enable=0 {STALL_CMDLINE} {t.boot.cmdline}', t.boot.smp,
				t.boot.timeout, os.path.join(ctx.logs, f'{log_name}.log'),
				mach=ctx.machine, disks=disks, net='isolated' if t.net else '')
		why = h.check_boot(t.boot, res) or check_steps(res.lines, steps, t)
		if why:
			rep.report(h.Result(name, False, f'{why} (log: {res.log_path})', res.seconds,
					    log=res.log_path), tail=res.tail())
		else:
			rep.report(h.Result(name, True, detail(res), res.seconds, log=res.log_path))
		for disk in disks:
			with contextlib.suppress(FileNotFoundError):
				os.unlink(disk)
