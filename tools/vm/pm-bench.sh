#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The suspend benchmark of `make bench`: one VM boot (S3 offered, bzImage)
# with two wddmseg devices of the same shape, 32 MiB CPU-visible and
# 32 MiB invisible VRAM:
#
#   00:04.0  both segments PreservedDuringStandby: a suspend copies nothing
#   00:05.0  the same flags, but DisableSelfRefreshVRAMInS3: every byte is
#            copied out and back (what amdgpu and xe do on every suspend)
#
# tools/wddmseg/wddmseg-pmbench fills MB MiB (default 48) of each with
# engine-filled allocations, suspends the guest CYCLES times (default 5)
# and prints, per device, the bytes copied and the median suspend and
# resume latency of the driver (its PM notifier and callbacks, from
# sysfs), then checks every byte. Numbers under TCG: the ratio says more
# than the absolute figures.
#
# Usage: tools/vm/pm-bench.sh [MB] [CYCLES]     (after the guest is built)
# Prints the table; exit status non-zero if the VM or the benchmark failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh" || exit 1
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
mkdir -p "$VMDIR"
MB=${1:-48}
CYCLES=${2:-5}
APT="0x100000000:-:64M:32M:0x11"
LA="0:0|0:0:32M:32M:0x484|32M:-:32M:32M:0x80|$APT"
LB="0x1000:0|0:0:32M:32M:0x484|32M:-:32M:32M:0x80|$APT"

script=$VMDIR/pmbench.sh
cat >"$script" <<SCRIPT
modprobe wddmseg
echo "# (a) 00:04.0 PreservedDuringStandby; (b) 00:05.0 the same with DisableSelfRefreshVRAMInS3"
wddmseg-pmbench --mb $MB --cycles $CYCLES
SCRIPT

bash "$REPO/tools/vm/run-vm.sh" --no-build --name pmbench --mode script --s3 \
	--script "$script" --timeout 900 -- \
	-device "wddmseg,addr=0x4,vis-size=32M,invis-size=32M,layout=$LA" \
	-device "wddmseg,addr=0x5,vis-size=32M,invis-size=32M,layout=$LB" \
	>"$VMDIR/pmbench.log" 2>&1
rc=$?
tr -d '\r' <"$VMDIR/pmbench.tap" 2>/dev/null | grep -v '^WDDMSEG-'
[ "$rc" -eq 0 ] || { echo "pm-bench: run-vm.sh exit $rc (see $VMDIR/pmbench.log)"; exit 1; }
