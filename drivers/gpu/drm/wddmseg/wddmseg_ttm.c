// SPDX-License-Identifier: GPL-2.0-only
/*
 * WDDM segments as TTM memory domains: the TTM device and its callbacks.
 *
 * Each segment of the validated descriptor table becomes one TTM memory
 * type with its own resource manager (wddmseg_mgr.c): the first aperture
 * segment is TTM_PL_TT, the first memory segment TTM_PL_VRAM, further
 * segments take the driver-private types. System memory (WDDM segment id 0)
 * is TTM_PL_SYSTEM.
 *
 * The move callback resolves each move once, at its start, into a struct
 * wddmseg_move (wddmseg_move_resolve(): both ends, eviction or discard,
 * known zero, protection, engine or CPU), decides from it what the move
 * is (a Transfer, a Fill of content that never existed, an encrypted
 * Transfer of HardwareProtected content, a DiscardContent, or only
 * aperture (un)binding) and how TTM cleans up after it, and passes it
 * down: the paging operations themselves are wddmseg_migrate.c's, the
 * pages an allocation parks while in VRAM wddmseg_parked.c's. This file also
 * holds the ttm_tt callbacks (pool pages, ExistingSysMem user pages),
 * eviction flags, the wipe of released VRAM and access_memory.
 */

#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_pool.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_bo.h"
#include "wddmseg_budget.h"
#include "wddmseg_bo_residency.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_file.h"
#include "wddmseg_offer.h"
#include "wddmseg_parked.h"
#include "wddmseg_mgr.h"
#include "wddmseg_migrate.h"
#include "wddmseg_params.h"
#include "wddmseg_protect.h"
#include "wddmseg_ttm.h"
#include "wddmseg_vram.h"
#include "wddmseg_hw.h"
#include "wddmseg_trace.h"

/*
 * Make @fence the move fence of @man unless a later one is there: TTM adds
 * it to every allocation placed in @man from now on, so that nobody uses
 * a range before the paging work queued for it has run. All paging fences
 * share the engine's one context, so the latest covers all earlier ones.
 */
static void wddmseg_man_move_fence(struct ttm_resource_manager *man,
				   struct dma_fence *fence)
{
	wddmseg_man_move_set(man, fence);
}

/*
 * TTM's synchronous cleanup of a move whose source is system pages: when
 * it unpopulates the old ttm_tt, the pages are parked with @fence
 * (wddmseg_park_pages()) if @park, else freed once @fence is done.
 *
 * The ttm_tt's park flag is a flag set around a TTM call because the
 * unpopulate callback gives no other channel; only this function sets it,
 * and it is clear outside of it.
 */
static void wddmseg_move_sync_cleanup(struct wddmseg_move *mv, bool park,
				      struct dma_fence *fence)
{
	dma_resv_assert_held(mv->tbo->base.resv);
	WARN_ON_ONCE(mv->tbo->ttm && to_wddmseg_tt(mv->tbo->ttm)->park);
	wddmseg_tt_set_park(mv->tbo, park, fence);
	ttm_bo_move_sync_cleanup(mv->tbo, mv->dst.res);
	wddmseg_tt_set_park(mv->tbo, false, NULL);
}

/*
 * The end of a move out of pages (system memory or an aperture range) into
 * VRAM, pipelined like a move out of VRAM. TTM's own cleanup for it,
 * ttm_bo_move_accel_cleanup(), would wait for the copy before freeing the
 * ttm_tt. Instead the pages are parked with @fence (wddmseg_park_pages();
 * whoever frees them waits for it), an aperture range gets @fence as its
 * manager's move fence, so that its next user waits for the copy through
 * it as for VRAM, and @fence goes into the reservation after TTM's
 * synchronous cleanup, which then has nothing to wait for (the move
 * callback waited for earlier work). ExistingSysMem pages belong to the
 * user and are not parked: those moves use TTM's cleanup.
 */
static void wddmseg_bo_cleanup_from_pages(struct wddmseg_move *mv,
					  struct dma_fence *fence)
{
	if (mv->src.kind == WDDMSEG_MEM_APERTURE)
		wddmseg_man_move_fence(mv->src.man, fence);
	wddmseg_move_sync_cleanup(mv, true, fence);
	dma_resv_add_fence(mv->tbo->base.resv, fence, DMA_RESV_USAGE_KERNEL);
}

/*
 * How a move treats protected content (&wddmseg_move.crypt): 0 (a plain
 * Transfer or Fill), WDDMSEG_CRYPT_ENCRYPT (HardwareProtected content out
 * of VRAM into system pages) or WDDMSEG_CRYPT_DECRYPT (sealed content back
 * into VRAM). -EACCES when the move would put HardwareProtected content
 * into system memory in the clear, or sealed content where the device
 * cannot decrypt it.
 */
static int wddmseg_move_crypt(struct wddmseg_device *wdev,
			      struct wddmseg_move *mv)
{
	u32 from = mv->src.segment_id;
	u32 to = mv->dst.segment_id;

	mv->crypt = 0;
	if (!mv->hw_protected || mv->clear || (from && to))
		return 0;
	if (from && wddmseg_segment_seals(wdev, from)) {
		mv->crypt = WDDMSEG_CRYPT_ENCRYPT;
		return 0;
	}
	if (!from && mv->sealed && wddmseg_segment_seals(wdev, to)) {
		mv->crypt = WDDMSEG_CRYPT_DECRYPT;
		return 0;
	}
	if (!from && !mv->sealed)
		return 0;	/* never had content there (discarded) */
	drm_dbg(&wdev->drm, "move: rule hardware-protected-evict: segment %u -> %u: HardwareProtected content moves through system memory only encrypted, between segments with EncryptedPagingSupported\n",
		from, to);
	return -EACCES;
}

