#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Extract the few files we use from Debian's linux-source-6.1 tarball
# (checkpatch, kernel-doc, the kselftest headers) into BUILD/linux-src.
# They are build-time tools and are never copied into the repository.
set -euo pipefail

BUILD=${1:-$(cd "$(dirname "$0")/../.." && pwd)/build}
OUT=$BUILD/linux-src
# Debian 12's 6.1, which the guest runs and the README names, even when a
# newer linux-source (bookworm-backports) is installed next to it: its
# kselftest harness and checkpatch differ. Else the newest there is.
TARBALL=/usr/src/linux-source-6.1.tar.xz
[ -f "$TARBALL" ] ||
	TARBALL=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$TARBALL" ] || { echo "linux-source: no /usr/src/linux-source-*.tar.xz" >&2; exit 1; }

FILES=(
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
	scripts/kernel-doc
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
)

stamp=$OUT/.stamp
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$TARBALL" ]; then
	exit 0
fi

top=$(basename "$TARBALL" .tar.xz)
rm -rf "$OUT"
mkdir -p "$OUT"
echo "linux-source: extracting ${FILES[*]} from $TARBALL"
tar -xJf "$TARBALL" -C "$OUT" --strip-components=1 "${FILES[@]/#/$top/}"
echo "$TARBALL" >"$stamp"
