#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One KUnit suite in one command (`make kunit S=GLOB`): the driver's KUnit
# suites whose name matches GLOB, run the way make check runs them on a
# kernel with KUnit (7.3, built from source): linked into wddmseg.ko
# (tools/vm/module.sh), they run when the module loads in the guest;
# KUnit's own filter, kunit.filter_glob=GLOB on the kernel command line,
# keeps the others from running. Or, with --kunit-py, through kunit.py in
# the overlaid kernel tree (tools/debug/kunit.sh: an x86_64 kernel of its own,
# configured from the driver's .kunitconfig, booted under our QEMU), GLOB being
# kunit.py's filter_glob argument.
#
# Usage: tools/vm/run-kunit.sh [--no-build] [--kunit-py] GLOB
#        tools/vm/run-kunit.sh --list
#   GLOB   SUITE_GLOB or SUITE_GLOB.CASE_GLOB, KUnit's syntax, e.g.
#          'wddmseg_mgr*', wddmseg_caps.caps_rules. The suite part must
#          match a suite of drivers/gpu/drm/wddmseg/tests/ (read from the
#          sources, `.name = "..."` of each struct kunit_suite); one that
#          matches none fails, listing the suites.
#   --list     the suites, one per line
#   --no-build take build/ as it is
#   --kunit-py through tools/debug/kunit.sh instead of the guest
#
# Output: the KTAP the kernel printed between the guest's "kunit: begin"
# and "kunit: end" markers, then one line per case (tools/debug/ktap.sh)
# and "N passed, N failed" (", N skipped"). Exit 0 when at least one case
# ran and none failed. Environment: KABI (tools/vm/kenv.sh; default the
# primary kernel, 7.3, the only one with KUnit). Files: build/ABI/kunit/
# and build/ABI/vm/kunit.*. WDDMSEG_KERNEL_DIR and WDDMSEG_VM_DIR as
# run-vm.sh takes them.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tools/vm
TESTS=$REPO/drivers/gpu/drm/wddmseg/tests

usage() {
	sed -n '/^# Usage:/,/^# Output:/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
BUILD=1 LIST=0 PY=0 GLOB=''
while [ $# -gt 0 ]; do
	case "$1" in
	--no-build) BUILD=0; shift ;;
	--kunit-py) PY=1; shift ;;
	--list) LIST=1; shift ;;
	-h|--help) usage ;;
	-*) echo "run-kunit: unknown option '$1'" >&2; usage ;;
	*) [ -z "$GLOB" ] || usage; GLOB=$1; shift ;;
	esac
done
log() { echo "run-kunit: $*" >&2; }

# the suites, from the sources: the .name of every struct kunit_suite
mapfile -t SUITES < <(awk '/struct kunit_suite [a-z0-9_]+ = \{/ { s = 1; next }
	s && /\.name = "/ { sub(/.*\.name = "/, ""); sub(/".*/, ""); print; s = 0 }' \
	"$TESTS"/*.c | sort -u)
if [ $LIST = 1 ]; then
	printf '%s\n' "${SUITES[@]}"
	exit 0
fi
[ -n "$GLOB" ] || { echo "run-kunit: which suite? (--list shows them)" >&2; usage; }
case "$GLOB" in *[!A-Za-z0-9_.*?\[\]-]*)
	log "'$GLOB': a KUnit glob has no such character (it goes on the kernel command line)"; exit 2 ;;
esac
sglob=${GLOB%%.*}
matched=()
for s in "${SUITES[@]}"; do
	# shellcheck disable=SC2053 # a glob, as KUnit's glob_match() takes it
	[[ $s == $sglob ]] && matched+=("$s")
