#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check's install stage: `make install` and `make uninstall` of
# libwddmseg and the tools, checked file by file, and a program built
# against the installed library with nothing but pkg-config's flags. TAP on
# stdout; logs and trees in OUT.
#
# Usage: tools/install/check.sh [OUT]   (default build/check/install)
#
# 1. `make install DESTDIR=OUT/destdir PREFIX=/usr`: exactly the expected
#    files (libwddmseg.a, libwddmseg.so.X.Y.Z with its soname and
#    development links, the two headers as in the repository,
#    libwddmseg.pc with prefix=/usr, the five tools); the shared library's
#    SONAME and that it exports only wddmseg_* symbols; pkg-config with
#    PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR into the DESTDIR finds it
#    (--modversion, --libs, --cflags naming directories that hold the
#    files); tools/install/libwddmseg-user.c compiled and linked with those
#    flags (plus the host's libdrm: the DESTDIR has none), linked to the
#    DESTDIR's libwddmseg.so.1 and run: its line must give the library
#    version of the .pc file and the uapi version of the header; the same
#    linked statically (pkg-config --static); wddmseg-info -h runs.
# 2. `make install PREFIX=OUT/prefix LIBDIR=OUT/prefix/lib64` (no
#    DESTDIR, LDCONFIG=:): the .pc file names that prefix and libdir, and
#    the program builds with plain `pkg-config --cflags --libs` and runs.
# 3. `make uninstall` with the same variables leaves no file in either.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${1:-$REPO/build/check/install}
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
DEST=$OUT/destdir
PFX=$OUT/prefix
USER_C=$REPO/tools/install/libwddmseg-user.c
TOOLS="wddmseg-bench wddmseg-churn wddmseg-info wddmseg-pattern wddmseg-pmbench"

. "$REPO/tools/testing/tap.sh"

# The library's versions, from the sources: the .so's (Makefile) and the
# interface version of wddmseg.h and of the uapi header.
LIBVER=$(sed -n 's/^VERSION := //p' "$REPO/tools/lib/wddmseg/Makefile")
LIBMAJOR=$(sed -n 's/^MAJOR := //p' "$REPO/tools/lib/wddmseg/Makefile")
HDRVER=$(sed -n 's/^#define LIBWDDMSEG_VERSION[[:space:]]*0x\([0-9a-fA-F]*\)$/\1/p' \
	"$REPO/tools/lib/wddmseg/wddmseg.h")
HDRVER="$((16#${HDRVER:-0} >> 16)).$((16#${HDRVER:-0} & 0xffff))"
UAPI=$(sed -n 's/^#define WDDMSEG_UAPI_VERSION[[:space:]]*\([0-9]*\)$/\1/p' \
	"$REPO/include/uapi/drm/wddmseg_drm.h")
WANT_LINE="libwddmseg $HDRVER uapi $UAPI flag0 Aperture cap0 OutOfOrderLock find_node -19"

# --- 1. DESTDIR, PREFIX=/usr --------------------------------------------------
make -C "$REPO" install DESTDIR="$DEST" PREFIX=/usr >"$OUT/install.log" 2>&1
check "make install DESTDIR=${DEST#"$REPO"/} PREFIX=/usr (see $OUT/install.log)" test $? = 0

{
	for t in $TOOLS; do echo "f usr/bin/$t"; done
	echo "f usr/include/libwddmseg/drm/wddmseg_drm.h"
	echo "f usr/include/libwddmseg/wddmseg.h"
	echo "f usr/lib/libwddmseg.a"
	echo "l usr/lib/libwddmseg.so -> libwddmseg.so.$LIBMAJOR"
	echo "l usr/lib/libwddmseg.so.$LIBMAJOR -> libwddmseg.so.$LIBVER"
	echo "f usr/lib/libwddmseg.so.$LIBVER"
	echo "f usr/lib/pkgconfig/libwddmseg.pc"
} | sort >"$OUT/files-want.txt"
(cd "$DEST" && find . ! -type d -printf '%y %P %l\n' | sed 's/ $//; s/^\(l [^ ]*\) \(.*\)/\1 -> \2/' |
	sort) >"$OUT/files-have.txt"
