#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The wddmseg kselftests built the way kernel CI builds kselftests: inside
# a kernel tree, by that tree's tools/testing/selftests/Makefile, with that
# tree's kselftest_harness.h, then installed (kselftest-install) with the
# tree's run_kselftest.sh.
#
# Usage: tools/vm/ksft-tree.sh SERIES [--rebuild] [--install DIR]
#   SERIES   a kernel series: 6.1, 6.12, 7.3, ...
#   --rebuild
#            `make clean` first, so that every program is compiled (and
#            its warnings printed) again
#   --install DIR
#            also `make install INSTALL_PATH=DIR` (DIR is emptied first)
#
# 1. Once per tarball: the kselftest framework of Debian's linux-source-SERIES
#    (tools/testing/selftests, scripts/subarch.include, the top Makefile)
#    into build/ksft/linux-SERIES/. The tarball is
#    /usr/src/linux-source-SERIES.tar.xz when installed (6.1 and 6.12:
#    tools/vm/deps.sh). A series the harness builds from source (7.3:
#    tools/vm/kabi.sh --source-pkg) is taken from the tree
#    `tools/vm/kernel-src.sh --fetch` unpacks for the guest kernel,
#    build/linux-source-SERIES/ (fetched once for both). Otherwise the
#    package is fetched from $WDDMSEG_KSRC_SUITE (default
#    trixie-backports) with tools/vm/debsuite.sh and unpacked with
#    dpkg-deb -x into build/ksft/deb/ (nothing is installed).
#    WDDMSEG_KSRC_TARBALL names another linux-source tarball of that
#    series. A stamp names the source and its version.
# 2. Every time: the repository's files go into that tree as a patch
#    would put them (copies; only changed files, with their times, so the
#    build stays incremental; files gone from the repository go too):
#      tools/testing/selftests/drivers/gpu/wddmseg/
#      tools/lib/wddmseg/                (the tests link libwddmseg)
#      include/uapi/drm/wddmseg_drm.h
# 3. make -C tools/testing/selftests TARGETS=drivers/gpu/wddmseg
#    (in the tree, as a developer runs it; -j2), and with --install the
#    install target.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KSFT=$REPO/build/ksft

log() { echo "ksft-tree.sh: $*" >&2; }
die() { log "$*"; exit 1; }

[ $# -ge 1 ] || die "usage: ksft-tree.sh SERIES [--rebuild] [--install DIR]"
SERIES=$1
shift
case "$SERIES" in
[0-9]*.[0-9]*) ;;
*) die "not a kernel series: '$SERIES' (e.g. 6.12)" ;;
esac
INSTALL=
REBUILD=0
while [ $# -gt 0 ]; do
	case "$1" in
	--rebuild) REBUILD=1; shift ;;
	--install) [ $# -ge 2 ] || die "--install needs a directory"
		INSTALL=$2; shift 2 ;;
	*) die "unknown argument '$1'" ;;
	esac
