#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One kselftest in one command (`make test T=NAME`): build what is missing,
# boot the guest with the devices of tools/vm/valid-layouts.txt and their
# expectation file (tools/vm/layouts.sh, the reader make check uses), run
# the named test in it and print its KTAP and the result.
#
# Usage: tools/vm/run-test.sh [OPTIONS] NAME
#        tools/vm/run-test.sh [OPTIONS] PROGRAM [-r NAME]...
#        tools/vm/run-test.sh [--no-build] --list
#   NAME      FIXTURE.TEST or FIXTURE.VARIANT.TEST (the harness's names, as
#             in make check's output; FIXTURE.TEST of a fixture with
#             variants runs every variant), a FIXTURE (all its tests) or a
#             PROGRAM (wddmseg_placement: the whole program). Found in whatever
#             program has it: every program of the collection's
#             kselftest-list.txt is asked (its -l listing, on the host).
#             A name that matches nothing fails, listing near matches.
#   PROGRAM -r NAME
#             only in PROGRAM (the harness's own option spelled the same)
#   --list    every test, "PROGRAM NAME" per line
#   --no-build   take build/ as it is (no QEMU, module, selftest or
#             initramfs build)
#   --no-expect  run as on a machine without the expectation file (the
#             second run of make check's check boot)
#   --timeout SECS   the boot's limit (default 900)
#
# The tests run as make check's do: the kselftest install of the guest
# kernel's series (/opt/kselftest, tools/vm/ksft-tree.sh) after modprobe
# wddmseg, as the program with -r FIXTURE[.VARIANT].TEST for each selected
# test. Linux 6.1's kselftest_harness.h has neither -l nor -r: there the
# names are listed with Linux 6.12's build of the same sources, the
# program runs whole and only the selected tests' KTAP is kept (renumbered).
#
# Output: the KTAP on stdout, progress on stderr; the last line is
# "N passed, N failed" (", N skipped" when some were). Exit status 0 when
# every selected test passed or skipped and the boot was clean, 1 on a
# failure, 2 on a usage error or an unknown name. Files:
# build/ABI/test/ (the build log, the guest script, the expectation file)
# and build/ABI/vm/test.* (run-vm.sh's).
# Environment: KABI, the kernel (tools/vm/kenv.sh; default the primary).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tools/vm
COLL=drivers/gpu/wddmseg

