/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: allocations, GEM objects backed by TTM buffer objects
 * (wddmseg_bo.c).
 */
#ifndef WDDMSEG_BO_H
#define WDDMSEG_BO_H

#include <linux/types.h>

#include <drm/drm_file.h>
#include <drm/wddmseg_drm.h>

#include "wddmseg_compat.h"
#include "wddmseg_device_types.h"

struct drm_file;
struct drm_wddmseg_gem_create;
struct ttm_operation_ctx;
struct ttm_placement;
struct ttm_resource;
struct ttm_place;
struct wddmseg_file;
struct wddmseg_move_request;
struct wddmseg_parked;

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
 * @move_request: what the ttm_bo_validate() running on the allocation
 *	asks of its move (an eviction, a discard), or NULL. A field because
 *	TTM's move callback has no other channel for a caller's intent:
 *	&struct ttm_operation_ctx has no driver field, and the same context
 *	reaches the moves of other allocations TTM evicts on the way. Set
 *	and cleared under the reservation by wddmseg_bo_validate_as() only;
 *	the move callback honours it for that context only
 * @evictions: times evicted
 * @moves: times its content moved
 * @parked: system pages parked from its last stay in system memory or an
 *	aperture while it is in VRAM, for the next eviction, or its permanent
 *	copy (wddmseg_parked.c); protected by &wddmseg_device.parked_lock
 * @sealed: HardwareProtected: its system pages hold its content encrypted
 *	by the device (TRANSFER_ENCRYPTED); the way back decrypts. Changed
 *	under the reservation
 * @seal_nonce: the nonce of that encryption
 * @maybe_written_in_place: mapped by the CPU (mmap, vmap), exported, or
 *	the destination of a blit: its VRAM may have been written in place.
 *	Never cleared
 * @contiguous: mapped by the kernel (vmap) once: every VRAM placement
 *	asks for one range from then on. Set under the reservation
 * @perm_slot: PermanentSysMem: the record of @parked, allocated with the
 *	allocation so that keeping its permanent copy cannot fail; NULL
 *	while in use as @parked
 * @perm_cpu_dirty: PermanentSysMem in a memory segment: the CPU may have
 *	written the permanent copy since the segment's copy was last
 *	brought up to date from it (DOC: PermanentSysMem); under the
 *	reservation
 * @cross_adapter: a cross-adapter resource (created with
 *	WDDMSEG_CREATE_CROSS_ADAPTER, or imported from another device): the
 *	only kind another device attaches to (DOC: PRIME). Set at creation
 * @creator: the process (thread group) that created it; NULL for the
 *	driver's own allocations and imported ones. Once the allocation is
 *	shared only this process maps it (DOC: Locking shared allocations)
 * @shared: exported as a dma-buf at least once. Never cleared
 * @offer_priority: WDDMSEG_OFFER_PRIORITY_* while offered (OFFER_ALLOCATIONS),
 *	0 otherwise (wddmseg_offer.c); changed under the reservation
 * @discarded: its content was dropped while offered; cleared by RECLAIM.
 *	Under the reservation
 * @vm_unpin: GPU mappings of it removed by the bind under way, whose
 *	pins go once that bind's TLB flush completed (wddmseg_vm.c). Under
 *	the reservation, 0 outside a bind
 * @alloc_priority: WDDMSEG_ALLOCATION_PRIORITY_* (SET_ALLOCATION_PRIORITY),
 *	NORMAL from creation; kept while offered. Changed under the
 *	reservation (DOC: Allocation priority)
 * @offer_link: on &wddmseg_device.offered while offered, in the order of
 *	the offers; under &wddmseg_device.offer_lock (DOC: Offer and reclaim)
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
	const struct wddmseg_move_request *move_request;
	atomic64_t evictions;
	atomic64_t moves;
	struct wddmseg_parked *parked;
	bool sealed;
	u64 seal_nonce;
	bool maybe_written_in_place;
	bool contiguous;
	struct wddmseg_parked *perm_slot;
	bool perm_cpu_dirty;
	bool cross_adapter;
	struct pid *creator;
	bool shared;
	u32 offer_priority;
	bool discarded;
	u32 vm_unpin;
	u32 alloc_priority;
	struct list_head offer_link;
};

static inline struct wddmseg_bo *to_wddmseg_bo(struct ttm_buffer_object *tbo)
{
	return container_of(tbo, struct wddmseg_bo, tbo);
}

static inline struct wddmseg_bo *gem_to_wddmseg_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct wddmseg_bo, tbo.base);
}

