#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The display across S3, checked pixel by pixel: one boot (S3 offered) with
# a wddmseg device whose DirectFlip segment does not survive S3
# (DisableSelfRefreshVRAMInS3 over PreservedDuringStandby segments), the
# driver with its fbdev console. wddmseg-pattern shows its XRGB8888
# pattern and holds the mode; the host compares a QEMU screendump with the
# pattern (tools/vm/screendump.py watch, as tools/vm/kms-check.sh does);
# the guest suspends to RAM (the framebuffer, unpinned by the atomic
# suspend, is evicted; the device poisons its VRAM and resets its
# scanout); after the wake-up the host compares a second screendump:
# the driver restored the framebuffer and the display state.
#
# Usage: tools/vm/pm-display.sh        (after the guest is built)
# TAP on stdout; exit 1 when a check failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tools/vm
. "$HERE/kenv.sh" || exit 1
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
OUT=$WDDMSEG_KBUILD/kms/pm
NAME=pmdisplay
mkdir -p "$VMDIR" "$OUT"
LAYOUT="0x1000:0|0:0:16M:16M:0x484|16M:-:16M:16M:0x80|0x100000000:-:64M:32M:0x11"

script=$OUT/$NAME.guest.sh
cat >"$script" <<'SCRIPT'
n=0
status=0
tap() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; status=1; fi; }
modprobe wddmseg fbdev=1
sleep 1
f=/sys/bus/pci/devices/0000:00:04.0/wddmseg
mkfifo /tmp/hold
wddmseg-pattern -D wddmseg -f XR24 -s 7 -t qdev=gpu0 -H 300 -w </tmp/hold \
	>/tmp/pat.out 2>/tmp/pat.err &
pid=$!
exec 7>/tmp/hold
i=0
while ! grep -q 'WDDMSEG-PATTERN READY' /tmp/pat.out && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
line=$(grep 'WDDMSEG-PATTERN READY' /tmp/pat.out)
[ -n "$line" ]
tap $? "wddmseg-pattern shows its pattern before the suspend"
echo "# before S3:"
echo "$line"
read -r _ </dev/ttyS2
echo 0 >/sys/class/rtc/rtc0/wakealarm
echo +2 >/sys/class/rtc/rtc0/wakealarm
echo mem >/sys/power/state
tap $? "S3 cycle with the pattern on the display"
ev=$(cut -d' ' -f1 $f/pm_evicted_bytes)
rs=$(cut -d' ' -f1 $f/pm_restored_bytes)
[ "$ev" -ge 3145728 ] && [ "$rs" -ge 3145728 ]
tap $? "the DirectFlip segment lost power: its framebuffers were evicted ($ev bytes) and restored ($rs bytes)"
sleep 1
echo "# after S3:"
echo "$line"
read -r _ </dev/ttyS2
echo >&7
wait $pid
tap $? "wddmseg-pattern held the mode across the suspend and exited cleanly"
sed 's/^/# /' /tmp/pat.err
echo "WDDMSEG-KMS END"
exit $status
SCRIPT

# One boot with its host-side watcher; rc: run-vm.sh's exit, wrc: the
# watcher's.
boot() {
	rm -f "$OUT"/*.ppm "$OUT/$NAME.host.tap"
	WDDMSEG_VM_DIR=$VMDIR bash "$HERE/run-vm.sh" --no-build --name "$NAME" \
		--mode script --s3 --script "$script" --timeout 600 --qmp --ctl -- \
		-device "wddmseg,addr=0x4,id=gpu0,vis-size=16M,invis-size=16M,layout=$LAYOUT" \
		>"$OUT/$NAME.run-vm.log" 2>&1 &
	vm=$!
	python3 "$HERE/screendump.py" watch --qmp "$VMDIR/$NAME.qmp" \
		--ctl "$VMDIR/$NAME.ctl" --log "$VMDIR/$NAME.tap" --out "$OUT" \
		--timeout 600 --expect wddmseg:XR24 >"$OUT/$NAME.host.tap" 2>&1
	wrc=$?
	wait $vm
	rc=$?
}

boot

tr -d '\r' <"$VMDIR/$NAME.tap" 2>/dev/null | grep -v '^WDDMSEG-'
cat "$OUT/$NAME.host.tap"
npix=$(grep -c '^ok .*pixel-exact' "$OUT/$NAME.host.tap")
if [ "$npix" -eq 2 ]; then
	echo "ok 1 - the same pixels before and after S3 (2 pixel-exact screendumps)"
else
	echo "not ok 1 - the same pixels before and after S3: $npix of 2 screendumps pixel-exact"
fi
if [ $wrc -ne 0 ]; then
	echo "not ok 1 - screendump watcher exited with $wrc (see $OUT/$NAME.host.tap)"
fi
if [ $rc -eq 0 ]; then
	echo "ok 1 - pm display boot: finished, guest log clean"
else
	echo "not ok 1 - pm display boot: run-vm.sh exit $rc"
	sed 's/^/# /' "$OUT/$NAME.run-vm.log"
fi
grep -q '^not ok' "$OUT/$NAME.host.tap" && exit 1
[ "$npix" -eq 2 ] && [ $rc -eq 0 ] && [ $wrc -eq 0 ]
