// SPDX-License-Identifier: GPL-2.0-only
/*
 * Allocations: GEM objects backed by TTM buffer objects, placed according
 * to WDDM allocation flags and segment sets.
 *
 * WDDM                          here
 * PreferredSegment              the order of ttm_placement.placement
 * SupportedSegmentSet           what placements may contain
 * EvictionSegmentSet            evict_flags: these, then system memory
 * HintedBank                    a first place limited to the bank's range
 * FromEndOfSegment              TTM_PL_FLAG_TOPDOWN
 * Overlay, Capture              pinned, confined to the last 20%
 * CpuVisible                    placements the CPU can map; mmap allowed
 * CpuVisibleOnDemand            any placement; a CPU fault migrates
 * pfnLockCb                     mmap of the GEM object
 * D3DKMTMakeResident / Evict    ioctls that validate into one segment or
 *                               into system memory
 */

#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_bo_cpu.h"
#include "wddmseg_bo_residency.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_file.h"
#include "wddmseg_parked.h"
#include "wddmseg_mgr.h"
#include "wddmseg_migrate.h"
#include "wddmseg_offer.h"
#include "wddmseg_prime.h"
#include "wddmseg_protect.h"
#include "wddmseg_hw.h"
#include "wddmseg_trace.h"

static bool wddmseg_bo_pinned_kind(const struct wddmseg_bo *bo)
{
	return bo->flags & (WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_CAPTURE);
}

/* Fill @pl for segment @id (0: system memory). @bank: 1 + bank, or 0. */
void wddmseg_place(struct wddmseg_bo *bo, struct ttm_place *pl, u32 id,
		   u32 bank)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);
	const struct wddmseg_segment_desc *seg;
	u64 pages;

	memset(pl, 0, sizeof(*pl));
	if (id == WDDMSEG_SEGMENT_SYSTEM) {
		pl->mem_type = TTM_PL_SYSTEM;
		return;
	}

	seg = &wdev->desc.seg[id - 1];
	pages = seg->size >> PAGE_SHIFT;
	pl->mem_type = wdev->mem_type[id - 1];
	if (bo->flags & WDDMSEG_ALLOC_FROM_END_OF_SEGMENT)
		pl->flags |= TTM_PL_FLAG_TOPDOWN;
	/*
	 * One range where something reads VRAM linearly (DOC: VRAM made of
	 * blocks): AccessedPhysically (a GPU address), the display's Overlay
	 * and Capture, kernel mappings.
	 */
	if ((bo->flags & WDDMSEG_ALLOC_ACCESSED_PHYSICALLY) ||
	    wddmseg_bo_pinned_kind(bo) || bo->contiguous)
		pl->flags |= TTM_PL_FLAG_CONTIGUOUS;
	/* Overlays and captures may only take the last 20% of a segment. */
	if (wddmseg_bo_pinned_kind(bo))
		pl->fpfn = pages - pages / 5;
	if (bank) {
		u64 start = bank > 1 ?
			    wddmseg_bank_end(seg, bank - 2) >> PAGE_SHIFT : 0;
		u64 end = wddmseg_bank_end(seg, bank - 1) >> PAGE_SHIFT;

		pl->fpfn = max_t(u64, pl->fpfn, start);
		pl->lpfn = end;
	}
}

static bool wddmseg_bo_may_use(struct wddmseg_bo *bo, u32 id, bool cpu_access)
{
	if (!(bo->supported & WDDMSEG_SEGMENT_BIT(id)))
		return false;
	/* Sealed content comes back only where the device decrypts it. */
	if (bo->sealed && !wddmseg_segment_seals(wddmseg_bo_wdev(bo), id))
		return false;
	return !cpu_access || wddmseg_segment_cpu_visible(wddmseg_bo_wdev(bo), id);
}

/**
 * wddmseg_bo_placement - where validation may put an allocation
 * @bo: allocation
 * @cpu_access: only placements the CPU can map (fault migration)
 *
 * The hinted bank, then the preferred segments in order, first without and
 * then with eviction of least recently used allocations; system memory
 * only when no segment qualifies. System memory as the last resort is
 * wddmseg_bo_validate()'s job: in the placement it would make an
 * allocation already in system memory count as placed.
 */