/*
 * The TTM LRU lists (&ttm_buffer_object.priority) allocations live on;
 * TTM walks them from 0 up when it looks for something to evict (DOC:
 * Allocation priority): every offered allocation, then MINIMUM and LOW,
 * then NORMAL (the default), then HIGH and MAXIMUM.
 */
#define WDDMSEG_TTM_PRIO_OFFERED	0
#define WDDMSEG_TTM_PRIO_LOW		1
#define WDDMSEG_TTM_PRIO_DEFAULT	2
#define WDDMSEG_TTM_PRIO_HIGH		3

#define WDDMSEG_ALLOC_ANY_PROTECTED	(WDDMSEG_ALLOC_PROTECTED | \
					 WDDMSEG_ALLOC_HARDWARE_PROTECTED)

/*
 * wddmseg_bo_ttm_priority - the TTM LRU list @bo belongs on (DOC:
 * Allocation priority): offered ones first, then by allocation priority.
 */
static inline unsigned int wddmseg_bo_ttm_priority(const struct wddmseg_bo *bo)
{
	if (bo->offer_priority)
		return WDDMSEG_TTM_PRIO_OFFERED;
	if (bo->alloc_priority < WDDMSEG_ALLOCATION_PRIORITY_NORMAL)
		return WDDMSEG_TTM_PRIO_LOW;
	if (bo->alloc_priority > WDDMSEG_ALLOCATION_PRIORITY_NORMAL)
		return WDDMSEG_TTM_PRIO_HIGH;
	return WDDMSEG_TTM_PRIO_DEFAULT;
}

/* PermanentSysMem: a system-memory copy for life (wddmseg_parked.c). */
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

static inline struct wddmseg_device *wddmseg_bo_wdev(struct wddmseg_bo *bo)
{
	return container_of(bo->tbo.bdev, struct wddmseg_device, bdev);
}

extern const struct drm_gem_object_funcs wddmseg_gem_funcs;
bool wddmseg_is_bo(struct ttm_buffer_object *tbo);
void wddmseg_bo_destroy(struct ttm_buffer_object *tbo);
int wddmseg_bo_create(struct wddmseg_device *wdev, struct drm_file *file,
		      const struct drm_wddmseg_gem_create *args,
		      u32 *handle);
int wddmseg_bo_create_kernel(struct wddmseg_device *wdev,
			     struct wddmseg_file *wfile, u64 size,
			     u32 alignment, u32 segment_id,
			     struct wddmseg_bo **out);
void wddmseg_bo_put_kernel(struct wddmseg_bo *bo);
void wddmseg_place(struct wddmseg_bo *bo, struct ttm_place *pl, u32 id,
		   u32 bank);
void wddmseg_bo_placement(struct wddmseg_bo *bo, bool cpu_access);
void wddmseg_bo_evict_placement(struct wddmseg_bo *bo, u32 from_segment,
				struct ttm_placement *placement);
int wddmseg_bo_validate(struct wddmseg_bo *bo,
			struct ttm_operation_ctx *ctx);
int wddmseg_bo_validate_as(struct wddmseg_bo *bo,
			   struct ttm_placement *placement,
			   struct ttm_operation_ctx *ctx, bool evict,
			   bool discard);
int wddmseg_bo_move_system_locked(struct wddmseg_bo *bo,
				  struct ttm_operation_ctx *ctx);
int wddmseg_bo_make_resident_locked(struct wddmseg_bo *bo,
				    struct ttm_operation_ctx *ctx);
int wddmseg_bo_populate_engine(struct wddmseg_bo *bo,
			       struct ttm_operation_ctx *ctx);
int wddmseg_bo_ensure_resource(struct wddmseg_bo *bo,
			       struct ttm_operation_ctx *ctx);
int wddmseg_bo_move_to(struct wddmseg_bo *bo, u32 id, bool discard);
int wddmseg_bo_drop_pages(struct wddmseg_bo *bo, struct ttm_operation_ctx *ctx);
int wddmseg_bo_pm_move(struct wddmseg_bo *bo, u32 id);

void wddmseg_bo_pin_locked(struct wddmseg_bo *bo);
void wddmseg_bo_unpin_locked(struct wddmseg_bo *bo);
u32 wddmseg_bo_direct_flip_segments(struct wddmseg_bo *bo);
int wddmseg_bo_pin_scanout(struct wddmseg_bo *bo);
int wddmseg_bo_pin_shared(struct wddmseg_bo *bo);
void wddmseg_bo_unpin(struct wddmseg_bo *bo);

static inline void wddmseg_bo_unpin_scanout(struct wddmseg_bo *bo)
{
	wddmseg_bo_unpin(bo);
}

#endif /* WDDMSEG_BO_H */
