/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * libwddmseg: the userspace side of the wddmseg DRM driver, shaped like
 * libdrm's per-driver libraries and named after the D3DKMT thunks a WDDM
 * user-mode driver calls (D3DKMTOpenAdapterFromDeviceName,
 * D3DKMTQueryAdapterInfo, D3DKMTCreateAllocation, D3DKMTLock2,
 * D3DKMTMakeResident, D3DKMTEvict, D3DKMTQueryVideoMemoryInfo, ...).
 *
 * The adapter handle is the file descriptor of an open wddmseg DRM node
 * (the primary node /dev/dri/cardN or the render node /dev/dri/renderDN),
 * as hAdapter is a D3DKMT_HANDLE: it can be passed to libdrm, mmap(),
 * poll() and fork() like any DRM fd. Every function that can fail returns
 * 0 (or a non-negative count or id) on success and a negative errno value
 * on failure; errno itself is left as the failing call set it.
 *
 * The ioctl structures and constants come from <drm/wddmseg_drm.h> (the
 * driver's uapi header), which this header includes: segment flags are
 * WDDMSEG_SEGMENT_FLAG_*, capabilities WDDMSEG_VIDMM_CAP_*, allocation
 * flags WDDMSEG_ALLOC_*.
 *
 * Build against it with `pkg-config --cflags --libs libwddmseg`; it needs
 * libdrm only.
 */
#ifndef LIBWDDMSEG_H
#define LIBWDDMSEG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/wddmseg_drm.h>

#if defined(__cplusplus)
extern "C" {
#endif

/** LIBWDDMSEG_VERSION - version of this interface (major << 16 | minor) */
#define LIBWDDMSEG_VERSION	0x00010000

/**
 * enum wddmseg_node_type - which DRM node of a device
 * @WDDMSEG_NODE_PRIMARY: /dev/dri/cardN: every ioctl, KMS and dumb buffers
 * @WDDMSEG_NODE_RENDER: /dev/dri/renderDN: the wddmseg ioctls, no KMS
 */
enum wddmseg_node_type {
	WDDMSEG_NODE_PRIMARY,
	WDDMSEG_NODE_RENDER,
};

/* ------------------------------------------------------------------ */
/* Adapters                                                           */

/**
 * wddmseg_ioctl() - issue a DRM ioctl on an adapter
 * @fd: adapter (any DRM fd)
 * @request: the ioctl, e.g. DRM_IOCTL_WDDMSEG_GEM_INFO
 * @arg: its argument structure
 *
 * drmIoctl() (restarted on EINTR and EAGAIN) with the errno convention of
 * this library. Every other function is built on it; use it for requests
 * this library has no function for, or to pass a structure exactly as
 * given (reserved fields included).
 *
 * Return: 0, or the negative errno of the ioctl.
 */
int wddmseg_ioctl(int fd, unsigned long request, void *arg);

/**
 * wddmseg_open_adapter() - open a wddmseg DRM node by its path
 * @path: a DRM node, e.g. "/dev/dri/card0" or "/dev/dri/renderD128"
 * @flags: extra open(2) flags, e.g. O_NONBLOCK for event reads; O_RDWR
 *	and O_CLOEXEC are always given
 *
 * The analogue of D3DKMTOpenAdapterFromDeviceName. Fails when the node
 * belongs to another DRM driver.
 *
 * Return: the adapter's file descriptor (close it with
 * wddmseg_close_adapter()), or a negative errno: that of open(2), or
 * -ENODEV when the node is not driven by wddmseg.
 */
int wddmseg_open_adapter(const char *path, int flags);

/**
 * wddmseg_find_node() - path of a DRM node of a PCI device
 * @bdf: PCI address, "DDDD:BB:DD.F" as in /sys/bus/pci/devices
 * @type: primary or render node
 * @path: receives "/dev/dri/cardN" or "/dev/dri/renderDN"
 * @len: bytes at @path
 *
 * Looks the node up in sysfs (/sys/bus/pci/devices/BDF/drm/).
 *
 * Return: 0, or -ENODEV when there is no such PCI device, -ENXIO when it
 * has no DRM node at all (no driver bound, or the probe failed), -ENOENT
 * when it has none of @type, -ENAMETOOLONG when @len is too small.
 */
int wddmseg_find_node(const char *bdf, enum wddmseg_node_type type,
		      char *path, size_t len);

/**
 * wddmseg_open_adapter_pci() - open a wddmseg device by its PCI address
 * @bdf: PCI address, "DDDD:BB:DD.F"
 * @type: primary or render node
 * @flags: extra open(2) flags, as for wddmseg_open_adapter()
 *
 * wddmseg_find_node() then wddmseg_open_adapter(); the analogue of
 * D3DKMTOpenAdapterFromLuid with the PCI address as the LUID.
 *
 * Return: the adapter's file descriptor, or a negative errno of either.
 */
int wddmseg_open_adapter_pci(const char *bdf, enum wddmseg_node_type type,
			     int flags);

/**
 * wddmseg_close_adapter() - close an adapter (D3DKMTCloseAdapter)
 * @fd: adapter
 *
 * Allocations created through @fd and not destroyed are destroyed by the
 * driver when the last reference to the file goes (mappings hold one).
 *
 * Return: 0, or the negative errno of close(2).
 */
int wddmseg_close_adapter(int fd);

/**
 * wddmseg_is_adapter() - whether a DRM fd belongs to wddmseg
 * @fd: any open DRM node
 *
 * Return: true when the node's driver name is "wddmseg".
 */
bool wddmseg_is_adapter(int fd);

/**
 * wddmseg_query_adapter() - adapter-wide properties (D3DKMTQueryAdapterInfo)
 * @fd: adapter
 * @info: receives DRM_IOCTL_WDDMSEG_QUERY_ADAPTER's answer; zeroed first
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_query_adapter(int fd, struct drm_wddmseg_query_adapter *info);

/**
 * wddmseg_query_mmu() - the device's GPU MMU (DXGK_GPUMMUCAPS and the
 *	DXGK_PAGE_TABLE_LEVEL_DESC of each level), UAPI version 5
 * @fd: adapter
 * @info: receives DRM_IOCTL_WDDMSEG_QUERY_MMU's answer; zeroed first.
 *	@info->flags lacks WDDMSEG_MMU_PRESENT on a device without an MMU.
 *
 * Return: 0 or a negative errno (-ENOTTY from a driver before version 5).
 */
int wddmseg_query_mmu(int fd, struct drm_wddmseg_query_mmu *info);

/**
 * wddmseg_query_segment() - one segment descriptor and its bank table
 * @fd: adapter
 * @segment_id: 1..segment_count
 * @banks: receives up to @bank_capacity bank end offsets; may be NULL
 *	when @bank_capacity is 0
 * @bank_capacity: entries at @banks
 * @info: receives DRM_IOCTL_WDDMSEG_QUERY_SEGMENT's answer; zeroed first.
 *	@info->nb_banks is the full bank count whatever @bank_capacity is.
 *
 * Return: 0 or a negative errno: -EINVAL for an unknown segment, -EFAULT
 * when @banks cannot take @bank_capacity entries.
 */
int wddmseg_query_segment(int fd, uint32_t segment_id, uint64_t *banks,
			  uint32_t bank_capacity,
			  struct drm_wddmseg_query_segment *info);

/**
 * wddmseg_query_budget() - this file's usage of a segment group
 * @fd: adapter
 * @group: WDDMSEG_BUDGET_LOCAL or WDDMSEG_BUDGET_NON_LOCAL
 * @info: receives DRM_IOCTL_WDDMSEG_QUERY_BUDGET's answer; zeroed first
 *
 * The analogue of D3DKMTQueryVideoMemoryInfo.
 *
 * Return: 0 or a negative errno (-EINVAL for an unknown group).
 */
int wddmseg_query_budget(int fd, uint32_t group,
			 struct drm_wddmseg_query_budget *info);

/**
 * wddmseg_set_video_memory_reservation() - keep memory for this process
 * @fd: adapter
 * @group: WDDMSEG_BUDGET_LOCAL (the non-local group takes only 0)
 * @bytes: the reservation, up to the budget's available_for_reservation;
 *	0 ends it
 *
 * The analogue of D3DKMTSetVideoMemoryReservation (uapi version 11):
 * evictions for other processes leave this file at least @bytes resident
 * in the group. wddmseg_query_budget() reads it back as
 * current_reservation.
 *
 * Return: 0 or a negative errno (-ENOSPC over what is available,
 * -EOPNOTSUPP for the non-local group).
 */
int wddmseg_set_video_memory_reservation(int fd, uint32_t group,
					 uint64_t bytes);

/**
 * wddmseg_register_trim_notification() - ask for trim notifications
 * @fd: adapter
 * @enable: true to receive them, false to stop
 *
 * The analogue of D3DKMTRegisterTrimNotification (uapi version 11): the
 * file then reads DRM_WDDMSEG_EVENT_TRIM events (struct
 * drm_wddmseg_event_trim) when an eviction finds it over its budget.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_register_trim_notification(int fd, bool enable);

/* ------------------------------------------------------------------ */
/* Segment flags and capabilities                                     */

/**
 * wddmseg_segment_is_aperture() - whether a segment is an aperture
 * @flags: DXGK_SEGMENTFLAGS value (WDDMSEG_SEGMENT_FLAG_*)
 *
 * Return: true for Aperture and Agp segments, false for memory segments.
 */
bool wddmseg_segment_is_aperture(uint32_t flags);

/**
 * wddmseg_segment_cpu_visible() - whether the CPU can map a segment
 * @flags: DXGK_SEGMENTFLAGS value
 *
 * Return: true for CpuVisible memory segments and for Aperture segments
 * (whose pages are system memory).
 */
bool wddmseg_segment_cpu_visible(uint32_t flags);

/**
 * wddmseg_segment_budget_group() - the budget group a segment counts in
 * @flags: DXGK_SEGMENTFLAGS value
 *
 * LocalBudgetGroup and NonLocalBudgetGroup say it; without either, memory
 * segments are local and apertures non-local (as the driver decides for
 * DRM_IOCTL_WDDMSEG_QUERY_BUDGET).
 *
 * Return: WDDMSEG_BUDGET_LOCAL or WDDMSEG_BUDGET_NON_LOCAL.
 */
uint32_t wddmseg_segment_budget_group(uint32_t flags);

/**
 * wddmseg_segment_flag_name() - WDDM member name of a segment flag bit
 * @bit: bit number, 0..31
 *
 * Return: "Aperture", "CpuVisible", ... or NULL for a reserved bit.
 */
const char *wddmseg_segment_flag_name(unsigned int bit);

/**
 * wddmseg_vidmm_cap_name() - WDDM member name of a DXGK_VIDMMCAPS bit
 * @bit: bit number, 0..31
 *
 * Return: "OutOfOrderLock", ... or NULL for a reserved bit.
 */
const char *wddmseg_vidmm_cap_name(unsigned int bit);

/* ------------------------------------------------------------------ */
/* Allocations                                                        */

/**
 * struct wddmseg_allocation_desc - what wddmseg_create_allocation() makes
 * @size: bytes; the driver rounds up to the page size
 * @flags: DXGK_ALLOCATIONINFOFLAGS (WDDMSEG_ALLOC_*)
 * @supported_segments: segment set (WDDMSEG_SEGMENT_BIT()) it may live in;
 *	0 means system memory only
 * @eviction_segments: subset of @supported_segments to evict to before
 *	system memory
 * @preferred: segment ids in order of preference, 0-terminated
 * @bank_hint: 0, or 1 + the bank of @preferred[0] to place it in
 * @alignment: bytes, a power of two, or 0 for the page size
 * @user_ptr: with WDDMSEG_ALLOC_EXISTING_SYSMEM, the page-aligned user
 *	memory of @size bytes that becomes the backing store; else NULL
 *
 * DXGK_ALLOCATIONINFO as userspace states it; see struct
 * drm_wddmseg_gem_create for the rules. Zero-initialise it and set what
 * you need.
 */
struct wddmseg_allocation_desc {
	uint64_t size;
	uint32_t flags;
	uint32_t supported_segments;
	uint32_t eviction_segments;
	uint8_t preferred[WDDMSEG_MAX_PREFERRED];
	uint32_t bank_hint;
	uint32_t alignment;
	void *user_ptr;
};

/**
 * wddmseg_create_allocation() - create an allocation (D3DKMTCreateAllocation)
 * @fd: adapter
 * @desc: the allocation
 * @handle: receives its GEM handle, 0 on failure
 *
 * The allocation is resident at once in the first preferred segment with
 * room (evicting others from the preferred segments if needed, system
 * memory as the last resort) and zero-filled.
 *
 * Return: 0 or a negative errno: -EINVAL for a request WDDM forbids or the
 * adapter cannot hold, -EOPNOTSUPP for valid WDDM the driver does not
 * implement, -ENOSPC when nothing can make room, -EFAULT for a bad
 * @desc->user_ptr.
 */
int wddmseg_create_allocation(int fd,
			      const struct wddmseg_allocation_desc *desc,
			      uint32_t *handle);

/**
 * wddmseg_create_cross_adapter_allocation() - create a cross-adapter
 *	resource (D3DKMTCreateAllocation with CrossAdapter)
 * @fd: adapter
 * @desc: the allocation: CpuVisible, not Cached, only aperture segments
 *	(or none: system memory) in the supported set
 * @pitch: bytes per row, a multiple of WDDMSEG_CROSS_ADAPTER_PITCH_ALIGNMENT
 * @height: rows, a multiple of WDDMSEG_CROSS_ADAPTER_HEIGHT_ALIGNMENT;
 *	@pitch * @height must fit @desc->size
 * @handle: receives its GEM handle, 0 on failure
 *
 * The only kind of allocation another adapter can import (uapi version 6,
 * WDDMSEG_CREATE_CROSS_ADAPTER); each property is a rule of the driver
 * (rules cross-adapter-*, see Documentation/gpu/wddmseg.rst).
 *
 * Return: as wddmseg_create_allocation(); -EINVAL also when a property is
 * missing.
 */
int wddmseg_create_cross_adapter_allocation(int fd,
					    const struct wddmseg_allocation_desc *desc,
					    uint32_t pitch, uint32_t height,
					    uint32_t *handle);

/**
 * wddmseg_create_allocation_in() - create an allocation in one segment
 * @fd: adapter
 * @size: bytes
 * @flags: WDDMSEG_ALLOC_* flags
 * @segment_id: its only supported (and preferred) segment, or 0 for system
 *	memory only
 * @handle: receives its GEM handle, 0 on failure
 *
 * Return: as wddmseg_create_allocation().
 */
int wddmseg_create_allocation_in(int fd, uint64_t size, uint32_t flags,
				 uint32_t segment_id, uint32_t *handle);

/**
 * wddmseg_destroy_allocation() - drop a handle (D3DKMTDestroyAllocation)
 * @fd: adapter
 * @handle: GEM handle
 *
 * The allocation goes when its last handle and mapping are gone.
 *
 * Return: 0 or a negative errno (-EINVAL for an unknown handle).
 */
int wddmseg_destroy_allocation(int fd, uint32_t handle);

/**
 * wddmseg_export_allocation() - share an allocation as a dma-buf (PRIME)
 * @fd: adapter
 * @handle: GEM handle
 * @dmabuf: receives the dma-buf file descriptor (close-on-exec,
 *	read-write), -1 on failure
 *
 * The analogue of sharing a cross-adapter resource: another process or
 * another adapter imports the dma-buf with wddmseg_import_allocation().
 *
 * Return: 0 or a negative errno (-EACCES for protected content).
 */
int wddmseg_export_allocation(int fd, uint32_t handle, int *dmabuf);

/**
 * wddmseg_import_allocation() - a handle for a dma-buf (PRIME)
 * @fd: adapter
 * @dmabuf: a dma-buf file descriptor; stays open, the caller's to close
 * @handle: receives the GEM handle, 0 on failure
 *
 * A dma-buf of the same adapter's allocation gives that allocation; one
 * of another adapter needs CrossAdapterResource (Documentation/gpu/
 * wddmseg.rst, "PRIME").
 *
 * Return: 0 or a negative errno (-EOPNOTSUPP when the adapters do not
 * share).
 */
int wddmseg_import_allocation(int fd, int dmabuf, uint32_t *handle);

/**
 * wddmseg_query_allocation() - where an allocation lives
 * @fd: adapter
 * @handle: GEM handle
 * @info: receives DRM_IOCTL_WDDMSEG_GEM_INFO's answer; zeroed first
 *
 * The analogue of D3DKMTQueryAllocationResidency, with the segment, the
 * offset and the eviction and move counts.
 *
 * Return: 0 or a negative errno (-ENOENT for an unknown handle).
 */
int wddmseg_query_allocation(int fd, uint32_t handle,
			     struct drm_wddmseg_gem_info *info);

/**
 * wddmseg_allocation_segment() - the segment an allocation is in now
 * @fd: adapter
 * @handle: GEM handle
 *
 * Return: the segment id (0 for system memory), or a negative errno of
 * wddmseg_query_allocation().
 */
int wddmseg_allocation_segment(int fd, uint32_t handle);

/**
 * wddmseg_mmap_offset() - the fake offset that maps an allocation
 * @fd: adapter
 * @handle: GEM handle of a CpuVisible or CpuVisibleOnDemand allocation
 * @offset: receives the offset to pass to mmap(2) on @fd, 0 on failure
 *
 * Return: 0 or a negative errno: -EINVAL without a CPU flag, -EACCES for
 * protected content, -ENOENT for an unknown handle.
 */
int wddmseg_mmap_offset(int fd, uint32_t handle, uint64_t *offset);

/**
 * wddmseg_lock() - map an allocation for the CPU (D3DKMTLock2)
 * @fd: adapter
 * @handle: GEM handle of a CpuVisible or CpuVisibleOnDemand allocation
 * @size: bytes to map from its start, or 0 for all of it
 * @ptr: receives the address, NULL on failure
 *
 * A shared read-write mapping. It follows the allocation wherever it
 * moves: a CpuVisibleOnDemand allocation in CPU-invisible VRAM migrates
 * on the first access. Undo with wddmseg_unlock().
 *
 * Return: 0 or a negative errno of wddmseg_mmap_offset() or mmap(2).
 */
int wddmseg_lock(int fd, uint32_t handle, uint64_t size, void **ptr);

/**
 * wddmseg_unlock() - unmap what wddmseg_lock() mapped (D3DKMTUnlock2)
 * @ptr: the address wddmseg_lock() returned
 * @size: the size it mapped (the allocation's size if it was given 0)
 *
 * Return: 0 or the negative errno of munmap(2).
 */
int wddmseg_unlock(void *ptr, uint64_t size);

/* ------------------------------------------------------------------ */
/* Residency                                                          */

/**
 * wddmseg_make_resident() - move an allocation into a segment
 * @fd: adapter
 * @handle: GEM handle
 * @segment_id: a segment of its supported set, or 0 for the first
 *	preferred segment that can take it
 *
 * The analogue of D3DKMTMakeResident; allocations in the way are evicted.
 * The copy may still run on the engine when this returns: see
 * wddmseg_wait().
 *
 * Return: 0 or a negative errno: -EINVAL for a segment outside the
 * supported set, -EBUSY for a pinned allocation, -ENOSPC when no room
 * can be made, -EACCES when protected content may not go there.
 */
int wddmseg_make_resident(int fd, uint32_t handle, uint32_t segment_id);

/**
 * wddmseg_evict() - move an allocation to system memory (D3DKMTEvict)
 * @fd: adapter
 * @handle: GEM handle
 * @flags: 0, or WDDMSEG_EVICT_DISCARD to drop the content instead of
 *	copying it out (it reads as zeroes afterwards; uapi version 2)
 *
 * Return: 0 or a negative errno: -EBUSY for a pinned allocation, -EINVAL
 * for unknown flags or a discard of ExistingSysMem, -EACCES when
 * protected content may not leave its segment.
 */
int wddmseg_evict(int fd, uint32_t handle, uint32_t flags);

/**
 * wddmseg_offer_allocations() - let the driver drop allocations' content
 *	(D3DKMTOfferAllocations; uapi version 8)
 * @fd: adapter
 * @handles: GEM handles
 * @count: 1 to WDDMSEG_OFFER_MAX_HANDLES
 * @priority: WDDMSEG_OFFER_PRIORITY_LOW (discarded first), _NORMAL or _HIGH
 *
 * Offered allocations are evicted before any other and their eviction
 * discards their content (it reads as zeroes afterwards); until reclaimed
 * they cannot be CPU-mapped (SIGBUS), blitted, made resident or exported.
 *
 * Return: 0 or a negative errno: -EINVAL for a bad priority or count, an
 * allocation offered already, given twice, PRIME imported or exported,
 * ExistingSysMem or PermanentSysMem; -EBUSY for a pinned one; -ENOENT for
 * an unknown handle. On error no allocation is offered.
 */
int wddmseg_offer_allocations(int fd, const uint32_t *handles, uint32_t count,
			      uint32_t priority);

/**
 * wddmseg_reclaim_allocations() - take offered allocations back
 *	(D3DKMTReclaimAllocations2; uapi version 8)
 * @fd: adapter
 * @handles: GEM handles of offered allocations
 * @count: 1 to WDDMSEG_OFFER_MAX_HANDLES
 * @flags: 0, or WDDMSEG_RECLAIM_MAKE_RESIDENT to place each one again
 * @results: out, @count entries: WDDMSEG_RECLAIM_OK (content intact) or
 *	WDDMSEG_RECLAIM_DISCARDED (content dropped: zeroes)
 *
 * Return: 0 or a negative errno: -EINVAL for an allocation not offered
 * (then none is reclaimed), unknown flags or a bad count, -ENOENT for an
 * unknown handle; with WDDMSEG_RECLAIM_MAKE_RESIDENT the error of placing
 * them (-ENOSPC...), every allocation being reclaimed and @results
 * written all the same.
 */
int wddmseg_reclaim_allocations(int fd, const uint32_t *handles,
				uint32_t count, uint32_t flags,
				uint32_t *results);

/**
 * wddmseg_set_allocation_priority() - order evictions
 *	(D3DKMTSetAllocationPriority; uapi version 10)
 * @fd: adapter
 * @handles: GEM handles (phAllocationList)
 * @count: 1 to WDDMSEG_OFFER_MAX_HANDLES (AllocationCount)
 * @priorities: @count WDDMSEG_ALLOCATION_PRIORITY_* values, one per handle
 *	(pPriorities)
 *
 * Under memory pressure allocations of a lower priority are evicted
 * before those of a higher one, offered ones before all; every allocation
 * starts WDDMSEG_ALLOCATION_PRIORITY_NORMAL, and
 * wddmseg_query_allocation() reads it back (&drm_wddmseg_gem_info.priority).
 * The driver takes one priority per call: this issues one ioctl per
 * distinct value of @priorities, after checking every value and handle,
 * so that an error leaves nothing changed unless a handle is closed or
 * memory runs out meanwhile. A handle given twice with one priority is
 * refused; given twice with two, it ends with one of them.
 *
 * Return: 0 or a negative errno: -EINVAL for a priority that is not one
 * of the five, a bad count or a handle given twice; -ENOENT for an
 * unknown handle; -ENOMEM; -ENOTTY from a driver before version 10.
 */
int wddmseg_set_allocation_priority(int fd, const uint32_t *handles,
				    uint32_t count,
				    const uint32_t *priorities);

/**
 * wddmseg_move() - make resident in a segment, or evict
 * @fd: adapter
 * @handle: GEM handle
 * @segment_id: target segment; 0 means system memory (an eviction), not
 *	"any segment" as for wddmseg_make_resident()
 *
 * Return: as wddmseg_make_resident() or wddmseg_evict().
 */
int wddmseg_move(int fd, uint32_t handle, uint32_t segment_id);

/**
 * wddmseg_wait() - wait until an allocation is idle
 * @fd: adapter
 * @handle: GEM handle
 * @timeout_ns: relative timeout; 0 polls
 *
 * Waits for every pending move, clear and blit of the allocation, as
 * D3DKMTWaitForSynchronizationObject waits for a paging fence.
 *
 * Return: 0 when idle, -ETIME when still busy after @timeout_ns, -EIO when
 * the last operation failed on the engine (the content is not what it
 * should be), or another negative errno.
 */
int wddmseg_wait(int fd, uint32_t handle, int64_t timeout_ns);

/**
 * wddmseg_read_residency_events() - read residency notifications
 * @fd: adapter that created allocations with
 *	WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION
 * @events: receives up to @max events
 * @max: entries at @events, at least 1
 * @timeout_ms: how long to wait for the first event: -1 forever, 0 not
 *	at all
 *
 * Reads the DRM events waiting on @fd (one read(2), at most @max
 * events' worth) and keeps the DRM_WDDMSEG_EVENT_RESIDENCY ones. Other
 * DRM events read on the way (vblank, page flip) are dropped: on a node
 * that also does KMS, read those with drmHandleEvent() instead.
 *
 * Return: the number of residency events stored, 0 if only other events
 * came, -ETIME when none came within @timeout_ms, -EPROTO for a short or
 * malformed event, or another negative errno.
 */
int wddmseg_read_residency_events(int fd,
				  struct drm_wddmseg_event_residency *events,
				  unsigned int max, int timeout_ms);

/* ------------------------------------------------------------------ */
/* Blits on the copy engine                                           */

/**
 * wddmseg_submit_blit() - queue a copy or fill as given
 * @fd: adapter
 * @blit: DRM_IOCTL_WDDMSEG_SUBMIT_BLIT's argument; @blit->fence_fd
 *	receives the sync_file with WDDMSEG_BLIT_FENCE_OUT, else -1
 *
 * Return: 0 or a negative errno: -EINVAL for a malformed request, -ENOENT
 * for an unknown handle, -EACCES for protected content going where it
 * may not.
 */
int wddmseg_submit_blit(int fd, struct drm_wddmseg_submit_blit *blit);

/**
 * wddmseg_copy() - copy between allocations on the copy engine (Transfer)
 * @fd: adapter
 * @src: source GEM handle
 * @src_offset: byte offset in @src, a multiple of 4
 * @dst: destination GEM handle
 * @dst_offset: byte offset in @dst, a multiple of 4
 * @size: bytes, a non-zero multiple of 4
 * @fence_fd: NULL, or receives a sync_file fd that signals completion
 *	(close it), -1 on failure
 *
 * Returns once queued; wddmseg_wait() on @dst or @fence_fd tell when done.
 *
 * Return: as wddmseg_submit_blit().
 */
int wddmseg_copy(int fd, uint32_t src, uint64_t src_offset, uint32_t dst,
		 uint64_t dst_offset, uint64_t size, int *fence_fd);

/**
 * wddmseg_fill() - fill a range of an allocation with a 32-bit pattern
 * @fd: adapter
 * @dst: GEM handle
 * @dst_offset: byte offset, a multiple of 4
 * @size: bytes, a non-zero multiple of 4
 * @pattern: the value repeated
 * @fence_fd: NULL, or receives a sync_file fd, as for wddmseg_copy()
 *
 * Return: as wddmseg_submit_blit().
 */
int wddmseg_fill(int fd, uint32_t dst, uint64_t dst_offset, uint64_t size,
		 uint32_t pattern, int *fence_fd);

/**
 * wddmseg_fdinfo() - one key of the adapter file's /proc/self/fdinfo entry
 * @fd: adapter
 * @key: key as Documentation/gpu/drm-usage-stats.rst names it, without
 *	the colon, e.g. "drm-engine-copy" or "drm-total-seg1"
 * @value: receives the number after the key (ns, KiB or an id, as the key
 *	says), or NULL
 * @text: receives the value as text (no leading blanks, no newline), or
 *	NULL
 * @len: size of @text
 *
 * The Linux form of D3DKMTQueryVideoMemoryInfo's per-process figures:
 * the driver reports per memory region ("system", "segN" for segment id
 * N) the bytes of the allocations the file has a handle to
 * (drm-total-*) and those with backing store there (drm-resident-*), and
 * the copy engine's time on the file's blits (drm-engine-copy).
 *
 * Return: 0, -ENOENT if the entry has no such key, or a negative errno
 * from reading it.
 */
int wddmseg_fdinfo(int fd, const char *key, uint64_t *value, char *text,
		   size_t len);

/**
 * wddmseg_create_gpu_va_space() - a new GPU virtual address space of this
 *	file (the process's GpuMmu address space, in which
 *	D3DKMTMapGpuVirtualAddress maps), UAPI version 7
 * @fd: adapter
 * @info: receives DRM_IOCTL_WDDMSEG_VM_CREATE's answer (its @vm_id and
 *	the usable range [@va_start, @va_end)); zeroed first
 *
 * Return: 0 or a negative errno: -EOPNOTSUPP without a GPU MMU or on a
 * kernel without drm_gpuvm (6.1), -ENOTTY from a driver before version 7.
 */
int wddmseg_create_gpu_va_space(int fd, struct drm_wddmseg_vm_create *info);

/**
 * wddmseg_destroy_gpu_va_space() - destroy an address space of
 *	wddmseg_create_gpu_va_space(), UAPI version 7
 * @fd: adapter
 * @vm_id: its id
 *
 * Return: 0 or a negative errno (-ENOENT for an unknown id).
 */
int wddmseg_destroy_gpu_va_space(int fd, uint32_t vm_id);

/**
 * wddmseg_map_gpu_va() - map a range of an allocation at GPU virtual
 *	addresses (D3DKMTMapGpuVirtualAddress with a fixed address),
 *	UAPI version 9
 * @fd: adapter
 * @vm_id: address space of wddmseg_create_gpu_va_space()
 * @va: first GPU virtual address, a multiple of 4096
 * @handle: the allocation
 * @bo_offset: first byte of it mapped, a multiple of 4096
 * @size: bytes, a non-zero multiple of 4096
 * @flags: WDDMSEG_VM_BIND_READ_ONLY or 0
 *
 * Whatever the range mapped before is unmapped first. Returns once the
 * page tables are written and the TLB flushed.
 *
 * Return: 0 or a negative errno (DRM_IOCTL_WDDMSEG_VM_BIND's).
 */
int wddmseg_map_gpu_va(int fd, uint32_t vm_id, uint64_t va, uint32_t handle,
		       uint64_t bo_offset, uint64_t size, uint32_t flags);

/**
 * wddmseg_unmap_gpu_va() - unmap a GPU virtual address range
 *	(D3DKMTFreeGpuVirtualAddress of a range), UAPI version 9
 * @fd: adapter
 * @vm_id: address space
 * @va: first address, a multiple of 4096
 * @size: bytes, a non-zero multiple of 4096
 *
 * Return: 0 or a negative errno; never -ENOMEM or -ENOSPC.
 */
int wddmseg_unmap_gpu_va(int fd, uint32_t vm_id, uint64_t va, uint64_t size);

/**
 * wddmseg_copy_gpu_va() - copy between GPU virtual addresses of one
 *	address space on the copy engine (TRANSFER_VIRTUAL), UAPI version 9
 * @fd: adapter
 * @vm_id: address space
 * @src_va: source address, a multiple of 4
 * @dst_va: destination address, a multiple of 4
 * @size: bytes, a non-zero multiple of 4
 * @fence_fd: NULL, or receives a sync_file fd that signals completion
 *	(with -EFAULT after a GPU page fault), -1 on failure
 *
 * Return: as wddmseg_submit_blit().
 */
int wddmseg_copy_gpu_va(int fd, uint32_t vm_id, uint64_t src_va,
			uint64_t dst_va, uint64_t size, int *fence_fd);

/**
 * wddmseg_fill_gpu_va() - fill GPU virtual addresses with a 32-bit
 *	pattern (FILL_VIRTUAL), UAPI version 9
 * @fd: adapter
 * @vm_id: address space
 * @dst_va: first address, a multiple of 4
 * @size: bytes, a non-zero multiple of 4
 * @pattern: the value repeated
 * @fence_fd: as for wddmseg_copy_gpu_va()
 *
 * Return: as wddmseg_submit_blit().
 */
int wddmseg_fill_gpu_va(int fd, uint32_t vm_id, uint64_t dst_va,
			uint64_t size, uint32_t pattern, int *fence_fd);

#if defined(__cplusplus)
}
#endif

#endif /* LIBWDDMSEG_H */
