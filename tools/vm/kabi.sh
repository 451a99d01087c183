#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Print the ABI name (e.g. 6.1.0-56-amd64) of the installed Debian kernel
# headers that linux-headers-amd64 points to.
set -euo pipefail
abi=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
	sed -n 's/.*linux-headers-\([0-9][^ ,]*-amd64\).*/\1/p')
if [ -z "$abi" ]; then
	abi=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
	abi=${abi#/usr/src/linux-headers-}
fi
[ -n "$abi" ] || { echo "kabi: no linux-headers-*-amd64 installed" >&2; exit 1; }
echo "$abi"
