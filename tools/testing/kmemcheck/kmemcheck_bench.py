# SPDX-License-Identifier: GPL-2.0
"""``kmemcheck.py bench``: what kmemcheck costs, off and on.

Builds the kmemcheck kernel (``default``) and the same kernel without
kmemcheck (``nokmemcheck``), builds the microbenchmark module of bench/
against each, and boots the variants of VARIANTS in turn, N times each, so
that a disturbance of the host hits every variant alike.  Every boot runs
the same guest script: it records the boot, runs the microbenchmark
workloads and the stress-ng workloads (when the initramfs has stress-ng),
and prints the kmemcheck counters of debugfs around each.  The medians,
spreads, ratios and trap counts are printed, and written as JSON and as a
PNG chart (gnuplot) into the build directory.
"""

import json
import os
import re
import shutil
import stat
import statistics
import subprocess
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import kmemcheck_qemu as qemu
import kmemcheck_tree as tree
from kmemcheck_tree import HarnessError, REPO

BENCH_SRC = os.path.join(REPO, tree.HARNESS_DIR, 'bench')
MODULE = 'kmemcheck_bench.ko'
DEFAULT_RUNS = 5
BOOT_TIMEOUT = 1800
# --icount: the guest's clocks count instructions (1 ns each) instead of
# following the host's, and idle time is skipped.  The same work then
# takes the same time whatever else the host does, which the host clock
# cannot give under TCG; but a trap costs only the instructions of its
# handler, not what an exception costs a real CPU.
ICOUNT_ARGS = ('-icount', 'shift=0,sleep=off')


@dataclass(frozen=True)
class Variant:
	"""A kernel configuration booted with a command line."""
	name: str
	config: str
	cmdline: str


VARIANTS = (
	Variant('off', 'nokmemcheck', ''),
	Variant('kmemcheck=0', 'default', 'kmemcheck=0'),
	Variant('kmemcheck=1', 'default', 'kmemcheck=1'),
	Variant('fastpath=0', 'default', 'kmemcheck=1 kmemcheck.fastpath=0'),
	Variant('fastpath=1', 'default', 'kmemcheck=1 kmemcheck.fastpath=1'),
	# Tracking only the code being debugged, here the bench module: its
	# workloads (micro/*) are checked, the rest of the kernel is not.
	Variant('track', 'default', f'kmemcheck=1 kmemcheck.track=module:{MODULE[:-3]}'),
)
# kmemcheck=1 runs the default fast path, kmemcheck.fastpath=2.
OFF, KC0, KC1, NOFAST, PAGEFAST, TRACK = (v.name for v in VARIANTS)

# Workloads of the module (name, as it prints them).
MICRO = ('kmalloc', 'list', 'memcpy')
# stress-ng workloads: (name, operations, arguments).  Fixed op counts, no
# time limit: the time to do the work is what is measured.
STRESS: Tuple[Tuple[str, int, str], ...] = (
	('fork', 50, '--fork 1 --fork-ops 50'),
	('pipe', 4000, '--pipe 1 --pipe-ops 4000'),
	# TCP on loopback: each operation is a connection, which under
	# kmemcheck=1 waits out TCP timers (50 took over 10 minutes).
	('sock', 5, '--sock 1 --sock-ops 5 --sock-if lo'),
	('hdd', 400, '--hdd 1 --hdd-ops 400 --hdd-bytes 1M --temp-path /tmp'),
	('memcpy', 20, '--memcpy 1 --memcpy-ops 20'),
)
WORKLOADS = ('boot',) + tuple(f'micro/{w}' for w in MICRO) + \
	tuple(f'stress/{s[0]}' for s in STRESS)

