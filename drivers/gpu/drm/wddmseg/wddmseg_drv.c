// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg: PCI probe and DRM device registration.
 *
 * Probe reads the WDDM segment descriptor table from the device, refuses a
 * device whose table breaks a WDDM rule, and registers a DRM device with a
 * primary and a render node. Every resource is device-managed (pcim_*,
 * devm_drm_dev_alloc), so a failed probe and an unbind leave nothing behind.
 */

#include <linux/module.h>
#include <linux/pci.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>

#include "wddmseg_drv.h"
#include "wddmseg_hw.h"

static const struct drm_ioctl_desc wddmseg_ioctls[] = {
	DRM_IOCTL_DEF_DRV(WDDMSEG_QUERY_ADAPTER, wddmseg_ioctl_query_adapter,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(WDDMSEG_QUERY_SEGMENT, wddmseg_ioctl_query_segment,
			  DRM_RENDER_ALLOW),
};

static const struct file_operations wddmseg_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = drm_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.poll = drm_poll,
	.read = drm_read,
	.llseek = noop_llseek,
};

static const struct drm_driver wddmseg_drm_driver = {
	.driver_features = DRIVER_RENDER,
	.ioctls = wddmseg_ioctls,
	.num_ioctls = ARRAY_SIZE(wddmseg_ioctls),
	.fops = &wddmseg_fops,
	.debugfs_init = wddmseg_debugfs_init,
	.name = WDDMSEG_DRIVER_NAME,
	.desc = WDDMSEG_DRIVER_DESC,
	.date = "20261122",
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

static int wddmseg_load_segments(struct wddmseg_device *wdev)
{
	struct pci_dev *pdev = to_pci_dev(wdev->drm.dev);
	struct wddmseg_adapter_desc *d = &wdev->desc;
	struct wddmseg_violation v;
	int ret;

	wddmseg_desc_read(wdev->mmio, d);
	d->bar_start = pci_resource_start(pdev, WDDMSEG_BAR_VRAM);
	d->bar_size = pci_resource_len(pdev, WDDMSEG_BAR_VRAM);

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

	drm_dbg_driver(&wdev->drm, "%u segments, caps 0x%08x, paging node %u\n",
		       d->segment_count, d->vidmm_caps, d->paging_node);
	return 0;
}

static int wddmseg_pci_probe(struct pci_dev *pdev,
			     const struct pci_device_id *ent)
{
	struct wddmseg_device *wdev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	ret = pcim_iomap_regions(pdev, BIT(WDDMSEG_BAR_MMIO), WDDMSEG_DRIVER_NAME);
	if (ret)
		return ret;

	wdev = devm_drm_dev_alloc(&pdev->dev, &wddmseg_drm_driver,
				  struct wddmseg_device, drm);
	if (IS_ERR(wdev))
		return PTR_ERR(wdev);
	wdev->mmio = pcim_iomap_table(pdev)[WDDMSEG_BAR_MMIO];
	pci_set_drvdata(pdev, wdev);

	ret = wddmseg_identify(wdev);
	if (ret)
		return ret;

	ret = wddmseg_load_segments(wdev);
	if (ret)
		return ret;

	return drm_dev_register(&wdev->drm, 0);
}

static void wddmseg_pci_remove(struct pci_dev *pdev)
{
	struct wddmseg_device *wdev = pci_get_drvdata(pdev);

	drm_dev_unplug(&wdev->drm);
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
};
module_pci_driver(wddmseg_pci_driver);

MODULE_DESCRIPTION(WDDMSEG_DRIVER_DESC);
MODULE_LICENSE("GPL");
