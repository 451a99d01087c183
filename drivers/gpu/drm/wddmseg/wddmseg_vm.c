// SPDX-License-Identifier: GPL-2.0-only
/*
 * GPU virtual address spaces: VM_CREATE, VM_DESTROY, VM_BIND, and blits
 * by GPU virtual address.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_engine.h"
#include "wddmseg_file.h"
#include "wddmseg_hw.h"
#include "wddmseg_mgr.h"
#include "wddmseg_offer.h"
#include "wddmseg_pt.h"
#include "wddmseg_trace.h"
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
 * Address spaces belong to an adapter whose layout reports
 * GpuMmuSupported (DXGK_VIDMMCAPS, with VirtualAddressingSupported),
 * as under WDDM, where an adapter without it has none: validation accepts
 * the capability only on a device with a usable GPU MMU (rule
 * caps-gpu-mmu-absent). Where the device has no MMU (before 1.9, or a
 * layout without a memory segment for the page tables) VM_CREATE fails
 * with -EOPNOTSUPP (rule vm-no-mmu); where it has one but the layout does
 * not report GpuMmuSupported, too (rule vm-no-gpummu-cap). VM_BIND and
 * blits by GPU VA name an address space, so they follow. Where the kernel
 * has no drm_gpuvm (6.1) all of them are refused (rule vm-no-gpuvm,
 * wddmseg_compat.h) and the capabilities are not reported.
 */

/* First VA handed out: the page at 0 is reserved, so 0 always faults. */
#define WDDMSEG_VM_RESERVED	SZ_4K

static void wddmseg_vm_free(struct drm_gpuvm *gpuvm)
{
	struct wddmseg_vm *vm = to_wddmseg_vm(gpuvm);

	wddmseg_vm_pt_fini(vm);
	mutex_destroy(&vm->lock);
	kfree(vm);
}

static int wddmseg_vm_step_unmap(struct drm_gpuva_op *op, void *priv);
static int wddmseg_vm_step_remap(struct drm_gpuva_op *op, void *priv);

