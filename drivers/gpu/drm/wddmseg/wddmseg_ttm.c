// SPDX-License-Identifier: GPL-2.0-only
/*
 * WDDM segments as TTM memory domains.
 *
 * Each segment of the validated descriptor table becomes one TTM memory
 * type with its own resource manager (wddmseg_mgr.c): the first aperture
 * segment is TTM_PL_TT, the first memory segment TTM_PL_VRAM, further
 * segments take the driver-private types. System memory (WDDM segment id 0)
 * is TTM_PL_SYSTEM.
 *
 * Moving content is DxgkDdiBuildPagingBuffer's job: the move callback
 * encodes Transfer, Fill, MapApertureSegment and UnmapApertureSegment
 * operations into copy-engine jobs (wddmseg_engine.c) and hands TTM the
 * job's fence (pipelined, ttm_bo_move_accel_cleanup); DiscardContent and
 * Read/WritePhysical serve EVICT with DISCARD and access_memory. Without
 * an engine the same moves are CPU copies: CPU-visible VRAM through BAR2,
 * other VRAM through the movable BAR4 window, system pages through the
 * kernel mapping, aperture entries through the page table registers.
 */

#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_pool.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_drv.h"
#include "wddmseg_hw.h"
#include "wddmseg_trace.h"

#define WDDMSEG_HW_PAGE_SIZE	BIT(WDDMSEG_HW_PAGE_SHIFT)

static struct wddmseg_mgr *wddmseg_res_mgr(struct wddmseg_device *wdev,
					   struct ttm_resource *res)
{
	u32 id = wddmseg_mem_type_segment(wdev, res->mem_type);

	return id ? wdev->mgr[id - 1] : NULL;
}

/**
 * wddmseg_segment_cpu_visible - whether the CPU may map a segment directly
 * @wdev: device
 * @segment_id: segment id; WDDMSEG_SEGMENT_SYSTEM counts as visible
 *
 * Memory segments are visible when their flags say CpuVisible (validation
 * checked they lie in BAR2); apertures are, since their backing store is
 * system pages.
 */
bool wddmseg_segment_cpu_visible(struct wddmseg_device *wdev, u32 segment_id)
{
	const struct wddmseg_segment_desc *seg;

	if (segment_id == WDDMSEG_SEGMENT_SYSTEM)
		return true;
	seg = &wdev->desc.seg[segment_id - 1];
	return wddmseg_segment_is_aperture(seg) ||
	       (seg->flags & DXGK_SEGFLAG_CPU_VISIBLE);
}

/**
 * wddmseg_budget_group - WDDM budget group a segment is accounted to
 * @seg: descriptor
 *
 * Return: WDDMSEG_BUDGET_LOCAL or WDDMSEG_BUDGET_NON_LOCAL.
 */
int wddmseg_budget_group(const struct wddmseg_segment_desc *seg)
{
	if (seg->flags & DXGK_SEGFLAG_LOCAL_BUDGET_GROUP)
		return WDDMSEG_BUDGET_LOCAL;
	if (seg->flags & DXGK_SEGFLAG_NON_LOCAL_BUDGET_GROUP)
		return WDDMSEG_BUDGET_NON_LOCAL;
	return wddmseg_segment_is_aperture(seg) ? WDDMSEG_BUDGET_NON_LOCAL :
						  WDDMSEG_BUDGET_LOCAL;
}

/* Aperture page table: point pages of an aperture resource at @ttm or 0. */
static void wddmseg_apt_update(struct wddmseg_device *wdev,
			       struct ttm_resource *res, struct ttm_tt *ttm)
{
	u32 id = wddmseg_mem_type_segment(wdev, res->mem_type);
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	u64 hw_page = (u64)res->start * sub;
	pgoff_t i;
	u32 j;

	mutex_lock(&wdev->apt_lock);
	writel(id, wdev->mmio + WDDMSEG_REG_APT_SEGMENT);
	for (i = 0; i < res->num_pages; i++) {
		for (j = 0; j < sub; j++, hw_page++) {
			u64 addr = ttm ? ttm->dma_address[i] +
					 j * WDDMSEG_HW_PAGE_SIZE : 0;

			writel(hw_page, wdev->mmio + WDDMSEG_REG_APT_PAGE);
			writel(lower_32_bits(addr),
			       wdev->mmio + WDDMSEG_REG_APT_ADDR_LO);
			writel(upper_32_bits(addr),
			       wdev->mmio + WDDMSEG_REG_APT_ADDR_HI);
		}
	}
	mutex_unlock(&wdev->apt_lock);
}

static bool wddmseg_res_is_aperture(struct wddmseg_device *wdev,
				    struct ttm_resource *res)
{
	struct wddmseg_mgr *mgr = wddmseg_res_mgr(wdev, res);

	return mgr && wddmseg_segment_is_aperture(mgr->desc);
}

/*
 * CPU access to @len bytes of VRAM at @vram_off, any alignment: BAR2 for
 * CPU-visible segments, the BAR4 window for the others (moved as often as
 * the range needs). @to_vram gives the direction.
 */
static void wddmseg_vram_io(struct wddmseg_device *wdev, bool visible,
			    u64 vram_off, void *buf, size_t len, bool to_vram)
{
	void __iomem *p;
	size_t n;
	u64 base;

	if (visible) {
		p = wdev->vram_bar + vram_off;
		if (to_vram)
			memcpy_toio(p, buf, len);
		else
			memcpy_fromio(buf, p, len);
		return;
	}

	mutex_lock(&wdev->window_lock);
	while (len) {
		base = round_down(vram_off, WDDMSEG_WINDOW_SIZE);
		n = min_t(u64, len, base + WDDMSEG_WINDOW_SIZE - vram_off);
		if (base != wdev->window_base) {
			writel(lower_32_bits(base),
			       wdev->mmio + WDDMSEG_REG_WINDOW_BASE_LO);
			writel(upper_32_bits(base),
			       wdev->mmio + WDDMSEG_REG_WINDOW_BASE_HI);
			wdev->window_base = base;
		}
		p = wdev->window + (vram_off - base);
		if (to_vram)
			memcpy_toio(p, buf, n);
		else
			memcpy_fromio(buf, p, n);
		vram_off += n;
		buf += n;
		len -= n;
	}
	mutex_unlock(&wdev->window_lock);
}

/* Copy page @i of a resource to or from @buf. */
static void wddmseg_res_page_io(struct wddmseg_device *wdev,
				struct ttm_buffer_object *tbo,
				struct ttm_resource *res, pgoff_t i, void *buf,
				bool to_res)
{
	struct wddmseg_mgr *mgr = wddmseg_res_mgr(wdev, res);
	void *vaddr;

	if (!mgr || mgr->manager.use_tt) {
		vaddr = kmap_local_page(tbo->ttm->pages[i]);
		if (to_res)
			memcpy(vaddr, buf, PAGE_SIZE);
		else
			memcpy(buf, vaddr, PAGE_SIZE);
		kunmap_local(vaddr);
		return;
	}

	wddmseg_vram_io(wdev, mgr->desc->flags & DXGK_SEGFLAG_CPU_VISIBLE,
			mgr->desc->base_address +
			((u64)(res->start + i) << PAGE_SHIFT),
			buf, PAGE_SIZE, to_res);
}

/*
 * Transfer (or, for content that never existed, Fill with zeroes) from
 * @tbo's current resource to @new_mem, one page at a time through a bounce
 * page so that any pair of domains works, window-to-window included.
 */
