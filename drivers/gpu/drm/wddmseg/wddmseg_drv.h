/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: WDDM-style video memory segments as a DRM driver.
 */
#ifndef WDDMSEG_DRV_H
#define WDDMSEG_DRV_H

#include <linux/dma-fence.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pm.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_encoder.h>
#include <drm/drm_file.h>
#include <drm/drm_plane.h>
#include <drm/drm_mm.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_tt.h>
#include <drm/wddmseg_drm.h>

#include "wddmseg_compat.h"

#define WDDMSEG_DRIVER_NAME	"wddmseg"
#define WDDMSEG_DRIVER_DESC	"WDDM-style video memory segments"
/*
 * Release of the driver, in MODULE_VERSION and the one version of the
 * package: the top-level Makefile reads it from here for dkms.conf
 * (PACKAGE_VERSION, `make dkms-source`). Not the DRM interface version
 * (drm_driver.major/minor) nor WDDMSEG_UAPI_VERSION.
 */
#define WDDMSEG_DRIVER_VERSION	"1.0.0"

struct drm_display_mode;
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
 * @isolated: a translating IOMMU isolates the device's DMA (set by the
 *	probe before validation; IoMmuSecureModeRequired needs it)
 * @caps: the subset of @vidmm_caps the driver honours (what QUERY_ADAPTER
 *	reports), set at probe
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
	bool isolated;
	u32 caps;
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
 * @lock: protects @mm, @committed and @zeroed
 * @mm: address space of the segment, in pages from the segment start
 * @commit_limit: pages that may be allocated at once (CommitLimit)
 * @committed: pages allocated now
 * @allocations: resources allocated now
 * @pinned_pages: pages of pinned allocations now in the segment
 * @evictions: allocations evicted out of the segment so far
 * @blocks: memory segments of a device that takes VRAM page lists: an
 *	allocation that needs no contiguous memory may be made of several
 *	ranges (DOC: VRAM made of blocks)
 * @scattered: placements that needed more than one range, so far
 * @zeroed: memory segments only (NULL for apertures): one bit per page of
 *	the segment, set while the page is free and known to hold zeroes
 *	once the paging work queued so far has run (a wipe on release, the
 *	clear at probe); cleared when the page is allocated. Protected by
 *	@lock.
 * @fills_skipped: placements that needed no Fill because all of their
 *	pages were known to be zero
 * @wipes_skipped: releases that needed no wipe: the allocation held the
 *	zeroes it was given and was never written in place
 * @transfer_out_bytes: bytes that moves of allocations out of the segment
 *	copied out of it (Transfer, by the engine or the CPU)
 * @discard_bytes: bytes that moves out of the segment gave up without a
 *	copy (DiscardContent): GEM_EVICT with DISCARD, and evictions of
 *	PermanentSysMem allocations, whose content is their permanent copy
 *
 * Memory segments and aperture segments share this manager: both are a
 * linear range of pages; an aperture's pages are bound to system pages in
 * the device's aperture page table (see wddmseg_vram.c, wddmseg_migrate.c).
 */
struct wddmseg_mgr {
	struct ttm_resource_manager manager;
	struct wddmseg_device *wdev;
	u32 segment_id;
	const struct wddmseg_segment_desc *desc;
	spinlock_t lock;	/* protects mm, committed and zeroed */
	struct drm_mm mm;
	u64 commit_limit;
	u64 committed;
	atomic64_t allocations;
	atomic64_t pinned_pages;
	atomic64_t evictions;
	bool blocks;
	atomic64_t scattered;
	unsigned long *zeroed;
	atomic64_t fills_skipped;
	atomic64_t wipes_skipped;
	atomic64_t transfer_out_bytes;
	atomic64_t discard_bytes;
};

/**
 * struct wddmseg_file - per-open-file (per-process) state
 * @refcount: held by the file and by every allocation it created
 * @resident: bytes of this file's allocations resident in each budget
 *	group (WDDMSEG_BUDGET_LOCAL, WDDMSEG_BUDGET_NON_LOCAL)
 * @engine_ns: copy-engine time of this file's completed blits, in ns
 *	(fdinfo drm-engine-copy)
 * @client_id: fdinfo drm-client-id where the DRM core has none (6.1)
 */
struct wddmseg_file {
	struct kref refcount;
	atomic64_t resident[2];
	atomic64_t engine_ns;
	u64 client_id;
};

