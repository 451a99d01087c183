#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check's DKMS stage: the module built and installed by Debian's dkms
# from the source tree of `make dkms-source`, for each kernel whose Debian
# headers are installed, without touching the host's DKMS state or
# /lib/modules. TAP on stdout; logs in OUT.
#
# Usage: tools/dkms/check.sh [-o OUT] [KERNEL...]
#   KERNEL: a series or a Debian ABI (tools/vm/kabi.sh); default 6.12 and
#   6.1, the kernels whose headers tools/vm/deps.sh installs (always the
#   Debian packages in /usr/src/linux-headers-ABI, never a source-built
#   kernel). OUT: default build/check/dkms.
#
# dkms runs with its own trees under OUT (--sourcetree, --dkmstree,
# --installtree) and its own module signing key (mok_signing_key and
# mok_certificate in the environment, which dkms 3.0 takes as it takes
# them from framework.conf), so nothing is written to /usr/src,
# /var/lib/dkms or /lib/modules; the last check compares those with what
# they held before. For each kernel, the module dkms built must be the
# driver `make module` builds (tools/vm/module.sh, also run here): same
# srcversion (modpost's checksum of every source file compiled), same
# defined symbols, same aliases and dependencies; its vermagic must be that
# kernel's (UTS_RELEASE of its headers, and the vermagic of `make
# module`'s build), its version WDDMSEG_DRIVER_VERSION, and it must carry
# dkms's signature. `dkms install` must put that module into the install
# tree and `dkms remove --all` take everything away again.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$REPO/build/check/dkms
if [ "${1:-}" = -o ]; then
	OUT=${2:?-o OUT}
	shift 2
