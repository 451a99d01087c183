#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make check`: build everything and run every test, host and VM, on every
# supported kernel.
#
# Usage: tools/check.sh [KERNEL...]
#   KERNEL: a series (6.12, 6.1) or a Debian ABI; default every supported
#   kernel (tools/vm/kabi.sh --all). `make check KABI=6.1`
#   passes one.
#
# Once: the Debian packages, QEMU with the device, the libdrm tools, the
# kselftests (standalone, and in-tree in Linux 6.12's and 7.3's trees), the
# host checks (selftest layout parser, fidelity.py's self-test, qtest of
# the device model, its patch series for QEMU 10.0, RGB565 screendump
# expansion), make install/uninstall
# with a program built through pkg-config (tools/install/check.sh) and the
# module built and installed by dkms for the Debian headers of 6.12 and 6.1
# (tools/dkms/check.sh); the QEMU patch series, make install and dkms in
# the background. Then for each
# kernel, packaged ones first (a kernel built from source builds in the
# background until its turn), in build/ABI/
# (see tools/vm/kenv.sh): the module, the guest kernel and initramfs, the
# lint (that kernel's checkpatch and kernel-doc, W=1), the
# VM boots (valid layouts + kselftests, invalid layouts, the vIOMMU boot,
# S3 and hibernation cycles, memory pressure, KMS screendumps). Last, over
# the results of every kernel, the WDDM fidelity table.
# Each stage prints TAP lines; the summary counts them per kernel and in
# total and ends with "N passed, N failed" (", N skipped" if any), then
# ", N boot retries": every boot run-vm.sh booted again after a failed
# one of the same name (tools/vm/boots.sh), each also named in a
# "# boot retried: ..." line.
# Each "check:" line starts with the seconds since the start.
# Exit status is non-zero on any failure. Logs and TAP files are in
# build/check/ (shared stages) and build/ABI/check/ (each kernel's).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$REPO/build
OUT=$BUILD/check
cd "$REPO"
. tools/vm/layouts.sh
rm -rf "$OUT"
mkdir -p "$OUT"

pass=0 fail=0 skip=0 retries=0
t0=$(date +%s)
KERNEL_LINES=()
KOUTS=()
# Every failed check, "[TAG/stage] not ok ...": the summary repeats them, so
# that the last lines of a long log (all a CI report may keep) name them.
FAILED=()
# Every retried boot, "[TAG/boots] # boot retried: ...", also repeated.
RETRIED=()

# every line with the time since the start: the log is the timeline
log() { echo "check: [+$(( $(date +%s) - t0 ))s] $*"; }

