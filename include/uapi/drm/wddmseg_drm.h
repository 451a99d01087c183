/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * Userspace interface of the wddmseg DRM driver: WDDM-style video memory
 * segments on Linux.
 */
#ifndef _UAPI_WDDMSEG_DRM_H_
#define _UAPI_WDDMSEG_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * WDDMSEG_UAPI_VERSION - version of this interface
 *
 * Reported by &drm_wddmseg_query_adapter.uapi_version. Bumped whenever an
 * ioctl or a field is added, so userspace can tell what it may use.
 * Version 2 added &drm_wddmseg_gem_residency.flags (WDDMSEG_EVICT_DISCARD).
 * Version 3 made &drm_wddmseg_query_adapter.vidmm_caps the capabilities the
 * driver honours and added &drm_wddmseg_query_adapter.device_vidmm_caps,
 * what the device reports.
 * Version 4 added syncobjs to &drm_wddmseg_submit_blit (WDDMSEG_BLIT_SYNCOBJ_IN,
 * WDDMSEG_BLIT_SYNCOBJ_OUT and the fields after @reserved).
 * Version 5 added DRM_IOCTL_WDDMSEG_QUERY_MMU (&drm_wddmseg_query_mmu).
 * Version 6 gave meaning to the first half of the reserved words of
 * &drm_wddmseg_gem_create (create_flags, pitch, height and pad, for
 * cross-adapter resources: WDDMSEG_CREATE_CROSS_ADAPTER) and added
 * WDDMSEG_STATE_CROSS_ADAPTER.
 * Version 7 added GPU address spaces: DRM_IOCTL_WDDMSEG_VM_CREATE and
 * DRM_IOCTL_WDDMSEG_VM_DESTROY (&drm_wddmseg_vm_create,
 * &drm_wddmseg_vm_destroy).
 * Version 8 added DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS and
 * DRM_IOCTL_WDDMSEG_RECLAIM_ALLOCATIONS (&drm_wddmseg_offer_allocations,
 * &drm_wddmseg_reclaim_allocations).
 * Version 9 added DRM_IOCTL_WDDMSEG_VM_BIND (&drm_wddmseg_vm_bind) and
 * blits by GPU virtual address (WDDMSEG_BLIT_VIRTUAL, which gives the
 * first reserved word of &drm_wddmseg_submit_blit its meaning: @vm_id
 * and @vm_pad).
 * Version 10 added DRM_IOCTL_WDDMSEG_SET_ALLOCATION_PRIORITY
 * (&drm_wddmseg_set_allocation_priority, WDDMSEG_ALLOCATION_PRIORITY_*) and
 * gave meaning to the first of the reserved words of &drm_wddmseg_gem_info
 * (priority and offer_priority).
 * Version 11 added DRM_IOCTL_WDDMSEG_SET_RESERVATION
 * (&drm_wddmseg_set_reservation), gave meaning to the first two reserved
 * words of &drm_wddmseg_query_budget (@current_reservation and
 * @available_for_reservation), made its @budget the file's share, and
 * added trim notifications: DRM_IOCTL_WDDMSEG_REGISTER_TRIM_NOTIFICATION
 * (&drm_wddmseg_register_trim) and DRM_WDDMSEG_EVENT_TRIM
 * (&drm_wddmseg_event_trim).
 */
#define WDDMSEG_UAPI_VERSION		11

/**
 * WDDMSEG_MAX_SEGMENTS - largest segment count the driver accepts
 *
 * TTM offers eight memory types; system memory takes one and the GART-like
 * aperture shares TTM_PL_TT, so at most six device segments are usable.
 */
#define WDDMSEG_MAX_SEGMENTS		6

/**
 * WDDMSEG_MAX_BANKS - largest NbOfBanks the driver accepts per segment
 */
#define WDDMSEG_MAX_BANKS		16

#define DRM_WDDMSEG_QUERY_ADAPTER	0x00
#define DRM_WDDMSEG_QUERY_SEGMENT	0x01
#define DRM_WDDMSEG_GEM_CREATE		0x02
#define DRM_WDDMSEG_GEM_MMAP_OFFSET	0x03
#define DRM_WDDMSEG_GEM_INFO		0x04
#define DRM_WDDMSEG_GEM_MAKE_RESIDENT	0x05
#define DRM_WDDMSEG_GEM_EVICT		0x06
#define DRM_WDDMSEG_GEM_WAIT		0x07
#define DRM_WDDMSEG_QUERY_BUDGET	0x08
#define DRM_WDDMSEG_SUBMIT_BLIT		0x09
#define DRM_WDDMSEG_QUERY_MMU		0x0a
#define DRM_WDDMSEG_VM_CREATE		0x0b
#define DRM_WDDMSEG_VM_DESTROY		0x0c
#define DRM_WDDMSEG_VM_BIND		0x0d
#define DRM_WDDMSEG_OFFER_ALLOCATIONS	0x15
#define DRM_WDDMSEG_RECLAIM_ALLOCATIONS	0x16
#define DRM_WDDMSEG_SET_ALLOCATION_PRIORITY	0x17
#define DRM_WDDMSEG_SET_RESERVATION	0x18
#define DRM_WDDMSEG_REGISTER_TRIM_NOTIFICATION	0x19

#define DRM_IOCTL_WDDMSEG_QUERY_ADAPTER \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_QUERY_ADAPTER, \
		 struct drm_wddmseg_query_adapter)
#define DRM_IOCTL_WDDMSEG_QUERY_SEGMENT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_QUERY_SEGMENT, \
		 struct drm_wddmseg_query_segment)
#define DRM_IOCTL_WDDMSEG_GEM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_GEM_CREATE, \
		 struct drm_wddmseg_gem_create)
#define DRM_IOCTL_WDDMSEG_GEM_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_GEM_MMAP_OFFSET, \
		 struct drm_wddmseg_gem_mmap_offset)
#define DRM_IOCTL_WDDMSEG_GEM_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_GEM_INFO, \
		 struct drm_wddmseg_gem_info)
#define DRM_IOCTL_WDDMSEG_GEM_MAKE_RESIDENT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WDDMSEG_GEM_MAKE_RESIDENT, \
		struct drm_wddmseg_gem_residency)
#define DRM_IOCTL_WDDMSEG_GEM_EVICT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WDDMSEG_GEM_EVICT, \
		struct drm_wddmseg_gem_residency)
#define DRM_IOCTL_WDDMSEG_GEM_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WDDMSEG_GEM_WAIT, \
		struct drm_wddmseg_gem_wait)
#define DRM_IOCTL_WDDMSEG_QUERY_BUDGET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_QUERY_BUDGET, \
		 struct drm_wddmseg_query_budget)
#define DRM_IOCTL_WDDMSEG_SUBMIT_BLIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_SUBMIT_BLIT, \
		 struct drm_wddmseg_submit_blit)
#define DRM_IOCTL_WDDMSEG_QUERY_MMU \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_QUERY_MMU, \
		 struct drm_wddmseg_query_mmu)
#define DRM_IOCTL_WDDMSEG_VM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_VM_CREATE, \
		 struct drm_wddmseg_vm_create)
#define DRM_IOCTL_WDDMSEG_VM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WDDMSEG_VM_DESTROY, \
		struct drm_wddmseg_vm_destroy)
#define DRM_IOCTL_WDDMSEG_VM_BIND \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_VM_BIND, \
		 struct drm_wddmseg_vm_bind)
#define DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WDDMSEG_OFFER_ALLOCATIONS, \
		struct drm_wddmseg_offer_allocations)
#define DRM_IOCTL_WDDMSEG_RECLAIM_ALLOCATIONS \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WDDMSEG_RECLAIM_ALLOCATIONS, \
		struct drm_wddmseg_reclaim_allocations)
#define DRM_IOCTL_WDDMSEG_SET_ALLOCATION_PRIORITY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WDDMSEG_SET_ALLOCATION_PRIORITY, \
		struct drm_wddmseg_set_allocation_priority)
