/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: WDDM-style video memory segments as a DRM driver.
 */
#ifndef WDDMSEG_DRV_H
#define WDDMSEG_DRV_H

#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_mm.h>
#include <drm/ttm/ttm_bo_api.h>
#include <drm/ttm/ttm_bo_driver.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
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
 * struct wddmseg_mgr - TTM resource manager of one WDDM segment
 * @manager: the TTM manager; its size is the segment size in pages
 * @wdev: owning device
 * @segment_id: WDDM segment id (1-based)
 * @desc: the segment's descriptor
 * @lock: protects @mm and @committed
 * @mm: address space of the segment, in pages from the segment start
 * @commit_limit: pages that may be allocated at once (CommitLimit)
 * @committed: pages allocated now
 * @allocations: resources allocated now
 * @pinned_pages: pages of pinned allocations now in the segment
 * @evictions: allocations evicted out of the segment so far
 *
 * Memory segments and aperture segments share this manager: both are a
 * linear range of pages; an aperture's pages are bound to system pages in
 * the device's aperture page table (see wddmseg_ttm.c).
 */
struct wddmseg_mgr {
	struct ttm_resource_manager manager;
	struct wddmseg_device *wdev;
	u32 segment_id;
	const struct wddmseg_segment_desc *desc;
	spinlock_t lock;	/* protects mm and committed */
	struct drm_mm mm;
	u64 commit_limit;
	u64 committed;
	atomic64_t allocations;
	atomic64_t pinned_pages;
	atomic64_t evictions;
};

/**
 * struct wddmseg_file - per-open-file (per-process) state
 * @refcount: held by the file and by every allocation it created
 * @resident: bytes of this file's allocations resident in each budget
 *	group (WDDMSEG_BUDGET_LOCAL, WDDMSEG_BUDGET_NON_LOCAL)
 */
struct wddmseg_file {
	struct kref refcount;
	atomic64_t resident[2];
};

/**
 * struct wddmseg_device - driver instance
 * @drm: DRM device, first so that the managed allocation frees us
 * @mmio: BAR0 registers
 * @desc: the validated segment table, immutable after probe
 * @bdev: TTM device; one memory type per segment
 * @mgr: resource manager of each segment, indexed by segment id - 1
 * @mem_type: TTM memory type of each segment, indexed by segment id - 1
 * @vram_bar: write-combined mapping of BAR2 (CPU-visible VRAM)
 * @window: mapping of BAR4, the movable VRAM access window
 * @window_lock: serializes users of @window and @window_base
 * @window_base: VRAM offset @window currently shows
 * @apt_lock: serializes select-then-access register sequences (APT, PEEK)
 * @peek_addr: GPU address the debugfs peek file reads
 * @ttm_ready: the TTM device and its managers are initialized
 */
struct wddmseg_device {
	struct drm_device drm;
	void __iomem *mmio;
	struct wddmseg_adapter_desc desc;

	struct ttm_device bdev;
	struct wddmseg_mgr *mgr[WDDMSEG_MAX_SEGMENTS];
	u32 mem_type[WDDMSEG_MAX_SEGMENTS];
	void __iomem *vram_bar;
	void __iomem *window;
	struct mutex window_lock;	/* protects window_base and the window */
	u64 window_base;
	struct mutex apt_lock;		/* select + access of APT and PEEK */
	u64 peek_addr;
	bool ttm_ready;
};

static inline struct wddmseg_device *to_wddmseg(struct drm_device *drm)
{
	return container_of(drm, struct wddmseg_device, drm);
}

static inline struct wddmseg_device *bdev_to_wddmseg(struct ttm_device *bdev)
{
	return container_of(bdev, struct wddmseg_device, bdev);
}

/**
 * struct wddmseg_residency_event - a residency notification being built
 * @base: DRM pending event, reserved on the creating file
 * @event: what userspace reads
 */
struct wddmseg_residency_event {
	struct drm_pending_event base;
	struct drm_wddmseg_event_residency event;
};

/**
 * struct wddmseg_bo - an allocation: a GEM object backed by a TTM BO
 * @tbo: the TTM buffer object (its base is the GEM object)
 * @flags: DXGK_ALLOCATIONINFOFLAGS value
 * @supported: segment set the allocation may live in
 * @eviction: segment set it is evicted to before system memory
 * @preferred: segment ids in order of preference, 0-terminated
 * @bank_hint: 0, or 1 + bank index of @preferred[0]
 * @userptr: ExistingSysMem: user address of the backing store, else 0
 * @owner: usage accounting of the file that created the allocation
 * @group: budget group the current placement is charged to, or -1
 * @places: storage for @placement
 * @placement: where validation may put the allocation
 * @evict_places: storage for the placement of an eviction
 * @residency_event: pending notification for the creating file
 *	(ExplicitResidencyNotification), protected by the DRM event_lock
 * @residency_seq: notifications sent so far
 * @evicting: an explicit eviction (GEM_EVICT) is moving the allocation
 * @evictions: times evicted
 * @moves: times its content moved
 */
