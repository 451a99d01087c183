// SPDX-License-Identifier: GPL-2.0-only
/*
 * Budgets and reservations: QUERY_BUDGET (D3DKMTQueryVideoMemoryInfo) and
 * SET_RESERVATION (D3DKMTSetVideoMemoryReservation).
 */

#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_resource.h>

#include "wddmseg_bo.h"
#include "wddmseg_budget.h"
#include "wddmseg_compat.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_file.h"
#include "wddmseg_mgr.h"
#include "wddmseg_offer.h"
#include "wddmseg_protect.h"

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

/**
 * DOC: Trim notifications
 *
 * A file's budget is its share of a budget group: its reservation plus
 * an equal part of what no file reserved, among the files that are
 * active in the group (allocations resident there, or a reservation).
 * Alone on the device, a file may use the whole group; with a second
 * active file, half of what is not reserved, and so on. QUERY_BUDGET
 * reports it, computed when asked.
 *
 * When TTM evicts from a segment to make room (memory of the group is
 * needed), the driver looks for files over their budget in either group
 * and sends each that registered for it
 * (DRM_IOCTL_WDDMSEG_REGISTER_TRIM_NOTIFICATION, the analogue of
 * D3DKMTRegisterTrimNotification) a DRM_WDDMSEG_EVENT_TRIM event with
 * how far over it is, at most one per file and group in
 * WDDMSEG_TRIM_GRACE_MS. The file trims by evicting, offering or
 * destroying allocations. The check runs in a work item after the
 * eviction (the eviction itself holds reservations and TTM's locks); it
 * reads each file's counters without locks, so a figure may be a move
 * late. fdinfo counts the events sent to a file (``wddmseg-trim-events``),
 * sysfs those of the device (``trim_events``).
 *
 * A notified file has WDDMSEG_TRIM_GRACE_MS to trim. When it is over, a
 * delayed work item looks at the file again: what its usage went down by
 * since the notification (up to what was asked) counts as trimmed by the
 * file (``wddmseg-trim-self-bytes``); if it is still over its budget,
 * the driver trims it: it evicts the file's allocations in the group's
 * segments, lowest priority first (TTM's LRU lists: offered, then
 * MINIMUM and LOW, NORMAL, HIGH and MAXIMUM, across the group's
 * segments) and, within a priority, segment by segment in LRU order,
 * until the file is within its budget
 * (``wddmseg-trim-driver-bytes``, sysfs ``trim_driver_bytes``). Only that
 * file's allocations are taken, never those of a file within its budget;
 * pinned ones and HardwareProtected ones that cannot be sealed stay.
 *
 * The evictions TTM makes to place an allocation are another matter: they
 * follow the priorities and LRU order of the segment's allocations,
 * whichever file they belong to, so an allocation of a file within its
 * budget can go for another file's placement; only a reservation keeps
 * a file's bytes from them (DOC: Reservations).
 */

/*
 * The segments that make a group's budget (see the uapi): the group's
 * ApplicationTarget segments, or all of them when none is one.
 */
static bool wddmseg_budget_counts(struct wddmseg_device *wdev, u32 id,
				  u32 group)
{
	const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];

	return wddmseg_segment_budget_group(seg) == group &&
	       wddmseg_segment_budget_target(&wdev->desc, seg);
}

/* The group's budget: the CommitLimit sum of those segments. */
static u64 wddmseg_budget_group_bytes(struct wddmseg_device *wdev, u32 group)
{
	u64 bytes = 0;
	u32 id;

	for (id = 1; id <= wdev->desc.segment_count; id++)
		if (wddmseg_budget_counts(wdev, id, group))
			bytes += wdev->desc.seg[id - 1].commit_limit;
	return bytes;
}

/* What those segments have free. */
static u64 wddmseg_budget_available(struct wddmseg_device *wdev, u32 group)
{
	u64 available = 0;
	u32 id;

	for (id = 1; id <= wdev->desc.segment_count; id++) {
		struct wddmseg_mgr *mgr = wdev->mgr[id - 1];

		if (!wddmseg_budget_counts(wdev, id, group))
			continue;
		spin_lock(&mgr->lock);
		available += (mgr->commit_limit - mgr->committed) << PAGE_SHIFT;
		spin_unlock(&mgr->lock);
	}
	return available;
}

/*
 * Caller holds reserve_lock: the most @wfile may reserve in @group, whose
 * budget is @group_bytes.
 */
