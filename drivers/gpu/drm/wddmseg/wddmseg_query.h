/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the query ioctls (wddmseg_query.c).
 */
#ifndef WDDMSEG_QUERY_H
#define WDDMSEG_QUERY_H

struct drm_device;
struct drm_file;

int wddmseg_ioctl_query_adapter(struct drm_device *drm, void *data,
				struct drm_file *file);
int wddmseg_ioctl_query_mmu(struct drm_device *drm, void *data,
			    struct drm_file *file);
int wddmseg_ioctl_query_segment(struct drm_device *drm, void *data,
				struct drm_file *file);

#endif /* WDDMSEG_QUERY_H */
