#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the wddmseg module on this machine through DKMS, or remove it.
# As root; `make dkms-install` and `make dkms-uninstall` call it.
#
# Usage: tools/dkms/dkms.sh install DIR
#            write the source tree into DIR (tools/dkms/source.sh), copy it
#            to /usr/src/wddmseg-VERSION (an older copy of the same version
#            is removed from dkms first), `dkms add`, then `dkms install`
#            for every kernel with headers in /lib/modules/KERNEL/build, or
#            only those of DKMS_KERNELS (space-separated ABIs). Kernels
#            dkms.conf excludes (older than 6.1, or without the DRM helpers)
#            are reported and skipped. AUTOINSTALL makes dkms build it for
#            kernels installed later.
#        tools/dkms/dkms.sh uninstall
#            `dkms remove wddmseg/VERSION --all` and remove
#            /usr/src/wddmseg-VERSION.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

die() { echo "dkms.sh: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root: dkms installs into /usr/src, /var/lib/dkms and /lib/modules"
command -v dkms >/dev/null || die "dkms is not installed (apt-get install dkms)"
VERSION=$(bash "$REPO/tools/dkms/source.sh" --version)
SRCTREE=/usr/src/wddmseg-$VERSION

remove() {
	if [ -e "/var/lib/dkms/wddmseg/$VERSION" ]; then
		dkms remove "wddmseg/$VERSION" --all
	fi
	rm -rf "$SRCTREE"
}

case "${1:-}" in
install)
	[ -n "${2:-}" ] || die "usage: $0 install DIR"
	src=$(bash "$REPO/tools/dkms/source.sh" "$2")
	remove
	cp -a "$src" "$SRCTREE"
	dkms add "wddmseg/$VERSION"
	if [ -n "${DKMS_KERNELS:-}" ]; then
		read -r -a kernels <<<"$DKMS_KERNELS"
	else
		kernels=()
		for d in /lib/modules/*/build/include; do
			[ -d "$d" ] || continue
			d=${d%/build/include}
			kernels+=("${d#/lib/modules/}")
		done
	fi
	[ ${#kernels[@]} -gt 0 ] ||
		die "no kernel headers in /lib/modules/*/build (install linux-headers-$(uname -r))"
	failed=()
	for k in "${kernels[@]}"; do
		rc=0
		dkms install "wddmseg/$VERSION" -k "$k" || rc=$?
		case $rc in
		0) ;;
		77) echo "dkms.sh: $k skipped: dkms.conf's BUILD_EXCLUSIVE rules exclude it" ;;
		*) failed+=("$k") ;;
		esac
	done
	dkms status wddmseg
	[ ${#failed[@]} -eq 0 ] ||
		die "dkms install failed for: ${failed[*]} (logs in /var/lib/dkms/wddmseg/$VERSION/KERNEL/)"
	;;
uninstall)
	remove
	dkms status wddmseg
	;;
*)
	sed -n '/^# Usage:/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
