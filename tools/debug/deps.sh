#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian packages the debug tier needs on top of tools/vm/deps.sh (which
# it runs first): libelf-dev, because objtool is mandatory on x86_64 and
# builds against libelf. Idempotent.
set -euo pipefail

bash "$(dirname "${BASH_SOURCE[0]}")/../vm/deps.sh"

PKGS=(libelf-dev)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" ||
	{ $SUDO apt-get update -q && $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; }
