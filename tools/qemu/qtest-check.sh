#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Check the wddmseg QEMU device model without a guest, over QEMU's qtest
# protocol: PCI identity and BARs, every register of the default layout, a
# custom layout with banks, the CPU translated address following BAR2, the
# size properties, and the rejection of malformed layout strings.
#
# Usage: tools/qemu/qtest-check.sh QEMU_BINARY
#
# TAP output ("ok N - ..." / "not ok N - ..."); exits 1 when a check fails.
# Each QEMU run gets its commands in one batch on stdin and stops itself
# through isa-debug-exit, so the run is deterministic and takes seconds.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 QEMU_BINARY" >&2
	exit 2
fi
QEMU=$1

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

COMMON=(-machine q35 -accel qtest -qtest stdio -qtest-log /dev/null -display none -nodefaults
	-L /usr/share/seabios -L /usr/share/qemu
	-device "isa-debug-exit,iobase=0xf4,iosize=0x04")

DEV=4				# -device wddmseg,addr=0x4 on bus 0
BAR0=0xe0000000			# where the checks map the registers
BAR2=0x840000000		# ... and the VRAM window

# Register offsets, from the shared register header.
HW_H=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/drivers/gpu/drm/wddmseg/wddmseg_hw.h
hw() {
	local v
	v=$(awk -v n="$1" '$1 == "#define" && $2 == n { print $3; exit }' "$HW_H")
	[ -n "$v" ] || { echo "qtest-check: $1 not in $HW_H" >&2; exit 2; }
	echo "$v"
}
REG_ID=$(hw WDDMSEG_REG_ID)
REG_VERSION=$(hw WDDMSEG_REG_VERSION)
REG_VIDMM_CAPS=$(hw WDDMSEG_REG_VIDMM_CAPS)
REG_PAGING_NODE=$(hw WDDMSEG_REG_PAGING_NODE)
REG_NUM_ENGINES=$(hw WDDMSEG_REG_NUM_ENGINES)
REG_SEG_COUNT=$(hw WDDMSEG_REG_SEG_COUNT)
REG_VRAM_SIZE_LO=$(hw WDDMSEG_REG_VRAM_SIZE_LO)
SEG_TABLE=$(hw WDDMSEG_SEG_TABLE)
SEG_STRIDE=$(hw WDDMSEG_SEG_STRIDE)
SEG_BASE_LO=$(hw WDDMSEG_SEG_BASE_LO)
SEG_CPU_LO=$(hw WDDMSEG_SEG_CPU_LO)
SEG_SIZE_LO=$(hw WDDMSEG_SEG_SIZE_LO)
SEG_COMMIT_LO=$(hw WDDMSEG_SEG_COMMIT_LO)
SEG_FLAGS=$(hw WDDMSEG_SEG_FLAGS)
SEG_NB_BANKS=$(hw WDDMSEG_SEG_NB_BANKS)
SEG_BANK0_LO=0x40		# WDDMSEG_SEG_BANK_LO(0)

MiB=$((1 << 20))
GiB=$((1 << 30))

# ---- TAP ----------------------------------------------------------------

N=0
FAILED=0
tap_ok() { N=$((N + 1)); echo "ok $N - $1"; }
tap_not_ok() {
	N=$((N + 1))
	FAILED=$((FAILED + 1))
	echo "not ok $N - $1"
	[ -z "${2:-}" ] || echo "# $2"
}

# ---- one QEMU session ---------------------------------------------------
#
# Queue commands with q / expect / expect64, then run them with
# session DEVICE_OPTIONS. EXP holds, per command: "" (only needs "OK"),
# a value, or "hi:VALUE" (this readl is the high half of a 64-bit value
# whose low half is the previous command's answer).

CMDS=()
EXP=()
DESC=()

q() { CMDS+=("$1"); EXP+=(""); DESC+=(""); }
expect() { CMDS+=("$1"); EXP+=("$2"); DESC+=("$3"); }

# expect64 ADDR VALUE DESC: readl of a _LO/_HI register pair.
expect64() {
	q "readl $(printf 0x%x "$1")"
	CMDS+=("readl $(printf 0x%x $(($1 + 4)))")
	EXP+=("hi:$2")
	DESC+=("$3")
}

cfg_addr() { printf 0x%x $((0x80000000 | (DEV << 11) | $1)); }
cfg_write() { q "outl 0xcf8 $(cfg_addr "$1")"; q "outl 0xcfc $(printf 0x%x "$2")"; }
cfg_expect() { q "outl 0xcf8 $(cfg_addr "$1")"; expect "inl 0xcfc" "$2" "$3"; }

reg() { printf 0x%x $((BAR0 + $1)); }
seg_reg() { reg $((SEG_TABLE + $1 * SEG_STRIDE + $2)); }