/**
 * struct wddmseg_engine - the copy engine (paging node)
 * @wdev: owning device
 * @mmio: BAR0
 * @lock: serializes submissions (reserve, emit, commit) and recovery
 * @ready: the engine runs; otherwise moves fall back to the CPU
 * @suspended: stopped by wddmseg_engine_suspend(), until resumed
 * @ring: command ring (coherent DMA memory)
 * @ring_dma: its DMA address
 * @ring_tail: next free byte offset (what the doorbell says)
 * @ring_free: offset up to which completed jobs freed the ring
 * @arena: page-list arena (coherent DMA memory)
 * @arena_dma: its DMA address
 * @arena_tail: next free byte offset
 * @arena_free: offset up to which completed jobs freed the arena
 * @writeback: slot the device writes the last completed seqno to
 * @writeback_dma: its DMA address
 * @dummy: page unmapped aperture entries point at
 * @dummy_dma: its DMA address
 * @fence_context: one dma_fence timeline for all paging work
 * @seqno: last seqno handed out
 * @fence_lock: protects @pending, @ring_free, @arena_free; fence lock
 * @pending: submitted fences, oldest first
 * @fence_irq: FENCE is unmasked in IRQ_MASK (only while a fence has
 *	signalling enabled or @irq_waiters is not 0); under @fence_lock
 * @pm_busy: @pending is not empty and holds a runtime PM reference on
 *	the device (no runtime suspend with work in flight); under
 *	@fence_lock
 * @irq_waiters: sleepers on @space_wq, which need the interrupt; under
 *	@fence_lock
 * @space_wq: woken when jobs complete
 * @watchdog: detects hangs and faults
 * @resets: engine resets so far
 * @inject_again: a test hook: INJECT bits to write right after the next
 *	reset (debugfs "fault-replay"), or 0; under @lock
 */
struct wddmseg_engine {
	struct wddmseg_device *wdev;
	void __iomem *mmio;
	struct mutex lock;	/* submissions and recovery */
	bool ready;
	bool suspended;
	__le64 *ring;
	dma_addr_t ring_dma;
	u32 ring_tail;
	u32 ring_free;
	u8 *arena;
	dma_addr_t arena_dma;
	u32 arena_tail;
	u32 arena_free;
	__le64 *writeback;
	dma_addr_t writeback_dma;
	void *dummy;
	dma_addr_t dummy_dma;
	u64 fence_context;
	u64 seqno;
	spinlock_t fence_lock;	/* pending list, free offsets, fences */
	struct list_head pending;
	bool fence_irq;
	bool pm_busy;
	u32 irq_waiters;
	wait_queue_head_t space_wq;
	struct delayed_work watchdog;
	u64 resets;
	u32 inject_again;
};

/**
 * struct wddmseg_job - room reserved in the ring and the arena
 * @ring_start: ring offset of the first command
 * @ring_pos: where the next command goes
 * @ring_limit: end of the reserved commands (the FENCE goes after)
 * @arena: CPU address of the reserved page-list bytes
 * @arena_dma: their DMA address
 * @zero_segment: for a job that zeroes VRAM (wipe, clear, discard), its
 *	segment; 0 otherwise
 * @zero_addr: byte offset of the zeroed range in @zero_segment
 * @zero_len: its length in bytes
 *
 * VRAM a zeroing job was queued for counts as zero from then on (a new
 * placement there skips its Fill): if the engine fails the job, the CPU
 * zeroes the range before the job's fence signals
 * (wddmseg_engine_fail_pending()).
 */
struct wddmseg_job {
	u32 ring_start;
	u32 ring_pos;
	u32 ring_limit;
	u8 *arena;
	dma_addr_t arena_dma;
	u32 zero_segment;
	u64 zero_addr;
	u64 zero_len;
};

/**
 * struct wddmseg_loc - a memory location of a paging command
 * @segment_id: segment, or 0 for system memory through a page list
 * @vram_list: @segment_id's VRAM through a page list (device 1.6)
 * @addr: byte offset in the segment, or DMA address of the page list
 * @offset: with a page list, byte offset into the listed memory
 */
struct wddmseg_loc {
	u32 segment_id;
	bool vram_list;
	u64 addr;
	u64 offset;
};

/**
 * struct wddmseg_kms - the display controller (device 1.3): one scanout
 * @present: the device has a usable display and the pipeline below exists
 * @gone: the scanout was shut down for unbind: no more register access
 * @max_width: SCANOUT_MAX_WIDTH
 * @max_height: SCANOUT_MAX_HEIGHT
 * @formats: SCANOUT_FORMATS, restricted to the formats the driver knows
 * @features: SCANOUT_FEATURES the driver uses (cursor, gamma, CRC)
 * @cursor_w: CURSOR_MAX width, 0 without a cursor
 * @cursor_h: CURSOR_MAX height, 0 without a cursor
 * @crc_on: CRTC CRCs are wanted (CRC_CTRL.ENABLE); under @lock
 * @crc_frame: CRC_FRAME of the last CRC reported; under @lock
 * @crtc: the scanout
 * @primary: its primary plane
 * @cursor: its cursor plane, with FEAT_CURSOR
 * @encoder: virtual encoder
 * @connector: virtual connector, always connected
 * @lock: protects @event, @crc_on, @crc_frame and the COMMIT write
 * @event: flip event to send once the device latched the last commit
 */
