// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page tables of a GPU address space: allocations in the device's
 * page-table segment, written by the paging engine.
 */

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/list.h>
#include <linux/slab.h>

#include <drm/drm_print.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_bo.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_engine.h"
#include "wddmseg_hw.h"
#include "wddmseg_mgr.h"
#include "wddmseg_pt.h"
#include "wddmseg_trace.h"
#include "wddmseg_vm.h"

/**
 * DOC: Page tables
 *
 * Under the GpuMmu model the page tables are allocations the video
 * memory manager places in the segment the driver names
 * (DXGK_GPUMMUCAPS.PageTableSegmentId; here the device's MMU_PT_SEGMENT)
 * and updates with the paging engine (DXGK_BUILDPAGINGBUFFER's
 * UpdatePageTable and FlushTlb). wddmseg does the same: each table is an
 * allocation of the driver (wddmseg_bo_create_kernel()) of the device's
 * page-table size and alignment, pinned in that segment, charged to the
 * client whose space it serves, and zeroed by the engine when it is
 * created (every entry invalid). The CPU never writes a table: a bind
 * queues UPDATE_PAGE_TABLE commands whose entries the driver writes to
 * the engine's page-list arena in system memory, behind the Fill of any
 * table it just created, in ring order.
 *
 * The root table lives as long as its space. A lower table is created by
 * the first mapping that needs it, which then writes the parent's entry,
 * and freed when its last valid entry is cleared: the parent's entry is
 * cleared in the same queue, and the table's memory goes back only once
 * the bind's FLUSH_TLB has completed, so the walker never reads a table
 * that was given to someone else. The TLB caches leaf entries only, so
 * flushing the unmapped range is enough for the tables above it too.
 *
 * Every change of entries ends with a FLUSH_TLB of the range it changed
 * (the device keeps translations until flushed: tools/qemu/docs-wddmseg.rst,
 * "TLBs"), and a bind returns once that flush has completed.
 */

/* Key of the table of @level that translates @va, in &wddmseg_vm.tables. */
static unsigned long wddmseg_vm_table_key(const struct wddmseg_mmu_desc *m,
					  u32 level, u64 va)
{
	u32 shift = wddmseg_pt_shift(m, level) + m->level_bits[level];

	return ((unsigned long)level << 56) | (unsigned long)(va >> shift);
}

/* The root is level MMU_LEVELS - 1; the others are in @vm->tables. */
static struct wddmseg_vm_table *wddmseg_vm_table_find(struct wddmseg_vm *vm,
						      u32 level, u64 va)
{
	const struct wddmseg_mmu_desc *m = &vm->wdev->desc.mmu;

	if (level == m->levels - 1)
		return &vm->root;
	return xa_load(&vm->tables, wddmseg_vm_table_key(m, level, va));
}

/* Take over @f as the newest fence of a sequence. */
static void wddmseg_vm_last(struct dma_fence **last, struct dma_fence *f)
{
	dma_fence_put(*last);
	*last = f;
}

/*
 * Queue one UPDATE_PAGE_TABLE of @count entries of @table from @first:
 * with @entries NULL, each gets @pte (Repeat), else @fill writes them.
 */
static int wddmseg_vm_pt_write(struct wddmseg_vm *vm, u64 table, u32 first,
			       u32 count, u64 pte,
			       void (*fill)(void *ctx, __le64 *out, u32 n),
			       void *ctx, struct dma_fence **last)
{
	struct wddmseg_engine *eng = &vm->wdev->engine;
	u64 cmd[WDDMSEG_UPDATE_PT_QWORDS];
	struct wddmseg_job job;
	struct dma_fence *f;
	u32 n = fill ? count : 1;
	int ret;

	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return -ENODEV;
	}
	ret = wddmseg_engine_reserve(eng, ARRAY_SIZE(cmd), n * sizeof(u64),
				     &job);
	if (ret) {
		mutex_unlock(&eng->lock);
		return ret;
	}
	if (fill)
		fill(ctx, (__le64 *)job.arena, count);
	else
		*(__le64 *)job.arena = cpu_to_le64(pte);
	wddmseg_encode_update_pt(cmd, table, first, count,
				 fill ? 0 : WDDMSEG_UPDATE_PT_REPEAT,
				 job.arena_dma);
	trace_wddmseg_paging_op("update-pt", 0, vm->wdev->desc.mmu.pt_segment,
				(u64)count * sizeof(u64), eng->seqno + 1);
	wddmseg_engine_emit(eng, &job, cmd, ARRAY_SIZE(cmd));
	f = wddmseg_engine_commit(eng, &job);
	mutex_unlock(&eng->lock);
	if (IS_ERR(f))
		return PTR_ERR(f);
	wddmseg_vm_last(last, f);
	return 0;
}