void wddmseg_bo_placement(struct wddmseg_bo *bo, bool cpu_access)
{
	u32 n = 0, i, id;

	for (i = 0; bo->preferred[i]; i++) {
		id = bo->preferred[i];
		if (!wddmseg_bo_may_use(bo, id, cpu_access))
			continue;
		if (i == 0 && bo->bank_hint && !cpu_access)
			wddmseg_place(bo, &bo->places[n++], id, bo->bank_hint);
		wddmseg_place(bo, &bo->places[n++], id, 0);
	}
	if (!n)
		wddmseg_place(bo, &bo->places[n++], WDDMSEG_SEGMENT_SYSTEM, 0);

	wddmseg_placement_init(&bo->placement, bo->places, n, 0);
}

/* Validate into @bo's placement, else (unless pinned) into system memory. */
int wddmseg_bo_validate(struct wddmseg_bo *bo,
			struct ttm_operation_ctx *ctx)
{
	struct ttm_place sys = { .mem_type = TTM_PL_SYSTEM };
	struct ttm_placement placement;
	int ret;

	ret = ttm_bo_validate(&bo->tbo, &bo->placement, ctx);
	/* TTM reports "no space even after eviction" as -ENOMEM (6.1, 6.12). */
	if (ret != -ENOMEM || wddmseg_bo_pinned_kind(bo) ||
	    bo->places[0].mem_type == TTM_PL_SYSTEM)
		return ret;
	if (wddmseg_bo_hw_protected(bo)) {
		drm_dbg(bo->tbo.base.dev, "validate: rule hardware-protected-resident: no room in the VprSupported segments 0x%x, and HardwareProtected content does not live in system memory\n",
			bo->supported);
		return ret;
	}
	wddmseg_placement_init(&placement, &sys, 1, 0);
	return ttm_bo_validate(&bo->tbo, &placement, ctx);
}

/**
 * wddmseg_bo_validate_as - ttm_bo_validate() with what the caller asks of
 *	the move it causes
 * @bo: reserved allocation
 * @placement: where it goes
 * @ctx: TTM operation context
 * @evict: the move counts as an eviction (a placement change the caller
 *	forces: GEM_EVICT, power management, a pin for another device)
 * @discard: with @evict into system memory, drop the content of a memory
 *	segment instead of copying it out
 *
 * The move callback reads the request from &wddmseg_bo.move_request for
 * this context only (wddmseg_bo_move()).
 *
 * Return: what ttm_bo_validate() returns.
 */
int wddmseg_bo_validate_as(struct wddmseg_bo *bo,
			   struct ttm_placement *placement,
			   struct ttm_operation_ctx *ctx, bool evict,
			   bool discard)
{
	const struct wddmseg_move_request req = {
		.ctx = ctx,
		.evict = evict,
		.discard = discard,
	};
	int ret;

	dma_resv_assert_held(bo->tbo.base.resv);
	/* One validation at a time per allocation: its reservation says so. */
	WARN_ON_ONCE(bo->move_request);
	bo->move_request = &req;
	ret = ttm_bo_validate(&bo->tbo, placement, ctx);
	bo->move_request = NULL;
	return ret;
}

/**
 * wddmseg_bo_populate_engine - the pages of an allocation that lives in
 *	pages, for the engine to reach by DMA
 * @bo: reserved allocation with a resource
 * @ctx: TTM operation context
 *
 * In system memory or an aperture TTM gives every allocation a ttm_tt;
 * this populates it. In VRAM there is nothing to do.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_bo_populate_engine(struct wddmseg_bo *bo,
			       struct ttm_operation_ctx *ctx)
{
	struct ttm_buffer_object *tbo = &bo->tbo;

	if (!ttm_manager_type(tbo->bdev, tbo->resource->mem_type)->use_tt)
		return 0;
	if (WARN_ON_ONCE(!tbo->ttm))
		return -EINVAL;
	return wddmseg_bo_populate(tbo, ctx);
}

/**
 * wddmseg_bo_ensure_resource - a placement for an allocation that has none
 * @bo: reserved allocation
 * @ctx: TTM operation context
 *
 * An allocation TTM left without a resource (wddmseg_res_mem_type())
 * holds no content. The paths that need a placement to work on (CPU
 * faults, kernel mappings, ptrace, blits) give it system memory, where
 * TTM's pages for it are zeroed: the placeholder 6.1 gave it.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_bo_ensure_resource(struct wddmseg_bo *bo,
			       struct ttm_operation_ctx *ctx)
{
	struct ttm_place sys = { .mem_type = TTM_PL_SYSTEM };
	struct ttm_placement placement;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (bo->tbo.resource)
		return 0;
	wddmseg_placement_init(&placement, &sys, 1, 0);
	return ttm_bo_validate(&bo->tbo, &placement, ctx);
}

/* Evict a reserved allocation into system memory (PermanentSysMem vmap). */
int wddmseg_bo_move_system_locked(struct wddmseg_bo *bo,
				  struct ttm_operation_ctx *ctx)
{
	struct ttm_place sys = { .mem_type = TTM_PL_SYSTEM };
	struct ttm_placement placement;

