#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the guest kernel of a source-built supported kernel (Linux 7.3;
# tools/vm/kabi.sh --source-pkg) from Debian's linux-source-SERIES and
# install it where tools/vm/kernel.sh puts a Debian image, so that
# run-vm.sh and initramfs.sh take it unchanged. tools/vm/kernel.sh calls
# this for such a kernel.
#
# Usage: tools/vm/kernel-src.sh [--fetch | --prepare]
#   --fetch     stop once the source is unpacked (tools/lint/ takes its
#               checkpatch and kernel-doc from there)
#   --prepare   stop after the configuration and `make modules_prepare`
#               (enough to compile wddmseg.ko against it, not to link it:
#               no Module.symvers yet)
#
#   1. fetch: `tools/vm/debsuite.sh SUITE download linux-source-SERIES`
#      (another Debian suite, without touching the host's apt state),
#      `dpkg-deb -x`, the tarball inside unpacked once into
#      build/linux-source-SERIES/ (its version in .wddmseg-deb-version);
#   2. configuration: `make tinyconfig`, merge tools/vm/kernel.config,
#      `make olddefconfig`; every line of the fragment must survive;
#      redone only when the fragment or the source changed;
#   3. `make bzImage modules`, objects in build/linux-SERIES/ (O=), never
#      in the source tree. That directory is the KDIR the out-of-tree
#      module builds against (Module.symvers, .config);
#   4. install into build/ABI/kernel/ in the layout of a Debian image:
#      vmlinuz, vmlinux (PVH entry note), config, System.map, abi (the
#      kernel release, e.g. 7.3.4-wddmseg), .stamp and
#      lib/modules/ABI/ with modules.dep.
#
# Incremental: a second run with nothing changed takes seconds.
# Environment: KABI (tools/vm/kenv.sh), JOBS (make -j; default nproc).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$REPO/tools/vm/kenv.sh"
FRAG=$REPO/tools/vm/kernel.config
JOBS=${JOBS:-$(nproc)}
PREPARE=0 FETCH=0
case "${1:-}" in
--fetch) FETCH=1 ;;
--prepare) PREPARE=1 ;;
'') ;;
*) echo "kernel-src.sh: unknown argument '$1'" >&2; exit 2 ;;
esac

log() { echo "kernel-src.sh: $*" >&2; }
die() { log "FAILED: $*"; exit 1; }

read -r SUITE PKG < <(bash "$REPO/tools/vm/kabi.sh" --source-pkg "$WDDMSEG_KSERIES") ||
	die "Linux $WDDMSEG_KSERIES is not built from source (tools/vm/kabi.sh)"
SRC=$REPO/build/$PKG
OBJ=$REPO/build/linux-$WDDMSEG_KSERIES
OUT=$WDDMSEG_KBUILD/kernel

t0=$(date +%s)
mkdir -p "$REPO/build" "$WDDMSEG_KBUILD"
# Two locks: the source tree's (fd 9, held for the fetch only) and the
# build's (fd 8, "$OBJ.lock": configuration, build, install). A --fetch
# (kenv.sh, the lint's checkpatch, the in-tree kselftests) then never
# waits for a build, which make check runs in the background
# (tools/check.sh). An unpack replaces the tree a build reads, so it
# takes the build's lock too.
exec 9>"$REPO/build/.$PKG.lock"
flock 9

# --- 1. fetch -------------------------------------------------------------------
VER=$(bash "$REPO/tools/vm/debsuite.sh" "$SUITE" version "$PKG" 2>/dev/null) ||
	VER=$(cat "$SRC/.wddmseg-deb-version" 2>/dev/null) ||
	die "$SUITE has no $PKG and none is unpacked in $SRC"
if [ "$(cat "$SRC/.wddmseg-deb-version" 2>/dev/null)" != "$VER" ]; then
	exec 8>"$OBJ.lock"
	flock 8
	log "fetching $PKG $VER from $SUITE"
	DL=$REPO/build/$PKG.dl
	rm -rf "$DL" "$SRC"
	mkdir -p "$DL/x" "$SRC"
	(cd "$DL" && bash "$REPO/tools/vm/debsuite.sh" "$SUITE" download "$PKG=$VER")
	dpkg-deb -x "$DL/${PKG}_"*.deb "$DL/x"
	tarball=$(ls "$DL/x/usr/src/$PKG".tar.*)
	log "unpacking $(basename "$tarball")"
	tar -xf "$tarball" -C "$SRC" --strip-components=1
	rm -rf "$DL"
	echo "$VER" >"$SRC/.wddmseg-deb-version"
fi
[ $FETCH = 0 ] || exit 0
exec 9>&-
exec 8>"$OBJ.lock"
flock 8
# what a fetch between the two locks unpacked
VER=$(cat "$SRC/.wddmseg-deb-version")

