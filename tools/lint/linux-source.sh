#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Extract the few files we use from Debian's linux-source-6.1 tarball
# (checkpatch, kernel-doc, the kselftest headers) into BUILD/linux-src.
# They are build-time tools and are never copied into the repository.
set -euo pipefail

BUILD=${1:-$(cd "$(dirname "$0")/../.." && pwd)/build}
OUT=$BUILD/linux-src
# 6.1 exactly, the kernel the module and the selftests are written against:
# another linux-source-* on the machine (6.12's kselftest_harness.h has no
# _metadata->skip) must not be picked because it sorts last.
TARBALL=/usr/src/linux-source-6.1.tar.xz
[ -f "$TARBALL" ] || { echo "linux-source: no $TARBALL (tools/vm/deps.sh installs linux-source-6.1)" >&2; exit 1; }

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
