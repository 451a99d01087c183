// SPDX-License-Identifier: GPL-2.0-only
/*
 * The GEM ioctls of the driver: create, mmap offset, info, MakeResident,
 * Evict, wait, and the dumb-buffer interface.
 */

#include <linux/mm.h>
#include <linux/sched.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_print.h>

#include "wddmseg_alloc_rules.h"
#include "wddmseg_bo.h"
#include "wddmseg_bo_cpu.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_file.h"
#include "wddmseg_gem_ioctl.h"
#include "wddmseg_mgr.h"
#include "wddmseg_offer.h"
#include "wddmseg_protect.h"
#include "wddmseg_hw.h"

int wddmseg_ioctl_gem_create(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_gem_create *args = data;
	struct wddmseg_violation v;
	int ret, idx;

	ret = wddmseg_alloc_validate(&wdev->desc, args,
				     (u64)totalram_pages() << (PAGE_SHIFT - 1), &v);
	if (ret) {
		drm_dbg(drm, "gem_create: rule %s: %s\n", v.rule, v.detail);
		return ret;
	}

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = wddmseg_bo_create(wdev, file, args, &args->handle);
	drm_dev_exit(idx);
	if (ret)
		drm_dbg(drm, "gem_create: %llu bytes, flags 0x%x: %d\n",
			args->size, args->flags, ret);
	return ret;
}

int wddmseg_dumb_create(struct drm_file *file, struct drm_device *drm,
			struct drm_mode_create_dumb *args)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_gem_create create = {
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE,
	};
	u32 id, cpp = DIV_ROUND_UP(args->bpp, 8);
	u64 pitch;
	int ret;

	if (!args->width || !args->height || !cpp || args->bpp > 32)
		return -EINVAL;
	pitch = ALIGN((u64)args->width * cpp, 64);
	if (pitch > U32_MAX || pitch * args->height > SZ_1G)
		return -EINVAL;

	/* Every segment the CPU can see, scanout-capable ones first. */
	for (id = 1; id <= wdev->desc.segment_count; id++) {
		const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];

		if (!(seg->flags & DXGK_SEGFLAG_AGP) &&
		    wddmseg_segment_cpu_visible(wdev, id))
			create.supported_segments |= WDDMSEG_SEGMENT_BIT(id);
	}
	create.size = pitch * args->height;
	create.eviction_segments = create.supported_segments;
	/* Not through an aperture it could not fit beside its overlays. */
	for (id = 1; id <= wdev->desc.segment_count; id++)
		if (wddmseg_segment_is_aperture(&wdev->desc.seg[id - 1]) &&
		    create.size >
		    wddmseg_evict_through_max(&wdev->desc.seg[id - 1]))
			create.eviction_segments &= ~WDDMSEG_SEGMENT_BIT(id);
	for (id = 1; id <= wdev->desc.segment_count; id++)
		if ((wdev->desc.seg[id - 1].flags & DXGK_SEGFLAG_DIRECT_FLIP) &&
		    (create.supported_segments & WDDMSEG_SEGMENT_BIT(id))) {
			create.preferred[0] = id;
			break;
		}

	ret = wddmseg_ioctl_gem_create(drm, &create, file);
	if (ret)
		return ret;
	args->pitch = pitch;
	/* The allocation is whole pages; clients map (and check) all of it. */
	args->size = PAGE_ALIGN(create.size);
	args->handle = create.handle;
	return 0;
}

static struct wddmseg_bo *wddmseg_bo_lookup(struct drm_file *file, u32 handle)
{
	struct drm_gem_object *obj = drm_gem_object_lookup(file, handle);

	return obj ? gem_to_wddmseg_bo(obj) : NULL;
}

int wddmseg_ioctl_gem_mmap_offset(struct drm_device *drm, void *data,
				  struct drm_file *file)
{
	struct drm_wddmseg_gem_mmap_offset *args = data;
	struct wddmseg_bo *bo;
	int ret = 0;