/*
 * The move of an allocation whose content never existed into VRAM that is
 * already zero (&wddmseg_move.skip_fill): only the placement changes. An
 * unpopulated ttm_tt stays, for the next eviction to populate.
 */
static void wddmseg_bo_skip_fill(struct wddmseg_move *mv)
{
	struct wddmseg_mgr *mgr = mv->dst.mgr;

	atomic64_inc(&mgr->fills_skipped);
	trace_wddmseg_paging_op("skipped fill", 0, mgr->segment_id,
				mv->tbo->base.size, 0);
	wddmseg_mgr_res_set_zero_content(mv->dst.res);
	mv->bo->sealed = false;
	wddmseg_bo_moved(mv->bo, &mv->src, &mv->dst, mv->evict);
	ttm_bo_move_null(mv->tbo, mv->dst.res);
}

/* A move on the copy engine; -ENODEV: the engine stopped, use the CPU. */
static int wddmseg_bo_move_engine(struct wddmseg_device *wdev,
				  struct wddmseg_move *mv,
				  struct ttm_operation_ctx *ctx)
{
	struct ttm_buffer_object *tbo = mv->tbo;
	struct wddmseg_bo *bo = mv->bo;
	bool old_tt = wddmseg_end_in_pages(&mv->src);
	bool new_tt = wddmseg_end_in_pages(&mv->dst);
	struct dma_fence *fence = NULL;
	int ret;

	if (mv->placement_only) {
		wddmseg_bo_moved(bo, &mv->src, &mv->dst, mv->evict);
		ttm_bo_move_null(tbo, mv->dst.res);
		return 0;
	}

	/*
	 * SynchronousPaging: page only when idle, finish before returning.
	 * Out of pages into VRAM: wait for earlier work here, where the
	 * context says how (wddmseg_bo_cleanup_from_pages()).
	 */
	if (mv->sync || (old_tt && !new_tt)) {
		ret = ttm_bo_wait_ctx(tbo, ctx);
		if (ret)
			return ret;
	}

	ret = wddmseg_move_crypt(wdev, mv);
	if (ret)
		return ret;
	if (mv->ttm && (!mv->clear || new_tt)) {
		ret = wddmseg_bo_populate(tbo, ctx);
		if (ret)
			return ret;
	}

	/*
	 * Content that never existed, into VRAM that is known to be zero
	 * (wiped on release, or cleared at probe): nothing to Fill. TTM put
	 * the segment's move fence, which covers a wipe still queued, into
	 * the reservation, and the engine runs later jobs after it.
	 */
	if (mv->skip_fill) {
		wddmseg_bo_skip_fill(mv);
		return 0;
	}

	mv->nonce = mv->crypt == WDDMSEG_CRYPT_ENCRYPT ?
		    wddmseg_protect_nonce(wdev) : bo->seal_nonce;
	ret = wddmseg_migrate_move(wdev, mv, &fence);
	if (ret)
		return ret;
	if (mv->measure)
		wddmseg_copy_engine_watch(wdev, mv->cost_path, tbo->base.size,
					  mv->start, fence);
	if (mv->crypt == WDDMSEG_CRYPT_ENCRYPT)
		bo->seal_nonce = mv->nonce;
	if (mv->clear && !new_tt)
		wddmseg_mgr_res_set_zero_content(mv->dst.res);
	/* Content that never existed or came back decrypted is not sealed. */
	if (!new_tt)
		bo->sealed = false;
	else if (mv->crypt == WDDMSEG_CRYPT_ENCRYPT)
		bo->sealed = true;

	wddmseg_bo_moved(bo, &mv->src, &mv->dst, mv->evict);
	if (old_tt && new_tt) {
		/* Aperture (un)binding only: short, and the pages stay. */
		dma_fence_wait(fence, false);
		ret = fence->error;
		dma_fence_put(fence);
		ttm_bo_move_null(tbo, mv->dst.res);
		return ret;
	}
	if (mv->sync)
		dma_fence_wait(fence, false);
	/*
	 * Always the eviction flavour: VRAM is freed at once, and TTM makes
	 * the next user of that range wait for this fence (the manager's
	 * move fence, one paging timeline). No ghost object keeps the old
	 * placement allocated, so usage counters are exact when the ioctl
	 * returns.
	 */
	if (mv->src.kind == WDDMSEG_MEM_NONE || (old_tt && !mv->user_pages))
		wddmseg_bo_cleanup_from_pages(mv, fence);
	else
		ret = ttm_bo_move_accel_cleanup(tbo, fence, true, !mv->sync,
						mv->dst.res);
	dma_fence_put(fence);
	return ret;
}

/* Zero every page of a populated ttm_tt through the kernel's mapping. */
static void wddmseg_tt_clear_pages(struct ttm_tt *ttm)
{
	pgoff_t i;

	for (i = 0; i < ttm->num_pages; i++)
		clear_highpage(ttm->pages[i]);
}

