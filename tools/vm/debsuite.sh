#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fetch packages of another Debian suite without mixing releases on the
# host: apt-get with a private configuration (its own sources list, lists
# and cache under build/apt/SUITE/) that names only SUITE, on the same
# mirror URI as the machine's own sources. Nothing is installed and the
# system's apt state is not touched; the caller unpacks what it fetched
# (dpkg-deb -x) or builds from the source package.
#
# Usage: tools/vm/debsuite.sh SUITE version PKG
#            the candidate version of binary package PKG in SUITE
#        tools/vm/debsuite.sh SUITE download PKG[=VER]...
#            the .deb files, into the current directory
#        tools/vm/debsuite.sh SUITE source PKG[=VER]
#            `apt-get source` (Debian's patches applied) into the current
#            directory; needs dpkg-dev
#
# SUITE: a suite of the Debian archive, e.g. trixie, trixie-backports,
# bookworm-backports. The lists are refreshed when older than a day.
# Environment: WDDMSEG_APT_DIR (default build/apt) holds the state.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

die() { echo "debsuite: $*" >&2; exit 1; }

[ $# -ge 3 ] || { sed -n '/^# Usage:/,/^# SUITE:/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
SUITE=$1 VERB=$2
shift 2
case "$SUITE" in
*[!a-z0-9-]* | '') die "not a suite name: '$SUITE'" ;;
esac

# mirror: the URI of the machine's own main archive (deb822 or one-line
# sources), not the security archive
mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(sed -n 's/^URIs: *//p' "$f" | tr ' ' '\n' |
			grep -v -- '-security' | grep '/debian/\{0,1\}$' | head -n 1)
		[ -n "$uri" ] && { echo "${uri%/}"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; exit } }' "$f" |
			grep -v -- '-security' | head -n 1)
		[ -n "$uri" ] && { echo "${uri%/}"; return; }
	done
	echo http://deb.debian.org/debian
}

STATE=${WDDMSEG_APT_DIR:-$REPO/build/apt}/$SUITE
mkdir -p "$STATE/lists/partial" "$STATE/cache/archives/partial"
# apt drops privileges to _apt for downloads
chown -R _apt "$STATE/lists" "$STATE/cache" 2>/dev/null || true
exec 8>"$STATE/.lock"
flock 8

URI=$(mirror)
printf 'deb %s %s main\ndeb-src %s %s main\n' "$URI" "$SUITE" "$URI" "$SUITE" \
	>"$STATE/sources.list"
APT=(-q -o "Dir::Etc::sourcelist=$STATE/sources.list"
	-o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$STATE/lists"
	-o "Dir::Cache=$STATE/cache" -o "Dir::State::status=/var/lib/dpkg/status"
	-o APT::Get::List-Cleanup=0)

if [ -z "$(find "$STATE/lists" -maxdepth 1 -name '*_Packages' -mmin -1440 2>/dev/null)" ] ||
   ! cmp -s "$STATE/sources.list" "$STATE/sources.list.done"; then
	apt-get "${APT[@]}" update >&2 || die "apt-get update of $SUITE failed"
	cp "$STATE/sources.list" "$STATE/sources.list.done"
fi

case "$VERB" in
version)
	v=$(apt-cache "${APT[@]}" policy "$1" | sed -n 's/^ *Candidate: //p')
	[ -n "$v" ] && [ "$v" != "(none)" ] || die "$SUITE has no package $1"
	echo "$v"
	;;
download)
	chown _apt . 2>/dev/null || true
	apt-get "${APT[@]}" download "$@" >&2
	;;
source)
	chown _apt . 2>/dev/null || true
	apt-get "${APT[@]}" source "$@" >&2
	;;
*)
	die "unknown verb '$VERB' (version, download, source)"
	;;
esac
