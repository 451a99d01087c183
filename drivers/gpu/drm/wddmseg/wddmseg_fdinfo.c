// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg: per-client usage in /proc/PID/fdinfo/FD, the keys of
 * Documentation/gpu/drm-usage-stats.rst. The Linux form of
 * D3DKMTQueryVideoMemoryInfo for tools such as gputop and nvtop:
 *
 *  - drm-engine-copy: time the copy engine spent on the client's blits
 *    (SUBMIT_BLIT), in ns, from submission to the completion of each;
 *  - drm-total-<region> and drm-resident-<region>, per memory region: the
 *    allocations the client has a handle to, by where each is now
 *    ("system", or "segN" for WDDM segment id N), and of those the ones
 *    with backing store there (system memory: populated pages).
 *
 * drm-driver, drm-client-id and drm-pdev come from the DRM core since 6.5
 * and from wddmseg_show_fdinfo_fops() before (wddmseg_compat.h,
 * WDDMSEG_FDINFO_FOPS).
 */

#include <linux/dma-fence.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_bo.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_fdinfo.h"
#include "wddmseg_file.h"
#include "wddmseg_mgr.h"

/* Client ids for kernels whose DRM core has none (see wddmseg_open()). */
static atomic64_t wddmseg_next_client_id = ATOMIC64_INIT(0);

/**
 * wddmseg_fdinfo_client_id - a new client id, unique for the module's life
 *
 * Return: the id, from 1.
 */
u64 wddmseg_fdinfo_client_id(void)
{
	return atomic64_inc_return(&wddmseg_next_client_id);
}

struct wddmseg_busy_cb {
	struct dma_fence_cb cb;
	struct wddmseg_file *wfile;
	ktime_t start;
};

/* Fence callback (any context): add the job's time to its client. */
static void wddmseg_busy_done(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct wddmseg_busy_cb *b = container_of(cb, struct wddmseg_busy_cb, cb);
	ktime_t end = test_bit(DMA_FENCE_FLAG_TIMESTAMP_BIT, &fence->flags) ?
		      fence->timestamp : ktime_get();
	s64 ns = ktime_to_ns(ktime_sub(end, b->start));

	atomic64_add(max_t(s64, ns, 0), &b->wfile->engine_ns);
	wddmseg_file_put(b->wfile);
	kfree(b);
}

/**
 * wddmseg_fdinfo_account_blit - charge a blit's engine time to its client
 * @wfile: the submitting client
 * @fence: the blit's fence
 * @start: when it was submitted
 *
 * The time is added when @fence signals (at once if it has). Without
 * memory for the callback the job goes uncounted: the figure is a
 * statistic, not worth failing a blit for.
 */
void wddmseg_fdinfo_account_blit(struct wddmseg_file *wfile,
				 struct dma_fence *fence, ktime_t start)
{
	struct wddmseg_busy_cb *b = kmalloc_obj(*b, GFP_KERNEL);

	if (!b)
		return;
	b->wfile = wddmseg_file_get(wfile);
	b->start = start;
	if (dma_fence_add_callback(fence, &b->cb, wddmseg_busy_done))
		wddmseg_busy_done(fence, &b->cb);
}

struct wddmseg_mem_stats {
	u64 total[WDDMSEG_MAX_SEGMENTS + 1];	/* [0]: system memory */
	u64 resident[WDDMSEG_MAX_SEGMENTS + 1];
};

static void wddmseg_fdinfo_count(struct wddmseg_device *wdev,
				 struct wddmseg_bo *bo,
				 struct wddmseg_mem_stats *st)
{
	struct ttm_buffer_object *tbo = &bo->tbo;
	u64 size = tbo->base.size;
	u32 id;

