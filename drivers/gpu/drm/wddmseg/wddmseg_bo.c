// SPDX-License-Identifier: GPL-2.0-only
/*
 * Allocations: GEM objects backed by TTM buffer objects, placed according
 * to WDDM allocation flags and segment sets.
 *
 * WDDM                          here
 * PreferredSegment              the order of ttm_placement.placement
 * SupportedSegmentSet           what placements may contain
 * EvictionSegmentSet            evict_flags: these, then system memory
 * HintedBank                    a first place limited to the bank's range
 * FromEndOfSegment              TTM_PL_FLAG_TOPDOWN
 * Overlay, Capture              pinned, confined to the last 20%
 * CpuVisible                    placements the CPU can map; mmap allowed
 * CpuVisibleOnDemand            any placement; a CPU fault migrates
 * pfnLockCb                     mmap of the GEM object
 * D3DKMTMakeResident / Evict    ioctls that validate into one segment or
 *                               into system memory
 */

#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>

#include "wddmseg_alloc_rules.h"
#include "wddmseg_bo.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_fdinfo.h"
#include "wddmseg_file.h"
#include "wddmseg_kept.h"
#include "wddmseg_mgr.h"
#include "wddmseg_pm.h"
#include "wddmseg_prime.h"
#include "wddmseg_protect.h"
#include "wddmseg_hw.h"
#include "wddmseg_trace.h"

static bool wddmseg_bo_pinned_kind(const struct wddmseg_bo *bo)
{
	return bo->flags & (WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_CAPTURE);
}

static struct wddmseg_device *bo_wdev(struct wddmseg_bo *bo)
{
	return bdev_to_wddmseg(bo->tbo.bdev);
}

/* Fill @pl for segment @id (0: system memory). @bank: 1 + bank, or 0. */
static void wddmseg_place(struct wddmseg_bo *bo, struct ttm_place *pl, u32 id,
			  u32 bank)
{
	struct wddmseg_device *wdev = bo_wdev(bo);
	const struct wddmseg_segment_desc *seg;
	u64 pages;

	memset(pl, 0, sizeof(*pl));
	if (id == WDDMSEG_SEGMENT_SYSTEM) {
		pl->mem_type = TTM_PL_SYSTEM;
		return;
	}

	seg = &wdev->desc.seg[id - 1];
	pages = seg->size >> PAGE_SHIFT;
	pl->mem_type = wdev->mem_type[id - 1];
	if (bo->flags & WDDMSEG_ALLOC_FROM_END_OF_SEGMENT)
		pl->flags |= TTM_PL_FLAG_TOPDOWN;
	/*
	 * One range where something reads VRAM linearly (DOC: VRAM made of
	 * blocks): AccessedPhysically (a GPU address), the display's Overlay
	 * and Capture, kernel mappings.
	 */
	if ((bo->flags & WDDMSEG_ALLOC_ACCESSED_PHYSICALLY) ||
	    wddmseg_bo_pinned_kind(bo) || bo->contiguous)
		pl->flags |= TTM_PL_FLAG_CONTIGUOUS;
	/* Overlays and captures may only take the last 20% of a segment. */
	if (wddmseg_bo_pinned_kind(bo))
		pl->fpfn = pages - pages / 5;
	if (bank) {
		u64 start = bank > 1 ?
			    wddmseg_bank_end(seg, bank - 2) >> PAGE_SHIFT : 0;
		u64 end = wddmseg_bank_end(seg, bank - 1) >> PAGE_SHIFT;

		pl->fpfn = max_t(u64, pl->fpfn, start);
		pl->lpfn = end;
	}
}

static bool wddmseg_bo_may_use(struct wddmseg_bo *bo, u32 id, bool cpu_access)
{
	if (!(bo->supported & WDDMSEG_SEGMENT_BIT(id)))
		return false;
	/* Sealed content comes back only where the device decrypts it. */
	if (bo->sealed && !wddmseg_segment_seals(bo_wdev(bo), id))
		return false;
	return !cpu_access || wddmseg_segment_cpu_visible(bo_wdev(bo), id);
}

/**
 * wddmseg_bo_placement - where validation may put an allocation
 * @bo: allocation
 * @cpu_access: only placements the CPU can map (fault migration)
 *
 * The hinted bank, then the preferred segments in order, first without and
 * then with eviction of least recently used allocations; system memory
 * only when no segment qualifies. System memory as the last resort is
 * wddmseg_bo_validate()'s job: in the placement it would make an
 * allocation already in system memory count as placed.
 */
void wddmseg_bo_placement(struct wddmseg_bo *bo, bool cpu_access)
{
	u32 n = 0, i, id;

	for (i = 0; bo->preferred[i]; i++) {
		id = bo->preferred[i];
		if (!wddmseg_bo_may_use(bo, id, cpu_access))
			continue;
		if (i == 0 && bo->bank_hint && !cpu_access)
			wddmseg_place(bo, &bo->places[n++], id, bo->bank_hint);
		wddmseg_place(bo, &bo->places[n++], id, 0);
	}
	if (!n)
		wddmseg_place(bo, &bo->places[n++], WDDMSEG_SEGMENT_SYSTEM, 0);

	wddmseg_placement_init(&bo->placement, bo->places, n, 0);
}

/* Validate into @bo's placement, else (unless pinned) into system memory. */
static int wddmseg_bo_validate(struct wddmseg_bo *bo,
			       struct ttm_operation_ctx *ctx)
{
	struct ttm_place sys = { .mem_type = TTM_PL_SYSTEM };
	struct ttm_placement placement;
	int ret;

	ret = ttm_bo_validate(&bo->tbo, &bo->placement, ctx);
	/* TTM reports "no space even after eviction" as -ENOMEM (6.1, 6.12). */
	if (ret != -ENOMEM || wddmseg_bo_pinned_kind(bo) ||
	    bo->places[0].mem_type == TTM_PL_SYSTEM)
		return ret;
	if (wddmseg_bo_hw_protected(bo)) {
		drm_dbg(bo->tbo.base.dev, "validate: rule hardware-protected-resident: no room in the VprSupported segments 0x%x, and HardwareProtected content does not live in system memory\n",
			bo->supported);
		return ret;
	}
	wddmseg_placement_init(&placement, &sys, 1, 0);
	return ttm_bo_validate(&bo->tbo, &placement, ctx);
}

/**
 * wddmseg_bo_give_resource - a placement for an allocation that has none
 * @bo: reserved allocation
 * @ctx: TTM operation context
 *
 * An allocation TTM left without a resource (wddmseg_res_mem_type())
 * holds no content. The paths that need a placement to work on (CPU
 * faults, kernel mappings, ptrace, blits) give it system memory, where
 * TTM's pages for it are zeroed: the placeholder 6.1 gave it.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_bo_give_resource(struct wddmseg_bo *bo,
			     struct ttm_operation_ctx *ctx)
{
	struct ttm_place sys = { .mem_type = TTM_PL_SYSTEM };
	struct ttm_placement placement;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (bo->tbo.resource)
		return 0;
	wddmseg_placement_init(&placement, &sys, 1, 0);
	return ttm_bo_validate(&bo->tbo, &placement, ctx);
}

/* Evict a reserved allocation into system memory (PermanentSysMem vmap). */
static int wddmseg_bo_move_system_locked(struct wddmseg_bo *bo,
					 struct ttm_operation_ctx *ctx)
{
	struct ttm_place sys = { .mem_type = TTM_PL_SYSTEM };
	struct ttm_placement placement;
	int ret;

	wddmseg_placement_init(&placement, &sys, 1, 0);
	bo->evicting = true;
	ret = ttm_bo_validate(&bo->tbo, &placement, ctx);
	bo->evicting = false;
	return ret;
}

/**
 * wddmseg_bo_make_resident_locked - bring an allocation into a segment
 * @bo: reserved allocation
 * @ctx: TTM operation context
 *
 * Validates @bo into its placement (preferred segments first) if it is
 * in system memory, like a GPU reference would in WDDM; HardwareProtected
 * content must be in VRAM before the engine writes it.
 *
 * Return: 0 or a negative errno (-ENOSPC: no segment has room).
 */
