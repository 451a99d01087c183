// SPDX-License-Identifier: GPL-2.0-only
/*
 * dma-bufs of allocations (PRIME): sharing allocations within the device
 * and, as WDDM's cross-adapter resources, with other devices.
 */

/**
 * DOC: PRIME
 *
 * Since 6.6 the DRM core offers the PRIME ioctls (handle to dma-buf fd
 * and back) to every GEM driver; on 6.1 the driver opts in with the same
 * helpers (wddmseg_compat.h), so that both kernels behave alike.
 *
 * WDDM calls an allocation shared between adapters a cross-adapter
 * resource, and DXGK_VIDMMCAPS says what an adapter does with one:
 * CrossAdapterResource (it shares them at all), CrossAdapterResourceTexture
 * (its engine reads and writes them), CrossAdapterResourceScanout (its
 * display scans them out). Cross-adapter resources live in system memory,
 * which every adapter reaches. In Linux terms:
 *
 * - a cross-adapter resource is an allocation created with
 *   WDDMSEG_CREATE_CROSS_ADAPTER, and has the properties DXGK_VIDMMCAPS
 *   gives one, checked at creation (wddmseg_alloc_rules.c): CpuVisible
 *   (rule cross-adapter-cpu-visible), write-combined, i.e. not Cached
 *   (cross-adapter-write-combined), paged only into aperture segments
 *   (cross-adapter-aperture), linear with a row pitch that is a multiple
 *   of 128 bytes (cross-adapter-pitch) and a height that is a multiple of
 *   4 rows (cross-adapter-height), pitch times height within its size
 *   (cross-adapter-size). Pitch and height are given only with the flag
 *   (cross-adapter-layout). GEM_INFO reports WDDMSEG_STATE_CROSS_ADAPTER;
 * - export: refused for Protected and HardwareProtected allocations
 *   (rule protected-export, -EACCES); any other allocation exports, and
 *   its dma-buf serves this device (import, mmap) whatever the
 *   allocation is;
 * - the dma-buf's mmap is the GEM object's mmap: wddmseg_gem_mmap()'s
 *   rules apply (protected-map, cpu-visible), then the same fault
 *   handling, migration of CpuVisibleOnDemand allocations included;
 * - its vmap (a kernel importer's mapping) is the GEM vmap, with the same
 *   rules, pinning the allocation where it is while mapped;
 * - another device attaches only when this adapter has
 *   CrossAdapterResource (rule prime-attach, -EOPNOTSUPP otherwise), and
 *   only to a cross-adapter resource (rule cross-adapter-attach, -EINVAL
 *   otherwise: a Cached allocation, or one that may live in VRAM, is
 *   not shared with another adapter). The allocation is then pinned where
 *   its pages are, in system memory or an aperture, until the last other
 *   device detaches: the importer gets those pages, DMA-mapped for it,
 *   and the allocation cannot move meanwhile (-EBUSY, as any pinned
 *   allocation). (An importer detaches when its object is destroyed; TTM
 *   destroys imported objects from its delayed-destroy worker, so the pin
 *   goes a little after the import's last handle.) wddmseg_bo_pin_shared()
 *   would move an allocation in VRAM into system memory first, and refuse
 *   one pinned in VRAM (rule prime-attach-pinned, -EBUSY); a cross-adapter
 *   resource is never in VRAM;
 * - import of a dma-buf of this device's own allocation gives back the
 *   same allocation (as a flink name would). A dma-buf of anything else,
 *   another wddmseg device's allocation included, imports only when this
 *   adapter has CrossAdapterResource (rule prime-import, -EOPNOTSUPP):
 *   it becomes an allocation in system memory (a TTM sg object over the
 *   exporter's pages, flags CpuVisible, no supported segment: it never
 *   moves into this device's memory, which would break the sharing);
 * - the imported allocation's mmap is the exporter's (dma_buf_mmap()):
 *   the exporter's rules decide; a kernel vmap of it is refused (rule
 *   prime-import-vmap, -EOPNOTSUPP);
 * - this device's copy engine reads and writes an imported allocation
 *   (SUBMIT_BLIT, DMA straight to the pages) only when the adapter has
 *   CrossAdapterResourceTexture (rule cross-adapter-texture,
 *   -EOPNOTSUPP otherwise);
 * - CrossAdapterResourceScanout stays masked: the display scans out of
 *   DirectFlip VRAM only, and an imported allocation never moves there
 *   (ADDFB2 of one is refused by the KMS rules, no DirectFlip segment).
 *
 * The imported allocation holds the dma-buf, which holds the exporter's
 * allocation: either side's files may close first.
 */