static int wddmseg_cpu_copy(struct wddmseg_device *wdev,
			    struct ttm_buffer_object *tbo,
			    struct ttm_resource *new_mem,
			    struct ttm_operation_ctx *ctx)
{
	struct ttm_resource *old_mem = tbo->resource;
	struct wddmseg_mgr *old_mgr = wddmseg_res_mgr(wdev, old_mem);
	bool old_tt = !old_mgr || old_mgr->manager.use_tt;
	struct ttm_tt *ttm = tbo->ttm;
	bool clear;
	void *bounce;
	pgoff_t i;
	int ret;

	/* Content that lives in pages nobody populated is all zeroes. */
	clear = old_tt && (!ttm || !ttm_tt_is_populated(ttm));

	/* Either side may be the ttm_tt (system memory or an aperture). */
	if (ttm && !clear) {
		ret = ttm_tt_populate(&wdev->bdev, ttm, ctx);
		if (ret)
			return ret;
	}

	bounce = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;

	for (i = 0; i < new_mem->num_pages; i++) {
		if (!clear)
			wddmseg_res_page_io(wdev, tbo, old_mem, i, bounce, false);
		wddmseg_res_page_io(wdev, tbo, new_mem, i, bounce, true);
		cond_resched();
	}

	kfree(bounce);
	return 0;
}

static void wddmseg_tt_set_keep(struct ttm_buffer_object *tbo, bool keep,
				struct dma_fence *fence);
static bool wddmseg_tt_user(struct ttm_buffer_object *tbo);

static bool use_engine = true;
module_param(use_engine, bool, 0644);
MODULE_PARM_DESC(use_engine,
		 "Move memory with the copy engine (default) or, if 0, with the CPU");

/* Pages per engine job: each job's page lists must fit the arena. */
#define WDDMSEG_MOVE_CHUNK_PAGES	(SZ_8M >> PAGE_SHIFT)

/**
 * wddmseg_engine_usable - whether moves go through the copy engine now
 * @wdev: device
 *
 * Return: false with use_engine=0 or while the engine does not run.
 */
bool wddmseg_engine_usable(struct wddmseg_device *wdev)
{
	return READ_ONCE(use_engine) && READ_ONCE(wdev->engine.ready);
}

/**
 * wddmseg_res_loc - where bytes of a resource are, for a paging command
 * @wdev: device
 * @tbo: buffer object whose ttm_tt backs @res if @res is not VRAM
 * @res: resource
 * @off: byte offset in @res
 * @len: bytes
 * @job: engine job whose arena receives a page list
 * @arena_off: in/out: where in the job's arena the list goes
 * @loc: filled in
 *
 * VRAM is a segment offset; system pages (system memory or an aperture
 * placement) are a page list written to the arena (WDDM's MDL) with the
 * byte offset into its first page.
 */
void wddmseg_res_loc(struct wddmseg_device *wdev, struct ttm_buffer_object *tbo,
		     struct ttm_resource *res, u64 off, u64 len,
		     struct wddmseg_job *job, u32 *arena_off,
		     struct wddmseg_loc *loc)
{
	struct wddmseg_mgr *mgr = wddmseg_res_mgr(wdev, res);
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	pgoff_t i, first = off >> PAGE_SHIFT;
	pgoff_t n = DIV_ROUND_UP(offset_in_page(off) + len, PAGE_SIZE);
	__le64 *list;
	u32 j, k = 0;

	if (mgr && !mgr->manager.use_tt) {
		loc->segment_id = mgr->segment_id;
		loc->addr = ((u64)res->start << PAGE_SHIFT) + off;
		loc->offset = 0;
		return;
	}

	list = (__le64 *)(job->arena + *arena_off);
	for (i = 0; i < n; i++)
		for (j = 0; j < sub; j++)
			list[k++] = cpu_to_le64(tbo->ttm->dma_address[first + i] +
						j * WDDMSEG_HW_PAGE_SIZE);
	loc->segment_id = WDDMSEG_SEGMENT_SYSTEM;
	loc->addr = job->arena_dma + *arena_off;
	loc->offset = offset_in_page(off);
	*arena_off += k * sizeof(*list);
}

/*
 * The paging buffer of one move, in jobs of at most 8 MiB: Transfer (or
 * Fill with zeroes when the source never had content), MapApertureSegment
 * for a new aperture placement, UnmapApertureSegment for an old one.
 * With @crypt (WDDMSEG_CRYPT_*), the Transfer is TRANSFER_ENCRYPTED with
 * @nonce, each job at its offset in the allocation.
 * Returns the last job's fence; the engine runs jobs in order.
 */
static int wddmseg_engine_move(struct wddmseg_device *wdev,
			       struct ttm_buffer_object *tbo,
			       struct ttm_resource *new_mem, bool clear,
			       u32 crypt, u64 nonce, struct dma_fence **fence)
{
	struct wddmseg_engine *eng = &wdev->engine;
	struct ttm_resource *old_mem = tbo->resource;
	struct wddmseg_mgr *old_mgr = wddmseg_res_mgr(wdev, old_mem);
	struct wddmseg_mgr *new_mgr = wddmseg_res_mgr(wdev, new_mem);
	bool old_tt = !old_mgr || old_mgr->manager.use_tt;
	bool new_tt = !new_mgr || new_mgr->manager.use_tt;
	bool old_apt = wddmseg_res_is_aperture(wdev, old_mem);
	bool new_apt = wddmseg_res_is_aperture(wdev, new_mem);
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	struct dma_fence *last = NULL;
	pgoff_t first, n;
	int ret = 0;

	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return -ENODEV;
	}

	for (first = 0; first < new_mem->num_pages; first += n) {
		u64 cmd[WDDMSEG_TRANSFER_ENCRYPTED_QWORDS +
			2 * WDDMSEG_APERTURE_QWORDS];
		struct wddmseg_loc src, dst;
		struct wddmseg_job job;
		u32 q = 0, arena = 0, lists, dst_list = 0;
		struct dma_fence *f;

		n = min_t(pgoff_t, WDDMSEG_MOVE_CHUNK_PAGES,
			  new_mem->num_pages - first);
		lists = (old_tt && !clear && !new_tt) + new_tt;
		ret = wddmseg_engine_reserve(eng, ARRAY_SIZE(cmd),
					     lists * n * sub * 8, &job);
		if (ret)
			break;

		if (!(old_tt && new_tt)) {
			if (!clear)
				wddmseg_res_loc(wdev, tbo, old_mem,
						(u64)first << PAGE_SHIFT,
						(u64)n << PAGE_SHIFT, &job,
						&arena, &src);
			dst_list = arena;
			wddmseg_res_loc(wdev, tbo, new_mem,
					(u64)first << PAGE_SHIFT,
					(u64)n << PAGE_SHIFT, &job, &arena, &dst);
			if (clear)
				q += wddmseg_encode_fill(cmd + q,
							 (u64)n << PAGE_SHIFT, 0,
							 &dst);
			else if (crypt)
				q += wddmseg_encode_transfer_encrypted(cmd + q,
								       (u64)n << PAGE_SHIFT,
								       &src, &dst, crypt, nonce,
								       (u64)first << PAGE_SHIFT);
			else
				q += wddmseg_encode_transfer(cmd + q,
							     (u64)n << PAGE_SHIFT,
							     &src, &dst);
		} else if (new_apt) {
			wddmseg_res_loc(wdev, tbo, new_mem,
					(u64)first << PAGE_SHIFT,
					(u64)n << PAGE_SHIFT, &job, &arena, &dst);
		}
		trace_wddmseg_paging_op(old_tt && new_tt ? "aperture" :
					clear ? "fill" :
					crypt == WDDMSEG_CRYPT_ENCRYPT ? "transfer-encrypt" :
					crypt ? "transfer-decrypt" : "transfer",
					old_mgr ? old_mgr->segment_id : 0,
					new_mgr ? new_mgr->segment_id : 0,
					(u64)n << PAGE_SHIFT, eng->seqno + 1);
		if (new_apt)
			q += wddmseg_encode_map_aperture(cmd + q,
							 new_mgr->segment_id,
							 new_mgr->desc->flags &
							 DXGK_SEGFLAG_CACHE_COHERENT,
							 (new_mem->start + first) * sub,
							 n * sub,
							 job.arena_dma + dst_list);
		if (old_apt)
			q += wddmseg_encode_unmap_aperture(cmd + q,
							   old_mgr->segment_id,
							   (old_mem->start + first) * sub,
							   n * sub, eng->dummy_dma);
		wddmseg_engine_emit(eng, &job, cmd, q);

		f = wddmseg_engine_commit(eng, &job);
		if (IS_ERR(f)) {
			ret = PTR_ERR(f);
			break;
		}
		dma_fence_put(last);
		last = f;
	}
	mutex_unlock(&eng->lock);

	if (ret && last) {
		/* Part of the move is queued: let it finish, then fail. */
		dma_fence_wait(last, false);
		dma_fence_put(last);
		return ret;
	}
	*fence = last;
	return ret;
}

