#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross-check the kmemcheck decoder against objdump on an i386 vmlinux.

Every instruction objdump shows with a memory operand ("[...]", a "PTR"
size or a segment:offset) is fed to decode_bytes, and the decoded access
sizes (and, for common mnemonics, kinds) are compared with objdump's
operand sizes: BYTE 1, WORD 2, DWORD 4, FWORD 6, QWORD 8, TBYTE 10,
XMMWORD 16, YMMWORD 32.  Exit status 0 only if nothing disagrees and
nothing is unknown to the decoder, except the EXCLUDED mnemonics below.
"""

import argparse
import collections
import re
import shlex
import subprocess
import sys

SIZES = {'BYTE': 1, 'WORD': 2, 'DWORD': 4, 'FWORD': 6, 'QWORD': 8,
         'MMWORD': 8, 'TBYTE': 10, 'XMMWORD': 16, 'OWORD': 16, 'YMMWORD': 32}

# Memory operands objdump prints without a size.
UNSIZED = {'fxsave': 512, 'fxrstor': 512, 'fnsave': 108, 'frstor': 108,
           'fnstenv': 28, 'fldenv': 28, 'lgdt': 6, 'lidt': 6, 'sgdt': 6,
           'sidt': 6, 'lgdtd': 6, 'lidtd': 6, 'sgdtd': 6, 'sidtd': 6,
           'invpcid': 16}

# MOV AL/AX/EAX, moffs (A0-A3): objdump sizes the register only.
REG_SIZES = dict([(r, 1) for r in ('al', 'cl', 'dl', 'bl', 'ah', 'ch', 'dh',
                                   'bh')] +
                 [(r, 2) for r in ('ax', 'cx', 'dx', 'bx', 'sp', 'bp', 'si',
                                   'di')] +
                 [('e' + r, 4) for r in ('ax', 'cx', 'dx', 'bx', 'sp', 'bp',
                                         'si', 'di')])

# Memory operands that are not accessed: the decoder reports nothing.
NO_ACCESS = re.compile(r'^(lea|nop[wl]?|prefetch\w*|clflush|clflushopt|'
                       r'clwb|invlpg)$')

# Mnemonics the decoder rejects on purpose, with the reason.
EXCLUDED = {
    'xsave': 'fpstate in task_struct (SLAB_NOTRACK); size set by XCR0',
    'xsaveopt': 'as xsave',
    'xsavec': 'as xsave',
    'xsaves': 'as xsave',
    'xrstor': 'as xsave',
    'xrstors': 'as xsave',
}

PREFIXES = {'lock', 'rep', 'repz', 'repnz', 'repe', 'repne', 'notrack',
            'bnd', 'data16', 'addr16', 'data32', 'addr32',
            'cs', 'ds', 'es', 'fs', 'gs', 'ss'}

# x87 control instructions objdump merges with a preceding FWAIT (9b):
# the fault is taken by the instruction after the FWAIT.
FWAIT_FORMS = {'fstcw', 'fstsw', 'fsave', 'fstenv', 'finit', 'fclex'}

MEMORY = re.compile(r'\[|\bPTR\b|\b[cdefgs]s:0x')
SIZE_RE = re.compile(r'\b([A-Z]+) PTR\b')

STRING = {'movs': 'rw', 'cmps': 'rr', 'stos': 'w', 'lods': 'r',
          'scas': 'r', 'ins': 'w', 'outs': 'r'}
READ_ONLY = re.compile(r'^(cmp|test|bt|push|call|jmp|mul|imul|div|idiv|'
                       r'cmov\w+|bsf|bsr|popcnt|tzcnt|lzcnt|movzx|movsx|'
                       r'verw|verr)$')
RMW_DEST = re.compile(r'^(add|or|adc|sbb|and|sub|xor|inc|dec|neg|not|shl|'
                      r'sal|shr|sar|rol|ror|rcl|rcr|xadd|xchg|cmpxchg|'
                      r'cmpxchg8b|bts|btr|btc|shld|shrd)$')
WRITE_ONLY = re.compile(r'^(pop|set\w+)$')


def split_operands(ops):
    """Split at the commas between operands (none are nested)."""
    return [o.strip() for o in ops.split(',')] if ops else []


def expect(mnem, ops):
    """Expected accesses: list of (size, kind or None), or None if the
    instruction has no access, or a string if it cannot be told."""
    if NO_ACCESS.match(mnem):
        return []
    operands = split_operands(ops)
    mems = [o for o in operands if MEMORY.search(o)]
    sizes = []
    for o in mems:
        m = SIZE_RE.search(o)
        if m:
            if m.group(1) not in SIZES:
                return 'size %s' % m.group(1)
            sizes.append(SIZES[m.group(1)])
        elif mnem in UNSIZED:
            sizes.append(UNSIZED[mnem])
        elif mnem == 'mov' and len(operands) == 2 and \
                set(operands) - {o} <= set(REG_SIZES):
            sizes.append(REG_SIZES[(set(operands) - {o}).pop()])
        else:
            return 'unsized operand'
    if mnem in STRING:
        # objdump lists es:[edi] first; the decoder [esi] first.
        kinds = STRING[mnem]
        if len(mems) == 2:
            sizes = [sizes[1], sizes[0]]
        return list(zip(sizes, kinds))
    if len(mems) != 1:
        return '%d memory operands' % len(mems)
    first = operands and MEMORY.search(operands[0])
    kind = None
    if READ_ONLY.match(mnem):
        kind = 'r'
    elif RMW_DEST.match(mnem):
        kind = 'm' if first else 'r'
    elif WRITE_ONLY.match(mnem):
        kind = 'w'
    elif mnem == 'mov':
        kind = 'w' if first else 'r'
    return [(sizes[0], kind)]


def parse_objdump(objdump, vmlinux):
    """Yield (address, bytes, mnemonic, operands) of memory instructions."""
    cmd = [objdump, '-d', '-M', 'intel', '--insn-width=16', '-w', vmlinux]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True,
                            errors='replace')
    for line in proc.stdout:
        parts = line.rstrip('\n').split('\t')
        if len(parts) < 3 or not parts[0].endswith(':'):
            continue
        text = parts[2].split('#')[0].split('<')[0].strip()
        if not MEMORY.search(text) and not NO_ACCESS.match(text.split()[0]
                                                           if text else ''):
            continue
        words = text.split(None, 1)
        while words and words[0] in PREFIXES and len(words) > 1:
            words = words[1].split(None, 1)
        if not words:
            continue
        mnem = words[0]
        ops = words[1] if len(words) > 1 else ''
        if not MEMORY.search(ops):
            continue
        code = parts[1].split()
        if mnem in FWAIT_FORMS and code and code[0] == '9b':
            code = code[1:]
            mnem = 'fn' + mnem[1:]
        yield parts[0][:-1].strip(), code, mnem, ops
    if proc.wait():
        sys.exit('%s failed' % ' '.join(cmd))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--objdump', default='objdump')
    ap.add_argument('--decoder', default='./decode_bytes',
                    help='command to run, e.g. "qemu-i386 ./decode_bytes"')
    ap.add_argument('--examples', type=int, default=30)
    ap.add_argument('vmlinux')
    args = ap.parse_args()

    insns = list(parse_objdump(args.objdump, args.vmlinux))
    if not insns:
        sys.exit('no instructions with a memory operand in %s' %
                 args.vmlinux)
    out = subprocess.run(shlex.split(args.decoder), check=True, text=True,
                         input=''.join(' '.join(c) + '\n'
                                       for _, c, _, _ in insns),
                         stdout=subprocess.PIPE).stdout.splitlines()
    if len(out) != len(insns):
        sys.exit('decoder printed %d lines for %d instructions' %
                 (len(out), len(insns)))

    disagree, unknown, excluded = [], [], collections.Counter()
    by_mnem = collections.Counter()
    for (addr, code, mnem, ops), res in zip(insns, out):
        desc = '%s: %s  %s %s' % (addr, ' '.join(code), mnem, ops)
        by_mnem[mnem] += 1
        if mnem in EXCLUDED:
            excluded[mnem] += 1
            continue
        fields = res.split()
        ret, length = int(fields[0]), int(fields[1])
        if ret:
            unknown.append('%s  -> error %d' % (desc, ret))
            continue
        got = [(int(a.split(':')[0]), a.split(':')[1]) for a in fields[3:]]
        want = expect(mnem, ops)
        if isinstance(want, str):
            unknown.append('%s  -> objdump operand: %s' % (desc, want))
            continue
        ok = length == len(code) and len(got) == len(want)
        for (gs, gk), (ws, wk) in zip(got, want):
            ok = ok and gs == ws and (wk is None or gk == wk)
        if not ok:
            disagree.append('%s  -> decoder %s, objdump %s (length %d/%d)' %
                            (desc, got, want, length, len(code)))

    print('%d instructions with a memory operand checked (%d mnemonics)' %
          (len(insns), len(by_mnem)))
    print('%d disagree, %d unknown, %d excluded' %
          (len(disagree), len(unknown), sum(excluded.values())))
    for m, n in sorted(excluded.items()):
        print('  excluded %-10s %5d  (%s)' % (m, n, EXCLUDED[m]))
    for title, items in (('disagree', disagree), ('unknown', unknown)):
        if items:
            print('First %d of %d %s:' % (min(len(items), args.examples),
                                          len(items), title))
            for item in items[:args.examples]:
                print('  ' + item)
    return 1 if disagree or unknown else 0


if __name__ == '__main__':
    sys.exit(main())