/* GPU address of a contiguous allocation resident in a memory segment. */
static u64 wddmseg_vm_table_addr(struct wddmseg_device *wdev,
				 struct wddmseg_bo *bo)
{
	u32 id = wddmseg_res_segment(wdev, bo->tbo.resource);

	return wdev->desc.seg[id - 1].base_address +
	       ((u64)bo->tbo.resource->start << PAGE_SHIFT);
}

/**
 * wddmseg_vm_table_new - a new, zeroed page table in the page-table segment
 * @vm: its address space
 * @t: filled in
 *
 * Return: 0, -ENOSPC without room in the segment, or another errno.
 */
int wddmseg_vm_table_new(struct wddmseg_vm *vm, struct wddmseg_vm_table *t)
{
	const struct wddmseg_mmu_desc *m = &vm->wdev->desc.mmu;
	long lret;
	int ret;

	ret = wddmseg_bo_create_kernel(vm->wdev, vm->wfile, m->pt_size,
				       m->pt_align, m->pt_segment, &t->bo);
	if (ret)
		return ret;
	/* Its Fill (or the wipe it was placed behind) comes first. */
	lret = dma_resv_wait_timeout(t->bo->tbo.base.resv, DMA_RESV_USAGE_KERNEL,
				     false, MAX_SCHEDULE_TIMEOUT);
	if (lret < 0) {
		wddmseg_bo_put_kernel(t->bo);
		return lret;
	}
	t->addr = wddmseg_vm_table_addr(vm->wdev, t->bo);
	t->used = 0;
	return 0;
}

/*
 * The table of @level translating @va, created (and linked into its
 * parent, itself created if need be) if there is none.
 */
static struct wddmseg_vm_table *
wddmseg_vm_table_get(struct wddmseg_vm *vm, u32 level, u64 va,
		     struct dma_fence **last)
{
	const struct wddmseg_mmu_desc *m = &vm->wdev->desc.mmu;
	struct wddmseg_vm_table *t, *parent;
	unsigned long key;
	int ret;

	t = wddmseg_vm_table_find(vm, level, va);
	if (t)
		return t;
	parent = wddmseg_vm_table_get(vm, level + 1, va, last);
	if (IS_ERR(parent))
		return parent;

	t = kzalloc_obj(*t, GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	ret = wddmseg_vm_table_new(vm, t);
	if (ret)
		goto err_free;
	key = wddmseg_vm_table_key(m, level, va);
	ret = xa_err(xa_store(&vm->tables, key, t, GFP_KERNEL));
	if (ret)
		goto err_put;
	ret = wddmseg_vm_pt_write(vm, parent->addr,
				  wddmseg_pt_index(m, level + 1, va), 1,
				  wddmseg_pte_table(t->addr), NULL, NULL, last);
	if (ret) {
		xa_erase(&vm->tables, key);
		goto err_put;
	}
	parent->used++;
	return t;

err_put:
	wddmseg_bo_put_kernel(t->bo);
err_free:
	kfree(t);
	drm_dbg(&vm->wdev->drm, "vm_bind: no page table of level %u for VA 0x%llx: %d\n",
		level, va, ret);
	return ERR_PTR(ret);
}

/*
 * Entries [first, first + count) of the table of @level translating @va
 * no longer count (cleared, or never written): if the table has none left,
 * unlink it from its parent (recursively) and queue it on @freed.
 */
static int wddmseg_vm_table_drop(struct wddmseg_vm *vm, u32 level, u64 va,
				 u32 count, struct list_head *freed,
				 struct dma_fence **last)
{
	const struct wddmseg_mmu_desc *m = &vm->wdev->desc.mmu;
	struct wddmseg_vm_table *t, *parent;
	int ret;

	t = wddmseg_vm_table_find(vm, level, va);
	if (WARN_ON_ONCE(!t || t->used < count))
		return -EINVAL;
	t->used -= count;
	if (t->used || level == m->levels - 1)
		return 0;

	parent = wddmseg_vm_table_find(vm, level + 1, va);
	if (WARN_ON_ONCE(!parent))
		return -EINVAL;
	ret = wddmseg_vm_pt_write(vm, parent->addr,
				  wddmseg_pt_index(m, level + 1, va), 1, 0,
				  NULL, NULL, last);
	if (ret)
		return ret;
	xa_erase(&vm->tables, wddmseg_vm_table_key(m, level, va));
	/* Its memory goes back once the flush completed. */
	list_add_tail(&t->link, freed);
	return wddmseg_vm_table_drop(vm, level + 1, va, 1, freed, last);
}

/* The address after a run of leaf entries. */
static u64 wddmseg_vm_run_end(const struct wddmseg_mmu_desc *m,
			      const struct wddmseg_pt_run *run)
{
	return run->va + ((u64)run->count << wddmseg_pt_shift(m, 0));
}

/**
 * wddmseg_vm_pt_unprepare - undo wddmseg_vm_pt_prepare() of a map that
 *	did not happen
 * @vm: address space, its lock held
 * @va: first address of the range prepared
 * @range: bytes
 * @freed: receives the tables left empty (wddmseg_vm_pt_free())
 * @last: in/out: the newest fence of the bind
 */
void wddmseg_vm_pt_unprepare(struct wddmseg_vm *vm, u64 va, u64 range,
			     struct list_head *freed, struct dma_fence **last)
{
	const struct wddmseg_mmu_desc *m = &vm->wdev->desc.mmu;
	struct wddmseg_pt_run run;
	u64 end = va + range;

