/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: system and runtime power management (wddmseg_pm.c).
 */
#ifndef WDDMSEG_PM_H
#define WDDMSEG_PM_H

#include <linux/pm.h>
#include <linux/types.h>

#include "wddmseg_device_types.h"

struct wddmseg_device;

extern const struct dev_pm_ops wddmseg_pm_ops;
int wddmseg_pm_init(struct wddmseg_device *wdev);
void wddmseg_pm_runtime_start(struct wddmseg_device *wdev);
void wddmseg_pm_runtime_stop(struct wddmseg_device *wdev);
int wddmseg_pm_get(struct wddmseg_device *wdev);
void wddmseg_pm_put(struct wddmseg_device *wdev);
enum wddmseg_sleep wddmseg_pm_sleep_kind(bool hibernating, bool freeze);
bool wddmseg_pm_keeps(const struct wddmseg_segment_desc *seg, u32 caps,
		      u32 hib, u64 hib_partial, enum wddmseg_sleep sleep,
		      bool hw_protected, u64 end);

#endif /* WDDMSEG_PM_H */
