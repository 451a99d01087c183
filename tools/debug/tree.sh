#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prepare a full kernel tree with wddmseg in it, for the in-tree build of
# the debug kernel (tools/debug/kernel.sh).
#
# Usage: tools/debug/tree.sh [TREE]        (default build/linux-tree)
#
# 1. Once: copy the kernel source into TREE. By default that is Linux
#    7.3 (DEBUG_SERIES, any series tools/vm/kabi.sh knows): a series
#    built from Debian's linux-source-SERIES of another suite
#    (tools/vm/kabi.sh --source-pkg) is taken from what
#    `tools/vm/kernel-src.sh --fetch` unpacked into
#    build/linux-source-SERIES/ for the guest kernel (so the package is
#    downloaded and unpacked once for both), copied as hard links (fast,
#    no second copy on disk); a Debian-packaged series (6.12, 6.1) is
#    extracted from /usr/src/linux-source-SERIES.tar.xz (tools/vm/deps.sh
#    installs it). A stamp file names the source and its version; a
#    different one means a fresh copy.
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

SERIES=${DEBUG_SERIES:-7.3}
mkdir -p "$(dirname "$TREE")"

# KSRC (an unpacked source tree) or TARBALL, and STAMP naming it
WDDMSEG_KENV_FUNCTIONS=1 . "$REPO/tools/vm/kenv.sh"
TARBALL='' src=0
wddmseg_source_tree "$SERIES" || src=$?
if [ $src = 2 ]; then
	log "FAILED: no source tree of Linux $SERIES"
	exit 1
elif [ $src = 0 ]; then
	STAMP=$KSRC_STAMP
else
	TARBALL=/usr/src/linux-source-$SERIES.tar.xz
	if [ ! -f "$TARBALL" ]; then
		log "no $TARBALL (tools/vm/deps.sh installs linux-source-$SERIES)"
		exit 1
	fi
	STAMP="$TARBALL $(stat -c '%s %Y' "$TARBALL")"
fi

exec 9>"$TREE.lock"
flock 9

if [ ! -f "$TREE/.wddmseg-stamp" ] || [ "$(cat "$TREE/.wddmseg-stamp")" != "$STAMP" ]; then
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	if [ -n "$KSRC" ]; then
		log "copying $KSRC into $TREE (hard links)"
		cp -al "$KSRC/." "$TREE.tmp/"
		rm -f "$TREE.tmp/.wddmseg-deb-version"
	else
		log "extracting $TARBALL into $TREE"
		tar -xJf "$TARBALL" -C "$TREE.tmp" --strip-components=1
	fi
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

# append LINE to FILE unless FILE already has it. The file may be a hard
# link into build/linux-source-SERIES (the guest kernel's source): write
# a new file and rename it over the link, never append in place.
hook() {
	local file=$1 line=$2
	grep -qxF -- "$line" "$file" && return 0
	{ cat "$file"; printf '\n%s\n' "$line"; } >"$file.wddmseg-tmp"
	mv -f "$file.wddmseg-tmp" "$file"
}
hook "$TREE/drivers/gpu/drm/Kconfig" 'source "drivers/gpu/drm/wddmseg/Kconfig"'
hook "$TREE/drivers/gpu/drm/Makefile" 'obj-$(CONFIG_DRM_WDDMSEG) += wddmseg/'
if ! grep -qx '   wddmseg' "$TREE/Documentation/gpu/drivers.rst"; then
	sed -i '/^   komeda-kms$/a\   wddmseg' "$TREE/Documentation/gpu/drivers.rst"
fi

# Kernel fixes the debug tier needs, tools/debug/patches/SERIES-*.patch
# (written for wddmseg; each says why). Applied once: a patch that
# already reverses cleanly is in. The files a patch touches may be hard
# links into build/linux-source-SERIES (the guest kernel of make check,
# which stays as Debian ships it): each is replaced by a private copy
# before patching.
for p in "$REPO"/tools/debug/patches/"$SERIES"-*.patch; do
	[ -f "$p" ] || continue
	if patch -d "$TREE" -p1 -R --dry-run -s -f <"$p" >/dev/null 2>&1; then
		continue
	fi
	while read -r f; do
		cp -p "$TREE/$f" "$TREE/$f.wddmseg-tmp"
		mv -f "$TREE/$f.wddmseg-tmp" "$TREE/$f"
	done < <(sed -n 's|^+++ b/||p' "$p")
	log "applying $(basename "$p")"
	patch -d "$TREE" -p1 -s -f --no-backup-if-mismatch <"$p" ||
		{ log "FAILED: $p does not apply"; exit 1; }
done
