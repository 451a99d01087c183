#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The KMS checks: one VM boot in which libdrm's modetest lists and sets
# modes on each card, and wddmseg-pattern shows a known pattern that the
# host compares, pixel by pixel, with a QEMU screendump taken over QMP.
#
# Usage: tools/vm/kms-check.sh [--name NAME] [--vm-dir DIR] [--out DIR]
#            [--cards "DRIVER:QDEV:FORMATS ..."] [--modules "M ..."]
#            [--mode WxH] [--timeout SECS] [-- QEMU DEVICE ARGS...]
#
#   --cards    what to check (tools/vm/kms-guest.sh): DRM driver name,
#              the QEMU -device id showing it, the pixel formats to
#              compare (default "wddmseg:gpu0:XR24,RG16")
#   --modules  modules the guest loads (default "wddmseg")
#   --mode     mode modetest must list and set (default 1024x768)
#   after --   the devices (default -device wddmseg,addr=0x4,id=gpu0)
#
# Prints one TAP stream (the guest's modetest results, then the host's
# screendump comparisons, then the VM boot itself) on stdout; exit status
# 0 when nothing failed. Files: DIR/NAME.{tap,console.log,...} (run-vm.sh;
# default build/ABI/vm) and the screendumps in --out (default
# build/ABI/kms): DRIVER-FORMAT.ppm and .png, and DRIVER-FORMAT.expected.ppm
# when a comparison fails. Environment: KABI, the kernel (tools/vm/kenv.sh;
# default 6.12).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tools/vm
. "$HERE/kenv.sh"
NAME=kms VMDIR=$WDDMSEG_KBUILD/vm OUT=$WDDMSEG_KBUILD/kms TIMEOUT=600
CARDS="wddmseg:gpu0:XR24,RG16" MODULES="wddmseg" MODE=1024x768
while [ $# -gt 0 ]; do
	case "$1" in
	--name) NAME=${2:?}; shift 2 ;;
	--vm-dir) VMDIR=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--cards) CARDS=${2:?}; shift 2 ;;
	--modules) MODULES=${2:?}; shift 2 ;;
	--mode) MODE=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '/^# Usage:/,/when a comparison fails/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "kms-check: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
DEVS=("$@")
[ ${#DEVS[@]} -gt 0 ] || DEVS=(-device wddmseg,addr=0x4,id=gpu0)
case "$VMDIR" in /*) ;; *) VMDIR=$PWD/$VMDIR ;; esac
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
mkdir -p "$VMDIR" "$OUT"

script=$OUT/$NAME.guest.sh
{
	echo "KMS_CARDS='$CARDS'"
	echo "KMS_MODULES='$MODULES'"
	echo "KMS_MODE='$MODE'"
	cat "$HERE/kms-guest.sh"
} >"$script"

expects=()
for spec in $CARDS; do
	drv=${spec%%:*}
	for f in $(echo "${spec##*:}" | tr ',' ' '); do
		expects+=(--expect "$drv:$f")
	done
done

rm -f "$OUT/$NAME".*.ppm "$OUT/$NAME.host.tap"
WDDMSEG_VM_DIR=$VMDIR bash "$HERE/run-vm.sh" --no-build --name "$NAME" \
	--mode script --script "$script" --timeout "$TIMEOUT" --qmp --ctl \
	-- "${DEVS[@]}" >"$OUT/$NAME.run-vm.log" 2>&1 &
vm=$!
python3 "$HERE/screendump.py" watch --qmp "$VMDIR/$NAME.qmp" \
	--ctl "$VMDIR/$NAME.ctl" --log "$VMDIR/$NAME.tap" --out "$OUT" \
	--timeout "$TIMEOUT" "${expects[@]}" >"$OUT/$NAME.host.tap" 2>&1
wrc=$?
wait $vm
rc=$?

tr -d '\r' <"$VMDIR/$NAME.tap" 2>/dev/null | grep -v '^WDDMSEG-'
cat "$OUT/$NAME.host.tap"
if [ $wrc -ne 0 ]; then
	echo "not ok 1 - screendump watcher exited with $wrc (see $OUT/$NAME.host.tap)"
fi
if [ $rc -eq 0 ]; then
	echo "ok 1 - kms vm boot: finished, guest log clean"
else
	echo "not ok 1 - kms vm boot: run-vm.sh exit $rc"
	sed 's/^/# /' "$OUT/$NAME.run-vm.log"
fi
grep -q '^not ok' "$OUT/$NAME.host.tap" && exit 1
[ $rc -eq 0 ] && [ $wrc -eq 0 ]
