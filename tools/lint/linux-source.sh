#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Extract the few files we use from Debian's linux-source-6.1 tarball
# (checkpatch, kernel-doc, the kselftest headers) into BUILD/linux-src.
# They are build-time tools and are never copied into the repository.
set -euo pipefail

BUILD=${1:-$(cd "$(dirname "$0")/../.." && pwd)/build}
OUT=$BUILD/linux-src
# The 6.1 tarball deps.sh installs, even when a newer linux-source-* is
# on the machine too: checkpatch and kernel-doc of one known version (the
# kselftests build with either harness: wddmseg_harness.h).
TARBALL=/usr/src/linux-source-6.1.tar.xz
[ -f "$TARBALL" ] || { echo "linux-source: no $TARBALL (tools/vm/deps.sh installs it)" >&2; exit 1; }

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