#include <linux/dma-buf.h>
#include <linux/module.h>

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_bo.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_prime.h"
#include "wddmseg_offer.h"
#include "wddmseg_protect.h"
#include "wddmseg_trace.h"
#include "wddmseg_hw.h"

/* dma_buf_mmap() of an imported allocation */
WDDMSEG_IMPORT_NS_DMA_BUF();

static int wddmseg_dmabuf_attach(struct dma_buf *dma_buf,
				 struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = dma_buf->priv;
	struct wddmseg_device *wdev = to_wddmseg(obj->dev);
	int ret;

	if (!(wdev->desc.caps & DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE)) {
		drm_dbg(obj->dev, "prime: rule prime-attach: %s cannot attach: the adapter has no CrossAdapterResource\n",
			dev_name(attach->dev));
		return -EOPNOTSUPP;
	}
	if (!gem_to_wddmseg_bo(obj)->cross_adapter) {
		drm_dbg(obj->dev, "prime: rule cross-adapter-attach: %s cannot attach: the allocation is not a cross-adapter resource (WDDMSEG_CREATE_CROSS_ADAPTER)\n",
			dev_name(attach->dev));
		return -EINVAL;
	}
	ret = wddmseg_bo_pin_shared(gem_to_wddmseg_bo(obj));
	if (ret == -EBUSY)
		drm_dbg(obj->dev, "prime: rule prime-attach-pinned: %s cannot attach: the allocation is pinned in device memory\n",
			dev_name(attach->dev));
	return ret;
}

static void wddmseg_dmabuf_detach(struct dma_buf *dma_buf,
				  struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = dma_buf->priv;

	wddmseg_bo_unpin(gem_to_wddmseg_bo(obj));
}

/*
 * The GEM mmap, on both kernels: 6.1's drm_gem_dmabuf_mmap() goes through
 * drm_driver.gem_prime_mmap (gone since 6.6), later ones straight to
 * drm_gem_prime_mmap(), which calls wddmseg_gem_mmap().
 */
static int wddmseg_dmabuf_mmap(struct dma_buf *dma_buf,
			       struct vm_area_struct *vma)
{
	return drm_gem_prime_mmap(dma_buf->priv, vma);
}

/*
 * drm_gem_prime_export()'s operations, with attach and detach pinning the
 * allocation in pages while another device holds them; map_dma_buf is the
 * core's, over wddmseg_gem_prime_get_sg_table().
 */
static const struct dma_buf_ops wddmseg_dmabuf_ops = {
	.attach = wddmseg_dmabuf_attach,
	.detach = wddmseg_dmabuf_detach,
	.map_dma_buf = drm_gem_map_dma_buf,
	.unmap_dma_buf = drm_gem_unmap_dma_buf,
	.release = drm_gem_dmabuf_release,
	.mmap = wddmseg_dmabuf_mmap,
	.vmap = drm_gem_dmabuf_vmap,
	.vunmap = drm_gem_dmabuf_vunmap,
};

/**
 * wddmseg_gem_prime_export - &drm_gem_object_funcs.export
 * @obj: the allocation
 * @flags: flags of the dma-buf file
 *
 * Return: the dma-buf, or ERR_PTR(-EACCES) for protected content.
 */
