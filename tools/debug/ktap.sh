#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Turn the KUnit KTAP of a guest console log into one TAP line per test
# case (the leaves of the KTAP tree: the parameters of a parameterized
# case, the plain cases; a suite that failed to initialize counts as one
# failed case).
#
# Usage: tools/debug/ktap.sh CONSOLE-LOG [BEGIN-MARKER END-MARKER]
#
# Only the lines between the markers (default: the guest's "kunit: begin"
# and "kunit: end") are read, so each suite is counted once although it
# runs at every module load. Output, on stdout:
#   ok - wddmseg_caps.caps_rules: caps-reserved: bit 18
#   not ok - wddmseg_table.table_rules: overlap: memory and memory
#   #   <the failure's diagnostic lines>
#   ...
#   kunit: P passed, F failed, S skipped
# Exit 0 when there is at least one case and none failed.
set -euo pipefail

LOG=${1:?usage: ktap.sh CONSOLE-LOG [BEGIN END]}
BEGIN=${2:-wddmseg-vm: kunit: begin}
END=${3:-wddmseg-vm: kunit: end}

tr -d '\r' <"$LOG" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
awk -v begin="$BEGIN" -v end="$END" '
function indent(s) { match(s, /^ */); return int(RLENGTH / 4) }
function path(l,   p, i) {
	p = ""
	for (i = 1; i <= l; i++)
		if (name[i] != "")
			p = p (p == "" ? "" : ".") name[i]
	return p
}
index($0, begin) { on = 1; next }
index($0, end) { on = 0; next }
!on { next }
{
	lvl = indent($0)
	line = $0
	sub(/^ +/, "", line)
}
line ~ /^# Subtest: / {
	name[lvl] = substr(line, 12)
	for (i = lvl + 1; i < 16; i++) name[i] = ""
	next
}
line ~ /^(not )?ok [0-9]+ / {
	ok = (line ~ /^ok /)
	desc = line
	sub(/^(not )?ok [0-9]+ /, "", desc)
	if (child[lvl]) {	# a parent: its cases were counted
		child[lvl] = 0
		if (lvl > 0) child[lvl - 1] = 1
		diag = ""
		next
	}
	if (lvl > 0) child[lvl - 1] = 1
	p = path(lvl)
	full = (p == "" ? desc : p ": " desc)
	if (desc ~ /# SKIP/) {
		skip++
		print "ok - " full
	} else if (ok) {
		pass++
		print "ok - " full
	} else {
		fail++
		print "not ok - " full
		printf "%s", diag
	}
	diag = ""
	next
}
# failure diagnostics of the case that is running: "# case: EXPECTATION
# FAILED at ...", "Expected ...", the message
line ~ /^# .*(EXPECTATION|ASSERTION) FAILED/ || (diag != "" && line !~ /^(#|KTAP|1\.\.)/) {
	diag = diag "#   " line "\n"
	next
}
END {
	printf "kunit: %d passed, %d failed, %d skipped\n", pass, fail, skip
	exit (fail == 0 && pass + skip > 0) ? 0 : 1
}'