static const struct drm_gpuvm_ops wddmseg_gpuvm_ops = {
	.vm_free = wddmseg_vm_free,
	.sm_step_unmap = wddmseg_vm_step_unmap,
	.sm_step_remap = wddmseg_vm_step_remap,
};

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
	/*
	 * As under WDDM, an adapter has GPU virtual address spaces only when
	 * it reports GpuMmuSupported; validation made sure its MMU is usable
	 * (wddmseg_mmu_usable()).
	 */
	if (!(wdev->desc.caps & DXGK_VIDMMCAP_GPU_MMU_SUPPORTED)) {
		drm_dbg(drm, "vm_create: rule vm-no-gpummu-cap: the layout does not report GpuMmuSupported (caps 0x%08x)\n",
			wdev->desc.vidmm_caps);
		return -EOPNOTSUPP;
	}
	range = 1ULL << m->va_bits;

	vm = kzalloc_obj(*vm, GFP_KERNEL);
	if (!vm)
		return -ENOMEM;
	vm->wdev = wdev;
	vm->wfile = wfile;
	mutex_init(&vm->lock);
	xa_init(&vm->tables);
	ret = wddmseg_vm_table_new(vm, &vm->root);
	if (ret) {
		drm_dbg(drm, "vm_create: no room for a root page table in segment %u: %d\n",
			m->pt_segment, ret);
		mutex_destroy(&vm->lock);
		kfree(vm);
		return ret;
	}
	vm->root_addr = vm->root.addr;

	r_obj = drm_gpuvm_resv_object_alloc(drm);
	if (!r_obj) {
		wddmseg_bo_put_kernel(vm->root.bo);
		mutex_destroy(&vm->lock);
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

/**
 * DOC: Binding GPU virtual addresses
 *
 * DRM_IOCTL_WDDMSEG_VM_BIND is WDDM's D3DKMTMapGpuVirtualAddress and
 * D3DKMTFreeGpuVirtualAddress (and the UpdatePageTable / FlushTlb
 * paging operations behind them) in the shape of a DRM VM_BIND
 * (Documentation/gpu/drm-vm-bind-async.rst), in its synchronous mode:
 *
 * - A MAP first unmaps whatever the range mapped, so the range is empty
 *   when the new mapping goes in: one &struct drm_gpuva, inserted into
 *   the space's &struct drm_gpuvm and linked to the allocation's
 *   &struct drm_gpuvm_bo (the allocation's list of its mappings). The
 *   page tables the range needs are created before anything changes, so
 *   a MAP that fails for lack of memory (-ENOSPC in the page-table
 *   segment, -ENOMEM) leaves the space as it was.
 * - An UNMAP walks the mappings in the range with drm_gpuvm_sm_unmap(): a
 *   mapping wholly inside is removed, one that straddles an end is split
 *   (drm_gpuva_remap(): what lies outside stays mapped, with its own
 *   entries untouched). Only a split allocates (two small structures);
 *   an unmap of whole mappings allocates nothing.
 * - The entries of the range are written (or invalidated) by
 *   UPDATE_PAGE_TABLE on the paging engine, then a FLUSH_TLB of the
 *   range is queued, and the ioctl waits for it: when it returns, no GPU
 *   access through the range can reach the old pages.
 *
 * A mapped allocation is pinned where it is (each mapping holds a pin),
 * so the entries stay true without being rewritten on a move; the pin of
 * a removed mapping goes only once the flush behind the removal has
 * completed, so its pages cannot be reused while a stale translation
 * could still reach them. Each mapping also holds a reference on the
 * allocation (through its &struct drm_gpuvm_bo), so closing the handle
 * of a mapped allocation does not free it; destroying the space (or
 * closing the file) unmaps everything first.
 *
 * Refused: allocations the device must not reach by a GPU virtual
 * address. Protected and HardwareProtected ones (rule vm-bind-protected:
 * a blit by VA would copy protected content wherever the other address
 * points, around the rule protected-copy of the blits of allocations), PermanentSysMem ones
 * (rule vm-bind-permanent: writes by VA would not reach the permanent
 * copy, which only the blit path keeps in step), and allocations
 * imported through PRIME (rule vm-bind-import: another device's pages,
 * which the engine reaches only where CrossAdapterResourceTexture says,
 * as for blits).
 */

/**
 * struct wddmseg_vm_op - what one bind does besides the tree
 * @vm: the space
 * @freed: page tables left empty, freed once the flush completed
 * @last: the newest fence queued for the bind
 * @err: the first error of the engine (-ENODEV once it is gone); the
 *	bookkeeping of the mappings goes on regardless, so that a space can
 *	always be torn down
 */
struct wddmseg_vm_op {
	struct wddmseg_vm *vm;
	struct list_head freed;
	struct dma_fence *last;
	int err;
};

/* Invalidate a range's entries; the op's first engine error is kept. */
static void wddmseg_vm_op_clear(struct wddmseg_vm_op *o, u64 va, u64 range)
{
	int ret;

	if (o->err || !range)
		return;
	ret = wddmseg_vm_pt_clear(o->vm, va, range, &o->freed, &o->last);
	if (ret)
		o->err = ret;
}

/* A mapping is gone from the tree: its pin goes after the flush. */
static void wddmseg_vm_va_gone(struct drm_gpuva *va)
{
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(va->gem.obj);

	dma_resv_assert_held(va->gem.obj->resv);
	bo->vm_unpin++;
	drm_gpuva_unlink(va);
	kfree(va);
}

static int wddmseg_vm_step_unmap(struct drm_gpuva_op *op, void *priv)
{
	struct drm_gpuva *va = op->unmap.va;

	wddmseg_vm_op_clear(priv, va->va.addr, va->va.range);
	drm_gpuva_unmap(&op->unmap);
	wddmseg_vm_va_gone(va);
	return 0;
}

static int wddmseg_vm_step_remap(struct drm_gpuva_op *op, void *priv)
{
	struct drm_gpuva_op_remap *r = &op->remap;
	struct drm_gpuva *old = r->unmap->va, *prev = NULL, *next = NULL;
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(old->gem.obj);
	u64 start, range;

	if (r->prev) {
		prev = kzalloc_obj(*prev, GFP_KERNEL);
		if (!prev)
			return -ENOMEM;
	}
	if (r->next) {
		next = kzalloc_obj(*next, GFP_KERNEL);
		if (!next) {
			kfree(prev);
			return -ENOMEM;
		}
	}
	drm_gpuva_op_remap_to_unmap_range(r, &start, &range);
	wddmseg_vm_op_clear(priv, start, range);

	drm_gpuva_remap(prev, next, r);
	/* The pieces keep the mapping's flags, entries and allocation. */
	if (prev) {
		prev->flags = old->flags;
		drm_gpuva_link(prev, old->vm_bo);
		wddmseg_bo_pin_locked(bo);
	}
	if (next) {
		next->flags = old->flags;
		drm_gpuva_link(next, old->vm_bo);
		wddmseg_bo_pin_locked(bo);
	}
	wddmseg_vm_va_gone(old);
	return 0;
}

/*
 * Lock @obj (if any) and every allocation mapped in [va, va + range) and
 * [va2, va2 + range2): an allocation mapped twice is locked once.
 */
static int wddmseg_vm_lock(struct wddmseg_vm *vm, struct drm_exec *exec,
			   struct drm_gem_object *obj, u64 va, u64 range,
			   u64 va2, u64 range2)
{
	struct drm_gpuva *gva;
	int ret = 0;

	drm_exec_until_all_locked(exec) {
		if (obj) {
			ret = drm_exec_lock_obj(exec, obj);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret;
		}
		drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, va, va + range) {
			ret = drm_exec_lock_obj(exec, gva->gem.obj);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret;
		}
		drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, va2, va2 + range2) {
			ret = drm_exec_lock_obj(exec, gva->gem.obj);
			drm_exec_retry_on_contention(exec);
			if (ret)
				return ret;
		}
	}
	return ret;
}