struct wddmseg_kms {
	bool present;
	bool gone;
	u32 max_width;
	u32 max_height;
	u32 formats;
	u32 features;
	u32 cursor_w;
	u32 cursor_h;
	bool crc_on;
	u32 crc_frame;
	struct drm_crtc crtc;
	struct drm_plane primary;
	struct drm_plane cursor;
	struct drm_encoder encoder;
	struct drm_connector connector;
	spinlock_t lock;	/* event, COMMIT */
	struct drm_pending_vblank_event *event;
};

/**
 * enum wddmseg_pm_phase - the timed phases of a suspend/resume cycle
 * @WDDMSEG_PM_PREPARE: the PM notifier's early eviction (before the freezer)
 * @WDDMSEG_PM_SUSPEND: the suspend/freeze callback: display, what changed
 *	since the early eviction, pinned content, the engine
 * @WDDMSEG_PM_RESUME: the resume/thaw/restore callback up to the display:
 *	engine, aperture page tables, pinned content
 * @WDDMSEG_PM_RESTORE: bringing the evicted allocations back
 * @WDDMSEG_PM_PHASES: how many there are
 */
enum wddmseg_pm_phase {
	WDDMSEG_PM_PREPARE,
	WDDMSEG_PM_SUSPEND,
	WDDMSEG_PM_RESUME,
	WDDMSEG_PM_RESTORE,
	WDDMSEG_PM_PHASES,
};

/**
 * struct wddmseg_pm - power management (wddmseg_pm.c)
 * @nb: PM notifier: the early eviction, and the restore after an aborted
 *	suspend
 * @lock: serializes the phases; protects everything below
 * @moved: a &struct wddmseg_pm_entry for each allocation the current
 *	cycle moved out of a segment or whose pinned content it saved
 * @hibernate: the current cycle is a hibernation (freeze), not a standby
 * @hib: the device's PM_HIB register at probe (PERSISTENT: VRAM survives a
 *	hibernation's power cycle where the flags preserve it), 0 before 1.8
 * @hib_partial: PM_HIB_PARTIAL: bytes at the start of a
 *	PartiallyPreservedDuringHibernate segment that survive it
 * @evicted: bytes moved out of (or saved from) each segment by the last
 *	suspend, indexed by segment id - 1
 * @restored: bytes brought back into each segment by the resume after it
 * @kept: bytes left in place in each segment by the last suspend: its
 *	flags preserve them
 * @lost: bytes of each segment that the last hibernation left in place
 *	and the device's store did not keep (rule pm-hibernate-vram-lost)
 * @phase_us: how long each &enum wddmseg_pm_phase of the last cycle took
 * @cycles: suspend/resume cycles completed
 * @runtime_cycles: runtime suspend/resume cycles completed
 * @sleep_ref: the notifier holds a runtime PM reference across a system
 *	sleep (taken at its PREPARE, dropped at its POST)
 */
struct wddmseg_pm {
	struct notifier_block nb;
	struct mutex lock;	/* phases, moved, counters */
	struct list_head moved;
	bool hibernate;
	u32 hib;
	u64 hib_partial;
	u64 evicted[WDDMSEG_MAX_SEGMENTS];
	u64 restored[WDDMSEG_MAX_SEGMENTS];
	u64 kept[WDDMSEG_MAX_SEGMENTS];
	u64 lost[WDDMSEG_MAX_SEGMENTS];
	u64 phase_us[WDDMSEG_PM_PHASES];
	u64 cycles;
	u64 runtime_cycles;
	bool sleep_ref;
};

/* Kinds of move with their own engine-or-CPU threshold (cpu_move_max_kb). */
enum wddmseg_move_path {
	WDDMSEG_MOVE_SYSTEM,	/* VRAM <-> system memory */
	WDDMSEG_MOVE_APERTURE,	/* an aperture on either side */
	WDDMSEG_MOVE_VRAM,	/* VRAM <-> VRAM */
	WDDMSEG_MOVE_PATHS,
};

/**
 * struct wddmseg_knobs - test and tuning knobs of one device
 *
 * Files in the DRM device's debugfs directory, wddmseg/ (DOC: Test knobs,
 * wddmseg_debugfs.c), for tests and ``make bench``; nothing a user has
 * to set. Written there at any time, so read with READ_ONCE().
 *
 * @use_engine: move with the copy engine; false: the CPU copies
 * @cpu_move_max_kb: largest move in KiB the CPU copies although the
 *	engine runs, when the allocation is idle, per &enum wddmseg_move_path
 * @fence_spin_us: microseconds a waiter polls a paging fence's writeback
 *	before sleeping until the interrupt; 0: sleep at once
 * @vram_blocks: allocations that need no contiguous VRAM may be made of
 *	several ranges; false: one range each
 */
