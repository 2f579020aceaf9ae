# SPDX-License-Identifier: GPL-2.0
"""``kmemcheck.py profile``: where the guest instructions of a fault go.

Boots an already built kmemcheck kernel with ``kmemcheck=1`` under QEMU
with its gdb stub, loads the bench module and loops on one of its
workloads.  gdb then stops at every page fault (a hardware breakpoint on
asm_exc_page_fault) and single-steps it to the iret that returns from it,
recording each PC.  A fault counts as kmemcheck's when
kmemcheck_page_fault(), which every kernel fault calls, returns true: it
took the fault.  The PCs are mapped to functions (vmlinux's symbol table)
and to categories (CATEGORIES), and the mean instructions per fault, by
category and by function, are printed and written to build/profile/.

It builds no kernel and takes no lock on the build directory: other
harness commands may run meanwhile.  Everything it writes is under
build/profile/, but the bench module when it is missing (see
kmemcheck_bench.build_module()).
"""

import bisect
import fnmatch
import json
import os
import signal
import socket
import subprocess
import threading
import time
from typing import Dict, List, Optional, Tuple

import kmemcheck_bench as bench
import kmemcheck_qemu as qemu
import kmemcheck_tree as tree
from kmemcheck_tree import HarnessError

CONFIG = 'default'
OUT_SUBDIR = 'profile'
MARKER = 'kmemcheck-profile: running'
INSMOD_FAILED = 'kmemcheck-profile: insmod failed'
DEFAULT_FAULTS = 20
# Steps of one fault before giving it up: a kmemcheck fault takes a few
# thousand instructions, a fault that maps a user page may take many more.
DEFAULT_CAP = 30000
# The whole run: boot (about 20 s), then about 3 s of stepping per fault.
DEFAULT_TIMEOUT = 900
TOP_FUNCTIONS = 30
BENCH_FILE = '/sys/kernel/debug/kmemcheck_bench'
ENTRY = 'asm_exc_page_fault'
# Besides kmemcheck=1.  While gdb steps a fault, the guest's clock runs
# and its timers wait: the soft lockup detector and RCU's stall warnings
# may fire, and their printing would be traced too.
GUEST_CMDLINE = 'kunit.enable=0 nowatchdog rcupdate.rcu_cpu_stall_suppress=1'
# Every kernel fault calls the first, the early path; those it does not
# take, the second.  Each returns true for the faults it takes.
HANDLERS = ('kmemcheck_early_fault', 'kmemcheck_page_fault')
# What a PC is charged to: (category, function name globs, source file
# globs).  The first row matching the function's name, or the file that
# defines it (relative to the kernel tree), wins.  Emulation and the other
# static helpers of kmemcheck's directories count as shadow/checks.
CATEGORIES: Tuple[Tuple[str, Tuple[str, ...], Tuple[str, ...]], ...] = (
	('exception entry/exit', ('asm_exc_page_fault', 'handle_exception*', 'restore_all*',
				  'exc_page_fault', '*irqentry_*', '__*entry_text_*'), ()),
	('lockdep/irq tracing', ('lock*', 'trace_hardirqs*', 'lockdep*', '*hardirqs*'),
	 ('kernel/locking/lockdep*.c', 'kernel/trace/trace_preemptirq.c',
	  'include/trace/events/preemptirq.h')),
	('RCU/context tracking', ('rcu_*', 'ct_*'), ()),
	# The kernel's x86 decoder (insn_*, its opcode tables) and kmemcheck's.
	('instruction decoding', ('insn_*',), ('arch/x86/lib/insn*.c', 'arch/x86/lib/inat.c',
					       'arch/x86/mm/kmemcheck/decode*.c')),
	('kmemcheck hot accounting', (), ('mm/kmemcheck/hot.c',)),
	('shadow/checks', ('kmemcheck_*',), ('mm/kmemcheck/*', 'arch/x86/mm/kmemcheck/*')),
	('other', ('*',), ()),
)
OUTCOMES = {'emulated': 'done in the handler', 'stepped': 'single-step armed (a #DB follows)',
	    'other': 'returned elsewhere'}