/*
 * The allocation being mapped: where it is now, with pages if it lives in
 * pages, nothing of its last move pending.
 */
static int wddmseg_vm_bo_prepare(struct wddmseg_bo *bo)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct ttm_buffer_object *tbo = &bo->tbo;
	long lret;
	int ret;

	ret = wddmseg_offer_check(bo, "vm_bind");
	if (ret)
		return ret;
	ret = wddmseg_bo_ensure_resource(bo, &ctx);
	if (!ret)
		ret = wddmseg_bo_populate_engine(bo, &ctx);
	if (ret)
		return ret;
	lret = dma_resv_wait_timeout(tbo->base.resv, DMA_RESV_USAGE_KERNEL,
				     true, MAX_SCHEDULE_TIMEOUT);
	return lret < 0 ? lret : 0;
}

/*
 * Insert the mapping of an empty range and write its entries. Return: 0
 * once the mapping is in the tree (its entries counted, written unless the
 * engine failed: @o->err), or an errno and nothing changed.
 */
static int wddmseg_vm_map(struct wddmseg_vm_op *o, struct drm_gem_object *obj,
			  u64 va, u64 range, u64 bo_offset, bool read_only)
{
	struct wddmseg_vm *vm = o->vm;
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);
	struct drm_gpuva_op_map op = {
		.va.addr = va, .va.range = range,
		.gem.obj = obj, .gem.offset = bo_offset,
	};
	struct drm_gpuvm_bo *vm_bo;
	struct drm_gpuva *gva;
	int ret;

	gva = kzalloc_obj(*gva, GFP_KERNEL);
	if (!gva)
		return -ENOMEM;
	vm_bo = drm_gpuvm_bo_obtain_locked(&vm->gpuvm, obj);
	if (IS_ERR(vm_bo)) {
		kfree(gva);
		return PTR_ERR(vm_bo);
	}
	drm_gpuva_init_from_op(gva, &op);
	if (read_only)
		gva->flags |= WDDMSEG_GPUVA_READ_ONLY;
	ret = drm_gpuva_insert(&vm->gpuvm, gva);
	if (ret) {
		/* The range was emptied just before, under the lock. */
		WARN_ON_ONCE(1);
		drm_gpuvm_bo_put(vm_bo);
		kfree(gva);
		return ret;
	}
	drm_gpuva_link(gva, vm_bo);
	drm_gpuvm_bo_put(vm_bo);
	wddmseg_bo_pin_locked(bo);
	/* The mapping exists now: an engine error is the bind's, not the map's. */
	if (!o->err)
		o->err = wddmseg_vm_pt_map(vm, va, range, bo, bo_offset,
					   read_only, &o->last);
	return 0;
}