/*
 * A move out of a memory segment into system memory that gives the
 * segment's copy up with a DiscardContent instead of a Transfer (sysfs
 * discard_bytes):
 * - &wddmseg_move.discard, GEM_EVICT with WDDMSEG_EVICT_DISCARD: the
 *   content is dropped. The new system placement keeps an unpopulated
 *   ttm_tt (content that never existed: the next move into VRAM is a Fill
 *   of zeroes); wddmseg_bo_discard_pages() then marks it for clearing.
 * - &wddmseg_move.permanent, a PermanentSysMem allocation: its content is
 *   its permanent copy (DOC: PermanentSysMem), which becomes the pages of
 *   its new placement (wddmseg_unpark_pages()). Without a copy (content
 *   that never was in pages, zeroes) the new pages stay unpopulated,
 *   content that never existed.
 */
static int wddmseg_bo_move_drop(struct wddmseg_device *wdev,
				struct wddmseg_move *mv,
				struct ttm_operation_ctx *ctx)
{
	struct ttm_buffer_object *tbo = mv->tbo;
	struct wddmseg_bo *bo = mv->bo;
	struct wddmseg_mgr *mgr = mv->src.mgr;
	struct dma_fence *fence = NULL;
	int ret;

	/* SynchronousPaging: page only when idle, finish before returning. */
	if (mv->sync) {
		ret = ttm_bo_wait_ctx(tbo, ctx);
		if (ret)
			return ret;
	}
	if (mv->permanent && READ_ONCE(bo->parked) && mv->ttm) {
		ret = wddmseg_bo_populate(tbo, ctx);
		if (ret)
			return ret;
	}
	/*
	 * An offered allocation's system pages from an earlier stay would
	 * come back as its content: zeroed once idle, before anything else
	 * of the discard is done.
	 */
	if (mv->discard && bo->offer_priority && mv->ttm &&
	    ttm_tt_is_populated(mv->ttm)) {
		ret = ttm_bo_wait_ctx(tbo, ctx);
		if (ret)
			return ret;
		wddmseg_tt_clear_pages(mv->ttm);
	}
	if (mv->copier == WDDMSEG_COPY_ENGINE) {
		fence = wddmseg_migrate_discard(wdev, &mv->src);
		if (IS_ERR(fence) && PTR_ERR(fence) != -ENODEV)
			return PTR_ERR(fence);
		if (IS_ERR(fence)) {
			fence = NULL;
			mv->copier = WDDMSEG_COPY_CPU;
			mv->why = "engine stopped";
		}
	}
	atomic64_add(tbo->base.size, &mgr->discard_bytes);
	if (mv->discard && bo->owner)
		atomic64_add(tbo->base.size, &bo->owner->discard_bytes);
	if (mv->permanent)
		bo->perm_cpu_dirty = false;
	if (mv->discard && bo->offer_priority) {
		/* Content that never existed: zeroes, not its old pages. */
		bo->discarded = true;
		bo->sealed = false;
		wddmseg_bo_free_parked(bo);
		if (mv->ttm && !ttm_tt_is_populated(mv->ttm))
			ttm_tt_mark_for_clear(mv->ttm);
	}
	if (!fence) {
		/* No engine: the segment's copy is dropped once idle. */
		ret = ttm_bo_wait_ctx(tbo, ctx);
		if (ret)
			return ret;
		trace_wddmseg_paging_op("cpu discard", mgr->segment_id, 0,
					tbo->base.size, 0);
		wddmseg_bo_moved(bo, &mv->src, &mv->dst, mv->evict);
		ttm_bo_move_sync_cleanup(tbo, mv->dst.res);
		return 0;
	}
	/* The job ends with a Fill of zeroes: the range is free and zero. */
	wddmseg_mgr_res_wiped(mv->src.res);
	wddmseg_bo_moved(bo, &mv->src, &mv->dst, mv->evict);
	if (mv->sync)
		dma_fence_wait(fence, false);
	ret = ttm_bo_move_accel_cleanup(tbo, fence, true, !mv->sync,
					mv->dst.res);
	dma_fence_put(fence);
	return ret;
}

/* A move by the CPU: synchronous, page by page (wddmseg_migrate_cpu_copy()). */
static int wddmseg_bo_move_cpu(struct wddmseg_device *wdev,
			       struct wddmseg_move *mv,
			       struct ttm_operation_ctx *ctx)
{
	struct ttm_buffer_object *tbo = mv->tbo;
	bool old_tt = wddmseg_end_in_pages(&mv->src);
	bool new_tt = wddmseg_end_in_pages(&mv->dst);
	int ret;

	/* The CPU never reads HardwareProtected content, nor decrypts it. */
	if (mv->hw_protected && (!old_tt || mv->sealed)) {
		drm_dbg(&wdev->drm, "move: rule hardware-protected-cpu: HardwareProtected content moves only on the copy engine\n");
		return -EACCES;
	}

	/*
	 * The CPU copies synchronously: wait until nothing uses the BO,
	 * unless it was found idle when the CPU was chosen (under the
	 * reservation lock, so nothing was added since): a second walk of
	 * the reservation costs a 4 KiB move a measurable part of its time
	 * under TCG.
	 */
	if (!mv->idle) {
		ret = ttm_bo_wait_ctx(tbo, ctx);
		if (ret)
			return ret;
	}

	if (!(old_tt && new_tt)) {
		ret = wddmseg_migrate_cpu_copy(wdev, mv, ctx);
		if (ret)
			return ret;
	}

	if (mv->src.kind == WDDMSEG_MEM_APERTURE)
		wddmseg_vram_apt_update(wdev, &mv->src, NULL);
	if (mv->dst.kind == WDDMSEG_MEM_APERTURE)
		wddmseg_vram_apt_update(wdev, &mv->dst, tbo->ttm);