# Run by gdb's Python.  Parameters come from the JSON file that
# $KMEMCHECK_PROFILE_PARAMS names; the traces go to its "out".
GDB_SCRIPT = '''# SPDX-License-Identifier: GPL-2.0
# Written by kmemcheck.py profile, run by gdb -batch -nx -x <this file>.
"""Traces page faults of the guest instruction by instruction."""

import json
import os

import gdb

IRET = 0xcf
USER_RPL = 3
EFLAGS_TF = 0x100

with open(os.environ['KMEMCHECK_PROFILE_PARAMS']) as f:
	P = json.load(f)


def reg(name):
	return int(gdb.parse_and_eval('$' + name)) & 0xffffffff


def read(addr, size):
	return gdb.selected_inferior().read_memory(addr, size).tobytes()


def frame(sp):
	"""Error code, EIP, CS and EFLAGS as the CPU pushed them."""
	data = read(sp, 16)
	return [int.from_bytes(data[i:i + 4], 'little') for i in range(0, 16, 4)]


def trace(entry_sp):
	"""The PCs from the entry to the iret that pops the entry's frame (a
	nested exception's iret leaves sp below it), whether that iret came
	within the cap, and whether a handler took the fault: what the first
	call of one returned (in al), seen when sp is back above its return
	address (after its ret, or that of a function it tail-called).  The
	early handler may decline, and the full one take, the fault."""
	pcs = [reg('pc')]
	handler = handler_sp = None
	taken = False
	while len(pcs) < P['cap']:
		gdb.execute('stepi', to_string=True)
		pc, sp = reg('pc'), reg('sp')
		if sp > entry_sp + 4 and read(pcs[-1], 1)[0] == IRET:
			return pcs, True, taken
		if handler is None and not taken:
			for lo, hi in P['handlers']:
				if pc == lo:
					handler, handler_sp = (lo, hi), sp
		elif handler is not None and sp == handler_sp + 4 \
		     and not handler[0] <= pc < handler[1]:
			taken = bool(reg('eax') & 0xff)
			handler = None
		pcs.append(pc)
	return pcs, False, taken


def source_file(pc):
	"""The file of the function (the outermost, not an inlined one) of @pc."""
	try:
		block = gdb.block_for_pc(pc)
	except RuntimeError:
		return ''
	func = None
	while block is not None and not (block.is_global or block.is_static):
		func = block.function or func
		block = block.superblock
	return func.symtab.filename if func is not None and func.symtab else ''


def outcome(ip, ret):
	if reg('eflags') & EFLAGS_TF:
		return 'stepped'
	return 'emulated' if ret != ip else 'other'


def skip(skipped, why):
	"""Counts a skipped fault; says so now and then: a run that finds
	no fault of kmemcheck's shows why."""
	skipped[why] += 1
	if sum(skipped.values()) % 100 == 0:
		print('kmemcheck-profile: skipped so far: %s' % skipped, flush=True)


def main():
	gdb.execute('set pagination off')
	gdb.execute('set confirm off')
	# No location printed at each stepi: it costs as much as the step.
	gdb.execute('set suppress-cli-notifications on')
	gdb.execute('file ' + P['vmlinux'], to_string=True)
	gdb.execute('target remote 127.0.0.1:%d' % P['port'], to_string=True)
	bp = gdb.Breakpoint('*%#x' % P['entry'], type=gdb.BP_HARDWARE_BREAKPOINT,
			    internal=True)
	out = {'faults': [], 'skipped': {'user mode': 0, 'not kmemcheck': 0, 'capped': 0}}
	while len(out['faults']) < P['faults']:
		gdb.execute('continue', to_string=True)
		sp = reg('sp')
		_, ip, cs, _ = frame(sp)
		if cs & USER_RPL == USER_RPL:
			skip(out['skipped'], 'user mode')
			continue
		# Off while stepping: a nested fault is part of the trace.
		bp.enabled = False
		pcs, complete, taken = trace(sp)
		bp.enabled = True
		if not complete:
			skip(out['skipped'], 'capped')
			print('kmemcheck-profile: skipped a fault: no iret after %d instructions, '
			      'at %#x' % (len(pcs), pcs[-1]), flush=True)
			continue
		if not taken:
			skip(out['skipped'], 'not kmemcheck')
			continue
		ret = reg('pc')
		out['faults'].append({'ip': ip, 'return': ret, 'outcome': outcome(ip, ret),
				      'pcs': pcs})
		print('kmemcheck-profile: fault %d: %d instructions' %
		      (len(out['faults']), len(pcs)), flush=True)
	uniq = sorted({pc for f in out['faults'] for pc in f['pcs']})
	out['files'] = {'%x' % pc: source_file(pc) for pc in uniq}
	with open(P['out'], 'w') as f:
		json.dump(out, f)


main()
'''


