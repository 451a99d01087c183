/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: WDDM-style video memory segments as a DRM driver.
 */
#ifndef WDDMSEG_DRV_H
#define WDDMSEG_DRV_H

#include <linux/types.h>

#include <drm/drm_device.h>
#include <drm/wddmseg_drm.h>

#define WDDMSEG_DRIVER_NAME	"wddmseg"
#define WDDMSEG_DRIVER_DESC	"WDDM-style video memory segments"

struct drm_file;
struct drm_minor;

/**
 * struct wddmseg_segment_desc - one DXGK_SEGMENTDESCRIPTOR as read
 * @base_address: BaseAddress, the segment in the GPU address space
 * @cpu_translated_address: CpuTranslatedAddress, bus address or 0
 * @size: Size in bytes
 * @commit_limit: CommitLimit in bytes
 * @flags: DXGK_SEGMENTFLAGS.Value
 * @nb_banks: NbOfBanks exactly as reported (may exceed @bank_end)
 * @bank_end: pBankRangeTable; the first min(@nb_banks, WDDMSEG_MAX_BANKS)
 *	entries are valid
 */
struct wddmseg_segment_desc {
	u64 base_address;
	u64 cpu_translated_address;
	u64 size;
	u64 commit_limit;
	u32 flags;
	u32 nb_banks;
	u64 bank_end[WDDMSEG_MAX_BANKS];
};

/**
 * struct wddmseg_adapter_desc - everything the device reports about memory
 * @hw_version: VERSION register
 * @vidmm_caps: DXGK_VIDMMCAPS.Value
 * @paging_node: DXGK_VIDMMCAPS.PagingNode
 * @num_engines: engines (WDDM nodes) present
 * @segment_count: descriptors in the table, exactly as reported
 * @vram_size: bytes of device VRAM
 * @bar_start: bus address of the CPU-visible VRAM window (BAR2)
 * @bar_size: size of that window
 * @seg: descriptors; the first min(@segment_count, WDDMSEG_MAX_SEGMENTS)
 *	entries are valid, entry i is segment id i + 1
 *
 * Filled by wddmseg_desc_read() and checked by wddmseg_desc_validate(), a
 * pure function so that it can be tested without a device.
 */
struct wddmseg_adapter_desc {
	u32 hw_version;
	u32 vidmm_caps;
	u32 paging_node;
	u32 num_engines;
	u32 segment_count;
	u64 vram_size;
	u64 bar_start;
	u64 bar_size;
	struct wddmseg_segment_desc seg[WDDMSEG_MAX_SEGMENTS];
};

/**
 * struct wddmseg_violation - the first broken rule found by validation
 * @segment_id: offending segment, or 0 for an adapter-wide rule
 * @rule: short stable name of the rule, as listed in the documentation
 * @detail: human-readable explanation with the offending values
 */
struct wddmseg_violation {
	u32 segment_id;
	const char *rule;
	char detail[160];
};

/**
 * struct wddmseg_device - driver instance
 * @drm: DRM device, first so that the managed allocation frees us
 * @mmio: BAR0 registers
 * @desc: the validated segment table, immutable after probe
 */
struct wddmseg_device {
	struct drm_device drm;
	void __iomem *mmio;
	struct wddmseg_adapter_desc desc;
};

static inline struct wddmseg_device *to_wddmseg(struct drm_device *drm)
{
	return container_of(drm, struct wddmseg_device, drm);
}

/* wddmseg_desc.c */
void wddmseg_desc_read(void __iomem *mmio, struct wddmseg_adapter_desc *desc);
int wddmseg_desc_validate(const struct wddmseg_adapter_desc *desc,
			  struct wddmseg_violation *v);
bool wddmseg_segment_is_aperture(const struct wddmseg_segment_desc *seg);

/* wddmseg_ioctl.c */
int wddmseg_ioctl_query_adapter(struct drm_device *drm, void *data,
				struct drm_file *file);
int wddmseg_ioctl_query_segment(struct drm_device *drm, void *data,
				struct drm_file *file);

/* wddmseg_debugfs.c */
void wddmseg_debugfs_init(struct drm_minor *minor);

#endif /* WDDMSEG_DRV_H */