# Guest output: "kmemcheck-bench: ..." lines from the script, and the
# module's own kernel messages.
STATS_RE = re.compile(r'kmemcheck-bench: stats (\S+) ([a-z -]+): (-?\d+)')
STRESS_RE = re.compile(r'kmemcheck-bench: stress (\S+) rc=(\w+) ops=(\d+) start=(\d+) end=(\d+)')
MICRO_RE = re.compile(r'kmemcheck_bench: (\w+) ops=(\d+) ns=(\d+)')
INIT_RE = re.compile(r'\[\s*(\d+\.\d+)\] Run /init as init process')
MEM_RE = re.compile(r'kmemcheck-bench: meminfo (\w+): (\d+) kB')
# No CONFIG_NET: stress-ng's sock stressor fails at once yet exits 0.
NO_NET = 'kmemcheck-bench: no network'
NO_NET_RE = re.compile(NO_NET + r'|ip: socket: Function not implemented')
CPUS_RE = re.compile(r'kmemcheck-bench: cpus online=(\S+)')
NO_STRESS = 'kmemcheck-bench: no stress-ng'
STAT_FAULTS, STAT_STEPS = 'page faults', 'single-steps'
STAT_PAGES, STAT_SHADOW = 'tracked pages', 'shadow bytes'


# Options that CONFIG_KMEMCHECK itself changes: part of its cost even with
# kmemcheck=0.  Word-at-a-time name hashing reads past the NUL; the stack
# depot, which holds the origins, is set up at boot.
KMEMCHECK_CHANGES = ('CONFIG_DCACHE_WORD_ACCESS', 'CONFIG_STACKDEPOT_ALWAYS_INIT')


# ------------------------------------------------------------ the guest ---

def guest_script(hot: bool = False) -> str:
	"""The scenario every boot runs; with @hot, debugfs hot counts the
	faults of each stress-ng workload (counting costs every fault a few
	hundred instructions, so it is off unless asked for)."""
	stress = ''.join(f'\trun_stress {name} {ops} {args}\n' for name, ops, args in STRESS)
	micro = ' '.join(MICRO)
	return f'''B=/sys/kernel/debug/kmemcheck_bench
S=/sys/kernel/debug/kmemcheck/stats
# Snapshot with one read: printing line by line in between would add
# thousands of traps of its own to every workload.
mkdir -p /tmp/stats/before-micro /tmp/stats/after-micro \
	/tmp/stats/before-stress /tmp/stats/after-stress
stats() {{
	[ -r $S ] && cat $S > /tmp/stats/$1
}}
stats boot
H={'/sys/kernel/debug/kmemcheck/hot' if hot else '/nonexistent'}
D={'/sys/kernel/debug/kmemcheck/hidden' if hot else '/nonexistent'}
# Where the faults of a workload came from: the busiest caches and
# instructions (the counts are cleared before each workload), and what
# keeps the pages hidden once it is over.
hot() {{
	[ -r $H ] || return 0
	cat $H > /tmp/hot-$1
	awk -v w="$1" '/^faults by/ {{ n = 0 }} n++ < 6 {{ print "kmemcheck-bench: hot " w " " $0 }}' /tmp/hot-$1
	[ -r $D ] || return 0
	cat $D > /tmp/hidden-$1
	awk -v w="$1" '/by allocation stack/ {{ s = 1 }} n++ < 8 || s {{ print "kmemcheck-bench: hidden " w " " $0 }}' /tmp/hidden-$1
}}
grep -E '^(MemTotal|MemFree|DirectMap[0-9]+[kM]):' /proc/meminfo |
while read -r k v u; do
	echo "kmemcheck-bench: meminfo $k $v kB"
done
echo "kmemcheck-bench: cpus online=$(cat /sys/devices/system/cpu/online)"
insmod /{MODULE} || echo "kmemcheck-bench: insmod failed"
# The traps of taking a snapshot (cat forks), to subtract from each.
stats before-null
stats after-null
for w in {micro}; do
	stats before-micro/$w
	echo $w > $B
	stats after-micro/$w
done
run_stress() {{
	name=$1
	ops=$2
	shift 2
	stats before-stress/$name
	[ -w $H ] && echo > $H
	t0=$(cat $B)
	stress-ng "$@" > /tmp/stress-$name.log 2>&1
	rc=$?
	t1=$(cat $B)
	# A stressor the kernel cannot run (no sockets...) is skipped, rc 0.
	grep -qE 'skipped: [1-9]' /tmp/stress-$name.log && rc=skipped
	stats after-stress/$name
	echo "kmemcheck-bench: stress $name rc=$rc ops=$ops start=$t0 end=$t1"
	hot $name
	[ $rc = 0 ] || tail -5 /tmp/stress-$name.log
}}
if command -v stress-ng > /dev/null; then
	ip link set lo up || echo "{NO_NET}"
{stress}else
	echo "{NO_STRESS}"
fi
stats end
for f in $(find /tmp/stats -type f); do
	while read -r line; do
		echo "kmemcheck-bench: stats ${{f#/tmp/stats/}} $line"
	done < $f
done
'''