# ------------------------------------------------------------ the guest ---

def guest_script(workload: str) -> str:
	"""Loads the bench module, then runs @workload forever: one of the
	module's loops (bench.MICRO) or a shell command."""
	step = f'echo {workload} > {BENCH_FILE}' if workload in bench.MICRO else workload
	return f'''insmod /{bench.MODULE} || echo "{INSMOD_FAILED}"
# Quiet console: the module prints a line per loop.
dmesg -n 1
echo "{MARKER}"
while true; do
	{step}
done
'''


def initramfs(out_dir: str, build_dir: str, ko: str, workload: str) -> str:
	"""busybox (the harness's guest .debs), the script and the module,
	uncompressed: under kmemcheck=1 inflating costs a fault per byte."""
	debs = [d for d in tree.guest_debs(build_dir).values() if d]
	if not debs:
		raise HarnessError('profile: no busybox .deb; run kmemcheck.py deps')
	path = os.path.join(out_dir, 'initramfs.cpio')
	qemu.build_initramfs(debs, guest_script(workload), path, compress=False)
	bench.add_module(path, ko)
	return path


def free_port() -> int:
	"""A TCP port free on the loopback now, for QEMU's gdb stub."""
	with socket.socket() as s:
		s.bind(('127.0.0.1', 0))
		return s.getsockname()[1]


def start_qemu(kernel: str, initrd: str, cmdline: str, port: int,
	       log_path: str) -> subprocess.Popen:
	"""The default config's machine, with a gdb stub; console into @log_path
	(a file, not a pipe: nobody has to drain it while gdb steps)."""
	cmd = qemu.qemu_cmd(kernel, initrd, cmdline, 1, mach=qemu.machine(CONFIG),
			    extra_args=('-gdb', f'tcp:127.0.0.1:{port}'))
	with open(log_path, 'w') as log:
		log.write(f'$ {" ".join(cmd)}\n')
		log.flush()
		return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
					stderr=subprocess.STDOUT, start_new_session=True)


def stop_qemu(proc: Optional[subprocess.Popen]) -> None:
	if proc is not None and proc.poll() is None:
		os.killpg(proc.pid, signal.SIGKILL)
		proc.wait()


def _console(log_path: str) -> List[str]:
	with open(log_path, errors='replace') as f:
		return f.read().splitlines()


def wait_for_marker(proc: subprocess.Popen, log_path: str, deadline: float) -> float:
	"""Waits until the guest's workload runs; returns the seconds it took."""
	t0 = time.time()
	while time.time() < deadline:
		lines = _console(log_path)
		text = qemu.userspace_text(lines)
		if INSMOD_FAILED in text:
			raise HarnessError(f'profile: the bench module did not load (log: {log_path})')
		if MARKER in text:
			return time.time() - t0
		if proc.poll() is not None or any(qemu.PANIC_RE.search(line) for line in lines):
			print('\n'.join(lines[-30:]), flush=True)
			raise HarnessError(f'profile: the guest stopped before its workload '
					   f'(log: {log_path})')
		time.sleep(0.5)
	raise HarnessError(f'profile: no "{MARKER}" in time (log: {log_path})')


# ---------------------------------------------------------------- gdb ---

