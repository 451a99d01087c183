#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Write the DKMS source tree of wddmseg: what a distribution's wddmseg-dkms
# package would put in /usr/src/wddmseg-VERSION/.
#
# Usage: tools/dkms/source.sh DIR   writes DIR/wddmseg-VERSION/ and prints
#                                   its path
#        tools/dkms/source.sh --version
#                                   prints VERSION
#
# VERSION is WDDMSEG_DRIVER_VERSION of drivers/gpu/drm/wddmseg/wddmseg_drv.h
# (also the module's MODULE_VERSION, so `modinfo -F version` and
# `dkms status` agree). The tree holds dkms.conf (tools/dkms/dkms.conf.in),
# every source file of the driver directory that tools/vm/module.sh builds
# from (*.c, *.h, Makefile, Kbuild, Kconfig, .kunitconfig, tests/ included)
# and include/uapi/drm/wddmseg_drm.h, in the repository's layout. An
# existing tree of the same version is replaced, so that it never keeps
# files deleted from the repository.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DRV=drivers/gpu/drm/wddmseg
UAPI=include/uapi/drm/wddmseg_drm.h

die() { echo "dkms/source.sh: $*" >&2; exit 1; }

version=$(sed -n 's/^#define[[:space:]]\{1,\}WDDMSEG_DRIVER_VERSION[[:space:]]\{1,\}"\([^"]*\)".*/\1/p' \
	"$REPO/$DRV/wddmseg_drv.h")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
	die "WDDMSEG_DRIVER_VERSION in $DRV/wddmseg_drv.h is '$version', not MAJOR.MINOR.PATCH"

case "${1:-}" in
--version) echo "$version"; exit 0 ;;
''|-*) echo "usage: $0 DIR | --version" >&2; exit 2 ;;
esac

mkdir -p "$1"
out=$(cd "$1" && pwd)/wddmseg-$version
tmp=$out.tmp.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$tmp/$DRV" "$tmp/$(dirname "$UAPI")"

sed "s|@VERSION@|$version|g" "$REPO/tools/dkms/dkms.conf.in" >"$tmp/dkms.conf"
(cd "$REPO/$DRV" && find . -type f \( -name '*.[ch]' -o -name Kconfig -o \
	-name Makefile -o -name Kbuild -o -name .kunitconfig \) \
	! -name '*.mod.c' -print0 | cpio -0 -pdm --quiet "$tmp/$DRV")
cp -p "$REPO/$UAPI" "$tmp/$UAPI"

rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "$out"
