#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hibernation, the WDDM way: three devices whose segments cover every
# valid row of the preservation table for S4, swap on a virtio disk, and
# per cycle two QEMU processes:
#
#   00:04.0  vram-file, hib-partial=8M: segment 1 110
#            (PreservedDuringHibernate), segment 2 101
#            (PartiallyPreservedDuringHibernate: its first 8 MiB survive)
#   00:05.0  no vram-file (AlwaysPoweredVRAM, which says nothing of S4):
#            segment 1 110 but the device cannot keep it (rule
#            pm-hibernate-volatile: evicted), segment 2 000
#   00:06.0  vram-file: segment 1 100 (standby only), segment 2 110
#
#   boot 1  mkswap + swapon on /dev/vda, the driver with fbdev=1, then the
#           wddmseg-pm kselftest in hibernate mode: allocations in every
#           segment (pinned Overlays included), a blit in flight, echo disk
#           > /sys/power/state: the driver evicts at PM_HIBERNATION_PREPARE
#           and freeze what the device will not keep across S4, the image
#           goes to swap, the guest powers off (QEMU exits: no "done" from
#           this boot);
#   boot 2  a new QEMU process, same arguments: fresh devices (VRAM zero
#           without a vram-file; with one, the file's bytes where the
#           flags preserve them and the device's poison elsewhere);
#           its init loads virtio_blk and writes vda's device number to
#           /sys/power/resume: the kernel restores the image, the driver's
#           restore callback brings the content back, and the kselftest
#           of boot 1 goes on, printing into this boot's serial port.
#
# Both console logs must be clean.
#
# Usage: tools/vm/pm-hibernate.sh [CYCLES]   (default 1; after the guest is
# built). TAP on stdout; exit 1 when a check failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh" || exit 1
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
mkdir -p "$VMDIR"
CYCLES=${1:-1}
APT="0x100000000:-:64M:32M:0x11"
L4="0:0|0:0:16M:16M:0x584|16M:-:16M:16M:0x280|$APT"
L5="0x20000:0|0:0:16M:16M:0x584|16M:-:16M:16M:0|$APT"
L6="0:0|0:0:16M:16M:0x484|16M:-:16M:16M:0x180|$APT"
SWAP=$VMDIR/hib-swap.img
VRAM4=$VMDIR/hib-vram4.img
VRAM6=$VMDIR/hib-vram6.img

expect=$VMDIR/hib.expect
{
	printf '0000:00:04.0 vram=32M bar2=16M layout=%s\n' "$L4"
	printf '0000:00:05.0 vram=32M bar2=16M layout=%s\n' "$L5"
	printf '0000:00:06.0 vram=32M bar2=16M layout=%s\n' "$L6"
} >"$expect"

# hib_save FILE LOST: the first boot's script; LOST is the BDF whose
# vram-file the host removes before the second boot, or empty.
hib_save() {
	{
		echo "LOST=$2"
		cat <<'SCRIPT'
modprobe virtio_pci 2>/dev/null
modprobe virtio_blk 2>/dev/null
mkswap /dev/vda >/dev/null && swapon /dev/vda || { echo "not ok 1 - swap on /dev/vda"; exit 1; }
modprobe wddmseg fbdev=1
WDDMSEG_EXPECT=/etc/wddmseg/expect WDDMSEG_PM_MODE=hibernate WDDMSEG_PM_CYCLES=1 \
	WDDMSEG_PM_HIB_PERSIST="0000:00:04.0=0x800000 0000:00:06.0=0x400000" \
	WDDMSEG_PM_HIB_LOST="$LOST" /usr/bin/wddmseg-pm >/tmp/t 2>&1
rc=$?
# From here on this runs in the restored image, in the second boot.
what="wddmseg-pm: hibernation cycle, rows 000 100 110 101, vram-file and without"
dmesg | grep -q '0000:00:05.0.*segment 1: rule pm-hibernate-volatile' ||
	{ what="$what; no rule pm-hibernate-volatile for 00:05.0 segment 1"; rc=1; }
if [ -z "$LOST" ]; then
	! dmesg | grep -q 'rule pm-hibernate-vram-lost' ||
		{ what="$what; rule pm-hibernate-vram-lost with a vram-file"; rc=1; }
else
	what="$what; $LOST's vram-file removed"
	dmesg | grep -q "$LOST.*segment 2: rule pm-hibernate-vram-lost" ||
		{ what="$what; no rule pm-hibernate-vram-lost for its segment 2"; rc=1; }
	[ "$(dmesg | grep -c 'rule pm-hibernate-vram-lost')" = 1 ] ||
		{ what="$what; rule pm-hibernate-vram-lost not for that segment alone"; rc=1; }
fi
if [ $rc = 0 ]; then echo "ok 1 - $what"; else echo "not ok 1 - $what"; fi
sed 's/^/#| /' /tmp/t
for d in 04 05 06; do
	f=/sys/bus/pci/devices/0000:00:$d.0/wddmseg
	echo "# 00:$d.0 evicted $(cat $f/pm_evicted_bytes) restored $(cat $f/pm_restored_bytes) kept $(cat $f/pm_kept_bytes) lost $(cat $f/pm_lost_bytes) phases(us) $(cat $f/pm_phase_us) cycles $(cat $f/pm_cycles)"
done
exit $rc
SCRIPT
	} >"$1"
}
save=$VMDIR/hib-save.sh
save_lost=$VMDIR/hib-save-lost.sh
hib_save "$save" ""
hib_save "$save_lost" 0000:00:06.0