struct dma_buf *wddmseg_gem_prime_export(struct drm_gem_object *obj,
					 int flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	int ret = wddmseg_protect_check_export(gem_to_wddmseg_bo(obj));

	if (!ret)
		ret = wddmseg_offer_check(gem_to_wddmseg_bo(obj), "export");
	if (ret)
		return ERR_PTR(ret);
	/* An importer may write it in place: wiped on release. */
	WRITE_ONCE(gem_to_wddmseg_bo(obj)->maybe_written_in_place, true);
	/* Shared: locked by its creator only (DOC: Locking shared allocations). */
	WRITE_ONCE(gem_to_wddmseg_bo(obj)->shared, true);
	exp_info.ops = &wddmseg_dmabuf_ops;
	exp_info.size = obj->size;
	exp_info.flags = flags;
	exp_info.priv = obj;
	exp_info.resv = obj->resv;
	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

/**
 * wddmseg_gem_prime_get_sg_table - &drm_gem_object_funcs.get_sg_table
 * @obj: an allocation attached to another device
 *
 * wddmseg_dmabuf_attach() pinned it in pages (system memory or an
 * aperture), populated: the core's map_dma_buf DMA-maps these for the
 * importer.
 *
 * Return: a new table over the allocation's pages, or an ERR_PTR.
 */
struct sg_table *wddmseg_gem_prime_get_sg_table(struct drm_gem_object *obj)
{
	struct ttm_tt *tt = gem_to_wddmseg_bo(obj)->tbo.ttm;

	if (WARN_ON_ONCE(!tt || !tt->pages || !ttm_tt_is_populated(tt)))
		return ERR_PTR(-EINVAL);
	return drm_prime_pages_to_sg(obj->dev, tt->pages, tt->num_pages);
}

/**
 * wddmseg_gem_prime_import - &drm_driver.gem_prime_import
 * @drm: the importing device
 * @dma_buf: the dma-buf
 *
 * Return: the allocation @dma_buf was exported from, with a reference,
 * when it is one of @drm's; with CrossAdapterResource, a new allocation
 * over the pages of any other dma-buf; ERR_PTR(-EOPNOTSUPP) without it.
 */
struct drm_gem_object *wddmseg_gem_prime_import(struct drm_device *drm,
						struct dma_buf *dma_buf)
{
	struct drm_gem_object *obj = dma_buf->priv;

	if (dma_buf->ops == &wddmseg_dmabuf_ops && obj->dev == drm) {
		drm_gem_object_get(obj);
		return obj;
	}
	if (!(to_wddmseg(drm)->desc.caps & DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE)) {
		drm_dbg(drm, "prime: rule prime-import: a dma-buf of %s: the adapter has no CrossAdapterResource\n",
			dma_buf->exp_name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	/* attach, map for this device, then wddmseg_gem_prime_import_sg_table() */
	return drm_gem_prime_import_dev(drm, dma_buf, drm->dev);
}

/**
 * wddmseg_prime_check_engine - may the copy engine use @obj
 * @obj: an allocation named by a blit
 *
 * Return: 0, or -EOPNOTSUPP (rule cross-adapter-texture) for an imported
 * allocation on an adapter without CrossAdapterResourceTexture.
 */
int wddmseg_prime_check_engine(struct drm_gem_object *obj)
{
	if (!obj->import_attach ||
	    (to_wddmseg(obj->dev)->desc.caps &
	     DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_TEXTURE))
		return 0;
	drm_dbg(obj->dev, "blit: rule cross-adapter-texture: an imported allocation, and the adapter has no CrossAdapterResourceTexture\n");
	return -EOPNOTSUPP;
}

/**
 * wddmseg_gem_prime_import_sg_table - &drm_driver.gem_prime_import_sg_table
 * @drm: the importing device
 * @attach: its attachment to another device's dma-buf
 * @sgt: the exporter's pages, DMA-mapped for this device
 *
 * A cross-adapter resource (DOC: PRIME): an allocation in system memory
 * over @sgt, sharing the dma-buf's reservation, with no supported
 * segment, pinned there (it never moves, and TTM never swaps its pages).
 * CpuVisible: its mmap is the exporter's, whose rules decide.
 *
 * Return: the new GEM object, or an ERR_PTR.
 */
struct drm_gem_object *
wddmseg_gem_prime_import_sg_table(struct drm_device *drm,
				  struct dma_buf_attachment *attach,
				  struct sg_table *sgt)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct dma_resv *resv = attach->dmabuf->resv;
	struct wddmseg_bo *bo;
	int ret;

	bo = kzalloc_obj(*bo, GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->flags = WDDMSEG_ALLOC_CPU_VISIBLE;
	bo->cross_adapter = true;
	bo->group = -1;
	bo->alloc_priority = WDDMSEG_ALLOCATION_PRIORITY_NORMAL;
	INIT_LIST_HEAD(&bo->offer_link);
	bo->tbo.priority = WDDMSEG_TTM_PRIO_DEFAULT;
	drm_gem_private_object_init(drm, &bo->tbo.base, attach->dmabuf->size);
	wddmseg_gem_gpuva_init(&bo->tbo.base);
	bo->tbo.base.funcs = &wddmseg_gem_funcs;
	wddmseg_place(bo, &bo->places[0], WDDMSEG_SEGMENT_SYSTEM, 0);
	wddmseg_placement_init(&bo->placement, bo->places, 1, 0);

	/* TTM wants a reservation passed in held; on failure it is still ours. */
	ret = dma_resv_lock_interruptible(resv, NULL);
	if (ret) {
		drm_gem_object_release(&bo->tbo.base);
		kfree(bo);
		return ERR_PTR(ret);
	}
	ret = ttm_bo_init_reserved(&wdev->bdev, &bo->tbo, ttm_bo_type_sg,
				   &bo->placement, 0, &ctx, sgt, resv,
				   wddmseg_bo_destroy);
	if (ret) {
		dma_resv_unlock(resv);
		return ERR_PTR(ret);
	}
	atomic64_set(&bo->moves, 0);
	trace_wddmseg_bo_create(bo, bo->tbo.base.size, bo->flags, 0, 0);
	wddmseg_bo_pin_locked(bo);
	ttm_bo_unreserve(&bo->tbo);
	return &bo->tbo.base;
}
