#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Tests of tools/lint/fidelity.py on fixtures: good.rst, items.txt and
# hdr.h, with the fake TAP results of results/ (shared: build/check;
# k1, k2: two kernels' check directories). good.rst passes; each other
# case edits one thing and must fail (or skip) for the right reason.
#
# Usage: tools/lint/tests/run.sh [FIDELITY.PY]     TAP on stdout
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CHECKER=${1:-$HERE/../fidelity.py}
R=$HERE/results
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0 bad=0

# fid RST [KERNEL-DIR...]: the checker's output in $TMP/out, status in $rc
fid() {
	local rst=$1 k
	shift
	local args=()
	for k in "$@"; do
		args+=(--kernel "$k")
	done
	python3 "$CHECKER" --rst "$rst" --items "$HERE/items.txt" \
		--header "$HERE/hdr.h" --shared "$R/shared" "${args[@]}" \
		>"$TMP/out" 2>&1
	rc=$?
}

tap() { # tap GOOD DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n - fidelity.py: $2"
	else
		bad=$((bad + 1))
		echo "not ok $n - fidelity.py: $2"
		sed 's/^/#   /' "$TMP/out"
	fi
}

# variant NAME SED-SCRIPT: good.rst edited
variant() {
	sed "$2" "$HERE/good.rst" >"$TMP/$1.rst"
	echo "$TMP/$1.rst"
}

# expect_fail DESCRIPTION RST PATTERN [KERNEL-DIR...]: exit 1 and a
# "not ok" line matching PATTERN (grep -E)
expect_fail() {
	local desc=$1 rst=$2 pat=$3
	shift 3
	fid "$rst" "$@"
	if [ $rc -eq 1 ] && grep -E '^not ok' "$TMP/out" | grep -Eq -- "$pat"; then
		tap 1 "$desc"
	else
		tap 0 "$desc (exit $rc, no 'not ok' line matching: $pat)"
	fi
}

K=("$R/k1/check" "$R/k2/check")

# The passing case: every proof ran and passed, every item has a row.
fid "$HERE/good.rst" "${K[@]}"
if [ $rc -eq 0 ] && ! grep -q '^not ok' "$TMP/out" &&
   ! grep -q '# SKIP' "$TMP/out" && [ "$(grep -c '^ok' "$TMP/out")" -eq 9 ]; then
	tap 1 "good.rst passes with the results of two kernels (9 checks)"
else
	tap 0 "good.rst passes with the results of two kernels (exit $rc)"
fi

# (a) a proof naming a test that did not run, or did not pass
expect_fail "a kselftest that did not run fails" \
	"$(variant notrun 's/ks:alloc.base /ks:alloc.not_in_any_tap /')" \
	'Base implemented.*ks:alloc.not_in_any_tap \(did not run\)' "${K[@]}"
expect_fail "a kselftest skipped wherever it ran fails (did not run)" \
	"$(variant skipped 's/ks:alloc.base /ks:alloc.skipped_here /')" \
	'ks:alloc.skipped_here \(did not run\)' "${K[@]}"
expect_fail "a kselftest that passed on one kernel and failed on another fails" \
	"$(variant flaky 's/ks:alloc.base /ks:alloc.flaky /')" \
	'ks:alloc.flaky \(failed on k2/kselftest\)' "${K[@]}"
expect_fail "a kselftest name that two programs print must say which" \
	"$(variant otherrun 's/ks:alloc.base /ks:query.twice /')" \
	'query.twice \(in wddmseg_blit and wddmseg_query: say which\)' "${K[@]}"
expect_fail "a kselftest limited to a stage where it did not run fails" \
	"$(variant stage 's|ks:pm/pm.cycles|ks:hibernate/pm.cycles|')" \
	'ks:hibernate/pm.cycles \(did not run\)' "${K[@]}"
expect_fail "a qtest case that failed fails" \
	"$(variant qtfail 's|qt:/x86_64/wddmseg/engine/map-aperture|qt:/x86_64/wddmseg/engine/transfer|')" \
	'qt:/x86_64/wddmseg/engine/transfer \(failed\)' "${K[@]}"
