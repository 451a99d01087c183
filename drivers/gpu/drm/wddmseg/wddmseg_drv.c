// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg: PCI probe and DRM device registration.
 *
 * Probe reads the WDDM segment descriptor table from the device, refuses a
 * device whose table breaks a WDDM rule, and registers a DRM device with a
 * primary and a render node. Every resource is device-managed (pcim_*,
 * devm_drm_dev_alloc), so a failed probe and an unbind leave nothing behind.
 */

#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "wddmseg_blit.h"
#include "wddmseg_bo.h"
#include "wddmseg_budget.h"
#include "wddmseg_debugfs.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_engine.h"
#include "wddmseg_fdinfo.h"
#include "wddmseg_file.h"
#include "wddmseg_gem_ioctl.h"
#include "wddmseg_irq.h"
#include "wddmseg_kms.h"
#include "wddmseg_pm.h"
#include "wddmseg_prime.h"
#include "wddmseg_offer.h"
#include "wddmseg_query.h"
#include "wddmseg_sysfs.h"
#include "wddmseg_ttm.h"
#include "wddmseg_hw.h"

static const struct drm_ioctl_desc wddmseg_ioctls[] = {
	DRM_IOCTL_DEF_DRV(WDDMSEG_QUERY_ADAPTER, wddmseg_ioctl_query_adapter,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_QUERY_SEGMENT, wddmseg_ioctl_query_segment,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_GEM_CREATE, wddmseg_ioctl_gem_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_GEM_MMAP_OFFSET, wddmseg_ioctl_gem_mmap_offset,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_GEM_INFO, wddmseg_ioctl_gem_info,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_GEM_MAKE_RESIDENT,
			  wddmseg_ioctl_gem_make_resident, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_GEM_EVICT, wddmseg_ioctl_gem_evict,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_GEM_WAIT, wddmseg_ioctl_gem_wait,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_QUERY_BUDGET, wddmseg_ioctl_query_budget,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_SUBMIT_BLIT, wddmseg_ioctl_submit_blit,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_QUERY_MMU, wddmseg_ioctl_query_mmu,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_VM_CREATE, wddmseg_ioctl_vm_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_VM_DESTROY, wddmseg_ioctl_vm_destroy,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_VM_BIND, wddmseg_ioctl_vm_bind,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_OFFER_ALLOCATIONS,
			  wddmseg_ioctl_offer_allocations, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_RECLAIM_ALLOCATIONS,
			  wddmseg_ioctl_reclaim_allocations, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_SET_ALLOCATION_PRIORITY,
			  wddmseg_ioctl_set_allocation_priority,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_SET_RESERVATION, wddmseg_ioctl_set_reservation,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_REGISTER_TRIM_NOTIFICATION,
			  wddmseg_ioctl_register_trim, DRM_RENDER_ALLOW),
};

/*
 * Runtime PM: an ioctl holds the device in D0 from its entry to its
 * return, resuming it first if it was suspended (DOC: Runtime power
 * management). So does the last close of a file, which frees allocations
 * (aperture page tables) and may restore the fbdev console.
 */
static long wddmseg_ioctl_held(struct file *filp, unsigned int cmd,
			       unsigned long arg,
			       long (*ioctl)(struct file *, unsigned int,
					     unsigned long))
{
	struct drm_file *file = filp->private_data;
	struct wddmseg_device *wdev = to_wddmseg(file->minor->dev);
	long ret;

	ret = wddmseg_pm_get(wdev);
	if (ret)
		return ret;
	ret = ioctl(filp, cmd, arg);
	wddmseg_pm_put(wdev);
	return ret;
}

static long wddmseg_ioctl(struct file *filp, unsigned int cmd,
			  unsigned long arg)
{
	return wddmseg_ioctl_held(filp, cmd, arg, drm_ioctl);
}

#ifdef CONFIG_COMPAT
static long wddmseg_compat_ioctl(struct file *filp, unsigned int cmd,
				 unsigned long arg)
{
	return wddmseg_ioctl_held(filp, cmd, arg, drm_compat_ioctl);
}
#else
#define wddmseg_compat_ioctl NULL
#endif

static int wddmseg_release(struct inode *inode, struct file *filp)
{
	struct drm_file *file = filp->private_data;
	struct wddmseg_device *wdev = to_wddmseg(file->minor->dev);
	struct device *dev = get_device(wdev->drm.dev);
	bool held;
	int ret;

	/* drm_release() may drop the last reference on wdev. */
	held = !wddmseg_pm_get(wdev);
	ret = drm_release(inode, filp);
	if (held) {
		pm_runtime_mark_last_busy(dev);
		pm_runtime_put_autosuspend(dev);
	}
	put_device(dev);
	return ret;
}

/*
 * DEFINE_DRM_GEM_FOPS() with the runtime PM wrappers above, and the fdinfo
 * shim before 6.5; FOP_UNSIGNED_OFFSET since 6.12.
 */
static const struct file_operations wddmseg_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = wddmseg_release,
	.unlocked_ioctl = wddmseg_ioctl,
	.compat_ioctl = wddmseg_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
	.mmap = drm_gem_mmap,