fi
SERIES=("$@")
[ ${#SERIES[@]} -gt 0 ] || SERIES=(6.12 6.1)

. "$REPO/tools/testing/tap.sh"

rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ARCH=$(uname -m)

# What a check must leave as it was: the module in the host's DKMS trees
# and every kernel's module directory.
host_state() {
	ls -ld /usr/src/wddmseg-* /var/lib/dkms/wddmseg /var/lib/dkms/mok.* \
		/lib/modules/*/updates/dkms/wddmseg.ko* 2>/dev/null
	find /var/lib/dkms/wddmseg -printf '%p %s %T@\n' 2>/dev/null
}
host_state >"$OUT/host-before.txt"

if ! command -v dkms >/dev/null; then
	not_ok "dkms is installed (tools/vm/deps.sh installs Debian's dkms)"
	exit 1
fi
echo "# $(dkms --version)"

VERSION=$(bash "$REPO/tools/dkms/source.sh" --version) || {
	not_ok "WDDMSEG_DRIVER_VERSION readable"
	exit 1
}
SRC=$(bash "$REPO/tools/dkms/source.sh" "$OUT/src" 2>"$OUT/source.log") || {
	not_ok "make dkms-source (see $OUT/source.log)"
	exit 1
}

# The source tree: dkms.conf, the uapi header, and every file of the
# driver directory, identical to the repository's.
{
	(cd "$REPO/drivers/gpu/drm/wddmseg" && find . -type f \( -name '*.[ch]' \
		-o -name Kconfig -o -name Makefile -o -name Kbuild \
		-o -name .kunitconfig \) ! -name '*.mod.c' | sed 's|^\.|drivers/gpu/drm/wddmseg|')
	echo include/uapi/drm/wddmseg_drm.h
} | sort >"$OUT/src-want.txt"
(cd "$SRC" && find . -type f ! -name dkms.conf | sed 's|^\./||' | sort) >"$OUT/src-have.txt"
same_src=1
diff -u "$OUT/src-want.txt" "$OUT/src-have.txt" >"$OUT/src.diff" || same_src=0
while read -r f; do
	cmp -s "$REPO/$f" "$SRC/$f" || { same_src=0; echo "differs: $f" >>"$OUT/src.diff"; }
done <"$OUT/src-want.txt"
check "dkms source tree wddmseg-$VERSION: dkms.conf and $(wc -l <"$OUT/src-want.txt") files, the driver directory and uapi header as in the repository (see $OUT/src.diff)" \
	test $same_src = 1
grep -qx "PACKAGE_VERSION=\"$VERSION\"" "$SRC/dkms.conf" &&
	grep -qx 'PACKAGE_NAME="wddmseg"' "$SRC/dkms.conf"
check "dkms.conf: PACKAGE_NAME wddmseg, PACKAGE_VERSION $VERSION (WDDMSEG_DRIVER_VERSION)" test $? = 0

export mok_signing_key=$OUT/mok.key mok_certificate=$OUT/mok.pub
DKMS=(dkms --sourcetree "$OUT/src" --dkmstree "$OUT/tree"
	--installtree "$OUT/modules")
mkdir -p "$OUT/tree" "$OUT/modules"

"${DKMS[@]}" add "wddmseg/$VERSION" >"$OUT/add.log" 2>&1
check "dkms add wddmseg/$VERSION (see $OUT/add.log)" test $? = 0
"${DKMS[@]}" status >"$OUT/status-added.txt" 2>&1
check "dkms status: wddmseg/$VERSION added" \
	grep -qx "wddmseg/$VERSION: added" "$OUT/status-added.txt"

# modfield KO FIELD: every value of a modinfo field, sorted
modfield() { modinfo -F "$2" "$1" 2>/dev/null | sort; }
# defsyms KO: the module's defined symbols
defsyms() {
	local f=$1 t
	case "$f" in
	*.xz)
		t=$OUT/sym.ko
		xz -dc "$f" >"$t" || return 1
		f=$t
		;;
	esac
	nm --defined-only "$f" | awk '{ print $2, $3 }' | sort
}

root=0
[ "$(id -u)" -eq 0 ] && root=1
for s in "${SERIES[@]}"; do
	k=$(bash "$REPO/tools/vm/kabi.sh" "$s" 2>"$OUT/kabi-$s.log") || {
		not_ok "Linux $s: no Debian kernel headers ($(cat "$OUT/kabi-$s.log"))"
		continue
	}
	kdir=/usr/src/linux-headers-$k
	if [ ! -e "$kdir/include/generated/utsrelease.h" ]; then
		not_ok "Linux $s: $kdir holds no kernel headers (tools/vm/deps.sh installs them)"
		continue
	fi
	uts=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")
	log=$OUT/build-$k.log
	"${DKMS[@]}" build "wddmseg/$VERSION" -k "$k" --kernelsourcedir "$kdir" \
		-j 2 >"$log" 2>&1
	check "$s: dkms build wddmseg/$VERSION -k $k (see $log)" test $? = 0
	ko=
	for f in "$OUT/tree/wddmseg/$VERSION/$k/$ARCH/module/wddmseg.ko"{,.xz}; do
		[ -f "$f" ] && ko=$f
	done
	if [ -z "$ko" ]; then
		not_ok "$s: dkms kept no built wddmseg.ko for $k"
		tail -n 20 "$OUT/tree/wddmseg/$VERSION/$k/$ARCH/log/make.log" \
			"$log" 2>/dev/null | sed 's/^/# /'
		continue
	fi
	vm=$(modfield "$ko" vermagic)
	check "$s: vermagic '${vm% }' is that of $k (UTS_RELEASE $uts)" \
		test "${vm%% *}" = "$k" -a "$uts" = "$k"
	check "$s: modinfo version $(modfield "$ko" version), name $(modfield "$ko" name): WDDMSEG_DRIVER_VERSION" \
		test "$(modfield "$ko" version)" = "$VERSION" -a "$(modfield "$ko" name)" = wddmseg
	check "$s: signed by dkms with the check's key (signer '$(modfield "$ko" signer)')" \
		test "$(modfield "$ko" signer)" = "DKMS module signing key"

	# The reference: the same driver built by `make module` for k.
	ref=$REPO/build/$k/src/drivers/gpu/drm/wddmseg/wddmseg.ko
	if ! (cd "$REPO" && KABI=$k WDDMSEG_KABI=$k WDDMSEG_KBUILD= \
		KDIR="$kdir" bash tools/vm/module.sh) >"$OUT/module-$k.log" 2>&1 ||
	   [ ! -f "$ref" ]; then
		not_ok "$s: make module for $k, the reference build (see $OUT/module-$k.log)"
	else
		check "$s: same full vermagic as make module's build" \
			test "$vm" = "$(modfield "$ref" vermagic)"
		sv=$(modfield "$ko" srcversion)
		check "$s: srcversion $sv (checksum of every compiled source) equals make module's" \
			test -n "$sv" -a "$sv" = "$(modfield "$ref" srcversion)"
		defsyms "$ko" >"$OUT/sym-dkms-$k.txt"
		defsyms "$ref" >"$OUT/sym-ref-$k.txt"
		check "$s: the same $(wc -l <"$OUT/sym-dkms-$k.txt") defined symbols as make module's (see $OUT/sym-*-$k.txt)" \
			cmp -s "$OUT/sym-dkms-$k.txt" "$OUT/sym-ref-$k.txt"
		check "$s: same aliases, depends, license and import_ns as make module's ($(modfield "$ko" depends))" \
			test "$(modfield "$ko" alias; modfield "$ko" depends; modfield "$ko" license; modfield "$ko" import_ns)" = \
			"$(modfield "$ref" alias; modfield "$ref" depends; modfield "$ref" license; modfield "$ref" import_ns)"
	fi

	if [ $root = 0 ]; then
		skip "$s: dkms install (needs root)"
		continue
	fi
	mkdir -p "$OUT/modules/$k"
	"${DKMS[@]}" install "wddmseg/$VERSION" -k "$k" --kernelsourcedir "$kdir" \
		--no-depmod >"$OUT/install-$k.log" 2>&1
	check "$s: dkms install -k $k into the check's install tree (see $OUT/install-$k.log)" \
		test $? = 0
	inst=$(ls "$OUT/modules/$k/updates/dkms/wddmseg.ko"* 2>/dev/null | head -n 1)
	check "$s: installed ${inst#"$OUT"/} is the module dkms built" \
		cmp -s "$ko" "${inst:-/nonexistent}"
	"${DKMS[@]}" status -k "$k" >"$OUT/status-$k.txt" 2>&1
	check "$s: dkms status: wddmseg/$VERSION, $k, $ARCH: installed" \
		grep -qx "wddmseg/$VERSION, $k, $ARCH: installed" "$OUT/status-$k.txt"
done

"${DKMS[@]}" remove "wddmseg/$VERSION" --all --no-depmod >"$OUT/remove.log" 2>&1
rc=$?
left=$( (find "$OUT/tree" -mindepth 1; find "$OUT/modules" -name 'wddmseg.ko*') 2>/dev/null)
check "dkms remove wddmseg/$VERSION --all: nothing left in the dkms or install tree (see $OUT/remove.log)" \
	test $rc = 0 -a -z "$left"
host_state >"$OUT/host-after.txt"
check "host's /usr/src, /var/lib/dkms and /lib/modules/*/updates/dkms as before (see $OUT/host-*.txt)" \
	cmp -s "$OUT/host-before.txt" "$OUT/host-after.txt"
echo "1..$n"