def build_module(build_dir: str, ktree: str, config: str, jobs: int) -> str:
	"""Builds bench/ against the kernel of @config; returns the .ko."""
	obj = tree.obj_dir(build_dir, config)
	out = os.path.join(build_dir, 'bench', f'module-{config}')
	os.makedirs(out, exist_ok=True)
	for name in os.listdir(BENCH_SRC):
		if name.endswith(('.c', '.h')) or name == 'Makefile':
			dst = os.path.join(out, name)
			with open(os.path.join(BENCH_SRC, name), 'rb') as f:
				data = f.read()
			if tree._read(dst) != data:
				with open(dst, 'wb') as f:
					f.write(data)
	log_path = os.path.join(build_dir, 'logs', f'bench-module-{config}.log')
	with open(log_path, 'w') as logf:
		cmd = tree.make_cmd(ktree, obj, jobs, f'M={out}', 'modules')
		if tree._run_logged(cmd, logf, cwd=ktree):
			logf.flush()
			tree._fail_with_log(log_path, f'building the bench module for {config} failed')
	return os.path.join(out, MODULE)


def add_module(initrd: str, ko: str) -> None:
	"""Appends a cpio archive holding /<MODULE>, without its debug info.

	The kernel unpacks concatenated archives in turn.  Uncompressed, like
	the rest: under kmemcheck=1 inflating costs a fault per byte.
	"""
	stripped = ko + '.stripped'
	tree.run(['strip', '--strip-debug', '-o', stripped, ko])
	with open(stripped, 'rb') as f:
		data = f.read()
	with open(initrd, 'ab') as out:
		cpio = qemu.CpioWriter(out)
		cpio.add(MODULE, stat.S_IFREG | 0o644, data)
		cpio.finish()


def check_same_kernel(build_dir: str) -> List[str]:
	"""The options that differ between the two kernels, all kmemcheck's.

	Raises HarnessError if any other option differs: then the comparison
	would not measure kmemcheck alone.
	"""
	configs = [tree._parse_fragment(os.path.join(tree.obj_dir(build_dir, c), '.config'))
		   for c in ('default', 'nokmemcheck')]
	differ = sorted(s for s in set(configs[0]) | set(configs[1])
			if configs[0].get(s, 'n') != configs[1].get(s, 'n'))
	others = [s for s in differ if 'KMEMCHECK' not in s and s not in KMEMCHECK_CHANGES]
	if others:
		raise HarnessError('default and nokmemcheck differ in more than kmemcheck: '
				   + ', '.join(others))
	return differ


# ------------------------------------------------------------ one boot ---

def _stats(lines: Sequence[str]) -> Dict[str, Dict[str, int]]:
	"""label -> counter -> value, from the script's stats lines."""
	out: Dict[str, Dict[str, int]] = {}
	for m in STATS_RE.finditer('\n'.join(lines)):
		out.setdefault(m.group(1), {})[m.group(2).strip()] = int(m.group(3))
	return out


def _raw_delta(stats: Dict[str, Dict[str, int]], name: str, counter: str) -> int:
	before = stats.get(f'before-{name}', {}).get(counter, 0)
	return stats.get(f'after-{name}', {}).get(counter, 0) - before


def _delta(stats: Dict[str, Dict[str, int]], name: str, counter: str) -> int:
	"""The counter's increase over a workload, less that of a snapshot."""
	return max(0, _raw_delta(stats, name, counter) - _raw_delta(stats, 'null', counter))


def _sample(seconds: float, ops: int, faults: int, steps: int) -> dict:
	return {'seconds': seconds, 'ops': ops, 'faults': faults, 'steps': steps}


