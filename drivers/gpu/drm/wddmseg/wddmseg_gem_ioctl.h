/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the GEM ioctls and the dumb-buffer interface
 * (wddmseg_gem_ioctl.c).
 */
#ifndef WDDMSEG_GEM_IOCTL_H
#define WDDMSEG_GEM_IOCTL_H

#include <linux/types.h>

struct drm_device;
struct drm_file;
struct drm_mode_create_dumb;

int wddmseg_ioctl_gem_create(struct drm_device *drm, void *data,
			     struct drm_file *file);
int wddmseg_ioctl_gem_mmap_offset(struct drm_device *drm, void *data,
				  struct drm_file *file);
int wddmseg_ioctl_gem_info(struct drm_device *drm, void *data,
			   struct drm_file *file);
int wddmseg_ioctl_gem_make_resident(struct drm_device *drm, void *data,
				    struct drm_file *file);
int wddmseg_ioctl_gem_evict(struct drm_device *drm, void *data,
			    struct drm_file *file);
int wddmseg_ioctl_gem_wait(struct drm_device *drm, void *data,
			   struct drm_file *file);
int wddmseg_dumb_create(struct drm_file *file, struct drm_device *drm,
			struct drm_mode_create_dumb *args);
int wddmseg_dumb_map_offset(struct drm_file *file, struct drm_device *drm,
			    u32 handle, u64 *offset);

#endif /* WDDMSEG_GEM_IOCTL_H */
