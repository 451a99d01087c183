#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build QEMU 10.0 with the wddmseg device model: Debian 13's (trixie) qemu
# source package, Debian's patches applied, configured with meson 1.7 from
# bookworm-backports (Debian 12's meson 1.0 is too old for QEMU 10).
#
# Usage: tools/qemu/build.sh [BUILD_DIR]        (default: <repo>/build)
#
# Needs the packages installed by tools/vm/deps.sh (dpkg-dev, ninja-build,
# python3-venv, libglib2.0-dev, libpixman-1-dev, libfdt-dev). Neither
# suite is added to the system's apt sources: tools/vm/debsuite.sh fetches
# the source package and the meson .deb with a private apt configuration,
# and meson is unpacked (dpkg-deb -x) into BUILD_DIR/qemu-meson/ and used
# through PYTHONPATH, by configure and by ninja when it re-runs meson.
#
# Idempotent: the source package is fetched and configured once, the
# device sources (tools/qemu/wddmseg*.[ch], wddmseg_hw.h, trace-events) and
# the qtests are put into the tree by tools/qemu/qemu-tree.sh, which only
# rewrites a file when that changes it, and ninja rebuilds only what is
# out of date. The result is BUILD_DIR/qemu/qemu-system-x86_64 and the C
# qtests of tools/qemu/tests/ in BUILD_DIR/qemu/tests/.
#
# Environment: WDDMSEG_QEMU_SUITE (default trixie) and WDDMSEG_QEMU_VERSION
# (default: that suite's candidate) pick the source package;
# WDDMSEG_MESON_SUITE (default bookworm-backports) the meson package;
# WDDMSEG_QEMU_JOBS (default: the number of CPUs) ninja's parallel jobs.
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

DEBSUITE=$REPO/tools/vm/debsuite.sh
QEMU_SUITE=${WDDMSEG_QEMU_SUITE:-trixie}
MESON_SUITE=${WDDMSEG_MESON_SUITE:-bookworm-backports}
JOBS=${WDDMSEG_QEMU_JOBS:-$(nproc)}

# 1. meson 1.7 from bookworm-backports, unpacked into $MESON (not
# installed): QEMU 10 needs meson >= 1.5, Debian 12 has 1.0.1. configure
# finds it through PYTHONPATH (its venv sees the system site packages and
# PYTHONPATH), and so does the meson that ninja re-runs.
MESON=$BUILD_DIR/qemu-meson
MESON_PY=$MESON/usr/lib/python3/dist-packages
if [ ! -d "$MESON_PY/mesonbuild" ]; then
	log "fetching meson from $MESON_SUITE (tools/vm/debsuite.sh)"
	rm -rf "$MESON" "$MESON.tmp"
	mkdir -p "$MESON.tmp"
	(cd "$MESON.tmp" && run_logged meson-download "$DEBSUITE" "$MESON_SUITE" download meson)
	deb=$(ls "$MESON.tmp"/meson_*.deb)
	dpkg-deb -x "$deb" "$MESON.tmp/root"
	mv "$MESON.tmp/root" "$MESON"
	rm -rf "$MESON.tmp"
	log "meson $(PYTHONPATH=$MESON_PY python3 -c 'import mesonbuild.coredata as c; print(c.version)') in $MESON"
fi
export PYTHONPATH=$MESON_PY${PYTHONPATH:+:$PYTHONPATH}

# 2. Debian's QEMU 10.0 source package, with Debian's patches applied
# (disable-pycotap.patch and skip-unpack-edk2-blobs.patch let it configure
# offline). The downloaded files (.dsc and tarballs) stay in $DL, from
# which tools/qemu/patch.sh unpacks a pristine tree.
DL=$BUILD_DIR/qemu-dl
if [ -f "$SRC/configure" ] &&
   ! grep -qs ':10\.0\.' "$SRC/.wddmseg-debian-version"; then
	log "$SRC is not QEMU 10.0 (an older build): fetching again"
	rm -rf "$SRC" "$OUT/tests"
