/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: per-open-file state.
 */
#ifndef WDDMSEG_FILE_H
#define WDDMSEG_FILE_H

#include <linux/kref.h>
#include <linux/types.h>
#include <linux/xarray.h>

struct drm_device;
struct drm_file;

/**
 * struct wddmseg_file - per-open-file (per-process) state
 * @refcount: held by the file and by every allocation it created
 * @resident: bytes of this file's allocations resident in each budget
 *	group (WDDMSEG_BUDGET_LOCAL, WDDMSEG_BUDGET_NON_LOCAL)
 * @engine_ns: copy-engine time of this file's completed blits, in ns
 *	(fdinfo drm-engine-copy)
 * @client_id: fdinfo drm-client-id where the DRM core has none (6.1)
 * @vms: the file's GPU address spaces (&struct wddmseg_vm) by id, from 1
 * @discard_bytes: bytes of this file's allocations whose content a move
 *	dropped instead of copying it out (GEM_EVICT with DISCARD, evictions
 *	of offered allocations; fdinfo wddmseg-discard-bytes)
 * @tgid: the thread group (process) that opened the file: whose
 *	reservation @reservation is (DOC: Reservations)
 * @reservation: bytes of the local group kept for the file
 *	(SET_RESERVATION); written under &wddmseg_device.reserve_lock, read
 *	without it by evictions; 0 once the file is closed
 * @trim_notify: the file registered for trim notifications (written under
 *	&wddmseg_device.reserve_lock)
 * @trim_next: per budget group, the earliest jiffies of its next trim
 *	notification (the trim work's, under the device's filelist_mutex)
 * @trim_seq: sequence number of the last trim notification (same lock)
 * @trim_events: trim notifications sent (fdinfo wddmseg-trim-events)
 * @trim_armed: per budget group, a notification's grace period runs
 *	(these four under the device's filelist_mutex)
 * @trim_due: when it ends (jiffies)
 * @trim_usage: the file's usage in the group when notified
 * @trim_asked: the bytes the notification asked for
 * @trim_self_bytes: bytes the file gave back within grace periods (fdinfo
 *	wddmseg-trim-self-bytes)
 * @trim_driver_bytes: bytes the driver evicted from the file once a grace
 *	period was over (fdinfo wddmseg-trim-driver-bytes)
 */
struct wddmseg_file {
	struct kref refcount;
	atomic64_t resident[2];
	atomic64_t engine_ns;
	u64 client_id;
	struct xarray vms;
	atomic64_t discard_bytes;
	struct pid *tgid;
	u64 reservation;
	bool trim_notify;
	unsigned long trim_next[2];
	u64 trim_seq;
	atomic64_t trim_events;
	bool trim_armed[2];
	unsigned long trim_due[2];
	u64 trim_usage[2];
	u64 trim_asked[2];
	atomic64_t trim_self_bytes;
	atomic64_t trim_driver_bytes;
};

int wddmseg_open(struct drm_device *drm, struct drm_file *file);
void wddmseg_postclose(struct drm_device *drm, struct drm_file *file);
struct wddmseg_file *wddmseg_file_get(struct wddmseg_file *wfile);
void wddmseg_file_put(struct wddmseg_file *wfile);

#endif /* WDDMSEG_FILE_H */
