# SPDX-License-Identifier: GPL-2.0-only
#
# Guest half of the KMS checks (busybox sh), run by /init in mode script
# (tools/vm/run-vm.sh --mode script); tools/check.sh prepends the
# configuration:
#   KMS_CARDS="DRIVER:QDEV:FORMATS ..."   e.g. "wddmseg:gpu0:XR24,RG16"
#       DRIVER   the DRM driver name (modetest -M, wddmseg-pattern -D),
#                also the PCI driver name in sysfs
#       QDEV     the QEMU -device id of its display (screendump device=)
#       FORMATS  the framebuffer formats whose screendump must match
#   KMS_MODULES="wddmseg bochs"            modules to load first
#   KMS_MODE=1024x768                       the mode modetest must list/set
#
# Prints TAP lines for the modetest checks; for the screendump checks it
# prints the marker lines of wddmseg-pattern (or "WDDMSEG-PATTERN SKIP|FAIL
# driver=D format=F reason...") that tools/vm/screendump.py watches, and
# waits on /dev/ttyS2 for the host to take each screendump. A card without
# any connector (a driver without KMS) gets SKIP results, not failures.
# Ends with "WDDMSEG-KMS END".

n=0
status=0
tap() { # ok|not-ok MESSAGE [SKIP-REASON]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2${3:+ # SKIP $3}"
	else
		echo "not ok $n - $2"
		status=1
	fi
}
check() { # MESSAGE COMMAND...: one TAP line from a command's status
	msg=$1
	shift
	if "$@"; then tap ok "$msg"; else tap not-ok "$msg"; fi
}

# wddmseg with its fbdev console on (the initramfs' modprobe.conf turns it
# off for the memory tests): modetest and the pattern must work next to it
for m in $KMS_MODULES; do
	opts=''
	[ "$m" = wddmseg ] && opts=fbdev=1
	# shellcheck disable=SC2086
	modprobe "$m" $opts || echo "# modprobe $m failed"
done
# let fbdev emulation finish its first modeset before modetest
sleep 1

# card_of DRIVER: /sys/class/drm/cardN of the first device bound to DRIVER
card_of() {
	for c in /sys/class/drm/card[0-9]*; do
		case "${c##*/}" in *-*) continue ;; esac
		d=$(readlink -f "$c/device/driver")
		[ "${d##*/}" = "$1" ] && { echo "$c"; return 0; }
	done
	return 1
}

# section NAME FILE: the lines of a modetest section ("Connectors:" ...)
section() {
	awk -v s="$1:" '$0 == s { on = 1; next }
		on && /^[A-Z][a-zA-Z ]*:$/ { on = 0 }
		on' "$2"
}