	dma_resv_assert_held(bo->tbo.base.resv);
	wddmseg_placement_init(&placement, &sys, 1, 0);
	return wddmseg_bo_validate_as(bo, &placement, ctx, true, false);
}

/**
 * wddmseg_bo_make_resident_locked - bring an allocation into a segment
 * @bo: reserved allocation
 * @ctx: TTM operation context
 *
 * Validates @bo into its placement (preferred segments first) if it is
 * in system memory, like a GPU reference would in WDDM; HardwareProtected
 * content must be in VRAM before the engine writes it.
 *
 * Return: 0 or a negative errno (-ENOSPC: no segment has room).
 */
int wddmseg_bo_make_resident_locked(struct wddmseg_bo *bo,
				    struct ttm_operation_ctx *ctx)
{
	int ret;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (wddmseg_res_mem_type(bo->tbo.resource) != TTM_PL_SYSTEM)
		return 0;
	wddmseg_bo_placement(bo, false);
	ret = wddmseg_bo_validate(bo, ctx);
	if (!ret && wddmseg_res_mem_type(bo->tbo.resource) == TTM_PL_SYSTEM &&
	    wddmseg_bo_hw_protected(bo))
		ret = -ENOSPC;
	return ret == -ENOMEM ? -ENOSPC : ret;
}

/**
 * wddmseg_bo_evict_placement - where an evicted allocation goes
 * @bo: allocation being evicted
 * @from: segment it is evicted from
 * @placement: filled in
 *
 * Its eviction segments (never @from, never a PitchAlignment segment, no
 * aperture for PermanentSysMem) if they have room, else system memory.
 * Only system memory is tried with eviction, which always has room: an
 * eviction never evicts in turn. A HardwareProtected allocation goes into
 * system memory only sealed (wddmseg_protect.c); TTM does not pick one it
 * cannot seal (wddmseg_protect_evictable()), and for the evictions TTM
 * does without asking (device teardown) it gets no system place, so its
 * content is dropped rather than copied out.
 */
void wddmseg_bo_evict_placement(struct wddmseg_bo *bo, u32 from,
				struct ttm_placement *placement)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);
	bool cpu = bo->flags & WDDMSEG_ALLOC_CPU_VISIBLE;
	u32 n = 0, id;

	for (id = 1; id <= wdev->desc.segment_count; id++) {
		const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];

		if (id == from || !(bo->eviction & WDDMSEG_SEGMENT_BIT(id)) ||
		    (seg->flags & DXGK_SEGFLAG_PITCH_ALIGNMENT) ||
		    !wddmseg_bo_may_use(bo, id, cpu))
			continue;
		/* PermanentSysMem: evicted into its copy (a discard), not bound. */
		if (wddmseg_bo_permanent(bo) && wddmseg_segment_is_aperture(seg))
			continue;
		wddmseg_place(bo, &bo->evict_places[n++], id, 0);
	}
	if (wddmseg_bo_hw_protected(bo) && !wddmseg_protect_may_seal(bo, from)) {
		wddmseg_placement_init(placement, bo->evict_places, n, n);
		return;
	}
	wddmseg_place(bo, &bo->evict_places[n++], WDDMSEG_SEGMENT_SYSTEM, 0);
	wddmseg_placement_init(placement, bo->evict_places, n, n - 1);
}