int wddmseg_bo_make_resident_locked(struct wddmseg_bo *bo,
				    struct ttm_operation_ctx *ctx)
{
	int ret;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (wddmseg_res_mem_type(bo->tbo.resource) != TTM_PL_SYSTEM)
		return 0;
	wddmseg_bo_placement(bo, false);
	ret = wddmseg_bo_validate(bo, ctx);
	if (!ret && wddmseg_res_mem_type(bo->tbo.resource) == TTM_PL_SYSTEM &&
	    wddmseg_bo_hw_protected(bo))
		ret = -ENOSPC;
	return ret == -ENOMEM ? -ENOSPC : ret;
}

/**
 * wddmseg_bo_evict_placement - where an evicted allocation goes
 * @bo: allocation being evicted
 * @from: segment it is evicted from
 * @placement: filled in
 *
 * Its eviction segments (never @from, never a PitchAlignment segment, no
 * aperture for PermanentSysMem) if they have room, else system memory.
 * Only system memory is tried with eviction, which always has room: an
 * eviction never evicts in turn. A HardwareProtected allocation goes into
 * system memory only sealed (wddmseg_protect.c); TTM does not pick one it
 * cannot seal (wddmseg_protect_evictable()), and for the evictions TTM
 * does without asking (device teardown) it gets no system place, so its
 * content is dropped rather than copied out.
 */
void wddmseg_bo_evict_placement(struct wddmseg_bo *bo, u32 from,
				struct ttm_placement *placement)
{
	struct wddmseg_device *wdev = bo_wdev(bo);
	bool cpu = bo->flags & WDDMSEG_ALLOC_CPU_VISIBLE;
	u32 n = 0, id;

	for (id = 1; id <= wdev->desc.segment_count; id++) {
		const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];

		if (id == from || !(bo->eviction & WDDMSEG_SEGMENT_BIT(id)) ||
		    (seg->flags & DXGK_SEGFLAG_PITCH_ALIGNMENT) ||
		    !wddmseg_bo_may_use(bo, id, cpu))
			continue;
		/* PermanentSysMem: evicted into its copy (a discard), not bound. */
		if (wddmseg_bo_permanent(bo) && wddmseg_segment_is_aperture(seg))
			continue;
		wddmseg_place(bo, &bo->evict_places[n++], id, 0);
	}
	if (wddmseg_bo_hw_protected(bo) && !wddmseg_protect_may_seal(bo, from)) {
		wddmseg_placement_init(placement, bo->evict_places, n, n);
		return;
	}
	wddmseg_place(bo, &bo->evict_places[n++], WDDMSEG_SEGMENT_SYSTEM, 0);
	wddmseg_placement_init(placement, bo->evict_places, n, n - 1);
}

static struct wddmseg_residency_event *
wddmseg_residency_event_alloc(struct wddmseg_bo *bo)
{
	struct wddmseg_residency_event *e = kzalloc_obj(*e, GFP_KERNEL);

	if (e) {
		e->event.base.type = DRM_WDDMSEG_EVENT_RESIDENCY;
		e->event.base.length = sizeof(e->event);
	}
	return e;
}

/**
 * struct wddmseg_residency_note - a residency change waiting for its move
 * @cb: on the move's fence
 * @work: drops the reference on the allocation outside the callback
 * @bo: the allocation, referenced until the note is sent
 * @next: the event reserved after this one (allocated beforehand: the
 *	fence callback runs in interrupt context)
 * @segment_id: where the allocation is now
 * @offset: its offset there
 */
struct wddmseg_residency_note {
	struct dma_fence_cb cb;
	struct work_struct work;
	struct wddmseg_bo *bo;
	struct wddmseg_residency_event *next;
	u32 segment_id;
	u64 offset;
};

/*
 * Send the pending residency event of @n's allocation and reserve the
 * next one on the same file. If the file was closed, drm_events_release()
 * has unlinked the pending event and cleared its file_priv: then it is
 * ours to free. Any context; the event lock is a leaf.
 */
static void wddmseg_residency_send(struct wddmseg_residency_note *n)
{
	struct wddmseg_bo *bo = n->bo;
	struct drm_device *drm = bo->tbo.base.dev;
	struct wddmseg_residency_event *e;
	unsigned long irqflags;

	spin_lock_irqsave(&drm->event_lock, irqflags);
	e = bo->residency_event;
	bo->residency_event = NULL;
	if (e && e->base.file_priv) {
		e->event.segment_id = n->segment_id;
		e->event.offset = n->offset;
		e->event.sequence = ++bo->residency_seq;
		if (n->next &&
		    !drm_event_reserve_init_locked(drm, e->base.file_priv,
						   &n->next->base,
						   &n->next->event.base)) {
			n->next->event.handle = e->event.handle;
			bo->residency_event = n->next;
			n->next = NULL;
		}
		drm_send_event_locked(drm, &e->base);
		e = NULL;
	}
	spin_unlock_irqrestore(&drm->event_lock, irqflags);
	kfree(e);
}

static void wddmseg_residency_done(struct work_struct *work)
{
	struct wddmseg_residency_note *n =
		container_of(work, struct wddmseg_residency_note, work);

	kfree(n->next);
	drm_gem_object_put(&n->bo->tbo.base);
	kfree(n);
}

/* The move completed: notify now, drop the reference from process context. */
static void wddmseg_residency_signaled(struct dma_fence *fence,
				       struct dma_fence_cb *cb)
{
	struct wddmseg_residency_note *n =
		container_of(cb, struct wddmseg_residency_note, cb);

	wddmseg_residency_send(n);
	schedule_work(&n->work);
}

/**
 * wddmseg_bo_residency_commit - send the residency change of the last move
 *	once that move has completed
 * @bo: reserved allocation whose move callback just ran, or which was
 *	just armed for notifications
 *
 * ExplicitResidencyNotification: the event reports where the allocation
 * is once the paging operations that put it there are done, not when they
 * are queued: it waits for the kernel fences of the reservation (the move,
 * or the first Fill), in paging order. The paging fences signal in order,
 * so the events of successive moves arrive in order.
 */
void wddmseg_bo_residency_commit(struct wddmseg_bo *bo)
{
	struct wddmseg_residency_note *n;
	struct dma_fence *fence = NULL;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (!bo->residency_pending || !bo->residency_event)
		return;
	bo->residency_pending = false;
	n = kzalloc_obj(*n, GFP_KERNEL);
	if (!n)
		return;
	n->bo = bo;
	n->segment_id = bo->residency_segment;
	n->offset = bo->residency_offset;
	n->next = wddmseg_residency_event_alloc(bo);
	INIT_WORK(&n->work, wddmseg_residency_done);
	drm_gem_object_get(&bo->tbo.base);

	if (dma_resv_get_singleton(bo->tbo.base.resv, DMA_RESV_USAGE_KERNEL,
				   &fence) || !fence ||
	    dma_fence_add_callback(fence, &n->cb, wddmseg_residency_signaled)) {
		/* Nothing to wait for (or no memory to combine fences). */
		wddmseg_residency_send(n);
		schedule_work(&n->work);
	}
	dma_fence_put(fence);
}

/* Record where @bo is now for the next wddmseg_bo_residency_commit(). */
static void wddmseg_bo_residency_note(struct wddmseg_bo *bo,
				      struct ttm_resource *res)
{
	struct wddmseg_device *wdev = bo_wdev(bo);
	u32 id = res ? wddmseg_mem_type_segment(wdev, res->mem_type) : 0;

	bo->residency_pending = true;
	bo->residency_segment = id;
	bo->residency_offset = id ? (u64)res->start << PAGE_SHIFT : 0;
}

/**
 * wddmseg_bo_moved - account a placement change
 * @bo: allocation
 * @old: previous resource, or NULL (none: wddmseg_res_mem_type())
 * @new: new resource, or NULL when the allocation is released
 * @evict: the move is an eviction
 */
