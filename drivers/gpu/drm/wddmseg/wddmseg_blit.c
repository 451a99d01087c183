// SPDX-License-Identifier: GPL-2.0-only
/*
 * The copy engine as a blit engine: userspace copies and fills between
 * allocations, queued on the paging ring and fenced like paging work.
 */

#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/sync_file.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_blit.h"
#include "wddmseg_bo.h"
#include "wddmseg_compat.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_fdinfo.h"
#include "wddmseg_parked.h"
#include "wddmseg_migrate.h"
#include "wddmseg_prime.h"
#include "wddmseg_offer.h"
#include "wddmseg_protect.h"
#include "wddmseg_hw.h"
#include "wddmseg_trace.h"

static bool wddmseg_blit_range_ok(struct drm_gem_object *obj, u64 off,
				  u64 size)
{
	return IS_ALIGNED(off, 4) && off <= obj->size && size <= obj->size - off;
}

static int wddmseg_blit_check(struct drm_device *drm,
			      const struct drm_wddmseg_submit_blit *a,
			      struct drm_gem_object *src,
			      struct drm_gem_object *dst)
{
	if (!a->size || !IS_ALIGNED(a->size, 4)) {
		drm_dbg(drm, "blit: size %llu must be a non-zero multiple of 4\n",
			a->size);
		return -EINVAL;
	}
	if (!wddmseg_blit_range_ok(dst, a->dst_offset, a->size) ||
	    (src && !wddmseg_blit_range_ok(src, a->src_offset, a->size))) {
		drm_dbg(drm, "blit: range outside an allocation or not 4-byte aligned\n");
		return -EINVAL;
	}
	if (src == dst && a->src_offset < a->dst_offset + a->size &&
	    a->dst_offset < a->src_offset + a->size) {
		drm_dbg(drm, "blit: source and destination overlap\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * Make sure the engine can reach the pages of @obj if it lives in them,
 * then room for the blit's fence (after any move, which adds its own).
 * HardwareProtected content is only ever touched in its segment: an
 * allocation evicted (sealed) into system memory comes back first.
 */
static int wddmseg_blit_prepare(struct wddmseg_device *wdev,
				struct drm_gem_object *obj)
{
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	int ret;

	if (wddmseg_bo_hw_protected(bo)) {
		ret = wddmseg_bo_make_resident_locked(bo, &ctx);
		if (ret) {
			drm_dbg(&wdev->drm, "blit: HardwareProtected allocation in system memory cannot come back: %d\n",
				ret);
			return ret;
		}
	} else {
		/* Discarded content is zeroes, in pages from now on. */
		ret = wddmseg_bo_ensure_resource(bo, &ctx);
		if (ret)
			return ret;
	}
	ret = wddmseg_bo_populate_engine(bo, &ctx);
	if (ret)
		return ret;
	return dma_resv_reserve_fences(obj->resv, 2);
}

/* CPU-cached pages in a non-coherent aperture (DOC: Cache coherency). */
static int wddmseg_blit_flush(struct wddmseg_device *wdev,
			      struct drm_gem_object *obj)
{
	struct dma_fence *fence;

	fence = wddmseg_migrate_flush_aperture(wdev,
					       &gem_to_wddmseg_bo(obj)->tbo);
	if (IS_ERR(fence))
		return PTR_ERR(fence);
	/* The engine runs the blit after it, in order. */
	dma_fence_put(fence);
	return 0;
}

/* A PermanentSysMem allocation in a memory segment (DOC: PermanentSysMem). */
static bool wddmseg_blit_perm_resident(struct drm_gem_object *obj)
{
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);
	struct ttm_buffer_object *tbo = &bo->tbo;

	return wddmseg_bo_permanent(bo) && tbo->resource &&
	       !ttm_manager_type(tbo->bdev, tbo->resource->mem_type)->use_tt;
}

/*
 * Before the engine uses the segment's copy of a PermanentSysMem
 * allocation: the permanent copy exists (zeroes if it never did, as the
 * segment holds then), and if the CPU may have written it since the
 * segment's copy was last brought up to date, the CPU mappings go (the
 * next access faults and counts again) and a Transfer refreshes the
 * segment's copy, queued before the blit.
 */
static int wddmseg_blit_perm_prepare(struct wddmseg_device *wdev,
				     struct drm_gem_object *obj,
				     struct wddmseg_perm_copy *copy)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);
	struct dma_fence *fence;
	int ret;

