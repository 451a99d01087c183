#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One qtest of the device model in one command (`make qtest T=PATH`):
# build QEMU and the C qtests if needed (tools/qemu/build.sh), find the
# program that has the test path, run that path alone and print its TAP.
#
# Usage: tools/qemu/run-qtest.sh [--no-build] PATH
#        tools/qemu/run-qtest.sh [--no-build] --list
#   PATH   a GLib test path as the programs list it (--list), e.g.
#          /x86_64/wddmseg/regs/reset; a path that is a prefix of others
#          at a '/' runs them all (GLib's -p). Without the leading
#          /x86_64/wddmseg/ it is looked up under it. A path that matches
#          nothing fails, listing near matches.
#
# Each program (build/qemu/tests/wddmseg-*-test, every one there: no list
# of our own) is asked for its paths with GLib's -l, then the one(s)
# holding PATH run as make check runs them: QTEST_QEMU_BINARY set to our
# build, --tap -k, plus -p PATH. Output: the TAP on stdout, with one
# nested "# ok N - ..." line per check; the last line "N passed, N failed"
# counts those checks (and GLib's own "not ok" lines) as tools/check.sh
# does. Exit 0 when nothing failed and at least one check passed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$REPO/build
QEMU=$BUILD/qemu/qemu-system-x86_64
DOBUILD=1 LIST=0 WANT=''

usage() {
	sed -n '/^# Usage:/,/^# Each program/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case "$1" in
	--no-build) DOBUILD=0; shift ;;
	--list) LIST=1; shift ;;
	-h|--help) usage ;;
	-*) echo "run-qtest: unknown option '$1'" >&2; usage ;;
	*) [ -z "$WANT" ] || usage; WANT=$1; shift ;;
	esac
done
[ $LIST = 1 ] || [ -n "$WANT" ] || { echo "run-qtest: which test path? (--list shows them)" >&2; usage; }
log() { echo "run-qtest: $*" >&2; }

mkdir -p "$BUILD/qtest"
if [ $DOBUILD = 1 ]; then
	log "building QEMU and the qtests (log: $BUILD/qtest/build.log)"
	if ! bash "$REPO/tools/vm/deps.sh" >"$BUILD/qtest/build.log" 2>&1 ||
	   ! bash "$REPO/tools/qemu/build.sh" "$BUILD" >>"$BUILD/qtest/build.log" 2>&1; then
		tail -n 30 "$BUILD/qtest/build.log" >&2
		log "the build failed"
		exit 1
	fi
fi
export QTEST_QEMU_BINARY=$QEMU
PROGS=("$BUILD"/qemu/tests/wddmseg-*-test)
[ -x "${PROGS[0]}" ] && [ -x "$QEMU" ] || { log "no qtest in $BUILD/qemu/tests (run without --no-build)"; exit 2; }

# "PROGRAM PATH" for every test path
ALL=$BUILD/qtest/paths
: >"$ALL"
for p in "${PROGS[@]}"; do
	"$p" -l 2>/dev/null | grep '^/' | sed "s|^|$(basename "$p") |" >>"$ALL"
done
if [ $LIST = 1 ]; then
	cat "$ALL"
	exit 0
fi

# the programs holding WANT, or a path below it
case "$WANT" in
/*) ;;
*) WANT=/x86_64/wddmseg/$WANT ;;
esac
WANT=${WANT%/}
mapfile -t RUN < <(awk -v w="$WANT" '$2 == w || index($2, w "/") == 1 { print $1 }' "$ALL" | uniq)
if [ ${#RUN[@]} -eq 0 ]; then
	log "no qtest path '$WANT' ($(wc -l <"$ALL") paths in ${#PROGS[@]} programs)"
	near=$(cut -d' ' -f2 "$ALL" | python3 -c '
import difflib, sys
pre = "/x86_64/wddmseg/"
paths = [p[len(pre):] for p in sys.stdin.read().split() if p.startswith(pre)]
w = sys.argv[1][len(pre):] if sys.argv[1].startswith(pre) else sys.argv[1]
last = w.rstrip("/").split("/")[-1]
m = difflib.get_close_matches(w, paths, n=8, cutoff=0.6)
m += [p for p in paths if len(last) >= 3 and last in p and p not in m]
print("\n".join(pre + p for p in m[:12]))' "$WANT")
	[ -z "$near" ] || { echo "near matches:" >&2; sed 's/^/  /' <<<"$near" >&2; }
	echo "(tools/qemu/run-qtest.sh --list shows them all)" >&2
	exit 2
fi

: >"$BUILD/qtest/run.tap"
st=0
for name in "${RUN[@]}"; do
	log "$name -p $WANT"
	"$BUILD/qemu/tests/$name" --tap -k -p "$WANT" >"$BUILD/qtest/$name.tap" 2>"$BUILD/qtest/$name.log"
	rc=$?
	cat "$BUILD/qtest/$name.tap"
	cat "$BUILD/qtest/$name.tap" >>"$BUILD/qtest/run.tap"
	if [ $rc -ne 0 ]; then
		echo "not ok - $name exited with status $rc (see $BUILD/qtest/$name.log)"
		tail -n 20 "$BUILD/qtest/$name.log" | sed 's/^/#| /'
		st=1
	fi
done
# the checks, counted as tools/check.sh counts them: nested "# ok N - ...",
# GLib's passing "ok N /x86_64/wddmseg/..." line not again, a failing one
res=$(grep -E '^(# )*(not )?ok [0-9]+' "$BUILD/qtest/run.tap" | grep -Ev '^ok [0-9]+ /')
pass=$(grep -Ec '^(# )*ok [0-9]+' <<<"$res")
skip=$(grep -Eci '^(# )*ok [0-9]+.*# *skip' <<<"$res")
fail=$(( $(grep -Ec '^(# )*not ok [0-9]+' <<<"$res") + st ))
pass=$((pass - skip))
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