#ifdef FOP_UNSIGNED_OFFSET
	.fop_flags = FOP_UNSIGNED_OFFSET,
#endif
	WDDMSEG_FDINFO_FOPS
};

static const struct drm_driver wddmseg_drm_driver = {
	/* Headless devices keep DRIVER_MODESET with no outputs (wddmseg_kms.c). */
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_MODESET |
			   DRIVER_ATOMIC | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.open = wddmseg_open,
	.postclose = wddmseg_postclose,
	.dumb_create = wddmseg_dumb_create,
	.dumb_map_offset = wddmseg_dumb_map_offset,
	/* The DRM core's default since 6.6; explicit for 6.1 (wddmseg_prime.c). */
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
	.gem_prime_import = wddmseg_gem_prime_import,
	.gem_prime_import_sg_table = wddmseg_gem_prime_import_sg_table,
	WDDMSEG_FBDEV_DRIVER_OPS,
	WDDMSEG_FDINFO_DRIVER_OPS
	.ioctls = wddmseg_ioctls,
	.num_ioctls = ARRAY_SIZE(wddmseg_ioctls),
	.fops = &wddmseg_fops,
	.debugfs_init = wddmseg_debugfs_init,
	.name = WDDMSEG_DRIVER_NAME,
	.desc = WDDMSEG_DRIVER_DESC,
	WDDMSEG_DRIVER_DATE_OPS
	.major = 1,
	.minor = 0,
};

static int wddmseg_identify(struct wddmseg_device *wdev)
{
	struct drm_device *drm = &wdev->drm;
	u32 id = readl(wdev->mmio + WDDMSEG_REG_ID);
	u32 version = readl(wdev->mmio + WDDMSEG_REG_VERSION);

	if (id != WDDMSEG_ID_VALUE) {
		drm_err(drm, "unexpected ID register 0x%08x (want 0x%08x)\n",
			id, WDDMSEG_ID_VALUE);
		return -ENODEV;
	}
	if (WDDMSEG_VERSION_MAJOR(version) !=
	    WDDMSEG_VERSION_MAJOR(WDDMSEG_VERSION_CURRENT)) {
		drm_err(drm, "unsupported device version %u.%u\n",
			WDDMSEG_VERSION_MAJOR(version),
			WDDMSEG_VERSION_MINOR(version));
		return -ENODEV;
	}
	return 0;
}

/* Does a translating IOMMU confine the device's DMA to what we map? */
static bool wddmseg_iommu_isolated(struct device *dev)
{
	struct iommu_domain *domain;

	if (!device_iommu_mapped(dev))
		return false;
	domain = iommu_get_domain_for_dev(dev);
	return domain && domain->type != IOMMU_DOMAIN_IDENTITY;
}

static int wddmseg_load_segments(struct wddmseg_device *wdev)
{
	struct pci_dev *pdev = to_pci_dev(wdev->drm.dev);
	struct wddmseg_adapter_desc *d = &wdev->desc;
	struct wddmseg_violation v;
	u32 id;
	int ret;

	wddmseg_desc_read(wdev->mmio, d);
	d->bar_start = pci_resource_start(pdev, WDDMSEG_BAR_VRAM);
	d->bar_size = pci_resource_len(pdev, WDDMSEG_BAR_VRAM);

	d->isolated = wddmseg_iommu_isolated(&pdev->dev);
	ret = wddmseg_desc_validate(d, &v);
	if (ret) {
		if (v.segment_id)
			drm_err(&wdev->drm, "segment %u: rule %s: %s\n",
				v.segment_id, v.rule, v.detail);
		else
			drm_err(&wdev->drm, "adapter: rule %s: %s\n",
				v.rule, v.detail);
		return ret;
	}

	for (id = 1; id <= d->segment_count; id++)
		if (d->seg[id - 1].flags !=
		    wddmseg_segflags_effective(d->seg[id - 1].flags))
			drm_info(&wdev->drm, "segment %u: CpuVisible ignored: it has no meaning on an aperture segment (DXGK_SEGMENTFLAGS)\n",
				 id);

	d->caps = wddmseg_caps_honoured(d->vidmm_caps, d->isolated,
					WDDMSEG_HAVE_GPUVM);

	drm_dbg_driver(&wdev->drm, "%u segments, caps 0x%08x (honoured 0x%08x), paging node %u\n",
		       d->segment_count, d->vidmm_caps, d->caps, d->paging_node);
	return 0;
}

static void wddmseg_unmap_bars(struct drm_device *drm, void *unused)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);

	if (wdev->window)
		iounmap(wdev->window);
	if (wdev->vram_bar)
		iounmap(wdev->vram_bar);
	iounmap(wdev->mmio);
}

/*
 * The BAR mappings live as long as the DRM device, not the PCI binding:
 * buffer objects may outlive an unbind (open files) and are evicted, which
 * touches VRAM and registers, when the last reference goes.
 */
