#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the guest initramfs: build/ABI/vm/initramfs.cpio.gz, for the
# kernel KABI names (tools/vm/kenv.sh; default: the primary kernel, 6.12).
#
# Usage: tools/vm/initramfs.sh [WDDMSEG_KO]
#        (default build/ABI/src/drivers/gpu/drm/wddmseg/wddmseg.ko, the
#        module `make module` built for that kernel)
#
# Environment (all optional; the defaults are the Debian kernel of
# tools/vm/kernel.sh, as used by `make check`):
#   KABI                  the kernel: a series (6.12, 6.1) or an ABI
#   WDDMSEG_KERNEL_DIR    guest kernel in the layout of build/ABI/kernel/
#                         (abi, .stamp, lib/modules/<abi>/); default
#                         build/ABI/kernel, which this script fetches with
#                         tools/vm/kernel.sh. Any other directory must be
#                         ready (the debug tier passes build/debug/kernel,
#                         tools/debug/kernel.sh).
#   WDDMSEG_VM_DIR        output directory instead of build/ABI/vm
#   WDDMSEG_BASE_MODULES  the kernel's own modules to include, with their
#                         dependencies (space-separated; default below;
#                         empty when DRM is built in); built-in ones are
#                         skipped
#
# Contents:
#   /bin/busybox + applet symlinks        (busybox-static)
#   /init                                  tools/vm/guest/init
#   /usr/share/wddmseg-vm/                 everything in tools/vm/guest/
#   /lib/modules/<abi>/kernel/...          closure of drm, drm_kms_helper, ttm,
#                                          drm_ttm_helper, drm_vram_helper,
#                                          drm_buddy, bochs, virtio_pci and
#                                          virtio_blk (hibernation swap) and of wddmseg's
#                                          own dependencies (from modules.dep)
#   /lib/modules/<abi>/extra/wddmseg.ko    our driver
#   /usr/bin/                              build/selftests/* and build/tools/*
#                                          (plus shared libraries if dynamic)
#   /opt/kselftest/                        the kselftests as kernel CI installs
#                                          them: built in the guest kernel
#                                          series' own tree and installed with
#                                          its run_kselftest.sh
#                                          (tools/vm/ksft-tree.sh; the copy is
#                                          build/ABI/vm/kselftest), with the
#                                          shared libraries the programs need
#   /usr/bin/timeout                       coreutils' (run_kselftest.sh runs
#                                          each test under timeout
#                                          --foreground, which busybox lacks)
#   /usr/bin/modetest, vbltest, drm_info   libdrm's KMS test clients (Debian
#                                          libdrm-tests) and drm_info (Debian
#                                          drm-info) with the shared
#                                          libraries and the dynamic loader
#                                          ldd lists for them
# modules.dep & co. are regenerated with `depmod -b`, so `modprobe wddmseg`
# works with busybox modprobe. Compressed modules (.ko.xz/.ko.zst/.ko.gz)
# are stored uncompressed.
#
# Idempotent: rebuilt only when an input changed.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tools/vm
. "$HERE/kenv.sh"
DEFAULT_KDIR=$WDDMSEG_KBUILD/kernel
KDIR=${WDDMSEG_KERNEL_DIR:-$DEFAULT_KDIR}
OUT_DIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
OUT=$OUT_DIR/initramfs.cpio.gz

log() { echo "initramfs.sh: $*" >&2; }

