/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: offer and reclaim (wddmseg_offer.c).
 */
#ifndef WDDMSEG_OFFER_H
#define WDDMSEG_OFFER_H

struct drm_device;
struct drm_file;
struct wddmseg_bo;

int wddmseg_offer_check(struct wddmseg_bo *bo, const char *what);
int wddmseg_ioctl_offer_allocations(struct drm_device *drm, void *data,
				    struct drm_file *file);
int wddmseg_ioctl_reclaim_allocations(struct drm_device *drm, void *data,
				      struct drm_file *file);

#endif /* WDDMSEG_OFFER_H */