done
case "$INSTALL" in ''|/*) ;; *) INSTALL=$PWD/$INSTALL ;; esac

WDDMSEG_KENV_FUNCTIONS=1 . "$REPO/tools/vm/kenv.sh"

TREE=$KSFT/linux-$SERIES
mkdir -p "$KSFT"
exec 9>"$TREE.lock"
flock 9

# the source: Debian's linux-source-SERIES, installed, unpacked for the
# guest kernel (KSRC) or fetched (TARBALL)
TARBALL=${WDDMSEG_KSRC_TARBALL:-/usr/src/linux-source-$SERIES.tar.xz}
KSRC=
if [ -n "${WDDMSEG_KSRC_TARBALL:-}" ] && [ ! -f "$TARBALL" ]; then
	die "WDDMSEG_KSRC_TARBALL: no file $TARBALL"
fi
src=1
if [ ! -f "$TARBALL" ]; then
	src=0
	wddmseg_source_tree "$SERIES" || src=$?
	[ $src != 2 ] || die "no source tree of Linux $SERIES"
fi
if [ $src = 0 ]; then
	STAMP=$KSRC_STAMP
elif [ ! -f "$TARBALL" ]; then
	suite=${WDDMSEG_KSRC_SUITE:-trixie-backports}
	deb=$KSFT/deb/linux-source-$SERIES
	TARBALL=$deb/usr/src/linux-source-$SERIES.tar.xz
	if [ ! -f "$TARBALL" ]; then
		log "fetching linux-source-$SERIES from $suite (tools/vm/debsuite.sh)"
		rm -rf "$deb.tmp"
		mkdir -p "$deb.tmp/dl"
		(cd "$deb.tmp/dl" &&
			bash "$REPO/tools/vm/debsuite.sh" "$suite" download "linux-source-$SERIES") ||
			die "cannot fetch linux-source-$SERIES from $suite"
		dpkg-deb -x "$deb.tmp/dl/linux-source-${SERIES}"_*.deb "$deb.tmp"
		rm -rf "$deb.tmp/dl" "$deb"
		mv "$deb.tmp" "$deb"
		[ -f "$TARBALL" ] || die "the package has no $TARBALL"
	fi
fi
[ -n "$KSRC" ] || STAMP="$TARBALL $(stat -c '%s %Y' "$TARBALL")"

if [ ! -f "$TREE/.wddmseg-stamp" ] || [ "$(cat "$TREE/.wddmseg-stamp")" != "$STAMP" ]; then
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	if [ -n "$KSRC" ]; then
		log "copying the kselftest framework of $KSRC into $TREE"
		mkdir -p "$TREE.tmp/tools/testing" "$TREE.tmp/scripts"
		cp -a "$KSRC/tools/testing/selftests" "$TREE.tmp/tools/testing/"
		cp -a "$KSRC/scripts/subarch.include" "$TREE.tmp/scripts/"
		cp -a "$KSRC/Makefile" "$TREE.tmp/"
	else
		log "extracting the kselftest framework of $TARBALL into $TREE"
		tar -xJf "$TARBALL" -C "$TREE.tmp" --strip-components=1 --wildcards \
			'*/tools/testing/selftests/*' '*/scripts/subarch.include' \
			'linux-source-*/Makefile'
	fi
	[ -f "$TREE.tmp/tools/testing/selftests/kselftest_harness.h" ] ||
		die "${KSRC:-$TARBALL} has no tools/testing/selftests/kselftest_harness.h"
	echo "$STAMP" >"$TREE.tmp/.wddmseg-stamp"
	mv "$TREE.tmp" "$TREE"
fi

# mirror REL: the repository's tracked files under REL (a directory or a
# file) into the tree
mirror() {
	local rel=$1 f
	declare -A want=()
	while IFS= read -r -d '' f; do
		want[$f]=1
		mkdir -p "$(dirname "$TREE/$f")"
		cmp -s "$REPO/$f" "$TREE/$f" || cp -p "$REPO/$f" "$TREE/$f"
	done < <(git -C "$REPO" ls-files -z -- "$rel")
	[ ${#want[@]} -gt 0 ] || die "no tracked file under $rel"
	[ -d "$REPO/$rel" ] || return 0
	# sources that left the repository (build outputs are not tracked
	# and not removed)
	while IFS= read -r -d '' f; do
		f=${f#"$TREE"/}
		[ -n "${want[$f]:-}" ] || rm -f "$TREE/$f"
	done < <(find "$TREE/$rel" -type f \( -name '*.[ch]' -o -name Makefile \
		-o -name settings -o -name config -o -name '*.in' \) -print0)
}
mirror tools/testing/selftests/drivers/gpu/wddmseg
mirror tools/lib/wddmseg
mirror include/uapi/drm/wddmseg_drm.h

version=$(awk '/^VERSION =/ {v=$3} /^PATCHLEVEL =/ {p=$3} /^SUBLEVEL =/ {s=$3}
	END {print v "." p "." s}' "$TREE/Makefile")
log "Linux ${version:-$SERIES} tree $TREE: make -C tools/testing/selftests TARGETS=drivers/gpu/wddmseg"
if [ $REBUILD = 1 ]; then
	make -C "$TREE/tools/testing/selftests" TARGETS=drivers/gpu/wddmseg clean
fi
make -C "$TREE/tools/testing/selftests" -j2 TARGETS=drivers/gpu/wddmseg
if [ -n "$INSTALL" ]; then
	rm -rf "$INSTALL"
	make -C "$TREE/tools/testing/selftests" -j2 TARGETS=drivers/gpu/wddmseg \
		install INSTALL_PATH="$INSTALL"
	if [ ! -x "$INSTALL/run_kselftest.sh" ] || [ ! -s "$INSTALL/kselftest-list.txt" ]; then
		die "the install in $INSTALL has no run_kselftest.sh or kselftest-list.txt"
	fi
	log "installed into $INSTALL: $(tr '\n' ' ' <"$INSTALL/kselftest-list.txt")"
fi
