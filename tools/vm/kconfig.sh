# SPDX-License-Identifier: GPL-2.0-only
#
# The configuration step of the kernels the harness builds (sourced):
# tools/vm/kernel-src.sh (make check's 7.3 guest kernel, fragment
# tools/vm/kernel.config) and tools/debug/kernel.sh (the debug kernel,
# tools/debug/debug.config).
#
# kconfig_tiny SRC OBJ FRAG STAMP MAKE...
#   When OBJ/.config is missing or OBJ/.config.wddmseg-stamp is not
#   STAMP (the caller hashes whatever the configuration depends on):
#   `MAKE tinyconfig`, FRAG merged with SRC's merge_config.sh, `MAKE
#   olddefconfig`, then every line of FRAG must be in the result (a
#   missing bool or tristate reads as "is not set"); a line that did not
#   survive (a dependency the fragment lacks) is printed and the stamp
#   is not written. MAKE is the make command line with -C SRC O=OBJ.
#   Returns 0 when the configuration is there, 1 when FRAG does not apply.

kconfig_tiny() {
	local src=$1 obj=$2 frag stamp=$4 line sym got bad=0

	frag=$(realpath "$3")
	shift 4
	if [ -f "$obj/.config" ] &&
		[ "$(cat "$obj/.config.wddmseg-stamp" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	echo "kconfig: tinyconfig + $(basename "$frag") in $obj" >&2
	"$@" -s tinyconfig >/dev/null || return 1
	(cd "$obj" && KCONFIG_CONFIG=.config \
		"$src/scripts/kconfig/merge_config.sh" -m .config "$frag" >/dev/null) || return 1
	"$@" -s olddefconfig >/dev/null || return 1
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		'# CONFIG_'*' is not set') sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		got=$(grep -E "^$sym=|^# $sym is not set" "$obj/.config" || echo "# $sym is not set")
		if [ "$got" != "$line" ]; then
			echo "kconfig: $(basename "$frag"): wanted '$line', got '$got'" >&2
			bad=1
		fi
	done <"$frag"
	if [ $bad = 1 ]; then
		rm -f "$obj/.config.wddmseg-stamp"
		return 1
	fi
	echo "$stamp" >"$obj/.config.wddmseg-stamp"
}