/*
 * The end of a move out of pages (system memory or an aperture range) into
 * VRAM, pipelined like a move out of VRAM. TTM's own cleanup for it,
 * ttm_bo_move_accel_cleanup(), would wait for the copy before freeing the
 * ttm_tt. Instead the pages are kept with @fence (wddmseg_kept_stash();
 * whoever frees them waits for it), an aperture range gets @fence as its
 * manager's move fence, so that its next user waits for the copy through
 * it as for VRAM, and @fence goes into the reservation after TTM's
 * synchronous cleanup, which then has nothing to wait for (the move
 * callback waited for earlier work). ExistingSysMem pages belong to the
 * user and are not kept: those moves use TTM's cleanup.
 */
static void wddmseg_bo_cleanup_from_pages(struct ttm_buffer_object *tbo,
					  struct dma_fence *fence,
					  struct ttm_resource *new_mem)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct ttm_resource_manager *man;

	if (wddmseg_res_is_aperture(wdev, tbo->resource)) {
		man = ttm_manager_type(tbo->bdev, tbo->resource->mem_type);
		spin_lock(&man->move_lock);
		if (!man->move || dma_fence_is_later(fence, man->move)) {
			dma_fence_put(man->move);
			man->move = dma_fence_get(fence);
		}
		spin_unlock(&man->move_lock);
	}
	wddmseg_tt_set_keep(tbo, true, fence);
	ttm_bo_move_sync_cleanup(tbo, new_mem);
	wddmseg_tt_set_keep(tbo, false, NULL);
	dma_resv_add_fence(tbo->base.resv, fence, DMA_RESV_USAGE_KERNEL);
}

/*
 * How a move of @bo into @new_mem treats protected content: *@crypt is 0
 * (a plain Transfer or Fill), WDDMSEG_CRYPT_ENCRYPT (HardwareProtected
 * content out of VRAM into system pages) or WDDMSEG_CRYPT_DECRYPT (sealed
 * content back into VRAM). -EACCES when the move would put
 * HardwareProtected content into system memory in the clear, or sealed
 * content where the device cannot decrypt it.
 */
static int wddmseg_bo_move_crypt(struct wddmseg_device *wdev,
				 struct wddmseg_bo *bo,
				 struct ttm_resource *new_mem, bool clear,
				 u32 *crypt)
{
	u32 from = wddmseg_mem_type_segment(wdev, bo->tbo.resource->mem_type);
	u32 to = wddmseg_mem_type_segment(wdev, new_mem->mem_type);

	*crypt = 0;
	if (!wddmseg_bo_hw_protected(bo) || clear || (from && to))
		return 0;
	if (from && wddmseg_segment_seals(wdev, from)) {
		*crypt = WDDMSEG_CRYPT_ENCRYPT;
		return 0;
	}
	if (!from && bo->sealed && wddmseg_segment_seals(wdev, to)) {
		*crypt = WDDMSEG_CRYPT_DECRYPT;
		return 0;
	}
	if (!from && !bo->sealed)
		return 0;	/* never had content there (discarded) */
	drm_dbg(&wdev->drm, "move: rule hardware-protected-evict: segment %u -> %u: HardwareProtected content moves through system memory only encrypted, between segments with EncryptedPagingSupported\n",
		from, to);
	return -EACCES;
}

/* The engine path of the move callback; -ENODEV: use the CPU instead. */
static int wddmseg_bo_move_engine(struct wddmseg_device *wdev,
				  struct ttm_buffer_object *tbo, bool evict,
				  struct ttm_operation_ctx *ctx,
				  struct ttm_resource *new_mem)
{
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);
	struct ttm_resource *old_mem = tbo->resource;
	struct ttm_resource_manager *old_man, *new_man;
	bool sync = bo->flags & WDDMSEG_ALLOC_SYNCHRONOUS_PAGING;
	struct dma_fence *fence = NULL;
	struct ttm_tt *ttm = tbo->ttm;
	u32 crypt;
	u64 nonce;
	bool clear;
	int ret;

	old_man = ttm_manager_type(tbo->bdev, old_mem->mem_type);
	new_man = ttm_manager_type(tbo->bdev, new_mem->mem_type);

	/* Both in pages and no aperture involved: nothing to do. */
	if (old_man->use_tt && new_man->use_tt &&
	    !wddmseg_res_is_aperture(wdev, old_mem) &&
	    !wddmseg_res_is_aperture(wdev, new_mem)) {
		wddmseg_bo_moved(bo, old_mem, new_mem, evict);
		ttm_bo_move_null(tbo, new_mem);
		return 0;
	}

	/*
	 * SynchronousPaging: page only when idle, finish before returning.
	 * Out of pages into VRAM: wait for earlier work here, where the
	 * context says how (wddmseg_bo_cleanup_from_pages()).
	 */
	if (sync || (old_man->use_tt && !new_man->use_tt)) {
		ret = ttm_bo_wait_ctx(tbo, ctx);
		if (ret)
			return ret;
	}

	clear = old_man->use_tt && (!ttm || !ttm_tt_is_populated(ttm));
	ret = wddmseg_bo_move_crypt(wdev, bo, new_mem, clear, &crypt);
	if (ret)
		return ret;
	if (ttm && (!clear || new_man->use_tt)) {
		ret = ttm_tt_populate(tbo->bdev, ttm, ctx);
		if (ret)
			return ret;
	}

	nonce = crypt == WDDMSEG_CRYPT_ENCRYPT ? wddmseg_seal_nonce(wdev) :
		bo->seal_nonce;
	ret = wddmseg_engine_move(wdev, tbo, new_mem, clear, crypt, nonce,
				  &fence);
	if (ret)
		return ret;
	if (crypt == WDDMSEG_CRYPT_ENCRYPT)
		bo->seal_nonce = nonce;
	/* Content that never existed or came back decrypted is not sealed. */
	if (!new_man->use_tt)
		bo->sealed = false;
	else if (crypt == WDDMSEG_CRYPT_ENCRYPT)
		bo->sealed = true;

	wddmseg_bo_moved(bo, old_mem, new_mem, evict);
	if (old_man->use_tt && new_man->use_tt) {
		/* Aperture (un)binding only: short, and the pages stay. */
		dma_fence_wait(fence, false);
		ret = fence->error;
		dma_fence_put(fence);
		ttm_bo_move_null(tbo, new_mem);
		return ret;
	}
	if (sync)
		dma_fence_wait(fence, false);
	/*
	 * Always the eviction flavour: VRAM is freed at once, and TTM makes
	 * the next user of that range wait for this fence (the manager's
	 * move fence, one paging timeline). No ghost object keeps the old
	 * placement allocated, so usage counters are exact when the ioctl
	 * returns.
	 */
	if (old_man->use_tt && !wddmseg_tt_user(tbo))
		wddmseg_bo_cleanup_from_pages(tbo, fence, new_mem);
	else
		ret = ttm_bo_move_accel_cleanup(tbo, fence, true, !sync,
						new_mem);
	dma_fence_put(fence);
	return ret;
}

