#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The driver's KUnit suites the way kernel CI runs them: kunit.py in the
# overlaid kernel tree (tools/debug/tree.sh, Debian's linux-source-7.3),
#
#   tools/testing/kunit/kunit.py run --kunitconfig=drivers/gpu/drm/wddmseg \
#       --arch=x86_64
#
# which configures a kernel from drivers/gpu/drm/wddmseg/.kunitconfig
# (the driver and its tests built in), builds it into build/linux-kunit
# and boots it under QEMU (our build, TCG; its firmware from Debian's
# qemu-system-data), the suites running at boot.
#
# Usage: tools/debug/kunit.sh [OUT [GLOB]]
# GLOB: kunit.py's filter_glob, SUITE_GLOB[.CASE_GLOB] (default every
# suite; `make kunit S=GLOB KUNIT=py`, tools/vm/run-kunit.sh --kunit-py).
# Prints one TAP line per case ("ok - kunit.py: suite.case" or "not ok -
# ..."), from kunit.py's JSON; the full output is in OUT/kunit-py.log,
# the JSON in OUT/kunit-py.json (default build/check-debug). Exit status:
# kunit.py's (non-zero if a case failed or the kernel did not build).
# Environment: JOBS (default nproc), QEMU (default build/qemu/...).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TREE=$REPO/build/linux-tree
OBJ=$REPO/build/linux-kunit
OUT=${1:-$REPO/build/check-debug}
GLOB=${2:-}
QEMU=${QEMU:-$REPO/build/qemu/qemu-system-x86_64}
JOBS=${JOBS:-$(nproc)}

mkdir -p "$OUT" "$OBJ"
bash "$REPO/tools/debug/tree.sh" "$TREE" || exit 1
[ -x "$QEMU" ] || { echo "kunit.sh: no $QEMU (tools/qemu/build.sh)" >&2; exit 1; }

# kunit.py runs qemu-system-x86_64 from PATH
BIN=$OBJ/bin
mkdir -p "$BIN"
ln -sf "$QEMU" "$BIN/qemu-system-x86_64"

cd "$TREE" || exit 1
PATH=$BIN:$PATH python3 tools/testing/kunit/kunit.py run \
	--kunitconfig=drivers/gpu/drm/wddmseg --arch=x86_64 \
	--build_dir="$OBJ" --jobs="$JOBS" --timeout=600 \
	--qemu_args=-L --qemu_args=/usr/share/qemu \
	--json="$OUT/kunit-py.json" ${GLOB:+"$GLOB"} >"$OUT/kunit-py.log" 2>&1
rc=$?

python3 - "$OUT/kunit-py.json" <<'EOF'
import json, sys

def walk(group, prefix):
    for case in group.get("test_cases", []):
        name = prefix + case["name"]
        status = case["status"]
        if status == "PASS":
            print("ok - kunit.py: " + name)
        elif status == "SKIP":
            print("ok - kunit.py: " + name + " # SKIP")
        else:
            print("not ok - kunit.py: " + name + " (" + status + ")")
    for sub in group.get("sub_groups", []):
        walk(sub, prefix + sub["name"] + ".")

try:
    with open(sys.argv[1]) as f:
        top = json.load(f)
except (OSError, ValueError) as e:
    print("not ok - kunit.py: no JSON result (%s)" % e)
    sys.exit(0)
for suite in top.get("sub_groups", []):
    walk(suite, suite["name"] + ".")
EOF
tail -n 3 "$OUT/kunit-py.log" | sed 's/^/# /'
exit $rc
