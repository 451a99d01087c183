#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make run`: boot the VM with a wddmseg device in its default layout,
# `modprobe wddmseg`, print the decoded segment table with wddmseg-info,
# power off. Extra QEMU -device properties may be given in WDDMSEG_DEVICE,
# e.g. WDDMSEG_DEVICE="vis-size=16M,invis-size=32M".
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
dev="wddmseg,addr=0x4${WDDMSEG_DEVICE:+,$WDDMSEG_DEVICE}"

echo "demo: booting the VM (TCG, about 5 s) with -device $dev"
rc=0
bash "$REPO/tools/vm/run-vm.sh" --no-build --name demo --mode run \
	--timeout 300 -- -device "$dev" || rc=$?
echo "demo: guest output (build/vm/demo.tap):"
tr -d '\r' <"$REPO/build/vm/demo.tap"
echo "demo: full guest console log: build/vm/demo.console.log"
exit $rc
