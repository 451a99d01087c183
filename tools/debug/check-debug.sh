#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make check-debug`: the debug-kernel test tier.
#
#   1. builds what the VM needs (QEMU with the device, the kselftests) and
#      the debug kernel (tools/debug/kernel.sh: Debian's linux-source-7.3
#      with wddmseg in-tree as a module; tinyconfig + tools/debug/debug.config:
#      KASAN, lockdep, kmemleak, debugobjects, DMA-API debug, UBSAN, KUnit);
#   2. boots it once (tools/vm/run-vm.sh --mode debug) with one wddmseg
#      device per valid layout (tools/vm/valid-layouts.txt, as make check)
#      and two whose probe fails (the first adapter-rule and the first
#      segment-rule case of tools/vm/layouts.txt), so that the probe error
#      path runs at every load too; --all-layouts adds every case of
#      layouts.txt (slower; tools/vm/check-layouts.sh checks their rules
#      under the Debian kernel), --no-layouts none.
#      The guest (tools/vm/guest/init, mode debug)
#        - loads the driver: its KUnit suites run and print KTAP to the
#          kernel log;
#        - runs the kselftests, unloads and reloads the driver;
#        - reloads it with its fbdev console and draws to it (the damage
#          worker's vmap under the reservation);
#        - unloads and reloads it --cycles times (default 20), unloads it;
#        - scans for leaks with kmemleak; checks the taint flags;
#   3. runs the KUnit suites once more the way kernel CI does: kunit.py
#      with the driver's .kunitconfig, --arch=x86_64 (tools/debug/kunit.sh);
#   4. boots it once more for suspend-to-RAM: tools/vm/pm-check.sh with
#      --pm-cycles S3 cycles (default 20, as make check; 0 skips it) and
#      its pm.vpr case, the log scanned by tools/debug/scan-log.sh; then
#      hibernates it: tools/vm/pm-hibernate.sh with --hib-cycles cycles
#      (default 5, as make check; 0 skips it) and its cycle whose
#      vram-file is removed, each a pair of boots, both logs scanned;
#   5. counts: each KUnit case (tools/debug/ktap.sh), each kselftest case,
#      the debug checks; every rule of Documentation/gpu/wddmseg.rst must
#      have a KUnit case; the console log must hold no KASAN, lockdep,
#      UBSAN, debugobjects, DMA-API, kmemleak, hung-task report, no WARN
#      (the guest runs with panic_on_warn=1, oops=panic) and no BUG.
#
# Usage: tools/debug/check-debug.sh [--cycles N] [--no-layouts|--all-layouts]
#                                   [--timeout SECS] [--mem SIZE]
#                                   [--pm-cycles N] [--hib-cycles N]
#
# Environment: QEMU=path uses that QEMU (with the wddmseg device) instead
# of building build/qemu/qemu-system-x86_64.
#
# Output: TAP-ish lines, then
#   check-debug: kunit N passed N failed; kunit.py N passed N failed;
#   kselftest N passed N failed; boots: N, retried: N
#   N passed, N failed, N boot retries
# (", N skipped" before the retries when some were; every retried boot is
# also named, "[boots] # boot retried: NAME: ...", tools/vm/boots.sh).
# Exit status non-zero on any failure. Logs in build/check-debug/, the
# VM's files in build/debug/vm/.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$REPO/build
OUT=$BUILD/check-debug
KDIR=$BUILD/debug/kernel
VMDIR=$BUILD/debug/vm
CYCLES=20 LAYOUTS=1 TIMEOUT=1800 MEM=1G PMCYCLES=20 HIBCYCLES=5
# Each kselftest program's limit in the guest: a guard against a hang,
# not a measure. Under KASAN on a busy 2-core host the leak test's 20
# reloads alone took more than make check's 300 s.
TEST_TIMEOUT=900

while [ $# -gt 0 ]; do
	case "$1" in
	--cycles) CYCLES=${2:?}; shift 2 ;;
	--no-layouts) LAYOUTS=0; shift ;;
	--all-layouts) LAYOUTS=all; shift ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--pm-cycles) PMCYCLES=${2:?}; shift 2 ;;
	--hib-cycles) HIBCYCLES=${2:?}; shift 2 ;;
	-h|--help) sed -n '/^# Usage:/,/^# VM.s files/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "check-debug: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case "$CYCLES" in ''|*[!0-9]*) echo "check-debug: bad --cycles" >&2; exit 2 ;; esac
case "$PMCYCLES" in ''|*[!0-9]*) echo "check-debug: bad --pm-cycles" >&2; exit 2 ;; esac
case "$HIBCYCLES" in ''|*[!0-9]*) echo "check-debug: bad --hib-cycles" >&2; exit 2 ;; esac