void wddmseg_bo_moved(struct wddmseg_bo *bo, struct ttm_resource *old,
		      struct ttm_resource *new, bool evict)
{
	struct wddmseg_device *wdev = bo_wdev(bo);
	u32 old_id = wddmseg_res_segment(wdev, old);
	u32 new_id = new ? wddmseg_res_segment(wdev, new) : 0;
	bool moved = new && wddmseg_res_mem_type(old) != new->mem_type;
	u64 size = bo->tbo.base.size;

	if ((evict || bo->evicting) && old_id) {
		atomic64_inc(&wdev->mgr[old_id - 1]->evictions);
		atomic64_inc(&bo->evictions);
	}
	if (moved)
		atomic64_inc(&bo->moves);

	/* Not the first placement of a new allocation: nothing moved. */
	if (new && (old || new_id))
		trace_wddmseg_bo_move(bo, size, old_id,
				      old_id ? (u64)old->start << PAGE_SHIFT : 0,
				      new_id,
				      new_id ? (u64)new->start << PAGE_SHIFT : 0,
				      evict || bo->evicting);

	if (moved && bo->residency_event)
		wddmseg_bo_residency_note(bo, new);

	if (bo->group >= 0)
		atomic64_sub(size, &bo->owner->resident[bo->group]);
	bo->group = new_id ? wddmseg_segment_budget_group(&wdev->desc.seg[new_id - 1]) : -1;
	if (bo->group >= 0)
		atomic64_add(size, &bo->owner->resident[bo->group]);
}

static void wddmseg_file_release(struct kref *ref)
{
	kfree(container_of(ref, struct wddmseg_file, refcount));
}

static void wddmseg_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);

	trace_wddmseg_bo_destroy(bo, tbo->base.size);
	wddmseg_bo_drop_kept(bo);
	kfree(bo->perm_slot);
	if (bo->user_pages) {
		unpin_user_pages_dirty_lock(bo->user_pages,
					    tbo->base.size >> PAGE_SHIFT, true);
		kvfree(bo->user_pages);
	}
	if (bo->residency_event)
		drm_event_cancel_free(tbo->base.dev, &bo->residency_event->base);
	/* An imported allocation lets go of the exporter's pages last. */
	if (tbo->base.import_attach)
		drm_prime_gem_destroy(&tbo->base, tbo->sg);
	drm_gem_object_release(&tbo->base);
	if (bo->owner)
		kref_put(&bo->owner->refcount, wddmseg_file_release);
	kfree(bo);
}

/**
 * wddmseg_is_bo - whether a TTM BO is one of our allocations
 * @tbo: buffer object
 *
 * TTM also hands the driver "ghost" objects that hold the old resource of
 * a pipelined move; they are plain ttm_buffer_objects.
 */
bool wddmseg_is_bo(struct ttm_buffer_object *tbo)
{
	return tbo->destroy == wddmseg_bo_destroy;
}

static void wddmseg_gem_free(struct drm_gem_object *obj)
{
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);
	struct wddmseg_device *wdev = bo_wdev(bo);

	if (bo->tbo.pin_count) {
		u32 id;

		/* Last reference: nobody else can hold the reservation. */
		WARN_ON(ttm_bo_reserve(&bo->tbo, false, false, NULL));
		id = wddmseg_res_segment(wdev, bo->tbo.resource);
		if (id)
			atomic64_sub(bo->tbo.base.size >> PAGE_SHIFT,
				     &wdev->mgr[id - 1]->pinned_pages);
		ttm_bo_unpin(&bo->tbo);
		ttm_bo_unreserve(&bo->tbo);
	}
	wddmseg_ttm_bo_fini(&bo->tbo);
}

static vm_fault_t wddmseg_bo_fault_migrate(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = bo_wdev(bo);
	struct ttm_operation_ctx ctx = { .interruptible = false };
	u32 id;
	int ret;

	/* Nothing to migrate: zeroes, in system pages from now on. */
	ret = wddmseg_bo_give_resource(bo, &ctx);
	if (ret)
		return ret == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	id = wddmseg_res_segment(wdev, bo->tbo.resource);
	if (wddmseg_segment_cpu_visible(wdev, id))
		return 0;
	/* Only CpuVisibleOnDemand allocations can be away from the CPU. */
	if (!(bo->flags & WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND) ||
	    bo->tbo.pin_count) {
		drm_dbg(&wdev->drm, "fault on an allocation the CPU cannot reach in segment %u\n",
			id);
		return VM_FAULT_SIGBUS;
	}

	wddmseg_bo_placement(bo, true);
	ret = wddmseg_bo_validate(bo, &ctx);
	wddmseg_bo_placement(bo, false);
	if (ret) {
		drm_dbg(&wdev->drm, "fault migration out of segment %u failed: %d\n",
			id, ret);
		return ret == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	}
	return 0;
}

/* The PTE protection of system pages with @caching. */
static pgprot_t wddmseg_caching_prot(enum ttm_caching caching, pgprot_t prot)
{
	if (caching == ttm_write_combined)
		return pgprot_writecombine(prot);
	if (caching == ttm_uncached)
		return pgprot_noncached(prot);
	return prot;
}

/*
 * A CPU fault on a PermanentSysMem allocation: always its permanent
 * system-memory copy, never the segment it is in and never a migration
 * (DOC: PermanentSysMem). In system memory or an aperture the copy is the
 * allocation's pages, which TTM maps; in a memory segment it is the kept
 * copy, mapped here. A writable mapping makes the copy newer than the
 * segment's: the next engine use refreshes the segment first.
 */