struct wddmseg_knobs {
	bool use_engine;
	u32 cpu_move_max_kb[WDDMSEG_MOVE_PATHS];
	u32 fence_spin_us;
	bool vram_blocks;
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
 * @window_base: VRAM offset @window currently shows (U64_MAX: not known,
 *	after a resume)
 * @apt_lock: serializes select-then-access register sequences (APT, PEEK)
 * @peek_addr: GPU address the debugfs peek file reads
 * @knobs: test and tuning knobs (debugfs)
 * @ttm_ready: the TTM device and its managers are initialized
 * @engine: the copy engine
 * @kms: the display controller
 * @irq_lock: protects @irq_mask and the IRQ_MASK register
 * @irq_mask: what IRQ_MASK holds: the engine's and the display's bits
 * @kept_lock: protects @kept_list, @kept_pages and every &wddmseg_bo.kept
 * @kept_list: system pages kept by allocations in VRAM, oldest first
 * @kept_pages: how many pages @kept_list holds
 * @kept_shrinker: gives them back under memory pressure (allocated:
 *	wddmseg_shrinker_create())
 * @access_lock: serializes users of @access_bounce and @access_fence
 * @access_bounce: DMA-coherent bounce buffer of WDDMSEG_ACCESS_BOUNCE bytes
 *	for ReadPhysical/WritePhysical (TTM's access_memory), or NULL
 * @access_bounce_dma: its DMA address
 * @access_fence: the last ReadPhysical/WritePhysical job whose wait was
 *	interrupted; the bounce buffer is not reused before it signals
 * @seal_nonce: last nonce of an encrypted eviction (wddmseg_protect.c)
 * @pm: power management state
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
	struct wddmseg_knobs knobs;
	bool ttm_ready;
	struct wddmseg_engine engine;
	struct wddmseg_kms kms;
	spinlock_t irq_lock;	/* irq_mask, IRQ_MASK */
	u32 irq_mask;
	spinlock_t kept_lock;		/* kept_list, kept_pages, bo->kept */
	struct list_head kept_list;
	unsigned long kept_pages;
	struct shrinker *kept_shrinker;
	struct mutex access_lock;	/* access_bounce, access_fence */
	void *access_bounce;
	dma_addr_t access_bounce_dma;
	struct dma_fence *access_fence;
	atomic64_t seal_nonce;
	struct wddmseg_pm pm;
};

/* The device's page (aperture entries, page lists): 4 KiB. */
#define WDDMSEG_HW_PAGE_SIZE	BIT(WDDMSEG_HW_PAGE_SHIFT)

/* Bytes one ReadPhysical/WritePhysical job of access_memory moves at most. */
#define WDDMSEG_ACCESS_BOUNCE	SZ_16K

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

struct wddmseg_kept;

/**
 * struct wddmseg_bo - an allocation: a GEM object backed by a TTM BO
 * @tbo: the TTM buffer object (its base is the GEM object)
 * @flags: DXGK_ALLOCATIONINFOFLAGS value
 * @supported: segment set the allocation may live in
 * @eviction: segment set it is evicted to before system memory
 * @preferred: segment ids in order of preference, 0-terminated
 * @bank_hint: 0, or 1 + bank index of @preferred[0]
 * @userptr: ExistingSysMem: user address of the backing store, else 0
 * @user_pages: ExistingSysMem: its pages, pinned for the allocation's life
 * @owner: usage accounting of the file that created the allocation
 * @group: budget group the current placement is charged to, or -1
 * @places: storage for @placement
 * @placement: where validation may put the allocation
 * @evict_places: storage for the placement of an eviction
 * @residency_event: pending notification for the creating file
 *	(ExplicitResidencyNotification), protected by the DRM event_lock
 * @residency_seq: notifications sent so far
 * @residency_pending: the placement changed since the last notification
 *	was committed (wddmseg_bo_residency_commit()); under the reservation
 * @residency_segment: where it changed to
 * @residency_offset: the offset there
 * @evicting: an explicit eviction (GEM_EVICT) is moving the allocation
 * @discarding: that eviction has WDDMSEG_EVICT_DISCARD: DiscardContent
 *	instead of a Transfer, the content is dropped
 * @evictions: times evicted
 * @moves: times its content moved
 * @kept: system pages kept from its last stay in system memory or an
 *	aperture while it is in VRAM, for the next eviction (wddmseg_kept.c);
 *	protected by &wddmseg_device.kept_lock
 * @sealed: HardwareProtected: its system pages hold its content encrypted
 *	by the device (TRANSFER_ENCRYPTED); the way back decrypts. Changed
 *	under the reservation
 * @seal_nonce: the nonce of that encryption
 * @exposed: mapped by the CPU (mmap, vmap), exported, or the destination
 *	of a blit: its VRAM may have been written in place. Never cleared
 * @contiguous: mapped by the kernel (vmap) once: every VRAM placement
 *	asks for one range from then on. Set under the reservation
 * @perm_slot: PermanentSysMem: the record of @kept, allocated with the
 *	allocation so that keeping its permanent copy cannot fail; NULL
 *	while in use as @kept
 * @perm_cpu_dirty: PermanentSysMem in a memory segment: the CPU may have
 *	written the permanent copy since the segment's copy was last
 *	brought up to date from it (DOC: PermanentSysMem); under the
 *	reservation
 */
struct wddmseg_bo {
	struct ttm_buffer_object tbo;
	u32 flags;
	u32 supported;
	u32 eviction;
	u8 preferred[WDDMSEG_MAX_PREFERRED + 1];
	u32 bank_hint;
	u64 userptr;
	struct page **user_pages;
	struct wddmseg_file *owner;
	int group;
	struct ttm_place places[WDDMSEG_MAX_SEGMENTS + 2];
	struct ttm_placement placement;
	struct ttm_place evict_places[WDDMSEG_MAX_SEGMENTS + 1];
	struct wddmseg_residency_event *residency_event;
	u64 residency_seq;
	bool residency_pending;
	u32 residency_segment;
	u64 residency_offset;
	bool evicting;
	bool discarding;
	atomic64_t evictions;
	atomic64_t moves;
	struct wddmseg_kept *kept;
	bool sealed;
	u64 seal_nonce;
	bool exposed;
	bool contiguous;
	struct wddmseg_kept *perm_slot;
	bool perm_cpu_dirty;
};

static inline struct wddmseg_bo *to_wddmseg_bo(struct ttm_buffer_object *tbo)
{
	return container_of(tbo, struct wddmseg_bo, tbo);
}

static inline struct wddmseg_bo *gem_to_wddmseg_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct wddmseg_bo, tbo.base);
}