fi
if [ ! -f "$SRC/configure" ]; then
	ver=${WDDMSEG_QEMU_VERSION:-$("$DEBSUITE" "$QEMU_SUITE" version qemu-system-x86)}
	case $ver in
	*:10.0.*) ;;
	*) log "FAILED: $QEMU_SUITE's qemu is $ver, not 10.0 (set WDDMSEG_QEMU_VERSION)"; exit 1 ;;
	esac
	log "fetching Debian's source package qemu=$ver from $QEMU_SUITE"
	rm -rf "$SRC" "$DL"
	mkdir -p "$DL"
	(cd "$DL" && run_logged apt-source "$DEBSUITE" "$QEMU_SUITE" source "qemu=$ver")
	unpacked=
	for d in "$DL"/qemu-*/; do
		[ -f "$d/configure" ] && unpacked=${d%/}
	done
	if [ -z "$unpacked" ]; then
		log "FAILED: apt-get source qemu unpacked no source tree"
		exit 1
	fi
	mv "$unpacked" "$SRC"
	echo "$ver" >"$SRC/.wddmseg-debian-version"
	log "source tree in $SRC ($(basename "$unpacked"), $ver)"
fi

# 3. The device model, its build glue and its trace events, and its
# docs/specs page (not built: --disable-docs; there so that this tree
# holds what tools/qemu/patch.sh's series does), every time
# (tools/qemu/qemu-tree.sh: a file is only rewritten when it changes).
bash "$REPO/tools/qemu/qemu-tree.sh" "$SRC" device
bash "$REPO/tools/qemu/qemu-tree.sh" "$SRC" docs

# 4. Configure, once for a given set of options and devices (a changed
# set configures afresh). x86_64 system emulation with TCG; every
# optional feature off but the ones the harness uses: pixman (QEMU 9 made
# it optional; the monitor's screendump and the display surfaces of the
# device need it) and the system libfdt. No docs, no firmware blobs
# installed (Debian's seabios and ipxe-qemu are used through -L). The
# devices are only those the harness uses (--without-default-devices):
# tools/qemu/devices-x86_64.mak, put into the tree as
# configs/devices/x86_64-softmmu/wddmseg.mak, the one place configure
# takes a device list from (--with-devices-x86_64=wddmseg).
DEVICES=$REPO/tools/qemu/devices-x86_64.mak
copy_if_changed "$DEVICES" "$SRC/configs/devices/x86_64-softmmu/wddmseg.mak"
CONFIGURE_ARGS=(--target-list=x86_64-softmmu --without-default-features
	--without-default-devices --with-devices-x86_64=wddmseg
	--enable-tcg --enable-pixman --enable-fdt=system --disable-docs
	--disable-werror --disable-install-blobs)
configured="${CONFIGURE_ARGS[*]} devices:$(sha256sum <"$DEVICES" | cut -d' ' -f1)"
if [ ! -f "$OBJ/build.ninja" ] ||
   [ "$(cat "$OBJ/.wddmseg-configure" 2>/dev/null)" != "$configured" ]; then
	log "configuring in $OBJ"
	rm -rf "$OBJ"
	mkdir -p "$OBJ"
	(cd "$OBJ" && run_logged configure ../configure "${CONFIGURE_ARGS[@]}")
	echo "$configured" >"$OBJ/.wddmseg-configure"
fi

# 5. Build (ninja rebuilds only what changed).
log "building qemu-system-x86_64 (log: $OUT/build.log)"
run_logged build ninja -C "$OBJ" -j "$JOBS" qemu-system-x86_64
if grep -q "wddmseg[^ ]*: warning:" "$OUT/build.log"; then
	log "WARNING: the device model compiles with warnings:"
	grep -A3 "wddmseg[^ ]*: warning:" "$OUT/build.log" | sed 's/^/qemu: | /'
fi

# 6. Install.
copy_if_changed "$OBJ/qemu-system-x86_64" "$OUT/qemu-system-x86_64"
qver=$("$OUT/qemu-system-x86_64" --version | head -n 1)
case $qver in
"QEMU emulator version 10.0."*) ;;
*) log "FAILED: $OUT/qemu-system-x86_64 says '$qver', not 10.0"; exit 1 ;;
esac
log "done: $OUT/qemu-system-x86_64 ($qver)"

# 7. The C qtests (tools/qemu/tests/): libqtest/libqos programs, built in
# QEMU's tests/qtest/ as x86_64 qtests (tools/qemu/qemu-tree.sh puts them
# there), installed in $OUT/tests/.
bash "$REPO/tools/qemu/qemu-tree.sh" "$SRC" qtests
mkdir -p "$OUT/tests"
tests=()
for f in "$REPO"/tools/qemu/tests/*-test.c; do
	tests+=("$(basename "$f" .c)")
done
log "building the C qtests: ${tests[*]} (log: $OUT/build-qtests.log)"
run_logged build-qtests ninja -C "$OBJ" -j "$JOBS" "${tests[@]/#/tests/qtest/}"
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
