/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the display (wddmseg_kms.c).
 */
#ifndef WDDMSEG_KMS_H
#define WDDMSEG_KMS_H

#include <linux/types.h>

struct drm_display_mode;
struct wddmseg_device;

int wddmseg_kms_init(struct wddmseg_device *wdev);
void wddmseg_kms_register(struct wddmseg_device *wdev);
void wddmseg_kms_fini(struct wddmseg_device *wdev);
void wddmseg_kms_irq(struct wddmseg_device *wdev, u32 status);
u64 wddmseg_kms_refresh_mhz(const struct drm_display_mode *mode);
const char *wddmseg_kms_mode_rule(u32 max_width, u32 max_height,
				  const struct drm_display_mode *mode);

#endif /* WDDMSEG_KMS_H */
