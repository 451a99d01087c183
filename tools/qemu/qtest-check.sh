#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Check the wddmseg QEMU device model without a guest, over QEMU's qtest
# protocol: PCI identity and BARs, every register of the default layout, a
# custom layout with banks, the CPU translated address following BAR2, the
# size properties, the rejection of malformed layout strings, the VRAM
# window (BAR4), the aperture page tables, the GPU-view read port (PEEK),
# STATUS, the copy engine (every opcode, every fault, hang and reset,
# wrap-around, a long transfer over several bottom-half runs), encrypted
# paging (TRANSFER_ENCRYPTED round trips, nonces, stream offsets, its
# faults, its key across a system reset and a migration), INTx and
# MSI-X, the display controller (limits, latching at once or at the next
# vblank, vblank timing on the virtual clock, every refusal, what the
# console shows through the monitor's screendump), what a system reset
# puts back, and migration.
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
BAR4=0xe0100000			# ... and the movable 1 MiB VRAM window
RAM=0x100000			# guest RAM the aperture checks map

# Register offsets, from the shared register header.
HW_H=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/drivers/gpu/drm/wddmseg/wddmseg_hw.h
hw() {
	local v
	v=$(awk -v n="$1" '$1 == "#define" && $2 == n { print $3; exit }' "$HW_H")
	[ -n "$v" ] || { echo "qtest-check: $1 not in $HW_H" >&2; exit 2; }
	if [[ $v =~ ^BIT\(([0-9]+)\)$ ]]; then
		v=$((1 << BASH_REMATCH[1]))
	fi
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
WINDOW_SIZE=$(hw WDDMSEG_WINDOW_SIZE)
REG_WINDOW_BASE_LO=$(hw WDDMSEG_REG_WINDOW_BASE_LO)
REG_WINDOW_BASE_HI=$(hw WDDMSEG_REG_WINDOW_BASE_HI)
REG_APT_SEGMENT=$(hw WDDMSEG_REG_APT_SEGMENT)
REG_APT_PAGE=$(hw WDDMSEG_REG_APT_PAGE)
REG_APT_ADDR_LO=$(hw WDDMSEG_REG_APT_ADDR_LO)
REG_PEEK_ADDR_LO=$(hw WDDMSEG_REG_PEEK_ADDR_LO)
REG_PEEK_DATA=$(hw WDDMSEG_REG_PEEK_DATA)
REG_STATUS=$(hw WDDMSEG_REG_STATUS)
APT_ERROR=$(hw WDDMSEG_STATUS_APT_ERROR)
PEEK_FAULT=$(hw WDDMSEG_STATUS_PEEK_FAULT)
REG_IRQ_STATUS=$(hw WDDMSEG_REG_IRQ_STATUS)
REG_IRQ_MASK=$(hw WDDMSEG_REG_IRQ_MASK)
IRQ_FENCE=$(hw WDDMSEG_IRQ_FENCE)
IRQ_ERROR=$(hw WDDMSEG_IRQ_ERROR)
IRQ_VBLANK=$(hw WDDMSEG_IRQ_VBLANK)
IRQ_SCANOUT_ERROR=$(hw WDDMSEG_IRQ_SCANOUT_ERROR)
REG_SC_MAX_WIDTH=$(hw WDDMSEG_REG_SCANOUT_MAX_WIDTH)
REG_SC_MAX_HEIGHT=$(hw WDDMSEG_REG_SCANOUT_MAX_HEIGHT)
REG_SC_FORMATS=$(hw WDDMSEG_REG_SCANOUT_FORMATS)
FMT_XRGB=$(hw WDDMSEG_SCANOUT_FMT_XRGB8888)
FMT_RGB565=$(hw WDDMSEG_SCANOUT_FMT_RGB565)
REG_SC_CTRL=$(hw WDDMSEG_REG_SCANOUT_CTRL)
SC_ENABLE=$(hw WDDMSEG_SCANOUT_CTRL_ENABLE)
REG_SC_SEGMENT=$(hw WDDMSEG_REG_SCANOUT_SEGMENT)
REG_SC_OFFSET_LO=$(hw WDDMSEG_REG_SCANOUT_OFFSET_LO)
REG_SC_WIDTH=$(hw WDDMSEG_REG_SCANOUT_WIDTH)
REG_SC_HEIGHT=$(hw WDDMSEG_REG_SCANOUT_HEIGHT)
REG_SC_PITCH=$(hw WDDMSEG_REG_SCANOUT_PITCH)
REG_SC_FORMAT=$(hw WDDMSEG_REG_SCANOUT_FORMAT)
REG_SC_REFRESH=$(hw WDDMSEG_REG_SCANOUT_REFRESH_MHZ)
REG_SC_COMMIT=$(hw WDDMSEG_REG_SCANOUT_COMMIT)
REG_SC_STATUS=$(hw WDDMSEG_REG_SCANOUT_STATUS)
SC_ENABLED=$(hw WDDMSEG_SCANOUT_STATUS_ENABLED)
SC_PENDING=$(hw WDDMSEG_SCANOUT_STATUS_PENDING)
SC_REFUSED=$(hw WDDMSEG_SCANOUT_STATUS_REFUSED)
REG_SC_ERROR=$(hw WDDMSEG_REG_SCANOUT_ERROR)
E_SEGMENT=$(hw WDDMSEG_SCANOUT_ERR_SEGMENT)
E_NOT_DIRECT_FLIP=$(hw WDDMSEG_SCANOUT_ERR_NOT_DIRECT_FLIP)
E_FORMAT=$(hw WDDMSEG_SCANOUT_ERR_FORMAT)
E_SIZE=$(hw WDDMSEG_SCANOUT_ERR_SIZE)
E_PITCH=$(hw WDDMSEG_SCANOUT_ERR_PITCH)
E_RANGE=$(hw WDDMSEG_SCANOUT_ERR_RANGE)
E_REFRESH=$(hw WDDMSEG_SCANOUT_ERR_REFRESH)
REG_SC_ACTIVE_SEGMENT=$(hw WDDMSEG_REG_SCANOUT_ACTIVE_SEGMENT)
REG_SC_ACTIVE_OFFSET_LO=$(hw WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO)
REG_VBLANK_COUNT=$(hw WDDMSEG_REG_VBLANK_COUNT)
REG_RING_BASE_LO=$(hw WDDMSEG_REG_RING_BASE_LO)
REG_RING_SIZE=$(hw WDDMSEG_REG_RING_SIZE)
REG_RING_HEAD=$(hw WDDMSEG_REG_RING_HEAD)
REG_RING_TAIL=$(hw WDDMSEG_REG_RING_TAIL)
REG_RING_CTRL=$(hw WDDMSEG_REG_RING_CTRL)
RING_CTRL_ENABLE=$(hw WDDMSEG_RING_CTRL_ENABLE)
RING_CTRL_RESET=$(hw WDDMSEG_RING_CTRL_RESET)
REG_RING_STATUS=$(hw WDDMSEG_REG_RING_STATUS)
ENABLED=$(hw WDDMSEG_RING_STATUS_ENABLED)
IDLE=$(hw WDDMSEG_RING_STATUS_IDLE)
FAULTED=$(hw WDDMSEG_RING_STATUS_FAULTED)
REG_FAULT_CODE=$(hw WDDMSEG_REG_FAULT_CODE)
REG_FAULT_HEAD=$(hw WDDMSEG_REG_FAULT_HEAD)
F_BAD_OPCODE=$(hw WDDMSEG_FAULT_BAD_OPCODE)
F_BAD_PACKET=$(hw WDDMSEG_FAULT_BAD_PACKET)
F_OUT_OF_RANGE=$(hw WDDMSEG_FAULT_OUT_OF_RANGE)
F_UNMAPPED=$(hw WDDMSEG_FAULT_UNMAPPED)
F_DMA=$(hw WDDMSEG_FAULT_DMA)
F_INJECTED=$(hw WDDMSEG_FAULT_INJECTED)
F_PROTECTION=$(hw WDDMSEG_FAULT_PROTECTION)
REG_LAST_SEQNO_LO=$(hw WDDMSEG_REG_LAST_SEQNO_LO)
REG_INJECT=$(hw WDDMSEG_REG_INJECT)
INJECT_HANG=$(hw WDDMSEG_INJECT_HANG)
INJECT_FAULT=$(hw WDDMSEG_INJECT_FAULT)
OP_NOP=$(hw WDDMSEG_OP_NOP)
OP_TRANSFER=$(hw WDDMSEG_OP_TRANSFER)
OP_FILL=$(hw WDDMSEG_OP_FILL)
OP_DISCARD=$(hw WDDMSEG_OP_DISCARD)
OP_READ_PHYSICAL=$(hw WDDMSEG_OP_READ_PHYSICAL)
OP_WRITE_PHYSICAL=$(hw WDDMSEG_OP_WRITE_PHYSICAL)
OP_MAP_APERTURE=$(hw WDDMSEG_OP_MAP_APERTURE)
OP_UNMAP_APERTURE=$(hw WDDMSEG_OP_UNMAP_APERTURE)
OP_FENCE=$(hw WDDMSEG_OP_FENCE)
OP_TRANSFER_ENCRYPTED=$(hw WDDMSEG_OP_TRANSFER_ENCRYPTED)
TRANSFER_QWORDS=$(hw WDDMSEG_TRANSFER_QWORDS)
FILL_QWORDS=$(hw WDDMSEG_FILL_QWORDS)
DISCARD_QWORDS=$(hw WDDMSEG_DISCARD_QWORDS)
PHYSICAL_QWORDS=$(hw WDDMSEG_PHYSICAL_QWORDS)
APERTURE_QWORDS=$(hw WDDMSEG_APERTURE_QWORDS)
FENCE_QWORDS=$(hw WDDMSEG_FENCE_QWORDS)
FENCE_IRQ=$(hw WDDMSEG_FENCE_IRQ)
TRANSFER_ENCRYPTED_QWORDS=$(hw WDDMSEG_TRANSFER_ENCRYPTED_QWORDS)
CRYPT_ENCRYPT=$(hw WDDMSEG_CRYPT_ENCRYPT)
CRYPT_DECRYPT=$(hw WDDMSEG_CRYPT_DECRYPT)
VERSION_CURRENT=$(hw WDDMSEG_VERSION_CURRENT)
MAP_CACHE_COHERENT=$((1 << 32))	# WDDMSEG_MAP_CACHE_COHERENT, BIT_ULL(32)

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
# a value, "hi:VALUE" (this readl is the high half of a 64-bit value
# whose low half is the previous command's answer), "ne:VALUE" (any
# value but VALUE), "keep:NAME" (no check: the answer is kept as NAME for
# later commands of the session) or "ne=NAME" (any value but the one kept
# as NAME).

CMDS=()
EXP=()
DESC=()
declare -A KEPT=()

q() { CMDS+=("$1"); EXP+=(""); DESC+=(""); }
expect() { CMDS+=("$1"); EXP+=("$2"); DESC+=("$3"); }
# expect_ne CMD VALUE DESC: the answer must not be VALUE.
expect_ne() { expect "$1" "ne:$2" "$3"; }
# keep CMD NAME: remember the answer as NAME; expect_ne_kept CMD NAME
# DESC: the answer must differ from it.
keep() { expect "$1" "keep:$2" ""; }
expect_ne_kept() { expect "$1" "ne=$2" "$3"; }

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

# Map BAR0, BAR2 and BAR4 at the addresses above and enable memory
# decoding (bus mastering stays off: bus_master turns it on).
map_bars() {
	cfg_write 0x10 $BAR0
	cfg_write 0x18 $((BAR2 & 0xffffffff))
	cfg_write 0x1c $((BAR2 >> 32))
	cfg_write 0x20 $BAR4
	cfg_write 0x04 0x0002
}
bus_master() { cfg_write 0x04 0x0006; }

# Control registers. 64-bit values are written LO first, then HI.
wr() { q "writel $(reg "$1") $(printf 0x%x "$2")"; }
wr64() { wr "$1" $(($2 & 0xffffffff)); wr $(($1 + 4)) $((($2 >> 32) & 0xffffffff)); }
window() { wr64 "$REG_WINDOW_BASE_LO" "$1"; }
expect_window() { expect64 $((BAR0 + REG_WINDOW_BASE_LO)) "$1" "$2"; }
apt_select() { wr "$REG_APT_SEGMENT" "$1"; wr "$REG_APT_PAGE" "$2"; }
# apt SEG PAGE ADDR: store one page table entry.
apt() { apt_select "$1" "$2"; wr64 "$REG_APT_ADDR_LO" "$3"; }
# expect_apt SEG PAGE VALUE DESC
expect_apt() { apt_select "$1" "$2"; expect64 $((BAR0 + REG_APT_ADDR_LO)) "$3" "$4"; }
# expect_peek GPU_ADDR VALUE DESC
expect_peek() {
	wr64 "$REG_PEEK_ADDR_LO" "$1"
	expect "readl $(reg "$REG_PEEK_DATA")" "$2" "$3"
}
expect_status() { expect "readl $(reg "$REG_STATUS")" "$1" "$2"; }
clear_status() { wr "$REG_STATUS" 0xffffffff; }

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
		KEPT=()
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
		case $want in
		keep:*)
			KEPT[${want#keep:}]=$got
			continue
			;;
		ne:* | ne=*)
			if [ "${want#ne=}" != "$want" ]; then
				want=${KEPT[${want#ne=}]:-}
				if [ -z "$want" ]; then
					tap_not_ok "$name: ${DESC[$i]}" "nothing kept as ${EXP[$i]#ne=}"
					continue
				fi
			else
				want=${want#ne:}
			fi
			if [ $((got)) -ne $((want)) ]; then
				tap_ok "$name: ${DESC[$i]}"
			else
				tap_not_ok "$name: ${DESC[$i]}" "got $(printf 0x%x $got), which it must not be"
			fi
			continue
			;;
		esac
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
	KEPT=()
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
cfg_write 0x20 0xffffffff
cfg_expect 0x20 0xfff00000 "BAR4 is 1 MiB of 32-bit non-prefetchable memory"
cfg_write 0x24 0xffffffff
cfg_expect 0x24 0 "BAR5 is not implemented"
cfg_write 0x30 0xfffff800
cfg_expect 0x30 0 "no expansion ROM"
map_bars
expect "readl $(reg "$REG_ID")" 0x57445347 "ID reads 'WDSG'"
expect "readl $(reg "$REG_VERSION")" "$VERSION_CURRENT" \
	"VERSION reads $((VERSION_CURRENT >> 16)).$((VERSION_CURRENT & 0xffff)) (WDDMSEG_VERSION_CURRENT)"
expect "readl $(reg "$REG_VERSION")" 0x00010004 "VERSION is 1.4 (TRANSFER_ENCRYPTED)"
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
# The window must stay inside vram-size, even where BAR2's RAM goes on.
window 0
expect_window 0 "window base 0 accepted with 1 MiB of VRAM"
window $MiB
expect_window 0 "window base 1 MiB refused: past vram-size (1M), though BAR2 is 4 MiB"
# aperture-size 8G: 2 Mi page table entries.
apt 3 $((2 * MiB - 1)) 0x3000
expect_apt 3 $((2 * MiB - 1)) 0x3000 "last entry of an 8 GiB aperture"
apt 3 $((2 * MiB)) 0x3000
expect_status "$APT_ERROR" "page 2 Mi of an 8 GiB aperture is out of range"
session "props" -device wddmseg,addr=0x4,vis-size=3M,invis-size=5G,aperture-size=8G,aperture-commit=6G,vram-size=1M

# expect_log FILE PATTERN COUNT DESC: COUNT lines of FILE match PATTERN.
expect_log() {
	local n
	n=$(grep -c -- "$2" "$1" 2>/dev/null || true)
	if [ "${n:-0}" -eq "$3" ]; then
		tap_ok "$4"
	else
		tap_not_ok "$4" "$n lines match '$2' in $(basename "$1"), want $3"
	fi
}

# ---- VRAM window (BAR4) --------------------------------------------------
# Default sizes: 64 MiB visible (BAR2), 64 MiB invisible, 128 MiB of VRAM.

map_bars
expect_window 0 "WINDOW_BASE is 0 after reset"
q "writel $((BAR2 + 0x1000)) 0x0a0b0c0d"
expect "readl $((BAR4 + 0x1000))" 0x0a0b0c0d "BAR4 at base 0 shows the start of VRAM"
q "writel $((BAR2 + 3 * MiB + 0x10)) 0xa5a50003"
window $((3 * MiB))
expect_window $((3 * MiB)) "WINDOW_BASE moves to 3 MiB"
expect "readl $((BAR4 + 0x10))" 0xa5a50003 "BAR4 shows VRAM at 3 MiB (written through BAR2)"
q "writel $((BAR4 + WINDOW_SIZE - 4)) 0x5a5a0004"
expect "readl $((BAR2 + 4 * MiB - 4))" 0x5a5a0004 "a write through BAR4 lands in VRAM (read through BAR2)"
wr "$REG_WINDOW_BASE_LO" $((5 * MiB))
expect_window $((3 * MiB)) "WINDOW_BASE_LO alone neither moves the window nor reads back"
expect "readl $((BAR4 + 0x10))" 0xa5a50003 "BAR4 still shows 3 MiB after a LO write"
wr "$REG_WINDOW_BASE_HI" 0
expect_window $((5 * MiB)) "writing WINDOW_BASE_HI applies LO|HI (5 MiB)"
q "writeq $(reg "$REG_WINDOW_BASE_LO") $((3 * MiB))"
expect "readq $(reg "$REG_WINDOW_BASE_LO")" $((3 * MiB)) "a 64-bit write of WINDOW_BASE applies it"
expect "readl $((BAR4 + 0x10))" 0xa5a50003 "BAR4 follows the 64-bit write"
# CPU-invisible VRAM, beyond BAR2: write it through BAR4, read it as the GPU.
window $((100 * MiB))
q "writel $((BAR4 + 0x1230)) 0xdeadbeef"
expect_peek $((100 * MiB + 0x1230)) 0xdeadbeef "invisible VRAM written through BAR4 reads back through PEEK"
window $((127 * MiB))
expect_window $((127 * MiB)) "the last window (127 MiB) is accepted"
q "writel $((BAR4 + WINDOW_SIZE - 4)) 0x1badb002"
expect_peek $((128 * MiB - 4)) 0x1badb002 "last word of VRAM written through BAR4 reads back through PEEK"
expect_peek 0x1000 0x0a0b0c0d "PEEK reads visible VRAM written through BAR2"
expect_status 0 "no STATUS bit after valid window and PEEK accesses"
# Refused bases: the window stays at 127 MiB.
window $((127 * MiB + 512 * 1024))
expect_window $((127 * MiB)) "misaligned window base refused"
window $((128 * MiB))
expect_window $((127 * MiB)) "window base past VRAM (128 MiB) refused"
window $((1 << 32))
expect_window $((127 * MiB)) "window base 4 GiB (HI set) refused"
window 0xfffffffffff00000
expect_window $((127 * MiB)) "window base 2^64 - 1 MiB (base + size overflows) refused"
expect "readl $((BAR4 + WINDOW_SIZE - 4))" 0x1badb002 "BAR4 still shows 127 MiB after refused bases"
expect_status 0 "refused window bases set no STATUS bit"
session "window" -device wddmseg,addr=0x4 -d guest_errors -D "$TMP/guest.log"
expect_log "$TMP/guest.log" "window base 0x[0-9a-f]* is not a multiple" 4 \
	"window: each refused base is logged as a guest error"

# ---- aperture page tables and PEEK -------------------------------------------
# Default layout: segment 3 is an aperture at 4 GiB, 256 MiB (65536 pages).

APT=$((4 * GiB))
map_bars
expect_status 0 "STATUS is 0 after reset"
expect_apt 3 0 0 "aperture entries are 0 (unmapped) after reset"
apt 3 0 0x12345000
expect_apt 3 0 0x12345000 "APT entry write and read-back"
apt 3 65535 0x1fedcb000
expect_apt 3 65535 0x1fedcb000 "last entry of the 256 MiB aperture, 64-bit address"
expect_apt 3 0 0x12345000 "first entry unchanged"
expect "readl $(reg "$REG_APT_SEGMENT")" 3 "APT_SEGMENT reads back"
expect "readl $(reg "$REG_APT_PAGE")" 0 "APT_PAGE reads back"
expect "readq $(reg "$REG_APT_ADDR_LO")" 0x12345000 "64-bit read of APT_ADDR"
expect_status 0 "valid APT writes set no STATUS bit"
apt 3 65536 0x1000
expect_status "$APT_ERROR" "APT write past the segment's pages sets APT_ERROR"
expect_apt 3 65536 0 "APT_ADDR of an out-of-range page reads 0"
clear_status
expect_status 0 "STATUS cleared by writing 1s"
apt 1 0 0x1000
expect_status "$APT_ERROR" "APT write to a memory segment sets APT_ERROR"
expect_apt 1 0 0 "APT_ADDR of a memory segment reads 0"
clear_status
apt 0 0 0x1000
expect_status "$APT_ERROR" "APT write to segment id 0 sets APT_ERROR"
clear_status
apt 4 0 0x1000
expect_status "$APT_ERROR" "APT write to a segment id past SEG_COUNT sets APT_ERROR"
clear_status
apt 0xffffffff 0 0x1000
expect_status "$APT_ERROR" "APT write to segment id 0xffffffff sets APT_ERROR"
clear_status
apt 3 0 0x12345800
expect_status "$APT_ERROR" "APT write of a misaligned address sets APT_ERROR"
expect_apt 3 0 0x12345000 "... and is dropped"
clear_status
apt 3 0 0
expect_apt 3 0 0 "APT address 0 unmaps the page"
expect_status 0 "unmapping sets no STATUS bit"
# PEEK through the aperture into guest RAM written by qtest.
q "writel $RAM 0x11223344"
q "writel $((RAM + 0xffc)) 0x55667788"
q "writel $((RAM + 0x1000)) 0x99aabbcc"
apt 3 1 $RAM
apt 3 2 $((RAM + 0x1000))
bus_master
expect_peek $((APT + 0x1000)) 0x11223344 "PEEK through an aperture entry reads guest RAM"
expect_peek $((APT + 0x1ffc)) 0x55667788 "PEEK of the last word of an aperture page"
expect_peek $((APT + 0x2000)) 0x99aabbcc "PEEK through the next aperture entry"
q "writel $RAM 0xcafe0001"
expect_peek $((APT + 0x1000)) 0xcafe0001 "PEEK sees guest RAM as it is now"
expect_status 0 "mapped PEEKs set no STATUS bit"
expect_peek $((APT + 0x3000)) 0xffffffff "PEEK of an unmapped aperture page reads 0xffffffff"
expect_status "$PEEK_FAULT" "... and sets PEEK_FAULT"
clear_status
expect_peek "$APT" 0xffffffff "PEEK of an unmapped (cleared) page 0 faults"
expect_status "$PEEK_FAULT" "... PEEK_FAULT"
clear_status
expect_peek $((128 * MiB)) 0xffffffff "PEEK between VRAM and the aperture (no segment) faults"
expect_status "$PEEK_FAULT" "... PEEK_FAULT"
clear_status
expect_peek $((APT + 256 * MiB)) 0xffffffff "PEEK just past the aperture faults"
expect_status "$PEEK_FAULT" "... PEEK_FAULT"
clear_status
expect_peek 0x1002 0xffffffff "PEEK of a misaligned address faults"
expect_status "$PEEK_FAULT" "... PEEK_FAULT"
clear_status
apt 3 4 0x7000000000
expect_peek $((APT + 0x4000)) 0xffffffff "PEEK through an entry at unassigned memory faults (DMA error)"
expect_status "$PEEK_FAULT" "... PEEK_FAULT"
clear_status
apt 3 5 $BAR0
expect_peek $((APT + 0x5000)) 0xffffffff "PEEK through an entry at the device's own BAR0 faults (re-entrancy guard)"
clear_status
q "writel $((BAR2 + 0x2000)) 0x0ddba110"
apt 3 6 $((BAR2 + 0x2000))
expect_peek $((APT + 0x6000)) 0x0ddba110 "PEEK through an entry at the device's own BAR2 reads VRAM"
cfg_write 0x04 0x0002
expect_peek $((APT + 0x1000)) 0xffffffff "PEEK through the aperture with bus mastering off faults"
expect_status "$PEEK_FAULT" "... PEEK_FAULT"
# STATUS bits are sticky and cleared one by one.
apt 0 0 0
expect_status $((APT_ERROR | PEEK_FAULT)) "STATUS holds both sticky bits"
wr "$REG_STATUS" 0
expect_status $((APT_ERROR | PEEK_FAULT)) "writing 0 to STATUS clears nothing"
wr "$REG_STATUS" "$PEEK_FAULT"
expect_status "$APT_ERROR" "writing PEEK_FAULT to STATUS clears only PEEK_FAULT"
wr "$REG_STATUS" $((~APT_ERROR & 0xffffffff))
expect_status "$APT_ERROR" "writing other bits leaves APT_ERROR"
wr "$REG_STATUS" "$APT_ERROR"
expect_status 0 "writing APT_ERROR clears it"
wr64 "$REG_PEEK_ADDR_LO" 0x123456788
expect64 $((BAR0 + REG_PEEK_ADDR_LO)) 0x123456788 "PEEK_ADDR reads back"
q "writel $((BAR2 + 0x1000)) 0x0a0b0c0d"
expect_peek 0x1000 0x0a0b0c0d "PEEK of VRAM needs no bus mastering"
wr "$REG_PEEK_DATA" 0
expect "readl $(reg "$REG_PEEK_DATA")" 0x0a0b0c0d "PEEK_DATA is read-only"
session "aperture" -device wddmseg,addr=0x4 -d guest_errors -D "$TMP/guest.log"
expect_log "$TMP/guest.log" "APT_ERROR\|dropped" 7 "aperture: each dropped APT write is logged as a guest error"
expect_log "$TMP/guest.log" "DMA read failed" 3 \
	"aperture: unassigned memory, own BAR0 and bus mastering off are DMA failures"
expect_log "$TMP/err" "Blocked re-entrant IO" 1 "aperture: the own-BAR0 DMA hit QEMU's re-entrancy guard"

# ---- segment kinds, a small VRAM -------------------------------------------
# 2 MiB of VRAM; segment 3 is a memory segment past it, 4 an Agp segment,
# 5 an aperture whose Size (6 KiB) is not a page multiple (2 pages).

map_bars
bus_master
window $MiB
expect_window $MiB "window base 1 MiB accepted with 2 MiB of VRAM"
window $((2 * MiB))
expect_window $MiB "window base 2 MiB refused with 2 MiB of VRAM"
q "writel $((BAR4 + 0x4)) 0x00c0ffee"
expect_peek $((MiB + 0x4)) 0x00c0ffee "PEEK of the invisible segment reads VRAM"
expect_peek $((2 * MiB)) 0xffffffff "PEEK of a memory segment past VRAM faults"
expect_status "$PEEK_FAULT" "... PEEK_FAULT"
clear_status
expect_peek $((4 * GiB)) 0xffffffff "PEEK of an Agp segment faults"
clear_status
apt 4 0 $RAM
expect_status "$APT_ERROR" "APT write to an Agp segment sets APT_ERROR"
clear_status
q "writel $((RAM + 0x7fc)) 0x7e57da7a"
apt 5 1 $RAM
expect_status 0 "page 1 of a 6 KiB aperture exists"
expect_peek $((8 * GiB + 0x17fc)) 0x7e57da7a "PEEK of the last word of a 6 KiB aperture"
apt 5 2 $RAM
expect_status "$APT_ERROR" "page 2 of a 6 KiB aperture does not"
clear_status
expect_peek $((8 * GiB + 0x1800)) 0xffffffff "PEEK just past a 6 KiB aperture faults"
session "kinds" -device 'wddmseg,addr=0x4,vis-size=1M,invis-size=1M,layout=0:0|0:0:1M:1M:0x4|1M:-:1M:1M:0|2M:-:1M:1M:0|0x100000000:-:16K:16K:0x2|0x200000000:-:0x1800:4K:0x11'

# Less VRAM than the window: no base is valid, BAR4 stays at 0 and backed.
map_bars
window 0
expect_window 0 "with 4 KiB of VRAM the window stays at 0"
q "writel $((BAR4 + WINDOW_SIZE - 4)) 0x600d0001"
expect "readl $((BAR4 + WINDOW_SIZE - 4))" 0x600d0001 "BAR4 past a 4 KiB VRAM is still backed"
session "tiny-vram" -device wddmseg,addr=0x4,vis-size=4K,invis-size=0

# ---- page table size cap -----------------------------------------------------

map_bars
apt 2 $((16 * MiB - 1)) 0x5000
expect_apt 2 $((16 * MiB - 1)) 0x5000 "a 64 GiB aperture (16 Mi entries, the cap) has a page table"
expect_status 0 "... and no APT_ERROR"
session "apt-cap" -device 'wddmseg,addr=0x4,vis-size=1M,invis-size=0,layout=0:0|0:0:1M:1M:0x4|0x100000000:-:64G:4K:0x1'

map_bars
bus_master
apt 2 0 $RAM
expect_status "$APT_ERROR" "a 256 TiB aperture realizes without a page table: APT_ERROR"
expect_peek $((4 * GiB)) 0xffffffff "... and PEEK into it faults"
session "apt-giant" -device 'wddmseg,addr=0x4,vis-size=1M,invis-size=0,layout=0:0|0:0:1M:1M:0x4|0x100000000:-:0x1000000000000:4K:0x1'
expect_log "$TMP/err" "no aperture page table" 1 "apt-giant: realize warns that there is no page table"

map_bars
apt 2 0 0x1000
expect_status "$APT_ERROR" "apertures of 32 GiB + 32 GiB + 4 KiB together: no table for the first either"
session "apt-over" -device 'wddmseg,addr=0x4,vis-size=1M,invis-size=0,layout=0:0|0:0:1M:1M:0x4|0x100000000:-:32G:4K:0x1|0x1000000000:-:0x800001000:4K:0x1'

# ---- copy engine -------------------------------------------------------------
# Rings, page lists and system pages live in guest RAM, written over qtest;
# each doorbell is followed by settle, one qtest line long enough that the
# main loop (and with it the engine's bottom half) runs before the next
# command is read. Default layout: segment 1 is VRAM [0, 64 MiB) behind
# BAR2, segment 2 VRAM [64 MiB, 128 MiB), segment 3 an aperture at 4 GiB.

RING0=0x200000			# rings (up to 64 KiB)
WB=0x210000			# fence writeback slots
LIST=0x220000			# page lists, 4 KiB apart
MSI_ADDR=0x230000		# where the MSI-X checks point vector 0
SYS=0x400000			# system pages, 0x400000 .. 0x43ffff
PHYS=0x500000			# contiguous system memory
SEG2=$((64 * MiB))		# GPU address of segment 2
APT=$((4 * GiB))		# GPU address of segment 3 (aperture)
BAR1=0xe0200000			# MSI-X table and PBA

RB=0				# ring base, size and software tail
RS=0
RT=0
SEQ=0				# last seqno a FENCE of the checks wrote

# ring_enable BASE SIZE: reset the ring, program it, enable it.
ring_enable() {
	RB=$1 RS=$2 RT=0
	wr "$REG_RING_CTRL" "$RING_CTRL_RESET"
	wr64 "$REG_RING_BASE_LO" "$1"
	wr "$REG_RING_SIZE" "$2"
	wr "$REG_RING_CTRL" "$RING_CTRL_ENABLE"
}
# ring_reset: RING_CTRL.RESET and ENABLE in one write, head = tail = 0.
ring_reset() { RT=0; wr "$REG_RING_CTRL" $((RING_CTRL_RESET | RING_CTRL_ENABLE)); }
# emit QWORD...: one command at the software tail.
emit() {
	local w
	if ((RT + 8 * $# > RS)); then
		echo "qtest-check: a command of the checks straddles the ring end" >&2
		exit 2
	fi
	for w in "$@"; do
		q "writeq $(printf 0x%x $((RB + RT))) $(printf 0x%x "$w")"
		RT=$((RT + 8))
	done
	RT=$((RT % RS))
}
hdr() { echo $(($1 | ($2 << 16))); }
# c_nop [QWORDS]: a NOP; its body is not written (the device never reads it).
c_nop() {
	local n=${1:-1}
	q "writeq $(printf 0x%x $((RB + RT))) $(hdr "$OP_NOP" "$n")"
	RT=$(((RT + 8 * n) % RS))
}
# loc SPEC: append the three words of a location to W; SPEC is ID:OFFSET
# for a segment, L:LIST:OFFSET for a page list.
loc() {
	local a=${1%%:*} b=${1#*:} c
	if [ "$a" = L ]; then
		c=${b#*:}
		W+=(0 "${b%%:*}" "$c")
	else
		W+=("$a" "$b" 0)
	fi
}
# c_transfer SIZE SRC DST, c_fill SIZE PATTERN DST, c_discard SIZE LOC
c_transfer() {
	W=()
	loc "$2"
	loc "$3"
	emit "$(hdr "$OP_TRANSFER" "$TRANSFER_QWORDS")" "$1" "${W[@]}"
}
c_fill() { W=(); loc "$3"; emit "$(hdr "$OP_FILL" "$FILL_QWORDS")" "$1" "$2" "${W[@]}"; }
# c_crypt SIZE SRC DST MODE NONCE STREAM_OFFSET: a TRANSFER_ENCRYPTED.
c_crypt() {
	W=()
	loc "$2"
	loc "$3"
	emit "$(hdr "$OP_TRANSFER_ENCRYPTED" "$TRANSFER_ENCRYPTED_QWORDS")" "$1" "${W[@]}" "$4" "$5" "$6"
}
c_discard() { W=(); loc "$2"; emit "$(hdr "$OP_DISCARD" "$DISCARD_QWORDS")" "$1" "${W[@]}"; }
c_read_phys() { emit "$(hdr "$OP_READ_PHYSICAL" "$PHYSICAL_QWORDS")" "$@"; }	# SIZE GPU DMA
c_write_phys() { emit "$(hdr "$OP_WRITE_PHYSICAL" "$PHYSICAL_QWORDS")" "$@"; }
c_map() { emit "$(hdr "$OP_MAP_APERTURE" "$APERTURE_QWORDS")" "$@"; }	# SEG FIRST COUNT LIST
c_unmap() { emit "$(hdr "$OP_UNMAP_APERTURE" "$APERTURE_QWORDS")" "$@"; }	# SEG FIRST COUNT DUMMY
# c_fence [FLAGS]: a FENCE with the next seqno, written back at WB.
c_fence() { SEQ=$((SEQ + 1)); emit "$(hdr "$OP_FENCE" "$FENCE_QWORDS")" "$SEQ" "$WB" "${1:-0}"; }
doorbell() { wr "$REG_RING_TAIL" "$RT"; }
# settle [KIB]: a qtest line of KIB KiB (default 2): QEMU reads its input
# 1 KiB per main loop iteration, so the engine gets KIB - 1 runs at least.
settle() { q "readl 0x$(printf "%0$((${1:-2} * 1024))x" $((BAR0 + REG_RING_STATUS)))"; }
run() { doorbell; settle "$@"; }
# write_list ADDR ENTRY...: a page list.
write_list() {
	local a=$1 e
	shift
	for e in "$@"; do
		q "writeq $(printf 0x%x "$a") $(printf 0x%x "$e")"
		a=$((a + 8))
	done
}
# pl_addr OFFSET K PAGE...: system address of byte K of a page list
# location with byte OFFSET.
pl_addr() {
	local off=$(($1 + $2))
	shift 2
	local pages=("$@")
	printf 0x%x $((pages[off >> 12] + (off & 0xfff)))
}
expect_reg() { expect "readl $(reg "$1")" "$2" "$3"; }
expect_seqno() { expect64 $((BAR0 + REG_LAST_SEQNO_LO)) "$1" "$2"; }
expect_idle() {
	expect_reg "$REG_RING_STATUS" $((ENABLED | IDLE)) "$1: RING_STATUS ENABLED|IDLE"
	expect_reg "$REG_RING_HEAD" "$RT" "$1: RING_HEAD reached the tail ($(printf 0x%x "$RT"))"
	expect_reg "$REG_FAULT_CODE" 0 "$1: no fault"
}

MARKS=(0 0x4 0x9fc 0xa00 0x1200 0x1a00 0x29fc 0x2a00 0x2ffc)
mark() { printf 0x%x $((0xa0000000 | $1)); }

map_bars
bus_master
expect "readl $(reg "$REG_RING_STATUS")" "$IDLE" "ring after reset: disabled and IDLE"
expect_reg "$REG_RING_CTRL" 0 "RING_CTRL is 0 after reset"
expect_reg "$REG_IRQ_MASK" 0 "IRQ_MASK is 0 after reset"
expect_reg "$REG_IRQ_STATUS" 0 "IRQ_STATUS is 0 after reset"
expect_seqno 0 "LAST_SEQNO is 0 after reset"
# Enabling checks base and size.
wr64 "$REG_RING_BASE_LO" "$RING0"
for bad in 0 0x800 0x1800 $((2 * MiB)); do
	wr "$REG_RING_SIZE" "$bad"
	wr "$REG_RING_CTRL" "$RING_CTRL_ENABLE"
	expect_reg "$REG_RING_STATUS" "$IDLE" "RING_SIZE $(printf 0x%x "$bad") cannot be enabled"
done
wr "$REG_RING_SIZE" 0x1000
wr64 "$REG_RING_BASE_LO" $((RING0 + 0x800))
wr "$REG_RING_CTRL" "$RING_CTRL_ENABLE"
expect_reg "$REG_RING_CTRL" 0 "a RING_BASE not 4 KiB aligned cannot be enabled"
ring_enable "$RING0" $((64 << 10))
expect_reg "$REG_RING_STATUS" $((ENABLED | IDLE)) "64 KiB ring at a 4 KiB boundary: ENABLED|IDLE"
expect_reg "$REG_RING_CTRL" "$RING_CTRL_ENABLE" "RING_CTRL reads ENABLE (RESET self-clears)"
wr "$REG_RING_SIZE" 0x1000
wr "$REG_RING_BASE_LO" 0
expect_reg "$REG_RING_SIZE" $((64 << 10)) "RING_SIZE writes are ignored while enabled"
expect64 $((BAR0 + REG_RING_BASE_LO)) "$RING0" "RING_BASE writes are ignored while enabled"
wr "$REG_IRQ_MASK" 0xffffffff
expect_reg "$REG_IRQ_MASK" $((IRQ_FENCE | IRQ_ERROR | IRQ_VBLANK | IRQ_SCANOUT_ERROR)) \
	"IRQ_MASK keeps the four known bits only"

# FENCE: writeback, LAST_SEQNO, IRQ_STATUS.
q "writeq $WB 0xffffffffffffffff"
emit "$(hdr "$OP_FENCE" "$FENCE_QWORDS")" 0x1122334455667788 "$WB" "$FENCE_IRQ"
expect_reg "$REG_RING_HEAD" 0 "the doorbell has not run yet: RING_HEAD 0"
doorbell
expect_reg "$REG_RING_STATUS" "$ENABLED" "right after the doorbell: busy (executes later)"
settle
expect_idle "FENCE"
expect "readq $WB" 0x1122334455667788 "FENCE wrote the 64-bit seqno back"
expect_seqno 0x1122334455667788 "FENCE set LAST_SEQNO"
expect_reg "$REG_IRQ_STATUS" "$IRQ_FENCE" "FENCE with FENCE_IRQ set IRQ_STATUS.FENCE"
wr "$REG_IRQ_STATUS" "$IRQ_FENCE"
expect_reg "$REG_IRQ_STATUS" 0 "IRQ_STATUS is write-1-to-clear"
c_fence
run
expect "readq $WB" "$SEQ" "a FENCE without FENCE_IRQ writes back"
expect_seqno "$SEQ" "... and sets LAST_SEQNO"
expect_reg "$REG_IRQ_STATUS" 0 "... but raises no interrupt"

# TRANSFER VRAM -> system through a page list: non-contiguous pages (1
# and 2 are contiguous, merged into one run), byte offset 0x600.
PG=($((SYS + 0x5000)) $((SYS + 0x2000)) $((SYS + 0x3000)) $((SYS + 0x9000)))
q "memset $SYS 0x40000 0x5a"
for k in "${MARKS[@]}"; do q "writel $((BAR2 + 0x10000 + k)) $(mark "$k")"; done
write_list "$LIST" "${PG[@]}"
c_transfer 0x3000 "1:0x10000" "L:$LIST:0x600"
c_fence
run
expect_idle "TRANSFER VRAM -> page list"
for k in "${MARKS[@]}"; do
	expect "readl $(pl_addr 0x600 "$k" "${PG[@]}")" "$(mark "$k")" \
		"TRANSFER VRAM -> page list: byte $(printf 0x%x "$k") at $(pl_addr 0x600 "$k" "${PG[@]}")"
done
expect "readl $((PG[0] + 0x5fc))" 0x5a5a5a5a "... bytes before the offset untouched"
expect "readl $((PG[3] + 0x600))" 0x5a5a5a5a "... bytes after the end untouched"
expect "readl $((SYS + 0x4000))" 0x5a5a5a5a "... pages not in the list untouched"

# ... and back: page list -> invisible VRAM (segment 2).
q "writel $(pl_addr 0x600 0x1a00 "${PG[@]}") 0xb0001a00"
c_transfer 0x3000 "L:$LIST:0x600" "2:0x100000"
run
expect_idle "TRANSFER page list -> VRAM"
for k in 0 0x9fc 0xa00 0x29fc 0x2ffc; do
	expect_peek $((SEG2 + 0x100000 + k)) "$(mark "$k")" "TRANSFER page list -> segment 2: byte $(printf 0x%x "$k")"
done
expect_peek $((SEG2 + 0x101a00)) 0xb0001a00 "TRANSFER page list -> segment 2 reads system memory as it is now"

# VRAM -> VRAM.
c_transfer 0x3000 "1:0x10000" "2:0x200000"
run
for k in 0 0xa00 0x2ffc; do
	expect_peek $((SEG2 + 0x200000 + k)) "$(mark "$k")" "TRANSFER segment 1 -> segment 2: byte $(printf 0x%x "$k")"
done
# Overlapping, to a higher address: like memmove.
q "writel $((BAR2 + 0x20000)) 0xc0000000"
q "writel $((BAR2 + 0x21000)) 0xc0001000"
q "writel $((BAR2 + 0x21ffc)) 0xc0001ffc"
c_transfer 0x2000 "1:0x20000" "1:0x20800"
run
expect "readl $((BAR2 + 0x20800))" 0xc0000000 "overlapping VRAM TRANSFER up: first word"
expect "readl $((BAR2 + 0x21800))" 0xc0001000 "overlapping VRAM TRANSFER up: middle word"
expect "readl $((BAR2 + 0x227fc))" 0xc0001ffc "overlapping VRAM TRANSFER up: last word"

# Through the aperture (entries written by the CPU): VRAM -> aperture.
PA=($((SYS + 0xc000)) $((SYS + 0xa000)) $((SYS + 0xb000)) $((SYS + 0xe000)))
for i in 0 1 2 3; do apt 3 "$i" "${PA[$i]}"; done
c_transfer 0x3000 "1:0x10000" "3:0x600"
run
expect_idle "TRANSFER VRAM -> aperture"
for k in 0 0x9fc 0xa00 0x1a00 0x2ffc; do
	expect "readl $(pl_addr 0x600 "$k" "${PA[@]}")" "$(mark "$k")" \
		"TRANSFER VRAM -> aperture: byte $(printf 0x%x "$k") in the mapped page"
	expect_peek $((APT + 0x600 + k)) "$(mark "$k")" "... and PEEK sees it at $(printf 0x%x $((APT + 0x600 + k)))"
done
# aperture -> VRAM and aperture -> page list (system to system).
c_transfer 0x3000 "3:0x600" "1:0x40000"
write_list $((LIST + 0x1000)) $((SYS + 0x10000)) $((SYS + 0x12000))
c_transfer 0x1000 "3:0x1000" "L:$((LIST + 0x1000)):0x800"	# seg 3 0x1000 holds mark 0xa00
run
expect_idle "TRANSFER from the aperture"
for k in 0 0xa00 0x2ffc; do
	expect "readl $((BAR2 + 0x40000 + k))" "$(mark "$k")" "TRANSFER aperture -> VRAM: byte $(printf 0x%x "$k")"
done
expect "readl $((SYS + 0x10800))" "$(mark 0xa00)" "TRANSFER aperture -> page list (system to system): first word"
expect "readl $((SYS + 0x12000))" "$(mark 0x1200)" "... and the first word of its second page"

# FILL: VRAM at an odd offset, system pages through a page list.
q "memset $((BAR2 + 0x30000)) 16 0xee"
c_fill 10 0x44332211 "1:0x30002"
write_list $((LIST + 0x2000)) $((SYS + 0x14000)) $((SYS + 0x16000))
c_fill 16 0xdeadbeef "L:$((LIST + 0x2000)):0xff8"
c_fill $MiB 0x01020304 "2:0x400000"
run
expect_idle "FILL"
expect "readl $((BAR2 + 0x30000))" 0x2211eeee "FILL VRAM: pattern byte 0 at the first byte of the range"
expect "readl $((BAR2 + 0x30004))" 0x22114433 "FILL VRAM: pattern continues"
expect "readl $((BAR2 + 0x30008))" 0x22114433 "FILL VRAM: last two bytes"
expect "readl $((BAR2 + 0x3000c))" 0xeeeeeeee "FILL VRAM: bytes past the end untouched"
expect "readq $((SYS + 0x14ff8))" 0xdeadbeefdeadbeef "FILL page list: end of the first page"
expect "readq $((SYS + 0x16000))" 0xdeadbeefdeadbeef "FILL page list: start of the second page"
expect "readl $((SYS + 0x16008))" 0x5a5a5a5a "FILL page list: bytes past the end untouched"
expect_peek $((SEG2 + 0x400000)) 0x01020304 "FILL 1 MiB of segment 2: first word"
expect_peek $((SEG2 + 0x4ffffc)) 0x01020304 "FILL 1 MiB of segment 2: last word"

# DISCARD only checks the range.
c_discard $((64 * MiB)) "2:0"
c_discard 0x1000 "L:$LIST:0"
c_discard 0 "1:$((64 * MiB))"
run
expect_idle "DISCARD of a whole segment, of a page list, of 0 bytes at the end"
expect_peek $((SEG2 + 0x400000)) 0x01020304 "DISCARD leaves the contents"

# READ_PHYSICAL / WRITE_PHYSICAL: GPU address <-> contiguous system memory.
q "writel $PHYS 0x11110000"
q "writel $((PHYS + 0xffc)) 0x11110ffc"
q "writel $((PHYS + 0x1000)) 0x11111000"
c_write_phys 0x1004 $((SEG2 + 0x300000)) "$PHYS"
c_read_phys 0x3000 $((APT + 0x600)) $((PHYS + 0x10000))
c_read_phys 0x3000 0x10000 $((PHYS + 0x20000))
run
expect_idle "READ/WRITE_PHYSICAL"
expect_peek $((SEG2 + 0x300000)) 0x11110000 "WRITE_PHYSICAL to segment 2: first word"
expect_peek $((SEG2 + 0x300ffc)) 0x11110ffc "WRITE_PHYSICAL to segment 2: word at 0xffc"
expect_peek $((SEG2 + 0x301000)) 0x11111000 "WRITE_PHYSICAL to segment 2: last word"
for k in 0 0xa00 0x2ffc; do
	expect "readl $((PHYS + 0x10000 + k))" "$(mark "$k")" "READ_PHYSICAL from the aperture: byte $(printf 0x%x "$k")"
	expect "readl $((PHYS + 0x20000 + k))" "$(mark "$k")" "READ_PHYSICAL from VRAM: byte $(printf 0x%x "$k")"
done

# MAP_APERTURE / UNMAP_APERTURE, seen through APT_ADDR and PEEK.
QP=($((SYS + 0x20000)) $((SYS + 0x25000)) $((SYS + 0x21000)))
q "writel $((QP[0] + 4)) 0x0a0a0001"
q "writel $((QP[1] + 8)) 0x0a0a0002"
q "writel $((QP[2] + 12)) 0x0a0a0003"
q "writel $((SYS + 0x30004)) 0xd0d0d0d0"
write_list $((LIST + 0x3000)) "${QP[@]}"
c_map $((3 | MAP_CACHE_COHERENT)) 10 3 $((LIST + 0x3000))
run
expect_idle "MAP_APERTURE"
for i in 0 1 2; do
	expect_apt 3 $((10 + i)) "${QP[$i]}" "MAP_APERTURE wrote entry $((10 + i))"
done
expect_apt 3 13 0 "MAP_APERTURE left entry 13"
expect_peek $((APT + 10 * 4096 + 4)) 0x0a0a0001 "PEEK through a MAP_APERTURE entry (page 10)"
expect_peek $((APT + 11 * 4096 + 8)) 0x0a0a0002 "PEEK through a MAP_APERTURE entry (page 11)"
expect_peek $((APT + 12 * 4096 + 12)) 0x0a0a0003 "PEEK through a MAP_APERTURE entry (page 12)"
c_unmap 3 10 2 $((SYS + 0x30000))
c_unmap 3 12 1 0
run
expect_idle "UNMAP_APERTURE"
expect_apt 3 10 $((SYS + 0x30000)) "UNMAP_APERTURE points entry 10 at the dummy page"
expect_apt 3 11 $((SYS + 0x30000)) "UNMAP_APERTURE points entry 11 at the dummy page"
expect_peek $((APT + 11 * 4096 + 4)) 0xd0d0d0d0 "PEEK of an unmapped page reads the dummy page"
expect_apt 3 12 0 "UNMAP_APERTURE to dummy page 0 clears the entry"
expect_peek $((APT + 12 * 4096 + 12)) 0xffffffff "PEEK of that page faults"
clear_status

# Ring wrap-around: NOP padding to the end, then commands from offset 0.
ring_enable "$RING0" 0x1000
c_nop 506
c_fence
run
expect_idle "wrap: a 506-qword NOP and a FENCE"
expect_reg "$REG_RING_HEAD" 0xff0 "wrap: RING_HEAD 0xff0, 16 bytes before the end"
c_nop 2
c_fence
run
expect_idle "wrap: NOP padding to the end, FENCE at offset 0"
expect_reg "$REG_RING_HEAD" 0x20 "wrap: RING_HEAD 0x20"
expect_seqno "$SEQ" "wrap: the FENCE after the wrap ran"

# Every fault: a FENCE at 0 runs, the bad command at 0x20 stops the
# engine, the FENCE after it does not run.
fault_begin() { ring_reset; wr "$REG_IRQ_STATUS" 0xffffffff; c_fence; }
fault_end() {
	local code=$1 desc=$2 head=${3:-0x20} good=$SEQ
	emit "$(hdr "$OP_FENCE" "$FENCE_QWORDS")" 0xbad "$WB" 0
	run
	expect_reg "$REG_FAULT_CODE" "$code" "fault $desc: FAULT_CODE $code"
	expect_reg "$REG_FAULT_HEAD" "$head" "fault $desc: FAULT_HEAD $head"
	expect_reg "$REG_RING_HEAD" "$head" "fault $desc: RING_HEAD stays at the command"
	expect_reg "$REG_RING_STATUS" $((ENABLED | FAULTED)) "fault $desc: RING_STATUS ENABLED|FAULTED"
	expect_reg "$REG_IRQ_STATUS" "$IRQ_ERROR" "fault $desc: IRQ_STATUS.ERROR"
	expect_seqno "$good" "fault $desc: nothing after the command ran"
}
ring_enable "$RING0" $((64 << 10))
fault_begin
emit "$(hdr 0x42 1)"
fault_end "$F_BAD_OPCODE" "unknown opcode"
# Recovery.
wr "$REG_RING_CTRL" "$RING_CTRL_RESET"
expect_reg "$REG_RING_STATUS" "$IDLE" "RING_CTRL.RESET: disabled, not faulted, IDLE"
expect_reg "$REG_FAULT_CODE" 0 "RING_CTRL.RESET clears FAULT_CODE"
expect_reg "$REG_FAULT_HEAD" 0 "RING_CTRL.RESET clears FAULT_HEAD"
expect_reg "$REG_RING_HEAD" 0 "RING_CTRL.RESET: RING_HEAD 0"
expect_reg "$REG_RING_TAIL" 0 "RING_CTRL.RESET: RING_TAIL 0"
expect_reg "$REG_IRQ_STATUS" "$IRQ_ERROR" "RING_CTRL.RESET leaves IRQ_STATUS to the driver"
expect64 $((BAR0 + REG_RING_BASE_LO)) "$RING0" "RING_CTRL.RESET keeps RING_BASE"
expect_reg "$REG_RING_SIZE" $((64 << 10)) "RING_CTRL.RESET keeps RING_SIZE"
RT=0
wr "$REG_RING_CTRL" "$RING_CTRL_ENABLE"
c_fence
run
expect_idle "after RING_CTRL.RESET and ENABLE"
expect_seqno "$SEQ" "the engine runs again after RESET"

fault_begin
emit $(($(hdr "$OP_FENCE" "$FENCE_QWORDS") | 0x100)) 1 "$WB" 0
fault_end "$F_BAD_PACKET" "header bit 8 set"
fault_begin
emit $(($(hdr "$OP_FENCE" "$FENCE_QWORDS") | (1 << 40))) 1 "$WB" 0
fault_end "$F_BAD_PACKET" "header bit 40 set"
fault_begin
emit "$OP_FENCE"
fault_end "$F_BAD_PACKET" "length 0"
fault_begin
emit "$(hdr "$OP_TRANSFER" 7)" 0 1 0 0 1 0
fault_end "$F_BAD_PACKET" "TRANSFER of 7 qwords"
fault_begin
emit "$(hdr "$OP_TRANSFER" "$TRANSFER_QWORDS")" 0x10 1 0 1 2 0 0
fault_end "$F_BAD_PACKET" "loc word 2 not zero"
fault_begin
emit "$(hdr "$OP_TRANSFER" "$TRANSFER_QWORDS")" 0x10 $(((1 << 32) | 1)) 0 0 2 0 0
fault_end "$F_BAD_PACKET" "loc segment id word bits 32..63 not zero"
fault_begin
c_transfer 0x10 "1:0" "L:$((LIST + 4)):0"
fault_end "$F_BAD_PACKET" "page list not 8-byte aligned"
fault_begin
write_list $((LIST + 0x4000)) $((SYS + 0x800))
c_transfer 0x10 "1:0" "L:$((LIST + 0x4000)):0"
fault_end "$F_BAD_PACKET" "page list entry not page aligned"
fault_begin
c_fill 4 $((1 << 32)) "1:0"
fault_end "$F_BAD_PACKET" "FILL pattern bits 32..63 not zero"
fault_begin
emit "$(hdr "$OP_FENCE" "$FENCE_QWORDS")" 1 "$WB" 2
fault_end "$F_BAD_PACKET" "unknown FENCE flag"
fault_begin
emit "$(hdr "$OP_FENCE" "$FENCE_QWORDS")" 1 $((WB + 4)) 0
fault_end "$F_BAD_PACKET" "FENCE writeback not 8-byte aligned"
fault_begin
c_map 1 0 1 "$LIST"
fault_end "$F_BAD_PACKET" "MAP_APERTURE of a memory segment"
fault_begin
c_map 0 0 1 "$LIST"
fault_end "$F_BAD_PACKET" "MAP_APERTURE of segment id 0"
fault_begin
c_map $((3 | (1 << 33))) 0 1 "$LIST"
fault_end "$F_BAD_PACKET" "MAP_APERTURE segment word bit 33 set"
fault_begin
c_unmap 3 0 1 $((SYS + 0x800))
fault_end "$F_BAD_PACKET" "UNMAP_APERTURE dummy page not page aligned"
fault_begin
c_transfer 16 "1:0" "1:$((64 * MiB - 8))"
fault_end "$F_OUT_OF_RANGE" "TRANSFER past the end of segment 1"
fault_begin
c_transfer 16 "4:0" "1:0"
fault_end "$F_OUT_OF_RANGE" "segment id 4 (no such segment)"
fault_begin
c_discard 1 "2:$((64 * MiB))"
fault_end "$F_OUT_OF_RANGE" "DISCARD past the end of segment 2"
fault_begin
c_read_phys 4 $((128 * MiB)) "$PHYS"
fault_end "$F_OUT_OF_RANGE" "READ_PHYSICAL of a GPU address in no segment"
fault_begin
c_write_phys 8 $((APT + 256 * MiB - 4)) "$PHYS"
fault_end "$F_OUT_OF_RANGE" "WRITE_PHYSICAL across the end of the aperture"
fault_begin
c_map 3 65535 2 "$LIST"
fault_end "$F_OUT_OF_RANGE" "MAP_APERTURE past the aperture's last page"
fault_begin
c_transfer 4 "3:$((20 * 4096))" "1:0"
fault_end "$F_UNMAPPED" "TRANSFER from an unmapped aperture page"
fault_begin
c_fill 0x2000 0 "3:0x3000"
fault_end "$F_UNMAPPED" "FILL running into an unmapped aperture page"
expect "readl $(pl_addr 0 0x3ffc "${PA[@]}")" 0 "... the mapped page before it was filled"
fault_begin
emit "$(hdr "$OP_FENCE" "$FENCE_QWORDS")" 1 0x7000000000 0
fault_end "$F_DMA" "FENCE writeback to unassigned memory"
fault_begin
write_list $((LIST + 0x4000)) "$BAR0"
c_transfer 4 "1:0" "L:$((LIST + 0x4000)):0"
fault_end "$F_DMA" "TRANSFER into the device's own BAR0 (re-entrancy guard)"
fault_begin
c_transfer 4 "1:0" "L:0x7000000000:0"
fault_end "$F_DMA" "page list in unassigned memory"
# A tail the ring cannot have.
fault_begin
run
q "writel $(reg "$REG_RING_TAIL") 0x24"
settle
expect_reg "$REG_FAULT_CODE" "$F_BAD_PACKET" "fault RING_TAIL not a multiple of 8: FAULT_CODE"
expect_reg "$REG_FAULT_HEAD" 0x20 "fault RING_TAIL not a multiple of 8: FAULT_HEAD is RING_HEAD"
ring_reset
q "writel $(reg "$REG_RING_TAIL") $((64 << 10))"
expect_reg "$REG_FAULT_CODE" "$F_BAD_PACKET" "fault RING_TAIL = RING_SIZE: FAULT_CODE"
expect_reg "$REG_RING_TAIL" 0 "... and RING_TAIL keeps its value"
# A command that stops short of the tail.
fault_begin
emit "$(hdr "$OP_FENCE" "$FENCE_QWORDS")" 0xbad "$WB" 0
RT=$((RT - 16))
run
expect_reg "$REG_FAULT_CODE" "$F_BAD_PACKET" "fault command extends past RING_TAIL: FAULT_CODE"
expect_reg "$REG_FAULT_HEAD" 0x20 "fault command extends past RING_TAIL: FAULT_HEAD"
# A command that straddles the end of the ring.
ring_enable "$RING0" 0x1000
wr "$REG_IRQ_STATUS" 0xffffffff
c_nop 509
run
q "writeq $((RING0 + 0xfe8)) $(hdr "$OP_FENCE" "$FENCE_QWORDS")"
RT=0x8
run
expect_reg "$REG_FAULT_CODE" "$F_BAD_PACKET" "fault command straddles the ring end: FAULT_CODE"
expect_reg "$REG_FAULT_HEAD" 0xfe8 "fault command straddles the ring end: FAULT_HEAD"
expect_reg "$REG_IRQ_STATUS" "$IRQ_ERROR" "fault command straddles the ring end: IRQ_STATUS.ERROR"
# A ring in unassigned memory.
ring_enable 0x7000000000 0x1000
c_nop
run
expect_reg "$REG_FAULT_CODE" "$F_DMA" "fault ring in unassigned memory: FAULT_CODE DMA"
expect_reg "$REG_FAULT_HEAD" 0 "fault ring in unassigned memory: FAULT_HEAD 0"
# Bus mastering off.
ring_enable "$RING0" $((64 << 10))
cfg_write 0x04 0x0002
c_fence
run
expect_reg "$REG_FAULT_CODE" "$F_DMA" "fault with bus mastering off: FAULT_CODE DMA"
bus_master
# INJECT_FAULT: the next command faults.
ring_reset
c_fence
run
wr "$REG_IRQ_STATUS" 0xffffffff
wr "$REG_INJECT" "$INJECT_FAULT"
expect_reg "$REG_INJECT" "$INJECT_FAULT" "INJECT reads back a pending INJECT_FAULT"
expect_reg "$REG_RING_STATUS" $((ENABLED | IDLE)) "a pending INJECT_FAULT on an empty ring: still IDLE"
fault_end "$F_INJECTED" "INJECT_FAULT"
expect_reg "$REG_INJECT" 0 "INJECT_FAULT is consumed by the fault"
# INJECT_HANG: nothing runs until RESET.
ring_reset
wr "$REG_INJECT" "$INJECT_HANG"
expect_reg "$REG_RING_STATUS" "$ENABLED" "INJECT_HANG on an empty ring: not IDLE"
before=$SEQ
c_fence
run 4
expect_reg "$REG_RING_STATUS" "$ENABLED" "INJECT_HANG: not IDLE with work queued"
expect_reg "$REG_RING_HEAD" 0 "INJECT_HANG: RING_HEAD does not move"
expect_seqno "$before" "INJECT_HANG: the FENCE did not run"
expect_reg "$REG_INJECT" "$INJECT_HANG" "INJECT reads back INJECT_HANG"
wr "$REG_RING_CTRL" "$RING_CTRL_RESET"
expect_reg "$REG_RING_STATUS" "$IDLE" "RESET ends the hang: IDLE, disabled"
expect_reg "$REG_INJECT" 0 "RESET clears INJECT"
RT=0
wr "$REG_RING_CTRL" "$RING_CTRL_ENABLE"
c_fence
run
expect_idle "after INJECT_HANG and RESET"
expect_seqno "$SEQ" "the engine runs again after a hang and RESET"
# Disabling pauses the ring; enabling resumes it.
wr "$REG_RING_CTRL" 0
c_fence
run
expect_reg "$REG_RING_STATUS" 0 "a disabled ring with work: neither ENABLED nor IDLE"
wr "$REG_RING_CTRL" "$RING_CTRL_ENABLE"
settle
expect_idle "re-enabled ring"
expect_seqno "$SEQ" "re-enabling runs the queued FENCE"
# INTx (pin A, GSI 20 here): level = IRQ_STATUS & IRQ_MASK.
cfg_expect 0x3c 0x00000100 "interrupt pin A"
wr "$REG_IRQ_STATUS" 0xffffffff
wr "$REG_IRQ_MASK" 0
c_fence "$FENCE_IRQ"
run
expect_reg "$REG_IRQ_STATUS" "$IRQ_FENCE" "a masked FENCE interrupt still sets IRQ_STATUS"
q "irq_intercept_in ioapic"
wr "$REG_IRQ_MASK" "$IRQ_FENCE"
expect_reg "$REG_IRQ_MASK" "$IRQ_FENCE" "unmasking raises INTx (checked in the log)"
wr "$REG_IRQ_STATUS" "$IRQ_FENCE"
expect_reg "$REG_IRQ_STATUS" 0 "clearing IRQ_STATUS lowers INTx (checked in the log)"
c_fence "$FENCE_IRQ"
run
expect_reg "$REG_IRQ_STATUS" "$IRQ_FENCE" "a FENCE raises INTx again (checked in the log)"
wr "$REG_IRQ_MASK" 0
expect_reg "$REG_IRQ_MASK" 0 "masking lowers INTx (checked in the log)"
session "engine" -device wddmseg,addr=0x4 -d guest_errors -D "$TMP/guest.log"
expect_log "$TMP/out" "^IRQ raise 20" 2 "engine: INTx raised by unmasking and by a FENCE"
expect_log "$TMP/out" "^IRQ lower 20" 2 "engine: INTx lowered by clearing IRQ_STATUS and by masking"
expect_log "$TMP/guest.log" "ring not enabled" 5 "engine: each refused enable is logged"
expect_log "$TMP/guest.log" "while the ring is enabled" 2 "engine: ring config writes while enabled are logged"

# ---- MSI-X -----------------------------------------------------------------------

cfg_write 0x14 0xffffffff
cfg_expect 0x14 0xfffff000 "BAR1 (MSI-X) is 4 KiB of 32-bit MMIO"
cfg_expect 0x34 0x40 "capability list starts at 0x40"
q "outl 0xcf8 $(cfg_addr 0x40)"
expect "inw 0xcfc" 0x0011 "capability 0x40 is MSI-X, the last one"
q "outl 0xcf8 $(cfg_addr 0x40)"
expect "inl 0xcfc" 0x00000011 "MSI-X table size 1, disabled"
map_bars
cfg_write 0x14 "$BAR1"
bus_master
# Vector 0 writes its data to guest RAM, where the checks read it.
q "writel $BAR1 $MSI_ADDR"
q "writel $((BAR1 + 4)) 0"
q "writel $((BAR1 + 8)) 0x4d5349"
q "writel $((BAR1 + 12)) 0"
cfg_write 0x40 0x80000000
wr "$REG_IRQ_MASK" $((IRQ_FENCE | IRQ_ERROR))
RB=0 RS=0 SEQ=0
ring_enable "$RING0" 0x1000
c_fence "$FENCE_IRQ"
run
expect "readl $MSI_ADDR" 0x4d5349 "a FENCE with FENCE_IRQ sends MSI-X vector 0"
q "writel $MSI_ADDR 0"
c_fence "$FENCE_IRQ"
run
expect "readl $MSI_ADDR" 0x4d5349 "another FENCE sends it again, IRQ_STATUS.FENCE still set"
q "writel $MSI_ADDR 0"
wr "$REG_IRQ_STATUS" 0xffffffff
wr "$REG_IRQ_MASK" "$IRQ_ERROR"
c_fence "$FENCE_IRQ"
run
expect "readl $MSI_ADDR" 0 "a FENCE masked in IRQ_MASK sends no message"
wr "$REG_IRQ_MASK" $((IRQ_FENCE | IRQ_ERROR))
expect "readl $MSI_ADDR" 0x4d5349 "unmasking the pending FENCE bit sends the message"
q "writel $MSI_ADDR 0"
emit "$(hdr 0x42 1)"
run
expect "readl $MSI_ADDR" 0x4d5349 "a fault sends MSI-X vector 0"
expect_reg "$REG_IRQ_STATUS" $((IRQ_FENCE | IRQ_ERROR)) "IRQ_STATUS has FENCE and ERROR"
q "writel $MSI_ADDR 0"
wr "$REG_IRQ_MASK" $((IRQ_VBLANK | IRQ_SCANOUT_ERROR))
wr "$REG_SC_SEGMENT" 1
wr "$REG_SC_WIDTH" 64
wr "$REG_SC_HEIGHT" 32
wr "$REG_SC_PITCH" 256
wr "$REG_SC_FORMAT" "$FMT_XRGB"
wr "$REG_SC_REFRESH" 50000
wr "$REG_SC_CTRL" "$SC_ENABLE"
wr "$REG_SC_COMMIT" 1
expect "readl $MSI_ADDR" 0x4d5349 "a scanout latch sends MSI-X vector 0"
q "writel $MSI_ADDR 0"
q "clock_step 20000000"
expect "readl $MSI_ADDR" 0x4d5349 "a vblank sends MSI-X vector 0"
q "writel $MSI_ADDR 0"
wr "$REG_SC_SEGMENT" 2
wr "$REG_SC_COMMIT" 1
q "clock_step 20000000"
expect "readl $MSI_ADDR" 0x4d5349 "a refused commit sends MSI-X vector 0"
expect_reg "$REG_IRQ_STATUS" $((IRQ_FENCE | IRQ_ERROR | IRQ_VBLANK | IRQ_SCANOUT_ERROR)) \
	"IRQ_STATUS has VBLANK and SCANOUT_ERROR too"
session "msix" -device wddmseg,addr=0x4 -d guest_errors -D "$TMP/guest.log"
expect_log "$TMP/out" "^IRQ raise" 0 "msix: no INTx while MSI-X is enabled"

# ---- long transfers ------------------------------------------------------------
# x-batch-bytes=1M: the bottom half moves at most 1 MiB per run, so 8 MiB
# take 8 runs at least, while register reads keep answering.

LONG=0x1000000			# 8 MiB of guest RAM
LONGLIST=0x240000		# its page list (2048 entries)
map_bars
bus_master
RB=0 RS=0 SEQ=0
ring_enable "$RING0" 0x1000
for m in 0 1 2 3 4 5 6 7; do
	q "writel $((BAR2 + m * MiB)) $((0xf0000000 | m))"
	q "writel $((BAR2 + m * MiB + MiB - 4)) $((0xf1000000 | m))"
done
list_hex=
for ((i = 0; i < 2048; i++)); do
	printf -v e %016x $((LONG + i * 4096))
	list_hex+=${e:14:2}${e:12:2}${e:10:2}${e:8:2}${e:6:2}${e:4:2}${e:2:2}${e:0:2}
done
q "write $LONGLIST 0x4000 0x$list_hex"
c_transfer $((8 * MiB)) "1:0" "L:$LONGLIST:0"
c_fence
doorbell
settle 2
expect_reg "$REG_RING_STATUS" "$ENABLED" "8 MiB TRANSFER: still busy after a couple of 1 MiB runs"
expect_reg "$REG_RING_HEAD" 0 "8 MiB TRANSFER: RING_HEAD at the TRANSFER"
expect_reg "$REG_ID" 0x57445347 "8 MiB TRANSFER: registers answer meanwhile"
expect_seqno 0 "8 MiB TRANSFER: the FENCE after it has not run"
settle 24
expect_idle "8 MiB TRANSFER"
expect_seqno "$SEQ" "8 MiB TRANSFER: the FENCE after it ran"
for m in 0 1 2 3 4 5 6 7; do
	expect "readl $((LONG + m * MiB))" $((0xf0000000 | m)) "8 MiB TRANSFER: first word of MiB $m"
	expect "readl $((LONG + m * MiB + MiB - 4))" $((0xf1000000 | m)) "8 MiB TRANSFER: last word of MiB $m"
done
# Overlapping VRAM -> VRAM over several runs: memmove semantics.
c_transfer $((3 * MiB)) "1:0" "1:$MiB"
run 8
expect_idle "overlapping 3 MiB VRAM TRANSFER"
for m in 0 1 2; do
	expect "readl $((BAR2 + (m + 1) * MiB))" $((0xf0000000 | m)) "overlapping TRANSFER: MiB $m moved up, first word"
	expect "readl $((BAR2 + (m + 2) * MiB - 4))" $((0xf1000000 | m)) "overlapping TRANSFER: MiB $m moved up, last word"
done
session "long" -device wddmseg,addr=0x4,x-batch-bytes=1M

# ---- encrypted paging (TRANSFER_ENCRYPTED, 1.4) -----------------------------
# 4 MiB of VRAM: segment 1 CPU-visible VRAM [0, 1 MiB), 2 VprSupported |
# EncryptedPagingSupported [1 MiB, 3 MiB), 3 VprSupported only [3 MiB, 4
# MiB), 4 an aperture. The key is random, so the checks compare round
# trips with the plaintext, and ciphertexts with the plaintext and each
# other, never with fixed ciphertext. x-batch-bytes=1M: an encrypted
# transfer moves 256 KiB per bottom-half run (WDDMSEG_CRYPT_COST 4).

CRYPT_LAYOUT='0:0|0:0:1M:1M:0x484|1M:-:2M:2M:0x50000|3M:-:1M:1M:0x10000|0x100000000:-:16M:16M:0x11'
N1=0x0123456789abcdef		# nonces
N2=0x0123456789abcdee
N3=0xfedcba9876543210
N4=0x1111222233334444
# The plaintext: 8 KiB at segment 2 offset 0, word j is ptw j.
ptw() { echo $((($1 + 1) * 0x9e3779b97f4a7c15)); }
pt_hex=
for ((j = 0; j < 1024; j++)); do
	printf -v e %016x "$(ptw "$j")"
	pt_hex+=${e:14:2}${e:12:2}${e:10:2}${e:8:2}${e:6:2}${e:4:2}${e:2:2}${e:0:2}
done
SAMPLE=(0 1 2 63 64 255 256 510 511 512 513 700 767 768 1022 1023)
CA=($((SYS + 0x8000)) $((SYS + 0x6000)))	# ciphertext, nonce N1
CB=($((SYS + 0x9000)) $((SYS + 0xc000)))	# ciphertext, nonce N2
CC=($((SYS + 0x10000)) $((SYS + 0x14000)) $((SYS + 0x12000)))	# at 0x5fc
CD=($((SYS + 0x18000)) $((SYS + 0x1a000)))	# across the reset
CE=($((SYS + 0x1c000)) $((SYS + 0x1e000)))	# CC's ciphertext, moved to 0
# expect_pt WINDOW_OFF J... DESC: plaintext words J at segment 2 offset
# WINDOW_OFF (BAR4 at segment 2's start).
expect_pt() {
	local off=$1 desc=${*: -1} j
	for j in "${@:2:$#-2}"; do
		expect "readq $(printf 0x%x $((BAR4 + off + 8 * j)))" "$(ptw "$j")" "$desc: word $j is the plaintext"
	done
}

map_bars
bus_master
expect_reg "$REG_SEG_COUNT" 4 "layout with protected segments: SEG_COUNT = 4"
expect "readl $(seg_reg 1 "$SEG_FLAGS")" 0x50000 "segment 2: VprSupported | EncryptedPagingSupported"
expect "readl $(seg_reg 2 "$SEG_FLAGS")" 0x10000 "segment 3: VprSupported only"
window "$MiB"
q "write $BAR4 0x2000 0x$pt_hex"
expect_peek $((MiB + 0x1ff8)) $(($(ptw 1023) & 0xffffffff)) "the plaintext is in segment 2 (PEEK of its last word)"
q "memset $SYS 0x40000 0x5a"
write_list "$LIST" "${CA[@]}"
write_list $((LIST + 0x1000)) "${CB[@]}"
write_list $((LIST + 0x2000)) "${CC[@]}"
write_list $((LIST + 0x3000)) "${CD[@]}"
write_list $((LIST + 0x5000)) "${CE[@]}"
SEQ=0
ring_enable "$RING0" $((64 << 10))

# 1. ENCRYPT segment 2 -> page list.
c_crypt 0x2000 "2:0" "L:$LIST:0" "$CRYPT_ENCRYPT" "$N1" 0
c_fence
run 16
expect_idle "ENCRYPT 8 KiB of segment 2 into a page list"
expect_seqno "$SEQ" "ENCRYPT: the FENCE after it ran"
for j in "${SAMPLE[@]}"; do
	a=$(pl_addr 0 $((8 * j)) "${CA[@]}")
	expect_ne "readq $a" "$(ptw "$j")" "ENCRYPT: ciphertext word $j (at $a) is not the plaintext"
	keep "readq $a" "ca$j"
done
expect "readl $((SYS + 0x7000))" 0x5a5a5a5a "ENCRYPT: a page not in the list untouched"
expect_pt 0 0 1023 "ENCRYPT leaves the plaintext in VRAM"

# 2. DECRYPT back, same nonce and stream offset, elsewhere in segment 2.
c_crypt 0x2000 "L:$LIST:0" "2:0x10000" "$CRYPT_DECRYPT" "$N1" 0
run 16
expect_idle "DECRYPT the page list into segment 2"
expect_pt 0x10000 "${SAMPLE[@]}" "DECRYPT with the nonce and stream offset of the ENCRYPT"
expect "readq $((BAR4 + 0x12000))" 0 "DECRYPT: VRAM after the range untouched"

# 3. Another nonce, a wrong nonce, a piece at a stream offset.
c_crypt 0x2000 "2:0" "L:$((LIST + 0x1000)):0" "$CRYPT_ENCRYPT" "$N2" 0
run 16
expect_idle "ENCRYPT the same plaintext with another nonce"
for j in "${SAMPLE[@]}"; do
	expect_ne_kept "readq $(pl_addr 0 $((8 * j)) "${CB[@]}")" "ca$j" \
		"another nonce: ciphertext word $j differs from the first ciphertext's"
done
c_crypt 0x2000 "L:$LIST:0" "2:0x20000" "$CRYPT_DECRYPT" "$N2" 0
run 16
expect_idle "DECRYPT with a wrong nonce"
for j in 0 1 511 512 1023; do
	expect_ne "readq $((BAR4 + 0x20000 + 8 * j))" "$(ptw "$j")" "wrong nonce: word $j is not the plaintext"
done
c_crypt 0x1000 "L:$LIST:0x1000" "2:0x30000" "$CRYPT_DECRYPT" "$N1" 0x1000
c_crypt 0x1000 "L:$LIST:0x1000" "2:0x40000" "$CRYPT_DECRYPT" "$N1" 0
run 16
expect_idle "DECRYPT the second page alone"
for j in 0 1 255 510 511; do
	expect "readq $((BAR4 + 0x30000 + 8 * j))" "$(ptw $((512 + j)))" \
		"second page alone at stream offset 0x1000: word $((512 + j)) is the plaintext"
	expect_ne "readq $((BAR4 + 0x40000 + 8 * j))" "$(ptw $((512 + j)))" \
		"second page alone at stream offset 0: word $((512 + j)) is not the plaintext"
done
# A page list range that starts mid-word in its page (byte 0x5fc): the
# pieces end mid-word, the stream still follows the command's bytes.
c_crypt 0x2000 "2:0" "L:$((LIST + 0x2000)):0x5fc" "$CRYPT_ENCRYPT" "$N3" 0
c_crypt 0x2000 "L:$((LIST + 0x2000)):0x5fc" "2:0x50000" "$CRYPT_DECRYPT" "$N3" 0
c_crypt 0x1000 "L:$((LIST + 0x2000)):0xdfc" "2:0x60800" "$CRYPT_DECRYPT" "$N3" 0x800
run 16
expect_idle "ENCRYPT and DECRYPT at page list offset 0x5fc"
expect_pt 0x50000 0 1 320 321 322 511 512 831 832 1022 1023 "round trip at page list offset 0x5fc"
expect_pt 0x60000 256 257 500 767 "a piece of it alone at stream offset 0x800"
expect "readq $((BAR4 + 0x607f8))" 0 "... VRAM before that piece untouched"
# The same ciphertext moved to page list offset 0 (plain TRANSFER) and
# decrypted there: pieces now split it elsewhere, the plaintext still
# comes back (words 320 and 832 were cut by pieces of the ENCRYPT).
c_transfer 0x2000 "L:$((LIST + 0x2000)):0x5fc" "L:$((LIST + 0x5000)):0"
c_crypt 0x2000 "L:$((LIST + 0x5000)):0" "2:0x80000" "$CRYPT_DECRYPT" "$N3" 0
run 16
expect_idle "DECRYPT at page list offset 0 what was encrypted at 0x5fc"
expect_pt 0x80000 0 319 320 321 511 512 831 832 833 1023 \
	"encrypted at page list offset 0x5fc, decrypted at offset 0"
expect "readl $((CC[0] + 0x5f8))" 0x5a5a5a5a "offset 0x5fc: the bytes before it untouched"
expect "readl $((CC[2] + 0x5fc))" 0x5a5a5a5a "offset 0x5fc: the bytes after it untouched"
# A 1 MiB round trip through contiguous pages: 64 KiB pieces (the bounce
# buffer), 256 KiB a bottom-half run, so the command resumes three times.
q "writeq $((BAR4 + MiB - 8)) 0x1a57c0de1a57c0de"
list_hex=
for ((i = 0; i < 256; i++)); do
	printf -v e %016x $((LONG + i * 4096))
	list_hex+=${e:14:2}${e:12:2}${e:10:2}${e:8:2}${e:6:2}${e:4:2}${e:2:2}${e:0:2}
done
q "write $LONGLIST 0x800 0x$list_hex"
c_crypt "$MiB" "2:0" "L:$LONGLIST:0" "$CRYPT_ENCRYPT" "$N4" "$MiB"
c_crypt "$MiB" "L:$LONGLIST:0" "2:$MiB" "$CRYPT_DECRYPT" "$N4" "$MiB"
c_fence
run 16
expect_idle "1 MiB ENCRYPT and DECRYPT at stream offset 1 MiB"
expect_seqno "$SEQ" "1 MiB round trip: the FENCE after it ran"
expect_ne "readq $LONG" "$(ptw 0)" "1 MiB ENCRYPT: the first word is ciphertext"
expect_ne "readq $((LONG + MiB - 8))" 0x1a57c0de1a57c0de "1 MiB ENCRYPT: the last word is ciphertext"
window $((2 * MiB))
expect_pt 0 0 1 1022 1023 "1 MiB round trip"
expect_pt 0x10000 0 1 1023 "1 MiB round trip, 64 KiB in"
expect "readq $((BAR4 + MiB - 8))" 0x1a57c0de1a57c0de "1 MiB round trip: the last word"
window "$MiB"

# 4. Faults: the wrong kind of location or segment is a protection fault,
# a bad mode, size or stream offset a bad packet.
q "writeq $((BAR2 + 0x1000)) 0x0123012301230123"
fault_begin
c_crypt 0x1000 "3:0" "L:$LIST:0" "$CRYPT_ENCRYPT" "$N1" 0
fault_end "$F_PROTECTION" "ENCRYPT from a VprSupported segment without EncryptedPagingSupported"
fault_begin
c_crypt 0x1000 "1:0" "L:$LIST:0" "$CRYPT_ENCRYPT" "$N1" 0
fault_end "$F_PROTECTION" "ENCRYPT from a segment without VprSupported"
fault_begin
c_crypt 0x1000 "2:0" "1:0x1000" "$CRYPT_ENCRYPT" "$N1" 0
fault_end "$F_PROTECTION" "ENCRYPT from VRAM to VRAM"
expect "readq $((BAR2 + 0x1000))" 0x0123012301230123 "... which wrote nothing"
fault_begin
c_crypt 0x1000 "2:0" "4:0" "$CRYPT_ENCRYPT" "$N1" 0
fault_end "$F_PROTECTION" "ENCRYPT into an aperture segment"
fault_begin
c_crypt 0x1000 "L:$LIST:0" "L:$((LIST + 0x1000)):0" "$CRYPT_ENCRYPT" "$N1" 0
fault_end "$F_PROTECTION" "ENCRYPT from a page list"
fault_begin
c_crypt 0x1000 "L:$LIST:0" "1:0x1000" "$CRYPT_DECRYPT" "$N1" 0
fault_end "$F_PROTECTION" "DECRYPT into a segment without VprSupported"
expect "readq $((BAR2 + 0x1000))" 0x0123012301230123 "... which wrote nothing"
fault_begin
c_crypt 0x1000 "L:$LIST:0" "3:0" "$CRYPT_DECRYPT" "$N1" 0
fault_end "$F_PROTECTION" "DECRYPT into a VprSupported segment without EncryptedPagingSupported"
fault_begin
c_crypt 0x1000 "2:0" "2:0x70000" "$CRYPT_DECRYPT" "$N1" 0
fault_end "$F_PROTECTION" "DECRYPT from VRAM to VRAM"
fault_begin
c_crypt 0x1000 "4:0" "2:0x70000" "$CRYPT_DECRYPT" "$N1" 0
fault_end "$F_PROTECTION" "DECRYPT from an aperture segment"
fault_begin
c_crypt 0x1000 "2:0" "L:$LIST:0" 0 "$N1" 0
fault_end "$F_BAD_PACKET" "mode 0"
fault_begin
c_crypt 0x1000 "2:0" "L:$LIST:0" $((CRYPT_ENCRYPT | CRYPT_DECRYPT)) "$N1" 0
fault_end "$F_BAD_PACKET" "mode ENCRYPT | DECRYPT"
fault_begin
c_crypt 0x1000 "2:0" "L:$LIST:0" $((CRYPT_ENCRYPT | 4)) "$N1" 0
fault_end "$F_BAD_PACKET" "mode ENCRYPT | bit 2"
fault_begin
c_crypt 0x1000 "L:$LIST:0" "2:0x70000" $((CRYPT_DECRYPT | (1 << 63))) "$N1" 0
fault_end "$F_BAD_PACKET" "mode DECRYPT | bit 63"
fault_begin
c_crypt 12 "2:0" "L:$LIST:0" "$CRYPT_ENCRYPT" "$N1" 0
fault_end "$F_BAD_PACKET" "size 12 (not a multiple of 8)"
fault_begin
c_crypt 0x1000 "2:0" "L:$LIST:0" "$CRYPT_ENCRYPT" "$N1" 4
fault_end "$F_BAD_PACKET" "stream offset 4 (not a multiple of 8)"
fault_begin
c_crypt 0x2000 "2:0" "L:$LIST:0" "$CRYPT_ENCRYPT" "$N1" $((-0x1000))
fault_end "$F_OUT_OF_RANGE" "stream offset + size overflows"
fault_begin
c_crypt 0x2000 "2:$((2 * MiB - 0x1000))" "L:$LIST:0" "$CRYPT_ENCRYPT" "$N1" 0
fault_end "$F_OUT_OF_RANGE" "ENCRYPT past the end of segment 2"
fault_begin
emit "$(hdr "$OP_TRANSFER_ENCRYPTED" 10)" 0x1000 2 0 0 0 "$LIST" 0 "$CRYPT_ENCRYPT" "$N1"
fault_end "$F_BAD_PACKET" "TRANSFER_ENCRYPTED of 10 qwords"
fault_begin
write_list $((LIST + 0x4000)) 0x7000000000
c_crypt 0x1000 "L:$((LIST + 0x4000)):0" "2:0x70000" "$CRYPT_DECRYPT" "$N1" 0
fault_end "$F_DMA" "DECRYPT from a page in unassigned memory"

# 5. The key survives a system reset (0xcf9, as in the reset checks):
# encrypt before, decrypt after into VRAM that never held the plaintext.
ring_reset
c_crypt 0x2000 "2:0" "L:$((LIST + 0x3000)):0" "$CRYPT_ENCRYPT" "$N4" 0x2000
run 16
expect_idle "ENCRYPT before the system reset"
expect_ne "readq ${CD[0]}" "$(ptw 0)" "before the reset: the first word is ciphertext"
q "outb 0xcf9 0x6"
for _ in $(seq 80); do q "readl $RAM"; done
cfg_expect 0x04 0x00100000 "crypt: the system reset happened (PCI command register cleared)"
map_bars
bus_master
expect_reg "$REG_RING_CTRL" 0 "after the reset: the ring is disabled"
ring_enable "$RING0" $((64 << 10))
window "$MiB"
c_crypt 0x2000 "L:$((LIST + 0x3000)):0" "2:0x70000" "$CRYPT_DECRYPT" "$N4" 0x2000
run 16
expect_idle "DECRYPT after the system reset"
expect_pt 0x70000 0 1 511 512 1022 1023 "DECRYPT after the system reset (the key survived)"
session "crypt" -device "wddmseg,addr=0x4,vis-size=1M,invis-size=3M,x-batch-bytes=1M,layout=$CRYPT_LAYOUT" \
	-d guest_errors -D "$TMP/guest.log"
expect_log "$TMP/guest.log" "copy engine fault $F_PROTECTION .*: ENCRYPT: the source segment lacks VprSupported or EncryptedPagingSupported" 2 \
	"crypt: a protection fault logs why (ENCRYPT from a segment that is not protected)"
expect_log "$TMP/guest.log" "copy engine fault $F_PROTECTION .*: DECRYPT: the source is not a page list" 2 \
	"crypt: a protection fault logs why (DECRYPT from VRAM or an aperture)"

# ---- display controller ------------------------------------------------------
# Vblank timing runs on the virtual clock, which only clock_step moves under
# qtest: every check below knows exactly how many vblanks must have passed.
# Default layout: segment 1 (CPU-visible VRAM) has DirectFlip, segment 2
# (invisible VRAM) does not, segment 3 is the aperture.

P50=20000000			# ns per vblank at 50 Hz (50000 mHz)
FB_OFF=0x20000			# where the checks put the framebuffer

sc_status() { expect "readl $(reg "$REG_SC_STATUS")" "$1" "$2"; }
sc_count() { expect "readl $(reg "$REG_VBLANK_COUNT")" "$1" "$2"; }
sc_irq() { expect "readl $(reg "$REG_IRQ_STATUS")" "$1" "$2"; }
irq_clear() { wr "$REG_IRQ_STATUS" 0xffffffff; }
step() { q "clock_step $1"; }
# sc_cfg SEG OFFSET WIDTH HEIGHT PITCH FORMAT REFRESH_MHZ CTRL
sc_cfg() {
	wr "$REG_SC_SEGMENT" "$1"
	wr64 "$REG_SC_OFFSET_LO" "$2"
	wr "$REG_SC_WIDTH" "$3"
	wr "$REG_SC_HEIGHT" "$4"
	wr "$REG_SC_PITCH" "$5"
	wr "$REG_SC_FORMAT" "$6"
	wr "$REG_SC_REFRESH" "$7"
	wr "$REG_SC_CTRL" "$8"
}
sc_good() { sc_cfg 1 "$FB_OFF" 64 32 256 "$FMT_XRGB" 50000 "$SC_ENABLE"; }
sc_commit() { wr "$REG_SC_COMMIT" 1; }
sc_active() {
	expect "readl $(reg "$REG_SC_ACTIVE_SEGMENT")" "$1" "$3: ACTIVE_SEGMENT = $1"
	expect64 $((BAR0 + REG_SC_ACTIVE_OFFSET_LO)) "$2" "$3: ACTIVE_OFFSET = $(printf 0x%x "$2")"
}

# refuse REG VALUE CODE DESC: with the scanout enabled at 50 Hz and the clock
# on a vblank, a commit of the good configuration with REG = VALUE is
# PENDING until the next vblank, which refuses it with CODE; the active
# configuration stays. The good value is written back afterwards.
refuse() {
	sc_good
	if [ "$1" = "$REG_SC_OFFSET_LO" ]; then wr64 "$1" "$2"; else wr "$1" "$2"; fi
	sc_commit
	# REFUSED stays from the previous refusal until a commit is accepted.
	sc_status $((SC_ENABLED | SC_PENDING | WAS_REFUSED)) "$4: PENDING until the vblank"
	step $P50
	sc_status $((SC_ENABLED | SC_REFUSED)) "$4: refused at the vblank (REFUSED, still ENABLED)"
	expect "readl $(reg "$REG_SC_ERROR")" "$3" "$4: SCANOUT_ERROR = $3"
	sc_irq $((IRQ_VBLANK | IRQ_SCANOUT_ERROR)) "$4: IRQ_VBLANK and IRQ_SCANOUT_ERROR"
	sc_active 1 "$FB_OFF" "$4: active configuration unchanged"
	irq_clear
	WAS_REFUSED=$SC_REFUSED
}
WAS_REFUSED=0

map_bars
expect_reg "$REG_SC_MAX_WIDTH" 1920 "SCANOUT_MAX_WIDTH = 1920 (default max-width)"
expect_reg "$REG_SC_MAX_HEIGHT" 1200 "SCANOUT_MAX_HEIGHT = 1200 (default max-height)"
expect_reg "$REG_SC_FORMATS" $((FMT_XRGB | FMT_RGB565)) "SCANOUT_FORMATS = XRGB8888 | RGB565"
sc_status 0 "SCANOUT_STATUS is 0 after reset"
expect_reg "$REG_SC_ERROR" 0 "SCANOUT_ERROR is 0 after reset"
sc_count 0 "VBLANK_COUNT is 0 after reset"
step $((10 * P50))
sc_count 0 "no vblank while disabled"
sc_irq 0 "no interrupt while disabled"
sc_good
expect_reg "$REG_SC_SEGMENT" 1 "pending SEGMENT reads back"
expect64 $((BAR0 + REG_SC_OFFSET_LO)) "$FB_OFF" "pending OFFSET reads back"
expect_reg "$REG_SC_WIDTH" 64 "pending WIDTH reads back"
expect_reg "$REG_SC_HEIGHT" 32 "pending HEIGHT reads back"
expect_reg "$REG_SC_PITCH" 256 "pending PITCH reads back"
expect_reg "$REG_SC_FORMAT" "$FMT_XRGB" "pending FORMAT reads back"
expect_reg "$REG_SC_REFRESH" 50000 "pending REFRESH_MHZ reads back"
expect_reg "$REG_SC_CTRL" "$SC_ENABLE" "pending CTRL reads back"
sc_status 0 "pending writes alone change nothing"
sc_active 0 0 "before the first commit"
q "writel $(reg "$REG_SC_MAX_WIDTH") 0x10"
expect_reg "$REG_SC_MAX_WIDTH" 1920 "SCANOUT_MAX_WIDTH is read-only"
q "writel $(reg "$REG_VBLANK_COUNT") 0x10"
sc_count 0 "VBLANK_COUNT is read-only"

# Disabled: a commit latches at once.
sc_commit
sc_status "$SC_ENABLED" "a commit while disabled latches at once"
sc_active 1 "$FB_OFF" "latched at once"
sc_irq "$IRQ_VBLANK" "the latch raises IRQ_VBLANK"
sc_count 0 "... without counting a vblank"
expect_reg "$REG_SC_COMMIT" 0 "SCANOUT_COMMIT reads 0"
irq_clear
step $((P50 - 1))
sc_count 0 "no vblank 1 ns before one period (20 ms at 50 Hz)"
sc_irq 0 "no IRQ_VBLANK 1 ns before one period"
step 1
sc_count 1 "the first vblank comes one period after the latch"
sc_irq "$IRQ_VBLANK" "a vblank raises IRQ_VBLANK"
irq_clear
step $((10 * P50 - 1))
sc_count 10 "9 more vblanks 1 ns before 10 more periods"
step 1
sc_count 11 "10 more vblanks in 10 periods"

# Enabled: a commit waits for the next vblank.
wr64 "$REG_SC_OFFSET_LO" 0x40000
sc_commit
sc_status $((SC_ENABLED | SC_PENDING)) "a commit while enabled is PENDING"
sc_active 1 "$FB_OFF" "while PENDING"
step $((P50 - 1))
sc_status $((SC_ENABLED | SC_PENDING)) "still PENDING 1 ns before the vblank"
sc_active 1 "$FB_OFF" "1 ns before the vblank"
irq_clear
step 1
sc_status "$SC_ENABLED" "latched at the vblank, PENDING clear"
sc_active 1 0x40000 "latched at the vblank"
sc_count 12 "the latching vblank counts"
sc_irq "$IRQ_VBLANK" "the latching vblank raises IRQ_VBLANK"

# 60 Hz: the period is 16666666.67 ns; vblanks land on the exact multiples
# (rounded up to the ns), with no drift: the third is at exactly 50 ms.
wr "$REG_SC_REFRESH" 60000
sc_commit
step $P50
sc_count 13 "60 Hz latched at a 50 Hz vblank"
step 16666666
sc_count 13 "60 Hz: no vblank at 16666666 ns"
step 1
sc_count 14 "60 Hz: first vblank at 16666667 ns"
step 33333332
sc_count 15 "60 Hz: second vblank by 49999999 ns, not the third"
step 1
sc_count 16 "60 Hz: third vblank at exactly 50 ms (no drift)"
step $((60 * 50000000 / 3))
sc_count 76 "60 Hz: 60 more vblanks in one second"

# Back to 50 Hz for the refusals (the clock stays on 50 Hz vblanks).
sc_good
sc_commit
step 16666667
sc_status "$SC_ENABLED" "back to 50 Hz"
irq_clear

refuse "$REG_SC_SEGMENT" 0 "$E_SEGMENT" "segment id 0"
refuse "$REG_SC_SEGMENT" 4 "$E_SEGMENT" "segment id past SEG_COUNT"
refuse "$REG_SC_SEGMENT" 3 "$E_SEGMENT" "aperture segment"
refuse "$REG_SC_SEGMENT" 2 "$E_NOT_DIRECT_FLIP" "segment without DirectFlip"
refuse "$REG_SC_FORMAT" 0 "$E_FORMAT" "no format bit"
refuse "$REG_SC_FORMAT" $((FMT_XRGB | FMT_RGB565)) "$E_FORMAT" "two format bits"
refuse "$REG_SC_FORMAT" 4 "$E_FORMAT" "unknown format bit"
refuse "$REG_SC_WIDTH" 0 "$E_SIZE" "width 0"
refuse "$REG_SC_WIDTH" 1921 "$E_SIZE" "width above SCANOUT_MAX_WIDTH"
refuse "$REG_SC_HEIGHT" 0 "$E_SIZE" "height 0"
refuse "$REG_SC_HEIGHT" 1201 "$E_SIZE" "height above SCANOUT_MAX_HEIGHT"
refuse "$REG_SC_PITCH" 252 "$E_PITCH" "pitch below width * 4"
refuse "$REG_SC_PITCH" 258 "$E_PITCH" "pitch not a multiple of 4"
refuse "$REG_SC_OFFSET_LO" $((64 * MiB - 256 * 31 - 256 + 4)) "$E_RANGE" "framebuffer 4 bytes past the segment end"
refuse "$REG_SC_OFFSET_LO" $((1 << 40)) "$E_RANGE" "offset far past the segment"
refuse "$REG_SC_REFRESH" 999 "$E_REFRESH" "refresh below 1 Hz"
refuse "$REG_SC_REFRESH" 240001 "$E_REFRESH" "refresh above 240 Hz"
# RGB565: 2 bytes per pixel.
sc_cfg 1 "$FB_OFF" 64 32 124 "$FMT_RGB565" 50000 "$SC_ENABLE"
sc_commit
step $P50
expect_reg "$REG_SC_ERROR" "$E_PITCH" "RGB565: pitch below width * 2 refused"
# Accepted: RGB565, the framebuffer's last byte the segment's last byte.
sc_cfg 1 $((64 * MiB - 128 * 32)) 64 32 128 "$FMT_RGB565" 50000 "$SC_ENABLE"
sc_commit
irq_clear
step $P50
sc_status "$SC_ENABLED" "an accepted commit clears REFUSED"
sc_active 1 $((64 * MiB - 128 * 32)) "RGB565 ending at the segment end"
sc_irq "$IRQ_VBLANK" "an accepted commit raises IRQ_VBLANK only"
expect_reg "$REG_SC_ERROR" "$E_PITCH" "SCANOUT_ERROR keeps the last refusal"

# Disable: at the next vblank; then no more vblanks.
wr "$REG_SC_CTRL" 0
sc_commit
sc_status $((SC_ENABLED | SC_PENDING)) "disabling is PENDING until the vblank"
step $P50
sc_status 0 "disabled at the vblank"
# 76 at 60 Hz, one to return to 50 Hz, 18 refusals, one accepted, this one.
sc_count 97 "every vblank so far counted"
irq_clear
step $((10 * P50))
sc_count 97 "VBLANK_COUNT stops once disabled"
sc_irq 0 "no IRQ_VBLANK once disabled"

# Disabled: a refused commit is refused at once, the scanout stays off.
sc_cfg 2 0 64 32 256 "$FMT_XRGB" 50000 "$SC_ENABLE"
sc_commit
sc_status "$SC_REFUSED" "a bad commit while disabled is refused at once"
expect_reg "$REG_SC_ERROR" "$E_NOT_DIRECT_FLIP" "refused at once: SCANOUT_ERROR"
sc_irq $((IRQ_VBLANK | IRQ_SCANOUT_ERROR)) "refused at once: IRQ_VBLANK and IRQ_SCANOUT_ERROR"
irq_clear
step $((10 * P50))
sc_irq 0 "refused while disabled: still no vblank"
# The refresh limits themselves are accepted.
sc_cfg 1 0 64 32 256 "$FMT_XRGB" 1000 "$SC_ENABLE"
sc_commit
sc_status "$SC_ENABLED" "REFRESH_MHZ 1000 (1 Hz) accepted"
q "clock_step 999999999"
irq_clear
step 1
sc_irq "$IRQ_VBLANK" "1 Hz: the vblank comes after 1 s"
wr "$REG_SC_REFRESH" 240000
sc_commit
step 1000000000
sc_status "$SC_ENABLED" "REFRESH_MHZ 240000 (240 Hz) accepted"
session "scanout" -device wddmseg,addr=0x4 -d guest_errors -D "$TMP/guest.log"
expect_log "$TMP/guest.log" "scanout commit refused (SCANOUT_ERROR [0-9]*): " 19 "scanout: every refusal logged as a guest error"
expect_log "$TMP/guest.log" "scanout commit refused (SCANOUT_ERROR $E_SEGMENT): segment 3 is an Aperture segment" 1 "scanout: the log names the rule"

# Segment kinds and the size limits, on a 2 MiB VRAM with max-width=100 and
# max-height=50: 1 DirectFlip VRAM, 2 Agp with DirectFlip, 3 a DirectFlip
# memory segment past the end of VRAM, 4 one that straddles it. Disabled,
# so every commit latches (or is refused) at once.

# at_once SEG OFFSET W H PITCH CODE DESC: refused with CODE, or accepted
# (CODE 0) and then disabled again.
at_once() {
	sc_cfg "$1" "$2" "$3" "$4" "$5" "$FMT_XRGB" 60000 "$SC_ENABLE"
	sc_commit
	if [ "$6" -eq 0 ]; then
		sc_status "$SC_ENABLED" "$7: accepted"
		sc_active "$1" "$2" "$7"
		wr "$REG_SC_CTRL" 0
		sc_commit
		q "clock_step 16666667"
		sc_status 0 "$7: disabled again at the vblank"
	else
		sc_status "$SC_REFUSED" "$7: refused"
		expect_reg "$REG_SC_ERROR" "$6" "$7: SCANOUT_ERROR = $6"
	fi
}
map_bars
expect_reg "$REG_SC_MAX_WIDTH" 100 "SCANOUT_MAX_WIDTH = max-width"
expect_reg "$REG_SC_MAX_HEIGHT" 50 "SCANOUT_MAX_HEIGHT = max-height"
at_once 2 0 64 32 256 "$E_SEGMENT" "Agp segment (even with DirectFlip)"
at_once 3 0 64 32 256 "$E_RANGE" "memory segment past the end of VRAM"
at_once 4 $((512 << 10)) 64 32 256 "$E_RANGE" "framebuffer past the end of VRAM"
at_once 4 $(((512 << 10) - 256 * 32)) 64 32 256 0 "framebuffer ending at the end of VRAM"
at_once 1 0 101 32 404 "$E_SIZE" "width above max-width"
at_once 1 0 64 51 256 "$E_SIZE" "height above max-height"
at_once 1 0 100 50 400 0 "max-width x max-height"
at_once 1 0 1 1 4 0 "1x1"
session "scanout-layout" -device 'wddmseg,addr=0x4,vis-size=1M,invis-size=1M,max-width=100,max-height=50,layout=0:0|0:0:1M:1M:0x404|1M:-:1M:1M:0x402|0x100000000:-:1M:1M:0x400|0x180000:-:1M:1M:0x400'

# bad_prop OPTIONS DESC: QEMU must refuse to start, saying why.
bad_prop() {
	local rc=0
	echo "outb 0xf4 0x0" >"$TMP/in"
	timeout 30 "$QEMU" "${COMMON[@]}" -device "wddmseg,addr=0x4,$1" \
		<"$TMP/in" >"$TMP/out" 2>"$TMP/err" || rc=$?
	if [ $rc -eq 1 ] && grep -q "max-width and max-height must be in \[1, 16384\]" "$TMP/err"; then
		tap_ok "property rejected ($2)"
	else
		tap_not_ok "property rejected ($2)" "exit $rc: $(head -c 400 "$TMP/err" | tr '\n' ' ')"
	fi
}
bad_prop max-width=0 "max-width=0"
bad_prop max-width=16385 "max-width=16385"
bad_prop max-height=0 "max-height=0"
bad_prop max-height=16385 "max-height=16385"
map_bars
expect_reg "$REG_SC_MAX_WIDTH" 16384 "max-width=16384 accepted"
expect_reg "$REG_SC_MAX_HEIGHT" 16384 "max-height=16384 accepted"
session "scanout-limits" -device wddmseg,addr=0x4,max-width=16384,max-height=16384

# INTx: IRQ_VBLANK in IRQ_MASK asserts pin A (GSI 20 here) until cleared.
map_bars
q "irq_intercept_in ioapic"
wr "$REG_IRQ_MASK" "$IRQ_VBLANK"
sc_good
sc_commit
q "clock_step $((3 * P50))"
sc_count 3 "intx: three vblanks"
irq_clear
q "clock_step $P50"
sc_irq "$IRQ_VBLANK" "intx: IRQ_VBLANK set again at the next vblank"
wr "$REG_IRQ_MASK" 0
irq_clear
q "clock_step $P50"
sc_irq "$IRQ_VBLANK" "intx: IRQ_STATUS.VBLANK is set even when masked"
session "scanout-intx" -device wddmseg,addr=0x4
# Raised at the latch, lowered by the first clear, raised again, lowered
# by the mask; a masked vblank raises nothing.
expect_log "$TMP/out" "^IRQ raise 20" 2 "intx: IRQ_VBLANK raised INTx twice"
expect_log "$TMP/out" "^IRQ lower 20" 2 "intx: clearing and masking lowered it"

# ---- system reset ------------------------------------------------------------
# 0xcf9 (q35 reset control) requests a reset; QEMU performs it when the
# main loop runs again, i.e. after the current chunk of qtest input (1024
# bytes): the padding reads push the checks into a later chunk.

map_bars
bus_master
window $((3 * MiB))
apt 3 7 $RAM
wr64 "$REG_PEEK_ADDR_LO" $((4 * GiB + 0x10000))
expect "readl $(reg "$REG_PEEK_DATA")" 0xffffffff "before reset: PEEK of an unmapped page faults"
apt 0 0 0
expect_status $((APT_ERROR | PEEK_FAULT)) "before reset: both STATUS bits set"
wr "$REG_IRQ_MASK" $((IRQ_FENCE | IRQ_ERROR))
SEQ=0
ring_enable "$RING0" 0x1000
q "irq_intercept_in ioapic"
c_fence "$FENCE_IRQ"
run
wr "$REG_INJECT" "$INJECT_HANG"
c_fence
run
expect_reg "$REG_RING_STATUS" "$ENABLED" "before reset: the engine hangs with a FENCE queued"
expect_reg "$REG_IRQ_STATUS" "$IRQ_FENCE" "before reset: IRQ_STATUS.FENCE set"
# The scanout enabled, three vblanks counted, a refused commit, and another
# one pending.
sc_good
sc_commit
q "clock_step $((3 * P50))"
wr "$REG_SC_FORMAT" 0
sc_commit
q "clock_step $P50"
sc_good
wr64 "$REG_SC_OFFSET_LO" 0x40000
sc_commit
sc_status $((SC_ENABLED | SC_PENDING | SC_REFUSED)) "before reset: scanout enabled, REFUSED, a commit PENDING"
sc_count 4 "before reset: four vblanks counted"
q "outb 0xcf9 0x6"
for _ in $(seq 80); do q "readl $RAM"; done
cfg_expect 0x04 0x00100000 "after reset: PCI command register cleared (reset happened), status has CAP_LIST"
map_bars
expect_window 0 "after reset: WINDOW_BASE is 0"
q "writel $((BAR2 + 0x40)) 0x0e5e7040"
expect "readl $((BAR4 + 0x40))" 0x0e5e7040 "after reset: BAR4 shows VRAM from offset 0"
expect_status 0 "after reset: STATUS is 0"
expect "readl $(reg "$REG_APT_SEGMENT")" 0 "after reset: APT_SEGMENT is 0"
expect "readl $(reg "$REG_APT_PAGE")" 0 "after reset: APT_PAGE is 0"
expect_apt 3 7 0 "after reset: aperture entries are unmapped"
expect64 $((BAR0 + REG_PEEK_ADDR_LO)) 0 "after reset: PEEK_ADDR is 0"
expect_reg "$REG_RING_STATUS" "$IDLE" "after reset: ring disabled and IDLE"
expect_reg "$REG_RING_CTRL" 0 "after reset: RING_CTRL is 0"
expect64 $((BAR0 + REG_RING_BASE_LO)) 0 "after reset: RING_BASE is 0"
expect_reg "$REG_RING_SIZE" 0 "after reset: RING_SIZE is 0"
expect_reg "$REG_RING_HEAD" 0 "after reset: RING_HEAD is 0"
expect_reg "$REG_RING_TAIL" 0 "after reset: RING_TAIL is 0"
expect_reg "$REG_INJECT" 0 "after reset: no hang, no injected fault"
expect_seqno 0 "after reset: LAST_SEQNO is 0"
expect_reg "$REG_IRQ_STATUS" 0 "after reset: IRQ_STATUS is 0"
expect_reg "$REG_IRQ_MASK" 0 "after reset: IRQ_MASK is 0"
sc_status 0 "after reset: SCANOUT_STATUS is 0 (disabled, nothing pending)"
expect_reg "$REG_SC_ERROR" 0 "after reset: SCANOUT_ERROR is 0"
sc_count 0 "after reset: VBLANK_COUNT is 0"
expect_reg "$REG_SC_CTRL" 0 "after reset: pending SCANOUT_CTRL is 0"
expect_reg "$REG_SC_SEGMENT" 0 "after reset: pending SCANOUT_SEGMENT is 0"
expect_reg "$REG_SC_REFRESH" 0 "after reset: pending SCANOUT_REFRESH_MHZ is 0"
sc_active 0 0 "after reset"
q "clock_step $((10 * P50))"
sc_count 0 "after reset: no vblank (the timer stopped)"
expect_reg "$REG_IRQ_STATUS" 0 "after reset: no IRQ_VBLANK"
session "reset" -device wddmseg,addr=0x4
expect_log "$TMP/out" "^IRQ raise 20" 1 "reset: the FENCE raised INTx"
expect_log "$TMP/out" "^IRQ lower 20" 1 "reset: the reset lowered it"

# ---- python helpers ------------------------------------------------------------
# Checks that need a monitor next to qtest (migration, screendump) run in
# python3: qtest and QMP on UNIX sockets. Their shared helpers live in
# $TMP/qtestlib.py; each script gets TMP QEMU COMMON... as its arguments.

write_pylib() {
	cat >"$TMP/qtestlib.py" <<'EOF'
import atexit, json, socket, subprocess, sys, time

tmp, qemu, args = sys.argv[1], sys.argv[2], sys.argv[3:]
i = args.index('-qtest')
del args[i:i + 2]                       # -qtest stdio: sockets instead
BAR0, BAR4, RAM = 0xe0000000, 0xe0100000, 0x100000
procs = []
atexit.register(lambda: [p.kill() for p in procs])


def check(ok, desc):
    print('ok' if ok else 'not-ok', desc, flush=True)


class Conn:
    def __init__(self, path):
        for _ in range(200):
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.settimeout(30)
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        self.f = self.s.makefile('rw')


class Qtest(Conn):
    def cmd(self, c):
        self.f.write(c + '\n')
        self.f.flush()
        while True:
            line = self.f.readline()
            if not line:
                raise EOFError(c)
            if line.startswith(('OK', 'FAIL', 'ERR')):
                return line.split()

    def readl(self, a):
        r = self.cmd('readl 0x%x' % a)
        return int(r[1], 16) if r[0] == 'OK' else None

    def writel(self, a, v):
        self.cmd('writel 0x%x 0x%x' % (a, v))

    def writeq(self, a, v):
        self.cmd('writeq 0x%x 0x%x' % (a, v))

    def writew(self, a, v):
        self.cmd('writew 0x%x 0x%x' % (a, v))

    def clock_step(self, ns):
        # Move the virtual clock (timers fire on the way); returns its value.
        return int(self.cmd('clock_step %d' % ns)[1])

    def fence(self, at, seqno):
        # FENCE with FENCE_IRQ at ring offset at, writeback at RAM + 0x20000
        for i, w in enumerate((0x40008, seqno, RAM + 0x20000, 1)):
            self.writeq(RAM + 0x10000 + at + 8 * i, w)
        self.writel(BAR0 + 0x210, at + 32)
        return wait(lambda: self.readl(BAR0 + 0x20c) == at + 32)

    def cfg(self, off, v):
        self.cmd('outl 0xcf8 0x%x' % (0x80000000 | (4 << 11) | off))
        self.cmd('outl 0xcfc 0x%x' % v)

    def cfg_read(self, off):
        self.cmd('outl 0xcf8 0x%x' % (0x80000000 | (4 << 11) | off))
        return int(self.cmd('inl 0xcfc')[1], 16)


class Qmp(Conn):
    def __init__(self, path):
        super().__init__(path)
        self.f.readline()
        self.cmd('qmp_capabilities')

    def cmd(self, c, **a):
        self.f.write(json.dumps({'execute': c, 'arguments': a}) + '\n')
        self.f.flush()
        while True:
            r = json.loads(self.f.readline())
            if 'return' in r or 'error' in r:
                return r


def start(tag, dev, extra=()):
    p = subprocess.Popen(
        [qemu] + args + ['-device', dev,
                         '-qtest', f'unix:{tmp}/{tag}.q,server=on,wait=off',
                         '-qmp', f'unix:{tmp}/{tag}.m,server=on,wait=off']
        + list(extra), stdout=subprocess.DEVNULL,
        stderr=open(f'{tmp}/{tag}.err', 'w'))
    procs.append(p)
    return p, Qtest(f'{tmp}/{tag}.q'), Qmp(f'{tmp}/{tag}.m')


def wait(cond):
    for _ in range(300):
        if cond():
            return True
        time.sleep(0.1)
    return False


def ppm(path):
    # A binary PPM as the monitor's screendump writes it: (w, h, RGB bytes).
    # QEMU 7.2 pads each line to a multiple of 4 bytes (it writes its
    # pixman line buffer's stride): drop that padding.
    with open(path, 'rb') as f:
        magic, size, depth, data = f.read().split(b'\n', 3)
    w, h = map(int, size.split())
    stride = (w * 3 + 3) & ~3
    if magic != b'P6' or depth != b'255' or len(data) != stride * h:
        raise ValueError(path)
    return w, h, b''.join(data[y * stride:y * stride + w * 3]
                          for y in range(h))
EOF
}
write_pylib

# py_checks NAME COUNT: run the python3 script on stdin, which prints one
# "ok DESC" or "not-ok DESC" line per check; COUNT checks must run.
py_checks() {
	local name=$1 want=$2 verdict desc n=0
	if ! command -v python3 >/dev/null; then
		tap_ok "$name # SKIP no python3"
		return
	fi
	cat >"$TMP/$name.py"
	while read -r verdict desc; do
		n=$((n + 1))
		case $verdict in
		ok) tap_ok "$name: $desc" ;;
		*) tap_not_ok "$name: $desc" ;;
		esac
	done < <(timeout 120 python3 "$TMP/$name.py" "$TMP" "$QEMU" "${COMMON[@]}" 2>"$TMP/$name.err")
	if [ $n -ne "$want" ]; then
		tap_not_ok "$name: $n of $want checks ran" \
			"$(tail -n 3 "$TMP/$name.err" | tr '\n' ' ')"
	fi
}

# ---- migration -------------------------------------------------------------
# Needs a monitor next to qtest, so it runs outside session: python3 drives
# a source QEMU (qtest and QMP on UNIX sockets), migrates it to a file, and
# loads that into a destination with the same device, then into one whose
# aperture is smaller (its page tables differ: the load must fail). The
# script prints one "ok DESC" or "not-ok DESC" line per check.

py_checks migration 16 <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from qtestlib import *  # noqa: F401,F403 (written by write_pylib)


DEV = 'wddmseg,addr=0x4'
state = f'{tmp}/migration.state'

# Source: window at 3 MiB, aperture page 9 -> RAM, PEEK_ADDR there,
# APT_SEGMENT 3 / APT_PAGE 9 selected, PEEK_FAULT set.
p, q, m = start('src', DEV)
q.cfg(0x10, BAR0)
q.cfg(0x20, BAR4)
q.cfg(0x04, 6)
q.writel(RAM, 0x12345678)
q.writel(BAR0 + 0x20, 0x300000)
q.writel(BAR0 + 0x24, 0)
q.writel(BAR4 + 0x10, 0xabcd0003)
q.writel(BAR0 + 0x40, 3)
q.writel(BAR0 + 0x44, 9)
q.writel(BAR0 + 0x48, RAM)
q.writel(BAR0 + 0x4c, 0)
q.writel(BAR0 + 0x50, 0x1000)
q.writel(BAR0 + 0x54, 1)
q.readl(BAR0 + 0x58)                    # unmapped: sets PEEK_FAULT
q.writel(BAR0 + 0x50, 0x9000)
# Copy engine: IRQ_MASK, a 4 KiB ring at RAM + 64 KiB, one FENCE run.
q.writel(BAR0 + 0x104, 3)
q.writel(BAR0 + 0x200, RAM + 0x10000)
q.writel(BAR0 + 0x204, 0)
q.writel(BAR0 + 0x208, 0x1000)
q.writel(BAR0 + 0x214, 1)
q.fence(0, 0x77)
# Scanout: enabled at 50 Hz (segment 1, offset 0x20000, 64x32), three
# vblanks, then a commit of offset 0x40000 left pending.
for reg, v in ((0x314, 1), (0x318, 0x20000), (0x31c, 0), (0x320, 64),
               (0x324, 32), (0x328, 256), (0x32c, 1), (0x330, 50000),
               (0x310, 1), (0x334, 1)):
    q.writel(BAR0 + reg, v)
src_clock = q.clock_step(3 * 20000000)
q.writel(BAR0 + 0x318, 0x40000)
q.writel(BAR0 + 0x334, 1)
m.cmd('migrate', uri=f'exec:cat > {state}')
done = wait(lambda: m.cmd('query-migrate')['return'].get('status')
            in ('completed', 'failed'))
check(done and m.cmd('query-migrate')['return']['status'] == 'completed',
      'the source migrates to a file')
p.kill()
p.wait()

p, q, m = start('dst', DEV, ['-incoming', 'defer'])
m.cmd('migrate-incoming', uri=f'exec:cat {state}')
check(wait(lambda: m.cmd('query-status')['return']['status'] != 'inmigrate'),
      'the destination loads the state')
check(q.readl(BAR0 + 0x20) == 0x300000, 'WINDOW_BASE migrates')
check(q.readl(BAR4 + 0x10) == 0xabcd0003,
      'BAR4 shows VRAM at the migrated window base')
check(q.readl(BAR0 + 0x40) == 3 and q.readl(BAR0 + 0x44) == 9,
      'APT_SEGMENT and APT_PAGE migrate')
check(q.readl(BAR0 + 0x48) == RAM, 'aperture page table entries migrate')
check(q.readl(BAR0 + 0x60) == 2, 'STATUS migrates')
check(q.readl(BAR0 + 0x50) == 0x9000 and q.readl(BAR0 + 0x54) == 1,
      'PEEK_ADDR migrates')
check(q.readl(BAR0 + 0x58) == 0x12345678,
      'PEEK through the migrated aperture entry reads guest RAM')
check(q.readl(BAR0 + 0x228) == 0x77 and q.readl(BAR0 + 0x20c) == 0x20,
      'LAST_SEQNO and RING_HEAD migrate')
check(q.readl(BAR0 + 0x100) == 5 and q.readl(BAR0 + 0x104) == 3,
      'IRQ_STATUS (FENCE, VBLANK) and IRQ_MASK migrate')
check(q.readl(BAR0 + 0x218) == 3 and q.readl(BAR0 + 0x208) == 0x1000,
      'the ring migrates enabled and idle')
check(q.fence(0x20, 0x78) and q.readl(BAR0 + 0x228) == 0x78,
      'the migrated ring runs a new FENCE')
check(q.readl(BAR0 + 0x338) == 3 and q.readl(BAR0 + 0x34c) == 3 and
      q.readl(BAR0 + 0x344) == 0x20000 and q.readl(BAR0 + 0x318) == 0x40000,
      'the scanout migrates enabled, with its count and its pending commit')
# qtest's virtual clock is not migrated (a real one is): step the
# destination to the source's clock, then to the next vblank.
dst_clock = q.clock_step(0)
q.clock_step(src_clock - dst_clock + 20000000 - 1)
before = q.readl(BAR0 + 0x34c)
q.clock_step(1)
check(before == 3 and q.readl(BAR0 + 0x34c) == 4 and
      q.readl(BAR0 + 0x338) == 1 and q.readl(BAR0 + 0x344) == 0x40000,
      'the migrated vblank timer latches the commit one period later')
p.kill()
p.wait()

p, q, m = start('dst2', DEV + ',aperture-size=128M', ['-incoming', 'defer'])
m.cmd('migrate-incoming', uri=f'exec:cat {state}')
try:
    rc = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    rc = None
err = open(f'{tmp}/dst2.err').read()
check(rc not in (None, 0) and 'aperture page tables of another size' in err,
      'a destination with other aperture page tables refuses the state')
EOF

# ---- encrypted paging across migration -------------------------------------
# The key migrates: a 16 MiB ENCRYPT out of a protected segment is stopped
# halfway (x-batch-bytes=4K: 1 KiB a bottom-half run), migrated, resumed
# on the destination (so the last words of the command, mode, nonce and
# stream offset, migrated too), and decrypted there. A device that did not
# come from the source (its own key) cannot decrypt that ciphertext.

py_checks crypt-migration 6 <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from qtestlib import *  # noqa: F401,F403 (written by write_pylib)

DEV = ('wddmseg,addr=0x4,x-batch-bytes=4K,'
       'layout=0:0|0:0:64M:64M:0x484|64M:-:64M:64M:0x50000')
state = f'{tmp}/crypt-migration.state'
MiB = 1 << 20
SEG2 = 64 * MiB                         # GPU address of segment 2
RING, WB = RAM + 0x10000, RAM + 0x20000
LIST, CT = 0x200000, 0x1000000          # page list, 16 MiB of pages
SIZE, NONCE = 16 * MiB, 0x5eed5eed12345678
PATTERN = 0x5eed1234
SPECIAL = {0: 0x0123456789abcdef, 8: 0xfedcba9876543210,
           8 * MiB: 0x1111222233334444, SIZE - 8: 0x5555666677778888}
tail = 0


def plain(off):
    return SPECIAL.get(off, PATTERN << 32 | PATTERN)


def readq(q, a):
    r = q.cmd('readq 0x%x' % a)
    return int(r[1], 16) if r[0] == 'OK' else None


def vram_readq(q, off):
    # Segment 2 offset off, through the BAR4 window.
    base = (SEG2 + off) & ~(MiB - 1)
    q.writel(BAR0 + 0x20, base & 0xffffffff)
    q.writel(BAR0 + 0x24, base >> 32)
    return readq(q, BAR4 + SEG2 + off - base)


def vram_writeq(q, off, v):
    base = (SEG2 + off) & ~(MiB - 1)
    q.writel(BAR0 + 0x20, base & 0xffffffff)
    q.writel(BAR0 + 0x24, base >> 32)
    q.writeq(BAR4 + SEG2 + off - base, v)


def setup(q, ring=True):
    global tail
    q.cfg(0x10, BAR0)
    q.cfg(0x20, BAR4)
    q.cfg(0x04, 6)
    if ring:
        q.writel(BAR0 + 0x200, RING)
        q.writel(BAR0 + 0x204, 0)
        q.writel(BAR0 + 0x208, 0x1000)
        q.writel(BAR0 + 0x214, 1)
        tail = 0


def emit(q, *words):
    global tail
    for w in words:
        q.writeq(RING + tail, w & (1 << 64) - 1)
        tail += 8


def run(q):
    q.writel(BAR0 + 0x210, tail)
    return wait(lambda: q.readl(BAR0 + 0x20c) == tail)


def crypt(q, size, src, dst, mode, stream):
    emit(q, 9 | 11 << 16, size, *src, *dst, mode, NONCE, stream)


def page_list(q, at, pages):
    q.cmd('write 0x%x 0x%x 0x%s' % (at, 8 * len(pages), ''.join(
        p.to_bytes(8, 'little').hex() for p in pages)))


# Source: 16 MiB of plaintext in segment 2, then an ENCRYPT stopped
# halfway.
p, q, m = start('csrc', DEV)
setup(q)
page_list(q, LIST, [CT + 4096 * i for i in range(SIZE // 4096)])
emit(q, 2 | 6 << 16, SIZE, PATTERN, 2, 0, 0)       # FILL
run(q)
for off, v in SPECIAL.items():
    vram_writeq(q, off, v)
crypt(q, SIZE, (2, 0, 0), (0, LIST, 0), 1, 0)
emit(q, 8 | 4 << 16, 1, WB, 0)                      # FENCE 1
q.writel(BAR0 + 0x210, tail)
# Stop as soon as the first ciphertext is there (polled without sleeping:
# the whole ENCRYPT takes about 0.1 s).
for _ in range(20000):
    if readq(q, CT) != 0:
        break
m.cmd('stop')
check(q.readl(BAR0 + 0x21c) == 0 and q.readl(BAR0 + 0x20c) == 0x30 and
      readq(q, CT) not in (0, plain(0)) and readq(q, CT + SIZE - 8) == 0,
      'the source stops halfway through a 16 MiB ENCRYPT')
m.cmd('migrate', uri=f'exec:cat > {state}')
done = wait(lambda: m.cmd('query-migrate')['return'].get('status')
            in ('completed', 'failed'))
check(done and m.cmd('query-migrate')['return']['status'] == 'completed',
      'the stopped source migrates to a file')
p.kill()
p.wait()

# Destination: resume, then decrypt elsewhere in segment 2.
p, q, m = start('cdst', DEV, ['-incoming', 'defer'])
m.cmd('migrate-incoming', uri=f'exec:cat {state}')
check(wait(lambda: m.cmd('query-status')['return']['status'] == 'paused'),
      'the destination loads the state, paused like the source')
m.cmd('cont')
check(wait(lambda: q.readl(BAR0 + 0x20c) == tail) and
      q.readl(BAR0 + 0x21c) == 0 and q.readl(BAR0 + 0x228) == 1 and
      readq(q, CT + SIZE - 8) not in (0, plain(SIZE - 8)),
      'the ENCRYPT resumes on the destination and completes (mode, nonce '
      'and stream offset migrated)')
ct_page = bytes.fromhex(q.cmd('read 0x%x 0x1000' % CT)[1][2:])
crypt(q, SIZE, (0, LIST, 0), (2, 32 * MiB, 0), 2, 0)
ok = run(q) and q.readl(BAR0 + 0x21c) == 0
for off in (0, 8, 4 * MiB, 8 * MiB, SIZE - 8):
    ok = ok and vram_readq(q, 32 * MiB + off) == plain(off)
check(ok, 'DECRYPT on the destination gives the plaintext back (the key '
      'migrated)')
p.kill()
p.wait()

# Another device, with its own key: the first page does not decrypt.
p, q, m = start('cother', DEV)
setup(q)
q.cmd('write 0x%x 0x1000 0x%s' % (CT, ct_page.hex()))
page_list(q, LIST, [CT])
crypt(q, 0x1000, (0, LIST, 0), (2, 0, 0), 2, 0)
ok = run(q) and q.readl(BAR0 + 0x21c) == 0
check(ok and vram_readq(q, 0) != plain(0) and vram_readq(q, 8) != plain(8),
      'another device (its own key) does not decrypt that ciphertext')
EOF

# ---- display (screendump) ----------------------------------------------------
# The monitor's screendump runs the console's update first, then writes
# what the console shows as a PPM: the checks write known pixels into VRAM
# (CPU through BAR2, or the copy engine), point the scanout at them, and
# compare the PPM with what the pixels must look like.

py_checks display 14 <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from qtestlib import *  # noqa: F401,F403 (written by write_pylib)

BAR2 = 0x840000000
P50 = 20000000                          # ns per vblank at 50 Hz
XRGB, RGB565 = 1, 2
p, q, m = start('display', 'wddmseg,addr=0x4')
q.cfg(0x10, BAR0)
q.cfg(0x18, BAR2 & 0xffffffff)
q.cfg(0x1c, BAR2 >> 32)
q.cfg(0x04, 6)


def dump(tag):
    path = f'{tmp}/{tag}.ppm'
    if 'error' in m.cmd('screendump', filename=path):
        return (0, 0, b'')
    return ppm(path)


def scanout(off, w, h, pitch, fmt, ctrl=1):
    # Segment 1, 50 Hz; then COMMIT.
    for reg, v in ((0x314, 1), (0x318, off & 0xffffffff), (0x31c, off >> 32),
                   (0x320, w), (0x324, h), (0x328, pitch), (0x32c, fmt),
                   (0x330, 50000), (0x310, ctrl), (0x334, 1)):
        q.writel(BAR0 + reg, v)


def xrgb(x, y, salt=0):
    # The X byte is junk on purpose: the screen must ignore it.
    return (0xa5 << 24 | ((x * 31 + salt) & 0xff) << 16 |
            ((y * 67 + 3) & 0xff) << 8 | ((x * 13 + y * 29 + salt) & 0xff))


def rgb(v):
    return bytes(((v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff))


def rgb565(v):
    r, g, b = v >> 11, (v >> 5) & 0x3f, v & 0x1f
    return bytes((r << 3 | r >> 2, g << 2 | g >> 4, b << 3 | b >> 2))


w, h, img = dump('blank')
check((w, h) == (640, 480) and not any(img),
      'a disabled scanout shows a black 640x480 screen')

# XRGB8888, 8x4, pitch 64 (padding between lines), at 0x20000.
W, H, PITCH, OFF, OFF2 = 8, 4, 64, 0x20000, 0x30000
for y in range(H):
    for x in range(W):
        q.writel(BAR2 + OFF + y * PITCH + x * 4, xrgb(x, y))
        q.writel(BAR2 + OFF2 + y * PITCH + x * 4, xrgb(x, y, 100))
    q.writel(BAR2 + OFF + y * PITCH + W * 4, 0xffffffff)   # padding
scanout(OFF, W, H, PITCH, XRGB)
w, h, img = dump('xrgb')
check((w, h) == (W, H), 'the screen takes the framebuffer size (8x4)')
check(img == b''.join(rgb(xrgb(x, y)) for y in range(H) for x in range(W)),
      'XRGB8888 pixels on screen, X byte and pitch padding ignored')

q.writel(BAR2 + OFF + 1 * PITCH + 3 * 4, 0x00123456)
w, h, img = dump('cpu')
check(img[(W + 3) * 3:(W + 4) * 3] == bytes((0x12, 0x34, 0x56)),
      'a CPU write through BAR2 is on screen at the next screendump')

# Copy engine: FILL line 2 with magenta (ring at RAM + 64 KiB).
q.writel(BAR0 + 0x200, RAM + 0x10000)
q.writel(BAR0 + 0x204, 0)
q.writel(BAR0 + 0x208, 0x1000)
q.writel(BAR0 + 0x214, 1)
for i, v in enumerate((0x60002, W * 4, 0x00ff00ff, 1, OFF + 2 * PITCH, 0)):
    q.writeq(RAM + 0x10000 + 8 * i, v)
q.writel(BAR0 + 0x210, 48)
done = wait(lambda: q.readl(BAR0 + 0x20c) == 48)
w, h, img = dump('fill')
check(done and img[2 * W * 3:3 * W * 3] == bytes((255, 0, 255)) * W,
      'a copy-engine FILL is on screen at the next screendump')

# A flip is seen at the vblank, not before.
scanout(OFF2, W, H, PITCH, XRGB)
w, h, img2 = dump('pending')
check(q.readl(BAR0 + 0x338) == 3 and img2 == img,
      'a pending flip leaves the screen alone until the vblank')
q.clock_step(P50)
w, h, img = dump('flipped')
check(q.readl(BAR0 + 0x338) == 1 and
      img == b''.join(rgb(xrgb(x, y, 100)) for y in range(H) for x in range(W)),
      'the flipped framebuffer is on screen after the vblank')

# RGB565, 5x3, pitch 12, at an offset 2 mod 4: pixman cannot use it in
# place, so the console shows a shadow copy.
W, H, PITCH, OFF = 5, 3, 12, 0x40002
vals = [0xf800, 0x07e0, 0x001f, 0xffff, 0x0000, 0x8410, 0x1234, 0xabcd,
        0x4321, 0x7bef, 0x0841, 0xf81f, 0x07ff, 0xffe0, 0x5555]
for i, v in enumerate(vals):
    q.writew(BAR2 + OFF + (i // W) * PITCH + (i % W) * 2, v)
scanout(OFF, W, H, PITCH, RGB565)
q.clock_step(P50)
w, h, img = dump('rgb565')
check((w, h) == (W, H) and q.readl(BAR0 + 0x338) == 1,
      'RGB565 at an unaligned offset: the screen is 5x3')
check(img == b''.join(rgb565(v) for v in vals),
      'RGB565 pixels on screen (shadow copy)')
q.writew(BAR2 + OFF + 2 * PITCH + 4 * 2, 0x001f)
w, h, img = dump('rgb565b')
check(img[14 * 3:15 * 3] == bytes((0, 0, 255)),
      'the shadow copy follows a later CPU write')

# XRGB8888 at an odd offset: a shadow copy too.
q.writel(BAR2 + 0x50000, 0x11223344)
q.writel(BAR2 + 0x50004, 0x55667788)
q.writel(BAR2 + 0x50008, 0x99aabbcc)
scanout(0x50001, 2, 1, 8, XRGB)
q.clock_step(P50)
w, h, img = dump('odd')
# Pixel 0 is the bytes at 0x50001..4 (33 22 11 88), pixel 1 at 0x50005.
check((w, h) == (2, 1) and img == bytes((0x11, 0x22, 0x33, 0x55, 0x66, 0x77)),
      'XRGB8888 at an odd offset (shadow copy)')

# Disabled: black, at the last size.
scanout(0, 0, 0, 0, 0, ctrl=0)
q.clock_step(P50)
w, h, img = dump('off')
check(q.readl(BAR0 + 0x338) == 0 and (w, h) == (2, 1) and not any(img),
      'a disabled scanout shows black at the last size')

# A refused flip leaves the screen as it was.
scanout(OFF, W, H, PITCH, RGB565)
q.clock_step(P50)
q.writel(BAR0 + 0x318, 0x4000000)                   # past segment 1
q.writel(BAR0 + 0x334, 1)
q.clock_step(P50)
w, h, img = dump('refused')
check(q.readl(BAR0 + 0x33c) == 6 and (w, h) == (W, H) and
      img[14 * 3:15 * 3] == bytes((0, 0, 255)),
      'a refused flip leaves the screen as it was')

# Reset: the scanout is off, the screen black.
m.cmd('system_reset')
done = wait(lambda: q.cfg_read(0x04) & 0xffff == 0)   # BARs unmapped
q.cfg(0x10, BAR0)
q.cfg(0x04, 6)
check(done and q.readl(BAR0 + 0x338) == 0 and q.readl(BAR0 + 0x34c) == 0 and
      not any(dump('reset')[2]),
      'after a system reset the scanout is off and the screen black')
EOF

# ---- vblanks in real time ------------------------------------------------------
# Under TCG (not the qtest accelerator) the virtual clock follows the host
# clock while the VM runs: at 60 Hz, VBLANK_COUNT must advance by about 60
# a second. SeaBIOS assigns the BARs; the check uses its BAR0.

py_checks realtime 2 <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from qtestlib import *  # noqa: F401,F403 (written by write_pylib)

i = args.index('-accel')
args[i + 1] = 'tcg'
p, q, m = start('realtime', 'wddmseg,addr=0x4')
bar0 = 0
for _ in range(300):
    if q.cfg_read(0x04) & 2 and q.cfg_read(0x10) & ~0xf:
        bar0 = q.cfg_read(0x10) & ~0xf
        break
    time.sleep(0.05)
for reg, v in ((0x314, 1), (0x320, 64), (0x324, 32), (0x328, 256),
               (0x32c, 1), (0x330, 60000), (0x310, 1), (0x334, 1)):
    q.writel(bar0 + reg, v)
# Each read of VBLANK_COUNT happens somewhere between the timestamps taken
# around it: on a loaded host a qtest round trip can take a good part of a
# second, so the rate is known only within [lo, hi]. 60 Hz must be
# possible (within 10%), and the measurement tight enough to mean it.
ta0 = time.monotonic()
c0 = q.readl(bar0 + 0x34c)
tb0 = time.monotonic()
time.sleep(3)
ta1 = time.monotonic()
c1 = q.readl(bar0 + 0x34c)
tb1 = time.monotonic()
lo = (c1 - c0) / (tb1 - ta0)
hi = (c1 - c0) / max(ta1 - tb0, 1e-3)
check(bar0 and q.readl(bar0 + 0x338) == 1, 'the firmware mapped BAR0, the scanout is on')
check(lo <= 66 and hi >= 54 and hi - lo < 30,
      'about 60 vblanks a second at 60 Hz (between %.1f and %.1f)' % (lo, hi))
EOF

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