#define DRM_IOCTL_WDDMSEG_SET_RESERVATION \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WDDMSEG_SET_RESERVATION, \
		struct drm_wddmseg_set_reservation)
#define DRM_IOCTL_WDDMSEG_REGISTER_TRIM_NOTIFICATION \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WDDMSEG_REGISTER_TRIM_NOTIFICATION, \
		struct drm_wddmseg_register_trim)

/**
 * struct drm_wddmseg_query_adapter - adapter-wide properties
 *
 * Argument of DRM_IOCTL_WDDMSEG_QUERY_ADAPTER. Every field is an output;
 * userspace must pass the structure zeroed, and the ioctl fails with
 * -EINVAL if any field is not zero on input.
 */
struct drm_wddmseg_query_adapter {
	/** @uapi_version: WDDMSEG_UAPI_VERSION of the running driver. */
	__u32 uapi_version;
	/** @hw_version: device version register (major << 16 | minor). */
	__u32 hw_version;
	/**
	 * @vidmm_caps: the DXGK_VIDMMCAPS.Value bits the driver honours;
	 * bit n is member n of the WDDM structure. A capability the device
	 * reports but the driver has no behaviour for is not set here (up
	 * to version 2 this was @device_vidmm_caps).
	 */
	__u32 vidmm_caps;
	/** @paging_node: DXGK_VIDMMCAPS.PagingNode, the paging engine. */
	__u32 paging_node;
	/** @segment_count: number of segments; ids are 1..segment_count. */
	__u32 segment_count;
	/** @num_engines: number of engines (nodes) of the device. */
	__u32 num_engines;
	/** @vram_size: bytes of device-local memory. */
	__u64 vram_size;
	/** @cpu_visible_size: bytes of VRAM reachable through the PCI BAR. */
	__u64 cpu_visible_size;
	/**
	 * @device_vidmm_caps: (version 3) DXGK_VIDMMCAPS.Value exactly as
	 * the device reports it.
	 */
	__u32 device_vidmm_caps;
	/** @pad: zero. */
	__u32 pad;
	/** @reserved: must be zero; later versions may return data here. */
	__u64 reserved[3];
};

/**
 * WDDMSEG_MMU_PRESENT - &drm_wddmseg_query_mmu.flags: the device has a GPU
 * MMU (device 1.9 or later, and its layout has a memory segment for the
 * page tables). Every other field is zero when this flag is clear.
 */
#define WDDMSEG_MMU_PRESENT		(1u << 0)
/**
 * WDDMSEG_MMU_GPU_PHYSICAL - &drm_wddmseg_query_mmu.flags: the page tables
 * are written by the paging engine at their GPU address
 * (DXGK_GPUMMUCAPS.PageTableUpdateMode).
 */
#define WDDMSEG_MMU_GPU_PHYSICAL	(1u << 1)
/** WDDMSEG_MMU_MAX_LEVELS - entries of &drm_wddmseg_query_mmu.level_bits. */
#define WDDMSEG_MMU_MAX_LEVELS		8

/**
 * struct drm_wddmseg_query_mmu - the device's GPU MMU (version 5)
 *
 * Argument of DRM_IOCTL_WDDMSEG_QUERY_MMU: the DXGK_GPUMMUCAPS and
 * DXGK_PAGE_TABLE_LEVEL_DESC of the device, as it reports them. Every
 * field is an output; userspace must pass the structure zeroed, and the
 * ioctl fails with -EINVAL if any field is not zero on input.
 *
 * This describes the hardware only. Whether the driver gives processes
 * GPU virtual address spaces is &drm_wddmseg_query_adapter.vidmm_caps
 * (VirtualAddressingSupported, GpuMmuSupported).
 */
struct drm_wddmseg_query_mmu {
	/** @flags: WDDMSEG_MMU_*. */
	__u32 flags;
	/** @va_bits: VirtualAddressBitCount. */
	__u32 va_bits;
	/** @levels: PageTableLevelCount; level 0 is the leaf. */
	__u32 levels;
	/** @pt_segment: PageTableSegmentId, the segment of every table. */
	__u32 pt_segment;
	/** @pt_size: PageTableSizeInBytes of every level. */
	__u32 pt_size;
	/** @pt_align: alignment of every page table, in bytes. */
	__u32 pt_align;
	/** @contexts: hardware contexts of the device. */
	__u32 contexts;
	/** @tlb_entries: translations each address space's TLB holds. */
	__u32 tlb_entries;
	/**
	 * @level_bits: PageTableIndexBitCount of level l in entry l; the
	 * entries from @levels on are zero.
	 */
	__u32 level_bits[WDDMSEG_MMU_MAX_LEVELS];
	/** @reserved: must be zero; later versions may return data here. */
	__u64 reserved[4];
};

/**
 * struct drm_wddmseg_query_segment - one segment descriptor
 *
 * Argument of DRM_IOCTL_WDDMSEG_QUERY_SEGMENT. Returns the
 * DXGK_SEGMENTDESCRIPTOR the device reported for @segment_id, exactly as
 * read and validated at probe time.
 *
 * The bank table is copied to @banks_ptr: at most @bank_capacity entries,
 * while @nb_banks always returns the full count, so a caller can ask with a
 * capacity of zero first and then size its array.
 */
struct drm_wddmseg_query_segment {
	/** @segment_id: in: segment to query, 1..segment_count. */
	__u32 segment_id;
	/** @flags: out: DXGK_SEGMENTFLAGS.Value; bit n is member n. */
	__u32 flags;
	/** @base_address: out: BaseAddress, the segment in the GPU view. */
	__u64 base_address;
	/**
	 * @cpu_translated_address: out: CpuTranslatedAddress, the bus
	 * address of the segment for CpuVisible segments, 0 otherwise.
	 */
	__u64 cpu_translated_address;
	/** @size: out: Size in bytes. */
	__u64 size;
	/** @commit_limit: out: CommitLimit in bytes. */
	__u64 commit_limit;
	/** @nb_banks: out: NbOfBanks, 0 unless the segment uses banking. */
	__u32 nb_banks;
	/** @bank_capacity: in: entries available at @banks_ptr. */
	__u32 bank_capacity;
	/**
	 * @banks_ptr: in: user pointer to an array of __u64 that receives
	 * the end offset of each bank (pBankRangeTable); may be 0 when
	 * @bank_capacity is 0.
	 */
	__u64 banks_ptr;
	/** @usage_bytes: out: bytes currently allocated in the segment. */
	__u64 usage_bytes;
	/** @pinned_bytes: out: of which pinned (never evicted). */
	__u64 pinned_bytes;
	/** @allocation_count: out: allocations currently in the segment. */
	__u64 allocation_count;
	/** @eviction_count: out: evictions out of the segment so far. */
	__u64 eviction_count;
	/** @reserved: must be zero. */
	__u64 reserved[4];
};

/*
 * DXGK_SEGMENTFLAGS: &drm_wddmseg_query_segment.flags is the Value of the
 * WDDM structure, bit n its member n, exactly as the device reported it.
 * The values are those of the register contract (DXGK_SEGFLAG_* in
 * drivers/gpu/drm/wddmseg/wddmseg_hw.h). Bits outside
 * WDDMSEG_SEGMENT_FLAG_KNOWN_MASK are reserved and never set.
 */
/**
 * WDDMSEG_SEGMENT_FLAG_APERTURE - Aperture: a GPU address range whose pages are
 * mapped onto system memory
 */
#define WDDMSEG_SEGMENT_FLAG_APERTURE			(1u << 0)
/**
 * WDDMSEG_SEGMENT_FLAG_AGP - Agp: an aperture behind the AGP bus (the driver
 * refuses it)
 */
#define WDDMSEG_SEGMENT_FLAG_AGP			(1u << 1)
/**
 * WDDMSEG_SEGMENT_FLAG_CPU_VISIBLE - CpuVisible: the CPU reaches the segment
 * through a PCI BAR
 */
#define WDDMSEG_SEGMENT_FLAG_CPU_VISIBLE		(1u << 2)
/**
 * WDDMSEG_SEGMENT_FLAG_USE_BANKING - UseBanking: the segment is split into
 * banks, see &drm_wddmseg_query_segment.nb_banks
 */
