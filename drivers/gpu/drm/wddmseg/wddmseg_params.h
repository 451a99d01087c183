/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: module parameters (wddmseg_params.c).
 */
#ifndef WDDMSEG_PARAMS_H
#define WDDMSEG_PARAMS_H

#include <linux/types.h>

/* What a user sets; test and tuning knobs are in debugfs (struct wddmseg_knobs). */
extern unsigned int wddmseg_keep_sysmem_mb;
extern unsigned int wddmseg_fence_timeout_ms;
extern bool wddmseg_fbdev;
extern int wddmseg_autosuspend_ms;
extern bool wddmseg_copy_fixed;

#endif /* WDDMSEG_PARAMS_H */