/*
 * DiscardContent of a VRAM resource, then a Fill of zeroes over it (VRAM
 * an allocation gives up is wiped, as on release), in one engine job.
 */
static struct dma_fence *wddmseg_engine_discard(struct wddmseg_device *wdev,
						struct wddmseg_mgr *mgr,
						struct ttm_resource *res)
{
	struct wddmseg_engine *eng = &wdev->engine;
	u64 cmd[WDDMSEG_DISCARD_QWORDS + WDDMSEG_FILL_QWORDS];
	u64 size = (u64)res->num_pages << PAGE_SHIFT;
	struct dma_fence *fence;
	struct wddmseg_loc loc;
	struct wddmseg_job job;
	u32 q;
	int ret;

	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return ERR_PTR(-ENODEV);
	}
	ret = wddmseg_engine_reserve(eng, ARRAY_SIZE(cmd), 0, &job);
	if (ret) {
		mutex_unlock(&eng->lock);
		return ERR_PTR(ret);
	}
	loc.segment_id = mgr->segment_id;
	loc.addr = (u64)res->start << PAGE_SHIFT;
	loc.offset = 0;
	q = wddmseg_encode_discard(cmd, size, &loc);
	q += wddmseg_encode_fill(cmd + q, size, 0, &loc);
	trace_wddmseg_paging_op("discard", mgr->segment_id, 0, size,
				eng->seqno + 1);
	wddmseg_engine_emit(eng, &job, cmd, q);
	fence = wddmseg_engine_commit(eng, &job);
	mutex_unlock(&eng->lock);
	return fence;
}

/*
 * GEM_EVICT with WDDMSEG_EVICT_DISCARD out of VRAM: no Transfer, the
 * content is dropped. The new system placement keeps an unpopulated
 * ttm_tt (content that never existed: the next move into VRAM is a Fill
 * of zeroes); wddmseg_bo.c then marks it for clearing.
 */
static int wddmseg_bo_move_discard(struct wddmseg_device *wdev,
				   struct ttm_buffer_object *tbo, bool evict,
				   struct ttm_operation_ctx *ctx,
				   struct ttm_resource *new_mem)
{
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);
	struct ttm_resource *old_mem = tbo->resource;
	struct wddmseg_mgr *mgr = wddmseg_res_mgr(wdev, old_mem);
	bool sync = bo->flags & WDDMSEG_ALLOC_SYNCHRONOUS_PAGING;
	struct dma_fence *fence = NULL;
	int ret;

	/* SynchronousPaging: page only when idle, finish before returning. */
	if (sync) {
		ret = ttm_bo_wait_ctx(tbo, ctx);
		if (ret)
			return ret;
	}
	if (wddmseg_engine_usable(wdev)) {
		fence = wddmseg_engine_discard(wdev, mgr, old_mem);
		if (IS_ERR(fence) && PTR_ERR(fence) != -ENODEV)
			return PTR_ERR(fence);
		if (IS_ERR(fence))
			fence = NULL;
	}
	if (!fence) {
		/* No engine: nothing to tell the device, nothing to copy. */
		ret = ttm_bo_wait_ctx(tbo, ctx);
		if (ret)
			return ret;
		wddmseg_bo_moved(bo, old_mem, new_mem, evict);
		ttm_bo_move_sync_cleanup(tbo, new_mem);
		return 0;
	}
	wddmseg_bo_moved(bo, old_mem, new_mem, evict);
	if (sync)
		dma_fence_wait(fence, false);
	ret = ttm_bo_move_accel_cleanup(tbo, fence, true, !sync, new_mem);
	dma_fence_put(fence);
	return ret;
}

static int wddmseg_bo_move(struct ttm_buffer_object *tbo, bool evict,
			   struct ttm_operation_ctx *ctx,
			   struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);
	struct ttm_resource *old_mem = tbo->resource;
	struct ttm_resource_manager *old_man, *new_man;
	u32 old_type;
	int ret;

	if (!old_mem) {
		ttm_bo_move_null(tbo, new_mem);
		wddmseg_bo_moved(bo, NULL, new_mem, evict);
		return 0;
	}
	/* A ghost of a pipelined move holds stale content: nothing to keep. */
	if (!wddmseg_is_bo(tbo)) {
		ttm_bo_move_null(tbo, new_mem);
		return 0;
	}

	old_type = old_mem->mem_type;
	old_man = ttm_manager_type(tbo->bdev, old_type);
	new_man = ttm_manager_type(tbo->bdev, new_mem->mem_type);

	/* GEM_EVICT with DISCARD: VRAM content is dropped, not copied. */
	if (bo->discarding && !old_man->use_tt &&
	    new_mem->mem_type == TTM_PL_SYSTEM)
		return wddmseg_bo_move_discard(wdev, tbo, evict, ctx, new_mem);

	if (wddmseg_engine_usable(wdev)) {
		ret = wddmseg_bo_move_engine(wdev, tbo, evict, ctx, new_mem);
		if (ret != -ENODEV)
			return ret;
	}

	/* The CPU never reads HardwareProtected content, nor decrypts it. */
	if (wddmseg_bo_hw_protected(bo) && (!old_man->use_tt || bo->sealed)) {
		drm_dbg(&wdev->drm, "move: rule hardware-protected-cpu: HardwareProtected content moves only on the copy engine\n");
		return -EACCES;
	}

	/* The CPU copies synchronously: wait until nothing uses the BO. */
	ret = ttm_bo_wait_ctx(tbo, ctx);
	if (ret)
		return ret;

	if (!(old_man->use_tt && new_man->use_tt)) {
		ret = wddmseg_cpu_copy(wdev, tbo, new_mem, ctx);
		if (ret)
			return ret;
	}

	if (wddmseg_res_is_aperture(wdev, old_mem))
		wddmseg_apt_update(wdev, old_mem, NULL);
	if (wddmseg_res_is_aperture(wdev, new_mem))
		wddmseg_apt_update(wdev, new_mem, tbo->ttm);

	wddmseg_bo_moved(bo, old_mem, new_mem, evict);
	if (old_man->use_tt && new_man->use_tt) {
		ttm_bo_move_null(tbo, new_mem);
	} else {
		wddmseg_tt_set_keep(tbo, old_man->use_tt, NULL);
		ttm_bo_move_sync_cleanup(tbo, new_mem);
		wddmseg_tt_set_keep(tbo, false, NULL);
	}
	return 0;
}