void wddmseg_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);

	trace_wddmseg_bo_destroy(bo, tbo->base.size);
	wddmseg_bo_free_parked(bo);
	kfree(bo->perm_slot);
	if (bo->user_pages) {
		unpin_user_pages_dirty_lock(bo->user_pages,
					    tbo->base.size >> PAGE_SHIFT, true);
		kvfree(bo->user_pages);
	}
	if (bo->residency_event)
		drm_event_cancel_free(tbo->base.dev, &bo->residency_event->base);
	/* An imported allocation lets go of the exporter's pages last. */
	if (tbo->base.import_attach)
		drm_prime_gem_destroy(&tbo->base, tbo->sg);
	drm_gem_object_release(&tbo->base);
	if (bo->owner)
		wddmseg_file_put(bo->owner);
	put_pid(bo->creator);
	kfree(bo);
}

/**
 * wddmseg_is_bo - whether a TTM BO is one of our allocations
 * @tbo: buffer object
 *
 * TTM also hands the driver "ghost" objects that hold the old resource of
 * a pipelined move; they are plain ttm_buffer_objects.
 */
bool wddmseg_is_bo(struct ttm_buffer_object *tbo)
{
	return tbo->destroy == wddmseg_bo_destroy;
}

static void wddmseg_gem_free(struct drm_gem_object *obj)
{
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);

	wddmseg_offer_forget(bo);
	if (bo->tbo.pin_count) {
		u32 id;

		/* Last reference: nobody else can hold the reservation. */
		WARN_ON(ttm_bo_reserve(&bo->tbo, false, false, NULL));
		id = wddmseg_res_segment(wdev, bo->tbo.resource);
		if (id)
			atomic64_sub(bo->tbo.base.size >> PAGE_SHIFT,
				     &wdev->mgr[id - 1]->pinned_pages);
		ttm_bo_unpin(&bo->tbo);
		ttm_bo_unreserve(&bo->tbo);
	}
	wddmseg_ttm_bo_fini(&bo->tbo);
}

/*
 * Pin a reserved allocation where it is. Pin accounting follows the pin
 * count's 0 <-> 1 transitions.
 */
void wddmseg_bo_pin_locked(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);
	u32 id;

	dma_resv_assert_held(bo->tbo.base.resv);
	id = wddmseg_res_segment(wdev, bo->tbo.resource);
	if (!bo->tbo.pin_count && id)
		atomic64_add(bo->tbo.base.size >> PAGE_SHIFT,
			     &wdev->mgr[id - 1]->pinned_pages);
	ttm_bo_pin(&bo->tbo);
}

/* Undo wddmseg_bo_pin_locked(); the reservation is held. */
void wddmseg_bo_unpin_locked(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);
	u32 id;

	dma_resv_assert_held(bo->tbo.base.resv);
	id = wddmseg_res_segment(wdev, bo->tbo.resource);
	ttm_bo_unpin(&bo->tbo);
	if (!bo->tbo.pin_count && id)
		atomic64_sub(bo->tbo.base.size >> PAGE_SHIFT,
			     &wdev->mgr[id - 1]->pinned_pages);
}

/**
 * wddmseg_bo_direct_flip_segments - where the scanout may read @bo from
 * @bo: allocation
 *
 * Return: the memory segments of @bo's supported set whose flags have
 * DirectFlip, as a mask of WDDMSEG_SEGMENT_BIT().
 */
u32 wddmseg_bo_direct_flip_segments(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);
	u32 id, mask = 0;

	for (id = 1; id <= wdev->desc.segment_count; id++) {
		const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];

		if ((bo->supported & WDDMSEG_SEGMENT_BIT(id)) &&
		    (seg->flags & DXGK_SEGFLAG_DIRECT_FLIP) &&
		    !wddmseg_segment_is_aperture(seg))
			mask |= WDDMSEG_SEGMENT_BIT(id);
	}
	return mask;
}

/**
 * wddmseg_bo_pin_scanout - pin an allocation where the scanout can read it
 * @bo: allocation
 *
 * Migrates @bo into one of its DirectFlip segments (preferred order) if it
 * is elsewhere, evicting as needed, and pins it there. The move may still
 * be running on the copy engine: the caller waits for the reservation's
 * kernel fences before scanning out.
 *
 * Return: 0, -EINVAL when no DirectFlip segment is allowed, -EBUSY when
 * @bo is pinned elsewhere, -ENOMEM when no DirectFlip segment has room.
 */