#define WDDMSEG_SEGMENT_FLAG_USE_BANKING		(1u << 3)
/**
 * WDDMSEG_SEGMENT_FLAG_CACHE_COHERENT - CacheCoherent: the aperture snoops the
 * CPU caches
 */
#define WDDMSEG_SEGMENT_FLAG_CACHE_COHERENT		(1u << 4)
/**
 * WDDMSEG_SEGMENT_FLAG_PITCH_ALIGNMENT - PitchAlignment: allocations need a
 * pitch alignment; never an eviction target
 */
#define WDDMSEG_SEGMENT_FLAG_PITCH_ALIGNMENT		(1u << 5)
/**
 * WDDMSEG_SEGMENT_FLAG_POPULATED_FROM_SYSTEM_MEMORY -
 * PopulatedFromSystemMemory: memory carved out of system memory
 */
#define WDDMSEG_SEGMENT_FLAG_POPULATED_FROM_SYSTEM_MEMORY (1u << 6)
/**
 * WDDMSEG_SEGMENT_FLAG_PRESERVED_DURING_STANDBY - PreservedDuringStandby:
 * content kept across S3
 */
#define WDDMSEG_SEGMENT_FLAG_PRESERVED_DURING_STANDBY	(1u << 7)
/**
 * WDDMSEG_SEGMENT_FLAG_PRESERVED_DURING_HIBERNATE - PreservedDuringHibernate:
 * content kept across S4
 */
#define WDDMSEG_SEGMENT_FLAG_PRESERVED_DURING_HIBERNATE	(1u << 8)
/**
 * WDDMSEG_SEGMENT_FLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE -
 * PartiallyPreservedDuringHibernate
 */
#define WDDMSEG_SEGMENT_FLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE (1u << 9)
/**
 * WDDMSEG_SEGMENT_FLAG_DIRECT_FLIP - DirectFlip: the display can scan out of
 * the segment
 */
#define WDDMSEG_SEGMENT_FLAG_DIRECT_FLIP		(1u << 10)
/**
 * WDDMSEG_SEGMENT_FLAG_USE_64KB_PAGES - Use64KBPages: allocations start on 64
 * KiB boundaries
 */
#define WDDMSEG_SEGMENT_FLAG_USE_64KB_PAGES		(1u << 11)
/**
 * WDDMSEG_SEGMENT_FLAG_RESERVED_SYSMEM - ReservedSysMem: memory reserved for
 * the device by the firmware
 */
#define WDDMSEG_SEGMENT_FLAG_RESERVED_SYSMEM		(1u << 12)
/**
 * WDDMSEG_SEGMENT_FLAG_SUPPORTS_CPU_HOST_APERTURE - SupportsCpuHostAperture
 */
#define WDDMSEG_SEGMENT_FLAG_SUPPORTS_CPU_HOST_APERTURE	(1u << 13)
/**
 * WDDMSEG_SEGMENT_FLAG_SUPPORTS_CACHED_CPU_HOST_APERTURE -
 * SupportsCachedCpuHostAperture
 */
#define WDDMSEG_SEGMENT_FLAG_SUPPORTS_CACHED_CPU_HOST_APERTURE (1u << 14)
/**
 * WDDMSEG_SEGMENT_FLAG_APPLICATION_TARGET - ApplicationTarget
 */
#define WDDMSEG_SEGMENT_FLAG_APPLICATION_TARGET		(1u << 15)
/**
 * WDDMSEG_SEGMENT_FLAG_VPR_SUPPORTED - VprSupported: the segment can hold
 * HardwareProtected allocations
 */
#define WDDMSEG_SEGMENT_FLAG_VPR_SUPPORTED		(1u << 16)
/**
 * WDDMSEG_SEGMENT_FLAG_VPR_PRESERVED_DURING_STANDBY - VprPreservedDuringStandby
 */
#define WDDMSEG_SEGMENT_FLAG_VPR_PRESERVED_DURING_STANDBY (1u << 17)
/**
 * WDDMSEG_SEGMENT_FLAG_ENCRYPTED_PAGING_SUPPORTED - EncryptedPagingSupported:
 * HardwareProtected content leaves the segment only sealed by the device
 */
#define WDDMSEG_SEGMENT_FLAG_ENCRYPTED_PAGING_SUPPORTED	(1u << 18)
/**
 * WDDMSEG_SEGMENT_FLAG_LOCAL_BUDGET_GROUP - LocalBudgetGroup: the segment
 * counts in WDDMSEG_BUDGET_LOCAL
 */
#define WDDMSEG_SEGMENT_FLAG_LOCAL_BUDGET_GROUP		(1u << 19)
/**
 * WDDMSEG_SEGMENT_FLAG_NON_LOCAL_BUDGET_GROUP - NonLocalBudgetGroup: the
 * segment counts in WDDMSEG_BUDGET_NON_LOCAL
 */
#define WDDMSEG_SEGMENT_FLAG_NON_LOCAL_BUDGET_GROUP	(1u << 20)
/**
 * WDDMSEG_SEGMENT_FLAG_POPULATED_BY_RESERVED_DDR_BY_FIRMWARE -
 * PopulatedByReservedDDRByFirmware
 */
#define WDDMSEG_SEGMENT_FLAG_POPULATED_BY_RESERVED_DDR_BY_FIRMWARE (1u << 21)
/**
 * WDDMSEG_SEGMENT_FLAG_KNOWN_MASK - every member of DXGK_SEGMENTFLAGS
 */
#define WDDMSEG_SEGMENT_FLAG_KNOWN_MASK			0x003fffffu

/*
 * DXGK_VIDMMCAPS: &drm_wddmseg_query_adapter.vidmm_caps and
 * &drm_wddmseg_query_adapter.device_vidmm_caps are the Value of the WDDM
 * structure, bit n its member n, with the values of DXGK_VIDMMCAP_* in
 * wddmseg_hw.h. PagingNode is &drm_wddmseg_query_adapter.paging_node.
 */
/**
 * WDDMSEG_VIDMM_CAP_OUT_OF_ORDER_LOCK - OutOfOrderLock
 */
#define WDDMSEG_VIDMM_CAP_OUT_OF_ORDER_LOCK		(1u << 0)
/**
 * WDDMSEG_VIDMM_CAP_DEDICATED_PAGING_ENGINE - DedicatedPagingEngine (reserved
 * by WDDM)
 */
#define WDDMSEG_VIDMM_CAP_DEDICATED_PAGING_ENGINE	(1u << 1)
/**
 * WDDMSEG_VIDMM_CAP_PAGING_ENGINE_CAN_SWIZZLE - PagingEngineCanSwizzle
 * (reserved by WDDM)
 */
#define WDDMSEG_VIDMM_CAP_PAGING_ENGINE_CAN_SWIZZLE	(1u << 2)
/**
 * WDDMSEG_VIDMM_CAP_SECTION_BACKED_PRIMARY - SectionBackedPrimary
 */
#define WDDMSEG_VIDMM_CAP_SECTION_BACKED_PRIMARY	(1u << 3)
/**
 * WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE - CrossAdapterResource
 */
#define WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE	(1u << 4)
/**
 * WDDMSEG_VIDMM_CAP_VIRTUAL_ADDRESSING_SUPPORTED - VirtualAddressingSupported
 */
#define WDDMSEG_VIDMM_CAP_VIRTUAL_ADDRESSING_SUPPORTED	(1u << 5)
/**
 * WDDMSEG_VIDMM_CAP_GPU_MMU_SUPPORTED - GpuMmuSupported
 */
#define WDDMSEG_VIDMM_CAP_GPU_MMU_SUPPORTED		(1u << 6)
/**
 * WDDMSEG_VIDMM_CAP_IO_MMU_SUPPORTED - IoMmuSupported
 */
#define WDDMSEG_VIDMM_CAP_IO_MMU_SUPPORTED		(1u << 7)
/**
 * WDDMSEG_VIDMM_CAP_REPLICATE_GDI_CONTENT - ReplicateGdiContent
 */
