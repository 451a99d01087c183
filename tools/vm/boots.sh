#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every retried boot of a run, from run-vm.sh's ledger.
#
# Usage: tools/vm/boots.sh LEDGER
#
# run-vm.sh, the one way the harness boots a guest, appends a line per
# boot to the file WDDMSEG_BOOT_LOG names ("NAME outcome=... exit=...
# seconds=..."; tools/check.sh and tools/debug/check-debug.sh set it). A
# boot is a retry when the boot just before it had the same NAME and did
# not end "ok": a loop that boots again after a failure, wherever it is
# (today no script has one). Boots of one name in a row after a clean one
# (none today either) are not retries. Scripts do not report their own
# retries: this does, from the ledger, so none is missed or counted twice.
#
# Output: one TAP diagnostic per retry,
#   # boot retried: NAME: the boot before it ended OUTCOME (exit N)
# (tools/check.sh counts these lines: "N boot retries" in its summary),
# then "# boots: N, retried: N". No ledger (no boot) is 0 boots. Exit 0.
set -euo pipefail

LEDGER=${1:?usage: boots.sh LEDGER}
[ -f "$LEDGER" ] || { echo "# boots: 0, retried: 0 (no $LEDGER)"; exit 0; }
awk '
{
	name = $1; outcome = ""; ex = ""
	for (i = 2; i <= NF; i++) {
		if ($i ~ /^outcome=/) outcome = substr($i, 9)
		if ($i ~ /^exit=/) ex = substr($i, 6)
	}
	n++
	if (n > 1 && name == prev && prevout != "ok") {
		r++
		printf "# boot retried: %s: the boot before it ended %s (exit %s)\n", name, prevout, prevex
	}
	prev = name; prevout = outcome; prevex = ex
}
END { printf "# boots: %d, retried: %d\n", n, r }' "$LEDGER"
