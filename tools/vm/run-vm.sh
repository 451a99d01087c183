#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot the test VM once with our QEMU (build/qemu/qemu-system-x86_64).
#
# Usage:
#   tools/vm/run-vm.sh --name NAME --mode probe|check|run|script|debug
#                      [--expect FILE] [--script FILE] [--timeout SECS]
#                      [--append "KERNEL ARGS"] [--ko WDDMSEG_KO]
#                      [--kernel-dir DIR] [--vm-dir DIR] [--mem SIZE]
#                      [--no-build] [--qmp] [--ctl] [--s3]
#                      [-- EXTRA QEMU ARGS...]
#
#   --name     names the outputs, all in build/ABI/vm/ (or --vm-dir):
#                NAME.console.log  guest console (ttyS0): kernel log + init
#                NAME.tap          guest ttyS1: the mode's result (dmesg in
#                                  probe mode, TAP in check mode, tool output
#                                  in run mode, the script's output)
#                NAME.qemu.log     QEMU's own stderr
#                NAME.result       one line: outcome, guest status, seconds
#   --mode     what the guest's /init does (tools/vm/guest/init); debug
#              is for the debug kernel (tools/debug/check-debug.sh)
#   --expect   file given to the guest as /etc/wddmseg/expect
#              (WDDMSEG_EXPECT for the kselftests)
#   --script   shell script run by the guest in mode "script", its output
#              going to NAME.tap
#   --timeout  host-side limit in seconds (default 300); QEMU is killed then
#   --append   more kernel command line (e.g. drm.debug=0x2)
#   --ko       wddmseg.ko to put in the initramfs (initramfs.sh argument)
#   --kernel-dir  guest kernel directory in the layout of build/ABI/kernel/
#              (default build/ABI/kernel, the Debian kernel KABI names; the
#              debug tier passes build/debug/kernel); same as
#              WDDMSEG_KERNEL_DIR
#   --vm-dir   directory of the initramfs and of the outputs (default
#              build/ABI/vm); same as WDDMSEG_VM_DIR
#   --mem      guest RAM (default 1G)
#   --no-build skip kernel.sh/initramfs.sh (the caller already ran them)
#   --qmp      a QMP server on the unix socket NAME.qmp in the VM directory
#              (tools/vm/screendump.py connects there for screendumps)
#   --ctl      a third serial port (guest /dev/ttyS2) on the unix socket
#              NAME.ctl in the VM directory: the host can send the guest
#              input (screendump.py tells wddmseg-pattern to stop holding)
#   --s3       the guest can sleep (S3) and wake up: q35's ACPI tables offer
#              S3 (-global ICH9-LPC.disable_s3=0) and the kernel boots as
#              bzImage (vmlinuz): booted through the PVH entry of vmlinux,
#              a wake-up would be a fresh boot; the console is not
#              suspended (no_console_suspend), so what happens during a
#              suspend is in the console log
#   after --   extra QEMU arguments, e.g. -device wddmseg,addr=0x4
#
# Exit status:
#   0    the guest ran its mode to the end, reported status 0 and powered
#        off by itself, and the console log is clean (scan-log.sh)
#   1    same, but the guest reported a non-zero status (see NAME.tap)
#   3    the VM stopped without finishing (panic, WARN with panic_on_warn,
#        init died, QEMU refused its arguments...)
#   4    the guest finished but scan-log.sh found kernel problems
#   124  timeout: QEMU was killed
#   2    usage error; 125 missing prerequisite (e.g. no QEMU build)
#
# Environment: KABI=<series or abi> chooses the kernel (tools/vm/kenv.sh;
# default the primary one, 6.12: build/ABI/ is its directory).
# QEMU=path overrides build/qemu/qemu-system-x86_64 (tests
# must use our build, which has the wddmseg device). WDDMSEG_KERNEL_DIR,
# WDDMSEG_VM_DIR and WDDMSEG_BASE_MODULES are passed on to initramfs.sh.
# WDDMSEG_SCAN_LOG=script replaces tools/vm/scan-log.sh as the console log
# scanner (same interface; the debug tier's knows its kernel's reports).
# WDDMSEG_BOOT_LOG=file: every boot appends "NAME" and its NAME.result line
# there (the ledger tools/vm/boots.sh reads to find retried boots).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tools/vm
QEMU=${QEMU:-$REPO/build/qemu/qemu-system-x86_64}
SCAN_LOG=${WDDMSEG_SCAN_LOG:-$HERE/scan-log.sh}

