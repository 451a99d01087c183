/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: module parameters (wddmseg_params.c).
 */
#ifndef WDDMSEG_PARAMS_H
#define WDDMSEG_PARAMS_H

#include <linux/types.h>

/* Kinds of move with their own engine-or-CPU threshold (cpu_move_max_kb). */
enum wddmseg_move_path {
	WDDMSEG_MOVE_SYSTEM,	/* VRAM <-> system memory */
	WDDMSEG_MOVE_APERTURE,	/* an aperture on either side */
	WDDMSEG_MOVE_VRAM,	/* VRAM <-> VRAM */
	WDDMSEG_MOVE_PATHS,
};

extern bool wddmseg_use_engine;
extern unsigned int wddmseg_cpu_move_max_kb[WDDMSEG_MOVE_PATHS];
extern unsigned int wddmseg_keep_sysmem_mb;
extern unsigned int wddmseg_fence_timeout_ms;
extern unsigned int wddmseg_fence_spin_us;
extern bool wddmseg_fbdev;
extern int wddmseg_autosuspend_ms;
extern bool wddmseg_vram_blocks;

#endif /* WDDMSEG_PARAMS_H */
