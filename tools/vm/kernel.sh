#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fetch the guest kernel of one supported kernel (KABI, tools/vm/kenv.sh):
# `apt-get download linux-image-<abi>` + `dpkg-deb -x` into build/ABI/kernel/.
# A kernel built from source (7.3) is built by tools/vm/kernel-src.sh
# instead, into the same layout.
#
# Produces:
#   build/ABI/kernel/vmlinuz                the guest kernel (bzImage)
#   build/ABI/kernel/vmlinux                the same, decompressed: an ELF
#                                           with a PVH entry note that QEMU
#                                           boots directly (-kernel), which
#                                           saves ~6 s of in-guest
#                                           decompression per boot under TCG
#   build/ABI/kernel/lib/modules/<abi>/     its module tree
#   build/ABI/kernel/abi                    the ABI name (e.g. 6.1.0-56-amd64)
#
# Idempotent: does nothing when the directory already holds the right image.
# Environment: KABI=<series or abi> (default: the primary kernel, 6.12;
# tools/vm/kabi.sh, the same as the Makefile's).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh"
# a kernel built from Debian's linux-source (7.3): same layout, built here
if bash "$REPO/tools/vm/kabi.sh" --source-pkg "$WDDMSEG_KSERIES" >/dev/null; then
	exec bash "$REPO/tools/vm/kernel-src.sh"
fi
ABI=$WDDMSEG_KABI
OUT=$WDDMSEG_KBUILD/kernel

log() { echo "kernel.sh: $*" >&2; }

# one build at a time (parallel VM runs may all call this)
mkdir -p "$WDDMSEG_KBUILD"
exec 9>"$WDDMSEG_KBUILD/.kernel.lock"
flock 9
PKG=linux-image-$ABI
# Same upload as the installed headers if we can tell, so vermagic and
# symbol versions match exactly.
VER=$(dpkg-query -W -f='${Version}' "linux-headers-$ABI" 2>/dev/null || true)
# bump the last field when the layout of build/kernel changes
STAMP="$PKG ${VER:-any} 2"

if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$STAMP" ] &&
   [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/lib/modules/$ABI/modules.dep" ]; then
	exit 0
fi

# extract_vmlinux BZIMAGE OUT: decompress the payload of a bzImage (as the
# kernel's scripts/extract-vmlinux does) and keep it if it is a bootable ELF
# with a PVH entry point (Xen note type 0x12, CONFIG_PVH).
extract_vmlinux() {
	local img=$1 out=$2 magic cmd off
	for magic in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd' 'gzip:\x1f\x8b\x08'; do
		cmd=${magic%%:*}
		for off in $(LC_ALL=C grep -obUaP "${magic#*:}" "$img" | cut -d: -f1); do
			case $cmd in
			xz) tail -c +$((off + 1)) "$img" | xz -dc --single-stream >"$out" 2>/dev/null ;;
			zstd) tail -c +$((off + 1)) "$img" | zstd -qdc >"$out" 2>/dev/null ;;
			gzip) tail -c +$((off + 1)) "$img" | gzip -dc >"$out" 2>/dev/null ;;
			esac
			local notes
			notes=$(readelf -n "$out" 2>/dev/null || true)
			if grep -q 'Xen.*(0x00000012)' <<<"$notes"; then
				return 0
			fi
		done
	done
	rm -f "$out"
	return 1
}

log "fetching $PKG ${VER:+($VER)}"
DL=$WDDMSEG_KBUILD/kernel.dl
rm -rf "$DL"
mkdir -p "$DL"
# apt drops privileges to _apt for downloads; let it write here.
chown _apt "$DL" 2>/dev/null || true
(
	cd "$DL"
	if [ -n "$VER" ] && apt-get download -q "$PKG=$VER" >&2; then
		:
	elif apt-get download -q "$PKG" >&2; then
		:
	else
		# the image may only be known after an index refresh
		log "apt-get download failed; running apt-get update"
		apt-get update -q >&2
		apt-get download -q "$PKG" >&2
	fi
)
DEB=$(ls "$DL"/"$PKG"_*.deb | head -n1)

TMP=$WDDMSEG_KBUILD/kernel.tmp
rm -rf "$TMP"
mkdir -p "$TMP"
dpkg-deb -x "$DEB" "$TMP"
cp "$TMP/boot/vmlinuz-$ABI" "$TMP/vmlinuz"
if ! extract_vmlinux "$TMP/vmlinuz" "$TMP/vmlinux"; then
	log "note: no PVH-bootable vmlinux in the bzImage; VMs boot vmlinuz (slower)"
fi
[ -f "$TMP/boot/config-$ABI" ] && cp "$TMP/boot/config-$ABI" "$TMP/config"
echo "$ABI" >"$TMP/abi"
depmod -b "$TMP" "$ABI"
echo "$STAMP" >"$TMP/.stamp"

rm -rf "$OUT"
mv "$TMP" "$OUT"
rm -rf "$DL"
log "ok: $OUT/vmlinuz ($ABI)"