#define WDDMSEG_ALLOC_ANY_PROTECTED	(WDDMSEG_ALLOC_PROTECTED | \
					 WDDMSEG_ALLOC_HARDWARE_PROTECTED)

/* PermanentSysMem: a system-memory copy for life (wddmseg_kept.c). */
static inline bool wddmseg_bo_permanent(const struct wddmseg_bo *bo)
{
	return bo->flags & WDDMSEG_ALLOC_PERMANENT_SYSMEM;
}

/* Protected or HardwareProtected: see wddmseg_protect.c. */
static inline bool wddmseg_bo_protected(const struct wddmseg_bo *bo)
{
	return bo->flags & WDDMSEG_ALLOC_ANY_PROTECTED;
}

/* HardwareProtected: its content stays in VprSupported segments. */
static inline bool wddmseg_bo_hw_protected(const struct wddmseg_bo *bo)
{
	return bo->flags & WDDMSEG_ALLOC_HARDWARE_PROTECTED;
}

/**
 * struct wddmseg_tt - system pages of an allocation
 * @ttm: the TTM page array (and DMA addresses)
 * @user_pages: ExistingSysMem: the user pages pinned at creation, else NULL
 * @bo: the allocation it was created for
 * @keep: set by the move callback only around the TTM cleanup that frees
 *	this ttm_tt because the allocation moved into VRAM: unpopulate keeps
 *	the pages (and their arrays) for @bo
 * @keep_fence: the copy that still reads the pages while they are kept,
 *	or NULL; nobody frees them before it signals
 */
struct wddmseg_tt {
	struct ttm_tt ttm;
	struct page **user_pages;
	struct wddmseg_bo *bo;
	bool keep;
	struct dma_fence *keep_fence;
};

static inline struct wddmseg_tt *to_wddmseg_tt(struct ttm_tt *tt)
{
	return container_of(tt, struct wddmseg_tt, ttm);
}

/* wddmseg_drv.c */
void wddmseg_irq_mask_update(struct wddmseg_device *wdev, u32 clear, u32 set);

/* wddmseg_desc.c */
void wddmseg_desc_read(void __iomem *mmio, struct wddmseg_adapter_desc *desc);
int wddmseg_desc_validate(const struct wddmseg_adapter_desc *desc,
			  struct wddmseg_violation *v);
bool wddmseg_segment_is_aperture(const struct wddmseg_segment_desc *seg);
bool wddmseg_segment_cpu_visible(struct wddmseg_device *wdev, u32 segment_id);
int wddmseg_segment_budget_group(const struct wddmseg_segment_desc *seg);
bool wddmseg_segment_seals(struct wddmseg_device *wdev, u32 segment_id);
u64 wddmseg_bank_end(const struct wddmseg_segment_desc *seg, u32 j);
u32 wddmseg_caps_honoured(u32 caps, bool isolated);

/* wddmseg_alloc_rules.c */
int wddmseg_alloc_validate(const struct wddmseg_adapter_desc *desc,
			   const struct drm_wddmseg_gem_create *args,
			   u64 max_size, struct wddmseg_violation *v);
u64 wddmseg_evict_through_max(const struct wddmseg_segment_desc *seg);

/* wddmseg_paging.c */
u32 wddmseg_encode_transfer(u64 *cmd, u64 size, const struct wddmseg_loc *src,
			    const struct wddmseg_loc *dst);
