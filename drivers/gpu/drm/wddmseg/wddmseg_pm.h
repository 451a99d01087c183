/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: system and runtime power management (wddmseg_pm.c).
 */
#ifndef WDDMSEG_PM_H
#define WDDMSEG_PM_H

#include <linux/pm.h>

struct wddmseg_device;

extern const struct dev_pm_ops wddmseg_pm_ops;
int wddmseg_pm_init(struct wddmseg_device *wdev);
void wddmseg_pm_runtime_start(struct wddmseg_device *wdev);
void wddmseg_pm_runtime_stop(struct wddmseg_device *wdev);
int wddmseg_pm_get(struct wddmseg_device *wdev);
void wddmseg_pm_put(struct wddmseg_device *wdev);

#endif /* WDDMSEG_PM_H */
