/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the SUBMIT_BLIT ioctl (wddmseg_blit.c).
 */
#ifndef WDDMSEG_BLIT_H
#define WDDMSEG_BLIT_H

struct drm_device;
struct drm_file;

int wddmseg_ioctl_submit_blit(struct drm_device *drm, void *data,
			      struct drm_file *file);

#endif /* WDDMSEG_BLIT_H */