def parse_boot(lines: Sequence[str]) -> Tuple[Dict[str, dict], Dict[str, int]]:
	"""The samples of one boot (workload -> sample) and its memory figures."""
	text = qemu.userspace_text(list(lines))
	stats = _stats(text.splitlines())
	samples: Dict[str, dict] = {}
	for line in lines:
		m = INIT_RE.search(line)
		if m:
			boot = stats.get('boot', {})
			samples['boot'] = _sample(float(m.group(1)), 1, boot.get(STAT_FAULTS, 0),
						  boot.get(STAT_STEPS, 0))
		m = MICRO_RE.search(line)
		if m:
			name = f'micro/{m.group(1)}'
			samples[name] = _sample(int(m.group(3)) / 1e9, int(m.group(2)),
						_delta(stats, name, STAT_FAULTS),
						_delta(stats, name, STAT_STEPS))
	no_net = NO_NET_RE.search(text)
	for m in STRESS_RE.finditer(text):
		name = f'stress/{m.group(1)}'
		if m.group(1) == 'sock' and no_net:
			continue
		if m.group(2) != '0':
			print(f'bench: stress-ng {m.group(1)}: {m.group(2)}, no sample',
			      flush=True)
			continue
		samples[name] = _sample((int(m.group(5)) - int(m.group(4))) / 1e9,
					int(m.group(3)), _delta(stats, name, STAT_FAULTS),
					_delta(stats, name, STAT_STEPS))
	end = stats.get('end', {})
	memory = {'tracked_pages': end.get(STAT_PAGES, 0),
		  'shadow_bytes': end.get(STAT_SHADOW, 0)}
	for m in MEM_RE.finditer(text):
		memory[m.group(1)] = int(m.group(2)) * 1024
	m = CPUS_RE.search(text)
	memory['cpus_online'] = m.group(1) if m else '?'
	return samples, memory


# ---------------------------------------------------------- statistics ---

def summarize(samples: List[dict]) -> dict:
	"""Median, min and max time, and traps per operation (medians)."""
	secs = [s['seconds'] for s in samples]
	per_op = {k: statistics.median(s[k] / s['ops'] for s in samples)
		  for k in ('faults', 'steps')}
	return {'median': statistics.median(secs), 'min': min(secs), 'max': max(secs),
		'n': len(secs), 'ops': samples[0]['ops'], 'faults_per_op': per_op['faults'],
		'steps_per_op': per_op['steps'],
		'traps_per_op': per_op['faults'] + per_op['steps'], 'seconds': secs}


def _ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
	return a / b if a is not None and b else None


def analyse(results: Dict[str, Dict[str, List[dict]]],
	    memory: Dict[str, List[Dict[str, int]]]) -> dict:
	"""Summaries per workload and variant, ratios, and the targets."""
	out: dict = {'workloads': {}, 'memory': {}, 'targets': {}}
	for w in WORKLOADS:
		per = {v: summarize(results[v][w]) for v in results if results[v].get(w)}
		if not per:
			continue
		med = {v: s['median'] for v, s in per.items()}
		traps = {v: s['traps_per_op'] for v, s in per.items()}
		ops = results[KC1][w][0]['ops'] if results.get(KC1, {}).get(w) else 0
		extra = (med.get(KC1, 0) - med.get(KC0, 0)) if KC1 in med and KC0 in med else None
		trap_us = (extra / (traps[KC1] * ops) * 1e6
			   if extra is not None and ops and traps[KC1] else None)
		out['workloads'][w] = {
			'variants': per,
			'us_per_trap': trap_us,
			'kmemcheck0_over_off': _ratio(med.get(KC0), med.get(OFF)),
			'kmemcheck1_over_kmemcheck0': _ratio(med.get(KC1), med.get(KC0)),
			'track_over_kmemcheck0': _ratio(med.get(TRACK), med.get(KC0)),
			'traps_fastpath0_over_kmemcheck1': _ratio(traps.get(NOFAST), traps.get(KC1)),
			'traps_fastpath0_over_fastpath1': _ratio(traps.get(NOFAST),
								 traps.get(PAGEFAST)),
		}
	for v, mems in memory.items():
		pages = max(m['tracked_pages'] for m in mems)
		shadow = max(m['shadow_bytes'] for m in mems)
		out['memory'][v] = {
			'tracked_pages': pages, 'shadow_bytes': shadow,
			'shadow_per_tracked_byte': shadow / (pages * 4096) if pages else 0.0,
			'mem_total': statistics.median(m.get('MemTotal', 0) for m in mems),
			'mem_free_at_init': statistics.median(m.get('MemFree', 0) for m in mems),
			'direct_map_large': max(m.get('DirectMap4M', 0) + m.get('DirectMap2M', 0)
						for m in mems),
			'direct_map_4k': max(m.get('DirectMap4k', 0) for m in mems),
			'cpus_online': sorted({m['cpus_online'] for m in mems}),
		}
	out['targets'] = targets(out)
	return out