# Map BAR0 and BAR2 at the addresses above and enable memory decoding.
map_bars() {
	cfg_write 0x10 $BAR0
	cfg_write 0x18 $((BAR2 & 0xffffffff))
	cfg_write 0x1c $((BAR2 >> 32))
	cfg_write 0x04 0x0002
}

# expect_seg I BASE CPU SIZE COMMIT FLAGS NBANKS [BANK...]
expect_seg() {
	local i=$1 id=$(($1 + 1)) j=0 b
	expect64 $((BAR0 + SEG_TABLE + i * SEG_STRIDE + SEG_BASE_LO)) "$2" "segment $id BASE = $(printf 0x%x "$2")"
	expect64 $((BAR0 + SEG_TABLE + i * SEG_STRIDE + SEG_CPU_LO)) "$3" "segment $id CPU = $(printf 0x%x "$3")"
	expect64 $((BAR0 + SEG_TABLE + i * SEG_STRIDE + SEG_SIZE_LO)) "$4" "segment $id SIZE = $(printf 0x%x "$4")"
	expect64 $((BAR0 + SEG_TABLE + i * SEG_STRIDE + SEG_COMMIT_LO)) "$5" "segment $id COMMIT = $(printf 0x%x "$5")"
	expect "readl $(seg_reg "$i" "$SEG_FLAGS")" "$6" "segment $id FLAGS = $(printf 0x%x "$6")"
	expect "readl $(seg_reg "$i" "$SEG_NB_BANKS")" "$7" "segment $id NB_BANKS = $7"
	shift 7
	for b in "$@"; do
		expect64 $((BAR0 + SEG_TABLE + i * SEG_STRIDE + SEG_BANK0_LO + j * 8)) "$b" \
			"segment $id BANK[$j] = $(printf 0x%x "$b")"
		j=$((j + 1))
	done
	# The first bank slot past the listed ones reads 0.
	if [ $j -lt 16 ]; then
		expect64 $((BAR0 + SEG_TABLE + i * SEG_STRIDE + SEG_BANK0_LO + j * 8)) 0 \
			"segment $id BANK[$j] (unlisted) = 0"
	fi
}