# count FILE [TAG]: add the TAP results of FILE to the totals and echo them,
# each prefixed with [TAG/name] (TAG: the kernel series, if any).
# Results nested by the kselftest runner ("# ok 3 ...") count one by one;
# the passing summary line of a whole selftest binary ("ok 1 selftests:
# ...") does not count again, a failing one does. The same for the C
# qtests: each check is a nested "# ok N - ..." line, glib's own line of
# a passing test case ("ok 1 /x86_64/wddmseg/...") does not count again.
count() {
	local res p f s pfx
	pfx="[${2:+$2/}$(basename "$1" .tap)] "
	res=$(grep -E '^(# )*(not )?ok [0-9]+' "$1" |
		grep -Ev '^ok [0-9]+ (selftests: |/x86_64/wddmseg/)')
	p=$(grep -Ec '^(# )*ok [0-9]+' <<<"$res")
	s=$(grep -Eci '^(# )*ok [0-9]+.*# *skip' <<<"$res")
	f=$(grep -Ec '^(# )*not ok [0-9]+' <<<"$res")
	pass=$((pass + p - s))
	skip=$((skip + s))
	fail=$((fail + f))
	[ -z "$res" ] || sed "s|^|$pfx|" <<<"$res"
	[ "$f" -eq 0 ] || mapfile -t -O ${#FAILED[@]} FAILED < <(
		grep -E '^(# )*not ok [0-9]+' <<<"$res" | cut -c 1-200 |
		sed "s|^|$pfx|")
	# the comment lines after each top-level failure, for the summary
	[ "$f" -eq 0 ] || awk -v pfx="$pfx" '
		/^not ok [0-9]+/ { n = 0; keep = 1; next }
		/^(ok|not ok) [0-9]+/ { keep = 0 }
		keep && /^#/ && n < 70 { print pfx substr($0, 1, 200); n++ }
	' "$1" >>"$OUT/failure-details.txt"
	# retried boots (tools/vm/boots.sh): shown and counted, not results
	res=$(grep -E '^# boot retried: ' "$1")
	[ -n "$res" ] || return 0
	retries=$((retries + $(wc -l <<<"$res")))
	sed "s|^|$pfx|" <<<"$res"
	mapfile -t -O ${#RETRIED[@]} RETRIED < <(cut -c 1-200 <<<"$res" | sed "s|^|$pfx|")
}

# stage DIR TAG NAME COMMAND...: run a build step, logs in DIR; a failure
# is one failed test.
stage() {
	local dir=$1 tag=$2 name=$3
	shift 3
	log "${tag:+$tag: }$name"
	if "$@" >"$dir/$name.log" 2>&1; then
		echo "ok 1 - $name" >"$dir/$name.tap"
	else
		echo "not ok 1 - $name (see $dir/$name.log)" >"$dir/$name.tap"
		tail -n 30 "$dir/$name.log" | sed 's/^/# /'
	fi
	count "$dir/$name.tap" "$tag"
}

# totals PASS FAIL SKIP RETRIES: "N passed, N failed" first (.ci and
# readers look for it), then the skipped tests if any, then the boots
# booted again, always (none is news too)
totals() {
	local t="$1 passed, $2 failed"
	[ "$3" -eq 0 ] || t="$t, $3 skipped"
	echo "$t, $4 boot retries"
}

summary() {
	local l
	log "done in $(( $(date +%s) - t0 ))s"
	# what the failed checks printed after their result line (the
	# console's last lines of a VM that hung, for one)
	if [ -s "$OUT/failure-details.txt" ]; then
		log "details of the failures:"
		head -n 300 "$OUT/failure-details.txt"
	fi
	for l in ${FAILED[@]+"${FAILED[@]}"}; do
		log "FAILED $l"
	done
	for l in ${RETRIED[@]+"${RETRIED[@]}"}; do
		log "RETRIED $l"
	done
	for l in ${KERNEL_LINES[@]+"${KERNEL_LINES[@]}"}; do
		log "$l"
	done
	totals $pass $fail $skip $retries
	[ "$fail" -eq 0 ]
	exit $?
}

# --- once ---------------------------------------------------------------------
stage "$OUT" "" deps bash tools/vm/deps.sh
grep -q '^ok' "$OUT/deps.tap" || summary

KERNELS=()
if [ $# -gt 0 ]; then
	for k in "$@"; do
		a=$(bash tools/vm/kabi.sh "$k") || { echo "check: unknown kernel '$k'"; exit 2; }
		KERNELS+=("$a")
	done
else
	mapfile -t KERNELS < <(bash tools/vm/kabi.sh --all)
fi
[ ${#KERNELS[@]} -gt 0 ] || { echo "check: no kernel to check (tools/vm/kabi.sh --all)"; exit 2; }

# from_source ABI: the kernel is built from Debian's linux-source (7.3).
from_source() {
	bash tools/vm/kabi.sh --source-pkg "$(bash tools/vm/kabi.sh --series "$1")" >/dev/null 2>&1
}

# The kernels are checked packaged ones first, those built from source
# last: their build (7.3: about 10 minutes of both CPUs) runs in the
# background meanwhile, at the lowest CPU priority (nice 19), through the
# QEMU build, the host stages and the boots of the packaged kernels. A
# boot keeps one CPU busy, not two, and waits through its S3 and
# hibernation cycles, so the build takes what they leave and rarely
# delays them. That kernel's build-kernel stage below then finds it built
# (tools/vm/kernel-src.sh: its lock and stamp) or finishes it; it is the
# stage that reports. Its log: build/check/prebuild-ABI.log.
ORDER=()
SOURCE_BUILT=()
PREBUILD=()
for k in "${KERNELS[@]}"; do
	if from_source "$k"; then SOURCE_BUILT+=("$k"); else ORDER+=("$k"); fi
done
for k in ${SOURCE_BUILT[@]+"${SOURCE_BUILT[@]}"}; do
	ORDER+=("$k")
	(
		export KABI=$k WDDMSEG_KABI=$k
		unset WDDMSEG_KBUILD WDDMSEG_KSERIES
		exec nice -n 19 bash tools/vm/kernel.sh
	) >"$OUT/prebuild-$k.log" 2>&1 &
	PREBUILD+=($!)
done
KERNELS=("${ORDER[@]}")
log "kernels: ${KERNELS[*]}${PREBUILD[*]:+ (the last built in the background)}"

stage "$OUT" "" build-qemu bash tools/qemu/build.sh "$BUILD"
stage "$OUT" "" build-tools make -s tools
stage "$OUT" "" build-selftests make -s tests

# The selftests' layout-string parser, on the host.
log "host-check"
make -s -C tools/testing/selftests/drivers/gpu/wddmseg \
	OUTPUT="$OUT" host-check >"$OUT/host-check.log" 2>&1
st=$?
tail -n 1 "$OUT/host-check.log" | grep -Eq '^[0-9]+ passed, 0 failed$' || st=1
if [ $st -eq 0 ]; then
	echo "ok 1 - selftest layout parser host check: $(tail -n 1 "$OUT/host-check.log")"
else
	echo "not ok 1 - selftest layout parser host check (see $OUT/host-check.log)"
fi >"$OUT/host-check.tap"
count "$OUT/host-check.tap"

# The fidelity checker's own tests: fixture tables and fake TAP results
# it must accept or refuse (tools/lint/tests/run.sh).
log "fidelity.py self-test"
bash tools/lint/tests/run.sh >"$OUT/fidelity-selftest.tap" 2>&1 ||
	grep -q '^not ok' "$OUT/fidelity-selftest.tap" ||
	echo "not ok 1 - fidelity.py self-test: tools/lint/tests/run.sh failed (see $OUT/fidelity-selftest.tap)" >>"$OUT/fidelity-selftest.tap"
count "$OUT/fidelity-selftest.tap"

# The kselftests as kernel CI builds them: inside Linux 6.12's and 7.3's
# trees (Debian's linux-source of each), with each tree's own
# kselftest_harness.h, then kselftest-install (tools/vm/ksft-tree.sh). Each
# guest kernel's boots run the install of its own series the same way
# (tools/vm/initramfs.sh). Only the selftests directory is built, no
# kernel.
for s in 6.12 7.3; do
	log "kselftests in the Linux $s tree"
	inst=$BUILD/ksft/install-$s
	klog=$OUT/ksft-tree-$s.log
	{
		if bash tools/vm/ksft-tree.sh "$s" --rebuild --install "$inst" >"$klog" 2>&1; then
			echo "ok 1 - kselftests: make -C tools/testing/selftests TARGETS=drivers/gpu/wddmseg in the Linux $s tree, and its install"
			# every program compiled again (--rebuild)
			w=$(grep -c 'warning:' "$klog")
			n=$(grep -Ec '^ +CC +wddmseg_[a-z]+$|gcc .*wddmseg_[a-z]+\.c' "$klog")
			if [ "$w" -eq 0 ] && [ "$n" -gt 0 ]; then
				echo "ok 2 - kselftests: no compiler warning with Linux $s's kselftest_harness.h ($n compiler runs)"
			else
				echo "not ok 2 - kselftests: $w compiler warnings in $n compiler runs with Linux $s's kselftest_harness.h (see $klog)"
			fi
			list=$(grep -c '^drivers/gpu/wddmseg:wddmseg_' "$inst/kselftest-list.txt")
			if [ "$list" -gt 0 ] && [ -x "$inst/drivers/gpu/wddmseg/wddmseg_pm" ] &&
			   ! grep -q ':wddmseg_pm$' "$inst/kselftest-list.txt" &&
			   [ -f "$inst/drivers/gpu/wddmseg/settings" ]; then
				echo "ok 3 - kselftest-install of Linux $s: $list tests in kselftest-list.txt, wddmseg_pm installed but not listed, settings"
			else
				echo "not ok 3 - kselftest-install of Linux $s: kselftest-list.txt has $list wddmseg tests, or wddmseg_pm is listed or missing, or no settings (see $inst)"
			fi
		else
			echo "not ok 1 - kselftests in the Linux $s tree (see $klog)"
			tail -n 30 "$klog" | sed 's/^/# /'
		fi
	} >"$OUT/ksft-tree-$s.tap"
	count "$OUT/ksft-tree-$s.tap"
done

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

# Three host stages that no boot needs run in the background, at the
# lowest CPU priority, beside the boots (see the kernels built from
# source above); their results are counted after the last kernel's.
# - The device model as a patch series for QEMU 10.0 (make qemu-patch):
#   applied with git am to a fresh tree of the source package, its files
#   those of the tree built above, the device and qtests compiled there.
# - make install into a DESTDIR and a PREFIX, every installed file, a
#   program built with pkg-config's flags, make uninstall
#   (tools/install/check.sh).
# - The module through Debian's dkms (dkms.conf of make dkms-source) for
#   the installed Debian headers of 6.12 and 6.1, in dkms trees of its own
#   under build/check/dkms: each build the same driver as make module's,
#   vermagic of its kernel, installed and removed again
#   (tools/dkms/check.sh).
log "in the background: qemu-patch; install: make install, pkg-config, make uninstall; dkms: build and install for the Debian headers of 6.12 and 6.1"
(
	renice -n 19 -p $BASHPID >/dev/null
	bash tools/qemu/patch.sh --verify "$BUILD" >"$OUT/qemu-patch.tap" 2>"$OUT/qemu-patch.log" ||
		grep -q '^not ok' "$OUT/qemu-patch.tap" ||
		echo "not ok 1 - qemu-patch: tools/qemu/patch.sh failed (see $OUT/qemu-patch.log)" >>"$OUT/qemu-patch.tap"
	bash tools/install/check.sh "$OUT/install" >"$OUT/install.tap" 2>&1
	bash tools/dkms/check.sh -o "$OUT/dkms" 6.12 6.1 >"$OUT/dkms.tap" 2>&1
) &
HOST_BG=$!

# --- per kernel ---------------------------------------------------------------
# check_kernel ABI: everything that depends on the kernel, in build/ABI/.
check_kernel() {
	local k=$1 tag kout expect rc
	export KABI=$k WDDMSEG_KABI=$k
	unset WDDMSEG_KBUILD WDDMSEG_KSERIES
	. tools/vm/kenv.sh || return 1
	tag=$WDDMSEG_KSERIES
	kout=$WDDMSEG_KBUILD/check
	rm -rf "$kout"
	mkdir -p "$kout"
	KOUTS+=("$kout")
	# every boot of this kernel's stages (run-vm.sh), for the retries
	export WDDMSEG_BOOT_LOG=$kout/boots.log

	# The guest kernel first: a kernel built from source (7.3,
	# tools/vm/kernel-src.sh) is also what the module builds against.
	stage "$kout" "$tag" build-kernel bash tools/vm/kernel.sh
	# The module is built once, clean and with W=1: the lint below
	# counts that build's warnings instead of building it again.
	stage "$kout" "$tag" build-module make -s module-w1 KABI="$k"
	stage "$kout" "$tag" build-guest bash tools/vm/initramfs.sh

	# Host-side static checks: checkpatch, kernel-doc, W=1.
	log "$tag: lint"
	WDDMSEG_W1_LOG=$kout/build-module.log bash tools/lint/check.sh \
		>"$kout/lint.tap" 2>&1
	count "$kout/lint.tap" "$tag"

	# Valid layouts: one boot, one device per layout; the kselftests
	# compare what the driver reports with the tables the devices were
	# given, then, on the last kernel only (the newest: the one kernel
	# CI runs them on), once more without them, as kernel CI runs them
	# (tools/vm/guest/init, wddmseg_vm.ksft_runs). A run takes about
	# 90 s on an idle host; the limit leaves room for a loaded one.
	log "$tag: vm: valid layouts + kselftests"
	expect=$kout/expect
	if ! layouts_valid tools/vm/valid-layouts.txt "$expect" 2>"$kout/layouts-valid.log"; then
		echo "not ok 1 - tools/vm/valid-layouts.txt: $(head -n 1 "$kout/layouts-valid.log")" \
			>"$kout/vm-check.tap"
		count "$kout/vm-check.tap" "$tag"
		return 1
	fi
	runs=1
	[ "$k" != "${KERNELS[-1]}" ] || runs=2
	bash tools/vm/run-vm.sh --no-build --name check --mode check \
		--expect "$expect" --timeout 1200 \
		--append "wddmseg_vm.ksft_runs=$runs" -- "${LAYOUT_DEVS[@]}" \
		>"$kout/vm-check.log" 2>&1
	rc=$?
	cp "$WDDMSEG_KBUILD/vm/check.tap" "$kout/kselftest.tap" 2>/dev/null ||
		: >"$kout/kselftest.tap"
	{
		if [ $rc -eq 0 ]; then
			echo "ok 1 - vm check boot ($k): finished, guest log clean"
		else
			echo "not ok 1 - vm check boot ($k): run-vm.sh exit $rc (see $kout/vm-check.log)"
			sed 's/^/# /' "$kout/vm-check.log"
		fi
	} >"$kout/vm-check.tap"
	count "$kout/kselftest.tap" "$tag"
	count "$kout/vm-check.tap" "$tag"

	# KUnit: on a kernel with CONFIG_KUNIT (7.3, built from source) the
	# module carries the driver's KUnit suites (tools/vm/module.sh), which
	# ran at its first load in that boot, between the guest's "kunit:
	# begin" and "kunit: end" markers; one TAP line per case
	# (tools/debug/ktap.sh). No case at all is a failure.
	if grep -qx 'CONFIG_KUNIT=y' "$WDDMSEG_KBUILD/kernel/config" 2>/dev/null; then
		log "$tag: kunit (KTAP of the check boot)"
		bash tools/debug/ktap.sh "$WDDMSEG_KBUILD/vm/check.console.log" \
			>"$kout/kunit.out" 2>&1
		grep -v '^kunit: ' "$kout/kunit.out" |
			awk '/^(not )?ok - /{ n++; sub(/ - /, " " n " - ") } { print }' \
			>"$kout/kunit.tap"
		[ -s "$kout/kunit.tap" ] ||
			echo "not ok 1 - KUnit: no KTAP between the markers (see $WDDMSEG_KBUILD/vm/check.console.log)" \
				>"$kout/kunit.tap"
		count "$kout/kunit.tap" "$tag"
	fi

	# Invalid layouts: every validation rule refused with its name in
	# dmesg.
	log "$tag: vm: invalid layouts"
	bash tools/vm/check-layouts.sh --no-build >"$kout/layouts.tap" 2>&1
	count "$kout/layouts.tap" "$tag"

	# IoMmuSecureModeRequired behind QEMU's intel-iommu: accepted,
	# reported as honoured, DMA through the IOMMU
	# (tools/vm/iommu-check.sh).
	log "$tag: vm: vIOMMU"
	bash tools/vm/iommu-check.sh >"$kout/iommu.tap" 2>&1
	count "$kout/iommu.tap" "$tag"

	# Power: three devices whose segments preserve different things
	# across S3, 20 real suspend-to-RAM cycles of the guest, content
	# checked after each (tools/vm/pm-check.sh).
	log "$tag: vm: pm (S3 cycles)"
	bash tools/vm/pm-check.sh >"$kout/pm.tap" 2>&1
	count "$kout/pm.tap" "$tag"
	# Hibernation: 5 cycles of an image written to a virtio swap disk and
	# restored by a second QEMU process, then one whose VRAM store the
	# host removes in between (tools/vm/pm-hibernate.sh).
	log "$tag: vm: pm (hibernation, 5 cycles + 1 with a lost store)"
	bash tools/vm/pm-hibernate.sh 5 >"$kout/hibernate.tap" 2>&1
	count "$kout/hibernate.tap" "$tag"
	# A suspend under memory pressure: refused when the copy cannot fit,
	# done when nothing must be copied (tools/vm/pm-pressure.sh).
	log "$tag: vm: pm (memory pressure)"
	bash tools/vm/pm-pressure.sh >"$kout/pressure.tap" 2>&1
	count "$kout/pressure.tap" "$tag"
	# The display across S3: a held pattern, screendumps compared pixel
	# by pixel before and after (tools/vm/pm-display.sh).
	log "$tag: vm: pm (display across S3, screendumps)"
	bash tools/vm/pm-display.sh >"$kout/pm-display.tap" 2>&1
	count "$kout/pm-display.tap" "$tag"

	# KMS: libdrm's modetest lists and sets modes, and the pattern the
	# guest shows (wddmseg-pattern: XRGB8888 and RGB565, page flip, padded
	# pitch) equals, pixel for pixel, the QEMU screendump taken over QMP
	# (tools/vm/kms-check.sh). Debian's bochs driver on QEMU's
	# bochs-display in the same boot is the control: the harness must pass
	# on it. The wddmseg results SKIP while the driver exposes no KMS
	# connector.
	log "$tag: vm: kms (modetest, screendump comparison)"
	bash tools/vm/kms-check.sh --name kms \
		--cards "wddmseg:gpu0:XR24,RG16 bochs-drm:bochs0:XR24" \
		--modules "wddmseg bochs" -- \
		-device wddmseg,addr=0x4,id=gpu0 \
		-device bochs-display,addr=0x5,vgamem=16M,id=bochs0 \
		>"$kout/kms.tap" 2>&1
	count "$kout/kms.tap" "$tag"

	# The boots of this kernel booted again after a failure, wherever
	# the loop is (tools/vm/boots.sh reads run-vm.sh's ledger).
	log "$tag: $(bash tools/vm/boots.sh "$WDDMSEG_BOOT_LOG" | tee "$kout/boots.tap" | tail -n 1 | sed 's/^# //')"
	count "$kout/boots.tap" "$tag"
	unset WDDMSEG_BOOT_LOG
}

for k in "${KERNELS[@]}"; do
	kt=$(date +%s)
	p0=$pass f0=$fail s0=$skip r0=$retries
	check_kernel "$k"
	KERNEL_LINES+=("Linux $k: $(totals $((pass - p0)) $((fail - f0)) $((skip - s0)) $((retries - r0))) in $(( $(date +%s) - kt ))s")
done
unset KABI WDDMSEG_KABI WDDMSEG_KBUILD WDDMSEG_KSERIES

log "the background host stages: qemu-patch, install, dkms"
wait "$HOST_BG"
# the kernels' own build-kernel stages waited for these already
[ ${#PREBUILD[@]} -eq 0 ] || wait "${PREBUILD[@]}"
for t in qemu-patch install dkms; do
	[ -s "$OUT/$t.tap" ] ||
		echo "not ok 1 - $t: no result (see $OUT/$t.log)" >"$OUT/$t.tap"
	count "$OUT/$t.tap"
done

# The WDDM fidelity table of the rst, once, after every test of every
# kernel: each item of the five WDDM pages (tools/lint/wddm-items.txt)
# has exactly one row; each proof names a test case that ran in this run
# and passed on every kernel where it ran (the TAP files of build/check
# and of each kernel's check directory of this run); every other row a
# reason (tools/lint/fidelity.py). One call over all kernels, because a
# case may run on some kernels only (KUnit: kernels with CONFIG_KUNIT).
log "fidelity table"
kargs=()
for k in ${KOUTS[@]+"${KOUTS[@]}"}; do
	kargs+=(--kernel "$k")
done
python3 tools/lint/fidelity.py --rst Documentation/gpu/wddmseg.rst \
	--items tools/lint/wddm-items.txt \
	--header drivers/gpu/drm/wddmseg/wddmseg_hw.h \
	--header include/uapi/drm/wddmseg_drm.h \
	--shared "$OUT" ${kargs[@]+"${kargs[@]}"} \
	>"$OUT/fidelity.tap.tmp" 2>&1
mv "$OUT/fidelity.tap.tmp" "$OUT/fidelity.tap"
count "$OUT/fidelity.tap"

summary
