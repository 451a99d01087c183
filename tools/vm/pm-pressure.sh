#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Suspend under memory pressure: one boot with little guest RAM (384 MiB)
# and two devices with 448 MiB of CPU-invisible VRAM each, more than the
# guest has free:
#
#   00:04.0  the invisible segment loses its content in S3
#   00:05.0  the same segment with PreservedDuringStandby
#
# wddmseg-pm in pressure mode fills 384 MiB of each, then asks for S3: the
# suspend must fail with -ENOMEM and rule pm-no-memory in the kernel log,
# and every byte must still be there (what was evicted comes back). Then
# it frees the first device's allocations and asks again: with nothing
# that would be lost, nothing is copied and the suspend succeeds, the
# 384 MiB kept in place. The console log must be clean (no OOM kill, no
# WARN).
#
# Usage: tools/vm/pm-pressure.sh        (after the guest is built)
# TAP on stdout; exit 1 when a check failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh" || exit 1
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
mkdir -p "$VMDIR"
MB=384
APT="0x100000000:-:64M:32M:0x11"
LA="0:0|0:0:16M:16M:0x484|16M:-:448M:448M:0|$APT"
LB="0:0|0:0:16M:16M:0x484|16M:-:448M:448M:0x80|$APT"

expect=$VMDIR/pressure.expect
{
	printf '0000:00:04.0 vram=464M bar2=16M layout=%s\n' "$LA"
	printf '0000:00:05.0 vram=464M bar2=16M layout=%s\n' "$LB"
} >"$expect"

script=$VMDIR/pressure.sh
cat >"$script" <<SCRIPT
n=0
tap() { n=\$((n + 1)); if [ "\$1" = 0 ]; then echo "ok \$n - \$2"; else echo "not ok \$n - \$2"; fi; }
modprobe wddmseg
echo "# guest RAM: \$(grep MemTotal /proc/meminfo), \$(grep MemAvailable /proc/meminfo)"
WDDMSEG_EXPECT=/etc/wddmseg/expect WDDMSEG_PM_MODE=pressure WDDMSEG_PM_MB=$MB /usr/bin/wddmseg-pm >/tmp/t 2>&1
tap \$? "wddmseg-pm: under memory pressure a suspend that must copy $MB MiB fails cleanly, one that must copy nothing succeeds"
sed 's/^/#| /' /tmp/t
dmesg | grep -E 'wddmseg.*pm:' | sed 's/^/# dmesg: /'
SCRIPT

bash "$REPO/tools/vm/run-vm.sh" --no-build --name pressure --mode script --s3 \
	--mem 384M --script "$script" --expect "$expect" --timeout 900 -- \
	-device "wddmseg,addr=0x4,vis-size=16M,invis-size=448M,layout=$LA" \
	-device "wddmseg,addr=0x5,vis-size=16M,invis-size=448M,layout=$LB" \
	>"$VMDIR/pressure.log" 2>&1
rc=$?
tr -d '\r' <"$VMDIR/pressure.tap" 2>/dev/null | grep -v '^WDDMSEG-' |
	grep -E '^(# )*(ok|not ok) [0-9]+ |^#\| |^# (dmesg|guest)' >"$VMDIR/pressure.tap.ok" || :
n=$(grep -Ec '^(not )?ok ' "$VMDIR/pressure.tap.ok")
cat "$VMDIR/pressure.tap.ok"
if [ "$rc" -eq 0 ]; then
	echo "ok $((n + 1)) - pressure boot: finished, guest log clean"
else
	echo "not ok $((n + 1)) - pressure boot: run-vm.sh exit $rc (see $VMDIR/pressure.log)"
	sed 's/^/# /' "$VMDIR/pressure.log"
fi
[ "$n" -ge 1 ] || { echo "not ok $((n + 2)) - pressure boot: no result"; exit 1; }
grep -q '^not ok' "$VMDIR/pressure.tap.ok" && exit 1
[ "$rc" -eq 0 ]
