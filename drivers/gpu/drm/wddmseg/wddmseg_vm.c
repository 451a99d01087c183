// SPDX-License-Identifier: GPL-2.0-only
/*
 * GPU virtual address spaces: VM_CREATE and VM_DESTROY.
 */

#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_file.h"
#include "wddmseg_hw.h"
#include "wddmseg_mgr.h"
#include "wddmseg_vm.h"

/**
 * DOC: GPU address spaces
 *
 * Under WDDM's GpuMmu model every process has GPU virtual address spaces
 * of its own, translated by the GPU MMU through page tables that live in
 * a memory segment. In wddmseg an address space is a &struct wddmseg_vm
 * of one open file, created by DRM_IOCTL_WDDMSEG_VM_CREATE and named by
 * an id of that file (an xarray, ids from 1), so that two processes never
 * name each other's spaces. It is built on the kernel's VA manager,
 * &struct drm_gpuvm, which keeps its mappings, its reference count and a
 * reservation object of its own, the common dma_resv of everything
 * private to the space (its page tables); there is no second VA manager.
 *
 * The geometry comes from the device (QUERY_MMU): VirtualAddressBitCount
 * bounds the space; its first page is never handed out, so that GPU
 * address 0 always faults. The root page table is an allocation of the
 * driver, of the device's page-table size and alignment, pinned in the
 * device's page-table segment (MMU_PT_SEGMENT), charged to the file that
 * created the space, and as any new allocation in VRAM zeroed by the
 * paging engine (a Fill, or VRAM known zero since one): a new space
 * translates nothing. Lower levels come with the first mappings.
 *
 * VM_DESTROY removes the id and drops the file's reference; the space
 * and its root table go with the last reference. Closing the file
 * destroys whatever spaces it still has.
 *
 * Where the device has no MMU (before 1.9, or a layout without a memory
 * segment for the page tables) VM_CREATE fails with -EOPNOTSUPP (rule
 * vm-no-mmu); where the kernel has no drm_gpuvm (6.1) both ioctls do
 * (rule vm-no-gpuvm, wddmseg_compat.h).
 */

/* First VA handed out: the page at 0 is reserved, so 0 always faults. */
#define WDDMSEG_VM_RESERVED	SZ_4K

static void wddmseg_vm_free(struct drm_gpuvm *gpuvm)
{
	struct wddmseg_vm *vm = to_wddmseg_vm(gpuvm);

	wddmseg_bo_put_kernel(vm->root);
	kfree(vm);
}

static const struct drm_gpuvm_ops wddmseg_gpuvm_ops = {
	.vm_free = wddmseg_vm_free,
};

/*
 * The geometry VM_CREATE relies on; the device reports it, the driver
 * checks it before trusting it (rule vm-mmu-geometry).
 */
static bool wddmseg_vm_geometry_ok(const struct wddmseg_mmu_desc *m)
{
	return m->va_bits > WDDMSEG_HW_PAGE_SHIFT && m->va_bits < 64 &&
	       m->pt_size && IS_ALIGNED(m->pt_size, SZ_4K) &&
	       m->pt_align && is_power_of_2(m->pt_align) &&
	       m->pt_segment;
}

/* GPU address of a contiguous allocation resident in a memory segment. */
static u64 wddmseg_vm_bo_gpu_addr(struct wddmseg_device *wdev,
				  struct wddmseg_bo *bo)
{
	u32 id = wddmseg_res_segment(wdev, bo->tbo.resource);

	return wdev->desc.seg[id - 1].base_address +
	       ((u64)bo->tbo.resource->start << PAGE_SHIFT);
}

