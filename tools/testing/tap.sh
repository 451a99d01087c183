# SPDX-License-Identifier: GPL-2.0-only
#
# TAP for the host-side checks of make check (sourced, not run):
# tools/dkms/check.sh, tools/install/check.sh, tools/lint/check.sh,
# tools/qemu/patch.sh --verify. Each result line is "ok N - DESC" or
# "not ok N - DESC", numbered from 1 in the order printed; tools/check.sh
# counts them.
#
#   tap STATUS DESC     ok when STATUS is 0
#   ok DESC / not_ok DESC / skip DESC ("ok N - DESC # SKIP")
#   check DESC CMD...   ok when CMD succeeds
#
# $n is the number of results so far and $fail becomes 1 at the first
# "not ok" (the caller's exit status). TAP_PREFIX, when set, starts every
# description ("qemu-patch: ").

n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n - ${TAP_PREFIX:-}$*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n - ${TAP_PREFIX:-}$*"; }
skip() { n=$((n + 1)); echo "ok $n - ${TAP_PREFIX:-}$* # SKIP"; }
tap() {
	if [ "$1" = 0 ]; then ok "$2"; else not_ok "$2"; fi
}
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