session() {
	local name=$1 rc=0 i got lo=0 want
	shift
	q "outb 0xf4 0x0"	# isa-debug-exit: QEMU exits with status 1
	printf '%s\n' "${CMDS[@]}" >"$TMP/in"
	timeout 60 "$QEMU" "${COMMON[@]}" "$@" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" || rc=$?
	mapfile -t RESP < <(grep -E '^(OK|FAIL|ERR)' "$TMP/out" || true)

	if [ $rc -ne 1 ] || [ ${#RESP[@]} -ne $((${#CMDS[@]} - 1)) ]; then
		tap_not_ok "$name: QEMU session (exit $rc, ${#RESP[@]} of $((${#CMDS[@]} - 1)) answers)" \
			"$(head -c 400 "$TMP/err" | tr '\n' ' ')"
		CMDS=()
		EXP=()
		DESC=()
		return
	fi
	for ((i = 0; i < ${#CMDS[@]} - 1; i++)); do
		got=${RESP[$i]:-}
		if [ -z "${EXP[$i]}" ]; then
			if [ "${got%% *}" != "OK" ]; then
				tap_not_ok "$name: '${CMDS[$i]}' answered '$got'"
			fi
			lo=${got#OK }
			continue
		fi
		if [ "${got%% *}" != "OK" ] || [ "${got#OK }" = "$got" ]; then
			tap_not_ok "$name: ${DESC[$i]}" "'${CMDS[$i]}' answered '$got'"
			continue
		fi
		got=$((${got#OK }))
		want=${EXP[$i]}
		if [ "${want#hi:}" != "$want" ]; then
			want=${want#hi:}
			got=$(((got << 32) | (lo & 0xffffffff)))
		fi
		if [ $((got)) -eq $((want)) ]; then
			tap_ok "$name: ${DESC[$i]}"
		else
			tap_not_ok "$name: ${DESC[$i]}" "got $(printf 0x%x $got), want $(printf 0x%x $((want)))"
		fi
	done
	CMDS=()
	EXP=()
	DESC=()
}

# malformed LAYOUT DESC: QEMU must refuse to start, saying why.
malformed() {
	local rc=0
	# If the layout is wrongly accepted, isa-debug-exit stops QEMU (exit 1
	# too, but without the message).
	echo "outb 0xf4 0x0" >"$TMP/in"
	timeout 30 "$QEMU" "${COMMON[@]}" -device "wddmseg,addr=0x4,layout=$1" \
		<"$TMP/in" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ $rc -eq 1 ] && grep -q "wddmseg,addr=0x4,layout=.*: malformed layout '.*': .* at offset [0-9]" "$TMP/err"; then
		tap_ok "malformed layout rejected ($2)"
	else
		tap_not_ok "malformed layout rejected ($2)" \
			"exit $rc: $(head -c 400 "$TMP/err" | tr '\n' ' ')"
	fi
}

# ---- default layout -----------------------------------------------------

cfg_expect 0x00 0x01501b36 "PCI vendor 0x1b36, device 0x0150"
cfg_expect 0x08 0x03800001 "PCI class 0x0380 (display, other), revision 1"
cfg_write 0x10 0xffffffff
cfg_expect 0x10 0xffffc000 "BAR0 is 16 KiB of 32-bit MMIO"
cfg_write 0x18 0xffffffff
cfg_expect 0x18 0xfc00000c "BAR2 is 64 MiB, 64-bit, prefetchable"
cfg_write 0x1c 0xffffffff
cfg_expect 0x1c 0xffffffff "BAR2 high half is writable (64-bit BAR)"
cfg_write 0x30 0xfffff800
cfg_expect 0x30 0 "no expansion ROM"
map_bars
expect "readl $(reg "$REG_ID")" 0x57445347 "ID reads 'WDSG'"
expect "readl $(reg "$REG_VERSION")" 0x00010000 "VERSION reads 1.0"
expect "readl $(reg "$REG_VIDMM_CAPS")" 0 "VIDMM_CAPS = 0"
expect "readl $(reg "$REG_PAGING_NODE")" 0 "PAGING_NODE = 0"
expect "readl $(reg "$REG_NUM_ENGINES")" 1 "NUM_ENGINES = 1"
expect "readl $(reg "$REG_SEG_COUNT")" 3 "SEG_COUNT = 3"
expect64 $((BAR0 + REG_VRAM_SIZE_LO)) $((128 * MiB)) "VRAM_SIZE = vis-size + invis-size"
expect_seg 0 0 $BAR2 $((64 * MiB)) $((64 * MiB)) 0x484 0
expect_seg 1 $((64 * MiB)) 0 $((64 * MiB)) $((64 * MiB)) 0 0
expect_seg 2 $((4 * GiB)) 0 $((256 * MiB)) $((128 * MiB)) 0x11 0
expect "readl $(seg_reg 3 "$SEG_SIZE_LO")" 0 "slot 4 (past SEG_COUNT) reads 0"
expect "readq $(seg_reg 0 "$SEG_SIZE_LO")" $((64 * MiB)) "64-bit read of SIZE_LO/HI"
q "writel $(reg "$REG_ID") 0x0"
expect "readl $(reg "$REG_ID")" 0x57445347 "writes to read-only registers are ignored"
expect "readl $(reg 0x800)" 0 "unknown register reads 0"
q "writel $((BAR2 + 0x1000)) 0xcafef00d"
expect "readl $((BAR2 + 0x1000))" 0xcafef00d "BAR2 is backed by VRAM"
q "writel $((BAR2 + 64 * MiB - 4)) 0x600dd00d"
expect "readl $((BAR2 + 64 * MiB - 4))" 0x600dd00d "last word of BAR2 is backed by VRAM"
# Move BAR2: the CPU translated address follows it.
cfg_write 0x1c 0x9
expect64 $((BAR0 + SEG_TABLE + SEG_CPU_LO)) 0x940000000 "segment 1 CPU follows BAR2 to 0x940000000"
# Unmap BAR2 (address 0): the register reads the bare offset.
cfg_write 0x18 0
cfg_write 0x1c 0
expect64 $((BAR0 + SEG_TABLE + SEG_CPU_LO)) 0 "segment 1 CPU is the offset (0) with BAR2 unmapped"
session "default" -device wddmseg,addr=0x4

# ---- the default layout written out (the rst's example) --------------------

map_bars
expect "readl $(reg "$REG_SEG_COUNT")" 3 "SEG_COUNT = 3"
expect_seg 0 0 $BAR2 $((64 * MiB)) $((64 * MiB)) 0x484 0
expect_seg 1 $((64 * MiB)) 0 $((64 * MiB)) $((64 * MiB)) 0 0
expect_seg 2 $((4 * GiB)) 0 $((256 * MiB)) $((128 * MiB)) 0x11 0
session "rst-example" -device 'wddmseg,addr=0x4,layout=0:0|0:0:64M:64M:0x484|64M:-:64M:64M:0|0x100000000:-:256M:128M:0x11'

# ---- custom layout --------------------------------------------------------

map_bars
expect "readl $(reg "$REG_VIDMM_CAPS")" 0x10 "VIDMM_CAPS from the layout"
expect "readl $(reg "$REG_PAGING_NODE")" 0 "PAGING_NODE from the layout"
expect "readl $(reg "$REG_SEG_COUNT")" 3 "SEG_COUNT = 3"
expect_seg 0 0 $BAR2 $MiB $MiB 0x0d 2 $((512 << 10)) $MiB
expect_seg 1 $MiB 0 $MiB $MiB 0 0
expect_seg 2 $((2 * MiB)) $((BAR2 + 0x100000)) $((2 * MiB)) $((3 * MiB)) 0x8 5 0x1000
cfg_write 0x18 0
cfg_write 0x1c 0
expect64 $((BAR0 + SEG_TABLE + 2 * SEG_STRIDE + SEG_CPU_LO)) 0x100000 \
	"segment 3 CPU is the offset (0x100000) with BAR2 unmapped"
session "layout" -device 'wddmseg,addr=0x4,layout=0x10:0|0:0:1M:1M:0x0d:2:512K/1M|1M:-:1M:1M:0|2M:0x100000:2M:3M:8:5:4K'

# ---- no segment, 8 segments, 16 banks, 32-bit maxima ----------------------

map_bars
expect "readl $(reg "$REG_SEG_COUNT")" 0 "layout '0x3ffff:7' has SEG_COUNT 0"
expect "readl $(reg "$REG_VIDMM_CAPS")" 0x3ffff "VIDMM_CAPS 0x3ffff"
expect "readl $(reg "$REG_PAGING_NODE")" 7 "PAGING_NODE 7"
session "empty" -device 'wddmseg,addr=0x4,layout=0x3ffff:7'

banks16=$(seq -s/ 1 16)
map_bars
expect "readl $(reg "$REG_SEG_COUNT")" 8 "SEG_COUNT = 8"
expect "readl $(reg "$REG_VIDMM_CAPS")" 0xffffffff "VIDMM_CAPS 0xffffffff"
expect_seg 7 $((7 * GiB)) 0 4096 4096 0xffffffff 0xffffffff $(seq 1 16)
session "full" -device "wddmseg,addr=0x4,layout=0xffffffff:0|0:-:4K:4K:0|1G:-:4K:4K:0|2G:-:4K:4K:0|3G:-:4K:4K:0|4G:-:4K:4K:0|5G:-:4K:4K:0|6G:-:4K:4K:0|7G:-:4K:4K:0xffffffff:0xffffffff:$banks16"

# ---- size properties --------------------------------------------------------

cfg_write 0x18 0xffffffff
cfg_expect 0x18 0xffc0000c "vis-size 3M gives a 4 MiB BAR2"
map_bars
expect64 $((BAR0 + REG_VRAM_SIZE_LO)) $MiB "VRAM_SIZE reports vram-size (1M)"
expect_seg 0 0 $BAR2 $((3 * MiB)) $((3 * MiB)) 0x484 0
expect_seg 1 $((3 * MiB)) 0 $((5 * GiB)) $((5 * GiB)) 0 0
expect_seg 2 $((4 * GiB)) 0 $((8 * GiB)) $((6 * GiB)) 0x11 0
q "writel $((BAR2 + 4 * MiB - 4)) 0x12345678"
expect "readl $((BAR2 + 4 * MiB - 4))" 0x12345678 "BAR2 beyond vram-size is still backed"
session "props" -device wddmseg,addr=0x4,vis-size=3M,invis-size=5G,aperture-size=8G,aperture-commit=6G,vram-size=1M

# ---- malformed layout strings ----------------------------------------------

malformed '' "empty string"
malformed '0' "NODE missing"
malformed '0:0|0:0:1M:1M' "FLAGS missing"
malformed '0:0|0:0:1M:1M:0|' "empty segment after '|'"
malformed '0:0|0:0:1Q:1M:0' "unknown suffix"
malformed '0:0|0:0:1m:1M:0' "lower-case suffix"
malformed '0:0|0:x:1M:1M:0' "CPU neither a number nor '-'"
malformed '0:0|0:-:1M:1M:0x100000000' "FLAGS above 32 bits"
malformed '0:0|0:-:1M:1M:0:1:1M/' "empty bank END"
malformed '0:0|0:-:1M:1M:0:17:'"$(seq -s/ 1 17)" "17 bank entries"
malformed '0:0|0:-:1M:1M:0:0:1M:5' "field after BANKS"
malformed '0:0|0:-:010:1M:0' "octal-looking number"
malformed '0:0|0:-:0x:1M:0' "0x without digits"
malformed '0:0|0:-:99999999999999999999:1M:0' "number above 64 bits"
malformed '0:0|0:-:0xffffffffffffffffG:1M:0' "suffix overflows 64 bits"
malformed '0:0|0:-: 1M:1M:0' "blank space"
malformed '0:0|0:-:-1:1M:0' "negative number"
malformed "0:0$(for i in 1 2 3 4 5 6 7 8 9; do printf '|0:-:4K:4K:0'; done)" "9 segments"

echo "1..$N"
[ $FAILED -eq 0 ]