static vm_fault_t wddmseg_perm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct ttm_buffer_object *tbo = vma->vm_private_data;
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);
	struct ttm_operation_ctx ctx = { .interruptible = false };
	unsigned long address = vmf->address;
	struct wddmseg_perm_copy copy;
	pgoff_t page, npages = PFN_UP(tbo->base.size);
	vm_fault_t ret = VM_FAULT_NOPAGE;
	pgprot_t prot;
	int err, i;

	err = wddmseg_bo_give_resource(bo, &ctx);
	if (err)
		return err == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	if (ttm_manager_type(tbo->bdev, tbo->resource->mem_type)->use_tt)
		return ttm_bo_vm_fault_reserved(vmf, vma->vm_page_prot,
						TTM_BO_VM_NUM_PREFAULT);

	/* Moves write the copy too (a write-through): let them finish. */
	if (dma_resv_wait_timeout(tbo->base.resv, DMA_RESV_USAGE_KERNEL, false,
				  MAX_SCHEDULE_TIMEOUT) < 0)
		return VM_FAULT_SIGBUS;
	err = wddmseg_perm_get(bo, &ctx, &copy);
	if (err)
		return err == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;

	page = ((address - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff -
	       drm_vma_node_start(&tbo->base.vma_node);
	if (page >= npages)
		return VM_FAULT_SIGBUS;
	prot = wddmseg_caching_prot(copy.caching, vma->vm_page_prot);
	for (i = 0; i < TTM_BO_VM_NUM_PREFAULT; i++) {
		ret = vmf_insert_pfn_prot(vma, address,
					  page_to_pfn(copy.pages[page]), prot);
		/* Only the faulting page must make it. */
		if (unlikely(ret & VM_FAULT_ERROR)) {
			if (!i)
				return VM_FAULT_NOPAGE;
			break;
		}
		address += PAGE_SIZE;
		if (++page >= npages || address >= vma->vm_end)
			break;
	}
	if (vma->vm_flags & VM_WRITE)
		bo->perm_cpu_dirty = true;
	return VM_FAULT_NOPAGE;
}

static vm_fault_t wddmseg_gem_fault_map(struct vm_fault *vmf)
{
	struct ttm_buffer_object *tbo = vmf->vma->vm_private_data;
	struct drm_device *drm = tbo->base.dev;
	vm_fault_t ret;
	int idx;

	ret = ttm_bo_vm_reserve(tbo, vmf);
	if (ret)
		return ret;

	if (wddmseg_protect_check_cpu(to_wddmseg_bo(tbo), "fault")) {
		ret = VM_FAULT_SIGBUS;
	} else if (drm_dev_enter(drm, &idx)) {
		if (wddmseg_bo_permanent(to_wddmseg_bo(tbo))) {
			ret = wddmseg_perm_fault(vmf);
		} else {
			ret = wddmseg_bo_fault_migrate(to_wddmseg_bo(tbo));
			if (!ret)
				ret = ttm_bo_vm_fault_reserved(vmf,
							       vmf->vma->vm_page_prot,
							       TTM_BO_VM_NUM_PREFAULT);
		}
		drm_dev_exit(idx);
	} else {
		ret = ttm_bo_vm_dummy_page(vmf, vmf->vma->vm_page_prot);
	}
	if (ret == VM_FAULT_RETRY && !(vmf->flags & FAULT_FLAG_RETRY_NOWAIT))
		return ret;

	dma_resv_unlock(tbo->base.resv);
	return ret;
}

/*
 * A runtime-suspended device unmapped what stays in VRAM (D3hot does not
 * decode the BARs): the fault resumes it first, before any lock, and
 * holds it in D0 while it maps (DOC: Runtime power management).
 */
static vm_fault_t wddmseg_gem_fault(struct vm_fault *vmf)
{
	struct ttm_buffer_object *tbo = vmf->vma->vm_private_data;
	struct wddmseg_device *wdev = to_wddmseg(tbo->base.dev);
	vm_fault_t ret;

	if (wddmseg_pm_get(wdev))
		return VM_FAULT_SIGBUS;
	ret = wddmseg_gem_fault_map(vmf);
	wddmseg_pm_put(wdev);
	return ret;
}

/*
 * ptrace and /proc/PID/mem reach a mapping through .access (TTM's
 * access_memory for VRAM: Read/WritePhysical). get_user_pages refuses a
 * forced write to a shared read-only mapping of ordinary memory; do the
 * same here, or a read-only mapping would be a way to write the
 * allocation. An access across the end of the allocation is cut there:
 * 6.12's TTM refuses it whole (-EIO), 6.1's let it through to the end of
 * the page.
 */
static int wddmseg_gem_vm_access(struct vm_area_struct *vma,
				 unsigned long addr, void *buf, int len,
				 int write)
{
	struct ttm_buffer_object *tbo = vma->vm_private_data;
	struct ttm_operation_ctx ctx = { .interruptible = true };
	unsigned long offset = addr - vma->vm_start +
		((vma->vm_pgoff - drm_vma_node_start(&tbo->base.vma_node)) <<
		 PAGE_SHIFT);
	int ret;

	ret = wddmseg_protect_check_cpu(to_wddmseg_bo(tbo), "access");
	if (ret)
		return ret;
	if (write && !(vma->vm_flags & VM_WRITE)) {
		drm_dbg_driver(tbo->base.dev,
			       "access: rule read-only-mapping: write through a mapping without PROT_WRITE\n");
		return -EACCES;
	}
	/* Zeroes are readable too, as on 6.1: give them a placement. */
	if (!READ_ONCE(tbo->resource)) {
		ret = ttm_bo_reserve(tbo, true, false, NULL);
		if (ret)
			return ret;
		ret = wddmseg_bo_give_resource(to_wddmseg_bo(tbo), &ctx);
		ttm_bo_unreserve(tbo);
		if (ret)
			return ret;
	}
	if (len > 0 && offset < tbo->base.size)
		len = min_t(unsigned long, len, tbo->base.size - offset);
	return ttm_bo_vm_access(vma, addr, buf, len, write);
}

/* Read/WritePhysical and the placement are engine jobs: the device in D0. */
static int wddmseg_gem_vm_access_pm(struct vm_area_struct *vma,
				    unsigned long addr, void *buf, int len,
				    int write)
{
	struct ttm_buffer_object *tbo = vma->vm_private_data;
	struct wddmseg_device *wdev = to_wddmseg(tbo->base.dev);
	int ret;

	ret = wddmseg_pm_get(wdev);
	if (ret)
		return ret;
	ret = wddmseg_gem_vm_access(vma, addr, buf, len, write);
	wddmseg_pm_put(wdev);
	return ret;
}

static const struct vm_operations_struct wddmseg_gem_vm_ops = {
	.fault = wddmseg_gem_fault,
	.open = ttm_bo_vm_open,
	.close = ttm_bo_vm_close,
	.access = wddmseg_gem_vm_access_pm,
};

/* Pin accounting follows the pin count's 0 <-> 1 transitions. */
static void wddmseg_bo_pin_locked(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = bo_wdev(bo);
	u32 id = wddmseg_res_segment(wdev, bo->tbo.resource);

	if (!bo->tbo.pin_count && id)
		atomic64_add(bo->tbo.base.size >> PAGE_SHIFT,
			     &wdev->mgr[id - 1]->pinned_pages);
	ttm_bo_pin(&bo->tbo);
}

static void wddmseg_bo_unpin_locked(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = bo_wdev(bo);
	u32 id = wddmseg_res_segment(wdev, bo->tbo.resource);

	ttm_bo_unpin(&bo->tbo);
	if (!bo->tbo.pin_count && id)
		atomic64_sub(bo->tbo.base.size >> PAGE_SHIFT,
			     &wdev->mgr[id - 1]->pinned_pages);
}

/**
 * wddmseg_bo_direct_flip_segments - where the scanout may read @bo from
 * @bo: allocation
 *
 * Return: the memory segments of @bo's supported set whose flags have
 * DirectFlip, as a mask of WDDMSEG_SEGMENT_BIT().
 */
u32 wddmseg_bo_direct_flip_segments(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = bo_wdev(bo);
	u32 id, mask = 0;

	for (id = 1; id <= wdev->desc.segment_count; id++) {
		const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];

		if ((bo->supported & WDDMSEG_SEGMENT_BIT(id)) &&
		    (seg->flags & DXGK_SEGFLAG_DIRECT_FLIP) &&
		    !wddmseg_segment_is_aperture(seg))
			mask |= WDDMSEG_SEGMENT_BIT(id);
	}
	return mask;
}

/**
 * wddmseg_bo_pin_scanout - pin an allocation where the scanout can read it
 * @bo: allocation
 *
 * Migrates @bo into one of its DirectFlip segments (preferred order) if it
 * is elsewhere, evicting as needed, and pins it there. The move may still
 * be running on the copy engine: the caller waits for the reservation's
 * kernel fences before scanning out.
 *
 * Return: 0, -EINVAL when no DirectFlip segment is allowed, -EBUSY when
 * @bo is pinned elsewhere, -ENOMEM when no DirectFlip segment has room.
 */
int wddmseg_bo_pin_scanout(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = bo_wdev(bo);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_place places[WDDMSEG_MAX_SEGMENTS];
	u32 mask = wddmseg_bo_direct_flip_segments(bo);
	struct ttm_placement placement;
	u32 i, n = 0, id, cur;
	int ret;

	if (!mask)
		return -EINVAL;
	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (ret)
		return ret;
	cur = wddmseg_res_segment(wdev, bo->tbo.resource);
	/* The scanout reads one range: a resource made of blocks moves. */
	if (!cur || !(mask & WDDMSEG_SEGMENT_BIT(cur)) ||
	    !wddmseg_mgr_res_contiguous(bo->tbo.resource)) {
		if (bo->tbo.pin_count) {
			drm_dbg_kms(&wdev->drm, "scanout: pinned in segment %u, not DirectFlip\n",
				    cur);
			ret = -EBUSY;
			goto out;
		}
		for (i = 0; bo->preferred[i]; i++) {
			id = bo->preferred[i];
			if (!(mask & WDDMSEG_SEGMENT_BIT(id)))
				continue;
			wddmseg_place(bo, &places[n], id, 0);
			places[n++].flags |= TTM_PL_FLAG_CONTIGUOUS;
		}
		wddmseg_placement_init(&placement, places, n, 0);
		ret = ttm_bo_validate(&bo->tbo, &placement, &ctx);
		if (ret) {
			drm_dbg_kms(&wdev->drm, "scanout: no room in DirectFlip segs 0x%x: %d\n",
				    mask, ret);
			goto out;
		}
	}
	wddmseg_bo_pin_locked(bo);
out:
	ttm_bo_unreserve(&bo->tbo);
	return ret;
}