struct wddmseg_bo {
	struct ttm_buffer_object tbo;
	u32 flags;
	u32 supported;
	u32 eviction;
	u8 preferred[WDDMSEG_MAX_PREFERRED + 1];
	u32 bank_hint;
	u64 userptr;
	struct wddmseg_file *owner;
	int group;
	struct ttm_place places[WDDMSEG_MAX_SEGMENTS + 2];
	struct ttm_placement placement;
	struct ttm_place evict_places[WDDMSEG_MAX_SEGMENTS + 1];
	struct wddmseg_residency_event *residency_event;
	u64 residency_seq;
	bool evicting;
	atomic64_t evictions;
	atomic64_t moves;
};

static inline struct wddmseg_bo *to_wddmseg_bo(struct ttm_buffer_object *tbo)
{
	return container_of(tbo, struct wddmseg_bo, tbo);
}

static inline struct wddmseg_bo *gem_to_wddmseg_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct wddmseg_bo, tbo.base);
}

/* wddmseg_desc.c */
void wddmseg_desc_read(void __iomem *mmio, struct wddmseg_adapter_desc *desc);
int wddmseg_desc_validate(const struct wddmseg_adapter_desc *desc,
			  struct wddmseg_violation *v);
bool wddmseg_segment_is_aperture(const struct wddmseg_segment_desc *seg);

/* wddmseg_alloc.c */
int wddmseg_alloc_validate(const struct wddmseg_adapter_desc *desc,
			   const struct drm_wddmseg_gem_create *args,
			   u64 max_size, struct wddmseg_violation *v);

/* wddmseg_mgr.c */
int wddmseg_mgr_init(struct wddmseg_device *wdev, u32 segment_id);
void wddmseg_mgr_fini(struct wddmseg_device *wdev, u32 segment_id);
u32 wddmseg_mem_type_segment(struct wddmseg_device *wdev, u32 mem_type);

/* wddmseg_ttm.c */
int wddmseg_ttm_init(struct wddmseg_device *wdev);
void wddmseg_ttm_fini(struct wddmseg_device *wdev);
bool wddmseg_segment_cpu_visible(struct wddmseg_device *wdev, u32 segment_id);
int wddmseg_budget_group(const struct wddmseg_segment_desc *seg);

/* wddmseg_bo.c */
extern const struct drm_gem_object_funcs wddmseg_gem_funcs;
void wddmseg_bo_placement(struct wddmseg_bo *bo, bool cpu_access);
void wddmseg_bo_evict_placement(struct wddmseg_bo *bo, u32 from_segment,
				struct ttm_placement *placement);
void wddmseg_bo_moved(struct wddmseg_bo *bo, struct ttm_resource *old,
		      struct ttm_resource *new, bool evict);
int wddmseg_open(struct drm_device *drm, struct drm_file *file);
void wddmseg_postclose(struct drm_device *drm, struct drm_file *file);
int wddmseg_dumb_create(struct drm_file *file, struct drm_device *drm,
			struct drm_mode_create_dumb *args);
int wddmseg_ioctl_gem_create(struct drm_device *drm, void *data,
			     struct drm_file *file);
int wddmseg_ioctl_gem_mmap_offset(struct drm_device *drm, void *data,
				  struct drm_file *file);
int wddmseg_ioctl_gem_info(struct drm_device *drm, void *data,
			   struct drm_file *file);
int wddmseg_ioctl_gem_make_resident(struct drm_device *drm, void *data,
				    struct drm_file *file);
int wddmseg_ioctl_gem_evict(struct drm_device *drm, void *data,
			    struct drm_file *file);
int wddmseg_ioctl_gem_wait(struct drm_device *drm, void *data,
			   struct drm_file *file);
int wddmseg_ioctl_query_budget(struct drm_device *drm, void *data,
			       struct drm_file *file);

/* wddmseg_ioctl.c */
int wddmseg_ioctl_query_adapter(struct drm_device *drm, void *data,
				struct drm_file *file);
int wddmseg_ioctl_query_segment(struct drm_device *drm, void *data,
				struct drm_file *file);

/* wddmseg_sysfs.c */
int wddmseg_sysfs_init(struct wddmseg_device *wdev);

/* wddmseg_debugfs.c */
void wddmseg_debugfs_init(struct drm_minor *minor);

#endif /* WDDMSEG_DRV_H */