#define WDDMSEG_VIDMM_CAP_REPLICATE_GDI_CONTENT		(1u << 8)
/**
 * WDDMSEG_VIDMM_CAP_NON_CPU_VISIBLE_PRIMARY - NonCpuVisiblePrimary
 */
#define WDDMSEG_VIDMM_CAP_NON_CPU_VISIBLE_PRIMARY	(1u << 9)
/**
 * WDDMSEG_VIDMM_CAP_PARAVIRTUALIZATION_SUPPORTED - ParavirtualizationSupported
 */
#define WDDMSEG_VIDMM_CAP_PARAVIRTUALIZATION_SUPPORTED	(1u << 10)
/**
 * WDDMSEG_VIDMM_CAP_IO_MMU_SECURE_MODE_SUPPORTED - IoMmuSecureModeSupported
 */
#define WDDMSEG_VIDMM_CAP_IO_MMU_SECURE_MODE_SUPPORTED	(1u << 11)
/**
 * WDDMSEG_VIDMM_CAP_DISABLE_SELF_REFRESH_VRAM_IN_S3 -
 * DisableSelfRefreshVRAMInS3
 */
#define WDDMSEG_VIDMM_CAP_DISABLE_SELF_REFRESH_VRAM_IN_S3 (1u << 12)
/**
 * WDDMSEG_VIDMM_CAP_IO_MMU_SECURE_MODE_REQUIRED - IoMmuSecureModeRequired
 */
#define WDDMSEG_VIDMM_CAP_IO_MMU_SECURE_MODE_REQUIRED	(1u << 13)
/**
 * WDDMSEG_VIDMM_CAP_MAP_APERTURE2_SUPPORTED - MapAperture2Supported
 */
#define WDDMSEG_VIDMM_CAP_MAP_APERTURE2_SUPPORTED	(1u << 14)
/**
 * WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE_TEXTURE -
 * CrossAdapterResourceTexture
 */
#define WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE_TEXTURE (1u << 15)
/**
 * WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE_SCANOUT -
 * CrossAdapterResourceScanout
 */
#define WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE_SCANOUT (1u << 16)
/**
 * WDDMSEG_VIDMM_CAP_ALWAYS_POWERED_VRAM - AlwaysPoweredVRAM
 */
#define WDDMSEG_VIDMM_CAP_ALWAYS_POWERED_VRAM		(1u << 17)
/**
 * WDDMSEG_VIDMM_CAP_KNOWN_MASK - every member of DXGK_VIDMMCAPS.Value
 */
#define WDDMSEG_VIDMM_CAP_KNOWN_MASK			0x0003ffffu

/*
 * DXGK_ALLOCATIONINFOFLAGS: bit n of the value is member n of the WDDM
 * structure. What the driver does with each is in
 * Documentation/gpu/wddmseg.rst; flags it cannot honour are refused, never
 * ignored.
 */
#define WDDMSEG_ALLOC_CPU_VISIBLE			(1u << 0)
#define WDDMSEG_ALLOC_PERMANENT_SYSMEM			(1u << 1)
#define WDDMSEG_ALLOC_CACHED				(1u << 2)
#define WDDMSEG_ALLOC_PROTECTED				(1u << 3)
#define WDDMSEG_ALLOC_EXISTING_SYSMEM			(1u << 4)
#define WDDMSEG_ALLOC_EXISTING_KERNEL_SYSMEM		(1u << 5)
#define WDDMSEG_ALLOC_FROM_END_OF_SEGMENT		(1u << 6)
#define WDDMSEG_ALLOC_SWIZZLED				(1u << 7)
#define WDDMSEG_ALLOC_OVERLAY				(1u << 8)
#define WDDMSEG_ALLOC_CAPTURE				(1u << 9)
#define WDDMSEG_ALLOC_USE_ALTERNATE_VA			(1u << 10)
#define WDDMSEG_ALLOC_SYNCHRONOUS_PAGING		(1u << 11)
#define WDDMSEG_ALLOC_LINK_MIRRORED			(1u << 12)
#define WDDMSEG_ALLOC_LINK_INSTANCED			(1u << 13)
#define WDDMSEG_ALLOC_HISTORY_BUFFER			(1u << 14)
#define WDDMSEG_ALLOC_ACCESSED_PHYSICALLY		(1u << 15)
#define WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION	(1u << 16)
#define WDDMSEG_ALLOC_HARDWARE_PROTECTED		(1u << 17)
#define WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND		(1u << 18)

/** WDDMSEG_SEGMENT_SYSTEM - segment id 0: system memory */
#define WDDMSEG_SEGMENT_SYSTEM		0

/**
 * WDDMSEG_SEGMENT_BIT - a segment id as a bit of a segment set
 * @id: segment id, 1..segment_count
 *
 * As in WDDM segment sets, bit 0 is segment 1.
 */
#define WDDMSEG_SEGMENT_BIT(id)		(1u << ((id) - 1))

/**
 * WDDMSEG_MAX_PREFERRED - entries of &drm_wddmseg_gem_create.preferred
 */
#define WDDMSEG_MAX_PREFERRED		8

/**
 * WDDMSEG_CREATE_CROSS_ADAPTER - &drm_wddmseg_gem_create.create_flags:
 * the allocation is a cross-adapter resource (uapi version 6)
 *
 * The only kind of allocation another device may attach to (import).
 * DXGK_VIDMMCAPS gives its properties: CpuVisible, write-combined (not
 * Cached), only aperture segments (or system memory) in the supported
 * set, linear, with a row pitch (&drm_wddmseg_gem_create.pitch) that is a
 * multiple of WDDMSEG_CROSS_ADAPTER_PITCH_ALIGNMENT and a height
 * (&drm_wddmseg_gem_create.height) that is a multiple of
 * WDDMSEG_CROSS_ADAPTER_HEIGHT_ALIGNMENT, pitch * height bytes fitting
 * the allocation's size.
 */
#define WDDMSEG_CREATE_CROSS_ADAPTER		(1u << 0)
/**
 * WDDMSEG_CREATE_KNOWN_MASK - every bit of &drm_wddmseg_gem_create.create_flags
 */
#define WDDMSEG_CREATE_KNOWN_MASK		0x00000001u
/**
 * WDDMSEG_CROSS_ADAPTER_PITCH_ALIGNMENT - D3DKMT_CROSS_ADAPTER_RESOURCE_PITCH_ALIGNMENT
 */
#define WDDMSEG_CROSS_ADAPTER_PITCH_ALIGNMENT	128
/**
 * WDDMSEG_CROSS_ADAPTER_HEIGHT_ALIGNMENT - D3DKMT_CROSS_ADAPTER_RESOURCE_HEIGHT_ALIGNMENT
 */
#define WDDMSEG_CROSS_ADAPTER_HEIGHT_ALIGNMENT	4

/**
 * struct drm_wddmseg_gem_create - create an allocation
 *
 * Argument of DRM_IOCTL_WDDMSEG_GEM_CREATE, the analogue of a WDDM
 * allocation described by DXGK_ALLOCATIONINFO. The allocation is made
 * resident at once, in the first segment of @preferred that has room,
 * evicting least recently used allocations from the preferred segments if
 * none has, and in system memory as the last resort. It is zero-filled.
 */