/**
 * wddmseg_bo_unpin - undo wddmseg_bo_pin_scanout() or
 *	wddmseg_bo_pin_shared()
 * @bo: allocation
 */
void wddmseg_bo_unpin(struct wddmseg_bo *bo)
{
	/* Not interruptible: the pin must go. */
	if (ttm_bo_reserve(&bo->tbo, false, false, NULL))
		return;
	wddmseg_bo_unpin_locked(bo);
	ttm_bo_unreserve(&bo->tbo);
}

/**
 * wddmseg_bo_pin_shared - pin an allocation in pages for another device
 * @bo: allocation, attached to by another device's dma-buf import
 *
 * Cross-adapter resources live in system memory: @bo stays where it is if
 * its pages are already system pages (system memory or an aperture), else
 * moves into system memory; it is pinned there, populated, once the move
 * that brought it there is done. Undone by wddmseg_bo_unpin().
 *
 * Return: 0, -EBUSY when @bo is pinned in device memory, or the error of
 * the move.
 */
int wddmseg_bo_pin_shared(struct wddmseg_bo *bo)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_buffer_object *tbo = &bo->tbo;
	struct ttm_placement placement;
	struct ttm_place place;
	long lret;
	int ret;

	ret = ttm_bo_reserve(tbo, true, false, NULL);
	if (ret)
		return ret;
	ret = wddmseg_bo_give_resource(bo, &ctx);
	if (ret)
		goto out;
	if (!ttm_manager_type(tbo->bdev, tbo->resource->mem_type)->use_tt) {
		if (tbo->pin_count) {
			ret = -EBUSY;
			goto out;
		}
		wddmseg_place(bo, &place, WDDMSEG_SEGMENT_SYSTEM, 0);
		wddmseg_placement_init(&placement, &place, 1, 0);
		bo->evicting = true;
		ret = ttm_bo_validate(tbo, &placement, &ctx);
		bo->evicting = false;
		if (ret)
			goto out;
	}
	ret = wddmseg_bo_populate(tbo, &ctx);
	if (ret)
		goto out;
	lret = dma_resv_wait_timeout(tbo->base.resv, DMA_RESV_USAGE_KERNEL,
				     true, MAX_SCHEDULE_TIMEOUT);
	if (lret < 0) {
		ret = lret;
		goto out;
	}
	wddmseg_bo_pin_locked(bo);
out:
	ttm_bo_unreserve(tbo);
	return ret;
}

/*
 * Kernel mappings (fbdev emulation, a dma-buf's vmap): pinned where the
 * allocation is while mapped, once the moves that brought it there are
 * done. The reservation is the caller's since 6.2, ours before
 * (wddmseg_gem_vmap_lock()).
 */
static int wddmseg_gem_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	long lret;
	int ret;

	if (obj->import_attach) {
		drm_dbg(obj->dev, "vmap: rule prime-import-vmap: an imported allocation is mapped by its exporter only\n");
		return -EOPNOTSUPP;
	}
	/* A kernel mapping is a CPU path too: the rules of mmap. */
	ret = wddmseg_protect_check_cpu(bo, "vmap");
	if (ret)
		return ret;
	WRITE_ONCE(bo->exposed, true);
	ret = wddmseg_gem_vmap_lock(obj, true);
	if (ret)
		return ret;
	ret = wddmseg_bo_give_resource(bo, &ctx);
	if (ret)
		goto out;
	/* PermanentSysMem: CPU access is to its copy, in system memory. */
	if (wddmseg_bo_permanent(bo) && !bo->tbo.pin_count &&
	    !ttm_manager_type(bo->tbo.bdev, bo->tbo.resource->mem_type)->use_tt) {
		ret = wddmseg_bo_move_system_locked(bo, &ctx);
		if (ret)
			goto out;
	}
	/* ttm_bo_vmap() maps VRAM from its first page on: one range. */
	bo->contiguous = true;
	if (wddmseg_res_segment(bo_wdev(bo), bo->tbo.resource) &&
	    !wddmseg_mgr_res_contiguous(bo->tbo.resource)) {
		wddmseg_bo_placement(bo, false);
		ret = ttm_bo_validate(&bo->tbo, &bo->placement, &ctx);
		if (ret)
			goto out;
	}
	lret = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_KERNEL, true,
				     MAX_SCHEDULE_TIMEOUT);
	if (lret < 0) {
		ret = lret;
		goto out;
	}
	wddmseg_bo_pin_locked(bo);
	ret = ttm_bo_vmap(&bo->tbo, map);
	if (ret)
		wddmseg_bo_unpin_locked(bo);
out:
	wddmseg_gem_vmap_unlock(obj);
	return ret;
}

static void wddmseg_gem_vunmap(struct drm_gem_object *obj,
			       struct iosys_map *map)
{
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);

	if (wddmseg_gem_vmap_lock(obj, false))
		return;
	ttm_bo_vunmap(&bo->tbo, map);
	wddmseg_bo_unpin_locked(bo);
	wddmseg_gem_vmap_unlock(obj);
}

/*
 * Every mmap of the DRM file (GEM and dumb offsets) and of a dma-buf of
 * the allocation (drm_gem_prime_mmap()) ends here.
 */
static int wddmseg_gem_mmap(struct drm_gem_object *obj,
			    struct vm_area_struct *vma)
{
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);
	int ret;

	if (obj->import_attach) {
		/*
		 * The exporter's mapping, with its rules and fault handler,
		 * which hold the exporter's object: drop what drm_gem_mmap_obj()
		 * set up and the reference it took on this one.
		 */
		vma->vm_private_data = NULL;
		vma->vm_ops = NULL;
		ret = dma_buf_mmap(obj->import_attach->dmabuf, vma, 0);
		if (!ret)
			drm_gem_object_put(obj);
		return ret;
	}
	ret = wddmseg_protect_check_cpu(bo, "mmap");
	if (ret)
		return ret;
	/* The CPU may write it in place from now on: wiped on release. */
	WRITE_ONCE(bo->exposed, true);
	return drm_gem_ttm_mmap(obj, vma);
}

/* debugfs (framebuffer, state dumps): TTM's helper needs a resource. */
static void wddmseg_gem_print_info(struct drm_printer *p, unsigned int indent,
				   const struct drm_gem_object *obj)
{
	const struct ttm_buffer_object *tbo = drm_gem_ttm_of_gem(obj);

	if (tbo->resource)
		drm_gem_ttm_print_info(p, indent, obj);
	else
		drm_printf_indent(p, indent, "placement=none (no content)\n");
}

const struct drm_gem_object_funcs wddmseg_gem_funcs = {
	.free = wddmseg_gem_free,
	.export = wddmseg_gem_prime_export,
	.get_sg_table = wddmseg_gem_prime_get_sg_table,
	.mmap = wddmseg_gem_mmap,
	.vmap = wddmseg_gem_vmap,
	.vunmap = wddmseg_gem_vunmap,
	.vm_ops = &wddmseg_gem_vm_ops,
	.print_info = wddmseg_gem_print_info,
};

static u32 wddmseg_bo_page_alignment(struct wddmseg_device *wdev,
				     u32 supported, u32 alignment)
{
	u32 id, align = max_t(u32, alignment, PAGE_SIZE);

	for (id = 1; id <= wdev->desc.segment_count; id++)
		if ((supported & WDDMSEG_SEGMENT_BIT(id)) &&
		    (wdev->desc.seg[id - 1].flags & DXGK_SEGFLAG_USE_64KB_PAGES))
			align = max_t(u32, align, SZ_64K);
	return align >> PAGE_SHIFT;
}

