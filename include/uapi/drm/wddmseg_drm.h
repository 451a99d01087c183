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
 */
#define WDDMSEG_UAPI_VERSION		1

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

#define DRM_IOCTL_WDDMSEG_QUERY_ADAPTER \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_QUERY_ADAPTER, \
		 struct drm_wddmseg_query_adapter)
#define DRM_IOCTL_WDDMSEG_QUERY_SEGMENT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WDDMSEG_QUERY_SEGMENT, \
		 struct drm_wddmseg_query_segment)

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
	 * @vidmm_caps: DXGK_VIDMMCAPS.Value as reported by the device;
	 * bit n is member n of the WDDM structure.
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
	/**
	 * @reserved: must be zero on input; room for usage counters
	 * (committed and resident bytes, evictions, allocations).
	 */
	__u64 reserved[8];
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_WDDMSEG_DRM_H_ */