static u64 wddmseg_reservable(struct wddmseg_device *wdev,
			      struct wddmseg_file *wfile, u32 group,
			      u64 group_bytes)
{
	u64 half, others;

	lockdep_assert_held(&wdev->reserve_lock);
	if (group != WDDMSEG_BUDGET_LOCAL)
		return 0;
	half = group_bytes / 2;
	others = wdev->reserved_local - wfile->reservation;
	return half > others ? half - others : 0;
}

/**
 * struct wddmseg_budget_pool - what the files of a device share in a group
 * @group: the CommitLimit sum of the group's (ApplicationTarget) segments
 * @reserved: the files' reservations (local group; 0 for the other)
 * @active: files with allocations resident in the group or a reservation
 */
struct wddmseg_budget_pool {
	u64 group;
	u64 reserved;
	u32 active;
};

static bool wddmseg_file_active(struct wddmseg_file *wfile, u32 group)
{
	return atomic64_read(&wfile->resident[group]) ||
	       (group == WDDMSEG_BUDGET_LOCAL && READ_ONCE(wfile->reservation));
}

/* Caller holds the device's filelist_mutex. */
static void wddmseg_budget_pool(struct wddmseg_device *wdev, u32 group,
				struct wddmseg_budget_pool *pool)
{
	struct drm_file *f;

	lockdep_assert_held(&wdev->drm.filelist_mutex);
	pool->group = wddmseg_budget_group_bytes(wdev, group);
	pool->reserved = group == WDDMSEG_BUDGET_LOCAL ?
			 READ_ONCE(wdev->reserved_local) : 0;
	pool->active = 0;
	list_for_each_entry(f, &wdev->drm.filelist, lhead) {
		struct wddmseg_file *o = f->driver_priv;

		if (o && wddmseg_file_active(o, group))
			pool->active++;
	}
}

/* @wfile's budget in the pool's group (DOC: Trim notifications). */
static u64 wddmseg_budget_share(const struct wddmseg_budget_pool *pool,
				struct wddmseg_file *wfile, u32 group)
{
	u32 active = pool->active;
	u64 mine = group == WDDMSEG_BUDGET_LOCAL ?
		   READ_ONCE(wfile->reservation) : 0;
	u64 free = pool->group > pool->reserved ?
		   pool->group - pool->reserved : 0;

	/* the file asking counts, active or not */
	if (!wddmseg_file_active(wfile, group))
		active++;
	return mine + div_u64(free, max(active, 1u));
}

