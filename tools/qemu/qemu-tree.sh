#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Put the wddmseg device model, or its qtests, into a QEMU 10.0 source
# tree: the files and the build glue (meson.build, Kconfig, trace-events).
# tools/qemu/build.sh runs it before every build; tools/qemu/patch.sh runs
# it on a pristine tree and commits each part as one patch.
#
# Usage: tools/qemu/qemu-tree.sh QEMU_SRC device|qtests|docs
#
#   device  hw/display/wddmseg*.[ch] and wddmseg_hw.h, CONFIG_WDDMSEG in
#           hw/display/Kconfig and meson.build, the trace events at the
#           end of hw/display/trace-events
#   qtests  tests/qtest/wddmseg-*.[ch] and wddmseg_hw.h, registered as
#           x86_64 qtests in tests/qtest/meson.build
#   docs    docs/specs/wddmseg.rst (the device's specification,
#           tools/qemu/docs-wddmseg.rst), listed in docs/specs/index.rst
#
# Idempotent: a file is only rewritten when that changes it (so ninja does
# not rebuild an up-to-date tree), and the glue is a marked block that is
# replaced, never appended twice. Prints "qemu: updated FILE" for each file
# it wrote.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

die() { echo "qemu-tree: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: $0 QEMU_SRC device|qtests|docs"
SRC=$1 PART=$2
[ -f "$SRC/hw/display/meson.build" ] && [ -f "$SRC/tests/qtest/meson.build" ] ||
	die "$SRC is not a QEMU source tree"
grep -q "^system_ss" "$SRC/hw/display/meson.build" ||
	die "$SRC/hw/display/meson.build has no system_ss: not QEMU 9 or later"

# copy_if_changed SRC DST: keep DST's mtime when nothing changed, so an
# up-to-date tree is not rebuilt. The new file is renamed into place, so a
# QEMU that is running from DST keeps running ("Text file busy" otherwise).
copy_if_changed() {
	if ! cmp -s "$1" "$2"; then
		cp "$1" "$2.tmp.$$"
		mv -f "$2.tmp.$$" "$2"
		echo "qemu: updated ${2#"$SRC"/}"
	fi
}

# put_block FILE NAME BLOCK_FILE [ANCHOR_ERE]: FILE with the lines between
# "# >>> NAME" and "# <<< NAME" replaced by BLOCK_FILE (framed by those
# markers); a FILE without the block gets it before the first line that
# matches ANCHOR_ERE, or at its end without an anchor.
put_block() {
	local file=$1 name=$2 block=$3 anchor=${4:-} tmp=$1.new.$$
	awk -v name="$name" -v block="$block" -v anchor="$anchor" '
		function emit(l) {
			print "# >>> " name
			while ((getline l < block) > 0) print l
			print "# <<< " name
			done = 1
		}
		$0 == "# >>> " name { skip = 1; if (!done) emit(); next }
		$0 == "# <<< " name { skip = 0; next }
		skip { next }
		!done && anchor != "" && $0 ~ anchor { emit() }
		{ print }
		END { if (!done && anchor == "") emit() }
	' "$file" >"$tmp"
	grep -q "^# >>> $name\$" "$tmp" ||
		die "no line matching '$anchor' in $file"
	copy_if_changed "$tmp" "$file"
	rm -f "$tmp"
}

BLOCK=$(mktemp)
trap 'rm -f "$BLOCK"' EXIT

case $PART in
device)
	# The model sits flat in hw/display/, as ati.c, ati_2d.c and ati_int.h
	# do; wddmseg_hw.h is the register contract it shares with the Linux
	# driver.
	DEV_SOURCES=(wddmseg.c wddmseg-layout.c wddmseg-engine.c wddmseg-display.c
		wddmseg-mmu.c)
	for f in "${DEV_SOURCES[@]}" wddmseg-internal.h; do
		copy_if_changed "$REPO/tools/qemu/$f" "$SRC/hw/display/$f"
	done
	copy_if_changed "$REPO/drivers/gpu/drm/wddmseg/wddmseg_hw.h" \
		"$SRC/hw/display/wddmseg_hw.h"

	files=$(printf "'%s', " "${DEV_SOURCES[@]}")
	echo "system_ss.add(when: 'CONFIG_WDDMSEG', if_true: files(${files%, }))" >"$BLOCK"
	put_block "$SRC/hw/display/meson.build" "wddmseg" "$BLOCK"

	printf '%s\n' "config WDDMSEG" "    bool" "    default y if PCI_DEVICES" \
		"    depends on PCI && MSI_NONBROKEN" >"$BLOCK"
	put_block "$SRC/hw/display/Kconfig" "wddmseg" "$BLOCK"

	# Trace events: QEMU generates trace.h for each directory listed in
	# trace_events_subdirs from its trace-events file, and the "trace.h"
	# every hw/display source includes is hw/display's. The device's
	# events go at the end of that file, as ati.c's sit in it: no
	# top-level meson.build change, no directory of its own, and
	# `-trace 'wddmseg_*'` works as for any display device. The file's
	# first comment block (up to its first empty line) stays out.
	sed '1,/^$/d' "$REPO/tools/qemu/trace-events" >"$BLOCK"
	put_block "$SRC/hw/display/trace-events" "wddmseg" "$BLOCK"
	;;
qtests)
	# libqtest/libqos programs, x86_64 qtests, one executable per
	# *-test.c, each linked with the shared wddmseg-qtest.c helpers.
	QT=$SRC/tests/qtest
	copy_if_changed "$REPO/drivers/gpu/drm/wddmseg/wddmseg_hw.h" "$QT/wddmseg_hw.h"
	tests=()
	for f in "$REPO"/tools/qemu/tests/*.[ch]; do
		copy_if_changed "$f" "$QT/$(basename "$f")"
		case $f in *-test.c) tests+=("$(basename "$f" .c)") ;; esac
	done
	[ ${#tests[@]} -gt 0 ] || die "no qtests in $REPO/tools/qemu/tests"
	for t in "${tests[@]}"; do
		echo "qtests_x86_64 += ['$t']"
		echo "qtests += {'$t': files('wddmseg-qtest.c')}"
		echo "slow_qtests += {'$t': 600}"
	done >"$BLOCK"
	put_block "$QT/meson.build" "wddmseg" "$BLOCK" '^qtest_executables = \{\}'
	;;
docs)
	copy_if_changed "$REPO/tools/qemu/docs-wddmseg.rst" \
		"$SRC/docs/specs/wddmseg.rst"
	idx=$SRC/docs/specs/index.rst
	if ! grep -q "^   wddmseg\$" "$idx"; then
		# after the last entry of the toctree
		sed -i "$(grep -n '^   [a-z0-9]' "$idx" | tail -n 1 | cut -d: -f1)a\\   wddmseg" "$idx"
		echo "qemu: updated docs/specs/index.rst"
	fi
	;;
*)
	die "unknown part '$PART' (device, qtests, docs)"
	;;
esac
