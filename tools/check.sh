#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make check`: build everything and run every test, host and VM.
# Each stage prints TAP lines; the summary counts them and ends with
# "N passed, N failed" (and skipped ones, if any). Exit status is non-zero
# on any failure. Logs and TAP files are in build/check/.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$REPO/build
OUT=$BUILD/check
cd "$REPO"
rm -rf "$OUT"
mkdir -p "$OUT"

pass=0 fail=0 skip=0
t0=$(date +%s)

log() { echo "check: $*"; }

# count FILE: add the TAP results of FILE to the totals and echo them.
# Results nested by the kselftest runner ("# ok 3 ...") count one by one;
# the passing summary line of a whole selftest binary ("ok 1 selftests:
# ...") does not count again, a failing one does. The same for the C
# qtests: each check is a nested "# ok N - ..." line, glib's own line of
# a passing test case ("ok 1 /x86_64/wddmseg/...") does not count again.
count() {
	local res p f s
	res=$(grep -E '^(# )*(not )?ok [0-9]+' "$1" |
		grep -Ev '^ok [0-9]+ (selftests: |/x86_64/wddmseg/)')
	p=$(grep -Ec '^(# )*ok [0-9]+' <<<"$res")
	s=$(grep -Eci '^(# )*ok [0-9]+.*# *skip' <<<"$res")
	f=$(grep -Ec '^(# )*not ok [0-9]+' <<<"$res")
	pass=$((pass + p - s))
	skip=$((skip + s))
	fail=$((fail + f))
	[ -z "$res" ] || sed "s|^|[$(basename "$1" .tap)] |" <<<"$res"
}

# stage NAME COMMAND...: run a build step; a failure is one failed test.
stage() {
	local name=$1
	shift
	log "$name"
	if "$@" >"$OUT/$name.log" 2>&1; then
		echo "ok 1 - $name" >"$OUT/$name.tap"
	else
		echo "not ok 1 - $name (see $OUT/$name.log)" >"$OUT/$name.tap"
		tail -n 30 "$OUT/$name.log" | sed 's/^/# /'
	fi
	count "$OUT/$name.tap"
}

summary() {
	log "done in $(( $(date +%s) - t0 ))s"
	if [ "$skip" -gt 0 ]; then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[ "$fail" -eq 0 ]
	exit $?
}

stage deps bash tools/vm/deps.sh
grep -q '^ok' "$OUT/deps.tap" || summary
stage build-module make -s module
stage build-qemu bash tools/qemu/build.sh "$BUILD"
stage build-tools make -s tools
stage build-selftests make -s tests
stage build-guest bash -c 'bash tools/vm/kernel.sh && bash tools/vm/initramfs.sh'

# Host-side static checks: checkpatch, kernel-doc, W=1.
log "lint"
bash tools/lint/check.sh "$BUILD" >"$OUT/lint.tap" 2>&1
count "$OUT/lint.tap"

# The selftests' layout-string parser, on the host.
log "host-check"
make -s -C tools/testing/selftests/drivers/gpu/wddmseg \
	OUTPUT="$BUILD/selftests" host-check >"$OUT/host-check.log" 2>&1
st=$?
tail -n 1 "$OUT/host-check.log" | grep -Eq '^[0-9]+ passed, 0 failed$' || st=1
if [ $st -eq 0 ]; then
	echo "ok 1 - selftest layout parser host check: $(tail -n 1 "$OUT/host-check.log")"
else
	echo "not ok 1 - selftest layout parser host check (see $OUT/host-check.log)"
fi >"$OUT/host-check.tap"
count "$OUT/host-check.tap"

# The device model alone: the C qtests of tools/qemu/tests/ (libqtest and
# libqos, built in QEMU's tree by tools/qemu/build.sh), glib's TAP output
# with one nested "# ok N - ..." line per check. A program that exits
# non-zero (a failed check, a crash, a bail-out) is one more failure.
log "qtest"
: >"$OUT/qtest.tap"
qtests=("$BUILD"/qemu/tests/wddmseg-*-test)
if [ ! -x "${qtests[0]}" ]; then
	echo "not ok 1 - C qtests: none built in $BUILD/qemu/tests" >>"$OUT/qtest.tap"
fi
for t in "${qtests[@]}"; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	QTEST_QEMU_BINARY=$BUILD/qemu/qemu-system-x86_64 timeout 1200 \
		"$t" --tap -k >"$OUT/$name.tap" 2>"$OUT/$name.log"
	rc=$?
	cat "$OUT/$name.tap" >>"$OUT/qtest.tap"
	if [ $rc -ne 0 ]; then
		echo "not ok 1 - $name exited with status $rc (see $OUT/$name.log)"
		tail -n 20 "$OUT/$name.log" | sed 's/^/#| /'
	fi >>"$OUT/qtest.tap"
done
count "$OUT/qtest.tap"