expect_fail "a qtest case with a failed check fails although glib said ok" \
	"$(variant qtcheck 's|qt:/x86_64/wddmseg/engine/map-aperture|qt:/x86_64/wddmseg/engine/flush|')" \
	'qt:/x86_64/wddmseg/engine/flush \(failed\)' "${K[@]}"
expect_fail "a qtest proof that is only part of a check's text fails" \
	"$(variant qtword 's|qt:/x86_64/wddmseg/engine/map-aperture|qt:MAP_APERTURE|')" \
	'qt:MAP_APERTURE \(did not run\)' "${K[@]}"
expect_fail "a refused layout whose check failed fails" \
	"$(variant layout 's/layout:base-alignment/layout:bank-end/')" \
	'layout:bank-end \(failed\)' "${K[@]}"
expect_fail "a tap: proof that is only part of a check's description fails" \
	"$(variant tapword 's/tap:iommu:"a device is accepted behind the vIOMMU"/tap:iommu:"accepted"/')" \
	'tap:iommu:"accepted" \(did not run\)' "${K[@]}"
expect_fail "an implemented row without any proof fails" \
	"$(variant noproof 's/^Base \( *\)implemented  .*/Base \1implemented  tested by hand/')" \
	'Base implemented, proved by nothing' "${K[@]}"

# (b) a deleted row
expect_fail "a deleted row fails (an item of items.txt without a row)" \
	"$(variant deleted '/^Pin /,+1d')" \
	'every item of the WDDM pages has a row .*missing: Pin' "${K[@]}"
expect_fail "a deleted header row fails" \
	"$(variant deletedop '/WDDMSEG_OP_NOP/d')" \
	'opcode of the headers has a row .*missing: WDDMSEG_OP_NOP' "${K[@]}"
expect_fail "a row twice fails" \
	"$(variant twice 's/^Pin   /Base  /')" \
	'each row is one item, once; twice: Base' "${K[@]}"
expect_fail "a row that is no item fails" \
	"$(variant unknown 's/^PAGE_B.Reserved/Invented       /')" \
	'not an item of items.txt or a header: Invented' "${K[@]}"

# (c) a KUnit proof that is a word of prose
expect_fail "a KUnit proof that is a word of prose fails" \
	"$(variant prose "s/kunit:wddmseg_segment.segment_rules:\"valid: the last bank's end left out\"/kunit:the last bank's end left out/")" \
	'kunit:the \(not a SUITE.CASE name\)' "${K[@]}"
expect_fail "a KUnit case that is not in the KTAP fails" \
	"$(variant kmissing 's/placement_pinned_top/placement_pinned_bottom/')" \
	'kunit:wddmseg_placement.placement_pinned_bottom \(did not run\)' "${K[@]}"
expect_fail "a KUnit parameter that failed fails" \
	"$(variant kparam "s/valid: the last bank's end left out/bank-end: last bank ends after Size/")" \
	'kunit:wddmseg_segment.segment_rules:"bank-end: last bank ends after Size" \(failed\)' "${K[@]}"
expect_fail "a parameterized KUnit case with one failed parameter fails" \
	"$(variant kcase "s/:\"valid: the last bank's end left out\"//")" \
	'kunit:wddmseg_segment.segment_rules \(failed\)' "${K[@]}"
expect_fail "a KUnit case skipped wherever it ran fails" \
	"$(variant kskip 's/placement_pinned_top/placement_skipped/')" \
	'kunit:wddmseg_placement.placement_skipped \(did not run\)' "${K[@]}"

# Without KUnit in the run (no kunit.tap): its rows are skipped, not passed.
mkdir -p "$TMP/nokunit/check"
cp "$R/k1/check/"*.tap "$TMP/nokunit/check/"
rm "$TMP/nokunit/check/kunit.tap"
fid "$HERE/good.rst" "$TMP/nokunit/check" "$R/k2/check"
if [ $rc -eq 0 ] && [ "$(grep -c '# SKIP not run in this run: kunit:' "$TMP/out")" -eq 2 ]; then
	tap 1 "without KUnit in the run, the two rows KUnit proves are skipped"
else
	tap 0 "without KUnit in the run, the two rows KUnit proves are skipped (exit $rc)"
fi

echo "1..$n"
echo "# $((n - bad)) passed, $bad failed"
[ $bad -eq 0 ]