resume=$VMDIR/hib-resume.sh
cat >"$resume" <<'SCRIPT'
modprobe virtio_pci 2>/dev/null
modprobe virtio_blk 2>/dev/null
cat /sys/block/vda/dev >/sys/power/resume
echo "not ok 1 - the second boot did not resume the hibernation image"
exit 1
SCRIPT

DEVS=(
	-device "wddmseg,addr=0x4,vis-size=16M,invis-size=16M,layout=$L4,vram-file=$VRAM4,hib-partial=8M"
	-device "wddmseg,addr=0x5,vis-size=16M,invis-size=16M,layout=$L5"
	-device "wddmseg,addr=0x6,vis-size=16M,invis-size=16M,layout=$L6,vram-file=$VRAM6"
	-drive "file=$SWAP,if=virtio,format=raw"
)

n=0
fail=0
tap() { # OK TEXT
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

# The last cycle (CYCLES + 1) removes 00:06.0's vram-file between the
# boots: its store did not keep what the freeze left in place.
for c in $(seq 1 $((CYCLES + 1))); do
	rm -f "$SWAP" "$VRAM4" "$VRAM6"
	truncate -s 768M "$SWAP"
	script=$save
	[ "$c" -le "$CYCLES" ] || script=$save_lost
	bash "$REPO/tools/vm/run-vm.sh" --no-build --name hib1 --mode script \
		--s3 --script "$script" --expect "$expect" --timeout 300 -- \
		"${DEVS[@]}" >"$VMDIR/hib1.log" 2>&1
	con1=$VMDIR/hib1.console.log
	tr -d '\r' <"$con1" | grep -Eq 'PM: .*(Image saving done|Wrote [0-9]+ kbytes)' &&
		tr -d '\r' <"$con1" | grep -q 'reboot: Power down'
	ok1=$?
	tap $ok1 "cycle $c: boot 1 wrote the hibernation image and powered off"
	bash "${WDDMSEG_SCAN_LOG:-$REPO/tools/vm/scan-log.sh}" "$con1" >"$VMDIR/hib1.scan" 2>&1
	scan1=$?
	tap $scan1 "cycle $c: boot 1 console log clean"
	if [ $ok1 != 0 ] || [ $scan1 != 0 ]; then
		# The next cycle overwrites the logs: keep this one's.
		cp "$con1" "$VMDIR/hib1.console.log.cycle$c" 2>/dev/null
		sed 's/^/# /' "$VMDIR/hib1.log" "$VMDIR/hib1.scan"
		echo "# boot 1's console: $VMDIR/hib1.console.log.cycle$c; its last lines:"
		tr -d '\r' <"$con1" | tail -n 40 | sed 's/^/# /'
	fi
	[ "$c" -le "$CYCLES" ] || rm -f "$VRAM6"

	bash "$REPO/tools/vm/run-vm.sh" --no-build --name hib2 --mode script \
		--s3 --script "$resume" --expect "$expect" --timeout 300 -- \
		"${DEVS[@]}" >"$VMDIR/hib2.log" 2>&1
	rc=$?
	tr -d '\r' <"$VMDIR/hib2.tap" 2>/dev/null | grep -v '^WDDMSEG-' |
		grep -E '^(# )*(ok|not ok) [0-9]+ |^#\| |^# 00:' |
		sed -E "s/^(not )?ok 1 - /\\1ok 1 - cycle $c: /" >"$VMDIR/hib2.tap.ok" || :
	grep -q '^ok 1 - ' "$VMDIR/hib2.tap.ok"
	tap $? "cycle $c: boot 2 restored the image; $(sed -n 's/^\(not \)\{0,1\}ok 1 - //p' "$VMDIR/hib2.tap.ok")"
	grep -v '^\(not \)\{0,1\}ok 1 - ' "$VMDIR/hib2.tap.ok"
	tap $rc "cycle $c: boot 2 finished, console log clean (run-vm.sh exit $rc)"
	if [ $rc != 0 ]; then
		cp "$VMDIR/hib2.console.log" "$VMDIR/hib2.console.log.cycle$c" 2>/dev/null
		sed 's/^/# /' "$VMDIR/hib2.log"
		echo "# boot 2's console: $VMDIR/hib2.console.log.cycle$c; its last lines:"
		tr -d '\r' <"$VMDIR/hib2.console.log" | tail -n 60 | sed 's/^/# /'
	fi
done
rm -f "$SWAP" "$VRAM4" "$VRAM6"
exit $fail