static void wddmseg_bo_delete_mem_notify(struct ttm_buffer_object *tbo)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);

	if (!tbo->resource)
		return;
	if (wddmseg_res_is_aperture(wdev, tbo->resource))
		wddmseg_apt_update(wdev, tbo->resource, NULL);
	if (wddmseg_is_bo(tbo))
		wddmseg_bo_moved(to_wddmseg_bo(tbo), tbo->resource, NULL, false);
}

/**
 * struct wddmseg_tt - system pages of an allocation
 * @ttm: the TTM page array (and DMA addresses)
 * @user_pages: ExistingSysMem: the user pages pinned at creation, else NULL
 * @bo: the allocation it was created for
 * @keep: set by the move callback only around the TTM cleanup that frees
 *	this ttm_tt because the allocation moved into VRAM: unpopulate keeps
 *	the pages (and their arrays) for @bo
 * @keep_fence: the copy that still reads the pages while they are kept,
 *	or NULL; nobody frees them before it signals
 */
struct wddmseg_tt {
	struct ttm_tt ttm;
	struct page **user_pages;
	struct wddmseg_bo *bo;
	bool keep;
	struct dma_fence *keep_fence;
};

static struct wddmseg_tt *to_wddmseg_tt(struct ttm_tt *tt)
{
	return container_of(tt, struct wddmseg_tt, ttm);
}

/* Does @tbo's ttm_tt hold ExistingSysMem (user) pages? */
static bool wddmseg_tt_user(struct ttm_buffer_object *tbo)
{
	return tbo->ttm && to_wddmseg_tt(tbo->ttm)->user_pages;
}

/**
 * struct wddmseg_kept - system pages an allocation left behind in VRAM
 * @link: in &wddmseg_device.kept_list
 * @bo: the allocation
 * @num_pages: number of pages
 * @caching: their caching
 * @pages: the pages, still DMA-mapped: the page array of the ttm_tt they
 *	came from (TTM allocates it with @dma_address behind it, as one block)
 * @dma_address: their DMA addresses
 * @fence: the copy out of the pages, which may still run, or NULL
 *
 * TTM frees the ttm_tt of an allocation that moves into VRAM, and gives a
 * new one when it moves out again; with TTM's page pool every round trip
 * then clears all pages once (the pool clears pages it takes back) and
 * the copy overwrites them again. The pages are kept here instead, up to
 * keep_sysmem_mb in total, and go back to the pool when the allocation is
 * destroyed or under memory pressure (wddmseg_kept_scan()). They only
 * back the same allocation again, and only a ttm_tt that TTM does not ask
 * to be zeroed, i.e. one the move fills completely: the stale bytes are
 * the allocation's own older content at worst. The arrays go along with
 * the pages, so keeping and reusing them copies nothing.
 *
 * The move into VRAM does not wait for its copy out of these pages
 * (wddmseg_bo_cleanup_from_pages()): whoever gives them back to the pool
 * waits for @fence first. Reuse needs no wait: the pages go back to the
 * same allocation, whose reservation holds the fence, and the engine runs
 * the next move after this one.
 */
struct wddmseg_kept {
	struct list_head link;
	struct wddmseg_bo *bo;
	pgoff_t num_pages;
	enum ttm_caching caching;
	struct page **pages;
	dma_addr_t *dma_address;
	struct dma_fence *fence;
};

static unsigned int keep_sysmem_mb = 256;
module_param(keep_sysmem_mb, uint, 0644);
MODULE_PARM_DESC(keep_sysmem_mb,
		 "MiB of system pages allocations in VRAM may keep for their next eviction (default 256, 0 = off)");

/* Unlink @bo's kept pages; the caller owns them then. */
static struct wddmseg_kept *wddmseg_kept_take(struct wddmseg_device *wdev,
					      struct wddmseg_bo *bo)
{
	struct wddmseg_kept *k;

	spin_lock(&wdev->kept_lock);
	k = bo->kept;
	if (k) {
		bo->kept = NULL;
		list_del(&k->link);
		wdev->kept_pages -= k->num_pages;
	}
	spin_unlock(&wdev->kept_lock);
	return k;
}

/*
 * Give kept pages back to TTM's pool (which unmaps them) once the copy
 * out of them is done, and free their arrays.
 */
static void wddmseg_kept_free(struct wddmseg_device *wdev,
			      struct wddmseg_kept *k)
{
	struct ttm_tt tt = {
		.pages = k->pages,
		.dma_address = k->dma_address,
		.num_pages = k->num_pages,
		.caching = k->caching,
	};

	if (k->fence) {
		dma_fence_wait(k->fence, false);
		dma_fence_put(k->fence);
	}
	ttm_pool_free(&wdev->bdev.pool, &tt);
	kvfree(k->pages);
	kfree(k);
}

/* Does @tt hold its arrays as one block, page array first (TTM's layout)? */
static bool wddmseg_tt_arrays_joined(const struct ttm_tt *tt)
{
	return tt->pages &&
	       tt->dma_address == (dma_addr_t *)(tt->pages + tt->num_pages);
}

/**
 * wddmseg_bo_drop_kept - free the system pages an allocation kept
 * @bo: allocation being destroyed
 */
void wddmseg_bo_drop_kept(struct wddmseg_bo *bo)
{
	struct wddmseg_kept *k;

	/* Nobody else sets it; the shrinker may clear it under the lock. */
	if (!READ_ONCE(bo->kept))
		return;
	k = wddmseg_kept_take(bdev_to_wddmseg(bo->tbo.bdev), bo);
	if (k)
		wddmseg_kept_free(bdev_to_wddmseg(bo->tbo.bdev), k);
}

/*
 * Unpopulate of a ttm_tt marked @keep: park its pages, taking its arrays
 * along (the ttm_tt is destroyed next and frees none then). False: no
 * room.
 */
static bool wddmseg_kept_stash(struct wddmseg_device *wdev,
			       struct wddmseg_tt *wtt)
{
	struct ttm_tt *tt = &wtt->ttm;
	struct wddmseg_kept *k;
	bool ok = false;

	if (tt->num_pages > ((unsigned long)READ_ONCE(keep_sysmem_mb) <<
			     (20 - PAGE_SHIFT)) || !wddmseg_tt_arrays_joined(tt))
		return false;
	k = kmalloc(sizeof(*k), GFP_KERNEL | __GFP_NOWARN);
	if (!k)
		return false;
	k->bo = wtt->bo;
	k->num_pages = tt->num_pages;
	k->caching = tt->caching;
	k->pages = tt->pages;
	k->dma_address = tt->dma_address;
	k->fence = NULL;

	spin_lock(&wdev->kept_lock);
	if (!wtt->bo->kept && wdev->kept_pages + tt->num_pages <=
	    ((unsigned long)READ_ONCE(keep_sysmem_mb) << (20 - PAGE_SHIFT))) {
		k->fence = dma_fence_get(wtt->keep_fence);
		wtt->bo->kept = k;
		list_add_tail(&k->link, &wdev->kept_list);
		wdev->kept_pages += k->num_pages;
		ok = true;
	}
	spin_unlock(&wdev->kept_lock);
	if (!ok) {
		kfree(k);
		return false;
	}
	tt->pages = NULL;
	tt->dma_address = NULL;
	return true;
}