	for (; wddmseg_pt_run(m, 0, va, end, &run);
	     va = wddmseg_vm_run_end(m, &run))
		if (wddmseg_vm_table_drop(vm, 0, va, run.count, freed, last))
			return;
}

/**
 * wddmseg_vm_pt_prepare - create every page table a map needs
 * @vm: address space, its lock held
 * @va: first address of the range
 * @range: bytes
 * @freed: where wddmseg_vm_pt_unprepare() puts tables on a failure
 * @last: in/out: the newest fence of the bind
 *
 * Done before anything of a bind changes, so that the only failure for
 * lack of memory of a map comes first (-ENOSPC, -ENOMEM). The entries of
 * the range count in their tables from here on, so that the unmap of
 * what the range mapped before never frees a table the map is about to
 * fill; a map that then does not happen undoes it with
 * wddmseg_vm_pt_unprepare(). On a failure here nothing stays counted.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_vm_pt_prepare(struct wddmseg_vm *vm, u64 va, u64 range,
			  struct list_head *freed, struct dma_fence **last)
{
	const struct wddmseg_mmu_desc *m = &vm->wdev->desc.mmu;
	struct wddmseg_pt_run run;
	u64 start = va, end = va + range;

	for (; wddmseg_pt_run(m, 0, va, end, &run);
	     va = wddmseg_vm_run_end(m, &run)) {
		struct wddmseg_vm_table *t = wddmseg_vm_table_get(vm, 0, va, last);

		if (IS_ERR(t)) {
			if (va > start)
				wddmseg_vm_pt_unprepare(vm, start, va - start,
							freed, last);
			return PTR_ERR(t);
		}
		t->used += run.count;
	}
	return 0;
}

/**
 * struct wddmseg_vm_pte_src - where the entries of a mapping point
 * @wdev: device
 * @bo: the allocation, reserved and pinned
 * @page: its 4 KiB page the next entry maps
 * @read_only: WDDMSEG_VM_BIND_READ_ONLY
 */
struct wddmseg_vm_pte_src {
	struct wddmseg_device *wdev;
	struct wddmseg_bo *bo;
	u64 page;
	bool read_only;
};

/*
 * The leaf entries of @n pages: in a memory segment the page's offset in
 * it; in system memory or an aperture the system page's DMA address
 * (segment 0: the device reaches it by DMA, never through the aperture).
 */
static void wddmseg_vm_pte_fill(void *ctx, __le64 *out, u32 n)
{
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	struct wddmseg_vm_pte_src *src = ctx;
	struct ttm_buffer_object *tbo = &src->bo->tbo;
	struct wddmseg_mgr *mgr = wddmseg_mgr_res(src->wdev, tbo->resource);
	bool vram = mgr && !mgr->manager.use_tt;
	u32 i;

	for (i = 0; i < n; i++, src->page++) {
		u64 cpu_page = src->page / sub;
		u64 in_page = (src->page % sub) * WDDMSEG_HW_PAGE_SIZE;
		u64 pte, run;

		if (vram)
			pte = wddmseg_pte_leaf(mgr->segment_id,
					       (wddmseg_mgr_res_run(tbo->resource,
								    cpu_page,
								    &run)
						<< PAGE_SHIFT) + in_page,
					       src->read_only);
		else
			pte = wddmseg_pte_leaf(WDDMSEG_SEGMENT_SYSTEM,
					       tbo->ttm->dma_address[cpu_page] +
					       in_page, src->read_only);
		out[i] = cpu_to_le64(pte);
	}
}

/**
 * wddmseg_vm_pt_map - write the leaf entries of a mapping
 * @vm: address space, its lock held, the range prepared
 *	(wddmseg_vm_pt_prepare(): its entries already count)
 * @va: first address
 * @range: bytes
 * @bo: the allocation, reserved, pinned and with its pages populated
 * @bo_offset: the byte of @bo mapped at @va
 * @read_only: entries with ReadOnly
 * @last: in/out: the newest fence of the bind
 *
 * Return: 0 or a negative errno (-ENODEV: the engine is gone).
 */
int wddmseg_vm_pt_map(struct wddmseg_vm *vm, u64 va, u64 range,
		      struct wddmseg_bo *bo, u64 bo_offset, bool read_only,
		      struct dma_fence **last)
{
	const struct wddmseg_mmu_desc *m = &vm->wdev->desc.mmu;
	struct wddmseg_vm_pte_src src = {
		.wdev = vm->wdev, .bo = bo, .read_only = read_only,
		.page = bo_offset >> WDDMSEG_HW_PAGE_SHIFT,
	};
	struct wddmseg_pt_run run;
	u64 end = va + range;
	int ret;