diff -u "$OUT/files-want.txt" "$OUT/files-have.txt" >"$OUT/files.diff"
check "installed exactly the $(wc -l <"$OUT/files-want.txt") expected files and soname links (see $OUT/files.diff)" \
	test $? = 0
cmp -s "$REPO/tools/lib/wddmseg/wddmseg.h" "$DEST/usr/include/libwddmseg/wddmseg.h" &&
	cmp -s "$REPO/include/uapi/drm/wddmseg_drm.h" \
		"$DEST/usr/include/libwddmseg/drm/wddmseg_drm.h"
check "installed headers are the repository's wddmseg.h and uapi wddmseg_drm.h" test $? = 0
soname=$(objdump -p "$DEST/usr/lib/libwddmseg.so.$LIBVER" 2>/dev/null |
	sed -n 's/^ *SONAME *//p')
check "libwddmseg.so.$LIBVER has SONAME '$soname' (libwddmseg.so.$LIBMAJOR)" \
	test "$soname" = "libwddmseg.so.$LIBMAJOR"
nm -D --defined-only "$DEST/usr/lib/libwddmseg.so.$LIBVER" 2>/dev/null |
	awk '$3 != "" { print $3 }' >"$OUT/exports.txt"
check "libwddmseg.so exports $(grep -c '^wddmseg_' "$OUT/exports.txt") symbols, all wddmseg_* (see $OUT/exports.txt)" \
	test -s "$OUT/exports.txt" -a "$(grep -vc '^wddmseg_\|^LIBWDDMSEG_' "$OUT/exports.txt")" = 0
pc=$DEST/usr/lib/pkgconfig/libwddmseg.pc
check "libwddmseg.pc: prefix=/usr, libdir and includedir under \${prefix}" \
	grep -qx 'prefix=/usr' "$pc"
[ "$(sed -n 's/^libdir=//p' "$pc")" = '${prefix}/lib' ] &&
	[ "$(sed -n 's/^includedir=//p' "$pc")" = '${prefix}/include' ]
check "libwddmseg.pc: libdir=\${prefix}/lib, includedir=\${prefix}/include" test $? = 0