	wddmseg_bo_moved(mv->bo, &mv->src, &mv->dst, mv->evict);
	if (old_tt && new_tt)
		ttm_bo_move_null(tbo, mv->dst.res);
	else
		wddmseg_move_sync_cleanup(mv, old_tt, NULL);
	return 0;
}

/*
 * Whether the CPU moves the content although the engine runs. Only an
 * idle allocation whose content the CPU may see is a candidate (a busy
 * one stays on the engine, which queues the move behind the work it waits
 * for instead of blocking the caller), on a path whose knob
 * cpu_move_max_kb is not 0. Policy fixed: the CPU copies up to that many
 * KiB. Policy adaptive: moves up to WDDMSEG_COPY_ADAPTIVE_MAX take the
 * way whose measured cost is lower (DOC: Copy cost model). Sets
 * mv->measure, mv->cost_path and mv->why.
 */
static bool wddmseg_move_cpu_chosen(struct wddmseg_device *wdev,
				    struct wddmseg_move *mv)
{
	enum wddmseg_move_path path = WDDMSEG_MOVE_SYSTEM;
	enum wddmseg_copy_path cost_path = WDDMSEG_COPY_PATH_SYSTEM;
	u64 size = mv->tbo->base.size;
	enum wddmseg_copy_way way;
	bool fixed_cpu, measure;
	u64 max;

	if (mv->hw_protected || mv->sealed)
		return false;
	if (mv->src.kind == WDDMSEG_MEM_APERTURE ||
	    mv->dst.kind == WDDMSEG_MEM_APERTURE) {
		path = WDDMSEG_MOVE_APERTURE;
		cost_path = WDDMSEG_COPY_PATH_APERTURE;
	} else if (mv->src.kind == WDDMSEG_MEM_VRAM &&
		   mv->dst.kind == WDDMSEG_MEM_VRAM) {
		path = WDDMSEG_MOVE_VRAM;
		cost_path = WDDMSEG_COPY_PATH_VRAM;
	}
	max = (u64)READ_ONCE(wdev->knobs.cpu_move_max_kb[path]) << 10;
	if (!max)
		return false;
	fixed_cpu = size <= max;
	if (!fixed_cpu && size > WDDMSEG_COPY_ADAPTIVE_MAX)
		return false;
	if (!dma_resv_test_signaled(mv->tbo->base.resv,
				    DMA_RESV_USAGE_BOOKKEEP))
		return false;

	/*
	 * Nothing is copied either way (only a placement changes, or pages
	 * are bound to or unbound from an aperture): the fixed policy; an
	 * estimate would count a move that copies nothing as a copy (DOC:
	 * Copy cost model).
	 */
	if (wddmseg_end_in_pages(&mv->src) && wddmseg_end_in_pages(&mv->dst)) {
		mv->why = "small and idle";
		return fixed_cpu;
	}
	mv->cost_path = cost_path;
	way = wddmseg_copy_choose(wdev, cost_path, size, fixed_cpu, &measure);
	mv->measure = measure && !mv->clear;
	if (way != WDDMSEG_COPY_WAY_CPU)
		return false;
	mv->why = fixed_cpu ? "small and idle" : "CPU cheaper";
	return true;
}

/*
 * The caller's request for this move (&wddmseg_bo.move_request), if the
 * move is the one it validates: same allocation, same context.
 */
static const struct wddmseg_move_request *
wddmseg_move_request_of(struct wddmseg_bo *bo,
			const struct ttm_operation_ctx *ctx)
{
	const struct wddmseg_move_request *req = bo->move_request;

	if (!req)
		return NULL;
	dma_resv_assert_held(bo->tbo.base.resv);
	/* Only the validation that set it moves a reserved allocation. */
	if (WARN_ON_ONCE(req->ctx != ctx))
		return NULL;
	return req;
}

/*
 * Resolve a move once, at its start, into @mv: both ends, whether it is an
 * eviction or a discard, whether the source is known zero, protection, and
 * who copies. Everything below takes @mv.
 */
