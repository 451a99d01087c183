/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: budgets, reservations and trim notifications (wddmseg_budget.c).
 */
#ifndef WDDMSEG_BUDGET_H
#define WDDMSEG_BUDGET_H

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct wddmseg_bo;
struct wddmseg_device;
struct wddmseg_file;

int wddmseg_ioctl_query_budget(struct drm_device *drm, void *data,
			       struct drm_file *file);
int wddmseg_ioctl_set_reservation(struct drm_device *drm, void *data,
				  struct drm_file *file);
int wddmseg_ioctl_register_trim(struct drm_device *drm, void *data,
				struct drm_file *file);
bool wddmseg_budget_keeps(struct wddmseg_bo *bo);
void wddmseg_budget_evicted(struct wddmseg_device *wdev);
void wddmseg_budget_placed(struct wddmseg_device *wdev);
void wddmseg_budget_init(struct wddmseg_device *wdev);
void wddmseg_budget_fini(struct wddmseg_device *wdev);
void wddmseg_budget_file_fini(struct wddmseg_device *wdev,
			      struct wddmseg_file *wfile);

#endif /* WDDMSEG_BUDGET_H */