def targets(a: dict) -> Dict[str, dict]:
	"""Each target of issue 6: the measured value and whether it is met."""
	ws = a['workloads']
	off = {w: d['kmemcheck0_over_off'] for w, d in ws.items()
	       if d['kmemcheck0_over_off'] is not None}
	on = {w: d['kmemcheck1_over_kmemcheck0'] for w, d in ws.items()
	      if d['kmemcheck1_over_kmemcheck0'] is not None}
	stress = [d['variants'] for w, d in ws.items() if w.startswith('stress/')]

	# All the traps of the stress-ng workloads, each run once.
	def traps_saved(fast_variant: str) -> dict:
		both = [v for v in stress if fast_variant in v and NOFAST in v]
		fast = sum(v[fast_variant]['traps_per_op'] * v[fast_variant]['ops'] for v in both)
		slow = sum(v[NOFAST]['traps_per_op'] * v[NOFAST]['ops'] for v in both)
		return {'value': slow / fast if fast else None,
			'met': bool(both) and (fast == 0 and slow > 0 or
					       bool(fast) and slow / fast >= 5)}

	mem = a['memory']
	t = {
		'kmemcheck0_over_off <= 1.02': {'value': max(off.values(), default=None),
						 'met': bool(off) and max(off.values()) <= 1.02},
		'kmemcheck1_over_kmemcheck0 < 10': {'value': max(on.values(), default=None),
						     'met': bool(on) and max(on.values()) < 10},
		'boot kmemcheck1_over_kmemcheck0 <= 5': {
			'value': on.get('boot'), 'met': 'boot' in on and on['boot'] <= 5},
		'stress-ng traps fastpath=0 / kmemcheck=1 >= 5': traps_saved(KC1),
		'shadow per tracked byte <= 1': {
			'value': mem.get(KC1, {}).get('shadow_per_tracked_byte'),
			'met': KC1 in mem and mem[KC1]['shadow_per_tracked_byte'] <= 1},
		'shadow with kmemcheck=0 == 0': {
			'value': mem.get(KC0, {}).get('shadow_bytes'),
			'met': KC0 in mem and mem[KC0]['shadow_bytes'] == 0},
	}
	return t


# -------------------------------------------------------------- output ---

def _fmt_time(s: dict) -> str:
	return f'{s["median"]:8.3f} [{s["min"]:.3f}-{s["max"]:.3f}]'


def _fmt_ratio(r: Optional[float]) -> str:
	return f'{r:7.3f}' if r is not None else '      -'


def table(a: dict) -> List[str]:
	"""The figures, one line per workload and variant."""
	lines = [f'{"workload":15} {"variant":12} {"median s [min-max]":28} '
		 f'{"faults/op":>11} {"steps/op":>11}']
	for w, d in a['workloads'].items():
		for v, s in d['variants'].items():
			lines.append(f'{w:15} {v:12} {_fmt_time(s):28} '
				     f'{s["faults_per_op"]:11.1f} {s["steps_per_op"]:11.1f}')
		lines.append(f'{"":15} ratios: kmemcheck=0/off {_fmt_ratio(d["kmemcheck0_over_off"])}'
			     f'  kmemcheck=1/kmemcheck=0 {_fmt_ratio(d["kmemcheck1_over_kmemcheck0"])}'
			     f'  traps fastpath=0/kmemcheck=1 '
			     f'{_fmt_ratio(d["traps_fastpath0_over_kmemcheck1"])}'
			     f'  fastpath=0/fastpath=1 '
			     f'{_fmt_ratio(d["traps_fastpath0_over_fastpath1"])}'
			     f'  us/trap {_fmt_ratio(d["us_per_trap"])}'
			     f'  track/kmemcheck=0 {_fmt_ratio(d["track_over_kmemcheck0"])}')
	for v, m in a['memory'].items():
		lines.append(f'memory {v:12} tracked pages {m["tracked_pages"]:7d}  '
			     f'shadow bytes {m["shadow_bytes"]:10d}  per tracked byte '
			     f'{m["shadow_per_tracked_byte"]:.2f}  MemFree at init '
			     f'{m["mem_free_at_init"] / 1024:.0f} KiB of {m["mem_total"] / 1024:.0f}  '
			     f'direct map 4K {m["direct_map_4k"] // 1024} KiB, large '
			     f'{m["direct_map_large"] // 1024} KiB  CPUs {",".join(m["cpus_online"])}')
	for name, t in a['targets'].items():
		val = t['value']
		shown = f'{val:.3f}' if isinstance(val, float) else str(val)
		lines.append(f'target {"MET    " if t["met"] else "MISSED "} {name}: {shown}')
	return lines