class Symbols:
	"""vmlinux's text symbols, for PC -> function.  nm's, not gdb's "info
	symbol", which charges the iret to entry_INT80_32: it skips the plain
	labels of entry_32.S such as restore_all_switch_stack."""

	def __init__(self, vmlinux: str) -> None:
		out = tree.run(['nm', '-n', '--defined-only', vmlinux]).stdout
		rows = [line.split() for line in out.splitlines()]
		rows = [(int(r[0], 16), r[2]) for r in rows if len(r) == 3 and r[1] in 'tTwW']
		self.addrs = [a for a, _ in rows]
		self.names = [n for _, n in rows]
		end = [a for a, n in rows if n == '_etext']
		self.end = end[0] if end else (self.addrs[-1] if self.addrs else 0)

	def name(self, pc: int) -> str:
		i = bisect.bisect_right(self.addrs, pc) - 1
		return self.names[i] if i >= 0 and pc < self.end else '?'

	def describe(self, pc: int) -> str:
		"""func+0xoff for kernel text, the address alone elsewhere (modules)."""
		i = bisect.bisect_right(self.addrs, pc) - 1
		if i < 0 or pc >= self.end:
			return f'{pc:#x} (module)'
		return f'{self.names[i]}+{pc - self.addrs[i]:#x}'

	def range(self, name: str) -> Tuple[int, int]:
		"""[start, end) of @name: up to the next symbol at a higher address."""
		if name not in self.names:
			raise HarnessError(f'profile: vmlinux has no {name}: not a kmemcheck kernel?')
		start = self.addrs[self.names.index(name)]
		later = bisect.bisect_right(self.addrs, start)
		return start, self.addrs[later] if later < len(self.addrs) else self.end


def run_gdb(out_dir: str, vmlinux: str, port: int, syms: Symbols, faults: int,
	    cap: int, deadline: float) -> dict:
	"""Runs the gdb script until it has @faults traces; returns them."""
	script = os.path.join(out_dir, 'trace_gdb.py')
	with open(script, 'w') as f:
		f.write(GDB_SCRIPT)
	params = {'vmlinux': vmlinux, 'port': port, 'faults': faults, 'cap': cap,
		  'entry': syms.range(ENTRY)[0],
		  'handlers': [syms.range(h) for h in HANDLERS],
		  'out': os.path.join(out_dir, 'trace.json')}
	params_path = os.path.join(out_dir, 'trace-params.json')
	with open(params_path, 'w') as f:
		json.dump(params, f)
	if os.path.exists(params['out']):
		os.remove(params['out'])
	env = dict(os.environ, KMEMCHECK_PROFILE_PARAMS=params_path)
	log_path = os.path.join(out_dir, 'gdb.log')
	proc = subprocess.Popen(['gdb', '-batch', '-nx', '-x', script], env=env,
				stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
				stderr=subprocess.STDOUT, text=True, start_new_session=True)
	expired = threading.Event()

	def expire() -> None:
		expired.set()
		os.killpg(proc.pid, signal.SIGKILL)
	timer = threading.Timer(max(1.0, deadline - time.time()), expire)
	timer.start()
	try:
		with open(log_path, 'w') as log:
			for line in proc.stdout:
				log.write(line)
				if line.startswith('kmemcheck-profile:'):
					print(line.rstrip(), flush=True)
		rc = proc.wait()
	finally:
		timer.cancel()
		if proc.poll() is None:
			os.killpg(proc.pid, signal.SIGKILL)
			proc.wait()
	if expired.is_set():
		raise HarnessError(f'profile: gdb did not finish in time (log: {log_path})')
	if rc or not os.path.exists(params['out']):
		raise HarnessError(f'profile: gdb failed, exit {rc} (logs: {log_path}, '
				   'console.log)')
	with open(params['out']) as f:
		return json.load(f)


# ------------------------------------------------------------ analysis ---

def category(name: str, path: str) -> str:
	"""The first CATEGORIES row that matches the function or its file."""
	path = '/' + path.lstrip('/')
	for cat, names, files in CATEGORIES:
		if any(fnmatch.fnmatchcase(name, g) for g in names) or \
		   (path != '/' and any(fnmatch.fnmatchcase(path, '*/' + g) for g in files)):
			return cat
	return CATEGORIES[-1][0]