/* Reserve the first residency notification on the creating file. */
static int wddmseg_bo_arm_residency(struct wddmseg_bo *bo,
				    struct drm_file *file, u32 handle)
{
	struct wddmseg_residency_event *e = wddmseg_residency_event_alloc(bo);
	int ret;

	if (!e)
		return -ENOMEM;
	e->event.handle = handle;

	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (ret) {
		kfree(e);
		return ret;
	}
	ret = drm_event_reserve_init(bo->tbo.base.dev, file, &e->base,
				     &e->event.base);
	if (ret) {
		kfree(e);
	} else {
		bo->residency_event = e;
		/* The first commit is a residency change too. */
		wddmseg_bo_residency_note(bo, bo->tbo.resource);
		wddmseg_bo_residency_commit(bo);
	}
	ttm_bo_unreserve(&bo->tbo);
	if (ret)
		drm_gem_handle_delete(file, handle);
	return ret;
}

static int wddmseg_bo_pin_user(struct wddmseg_bo *bo, u64 addr, u64 npages)
{
	long pinned;

	bo->user_pages = kvmalloc_array(npages, sizeof(*bo->user_pages),
					GFP_KERNEL);
	if (!bo->user_pages)
		return -ENOMEM;
	pinned = pin_user_pages_fast(addr, npages, FOLL_WRITE | FOLL_LONGTERM,
				     bo->user_pages);
	if (pinned == npages)
		return 0;
	if (pinned > 0)
		unpin_user_pages(bo->user_pages, pinned);
	kvfree(bo->user_pages);
	bo->user_pages = NULL;
	return pinned < 0 ? pinned : -EFAULT;
}

static int wddmseg_bo_create(struct wddmseg_device *wdev, struct drm_file *file,
			     const struct drm_wddmseg_gem_create *args,
			     u32 *handle)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct wddmseg_file *wfile = file->driver_priv;
	u64 size = PAGE_ALIGN(args->size);
	struct wddmseg_bo *bo;
	u32 i, n = 0, id;
	int ret;

	bo = kzalloc_obj(*bo, GFP_KERNEL);
	if (!bo)
		return -ENOMEM;

	/* Pin user memory before any reservation: pinning takes mmap_lock. */
	if (args->user_ptr) {
		ret = wddmseg_bo_pin_user(bo, args->user_ptr, size >> PAGE_SHIFT);
		if (ret) {
			kfree(bo);
			return ret;
		}
	}

	if (args->flags & WDDMSEG_ALLOC_PERMANENT_SYSMEM) {
		ret = wddmseg_perm_init(bo);
		if (ret) {
			kfree(bo);
			return ret;
		}
	}

	bo->flags = args->flags;
	bo->supported = args->supported_segments;
	bo->eviction = args->eviction_segments;
	bo->bank_hint = args->bank_hint;
	bo->userptr = args->user_ptr;
	bo->group = -1;
	for (i = 0; i < WDDMSEG_MAX_PREFERRED && args->preferred[i]; i++)
		bo->preferred[n++] = args->preferred[i];
	/* Supported segments not listed as preferred come after, in id order. */
	for (id = 1; id <= wdev->desc.segment_count; id++)
		if ((bo->supported & WDDMSEG_SEGMENT_BIT(id)) &&
		    !memchr(bo->preferred, id, n))
			bo->preferred[n++] = id;
	bo->preferred[n] = 0;

	kref_get(&wfile->refcount);
	bo->owner = wfile;

	drm_gem_private_object_init(&wdev->drm, &bo->tbo.base, size);
	bo->tbo.base.funcs = &wddmseg_gem_funcs;

	/*
	 * Start in system memory (no move), then validate, so that a failed
	 * placement can fall back instead of destroying the object. On
	 * failure ttm_bo_init_reserved() calls wddmseg_bo_destroy().
	 */
	wddmseg_place(bo, &bo->places[0], WDDMSEG_SEGMENT_SYSTEM, 0);
	wddmseg_placement_init(&bo->placement, bo->places, 1, 0);
	ret = ttm_bo_init_reserved(&wdev->bdev, &bo->tbo, ttm_bo_type_device,
				   &bo->placement,
				   wddmseg_bo_page_alignment(wdev, bo->supported,
							     args->alignment),
				   &ctx, NULL, NULL, wddmseg_bo_destroy);
	if (ret)
		return ret;

	wddmseg_bo_placement(bo, false);
	ret = wddmseg_bo_validate(bo, &ctx);
	if (ret) {
		ttm_bo_unreserve(&bo->tbo);
		drm_gem_object_put(&bo->tbo.base);
		return ret == -ENOMEM ? -ENOSPC : ret;
	}

	atomic64_set(&bo->moves, 0);
	trace_wddmseg_bo_create(bo, size, bo->flags, bo->supported,
				wddmseg_res_segment(wdev, bo->tbo.resource));
	if (wddmseg_bo_pinned_kind(bo))
		wddmseg_bo_pin_locked(bo);
	ttm_bo_unreserve(&bo->tbo);

	ret = drm_gem_handle_create(file, &bo->tbo.base, handle);
	if (!ret && (bo->flags & WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION))
		ret = wddmseg_bo_arm_residency(bo, file, *handle);
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

/**
 * wddmseg_gem_prime_import_sg_table - &drm_driver.gem_prime_import_sg_table
 * @drm: the importing device
 * @attach: its attachment to another device's dma-buf
 * @sgt: the exporter's pages, DMA-mapped for this device
 *
 * A cross-adapter resource (DOC: PRIME): an allocation in system memory
 * over @sgt, sharing the dma-buf's reservation, with no supported
 * segment, pinned there (it never moves, and TTM never swaps its pages).
 * CpuVisible: its mmap is the exporter's, whose rules decide.
 *
 * Return: the new GEM object, or an ERR_PTR.
 */
struct drm_gem_object *
wddmseg_gem_prime_import_sg_table(struct drm_device *drm,
				  struct dma_buf_attachment *attach,
				  struct sg_table *sgt)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct dma_resv *resv = attach->dmabuf->resv;
	struct wddmseg_bo *bo;
	int ret;

	bo = kzalloc_obj(*bo, GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->flags = WDDMSEG_ALLOC_CPU_VISIBLE;
	bo->group = -1;
	drm_gem_private_object_init(drm, &bo->tbo.base, attach->dmabuf->size);
	bo->tbo.base.funcs = &wddmseg_gem_funcs;
	wddmseg_place(bo, &bo->places[0], WDDMSEG_SEGMENT_SYSTEM, 0);
	wddmseg_placement_init(&bo->placement, bo->places, 1, 0);

	/* TTM wants a reservation passed in held; on failure it is still ours. */
	ret = dma_resv_lock_interruptible(resv, NULL);
	if (ret) {
		drm_gem_object_release(&bo->tbo.base);
		kfree(bo);
		return ERR_PTR(ret);
	}
	ret = ttm_bo_init_reserved(&wdev->bdev, &bo->tbo, ttm_bo_type_sg,
				   &bo->placement, 0, &ctx, sgt, resv,
				   wddmseg_bo_destroy);
	if (ret) {
		dma_resv_unlock(resv);
		return ERR_PTR(ret);
	}
	atomic64_set(&bo->moves, 0);
	trace_wddmseg_bo_create(bo, bo->tbo.base.size, bo->flags, 0, 0);
	wddmseg_bo_pin_locked(bo);
	ttm_bo_unreserve(&bo->tbo);
	return &bo->tbo.base;
}

