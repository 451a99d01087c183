#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Scan a guest console log for signs of a kernel bug.
#
# Usage: tools/vm/scan-log.sh FILE...
# Exit 0 when clean; 1 (printing file:line: text of each hit) when any
# pattern matched; 2 when a file is missing.
set -euo pipefail

PATTERNS=(
	"Oops"
	"BUG:"
	"WARNING:"
	"KASAN"
	"possible circular locking"
	"possible recursive locking"
	"sleeping function called"
	"refcount_t:"
	"use-after-free"
	"general protection fault"
	"Kernel panic"
	"Call Trace:"
)

if [ $# -eq 0 ]; then
	echo "usage: $0 FILE..." >&2
	exit 2
fi

args=()
for p in "${PATTERNS[@]}"; do args+=(-e "$p"); done

rc=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "scan-log: $f: no such file" >&2
		rc=2
		continue
	fi
	# serial logs carry \r; strip it so the output stays readable
	if hits=$(tr -d '\r' <"$f" | grep -naF "${args[@]}"); then
		echo "scan-log: $f: kernel problems found:" >&2
		sed "s|^|$f:|" <<<"$hits"
		[ $rc -eq 0 ] && rc=1
	fi
done
exit $rc
