#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prepare a full kernel tree with wddmseg in it, for the in-tree build of
# the debug kernel (tools/debug/kernel.sh).
#
# Usage: tools/debug/tree.sh [TREE]        (default build/linux-tree)
#
# 1. Once: extract Debian's linux-source-6.12
#    (/usr/src/linux-source-6.12.tar.xz, installed by tools/vm/deps.sh;
#    DEBUG_SERIES=6.1 for 6.1's) into TREE. A stamp file names the
#    tarball; a different tarball means a fresh extraction.
# 2. Every time (cheap, idempotent): link the repository's overlay into it
#      drivers/gpu/drm/wddmseg/            a directory of per-file symlinks to
#                                          the driver's sources (Kconfig,
#                                          Makefile, .kunitconfig, *.c, *.h,
#                                          also in subdirectories such as
#                                          tests/)
#      include/uapi/drm/wddmseg_drm.h      symlink
#      Documentation/gpu/wddmseg.rst       symlink
#      tools/testing/selftests/drivers/gpu/wddmseg   symlink (directory)
#    and hook the driver into the tree:
#      drivers/gpu/drm/Kconfig             source "drivers/gpu/drm/wddmseg/Kconfig"
#      drivers/gpu/drm/Makefile            obj-$(CONFIG_DRM_WDDMSEG) += wddmseg/
#      Documentation/gpu/drivers.rst       wddmseg in the toctree
#
# Why per-file links and not one link to the driver directory: the
# out-of-tree build (make module) leaves wddmseg_*.o, *.mod.c and .*.cmd
# files in the repository's driver directory. Kbuild's O= build searches
# the source tree through VPATH, so a stale out-of-tree object seen there
# could be linked into the debug kernel's module. Linking only sources
# keeps the two builds independent; neither needs the other cleaned.
# New source files are picked up, links to deleted ones removed, on every
# run.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TREE=${1:-$REPO/build/linux-tree}
case "$TREE" in /*) ;; *) TREE=$PWD/$TREE ;; esac

log() { echo "tree.sh: $*" >&2; }

TARBALL=/usr/src/linux-source-${DEBUG_SERIES:-6.12}.tar.xz
if [ ! -f "$TARBALL" ]; then
	log "no $TARBALL (tools/vm/deps.sh installs linux-source-${DEBUG_SERIES:-6.12})"
	exit 1
fi
STAMP="$TARBALL $(stat -c '%s %Y' "$TARBALL")"

mkdir -p "$(dirname "$TREE")"
exec 9>"$TREE.lock"
flock 9

if [ ! -f "$TREE/.wddmseg-stamp" ] || [ "$(cat "$TREE/.wddmseg-stamp")" != "$STAMP" ]; then
	log "extracting $TARBALL into $TREE"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xJf "$TARBALL" -C "$TREE.tmp" --strip-components=1
	echo "$STAMP" >"$TREE.tmp/.wddmseg-stamp"
	mv "$TREE.tmp" "$TREE"
fi

# link SRC DST: make DST a symlink to SRC (replacing whatever DST was)
link() {
	local src=$1 dst=$2
	if [ -L "$dst" ] && [ "$(readlink "$dst")" = "$src" ]; then
		return 0
	fi
	rm -rf "$dst"
	mkdir -p "$(dirname "$dst")"
	ln -s "$src" "$dst"
}

# The driver: a real directory tree holding one symlink per source file.
SRC=$REPO/drivers/gpu/drm/wddmseg
DST=$TREE/drivers/gpu/drm/wddmseg
[ -L "$DST" ] && rm -f "$DST"
mkdir -p "$DST"
declare -A want=()
while IFS= read -r -d '' f; do
	rel=${f#"$SRC"/}
	want[$rel]=1
	link "$f" "$DST/$rel"
done < <(find "$SRC" -type f \( -name '*.[ch]' -o -name Kconfig -o \
	-name Makefile -o -name Kbuild -o -name .kunitconfig \) \
	! -name '*.mod.c' -print0)
# drop links to files that are gone (anything else is not ours to touch)
while IFS= read -r -d '' l; do
	rel=${l#"$DST"/}
	[ -n "${want[$rel]:-}" ] || rm -f "$l"
done < <(find "$DST" -type l -print0)
find "$DST" -mindepth 1 -type d -empty -delete

link "$REPO/include/uapi/drm/wddmseg_drm.h" "$TREE/include/uapi/drm/wddmseg_drm.h"
link "$REPO/Documentation/gpu/wddmseg.rst" "$TREE/Documentation/gpu/wddmseg.rst"
link "$REPO/tools/testing/selftests/drivers/gpu/wddmseg" \
	"$TREE/tools/testing/selftests/drivers/gpu/wddmseg"

# append LINE to FILE unless FILE already has it
hook() {
	local file=$1 line=$2
	grep -qxF -- "$line" "$file" && return 0
	printf '\n%s\n' "$line" >>"$file"
}
hook "$TREE/drivers/gpu/drm/Kconfig" 'source "drivers/gpu/drm/wddmseg/Kconfig"'
hook "$TREE/drivers/gpu/drm/Makefile" 'obj-$(CONFIG_DRM_WDDMSEG) += wddmseg/'
if ! grep -qx '   wddmseg' "$TREE/Documentation/gpu/drivers.rst"; then
	sed -i '/^   komeda-kms$/a\   wddmseg' "$TREE/Documentation/gpu/drivers.rst"
fi