/*
 * Populate from the pages the allocation kept, if it kept a matching set
 * and TTM does not need zeroed pages. Other kept pages are freed.
 */
static bool wddmseg_kept_reuse(struct wddmseg_device *wdev,
			       struct wddmseg_tt *wtt)
{
	struct ttm_tt *tt = &wtt->ttm;
	struct wddmseg_kept *k;

	if (!wtt->bo || !READ_ONCE(wtt->bo->kept))
		return false;
	k = wddmseg_kept_take(wdev, wtt->bo);
	if (!k)
		return false;
	if (k->num_pages != tt->num_pages || k->caching != tt->caching ||
	    (tt->page_flags & (TTM_TT_FLAG_ZERO_ALLOC | TTM_TT_FLAG_SWAPPED)) ||
	    !wddmseg_tt_arrays_joined(tt)) {
		wddmseg_kept_free(wdev, k);
		return false;
	}
	/* The new ttm_tt's (empty) arrays give way to the kept ones. */
	kvfree(tt->pages);
	tt->pages = k->pages;
	tt->dma_address = k->dma_address;
	dma_fence_put(k->fence);
	kfree(k);
	return true;
}

/*
 * Mark @tbo's ttm_tt: keep its pages if TTM unpopulates it now; @fence
 * (or NULL) is a copy that may still read them.
 */
static void wddmseg_tt_set_keep(struct ttm_buffer_object *tbo, bool keep,
				struct dma_fence *fence)
{
	struct wddmseg_tt *wtt;

	if (!tbo->ttm)
		return;
	wtt = to_wddmseg_tt(tbo->ttm);
	wtt->keep = keep;
	wtt->keep_fence = fence;
}

static unsigned long wddmseg_kept_count(struct shrinker *shrink,
					struct shrink_control *sc)
{
	struct wddmseg_device *wdev =
		container_of(shrink, struct wddmseg_device, kept_shrinker);
	unsigned long n = READ_ONCE(wdev->kept_pages);

	return n ? n : SHRINK_EMPTY;
}

/*
 * Free up to @max kept pages, oldest first; returns how many. Without
 * @wait it stops at pages a copy still reads: reclaim must not wait for
 * the engine, whose recovery allocates memory.
 */
static unsigned long wddmseg_kept_shrink(struct wddmseg_device *wdev,
					 unsigned long max, bool wait)
{
	unsigned long freed = 0;
	struct wddmseg_kept *k;

	while (freed < max) {
		spin_lock(&wdev->kept_lock);
		k = list_first_entry_or_null(&wdev->kept_list,
					     struct wddmseg_kept, link);
		if (k && !wait && k->fence &&
		    !dma_fence_is_signaled(k->fence))
			k = NULL;
		if (k) {
			k->bo->kept = NULL;
			list_del(&k->link);
			wdev->kept_pages -= k->num_pages;
		}
		spin_unlock(&wdev->kept_lock);
		if (!k)
			break;
		freed += k->num_pages;
		wddmseg_kept_free(wdev, k);
	}
	return freed;
}

/* Memory pressure: give kept pages back. */
static unsigned long wddmseg_kept_scan(struct shrinker *shrink,
				       struct shrink_control *sc)
{
	struct wddmseg_device *wdev =
		container_of(shrink, struct wddmseg_device, kept_shrinker);
	unsigned long freed = wddmseg_kept_shrink(wdev, sc->nr_to_scan,
						  false);

	return freed ? freed : SHRINK_STOP;
}

static void wddmseg_kept_drain(struct wddmseg_device *wdev)
{
	wddmseg_kept_shrink(wdev, ULONG_MAX, true);
}

static struct ttm_tt *wddmseg_ttm_tt_create(struct ttm_buffer_object *tbo,
					    u32 page_flags)
{
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);
	enum ttm_caching caching = ttm_write_combined;
	struct wddmseg_tt *wtt;

	/* User memory is normal cached memory: never remap it otherwise. */
	if (bo->flags & (WDDMSEG_ALLOC_CACHED | WDDMSEG_ALLOC_EXISTING_SYSMEM))
		caching = ttm_cached;

	wtt = kzalloc(sizeof(*wtt), GFP_KERNEL);
	if (!wtt)
		return NULL;

	/* The device reads these pages through the aperture: DMA-map them. */
	if (ttm_sg_tt_init(&wtt->ttm, tbo, page_flags, caching)) {
		kfree(wtt);
		return NULL;
	}

	wtt->bo = bo;
	if (bo->user_pages) {
		/* Pages come from the user, not from TTM's pool. */
		wtt->ttm.page_flags |= TTM_TT_FLAG_EXTERNAL |
				       TTM_TT_FLAG_EXTERNAL_MAPPABLE;
		wtt->user_pages = bo->user_pages;
	}
	return &wtt->ttm;
}

static void wddmseg_ttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *tt)
{
	ttm_tt_fini(tt);
	kfree(to_wddmseg_tt(tt));
}

static void wddmseg_userptr_unmap(struct ttm_device *bdev, struct ttm_tt *tt,
				  pgoff_t mapped)
{
	pgoff_t i;

	for (i = 0; i < mapped; i++)
		dma_unmap_page(bdev_to_wddmseg(bdev)->drm.dev, tt->dma_address[i],
			       PAGE_SIZE, DMA_BIDIRECTIONAL);
}

/*
 * ExistingSysMem pages were pinned when the allocation was created, before
 * its reservation was taken (pinning takes mmap_lock, which must come
 * first); here they are only DMA-mapped.
 */
static int wddmseg_ttm_tt_populate(struct ttm_device *bdev, struct ttm_tt *tt,
				   struct ttm_operation_ctx *ctx)
{
	struct wddmseg_tt *wtt = to_wddmseg_tt(tt);
	struct device *dev = bdev_to_wddmseg(bdev)->drm.dev;
	pgoff_t i;

	if (!wtt->user_pages) {
		if (wddmseg_kept_reuse(bdev_to_wddmseg(bdev), wtt))
			return 0;
		return ttm_pool_alloc(&bdev->pool, tt, ctx);
	}

	for (i = 0; i < tt->num_pages; i++) {
		tt->pages[i] = wtt->user_pages[i];
		tt->dma_address[i] = dma_map_page(dev, tt->pages[i], 0,
						  PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, tt->dma_address[i])) {
			wddmseg_userptr_unmap(bdev, tt, i);
			return -ENOMEM;
		}
	}
	return 0;
}

static void wddmseg_ttm_tt_unpopulate(struct ttm_device *bdev,
				      struct ttm_tt *tt)
{
	struct wddmseg_tt *wtt = to_wddmseg_tt(tt);

	if (wtt->user_pages) {
		wddmseg_userptr_unmap(bdev, tt, tt->num_pages);
	} else if (!wtt->keep ||
		   !wddmseg_kept_stash(bdev_to_wddmseg(bdev), wtt)) {
		/* No room to keep them: the copy must be done with them. */
		if (wtt->keep_fence)
			dma_fence_wait(wtt->keep_fence, false);
		ttm_pool_free(&bdev->pool, tt);
	}
}

