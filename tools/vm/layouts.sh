# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Sourced: the one reader of the harness's two layout files, for every
# script that turns them into QEMU devices (tools/check.sh,
# tools/vm/check-layouts.sh, tools/vm/run-test.sh,
# tools/debug/check-debug.sh). The formats are described at the top of
# each file.
#
#   layouts_valid FILE EXPECT
#       tools/vm/valid-layouts.txt: one wddmseg device per line. Sets
#       LAYOUT_DEVS (the QEMU arguments: -device wddmseg,addr=SLOT,...
#       for each line) and LAYOUT_SLOTS (the slot numbers, decimal), and
#       writes EXPECT, the expectation file the kselftests read
#       (WDDMSEG_EXPECT): "0000:00:SS.0 vram=V bar2=B layout=L" per device.
#   layouts_cases FILE
#       tools/vm/layouts.txt: one case per line, RULE|PROPERTIES, split on
#       the first '|' only (the layout value holds more). Sets LAYOUT_RULES
#       and LAYOUT_PROPS, one element per case.
# Both skip blank lines and '#' comments, and return 1 (with a message on
# stderr) on a malformed line or a file without any entry.

layouts_valid() {
	local file=$1 expect=$2 slot vram bar props layout dev p n=0
	LAYOUT_DEVS=() LAYOUT_SLOTS=()
	: >"$expect" || return 1
	while IFS='|' read -r slot vram bar props layout || [ -n "$slot" ]; do
		slot=${slot%$'\r'} layout=${layout%$'\r'}
		case "$slot" in ''|'#'*) continue ;; esac
		n=$((n + 1))
		if [ -z "$layout" ] || ! [[ $slot =~ ^(0x[0-9a-fA-F]+|[0-9]+)$ ]]; then
			echo "layouts: $file: entry $n is not SLOT|VRAM|BAR2|PROPERTIES|LAYOUT: $slot|$vram|$bar|$props|$layout" >&2
			return 1
		fi
		dev="wddmseg,addr=$slot"
		for p in ${props//,/ }; do
			if [ "$p" = layout ]; then
				dev="$dev,layout=$layout"
			else
				dev="$dev,$p"
			fi
		done
		LAYOUT_DEVS+=(-device "$dev")
		LAYOUT_SLOTS+=($((slot)))
		printf '0000:00:%02x.0 vram=%s bar2=%s layout=%s\n' "$slot" "$vram" \
			"$bar" "$layout" >>"$expect"
	done <"$file" || return 1
	if [ "$n" -eq 0 ]; then
		echo "layouts: no device in $file" >&2
		return 1
	fi
}

layouts_cases() {
	local file=$1 line
	LAYOUT_RULES=() LAYOUT_PROPS=()
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%$'\r'}
		case "$line" in ''|'#'*) continue ;; esac
		if [ "${line#*|}" = "$line" ]; then
			echo "layouts: $file: no '|' in: $line" >&2
			return 1
		fi
		LAYOUT_RULES+=("${line%%|*}")
		LAYOUT_PROPS+=("${line#*|}")
	done <"$file" || return 1
	if [ ${#LAYOUT_RULES[@]} -eq 0 ]; then
		echo "layouts: no case in $file" >&2
		return 1
	fi
}
