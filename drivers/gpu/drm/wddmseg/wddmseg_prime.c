// SPDX-License-Identifier: GPL-2.0-only
/*
 * dma-bufs of allocations (PRIME): what a dma-buf may do until the driver
 * shares allocations with other devices.
 */

/**
 * DOC: PRIME
 *
 * Since 6.6 the DRM core offers the PRIME ioctls (handle to dma-buf fd
 * and back) to every GEM driver; on 6.1 the driver opts in with the same
 * helpers (wddmseg_compat.h), so that both kernels behave alike. Until
 * the driver shares allocations across adapters (which WDDM calls
 * CrossAdapterResource, masked in QUERY_ADAPTER until then), a dma-buf of
 * an allocation serves only its own device:
 *
 * - export: refused for Protected and HardwareProtected allocations
 *   (rule protected-export, -EACCES); any other allocation exports;
 * - the dma-buf's mmap is the GEM object's mmap: wddmseg_gem_mmap()'s
 *   rules apply (protected-map, cpu-visible), then the same fault
 *   handling, migration of CpuVisibleOnDemand allocations included;
 * - its vmap (a kernel importer's mapping) is the GEM vmap, with the same
 *   rules, pinning the allocation where it is while mapped;
 * - attaching another device to it is refused (rule prime-attach,
 *   -EOPNOTSUPP): the driver hands no scatter-gather table of its
 *   segments to other devices yet;
 * - import takes back a dma-buf of an allocation of the same device (the
 *   same GEM object, as a flink name would) and refuses anything else
 *   (rule prime-import, -EOPNOTSUPP), another wddmseg device's included.
 */

#include <linux/dma-buf.h>
#include <linux/module.h>

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "wddmseg_drv.h"

static int wddmseg_dmabuf_attach(struct dma_buf *dma_buf,
				 struct dma_buf_attachment *attach)
{
	struct drm_gem_object *obj = dma_buf->priv;

	drm_dbg(obj->dev, "prime: rule prime-attach: %s cannot attach: allocations are not shared with other devices yet\n",
		dev_name(attach->dev));
	return -EOPNOTSUPP;
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
 * drm_gem_prime_export()'s operations, but for attach: no importer gets
 * to map_dma_buf (which dma_buf_export() requires to exist).
 */
static const struct dma_buf_ops wddmseg_dmabuf_ops = {
	.attach = wddmseg_dmabuf_attach,
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

	if (ret)
		return ERR_PTR(ret);
	/* An importer may write it in place: wiped on release. */
	WRITE_ONCE(gem_to_wddmseg_bo(obj)->exposed, true);
	exp_info.ops = &wddmseg_dmabuf_ops;
	exp_info.size = obj->size;
	exp_info.flags = flags;
	exp_info.priv = obj;
	exp_info.resv = obj->resv;
	return drm_gem_dmabuf_export(obj->dev, &exp_info);
}

/**
 * wddmseg_gem_prime_import - &drm_driver.gem_prime_import
 * @drm: the importing device
 * @dma_buf: the dma-buf
 *
 * Return: the allocation @dma_buf was exported from, with a reference,
 * when it is one of @drm's; ERR_PTR(-EOPNOTSUPP) otherwise.
 */
struct drm_gem_object *wddmseg_gem_prime_import(struct drm_device *drm,
						struct dma_buf *dma_buf)
{
	struct drm_gem_object *obj = dma_buf->priv;

	if (dma_buf->ops == &wddmseg_dmabuf_ops && obj->dev == drm) {
		drm_gem_object_get(obj);
		return obj;
	}
	drm_dbg(drm, "prime: rule prime-import: a dma-buf of %s: only this device's allocations import\n",
		dma_buf->exp_name);
	return ERR_PTR(-EOPNOTSUPP);
}