struct drm_wddmseg_gem_create {
	/** @size: in: bytes, rounded up to the page size. */
	__u64 size;
	/** @flags: in: DXGK_ALLOCATIONINFOFLAGS value (WDDMSEG_ALLOC_*). */
	__u32 flags;
	/** @handle: out: GEM handle. */
	__u32 handle;
	/**
	 * @supported_segments: in: segment set (WDDMSEG_SEGMENT_BIT) the
	 * allocation may be placed in; 0 means system memory only.
	 */
	__u32 supported_segments;
	/**
	 * @eviction_segments: in: subset of @supported_segments to evict to
	 * before falling back to system memory; segments with the
	 * PitchAlignment flag are never eviction targets.
	 */
	__u32 eviction_segments;
	/**
	 * @preferred: in: segment ids in order of preference, terminated by 0
	 * or the end of the array; each must be in @supported_segments. An
	 * empty list means the supported segments in id order.
	 */
	__u8 preferred[WDDMSEG_MAX_PREFERRED];
	/**
	 * @bank_hint: in: 0, or 1 + the index of the bank of @preferred[0]
	 * the allocation should be placed in (HintedBank); that segment must
	 * use banking.
	 */
	__u32 bank_hint;
	/** @alignment: in: bytes, a power of two, or 0 for the page size. */
	__u32 alignment;
	/**
	 * @user_ptr: in: with ExistingSysMem, the page-aligned user address
	 * of @size bytes that become the backing store; 0 otherwise.
	 */
	__u64 user_ptr;
	/**
	 * @create_flags: in (version 6): WDDMSEG_CREATE_* bits; other bits
	 * are refused. Up to version 5 this was part of @reserved.
	 */
	__u32 create_flags;
	/**
	 * @pitch: in (version 6): with WDDMSEG_CREATE_CROSS_ADAPTER, bytes
	 * per row of the resource; 0 otherwise.
	 */
	__u32 pitch;
	/**
	 * @height: in (version 6): with WDDMSEG_CREATE_CROSS_ADAPTER, rows
	 * of the resource; 0 otherwise.
	 */
	__u32 height;
	/** @pad: must be zero. */
	__u32 pad;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/**
 * struct drm_wddmseg_gem_mmap_offset - fake offset to mmap an allocation
 *
 * Argument of DRM_IOCTL_WDDMSEG_GEM_MMAP_OFFSET, the analogue of
 * pfnLockCb. Only allocations with CpuVisible or CpuVisibleOnDemand can be
 * mapped.
 */
struct drm_wddmseg_gem_mmap_offset {
	/** @handle: in: GEM handle. */
	__u32 handle;
	/** @pad: must be zero. */
	__u32 pad;
	/** @offset: out: offset to pass to mmap() on the DRM file. */
	__u64 offset;
};

/* Values of &drm_wddmseg_gem_info.state */
#define WDDMSEG_STATE_PINNED		(1u << 0)	/* never evicted */
#define WDDMSEG_STATE_RESIDENT		(1u << 1)	/* in a device segment */
/* In several ranges of the segment; @offset is the first page's. */
#define WDDMSEG_STATE_BLOCKS		(1u << 2)
/*
 * A cross-adapter resource (version 6): created with
 * WDDMSEG_CREATE_CROSS_ADAPTER, or imported from another device.
 */
#define WDDMSEG_STATE_CROSS_ADAPTER	(1u << 3)

/**
 * struct drm_wddmseg_gem_info - where an allocation lives
 *
 * Argument of DRM_IOCTL_WDDMSEG_GEM_INFO.
 */
struct drm_wddmseg_gem_info {
	/** @handle: in: GEM handle. */
	__u32 handle;
	/** @segment_id: out: current segment, 0 for system memory. */
	__u32 segment_id;
	/**
	 * @offset: out: byte offset inside the segment (of the first page
	 * with WDDMSEG_STATE_BLOCKS).
	 */
	__u64 offset;
	/** @size: out: bytes. */
	__u64 size;
	/** @flags: out: the allocation's DXGK_ALLOCATIONINFOFLAGS value. */
	__u32 flags;
	/** @state: out: WDDMSEG_STATE_* bits. */
	__u32 state;
	/** @eviction_count: out: times the allocation was evicted. */
	__u64 eviction_count;
	/** @move_count: out: times its content moved between segments. */
	__u64 move_count;
	/**
	 * @priority: out (version 10): the allocation's eviction priority,
	 * WDDMSEG_ALLOCATION_PRIORITY_* (NORMAL unless
	 * DRM_IOCTL_WDDMSEG_SET_ALLOCATION_PRIORITY changed it). Up to
	 * version 9 this was part of @reserved.
	 */
	__u32 priority;
	/**
	 * @offer_priority: out (version 10): WDDMSEG_OFFER_PRIORITY_* while
	 * the allocation is offered, 0 otherwise.
	 */
	__u32 offer_priority;
	/** @reserved: must be zero. */
	__u64 reserved[3];
};

/**
 * struct drm_wddmseg_gem_residency - make resident or evict
 *
 * Argument of DRM_IOCTL_WDDMSEG_GEM_MAKE_RESIDENT (D3DKMTMakeResident) and
 * DRM_IOCTL_WDDMSEG_GEM_EVICT (D3DKMTEvict). MAKE_RESIDENT moves the
 * allocation into @segment_id (which must be in its supported set),
 * evicting others as needed, or with @segment_id 0 into the first preferred
 * segment that can take it. EVICT moves it to system memory; @segment_id
 * must be 0. Pinned allocations cannot move (-EBUSY).
 *
 * Since uapi version 2, EVICT takes @flags (MAKE_RESIDENT takes none).
 * With WDDMSEG_EVICT_DISCARD the content may be dropped (WDDM's
 * DiscardContent, as for D3DKMTOfferAllocations with discard): the driver
 * gives up the allocation's place without a Transfer and its content is
 * gone; it reads as zeroes from then on, in system memory and after the
 * next MAKE_RESIDENT. ExistingSysMem allocations cannot be discarded
 * (their content is the user's memory).
 */
struct drm_wddmseg_gem_residency {
	/** @handle: in: GEM handle. */
	__u32 handle;
	/** @segment_id: in: target segment, see above. */
	__u32 segment_id;
	/**
	 * @flags: in: EVICT: WDDMSEG_EVICT_* bits; MAKE_RESIDENT: must be
	 * zero. Unknown bits are refused (-EINVAL).
	 */
	__u32 flags;
	/** @pad: must be zero. */
	__u32 pad;
	/** @reserved: must be zero. */
	__u64 reserved;
};

/**
 * WDDMSEG_EVICT_DISCARD - &drm_wddmseg_gem_residency.flags: drop the content
 *
 * The allocation leaves its segment without its content being copied out;
 * it reads as zeroes afterwards.
 */
#define WDDMSEG_EVICT_DISCARD		(1u << 0)

/**
 * struct drm_wddmseg_gem_wait - wait until an allocation is idle
 *
 * Argument of DRM_IOCTL_WDDMSEG_GEM_WAIT. Returns 0 once every pending
 * operation on the allocation (moves, clears) has completed, -ETIME if that
 * did not happen within @timeout_ns (0 polls). When the last of them
 * completed with an error (the copy engine failed the job again after a
 * reset and a replay: -EIO), that error is returned instead of 0: the
 * allocation's content is not what it should be. It keeps being reported
 * until a later operation on the allocation succeeds.
 */
struct drm_wddmseg_gem_wait {
	/** @handle: in: GEM handle. */
	__u32 handle;
	/** @pad: must be zero. */
	__u32 pad;
	/** @timeout_ns: in: relative timeout in nanoseconds. */
	__s64 timeout_ns;
};

/**
 * DRM_WDDMSEG_EVENT_RESIDENCY - &drm_event.type of a residency notification
 */
#define DRM_WDDMSEG_EVENT_RESIDENCY	0x80000000

/**
 * struct drm_wddmseg_event_residency - an allocation changed residency
 *
 * Read from the DRM file that created an allocation with the
 * ExplicitResidencyNotification flag, each time the allocation moves
 * between segments (made resident, evicted, migrated). The analogue of
 * WDDM's NotifyResidency paging operation.
 */
struct drm_wddmseg_event_residency {
	/** @base: type DRM_WDDMSEG_EVENT_RESIDENCY, length of this struct. */
	struct drm_event base;
	/** @handle: the allocation's handle in the creating file. */
	__u32 handle;
	/** @segment_id: segment it now lives in, 0 for system memory. */
	__u32 segment_id;
	/** @offset: byte offset inside that segment. */
	__u64 offset;
	/** @sequence: 1 for the first notification, then counting up. */
	__u64 sequence;
};

/* Values of &drm_wddmseg_query_budget.group */
#define WDDMSEG_BUDGET_LOCAL		0	/* D3DKMT_MEMORY_SEGMENT_GROUP_LOCAL */
#define WDDMSEG_BUDGET_NON_LOCAL	1	/* ..._GROUP_NON_LOCAL */

/**
 * struct drm_wddmseg_query_budget - per-process usage of a segment group
 *
 * Argument of DRM_IOCTL_WDDMSEG_QUERY_BUDGET, modelled on
 * D3DKMTQueryVideoMemoryInfo. A segment belongs to the local group if its
 * flags have LocalBudgetGroup, to the non-local group if they have
 * NonLocalBudgetGroup; without either, memory segments are local and
 * apertures non-local. When segments of the group have ApplicationTarget
 * ("this segment should be targeted by the application budget"), only
 * those make @budget and @available; otherwise all of the group's do.
 * Usage counts the allocations of this DRM file that are resident in the
 * group's segments, all of them.
 *
 * Reservations (uapi version 11, DRM_IOCTL_WDDMSEG_SET_RESERVATION) are
 * those of the process that opened the file, on the local group only: the
 * non-local group's @available_for_reservation is 0.
 *
 * Since uapi version 11 @budget is this file's share of the group: its
 * reservation plus an equal part of what no file reserved, shared among
 * the files of the device that have allocations resident in the group or
 * a reservation (this one always counted):
 * budget = reservation + (group - all reservations) / active files,
 * where group is the CommitLimit sum above. Alone on the device, a file's
 * budget is the whole group.
 */
struct drm_wddmseg_query_budget {
	/** @group: in: WDDMSEG_BUDGET_LOCAL or WDDMSEG_BUDGET_NON_LOCAL. */
	__u32 group;
	/** @pad: must be zero. */
	__u32 pad;
	/**
	 * @budget: out: bytes the process may use: its share of the
	 * CommitLimit of the group's (ApplicationTarget) segments (see
	 * above).
	 */
	__u64 budget;
	/** @current_usage: out: bytes of this file resident in the group. */
	__u64 current_usage;
	/**
	 * @available: out: bytes still free in the group's (ApplicationTarget)
	 * segments.
	 */
	__u64 available;
	/**
	 * @current_reservation: out: bytes this file's reservation keeps for
	 * it (DRM_IOCTL_WDDMSEG_SET_RESERVATION).
	 */
	__u64 current_reservation;
	/**
	 * @available_for_reservation: out: the largest reservation this file
	 * may set: half of @budget less the reservations of the other files
	 * of the device (its own included in the result); 0 for the
	 * non-local group.
	 */
	__u64 available_for_reservation;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/* Values of &drm_wddmseg_submit_blit.op */
#define WDDMSEG_BLIT_COPY		0	/* a Transfer */
#define WDDMSEG_BLIT_FILL		1	/* a Fill */

/* Bits of &drm_wddmseg_submit_blit.flags */
#define WDDMSEG_BLIT_FENCE_OUT		(1u << 0)	/* return a sync_file */
#define WDDMSEG_BLIT_SYNCOBJ_IN		(1u << 1)	/* wait for in_syncobj */
#define WDDMSEG_BLIT_SYNCOBJ_OUT	(1u << 2)	/* signal out_syncobj */
#define WDDMSEG_BLIT_VIRTUAL		(1u << 3)	/* offsets are GPU VAs */

/**
 * struct drm_wddmseg_submit_blit - copy or fill with the copy engine
 *
 * Argument of DRM_IOCTL_WDDMSEG_SUBMIT_BLIT: the paging engine used as a
 * blit engine. The operation is queued behind every earlier operation on
 * the engine and the ioctl returns at once; GEM_WAIT on the allocations
 * waits for it, and with WDDMSEG_BLIT_FENCE_OUT a sync_file fd signals its
 * completion (poll() it, or import it as a syncobj).
 *
 * Syncobjs (uapi version 4): with WDDMSEG_BLIT_SYNCOBJ_IN the blit runs
 * after the fence of @in_syncobj (at timeline point @in_point, or its
 * current fence for 0); there is no GPU scheduler, so the ioctl waits for
 * that fence (interruptibly) before it queues the blit; -EINVAL if the
 * point has no fence yet. With WDDMSEG_BLIT_SYNCOBJ_OUT the blit's fence
 * becomes the fence of @out_syncobj (binary, @out_point 0) or is added at
 * timeline point @out_point. Without the flag the fields must be zero.
 *
 * GPU virtual addresses (uapi version 9): with WDDMSEG_BLIT_VIRTUAL the
 * blit is a TRANSFER_VIRTUAL (COPY) or FILL_VIRTUAL (FILL) in the address
 * space @vm_id of this file: @src_offset and @dst_offset are GPU virtual
 * addresses in it, translated by the device's MMU through the page tables
 * DRM_IOCTL_WDDMSEG_VM_BIND wrote, and @src_handle and @dst_handle must
 * be zero. What the addresses map need not be known to the caller; an
 * address that is not mapped, or a write through a read-only mapping,
 * is a GPU page fault: the blit's fence signals with -EFAULT (GEM_WAIT,
 * the sync_file and the syncobj report it), the bytes before the
 * faulting page are written, and the engine goes on with the work queued
 * behind it. Without the flag @vm_id and @vm_pad must be zero.
 */
struct drm_wddmseg_submit_blit {
	/** @op: in: WDDMSEG_BLIT_COPY or WDDMSEG_BLIT_FILL. */
	__u32 op;
	/** @flags: in: WDDMSEG_BLIT_* flags. */
	__u32 flags;
	/** @src_handle: in: source allocation (COPY), 0 for FILL. */
	__u32 src_handle;
	/** @dst_handle: in: destination allocation. */
	__u32 dst_handle;
	/** @src_offset: in: byte offset in the source, a multiple of 4. */
	__u64 src_offset;
	/** @dst_offset: in: byte offset in the destination, a multiple of 4. */
	__u64 dst_offset;
	/** @size: in: bytes, a non-zero multiple of 4. */
	__u64 size;
	/** @pattern: in: 32-bit value a FILL repeats; 0 for COPY. */
	__u32 pattern;
	/** @fence_fd: out: sync_file fd with WDDMSEG_BLIT_FENCE_OUT, else -1. */
	__s32 fence_fd;
	/**
	 * @vm_id: in (version 9): with WDDMSEG_BLIT_VIRTUAL the address space
	 * (DRM_IOCTL_WDDMSEG_VM_CREATE) the offsets are addresses of; else 0.
	 * Up to version 9 this was part of @reserved.
	 */
	__u32 vm_id;
	/** @vm_pad: must be zero. */
	__u32 vm_pad;
	/** @reserved: must be zero. */
	__u64 reserved;
	/** @in_syncobj: in: syncobj to wait for (WDDMSEG_BLIT_SYNCOBJ_IN). */
	__u32 in_syncobj;
	/** @out_syncobj: in: syncobj to signal (WDDMSEG_BLIT_SYNCOBJ_OUT). */
	__u32 out_syncobj;
	/** @in_point: in: timeline point of @in_syncobj, 0 for binary. */
	__u64 in_point;
	/** @out_point: in: timeline point of @out_syncobj, 0 for binary. */
	__u64 out_point;
};

/**
 * struct drm_wddmseg_vm_create - create a GPU address space (version 7)
 *
 * Argument of DRM_IOCTL_WDDMSEG_VM_CREATE: a new GPU virtual address
 * space of the calling file (WDDM's per-process GPU VA space under the
 * GpuMmu model), with its root page table allocated in the segment the
 * device names for page tables and zeroed by the paging engine (every
 * address invalid). The address space lives until
 * DRM_IOCTL_WDDMSEG_VM_DESTROY or until the file is closed.
 *
 * Fails with -EOPNOTSUPP where the device has no GPU MMU (rule
 * vm-no-mmu) or the kernel has no drm_gpuvm (6.1; rule vm-no-gpuvm),
 * -EINVAL for flags or reserved fields that are not zero.
 */
struct drm_wddmseg_vm_create {
	/** @flags: in: must be zero (no flags are defined yet). */
	__u32 flags;
	/** @vm_id: out: the address space's id in this file, never 0. */
	__u32 vm_id;
	/** @va_start: out: first usable GPU virtual address. */
	__u64 va_start;
	/** @va_end: out: end (exclusive) of the usable GPU virtual addresses. */
	__u64 va_end;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/**
 * struct drm_wddmseg_vm_destroy - destroy a GPU address space (version 7)
 *
 * Argument of DRM_IOCTL_WDDMSEG_VM_DESTROY. Fails with -ENOENT for an id
 * this file has no address space for.
 */
struct drm_wddmseg_vm_destroy {
	/** @vm_id: in: id from DRM_IOCTL_WDDMSEG_VM_CREATE. */
	__u32 vm_id;
	/** @pad: must be zero. */
	__u32 pad;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/* Values of &drm_wddmseg_vm_bind.op */
#define WDDMSEG_VM_BIND_OP_MAP		0	/* map an allocation's range */
#define WDDMSEG_VM_BIND_OP_UNMAP	1	/* unmap a VA range */

/* Bits of &drm_wddmseg_vm_bind.flags */
#define WDDMSEG_VM_BIND_READ_ONLY	(1u << 0)	/* MAP: no GPU writes */

/**
 * struct drm_wddmseg_vm_bind - map or unmap GPU virtual addresses
 *
 * Argument of DRM_IOCTL_WDDMSEG_VM_BIND (uapi version 9): the
 * UpdatePageTable / FlushTlb half of WDDM's GpuMmu model, in the shape of
 * a DRM VM_BIND (Documentation/gpu/drm-vm-bind-async.rst), synchronous:
 * the ioctl returns once the page tables are written and the TLB flushed.
 *
 * WDDMSEG_VM_BIND_OP_MAP maps bytes [@bo_offset, @bo_offset + @range) of
 * allocation @handle at GPU virtual addresses [@va, @va + @range) of
 * address space @vm_id, read-only with WDDMSEG_VM_BIND_READ_ONLY.
 * Whatever was mapped in the range before is unmapped first (a part of
 * an older mapping outside the range stays mapped: the mapping is
 * split). While mapped, an allocation stays where it is (pinned, as for
 * scanout): it cannot be evicted, offered or moved, and it keeps
 * a reference, so closing its handle does not free it.
 *
 * WDDMSEG_VM_BIND_OP_UNMAP unmaps [@va, @va + @range) (what is mapped in
 * it; unmapping nothing succeeds); @handle, @bo_offset and @flags must be
 * zero. When the ioctl returns, no GPU access through the range reaches the old
 * pages any more (the TLB flush completed), and the allocations are no
 * longer pinned by it.
 *
 * @va, @range and @bo_offset are multiples of 4096, @range not zero, the
 * range inside the space (&drm_wddmseg_vm_create.va_start, va_end) and,
 * for MAP, inside the allocation. Errors: -EINVAL (rules vm-bind-op,
 * vm-bind-flags, vm-bind-reserved, vm-bind-align, vm-bind-range), -ENOENT
 * (vm-id, or no such handle), -EOPNOTSUPP (vm-no-gpuvm, or an allocation
 * the device must not reach by a GPU virtual address: Protected or
 * HardwareProtected (rule vm-bind-protected), PermanentSysMem (vm-bind-permanent), imported
 * through PRIME (vm-bind-import)), -EINVAL for an offered allocation (rule
 * offered-no-access), -ENOSPC (no room for a page table in the page-table
 * segment), -ENOMEM; on any of them nothing changed. An UNMAP allocates
 * memory only to split a mapping it cuts through (two small structures).
 * An offered allocation cannot be mapped; a mapped one cannot be offered
 * (-EBUSY, as other pinned allocations).
 */
struct drm_wddmseg_vm_bind {
	/** @vm_id: in: address space from DRM_IOCTL_WDDMSEG_VM_CREATE. */
	__u32 vm_id;
	/** @op: in: WDDMSEG_VM_BIND_OP_MAP or WDDMSEG_VM_BIND_OP_UNMAP. */
	__u32 op;
	/** @flags: in: WDDMSEG_VM_BIND_* bits (MAP only). */
	__u32 flags;
	/** @handle: in: MAP: the allocation; UNMAP: 0. */
	__u32 handle;
	/** @bo_offset: in: MAP: first byte of the allocation mapped; UNMAP: 0. */
	__u64 bo_offset;
	/** @va: in: first GPU virtual address. */
	__u64 va;
	/** @range: in: bytes. */
	__u64 range;
	/** @reserved: must be zero (in and out syncobjs of an async mode). */
	__u64 reserved[4];
};

/**
 * WDDMSEG_OFFER_MAX_HANDLES - most handles one OFFER, RECLAIM or
 * SET_ALLOCATION_PRIORITY takes
 */
#define WDDMSEG_OFFER_MAX_HANDLES	4096

/* Values of &drm_wddmseg_offer_allocations.priority (D3DKMT_OFFER_PRIORITY) */
#define WDDMSEG_OFFER_PRIORITY_LOW	1	/* discarded first */
#define WDDMSEG_OFFER_PRIORITY_NORMAL	2
#define WDDMSEG_OFFER_PRIORITY_HIGH	3	/* discarded last */

/**
 * struct drm_wddmseg_offer_allocations - let the driver drop the content
 *
 * Argument of DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS (uapi version 8),
 * modelled on D3DKMTOfferAllocations. Each allocation is offered: when
 * the driver needs its memory it gives the place up without copying the
 * content out (a DiscardContent, counted in sysfs ``discard_bytes``),
 * offered allocations before any other; of one segment, in @priority
 * order (LOW first, whatever the order of the offers; of one priority,
 * the one offered first).
 * An eviction of an offered allocation (GEM_EVICT too) is such a discard.
 * Until DRM_IOCTL_WDDMSEG_RECLAIM_ALLOCATIONS, an offered allocation
 * cannot be CPU-faulted (SIGBUS), blitted or made resident (-EINVAL).
 *
 * All or nothing: on any error no allocation of the call is offered.
 * Refused (-EINVAL): an allocation offered already (also twice in one
 * call), imported or exported through PRIME (another device may use
 * it), ExistingSysMem (its content is the user's memory), PermanentSysMem
 * (its system copy is its content for life); pinned ones (scanout, a
 * PRIME pin) with -EBUSY.
 */
struct drm_wddmseg_offer_allocations {
	/** @handles: in: user pointer to @count __u32 GEM handles. */
	__u64 handles;
	/** @count: in: 1 to WDDMSEG_OFFER_MAX_HANDLES. */
	__u32 count;
	/** @priority: in: WDDMSEG_OFFER_PRIORITY_*. */
	__u32 priority;
	/** @flags: in: must be zero. */
	__u32 flags;
	/** @pad: must be zero. */
	__u32 pad;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/* Bits of &drm_wddmseg_reclaim_allocations.flags */
#define WDDMSEG_RECLAIM_MAKE_RESIDENT	(1u << 0)	/* validate each one */

/* Values written to &drm_wddmseg_reclaim_allocations.results */
#define WDDMSEG_RECLAIM_OK		0	/* content intact */
#define WDDMSEG_RECLAIM_DISCARDED	1	/* content dropped: zeroes */

/**
 * struct drm_wddmseg_reclaim_allocations - take offered allocations back
 *
 * Argument of DRM_IOCTL_WDDMSEG_RECLAIM_ALLOCATIONS (uapi version 8),
 * modelled on D3DKMTReclaimAllocations2. Each allocation stops being
 * offered, and its entry of @results says whether its content survived
 * (WDDMSEG_RECLAIM_OK) or was discarded while offered
 * (WDDMSEG_RECLAIM_DISCARDED: it reads as zeroes, as after GEM_EVICT with
 * WDDMSEG_EVICT_DISCARD). With WDDMSEG_RECLAIM_MAKE_RESIDENT each one is
 * then placed as MAKE_RESIDENT with segment 0 places it; if that fails
 * the ioctl returns its error, every allocation is reclaimed all the same
 * and @results are written.
 *
 * An allocation that is not offered (also twice in one call) is refused
 * with -EINVAL, and then none of the call is reclaimed.
 */
struct drm_wddmseg_reclaim_allocations {
	/** @handles: in: user pointer to @count __u32 GEM handles. */
	__u64 handles;
	/** @results: in: user pointer to @count __u32, out: WDDMSEG_RECLAIM_*. */
	__u64 results;
	/** @count: in: 1 to WDDMSEG_OFFER_MAX_HANDLES. */
	__u32 count;
	/** @flags: in: WDDMSEG_RECLAIM_* bits. */
	__u32 flags;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/*
 * Values of &drm_wddmseg_set_allocation_priority.priority and
 * &drm_wddmseg_gem_info.priority: the five D3DDDI_ALLOCATIONPRIORITY
 * values, with WDDM's numbers. Under memory pressure MINIMUM is evicted
 * first and MAXIMUM last; see "Allocation priority" in
 * Documentation/gpu/wddmseg.rst for how finely the driver tells them
 * apart.
 */
/** WDDMSEG_ALLOCATION_PRIORITY_MINIMUM - D3DDDI_ALLOCATIONPRIORITY_MINIMUM */
#define WDDMSEG_ALLOCATION_PRIORITY_MINIMUM	0x28000000u
/** WDDMSEG_ALLOCATION_PRIORITY_LOW - D3DDDI_ALLOCATIONPRIORITY_LOW */
#define WDDMSEG_ALLOCATION_PRIORITY_LOW		0x50000000u
/**
 * WDDMSEG_ALLOCATION_PRIORITY_NORMAL - D3DDDI_ALLOCATIONPRIORITY_NORMAL,
 * every allocation's priority at creation
 */
#define WDDMSEG_ALLOCATION_PRIORITY_NORMAL	0x78000000u
/** WDDMSEG_ALLOCATION_PRIORITY_HIGH - D3DDDI_ALLOCATIONPRIORITY_HIGH */
#define WDDMSEG_ALLOCATION_PRIORITY_HIGH	0xa0000000u
/** WDDMSEG_ALLOCATION_PRIORITY_MAXIMUM - D3DDDI_ALLOCATIONPRIORITY_MAXIMUM */
#define WDDMSEG_ALLOCATION_PRIORITY_MAXIMUM	0xc8000000u

/**
 * struct drm_wddmseg_set_allocation_priority - order evictions
 *
 * Argument of DRM_IOCTL_WDDMSEG_SET_ALLOCATION_PRIORITY (uapi version 10),
 * modelled on D3DKMTSetAllocationPriority with one priority for every
 * allocation of the call. When the driver needs room in a segment it
 * evicts allocations of a lower priority before those of a higher one,
 * whichever process they belong to; offered allocations
 * (DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS) go before any of them whatever
 * their priority. An offered allocation keeps the priority set (also
 * while offered) and returns to it when reclaimed.
 *
 * All or nothing: on any error no priority of the call changes. Refused
 * (-EINVAL): a @priority that is not one of WDDMSEG_ALLOCATION_PRIORITY_*,
 * a non-zero @flags, @pad or @reserved, a @count outside 1 to
 * WDDMSEG_OFFER_MAX_HANDLES, an allocation given twice, an allocation
 * imported through PRIME (it lives in system memory only, so has nothing
 * to be evicted from); -ENOENT for an unknown handle.
 */
struct drm_wddmseg_set_allocation_priority {
	/** @handles: in: user pointer to @count __u32 GEM handles. */
	__u64 handles;
	/** @count: in: 1 to WDDMSEG_OFFER_MAX_HANDLES. */
	__u32 count;
	/** @priority: in: WDDMSEG_ALLOCATION_PRIORITY_*. */
	__u32 priority;
	/** @flags: in: must be zero. */
	__u32 flags;
	/** @pad: must be zero. */
	__u32 pad;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/**
 * struct drm_wddmseg_set_reservation - reserve local memory for a process
 *
 * Argument of DRM_IOCTL_WDDMSEG_SET_RESERVATION (uapi version 11),
 * modelled on D3DKMTSetVideoMemoryReservation: the process that opened
 * the file asks that @reservation bytes of what its allocations have
 * resident in the group's segments be kept for it. An eviction made for
 * another process (or for the driver's own allocations) never takes an
 * allocation of this file when that would leave less than @reservation
 * bytes of the file resident in the group; the file's own allocations
 * may still evict each other. A new value replaces the old one; 0 ends
 * the reservation, and so does closing the file.
 *
 * Fails with -EINVAL for a bad group or non-zero @flags or @reserved,
 * -EOPNOTSUPP for a reservation on the non-local group (rule
 * reserve-non-local: aperture pages are system memory, which the kernel's
 * reclaim may take), and -ENOSPC when @reservation is larger than
 * &drm_wddmseg_query_budget.available_for_reservation (rule
 * reserve-over-available).
 */
struct drm_wddmseg_set_reservation {
	/** @group: in: WDDMSEG_BUDGET_LOCAL (or NON_LOCAL with 0). */
	__u32 group;
	/** @flags: in: must be zero. */
	__u32 flags;
	/** @reservation: in: bytes to keep; 0 to end the reservation. */
	__u64 reservation;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/* Bits of &drm_wddmseg_register_trim.flags */
#define WDDMSEG_TRIM_NOTIFY_ENABLE	(1u << 0)	/* 0: unregister */

/**
 * struct drm_wddmseg_register_trim - ask for trim notifications
 *
 * Argument of DRM_IOCTL_WDDMSEG_REGISTER_TRIM_NOTIFICATION (uapi version
 * 11), modelled on D3DKMTRegisterTrimNotification: with
 * WDDMSEG_TRIM_NOTIFY_ENABLE the file receives DRM_WDDMSEG_EVENT_TRIM
 * events (read() on the DRM file) when it is over its budget and memory
 * of the group is needed; flags 0 stops them. Fails with -EINVAL for
 * unknown flags or non-zero @pad or @reserved (rule trim-args).
 */
struct drm_wddmseg_register_trim {
	/** @flags: in: WDDMSEG_TRIM_NOTIFY_ENABLE, or 0. */
	__u32 flags;
	/** @pad: must be zero. */
	__u32 pad;
	/** @reserved: must be zero. */
	__u64 reserved[2];
};

/**
 * DRM_WDDMSEG_EVENT_TRIM - &drm_event.type of a trim notification
 */
#define DRM_WDDMSEG_EVENT_TRIM		0x80000001

/**
 * struct drm_wddmseg_event_trim - the file should trim
 *
 * Read from a DRM file registered with
 * DRM_IOCTL_WDDMSEG_REGISTER_TRIM_NOTIFICATION, the analogue of
 * D3DKMT_TRIMNOTIFICATION: an eviction in a segment of @group found the
 * file over its budget there (&drm_wddmseg_query_budget.budget). The file
 * should evict, offer or destroy @bytes of its allocations in the group
 * within WDDMSEG_TRIM_GRACE_MS; after that the driver evicts the file's
 * least recently used allocations of the lowest priority in the group
 * until it is within its budget. At most one per file and group in
 * WDDMSEG_TRIM_GRACE_MS.
 */
struct drm_wddmseg_event_trim {
	/** @base: type DRM_WDDMSEG_EVENT_TRIM, length of this struct. */
	struct drm_event base;
	/** @group: WDDMSEG_BUDGET_LOCAL or WDDMSEG_BUDGET_NON_LOCAL. */
	__u32 group;
	/** @pad: zero. */
	__u32 pad;
	/** @bytes: how far over its budget the file was. */
	__u64 bytes;
	/** @budget: the file's budget then. */
	__u64 budget;
	/** @sequence: 1 for the file's first trim notification, counting up. */
	__u64 sequence;
};

/**
 * WDDMSEG_TRIM_GRACE_MS - the time a file has to trim after a trim
 * notification before the driver trims it, and the least time between
 * two notifications of one file and group
 */
#define WDDMSEG_TRIM_GRACE_MS		1000

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_WDDMSEG_DRM_H_ */
