#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build Debian's QEMU 7.2 with the wddmseg device model.
#
# Usage: tools/qemu/build.sh [BUILD_DIR]        (default: <repo>/build)
#
# Needs the packages installed by tools/vm/deps.sh (dpkg-dev, meson,
# ninja-build, libglib2.0-dev, libpixman-1-dev, libfdt-dev and deb-src
# entries). Idempotent: the source package is fetched and configured once,
# the device sources (tools/qemu/wddmseg*.[ch], wddmseg_hw.h) are copied
# into hw/display/ and its meson.build and trace-events are brought in step
# only when that changes them, and ninja rebuilds only what is out of
# date. The result is BUILD_DIR/qemu/qemu-system-x86_64 and the C qtests
# of tools/qemu/tests/ in BUILD_DIR/qemu/tests/.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${1:-$REPO/build}
mkdir -p "$BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)

SRC=$BUILD_DIR/qemu-src
OBJ=$SRC/build-wddmseg
OUT=$BUILD_DIR/qemu
mkdir -p "$OUT"

log() { echo "qemu: $*"; }

# run_logged LOGNAME CMD...: run CMD with its output in $OUT/LOGNAME.log;
# on failure print the tail of that log and stop.
run_logged() {
	local logfile=$OUT/$1.log
	shift
	if ! "$@" >"$logfile" 2>&1; then
		log "FAILED: $* (last lines of $logfile follow)"
		tail -n 40 "$logfile" | sed 's/^/qemu: | /'
		exit 1
	fi
}

# copy_if_changed SRC DST: keep DST's mtime when nothing changed, so an
# up-to-date tree is not rebuilt. The new file is renamed into place, so a
# QEMU that is running from DST keeps running ("Text file busy" otherwise).
copy_if_changed() {
	if ! cmp -s "$1" "$2"; then
		cp "$1" "$2.tmp.$$"
		mv -f "$2.tmp.$$" "$2"
		log "updated $(basename "$2")"
	fi
}

# 1. Debian's source package, with Debian's patches applied.
if [ ! -f "$SRC/configure" ]; then
	log "fetching the Debian source package (apt-get source qemu)"
	rm -rf "$SRC" "$BUILD_DIR/qemu-src.tmp"
	mkdir -p "$BUILD_DIR/qemu-src.tmp"
	(cd "$BUILD_DIR/qemu-src.tmp" && run_logged apt-source apt-get source -q qemu)
	unpacked=
	for d in "$BUILD_DIR"/qemu-src.tmp/qemu-*/; do
		[ -f "$d/configure" ] && unpacked=${d%/}
	done
	if [ -z "$unpacked" ]; then
		log "FAILED: apt-get source qemu unpacked no source tree"
		exit 1
	fi
	mv "$unpacked" "$SRC"
	rm -rf "$BUILD_DIR/qemu-src.tmp"
	log "source tree in $SRC ($(basename "$unpacked"))"
fi

# 2. The device model and its register header, every time. The model sits
# flat in hw/display/, as ati.c, ati_2d.c and ati_int.h do; wddmseg_hw.h is
# the register contract it shares with the Linux driver.
DEV_SOURCES=(wddmseg.c wddmseg-layout.c wddmseg-engine.c wddmseg-display.c)
DEV_HEADERS=(wddmseg-internal.h)
for f in "${DEV_SOURCES[@]}" "${DEV_HEADERS[@]}"; do
	copy_if_changed "$REPO/tools/qemu/$f" "$SRC/hw/display/$f"
done
copy_if_changed "$REPO/drivers/gpu/drm/wddmseg/wddmseg_hw.h" \
	"$SRC/hw/display/wddmseg_hw.h"

# replace_lines FILE PATTERN NEW...: FILE without its lines that match
# PATTERN (grep -E), followed by the NEW lines, written only if that
# changes FILE. Keeps glue appended to QEMU's files in step with the list
# above (a tree configured by an older build.sh gets the new lines), and
# running it twice changes nothing.
replace_lines() {
	local file=$1 pattern=$2 tmp=$1.new.$$
	shift 2
	{
		grep -Ev -- "$pattern" "$file" || true
		printf '%s\n' "$@"
	} >"$tmp"
	copy_if_changed "$tmp" "$file"
	rm -f "$tmp"
}

# 3. Build glue: the sources in hw/display/meson.build, the device in Kconfig.
files=$(printf "'%s', " "${DEV_SOURCES[@]}")
replace_lines "$SRC/hw/display/meson.build" "CONFIG_WDDMSEG" \
	"softmmu_ss.add(when: 'CONFIG_WDDMSEG', if_true: files(${files%, }))"
if ! grep -q "^config WDDMSEG$" "$SRC/hw/display/Kconfig"; then
	printf '\nconfig WDDMSEG\n    bool\n    default y if PCI_DEVICES\n    depends on PCI && MSI_NONBROKEN\n' \
		>>"$SRC/hw/display/Kconfig"
	log "added WDDMSEG to hw/display/Kconfig"
fi