KO=${1:-$WDDMSEG_KBUILD/src/drivers/gpu/drm/wddmseg/wddmseg.ko}
case "$KO" in /*) ;; *) KO=$REPO/$KO ;; esac

read -r -a BASE_MODULES <<<"${WDDMSEG_BASE_MODULES-drm drm_kms_helper ttm drm_ttm_helper drm_vram_helper drm_buddy bochs virtio_pci virtio_blk}"

if [ "$KDIR" -ef "$DEFAULT_KDIR" ] || [ "$KDIR" = "$DEFAULT_KDIR" ]; then
	bash "$HERE/kernel.sh"
elif [ ! -f "$KDIR/abi" ] || [ ! -f "$KDIR/.stamp" ]; then
	log "$KDIR is not a guest kernel directory (no abi or .stamp file)"
	exit 1
fi

# one build at a time (parallel VM runs may all call this)
mkdir -p "$OUT_DIR"
exec 9>"$OUT_DIR/.initramfs.lock"
flock 9
ABI=$(cat "$KDIR/abi")
KMODS=$KDIR/lib/modules/$ABI

# is_dynamic FILE: true for an ELF file that needs a program interpreter
is_dynamic() {
	local hdr
	hdr=$(readelf -l "$1" 2>/dev/null || true)
	grep -q 'program interpreter' <<<"$hdr"
}

BUSYBOX=
for b in /bin/busybox /usr/bin/busybox "$(command -v busybox || true)"; do
	if [ -x "$b" ] && ! is_dynamic "$b"; then BUSYBOX=$b; break; fi
done
if [ -z "$BUSYBOX" ]; then
	log "busybox not found (install busybox-static: tools/vm/deps.sh)"
	exit 1
fi

# Extra binaries: whatever exists in build/selftests and build/tools.
EXTRA_BINS=()
for d in "$REPO/build/selftests" "$REPO/build/tools"; do
	[ -d "$d" ] || continue
	while IFS= read -r -d '' f; do
		EXTRA_BINS+=("$f")
	done < <(find "$d" -maxdepth 1 -type f -perm -u+x -print0 | sort -z)
done

# Host programs the guest runs: Debian's, dynamically linked.
HOST_BINS=()
for b in modetest vbltest drm_info timeout; do
	p=$(command -v "$b" || true)
	if [ -z "$p" ]; then
		log "$b not found (install libdrm-tests, drm-info and coreutils: tools/vm/deps.sh)"
		exit 1
	fi
	HOST_BINS+=("$p")
done

# The kselftest install of the guest kernel's series (its first two
# numbers: 6.12, 6.1, 7.3), built in that series' tree.
KSFT_SERIES=$(cut -d. -f1,2 <<<"$ABI")
KSFT_INST=$OUT_DIR/kselftest
if ! bash "$HERE/ksft-tree.sh" "$KSFT_SERIES" --install "$KSFT_INST" \
	>"$OUT_DIR/kselftest.log" 2>&1; then
	log "the kselftests of Linux $KSFT_SERIES's tree did not build (see $OUT_DIR/kselftest.log):"
	tail -n 20 "$OUT_DIR/kselftest.log" >&2
	exit 1
fi

if [ -f "$KO" ]; then
	vm=$(modinfo -F vermagic "$KO" 2>/dev/null | awk '{print $1}')
	if [ "$vm" != "$ABI" ]; then
		log "ERROR: $KO was built for '$vm', the guest kernel is $ABI"
		exit 1
	fi
else
	log "WARNING: $KO does not exist; the initramfs has no wddmseg.ko"
	KO=
fi

# Stamp of every input, to skip the rebuild when nothing changed.
stamp() {
	{
		echo "abi $ABI ko ${KO:-none} kdir $KDIR base ${BASE_MODULES[*]}"
		cat "$KDIR/.stamp"
		sha256sum "${BASH_SOURCE[0]}" "$BUSYBOX" ${KO:+"$KO"} \
			${EXTRA_BINS[@]+"${EXTRA_BINS[@]}"} \
			${HOST_BINS[@]+"${HOST_BINS[@]}"}
		find "$HERE/guest" -type f -print0 | sort -z | xargs -0 sha256sum
		(cd "$KSFT_INST" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
	} | sha256sum | cut -d' ' -f1
}
STAMP=$(stamp)
if [ -f "$OUT" ] && [ -f "$OUT.stamp" ] && [ "$(cat "$OUT.stamp")" = "$STAMP" ]; then
	exit 0
fi

ROOT=$OUT_DIR/initramfs.root
rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,etc/wddmseg,proc,sys,dev,tmp,run,root} \
	"$ROOT/lib/modules/$ABI" "$ROOT/usr/share/wddmseg-vm"
ln -s lib "$ROOT/lib64"

# busybox and its applets
cp "$BUSYBOX" "$ROOT/bin/busybox"
while read -r applet; do
	applet=${applet#/}
	[ "$applet" = bin/busybox ] && continue
	[ -e "$ROOT/$applet" ] && continue
	mkdir -p "$ROOT/$(dirname "$applet")"
	ln -s /bin/busybox "$ROOT/$applet"
done < <("$ROOT/bin/busybox" --list-full)

# the kernel opens /dev/console before /init runs
mknod -m 600 "$ROOT/dev/console" c 5 1
mknod -m 666 "$ROOT/dev/null" c 1 3

# /init and the guest scripts
cp "$HERE/guest/init" "$ROOT/init"
chmod 755 "$ROOT/init"
cp -r "$HERE/guest/." "$ROOT/usr/share/wddmseg-vm/"
# module options of the test boots (fbdev=0, see the file)
mkdir -p "$ROOT/etc/modprobe.d"
cp "$HERE/guest/modprobe.conf" "$ROOT/etc/modprobe.d/wddmseg.conf"

# copy_module FILE: store a module of the kernel tree at the same relative
# path, uncompressed.
copy_module() {
	local src=$1 rel dst
	rel=${src#"$KMODS"/}
	dst=$ROOT/lib/modules/$ABI/$rel
	mkdir -p "$(dirname "$dst")"
	case "$src" in
	*.ko) cp "$src" "$dst" ;;
	*.ko.xz) xz -dc "$src" >"${dst%.xz}" ;;
	*.ko.zst) zstd -qdc "$src" >"${dst%.zst}" ;;
	*.ko.gz) gzip -dc "$src" >"${dst%.gz}" ;;
	*) log "unknown module file $src"; exit 1 ;;
	esac
}

# The dependency closure, from the kernel tree's modules.dep (kmod's
# modprobe resolves it without loading anything).
wanted=(${BASE_MODULES[@]+"${BASE_MODULES[@]}"})
if [ -n "$KO" ]; then
	deps=$(modinfo -F depends "$KO" | tr ',' ' ')
	for m in $deps; do wanted+=("$m"); done
fi
declare -A seen=()
for m in "${wanted[@]}"; do
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		[ -n "${seen[$path]:-}" ] && continue
		seen[$path]=1
		copy_module "$path"
	done < <(modprobe -d "$KDIR" -S "$ABI" --show-depends "$m")
done
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -f "$KMODS/$f" ] && cp "$KMODS/$f" "$ROOT/lib/modules/$ABI/"
done
if [ -n "$KO" ]; then
	mkdir -p "$ROOT/lib/modules/$ABI/extra"
	cp "$KO" "$ROOT/lib/modules/$ABI/extra/wddmseg.ko"
fi
depmod -b "$ROOT" "$ABI"

# copy_libs BIN: shared libraries of a dynamic executable.
copy_libs() {
	local lib
	ldd "$1" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$ROOT$(dirname "$lib")"
		[ -e "$ROOT$lib" ] || cp -L "$lib" "$ROOT$lib"
	done
}
for f in ${EXTRA_BINS[@]+"${EXTRA_BINS[@]}"}; do
	cp "$f" "$ROOT/usr/bin/"
	if is_dynamic "$f"; then
		log "note: $(basename "$f") is dynamically linked; adding its libraries"
		copy_libs "$f"
	fi
done
for f in ${HOST_BINS[@]+"${HOST_BINS[@]}"}; do
	# not through a busybox applet's link (timeout)
	rm -f "$ROOT/usr/bin/$(basename "$f")"
	cp -L "$f" "$ROOT/usr/bin/"
	copy_libs "$f"
done
mkdir -p "$ROOT/opt"
cp -a "$KSFT_INST" "$ROOT/opt/kselftest"
while IFS= read -r -d '' f; do
	is_dynamic "$f" && copy_libs "$f"
done < <(find "$ROOT/opt/kselftest" -type f -perm -u+x -print0)

mkdir -p "$OUT_DIR"
(cd "$ROOT" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --reproducible --quiet) |
	gzip -n -6 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$STAMP" >"$OUT.stamp"
nmods=$(find "$ROOT/lib/modules" -name '*.ko' | wc -l)
log "ok: $OUT ($(du -h "$OUT" | cut -f1), $nmods modules, ${#EXTRA_BINS[@]} extra binaries, ${#HOST_BINS[@]} host programs, /opt/kselftest of Linux $KSFT_SERIES${KO:+, wddmseg.ko})"
