#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build wddmseg.ko out of tree for one kernel (KABI, tools/vm/kenv.sh)
# against its Debian headers (/usr/src/linux-headers-ABI), or, for a
# kernel built from source (7.3), its build directory build/linux-SERIES
# (tools/vm/kernel-src.sh builds it first; seconds when up to date), or
# KDIR. When that kernel has KUnit (CONFIG_KUNIT=y: the source-built one;
# Debian's have it off) the driver's KUnit suites are linked in
# (CONFIG_DRM_WDDMSEG_KUNIT_TEST): they run at every load of the module
# and print KTAP in the kernel log, which make check counts.
#
# Usage: tools/vm/module.sh [--w1]
#   --w1   a clean build with W=1 (the lint's; its output is the log)
#
# Kbuild puts the objects of an M= build next to the sources, so each
# kernel builds its own copy of the driver: drivers/gpu/drm/wddmseg/ and
# include/uapi/drm/wddmseg_drm.h are mirrored into build/ABI/src/ (same
# relative layout: the driver's Makefile finds the uapi header four
# directories up). Only changed files are copied, with their times, so
# the build stays incremental; files deleted from the repository go from
# the copy too. Result: build/ABI/src/drivers/gpu/drm/wddmseg/wddmseg.ko.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh"
if [ -z "${KDIR:-}" ]; then
	KDIR=$WDDMSEG_KDIR
	if bash "$REPO/tools/vm/kabi.sh" --source-pkg "$WDDMSEG_KSERIES" >/dev/null; then
		bash "$REPO/tools/vm/kernel-src.sh"
	fi
fi
SRC=$WDDMSEG_KBUILD/src
MOD=$SRC/drivers/gpu/drm/wddmseg
W1=0
case "${1:-}" in
--w1) W1=1 ;;
'') ;;
*) echo "module.sh: unknown argument '$1'" >&2; exit 2 ;;
esac
[ -d "$KDIR" ] || { echo "module.sh: no kernel headers in $KDIR" >&2; exit 1; }

# mirror FROM TO: the source files of directory FROM into TO
mirror() {
	local from=$1 to=$2 f rel
	declare -A want=()
	while IFS= read -r -d '' f; do
		rel=${f#"$from"/}
		want[$rel]=1
		mkdir -p "$(dirname "$to/$rel")"
		cmp -s "$f" "$to/$rel" || cp -p "$f" "$to/$rel"
	done < <(find "$from" -type f \( -name '*.[ch]' -o -name Kconfig -o \
		-name Makefile -o -name Kbuild -o -name .kunitconfig \) \
		! -name '*.mod.c' -print0)
	while IFS= read -r -d '' f; do
		rel=${f#"$to"/}
		[ -n "${want[$rel]:-}" ] || rm -f "$f"
	done < <(find "$to" -type f \( -name '*.[ch]' -o -name Kconfig -o \
		-name Makefile -o -name Kbuild -o -name .kunitconfig \) \
		! -name '*.mod.c' -print0 2>/dev/null)
}

mkdir -p "$MOD" "$SRC/include/uapi/drm"
exec 9>"$WDDMSEG_KBUILD/.module.lock"
flock 9
mirror "$REPO/drivers/gpu/drm/wddmseg" "$MOD"
f=$REPO/include/uapi/drm/wddmseg_drm.h
cmp -s "$f" "$SRC/include/uapi/drm/wddmseg_drm.h" ||
	cp -p "$f" "$SRC/include/uapi/drm/wddmseg_drm.h"

KMAKE=(make -C "$KDIR" M="$MOD" CONFIG_DRM_WDDMSEG=m -j"$(nproc)")
if grep -qx 'CONFIG_KUNIT=y' "$KDIR/.config" 2>/dev/null; then
	KMAKE+=(CONFIG_DRM_WDDMSEG_KUNIT_TEST=m)
fi
if [ $W1 = 1 ]; then
	"${KMAKE[@]}" clean >/dev/null
	"${KMAKE[@]}" W=1 modules
else
	"${KMAKE[@]}" modules
fi