int wddmseg_bo_pin_scanout(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_place places[WDDMSEG_MAX_SEGMENTS];
	u32 mask = wddmseg_bo_direct_flip_segments(bo);
	struct ttm_placement placement;
	u32 i, n = 0, id, cur;
	int ret;

	if (!mask)
		return -EINVAL;
	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (ret)
		return ret;
	cur = wddmseg_res_segment(wdev, bo->tbo.resource);
	/* The scanout reads one range: a resource made of blocks moves. */
	if (!cur || !(mask & WDDMSEG_SEGMENT_BIT(cur)) ||
	    !wddmseg_mgr_res_contiguous(bo->tbo.resource)) {
		if (bo->tbo.pin_count) {
			drm_dbg_kms(&wdev->drm, "scanout: pinned in segment %u, not DirectFlip\n",
				    cur);
			ret = -EBUSY;
			goto out;
		}
		for (i = 0; bo->preferred[i]; i++) {
			id = bo->preferred[i];
			if (!(mask & WDDMSEG_SEGMENT_BIT(id)))
				continue;
			wddmseg_place(bo, &places[n], id, 0);
			places[n++].flags |= TTM_PL_FLAG_CONTIGUOUS;
		}
		wddmseg_placement_init(&placement, places, n, 0);
		ret = ttm_bo_validate(&bo->tbo, &placement, &ctx);
		if (ret) {
			drm_dbg_kms(&wdev->drm, "scanout: no room in DirectFlip segs 0x%x: %d\n",
				    mask, ret);
			goto out;
		}
	}
	wddmseg_bo_pin_locked(bo);
out:
	wddmseg_bo_unreserve(bo);
	return ret;
}

/**
 * wddmseg_bo_unpin - undo wddmseg_bo_pin_scanout() or
 *	wddmseg_bo_pin_shared()
 * @bo: allocation
 */
void wddmseg_bo_unpin(struct wddmseg_bo *bo)
{
	/* Not interruptible: the pin must go. */
	if (ttm_bo_reserve(&bo->tbo, false, false, NULL))
		return;
	wddmseg_bo_unpin_locked(bo);
	wddmseg_bo_unreserve(bo);
}

/**
 * wddmseg_bo_pin_shared - pin an allocation in pages for another device
 * @bo: allocation, attached to by another device's dma-buf import
 *
 * Cross-adapter resources live in system memory: @bo stays where it is if
 * its pages are already system pages (system memory or an aperture), else
 * moves into system memory; it is pinned there, populated, once the move
 * that brought it there is done. Undone by wddmseg_bo_unpin().
 *
 * Return: 0, -EBUSY when @bo is pinned in device memory, or the error of
 * the move.
 */
int wddmseg_bo_pin_shared(struct wddmseg_bo *bo)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_buffer_object *tbo = &bo->tbo;
	struct ttm_placement placement;
	struct ttm_place place;
	long lret;
	int ret;

	ret = ttm_bo_reserve(tbo, true, false, NULL);
	if (ret)
		return ret;
	ret = wddmseg_bo_ensure_resource(bo, &ctx);
	if (ret)
		goto out;
	if (!ttm_manager_type(tbo->bdev, tbo->resource->mem_type)->use_tt) {
		if (tbo->pin_count) {
			ret = -EBUSY;
			goto out;
		}
		wddmseg_place(bo, &place, WDDMSEG_SEGMENT_SYSTEM, 0);
		wddmseg_placement_init(&placement, &place, 1, 0);
		ret = wddmseg_bo_validate_as(bo, &placement, &ctx, true,
					     false);
		if (ret)
			goto out;
	}
	ret = wddmseg_bo_populate(tbo, &ctx);
	if (ret)
		goto out;
	lret = dma_resv_wait_timeout(tbo->base.resv, DMA_RESV_USAGE_KERNEL,
				     true, MAX_SCHEDULE_TIMEOUT);
	if (lret < 0) {
		ret = lret;
		goto out;
	}
	wddmseg_bo_pin_locked(bo);
out:
	wddmseg_bo_unreserve(bo);
	return ret;
}

/* debugfs (framebuffer, state dumps): TTM's helper needs a resource. */
static void wddmseg_gem_print_info(struct drm_printer *p, unsigned int indent,
				   const struct drm_gem_object *obj)
{
	const struct ttm_buffer_object *tbo = drm_gem_ttm_of_gem(obj);

	if (tbo->resource)
		drm_gem_ttm_print_info(p, indent, obj);
	else
		drm_printf_indent(p, indent, "placement=none (no content)\n");
}