def analyse(trace: dict, syms: Symbols) -> dict:
	"""Instructions per fault, and the means per category and function."""
	files = {int(pc, 16): path for pc, path in trace['files'].items()}
	func_of = {pc: syms.name(pc) for pc in files}
	file_of: Dict[str, str] = {}
	for pc, func in func_of.items():
		file_of[func] = file_of.get(func) or files[pc]
	cat_of = {func: category(func, path) for func, path in file_of.items()}
	n = len(trace['faults'])
	totals: Dict[str, int] = {}
	faults = []
	for f in trace['faults']:
		per_cat: Dict[str, int] = {}
		for pc in f['pcs']:
			func = func_of[pc]
			totals[func] = totals.get(func, 0) + 1
			per_cat[cat_of[func]] = per_cat.get(cat_of[func], 0) + 1
		faults.append({'instructions': len(f['pcs']), 'ip': syms.describe(f['ip']),
			       'outcome': f['outcome'], 'categories': per_cat})
	cats = {c: sum(f['categories'].get(c, 0) for f in faults) / n for c, _, _ in CATEGORIES}
	funcs = [{'function': func, 'mean': count / n, 'category': cat_of[func],
		  'file': file_of[func]}
		 for func, count in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))]
	total = sum(f['instructions'] for f in faults)
	return {'faults': faults, 'categories': cats, 'functions': funcs,
		'mean_instructions': total / n if n else 0.0,
		'min_instructions': min(f['instructions'] for f in faults),
		'max_instructions': max(f['instructions'] for f in faults),
		'skipped': trace['skipped']}


def report(a: dict, top: int = TOP_FUNCTIONS) -> List[str]:
	"""The profile as text."""
	mean = a['mean_instructions']

	def share(x: float) -> str:
		return f'{100 * x / mean:5.1f}%' if mean else '    -'
	lines = [f'kmemcheck profile: {len(a["faults"])} faults, workload {a["workload"]}, '
		 f'cmdline "{a["cmdline"]}"',
		 f'kernel {a["kernel"]}, {a["minutes"]:.1f} minutes '
		 f'(boot {a["boot_seconds"]:.0f} s)',
		 'skipped: ' + ', '.join(f'{v} {k}' for k, v in a['skipped'].items()), '',
		 f'{"fault":>5} {"instructions":>12}  {"outcome":34} faulting instruction']
	for i, f in enumerate(a['faults'], 1):
		lines.append(f'{i:5} {f["instructions"]:12}  {OUTCOMES[f["outcome"]]:34} {f["ip"]}')
	lines += ['', f'instructions per fault: mean {mean:.1f}, min {a["min_instructions"]}, '
		  f'max {a["max_instructions"]}', '',
		  f'{"mean":>8} {"share":>6}  category']
	for cat, value in a['categories'].items():
		lines.append(f'{value:8.1f} {share(value)}  {cat}')
	lines += ['', f'top {top} functions (mean instructions per fault)',
		  f'{"mean":>8} {"share":>6}  {"category":25} function']
	for f in a['functions'][:top]:
		lines.append(f'{f["mean"]:8.1f} {share(f["mean"])}  {f["category"]:25} '
			     f'{f["function"]}')
	return lines


# ---------------------------------------------------------- subcommand ---

def _inputs(ctx, args) -> Tuple[str, str, str]:
	"""bzImage, vmlinux and the bench module; builds the module (only) if
	it is missing."""
	obj = tree.obj_dir(ctx.build_dir, CONFIG)
	kernel = os.path.abspath(args.kernel or os.path.join(obj, 'arch/x86/boot/bzImage'))
	vmlinux = os.path.abspath(args.vmlinux or os.path.join(obj, 'vmlinux'))
	for path in (kernel, vmlinux):
		if not os.path.isfile(path):
			raise HarnessError(f'profile: no {path}: build the {CONFIG} kernel first')
	ko = args.module or os.path.join(ctx.build_dir, 'bench', f'module-{CONFIG}', bench.MODULE)
	if not os.path.isfile(ko):
		if args.module:
			raise HarnessError(f'profile: no {ko}')
		ktree = tree.tree_dir(ctx.build_dir)
		if not os.path.isdir(ktree):
			raise HarnessError(f'profile: no {ko} and no prepared tree to build it; '
					   'pass --module')
		tree.log(f'profile: building the bench module against {obj}')
		ko = bench.build_module(ctx.build_dir, ktree, CONFIG, ctx.jobs)
	return kernel, vmlinux, os.path.abspath(ko)


