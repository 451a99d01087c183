# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by tools/vm/run-vm.sh and tools/vm/pm-display.sh: crashes of
# the guest that are QEMU's, not the driver's, and earn a second boot.
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

# early_env_crash CONSOLE: the guest died before its /init ran: a panic,
# Oops, BUG, WARNING (panic_on_warn), double fault or general protection
# fault logged before "Run /init as init process". wddmseg is a module
# that /init loads, so the driver cannot be in it. QEMU 7.2's
# multi-threaded TCG does that now and then: an "Oops: int3" in
# sched_clock_cpu or enqueue_timer right after the kernel patched a static
# key with text_poke (cross-modifying code; twice in about 80 boots), a
# KASAN wild-memory-access in handle_edge_irq at 1.2 s. Such a boot is
# booted once more.
early_env_crash() {
	[ -f "$1" ] || return 1
	awk '/Run \/init as init process/ { exit 1 }
	     /Kernel panic|Oops|BUG:|WARNING:|double fault|general protection fault/ { found = 1; exit 0 }
	     END { exit !found }' "$1"
}

# env_crash_why CONSOLE S3: prints why the guest's crash is QEMU's and
# earns a second boot, and succeeds, when early_env_crash says so, or, for
# a boot that can sleep (S3=1), s3_env_crash; fails otherwise.
env_crash_why() {
	if early_env_crash "$1"; then
		echo "before its /init ran (the driver was not loaded)"
	elif [ "$2" = 1 ] && s3_env_crash "$1"; then
		echo "in an S3 resume outside the driver (no wddmseg frame)"
	else
		return 1
	fi
}
