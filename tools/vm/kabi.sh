#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernels wddmseg supports, by Debian ABI name (the suffix of
# linux-headers-ABI and linux-image-ABI, e.g. 6.12.117+deb12-amd64).
#
# Usage: tools/vm/kabi.sh [KERNEL]   the ABI of KERNEL: a series (6.12,
#                                    6.1) or an ABI, printed back; none:
#                                    the primary kernel (the first of
#                                    SUPPORTED)
#        tools/vm/kabi.sh --all      the ABI of every supported kernel,
#                                    one per line, primary first
#        tools/vm/kabi.sh --series KERNEL
#                                    the series of KERNEL (6.12, 6.1)
#
# A series resolves to the headers its Debian metapackage depends on
# (linux-headers-SERIES-amd64, else linux-headers-amd64 when that is of
# the series: 6.1 on Debian 12), as installed (dpkg) or, before
# tools/vm/deps.sh installed them, as apt would install them; else to the
# newest installed /usr/src/linux-headers-SERIES*-amd64.
set -euo pipefail

# Primary first: `make run` and `make module` use it, `make check` all.
SUPPORTED=(6.12 6.1)

die() { echo "kabi: $*" >&2; exit 1; }

# series_of KERNEL: 6.12.117+deb12-amd64 -> 6.12, 6.1.0-56-amd64 -> 6.1
series_of() {
	sed -n 's/^\([0-9][0-9]*\.[0-9][0-9]*\)\([.+-].*\)\{0,1\}$/\1/p' <<<"$1"
}

# in_series ABI SERIES: ABI is of SERIES (6.1 is not a prefix of 6.12)
in_series() {
	[ "$(series_of "$1")" = "$2" ]
}

# meta_dep META: the linux-headers-*-amd64 ABI a metapackage depends on
meta_dep() {
	local dep
	dep=$(dpkg-query -W -f='${Depends}' "$1" 2>/dev/null |
		tr ',' '\n' | sed -n 's/^ *linux-headers-\([^ ]*-amd64\).*/\1/p' |
		head -n 1) || true
	if [ -z "$dep" ]; then
		dep=$(apt-cache depends "$1" 2>/dev/null |
			sed -n 's/^ *Depends: linux-headers-\([^ ]*-amd64\)$/\1/p' |
			head -n 1) || true
	fi
	echo "$dep"
}

resolve() {
	local want=$1 abi meta h
	case "$want" in
	*-amd64) echo "$want"; return ;;
	esac
	[ -n "$(series_of "$want")" ] && [ "$(series_of "$want")" = "$want" ] ||
		die "not a kernel series or ABI: '$want'"
	for meta in "linux-headers-$want-amd64" linux-headers-amd64; do
		abi=$(meta_dep "$meta")
		if [ -n "$abi" ] && in_series "$abi" "$want"; then
			echo "$abi"
			return
		fi
	done
	abi=
	for h in $(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V); do
		h=${h#/usr/src/linux-headers-}
		in_series "$h" "$want" && abi=$h
	done
	[ -n "$abi" ] || die "no linux-headers of Linux $want (tools/vm/deps.sh installs them)"
	echo "$abi"
}

case "${1:-}" in
--all)
	for s in "${SUPPORTED[@]}"; do resolve "$s"; done
	;;
--series)
	s=$(series_of "${2:?kernel}")
	[ -n "$s" ] || die "not a kernel series or ABI: '$2'"
	echo "$s"
	;;
'')
	resolve "${SUPPORTED[0]}"
	;;
-*)
	sed -n '/^# Usage:/,/^# A series/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
*)
	resolve "$1"
	;;
esac