usage() {
	sed -n '/^# Usage:/,/^# Environment/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

NAME='' MODE=probe EXPECT='' SCRIPT='' TIMEOUT=300 APPEND='' KO='' BUILD=1 MEM=1G
QMP=0 CTL=0 S3=0
if [ -z "${WDDMSEG_KERNEL_DIR:-}" ] || [ -z "${WDDMSEG_VM_DIR:-}" ]; then
	. "$HERE/kenv.sh"
fi
KDIR=${WDDMSEG_KERNEL_DIR:-$WDDMSEG_KBUILD/kernel}
VMDIR=${WDDMSEG_VM_DIR:-$WDDMSEG_KBUILD/vm}
while [ $# -gt 0 ]; do
	case "$1" in
	--name) NAME=${2:?}; shift 2 ;;
	--mode) MODE=${2:?}; shift 2 ;;
	--expect) EXPECT=${2:?}; shift 2 ;;
	--script) SCRIPT=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--append) APPEND=${2:?}; shift 2 ;;
	--ko) KO=${2:?}; shift 2 ;;
	--kernel-dir) KDIR=${2:?}; shift 2 ;;
	--vm-dir) VMDIR=${2:?}; shift 2 ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--no-build) BUILD=0; shift ;;
	--qmp) QMP=1; shift ;;
	--ctl) CTL=1; shift ;;
	--s3) S3=1; shift ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "run-vm: unknown argument '$1'" >&2; usage ;;
	esac
done
EXTRA=("$@")

[ -n "$NAME" ] || { echo "run-vm: --name is required" >&2; usage; }
case "$NAME" in *[!A-Za-z0-9._-]*) echo "run-vm: bad name '$NAME'" >&2; exit 2 ;; esac
case "$MODE" in probe|check|run|script|debug) ;; *) echo "run-vm: bad mode '$MODE'" >&2; exit 2 ;; esac
case "$TIMEOUT" in ''|*[!0-9]*) echo "run-vm: bad timeout '$TIMEOUT'" >&2; exit 2 ;; esac
[ -z "$EXPECT" ] || [ -f "$EXPECT" ] || { echo "run-vm: no file $EXPECT" >&2; exit 2; }
[ -z "$SCRIPT" ] || [ -f "$SCRIPT" ] || { echo "run-vm: no file $SCRIPT" >&2; exit 2; }
if [ "$MODE" = script ] && [ -z "$SCRIPT" ]; then
	echo "run-vm: mode script needs --script FILE" >&2; exit 2
fi

if [ ! -x "$QEMU" ]; then
	echo "run-vm: $QEMU missing: run tools/qemu/build.sh" >&2
	exit 125
fi