def markdown(a: dict) -> List[str]:
	"""The figures as a Markdown table, for the README."""
	variants = [v.name for v in VARIANTS]
	lines = ['| workload | ' + ' | '.join(f'{v} median s [min-max]' for v in variants)
		 + ' | kmemcheck=0/off | kmemcheck=1/kmemcheck=0 | track/kmemcheck=0'
		 ' | traps/op kmemcheck=1 (fastpath=0) (fastpath=1) (track) |',
		 '| --- ' * (len(variants) + 5) + '|']
	for w, d in a['workloads'].items():
		per = d['variants']
		cells = [f'{per[v]["median"]:.3f} [{per[v]["min"]:.3f}-{per[v]["max"]:.3f}]'
			 if v in per else '-' for v in variants]
		traps = ' '.join(f'{per[v]["traps_per_op"]:.0f}' if v in per else '-'
				 for v in (KC1, NOFAST, PAGEFAST, TRACK))
		lines.append(f'| {w} | ' + ' | '.join(cells) +
			     f' | {_fmt_ratio(d["kmemcheck0_over_off"]).strip()}'
			     f' | {_fmt_ratio(d["kmemcheck1_over_kmemcheck0"]).strip()}'
			     f' | {_fmt_ratio(d.get("track_over_kmemcheck0")).strip()}'
			     f' | {traps} |')
	return lines


def _gnuplot() -> str:
	"""gnuplot, installed (Debian gnuplot-nox) when missing and root."""
	path = shutil.which('gnuplot')
	if path:
		return path
	cmd = ['apt-get', 'install', '-y', 'gnuplot-nox']
	if os.geteuid() != 0:
		raise HarnessError('bench draws its chart with gnuplot; run as root: '
				   + ' '.join(cmd))
	tree.log('bench: ' + ' '.join(cmd))
	tree.run(cmd, capture=False)
	return shutil.which('gnuplot') or 'gnuplot'


