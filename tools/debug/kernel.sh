#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the debug kernel (KASAN, lockdep, kmemleak, debugobjects,
# DMA-API debug, UBSAN, KUnit) with wddmseg built in-tree as a module.
#
# Usage: tools/debug/kernel.sh
#
#   1. tools/debug/tree.sh: build/linux-tree, Debian's linux-source-7.3
#      (unpacked by tools/vm/kernel-src.sh --fetch) with the repository's driver, uapi header, docs and selftests
#      linked in and hooked into the DRM Kconfig and Makefile;
#   2. configuration: `make tinyconfig`, merge tools/debug/debug.config,
#      `make olddefconfig`; every line of the fragment must survive;
#      redone only when the fragment, the tree or our Kconfig changed;
#   3. drivers/gpu/drm/wddmseg/ alone with W=1: any warning in our files
#      fails (this is the only W=1 build of the KUnit tests, which the
#      out-of-tree build never compiles); skipped when the driver's
#      sources and the config are those of the last clean W=1 build (the
#      normal build that follows recompiles the driver without W=1);
#   4. `make bzImage modules`, objects in build/linux-debug (O=), never
#      in the source tree nor in the repository;
#   5. install into build/debug/kernel/ in the layout of build/kernel/
#      (tools/vm/kernel.sh), so the VM harness takes it as it is:
#        vmlinuz, config, System.map, abi (the kernel release), .stamp,
#        lib/modules/<release>/ with modules.dep.
#      No vmlinux: run-vm.sh would boot it through its PVH entry point,
#      which does not work with KASAN (debug.config); the ELF stays
#      in build/linux-debug/vmlinux for addr2line and friends.
#
# Incremental: a second run with nothing changed takes seconds; a changed
# driver file rebuilds the module only.
# Environment: JOBS (default: nproc), DEBUG_CONFIG (default
# tools/debug/debug.config).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TREE=$REPO/build/linux-tree
OBJ=$REPO/build/linux-debug
OUT=$REPO/build/debug/kernel
FRAG=${DEBUG_CONFIG:-$REPO/tools/debug/debug.config}
JOBS=${JOBS:-$(nproc)}

log() { echo "debug-kernel: $*" >&2; }

t0=$(date +%s)
bash "$REPO/tools/debug/tree.sh" "$TREE"

mkdir -p "$OBJ" "$(dirname "$OUT")"
exec 9>"$OBJ.lock"
flock 9

# an empty LOCALVERSION on the command line: no "+" from
# scripts/setlocalversion (the release is 7.3.N + CONFIG_LOCALVERSION)
KMAKE=(make -C "$TREE" O="$OBJ" LOCALVERSION= -j"$JOBS")

# --- 2. configuration ------------------------------------------------------
cfg_stamp() {
	{
		cat "$TREE/.wddmseg-stamp" "$FRAG" "$TREE/kernel/configs/tiny.config" \
			"$TREE/arch/x86/configs/tiny.config"
		find -L "$TREE/drivers/gpu/drm/wddmseg" -name Kconfig -print0 |
			sort -z | xargs -0 cat
	} | sha256sum | cut -d' ' -f1
}
. "$REPO/tools/vm/kconfig.sh"
if ! kconfig_tiny "$TREE" "$OBJ" "$FRAG" "$(cfg_stamp)" "${KMAKE[@]}"; then
	log "FAILED: $(basename "$FRAG") does not apply (a dependency is missing?)"
	exit 1
fi

# --- 3. the driver with W=1 --------------------------------------------------
mkdir -p "$OUT.logs"
W1LOG=$OUT.logs/w1.log
w1_stamp() {
	{
		cat "$OBJ/.config"
		find -L "$TREE/drivers/gpu/drm/wddmseg" "$TREE/include/uapi/drm/wddmseg_drm.h" \
			-type f -print0 | sort -z | xargs -0 sha256sum
	} | sha256sum | cut -d' ' -f1
}
W1STAMP=$(w1_stamp)
if [ "$(cat "$OBJ/.w1.wddmseg-stamp" 2>/dev/null)" = "$W1STAMP" ]; then
	log "W=1 build of drivers/gpu/drm/wddmseg/: unchanged since the last clean one"
else
	log "W=1 build of drivers/gpu/drm/wddmseg/"
	if ! "${KMAKE[@]}" W=1 drivers/gpu/drm/wddmseg/ >"$W1LOG" 2>&1; then
		tail -n 40 "$W1LOG" >&2
		log "FAILED: W=1 build of the driver (log $W1LOG)"
		exit 1
	fi
	if grep -E '(^|/)drivers/gpu/drm/wddmseg/.*(warning|error):' "$W1LOG" >&2; then
		log "FAILED: W=1 warnings in the driver (log $W1LOG)"
		exit 1
	fi
	echo "$W1STAMP" >"$OBJ/.w1.wddmseg-stamp"
fi

# --- 4. the kernel and its modules ------------------------------------------
BLOG=$OUT.logs/build.log
log "building (make -j$JOBS bzImage modules; log $BLOG)"
t1=$(date +%s)
if ! "${KMAKE[@]}" bzImage modules >"$BLOG" 2>&1; then
	tail -n 40 "$BLOG" >&2
	log "FAILED: kernel build (log $BLOG)"
	exit 1
fi
t2=$(date +%s)
# written by the build (before it, `make kernelrelease` may not know
# CONFIG_LOCALVERSION yet)
KREL=$(cat "$OBJ/include/config/kernel.release")

# --- 5. install ----------------------------------------------------------------
kstamp() {
	{
		echo "$KREL"
		sha256sum "$OBJ/vmlinux" "$OBJ/.config"
		find "$OBJ" -name '*.ko' -print0 | sort -z | xargs -0 -r sha256sum
	} | sha256sum | cut -d' ' -f1
}
KSTAMP="debug $KREL $(kstamp)"
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$KSTAMP" ]; then
	log "up to date: $OUT ($KREL, build step $((t2 - t1))s, total $(( $(date +%s) - t0 ))s)"
	exit 0
fi
TMP=$OUT.tmp
rm -rf "$TMP"
mkdir -p "$TMP"
"${KMAKE[@]}" -s INSTALL_MOD_PATH="$TMP" modules_install >"$OUT.logs/install.log" 2>&1 || {
	cat "$OUT.logs/install.log" >&2
	log "FAILED: modules_install"
	exit 1
}
# modules_install links build/source back into the tree: not wanted here
rm -f "$TMP/lib/modules/$KREL/build" "$TMP/lib/modules/$KREL/source"
cp "$OBJ/arch/x86/boot/bzImage" "$TMP/vmlinuz"
cp "$OBJ/.config" "$TMP/config"
cp "$OBJ/System.map" "$TMP/System.map"
echo "$KREL" >"$TMP/abi"
echo "$KSTAMP" >"$TMP/.stamp"
rm -rf "$OUT"
mv "$TMP" "$OUT"
log "ok: $OUT ($KREL; build step $((t2 - t1))s, total $(( $(date +%s) - t0 ))s)"
