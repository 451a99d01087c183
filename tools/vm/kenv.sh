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
