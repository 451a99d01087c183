#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Extract the few files we use from a kernel's Debian linux-source
# package (checkpatch, kernel-doc, the kselftest headers) into
# build/ABI/linux-src (or OUT), for the kernel KABI names
# (tools/vm/kenv.sh): linux-source-6.12 for 6.12, linux-source-6.1 for
# 6.1 (installed tarballs), and for a kernel built from source (7.3) the
# tree tools/vm/kernel-src.sh unpacked in build/linux-source-7.3, so that
# each kernel's code is checked by its own checkpatch (OUT is then a link
# to that tree).
# They are build-time tools and are never copied into the repository.
#
# Usage: tools/lint/linux-source.sh [OUT]
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh"
OUT=${1:-$WDDMSEG_KBUILD/linux-src}
TARBALL=/usr/src/linux-source-$WDDMSEG_KSERIES.tar.xz

FILES=(
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
	scripts/kernel-doc
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
)

stamp=$OUT/.stamp
if bash "$REPO/tools/vm/kabi.sh" --source-pkg "$WDDMSEG_KSERIES" >/dev/null; then
	TREE=$REPO/build/linux-source-$WDDMSEG_KSERIES
	bash "$REPO/tools/vm/kernel-src.sh" --fetch
	# the whole tree, linked: since 6.15 kernel-doc is a Python program
	# with its library in tools/lib/python/
	[ "$(readlink "$OUT" 2>/dev/null)" = "$TREE" ] && exit 0
	rm -rf "$OUT"
	ln -s "$TREE" "$OUT"
	exit 0
fi
[ -f "$TARBALL" ] || { echo "linux-source: no $TARBALL (tools/vm/deps.sh installs it)" >&2; exit 1; }
want="$TARBALL $(stat -c '%s %Y' "$TARBALL")"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi

top=$(basename "$TARBALL" .tar.xz)
rm -rf "$OUT"
mkdir -p "$OUT"
echo "linux-source: extracting ${FILES[*]} from $TARBALL"
tar -xJf "$TARBALL" -C "$OUT" --strip-components=1 "${FILES[@]/#/$top/}"
echo "$want" >"$stamp"
