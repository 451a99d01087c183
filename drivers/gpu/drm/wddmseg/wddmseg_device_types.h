/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the device structure and the structures it embeds.
 */
#ifndef WDDMSEG_DEVICE_TYPES_H
#define WDDMSEG_DEVICE_TYPES_H

#include <linux/dma-fence.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_encoder.h>
#include <drm/drm_mm.h>
#include <drm/drm_plane.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/wddmseg_drm.h>

#include "wddmseg_compat.h"
#include "wddmseg_copycost.h"
#include "wddmseg_hw.h"

struct drm_pending_vblank_event;
struct shrinker;

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
 * struct wddmseg_mmu_desc - the GPU MMU geometry the device reports
 * @caps: MMU_CAPS (WDDMSEG_MMU_CAPS_*); 0 before device 1.9
 * @va_bits: VirtualAddressBitCount
 * @levels: PageTableLevelCount, level 0 the leaf
 * @pt_segment: PageTableSegmentId of every level
 * @pt_size: PageTableSizeInBytes of every level
 * @pt_align: alignment of every page table, in bytes
 * @contexts: hardware contexts
 * @tlb_entries: translations each address space's TLB holds
 * @level_bits: PageTableIndexBitCount of each level; the first
 *	min(@levels, WDDMSEG_MMU_LEVEL_MAX) entries are read
 *
 * All zero when the device predates the MMU (version below 1.9).
 */