u32 wddmseg_encode_fill(u64 *cmd, u64 size, u32 pattern,
			const struct wddmseg_loc *dst);
u32 wddmseg_encode_discard(u64 *cmd, u64 size, const struct wddmseg_loc *loc);
u32 wddmseg_encode_read_physical(u64 *cmd, u64 size, u64 gpu_addr,
				 u64 dma_addr);
u32 wddmseg_encode_write_physical(u64 *cmd, u64 size, u64 gpu_addr,
				  u64 dma_addr);
u32 wddmseg_encode_flush_aperture(u64 *cmd, u32 segment_id, u64 first_page,
				  u64 count);
u32 wddmseg_encode_map_aperture(u64 *cmd, u32 segment_id, u64 flags,
				u64 first_page, u64 count, u64 list);
u32 wddmseg_encode_unmap_aperture(u64 *cmd, u32 segment_id, u64 first_page,
				  u64 count, u64 dummy);
u32 wddmseg_encode_transfer_encrypted(u64 *cmd, u64 size,
				      const struct wddmseg_loc *src,
				      const struct wddmseg_loc *dst, u32 mode,
				      u64 nonce, u64 stream_offset);
u32 wddmseg_encode_fence(u64 *cmd, u64 seqno, u64 writeback, u32 flags);
u32 wddmseg_encode_nop(u64 *cmd, u32 qwords);

/* wddmseg_engine.c */
int wddmseg_engine_init(struct wddmseg_device *wdev, struct wddmseg_engine *eng);
void wddmseg_engine_fini(struct wddmseg_engine *eng);
int wddmseg_engine_reserve(struct wddmseg_engine *eng, u32 qwords,
			   u32 arena_bytes, struct wddmseg_job *job);
void wddmseg_engine_emit(struct wddmseg_engine *eng, struct wddmseg_job *job,
			 const u64 *cmd, u32 qwords);
struct dma_fence *wddmseg_engine_commit(struct wddmseg_engine *eng,
					struct wddmseg_job *job);
bool wddmseg_engine_idle(struct wddmseg_engine *eng, unsigned long timeout);
int wddmseg_engine_suspend(struct wddmseg_engine *eng);
int wddmseg_engine_resume(struct wddmseg_engine *eng);
void wddmseg_engine_inject(struct wddmseg_engine *eng, u32 what, bool again);

/* wddmseg_mgr.c */
int wddmseg_mgr_init(struct wddmseg_device *wdev, u32 segment_id);
void wddmseg_mgr_fini(struct wddmseg_device *wdev, u32 segment_id);
u32 wddmseg_mem_type_segment(struct wddmseg_device *wdev, u32 mem_type);
u32 wddmseg_res_segment(struct wddmseg_device *wdev,
			const struct ttm_resource *res);
struct wddmseg_mgr *wddmseg_mgr_res(struct wddmseg_device *wdev,
				    const struct ttm_resource *res);
u64 wddmseg_mgr_res_pages(struct ttm_resource *res);
struct ttm_resource *wddmseg_mgr_node_res(struct drm_mm_node *node);
bool wddmseg_mgr_node_is_first(const struct drm_mm_node *node);
bool wddmseg_mgr_res_contiguous(const struct ttm_resource *res);
u64 wddmseg_mgr_res_run(const struct ttm_resource *res, u64 page, u64 *run);
u32 wddmseg_mgr_res_ranges(const struct ttm_resource *res);
bool wddmseg_mgr_res_is_aperture(struct wddmseg_device *wdev,
				 const struct ttm_resource *res);
bool wddmseg_mgr_res_zeroed(const struct ttm_resource *res);
void wddmseg_mgr_res_set_pristine(struct ttm_resource *res);
bool wddmseg_mgr_res_pristine(const struct ttm_resource *res);
void wddmseg_mgr_res_wiped(struct ttm_resource *res);
void wddmseg_mgr_set_zeroed(struct wddmseg_mgr *mgr, bool zeroed);
void wddmseg_mgr_forget_zeroed(struct wddmseg_device *wdev);
void wddmseg_mgr_drop_signaled_move(struct ttm_resource_manager *man);

/*
 * The TTM memory type of a buffer object's resource. Since 6.3 ("drm/ttm:
 * stop allocating dummy resources during BO creation", and the same for
 * pipeline gutting, i.e. a discard) TTM leaves a buffer without one, NULL;
 * 6.1 gave it a placeholder in system memory. Either way it holds no
 * content: it reads as zeroes, like unpopulated system pages, and that is
 * what NULL stands for in this driver.
 */
static inline u32 wddmseg_res_mem_type(const struct ttm_resource *res)
{
	return res ? res->mem_type : TTM_PL_SYSTEM;
}

/* wddmseg_ttm.c */
int wddmseg_ttm_init(struct wddmseg_device *wdev);
void wddmseg_ttm_fini(struct wddmseg_device *wdev);