	ret = wddmseg_perm_get(bo, &ctx, copy);
	if (ret || !bo->perm_cpu_dirty)
		return ret;
	ttm_bo_unmap_virtual(&bo->tbo);
	fence = wddmseg_migrate_perm_sync(wdev, &bo->tbo, copy->dma_address, 0,
					  obj->size, true);
	if (IS_ERR(fence))
		return PTR_ERR(fence);
	bo->perm_cpu_dirty = false;
	dma_resv_add_fence(obj->resv, fence, DMA_RESV_USAGE_WRITE);
	dma_fence_put(fence);
	return 0;
}

static int wddmseg_blit_fence_fd(struct dma_fence *fence)
{
	struct sync_file *sync;
	int fd;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	sync = sync_file_create(fence);
	if (!sync) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	fd_install(fd, sync->file);
	return fd;
}

/**
 * struct wddmseg_blit_out - where a blit's fence goes besides the BOs
 * @syncobj: WDDMSEG_BLIT_SYNCOBJ_OUT's syncobj (a reference), or NULL
 * @chain: the chain node for a timeline point, allocated beforehand
 */
struct wddmseg_blit_out {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
};

/*
 * The syncobjs of a blit: wait for the in-fence (there is no scheduler to
 * hand it to), and find the out-syncobj and allocate its chain node now,
 * so that nothing fails once the blit is queued.
 */
static int wddmseg_blit_syncobjs(struct drm_device *drm, struct drm_file *file,
				 const struct drm_wddmseg_submit_blit *a,
				 struct wddmseg_blit_out *out)
{
	struct dma_fence *in;
	long lret;
	int ret;

