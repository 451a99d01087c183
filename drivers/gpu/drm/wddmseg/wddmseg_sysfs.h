/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: sysfs attributes (wddmseg_sysfs.c).
 */
#ifndef WDDMSEG_SYSFS_H
#define WDDMSEG_SYSFS_H

struct wddmseg_device;

int wddmseg_sysfs_init(struct wddmseg_device *wdev);

#endif /* WDDMSEG_SYSFS_H */