static void wddmseg_move_resolve(struct wddmseg_device *wdev,
				 struct ttm_buffer_object *tbo, bool evict,
				 struct ttm_operation_ctx *ctx,
				 struct ttm_resource *new_mem,
				 struct wddmseg_move *mv)
{
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);
	const struct wddmseg_move_request *req;
	struct ttm_tt *ttm = tbo->ttm;
	bool old_tt, new_tt;

	req = wddmseg_move_request_of(bo, ctx);

	memset(mv, 0, sizeof(*mv));
	mv->tbo = tbo;
	mv->bo = bo;
	mv->ttm = ttm;
	/*
	 * No old resource (6.3 and later: a new allocation, or one whose
	 * content was discarded) is content that never existed, as pages
	 * nobody populated are on 6.1: moving it into VRAM is a Fill of
	 * zeroes like any such move, never a bare assignment of the range,
	 * which would show whatever VRAM held before.
	 */
	wddmseg_move_end_init(wdev, tbo->resource, &mv->src);
	wddmseg_move_end_init(wdev, new_mem, &mv->dst);
	old_tt = wddmseg_end_in_pages(&mv->src);
	new_tt = wddmseg_end_in_pages(&mv->dst);

	mv->evict = evict || (req && req->evict);
	/*
	 * An offered allocation is discarded when evicted (DOC: Offer and
	 * reclaim): its system pages, if it kept any from an earlier stay,
	 * are cleared (wddmseg_bo_move_drop()).
	 */
	mv->discard = ((req && req->discard) ||
		       (mv->evict && bo->offer_priority)) &&
		      !old_tt && mv->dst.kind == WDDMSEG_MEM_SYSTEM;
	mv->permanent = !mv->discard && wddmseg_bo_permanent(bo) && !old_tt &&
			mv->dst.kind == WDDMSEG_MEM_SYSTEM;
	mv->placement_only = old_tt && new_tt &&
			     mv->src.kind != WDDMSEG_MEM_APERTURE &&
			     mv->dst.kind != WDDMSEG_MEM_APERTURE;
	mv->clear = mv->src.kind == WDDMSEG_MEM_NONE ||
		    (old_tt && (!ttm || !ttm_tt_is_populated(ttm)));
	mv->skip_fill = mv->clear && !new_tt &&
			wddmseg_mgr_res_zeroed(new_mem);
	mv->user_pages = ttm && to_wddmseg_tt(ttm)->user_pages;
	mv->sync = bo->flags & WDDMSEG_ALLOC_SYNCHRONOUS_PAGING;
	mv->hw_protected = wddmseg_bo_hw_protected(bo);
	mv->sealed = bo->sealed;

	if (!wddmseg_migrate_uses_engine(wdev)) {
		mv->copier = WDDMSEG_COPY_CPU;
		mv->why = "no engine";
	} else if (!mv->discard && !mv->permanent &&
		   wddmseg_move_cpu_chosen(wdev, mv)) {
		mv->copier = WDDMSEG_COPY_CPU;
		mv->idle = true;
	} else {
		mv->copier = WDDMSEG_COPY_ENGINE;
		mv->why = "engine";
	}
}

static int wddmseg_bo_move_one(struct ttm_buffer_object *tbo, bool evict,
			       struct ttm_operation_ctx *ctx,
			       struct ttm_resource *new_mem,
			       struct ttm_place *hop)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct wddmseg_move mv;
	int ret;

	/* A ghost of a pipelined move holds stale content: nothing to keep. */
	if (!wddmseg_is_bo(tbo)) {
		ttm_bo_move_null(tbo, new_mem);
		return 0;
	}

	wddmseg_move_resolve(wdev, tbo, evict, ctx, new_mem, &mv);

	/*
	 * GEM_EVICT with DISCARD, an offered allocation evicted: VRAM content
	 * is dropped, not copied.
	 */
	if (mv.discard)
		return wddmseg_bo_move_drop(wdev, &mv, ctx);

	/*
	 * PermanentSysMem out of a memory segment: a discard into system
	 * memory; an aperture binds the permanent copy after that hop.
	 */
	if (wddmseg_bo_permanent(mv.bo) &&
	    mv.src.kind == WDDMSEG_MEM_VRAM &&
	    mv.dst.kind == WDDMSEG_MEM_APERTURE) {
		memset(hop, 0, sizeof(*hop));
		hop->mem_type = TTM_PL_SYSTEM;
		return -EMULTIHOP;
	}
	if (mv.permanent)
		return wddmseg_bo_move_drop(wdev, &mv, ctx);
	/* Into a segment from its copy: the two agree (PTEs are gone). */
	if (wddmseg_bo_permanent(mv.bo) && wddmseg_end_in_pages(&mv.src) &&
	    mv.dst.kind == WDDMSEG_MEM_VRAM)
		mv.bo->perm_cpu_dirty = false;

	mv.start = ktime_get();
	if (mv.copier == WDDMSEG_COPY_ENGINE) {
		ret = wddmseg_bo_move_engine(wdev, &mv, ctx);
		if (ret != -ENODEV)
			return ret;
		mv.copier = WDDMSEG_COPY_CPU;
		mv.why = "engine stopped";
		mv.measure = false;
	}
	ret = wddmseg_bo_move_cpu(wdev, &mv, ctx);
	if (!ret && mv.measure)
		wddmseg_copy_cpu_done(wdev, mv.cost_path, mv.tbo->base.size,
				      mv.start);
	return ret;
}

/*
 * TTM's move callback: the move is resolved here, once, into a struct
 * wddmseg_move that the engine, the CPU copy and the accounting take;
 * residency notifications follow the move's fence.
 */
static int wddmseg_bo_move(struct ttm_buffer_object *tbo, bool evict,
			   struct ttm_operation_ctx *ctx,
			   struct ttm_resource *new_mem, struct ttm_place *hop)
{
	bool from_segment = evict && tbo->resource &&
			    tbo->resource->mem_type != TTM_PL_SYSTEM;
	int ret = wddmseg_bo_move_one(tbo, evict, ctx, new_mem, hop);

	if (wddmseg_is_bo(tbo))
		wddmseg_bo_residency_commit(to_wddmseg_bo(tbo));
	/* TTM made room: who is over budget (DOC: Trim notifications) */
	if (!ret && from_segment)
		wddmseg_budget_evicted(bdev_to_wddmseg(tbo->bdev));
	else if (!ret && tbo->resource && tbo->resource->mem_type != TTM_PL_SYSTEM)
		wddmseg_budget_placed(bdev_to_wddmseg(tbo->bdev));
	return ret;
}

static void wddmseg_bo_delete_mem_notify(struct ttm_buffer_object *tbo)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct wddmseg_move_end old;

	if (!tbo->resource)
		return;
	wddmseg_move_end_init(wdev, tbo->resource, &old);
	if (old.kind == WDDMSEG_MEM_APERTURE)
		wddmseg_vram_apt_update(wdev, &old, NULL);
	if (wddmseg_is_bo(tbo))
		wddmseg_bo_moved(to_wddmseg_bo(tbo), &old, NULL, false);
}

