// SPDX-License-Identifier: GPL-2.0-only
/*
 * Module parameters, all in one place (Documentation/gpu/wddmseg.rst,
 * "Module parameters"). The names are the sysfs names under
 * /sys/module/wddmseg/parameters/; the variables are read with READ_ONCE
 * where they may change at run time (mode 0644).
 */

#include <linux/moduleparam.h>

#include "wddmseg_params.h"

bool wddmseg_use_engine = true;
module_param_named(use_engine, wddmseg_use_engine, bool, 0644);
MODULE_PARM_DESC(use_engine,
		 "Move memory with the copy engine (default) or, if 0, with the CPU");

/*
 * Moves of at most this many KiB go through the CPU even with the engine
 * on, when the allocation is idle; per path: [0] VRAM <-> system memory,
 * [1] an aperture on either side, [2] VRAM <-> VRAM. Measured with
 * `make bench` (Documentation/gpu/wddmseg.rst, "Engine or CPU").
 */
unsigned int wddmseg_cpu_move_max_kb[WDDMSEG_MOVE_PATHS] = { 4, 4, 4 };
module_param_array_named(cpu_move_max_kb, wddmseg_cpu_move_max_kb, uint,
			 NULL, 0644);
MODULE_PARM_DESC(cpu_move_max_kb,
		 "Largest move in KiB the CPU copies instead of the engine when the allocation is idle: VRAM<->system,aperture,VRAM<->VRAM (default 4,4,4; 0: engine only)");

unsigned int wddmseg_keep_sysmem_mb = 256;
module_param_named(keep_sysmem_mb, wddmseg_keep_sysmem_mb, uint, 0644);
MODULE_PARM_DESC(keep_sysmem_mb,
		 "MiB of system pages allocations in VRAM may keep for their next eviction (default 256, 0 = off)");

unsigned int wddmseg_fence_timeout_ms = 5000;
module_param_named(fence_timeout_ms, wddmseg_fence_timeout_ms, uint, 0644);
MODULE_PARM_DESC(fence_timeout_ms,
		 "Paging fence timeout before the engine is reset (default 5000)");

unsigned int wddmseg_fence_spin_us = 500;
module_param_named(fence_spin_us, wddmseg_fence_spin_us, uint, 0644);
MODULE_PARM_DESC(fence_spin_us,
		 "Microseconds a waiter polls a paging fence's writeback before sleeping until the interrupt (default 500, 0: never)");

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
 * Allocations that need no contiguous VRAM may be made of several ranges
 * (device 1.6 and later) when no single range is free; 0 asks every VRAM
 * placement for one range, as before (DOC: VRAM made of blocks). `make
 * bench` switches it to count the evictions either way in one run.
 */
bool wddmseg_vram_blocks = true;
module_param_named(vram_blocks, wddmseg_vram_blocks, bool, 0644);
MODULE_PARM_DESC(vram_blocks,
		 "Place allocations that need no contiguous VRAM in several ranges when no single range is free (default 1; 0: one range each)");
