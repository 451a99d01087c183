// SPDX-License-Identifier: GPL-2.0-only
/*
 * WDDM segments as TTM memory domains.
 *
 * Each segment of the validated descriptor table becomes one TTM memory
 * type with its own resource manager (wddmseg_mgr.c): the first aperture
 * segment is TTM_PL_TT, the first memory segment TTM_PL_VRAM, further
 * segments take the driver-private types. System memory (WDDM segment id 0)
 * is TTM_PL_SYSTEM.
 *
 * Moving content (DxgkDdiBuildPagingBuffer's Transfer and Fill) is a CPU
 * copy here: CPU-visible VRAM through BAR2, other VRAM through the movable
 * BAR4 window, system pages through the kernel mapping. Aperture segments
 * (MapApertureSegment/UnmapApertureSegment) are bound by writing the
 * device's aperture page table registers.
 */

#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include <drm/drm_print.h>
#include <drm/ttm/ttm_pool.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_drv.h"
#include "wddmseg_hw.h"

#define WDDMSEG_HW_PAGE_SIZE	4096

static struct wddmseg_mgr *wddmseg_res_mgr(struct wddmseg_device *wdev,
					   struct ttm_resource *res)
{
	u32 id = wddmseg_mem_type_segment(wdev, res->mem_type);

	return id ? wdev->mgr[id - 1] : NULL;
}

/**
 * wddmseg_segment_cpu_visible - whether the CPU may map a segment directly
 * @wdev: device
 * @segment_id: segment id; WDDMSEG_SEGMENT_SYSTEM counts as visible
 *
 * Memory segments are visible when their flags say CpuVisible (validation
 * checked they lie in BAR2); apertures are, since their backing store is
 * system pages.
 */
bool wddmseg_segment_cpu_visible(struct wddmseg_device *wdev, u32 segment_id)
{
	const struct wddmseg_segment_desc *seg;

	if (segment_id == WDDMSEG_SEGMENT_SYSTEM)
		return true;
	seg = &wdev->desc.seg[segment_id - 1];
	return wddmseg_segment_is_aperture(seg) ||
	       (seg->flags & DXGK_SEGFLAG_CPU_VISIBLE);
}

/**
 * wddmseg_budget_group - WDDM budget group a segment is accounted to
 * @seg: descriptor
 *
 * Return: WDDMSEG_BUDGET_LOCAL or WDDMSEG_BUDGET_NON_LOCAL.
 */
int wddmseg_budget_group(const struct wddmseg_segment_desc *seg)
{
	if (seg->flags & DXGK_SEGFLAG_LOCAL_BUDGET_GROUP)
		return WDDMSEG_BUDGET_LOCAL;
	if (seg->flags & DXGK_SEGFLAG_NON_LOCAL_BUDGET_GROUP)
		return WDDMSEG_BUDGET_NON_LOCAL;
	return wddmseg_segment_is_aperture(seg) ? WDDMSEG_BUDGET_NON_LOCAL :
						  WDDMSEG_BUDGET_LOCAL;
}

/* Aperture page table: point pages of an aperture resource at @ttm or 0. */
static void wddmseg_apt_update(struct wddmseg_device *wdev,
			       struct ttm_resource *res, struct ttm_tt *ttm)
{
	u32 id = wddmseg_mem_type_segment(wdev, res->mem_type);
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	u64 hw_page = (u64)res->start * sub;
	pgoff_t i;
	u32 j;

	mutex_lock(&wdev->apt_lock);
	writel(id, wdev->mmio + WDDMSEG_REG_APT_SEGMENT);
	for (i = 0; i < res->num_pages; i++) {
		for (j = 0; j < sub; j++, hw_page++) {
			u64 addr = ttm ? ttm->dma_address[i] +
					 j * WDDMSEG_HW_PAGE_SIZE : 0;

			writel(hw_page, wdev->mmio + WDDMSEG_REG_APT_PAGE);
			writel(lower_32_bits(addr),
			       wdev->mmio + WDDMSEG_REG_APT_ADDR_LO);
			writel(upper_32_bits(addr),
			       wdev->mmio + WDDMSEG_REG_APT_ADDR_HI);
		}
	}
	mutex_unlock(&wdev->apt_lock);
}

static bool wddmseg_res_is_aperture(struct wddmseg_device *wdev,
				    struct ttm_resource *res)
{
	struct wddmseg_mgr *mgr = wddmseg_res_mgr(wdev, res);

	return mgr && wddmseg_segment_is_aperture(mgr->desc);
}

/*
 * CPU access to one page of VRAM at @vram_off: BAR2 for CPU-visible
 * segments, the BAR4 window for the others. @to_vram gives the direction.
 */
