#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install every Debian 12 package the build, the VM and the tests need
# (libdrm-tests: modetest and vbltest, drm-info: drm_info, run in the VM;
# python3: tools/vm/screendump.py; rsync: the kselftest install, lib.mk;
# libpixman-1-dev, also a QEMU build dependency: the RGB565 host check;
# dkms: make check's DKMS stage and `make dkms-install`, tools/dkms/).
# The supported kernels (tools/vm/kabi.sh), headers and source each:
# Linux 6.12 from Debian 12's security archive (linux-headers-6.12-amd64
# follows its newest upload) and 6.1, Debian 12's own (linux-headers-amd64).
# Their guest images are downloaded, not installed (tools/vm/kernel.sh).
# QEMU 10.0's source and meson 1.7 come from other suites (trixie,
# bookworm-backports) and are fetched, not installed, by tools/qemu/build.sh
# through tools/vm/debsuite.sh; this installs its Debian 12 build
# dependencies (dpkg-dev, ninja-build, python3-venv, glib, pixman, libfdt).
# Linux 7.3, the primary kernel, is built from Debian's linux-source-7.3
# of trixie-backports (fetched by tools/vm/kernel-src.sh, not installed);
# its build needs bc, bison, flex and libelf-dev (objtool).
# Idempotent: does nothing when all packages are already installed.
set -euo pipefail

PKGS=(
	build-essential bc bison flex kmod cpio gzip xz-utils git rsync
	libelf-dev
	linux-headers-6.12-amd64 linux-source-6.12
	linux-headers-amd64 linux-source-6.1
	libdrm-dev libdrm-tests drm-info busybox-static python3
	dpkg-dev ninja-build pkg-config python3-venv
	libglib2.0-dev libpixman-1-dev libfdt-dev
	seabios ipxe-qemu qemu-system-data
	dkms
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
