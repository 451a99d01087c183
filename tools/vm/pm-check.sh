#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Suspend-to-RAM, the WDDM way: one boot (bzImage, S3 offered by q35's
# ACPI tables) with three wddmseg devices whose segments preserve
# different things across S3:
#
#   00:04.0  segment 1 PreservedDuringStandby, segment 2 not (both
#            VprSupported + EncryptedPagingSupported: protected content
#            is sealed out of both, since neither has
#            VprPreservedDuringStandby)
#   00:05.0  no segment flagged, but the adapter has AlwaysPoweredVRAM
#            (segment 2 VprSupported + VprPreservedDuringStandby)
#   00:06.0  both segments flagged, but DisableSelfRefreshVRAMInS3
#            (segment 2 VprSupported, neither VPR flag)
#
# The guest runs the wddmseg-pm kselftest: allocations in every segment,
# the aperture and system memory, then WDDMSEG_PM_CYCLES (default 20)
# real S3 cycles (RTC wake alarm + echo mem > /sys/power/state); after each
# the content is intact, preserved segments copied 0 bytes, the others
# were evicted and restored, freed VRAM of a segment that lost power reads
# the device's poison pattern, the engine blits. Then pm.vpr:
# HardwareProtected allocations in the three VprSupported segments; the
# suspend is refused (rule pm-hardware-protected-evict) while 00:06.0's
# can be neither kept nor sealed, and without it one S3 cycle keeps
# 00:05.0's in place (0 bytes copied) and seals 00:04.0's out and back
# (TRANSFER_ENCRYPTED). Then pm.runtime: with a 200 ms autosuspend delay
# and the console blanked each device reaches runtime_status "suspended"
# (D3hot, the standby flags deciding what is evicted), and a CPU-mapping
# fault, a debugfs peek and an ioctl resume it with every byte in place;
# the console's CRTC and an unsignalled job keep it active. The console
# log must be clean (no Oops, WARN, BUG, lockdep report).
#
# Usage: tools/vm/pm-check.sh [CYCLES]        (after the guest is built)
# TAP on stdout; exit 1 when a check failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh" || exit 1
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
mkdir -p "$VMDIR"
CYCLES=${1:-20}
APT="0x100000000:-:64M:32M:0x11"
L4="0:0|0:0:16M:16M:0x50484|16M:-:16M:16M:0x50000|$APT"
L5="0x20000:0|0:0:16M:16M:0x404|16M:-:16M:16M:0x30000|$APT"
L6="0x1000:0|0:0:16M:16M:0x484|16M:-:16M:16M:0x10080|$APT"

expect=$VMDIR/pm.expect
{
	printf '0000:00:04.0 vram=32M bar2=16M layout=%s\n' "$L4"
	printf '0000:00:05.0 vram=32M bar2=16M layout=%s\n' "$L5"
	printf '0000:00:06.0 vram=32M bar2=16M layout=%s\n' "$L6"
} >"$expect"

script=$VMDIR/pm.sh
cat >"$script" <<EOF
n=0
tap() { n=\$((n + 1)); if [ "\$1" = 0 ]; then echo "ok \$n - \$2"; else echo "not ok \$n - \$2"; fi; }
modprobe wddmseg fbdev=1
grep -q deep /sys/power/mem_sleep
tap \$? "the guest offers S3 (deep in /sys/power/mem_sleep: \$(cat /sys/power/mem_sleep))"
WDDMSEG_EXPECT=/etc/wddmseg/expect WDDMSEG_PM_CYCLES=$CYCLES /usr/bin/wddmseg-pm >/tmp/t 2>&1
tap \$? "wddmseg-pm: $CYCLES S3 cycles, three preservation layouts, HardwareProtected kept, sealed and refused, runtime PM (D3hot)"
sed 's/^/#| /' /tmp/t
WDDMSEG_EXPECT=/etc/wddmseg/expect /usr/bin/wddmseg_query >/tmp/t 2>&1
tap \$? "wddmseg_query on the PM layouts: DisableSelfRefreshVRAMInS3 and AlwaysPoweredVRAM honoured"
sed 's/^/#| /' /tmp/t
for d in 04 05 06; do
	f=/sys/bus/pci/devices/0000:00:\$d.0/wddmseg
	echo "# 00:\$d.0 evicted \$(cat \$f/pm_evicted_bytes) restored \$(cat \$f/pm_restored_bytes) kept \$(cat \$f/pm_kept_bytes) phases(us) \$(cat \$f/pm_phase_us) cycles \$(cat \$f/pm_cycles) runtime cycles \$(cat \$f/pm_runtime_cycles)"
done
EOF

bash "$REPO/tools/vm/run-vm.sh" --no-build --name pm --mode script --s3 \
	--script "$script" --expect "$expect" --timeout 1200 -- \
	-device "wddmseg,addr=0x4,vis-size=16M,invis-size=16M,layout=$L4" \
	-device "wddmseg,addr=0x5,vis-size=16M,invis-size=16M,layout=$L5" \
	-device "wddmseg,addr=0x6,vis-size=16M,invis-size=16M,layout=$L6" \
	>"$VMDIR/pm.log" 2>&1
rc=$?
tr -d '\r' <"$VMDIR/pm.tap" 2>/dev/null | grep -v '^WDDMSEG-' |
	grep -E '^(# )*(ok|not ok) [0-9]+ |^#\| |^# 00:' >"$VMDIR/pm.tap.ok" || :
n=$(grep -Ec '^(not )?ok ' "$VMDIR/pm.tap.ok")
cat "$VMDIR/pm.tap.ok"
if [ "$rc" -eq 0 ]; then
	echo "ok $((n + 1)) - pm boot: $CYCLES S3 cycles finished, guest log clean"
else
	echo "not ok $((n + 1)) - pm boot: run-vm.sh exit $rc (see $VMDIR/pm.log)"
	sed 's/^/# /' "$VMDIR/pm.log"
fi
[ "$n" -ge 3 ] || { echo "not ok $((n + 2)) - pm boot: only $n of 3 checks reported"; exit 1; }
grep -q '^not ok' "$VMDIR/pm.tap.ok" && exit 1
[ "$rc" -eq 0 ]