case "$KDIR" in /*) ;; *) KDIR=$PWD/$KDIR ;; esac
case "$VMDIR" in /*) ;; *) VMDIR=$PWD/$VMDIR ;; esac
export WDDMSEG_KERNEL_DIR=$KDIR WDDMSEG_VM_DIR=$VMDIR
mkdir -p "$VMDIR"

if [ $BUILD = 1 ]; then
	bash "$HERE/initramfs.sh" ${KO:+"$KO"}
fi
# the decompressed PVH-bootable kernel when kernel.sh could extract it
KERNEL=$KDIR/vmlinux
[ -f "$KERNEL" ] && [ $S3 = 0 ] || KERNEL=$KDIR/vmlinuz
BASE_INITRD=$VMDIR/initramfs.cpio.gz
for f in "$KERNEL" "$BASE_INITRD"; do
	[ -f "$f" ] || { echo "run-vm: $f missing (tools/vm/initramfs.sh)" >&2; exit 125; }
done

# Two runs with the same name would share their output files: serialize.
exec 8>"$VMDIR/.$NAME.lock"
if ! flock -n 8; then
	echo "run-vm: another run named $NAME is in progress; waiting" >&2
	flock 8
fi

# The per-boot archive, appended to the shared initramfs: the kernel
# unpacks concatenated gzip'd cpio archives one after the other.
BOOT=$VMDIR/$NAME.boot
rm -rf "$BOOT"
mkdir -p "$BOOT/etc/wddmseg"
echo "$MODE" >"$BOOT/etc/wddmseg/mode"
[ -n "$EXPECT" ] && cp "$EXPECT" "$BOOT/etc/wddmseg/expect"
[ -n "$SCRIPT" ] && cp "$SCRIPT" "$BOOT/etc/wddmseg/script"
INITRD=$VMDIR/$NAME.initrd
{
	cat "$BASE_INITRD"
	(cd "$BOOT" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --quiet) | gzip -n
} >"$INITRD"
rm -rf "$BOOT"

CONSOLE=$VMDIR/$NAME.console.log
TAP=$VMDIR/$NAME.tap
QLOG=$VMDIR/$NAME.qemu.log
RESULT=$VMDIR/$NAME.result
QMP_SOCK=$VMDIR/$NAME.qmp
CTL_SOCK=$VMDIR/$NAME.ctl
rm -f "$CONSOLE" "$TAP" "$QLOG" "$RESULT" "$QMP_SOCK" "$CTL_SOCK"
SOCKARGS=()
if [ $QMP = 1 ]; then
	SOCKARGS+=(-qmp "unix:$QMP_SOCK,server=on,wait=off")
fi
if [ $CTL = 1 ]; then
	# the third -serial: ttyS2 in the guest (ttyS0 console, ttyS1 output)
	SOCKARGS+=(-chardev "socket,id=wddmseg-ctl,path=$CTL_SOCK,server=on,wait=off"
		-serial chardev:wddmseg-ctl)
fi

DLOG=$VMDIR/$NAME.qemu-debug.log
rm -f "$DLOG"
# Every boot runs multi-threaded TCG, S3 boots too. (QEMU 7.2's corrupted
# a vCPU now and then in the first resume from S3, so S3 boots ran in one
# TCG thread and a crashed guest was booted once more; QEMU 10.0 does not:
# tools/vm/README, "The S3 resume crash of QEMU 7.2".)
ACCEL=tcg
if [ $S3 = 1 ]; then
	# A guest that does not come back from S3 is told apart by QEMU's
	# own record: the wake-up request, CPU resets (a triple fault is
	# logged as one) and shutdown requests, in NAME.qemu-debug.log.
	SOCKARGS+=(-global ICH9-LPC.disable_s3=0 -d cpu_reset -D "$DLOG"
		-trace system_wakeup_request -trace qemu_system_shutdown_request)
fi

# log_buf_len: probe mode dumps the whole kernel log, keep it from wrapping
CMDLINE="console=ttyS0 panic=-1 oops=panic panic_on_warn=1 log_buf_len=4M wddmseg_vm.mode=$MODE"
# A suspend stops the console before the devices' callbacks run: a WARN
# or an Oops there (panic_on_warn, panic=-1) would reboot the guest, and
# with -no-reboot end QEMU, without a line in the console log.
[ $S3 = 1 ] && CMDLINE="$CMDLINE no_console_suspend"
[ -n "$APPEND" ] && CMDLINE="$CMDLINE $APPEND"

# shellcheck disable=SC2054 # the commas are QEMU option syntax
QARGS=(
	-machine q35 -cpu max -smp 2 -m "$MEM" -accel "$ACCEL"
	-nodefaults -vga none -display none -no-reboot -nic none
	-L /usr/share/seabios -L /usr/share/qemu
	-serial "file:$CONSOLE" -serial "file:$TAP"
	-device isa-debug-exit,iobase=0xf4,iosize=0x04
	-kernel "$KERNEL" -initrd "$INITRD" -append "$CMDLINE"
	${SOCKARGS[@]+"${SOCKARGS[@]}"}
	${EXTRA[@]+"${EXTRA[@]}"}
)
printf '%q ' "$QEMU" "${QARGS[@]}" >"$QLOG"
echo >>"$QLOG"

boot_qemu() {
	start=$(date +%s)
	set +e
	timeout -k 5 "$TIMEOUT" "$QEMU" "${QARGS[@]}" </dev/null 2>>"$QLOG" >>"$QLOG"
	rc=$?
	set -e
	secs=$(( $(date +%s) - start ))
}
ledger() { # the NAME.result line, into the ledger (tools/vm/boots.sh)
	if [ -n "${WDDMSEG_BOOT_LOG:-}" ]; then
		echo "$NAME $(cat "$RESULT")" >>"$WDDMSEG_BOOT_LOG"
	fi
}
boot_qemu
# A guest that died before its /init said "wddmseg-vm: mode=" ran no
# wddmseg code: the driver is a module, and only /init loads it. Such a
# death is the emulator's (tools/vm/README, "Boots and their retries":
# multi-threaded TCG and code the kernel patches while it boots), and the
# guest is booted once more. The ledger keeps the dead boot (boots.sh
# counts the retry, make check's summary shows it) and its console stays
# in NAME.console.log.early. Not with --qmp or --ctl: a host-side peer
# talks to the first QEMU and cannot follow it to a second one.
if [ $rc -ne 124 ] && [ $rc -ne 137 ] && [ $QMP = 0 ] && [ $CTL = 0 ] &&
	! grep -aqs '^wddmseg-vm: mode=' "$CONSOLE"; then
	echo "outcome=died-before-init exit=3 qemu_rc=$rc guest_status=- seconds=$secs" >"$RESULT"
	ledger
	echo "run-vm: $NAME: the guest died before its /init ran (QEMU exit $rc, ${secs}s); its console is $CONSOLE.early; booting it once more" >&2
	if [ -f "$CONSOLE" ]; then
		tr -d '\r' <"$CONSOLE" | tail -n 12 | sed 's/^/run-vm:   /' >&2
	fi
	mv -f "$CONSOLE" "$CONSOLE.early" 2>/dev/null || :
	cp -f "$QLOG" "$QLOG.early" 2>/dev/null || :
	cp -f "$DLOG" "$DLOG.early" 2>/dev/null || :
	rm -f "$TAP" "$RESULT" "$QMP_SOCK" "$CTL_SOCK"
	boot_qemu
fi
rm -f "$INITRD" "$QMP_SOCK" "$CTL_SOCK"

report() { # OUTCOME EXIT MESSAGE
	echo "outcome=$1 exit=$2 qemu_rc=$rc guest_status=${gstatus:--} seconds=$secs" >"$RESULT"
	ledger
	echo "run-vm: $NAME: $3 (${secs}s; console $CONSOLE, tap $TAP)" >&2
	exit "$2"
}
tail_logs() {
	echo "--- last lines of $CONSOLE" >&2
	[ -f "$CONSOLE" ] && tr -d '\r' <"$CONSOLE" | tail -n 25 >&2
	echo "--- $QLOG" >&2
	tail -n +2 "$QLOG" | tail -n 10 >&2
	if [ -f "$DLOG" ]; then
		echo "--- $DLOG (resets, wake-ups, shutdowns)" >&2
		grep -E 'Triple|CPU Reset|wakeup|shutdown' "$DLOG" | tail -n 12 >&2
	fi
}

gstatus=
if [ -f "$CONSOLE" ]; then
	gstatus=$(tr -d '\r' <"$CONSOLE" |
		sed -n 's/.*wddmseg-vm: done mode=[a-z]* status=\([0-9]*\).*/\1/p' | tail -n1)
fi

if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	tail_logs
	report timeout 124 "TIMEOUT after ${TIMEOUT}s, QEMU killed"
fi
if [ -z "$gstatus" ]; then
	tail_logs
	bash "$SCAN_LOG" "$CONSOLE" >&2 || true
	report crashed 3 "VM stopped without finishing (QEMU exit $rc)"
fi
if ! bash "$SCAN_LOG" "$CONSOLE" >&2; then
	report kernel-problems 4 "guest finished (status $gstatus) but the console log has kernel problems"
fi
if [ "$gstatus" != 0 ]; then
	report guest-failed 1 "guest finished with status $gstatus"
fi
report ok 0 "ok"
