/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: offer, reclaim and allocation priority (wddmseg_offer.c).
 */
#ifndef WDDMSEG_OFFER_H
#define WDDMSEG_OFFER_H

struct drm_device;
struct drm_file;
struct wddmseg_bo;
struct wddmseg_device;

int wddmseg_offer_init(struct wddmseg_device *wdev);
void wddmseg_offer_fini(struct wddmseg_device *wdev);
int wddmseg_offer_check(struct wddmseg_bo *bo, const char *what);
void wddmseg_offer_sort(struct wddmseg_device *wdev);
void wddmseg_offer_forget(struct wddmseg_bo *bo);
void wddmseg_bo_unreserve(struct wddmseg_bo *bo);
int wddmseg_ioctl_offer_allocations(struct drm_device *drm, void *data,
				    struct drm_file *file);
int wddmseg_ioctl_reclaim_allocations(struct drm_device *drm, void *data,
				      struct drm_file *file);
int wddmseg_ioctl_set_allocation_priority(struct drm_device *drm, void *data,
					  struct drm_file *file);

#endif /* WDDMSEG_OFFER_H */
