/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the CRTC of the scanout and the display interrupt
 * (wddmseg_kms_crtc.c).
 */
#ifndef WDDMSEG_KMS_CRTC_H
#define WDDMSEG_KMS_CRTC_H

#include <linux/types.h>

#include <drm/drm_crtc.h>
#include <drm/drm_modeset_helper_vtables.h>

struct wddmseg_device;

extern const struct drm_crtc_funcs wddmseg_crtc_funcs;
extern const struct drm_crtc_helper_funcs wddmseg_crtc_helper_funcs;
void wddmseg_kms_irq(struct wddmseg_device *wdev, u32 status);
void wddmseg_cursor_program(struct wddmseg_device *wdev,
			    struct drm_plane_state *ps);

#endif /* WDDMSEG_KMS_CRTC_H */
