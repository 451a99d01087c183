#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The wddmseg device model as a patch series for QEMU 10.0, in `git
# format-patch` form, for users who build their own QEMU:
#
#   0001 hw/display: the device, its Kconfig symbol, meson and trace events
#   0002 tests/qtest: the device's qtests
#   0003 docs/specs: the device's specification
#
# The series is made against a pristine tree of the same Debian source
# package tools/qemu/build.sh builds (QEMU 10.0.x with Debian's patches,
# none of which touches the files the series changes), by
# tools/qemu/qemu-tree.sh, the script build.sh puts the device into its
# tree with: the series holds exactly what make check builds and tests.
#
# Usage: tools/qemu/patch.sh [--verify] [BUILD_DIR]   (default <repo>/build)
#
#   writes BUILD_DIR/qemu-patches/000N-*.patch (and prints their names);
#   --verify then checks the series as a user would apply it, in TAP: `git
#   am` on another fresh tree, the files it gives equal to those of
#   build.sh's tree (BUILD_DIR/qemu-src, when built), a configure of that
#   tree and a compile of the device and qtest objects in it.
#
# The source package comes from BUILD_DIR/qemu-dl (build.sh keeps it
# there), else it is fetched as build.sh does (tools/vm/debsuite.sh).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VERIFY=0
if [ "${1:-}" = --verify ]; then
	VERIFY=1
	shift
fi
BUILD_DIR=${1:-$REPO/build}
mkdir -p "$BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
DL=$BUILD_DIR/qemu-dl
WORK=$BUILD_DIR/qemu-patch
OUT=$BUILD_DIR/qemu-patches

log() { echo "qemu-patch: $*" >&2; }
die() { log "FAILED: $*"; exit 1; }

# 1. The Debian source package (.dsc and tarballs).
dsc=$(ls "$DL"/qemu_*.dsc 2>/dev/null | tail -n 1 || true)
if [ -z "$dsc" ]; then
	suite=${WDDMSEG_QEMU_SUITE:-trixie}
	ver=${WDDMSEG_QEMU_VERSION:-$("$REPO/tools/vm/debsuite.sh" "$suite" version qemu-system-x86)}
	log "fetching Debian's source package qemu=$ver from $suite"
	mkdir -p "$DL"
	(cd "$DL" && "$REPO/tools/vm/debsuite.sh" "$suite" source --download-only "qemu=$ver") >&2
	dsc=$(ls "$DL"/qemu_*.dsc | tail -n 1)
fi
ver=$(sed -n 's/^Version: //p' "$dsc")
case $ver in
*:10.0.*) ;;
*) die "$dsc is qemu $ver, not 10.0" ;;
esac

# unpack DIR: a pristine tree of the package (Debian's patches applied)
# in DIR, committed as the base of a git repository.
unpack() {
	rm -rf "$1"
	dpkg-source --no-check -x "$dsc" "$1" >"$1.log" 2>&1 ||
		die "dpkg-source -x $dsc (see $1.log)"
	git -C "$1" init -q
	git -C "$1" add -A
	git -C "$1" -c user.name=wddmseg -c user.email=wddmseg@localhost \
		commit -q -m "qemu $ver (Debian source package)"
}

# Author and sign-off: the person who makes the series (git config), or a
# neutral name.
name=$(git -C "$REPO" config user.name || echo "wddmseg project")
email=$(git -C "$REPO" config user.email || echo "wddmseg@localhost")
GIT=(git -C "$WORK/tree" -c "user.name=$name" -c "user.email=$email")

# commit PART SUBJECT BODY: qemu-tree.sh PART, committed with a sign-off.
commit() {
	bash "$REPO/tools/qemu/qemu-tree.sh" "$WORK/tree" "$1" >/dev/null
	"${GIT[@]}" add -A
	"${GIT[@]}" commit -q -s -m "$2" -m "$3"
}

mkdir -p "$WORK"
log "unpacking $(basename "$dsc") into $WORK/tree"
unpack "$WORK/tree"
base=$(git -C "$WORK/tree" rev-parse HEAD)

commit device "hw/display: add the wddmseg PCI GPU with WDDM-style memory segments" \
"wddmseg is a PCI display device whose memory is a table of WDDM segment
descriptors (CPU-visible VRAM, invisible VRAM, apertures) with their
flags and the adapter's capabilities, all of it settable with the
'layout' property so that a driver's validation can be tested. A copy
engine runs paging commands (transfer, fill, aperture map/unmap,
encrypted transfers) from a ring in guest memory, with fences written
back and signalled by MSI-X or INTx. A scanout with a vblank timer,
cursor, gamma LUT and frame CRC shows VRAM on the graphic console. D3hot
and S3 lose the VRAM the segment flags do not preserve; a vram-file keeps
it across QEMU processes for hibernation.