/* wddmseg_kept.c */
int wddmseg_kept_init(struct wddmseg_device *wdev);
void wddmseg_kept_fini(struct wddmseg_device *wdev);
void wddmseg_bo_drop_kept(struct wddmseg_bo *bo);
bool wddmseg_kept_stash(struct wddmseg_device *wdev, struct wddmseg_tt *wtt);
bool wddmseg_kept_reuse(struct wddmseg_device *wdev, struct wddmseg_tt *wtt);
void wddmseg_kept_mark(struct ttm_buffer_object *tbo, bool keep,
		       struct dma_fence *fence);

/**
 * struct wddmseg_perm_copy - the permanent copy of a PermanentSysMem
 *	allocation that is in a memory segment
 * @pages: its pages
 * @dma_address: their DMA addresses
 * @caching: their caching
 */
struct wddmseg_perm_copy {
	struct page **pages;
	dma_addr_t *dma_address;
	enum ttm_caching caching;
};

int wddmseg_perm_init(struct wddmseg_bo *bo);
int wddmseg_perm_get(struct wddmseg_bo *bo, struct ttm_operation_ctx *ctx,
		     struct wddmseg_perm_copy *copy);
enum ttm_caching wddmseg_bo_caching(const struct wddmseg_bo *bo);

/* wddmseg_vram.c */
void wddmseg_vram_regs_lost(struct wddmseg_device *wdev);
void wddmseg_vram_apt_update(struct wddmseg_device *wdev,
			     struct ttm_resource *res, struct ttm_tt *ttm);
void wddmseg_vram_io(struct wddmseg_device *wdev, bool visible, u64 vram_off,
		     void *buf, size_t len, bool to_vram);
void wddmseg_vram_page_io(struct wddmseg_device *wdev,
			  struct ttm_buffer_object *tbo, struct ttm_resource *res,
			  pgoff_t i, void *buf, bool to_res);

/* wddmseg_migrate.c */
bool wddmseg_migrate_uses_engine(struct wddmseg_device *wdev);
int wddmseg_migrate_move(struct wddmseg_device *wdev,
			 struct ttm_buffer_object *tbo,
			 struct ttm_resource *new_mem, bool clear, u32 crypt,
			 u64 nonce, struct dma_fence **fence);
struct dma_fence *wddmseg_migrate_discard(struct wddmseg_device *wdev,
					  struct wddmseg_mgr *mgr,
					  struct ttm_resource *res);
struct dma_fence *wddmseg_migrate_clear(struct wddmseg_device *wdev,
					struct wddmseg_mgr *mgr,
					struct ttm_resource *res,
					const char *what);
struct dma_fence *wddmseg_migrate_clear_segment(struct wddmseg_device *wdev,
						struct wddmseg_mgr *mgr);
int wddmseg_migrate_access(struct wddmseg_device *wdev,
			   struct ttm_buffer_object *tbo,
			   struct wddmseg_mgr *mgr, u64 gpu_addr, void *buf,
			   int len, bool write);
struct dma_fence *wddmseg_migrate_blit(struct wddmseg_device *wdev,
				       const struct drm_wddmseg_submit_blit *a,
				       struct drm_gem_object *src,
				       struct drm_gem_object *dst);
bool wddmseg_noncoherent_modelled(struct wddmseg_device *wdev);
struct dma_fence *wddmseg_migrate_flush_aperture(struct wddmseg_device *wdev,
						 struct ttm_buffer_object *tbo);
struct dma_fence *wddmseg_migrate_perm_sync(struct wddmseg_device *wdev,
					    struct ttm_buffer_object *tbo,
					    const dma_addr_t *dma_address,
					    u64 off, u64 len, bool to_vram);
int wddmseg_migrate_cpu_copy(struct wddmseg_device *wdev,
			     struct ttm_buffer_object *tbo,
			     struct ttm_resource *new_mem,
			     struct ttm_operation_ctx *ctx);

/* wddmseg_pm.c */
extern const struct dev_pm_ops wddmseg_pm_ops;
int wddmseg_pm_init(struct wddmseg_device *wdev);
void wddmseg_pm_runtime_start(struct wddmseg_device *wdev);
void wddmseg_pm_runtime_stop(struct wddmseg_device *wdev);
int wddmseg_pm_get(struct wddmseg_device *wdev);
void wddmseg_pm_put(struct wddmseg_device *wdev);

/* wddmseg_params.c: what a user sets */
extern unsigned int wddmseg_keep_sysmem_mb;
extern unsigned int wddmseg_fence_timeout_ms;
extern bool wddmseg_fbdev;
extern int wddmseg_autosuspend_ms;

/* wddmseg_bo.c */
extern const struct drm_gem_object_funcs wddmseg_gem_funcs;
bool wddmseg_is_bo(struct ttm_buffer_object *tbo);
void wddmseg_bo_placement(struct wddmseg_bo *bo, bool cpu_access);
void wddmseg_bo_evict_placement(struct wddmseg_bo *bo, u32 from_segment,
				struct ttm_placement *placement);