/**
 * wddmseg_bo_caching - caching of an allocation's system pages
 * @bo: allocation
 *
 * Cached pages with Cached; user memory is normal cached memory: never
 * remap it otherwise; an imported dma-buf's pages are the exporter's to
 * set up. Write-combined otherwise.
 *
 * Return: the caching.
 */
enum ttm_caching wddmseg_bo_caching(const struct wddmseg_bo *bo)
{
	if ((bo->flags & (WDDMSEG_ALLOC_CACHED | WDDMSEG_ALLOC_EXISTING_SYSMEM)) ||
	    bo->tbo.type == ttm_bo_type_sg)
		return ttm_cached;
	return ttm_write_combined;
}

static struct ttm_tt *wddmseg_ttm_tt_create(struct ttm_buffer_object *tbo,
					    u32 page_flags)
{
	struct wddmseg_bo *bo = to_wddmseg_bo(tbo);
	enum ttm_caching caching = wddmseg_bo_caching(bo);
	struct wddmseg_tt *wtt;

	wtt = kzalloc_obj(*wtt, GFP_KERNEL);
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

	/* Imported: the exporter's pages, DMA addresses only (no pages). */
	if (wtt->bo->tbo.sg)
		return drm_prime_sg_to_dma_addr_array(wtt->bo->tbo.sg,
						      tt->dma_address,
						      tt->num_pages);
	if (!wtt->user_pages) {
		if (wddmseg_unpark_pages(bdev_to_wddmseg(bdev), wtt))
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

	if (wtt->bo->tbo.sg) {
		/* the exporter's: unmapped with the attachment */
	} else if (wtt->user_pages) {
		wddmseg_userptr_unmap(bdev, tt, tt->num_pages);
	} else if (!wtt->park ||
		   !wddmseg_park_pages(bdev_to_wddmseg(bdev), wtt)) {
		/* No room to keep them: the copy must be done with them. */
		if (wtt->park_fence)
			dma_fence_wait(wtt->park_fence, false);
		ttm_pool_free(&bdev->pool, tt);
	}
}

static void wddmseg_evict_flags(struct ttm_buffer_object *tbo,
				struct ttm_placement *placement)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct wddmseg_bo *bo;

	/* No placement: TTM drops a ghost's stale content. */
	if (!wddmseg_is_bo(tbo))
		return;
	bo = to_wddmseg_bo(tbo);
	/* Offered: to system memory, where its eviction is a discard. */
	if (bo->offer_priority) {
		wddmseg_place(bo, &bo->evict_places[0], WDDMSEG_SEGMENT_SYSTEM,
			      0);
		wddmseg_placement_init(placement, bo->evict_places, 1, 0);
		return;
	}
	wddmseg_bo_evict_placement(bo, wddmseg_res_segment(wdev, tbo->resource),
				   placement);
}

/*
 * Evicting some allocations would break their protection. A released one
 * waiting for its delayed destroy has no content left: TTM frees it; an
 * offered one is discarded, which reads nothing.
 */
static bool wddmseg_eviction_valuable(struct ttm_buffer_object *tbo,
				      const struct ttm_place *place)
{
	if (wddmseg_is_bo(tbo) && !tbo->deleted &&
	    !to_wddmseg_bo(tbo)->offer_priority &&
	    !wddmseg_protect_evictable(to_wddmseg_bo(tbo)))
		return false;
	/* a reservation's bytes stay with its process (DOC: Reservations) */
	if (wddmseg_is_bo(tbo) && !tbo->deleted &&
	    wddmseg_budget_keeps(to_wddmseg_bo(tbo)))
		return false;
	return ttm_bo_eviction_valuable(tbo, place);
}

static int wddmseg_io_mem_reserve(struct ttm_device *bdev,
				  struct ttm_resource *res)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(bdev);
	struct wddmseg_mgr *mgr = wddmseg_mgr_res(wdev, res);

	if (!mgr || mgr->manager.use_tt)
		return 0;	/* system pages, mapped through the ttm_tt */

	if (!(mgr->desc->flags & DXGK_SEGFLAG_CPU_VISIBLE))
		return -EINVAL;	/* not reachable by the CPU */

	/*
	 * The first page's: TTM maps the whole resource from there only for
	 * kernel mappings, which ask for contiguous VRAM (wddmseg_gem_vmap());
	 * faults go page by page through wddmseg_io_mem_pfn().
	 */
	res->bus.offset = mgr->desc->cpu_translated_address +
			  ((u64)res->start << PAGE_SHIFT);
	res->bus.is_iomem = true;
	res->bus.caching = ttm_write_combined;
	return 0;
}

/* The bus page of page @page_offset of a VRAM resource, for CPU faults. */
static unsigned long wddmseg_io_mem_pfn(struct ttm_buffer_object *tbo,
					unsigned long page_offset)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct ttm_resource *res = tbo->resource;
	struct wddmseg_mgr *mgr = wddmseg_mgr_res(wdev, res);
	u64 run, page = wddmseg_mgr_res_run(res, page_offset, &run);

	return PHYS_PFN(mgr->desc->cpu_translated_address) + page;
}

/*
 * Whether every unsignaled fence of @tbo's (locked) reservation is a
 * paging fence: then a job queued on the engine now runs after all of
 * them.
 */
static bool wddmseg_bo_engine_ordered(struct wddmseg_device *wdev,
				      struct ttm_buffer_object *tbo)
{
	struct dma_resv_iter cursor;
	struct dma_fence *f;

