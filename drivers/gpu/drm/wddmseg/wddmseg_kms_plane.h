/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the planes of the scanout (wddmseg_kms_plane.c).
 */
#ifndef WDDMSEG_KMS_PLANE_H
#define WDDMSEG_KMS_PLANE_H

#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_plane.h>

extern const struct drm_plane_funcs wddmseg_plane_funcs;
extern const struct drm_plane_helper_funcs wddmseg_plane_helper_funcs;
extern const struct drm_plane_helper_funcs wddmseg_cursor_helper_funcs;

#endif /* WDDMSEG_KMS_PLANE_H */