/*
 * One bind, the space's lock held: the tables, the unmap of the range,
 * the new mapping, the flush; then, the flush done, the pins of removed
 * mappings and the emptied tables go.
 */
static int wddmseg_vm_bind_locked(struct wddmseg_vm *vm,
				  struct drm_gem_object *obj, u64 va,
				  u64 range, u64 bo_offset, bool read_only,
				  bool intr)
{
	struct wddmseg_vm_op o = { .vm = vm };
	struct drm_gem_object *locked;
	struct drm_exec exec;
	int ret;

	lockdep_assert_held(&vm->lock);
	INIT_LIST_HEAD(&o.freed);
	if (obj) {
		ret = wddmseg_vm_pt_prepare(vm, va, range, &o.freed, &o.last);
		if (ret)
			goto out_fence;
	}

	drm_exec_init(&exec, DRM_EXEC_IGNORE_DUPLICATES |
		      (intr ? DRM_EXEC_INTERRUPTIBLE_WAIT : 0), 0);
	ret = wddmseg_vm_lock(vm, &exec, obj, va, range, 0, 0);
	if (ret)
		goto out_unprepare;
	if (obj) {
		ret = wddmseg_vm_bo_prepare(gem_to_wddmseg_bo(obj));
		if (ret)
			goto out_unprepare;
	}

	ret = drm_gpuvm_sm_unmap(&vm->gpuvm, &o, va, range);
	if (!ret && obj && !o.err) {
		ret = wddmseg_vm_map(&o, obj, va, range, bo_offset, read_only);
		if (!ret)
			obj = NULL;	/* the entries are the mapping's now */
	}
	if (!o.err)
		o.err = wddmseg_vm_pt_flush(vm, va, range, &o.last);

	/* The flush (or whatever of the bind got queued) completes first. */
	if (o.last) {
		dma_fence_wait(o.last, false);
		if (!o.err && o.last->error)
			o.err = o.last->error;
	}
	drm_exec_for_each_locked_object(&exec, locked) {
		struct wddmseg_bo *bo = gem_to_wddmseg_bo(locked);

		for (; bo->vm_unpin; bo->vm_unpin--)
			wddmseg_bo_unpin_locked(bo);
	}
	if (!ret)
		ret = o.err;
out_unprepare:
	/* A map that did not happen: its range's tables count it no more. */
	if (obj)
		wddmseg_vm_pt_unprepare(vm, va, range, &o.freed, &o.last);
	drm_exec_fini(&exec);
out_fence:
	if (o.last) {
		dma_fence_wait(o.last, false);
		dma_fence_put(o.last);
	}
	wddmseg_vm_pt_free(&o.freed);
	return ret;
}

/* Unmap everything of a space that is going away. */
static void wddmseg_vm_unmap_all(struct wddmseg_vm *vm)
{
	const struct wddmseg_mmu_desc *m = &vm->wdev->desc.mmu;
	u64 end = 1ULL << m->va_bits;
	int ret;

	/* Not interruptible: a file closed by a killed process lands here. */
	mutex_lock(&vm->lock);
	ret = wddmseg_vm_bind_locked(vm, NULL, WDDMSEG_VM_RESERVED,
				     end - WDDMSEG_VM_RESERVED, 0, false, false);
	mutex_unlock(&vm->lock);
	if (ret)
		drm_dbg(&vm->wdev->drm, "vm %u: page tables not cleared (%d); the mappings are gone all the same\n",
			vm->id, ret);
}

/**
 * wddmseg_vm_lookup - the address space of a file, with a reference
 * @wfile: the client
 * @id: its id
 *
 * Return: the space (drop it with wddmseg_vm_put()) or NULL.
 */
