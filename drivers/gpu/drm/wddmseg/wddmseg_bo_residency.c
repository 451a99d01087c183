// SPDX-License-Identifier: GPL-2.0-only
/*
 * Residency of allocations: the placement changes a move makes, accounted
 * against the budget of the creating file, counted per segment, traced, and
 * told to userspace as residency events (ExplicitResidencyNotification)
 * once the move is done.
 */

#include <linux/slab.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_bo_residency.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_file.h"
#include "wddmseg_mgr.h"
#include "wddmseg_migrate.h"
#include "wddmseg_offer.h"
#include "wddmseg_trace.h"

static struct wddmseg_residency_event *
wddmseg_residency_event_alloc(struct wddmseg_bo *bo)
{
	struct wddmseg_residency_event *e = kzalloc_obj(*e, GFP_KERNEL);

	if (e) {
		e->event.base.type = DRM_WDDMSEG_EVENT_RESIDENCY;
		e->event.base.length = sizeof(e->event);
	}
	return e;
}

/**
 * struct wddmseg_residency_note - a residency change waiting for its move
 * @cb: on the move's fence
 * @work: drops the reference on the allocation outside the callback
 * @bo: the allocation, referenced until the note is sent
 * @next: the event reserved after this one (allocated beforehand: the
 *	fence callback runs in interrupt context)
 * @segment_id: where the allocation is now
 * @offset: its offset there
 */
struct wddmseg_residency_note {
	struct dma_fence_cb cb;
	struct work_struct work;
	struct wddmseg_bo *bo;
	struct wddmseg_residency_event *next;
	u32 segment_id;
	u64 offset;
};

/*
 * Send the pending residency event of @n's allocation and reserve the
 * next one on the same file. If the file was closed, drm_events_release()
 * has unlinked the pending event and cleared its file_priv: then it is
 * ours to free. Any context; the event lock is a leaf.
 */
static void wddmseg_residency_send(struct wddmseg_residency_note *n)
{
	struct wddmseg_bo *bo = n->bo;
	struct drm_device *drm = bo->tbo.base.dev;
	struct wddmseg_residency_event *e;
	unsigned long irqflags;

	spin_lock_irqsave(&drm->event_lock, irqflags);
	e = bo->residency_event;
	bo->residency_event = NULL;
	if (e && e->base.file_priv) {
		e->event.segment_id = n->segment_id;
		e->event.offset = n->offset;
		e->event.sequence = ++bo->residency_seq;
		if (n->next &&
		    !drm_event_reserve_init_locked(drm, e->base.file_priv,
						   &n->next->base,
						   &n->next->event.base)) {
			n->next->event.handle = e->event.handle;
			bo->residency_event = n->next;
			n->next = NULL;
		}
		drm_send_event_locked(drm, &e->base);
		e = NULL;
	}
	spin_unlock_irqrestore(&drm->event_lock, irqflags);
	kfree(e);
}

static void wddmseg_residency_done(struct work_struct *work)
{
	struct wddmseg_residency_note *n =
		container_of(work, struct wddmseg_residency_note, work);

	kfree(n->next);
	drm_gem_object_put(&n->bo->tbo.base);
	kfree(n);
}

/* The move completed: notify now, drop the reference from process context. */
static void wddmseg_residency_signaled(struct dma_fence *fence,
				       struct dma_fence_cb *cb)
{
	struct wddmseg_residency_note *n =
		container_of(cb, struct wddmseg_residency_note, cb);

	wddmseg_residency_send(n);
	schedule_work(&n->work);
}

/**
 * wddmseg_bo_residency_commit - send the residency change of the last move
 *	once that move has completed
 * @bo: reserved allocation whose move callback just ran, or which was
 *	just armed for notifications
 *
 * ExplicitResidencyNotification: the event reports where the allocation
 * is once the paging operations that put it there are done, not when they
 * are queued: it waits for the kernel fences of the reservation (the move,
 * or the first Fill), in paging order. The paging fences signal in order,
 * so the events of successive moves arrive in order.
 */