struct wddmseg_mmu_desc {
	u32 caps;
	u32 va_bits;
	u32 levels;
	u32 pt_segment;
	u32 pt_size;
	u32 pt_align;
	u32 contexts;
	u32 tlb_entries;
	u32 level_bits[WDDMSEG_MMU_LEVEL_MAX];
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
 * @mmu: the GPU MMU (device 1.9); all zero on older devices
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
	struct wddmseg_mmu_desc mmu;
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
 * @transfer_in_bytes: bytes that moves of allocations into the segment
 *	copied into it from elsewhere (Transfer, by the engine or the CPU;
 *	not the Fill of content that never existed)
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
	atomic64_t transfer_in_bytes;
	atomic64_t discard_bytes;
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
 * @dummy: page unmapped aperture entries point at (devres: it outlives
 *	the engine, as the entries do)
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
 * struct wddmseg_kms - the display controller (device 1.3): one scanout
 * @present: the device has a usable display and the pipeline below exists
 * @gone: the scanout was shut down for unbind: no more register access
 * @max_width: SCANOUT_MAX_WIDTH
 * @max_height: SCANOUT_MAX_HEIGHT
 * @formats: SCANOUT_FORMATS, restricted to the formats the driver knows
 * @features: SCANOUT_FEATURES the driver uses (cursor, gamma, CRC)
 * @cursor_w: CURSOR_MAX width, 0 without a cursor
 * @cursor_h: CURSOR_MAX height, 0 without a cursor
 * @compose: the device is 1.10 or later: it composes a primary of any
 *	size at any position over black, or no primary, and CURSOR_COMMIT
 *	updates the cursor at once (async cursor updates)
 * @crc_on: CRTC CRCs are wanted (CRC_CTRL.ENABLE); under @lock
 * @crc_frame: CRC_FRAME of the last CRC reported; under @lock
 * @crtc: the scanout
 * @primary: its primary plane
 * @cursor: its cursor plane, with FEAT_CURSOR
 * @encoder: virtual encoder
 * @connector: virtual connector, always connected
 * @lock: protects @event, @crc_on, @crc_frame, the cursor plane's state
 *	against async updates, and the COMMIT writes
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
	bool compose;
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
 * enum wddmseg_sleep - which column of the preservation table a suspend
 *	follows (DXGK_SEGMENTFLAGS, wddmseg_pm_sleep_kind())
 * @WDDMSEG_SLEEP_STANDBY: standby (S3), also a runtime suspend (D3hot)
 * @WDDMSEG_SLEEP_HIBERNATE: hibernation (the freeze that makes its image)
 * @WDDMSEG_SLEEP_HYBRID: hybrid sleep: the standby that follows a
 *	hibernation image; WDDM treats it as a hibernation
 */
enum wddmseg_sleep {
	WDDMSEG_SLEEP_STANDBY,
	WDDMSEG_SLEEP_HIBERNATE,
	WDDMSEG_SLEEP_HYBRID,
};

/**
 * struct wddmseg_pm - power management (wddmseg_pm.c)
 * @nb: PM notifier: the early eviction, and the restore after an aborted
 *	suspend
 * @lock: serializes the phases; protects everything below
 * @moved: a &struct wddmseg_pm_entry for each allocation the current
 *	cycle moved out of a segment or whose pinned content it saved
 * @sleep: what the current cycle is: standby, hibernation or hybrid sleep
 * @hibernating: between PM_HIBERNATION_PREPARE and PM_POST_HIBERNATION: a
 *	suspend callback then is the standby of a hybrid sleep
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
	enum wddmseg_sleep sleep;
	bool hibernating;
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

struct wddmseg_device;

/**
 * enum wddmseg_irq_client_id - the users of the device's interrupt
 * @WDDMSEG_IRQ_ENGINE: the copy engine (FENCE, ERROR)
 * @WDDMSEG_IRQ_DISPLAY: the display (VBLANK, SCANOUT_ERROR)
 * @WDDMSEG_IRQ_CLIENTS: how many there are
 */
enum wddmseg_irq_client_id {
	WDDMSEG_IRQ_ENGINE,
	WDDMSEG_IRQ_DISPLAY,
	WDDMSEG_IRQ_CLIENTS,
};

/**
 * struct wddmseg_irq_client - a handler of some of the interrupt's causes
 * @bits: the IRQ_STATUS bits it handles
 * @handler: called in hard interrupt context with the IRQ_STATUS bits
 *	that were set (all of them, acknowledged already) when one of
 *	@bits is among them; NULL while not registered
 */
struct wddmseg_irq_client {
	u32 bits;
	void (*handler)(struct wddmseg_device *wdev, u32 status);
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
 * @irq_ready: the device's interrupt is requested (wddmseg_irq.c)
 * @irq_client: the handlers of the engine and of the display
 * @irq_lock: protects @irq_mask, the IRQ_MASK register and @irq_client
 * @irq_mask: what IRQ_MASK holds: the engine's and the display's bits
 * @parked_lock: protects @parked_list, @parked_pages and every
 *	&wddmseg_bo.parked
 * @parked_list: system pages parked by allocations in VRAM, oldest first
 * @parked_pages: how many pages @parked_list holds
 * @parked_shrinker: gives them back under memory pressure (allocated:
 *	wddmseg_shrinker_create())
 * @offer_lock: protects @offered and every &wddmseg_bo.offer_link
 * @offered: the offered allocations, in the order of their offers (DOC:
 *	Offer and reclaim)
 * @offer_shrinker: drops the system pages of offered allocations under
 *	memory pressure (wddmseg_offer.c)
 * @reserve_lock: protects @reserved_local and every
 *	&wddmseg_file.reservation update (wddmseg_budget.c)
 * @reserved_local: sum of the files' reservations of the local group
 * @trim_work: looks for files over budget after an eviction (DOC: Trim
 *	notifications)
 * @trim_files: files registered for trim notifications
 * @trim_recheck: an eviction happened since the last placement in a
 *	segment (wddmseg_budget_placed())
 * @trim_events: trim notifications sent (sysfs trim_events)
 * @trim_dwork: trims the files whose grace period is over (DOC: Trim
 *	notifications)
 * @trim_driver_bytes: bytes the driver evicted from files that did not
 *	trim in time (sysfs trim_driver_bytes)
 * @access_lock: serializes users of @access_bounce and @access_fence
 * @access_bounce: DMA-coherent bounce buffer of WDDMSEG_ACCESS_BOUNCE bytes
 *	for ReadPhysical/WritePhysical (TTM's access_memory), or NULL
 * @access_bounce_dma: its DMA address
 * @access_fence: the last ReadPhysical/WritePhysical job whose wait was
 *	interrupted; the bounce buffer is not reused before it signals
 * @seal_nonce: last nonce of an encrypted eviction (wddmseg_protect.c)
 * @pm: power management state
 * @copy_lock: protects @copy_est and @copy_watch
 * @copy_est: the adaptive engine-or-CPU choice's cost estimates, per
 *	&enum wddmseg_copy_path and size class (DOC: Copy cost model)
 * @copy_watch: engine moves whose fences the next decision reads
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
	bool irq_ready;
	struct wddmseg_irq_client irq_client[WDDMSEG_IRQ_CLIENTS];
	spinlock_t irq_lock;	/* irq_mask, IRQ_MASK, irq_client */
	u32 irq_mask;
	spinlock_t parked_lock;		/* parked_list, parked_pages, bo->parked */
	struct list_head parked_list;
	unsigned long parked_pages;
	struct shrinker *parked_shrinker;
	struct mutex offer_lock;	/* offered, bo->offer_link */
	struct list_head offered;
	struct shrinker *offer_shrinker;
	struct mutex reserve_lock;	/* reserved_local, file reservations */
	u64 reserved_local;
	struct work_struct trim_work;
	atomic_t trim_files;
	atomic_t trim_recheck;
	atomic64_t trim_events;
	struct delayed_work trim_dwork;
	atomic64_t trim_driver_bytes;
	struct mutex access_lock;	/* access_bounce, access_fence */
	void *access_bounce;
	dma_addr_t access_bounce_dma;
	struct dma_fence *access_fence;
	atomic64_t seal_nonce;
	struct wddmseg_pm pm;
	spinlock_t copy_lock;		/* copy_est, copy_watch */
	struct wddmseg_copy_est copy_est[WDDMSEG_COPY_PATHS][WDDMSEG_COPY_CLASSES];
	struct wddmseg_copy_watch copy_watch[WDDMSEG_COPY_WATCHES];
};

/* The device's page (aperture entries, page lists): 4 KiB. */
#define WDDMSEG_HW_PAGE_SIZE	BIT(WDDMSEG_HW_PAGE_SHIFT)

/* Bytes one ReadPhysical/WritePhysical job of access_memory moves at most. */
#define WDDMSEG_ACCESS_BOUNCE	SZ_16K

#endif /* WDDMSEG_DEVICE_TYPES_H */
