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

import os
import sys
from typing import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# The harness is in the kmemcheck_*.py modules beside this file:
#   kmemcheck_cli.py      the options and commands, test's layers in order
#   kmemcheck_context.py  what commands and layers share (Context)
#   kmemcheck_tables.py   the test tables: kernel strings, boots, configs
#   kmemcheck_layers.py   the test layers and their reporter
#   kmemcheck_user.py     the user/ layer: a user's tree and module
#   kmemcheck_run.py      run: the demo, a shell or the user's workload
# and those of the layers and commands named after them (devices, fuzz,
# ksuites, stress, bench, profile, export, lint; tree and qemu below all).
import kmemcheck_cli as cli  # noqa: E402
import kmemcheck_context as context  # noqa: E402
import kmemcheck_tree as tree  # noqa: E402
from kmemcheck_tree import HarnessError  # noqa: E402


# Commands that run beside the others: profile builds nothing (at most
# the missing bench module) and writes only <build-dir>/profile/.
UNLOCKED = ('profile',)


def main(argv: Sequence[str]) -> int:
	args = cli.parse_args(argv)
	ctx = context.make_context(args)
	try:
		lock = None if args.command in UNLOCKED else tree.lock_build_dir(ctx.build_dir)
		tree.check_deps(ctx.build_dir, command=args.command)
		return cli.COMMANDS[args.command](ctx, args)
	except HarnessError as e:
		print(f'kmemcheck.py: error: {e}', file=sys.stderr)
		return 1
	except KeyboardInterrupt:
		print('kmemcheck.py: interrupted', file=sys.stderr)
		return 130


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
