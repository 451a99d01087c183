// SPDX-License-Identifier: GPL-2.0-only
/*
 * Budgets and reservations: QUERY_BUDGET (D3DKMTQueryVideoMemoryInfo) and
 * SET_RESERVATION (D3DKMTSetVideoMemoryReservation).
 */

#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/string.h>

#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_budget.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_file.h"
#include "wddmseg_mgr.h"

/**
 * DOC: Reservations
 *
 * D3DKMTSetVideoMemoryReservation lets a process ask that a minimum of its
 * memory be kept resident: the video memory manager does not trim it
 * below its reservation. Here a reservation belongs to the DRM file (the
 * process that opened it, &wddmseg_file.tgid) and covers the local
 * budget group. SET_RESERVATION sets it, up to what QUERY_BUDGET reports
 * as available for reservation: half of the group's budget, less what the
 * device's other files have reserved. Half, so that reservations can never
 * leave the processes that have none without room.
 *
 * The promise is kept where TTM picks what to evict
 * (&ttm_device_funcs.eviction_valuable, wddmseg_budget_keeps()): an
 * allocation of a file with a reservation is not a candidate when the
 * eviction runs for another process (or for the driver itself) and taking
 * it would leave the file less than its reservation resident in the local
 * group. Offered allocations are not kept: an offer gives them up. Its
 * own allocations may still make room for each other: a
 * process over its reservation is trimmed down to it like any other, LRU
 * and priority first. The bytes counted are those QUERY_BUDGET reports as
 * @current_usage, the allocations the file created resident in the
 * group's segments.
 *
 * The non-local group (apertures) is refused, rule reserve-non-local:
 * aperture pages are system memory that the kernel's reclaim (TTM's swap
 * out) may take; a reservation there would promise what the driver does
 * not control. Its available-for-reservation is reported as 0.
 */

/* The group's budget (see the uapi) and what its segments have free. */
static u64 wddmseg_budget_of(struct wddmseg_device *wdev, u32 group,
			     u64 *available)
{
	u64 budget = 0;
	u32 id;

	if (available)
		*available = 0;
	for (id = 1; id <= wdev->desc.segment_count; id++) {
		const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];
		struct wddmseg_mgr *mgr = wdev->mgr[id - 1];

		if (wddmseg_segment_budget_group(seg) != group ||
		    !wddmseg_segment_budget_target(&wdev->desc, seg))
			continue;
		budget += seg->commit_limit;
		if (!available)
			continue;
		spin_lock(&mgr->lock);
		*available += (mgr->commit_limit - mgr->committed) << PAGE_SHIFT;
		spin_unlock(&mgr->lock);
	}
	return budget;
}

/* Caller holds reserve_lock: the most @wfile may reserve in the group. */
static u64 wddmseg_reservable(struct wddmseg_device *wdev,
			      struct wddmseg_file *wfile, u32 group)
{
	u64 half, others;

	lockdep_assert_held(&wdev->reserve_lock);
	if (group != WDDMSEG_BUDGET_LOCAL)
		return 0;
	half = wddmseg_budget_of(wdev, group, NULL) / 2;
	others = wdev->reserved_local - wfile->reservation;
	return half > others ? half - others : 0;
}

int wddmseg_ioctl_query_budget(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_query_budget *args = data;
	struct wddmseg_file *wfile = file->driver_priv;
	u32 group = args->group;

	if (args->pad || memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    args->budget || args->current_usage || args->available ||
	    args->current_reservation || args->available_for_reservation ||
	    (group != WDDMSEG_BUDGET_LOCAL && group != WDDMSEG_BUDGET_NON_LOCAL)) {
		drm_dbg(drm, "query_budget: bad group %u or non-zero output/reserved fields\n",
			group);
		return -EINVAL;
	}

	args->budget = wddmseg_budget_of(wdev, group, &args->available);
	args->current_usage = atomic64_read(&wfile->resident[group]);
	mutex_lock(&wdev->reserve_lock);
	if (group == WDDMSEG_BUDGET_LOCAL)
		args->current_reservation = wfile->reservation;
	args->available_for_reservation = wddmseg_reservable(wdev, wfile, group);
	mutex_unlock(&wdev->reserve_lock);
	return 0;
}

int wddmseg_ioctl_set_reservation(struct drm_device *drm, void *data,
				  struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_set_reservation *args = data;
	struct wddmseg_file *wfile = file->driver_priv;
	u64 room;

	if (args->flags || memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    (args->group != WDDMSEG_BUDGET_LOCAL &&
	     args->group != WDDMSEG_BUDGET_NON_LOCAL)) {
		drm_dbg(drm, "set_reservation: rule reserve-args: bad group %u or non-zero flags/reserved fields\n",
			args->group);
		return -EINVAL;
	}
	if (args->group == WDDMSEG_BUDGET_NON_LOCAL) {
		if (!args->reservation)
			return 0;
		drm_dbg(drm, "set_reservation: rule reserve-non-local: aperture pages are system memory the kernel may reclaim; no reservation of the non-local group\n");
		return -EOPNOTSUPP;
	}

	mutex_lock(&wdev->reserve_lock);
	room = wddmseg_reservable(wdev, wfile, args->group);
	if (args->reservation > room) {
		mutex_unlock(&wdev->reserve_lock);
		drm_dbg(drm, "set_reservation: rule reserve-over-available: %llu bytes asked, %llu available for reservation\n",
			args->reservation, room);
		return -ENOSPC;
	}
	wdev->reserved_local += args->reservation - wfile->reservation;
	WRITE_ONCE(wfile->reservation, args->reservation);
	mutex_unlock(&wdev->reserve_lock);
	return 0;
}

/**
 * wddmseg_budget_keeps - does a reservation keep an allocation from eviction
 * @bo: the candidate TTM offers (reserved)
 *
 * Called by TTM's eviction walks (&ttm_device_funcs.eviction_valuable)
 * and, since 6.13, its swap-out walk; see DOC: Reservations.
 *
 * Return: true when @bo's creator has a reservation, the eviction does
 * not run in the creator's process, @bo is not offered (an offered
 * allocation is given up, reservation or not), and evicting @bo would
 * leave the creator less than its reservation resident in the local
 * group.
 */
bool wddmseg_budget_keeps(struct wddmseg_bo *bo)
{
	struct wddmseg_file *owner = bo->owner;
	u64 resv, resident;

	if (!owner || bo->group != WDDMSEG_BUDGET_LOCAL || bo->offer_priority)
		return false;
	resv = READ_ONCE(owner->reservation);
	if (!resv || owner->tgid == task_tgid(current))
		return false;
	resident = atomic64_read(&owner->resident[WDDMSEG_BUDGET_LOCAL]);
	return resident < resv + bo->tbo.base.size;
}

/**
 * wddmseg_budget_file_fini - a closing file's reservation ends
 * @wdev: device
 * @wfile: the file's state (its allocations may outlive it)
 */
void wddmseg_budget_file_fini(struct wddmseg_device *wdev,
			      struct wddmseg_file *wfile)
{
	mutex_lock(&wdev->reserve_lock);
	wdev->reserved_local -= wfile->reservation;
	WRITE_ONCE(wfile->reservation, 0);
	mutex_unlock(&wdev->reserve_lock);
}
