#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Scan a debug-kernel console log for reports of the debug options of
# tools/debug/debug.config, on top of tools/vm/scan-log.sh (Oops, BUG,
# WARNING, KASAN, lockdep, ...).
#
# Usage: tools/debug/scan-log.sh FILE...
# Exit 0 when clean; 1 (printing file:line: text of each hit) when any
# pattern matched; 2 when a file is missing. Also the scanner run-vm.sh
# uses for the debug VM (WDDMSEG_SCAN_LOG).
#
# The debug options announce themselves at boot in words the patterns
# would take for reports ("RCU callback double-/use-after-free debug is
# enabled"): those exact lines are blanked first (BENIGN).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

BENIGN=(
	'rcu:[[:space:]]+RCU callback double-/use-after-free debug is enabled\.$'
	'DMA-API: preallocated [0-9]+ debug entries$'
	'DMA-API: debugging enabled by kernel config$'
)

PATTERNS=(
	"UBSAN:"					# undefined behaviour
	"ODEBUG:"					# debugobjects
	"DMA-API:"					# DMA API debugging
	"INFO: "					# lockdep, hung tasks, RCU stalls
	"turning off the locking correctness validator"
	"DEBUG_LOCKS_WARN_ON"
	"suspected memory leak"				# kmemleak's own scans
	"unreferenced object"
	"Kernel memory leak detector disabled"
	"corruption"					# list debugging, slub
	"Memory manager not clean"			# drm_mm takedown
	"blocked for more than"				# hung task
	"kernel BUG at"
	"Unable to handle kernel"
)

if [ $# -eq 0 ]; then
	echo "usage: $0 FILE..." >&2
	exit 2
fi

benign=()
for b in "${BENIGN[@]}"; do benign+=(-e "s|.*$b||"); done
args=()
for p in "${PATTERNS[@]}"; do args+=(-e "$p"); done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "scan-log: $f: no such file" >&2
		rc=2
		continue
	fi
	# same line numbers, benign lines empty
	tr -d '\r' <"$f" | sed -E "${benign[@]}" >"$tmp/log"
	st=0
	out=$(bash "$HERE/../vm/scan-log.sh" "$tmp/log" 2>&1) || st=$?
	if [ $st -ne 0 ]; then
		sed "s|$tmp/log|$f|g" <<<"$out"
		[ $rc -eq 0 ] && rc=1
	fi
	if hits=$(grep -naF "${args[@]}" "$tmp/log"); then
		echo "scan-log: $f: debug-kernel reports found:"
		sed "s|^|$f:|" <<<"$hits"
		[ $rc -eq 0 ] && rc=1
	fi
done
exit $rc
