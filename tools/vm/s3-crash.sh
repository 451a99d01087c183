# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by tools/vm/run-vm.sh and tools/vm/pm-display.sh.
#
# s3_env_crash CONSOLE: the guest died in a suspend or resume with an
# Oops, a double fault or the WARNING of a kernel-mode #DB
# (exc_debug_kernel) whose reliable stack frames (those without "?") and
# RIP name nothing of wddmseg. QEMU 7.2's multi-threaded TCG does that now
# and then on a resume from S3 (EFLAGS with reserved bits set, a call to
# address 0; in crng_reseed, in syscore_resume), with no wddmseg device in
# the VM at all; run-vm.sh now runs S3 boots single-threaded, which it was
# not seen to do there. Such a boot is booted once more; a crash with a
# driver frame never is.
s3_env_crash() {
	local log crash
	log=$(tr -d '\r' <"$1" 2>/dev/null) || return 1
	grep -q 'PM: suspend entry' <<<"$log" || return 1
	# the log from the first crash line on
	crash=$(sed -En '/Oops|double fault|WARNING: .* exc_debug_kernel/,$p' <<<"$log")
	[ -n "$crash" ] || return 1
	! grep -E '^\[ *[0-9.]+\] +(RIP: |[a-z_][a-z0-9_.]*\+0x)' <<<"$crash" |
		grep -q wddmseg
}