int wddmseg_ioctl_gem_create(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_gem_create *args = data;
	struct wddmseg_violation v;
	int ret, idx;

	ret = wddmseg_alloc_validate(&wdev->desc, args,
				     (u64)totalram_pages() << (PAGE_SHIFT - 1), &v);
	if (ret) {
		drm_dbg(drm, "gem_create: rule %s: %s\n", v.rule, v.detail);
		return ret;
	}

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	ret = wddmseg_bo_create(wdev, file, args, &args->handle);
	drm_dev_exit(idx);
	if (ret)
		drm_dbg(drm, "gem_create: %llu bytes, flags 0x%x: %d\n",
			args->size, args->flags, ret);
	return ret;
}

int wddmseg_dumb_create(struct drm_file *file, struct drm_device *drm,
			struct drm_mode_create_dumb *args)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_gem_create create = {
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE,
	};
	u32 id, cpp = DIV_ROUND_UP(args->bpp, 8);
	u64 pitch;
	int ret;

	if (!args->width || !args->height || !cpp || args->bpp > 32)
		return -EINVAL;
	pitch = ALIGN((u64)args->width * cpp, 64);
	if (pitch > U32_MAX || pitch * args->height > SZ_1G)
		return -EINVAL;

	/* Every segment the CPU can see, scanout-capable ones first. */
	for (id = 1; id <= wdev->desc.segment_count; id++) {
		const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];

		if (!(seg->flags & DXGK_SEGFLAG_AGP) &&
		    wddmseg_segment_cpu_visible(wdev, id))
			create.supported_segments |= WDDMSEG_SEGMENT_BIT(id);
	}
	create.size = pitch * args->height;
	create.eviction_segments = create.supported_segments;
	/* Not through an aperture it could not fit beside its overlays. */
	for (id = 1; id <= wdev->desc.segment_count; id++)
		if (wddmseg_segment_is_aperture(&wdev->desc.seg[id - 1]) &&
		    create.size >
		    wddmseg_evict_through_max(&wdev->desc.seg[id - 1]))
			create.eviction_segments &= ~WDDMSEG_SEGMENT_BIT(id);
	for (id = 1; id <= wdev->desc.segment_count; id++)
		if ((wdev->desc.seg[id - 1].flags & DXGK_SEGFLAG_DIRECT_FLIP) &&
		    (create.supported_segments & WDDMSEG_SEGMENT_BIT(id))) {
			create.preferred[0] = id;
			break;
		}

	ret = wddmseg_ioctl_gem_create(drm, &create, file);
	if (ret)
		return ret;
	args->pitch = pitch;
	/* The allocation is whole pages; clients map (and check) all of it. */
	args->size = PAGE_ALIGN(create.size);
	args->handle = create.handle;
	return 0;
}

static struct wddmseg_bo *wddmseg_bo_lookup(struct drm_file *file, u32 handle)
{
	struct drm_gem_object *obj = drm_gem_object_lookup(file, handle);

	return obj ? gem_to_wddmseg_bo(obj) : NULL;
}

int wddmseg_ioctl_gem_mmap_offset(struct drm_device *drm, void *data,
				  struct drm_file *file)
{
	struct drm_wddmseg_gem_mmap_offset *args = data;
	struct wddmseg_bo *bo;
	int ret = 0;

