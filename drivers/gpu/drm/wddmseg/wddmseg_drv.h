/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: WDDM-style video memory segments as a DRM driver.
 */
#ifndef WDDMSEG_DRV_H
#define WDDMSEG_DRV_H

#include <drm/drm_device.h>
#include <drm/ttm/ttm_device.h>

#include "wddmseg_device_types.h"

#define WDDMSEG_DRIVER_NAME	"wddmseg"
#define WDDMSEG_DRIVER_DESC	"WDDM-style video memory segments"
/*
 * Release of the driver, in MODULE_VERSION and the one version of the
 * package: the top-level Makefile reads it from here for dkms.conf
 * (PACKAGE_VERSION, `make dkms-source`). Not the DRM interface version
 * (drm_driver.major/minor) nor WDDMSEG_UAPI_VERSION.
 */
#define WDDMSEG_DRIVER_VERSION	"1.0.0"

static inline struct wddmseg_device *to_wddmseg(struct drm_device *drm)
{
	return container_of(drm, struct wddmseg_device, drm);
}

static inline struct wddmseg_device *bdev_to_wddmseg(struct ttm_device *bdev)
{
	return container_of(bdev, struct wddmseg_device, bdev);
}

#endif /* WDDMSEG_DRV_H */