	id = wddmseg_mem_type_segment(wdev, wddmseg_res_mem_type(tbo->resource));
	if (id > WDDMSEG_MAX_SEGMENTS)
		id = WDDMSEG_SEGMENT_SYSTEM;
	st->total[id] += size;
	if (id != WDDMSEG_SEGMENT_SYSTEM ||
	    (tbo->resource && tbo->ttm && ttm_tt_is_populated(tbo->ttm)))
		st->resident[id] += size;
}

/**
 * wddmseg_show_fdinfo - the driver's fdinfo keys
 * @p: printer on the fdinfo file
 * @file: the DRM file
 *
 * Each allocation is looked at under its reservation, one at a time, with
 * a reference taken under the handle table's lock: placements are stable
 * while counted, and no lock is held across the walk.
 */
void wddmseg_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(file->minor->dev);
	struct wddmseg_file *wfile = file->driver_priv;
	struct wddmseg_mem_stats *st;
	struct drm_gem_object *obj;
	int id = 0;
	u32 seg;

	drm_printf(p, "drm-engine-copy:\t%llu ns\n",
		   (u64)atomic64_read(&wfile->engine_ns));
	drm_printf(p, "wddmseg-discard-bytes:\t%llu\n",
		   (u64)atomic64_read(&wfile->discard_bytes));
	drm_printf(p, "wddmseg-trim-events:\t%llu\n",
		   (u64)atomic64_read(&wfile->trim_events));
	drm_printf(p, "wddmseg-trim-self-bytes:\t%llu\n",
		   (u64)atomic64_read(&wfile->trim_self_bytes));
	drm_printf(p, "wddmseg-trim-driver-bytes:\t%llu\n",
		   (u64)atomic64_read(&wfile->trim_driver_bytes));

	st = kzalloc_obj(*st, GFP_KERNEL);
	if (!st)
		return;
	for (;;) {
		spin_lock(&file->table_lock);
		obj = idr_get_next(&file->object_idr, &id);
		if (obj)
			drm_gem_object_get(obj);
		spin_unlock(&file->table_lock);
		if (!obj)
			break;
		id++;
		if (!dma_resv_lock_interruptible(obj->resv, NULL)) {
			wddmseg_fdinfo_count(wdev, gem_to_wddmseg_bo(obj), st);
			dma_resv_unlock(obj->resv);
		}
		drm_gem_object_put(obj);
	}

	for (seg = 0; seg <= wdev->desc.segment_count; seg++) {
		char region[16];	/* "seg" and a u32 */

		if (seg == WDDMSEG_SEGMENT_SYSTEM)
			strscpy(region, "system", sizeof(region));
		else
			snprintf(region, sizeof(region), "seg%u", seg);
		drm_printf(p, "drm-total-%s:\t%llu KiB\n", region,
			   st->total[seg] >> 10);
		drm_printf(p, "drm-resident-%s:\t%llu KiB\n", region,
			   st->resident[seg] >> 10);
	}
	kfree(st);
}

/**
 * wddmseg_show_fdinfo_fops - file_operations.show_fdinfo before 6.5
 * @m: the fdinfo file
 * @f: the DRM file's struct file
 *
 * What the DRM core prints since 6.5 (drm_show_fdinfo()), with the
 * driver's own client ids, then the driver's keys. Only 6.1 uses it
 * (WDDMSEG_FDINFO_FOPS).
 */
void wddmseg_show_fdinfo_fops(struct seq_file *m, struct file *f)
{
	struct drm_file *file = f->private_data;
	struct drm_device *drm = file->minor->dev;
	struct wddmseg_file *wfile = file->driver_priv;
	struct drm_printer p = drm_seq_file_printer(m);

	drm_printf(&p, "drm-driver:\t%s\n", drm->driver->name);
	drm_printf(&p, "drm-client-id:\t%llu\n", wfile->client_id);
	if (dev_is_pci(drm->dev))
		drm_printf(&p, "drm-pdev:\t%s\n", pci_name(to_pci_dev(drm->dev)));
	wddmseg_show_fdinfo(&p, file);
}
