// SPDX-License-Identifier: GPL-2.0-only
/*
 * Module parameters: what a user sets (Documentation/gpu/wddmseg.rst,
 * "Module parameters"). The names are the sysfs names under
 * /sys/module/wddmseg/parameters/; the variables are read with READ_ONCE
 * where they may change at run time (mode 0644). Knobs for tests and
 * measurements are per device in debugfs instead (wddmseg_debugfs.c,
 * DOC: Test knobs).
 */

#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "wddmseg_params.h"

unsigned int wddmseg_keep_sysmem_mb = 256;
module_param_named(keep_sysmem_mb, wddmseg_keep_sysmem_mb, uint, 0644);
MODULE_PARM_DESC(keep_sysmem_mb,
		 "MiB of system pages allocations in VRAM may keep for their next eviction (default 256, 0 = off)");

unsigned int wddmseg_fence_timeout_ms = 5000;
module_param_named(fence_timeout_ms, wddmseg_fence_timeout_ms, uint, 0644);
MODULE_PARM_DESC(fence_timeout_ms,
		 "Paging fence timeout before the engine is reset (default 5000)");

/*
 * Runtime PM (DOC: Runtime power management): the autosuspend delay the
 * device starts with; user space changes it in the PCI device's
 * power/autosuspend_delay_ms. Negative: never suspended at run time.
 */
int wddmseg_autosuspend_ms = 5000;
module_param_named(autosuspend_ms, wddmseg_autosuspend_ms, int, 0444);
MODULE_PARM_DESC(autosuspend_ms,
		 "Milliseconds the device stays in D0 after its last use before it is runtime-suspended to D3hot (default 5000; negative: always on; power/autosuspend_delay_ms changes it per device)");

bool wddmseg_fbdev = true;
module_param_named(fbdev, wddmseg_fbdev, bool, 0444);
MODULE_PARM_DESC(fbdev, "fbdev emulation on the scanout (console on the display; pins a framebuffer in a DirectFlip segment while shown) [default=on]");

/*
 * Engine or CPU for a small idle move (DOC: Copy cost model in
 * wddmseg_copycost.c): "adaptive" (default), measured costs; "fixed", the
 * cpu_move_max_kb thresholds, for comparison.
 */
bool wddmseg_copy_fixed;

static int wddmseg_copy_policy_set(const char *val,
				   const struct kernel_param *kp)
{
	if (sysfs_streq(val, "adaptive")) {
		WRITE_ONCE(wddmseg_copy_fixed, false);
		return 0;
	}
	if (sysfs_streq(val, "fixed")) {
		WRITE_ONCE(wddmseg_copy_fixed, true);
		return 0;
	}
	pr_debug("wddmseg: copy_policy: rule copy-policy-name: adaptive or fixed\n");
	return -EINVAL;
}

static int wddmseg_copy_policy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(wddmseg_copy_fixed) ? "fixed" : "adaptive");
}

static const struct kernel_param_ops wddmseg_copy_policy_ops = {
	.set = wddmseg_copy_policy_set,
	.get = wddmseg_copy_policy_get,
};

module_param_cb(copy_policy, &wddmseg_copy_policy_ops, NULL, 0644);
MODULE_PARM_DESC(copy_policy,
		 "Engine or CPU for a small idle move: adaptive (measured cost, default) or fixed (cpu_move_max_kb thresholds)");