const struct drm_gem_object_funcs wddmseg_gem_funcs = {
	.free = wddmseg_gem_free,
	.export = wddmseg_gem_prime_export,
	.get_sg_table = wddmseg_gem_prime_get_sg_table,
	.mmap = wddmseg_gem_mmap,
	.vmap = wddmseg_gem_vmap,
	.vunmap = wddmseg_gem_vunmap,
	.vm_ops = &wddmseg_gem_vm_ops,
	.print_info = wddmseg_gem_print_info,
};

static u32 wddmseg_bo_page_alignment(struct wddmseg_device *wdev,
				     u32 supported, u32 alignment)
{
	u32 id, align = max_t(u32, alignment, PAGE_SIZE);

	for (id = 1; id <= wdev->desc.segment_count; id++)
		if ((supported & WDDMSEG_SEGMENT_BIT(id)) &&
		    (wdev->desc.seg[id - 1].flags & DXGK_SEGFLAG_USE_64KB_PAGES))
			align = max_t(u32, align, SZ_64K);
	return align >> PAGE_SHIFT;
}

static int wddmseg_bo_pin_user(struct wddmseg_bo *bo, u64 addr, u64 npages)
{
	long pinned;

	bo->user_pages = kvmalloc_array(npages, sizeof(*bo->user_pages),
					GFP_KERNEL);
	if (!bo->user_pages)
		return -ENOMEM;
	pinned = pin_user_pages_fast(addr, npages, FOLL_WRITE | FOLL_LONGTERM,
				     bo->user_pages);
	if (pinned == npages)
		return 0;
	if (pinned > 0)
		unpin_user_pages(bo->user_pages, pinned);
	kvfree(bo->user_pages);
	bo->user_pages = NULL;
	return pinned < 0 ? pinned : -EFAULT;
}

static int wddmseg_bo_new(struct wddmseg_device *wdev,
			  struct wddmseg_file *wfile,
			  const struct drm_wddmseg_gem_create *args,
			  bool kernel, struct wddmseg_bo **out)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	u64 size = PAGE_ALIGN(args->size);
	struct wddmseg_bo *bo;
	u32 i, n = 0, id;
	int ret;

	bo = kzalloc_obj(*bo, GFP_KERNEL);
	if (!bo)
		return -ENOMEM;

	/* Pin user memory before any reservation: pinning takes mmap_lock. */
	if (args->user_ptr) {
		ret = wddmseg_bo_pin_user(bo, args->user_ptr, size >> PAGE_SHIFT);
		if (ret) {
			kfree(bo);
			return ret;
		}
	}

	if (args->flags & WDDMSEG_ALLOC_PERMANENT_SYSMEM) {
		ret = wddmseg_perm_init(bo);
		if (ret) {
			kfree(bo);
			return ret;
		}
	}

	bo->flags = args->flags;
	bo->cross_adapter = args->create_flags & WDDMSEG_CREATE_CROSS_ADAPTER;
	bo->supported = args->supported_segments;
	bo->eviction = args->eviction_segments;
	bo->bank_hint = args->bank_hint;
	bo->userptr = args->user_ptr;
	bo->group = -1;
	/* The device reads a kernel allocation as one range of its segment. */
	bo->contiguous = kernel;
	bo->alloc_priority = WDDMSEG_ALLOCATION_PRIORITY_NORMAL;
	INIT_LIST_HEAD(&bo->offer_link);
	bo->tbo.priority = WDDMSEG_TTM_PRIO_DEFAULT;
	for (i = 0; i < WDDMSEG_MAX_PREFERRED && args->preferred[i]; i++)
		bo->preferred[n++] = args->preferred[i];
	/* Supported segments not listed as preferred come after, in id order. */
	for (id = 1; id <= wdev->desc.segment_count; id++)
		if ((bo->supported & WDDMSEG_SEGMENT_BIT(id)) &&
		    !memchr(bo->preferred, id, n))
			bo->preferred[n++] = id;
	bo->preferred[n] = 0;

	kref_get(&wfile->refcount);
	bo->owner = wfile;
	if (!kernel)
		bo->creator = get_task_pid(current, PIDTYPE_TGID);

	drm_gem_private_object_init(&wdev->drm, &bo->tbo.base, size);
	wddmseg_gem_gpuva_init(&bo->tbo.base);
	bo->tbo.base.funcs = &wddmseg_gem_funcs;

	/*
	 * Start in system memory (no move), then validate, so that a failed
	 * placement can fall back instead of destroying the object. On
	 * failure ttm_bo_init_reserved() calls wddmseg_bo_destroy().
	 */
	wddmseg_place(bo, &bo->places[0], WDDMSEG_SEGMENT_SYSTEM, 0);
	wddmseg_placement_init(&bo->placement, bo->places, 1, 0);
	ret = ttm_bo_init_reserved(&wdev->bdev, &bo->tbo, ttm_bo_type_device,
				   &bo->placement,
				   wddmseg_bo_page_alignment(wdev, bo->supported,
							     args->alignment),
				   &ctx, NULL, NULL, wddmseg_bo_destroy);
	if (ret)
		return ret;

	wddmseg_bo_placement(bo, false);
	ret = wddmseg_bo_validate(bo, &ctx);
	if (ret) {
		ttm_bo_unreserve(&bo->tbo);
		drm_gem_object_put(&bo->tbo.base);
		return ret == -ENOMEM ? -ENOSPC : ret;
	}

	atomic64_set(&bo->moves, 0);
	trace_wddmseg_bo_create(bo, size, bo->flags, bo->supported,
				wddmseg_res_segment(wdev, bo->tbo.resource));
	if (kernel || wddmseg_bo_pinned_kind(bo))
		wddmseg_bo_pin_locked(bo);
	ttm_bo_unreserve(&bo->tbo);
	*out = bo;
	return 0;
}