# 4. Trace events. QEMU 7.2 generates trace.h for each directory listed in
# trace_events_subdirs (top-level meson.build) from its trace-events file:
# hw/display's becomes trace/trace-hw_display.h, which the "trace.h" every
# hw/display source includes points at. Rather than edit that list and
# give the device a directory of its own, tools/qemu/trace-events is
# appended to hw/display/trace-events between two marker lines, as ati.c's
# events sit there: no top-level meson.build change, no trace.h shim, and
# `-trace 'wddmseg_*'` works like any display device's. The block is cut
# out and appended afresh on every run, and the file is only rewritten
# when that changes it (which rebuilds the other hw/display sources too).
te=$SRC/hw/display/trace-events
te_begin="# wddmseg: tools/qemu/trace-events, appended by tools/qemu/build.sh"
te_end="# wddmseg: end"
{
	sed "\|^$te_begin\$|,\|^$te_end\$|d" "$te"
	echo "$te_begin"
	cat "$REPO/tools/qemu/trace-events"
	echo "$te_end"
} >"$te.new.$$"
copy_if_changed "$te.new.$$" "$te"
rm -f "$te.new.$$"

# 5. Configure, once.
if [ ! -f "$OBJ/build.ninja" ]; then
	log "configuring in $OBJ"
	rm -rf "$OBJ"
	mkdir -p "$OBJ"
	(cd "$OBJ" && run_logged configure ../configure \
		--target-list=x86_64-softmmu --without-default-features \
		--enable-tcg --enable-fdt=system --disable-docs \
		--disable-werror --disable-install-blobs)
fi

# 6. Build (ninja rebuilds only what changed).
log "building qemu-system-x86_64 (log: $OUT/build.log)"
run_logged build ninja -C "$OBJ" qemu-system-x86_64
if grep -q "wddmseg[^ ]*: warning:" "$OUT/build.log"; then
	log "WARNING: the device model compiles with warnings:"
	grep -A3 "wddmseg[^ ]*: warning:" "$OUT/build.log" | sed 's/^/qemu: | /'
fi

# 7. Install.
copy_if_changed "$OBJ/qemu-system-x86_64" "$OUT/qemu-system-x86_64"
log "done: $OUT/qemu-system-x86_64"

# 8. The C qtests (tools/qemu/tests/): libqtest/libqos programs, built in
# QEMU's tests/qtest/ as x86_64 qtests, installed in $OUT/tests/. Their
# sources and the register header are copied when they changed; the
# registration in tests/qtest/meson.build is a marked block, rewritten
# only when the list of tests changed.
QT=$SRC/tests/qtest
mkdir -p "$OUT/tests"
copy_if_changed "$REPO/drivers/gpu/drm/wddmseg/wddmseg_hw.h" "$QT/wddmseg_hw.h"
tests=()
for f in "$REPO"/tools/qemu/tests/*.[ch]; do
	copy_if_changed "$f" "$QT/$(basename "$f")"
	case $f in *-test.c) tests+=("$(basename "$f" .c)") ;; esac
done
{
	echo "# >>> wddmseg qtests (written by the wddmseg project's tools/qemu/build.sh)"
	for t in "${tests[@]}"; do
		echo "qtests_x86_64 += ['$t']"
		echo "qtests += {'$t': files('wddmseg-qtest.c')}"
		echo "slow_qtests += {'$t': 600}"
	done
	echo "# <<< wddmseg qtests"
} >"$OUT/qtest-meson.block"
awk -v block="$OUT/qtest-meson.block" '
	/^# >>> wddmseg qtests/ { skip = 1; next }
	/^# <<< wddmseg qtests/ { skip = 0; next }
	skip { next }
	/^qtest_executables = \{\}/ { while ((getline l < block) > 0) print l }
	{ print }
' "$QT/meson.build" >"$OUT/qtest-meson.build"
if ! grep -q "^# >>> wddmseg qtests" "$OUT/qtest-meson.build"; then
	log "FAILED: no 'qtest_executables = {}' line in $QT/meson.build"
	exit 1
fi
copy_if_changed "$OUT/qtest-meson.build" "$QT/meson.build"
if [ ${#tests[@]} -eq 0 ]; then
	log "no C qtests in tools/qemu/tests/"
	exit 0
fi
log "building the C qtests: ${tests[*]} (log: $OUT/build-qtests.log)"
run_logged build-qtests ninja -C "$OBJ" "${tests[@]/#/tests/qtest/}"
if grep -q "wddmseg[^ ]*: warning:" "$OUT/build-qtests.log"; then
	log "WARNING: the C qtests compile with warnings:"
	grep -A3 "wddmseg[^ ]*: warning:" "$OUT/build-qtests.log" | sed 's/^/qemu: | /'
fi
for t in "${tests[@]}"; do
	copy_if_changed "$OBJ/tests/qtest/$t" "$OUT/tests/$t"
done
# A test program no longer in tools/qemu/tests/ is not run again.
for f in "$OUT"/tests/wddmseg-*-test; do
	[ -e "$f" ] || continue
	[ -f "$REPO/tools/qemu/tests/$(basename "$f").c" ] || rm -f "$f"
done
log "done: ${tests[*]/#/$OUT/tests/}"