void wddmseg_bo_residency_commit(struct wddmseg_bo *bo)
{
	struct wddmseg_residency_note *n;
	struct dma_fence *fence = NULL;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (!bo->residency_pending || !bo->residency_event)
		return;
	bo->residency_pending = false;
	n = kzalloc_obj(*n, GFP_KERNEL);
	if (!n)
		return;
	n->bo = bo;
	n->segment_id = bo->residency_segment;
	n->offset = bo->residency_offset;
	n->next = wddmseg_residency_event_alloc(bo);
	INIT_WORK(&n->work, wddmseg_residency_done);
	drm_gem_object_get(&bo->tbo.base);

	if (dma_resv_get_singleton(bo->tbo.base.resv, DMA_RESV_USAGE_KERNEL,
				   &fence) || !fence ||
	    dma_fence_add_callback(fence, &n->cb, wddmseg_residency_signaled)) {
		/* Nothing to wait for (or no memory to combine fences). */
		wddmseg_residency_send(n);
		schedule_work(&n->work);
	}
	dma_fence_put(fence);
}

/* Record where @bo is now for the next wddmseg_bo_residency_commit(). */
static void wddmseg_bo_residency_note(struct wddmseg_bo *bo,
				      struct ttm_resource *res)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);
	u32 id = res ? wddmseg_mem_type_segment(wdev, res->mem_type) : 0;

	bo->residency_pending = true;
	bo->residency_segment = id;
	bo->residency_offset = id ? (u64)res->start << PAGE_SHIFT : 0;
}

/**
 * wddmseg_bo_moved - account a placement change
 * @bo: allocation
 * @old: previous placement (%WDDMSEG_MEM_NONE: none)
 * @new: new placement, or NULL when the allocation is released
 * @evict: the move is an eviction (&wddmseg_move.evict)
 */
void wddmseg_bo_moved(struct wddmseg_bo *bo,
		      const struct wddmseg_move_end *old,
		      const struct wddmseg_move_end *new, bool evict)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);
	u32 old_id = old->segment_id;
	u32 new_id = new ? new->segment_id : 0;
	bool moved = new && old->man != new->man;
	u64 size = bo->tbo.base.size;

	if (evict && old_id) {
		atomic64_inc(&wdev->mgr[old_id - 1]->evictions);
		atomic64_inc(&bo->evictions);
	}
	if (moved)
		atomic64_inc(&bo->moves);

	/* Not the first placement of a new allocation: nothing moved. */
	if (new && (old->res || new_id))
		trace_wddmseg_bo_move(bo, size, old_id,
				      old_id ? (u64)old->res->start << PAGE_SHIFT : 0,
				      new_id,
				      new_id ? (u64)new->res->start << PAGE_SHIFT : 0,
				      evict);

	if (moved && bo->residency_event)
		wddmseg_bo_residency_note(bo, new->res);

	if (bo->group >= 0)
		atomic64_sub(size, &bo->owner->resident[bo->group]);
	bo->group = new_id ? wddmseg_segment_budget_group(&wdev->desc.seg[new_id - 1]) : -1;
	if (bo->group >= 0)
		atomic64_add(size, &bo->owner->resident[bo->group]);
}

/* Reserve the first residency notification on the creating file. */
int wddmseg_bo_arm_residency(struct wddmseg_bo *bo,
			     struct drm_file *file, u32 handle)
{
	struct wddmseg_residency_event *e = wddmseg_residency_event_alloc(bo);
	int ret;

	if (!e)
		return -ENOMEM;
	e->event.handle = handle;

	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (ret) {
		kfree(e);
		return ret;
	}
	ret = drm_event_reserve_init(bo->tbo.base.dev, file, &e->base,
				     &e->event.base);
	if (ret) {
		kfree(e);
	} else {
		bo->residency_event = e;
		/* The first commit is a residency change too. */
		wddmseg_bo_residency_note(bo, bo->tbo.resource);
		wddmseg_bo_residency_commit(bo);
	}
	wddmseg_bo_unreserve(bo);
	if (ret)
		drm_gem_handle_delete(file, handle);
	return ret;
}
