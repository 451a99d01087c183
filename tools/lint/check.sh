#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host-side static checks for one kernel (KABI, tools/vm/kenv.sh; default
# the primary one, 7.3), printed as TAP lines:
#   - checkpatch.pl --strict of that kernel's source on every tracked
#     driver and uapi file
#   - that kernel-doc, -Werror, on the uapi header and the driver
#   - with the primary kernel only: QEMU's checkpatch.pl on every file of
#     the QEMU device model and its qtests (they do not depend on it)
#   - the module builds against that kernel's Debian headers with W=1 and
#     no warning (or the log of such a build, WDDMSEG_W1_LOG: make check's
#     build-module stage is one)
# make check runs it once per supported kernel.
#
# Usage: tools/lint/check.sh [OUT]   (logs; default build/ABI/lint)
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh" || exit 1
SRC=$WDDMSEG_KBUILD/linux-src
LOG=${1:-$WDDMSEG_KBUILD/lint}
K="Linux $WDDMSEG_KSERIES"
. "$REPO/tools/testing/tap.sh"

bash "$REPO/tools/lint/linux-source.sh" "$SRC" || exit 1
mkdir -p "$LOG"
cd "$REPO"

mapfile -t files < <(git ls-files 'drivers/gpu/drm/wddmseg/*.[ch]' \
	'include/uapi/drm/wddmseg_drm.h')
for f in "${files[@]}"; do
	out=$LOG/checkpatch-$(basename "$f").log
	perl "$SRC/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types -f "$f" >"$out" 2>&1
	st=$?
	# Fail on checks too, not only on errors and warnings.
	if grep -Eq '(ERROR|WARNING|CHECK):' "$out"; then
		st=1
	fi
	[ $st -eq 0 ] || sed 's/^/# /' "$out"
	tap $st "checkpatch --strict ($K) $f"
done

# The QEMU device model: QEMU's own checkpatch.pl, from the QEMU source
# tree tools/qemu/build.sh fetched (make check builds QEMU first); once,
# with the primary kernel's lint.
QSRC=$REPO/build/qemu-src
qfiles=()
if [ "$WDDMSEG_KABI" = "$(bash "$REPO/tools/vm/kabi.sh")" ]; then
	mapfile -t qfiles < <(git ls-files 'tools/qemu/*.[ch]')
fi
for f in "${qfiles[@]}"; do
	out=$LOG/qemu-checkpatch-$(basename "$f").log
	# The qtests are checked where they build, in tests/qtest/ of the
	# QEMU tree (build.sh copies them there): QEMU's rules for tests
	# apply to them (g_assert_cmp*() and friends are allowed).
	case $f in
	tools/qemu/tests/*) qf=$QSRC/tests/qtest/$(basename "$f") ;;
	*) qf=$REPO/$f ;;
	esac
	if [ -f "$QSRC/scripts/checkpatch.pl" ] && [ -f "$qf" ]; then
		(cd "$QSRC" && perl scripts/checkpatch.pl --no-tree -f \
			"${qf#"$QSRC"/}") >"$out" 2>&1
		st=$?
		if grep -Eq '^(ERROR|WARNING):' "$out"; then
			st=1
		fi
	else
		echo "no QEMU source tree in $QSRC (run tools/qemu/build.sh)" >"$out"
		st=1
	fi
	[ $st -eq 0 ] || sed 's/^/# /' "$out"
	tap $st "QEMU checkpatch $f"
done

# Perl up to 6.14, Python since 6.15 (scripts/kernel-doc -> tools/docs/)
case $(head -n 1 "$SRC/scripts/kernel-doc") in
*python*) KDOC=(python3 "$SRC/scripts/kernel-doc") ;;
*) KDOC=(perl "$SRC/scripts/kernel-doc") ;;
esac
"${KDOC[@]}" -none -Werror "${files[@]}" >"$LOG/kernel-doc.log" 2>&1
st=$?
[ $st -eq 0 ] || sed 's/^/# /' "$LOG/kernel-doc.log"
tap $st "kernel-doc -Werror ($K) on uapi header and driver"

# The W=1 build: WDDMSEG_W1_LOG names the log of one that already ran
# (make check builds the module that way: make module-w1), else it is
# built here.
if [ -n "${WDDMSEG_W1_LOG:-}" ] && [ -f "$WDDMSEG_W1_LOG" ]; then
	cp "$WDDMSEG_W1_LOG" "$LOG/w1.log"
	st=0
	grep -q 'Error [0-9]' "$LOG/w1.log" && st=1
else
	make -s -C "$REPO" module-w1 KABI="$WDDMSEG_KABI" >"$LOG/w1.log" 2>&1
	st=$?
fi
if [ $st -eq 0 ] && grep -q 'warning:' "$LOG/w1.log"; then
	st=1
fi
[ $st -eq 0 ] || sed 's/^/# /' "$LOG/w1.log"
tap $st "module builds with W=1 against $WDDMSEG_KABI without warnings"

exit $fail