static void wddmseg_vram_page_io(struct wddmseg_device *wdev, bool visible,
				 u64 vram_off, void *buf, bool to_vram)
{
	u64 base;
	void __iomem *p;

	if (visible) {
		p = wdev->vram_bar + vram_off;
		if (to_vram)
			memcpy_toio(p, buf, PAGE_SIZE);
		else
			memcpy_fromio(buf, p, PAGE_SIZE);
		return;
	}

	base = round_down(vram_off, WDDMSEG_WINDOW_SIZE);
	mutex_lock(&wdev->window_lock);
	if (base != wdev->window_base) {
		writel(lower_32_bits(base),
		       wdev->mmio + WDDMSEG_REG_WINDOW_BASE_LO);
		writel(upper_32_bits(base),
		       wdev->mmio + WDDMSEG_REG_WINDOW_BASE_HI);
		wdev->window_base = base;
	}
	p = wdev->window + (vram_off - base);
	if (to_vram)
		memcpy_toio(p, buf, PAGE_SIZE);
	else
		memcpy_fromio(buf, p, PAGE_SIZE);
	mutex_unlock(&wdev->window_lock);
}

/* Copy page @i of a resource to or from @buf. */
static void wddmseg_res_page_io(struct wddmseg_device *wdev,
				struct ttm_buffer_object *tbo,
				struct ttm_resource *res, pgoff_t i, void *buf,
				bool to_res)
{
	struct wddmseg_mgr *mgr = wddmseg_res_mgr(wdev, res);
	void *vaddr;

	if (!mgr || mgr->manager.use_tt) {
		vaddr = kmap_local_page(tbo->ttm->pages[i]);
		if (to_res)
			memcpy(vaddr, buf, PAGE_SIZE);
		else
			memcpy(buf, vaddr, PAGE_SIZE);
		kunmap_local(vaddr);
		return;
	}

	wddmseg_vram_page_io(wdev, mgr->desc->flags & DXGK_SEGFLAG_CPU_VISIBLE,
			     mgr->desc->base_address +
			     ((u64)(res->start + i) << PAGE_SHIFT),
			     buf, to_res);
}

/*
 * Transfer (or, for content that never existed, Fill with zeroes) from
 * @tbo's current resource to @new_mem, one page at a time through a bounce
 * page so that any pair of domains works, window-to-window included.
 */
static int wddmseg_cpu_copy(struct wddmseg_device *wdev,
			    struct ttm_buffer_object *tbo,
			    struct ttm_resource *new_mem,
			    struct ttm_operation_ctx *ctx)
{
	struct ttm_resource *old_mem = tbo->resource;
	struct wddmseg_mgr *old_mgr = wddmseg_res_mgr(wdev, old_mem);
	bool old_tt = !old_mgr || old_mgr->manager.use_tt;
	struct ttm_tt *ttm = tbo->ttm;
	bool clear;
	void *bounce;
	pgoff_t i;
	int ret;

	/* Content that lives in pages nobody populated is all zeroes. */
	clear = old_tt && (!ttm || !ttm_tt_is_populated(ttm));

	/* Either side may be the ttm_tt (system memory or an aperture). */
	if (ttm && !clear) {
		ret = ttm_tt_populate(&wdev->bdev, ttm, ctx);
		if (ret)
			return ret;
	}

	bounce = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;

	for (i = 0; i < new_mem->num_pages; i++) {
		if (!clear)
			wddmseg_res_page_io(wdev, tbo, old_mem, i, bounce, false);
		wddmseg_res_page_io(wdev, tbo, new_mem, i, bounce, true);
		cond_resched();
	}

	kfree(bounce);
	return 0;
}

static int wddmseg_bo_move(struct ttm_buffer_object *tbo, bool evict,
			   struct ttm_operation_ctx *ctx,
			   struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);
	struct ttm_resource *old_mem = tbo->resource;
	struct ttm_resource_manager *old_man, *new_man;
	u32 old_type;
	int ret;

	if (!old_mem) {
		ttm_bo_move_null(tbo, new_mem);
		wddmseg_bo_moved(bo, NULL, new_mem, evict);
		return 0;
	}

	/* The CPU copies synchronously: wait until nothing uses the BO. */
	ret = ttm_bo_wait_ctx(tbo, ctx);
	if (ret)
		return ret;

	old_type = old_mem->mem_type;
	old_man = ttm_manager_type(tbo->bdev, old_type);
	new_man = ttm_manager_type(tbo->bdev, new_mem->mem_type);

	if (!(old_man->use_tt && new_man->use_tt)) {
		ret = wddmseg_cpu_copy(wdev, tbo, new_mem, ctx);
		if (ret)
			return ret;
	}

	if (wddmseg_res_is_aperture(wdev, old_mem))
		wddmseg_apt_update(wdev, old_mem, NULL);
	if (wddmseg_res_is_aperture(wdev, new_mem))
		wddmseg_apt_update(wdev, new_mem, tbo->ttm);

	wddmseg_bo_moved(bo, old_mem, new_mem, evict);
	if (old_man->use_tt && new_man->use_tt)
		ttm_bo_move_null(tbo, new_mem);
	else
		ttm_bo_move_sync_cleanup(tbo, new_mem);
	return 0;
}