	if (a->flags & WDDMSEG_BLIT_SYNCOBJ_IN) {
		ret = drm_syncobj_find_fence(file, a->in_syncobj, a->in_point, 0,
					     &in);
		if (ret) {
			drm_dbg(drm, "blit: in-syncobj %u point %llu: no fence (%d)\n",
				a->in_syncobj, a->in_point, ret);
			return ret;
		}
		lret = dma_fence_wait(in, true);
		dma_fence_put(in);
		if (lret)
			return lret;
	}
	if (!(a->flags & WDDMSEG_BLIT_SYNCOBJ_OUT))
		return 0;
	out->syncobj = drm_syncobj_find(file, a->out_syncobj);
	if (!out->syncobj) {
		drm_dbg(drm, "blit: no out-syncobj %u\n", a->out_syncobj);
		return -ENOENT;
	}
	if (a->out_point) {
		out->chain = dma_fence_chain_alloc();
		if (!out->chain)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Where a queued blit's fence goes besides the allocations: the
 * out-syncobj, a sync_file. Return: the sync_file fd, -1, or an errno.
 */
static int wddmseg_blit_publish(const struct drm_wddmseg_submit_blit *a,
				struct dma_fence *fence,
				struct wddmseg_blit_out *out)
{
	if (out->syncobj) {
		if (out->chain)
			drm_syncobj_add_point(out->syncobj, out->chain, fence,
					      a->out_point);
		else
			drm_syncobj_replace_fence(out->syncobj, fence);
		out->chain = NULL;
	}
	if (a->flags & WDDMSEG_BLIT_FENCE_OUT)
		return wddmseg_blit_fence_fd(fence);
	return -1;
}

/*
 * WDDMSEG_BLIT_VIRTUAL: addresses of an address space, translated by the
 * device (wddmseg_vm.c); no allocation is named.
 */
static int wddmseg_blit_virtual(struct drm_device *drm, struct drm_file *file,
				struct drm_wddmseg_submit_blit *a)
{
	struct wddmseg_blit_out out = {};
	struct dma_fence *fence;
	ktime_t start;
	int ret, idx, fd = -1;

	if (a->src_handle || a->dst_handle) {
		drm_dbg(drm, "blit: rule blit-va-handles: a blit by GPU virtual address names no allocation\n");
		ret = -EINVAL;
		goto out;
	}
	ret = wddmseg_blit_syncobjs(drm, file, a, &out);
	if (ret)
		goto out;
	if (!drm_dev_enter(drm, &idx)) {
		ret = -ENODEV;
		goto out;
	}
	start = ktime_get();
	fence = wddmseg_vm_submit_blit(drm, file, a);
	if (IS_ERR(fence)) {
		ret = PTR_ERR(fence);
	} else {
		wddmseg_fdinfo_account_blit(file->driver_priv, fence, start);
		fd = wddmseg_blit_publish(a, fence, &out);
		if (fd < -1)
			ret = fd;
		dma_fence_put(fence);
	}
	drm_dev_exit(idx);
out:
	dma_fence_chain_free(out.chain);
	if (out.syncobj)
		drm_syncobj_put(out.syncobj);
	a->fence_fd = ret ? -1 : fd;
	return ret;
}

int wddmseg_ioctl_submit_blit(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_submit_blit *a = data;
	struct drm_gem_object *objs[2] = {};
	struct wddmseg_perm_copy perm = {}, src_perm = {};
	struct wddmseg_blit_out out = {};
	struct ww_acquire_ctx ticket;
	struct dma_fence *fence;
	ktime_t start;
	int ret, idx, count = 1, fd = -1;
	bool offered;

	if ((a->op != WDDMSEG_BLIT_COPY && a->op != WDDMSEG_BLIT_FILL) ||
	    (a->flags & ~(WDDMSEG_BLIT_FENCE_OUT | WDDMSEG_BLIT_SYNCOBJ_IN |
			  WDDMSEG_BLIT_SYNCOBJ_OUT | WDDMSEG_BLIT_VIRTUAL)) ||
	    (!(a->flags & WDDMSEG_BLIT_VIRTUAL) && a->vm_id) || a->vm_pad ||
	    (!(a->flags & WDDMSEG_BLIT_SYNCOBJ_IN) &&
	     (a->in_syncobj || a->in_point)) ||
	    (!(a->flags & WDDMSEG_BLIT_SYNCOBJ_OUT) &&
	     (a->out_syncobj || a->out_point)) ||
	    a->reserved ||
	    (a->op == WDDMSEG_BLIT_FILL && (a->src_handle || a->src_offset)) ||
	    (a->op == WDDMSEG_BLIT_COPY && a->pattern)) {
		drm_dbg(drm, "blit: bad op %u, flags 0x%x, or fields the op does not use are set\n",
			a->op, a->flags);
		return -EINVAL;
	}
	if (a->flags & WDDMSEG_BLIT_VIRTUAL)
		return wddmseg_blit_virtual(drm, file, a);

	objs[0] = drm_gem_object_lookup(file, a->dst_handle);
	if (!objs[0])
		return -ENOENT;
	if (a->op == WDDMSEG_BLIT_COPY) {
		objs[1] = drm_gem_object_lookup(file, a->src_handle);
		if (!objs[1]) {
			ret = -ENOENT;
			goto out_put;
		}
		if (objs[1] != objs[0])
			count = 2;
	}
	ret = wddmseg_blit_check(drm, a, objs[1], objs[0]);
	if (!ret)
		ret = wddmseg_prime_check_engine(objs[0]);
	if (!ret && objs[1])
		ret = wddmseg_prime_check_engine(objs[1]);
	if (!ret && objs[1])
		ret = wddmseg_protect_check_copy(gem_to_wddmseg_bo(objs[1]),
						 gem_to_wddmseg_bo(objs[0]));
	if (!ret)
		ret = wddmseg_blit_syncobjs(drm, file, a, &out);
	if (ret)
		goto out_put;

	if (!drm_dev_enter(drm, &idx)) {
		ret = -ENODEV;
		goto out_put;
	}
	ret = drm_gem_lock_reservations(objs, count, &ticket);
	if (ret)
		goto out_exit;
	ret = wddmseg_offer_check(gem_to_wddmseg_bo(objs[0]), "blit");
	if (!ret && count == 2)
		ret = wddmseg_offer_check(gem_to_wddmseg_bo(objs[1]), "blit");
	if (!ret)
		ret = wddmseg_blit_prepare(wdev, objs[0]);
	if (!ret && count == 2)
		ret = wddmseg_blit_prepare(wdev, objs[1]);
	if (!ret && wddmseg_blit_perm_resident(objs[0]))
		ret = wddmseg_blit_perm_prepare(wdev, objs[0], &perm);
	if (!ret && count == 2 && wddmseg_blit_perm_resident(objs[1]))
		ret = wddmseg_blit_perm_prepare(wdev, objs[1], &src_perm);
	if (!ret)
		ret = wddmseg_blit_flush(wdev, objs[0]);
	if (!ret && count == 2)
		ret = wddmseg_blit_flush(wdev, objs[1]);
	if (ret)
		goto out_unlock;

	/* Written in place by the engine: wiped on release. */
	WRITE_ONCE(gem_to_wddmseg_bo(objs[0])->maybe_written_in_place, true);
	start = ktime_get();
	fence = wddmseg_migrate_blit(wdev, a, objs[1], objs[0]);
	if (IS_ERR(fence)) {
		ret = PTR_ERR(fence);
		goto out_unlock;
	}
	/*
	 * PermanentSysMem destination in a memory segment: the written bytes
	 * go through to its permanent copy in the same queue, and the blit
	 * is done when they are.
	 */
	if (wddmseg_blit_perm_resident(objs[0])) {
		struct dma_fence *wt;

		wt = wddmseg_migrate_perm_sync(wdev, &gem_to_wddmseg_bo(objs[0])->tbo,
					       perm.dma_address, a->dst_offset,
					       a->size, false);
		if (IS_ERR(wt)) {
			dma_fence_wait(fence, false);
			dma_fence_put(fence);
			ret = PTR_ERR(wt);
			goto out_unlock;
		}
		dma_fence_put(fence);
		fence = wt;
	}
	wddmseg_fdinfo_account_blit(file->driver_priv, fence, start);
	dma_resv_add_fence(objs[0]->resv, fence, DMA_RESV_USAGE_WRITE);
	if (count == 2)
		dma_resv_add_fence(objs[1]->resv, fence, DMA_RESV_USAGE_READ);
	fd = wddmseg_blit_publish(a, fence, &out);
	if (fd < -1)
		ret = fd;
	dma_fence_put(fence);

out_unlock:
	/* Refused for an offered one, skipped by any sort meanwhile. */
	offered = gem_to_wddmseg_bo(objs[0])->offer_priority ||
		  (count == 2 && gem_to_wddmseg_bo(objs[1])->offer_priority);
	drm_gem_unlock_reservations(objs, count, &ticket);
	if (offered)
		wddmseg_offer_sort(wdev);
out_exit:
	drm_dev_exit(idx);
out_put:
	dma_fence_chain_free(out.chain);
	if (out.syncobj)
		drm_syncobj_put(out.syncobj);
	drm_gem_object_put(objs[0]);
	if (objs[1])
		drm_gem_object_put(objs[1]);
	a->fence_fd = ret ? -1 : fd;
	return ret;
}