struct wddmseg_vm *wddmseg_vm_lookup(struct wddmseg_file *wfile, u32 id)
{
	struct wddmseg_vm *vm;

	xa_lock(&wfile->vms);
	vm = xa_load(&wfile->vms, id);
	if (vm)
		drm_gpuvm_get(&vm->gpuvm);
	xa_unlock(&wfile->vms);
	return vm;
}

/**
 * wddmseg_vm_put - drop a reference of wddmseg_vm_lookup()
 * @vm: the space
 */
void wddmseg_vm_put(struct wddmseg_vm *vm)
{
	drm_gpuvm_put(&vm->gpuvm);
}

/* The allocations that may not be mapped (DOC: Binding GPU virtual addresses). */
static int wddmseg_vm_bind_allowed(struct drm_device *drm,
				   struct drm_gem_object *obj)
{
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(obj);

	if (wddmseg_bo_protected(bo)) {
		drm_dbg(drm, "vm_bind: rule vm-bind-protected: a Protected or HardwareProtected allocation is never reached by a GPU virtual address\n");
		return -EOPNOTSUPP;
	}
	if (wddmseg_bo_permanent(bo)) {
		drm_dbg(drm, "vm_bind: rule vm-bind-permanent: writes by GPU virtual address would not reach a PermanentSysMem allocation's permanent copy\n");
		return -EOPNOTSUPP;
	}
	if (obj->import_attach) {
		drm_dbg(drm, "vm_bind: rule vm-bind-import: an allocation imported through PRIME is another device's memory\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

int wddmseg_ioctl_vm_bind(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct wddmseg_file *wfile = file->driver_priv;
	struct drm_wddmseg_vm_bind *args = data;
	struct drm_gem_object *obj = NULL;
	bool map = args->op == WDDMSEG_VM_BIND_OP_MAP;
	struct wddmseg_vm *vm;
	int ret, idx;

	if (args->op != WDDMSEG_VM_BIND_OP_MAP &&
	    args->op != WDDMSEG_VM_BIND_OP_UNMAP) {
		drm_dbg(drm, "vm_bind: rule vm-bind-op: unknown op %u\n",
			args->op);
		return -EINVAL;
	}
	if (args->flags & ~(map ? WDDMSEG_VM_BIND_READ_ONLY : 0)) {
		drm_dbg(drm, "vm_bind: rule vm-bind-flags: flags 0x%x (an unmap takes none)\n",
			args->flags);
		return -EINVAL;
	}
	if (memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    (!map && (args->handle || args->bo_offset))) {
		drm_dbg(drm, "vm_bind: rule vm-bind-reserved: reserved fields (and an unmap's handle and offset) must be zero\n");
		return -EINVAL;
	}
	if (!args->range || !IS_ALIGNED(args->va | args->range | args->bo_offset,
					WDDMSEG_HW_PAGE_SIZE)) {
		drm_dbg(drm, "vm_bind: rule vm-bind-align: VA 0x%llx, range 0x%llx, offset 0x%llx: non-zero multiples of 4096\n",
			args->va, args->range, args->bo_offset);
		return -EINVAL;
	}
	vm = wddmseg_vm_lookup(wfile, args->vm_id);
	if (!vm) {
		drm_dbg(drm, "vm_bind: rule vm-id: no address space %u in this file\n",
			args->vm_id);
		return -ENOENT;
	}
	if (args->va + args->range < args->va ||
	    !drm_gpuvm_range_valid(&vm->gpuvm, args->va, args->range)) {
		drm_dbg(drm, "vm_bind: rule vm-bind-range: [0x%llx, +0x%llx) is not inside the space\n",
			args->va, args->range);
		ret = -EINVAL;
		goto out_vm;
	}
	if (map) {
		obj = drm_gem_object_lookup(file, args->handle);
		if (!obj) {
			ret = -ENOENT;
			goto out_vm;
		}
		if (args->bo_offset > obj->size ||
		    args->range > obj->size - args->bo_offset) {
			drm_dbg(drm, "vm_bind: rule vm-bind-range: bytes [0x%llx, +0x%llx) are not inside the allocation (0x%zx)\n",
				args->bo_offset, args->range, obj->size);
			ret = -EINVAL;
			goto out_obj;
		}
		ret = wddmseg_vm_bind_allowed(drm, obj);
		if (ret)
			goto out_obj;
	}
	if (!drm_dev_enter(drm, &idx)) {
		ret = -ENODEV;
		goto out_obj;
	}
	ret = mutex_lock_interruptible(&vm->lock);
	if (ret) {
		drm_dev_exit(idx);
		goto out_obj;
	}
	ret = wddmseg_vm_bind_locked(vm, obj, args->va, args->range,
				     args->bo_offset,
				     args->flags & WDDMSEG_VM_BIND_READ_ONLY, true);
	mutex_unlock(&vm->lock);
	drm_dev_exit(idx);
out_obj:
	if (obj)
		drm_gem_object_put(obj);
out_vm:
	wddmseg_vm_put(vm);
	return ret;
}

/* Largest blit by GPU virtual address: one job, its deadline the engine's. */
#define WDDMSEG_VM_BLIT_MAX	SZ_256M
/* Bytes per command of such a blit, as the blits of allocations. */
#define WDDMSEG_VM_BLIT_CHUNK	SZ_8M

/*
 * Queue the commands of a blit by GPU virtual address as one job, so
 * that a page fault anywhere in it fails its one fence.
 */
static struct dma_fence *wddmseg_vm_blit_queue(struct wddmseg_vm *vm,
					       const struct drm_wddmseg_submit_blit *a)
{
	struct wddmseg_engine *eng = &vm->wdev->engine;
	const u32 per = a->op == WDDMSEG_BLIT_COPY ?
			WDDMSEG_TRANSFER_VIRTUAL_QWORDS :
			WDDMSEG_FILL_VIRTUAL_QWORDS;
	u32 n = DIV_ROUND_UP(a->size, WDDMSEG_VM_BLIT_CHUNK);
	struct wddmseg_job job;
	struct dma_fence *f;
	u64 done, len;
	int ret;

	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return ERR_PTR(-ENODEV);
	}
	ret = wddmseg_engine_reserve(eng, n * per, 0, &job);
	if (ret) {
		mutex_unlock(&eng->lock);
		return ERR_PTR(ret);
	}
	job.gpu_va = true;
	for (done = 0; done < a->size; done += len) {
		u64 cmd[WDDMSEG_TRANSFER_VIRTUAL_QWORDS];
		u32 q;

		len = min_t(u64, WDDMSEG_VM_BLIT_CHUNK, a->size - done);
		if (a->op == WDDMSEG_BLIT_COPY)
			q = wddmseg_encode_transfer_virtual(cmd, len, vm->root_addr,
							    a->src_offset + done,
							    vm->root_addr,
							    a->dst_offset + done);
		else
			q = wddmseg_encode_fill_virtual(cmd, len, a->pattern,
							vm->root_addr,
							a->dst_offset + done);
		wddmseg_engine_emit(eng, &job, cmd, q);
	}
	trace_wddmseg_paging_op(a->op == WDDMSEG_BLIT_COPY ? "transfer-virtual" :
				"fill-virtual", 0, 0, a->size, eng->seqno + 1);
	f = wddmseg_engine_commit(eng, &job);
	mutex_unlock(&eng->lock);
	return f;
}

/**
 * wddmseg_vm_blit - a blit by GPU virtual address (WDDMSEG_BLIT_VIRTUAL)
 * @vm: the address space, a reference held
 * @a: the request, its flags and handles checked
 *
 * The allocations mapped in the ranges get the blit's fence (a write for
 * the destination's, a read for the source's), so GEM_WAIT and CPU
 * mappings of them wait for it, as for a blit of allocations. What is not
 * mapped is not known here: the device faults on it, and the fence
 * signals with -EFAULT (wddmseg_engine.c).
 *
 * Return: the blit's fence, or an ERR_PTR.
 */
struct dma_fence *wddmseg_vm_blit(struct wddmseg_vm *vm,
				  const struct drm_wddmseg_submit_blit *a)
{
	struct drm_device *drm = &vm->wdev->drm;
	bool copy = a->op == WDDMSEG_BLIT_COPY;
	struct drm_gem_object *obj;
	struct dma_fence *fence;
	struct drm_gpuva *gva;
	struct drm_exec exec;
	int ret;

	if (!a->size || !IS_ALIGNED(a->size | a->dst_offset | a->src_offset, 4) ||
	    a->size > WDDMSEG_VM_BLIT_MAX) {
		drm_dbg(drm, "blit: rule blit-va-size: %llu bytes at 0x%llx from 0x%llx: multiples of 4, 4 to %u bytes\n",
			a->size, a->dst_offset, a->src_offset, WDDMSEG_VM_BLIT_MAX);
		return ERR_PTR(-EINVAL);
	}
	if (!drm_gpuvm_range_valid(&vm->gpuvm, a->dst_offset, a->size) ||
	    (copy && !drm_gpuvm_range_valid(&vm->gpuvm, a->src_offset, a->size))) {
		drm_dbg(drm, "blit: rule blit-va-range: a range is not inside address space %u\n",
			vm->id);
		return ERR_PTR(-EINVAL);
	}
	if (copy && a->src_offset < a->dst_offset + a->size &&
	    a->dst_offset < a->src_offset + a->size) {
		drm_dbg(drm, "blit: source and destination overlap\n");
		return ERR_PTR(-EINVAL);
	}

	ret = mutex_lock_interruptible(&vm->lock);
	if (ret)
		return ERR_PTR(ret);
	drm_exec_init(&exec, DRM_EXEC_INTERRUPTIBLE_WAIT |
		      DRM_EXEC_IGNORE_DUPLICATES, 0);
	ret = wddmseg_vm_lock(vm, &exec, NULL, a->dst_offset, a->size,
			      copy ? a->src_offset : 0, copy ? a->size : 0);
	if (!ret)
		drm_exec_for_each_locked_object(&exec, obj) {
			ret = dma_resv_reserve_fences(obj->resv, 1);
			if (ret)
				break;
		}
	if (ret) {
		fence = ERR_PTR(ret);
		goto out;
	}
	fence = wddmseg_vm_blit_queue(vm, a);
	if (IS_ERR(fence))
		goto out;
	drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, a->dst_offset,
				    a->dst_offset + a->size) {
		/* Written in place by the engine: wiped on release. */
		WRITE_ONCE(gem_to_wddmseg_bo(gva->gem.obj)->maybe_written_in_place,
			   true);
		dma_resv_add_fence(gva->gem.obj->resv, fence,
				   DMA_RESV_USAGE_WRITE);
	}
	if (copy)
		drm_gpuvm_for_each_va_range(gva, &vm->gpuvm, a->src_offset,
					    a->src_offset + a->size)
			dma_resv_add_fence(gva->gem.obj->resv, fence,
					   DMA_RESV_USAGE_READ);
out:
	drm_exec_fini(&exec);
	mutex_unlock(&vm->lock);
	return fence;
}

/**
 * wddmseg_vm_submit_blit - SUBMIT_BLIT with WDDMSEG_BLIT_VIRTUAL
 * @drm: device
 * @file: the client
 * @a: the request, its flags and handles checked by the caller
 *
 * Return: the blit's fence, or an ERR_PTR (-ENOENT: no such space).
 */
struct dma_fence *wddmseg_vm_submit_blit(struct drm_device *drm,
					 struct drm_file *file,
					 const struct drm_wddmseg_submit_blit *a)
{
	struct wddmseg_vm *vm = wddmseg_vm_lookup(file->driver_priv, a->vm_id);
	struct dma_fence *fence;

	if (!vm) {
		drm_dbg(drm, "blit: rule vm-id: no address space %u in this file\n",
			a->vm_id);
		return ERR_PTR(-ENOENT);
	}
	fence = wddmseg_vm_blit(vm, a);
	wddmseg_vm_put(vm);
	return fence;
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
	wddmseg_vm_unmap_all(vm);
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
		wddmseg_vm_unmap_all(vm);
		drm_gpuvm_put(&vm->gpuvm);
	}
	xa_destroy(&wfile->vms);
}
