// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysfs: per-segment usage under the PCI device, in a "wddmseg" group.
 * Each file lists one value per segment, in segment id order.
 */

#include <linux/device.h>
#include <linux/sysfs.h>

#include <drm/drm_drv.h>

#include "wddmseg_device_types.h"
#include "wddmseg_sysfs.h"

typedef u64 (*wddmseg_mgr_value)(struct wddmseg_mgr *mgr);

static ssize_t wddmseg_mgr_show(struct device *dev, char *buf,
				wddmseg_mgr_value value)
{
	struct wddmseg_device *wdev = dev_get_drvdata(dev);
	ssize_t len = 0;
	u32 i;

	for (i = 0; i < wdev->desc.segment_count; i++)
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "",
				     value(wdev->mgr[i]));
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static u64 wddmseg_usage_bytes(struct wddmseg_mgr *mgr)
{
	return ttm_resource_manager_usage(&mgr->manager);
}

static u64 wddmseg_commit_limit(struct wddmseg_mgr *mgr)
{
	return mgr->commit_limit << PAGE_SHIFT;
}

static u64 wddmseg_allocations(struct wddmseg_mgr *mgr)
{
	return atomic64_read(&mgr->allocations);
}

static u64 wddmseg_pinned_bytes(struct wddmseg_mgr *mgr)
{
	return (u64)atomic64_read(&mgr->pinned_pages) << PAGE_SHIFT;
}

static u64 wddmseg_evictions(struct wddmseg_mgr *mgr)
{
	return atomic64_read(&mgr->evictions);
}

static u64 wddmseg_transfer_out_bytes(struct wddmseg_mgr *mgr)
{
	return atomic64_read(&mgr->transfer_out_bytes);
}

static u64 wddmseg_transfer_in_bytes(struct wddmseg_mgr *mgr)
{
	return atomic64_read(&mgr->transfer_in_bytes);
}

static u64 wddmseg_discard_bytes(struct wddmseg_mgr *mgr)
{
	return atomic64_read(&mgr->discard_bytes);
}

static u64 wddmseg_pm_evicted_bytes(struct wddmseg_mgr *mgr)
{
	return READ_ONCE(mgr->wdev->pm.evicted[mgr->segment_id - 1]);
}

static u64 wddmseg_pm_restored_bytes(struct wddmseg_mgr *mgr)
{
	return READ_ONCE(mgr->wdev->pm.restored[mgr->segment_id - 1]);
}

static u64 wddmseg_pm_kept_bytes(struct wddmseg_mgr *mgr)
{
	return READ_ONCE(mgr->wdev->pm.kept[mgr->segment_id - 1]);
}

static u64 wddmseg_pm_lost_bytes(struct wddmseg_mgr *mgr)
{
	return READ_ONCE(mgr->wdev->pm.lost[mgr->segment_id - 1]);
}

#define WDDMSEG_MGR_ATTR(name)						\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return wddmseg_mgr_show(dev, buf, wddmseg_##name);		\
}									\
static DEVICE_ATTR_RO(name)

WDDMSEG_MGR_ATTR(usage_bytes);
WDDMSEG_MGR_ATTR(commit_limit);
WDDMSEG_MGR_ATTR(allocations);
WDDMSEG_MGR_ATTR(pinned_bytes);
WDDMSEG_MGR_ATTR(evictions);
WDDMSEG_MGR_ATTR(transfer_out_bytes);
WDDMSEG_MGR_ATTR(transfer_in_bytes);
WDDMSEG_MGR_ATTR(discard_bytes);
WDDMSEG_MGR_ATTR(pm_evicted_bytes);
WDDMSEG_MGR_ATTR(pm_restored_bytes);
WDDMSEG_MGR_ATTR(pm_kept_bytes);
WDDMSEG_MGR_ATTR(pm_lost_bytes);

/* Microseconds of each phase of the last cycle (enum wddmseg_pm_phase). */
static ssize_t pm_phase_us_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct wddmseg_device *wdev = dev_get_drvdata(dev);
	const u64 *us = wdev->pm.phase_us;

	return sysfs_emit(buf, "prepare %llu suspend %llu resume %llu restore %llu\n",
			  READ_ONCE(us[WDDMSEG_PM_PREPARE]),
			  READ_ONCE(us[WDDMSEG_PM_SUSPEND]),
			  READ_ONCE(us[WDDMSEG_PM_RESUME]),
			  READ_ONCE(us[WDDMSEG_PM_RESTORE]));
}
static DEVICE_ATTR_RO(pm_phase_us);

static ssize_t pm_cycles_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct wddmseg_device *wdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%llu\n", READ_ONCE(wdev->pm.cycles));
}
static DEVICE_ATTR_RO(pm_cycles);

/* Runtime suspend/resume cycles (D3hot and back) completed. */
static ssize_t pm_runtime_cycles_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct wddmseg_device *wdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%llu\n", READ_ONCE(wdev->pm.runtime_cycles));
}
static DEVICE_ATTR_RO(pm_runtime_cycles);

/* Trim notifications sent to the device's files (DOC: Trim notifications). */
static ssize_t trim_events_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct wddmseg_device *wdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%llu\n", (u64)atomic64_read(&wdev->trim_events));
}
static DEVICE_ATTR_RO(trim_events);

/* Bytes the driver trimmed from files past their grace period. */
static ssize_t trim_driver_bytes_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct wddmseg_device *wdev = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%llu\n",
			  (u64)atomic64_read(&wdev->trim_driver_bytes));
}
static DEVICE_ATTR_RO(trim_driver_bytes);

static struct attribute *wddmseg_attrs[] = {
	&dev_attr_usage_bytes.attr,
	&dev_attr_commit_limit.attr,
	&dev_attr_allocations.attr,
	&dev_attr_pinned_bytes.attr,
	&dev_attr_evictions.attr,
	&dev_attr_transfer_out_bytes.attr,
	&dev_attr_transfer_in_bytes.attr,
	&dev_attr_discard_bytes.attr,
	&dev_attr_pm_evicted_bytes.attr,
	&dev_attr_pm_restored_bytes.attr,
	&dev_attr_pm_kept_bytes.attr,
	&dev_attr_pm_lost_bytes.attr,
	&dev_attr_pm_phase_us.attr,
	&dev_attr_pm_cycles.attr,
	&dev_attr_pm_runtime_cycles.attr,
	&dev_attr_trim_events.attr,
	&dev_attr_trim_driver_bytes.attr,
	NULL
};

static const struct attribute_group wddmseg_attr_group = {
	.name = "wddmseg",
	.attrs = wddmseg_attrs,
};

/**
 * wddmseg_sysfs_init - add the usage files to the PCI device
 * @wdev: device whose segment managers exist
 *
 * The group is device-managed: it goes away when the driver unbinds, before
 * the managers do.
 */
int wddmseg_sysfs_init(struct wddmseg_device *wdev)
{
	return devm_device_add_group(wdev->drm.dev, &wddmseg_attr_group);
}