cd "$REPO" || exit 2
rm -rf "$OUT"
mkdir -p "$OUT" "$VMDIR"
# every boot (run-vm.sh), for the retried ones in the summary
export WDDMSEG_BOOT_LOG=$OUT/boots.log

pass=0 fail=0 skip=0
kunit_pass=0 kunit_fail=0 kunit_skip=0 ksft_pass=0 ksft_fail=0 ksft_skip=0
kpy_pass=0 kpy_fail=0 kpy_skip=0
t0=$(date +%s)

log() { echo "check-debug: $*"; }

# count FILE [CATEGORY]: add the TAP results of FILE to the totals (and to
# CATEGORY's: kunit or kselftest) and print them, as tools/check.sh does.
count() {
	local file=$1 cat=${2:-} res p f s
	res=$(grep -E '^(# )*(not )?ok( [0-9]+)? ' "$file" |
		grep -Ev '^ok [0-9]+ selftests: ')
	p=$(grep -Ec '^(# )*ok( [0-9]+)? ' <<<"$res")
	s=$(grep -Eci '^(# )*ok( [0-9]+)? .*# *skip' <<<"$res")
	f=$(grep -Ec '^(# )*not ok( [0-9]+)? ' <<<"$res")
	pass=$((pass + p - s))
	skip=$((skip + s))
	fail=$((fail + f))
	case "$cat" in
	kunit)
		kunit_pass=$((kunit_pass + p - s)) kunit_fail=$((kunit_fail + f))
		kunit_skip=$((kunit_skip + s)) ;;
	kselftest)
		ksft_pass=$((ksft_pass + p - s)) ksft_fail=$((ksft_fail + f))
		ksft_skip=$((ksft_skip + s)) ;;
	kunit.py)
		kpy_pass=$((kpy_pass + p - s)) kpy_fail=$((kpy_fail + f))
		kpy_skip=$((kpy_skip + s)) ;;
	esac
	[ -z "$res" ] || sed "s|^|[$(basename "$file" .tap)] |" <<<"$res"
}

# stage NAME COMMAND...: run a build step; a failure is one failed test.
stage() {
	local name=$1 st t
	shift
	log "$name"
	t=$(date +%s)
	"$@" >"$OUT/$name.log" 2>&1
	st=$?
	t=$(( $(date +%s) - t ))
	if [ $st -eq 0 ]; then
		echo "ok 1 - $name (${t}s)" >"$OUT/$name.tap"
	else
		echo "not ok 1 - $name (see $OUT/$name.log)" >"$OUT/$name.tap"
		tail -n 30 "$OUT/$name.log" | sed 's/^/# /'
	fi
	count "$OUT/$name.tap"
	return $st
}

# tap FILE STATUS DESCRIPTION: one result into FILE
tap() {
	if [ "$2" -eq 0 ]; then echo "ok 1 - $3"; else echo "not ok 1 - $3"; fi >>"$1"
}

skipped() { [ "$1" -eq 0 ] || echo " $1 skipped"; }

summary() {
	local retries
	log "done in $(( $(date +%s) - t0 ))s"
	# the boots run-vm.sh booted again after a failed one (tools/vm/boots.sh)
	bash tools/vm/boots.sh "$WDDMSEG_BOOT_LOG" >"$OUT/boots.tap"
	grep '^# boot retried: ' "$OUT/boots.tap" | sed 's/^/[boots] /'
	retries=$(grep -c '^# boot retried: ' "$OUT/boots.tap")
	echo "check-debug: kunit $kunit_pass passed $kunit_fail failed$(skipped $kunit_skip);" \
		"kunit.py $kpy_pass passed $kpy_fail failed$(skipped $kpy_skip);" \
		"kselftest $ksft_pass passed $ksft_fail failed$(skipped $ksft_skip);" \
		"$(tail -n 1 "$OUT/boots.tap" | sed 's/^# //')"
	if [ "$skip" -gt 0 ]; then
		echo "$pass passed, $fail failed, $skip skipped, $retries boot retries"
	else
		echo "$pass passed, $fail failed, $retries boot retries"
	fi
	[ "$fail" -eq 0 ]
	exit $?
}

# --- 1. builds ------------------------------------------------------------------
stage deps bash tools/debug/deps.sh || summary
if [ -n "${QEMU:-}" ]; then
	# run-vm.sh's override: a QEMU built elsewhere, with the wddmseg device
	stage build-qemu test -x "$QEMU"
else
	stage build-qemu bash tools/qemu/build.sh "$BUILD"