	if (args->pad) {
		drm_dbg(drm, "gem_mmap_offset: pad must be zero\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;

	ret = wddmseg_protect_check_cpu(bo, "gem_mmap_offset");
	if (!ret)
		args->offset = drm_vma_node_offset_addr(&bo->tbo.base.vma_node);
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

/**
 * wddmseg_dumb_map_offset - DRM_IOCTL_MODE_MAP_DUMB
 * @file: DRM file
 * @drm: device
 * @handle: any GEM handle of @file, not only a dumb buffer's
 * @offset: the fake mmap offset
 *
 * The same rule as GEM_MMAP_OFFSET: the generic helper would hand out an
 * offset for any handle.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_dumb_map_offset(struct drm_file *file, struct drm_device *drm,
			    u32 handle, u64 *offset)
{
	struct wddmseg_bo *bo = wddmseg_bo_lookup(file, handle);
	int ret;

	if (!bo)
		return -ENOENT;
	ret = wddmseg_protect_check_cpu(bo, "map_dumb");
	drm_gem_object_put(&bo->tbo.base);
	return ret ? ret : drm_gem_ttm_dumb_map_offset(file, drm, handle, offset);
}

int wddmseg_ioctl_gem_info(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_gem_info *args = data;
	struct wddmseg_bo *bo;
	u32 handle = args->handle;
	int ret;

	if (memchr_inv(args->reserved, 0, sizeof(args->reserved))) {
		drm_dbg(drm, "gem_info: reserved fields must be zero\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, handle);
	if (!bo)
		return -ENOENT;

	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (!ret) {
		struct ttm_resource *res = bo->tbo.resource;

		memset(args, 0, sizeof(*args));
		args->handle = handle;
		args->segment_id = wddmseg_res_segment(wdev, res);
		if (args->segment_id)
			args->offset = (u64)res->start << PAGE_SHIFT;
		if (args->segment_id && !wddmseg_mgr_res_contiguous(res))
			args->state |= WDDMSEG_STATE_BLOCKS;
		args->size = bo->tbo.base.size;
		args->flags = bo->flags;
		if (bo->tbo.pin_count)
			args->state |= WDDMSEG_STATE_PINNED;
		if (args->segment_id)
			args->state |= WDDMSEG_STATE_RESIDENT;
		args->eviction_count = atomic64_read(&bo->evictions);
		args->move_count = atomic64_read(&bo->moves);
		ttm_bo_unreserve(&bo->tbo);
	}
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

/*
 * The rest of a discard, the allocation now in system memory: drop its
 * pages (TTM's pipeline gutting: an empty placement gives it a new,
 * unpopulated ttm_tt marked for clearing, so whatever populates it next
 * gets zeroed pages) and the pages it kept from an earlier stay.
 *
 * Once the DiscardContent is done: TTM guts a busy buffer through a ghost
 * object that holds a reference on the allocation until a worker frees
 * it, so an allocation closed right after a discard would outlive its
 * last handle, and keep the VRAM it took since, which no eviction takes
 * from a live HardwareProtected allocation.
 */
static int wddmseg_bo_discard_pages(struct wddmseg_bo *bo,
				    struct ttm_operation_ctx *ctx)
{
	struct ttm_placement none = {};
	int ret;

	ret = ttm_bo_wait_ctx(&bo->tbo, ctx);
	if (ret)
		return ret;
	ttm_bo_unmap_virtual(&bo->tbo);
	ret = ttm_bo_validate(&bo->tbo, &none, ctx);
	wddmseg_bo_drop_kept(bo);
	bo->sealed = false;
	return ret;
}

/*
 * Validate @bo into exactly @id (0: system memory), evicting as needed;
 * with @discard (id 0 only) its content is dropped on the way.
 */
static int wddmseg_bo_move_to(struct wddmseg_bo *bo, u32 id, bool discard)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_placement placement;
	struct ttm_place place;
	int ret;

	wddmseg_place(bo, &place, id, 0);
	wddmseg_placement_init(&placement, &place, 1, 0);

	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (ret)
		return ret;
	if (bo->tbo.pin_count) {
		ret = -EBUSY;
	} else if (!id && !discard && wddmseg_protect_check_evict(bo)) {
		ret = -EACCES;
	} else {
		/* Moving to system memory on request is an eviction too. */
		bo->evicting = id == WDDMSEG_SEGMENT_SYSTEM;
		bo->discarding = discard;
		ret = ttm_bo_validate(&bo->tbo, &placement, &ctx);
		bo->evicting = false;
		bo->discarding = false;
		if (!ret && discard)
			ret = wddmseg_bo_discard_pages(bo, &ctx);
	}
	ttm_bo_unreserve(&bo->tbo);
	return ret == -ENOMEM && id ? -ENOSPC : ret;
}

/**
 * wddmseg_bo_pm_move - move an allocation for power management
 * @bo: reserved, unpinned allocation
 * @id: segment to move it into, or 0 (WDDMSEG_SEGMENT_SYSTEM) to evict it
 *
 * Not interruptible: the task that suspends the system may have a signal
 * pending and a half-done suspend helps nobody. An eviction into system
 * memory counts as one (and seals HardwareProtected content); the way
 * back decrypts. System pages are allocated without the OOM killer: a
 * suspend that does not fit fails instead.
 *
 * Return: 0 or a negative errno (-ENOMEM: no room in @id).
 */
int wddmseg_bo_pm_move(struct wddmseg_bo *bo, u32 id)
{
	/* Out of memory is a refused suspend, not a reason to kill tasks. */
	struct ttm_operation_ctx ctx = { .interruptible = false,
					 .gfp_retry_mayfail = true };
	struct ttm_placement placement;
	struct ttm_place place;
	int ret;

	dma_resv_assert_held(bo->tbo.base.resv);
	wddmseg_place(bo, &place, id, 0);
	wddmseg_placement_init(&placement, &place, 1, 0);
	bo->evicting = id == WDDMSEG_SEGMENT_SYSTEM;
	ret = ttm_bo_validate(&bo->tbo, &placement, &ctx);
	bo->evicting = false;
	return ret;
}

int wddmseg_ioctl_gem_make_resident(struct drm_device *drm, void *data,
				    struct drm_file *file)
{
	struct drm_wddmseg_gem_residency *args = data;
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct wddmseg_bo *bo;
	int ret, idx;

	if (args->flags) {
		drm_dbg(drm, "make_resident: flags 0x%x: MAKE_RESIDENT takes no flags\n",
			args->flags);
		return -EINVAL;
	}
	if (args->pad || args->reserved) {
		drm_dbg(drm, "make_resident: pad and reserved fields must be zero\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;

	if (args->segment_id &&
	    (args->segment_id > to_wddmseg(drm)->desc.segment_count ||
	     !(bo->supported & WDDMSEG_SEGMENT_BIT(args->segment_id)))) {
		drm_dbg(drm, "make_resident: segment %u is not in the allocation's supported set 0x%x\n",
			args->segment_id, bo->supported);
		ret = -EINVAL;
		goto out;
	}
	if (!drm_dev_enter(drm, &idx)) {
		ret = -ENODEV;
		goto out;
	}
	if (args->segment_id) {
		ret = wddmseg_bo_move_to(bo, args->segment_id, false);
	} else {
		ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
		if (!ret) {
			ret = bo->tbo.pin_count ? -EBUSY :
			      wddmseg_bo_validate(bo, &ctx);
			ttm_bo_unreserve(&bo->tbo);
		}
	}
	drm_dev_exit(idx);
	if (ret)
		drm_dbg(drm, "make_resident: segment %u: %d\n", args->segment_id, ret);
out:
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

int wddmseg_ioctl_gem_evict(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct drm_wddmseg_gem_residency *args = data;
	struct wddmseg_bo *bo;
	int ret, idx;

	bool discard = args->flags & WDDMSEG_EVICT_DISCARD;

	if (args->flags & ~WDDMSEG_EVICT_DISCARD) {
		drm_dbg(drm, "evict: unknown flags 0x%x (known: 0x%x)\n",
			args->flags, WDDMSEG_EVICT_DISCARD);
		return -EINVAL;
	}
	if (args->segment_id || args->pad || args->reserved) {
		drm_dbg(drm, "evict: segment_id, pad and reserved fields must be zero\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;
	if (discard && bo->userptr) {
		drm_dbg(drm, "evict: discard of an ExistingSysMem allocation (its content is the user's memory)\n");
		ret = -EINVAL;
		goto out;
	}
	if (drm_dev_enter(drm, &idx)) {
		ret = wddmseg_bo_move_to(bo, WDDMSEG_SEGMENT_SYSTEM, discard);
		drm_dev_exit(idx);
	} else {
		ret = -ENODEV;
	}
	if (ret)
		drm_dbg(drm, "evict%s: %d%s\n", discard ? " (discard)" : "", ret,
			ret == -EBUSY ? " (pinned allocation)" : "");
out:
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

/*
 * The error of a signalled fence of @resv (a failed engine job), or 0.
 * Under the lock: the unlocked iterator skips signalled fences.
 */
static int wddmseg_resv_error(struct dma_resv *resv)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	int err, st;

	err = dma_resv_lock_interruptible(resv, NULL);
	if (err)
		return err;
	dma_resv_for_each_fence(&cursor, resv, DMA_RESV_USAGE_BOOKKEEP, fence) {
		st = dma_fence_get_status(fence);
		if (st < 0)
			err = st;
	}
	dma_resv_unlock(resv);
	return err;
}

int wddmseg_ioctl_gem_wait(struct drm_device *drm, void *data,
			   struct drm_file *file)
{
	struct drm_wddmseg_gem_wait *args = data;
	struct wddmseg_bo *bo;
	long ret;

	if (args->pad || args->timeout_ns < 0) {
		drm_dbg(drm, "gem_wait: pad must be zero and timeout_ns not negative\n");
		return -EINVAL;
	}
	bo = wddmseg_bo_lookup(file, args->handle);
	if (!bo)
		return -ENOENT;

	ret = dma_resv_wait_timeout(bo->tbo.base.resv, DMA_RESV_USAGE_BOOKKEEP,
				    true, nsecs_to_jiffies(args->timeout_ns));
	if (!ret)
		ret = dma_resv_test_signaled(bo->tbo.base.resv,
					     DMA_RESV_USAGE_BOOKKEEP) ? 0 : -ETIME;
	else if (ret > 0)
		ret = 0;
	if (!ret)
		ret = wddmseg_resv_error(bo->tbo.base.resv);
	if (ret && ret != -ETIME && ret != -ERESTARTSYS)
		drm_dbg(drm, "gem_wait: an operation on the allocation failed: %ld\n",
			ret);
	drm_gem_object_put(&bo->tbo.base);
	return ret;
}

int wddmseg_ioctl_query_budget(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_wddmseg_query_budget *args = data;
	struct wddmseg_file *wfile = file->driver_priv;
	u32 id, group = args->group;

	if (args->pad || memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    args->budget || args->current_usage || args->available ||
	    (group != WDDMSEG_BUDGET_LOCAL && group != WDDMSEG_BUDGET_NON_LOCAL)) {
		drm_dbg(drm, "query_budget: bad group %u or non-zero output/reserved fields\n",
			group);
		return -EINVAL;
	}

	for (id = 1; id <= wdev->desc.segment_count; id++) {
		const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];
		struct wddmseg_mgr *mgr = wdev->mgr[id - 1];

		if (wddmseg_segment_budget_group(seg) != group)
			continue;
		args->budget += seg->commit_limit;
		spin_lock(&mgr->lock);
		args->available += (mgr->commit_limit - mgr->committed) << PAGE_SHIFT;
		spin_unlock(&mgr->lock);
	}
	args->current_usage = atomic64_read(&wfile->resident[group]);
	return 0;
}

int wddmseg_open(struct drm_device *drm, struct drm_file *file)
{
	struct wddmseg_file *wfile = kzalloc_obj(*wfile, GFP_KERNEL);

	if (!wfile)
		return -ENOMEM;
	kref_init(&wfile->refcount);
	wfile->client_id = wddmseg_fdinfo_client_id();
	file->driver_priv = wfile;
	return 0;
}

void wddmseg_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct wddmseg_file *wfile = file->driver_priv;

	kref_put(&wfile->refcount, wddmseg_file_release);
}

/**
 * wddmseg_file_get - a reference to a client's state past its file
 * @wfile: client
 *
 * Return: @wfile.
 */
struct wddmseg_file *wddmseg_file_get(struct wddmseg_file *wfile)
{
	kref_get(&wfile->refcount);
	return wfile;
}

/**
 * wddmseg_file_put - drop a wddmseg_file_get() reference (any context)
 * @wfile: client
 */
void wddmseg_file_put(struct wddmseg_file *wfile)
{
	kref_put(&wfile->refcount, wddmseg_file_release);
}