wddmseg_hw.h is the register map the device shares with its Linux DRM
driver (the wddmseg project)."

commit qtests "tests/qtest: add the wddmseg device's qtests" \
"x86_64 qtests on q35 for the wddmseg device: registers and layouts, the
copy engine and its faults, encrypted transfers, the display (vblank,
flips, cursor, gamma, CRC, screendumps), power management (D3hot, S3
poison, a vram-file across two processes), system reset and migration."

commit docs "docs/specs: add the wddmseg device's specification" \
"Its PCI resources, registers, display controller, VRAM page lists,
encrypted paging, power states, properties, layout strings, trace events
and qtests."

rm -rf "$OUT"
mkdir -p "$OUT"
git -C "$WORK/tree" format-patch -q -o "$OUT" "$base"..HEAD
ls "$OUT"/*.patch
log "$(ls "$OUT"/*.patch | wc -l) patches for qemu $ver in $OUT"

[ $VERIFY = 1 ] || exit 0

# --verify: TAP. The series on another fresh tree, as `git am` applies it.
TAP_PREFIX='qemu-patch: '
. "$REPO/tools/testing/tap.sh"
V=$WORK/verify
unpack "$V"
st=0
git -C "$V" -c "user.name=$name" -c "user.email=$email" am -q "$OUT"/*.patch \
	>"$WORK/am.log" 2>&1 || st=1
[ $st = 0 ] || sed 's/^/# /' "$WORK/am.log"
tap $st "git am applies the $(ls "$OUT"/*.patch | wc -l) patches to a fresh qemu $ver tree"

# The files the series gives are those build.sh built and make check
# tested (when build.sh's tree exists).
if [ -f "$BUILD_DIR/qemu-src/hw/display/wddmseg.c" ]; then
	root=$(git -C "$V" rev-list --max-parents=0 HEAD)
	files=$(git -C "$V" diff --name-only "$root" HEAD)
	st=0
	[ -n "$files" ] || st=1
	for f in $files; do
		cmp -s "$V/$f" "$BUILD_DIR/qemu-src/$f" || {
			echo "# $f differs from $BUILD_DIR/qemu-src/$f"
			st=1
		}
	done
	tap $st "the $(echo "$files" | wc -w) files the series adds or changes equal those of the tree make check built"
fi

# Configure (as build.sh does, but with Kconfig's default devices, as a
# user's build would be: build.sh lists its devices, CONFIG_WDDMSEG among
# them) and compile what the series adds: the device's objects, the qtest
# programs, and QEMU's Kconfig must pick the device for x86_64
# (CONFIG_WDDMSEG in the target's config-devices.h).
MESON_PY=$BUILD_DIR/qemu-meson/usr/lib/python3/dist-packages
[ -d "$MESON_PY/mesonbuild" ] ||
	die "no meson in $BUILD_DIR/qemu-meson (run tools/qemu/build.sh first)"
export PYTHONPATH=$MESON_PY${PYTHONPATH:+:$PYTHONPATH}
st=0
(cd "$V" && mkdir -p b && cd b && ../configure --target-list=x86_64-softmmu \
	--without-default-features --enable-tcg --enable-pixman \
	--enable-fdt=system --disable-docs --disable-install-blobs) \
	>"$WORK/configure.log" 2>&1 || st=1
[ $st = 0 ] && ! grep -q "^#define CONFIG_WDDMSEG 1" \
	"$V/b/x86_64-softmmu-config-devices.h" && st=1
[ $st = 0 ] || tail -n 20 "$WORK/configure.log" | sed 's/^/# /'
tap $st "the patched tree configures with CONFIG_WDDMSEG for x86_64"
if [ $st = 0 ]; then
	objs=$(ninja -C "$V/b" -t targets all |
		sed -n 's/^\([^:]*wddmseg[^:]*\.o\): .*/\1/p')
	st=0
	[ -n "$objs" ] || st=1
	# shellcheck disable=SC2086 # one target per word
	ninja -C "$V/b" -j "${WDDMSEG_QEMU_JOBS:-$(nproc)}" $objs \
		>"$WORK/build.log" 2>&1 || st=1
	grep -q "warning:" "$WORK/build.log" && st=1
	[ $st = 0 ] || grep -B2 -A5 "error:\|warning:" "$WORK/build.log" | head -n 40 | sed 's/^/# /'
	tap $st "the device and qtest objects compile in the patched tree without warnings ($(echo "$objs" | wc -w) objects)"
fi
echo "1..$n"
exit $fail
