# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced by the harness scripts (REPO set): which kernel they work for,
# and where its build outputs are. Everything kernel-specific lives in
# build/ABI/ (one directory per kernel, so that make check can run both
# kernels from one checkout):
#
#   build/ABI/src/         a copy of the driver (and its uapi header) that
#                          `make module` builds out of tree: wddmseg.ko
#   build/ABI/linux-src/   checkpatch and kernel-doc of that kernel's Debian
#                          linux-source package (tools/lint/)
#   build/ABI/kernel/      the guest kernel (tools/vm/kernel.sh): a Debian
#                          image, or for a kernel built from Debian's
#                          linux-source (7.3) the one tools/vm/kernel-src.sh
#                          built in build/linux-SERIES/
#   build/ABI/vm/          the initramfs and the VM outputs (run-vm.sh)
#   build/ABI/check/, kms/, lint/   make check's logs for that kernel
#
# QEMU (build/qemu), the libdrm tools (build/tools), the kselftests
# (build/selftests) and the debug tier (build/debug, build/linux-*) are
# shared.
#
# Input: KABI, a kernel series (6.12, 6.1) or ABI; empty: the primary
# kernel (tools/vm/kabi.sh). WDDMSEG_KABI, when set, is the ABI already
# resolved (make check exports it).
# Output (exported): WDDMSEG_KABI, WDDMSEG_KSERIES, WDDMSEG_KBUILD,
# WDDMSEG_KDIR (what out-of-tree modules build against: Debian's
# /usr/src/linux-headers-ABI, or build/linux-SERIES, the O= directory of
# a kernel built from source).
#
# Also defined here, for scripts that need a kernel's source but not a
# guest kernel (tools/vm/ksft-tree.sh, tools/debug/tree.sh): with
# WDDMSEG_KENV_FUNCTIONS=1 in the environment of the `.` command, only the
# functions are defined and no kernel is resolved.
#
#   wddmseg_source_tree SERIES
#       for a series the harness builds from Debian's linux-source of
#       another suite (tools/vm/kabi.sh --source-pkg; 7.3): the tree
#       `tools/vm/kernel-src.sh --fetch` unpacks for the guest kernel, in
#       KSRC, and KSRC_STAMP naming it with its Debian version (so that
#       the package is fetched and unpacked once for every user). Returns
#       1 for a series that is not built from source (its source is the
#       installed /usr/src/linux-source-SERIES.tar.xz: the caller's
#       business), 2 when the fetch failed.

wddmseg_source_tree() {
	local series=$1 _suite pkg
	KSRC='' KSRC_STAMP=''
	read -r _suite pkg < <(bash "$REPO/tools/vm/kabi.sh" --source-pkg "$series" 2>/dev/null) ||
		return 1
	KSRC=$REPO/build/$pkg
	if ! env -u WDDMSEG_KABI KABI="$series" bash "$REPO/tools/vm/kernel-src.sh" --fetch; then
		echo "kenv: tools/vm/kernel-src.sh --fetch ($pkg) failed" >&2
		return 2
	fi
	KSRC_STAMP="$KSRC $(cat "$KSRC/.wddmseg-deb-version")"
}

[ "${WDDMSEG_KENV_FUNCTIONS:-}" = 1 ] && return 0

if [ -z "${WDDMSEG_KABI:-}" ]; then
	WDDMSEG_KABI=$(bash "$REPO/tools/vm/kabi.sh" ${KABI:+"$KABI"}) || return 1
fi
WDDMSEG_KSERIES=$(bash "$REPO/tools/vm/kabi.sh" --series "$WDDMSEG_KABI") || return 1
WDDMSEG_KBUILD=$REPO/build/$WDDMSEG_KABI
if bash "$REPO/tools/vm/kabi.sh" --source-pkg "$WDDMSEG_KSERIES" >/dev/null; then
	WDDMSEG_KDIR=$REPO/build/linux-$WDDMSEG_KSERIES
else
	WDDMSEG_KDIR=/usr/src/linux-headers-$WDDMSEG_KABI
fi
export WDDMSEG_KABI WDDMSEG_KSERIES WDDMSEG_KBUILD WDDMSEG_KDIR