int wddmseg_ioctl_query_budget(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct wddmseg_budget_pool pool;
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

	args->available = wddmseg_budget_available(wdev, group);
	mutex_lock(&drm->filelist_mutex);
	wddmseg_budget_pool(wdev, group, &pool);
	args->budget = wddmseg_budget_share(&pool, wfile, group);
	mutex_unlock(&drm->filelist_mutex);
	args->current_usage = atomic64_read(&wfile->resident[group]);
	mutex_lock(&wdev->reserve_lock);
	if (group == WDDMSEG_BUDGET_LOCAL)
		args->current_reservation = wfile->reservation;
	args->available_for_reservation = wddmseg_reservable(wdev, wfile, group,
							     pool.group);
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
	room = wddmseg_reservable(wdev, wfile, args->group,
				  wddmseg_budget_group_bytes(wdev, args->group));
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
 * wddmseg_budget_file_fini - a closing file's reservation and trim
 *	notifications end
 * @wdev: device
 * @wfile: the file's state (its allocations may outlive it)
 */
void wddmseg_budget_file_fini(struct wddmseg_device *wdev,
			      struct wddmseg_file *wfile)
{
	mutex_lock(&wdev->reserve_lock);
	wdev->reserved_local -= wfile->reservation;
	WRITE_ONCE(wfile->reservation, 0);
	if (wfile->trim_notify) {
		WRITE_ONCE(wfile->trim_notify, false);
		atomic_dec(&wdev->trim_files);
	}
	mutex_unlock(&wdev->reserve_lock);
}

struct wddmseg_trim_event {
	struct drm_pending_event base;
	struct drm_wddmseg_event_trim event;
};

/* Tell @f it is @over bytes over @budget in @group; filelist_mutex held. */
static void wddmseg_trim_notify(struct wddmseg_device *wdev,
				struct drm_file *f, u32 group, u64 over,
				u64 budget)
{
	struct wddmseg_file *wfile = f->driver_priv;
	struct wddmseg_trim_event *e;

	if (!time_after_eq(jiffies, wfile->trim_next[group]))
		return;
	e = kzalloc_obj(*e, GFP_KERNEL);
	if (!e)
		return;
	e->event.base.type = DRM_WDDMSEG_EVENT_TRIM;
	e->event.base.length = sizeof(e->event);
	e->event.group = group;
	e->event.bytes = over;
	e->event.budget = budget;
	e->event.sequence = ++wfile->trim_seq;
	/* a file that does not read its events runs out of event space */
	if (drm_event_reserve_init(&wdev->drm, f, &e->base, &e->event.base)) {
		--wfile->trim_seq;
		kfree(e);
		return;
	}
	wfile->trim_next[group] = jiffies +
				  msecs_to_jiffies(WDDMSEG_TRIM_GRACE_MS);
	wfile->trim_armed[group] = true;
	wfile->trim_due[group] = wfile->trim_next[group];
	wfile->trim_usage[group] = atomic64_read(&wfile->resident[group]);
	wfile->trim_asked[group] = over;
	/* a no-op when already queued: that one comes no later */
	queue_delayed_work(WDDMSEG_UNBOUND_WQ, &wdev->trim_dwork,
			   msecs_to_jiffies(WDDMSEG_TRIM_GRACE_MS) + 1);
	atomic64_inc(&wfile->trim_events);
	atomic64_inc(&wdev->trim_events);
	drm_send_event(&wdev->drm, &e->base);
	drm_dbg(&wdev->drm, "trim: client %llu is %llu bytes over its budget of %llu in group %u: notified\n",
		wfile->client_id, over, budget, group);
}

typedef void (*wddmseg_budget_visit)(struct wddmseg_device *wdev,
				     struct drm_file *f, u32 group,
				     const struct wddmseg_budget_pool *pool,
				     void *data);

/* @visit each file of the device in each budget group, with the pool. */
static void wddmseg_budget_walk(struct wddmseg_device *wdev,
				wddmseg_budget_visit visit, void *data)
{
	struct wddmseg_budget_pool pool;
	struct drm_file *f;
	u32 group;

	mutex_lock(&wdev->drm.filelist_mutex);
	for (group = WDDMSEG_BUDGET_LOCAL; group <= WDDMSEG_BUDGET_NON_LOCAL;
	     group++) {
		wddmseg_budget_pool(wdev, group, &pool);
		list_for_each_entry(f, &wdev->drm.filelist, lhead)
			if (f->driver_priv)
				visit(wdev, f, group, &pool, data);
	}
	mutex_unlock(&wdev->drm.filelist_mutex);
}

/* A registered file over its budget is notified. */
static void wddmseg_trim_check(struct wddmseg_device *wdev,
			       struct drm_file *f, u32 group,
			       const struct wddmseg_budget_pool *pool,
			       void *data)
{
	struct wddmseg_file *o = f->driver_priv;
	u64 usage, budget;

	if (!READ_ONCE(o->trim_notify))
		return;
	usage = atomic64_read(&o->resident[group]);
	budget = wddmseg_budget_share(pool, o, group);
	if (usage > budget)
		wddmseg_trim_notify(wdev, f, group, usage - budget, budget);
}

static void wddmseg_trim_work(struct work_struct *work)
{
	struct wddmseg_device *wdev = container_of(work, struct wddmseg_device,
						   trim_work);

	wddmseg_budget_walk(wdev, wddmseg_trim_check, NULL);
}

/* Up to this many allocations of a file are looked at per trim. */
#define WDDMSEG_TRIM_BATCH	64

/*
 * The resource at @pos of an LRU list of a manager, or NULL: since 6.11
 * the lists hold struct ttm_lru_item, which may be an iterator's hitch.
 */
#ifdef WDDMSEG_HAVE_TTM_LRU_ITEM
static struct ttm_resource *wddmseg_lru_res(struct list_head *pos)
{
	struct ttm_lru_item *item = list_entry(pos, struct ttm_lru_item, link);

	return ttm_lru_item_is_res(item) ? ttm_lru_item_to_res(item) : NULL;
}
#else
static struct ttm_resource *wddmseg_lru_res(struct list_head *pos)
{
	return list_entry(pos, struct ttm_resource, lru);
}
#endif

/*
 * Append up to @max - @n allocations of @wfile in segment @id to @out,
 * referenced, lowest TTM priority first and least recently used first
 * within one; returns the new count.
 */
static u32 wddmseg_trim_candidates(struct wddmseg_device *wdev, u32 id,
				   struct wddmseg_file *wfile,
				   struct wddmseg_bo **out, u32 n, u32 max)
{
	struct ttm_resource_manager *man =
		ttm_manager_type(&wdev->bdev, wdev->mem_type[id - 1]);
	struct list_head *pos;
	u32 prio;

	spin_lock(&wdev->bdev.lru_lock);
	for (prio = 0; prio < TTM_MAX_BO_PRIORITY && n < max; prio++) {
		list_for_each(pos, &man->lru[prio]) {
			struct ttm_resource *res = wddmseg_lru_res(pos);
			struct ttm_buffer_object *tbo = res ? res->bo : NULL;

			if (n == max)
				break;
			if (!tbo || !wddmseg_is_bo(tbo) || tbo->pin_count ||
			    to_wddmseg_bo(tbo)->owner != wfile ||
			    !kref_get_unless_zero(&tbo->base.refcount))
				continue;
			out[n++] = to_wddmseg_bo(tbo);
		}
	}
	spin_unlock(&wdev->bdev.lru_lock);
	return n;
}

/* Evict @bo for the trim of its file if it is still in @group. */
static u64 wddmseg_trim_evict(struct wddmseg_device *wdev,
			      struct wddmseg_bo *bo, u32 group)
{
	struct ttm_operation_ctx ctx = { .interruptible = false };
	struct ttm_buffer_object *tbo = &bo->tbo;
	u64 size = tbo->base.size;

	if (ttm_bo_reserve(tbo, false, false, NULL))
		return 0;
	if (tbo->pin_count || bo->group != (int)group ||
	    !wddmseg_protect_evictable(bo) ||
	    wddmseg_bo_move_system_locked(bo, &ctx))
		size = 0;
	wddmseg_bo_unreserve(bo);
	return size;
}

/* Evict @wfile's allocations in @group until it is within @budget. */
static void wddmseg_trim_file(struct wddmseg_device *wdev,
			      struct wddmseg_file *wfile, u32 group,
			      u64 budget)
{
	struct wddmseg_bo **bos, *bo;
	u32 id, n = 0, i, j;
	u64 trimmed = 0;

	bos = kmalloc_array(WDDMSEG_TRIM_BATCH, sizeof(*bos), GFP_KERNEL);
	if (!bos)
		return;
	for (id = 1; id <= wdev->desc.segment_count; id++)
		if (wddmseg_segment_budget_group(&wdev->desc.seg[id - 1]) == group)
			n = wddmseg_trim_candidates(wdev, id, wfile, bos, n,
						    WDDMSEG_TRIM_BATCH);
	/*
	 * Lowest priority first across the group's segments (a stable
	 * sort: within a priority, segment by segment, each in LRU order).
	 * The priority may change meanwhile; it orders, nothing more.
	 */
	for (i = 1; i < n; i++) {
		bo = bos[i];
		for (j = i; j && READ_ONCE(bos[j - 1]->tbo.priority) >
				 READ_ONCE(bo->tbo.priority); j--)
			bos[j] = bos[j - 1];
		bos[j] = bo;
	}
	for (i = 0; i < n; i++) {
		if (atomic64_read(&wfile->resident[group]) > budget)
			trimmed += wddmseg_trim_evict(wdev, bos[i], group);
		drm_gem_object_put(&bos[i]->tbo.base);
	}
	kfree(bos);
	atomic64_add(trimmed, &wfile->trim_driver_bytes);
	atomic64_add(trimmed, &wdev->trim_driver_bytes);
	drm_dbg(&wdev->drm, "trim: client %llu did not trim in %u ms: the driver evicted %llu bytes of group %u (budget %llu)\n",
		wfile->client_id, WDDMSEG_TRIM_GRACE_MS, trimmed, group, budget);
}

#define WDDMSEG_TRIM_TARGETS	16

/* What wddmseg_trim_enforce() found: files to trim, the next due time. */
struct wddmseg_trim_due {
	struct {
		struct wddmseg_file *wfile;
		u32 group;
		u64 budget;
	} t[WDDMSEG_TRIM_TARGETS];
	u32 n;
	unsigned long next;
	bool again;
};

/*
 * A file whose grace period is over: what it gave back counts as its
 * own trim; still over its budget, it is to be trimmed. One whose grace
 * period is not over (or that does not fit) sets the next due time.
 */
static void wddmseg_trim_due_check(struct wddmseg_device *wdev,
				   struct drm_file *f, u32 group,
				   const struct wddmseg_budget_pool *pool,
				   void *data)
{
	struct wddmseg_file *o = f->driver_priv;
	struct wddmseg_trim_due *d = data;
	u64 usage, budget;

	if (!o->trim_armed[group])
		return;
	if (time_before(jiffies, o->trim_due[group]) ||
	    d->n == ARRAY_SIZE(d->t)) {
		if (!d->again || time_before(o->trim_due[group], d->next))
			d->next = o->trim_due[group];
		d->again = true;
		return;
	}
	o->trim_armed[group] = false;
	usage = atomic64_read(&o->resident[group]);
	if (usage < o->trim_usage[group])
		atomic64_add(min(o->trim_usage[group] - usage,
				 o->trim_asked[group]),
			     &o->trim_self_bytes);
	budget = wddmseg_budget_share(pool, o, group);
	if (usage <= budget)
		return;
	d->t[d->n].wfile = wddmseg_file_get(o);
	d->t[d->n].group = group;
	d->t[d->n++].budget = budget;
}

/* The grace periods that are over: count what files gave back, trim. */
static void wddmseg_trim_enforce(struct work_struct *work)
{
	struct wddmseg_device *wdev =
		container_of(to_delayed_work(work), struct wddmseg_device,
			     trim_dwork);
	struct wddmseg_trim_due d = { .n = 0 };
	u32 i;

	wddmseg_budget_walk(wdev, wddmseg_trim_due_check, &d);
	for (i = 0; i < d.n; i++) {
		wddmseg_trim_file(wdev, d.t[i].wfile, d.t[i].group,
				  d.t[i].budget);
		wddmseg_file_put(d.t[i].wfile);
	}
	if (d.again)
		queue_delayed_work(WDDMSEG_UNBOUND_WQ, &wdev->trim_dwork,
				   time_after(d.next, jiffies) ?
				   d.next - jiffies : 0);
}

/**
 * wddmseg_budget_evicted - TTM evicted an allocation to make room
 * @wdev: device
 *
 * Memory is needed: look for files over their budget (DOC: Trim
 * notifications) once the eviction's locks are dropped. Any context that
 * may queue work; nothing to do while no file registered.
 */
void wddmseg_budget_evicted(struct wddmseg_device *wdev)
{
	if (!atomic_read(&wdev->trim_files))
		return;
	atomic_set(&wdev->trim_recheck, 1);
	queue_work(WDDMSEG_UNBOUND_WQ, &wdev->trim_work);
}

/**
 * wddmseg_budget_placed - an allocation was placed in a segment
 * @wdev: device
 *
 * TTM evicts for an allocation before that allocation's own move is
 * accounted: the check queued by the eviction may not count its file as
 * active yet, and so give the others too large a share. The first
 * placement after an eviction checks again.
 */
void wddmseg_budget_placed(struct wddmseg_device *wdev)
{
	if (atomic_xchg(&wdev->trim_recheck, 0))
		queue_work(WDDMSEG_UNBOUND_WQ, &wdev->trim_work);
}

int wddmseg_ioctl_register_trim(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_register_trim *args = data;
	struct wddmseg_file *wfile = file->driver_priv;
	bool on = args->flags & WDDMSEG_TRIM_NOTIFY_ENABLE;

	if ((args->flags & ~WDDMSEG_TRIM_NOTIFY_ENABLE) || args->pad ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved))) {
		drm_dbg(drm, "register_trim: rule trim-args: flags 0x%x or non-zero pad/reserved fields\n",
			args->flags);
		return -EINVAL;
	}
	mutex_lock(&wdev->reserve_lock);
	if (on != wfile->trim_notify) {
		WRITE_ONCE(wfile->trim_notify, on);
		if (on)
			atomic_inc(&wdev->trim_files);
		else
			atomic_dec(&wdev->trim_files);
	}
	mutex_unlock(&wdev->reserve_lock);
	return 0;
}

/**
 * wddmseg_budget_init - trim notifications of a device
 * @wdev: device
 */
void wddmseg_budget_init(struct wddmseg_device *wdev)
{
	mutex_init(&wdev->reserve_lock);
	INIT_WORK(&wdev->trim_work, wddmseg_trim_work);
	INIT_DELAYED_WORK(&wdev->trim_dwork, wddmseg_trim_enforce);
}

/**
 * wddmseg_budget_fini - no trim check runs past this
 * @wdev: device
 */
void wddmseg_budget_fini(struct wddmseg_device *wdev)
{
	cancel_work_sync(&wdev->trim_work);
	cancel_delayed_work_sync(&wdev->trim_dwork);
}