static void wddmseg_evict_flags(struct ttm_buffer_object *tbo,
				struct ttm_placement *placement)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);

	/* No placement: TTM drops a ghost's stale content. */
	if (!wddmseg_is_bo(tbo))
		return;
	wddmseg_bo_evict_placement(to_wddmseg_bo(tbo),
				   wddmseg_mem_type_segment(wdev,
							    tbo->resource->mem_type),
				   placement);
}

/*
 * Evicting some allocations would break their protection. A released one
 * waiting for its delayed destroy has no content left: TTM frees it.
 */
static bool wddmseg_eviction_valuable(struct ttm_buffer_object *tbo,
				      const struct ttm_place *place)
{
	if (wddmseg_is_bo(tbo) && !tbo->deleted &&
	    !wddmseg_bo_evictable(to_wddmseg_bo(tbo)))
		return false;
	return ttm_bo_eviction_valuable(tbo, place);
}

static int wddmseg_io_mem_reserve(struct ttm_device *bdev,
				  struct ttm_resource *res)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(bdev);
	struct wddmseg_mgr *mgr = wddmseg_res_mgr(wdev, res);

	if (!mgr || mgr->manager.use_tt)
		return 0;	/* system pages, mapped through the ttm_tt */

	if (!(mgr->desc->flags & DXGK_SEGFLAG_CPU_VISIBLE))
		return -EINVAL;	/* not reachable by the CPU */

	res->bus.offset = mgr->desc->cpu_translated_address +
			  ((u64)res->start << PAGE_SHIFT);
	res->bus.is_iomem = true;
	res->bus.caching = ttm_write_combined;
	return 0;
}

/* Queue a FILL of zeroes over the VRAM of an allocation being released. */
static void wddmseg_bo_wipe(struct ttm_buffer_object *tbo)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct wddmseg_mgr *mgr;
	struct wddmseg_engine *eng = &wdev->engine;
	struct ttm_resource *res = tbo->resource;
	struct dma_fence *fence;
	struct wddmseg_loc dst;
	struct wddmseg_job job;
	u64 cmd[WDDMSEG_FILL_QWORDS];
	u32 q;

	if (!res || !wddmseg_engine_usable(wdev))
		return;
	mgr = wddmseg_res_mgr(wdev, res);
	if (!mgr || mgr->manager.use_tt || !dma_resv_trylock(tbo->base.resv))
		return;
	if (dma_resv_reserve_fences(tbo->base.resv, 1))
		goto unlock;

	mutex_lock(&eng->lock);
	if (!eng->ready || wddmseg_engine_reserve(eng, ARRAY_SIZE(cmd), 0, &job)) {
		mutex_unlock(&eng->lock);
		goto unlock;
	}
	dst.segment_id = mgr->segment_id;
	dst.addr = (u64)res->start << PAGE_SHIFT;
	dst.offset = 0;
	q = wddmseg_encode_fill(cmd, (u64)res->num_pages << PAGE_SHIFT, 0, &dst);
	trace_wddmseg_paging_op("wipe", mgr->segment_id, mgr->segment_id,
				(u64)res->num_pages << PAGE_SHIFT, eng->seqno + 1);
	wddmseg_engine_emit(eng, &job, cmd, q);
	fence = wddmseg_engine_commit(eng, &job);
	mutex_unlock(&eng->lock);

	/* TTM frees the VRAM only once the wipe is done. */
	if (!IS_ERR(fence)) {
		dma_resv_add_fence(tbo->base.resv, fence, DMA_RESV_USAGE_KERNEL);
		dma_fence_put(fence);
	}
unlock:
	dma_resv_unlock(tbo->base.resv);
}

/*
 * Wipe VRAM an allocation leaves behind, with a FILL on the engine, then
 * wait until the allocation is idle: its memory is free (and counted as
 * free) when the last reference goes, not later from TTM's delayed delete.
 */
static void wddmseg_bo_release_notify(struct ttm_buffer_object *tbo)
{
	if (!wddmseg_is_bo(tbo))
		return;
	wddmseg_bo_wipe(tbo);
	dma_resv_wait_timeout(tbo->base.resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      msecs_to_jiffies(30000));
}

/*
 * One ReadPhysical (VRAM -> bounce buffer) or WritePhysical (bounce buffer
 * -> VRAM) of @len bytes at GPU address @gpu_addr, waited for. The engine
 * runs jobs in order, so moves already queued for the allocation come
 * first; a job that hangs is the watchdog's (reset, replay, -EIO), so the
 * wait ends. Caller holds access_lock. -ENODEV: no engine, use the CPU.
 */
static int wddmseg_access_engine(struct wddmseg_device *wdev, u32 segment_id,
				 u64 gpu_addr, void *buf, u32 len, bool write)
{
	struct wddmseg_engine *eng = &wdev->engine;
	u64 cmd[WDDMSEG_PHYSICAL_QWORDS];
	struct dma_fence *fence;
	struct wddmseg_job job;
	long ret;
	u32 q;

	lockdep_assert_held(&wdev->access_lock);
	/* An interrupted access may still own the bounce buffer. */
	if (wdev->access_fence) {
		dma_fence_wait(wdev->access_fence, false);
		dma_fence_put(wdev->access_fence);
		wdev->access_fence = NULL;
	}
	if (write)
		memcpy(wdev->access_bounce, buf, len);

	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return -ENODEV;
	}
	ret = wddmseg_engine_reserve(eng, WDDMSEG_PHYSICAL_QWORDS, 0, &job);
	if (ret) {
		mutex_unlock(&eng->lock);
		return ret;
	}
	if (write)
		q = wddmseg_encode_write_physical(cmd, len, gpu_addr,
						  wdev->access_bounce_dma);
	else
		q = wddmseg_encode_read_physical(cmd, len, gpu_addr,
						 wdev->access_bounce_dma);
	trace_wddmseg_paging_op(write ? "write_physical" : "read_physical",
				write ? 0 : segment_id, write ? segment_id : 0,
				len, eng->seqno + 1);
	wddmseg_engine_emit(eng, &job, cmd, q);
	fence = wddmseg_engine_commit(eng, &job);
	mutex_unlock(&eng->lock);
	if (IS_ERR(fence))
		return PTR_ERR(fence);

	ret = dma_fence_wait(fence, true);
	if (ret) {
		/* Interrupted: keep the bounce buffer until the job is done. */
		wdev->access_fence = fence;
		return ret;
	}
	ret = fence->error;
	dma_fence_put(fence);
	if (ret)
		return ret;
	if (!write)
		memcpy(buf, wdev->access_bounce, len);
	return 0;
}

/* access_memory of system pages mapped by an aperture segment. */
static int wddmseg_access_tt(struct ttm_buffer_object *tbo,
			     unsigned long offset, void *buf, int len,
			     bool write)
{
	int done = 0, ret;

	ret = ttm_bo_wait(tbo, true, false);
	if (ret)
		return ret;
	if (!tbo->ttm || !ttm_tt_is_populated(tbo->ttm))
		return -EIO;
	while (done < len) {
		unsigned long at = offset + done;
		u32 in = offset_in_page(at);
		u32 n = min_t(u32, len - done, PAGE_SIZE - in);
		void *vaddr = kmap_local_page(tbo->ttm->pages[at >> PAGE_SHIFT]);

		if (write)
			memcpy(vaddr + in, buf + done, n);
		else
			memcpy(buf + done, vaddr + in, n);
		kunmap_local(vaddr);
		done += n;
	}
	return done;
}

