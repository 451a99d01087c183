// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU access to allocations: page faults (with the migration of a
 * CpuVisibleOnDemand allocation and the permanent copy of a PermanentSysMem
 * one), access by ptrace and /proc/PID/mem, mmap and kernel mappings (vmap).
 */

#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_bo_cpu.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_file.h"
#include "wddmseg_parked.h"
#include "wddmseg_mgr.h"
#include "wddmseg_offer.h"
#include "wddmseg_pm.h"
#include "wddmseg_protect.h"

/**
 * DOC: Locking shared allocations
 *
 * DXGK_ALLOCATIONINFOFLAGS (CpuVisible): only the process that created a
 * shared allocation may lock it. Locking is mapping it for the CPU here
 * (pfnLockCb), and an allocation is shared once it was exported as a
 * dma-buf (&wddmseg_bo.shared, sticky) or given a GEM flink name: from
 * then on every CPU path asks whether the address space that maps is its
 * creator's (&wddmseg_bo.creator; any thread of it). Refused with rule
 * lock-shared-creator:
 *
 * - mmap of the DRM file (GEM and dumb offsets) and of the dma-buf,
 *   and the ioctls that hand out those offsets (-EACCES);
 * - a kernel mapping (vmap) asked in the context of another process, an
 *   importer's ioctl for one (-EACCES). A kernel thread's vmap is the
 *   kernel's own use (fbdev emulation, a display engine reading a
 *   scanout buffer): it maps as before.
 *
 * A lock is the making of a mapping: faults through it, and ptrace or
 * /proc/PID/mem reads of it, are the mapping's own. A child the creator
 * forks inherits the creator's mappings as Linux inherits any (TTM's are
 * VM_PFNMAP: the entries already there are copied), which WDDM, without
 * fork, does not speak of; the child cannot map the allocation anew. The
 * engine paths (copy, fill, scanout) are not locks: an importer uses the
 * content through its device, as WDDM's other processes do through
 * theirs. The driver's own allocations (no creator) are never shared.
 */

/*
 * Does @mm belong to the process that created @bo? Its task is looked up
 * under RCU; a creator that has exited maps nothing.
 */
static bool wddmseg_bo_creator_mm(struct wddmseg_bo *bo,
				  const struct mm_struct *mm)
{
	struct task_struct *t;
	bool same;

	rcu_read_lock();
	t = pid_task(bo->creator, PIDTYPE_TGID);
	same = t && READ_ONCE(t->mm) == mm;
	rcu_read_unlock();
	return same;
}

/**
 * wddmseg_bo_check_lock - may an address space map an allocation
 * @bo: allocation
 * @mm: the address space that maps it, or NULL for the kernel's own
 *	mapping in a kernel thread
 * @path: what asks (mmap, vmap, an offset ioctl), for the log
 *
 * DOC: Locking shared allocations.
 *
 * Return: 0, or -EACCES (lock-shared-creator).
 */
int wddmseg_bo_check_lock(struct wddmseg_bo *bo, const struct mm_struct *mm,
			  const char *path)
{
	if (!bo->creator || !mm)
		return 0;
	if (!READ_ONCE(bo->shared) && !READ_ONCE(bo->tbo.base.name))
		return 0;
	if (wddmseg_bo_creator_mm(bo, mm))
		return 0;
	drm_dbg(bo->tbo.base.dev, "%s: rule lock-shared-creator: only the process that created a shared allocation may lock it (DXGK_ALLOCATIONINFOFLAGS); pid %d is not process %d\n",
		path, task_tgid_nr(current), pid_nr(bo->creator));
	return -EACCES;
}

static vm_fault_t wddmseg_bo_fault_migrate(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);
	struct ttm_operation_ctx ctx = { .interruptible = false };
	u32 id;
	int ret;

	/* Nothing to migrate: zeroes, in system pages from now on. */
	ret = wddmseg_bo_ensure_resource(bo, &ctx);
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
 * allocation's pages, which TTM maps; in a memory segment it is the parked
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

	err = wddmseg_bo_ensure_resource(bo, &ctx);
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
	bool offered;
	int idx;

	ret = ttm_bo_vm_reserve(tbo, vmf);
	if (ret)
		return ret;

	if (wddmseg_protect_check_cpu(to_wddmseg_bo(tbo), "fault") ||
	    wddmseg_offer_check(to_wddmseg_bo(tbo), "fault")) {
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

	offered = to_wddmseg_bo(tbo)->offer_priority;
	dma_resv_unlock(tbo->base.resv);
	if (offered)
		wddmseg_offer_sort(bdev_to_wddmseg(tbo->bdev));
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
		ret = wddmseg_bo_ensure_resource(to_wddmseg_bo(tbo), &ctx);
		wddmseg_bo_unreserve(to_wddmseg_bo(tbo));
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

const struct vm_operations_struct wddmseg_gem_vm_ops = {
	.fault = wddmseg_gem_fault,
	.open = ttm_bo_vm_open,
	.close = ttm_bo_vm_close,
	.access = wddmseg_gem_vm_access_pm,
};

/*
 * Kernel mappings (fbdev emulation, a dma-buf's vmap): pinned where the
 * allocation is while mapped, once the moves that brought it there are
 * done. The reservation is the caller's since 6.2, ours before
 * (wddmseg_gem_vmap_lock()).
 */
int wddmseg_gem_vmap(struct drm_gem_object *obj, struct iosys_map *map)
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
	if (!ret)
		ret = wddmseg_bo_check_lock(bo, (current->flags & PF_KTHREAD) ?
					    NULL : current->mm, "vmap");
	if (ret)
		return ret;
	WRITE_ONCE(bo->maybe_written_in_place, true);
	ret = wddmseg_gem_vmap_lock(obj, true);
	if (ret)
		return ret;
	ret = wddmseg_bo_ensure_resource(bo, &ctx);
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
	if (wddmseg_res_segment(wddmseg_bo_wdev(bo), bo->tbo.resource) &&
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

void wddmseg_gem_vunmap(struct drm_gem_object *obj,
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
int wddmseg_gem_mmap(struct drm_gem_object *obj,
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
	if (!ret)
		ret = wddmseg_bo_check_lock(bo, vma->vm_mm, "mmap");
	if (ret)
		return ret;
	/* The CPU may write it in place from now on: wiped on release. */
	WRITE_ONCE(bo->maybe_written_in_place, true);
	return drm_gem_ttm_mmap(obj, vma);
}