def chart(a: dict, png: str) -> None:
	"""Bars per workload and variant: median time / median 'off', log scale,
	with min-max error bars."""
	variants = [v.name for v in VARIANTS
		    if any(v.name in d['variants'] for d in a['workloads'].values())]
	data = png[:-len('.png')] + '.dat'
	rows = 0
	with open(data, 'w') as f:
		f.write('# workload ' + ' '.join(f'{v} lo hi' for v in variants) + '\n')
		for w, d in a['workloads'].items():
			per = d['variants']
			base = per.get(OFF, {}).get('median')
			if not base:
				continue
			cells = []
			for v in variants:
				s = per.get(v)
				cells += ([f'{s["median"] / base:.4f}', f'{s["min"] / base:.4f}',
					   f'{s["max"] / base:.4f}'] if s else ['NaN'] * 3)
			f.write(f'"{w}" ' + ' '.join(cells) + '\n')
			rows += 1
	if not rows:
		print(f'bench: no chart without the {OFF} variant to scale by', flush=True)
		return
	cols = ', '.join(
		f"'{data}' using {2 + 3 * i}:{3 + 3 * i}:{4 + 3 * i}"
		f"{':xtic(1)' if i == 0 else ''} title '{v}'"
		for i, v in enumerate(variants))
	clock = ('clock: guest instructions, QEMU -icount' if a.get('clock') == 'icount'
		 else 'clock: host time, QEMU TCG')
	script = f'''set terminal pngcairo size 1100,520 font ",10" noenhanced
set output '{png}'
set title "kmemcheck cost: median time relative to CONFIG_KMEMCHECK=n (bars: min-max; {clock})"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set logscale y
set ylabel "time / time with CONFIG_KMEMCHECK=n (log)"
set grid ytics
set key top left
set xtics rotate by -30
plot {cols}
'''
	proc = subprocess.run([_gnuplot()], input=script, text=True,
			      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
	if proc.returncode:
		raise HarnessError(f'gnuplot failed: {proc.stdout.strip()}')


# ---------------------------------------------------------- subcommand ---

def prepare(ctx, configs: Sequence[str]) -> Dict[str, Tuple[str, str]]:
	"""Builds the kernels and modules; returns config -> (bzImage, .ko)."""
	ktree = tree.prepare(ctx.build_dir)
	ctx.tree = ktree
	built = {}
	for config in ('default', 'nokmemcheck'):
		if config not in configs:
			continue
		kernel = tree.build(ctx.build_dir, ktree, config, ctx.jobs)
		built[config] = (kernel, build_module(ctx.build_dir, ktree, config, ctx.jobs))
	if len(built) == 2:
		differ = check_same_kernel(ctx.build_dir)
		print(f'bench: the two kernels differ only in {", ".join(differ)}', flush=True)
	return built


def initramfs(ctx, config: str, ko: str, hot: bool) -> str:
	"""busybox, stress-ng and its libraries, the script and the module."""
	path = os.path.join(ctx.build_dir, 'initramfs', f'bench-{config}.cpio')
	qemu.build_initramfs(tree.stress_debs(ctx.build_dir), guest_script(hot), path,
			     compress=False)
	add_module(path, ko)
	return path


def log_name(variant: Variant, run: int) -> str:
	return f'bench-{variant.name.replace("=", "")}-{run}'


def one_boot(ctx, variant: Variant, kernel: str, initrd: str, run: int,
	     smp: int, timeout: float, extra: str = '',
	     icount: bool = False) -> Tuple[Dict[str, dict], Dict[str, int]]:
	log_path = os.path.join(ctx.logs, f'{log_name(variant, run)}.log')
	res = qemu.boot(kernel, initrd,
			f'kunit.enable=0 {variant.cmdline} {extra}'.strip(),
			smp, timeout, log_path,
			extra_args=ICOUNT_ARGS if icount else ())
	why = res.failure()
	if why:
		print(res.tail(), flush=True)
		raise HarnessError(f'bench: {variant.name} run {run}: {why} (log: {log_path})')
	if any('kmemcheck-bench: insmod failed' in l for l in res.lines):
		raise HarnessError(f'bench: the module did not load (log: {log_path})')
	samples, memory = parse_boot(res.lines)
	missing = [w for w in ('boot',) + tuple(f'micro/{m}' for m in MICRO)
		   if w not in samples]
	if missing:
		raise HarnessError(f'bench: {variant.name} run {run}: no figures for '
				   f'{", ".join(missing)} (log: {log_path})')
	print(f'bench: run {run} {variant.name:12} {res.seconds:6.1f} s  '
	      + '  '.join(f'{w}={s["seconds"]:.3f}' for w, s in samples.items()),
	      flush=True)
	if NO_STRESS in qemu.userspace_text(res.lines) and run == 1:
		print('bench: no stress-ng in the initramfs: stress workloads skipped',
		      flush=True)
	return samples, memory


def chosen_variants(names: str) -> Tuple[Variant, ...]:
	"""The variants named in the comma-separated @names, in VARIANTS order."""
	want = [n.strip() for n in names.split(',') if n.strip()]
	unknown = [n for n in want if n not in (v.name for v in VARIANTS)]
	if unknown or not want:
		raise HarnessError(f'bench: --variants {names!r}: choose among '
				   + ','.join(v.name for v in VARIANTS))
	return tuple(v for v in VARIANTS if v.name in want)


def cmd_bench(ctx, args) -> int:
	if args.runs < 1:
		raise HarnessError('bench: --runs must be at least 1')
	variants = chosen_variants(args.variants)
	results: Dict[str, Dict[str, List[dict]]] = {v.name: {} for v in variants}
	memory: Dict[str, List[Dict[str, int]]] = {v.name: [] for v in variants}
	t0 = time.time()
	if args.from_logs:
		return from_logs(ctx, args, variants, results, memory, t0)
	built = prepare(ctx, {v.config for v in variants})
	initrds = {c: initramfs(ctx, c, ko, args.hot) for c, (_, ko) in built.items()}
	for run in range(1, args.runs + 1):
		# Alternate: a slow spell of the host hits all variants alike.
		for v in variants:
			samples, mem = one_boot(ctx, v, built[v.config][0], initrds[v.config],
						run, args.smp, args.timeout, args.cmdline,
						args.icount)
			for w, s in samples.items():
				results[v.name].setdefault(w, []).append(s)
			memory[v.name].append(mem)
		# The figures so far survive an interrupted run.
		a = write_results(ctx, results, memory, run, args, t0)
	print('\n'.join(table(a)))
	print(f'bench: {os.path.join(ctx.build_dir, "bench")}/bench.json and bench.png')
	return 0


def from_logs(ctx, args, variants: Sequence[Variant],
	      results: Dict[str, Dict[str, List[dict]]],
	      memory: Dict[str, List[Dict[str, int]]], t0: float) -> int:
	"""The figures of the console logs of an earlier run, booting nothing."""
	ctx.tree = tree.tree_dir(ctx.build_dir)
	for run in range(1, args.runs + 1):
		for v in variants:
			path = os.path.join(ctx.logs, f'{log_name(v, run)}.log')
			if not os.path.exists(path):
				raise HarnessError(f'bench: no {path}: fewer runs than --runs?')
			with open(path, errors='replace') as f:
				lines = f.read().splitlines()
			# The first line is QEMU's command line.
			if lines and ICOUNT_ARGS[0] in lines[0].split():
				args.icount = True
			samples, mem = parse_boot(lines)
			for w, s in samples.items():
				results[v.name].setdefault(w, []).append(s)
			memory[v.name].append(mem)
	a = write_results(ctx, results, memory, args.runs, args, t0)
	print('\n'.join(table(a)))
	return 0


def write_results(ctx, results: Dict[str, Dict[str, List[dict]]],
		  memory: Dict[str, List[Dict[str, int]]], runs: int, args,
		  t0: float) -> dict:
	"""Analyses, and writes bench.json and bench.png; returns the analysis."""
	a = analyse(results, memory)
	a.update({'runs': runs, 'smp': args.smp, 'cmdline': args.cmdline,
		  'clock': 'icount' if args.icount else 'host', 'date': time.strftime(
		'%Y-%m-%d %H:%M UTC', time.gmtime()), 'host_cpus': os.cpu_count(),
		  'load_average': os.getloadavg(), 'minutes': (time.time() - t0) / 60,
		  'base': tree.base_description(ctx.tree),
		  'stress': {name: args_ for name, _, args_ in STRESS}})
	out_dir = os.path.join(ctx.build_dir, 'bench')
	with open(os.path.join(out_dir, 'bench.json'), 'w') as f:
		json.dump(a, f, indent=1, sort_keys=True)
		f.write('\n')
	chart(a, os.path.join(out_dir, 'bench.png'))
	with open(os.path.join(out_dir, 'bench.md'), 'w') as f:
		f.write('\n'.join(markdown(a)) + '\n')
	return a


def register(sub, common) -> None:
	"""Adds the bench subcommand to the argparse subparsers."""
	p = sub.add_parser('bench', parents=[common],
			   help='measure the cost of kmemcheck (long: many boots)')
	p.add_argument('--runs', type=int, default=DEFAULT_RUNS,
		       help='boots of each variant (default: %(default)s)')
	p.add_argument('--smp', type=int, default=1, help='guest CPUs (default: 1)')
	p.add_argument('--from-logs', action='store_true',
		       help='only recompute the figures from the logs of the last run')
	p.add_argument('--variants', default=','.join(v.name for v in VARIANTS),
		       help='comma-separated variants to boot (default: all: '
		       '%(default)s)')
	p.add_argument('--cmdline', default='',
		       help='more kernel parameters for every variant, '
		       'e.g. kmemcheck.quarantine=256')
	p.add_argument('--icount', action='store_true',
		       help='time in guest instructions (QEMU -icount), '
		       'repeatable on a busy host')
	p.add_argument('--hot', action='store_true',
		       help='count the faults of each stress-ng workload in debugfs hot '
		       'and print the busiest caches and instructions, and debugfs hidden: '
		       'what keeps their pages hidden (adds to their cost)')
	p.add_argument('--timeout', type=float, default=BOOT_TIMEOUT,
		       help='seconds per boot (default: %(default)s)')
