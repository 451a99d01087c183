#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install every Debian 12 package the build, the VM and the tests need
# (libdrm-tests: modetest and vbltest, drm-info: drm_info, run in the VM;
# python3: tools/vm/screendump.py;
# libpixman-1-dev, also a QEMU build dependency: the RGB565 host check).
# The supported kernels (tools/vm/kabi.sh), headers and source each:
# Linux 6.12 from Debian 12's security archive (linux-headers-6.12-amd64
# follows its newest upload) and 6.1, Debian 12's own (linux-headers-amd64).
# Their guest images are downloaded, not installed (tools/vm/kernel.sh).
# Linux 7.3, the primary kernel, is built from Debian's linux-source-7.3
# of trixie-backports (fetched by tools/vm/kernel-src.sh, not installed);
# its build needs bc, bison, flex and libelf-dev (objtool).
# Idempotent: does nothing when all packages are already installed.
set -euo pipefail

PKGS=(
	build-essential bc bison flex kmod cpio gzip xz-utils git
	libelf-dev
	linux-headers-6.12-amd64 linux-source-6.12
	linux-headers-amd64 linux-source-6.1
	libdrm-dev libdrm-tests drm-info busybox-static python3
	dpkg-dev ninja-build meson pkg-config python3-venv
	libglib2.0-dev libpixman-1-dev libfdt-dev
	seabios ipxe-qemu qemu-system-data
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# deb-src entries for `apt-get source qemu`, same suites as the deb entries.
if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	for f in /etc/apt/sources.list.d/debian.sources; do
		[ -f "$f" ] || continue
		sed 's/^Types: deb$/Types: deb-src/' "$f" |
			$SUDO tee /etc/apt/sources.list.d/wddmseg-src.sources >/dev/null
	done
	if [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list; then
		grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
			$SUDO tee /etc/apt/sources.list.d/wddmseg-src.list >/dev/null
	fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