static void wddmseg_bo_delete_mem_notify(struct ttm_buffer_object *tbo)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);

	if (!tbo->resource)
		return;
	if (wddmseg_res_is_aperture(wdev, tbo->resource))
		wddmseg_apt_update(wdev, tbo->resource, NULL);
	wddmseg_bo_moved(to_wddmseg_bo(tbo), tbo->resource, NULL, false);
}

/**
 * struct wddmseg_tt - system pages of an allocation
 * @ttm: the TTM page array (and DMA addresses)
 * @userptr: ExistingSysMem: user address of the backing store, else 0
 * @mm: the address space @userptr belongs to
 */
struct wddmseg_tt {
	struct ttm_tt ttm;
	u64 userptr;
	struct mm_struct *mm;
};

static struct ttm_tt *wddmseg_ttm_tt_create(struct ttm_buffer_object *tbo,
					    u32 page_flags)
{
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);
	enum ttm_caching caching = ttm_write_combined;
	struct wddmseg_tt *wtt;

	/* User memory is normal cached memory: never remap it otherwise. */
	if (bo->flags & (WDDMSEG_ALLOC_CACHED | WDDMSEG_ALLOC_EXISTING_SYSMEM))
		caching = ttm_cached;

	wtt = kzalloc(sizeof(*wtt), GFP_KERNEL);
	if (!wtt)
		return NULL;

	/* The device reads these pages through the aperture: DMA-map them. */
	if (ttm_sg_tt_init(&wtt->ttm, tbo, page_flags, caching)) {
		kfree(wtt);
		return NULL;
	}

	if (bo->userptr) {
		/* Pages come from the user, not from TTM's pool. */
		wtt->ttm.page_flags |= TTM_TT_FLAG_EXTERNAL |
				       TTM_TT_FLAG_EXTERNAL_MAPPABLE;
		wtt->userptr = bo->userptr;
		wtt->mm = current->mm;
		mmgrab(wtt->mm);
	}
	return &wtt->ttm;
}

static void wddmseg_ttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	struct wddmseg_tt *wtt = container_of(tt, struct wddmseg_tt, ttm);

	if (wtt->mm)
		mmdrop(wtt->mm);
	ttm_tt_fini(tt);
	kfree(wtt);
}

static void wddmseg_userptr_release(struct ttm_device *bdev, struct ttm_tt *tt,
				    pgoff_t mapped)
{
	pgoff_t i;

	for (i = 0; i < mapped; i++)
		dma_unmap_page(bdev_to_wddmseg(bdev)->drm.dev, tt->dma_address[i], PAGE_SIZE,
			       DMA_BIDIRECTIONAL);
	unpin_user_pages_dirty_lock(tt->pages, tt->num_pages, true);
}

static int wddmseg_ttm_tt_populate(struct ttm_device *bdev, struct ttm_tt *tt,
				   struct ttm_operation_ctx *ctx)
{
	struct wddmseg_tt *wtt = container_of(tt, struct wddmseg_tt, ttm);
	long pinned;
	pgoff_t i;

	if (!wtt->userptr)
		return ttm_pool_alloc(&bdev->pool, tt, ctx);

	/* Pinning uses the caller's page tables: only the creator can. */
	if (current->mm != wtt->mm)
		return -EFAULT;

	pinned = pin_user_pages_fast(wtt->userptr, tt->num_pages,
				     FOLL_WRITE | FOLL_LONGTERM, tt->pages);
	if (pinned != tt->num_pages) {
		if (pinned > 0)
			unpin_user_pages(tt->pages, pinned);
		return pinned < 0 ? pinned : -EFAULT;
	}

	for (i = 0; i < tt->num_pages; i++) {
		tt->dma_address[i] = dma_map_page(bdev_to_wddmseg(bdev)->drm.dev, tt->pages[i], 0,
						  PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(bdev_to_wddmseg(bdev)->drm.dev, tt->dma_address[i])) {
			wddmseg_userptr_release(bdev, tt, i);
			return -ENOMEM;
		}
	}
	return 0;
}

static void wddmseg_ttm_tt_unpopulate(struct ttm_device *bdev,
				      struct ttm_tt *tt)
{
	struct wddmseg_tt *wtt = container_of(tt, struct wddmseg_tt, ttm);