/*
 * TTM's access_memory: how ptrace, /proc/PID/mem and debuggers reach a
 * mapped allocation that is not in system memory or TTM_PL_TT, without
 * moving it. The allocation is reserved. VRAM goes through ReadPhysical /
 * WritePhysical on the copy engine and a DMA bounce buffer, which works
 * for CPU-invisible VRAM too; without an engine through BAR2 or the BAR4
 * window. Returns the bytes copied (possibly fewer than @len: never past
 * the end of the allocation, or up to an error) or a negative errno.
 */
static int wddmseg_access_memory(struct ttm_buffer_object *tbo,
				 unsigned long offset, void *buf, int len,
				 int write)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct ttm_resource *res = tbo->resource;
	struct wddmseg_mgr *mgr = res ? wddmseg_res_mgr(wdev, res) : NULL;
	u64 size, gpu_addr;
	int done = 0, ret = 0, idx;

	if (!mgr || len <= 0)
		return -EIO;
	size = (u64)res->num_pages << PAGE_SHIFT;
	if (offset >= size)
		return -EIO;
	/* TTM checks the end only to the page; stop at the allocation's. */
	len = min_t(u64, len, size - offset);

	if (mgr->manager.use_tt)
		return wddmseg_access_tt(tbo, offset, buf, len, write);

	if (!drm_dev_enter(&wdev->drm, &idx))
		return -ENODEV;
	gpu_addr = mgr->desc->base_address + ((u64)res->start << PAGE_SHIFT) +
		   offset;

	ret = -ENODEV;
	if (wdev->access_bounce && wddmseg_engine_usable(wdev)) {
		mutex_lock(&wdev->access_lock);
		while (done < len) {
			u32 n = min_t(u32, len - done, WDDMSEG_ACCESS_BOUNCE);

			ret = wddmseg_access_engine(wdev, mgr->segment_id,
						    gpu_addr + done, buf + done,
						    n, write);
			if (ret)
				break;
			done += n;
		}
		mutex_unlock(&wdev->access_lock);
	}
	if (ret == -ENODEV) {
		/* The CPU copies at once: let queued moves finish first. */
		ret = ttm_bo_wait(tbo, true, false);
		if (!ret) {
			wddmseg_vram_io(wdev, mgr->desc->flags &
					DXGK_SEGFLAG_CPU_VISIBLE,
					gpu_addr + done, buf + done,
					len - done, write);
			done = len;
		}
	}
	drm_dev_exit(idx);
	return done ? done : ret;
}

static struct ttm_device_funcs wddmseg_ttm_funcs = {
	.ttm_tt_create = wddmseg_ttm_tt_create,
	.ttm_tt_populate = wddmseg_ttm_tt_populate,
	.ttm_tt_unpopulate = wddmseg_ttm_tt_unpopulate,
	.ttm_tt_destroy = wddmseg_ttm_tt_destroy,
	.eviction_valuable = wddmseg_eviction_valuable,
	.evict_flags = wddmseg_evict_flags,
	.move = wddmseg_bo_move,
	.delete_mem_notify = wddmseg_bo_delete_mem_notify,
	.io_mem_reserve = wddmseg_io_mem_reserve,
	.release_notify = wddmseg_bo_release_notify,
	.access_memory = wddmseg_access_memory,
};

static void wddmseg_assign_mem_types(struct wddmseg_device *wdev)
{
	u32 next_priv = TTM_PL_PRIV, i;
	bool have_tt = false, have_vram = false;

	for (i = 0; i < wdev->desc.segment_count; i++) {
		bool aperture = wddmseg_segment_is_aperture(&wdev->desc.seg[i]);

		if (aperture && !have_tt) {
			wdev->mem_type[i] = TTM_PL_TT;
			have_tt = true;
		} else if (!aperture && !have_vram) {
			wdev->mem_type[i] = TTM_PL_VRAM;
			have_vram = true;
		} else {
			wdev->mem_type[i] = next_priv++;
		}
	}
}

/**
 * wddmseg_ttm_init - set up TTM with one memory type per segment
 * @wdev: device whose segment table has been validated
 *
 * Return: 0 or a negative errno; on failure nothing is left initialized.
 */
int wddmseg_ttm_init(struct wddmseg_device *wdev)
{
	struct drm_device *drm = &wdev->drm;
	u32 id;
	int ret;

	/* At most six device segments: TTM has eight types, SYSTEM is one. */
	BUILD_BUG_ON(TTM_PL_PRIV + WDDMSEG_MAX_SEGMENTS - 2 >= TTM_NUM_MEM_TYPES);

	mutex_init(&wdev->window_lock);
	mutex_init(&wdev->apt_lock);
	wdev->window_base = 0;
	writel(0, wdev->mmio + WDDMSEG_REG_WINDOW_BASE_LO);
	writel(0, wdev->mmio + WDDMSEG_REG_WINDOW_BASE_HI);

	wddmseg_assign_mem_types(wdev);
	wddmseg_protect_init(wdev);
	mutex_init(&wdev->access_lock);
	wdev->access_fence = NULL;
	/* Without it, access_memory uses the CPU path. */
	wdev->access_bounce = dmam_alloc_coherent(drm->dev, WDDMSEG_ACCESS_BOUNCE,
						  &wdev->access_bounce_dma,
						  GFP_KERNEL);
	spin_lock_init(&wdev->kept_lock);
	INIT_LIST_HEAD(&wdev->kept_list);
	wdev->kept_pages = 0;

	ret = ttm_device_init(&wdev->bdev, &wddmseg_ttm_funcs, drm->dev,
			      drm->anon_inode->i_mapping, drm->vma_offset_manager,
			      false, false);
	if (ret) {
		drm_err(drm, "ttm_device_init failed: %d\n", ret);
		return ret;
	}

	for (id = 1; id <= wdev->desc.segment_count; id++) {
		ret = wddmseg_mgr_init(wdev, id);
		if (ret)
			goto err_fini;
	}

	wdev->kept_shrinker.count_objects = wddmseg_kept_count;
	wdev->kept_shrinker.scan_objects = wddmseg_kept_scan;
	wdev->kept_shrinker.seeks = DEFAULT_SEEKS;
	ret = register_shrinker(&wdev->kept_shrinker, "drm-wddmseg:%s",
				drm->unique);
	if (ret)
		goto err_fini;
	wdev->ttm_ready = true;
	return 0;

err_fini:
	while (--id)
		wddmseg_mgr_fini(wdev, id);
	ttm_device_fini(&wdev->bdev);
	return ret;
}

/**
 * wddmseg_ttm_fini - evict everything and tear TTM down
 * @wdev: device
 */
void wddmseg_ttm_fini(struct wddmseg_device *wdev)
{
	u32 id;

	if (!wdev->ttm_ready)
		return;
	for (id = wdev->desc.segment_count; id >= 1; id--)
		wddmseg_mgr_fini(wdev, id);
	/* Normally allocations are gone by now and took their pages along. */
	unregister_shrinker(&wdev->kept_shrinker);
	wddmseg_kept_drain(wdev);
	dma_fence_put(wdev->access_fence);
	wdev->access_fence = NULL;
	ttm_device_fini(&wdev->bdev);
	wdev->ttm_ready = false;
}
