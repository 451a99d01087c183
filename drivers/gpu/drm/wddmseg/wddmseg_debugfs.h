/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: debugfs files (wddmseg_debugfs.c).
 */
#ifndef WDDMSEG_DEBUGFS_H
#define WDDMSEG_DEBUGFS_H

struct drm_minor;
struct wddmseg_device;

void wddmseg_knobs_init(struct wddmseg_device *wdev);
void wddmseg_debugfs_init(struct drm_minor *minor);

#endif /* WDDMSEG_DEBUGFS_H */