	for (; wddmseg_pt_run(m, 0, va, end, &run);
	     va = wddmseg_vm_run_end(m, &run)) {
		struct wddmseg_vm_table *t = wddmseg_vm_table_find(vm, 0, va);

		if (WARN_ON_ONCE(!t))
			return -EINVAL;
		ret = wddmseg_vm_pt_write(vm, t->addr, run.first, run.count, 0,
					  wddmseg_vm_pte_fill, &src, last);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * wddmseg_vm_pt_clear - invalidate the leaf entries of a range
 * @vm: address space, its lock held
 * @va: first address of a mapped range (every page of it is mapped)
 * @range: bytes
 * @freed: receives the tables left empty, to free once the range's
 *	FLUSH_TLB completed (wddmseg_vm_pt_free())
 * @last: in/out: the newest fence of the bind
 *
 * Needs no memory beyond room in the engine's ring and arena, which
 * waits for the engine; fails only if the engine is gone (-ENODEV).
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_vm_pt_clear(struct wddmseg_vm *vm, u64 va, u64 range,
			struct list_head *freed, struct dma_fence **last)
{
	const struct wddmseg_mmu_desc *m = &vm->wdev->desc.mmu;
	struct wddmseg_pt_run run;
	u64 end = va + range;
	int ret;

	for (; wddmseg_pt_run(m, 0, va, end, &run);
	     va = wddmseg_vm_run_end(m, &run)) {
		struct wddmseg_vm_table *t = wddmseg_vm_table_find(vm, 0, va);

		if (WARN_ON_ONCE(!t))
			return -EINVAL;
		ret = wddmseg_vm_pt_write(vm, t->addr, run.first, run.count, 0,
					  NULL, NULL, last);
		if (!ret)
			ret = wddmseg_vm_table_drop(vm, 0, va, run.count, freed,
						    last);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * wddmseg_vm_pt_flush - queue a FLUSH_TLB of a range of the space
 * @vm: address space
 * @va: first address
 * @range: bytes
 * @last: in/out: the newest fence of the bind
 *
 * Return: 0 or a negative errno (-ENODEV: the engine is gone).
 */
int wddmseg_vm_pt_flush(struct wddmseg_vm *vm, u64 va, u64 range,
			struct dma_fence **last)
{
	struct wddmseg_engine *eng = &vm->wdev->engine;
	u64 cmd[WDDMSEG_FLUSH_TLB_QWORDS];
	struct wddmseg_job job;
	struct dma_fence *f;
	int ret;

	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return -ENODEV;
	}
	ret = wddmseg_engine_reserve(eng, ARRAY_SIZE(cmd), 0, &job);
	if (ret) {
		mutex_unlock(&eng->lock);
		return ret;
	}
	wddmseg_encode_flush_tlb(cmd, vm->root_addr, va, va + range, 0);
	trace_wddmseg_paging_op("flush-tlb", 0, 0, range, eng->seqno + 1);
	wddmseg_engine_emit(eng, &job, cmd, ARRAY_SIZE(cmd));
	f = wddmseg_engine_commit(eng, &job);
	mutex_unlock(&eng->lock);
	if (IS_ERR(f))
		return PTR_ERR(f);
	wddmseg_vm_last(last, f);
	return 0;
}

/**
 * wddmseg_vm_pt_free - free the tables wddmseg_vm_pt_clear() unlinked
 * @freed: the list; the FLUSH_TLB behind their unlinking completed
 */
void wddmseg_vm_pt_free(struct list_head *freed)
{
	struct wddmseg_vm_table *t, *n;

	list_for_each_entry_safe(t, n, freed, link) {
		list_del(&t->link);
		wddmseg_bo_put_kernel(t->bo);
		kfree(t);
	}
}

/**
 * wddmseg_vm_pt_fini - free every page table of a space going away
 * @vm: the space: nothing is mapped in it any more, the engine idle
 *	as far as it is concerned
 */
void wddmseg_vm_pt_fini(struct wddmseg_vm *vm)
{
	struct wddmseg_vm_table *t;
	unsigned long key;

	xa_for_each(&vm->tables, key, t) {
		xa_erase(&vm->tables, key);
		wddmseg_bo_put_kernel(t->bo);
		kfree(t);
	}
	xa_destroy(&vm->tables);
	wddmseg_bo_put_kernel(vm->root.bo);
}