int wddmseg_bo_pm_move(struct wddmseg_bo *bo, u32 id);
void wddmseg_bo_moved(struct wddmseg_bo *bo, struct ttm_resource *old,
		      struct ttm_resource *new, bool evict);
void wddmseg_bo_residency_commit(struct wddmseg_bo *bo);
int wddmseg_open(struct drm_device *drm, struct drm_file *file);
void wddmseg_postclose(struct drm_device *drm, struct drm_file *file);
struct wddmseg_file *wddmseg_file_get(struct wddmseg_file *wfile);
void wddmseg_file_put(struct wddmseg_file *wfile);

/* wddmseg_fdinfo.c */
struct drm_printer;
struct seq_file;
u64 wddmseg_fdinfo_client_id(void);
void wddmseg_fdinfo_account_blit(struct wddmseg_file *wfile,
				 struct dma_fence *fence, ktime_t start);
void wddmseg_show_fdinfo(struct drm_printer *p, struct drm_file *file);
void wddmseg_show_fdinfo_fops(struct seq_file *m, struct file *f);
int wddmseg_dumb_create(struct drm_file *file, struct drm_device *drm,
			struct drm_mode_create_dumb *args);
int wddmseg_dumb_map_offset(struct drm_file *file, struct drm_device *drm,
			    u32 handle, u64 *offset);
u32 wddmseg_bo_direct_flip_segments(struct wddmseg_bo *bo);
int wddmseg_bo_pin_scanout(struct wddmseg_bo *bo);
int wddmseg_bo_pin_shared(struct wddmseg_bo *bo);
void wddmseg_bo_unpin(struct wddmseg_bo *bo);

static inline void wddmseg_bo_unpin_scanout(struct wddmseg_bo *bo)
{
	wddmseg_bo_unpin(bo);
}

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

int wddmseg_bo_make_resident_locked(struct wddmseg_bo *bo,
				    struct ttm_operation_ctx *ctx);
int wddmseg_bo_give_resource(struct wddmseg_bo *bo,
			     struct ttm_operation_ctx *ctx);

/* wddmseg_prime.c */
struct dma_buf_attachment;
struct sg_table;
struct dma_buf *wddmseg_gem_prime_export(struct drm_gem_object *obj,
					 int flags);
struct drm_gem_object *wddmseg_gem_prime_import(struct drm_device *drm,
						struct dma_buf *dma_buf);
struct sg_table *wddmseg_gem_prime_get_sg_table(struct drm_gem_object *obj);
struct drm_gem_object *
wddmseg_gem_prime_import_sg_table(struct drm_device *drm,
				  struct dma_buf_attachment *attach,
				  struct sg_table *sgt);
int wddmseg_prime_check_engine(struct drm_gem_object *obj);

/* wddmseg_protect.c */
int wddmseg_protect_check_cpu(struct wddmseg_bo *bo, const char *path);
int wddmseg_protect_check_export(struct wddmseg_bo *bo);
int wddmseg_protect_check_copy(struct wddmseg_bo *src, struct wddmseg_bo *dst);
bool wddmseg_protect_may_seal(struct wddmseg_bo *bo, u32 from);
int wddmseg_protect_check_evict(struct wddmseg_bo *bo);
bool wddmseg_protect_evictable(struct wddmseg_bo *bo);
u64 wddmseg_protect_nonce(struct wddmseg_device *wdev);
void wddmseg_protect_init(struct wddmseg_device *wdev);

/* wddmseg_blit.c */
int wddmseg_ioctl_submit_blit(struct drm_device *drm, void *data,
			      struct drm_file *file);

/* wddmseg_query.c */
int wddmseg_ioctl_query_adapter(struct drm_device *drm, void *data,
				struct drm_file *file);
int wddmseg_ioctl_query_segment(struct drm_device *drm, void *data,
				struct drm_file *file);

/* wddmseg_kms.c */
int wddmseg_kms_init(struct wddmseg_device *wdev);
void wddmseg_kms_register(struct wddmseg_device *wdev);
void wddmseg_kms_fini(struct wddmseg_device *wdev);
void wddmseg_kms_irq(struct wddmseg_device *wdev, u32 status);
u64 wddmseg_kms_refresh_mhz(const struct drm_display_mode *mode);
const char *wddmseg_kms_mode_rule(u32 max_width, u32 max_height,
				  const struct drm_display_mode *mode);

/* wddmseg_sysfs.c */
int wddmseg_sysfs_init(struct wddmseg_device *wdev);

/* wddmseg_debugfs.c */
void wddmseg_knobs_init(struct wddmseg_device *wdev);
void wddmseg_debugfs_init(struct drm_minor *minor);

#endif /* WDDMSEG_DRV_H */