/**
 * wddmseg_bo_create_kernel - an allocation of the driver's own, pinned
 * @wdev: device
 * @wfile: the client it is charged to
 * @size: bytes
 * @alignment: bytes, 0 for a page
 * @segment_id: the one memory segment it may live in
 * @out: the allocation, a reference the caller drops with
 *	wddmseg_bo_put_kernel()
 *
 * For driver structures the device reads from a segment (page tables):
 * no handle, pinned in @segment_id, its content zeroed by the paging
 * engine's Fill (or VRAM known zero since one) as for any new allocation.
 *
 * Return: 0, -ENOSPC when @segment_id has no room, or another error.
 */
int wddmseg_bo_create_kernel(struct wddmseg_device *wdev,
			     struct wddmseg_file *wfile, u64 size,
			     u32 alignment, u32 segment_id,
			     struct wddmseg_bo **out)
{
	struct drm_wddmseg_gem_create args = {
		.size = size,
		.supported_segments = WDDMSEG_SEGMENT_BIT(segment_id),
		.alignment = alignment,
	};
	struct wddmseg_bo *bo;
	int ret;

	args.preferred[0] = segment_id;
	ret = wddmseg_bo_new(wdev, wfile, &args, true, &bo);
	if (ret)
		return ret;
	if (wddmseg_res_segment(wdev, bo->tbo.resource) != segment_id ||
	    !wddmseg_mgr_res_contiguous(bo->tbo.resource)) {
		wddmseg_bo_put_kernel(bo);
		return -ENOSPC;
	}
	*out = bo;
	return 0;
}

/**
 * wddmseg_bo_put_kernel - unpin and release a wddmseg_bo_create_kernel()
 * allocation
 * @bo: allocation
 */
void wddmseg_bo_put_kernel(struct wddmseg_bo *bo)
{
	wddmseg_bo_unpin(bo);
	drm_gem_object_put(&bo->tbo.base);
}

