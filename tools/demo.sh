#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make run`: boot the VM with a wddmseg device in its default layout,
# `modprobe wddmseg fbdev=1`, print the decoded segment table with
# wddmseg-info,
# take screenshots of the guest display, power off. Extra QEMU -device
# properties may be given in WDDMSEG_DEVICE, e.g.
# WDDMSEG_DEVICE="vis-size=16M,invis-size=32M". The kernel is KABI's
# (tools/vm/kenv.sh): 6.12 unless `make run KABI=6.1`.
#
# Screenshots (QEMU screendumps over QMP, tools/vm/screendump.py), in
# build/demo/:
#   screen.png          the display after wddmseg-info: the fbdev console
#                       (wddmseg-info's output is also written to tty1)
#   wddmseg-XR24.png    wddmseg-pattern's test pattern, checked pixel by
#                       pixel against the expected image (when the driver
#                       has a connector)
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/tools/vm/kenv.sh"
OUT=$REPO/build/demo
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
dev="wddmseg,addr=0x4,id=gpu0${WDDMSEG_DEVICE:+,$WDDMSEG_DEVICE}"
mkdir -p "$OUT"
rm -f "$OUT"/*.png "$OUT"/*.ppm

cat >"$OUT/guest.sh" <<'EOF'
rc=0
# fbdev=1: the driver's fbdev emulation, so the console is on the display
if modprobe wddmseg fbdev=1; then
	echo "wddmseg-vm: modprobe wddmseg: ok" >/dev/console
else
	echo "wddmseg-vm: modprobe wddmseg: FAILED" >/dev/console
	rc=1
fi
wddmseg-info >/tmp/out 2>&1 || rc=1
cat /tmp/out
cat /tmp/out >/dev/console
# on the display: the fbdev console, when the driver provides one
if [ -e /dev/fb0 ]; then
	sleep 1
	{ printf '\033[2J\033[H'; echo "wddmseg demo, kernel $(uname -r)"; echo
	  cat /tmp/out; } >/dev/tty1 2>/dev/null
	sleep 1
fi
echo "WDDMSEG-SCREEN name=screen qdev=gpu0"
read -t 120 line </dev/ttyS2
wddmseg-pattern -D wddmseg -t qdev=gpu0 -H 120 -w </dev/ttyS2 2>/tmp/err
prc=$?
case $prc in
0) ;;
4) echo "demo: no test pattern: $(tail -n 1 /tmp/err)" ;;
*) cat /tmp/err; rc=1 ;;
esac
echo "WDDMSEG-KMS END"
exit $rc
EOF

echo "demo: booting the VM (TCG, about 10 s) with -device $dev"
rc=0
bash "$REPO/tools/vm/run-vm.sh" --no-build --name demo --mode script \
	--script "$OUT/guest.sh" --qmp --ctl --timeout 300 \
	-- -device "$dev" &
vm=$!
python3 "$REPO/tools/vm/screendump.py" watch --qmp "$VMDIR/demo.qmp" \
	--ctl "$VMDIR/demo.ctl" --log "$VMDIR/demo.tap" --out "$OUT" \
	--timeout 300 >"$OUT/screendump.log" 2>&1 || rc=$?
wait $vm || rc=$?
echo "demo: guest output ($VMDIR/demo.tap):"
tr -d '\r' <"$VMDIR/demo.tap" | grep -v '^WDDMSEG-'
echo "demo: full guest console log: $VMDIR/demo.console.log"
echo "demo: screendumps (build/demo/screendump.log):"
sed 's/^/  /' "$OUT/screendump.log"
grep -q '^not ok' "$OUT/screendump.log" && rc=1
if size=$(python3 "$REPO/tools/vm/screendump.py" check-png "$OUT/screen.png" 2>&1); then
	echo "demo: screenshot of the guest display: build/demo/screen.png ($size PNG)"
else
	echo "demo: no valid screenshot in build/demo/screen.png: $size"
	rc=1
fi
[ -f "$OUT/wddmseg-XR24.png" ] &&
	echo "demo: test pattern screenshot: build/demo/wddmseg-XR24.png"
exit $rc