# Valid layouts: one boot, one device per layout; the kselftests compare
# what the driver reports with the tables the devices were given.
log "vm: valid layouts + kselftests"
expect=$OUT/expect
devs=()
: >"$expect"
while IFS='|' read -r slot vram bar props layout; do
	case "$slot" in ''|'#'*) continue ;; esac
	dev="wddmseg,addr=$slot"
	for p in ${props//,/ }; do
		if [ "$p" = layout ]; then
			dev="$dev,layout=$layout"
		else
			dev="$dev,$p"
		fi
	done
	devs+=(-device "$dev")
	printf '0000:00:%02x.0 vram=%s bar2=%s layout=%s\n' "$slot" "$vram" \
		"$bar" "$layout" >>"$expect"
done <tools/vm/valid-layouts.txt
bash tools/vm/run-vm.sh --no-build --name check --mode check \
	--expect "$expect" --timeout 600 -- "${devs[@]}" >"$OUT/vm-check.log" 2>&1
rc=$?
cp "$BUILD/vm/check.tap" "$OUT/kselftest.tap" 2>/dev/null || : >"$OUT/kselftest.tap"
{
	if [ $rc -eq 0 ]; then
		echo "ok 1 - vm check boot: finished, guest log clean"
	else
		echo "not ok 1 - vm check boot: run-vm.sh exit $rc (see $OUT/vm-check.log)"
		sed 's/^/# /' "$OUT/vm-check.log"
	fi
} >"$OUT/vm-check.tap"
count "$OUT/kselftest.tap"
count "$OUT/vm-check.tap"

# Invalid layouts: every validation rule refused with its name in dmesg.
log "vm: invalid layouts"
bash tools/vm/check-layouts.sh >"$OUT/layouts.tap" 2>&1
count "$OUT/layouts.tap"

# IoMmuSecureModeRequired behind QEMU's intel-iommu: accepted, reported as
# honoured, DMA through the IOMMU (tools/vm/iommu-check.sh).
log "vm: vIOMMU"
bash tools/vm/iommu-check.sh >"$OUT/iommu.tap" 2>&1
count "$OUT/iommu.tap"

# The RGB565 expansion screendump.py expects (QEMU's screendump converts
# an r5g6b5 display surface with pixman) against pixman itself.
log "host: RGB565 screendump expansion"
if gcc -O2 -Wall -o "$OUT/pixman-rgb565" tools/vm/pixman-rgb565.c \
	$(pkg-config --cflags --libs pixman-1) >"$OUT/pixman.log" 2>&1 &&
   "$OUT/pixman-rgb565" >"$OUT/pixman-rgb565.txt" &&
   python3 tools/vm/screendump.py rgb565-table >"$OUT/screendump-rgb565.txt" &&
   cmp "$OUT/pixman-rgb565.txt" "$OUT/screendump-rgb565.txt" >>"$OUT/pixman.log" 2>&1; then
	echo "ok 1 - screendump.py expands RGB565 to 24-bit RGB as pixman does, all 65536 values"
else
	echo "not ok 1 - screendump.py's RGB565 expansion differs from pixman's (see $OUT/pixman.log)"
fi >"$OUT/rgb565.tap"
count "$OUT/rgb565.tap"

# KMS: libdrm's modetest lists and sets modes, and the pattern the guest
# shows (wddmseg-pattern: XRGB8888 and RGB565, page flip, padded pitch)
# equals, pixel for pixel, the QEMU screendump taken over QMP
# (tools/vm/kms-check.sh). Debian's bochs driver on QEMU's bochs-display
# in the same boot is the control: the harness must pass on it. The
# wddmseg results SKIP while the driver exposes no KMS connector.
log "vm: kms (modetest, screendump comparison)"
bash tools/vm/kms-check.sh --name kms --out "$BUILD/kms" \
	--cards "wddmseg:gpu0:XR24,RG16 bochs-drm:bochs0:XR24" \
	--modules "wddmseg bochs" -- \
	-device wddmseg,addr=0x4,id=gpu0 \
	-device bochs-display,addr=0x5,vgamem=16M,id=bochs0 \
	>"$OUT/kms.tap" 2>&1
count "$OUT/kms.tap"

# The WDDM fidelity table of the rst: every flag, capability and paging
# operation has a row, every implemented or refused one a test that passed
# above, every other one a reason (tools/lint/fidelity.py).
log "fidelity table"
python3 tools/lint/fidelity.py Documentation/gpu/wddmseg.rst \
	drivers/gpu/drm/wddmseg/wddmseg_hw.h include/uapi/drm/wddmseg_drm.h \
	"$OUT" >"$OUT/fidelity.tap.tmp" 2>&1
mv "$OUT/fidelity.tap.tmp" "$OUT/fidelity.tap"
count "$OUT/fidelity.tap"

summary