def write_results(out_dir: str, a: dict) -> List[str]:
	"""profile.json and profile.txt; returns the text's lines."""
	text = report(a)
	with open(os.path.join(out_dir, 'profile.json'), 'w') as f:
		json.dump(a, f, indent=1)
		f.write('\n')
	with open(os.path.join(out_dir, 'profile.txt'), 'w') as f:
		f.write('\n'.join(text) + '\n')
	return text


def cmd_profile(ctx, args) -> int:
	if args.faults < 1 or args.cap < 1:
		raise HarnessError('profile: --faults and --cap must be at least 1')
	t0 = time.time()
	deadline = t0 + args.timeout
	out_dir = os.path.join(ctx.build_dir, OUT_SUBDIR)
	os.makedirs(out_dir, exist_ok=True)
	kernel, vmlinux, ko = _inputs(ctx, args)
	syms = Symbols(vmlinux)
	initrd = initramfs(out_dir, ctx.build_dir, ko, args.workload)
	cmdline = f'{GUEST_CMDLINE} kmemcheck=1 {args.cmdline}'.strip()
	console = os.path.join(out_dir, 'console.log')
	port = free_port()
	proc = None
	try:
		proc = start_qemu(kernel, initrd, cmdline, port, console)
		boot = wait_for_marker(proc, console, deadline)
		tree.log(f'profile: workload running after {boot:.0f} s; tracing '
			 f'{args.faults} faults with gdb')
		try:
			trace = run_gdb(out_dir, vmlinux, port, syms, args.faults, args.cap,
					deadline)
		except HarnessError as e:
			splat = qemu.first_splat(_console(console))
			raise HarnessError(f'{e}; the guest said {splat}' if splat else str(e)) from None
	finally:
		stop_qemu(proc)
	a = analyse(trace, syms)
	a.update({'workload': args.workload, 'cmdline': f'{qemu.BASE_CMDLINE} {cmdline}',
		  'kernel': kernel, 'vmlinux': vmlinux, 'module': ko, 'boot_seconds': boot,
		  'minutes': (time.time() - t0) / 60, 'date': time.strftime(
			  '%Y-%m-%d %H:%M UTC', time.gmtime())})
	print('\n'.join(write_results(out_dir, a)))
	print(f'profile: {out_dir}/profile.json and profile.txt')
	return 0


def register(sub, common) -> None:
	"""Adds the profile subcommand to the argparse subparsers."""
	p = sub.add_parser('profile', parents=[common],
			   help='instructions of kmemcheck faults by function (gdb '
			   'single-steps a built kernel; no lock, no build)')
	p.add_argument('--kernel', default=None, metavar='BZIMAGE',
		       help=f'default: <build-dir>/obj-{CONFIG}/arch/x86/boot/bzImage')
	p.add_argument('--vmlinux', default=None,
		       help=f'its symbols (default: <build-dir>/obj-{CONFIG}/vmlinux)')
	p.add_argument('--module', default=None, metavar='KO',
		       help='the bench module (default: <build-dir>/bench/module-'
		       f'{CONFIG}/{bench.MODULE}, built if missing)')
	p.add_argument('--workload', default='kmalloc',
		       help=f'{", ".join(bench.MICRO)} (the module\'s loops) or a shell '
		       'command, run in a loop (default: %(default)s)')
	p.add_argument('--faults', type=int, default=DEFAULT_FAULTS,
		       help='kmemcheck faults to trace (default: %(default)s)')
	p.add_argument('--cap', type=int, default=DEFAULT_CAP,
		       help='most instructions stepped in one fault (default: %(default)s)')
	p.add_argument('--cmdline', default='',
		       help='more kernel parameters, e.g. kmemcheck.fastpath=0')
	p.add_argument('--timeout', type=float, default=DEFAULT_TIMEOUT,
		       help='seconds for the whole run (default: %(default)s)')