for spec in $KMS_CARDS; do
	drv=${spec%%:*}
	rest=${spec#*:}
	qdev=${rest%%:*}
	formats=$(echo "${rest#*:}" | tr ',' ' ')
	card=$(card_of "$drv")
	nconn=0
	[ -n "$card" ] && nconn=$(ls -d "$card"-* 2>/dev/null | wc -l)
	echo "# $drv: card ${card:-none}, $nconn connector(s)"
	if [ -z "$card" ] || [ "$nconn" -eq 0 ]; then
		why="$drv exposes no KMS connector"
		[ -z "$card" ] && why="no DRM card bound to $drv"
		for t in "runs" "lists a connected connector" \
			"lists mode $KMS_MODE" "lists a CRTC" \
			"lists a plane with XR24" "lists properties" \
			"-s sets mode $KMS_MODE"; do
			tap ok "modetest -M $drv $t" "$why"
		done
		for f in $formats; do
			echo "WDDMSEG-PATTERN SKIP driver=$drv format=$f reason=$why"
		done
		continue
	fi

	mt=/tmp/modetest.$drv
	timeout 120 modetest -M "$drv" >"$mt" 2>&1
	rc=$?
	sed 's/^/# /' "$mt"
	check "modetest -M $drv runs (exit $rc)" [ $rc -eq 0 ]
	section Connectors "$mt" >"$mt.conn"
	section CRTCs "$mt" >"$mt.crtc"
	section Planes "$mt" >"$mt.plane"
	conn=$(awk '$1 ~ /^[0-9]+$/ && $3 == "connected" { print $1; exit }' "$mt.conn")
	check "modetest -M $drv lists a connected connector (id ${conn:-none})" \
		[ -n "$conn" ]
	check "modetest -M $drv lists mode $KMS_MODE" \
		grep -Eq "^ +#[0-9]+ $KMS_MODE " "$mt.conn"
	crtc=$(awk '$1 ~ /^[0-9]+$/ { print $1; exit }' "$mt.crtc")
	check "modetest -M $drv lists a CRTC (id ${crtc:-none})" [ -n "$crtc" ]
	check "modetest -M $drv lists a plane with XR24" \
		grep -Eq "^ +formats:.* XR24( |\$)" "$mt.plane"
	# every connector has DPMS, every plane a "type" property
	check "modetest -M $drv lists properties (connector DPMS, plane type)" \
		sh -c "grep -Eq '^[[:space:]]+[0-9]+ DPMS:' '$mt.conn' &&
			grep -Eq '^[[:space:]]+[0-9]+ type:' '$mt.plane'"
	# wddmseg has a cursor plane (AR24) and a gamma LUT: its modeset
	# also shows modetest's hardware cursor (-C), and a gamma failure
	# counts
	cursor=
	gamma_ok='failed to set gamma'
	if [ "$drv" = wddmseg ]; then
		cursor=-C
		gamma_ok='^$'
		check "modetest -M $drv lists a plane with AR24 (the cursor's)" \
			grep -Eq "^ +formats:.* AR24( |\$)" "$mt.plane"
		check "modetest -M $drv lists GAMMA_LUT on the CRTC" \
			grep -Eq '^[[:space:]]+[0-9]+ GAMMA_LUT:' "$mt.crtc"
		# what generic clients see: drm_info's capabilities and planes
		di=/tmp/drm_info.$drv
		timeout 60 drm_info "/dev/dri/${card##*/}" >"$di" 2>&1
		rc=$?
		sed 's/^/# /' "$di"
		check "drm_info /dev/dri/${card##*/} runs (exit $rc)" [ $rc -eq 0 ]
		check "drm_info: DRM_CAP_PRIME = 3 (import and export)" \
			grep -q 'DRM_CAP_PRIME = 3$' "$di"
		check "drm_info: DRM_CAP_SYNCOBJ = 1, DRM_CAP_SYNCOBJ_TIMELINE = 1" \
			sh -c "grep -q 'DRM_CAP_SYNCOBJ = 1\$' '$di' &&
				grep -q 'DRM_CAP_SYNCOBJ_TIMELINE = 1\$' '$di'"
		# a plane's formats come before its "type" property
		check "drm_info: a cursor plane with ARGB8888" \
			awk '/───Plane [0-9]+$/ { argb = 0 } /ARGB8888/ { argb = 1 }
				/"type".*= Cursor$/ && argb { ok = 1 }
				END { exit !ok }' "$di"
		# the fbdev console keeps the CRTC on: vblanks are counted;
		# vbltest prints the rate it measured once a second (a figure
		# under TCG, not checked)
		timeout 5 vbltest -M "$drv" >/tmp/vbltest 2>&1
		sed 's/^/# /' /tmp/vbltest
		check "vbltest -M $drv counts vblanks ($(grep -c '^freq:' /tmp/vbltest) rate lines)" \
			grep -Eq '^freq: [1-9][0-9.]*Hz' /tmp/vbltest
	fi
	if [ -n "$conn" ]; then
		# modetest waits for a key after the modeset: give it one
		# shellcheck disable=SC2086
		echo | timeout 120 modetest -M "$drv" -s "$conn:$KMS_MODE" \
			$cursor >"$mt.set" 2>&1
		rc=$?
		sed 's/^/# /' "$mt.set"
		# modetest warns "failed to set gamma" for CRTCs without a
		# gamma LUT and goes on (bochs); any other failure counts
		check "modetest -M $drv -s $conn:$KMS_MODE $cursor sets the mode (exit $rc)" \
			sh -c "[ $rc -eq 0 ] && grep -q 'setting mode $KMS_MODE' '$mt.set' &&
				! grep -Ev '$gamma_ok' '$mt.set' | grep -Eiq 'failed|error'"
	else
		tap not-ok "modetest -M $drv -s CONNECTOR:$KMS_MODE: no connector to use"
	fi

	seed=1
	for f in $formats; do
		seed=$((seed + 1))
		# the pattern holds the mode until the host sends a byte on
		# ttyS2 after its screendump (or 300 s)
		# shellcheck disable=SC2086
		wddmseg-pattern -D "$drv" -f "$f" -s "$seed" -t "qdev=$qdev" \
			$cursor -H 300 -w </dev/ttyS2 2>/tmp/pattern.err
		rc=$?
		sed 's/^/# /' /tmp/pattern.err
		case $rc in
		0) tap ok "wddmseg-pattern -D $drv -f $f" ;;
		*)
			echo "WDDMSEG-PATTERN FAIL driver=$drv format=$f exit=$rc $(tail -n 1 /tmp/pattern.err)"
			tap not-ok "wddmseg-pattern -D $drv -f $f (exit $rc)"
			;;
		esac
	done
done
echo "WDDMSEG-KMS END"
exit $status