static int wddmseg_map_bars(struct wddmseg_device *wdev)
{
	struct pci_dev *pdev = to_pci_dev(wdev->drm.dev);

	wdev->mmio = ioremap(pci_resource_start(pdev, WDDMSEG_BAR_MMIO),
			     WDDMSEG_MMIO_SIZE);
	if (!wdev->mmio)
		return -ENOMEM;
	wdev->vram_bar = ioremap_wc(pci_resource_start(pdev, WDDMSEG_BAR_VRAM),
				    pci_resource_len(pdev, WDDMSEG_BAR_VRAM));
	/* Uncached: what the window shows changes under it. */
	wdev->window = ioremap(pci_resource_start(pdev, WDDMSEG_BAR_WINDOW),
			       WDDMSEG_WINDOW_SIZE);
	if (!wdev->vram_bar || !wdev->window ||
	    pci_resource_len(pdev, WDDMSEG_BAR_WINDOW) < WDDMSEG_WINDOW_SIZE) {
		wddmseg_unmap_bars(&wdev->drm, NULL);
		return -ENOMEM;
	}
	return drmm_add_action_or_reset(&wdev->drm, wddmseg_unmap_bars, NULL);
}

static void wddmseg_stop_engine(void *data)
{
	struct wddmseg_device *wdev = data;

	wddmseg_engine_fini(&wdev->engine);
}

static void wddmseg_release_ttm(struct drm_device *drm, void *unused)
{
	wddmseg_ttm_fini(to_wddmseg(drm));
}

static int wddmseg_pci_probe(struct pci_dev *pdev,
			     const struct pci_device_id *ent)
{
	struct wddmseg_device *wdev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	/* Managed by pcim: released when the driver unbinds. */
	ret = wddmseg_pcim_request_regions(pdev, WDDMSEG_DRIVER_NAME);
	if (ret)
		return ret;

	/* The device reads aperture pages by DMA. */
	pci_set_master(pdev);

	wdev = devm_drm_dev_alloc(&pdev->dev, &wddmseg_drm_driver,
				  struct wddmseg_device, drm);
	if (IS_ERR(wdev))
		return PTR_ERR(wdev);
	pci_set_drvdata(pdev, wdev);
	spin_lock_init(&wdev->irq_lock);
	wddmseg_knobs_init(wdev);
	ret = wddmseg_copy_init(wdev);
	if (ret)
		return ret;

	ret = wddmseg_map_bars(wdev);
	if (ret)
		return ret;

	ret = wddmseg_identify(wdev);
	if (ret)
		return ret;

	ret = wddmseg_load_segments(wdev);
	if (ret)
		return ret;

	/* Freed at unbind after the engine stopped (devres order). */
	ret = wddmseg_irq_init(wdev);
	if (ret)
		drm_warn(&wdev->drm, "no interrupt (%d): no copy engine, no display\n",
			 ret);

	ret = wddmseg_engine_init(wdev, &wdev->engine);
	if (ret) {
		/* Keep going: moves fall back to the CPU. */
		drm_warn(&wdev->drm, "copy engine unavailable (%d), moving memory with the CPU\n",
			 ret);
	} else {
		/* Stop the engine at unbind, before pcim disables the device. */
		ret = devm_add_action_or_reset(&pdev->dev, wddmseg_stop_engine,
					       wdev);
		if (ret)
			return ret;
	}

	ret = wddmseg_ttm_init(wdev);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&wdev->drm, wddmseg_release_ttm, NULL);
	if (ret)
		return ret;

	ret = wddmseg_pm_init(wdev);
	if (ret)
		return ret;

	ret = wddmseg_kms_init(wdev);
	if (ret)
		return ret;

	ret = wddmseg_sysfs_init(wdev);
	if (ret)
		return ret;

	ret = drm_dev_register(&wdev->drm, 0);
	if (ret)
		return ret;
	wddmseg_kms_register(wdev);
	wddmseg_pm_runtime_start(wdev);
	return 0;
}

static void wddmseg_pci_remove(struct pci_dev *pdev)
{
	struct wddmseg_device *wdev = pci_get_drvdata(pdev);

	wddmseg_pm_runtime_stop(wdev);
	drm_dev_unplug(&wdev->drm);
	/* Scanout off and framebuffers unpinned while the engine still runs. */
	wddmseg_kms_fini(wdev);
}

static void wddmseg_pci_shutdown(struct pci_dev *pdev)
{
	struct wddmseg_device *wdev = pci_get_drvdata(pdev);

	if (wdev)
		wddmseg_kms_fini(wdev);
}

static const struct pci_device_id wddmseg_pci_ids[] = {
	{ PCI_DEVICE(WDDMSEG_PCI_VENDOR_ID, WDDMSEG_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, wddmseg_pci_ids);

static struct pci_driver wddmseg_pci_driver = {
	.name = WDDMSEG_DRIVER_NAME,
	.id_table = wddmseg_pci_ids,
	.probe = wddmseg_pci_probe,
	.remove = wddmseg_pci_remove,
	.shutdown = wddmseg_pci_shutdown,
	.driver.pm = pm_ptr(&wddmseg_pm_ops),
};
module_pci_driver(wddmseg_pci_driver);

MODULE_DESCRIPTION(WDDMSEG_DRIVER_DESC);
MODULE_LICENSE("GPL");
MODULE_VERSION(WDDMSEG_DRIVER_VERSION);