PKGC=(env PKG_CONFIG_PATH="$DEST/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$DEST" pkg-config)
mv=$("${PKGC[@]}" --modversion libwddmseg 2>"$OUT/pkg-config.log")
check "pkg-config --modversion libwddmseg: '$mv' ($LIBVER)" test "$mv" = "$LIBVER"
libs=$("${PKGC[@]}" --libs libwddmseg 2>>"$OUT/pkg-config.log")
cflags=$("${PKGC[@]}" --cflags libwddmseg 2>>"$OUT/pkg-config.log")
echo "# pkg-config --libs libwddmseg: $libs"
echo "# pkg-config --cflags libwddmseg: $cflags"
# The directories of -L and -I that hold the library and the header.
ldir= idir=
for f in $libs; do
	case "$f" in -L*) [ -e "${f#-L}/libwddmseg.so" ] && ldir=${f#-L} ;; esac
done
for f in $cflags; do
	case "$f" in -I*) [ -e "${f#-I}/wddmseg.h" ] && idir=${f#-I} ;; esac
done
check "pkg-config --libs: -lwddmseg -ldrm, -L$ldir holds libwddmseg.so" \
	test "$ldir" = "$DEST/usr/lib" -a -n "$(grep -w -- -lwddmseg <<<"$libs")" \
	-a -n "$(grep -w -- -ldrm <<<"$libs")"
check "pkg-config --cflags: -I$idir holds wddmseg.h" \
	test "$idir" = "$DEST/usr/include/libwddmseg"

# With the DESTDIR as sysroot, pkg-config also moves libdrm's directories
# into it; the host's libdrm follows (the compiler skips missing -I/-L).
drm=$(pkg-config --cflags --libs libdrm)
gcc -std=gnu11 -Wall -Wextra -Werror -o "$OUT/user-shared" "$USER_C" \
	$cflags $libs $drm >"$OUT/cc-shared.log" 2>&1
check "libwddmseg-user.c compiles and links with pkg-config's flags (see $OUT/cc-shared.log)" test $? = 0
so=$(LD_LIBRARY_PATH=$DEST/usr/lib ldd "$OUT/user-shared" 2>/dev/null |
	sed -n 's/^[[:space:]]*libwddmseg\.so\.[0-9]* => \([^ ]*\) .*/\1/p')
check "it loads $so (the installed libwddmseg.so.$LIBMAJOR)" \
	test "$so" = "$DEST/usr/lib/libwddmseg.so.$LIBMAJOR"
line=$(LD_LIBRARY_PATH=$DEST/usr/lib "$OUT/user-shared" 2>&1)
check "it runs: '$line'" test "$line" = "$WANT_LINE"
check "library interface $HDRVER (wddmseg.h) is that of the .pc version $mv" \
	test "${mv%.*}" = "$HDRVER"
slibs=$("${PKGC[@]}" --static --libs libwddmseg 2>>"$OUT/pkg-config.log")
gcc -std=gnu11 -Wall -Wextra -Werror -static -o "$OUT/user-static" "$USER_C" \
	$cflags $slibs $(pkg-config --static --cflags --libs libdrm) \
	>"$OUT/cc-static.log" 2>&1 &&
	line=$("$OUT/user-static" 2>&1) && [ "$line" = "$WANT_LINE" ]
check "linked statically (pkg-config --static, libwddmseg.a) it runs the same (see $OUT/cc-static.log)" \
	test $? = 0
"$DEST/usr/bin/wddmseg-info" -h >"$OUT/info-h.txt" 2>&1
check "installed wddmseg-info -h prints its usage" \
	test $? = 0 -a -n "$(grep -i usage "$OUT/info-h.txt")"

# --- 2. PREFIX and LIBDIR, no DESTDIR ----------------------------------------
make -C "$REPO" install PREFIX="$PFX" LIBDIR="$PFX/lib64" LDCONFIG=: \
	>"$OUT/install-prefix.log" 2>&1
check "make install PREFIX=${PFX#"$REPO"/} LIBDIR=\$PREFIX/lib64 (see $OUT/install-prefix.log)" \
	test $? = 0 -a -x "$PFX/bin/wddmseg-info" -a -f "$PFX/lib64/libwddmseg.so.$LIBVER" \
	-a -f "$PFX/include/libwddmseg/wddmseg.h"
pc=$PFX/lib64/pkgconfig/libwddmseg.pc
grep -qx "prefix=$PFX" "$pc" 2>/dev/null &&
	[ "$(sed -n 's/^libdir=//p' "$pc")" = '${prefix}/lib64' ]
check "its libwddmseg.pc: prefix=$PFX, libdir=\${prefix}/lib64" test $? = 0
gcc -std=gnu11 -Wall -Wextra -Werror -o "$OUT/user-prefix" "$USER_C" \
	$(PKG_CONFIG_PATH=$PFX/lib64/pkgconfig pkg-config --cflags --libs libwddmseg) \
	>"$OUT/cc-prefix.log" 2>&1 &&
	line=$(LD_LIBRARY_PATH=$PFX/lib64 "$OUT/user-prefix" 2>&1) &&
	[ "$line" = "$WANT_LINE" ]
check "libwddmseg-user.c builds with plain pkg-config --cflags --libs and runs (see $OUT/cc-prefix.log)" \
	test $? = 0

# --- 3. uninstall ------------------------------------------------------------
make -C "$REPO" uninstall DESTDIR="$DEST" PREFIX=/usr >"$OUT/uninstall.log" 2>&1 &&
	make -C "$REPO" uninstall PREFIX="$PFX" LIBDIR="$PFX/lib64" LDCONFIG=: \
		>>"$OUT/uninstall.log" 2>&1
rc=$?
left=$(find "$DEST" "$PFX" ! -type d)
check "make uninstall leaves no file in either tree (see $OUT/uninstall.log)${left:+: $(echo $left)}" \
	test $rc = 0 -a -z "$left"
echo "1..$n"