done
if [ ${#matched[@]} -eq 0 ]; then
	log "no KUnit suite matches '$sglob' (suites of $TESTS):"
	printf '  %s\n' "${SUITES[@]}" >&2
	exit 2
fi
log "suites: ${matched[*]}${GLOB#"$sglob"}"

if [ $PY = 1 ]; then
	out=$REPO/build/kunit-py
	if [ $BUILD = 1 ]; then
		bash "$REPO/tools/qemu/build.sh" "$REPO/build" >"$out.build.log" 2>&1 || {
			tail -n 20 "$out.build.log" >&2; log "the QEMU build failed"; exit 1; }
	fi
	bash "$REPO/tools/debug/kunit.sh" "$out" "$GLOB" >"$out.tap"
	rc=$?
	cat "$out.tap"
	awk '/^ok - .*# SKIP/ { s++; next } /^ok - / { p++ } /^not ok - / { f++ }
		END { if (s) printf "%d passed, %d failed, %d skipped\n", p, f, s
		      else printf "%d passed, %d failed\n", p, f }' "$out.tap"
	[ $rc -eq 0 ] && grep -q '^ok - ' "$out.tap"
	exit $?
fi

cd "$REPO" || exit 2
. "$HERE/kenv.sh" || exit 2
. "$HERE/layouts.sh"
OUT=$WDDMSEG_KBUILD/kunit
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
mkdir -p "$OUT"
if [ $BUILD = 1 ]; then
	log "building (QEMU, guest kernel, module; log: $OUT/build.log)"
	make -s -C "$REPO" qemu guest >"$OUT/build.log" 2>&1 || {
		tail -n 30 "$OUT/build.log" >&2; log "the build failed"; exit 1; }
fi
# the guest kernel (WDDMSEG_KERNEL_DIR, as run-vm.sh takes it)
KDIR=${WDDMSEG_KERNEL_DIR:-$WDDMSEG_KBUILD/kernel}
if ! grep -qx 'CONFIG_KUNIT=y' "$KDIR/config" 2>/dev/null; then
	log "Linux $WDDMSEG_KABI has no KUnit (no CONFIG_KUNIT=y in $KDIR/config): the suites are built into the module only for the kernel built from source (KABI=7.3), or run them with --kunit-py"
	exit 2
fi

# the devices of make check's boot, for suites that look at a probed one
layouts_valid "$HERE/valid-layouts.txt" "$OUT/expect" || exit 2
SCRIPT=$OUT/guest.sh
cat >"$SCRIPT" <<'EOF'
echo "wddmseg-vm: kunit: begin" >/dev/kmsg
modprobe wddmseg; s=$?
echo "wddmseg-vm: kunit: end" >/dev/kmsg
echo "modprobe wddmseg: status $s"
exit $s
EOF
log "booting Linux $WDDMSEG_KABI with kunit.filter_glob=$GLOB"
bash "$HERE/run-vm.sh" --no-build --name kunit --mode script --script "$SCRIPT" \
	--expect "$OUT/expect" --timeout 900 --append "kunit.filter_glob=$GLOB" \
	-- "${LAYOUT_DEVS[@]}" >"$OUT/vm.log" 2>&1
rc=$?
CONSOLE=$VMDIR/kunit.console.log

# the KTAP as printed, then one line per case
tr -d '\r' <"$CONSOLE" 2>/dev/null | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
	sed -n '/wddmseg-vm: kunit: begin/,/wddmseg-vm: kunit: end/p' | sed '1d; $d' |
	grep -E '^ *(KTAP|TAP|1\.\.|# |(not )?ok )'
echo "# ---"
bash "$REPO/tools/debug/ktap.sh" "$CONSOLE" >"$OUT/cases" 2>&1
grep -v '^kunit: ' "$OUT/cases"
read -r pass fail skip < <(sed -n 's/^kunit: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$OUT/cases")
pass=${pass:-0} fail=${fail:-0} skip=${skip:-0}
if [ $rc -ne 0 ]; then
	fail=$((fail + 1))
	echo "not ok - boot: run-vm.sh exit $rc ($(cat "$VMDIR/kunit.result" 2>/dev/null))"
	tail -n 30 "$OUT/vm.log" | sed 's/^/# /'
fi
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ] && [ $((pass + skip)) -gt 0 ]
