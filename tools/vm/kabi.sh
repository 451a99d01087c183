#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernels wddmseg supports, by ABI name: the kernel release of a
# Debian image (the suffix of linux-headers-ABI and linux-image-ABI, e.g.
# 6.12.117+deb12-amd64), or of a kernel the harness builds from Debian's
# linux-source (7.3.4-wddmseg, tools/vm/kernel-src.sh).
#
# Usage: tools/vm/kabi.sh [KERNEL]   the ABI of KERNEL: a series (7.3,
#                                    6.12, 6.1) or an ABI, printed back;
#                                    none: the primary kernel (the first
#                                    of SUPPORTED)
#        tools/vm/kabi.sh --all      the ABI of every supported kernel,
#                                    one per line, primary first
#        tools/vm/kabi.sh --series KERNEL
#                                    the series of KERNEL (6.12, 6.1)
#        tools/vm/kabi.sh --source-pkg KERNEL
#                                    "SUITE PACKAGE" when KERNEL is built
#                                    from source (e.g. "trixie-backports
#                                    linux-source-7.3"); fails otherwise
#
# A series resolves to the headers its Debian metapackage depends on
# (linux-headers-SERIES-amd64, else linux-headers-amd64 when that is of
# the series: 6.1 on Debian 12), as installed (dpkg) or, before
# tools/vm/deps.sh installed them, as apt would install them; else to the
# newest installed /usr/src/linux-headers-SERIES*-amd64.
#
# A series built from source resolves to the upstream version of the
# linux-source-SERIES candidate in its suite (tools/vm/debsuite.sh; known
# before anything is fetched or built) plus CONFIG_LOCALVERSION of
# tools/vm/kernel.config; offline, to the version already unpacked in
# build/linux-source-SERIES.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Primary first: `make run` and `make module` use it, `make check` all.
SUPPORTED=(7.3 6.12 6.1)
# Built from Debian's linux-source of another suite: SERIES=SUITE. 7.3:
# the newest linux-source-7.* Debian had when this moved to 7.3
# (7.3.4-1~bpo13+1, trixie-backports; sid had 7.2).
declare -A FROM_SOURCE=([7.3]=trixie-backports)
LOCALVERSION=-wddmseg

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

# from_source SERIES: the release of the kernel built from linux-source-SERIES
from_source() {
	local s=$1 ver
	ver=$(bash "$REPO/tools/vm/debsuite.sh" "${FROM_SOURCE[$s]}" version \
		"linux-source-$s" 2>/dev/null) ||
		ver=$(cat "$REPO/build/linux-source-$s/.wddmseg-deb-version" 2>/dev/null) ||
		die "no linux-source-$s in ${FROM_SOURCE[$s]} (offline, and none unpacked)"
	# 7.3.4-1~bpo13+1 -> 7.3.4; Linux x.y.0 calls itself x.y
	ver=${ver%%-*}
	ver=${ver%.0}
	echo "$ver$LOCALVERSION"
}

resolve() {
	local want=$1 abi meta h
	case "$want" in
	*-amd64 | *"$LOCALVERSION") echo "$want"; return ;;
	esac
	[ -n "$(series_of "$want")" ] && [ "$(series_of "$want")" = "$want" ] ||
		die "not a kernel series or ABI: '$want'"
	if [ -n "${FROM_SOURCE[$want]:-}" ]; then
		from_source "$want"
		return
	fi
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
--source-pkg)
	s=$(series_of "${2:?kernel}")
	[ -n "$s" ] && [ -n "${FROM_SOURCE[$s]:-}" ] || exit 1
	echo "${FROM_SOURCE[$s]} linux-source-$s"
	;;
'')
	resolve "${SUPPORTED[0]}"
	;;
-*)
	sed -n '/^# Usage:/,/^# A series resolves/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
*)
	resolve "$1"
	;;
esac
