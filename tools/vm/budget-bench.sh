#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The budget benchmark of `make bench` (issue 28): one VM boot with one
# wddmseg device whose invisible VRAM segment (64 MiB) is the local
# budget group's only ApplicationTarget, so that the group's budget is
# that segment:
#
#   0:0|0:0:64M:64M:0x484|64M:-:64M:64M:0x8000|0x100000000:-:256M:128M:0x11
#
# tools/wddmseg/wddmseg-budgetbench oversubscribes it twice over with
# three processes, with budgets off, with processes that trim by offering
# when notified, and with processes that ignore their notifications (the
# driver trims them), and prints the bytes the paging engine copied, the
# bytes discarded, the trim notifications and the wall times; then the
# time to free the segment by purging offered allocations against
# evicting them. See the program's comment for the load.
#
# Usage: tools/vm/budget-bench.sh [REPEATS] [ROUNDS]   (after the guest is built)
# Prints the tables; exit status non-zero if the VM or the benchmark failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh" || exit 1
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
mkdir -p "$VMDIR"
REPEATS=${1:-3}
ROUNDS=${2:-4}
LAYOUT="0:0|0:0:64M:64M:0x484|64M:-:64M:64M:0x8000|0x100000000:-:256M:128M:0x11"

script=$VMDIR/budgetbench.sh
cat >"$script" <<SCRIPT
modprobe wddmseg
wddmseg-budgetbench --repeats $REPEATS --rounds $ROUNDS -v
echo "wddmseg-budgetbench exit \$?"
SCRIPT

bash "$REPO/tools/vm/run-vm.sh" --no-build --name budgetbench --mode script \
	--script "$script" --timeout 1500 -- \
	-device "wddmseg,addr=0x4,layout=$LAYOUT" \
	>"$VMDIR/budgetbench.log" 2>&1
rc=$?
tr -d '\r' <"$VMDIR/budgetbench.tap" 2>/dev/null | grep -v '^WDDMSEG-'
[ "$rc" -eq 0 ] || { echo "budget-bench: run-vm.sh exit $rc (see $VMDIR/budgetbench.log)"; exit 1; }
grep -q '^wddmseg-budgetbench exit 0' "$VMDIR/budgetbench.tap" ||
	{ echo "budget-bench: the benchmark failed (see $VMDIR/budgetbench.console.log)"; exit 1; }