int wddmseg_ioctl_vm_create(struct drm_device *drm, void *data,
			    struct drm_file *file)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	const struct wddmseg_mmu_desc *m = &wdev->desc.mmu;
	struct wddmseg_file *wfile = file->driver_priv;
	struct drm_wddmseg_vm_create *args = data;
	struct drm_gem_object *r_obj;
	struct wddmseg_vm *vm;
	u64 range;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "vm_create: rule vm-flags: unknown flags 0x%x\n",
			args->flags);
		return -EINVAL;
	}
	if (args->vm_id || args->va_start || args->va_end ||
	    memchr_inv(args->reserved, 0, sizeof(args->reserved))) {
		drm_dbg(drm, "vm_create: rule vm-reserved: outputs and reserved fields must be zero\n");
		return -EINVAL;
	}
	if (!(m->caps & WDDMSEG_MMU_CAPS_PRESENT)) {
		drm_dbg(drm, "vm_create: rule vm-no-mmu: the device has no GPU MMU (version 0x%x, MMU_CAPS 0x%x)\n",
			wdev->desc.hw_version, m->caps);
		return -EOPNOTSUPP;
	}
	if (!wddmseg_vm_geometry_ok(m)) {
		drm_dbg(drm, "vm_create: rule vm-mmu-geometry: VA bits %u, page tables of %u bytes aligned to %u in segment %u\n",
			m->va_bits, m->pt_size, m->pt_align, m->pt_segment);
		return -EOPNOTSUPP;
	}
	range = 1ULL << m->va_bits;

	vm = kzalloc_obj(*vm, GFP_KERNEL);
	if (!vm)
		return -ENOMEM;
	ret = wddmseg_bo_create_kernel(wdev, wfile, m->pt_size, m->pt_align,
				       m->pt_segment, &vm->root);
	if (ret) {
		drm_dbg(drm, "vm_create: no room for a root page table in segment %u: %d\n",
			m->pt_segment, ret);
		kfree(vm);
		return ret;
	}
	vm->root_addr = wddmseg_vm_bo_gpu_addr(wdev, vm->root);

	r_obj = drm_gpuvm_resv_object_alloc(drm);
	if (!r_obj) {
		wddmseg_bo_put_kernel(vm->root);
		kfree(vm);
		return -ENOMEM;
	}
	drm_gpuvm_init(&vm->gpuvm, "wddmseg", 0, drm, r_obj, 0, range, 0,
		       WDDMSEG_VM_RESERVED, &wddmseg_gpuvm_ops);
	/* The space holds its own reference on the reservation object. */
	drm_gem_object_put(r_obj);

	ret = xa_alloc(&wfile->vms, &vm->id, vm, xa_limit_32b, GFP_KERNEL);
	if (ret) {
		drm_gpuvm_put(&vm->gpuvm);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	args->vm_id = vm->id;
	args->va_start = WDDMSEG_VM_RESERVED;
	args->va_end = range;
	return 0;
}

int wddmseg_ioctl_vm_destroy(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct wddmseg_file *wfile = file->driver_priv;
	struct drm_wddmseg_vm_destroy *args = data;
	struct wddmseg_vm *vm;

	if (args->pad || memchr_inv(args->reserved, 0, sizeof(args->reserved))) {
		drm_dbg(drm, "vm_destroy: rule vm-reserved: pad and reserved fields must be zero\n");
		return -EINVAL;
	}
	vm = xa_erase(&wfile->vms, args->vm_id);
	if (!vm) {
		drm_dbg(drm, "vm_destroy: rule vm-id: no address space %u in this file\n",
			args->vm_id);
		return -ENOENT;
	}
	drm_gpuvm_put(&vm->gpuvm);
	return 0;
}

/**
 * wddmseg_vm_file_fini - destroy the address spaces a closing file left
 * @wfile: the client, at postclose
 */
void wddmseg_vm_file_fini(struct wddmseg_file *wfile)
{
	struct wddmseg_vm *vm;
	unsigned long id;

	xa_for_each(&wfile->vms, id, vm) {
		xa_erase(&wfile->vms, id);
		drm_gpuvm_put(&vm->gpuvm);
	}
	xa_destroy(&wfile->vms);
}