fi
stage build-selftests make -s tests
stage build-debug-kernel bash tools/debug/kernel.sh || summary

REL=$(cat "$KDIR/abi")
KO=$KDIR/lib/modules/$REL/kernel/drivers/gpu/drm/wddmseg/wddmseg.ko
if [ ! -f "$KO" ]; then
	echo "not ok 1 - the debug kernel has no $KO" >"$OUT/module.tap"
	count "$OUT/module.tap"
	summary
fi
# DRM is built in: only wddmseg.ko and what modules.dep says it needs
stage build-initramfs env WDDMSEG_KERNEL_DIR="$KDIR" WDDMSEG_VM_DIR="$VMDIR" \
	WDDMSEG_BASE_MODULES= bash tools/vm/initramfs.sh "$KO" || summary
grep -q '^not ok' "$OUT/build-qemu.tap" && summary

# --- 2. the devices and the boot ---------------------------------------------------
# Valid layouts, as tools/check.sh: the kselftests compare them with what
# the driver reports.
expect=$OUT/expect
. tools/vm/layouts.sh
layouts_valid tools/vm/valid-layouts.txt "$expect" || exit 2
devs=("${LAYOUT_DEVS[@]}")
slots=("${LAYOUT_SLOTS[@]}")

# Cases of layouts.txt (tools/vm/check-layouts.sh checks their rules;
# here they run the probe error path), 8 functions per slot on the slots
# after the valid devices, up to slot 0x1e.
nlayouts=0
if [ $LAYOUTS != 0 ]; then
	cases=()
	adapter="" segment=""
	layouts_cases tools/vm/layouts.txt || exit 2
	for i in "${!LAYOUT_RULES[@]}"; do
		rule=${LAYOUT_RULES[$i]}
		if [ $LAYOUTS = all ]; then
			cases+=("${LAYOUT_PROPS[$i]}")
		elif [ -z "$adapter" ] && [ "${rule#caps-}" != "$rule" ]; then
			adapter=${LAYOUT_PROPS[$i]}
		elif [ -z "$segment" ] && [ "$rule" = flags-reserved ]; then
			segment=${LAYOUT_PROPS[$i]}
		fi
	done
	[ $LAYOUTS = all ] || cases=(${adapter:+"$adapter"} ${segment:+"$segment"})
	next=0
	for s in "${slots[@]}"; do [ "$s" -ge "$next" ] && next=$((s + 1)); done
	k=0
	for props in "${cases[@]}"; do
		slot=$((next + k / 8)) fn=$((k % 8))
		[ $slot -le 30 ] || break
		mf=
		[ $fn -eq 0 ] && [ $((k + 1)) -lt ${#cases[@]} ] && mf=,multifunction=on
		devs+=(-device "wddmseg,addr=$(printf '0x%x.%d' $slot $fn)$mf,$props")
		k=$((k + 1))
	done
	nlayouts=$k
fi

log "vm: debug kernel $REL, ${#slots[@]} valid devices + $nlayouts invalid-layout devices, $CYCLES cycles"
t=$(date +%s)
WDDMSEG_SCAN_LOG=$REPO/tools/debug/scan-log.sh \
	bash tools/vm/run-vm.sh --no-build --kernel-dir "$KDIR" --vm-dir "$VMDIR" \
	--name debug --mode debug --mem "$MEM" --expect "$expect" \
	--timeout "$TIMEOUT" \
	--append "wddmseg_vm.cycles=$CYCLES wddmseg_vm.test_timeout=$TEST_TIMEOUT" \
	-- "${devs[@]}" >"$OUT/vm.log" 2>&1
rc=$?
vmsecs=$(( $(date +%s) - t ))
CONSOLE=$VMDIR/debug.console.log
tr -d '\r' 2>/dev/null <"$VMDIR/debug.tap" >"$OUT/kselftest.raw" || : >"$OUT/kselftest.raw"
cp "$CONSOLE" "$OUT/console.log" 2>/dev/null || : >"$OUT/console.log"

# --- 3. results ------------------------------------------------------------------------
# The guest's TAP: kselftest cases (nested "# ok N" lines of the kselftest
# binaries and the reload), then the debug checks (cycles, kmemleak,
# taint) at the end of the stream.
sed -E '/^(not )?ok [0-9]+ (fbdev console:|wddmseg: [0-9]+ rmmod|kmemleak:|kernel not tainted)/,$d' \
	"$OUT/kselftest.raw" >"$OUT/kselftest.tap"
grep -E '^(not )?ok [0-9]+ (fbdev console:|wddmseg: [0-9]+ rmmod|kmemleak:|kernel not tainted)' \
	"$OUT/kselftest.raw" >"$OUT/debug-checks.tap"
sed -n '/^not ok [0-9]* kmemleak:/,$p' "$OUT/kselftest.raw" | grep '^# ' |
	head -n 60 >"$OUT/kmemleak.txt" || true

log "kunit"
bash tools/debug/ktap.sh "$CONSOLE" >"$OUT/kunit.out" 2>&1
kst=$?
grep -v '^kunit: ' "$OUT/kunit.out" >"$OUT/kunit.tap"
[ -s "$OUT/kunit.tap" ] || echo "not ok - KUnit: no result between the markers (see $OUT/console.log)" >"$OUT/kunit.tap"
count "$OUT/kunit.tap" kunit
# the diagnostics of the failed cases
awk '/^not ok/ { print "# " $0; p = 1; next } /^ok/ { p = 0 } p' "$OUT/kunit.tap"
[ $kst -eq 0 ] || [ "$kunit_fail" -gt 0 ] || {
	echo "not ok 1 - KUnit output unreadable: $(tail -n 1 "$OUT/kunit.out")" >"$OUT/kunit-parse.tap"
	count "$OUT/kunit-parse.tap"
}

log "kunit.py (tools/debug/kunit.sh: --kunitconfig=drivers/gpu/drm/wddmseg --arch=x86_64)"
t=$(date +%s)
bash tools/debug/kunit.sh "$OUT" >"$OUT/kunit-py.tap" 2>&1
kpy=$?
kpysecs=$(( $(date +%s) - t ))
grep -q '^ok - kunit.py: ' "$OUT/kunit-py.tap" ||
	echo "not ok - kunit.py: no passing case (exit $kpy; see $OUT/kunit-py.log)" >>"$OUT/kunit-py.tap"
[ $kpy -eq 0 ] || grep -q '^not ok' "$OUT/kunit-py.tap" ||
	echo "not ok - kunit.py: exit $kpy (see $OUT/kunit-py.log)" >>"$OUT/kunit-py.tap"
count "$OUT/kunit-py.tap" kunit.py

log "kselftest"
count "$OUT/kselftest.tap" kselftest
# a guest that dies in the middle of a test leaves the plan unfulfilled
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$OUT/kselftest.raw" | head -n 1)
got=$(grep -Ec '^(not )?ok [0-9]+ ' "$OUT/kselftest.raw")
if [ -z "$plan" ] || [ "$got" -lt "$plan" ]; then
	echo "not ok 1 - kselftests: ${got} of ${plan:-?} planned results from the guest (it stopped? see $OUT/vm.log)" \
		>"$OUT/kselftest-missing.tap"
	count "$OUT/kselftest-missing.tap" kselftest
fi

log "debug checks"
dc=$OUT/checks.tap
: >"$dc"
ndc=$(grep -c '' "$OUT/debug-checks.tap")
if [ "$ndc" -ne 4 ]; then
	tap "$dc" 1 "guest debug checks: fbdev console, cycles, kmemleak, taint ($ndc of 4 results)"
else
	sed 's/^\(\(not \)\{0,1\}ok\) [0-9]* /\1 1 - /' "$OUT/debug-checks.tap" >>"$dc"
fi
tap "$dc" $rc "debug VM finished by itself, status 0 (run-vm.sh exit $rc, ${vmsecs}s)"
if bash tools/debug/scan-log.sh "$CONSOLE" >"$OUT/scan.log" 2>&1; then
	tap "$dc" 0 "console log clean: no KASAN/lockdep/UBSAN/ODEBUG/DMA-API/kmemleak/hung-task report, no WARN, no BUG"
else
	tap "$dc" 1 "console log clean (see $OUT/scan.log)"
fi
# KUnit suites rerun at every load: all their runs must pass
reruns=$(tr -d '\r' <"$CONSOLE" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
	grep -Ec '^(not )?ok [0-9]+ wddmseg_' || true)
refail=$(tr -d '\r' <"$CONSOLE" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
	grep -Ec '^ *not ok [0-9]+ ' || true)
tap "$dc" $((refail > 0)) "KUnit reruns at every load pass ($reruns suite runs, $refail failures)"
# every rule the rst names has a passing KUnit case, whose description
# starts with the rule name: covered WHAT SUITES RULES...
RST=Documentation/gpu/wddmseg.rst
covered() {
	local what=$1 suites=$2 r missing=
	shift 2
	for r in "$@"; do
		grep -qE "^ok - ($suites)\.[a-z_]+: $r: " "$OUT/kunit.tap" ||
			missing="$missing $r"
	done
	tap "$dc" "$([ -z "$missing" ] && [ $# -gt 0 ]; echo $?)" \
		"every $what rule of wddmseg.rst has a passing KUnit case ($# rules${missing:+; missing:$missing})"
}
# the two tables of "Probe-time validation"
mapfile -t rules < <(sed -n '/^Adapter rules/,/^Flags WDDM describes/p' "$RST" |
	sed -n 's/^\([a-z0-9][a-z0-9-]*\)  .*/\1/p' | grep -vx 'rule' | sort -u)
covered probe-time 'wddmseg_caps|wddmseg_segment|wddmseg_table' ${rules[@]+"${rules[@]}"}
# the list after "Refusals are logged ... (``wddmseg_alloc_rules.c``):"
mapfile -t rules < <(sed -n '/a rule name (``wddmseg_alloc_rules.c``)/,/^$/p' "$RST" | tail -n +2 |
	tr ',' '\n' | tr -d ' .' | grep -E '^[a-z0-9-]+$' | sort -u)
covered allocation wddmseg_alloc ${rules[@]+"${rules[@]}"}
count "$dc"

if [ $rc -ne 0 ] || grep -q '^not ok' "$dc"; then
	echo "# --- run-vm.sh"
	sed 's/^/# /' "$OUT/vm.log" | tail -n 40
	if [ -s "$OUT/scan.log" ]; then
		sed 's/^/# /' "$OUT/scan.log" | head -n 40
		# the first report in full
		first=$(sed -n 's/^[^:]*:\([0-9][0-9]*\):.*/\1/p' "$OUT/scan.log" | sort -n | head -n 1)
		if [ -n "$first" ]; then
			echo "# --- console from line $((first > 3 ? first - 3 : 1)):"
			tr -d '\r' <"$CONSOLE" | sed -n "$((first > 3 ? first - 3 : 1)),$((first + 60))p" | sed 's/^/# /'
		fi
	fi
	[ -s "$OUT/kmemleak.txt" ] && cat "$OUT/kmemleak.txt"
fi
grep -hE '^# (cycles|kmemleak scans): ' "$OUT/kselftest.raw" | sed 's/^# /check-debug: guest: /'

# --- 4./5. suspend-to-RAM and hibernation under the debug options ------------
# pm_vm NAME SCRIPT CYCLES CONSOLE...: one of make check's PM scripts with
# the debug kernel and its log scanner; its TAP in $OUT/NAME.tap, the
# console logs CONSOLE... of $VMDIR copied to $OUT/CONSOLE-console.log.
pm_vm() {
	local name=$1 script=$2 cycles=$3 b
	shift 3
	WDDMSEG_KERNEL_DIR=$KDIR WDDMSEG_VM_DIR=$VMDIR \
		WDDMSEG_SCAN_LOG=$REPO/tools/debug/scan-log.sh \
		bash "tools/vm/$script" "$cycles" >"$OUT/$name.tap" 2>&1
	for b in "$@"; do
		cp "$VMDIR/$b.console.log" "$OUT/$b-console.log" 2>/dev/null || :
	done
	count "$OUT/$name.tap"
	grep -q '^not ok' "$OUT/$name.tap" && sed -n '/^# /p' "$OUT/$name.tap" | tail -n 40
}

# make check's tools/vm/pm-check.sh: three preservation layouts,
# HardwareProtected kept, sealed and refused.
pmsecs=0
if [ "$PMCYCLES" -gt 0 ]; then
	log "vm: pm, $PMCYCLES S3 cycles (tools/vm/pm-check.sh)"
	t=$(date +%s)
	pm_vm pm pm-check.sh "$PMCYCLES" pm
	pmsecs=$(( $(date +%s) - t ))
fi
# make check's tools/vm/pm-hibernate.sh: rows 000 100 110 101, swap on a
# virtio disk, each cycle a pair of QEMU processes, the last with a
# vram-file removed between them.
hibsecs=0
if [ "$HIBCYCLES" -gt 0 ]; then
	log "vm: hibernate, $HIBCYCLES cycles + 1 with a lost store (tools/vm/pm-hibernate.sh)"
	t=$(date +%s)
	pm_vm hibernate pm-hibernate.sh "$HIBCYCLES" hib1 hib2
	hibsecs=$(( $(date +%s) - t ))
fi
log "times: debug kernel build $(sed -n 's/.*build-debug-kernel (\([0-9]*s\)).*/\1/p' "$OUT/build-debug-kernel.tap"), VM ${vmsecs}s, kunit.py ${kpysecs}s, pm VM ${pmsecs}s, hibernate VMs ${hibsecs}s"
summary