usage() {
	sed -n '/^# Usage:/,/^# The tests run/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

BUILD=1 LIST=0 NOEXPECT=0 TIMEOUT=900 PROG='' NAMES=()
while [ $# -gt 0 ]; do
	case "$1" in
	--no-build) BUILD=0; shift ;;
	--no-expect) NOEXPECT=1; shift ;;
	--list) LIST=1; shift ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	-r) [ -n "$PROG" ] || { echo "run-test: -r needs a PROGRAM before it" >&2; usage; }
		NAMES+=("${2:?}"); shift 2 ;;
	-h|--help) usage ;;
	-*) echo "run-test: unknown option '$1'" >&2; usage ;;
	*)
		if [ ${#NAMES[@]} -eq 0 ] && [ -z "$PROG" ]; then
			PROG=$1
		else
			echo "run-test: one NAME (or PROGRAM -r NAME...), not '$1'" >&2; usage
		fi
		shift ;;
	esac
done
case "$TIMEOUT" in ''|*[!0-9]*) echo "run-test: bad timeout '$TIMEOUT'" >&2; exit 2 ;; esac
if [ $LIST = 0 ] && [ -z "$PROG" ]; then
	echo "run-test: which test? (e.g. make test T=alloc.create_each_segment; --list shows them)" >&2
	usage
fi

cd "$REPO" || exit 2
. "$HERE/kenv.sh" || exit 2
. "$HERE/layouts.sh"
OUT=$WDDMSEG_KBUILD/test
VMDIR=$WDDMSEG_KBUILD/vm
mkdir -p "$OUT"
log() { echo "run-test: $*" >&2; }

# --- build what is missing ------------------------------------------------------
# The Makefile's targets, each incremental: QEMU with the device, the
# module, the tools and standalone selftests, the guest kernel and the
# initramfs with the kselftest install of the kernel's series.
if [ $BUILD = 1 ]; then
	log "building (QEMU, module, guest; log: $OUT/build.log)"
	if ! make -s -C "$REPO" qemu guest >"$OUT/build.log" 2>&1; then
		tail -n 30 "$OUT/build.log" >&2
		log "the build failed (see $OUT/build.log)"
		exit 1
	fi
fi
INST=$VMDIR/kselftest
[ -f "$INST/kselftest-list.txt" ] && [ -f "$VMDIR/initramfs.cpio.gz" ] || {
	log "no guest in $VMDIR (run without --no-build)"; exit 2; }

# the programs of the collection: the install's kselftest-list.txt, no
# list of our own
mapfile -t PROGS < <(sed -n "s|^$COLL:||p" "$INST/kselftest-list.txt")
[ ${#PROGS[@]} -gt 0 ] || { log "no $COLL program in $INST/kselftest-list.txt"; exit 2; }

# An expectation file for the guest, and for the host's listing (the
# programs skip themselves before main without a device or this file).
EXPECT=$OUT/expect
layouts_valid "$HERE/valid-layouts.txt" "$EXPECT" || exit 2

# The directory whose programs list their tests: the guest's, when its
# harness can (-l, and -r to run one), else Linux 6.12's build of the same
# sources (tools/vm/ksft-tree.sh builds it in build/ksft/linux-6.12).
LISTDIR=$INST/$COLL
FILTER=0
if ! grep -aq 'list all tests' "$LISTDIR/${PROGS[0]}"; then
	FILTER=1
	log "Linux $WDDMSEG_KSERIES's kselftest harness cannot list or select tests: listing with Linux 6.12's build, running whole programs"
	if [ $BUILD = 1 ] || [ ! -d "$REPO/build/ksft/linux-6.12/tools/testing/selftests/$COLL" ]; then
		bash "$HERE/ksft-tree.sh" 6.12 >"$OUT/ksft-6.12.log" 2>&1 || {
			tail -n 20 "$OUT/ksft-6.12.log" >&2; log "the 6.12 build failed"; exit 1; }
	fi
	LISTDIR=$REPO/build/ksft/linux-6.12/tools/testing/selftests/$COLL
fi

if [ $LIST = 1 ]; then
	WDDMSEG_EXPECT=$EXPECT python3 "$HERE/ksft-list.py" list "$LISTDIR" "${PROGS[@]}"
	exit $?
fi

# --- what to run ------------------------------------------------------------------
SEL=$OUT/selected
: >"$SEL"
if [ ${#NAMES[@]} -gt 0 ]; then
	case " ${PROGS[*]} " in
	*" $PROG "*) ;;
	*) log "no program $PROG in $INST/kselftest-list.txt: ${PROGS[*]}"; exit 2 ;;
	esac
	for n in "${NAMES[@]}"; do
		WDDMSEG_EXPECT=$EXPECT python3 "$HERE/ksft-list.py" find "$LISTDIR" "$n" "$PROG" \
			>>"$SEL" || exit 2
	done
else
	WDDMSEG_EXPECT=$EXPECT python3 "$HERE/ksft-list.py" find "$LISTDIR" "$PROG" "${PROGS[@]}" \
		>"$SEL" || exit 2
fi
sort -u -o "$SEL" "$SEL"
mapfile -t RUNPROGS < <(cut -d' ' -f1 "$SEL" | uniq)
log "$(wc -l <"$SEL") test(s) in ${RUNPROGS[*]} on Linux $WDDMSEG_KABI"

# --- the guest's script ----------------------------------------------------------
# Each program's output framed by "### run PROGRAM" and "### exit STATUS"
# lines, under the limit of the collection's settings file.
SCRIPT=$OUT/guest.sh
{
	echo 'rc=0'
	[ $NOEXPECT = 1 ] && echo 'unset WDDMSEG_EXPECT'
	echo 'modprobe wddmseg || { echo "### modprobe wddmseg failed"; exit 1; }'
	echo "cd /opt/kselftest/$COLL || exit 1"
	echo 't=$(sed -n "s/^timeout=//p" settings 2>/dev/null); t=${t:-300}'
	for p in "${RUNPROGS[@]}"; do
		args=
		if [ $FILTER = 0 ]; then
			while read -r _ n; do
				[ "$n" = - ] || args="$args -r $n"
			done < <(awk -v p="$p" '$1 == p' "$SEL")
		fi
		echo "echo '### run $p$args'"
		echo "timeout \$t ./$p$args 2>&1; s=\$?"
		echo 'echo "### exit $s"; [ $s = 0 ] || [ $s = 4 ] || rc=1'
	done
	echo 'exit $rc'
} >"$SCRIPT"

# --- the boot ---------------------------------------------------------------------
log "booting (${#LAYOUT_DEVS[@]} device arguments from valid-layouts.txt; limit ${TIMEOUT}s)"
bash "$HERE/run-vm.sh" --no-build --name test --mode script --script "$SCRIPT" \
	--expect "$EXPECT" --timeout "$TIMEOUT" -- "${LAYOUT_DEVS[@]}" >"$OUT/vm.log" 2>&1
rc=$?

# --- the KTAP and the result -------------------------------------------------------
# Each program's KTAP as it printed it; where the harness could not select
# (FILTER), only the selected tests' parts, renumbered. One result per
# selected test from its "ok N NAME" line at the top level of its
# program's KTAP (every top-level result of a whole program); a selected
# test without one, or a program that failed without saying which test,
# is a failure.
tr -d '\r' 2>/dev/null <"$VMDIR/test.tap" >"$OUT/raw.tap" || : >"$OUT/raw.tap"
awk -v filter=$FILTER -v selfile="$SEL" -v counts="$OUT/counts" '
BEGIN {
	while ((getline l < selfile) > 0) {
		split(l, f, " ")
		if (f[2] == "-") whole[f[1]] = 1
		else { want[f[1] " " f[2]] = 1; nwant[f[1]]++ }
	}
}
function result(ok, name, rest) {
	if (!whole[prog] && !((prog " " name) in want)) return 0
	seen[prog " " name] = 1
	if (!ok) { fail++; pfail[prog]++ }
	else if (rest ~ /# *[Ss][Kk][Ii][Pp]/) skip++
	else pass++
	return 1
}
/^### run / { prog = $3; inprog = 1; n = 0; keep = 0; ran[prog] = 1; print "# " $0; next }
/^### exit / {
	inprog = 0
	print "# " $0
	# a whole run (FILTER) fails with the tests that were not asked for
	if ((!filter || whole[prog]) && $3 != 0 && $3 != 4 && !pfail[prog]) {
		fail++
		print "# run-test: " prog " exited with status " $3 " without a failed test"
	}
	next
}
/^### / { print "# " $0; next }
!inprog { next }
/^(not )?ok [0-9]+ / {
	isok = ($1 == "ok")
	name = isok ? $3 : $4
	rest = $0
	sub(/^(not )?ok [0-9]+ [^ ]+/, "", rest)
	sel = result(isok, name, rest)
	if (filter && !whole[prog]) {
		if (sel) print (isok ? "ok " : "not ok ") ++n " " name rest
		keep = 0
		next
	}
	print
	next
}
whole[prog] || !filter { print; next }
/^TAP version / { print; next }
/^1\.\.[0-9]+/ { print "1.." nwant[prog]; next }
/^#  RUN / { keep = ((prog " " $3) in want) }
keep { print }
END {
	for (k in want) if (!(k in seen)) {
		fail++
		split(k, f, " ")
		print "not ok - " f[2] " (" f[1] "): no result" (f[1] in ran ? "" : ", the program did not run")
	}
	print pass + 0, fail + 0, skip + 0 > counts
}' "$OUT/raw.tap"
read -r pass fail skip <"$OUT/counts"

case $rc in
0|1) ;;
*)
	fail=$((fail + 1))
	echo "not ok - boot: run-vm.sh exit $rc ($(cat "$VMDIR/test.result" 2>/dev/null))"
	sed 's/^/# /' "$OUT/vm.log" | tail -n 40
	;;
esac
log "KTAP: $OUT/raw.tap; console: $VMDIR/test.console.log"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ] && [ $((pass + skip)) -gt 0 ]
exit $(( $? ? 1 : 0 ))