	dma_resv_for_each_fence(&cursor, tbo->base.resv,
				DMA_RESV_USAGE_BOOKKEEP, f)
		if (f->context != wdev->engine.fence_context &&
		    !dma_fence_is_signaled(f))
			return false;
	return true;
}

/*
 * Release of an allocation in VRAM without waiting for the engine: queue
 * a Fill of zeroes over its range (behind whatever the engine still does
 * with it: jobs run in order), make the Fill's fence the segment's move
 * fence and free the range at once. The next allocation placed there
 * gets that fence in its reservation from TTM, and its own jobs run after
 * the wipe; the range counts as known zero (no Fill on its next use).
 * The memory is free, and counted as free, when the last reference goes;
 * TTM's delayed destroy only waits, in its worker, for fences that other
 * paging work (a pipelined eviction's pages) left on the object.
 *
 * Return: false when it cannot be done so (no engine, not VRAM, pinned,
 * the reservation busy, or a fence from outside the engine): the caller
 * wipes and waits as before.
 */
static bool wddmseg_bo_release_vram(struct ttm_buffer_object *tbo)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct ttm_resource *res = tbo->resource;
	struct dma_fence *fence;
	struct wddmseg_mgr *mgr;

	if (!res || tbo->pin_count || !wddmseg_migrate_uses_engine(wdev))
		return false;
	mgr = wddmseg_mgr_res(wdev, res);
	if (!mgr || mgr->manager.use_tt || !dma_resv_trylock(tbo->base.resv))
		return false;
	if (!wddmseg_bo_engine_ordered(wdev, tbo))
		goto fallback;
	/*
	 * Zeroes only, nothing wrote to it in place, and idle (the Fill
	 * or the wipe that zeroed it has run): the range is zero already.
	 */
	if (wddmseg_mgr_res_zero_content(res) &&
	    !to_wddmseg_bo(tbo)->maybe_written_in_place &&
	    dma_resv_test_signaled(tbo->base.resv, DMA_RESV_USAGE_BOOKKEEP)) {
		atomic64_inc(&mgr->wipes_skipped);
		goto free;
	}
	fence = wddmseg_migrate_clear(wdev, mgr, res, "wipe");
	if (IS_ERR(fence))
		goto fallback;
	wddmseg_man_move_fence(&mgr->manager, fence);
	dma_fence_put(fence);
free:
	wddmseg_mgr_res_wiped(res);
	wddmseg_bo_delete_mem_notify(tbo);
	ttm_resource_free(tbo, &tbo->resource);
	dma_resv_unlock(tbo->base.resv);
	return true;

fallback:
	dma_resv_unlock(tbo->base.resv);
	return false;
}

/* Queue a Fill of zeroes over the VRAM of an allocation being released. */
static void wddmseg_bo_wipe(struct ttm_buffer_object *tbo)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(tbo->bdev);
	struct ttm_resource *res = tbo->resource;
	struct dma_fence *fence;
	struct wddmseg_mgr *mgr;

	if (!res || !wddmseg_migrate_uses_engine(wdev))
		return;
	mgr = wddmseg_mgr_res(wdev, res);
	if (!mgr || mgr->manager.use_tt || !dma_resv_trylock(tbo->base.resv))
		return;
	if (!dma_resv_reserve_fences(tbo->base.resv, 1)) {
		fence = wddmseg_migrate_clear(wdev, mgr, res, "wipe");
		/* TTM frees the VRAM only once the wipe is done. */
		if (!IS_ERR(fence)) {
			dma_resv_add_fence(tbo->base.resv, fence,
					   DMA_RESV_USAGE_KERNEL);
			dma_fence_put(fence);
		}
	}
	dma_resv_unlock(tbo->base.resv);
}

/*
 * Wipe VRAM an allocation leaves behind. Normally the range is freed at
 * once with the wipe still queued (wddmseg_bo_release_vram()); otherwise
 * the wipe goes into the reservation and this waits until the allocation
 * is idle, so that its memory is free (and counted as free) when the last
 * reference goes, not later from TTM's delayed delete.
 */
static void wddmseg_bo_release_notify(struct ttm_buffer_object *tbo)
{
	if (!wddmseg_is_bo(tbo))
		return;
	if (wddmseg_bo_release_vram(tbo))
		return;
	wddmseg_bo_wipe(tbo);
	dma_resv_wait_timeout(tbo->base.resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      msecs_to_jiffies(30000));
}

/* Copy @len bytes at @offset of an array of system pages to or from @buf. */
static int wddmseg_access_pages(struct page **pages, unsigned long offset,
				void *buf, int len, bool write)
{
	int done = 0;

	while (done < len) {
		unsigned long at = offset + done;
		u32 in = offset_in_page(at);
		u32 n = min_t(u32, len - done, PAGE_SIZE - in);
		void *vaddr = kmap_local_page(pages[at >> PAGE_SHIFT]);

		if (write)
			memcpy(vaddr + in, buf + done, n);
		else
			memcpy(buf + done, vaddr + in, n);
		kunmap_local(vaddr);
		done += n;
	}
	return done;
}

/* access_memory of system pages mapped by an aperture segment. */
static int wddmseg_access_tt(struct ttm_buffer_object *tbo,
			     unsigned long offset, void *buf, int len,
			     bool write)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	int ret;

	ret = ttm_bo_wait_ctx(tbo, &ctx);
	if (ret)
		return ret;
	if (!tbo->ttm || !ttm_tt_is_populated(tbo->ttm))
		return -EIO;
	return wddmseg_access_pages(tbo->ttm->pages, offset, buf, len, write);
}

