/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: residency of allocations and its budget accounting
 * (wddmseg_bo_residency.c).
 */
#ifndef WDDMSEG_BO_RESIDENCY_H
#define WDDMSEG_BO_RESIDENCY_H

#include <linux/types.h>

struct drm_file;
struct wddmseg_bo;
struct wddmseg_move_end;

void wddmseg_bo_moved(struct wddmseg_bo *bo,
		      const struct wddmseg_move_end *old,
		      const struct wddmseg_move_end *new, bool evict);
void wddmseg_bo_residency_commit(struct wddmseg_bo *bo);
int wddmseg_bo_arm_residency(struct wddmseg_bo *bo,
			     struct drm_file *file, u32 handle);

#endif /* WDDMSEG_BO_RESIDENCY_H */