int wddmseg_bo_create(struct wddmseg_device *wdev, struct drm_file *file,
		      const struct drm_wddmseg_gem_create *args,
		      u32 *handle)
{
	struct wddmseg_bo *bo;
	int ret;

	ret = wddmseg_bo_new(wdev, file->driver_priv, args, false, &bo);
	if (ret)
		return ret;
	ret = drm_gem_handle_create(file, &bo->tbo.base, handle);
	if (!ret && (bo->flags & WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION))
		ret = wddmseg_bo_arm_residency(bo, file, *handle);
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

/**
 * wddmseg_bo_drop_pages - drop the content of an idle allocation
 * @bo: reserved allocation in system memory, idle
 * @ctx: TTM context
 *
 * Validates @bo to no placement: TTM's pipeline gutting gives it a new,
 * unpopulated ttm_tt marked for clearing, so whatever populates it next
 * gets zeroed pages. Then the pages it parked from an earlier stay go,
 * and with them any seal. An offered allocation is marked discarded
 * (RECLAIM's answer). The caller has made sure no CPU mapping reaches
 * the pages. Neither waits nor allocates for an idle allocation, so the
 * shrinker may call it (wddmseg_offer.c). Nothing changes on failure.
 *
 * Return: 0 or ttm_bo_validate()'s error.
 */
int wddmseg_bo_drop_pages(struct wddmseg_bo *bo, struct ttm_operation_ctx *ctx)
{
	struct ttm_placement none = {};
	int ret;

	dma_resv_assert_held(bo->tbo.base.resv);
	ret = ttm_bo_validate(&bo->tbo, &none, ctx);
	if (ret)
		return ret;
	wddmseg_bo_free_parked(bo);
	bo->sealed = false;
	if (bo->offer_priority)
		bo->discarded = true;
	return 0;
}

/*
 * The rest of a discard, the allocation now in system memory: once the
 * DiscardContent is done, its pages go (wddmseg_bo_drop_pages()). Only
 * once it is done: TTM guts a busy buffer through a ghost object that
 * holds a reference on the allocation until a worker frees it, so an
 * allocation closed right after a discard would outlive its last handle,
 * and keep the VRAM it took since, which no eviction takes from a live
 * HardwareProtected allocation.
 */
static int wddmseg_bo_discard_pages(struct wddmseg_bo *bo,
				    struct ttm_operation_ctx *ctx)
{
	int ret;

	ret = ttm_bo_wait_ctx(&bo->tbo, ctx);
	if (ret)
		return ret;
	ttm_bo_unmap_virtual(&bo->tbo);
	return wddmseg_bo_drop_pages(bo, ctx);
}

/*
 * Validate @bo into exactly @id (0: system memory), evicting as needed;
 * with @discard (id 0 only) its content is dropped on the way.
 */
int wddmseg_bo_move_to(struct wddmseg_bo *bo, u32 id, bool discard)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_placement placement;
	struct ttm_place place;
	int ret;

	wddmseg_place(bo, &place, id, 0);
	wddmseg_placement_init(&placement, &place, 1, 0);

	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (ret)
		return ret;
	if (bo->tbo.pin_count) {
		ret = -EBUSY;
	} else if (!id && !discard && wddmseg_protect_check_evict(bo)) {
		ret = -EACCES;
	} else {
		/* Moving to system memory on request is an eviction too. */
		ret = wddmseg_bo_validate_as(bo, &placement, &ctx,
					     id == WDDMSEG_SEGMENT_SYSTEM,
					     discard);
		if (!ret && discard)
			ret = wddmseg_bo_discard_pages(bo, &ctx);
	}
	wddmseg_bo_unreserve(bo);
	return ret == -ENOMEM && id ? -ENOSPC : ret;
}

/**
 * wddmseg_bo_pm_move - move an allocation for power management
 * @bo: reserved, unpinned allocation
 * @id: segment to move it into, or 0 (WDDMSEG_SEGMENT_SYSTEM) to evict it
 *
 * Not interruptible: the task that suspends the system may have a signal
 * pending and a half-done suspend helps nobody. An eviction into system
 * memory counts as one (and seals HardwareProtected content); the way
 * back decrypts. System pages are allocated without the OOM killer: a
 * suspend that does not fit fails instead.
 *
 * Return: 0 or a negative errno (-ENOMEM: no room in @id).
 */
int wddmseg_bo_pm_move(struct wddmseg_bo *bo, u32 id)
{
	/* Out of memory is a refused suspend, not a reason to kill tasks. */
	struct ttm_operation_ctx ctx = { .interruptible = false,
					 .gfp_retry_mayfail = true };
	struct ttm_placement placement;
	struct ttm_place place;

	dma_resv_assert_held(bo->tbo.base.resv);
	wddmseg_place(bo, &place, id, 0);
	wddmseg_placement_init(&placement, &place, 1, 0);
	return wddmseg_bo_validate_as(bo, &placement, &ctx,
				      id == WDDMSEG_SEGMENT_SYSTEM, false);
}