/*
 * access_memory of a PermanentSysMem allocation in a memory segment: its
 * permanent copy, as for the CPU's mappings (a write makes the copy newer
 * than the segment's).
 */
static int wddmseg_access_perm(struct wddmseg_bo *bo, unsigned long offset,
			       void *buf, int len, bool write)
{
	struct ttm_operation_ctx ctx = { .interruptible = true };
	struct wddmseg_perm_copy copy;
	int ret;

	ret = ttm_bo_wait_ctx(&bo->tbo, &ctx);
	if (!ret)
		ret = wddmseg_perm_get(bo, &ctx, &copy);
	if (ret)
		return ret;
	if (write)
		bo->perm_cpu_dirty = true;
	return wddmseg_access_pages(copy.pages, offset, buf, len, write);
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
	struct wddmseg_mgr *mgr = res ? wddmseg_mgr_res(wdev, res) : NULL;
	u64 size, gpu_addr;
	int ret, idx, done;

	if (!mgr || len <= 0)
		return -EIO;
	size = tbo->base.size;
	if (offset >= size)
		return -EIO;
	/* 6.1's TTM checks the end only to the page; stop at the allocation's. */
	len = min_t(u64, len, size - offset);

	if (mgr->manager.use_tt)
		return wddmseg_access_tt(tbo, offset, buf, len, write);
	if (wddmseg_is_bo(tbo) && wddmseg_bo_permanent(to_wddmseg_bo(tbo)))
		return wddmseg_access_perm(to_wddmseg_bo(tbo), offset, buf, len,
					   write);

	dma_resv_assert_held(tbo->base.resv);
	if (write && wddmseg_is_bo(tbo))
		WRITE_ONCE(to_wddmseg_bo(tbo)->maybe_written_in_place, true);
	if (!drm_dev_enter(&wdev->drm, &idx))
		return -ENODEV;
	/* Range by range: VRAM made of blocks is contiguous within each. */
	done = 0;
	ret = 0;
	while (done < len) {
		u64 at = offset + done, run;
		int n;

		gpu_addr = mgr->desc->base_address +
			   (wddmseg_mgr_res_run(res, at >> PAGE_SHIFT, &run) <<
			    PAGE_SHIFT) + offset_in_page(at);
		n = min_t(u64, len - done,
			  (run << PAGE_SHIFT) - offset_in_page(at));
		ret = wddmseg_migrate_access(wdev, tbo, mgr, gpu_addr,
					     buf + done, n, write);
		if (ret > 0)
			done += ret;
		if (ret != n)
			break;
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
	.io_mem_pfn = wddmseg_io_mem_pfn,
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

/*
 * VRAM holds whatever an earlier driver instance (or firmware) left in
 * it: queue one Fill of zeroes per memory segment, make it the segment's
 * move fence and mark the whole segment known zero, so that the first
 * allocations there need no Fill of their own. Without an engine nothing
 * is known and every placement is filled.
 */
static void wddmseg_ttm_clear_vram(struct wddmseg_device *wdev)
{
	struct dma_fence *fence;
	struct wddmseg_mgr *mgr;
	u32 i;

	if (!wddmseg_migrate_uses_engine(wdev))
		return;
	for (i = 0; i < wdev->desc.segment_count; i++) {
		mgr = wdev->mgr[i];
		if (!mgr || mgr->manager.use_tt)
			continue;
		fence = wddmseg_migrate_clear_segment(wdev, mgr);
		if (IS_ERR(fence))
			continue;
		wddmseg_man_move_fence(&mgr->manager, fence);
		dma_fence_put(fence);
		wddmseg_mgr_set_zeroed(mgr, true);
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
	mutex_init(&wdev->offer_lock);
	wddmseg_budget_init(wdev);
	INIT_LIST_HEAD(&wdev->offered);
	wdev->access_fence = NULL;
	/* Without it, access_memory uses the CPU path. */
	wdev->access_bounce = dmam_alloc_coherent(drm->dev, WDDMSEG_ACCESS_BOUNCE,
						  &wdev->access_bounce_dma,
						  GFP_KERNEL);

	ret = wddmseg_ttm_device_init(&wdev->bdev, &wddmseg_ttm_funcs, drm->dev,
				      drm->anon_inode->i_mapping,
				      drm->vma_offset_manager);
	if (ret) {
		drm_err(drm, "ttm_device_init failed: %d\n", ret);
		return ret;
	}

	for (id = 1; id <= wdev->desc.segment_count; id++) {
		ret = wddmseg_mgr_init(wdev, id);
		if (ret)
			goto err_fini;
	}

	ret = wddmseg_parked_init(wdev);
	if (ret)
		goto err_fini;
	ret = wddmseg_offer_init(wdev);
	if (ret) {
		wddmseg_parked_fini(wdev);
		goto err_fini;
	}
	wddmseg_ttm_clear_vram(wdev);
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
	wddmseg_budget_fini(wdev);
	wddmseg_offer_fini(wdev);
	for (id = wdev->desc.segment_count; id >= 1; id--)
		wddmseg_mgr_fini(wdev, id);
	/* Normally allocations are gone by now and took their pages along. */
	wddmseg_parked_fini(wdev);
	dma_fence_put(wdev->access_fence);
	wdev->access_fence = NULL;
	ttm_device_fini(&wdev->bdev);
	wdev->ttm_ready = false;
}