	if (args->pad) {
		drm_dbg(drm, "gem_mmap_offset: pad must be zero\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;

	ret = wddmseg_protect_check_cpu(bo, "gem_mmap_offset");
	if (!ret)
		ret = wddmseg_bo_check_lock(bo, current->mm, "gem_mmap_offset");
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&bo->tbo.base.vma_node);
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

/**
 * wddmseg_dumb_map_offset - DRM_IOCTL_MODE_MAP_DUMB
 * @file: DRM file
 * @drm: device
 * @handle: any GEM handle of @file, not only a dumb buffer's
 * @offset: the fake mmap offset
 *
 * The same rule as GEM_MMAP_OFFSET: the generic helper would hand out an
 * offset for any handle.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_dumb_map_offset(struct drm_file *file, struct drm_device *drm,
			    u32 handle, u64 *offset)
{
	struct wddmseg_bo *bo = wddmseg_bo_lookup(file, handle);
	int ret;

	if (!bo)
		return -ENOENT;
	ret = wddmseg_protect_check_cpu(bo, "map_dumb");
	if (!ret)
		ret = wddmseg_bo_check_lock(bo, current->mm, "map_dumb");
	drm_gem_object_put(&bo->tbo.base);
	return ret ? ret : drm_gem_ttm_dumb_map_offset(file, drm, handle, offset);
}

int wddmseg_ioctl_gem_info(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_gem_info *args = data;
	struct wddmseg_bo *bo;
	u32 handle = args->handle;
	int ret;

	if (memchr_inv(args->reserved, 0, sizeof(args->reserved))) {
		drm_dbg(drm, "gem_info: reserved fields must be zero\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, handle);
	if (!bo)
		return -ENOENT;

	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (!ret) {
		struct ttm_resource *res = bo->tbo.resource;

		memset(args, 0, sizeof(*args));
		args->handle = handle;
		args->segment_id = wddmseg_res_segment(wdev, res);
		if (args->segment_id)
			args->offset = (u64)res->start << PAGE_SHIFT;
		if (args->segment_id && !wddmseg_mgr_res_contiguous(res))
			args->state |= WDDMSEG_STATE_BLOCKS;
		args->size = bo->tbo.base.size;
		args->flags = bo->flags;
		if (bo->tbo.pin_count)
			args->state |= WDDMSEG_STATE_PINNED;
		if (args->segment_id)
			args->state |= WDDMSEG_STATE_RESIDENT;
		if (bo->cross_adapter)
			args->state |= WDDMSEG_STATE_CROSS_ADAPTER;
		args->eviction_count = atomic64_read(&bo->evictions);
		args->move_count = atomic64_read(&bo->moves);
		args->priority = bo->alloc_priority;
		args->offer_priority = bo->offer_priority;
		wddmseg_bo_unreserve(bo);
	}
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

int wddmseg_ioctl_gem_make_resident(struct drm_device *drm, void *data,
				    struct drm_file *file)
{
	struct drm_wddmseg_gem_residency *args = data;
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct wddmseg_bo *bo;
	int ret, idx;

	if (args->flags) {
		drm_dbg(drm, "make_resident: flags 0x%x: MAKE_RESIDENT takes no flags\n",
			args->flags);
		return -EINVAL;
	}
	if (args->pad || args->reserved) {
		drm_dbg(drm, "make_resident: pad and reserved fields must be zero\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;

	ret = wddmseg_offer_check(bo, "make_resident");
	if (ret)
		goto out;
	if (args->segment_id &&
	    (args->segment_id > to_wddmseg(drm)->desc.segment_count ||
	     !(bo->supported & WDDMSEG_SEGMENT_BIT(args->segment_id)))) {
		drm_dbg(drm, "make_resident: segment %u is not in the allocation's supported set 0x%x\n",
			args->segment_id, bo->supported);
		ret = -EINVAL;
		goto out;
	}
	if (!drm_dev_enter(drm, &idx)) {
		ret = -ENODEV;
		goto out;
	}
	if (args->segment_id) {
		ret = wddmseg_bo_move_to(bo, args->segment_id, false);
	} else {
		ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
		if (!ret) {
			ret = bo->tbo.pin_count ? -EBUSY :
			      wddmseg_bo_validate(bo, &ctx);
			wddmseg_bo_unreserve(bo);
		}
	}
	drm_dev_exit(idx);
	if (ret)
		drm_dbg(drm, "make_resident: segment %u: %d\n", args->segment_id, ret);
out:
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

int wddmseg_ioctl_gem_evict(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_wddmseg_gem_residency *args = data;
	struct wddmseg_bo *bo;
	int ret, idx;

	bool discard = args->flags & WDDMSEG_EVICT_DISCARD;

	if (args->flags & ~WDDMSEG_EVICT_DISCARD) {
		drm_dbg(drm, "evict: unknown flags 0x%x (known: 0x%x)\n",
			args->flags, WDDMSEG_EVICT_DISCARD);
		return -EINVAL;
	}
	if (args->segment_id || args->pad || args->reserved) {
		drm_dbg(drm, "evict: segment_id, pad and reserved fields must be zero\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;
	if (discard && bo->userptr) {
		drm_dbg(drm, "evict: discard of an ExistingSysMem allocation (its content is the user's memory)\n");
		ret = -EINVAL;
		goto out;
	}
	if (drm_dev_enter(drm, &idx)) {
		ret = wddmseg_bo_move_to(bo, WDDMSEG_SEGMENT_SYSTEM, discard);
		drm_dev_exit(idx);
	} else {
		ret = -ENODEV;
	}
	if (ret)
		drm_dbg(drm, "evict%s: %d%s\n", discard ? " (discard)" : "", ret,
			ret == -EBUSY ? " (pinned allocation)" : "");
out:
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

/*
 * The error of a signalled fence of @resv (a failed engine job), or 0.
 * Under the lock: the unlocked iterator skips signalled fences.
 */
static int wddmseg_resv_error(struct dma_resv *resv)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	int err, st;

	err = dma_resv_lock_interruptible(resv, NULL);
	if (err)
		return err;
	dma_resv_for_each_fence(&cursor, resv, DMA_RESV_USAGE_BOOKKEEP, fence) {
		st = dma_fence_get_status(fence);
		if (st < 0)
			err = st;
	}
	dma_resv_unlock(resv);
	return err;
}

int wddmseg_ioctl_gem_wait(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct drm_wddmseg_gem_wait *args = data;
	struct wddmseg_bo *bo;
	long ret;

	if (args->pad || args->timeout_ns < 0) {
		drm_dbg(drm, "gem_wait: pad must be zero and timeout_ns not negative\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;

	ret = dma_resv_wait_timeout(bo->tbo.base.resv, DMA_RESV_USAGE_BOOKKEEP,
				    true, nsecs_to_jiffies(args->timeout_ns));
	if (!ret)
		ret = dma_resv_test_signaled(bo->tbo.base.resv,
					     DMA_RESV_USAGE_BOOKKEEP) ? 0 : -ETIME;
	else if (ret > 0)
		ret = 0;
	if (!ret)
		ret = wddmseg_resv_error(bo->tbo.base.resv);
	if (ret && ret != -ETIME && ret != -ERESTARTSYS)
		drm_dbg(drm, "gem_wait: an operation on the allocation failed: %ld\n",
			ret);
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}