# an empty LOCALVERSION on the command line: no "+" from
# scripts/setlocalversion (the release is 7.3.N + CONFIG_LOCALVERSION)
KMAKE=(make -C "$SRC" O="$OBJ" LOCALVERSION= -j"$JOBS")
mkdir -p "$OBJ" "$OUT.logs"
# nouveau is configured only for what it selects (tools/vm/kernel.config):
# an empty CONFIG_DRM_NOUVEAU on the command line overrides the
# configuration's value in the Makefiles, so its directory is not built
# and modules.order does not list it. Not in KMAKE: kconfig_tiny must see
# the real configuration.
BUILD_ONLY=(CONFIG_DRM_NOUVEAU=)

# --- 2. configuration -----------------------------------------------------------
cfg_stamp() {
	{
		echo "$VER"
		cat "$FRAG" "$SRC/kernel/configs/tiny.config" "$SRC/arch/x86/configs/tiny.config"
	} | sha256sum | cut -d' ' -f1
}
. "$REPO/tools/vm/kconfig.sh"
kconfig_tiny "$SRC" "$OBJ" "$FRAG" "$(cfg_stamp)" "${KMAKE[@]}" ||
	die "$(basename "$FRAG") does not apply (a dependency is missing?)"

if [ $PREPARE = 1 ]; then
	"${KMAKE[@]}" -s modules_prepare >"$OUT.logs/prepare.log" 2>&1 ||
		{ tail -n 40 "$OUT.logs/prepare.log" >&2; die "make modules_prepare (log $OUT.logs/prepare.log)"; }
	log "prepared: $OBJ"
	exit 0
fi

# --- 3. the kernel and its modules ----------------------------------------------
BLOG=$OUT.logs/build.log
t1=$(date +%s)
log "building Linux $WDDMSEG_KSERIES (make -j$JOBS bzImage modules; log $BLOG)"
if ! "${KMAKE[@]}" "${BUILD_ONLY[@]}" bzImage modules >"$BLOG" 2>&1; then
	tail -n 40 "$BLOG" >&2
	die "kernel build (log $BLOG)"
fi
t2=$(date +%s)
KREL=$(cat "$OBJ/include/config/kernel.release")
[ "$KREL" = "$WDDMSEG_KABI" ] ||
	die "built release $KREL, expected $WDDMSEG_KABI (tools/vm/kabi.sh and $FRAG disagree)"

# --- 4. install --------------------------------------------------------------------
kstamp() {
	{
		echo "$KREL"
		sha256sum "$OBJ/vmlinux" "$OBJ/arch/x86/boot/bzImage" "$OBJ/.config"
		find "$OBJ" -name '*.ko' -print0 | sort -z | xargs -0 -r sha256sum
	} | sha256sum | cut -d' ' -f1
}
KSTAMP="source $PKG $VER $KREL $(kstamp)"
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$KSTAMP" ] &&
   [ -f "$OUT/lib/modules/$KREL/modules.dep" ]; then
	log "up to date: $OUT ($KREL; build step $((t2 - t1))s, total $(($(date +%s) - t0))s)"
	exit 0
fi
TMP=$OUT.tmp
rm -rf "$TMP"
mkdir -p "$TMP"
"${KMAKE[@]}" "${BUILD_ONLY[@]}" -s INSTALL_MOD_PATH="$TMP" modules_install >"$OUT.logs/install.log" 2>&1 ||
	{ cat "$OUT.logs/install.log" >&2; die "modules_install"; }
# modules_install links build/source back into the tree: not wanted here
rm -f "$TMP/lib/modules/$KREL/build" "$TMP/lib/modules/$KREL/source"
depmod -b "$TMP" "$KREL"
cp "$OBJ/arch/x86/boot/bzImage" "$TMP/vmlinuz"
# the ELF QEMU boots through its PVH note (CONFIG_PVH), stripped of
# nothing: the config has no debug info
if readelf -n "$OBJ/vmlinux" 2>/dev/null | grep -q 'Xen.*(0x00000012)'; then
	cp "$OBJ/vmlinux" "$TMP/vmlinux"
else
	log "note: $OBJ/vmlinux has no PVH entry note; VMs boot vmlinuz (slower)"
fi
cp "$OBJ/.config" "$TMP/config"
cp "$OBJ/System.map" "$TMP/System.map"
echo "$KREL" >"$TMP/abi"
echo "$KSTAMP" >"$TMP/.stamp"
rm -rf "$OUT"
mv "$TMP" "$OUT"
log "ok: $OUT ($KREL from $PKG $VER; build step $((t2 - t1))s, total $(($(date +%s) - t0))s)"
