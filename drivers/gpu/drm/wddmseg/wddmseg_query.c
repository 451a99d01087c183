// SPDX-License-Identifier: GPL-2.0-only
/*
 * Query ioctls: the adapter capabilities and the segment table.
 *
 * Both only read the table cached at probe time, so they need neither the
 * device nor a lock, and keep working (with stale data) after an unplug.
 */

#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_query.h"

static bool wddmseg_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

int wddmseg_ioctl_query_adapter(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	const struct wddmseg_adapter_desc *d = &to_wddmseg(drm)->desc;
	struct drm_wddmseg_query_adapter *args = data;

	/* Every field is an output: demand zeroes so they can grow inputs. */
	if (!wddmseg_all_zero(args, sizeof(*args))) {
		drm_dbg(drm, "query_adapter: structure must be zeroed on input\n");
		return -EINVAL;
	}

	args->uapi_version = WDDMSEG_UAPI_VERSION;
	args->hw_version = d->hw_version;
	args->vidmm_caps = d->caps;
	args->device_vidmm_caps = d->vidmm_caps;
	args->paging_node = d->paging_node;
	args->segment_count = d->segment_count;
	args->num_engines = d->num_engines;
	args->vram_size = d->vram_size;
	args->cpu_visible_size = d->bar_size;
	return 0;
}

int wddmseg_ioctl_query_mmu(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	const struct wddmseg_mmu_desc *m = &to_wddmseg(drm)->desc.mmu;
	struct drm_wddmseg_query_mmu *args = data;
	u32 l, n;

	BUILD_BUG_ON(WDDMSEG_MMU_MAX_LEVELS != WDDMSEG_MMU_LEVEL_MAX);
	BUILD_BUG_ON(WDDMSEG_MMU_PRESENT != WDDMSEG_MMU_CAPS_PRESENT);
	BUILD_BUG_ON(WDDMSEG_MMU_GPU_PHYSICAL != WDDMSEG_MMU_CAPS_GPU_PHYSICAL);

	if (!wddmseg_all_zero(args, sizeof(*args))) {
		drm_dbg(drm, "query_mmu: structure must be zeroed on input\n");
		return -EINVAL;
	}
	/* No MMU (older device, or no memory segment): report nothing. */
	if (!(m->caps & WDDMSEG_MMU_CAPS_PRESENT))
		return 0;

	args->flags = m->caps & (WDDMSEG_MMU_PRESENT | WDDMSEG_MMU_GPU_PHYSICAL);
	args->va_bits = m->va_bits;
	args->levels = m->levels;
	args->pt_segment = m->pt_segment;
	args->pt_size = m->pt_size;
	args->pt_align = m->pt_align;
	args->contexts = m->contexts;
	args->tlb_entries = m->tlb_entries;
	n = min_t(u32, m->levels, WDDMSEG_MMU_MAX_LEVELS);
	for (l = 0; l < n; l++)
		args->level_bits[l] = m->level_bits[l];
	return 0;
}

int wddmseg_ioctl_query_segment(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	const struct wddmseg_adapter_desc *d = &to_wddmseg(drm)->desc;
	struct drm_wddmseg_query_segment *args = data;
	const struct wddmseg_segment_desc *s;
	struct wddmseg_mgr *mgr;
	u32 n;

	if (!wddmseg_all_zero(args->reserved, sizeof(args->reserved))) {
		drm_dbg(drm, "query_segment: reserved fields must be zero\n");
		return -EINVAL;
	}
	if (!args->segment_id || args->segment_id > d->segment_count) {
		drm_dbg(drm, "query_segment: unknown segment id %u (1..%u)\n",
			args->segment_id, d->segment_count);
		return -EINVAL;
	}
	s = &d->seg[args->segment_id - 1];
	n = min(args->bank_capacity, s->nb_banks);
	if (n && copy_to_user(u64_to_user_ptr(args->banks_ptr), s->bank_end,
			      n * sizeof(s->bank_end[0]))) {
		drm_dbg(drm, "query_segment: cannot write the bank table to 0x%llx\n",
			args->banks_ptr);
		return -EFAULT;
	}

	mgr = to_wddmseg(drm)->mgr[args->segment_id - 1];
	if (mgr) {
		args->usage_bytes = ttm_resource_manager_usage(&mgr->manager);
		args->pinned_bytes = (u64)atomic64_read(&mgr->pinned_pages) <<
				     PAGE_SHIFT;
		args->allocation_count = atomic64_read(&mgr->allocations);
		args->eviction_count = atomic64_read(&mgr->evictions);
	}
	args->flags = s->flags;
	args->base_address = s->base_address;
	args->cpu_translated_address = s->cpu_translated_address;
	args->size = s->size;
	args->commit_limit = s->commit_limit;
	args->nb_banks = s->nb_banks;
	return 0;
}