	if (wtt->userptr)
		wddmseg_userptr_release(bdev, tt, tt->num_pages);
	else
		ttm_pool_free(&bdev->pool, tt);
}

static void wddmseg_evict_flags(struct ttm_buffer_object *tbo,
				struct ttm_placement *placement)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);

	wddmseg_bo_evict_placement(to_wddmseg_bo(tbo),
				   wddmseg_mem_type_segment(wdev,
							    tbo->resource->mem_type),
				   placement);
}

static int wddmseg_io_mem_reserve(struct ttm_device *bdev,
				  struct ttm_resource *res)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(bdev);
	struct wddmseg_mgr *mgr = wddmseg_res_mgr(wdev, res);

	if (!mgr || mgr->manager.use_tt)
		return 0;	/* system pages, mapped through the ttm_tt */

	if (!(mgr->desc->flags & DXGK_SEGFLAG_CPU_VISIBLE))
		return -EINVAL;	/* not reachable by the CPU */

	res->bus.offset = mgr->desc->cpu_translated_address +
			  ((u64)res->start << PAGE_SHIFT);
	res->bus.is_iomem = true;
	res->bus.caching = ttm_write_combined;
	return 0;
}

static struct ttm_device_funcs wddmseg_ttm_funcs = {
	.ttm_tt_create = wddmseg_ttm_tt_create,
	.ttm_tt_populate = wddmseg_ttm_tt_populate,
	.ttm_tt_unpopulate = wddmseg_ttm_tt_unpopulate,
	.ttm_tt_destroy = wddmseg_ttm_tt_destroy,
	.eviction_valuable = ttm_bo_eviction_valuable,
	.evict_flags = wddmseg_evict_flags,
	.move = wddmseg_bo_move,
	.delete_mem_notify = wddmseg_bo_delete_mem_notify,
	.io_mem_reserve = wddmseg_io_mem_reserve,
};

static void wddmseg_assign_mem_types(struct wddmseg_device *wdev)
{
	u32 next_priv = TTM_PL_PRIV, i;
	bool have_tt = false, have_vram = false;

	for (i = 0; i < wdev->desc.segment_count; i++) {
		bool aperture = wddmseg_segment_is_aperture(&wdev->desc.seg[i]);

		if (aperture && !have_tt) {
			wdev->mem_type[i] = TTM_PL_TT;
			have_tt = true;
		} else if (!aperture && !have_vram) {
			wdev->mem_type[i] = TTM_PL_VRAM;
			have_vram = true;
		} else {
			wdev->mem_type[i] = next_priv++;
		}
	}
}

/**
 * wddmseg_ttm_init - set up TTM with one memory type per segment
 * @wdev: device whose segment table has been validated
 *
 * Return: 0 or a negative errno; on failure nothing is left initialized.
 */
int wddmseg_ttm_init(struct wddmseg_device *wdev)
{
	struct drm_device *drm = &wdev->drm;
	u32 id;
	int ret;

	/* At most six device segments: TTM has eight types, SYSTEM is one. */
	BUILD_BUG_ON(TTM_PL_PRIV + WDDMSEG_MAX_SEGMENTS - 2 >= TTM_NUM_MEM_TYPES);

	mutex_init(&wdev->window_lock);
	mutex_init(&wdev->apt_lock);
	wdev->window_base = 0;
	writel(0, wdev->mmio + WDDMSEG_REG_WINDOW_BASE_LO);
	writel(0, wdev->mmio + WDDMSEG_REG_WINDOW_BASE_HI);

	wddmseg_assign_mem_types(wdev);

	ret = ttm_device_init(&wdev->bdev, &wddmseg_ttm_funcs, drm->dev,
			      drm->anon_inode->i_mapping, drm->vma_offset_manager,
			      false, false);
	if (ret) {
		drm_err(drm, "ttm_device_init failed: %d\n", ret);
		return ret;
	}

	for (id = 1; id <= wdev->desc.segment_count; id++) {
		ret = wddmseg_mgr_init(wdev, id);
		if (ret)
			goto err_fini;
	}
	wdev->ttm_ready = true;
	return 0;

err_fini:
	while (--id)
		wddmseg_mgr_fini(wdev, id);
	ttm_device_fini(&wdev->bdev);
	return ret;
}

/**
 * wddmseg_ttm_fini - evict everything and tear TTM down
 * @wdev: device
 */
void wddmseg_ttm_fini(struct wddmseg_device *wdev)
{
	u32 id;

	if (!wdev->ttm_ready)
		return;
	for (id = wdev->desc.segment_count; id >= 1; id--)
		wddmseg_mgr_fini(wdev, id);
	ttm_device_fini(&wdev->bdev);
	wdev->ttm_ready = false;
}
