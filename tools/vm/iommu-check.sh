#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# IoMmuSecureModeSupported and IoMmuSecureModeRequired behind a translating
# IOMMU: one boot with QEMU's intel-iommu (the guest runs intel_iommu=on)
# and a wddmseg device of the default layout whose DXGK_VIDMMCAPS have both
# bits. Without an IOMMU the driver refuses such a device
# (tools/vm/layouts.txt, rule caps-iommu-required); here it must accept
# it, report both bits as honoured in QUERY_ADAPTER, and do its DMA (copy
# engine, page lists, aperture) through the IOMMU: the query and blit
# kselftests run on it.
#
# Usage: tools/vm/iommu-check.sh        (after the guest is built)
# TAP on stdout; exit 1 when a check failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh" || exit 1
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
mkdir -p "$VMDIR"
CAPS=0x2800	# IoMmuSecureModeSupported | IoMmuSecureModeRequired
LAYOUT="$CAPS:0|0:0:64M:64M:0x484|64M:-:64M:64M:0|0x100000000:-:256M:128M:0x11"
BDF=0000:00:04.0

expect=$VMDIR/iommu.expect
printf '%s vram=128M bar2=64M layout=%s\n' "$BDF" "$LAYOUT" >"$expect"

script=$VMDIR/iommu.sh
cat >"$script" <<EOF
n=0
tap() { n=\$((n + 1)); if [ "\$1" = 0 ]; then echo "ok \$n - \$2"; else echo "not ok \$n - \$2"; fi; }
modprobe wddmseg
dev=/sys/bus/pci/devices/$BDF
type=\$(cat \$dev/iommu_group/type 2>/dev/null)
case "\$type" in
DMA|DMA-FQ) tap 0 "the vIOMMU translates the device's DMA (iommu_group type \$type)" ;;
*) tap 1 "the vIOMMU translates the device's DMA (iommu_group type '\$type')" ;;
esac
[ -d \$dev/drm ]
tap \$? "a device with IoMmuSecureModeRequired is accepted behind the vIOMMU"
wddmseg-info >/tmp/info 2>&1
grep -q "honoured: *$(printf 0x%08x $CAPS)" /tmp/info
tap \$? "QUERY_ADAPTER reports IoMmuSecureModeSupported|Required as honoured"
sed 's/^/# /' /tmp/info
for t in wddmseg_query wddmseg_blit; do
	WDDMSEG_EXPECT=/etc/wddmseg/expect /usr/bin/\$t >/tmp/t 2>&1
	tap \$? "\$t behind the vIOMMU"
	sed 's/^/# /' /tmp/t
done
EOF

bash "$REPO/tools/vm/run-vm.sh" --no-build --name iommu --mode script \
	--script "$script" --expect "$expect" --append "intel_iommu=on" \
	--timeout 300 -- -device intel-iommu \
	-device "wddmseg,addr=0x4,layout=$LAYOUT" >"$VMDIR/iommu.log" 2>&1
rc=$?
tr -d '\r' <"$VMDIR/iommu.tap" 2>/dev/null | grep -v '^WDDMSEG-' |
	grep -E '^(# )*(ok|not ok) [0-9]+ ' >"$VMDIR/iommu.tap.ok" || :
n=$(grep -Ec '^(not )?ok ' "$VMDIR/iommu.tap.ok")
cat "$VMDIR/iommu.tap.ok"
if [ "$rc" -eq 0 ]; then
	echo "ok $((n + 1)) - iommu boot: finished, guest log clean"
else
	echo "not ok $((n + 1)) - iommu boot: run-vm.sh exit $rc (see $VMDIR/iommu.log)"
	sed 's/^/# /' "$VMDIR/iommu.log"
fi
[ "$n" -ge 5 ] || { echo "not ok $((n + 2)) - iommu boot: only $n of 5 checks reported"; exit 1; }
grep -q '^not ok' "$VMDIR/iommu.tap.ok" && exit 1
[ "$rc" -eq 0 ]
