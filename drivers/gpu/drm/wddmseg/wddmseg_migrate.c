// SPDX-License-Identifier: GPL-2.0-only
/*
 * Migration: the one way into the copy engine (like xe_migrate.c).
 *
 * Every paging operation the driver issues goes through here: the
 * Transfer/Fill/Map/Unmap jobs of a TTM move, DiscardContent, the wipe of
 * released VRAM, ReadPhysical/WritePhysical for access_memory and the
 * blits of SUBMIT_BLIT. Nothing else takes the engine's lock. Without an
 * engine (debugfs knob use_engine=0, or the engine did not start) moves and accesses
 * fall back to the CPU (wddmseg_migrate_cpu_copy(), wddmseg_vram.c).
 */

#include <linux/dma-fence.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_cache.h>
#include <drm/drm_gem.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_bo.h"
#include "wddmseg_device_types.h"
#include "wddmseg_engine.h"
#include "wddmseg_mgr.h"
#include "wddmseg_migrate.h"
#include "wddmseg_paging.h"
#include "wddmseg_params.h"
#include "wddmseg_vram.h"
#include "wddmseg_hw.h"
#include "wddmseg_trace.h"

/* Bytes per blit job, so that each job's page lists fit the arena. */
#define WDDMSEG_BLIT_CHUNK	SZ_8M

/* Pages per engine job: each job's page lists must fit the arena. */
#define WDDMSEG_MOVE_CHUNK_PAGES	(SZ_8M >> PAGE_SHIFT)

/**
 * wddmseg_migrate_uses_engine - whether moves go through the copy engine now
 * @wdev: device
 *
 * Return: false with the knob use_engine off or while the engine does not run.
 */
bool wddmseg_migrate_uses_engine(struct wddmseg_device *wdev)
{
	return READ_ONCE(wdev->knobs.use_engine) && READ_ONCE(wdev->engine.ready);
}

/*
 * Commit @job, one of a sequence, and make its fence @last (the one before
 * is dropped: the engine runs jobs in order).
 */
static int wddmseg_commit_next(struct wddmseg_engine *eng,
			       struct wddmseg_job *job, struct dma_fence **last)
{
	struct dma_fence *f = wddmseg_engine_commit(eng, job);

	if (IS_ERR(f))
		return PTR_ERR(f);
	dma_fence_put(*last);
	*last = f;
	return 0;
}

/* A sequence of jobs failed with @ret: what is queued of it finishes first. */
static struct dma_fence *wddmseg_jobs_failed(struct dma_fence *last, int ret)
{
	if (last) {
		dma_fence_wait(last, false);
		dma_fence_put(last);
	}
	return ERR_PTR(ret);
}

/* A page list (WDDM's MDL) over @dma_address: system memory for the engine. */
static void wddmseg_pages_loc(const dma_addr_t *dma_address, u64 off, u64 len,
			      struct wddmseg_job *job, u32 *arena_off,
			      struct wddmseg_loc *loc)
{
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	pgoff_t i, first = off >> PAGE_SHIFT;
	pgoff_t n = DIV_ROUND_UP(offset_in_page(off) + len, PAGE_SIZE);
	__le64 *list = (__le64 *)(job->arena + *arena_off);
	u32 j, k = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < sub; j++)
			list[k++] = cpu_to_le64(dma_address[first + i] +
						j * WDDMSEG_HW_PAGE_SIZE);
	loc->segment_id = WDDMSEG_SEGMENT_SYSTEM;
	loc->vram_list = false;
	loc->addr = job->arena_dma + *arena_off;
	loc->offset = offset_in_page(off);
	*arena_off += k * sizeof(*list);
}

/**
 * wddmseg_move_end_init - resolve a resource into one end of a move
 * @wdev: device
 * @res: resource, or NULL (no resource: content that never existed)
 * @end: filled in
 *
 * The one place a move (or another paging operation) looks at which
 * manager, segment and kind of memory a resource is; everything below
 * the move callback takes the result.
 */
void wddmseg_move_end_init(struct wddmseg_device *wdev,
			   struct ttm_resource *res,
			   struct wddmseg_move_end *end)
{
	struct wddmseg_mgr *mgr = wddmseg_mgr_res(wdev, res);

	end->res = res;
	end->man = ttm_manager_type(&wdev->bdev, wddmseg_res_mem_type(res));
	end->mgr = mgr;
	end->segment_id = mgr ? mgr->segment_id : WDDMSEG_SEGMENT_SYSTEM;
	end->contiguous = false;
	if (!res)
		end->kind = WDDMSEG_MEM_NONE;
	else if (!mgr)
		end->kind = WDDMSEG_MEM_SYSTEM;
	else if (mgr->manager.use_tt)
		end->kind = WDDMSEG_MEM_APERTURE;
	else
		end->kind = WDDMSEG_MEM_VRAM;
	if (end->kind == WDDMSEG_MEM_VRAM)
		end->contiguous = wddmseg_mgr_res_contiguous(res);
}

/*
 * wddmseg_end_loc - where bytes of one end are, for a paging command
 * @end: the end
 * @dma_address: DMA addresses of the pages behind @end if it is not VRAM
 * @off: byte offset in @end
 * @len: bytes
 * @job: engine job whose arena receives a page list
 * @arena_off: in/out: where in the job's arena the list goes
 * @loc: filled in
 *
 * Contiguous VRAM is a segment offset; VRAM made of blocks is a list of
 * its 4 KiB pages' segment offsets written to the arena, and system pages
 * (system memory or an aperture placement) a page list (WDDM's MDL), each
 * with the byte offset into its first page (wddmseg_end_needs_list() says
 * which need a list).
 */
static void wddmseg_end_loc(const struct wddmseg_move_end *end,
			    const dma_addr_t *dma_address, u64 off, u64 len,
			    struct wddmseg_job *job, u32 *arena_off,
			    struct wddmseg_loc *loc)
{
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	pgoff_t i, first = off >> PAGE_SHIFT;
	pgoff_t n = DIV_ROUND_UP(offset_in_page(off) + len, PAGE_SIZE);
	__le64 *list;
	u32 j, k = 0;

	if (end->kind != WDDMSEG_MEM_VRAM) {
		wddmseg_pages_loc(dma_address, off, len, job, arena_off, loc);
		return;
	}
	loc->segment_id = end->segment_id;
	if (end->contiguous) {
		loc->vram_list = false;
		loc->addr = ((u64)end->res->start << PAGE_SHIFT) + off;
		loc->offset = 0;
		return;
	}
	list = (__le64 *)(job->arena + *arena_off);
	for (i = 0; i < n; i++) {
		u64 run, pg = wddmseg_mgr_res_run(end->res, first + i, &run);

		for (j = 0; j < sub; j++)
			list[k++] = cpu_to_le64((pg << PAGE_SHIFT) +
						j * WDDMSEG_HW_PAGE_SIZE);
	}
	loc->vram_list = true;
	loc->addr = job->arena_dma + *arena_off;
	loc->offset = offset_in_page(off);
	*arena_off += k * sizeof(*list);
}

/* Whether wddmseg_end_loc() writes a list for @end: not for contiguous VRAM. */
static bool wddmseg_end_needs_list(const struct wddmseg_move_end *end)
{
	return end->kind != WDDMSEG_MEM_VRAM || !end->contiguous;
}

/**
 * DOC: Cache coherency
 *
 * The CPU maps an allocation's system pages write-back (Cached,
 * ExistingSysMem, imported pages) or write-combined (the default). An
 * aperture segment with CacheCoherent snoops the CPU's caches; one
 * without does not, and since device 1.7 the device models that
 * (tools/qemu/docs-wddmseg.rst, "Non-coherent apertures"). So every
 * MapApertureSegment carries the pages' cache type: write-back pages get
 * DXGK_MAPAPERTUREFLAGS.CacheCoherent in a CacheCoherent segment and
 * WDDMSEG_MAP_CPU_CACHED in any other; write-combined pages neither (what
 * the CPU wrote is in memory once the write barrier before the doorbell
 * has drained the write-combining buffers).
 *
 * Moves reach system pages through page lists, which the device snoops;
 * blits reach an allocation in an aperture through the aperture, as the
 * GPU sees it. Before such a blit, write-back pages in a segment without
 * CacheCoherent are flushed: drm_clflush_pages() writes the CPU's lines
 * back (and drops them, so that none is written back over the engine's
 * writes later) and FLUSH_APERTURE makes the device read the range again.
 * That is WDDM's rule for Cached allocations in a segment that is not
 * cache coherent: the memory manager flushes the processor cache at the
 * right time.
 */

/**
 * wddmseg_noncoherent_modelled - the device does not snoop CPU-cached
 *	pages in apertures without CacheCoherent (device 1.7)
 * @wdev: device
 *
 * Return: true when the driver must tell it the pages' cache type and
 * flush them (DOC: Cache coherency).
 */
static bool wddmseg_noncoherent_modelled(struct wddmseg_device *wdev)
{
	return WDDMSEG_VERSION_MINOR(wdev->desc.hw_version) >=
	       WDDMSEG_VERSION_MINOR_NONCOHERENT;
}

/*
 * DXGK_MAPAPERTUREFLAGS of pages of @ttm mapped into aperture @mgr, and
 * their cache type (DOC: Cache coherency): CPU-cached pages need
 * coherency (CacheCoherent), which a segment without the flag cannot give;
 * there the device (1.7) is told they are cached, and the driver flushes
 * them before the engine reads them through the aperture.
 */
static u64 wddmseg_map_flags(struct wddmseg_device *wdev,
			     struct wddmseg_mgr *mgr, struct ttm_tt *ttm)
{
	if (!ttm || ttm->caching != ttm_cached)
		return 0;
	if (mgr->desc->flags & DXGK_SEGFLAG_CACHE_COHERENT)
		return WDDMSEG_MAP_CACHE_COHERENT;
	return wddmseg_noncoherent_modelled(wdev) ? WDDMSEG_MAP_CPU_CACHED : 0;
}

/*
 * Where a blit reaches @len bytes at @off of @tbo: an allocation in an
 * aperture at its GPU address there (the GPU's view of it, through the
 * aperture's page table), else as a move does (wddmseg_end_loc()).
 */
static void wddmseg_blit_loc(struct wddmseg_device *wdev,
			     struct ttm_buffer_object *tbo, u64 off, u64 len,
			     struct wddmseg_job *job, u32 *arena_off,
			     struct wddmseg_loc *loc)
{
	struct wddmseg_move_end end;

	wddmseg_move_end_init(wdev, tbo->resource, &end);
	if (end.kind == WDDMSEG_MEM_APERTURE) {
		loc->segment_id = end.segment_id;
		loc->addr = ((u64)end.res->start << PAGE_SHIFT) + off;
		loc->offset = 0;
		return;
	}
	wddmseg_end_loc(&end, tbo->ttm ? tbo->ttm->dma_address : NULL, off,
			len, job, arena_off, loc);
}

/**
 * wddmseg_migrate_move - the paging buffer of one TTM move, on the engine
 * @wdev: device
 * @mv: the move, resolved by the move callback: its ends, whether the
 *	source is known zero (@mv->clear: a Fill instead of a Transfer) and
 *	its encryption (@mv->crypt, @mv->nonce)
 * @fence: the last job's fence
 *
 * Jobs of at most 8 MiB: Transfer (or Fill), MapApertureSegment for a new
 * aperture placement, UnmapApertureSegment for an old one; an encrypted
 * Transfer carries each job's offset in the allocation. The engine runs
 * jobs in order. On failure after some jobs were queued, waits for them.
 *
 * Return: 0, -ENODEV without an engine (use wddmseg_migrate_cpu_copy()),
 * or a negative errno.
 */
int wddmseg_migrate_move(struct wddmseg_device *wdev,
			 const struct wddmseg_move *mv,
			 struct dma_fence **fence)
{
	struct wddmseg_engine *eng = &wdev->engine;
	const struct wddmseg_move_end *src = &mv->src, *dst = &mv->dst;
	const dma_addr_t *dma_address = mv->ttm ? mv->ttm->dma_address : NULL;
	bool old_tt = wddmseg_end_in_pages(src);
	bool new_tt = wddmseg_end_in_pages(dst);
	bool old_apt = src->kind == WDDMSEG_MEM_APERTURE;
	bool new_apt = dst->kind == WDDMSEG_MEM_APERTURE;
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	pgoff_t first, n, pages = PFN_UP(mv->tbo->base.size);
	struct dma_fence *last = NULL;
	bool clear = mv->clear;
	u32 crypt = mv->crypt;
	int ret = 0;

	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return -ENODEV;
	}

	for (first = 0; first < pages; first += n) {
		u64 cmd[WDDMSEG_TRANSFER_ENCRYPTED_QWORDS +
			2 * WDDMSEG_APERTURE_QWORDS];
		u64 off = (u64)first << PAGE_SHIFT, len;
		struct wddmseg_loc src_loc, dst_loc;
		struct wddmseg_job job;
		u32 q = 0, arena = 0, lists, dst_list = 0;

		n = min_t(pgoff_t, WDDMSEG_MOVE_CHUNK_PAGES, pages - first);
		len = (u64)n << PAGE_SHIFT;
		lists = (!clear && !(old_tt && new_tt) &&
			 wddmseg_end_needs_list(src)) +
			wddmseg_end_needs_list(dst);
		ret = wddmseg_engine_reserve(eng, ARRAY_SIZE(cmd),
					     lists * n * sub * 8, &job);
		if (ret)
			break;

		if (!(old_tt && new_tt)) {
			if (!clear)
				wddmseg_end_loc(src, dma_address, off, len,
						&job, &arena, &src_loc);
			dst_list = arena;
			wddmseg_end_loc(dst, dma_address, off, len, &job,
					&arena, &dst_loc);
			if (clear)
				q += wddmseg_encode_fill(cmd + q, len, 0,
							 &dst_loc);
			else if (crypt)
				q += wddmseg_encode_transfer_encrypted(cmd + q,
								       len, &src_loc,
								       &dst_loc, crypt,
								       mv->nonce, off);
			else
				q += wddmseg_encode_transfer(cmd + q, len,
							     &src_loc, &dst_loc);
		} else if (new_apt) {
			wddmseg_end_loc(dst, dma_address, off, len, &job,
					&arena, &dst_loc);
		}
		if (!clear && !old_tt)
			atomic64_add(len, &src->mgr->transfer_out_bytes);
		if (!clear && !new_tt)
			atomic64_add(len, &dst->mgr->transfer_in_bytes);
		trace_wddmseg_paging_op(old_tt && new_tt ? "aperture" :
					clear ? "fill" :
					crypt == WDDMSEG_CRYPT_ENCRYPT ? "transfer-encrypt" :
					crypt ? "transfer-decrypt" : "transfer",
					src->segment_id, dst->segment_id, len,
					eng->seqno + 1);
		if (new_apt)
			q += wddmseg_encode_map_aperture(cmd + q,
							 dst->segment_id,
							 wddmseg_map_flags(wdev, dst->mgr,
									   mv->ttm),
							 (dst->res->start + first) * sub,
							 n * sub,
							 job.arena_dma + dst_list);
		if (old_apt)
			q += wddmseg_encode_unmap_aperture(cmd + q,
							   src->segment_id,
							   (src->res->start + first) * sub,
							   n * sub, eng->dummy_dma);
		wddmseg_engine_emit(eng, &job, cmd, q);

		ret = wddmseg_commit_next(eng, &job, &last);
		if (ret)
			break;
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
 * One engine job over @pages pages of a memory segment from page @start:
 * a DiscardContent first when @discard, then a Fill of zeroes. @what names
 * the operation in the trace, whose source segment is 0 for a discard
 * (the content goes nowhere).
 */
static struct dma_fence *wddmseg_migrate_zero(struct wddmseg_device *wdev,
					      struct wddmseg_mgr *mgr,
					      u64 start, u64 pages,
					      bool discard, const char *what)
{
	struct wddmseg_engine *eng = &wdev->engine;
	u64 cmd[WDDMSEG_DISCARD_QWORDS + WDDMSEG_FILL_QWORDS];
	u32 n = (discard ? WDDMSEG_DISCARD_QWORDS : 0) + WDDMSEG_FILL_QWORDS;
	u64 size = pages << PAGE_SHIFT;
	struct dma_fence *fence;
	struct wddmseg_loc loc;
	struct wddmseg_job job;
	u32 q = 0;
	int ret;

	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return ERR_PTR(-ENODEV);
	}
	ret = wddmseg_engine_reserve(eng, n, 0, &job);
	if (ret) {
		mutex_unlock(&eng->lock);
		return ERR_PTR(ret);
	}
	loc.segment_id = mgr->segment_id;
	loc.vram_list = false;
	loc.addr = start << PAGE_SHIFT;
	loc.offset = 0;
	if (discard)
		q = wddmseg_encode_discard(cmd, size, &loc);
	q += wddmseg_encode_fill(cmd + q, size, 0, &loc);
	job.zero_segment = mgr->segment_id;
	job.zero_addr = loc.addr;
	job.zero_len = size;
	trace_wddmseg_paging_op(what, mgr->segment_id,
				discard ? 0 : mgr->segment_id, size,
				eng->seqno + 1);
	wddmseg_engine_emit(eng, &job, cmd, q);
	fence = wddmseg_engine_commit(eng, &job);
	mutex_unlock(&eng->lock);
	return fence;
}

/*
 * wddmseg_migrate_zero() over every range of @res, one job per range (a
 * contiguous resource is one); the engine runs them in order, so the last
 * job's fence is the resource's. If a later job cannot be queued, waits
 * for the earlier ones and fails like one job would.
 */
static struct dma_fence *wddmseg_migrate_zero_res(struct wddmseg_device *wdev,
						  struct wddmseg_mgr *mgr,
						  struct ttm_resource *res,
						  bool discard,
						  const char *what)
{
	u64 page = 0, run, pages = wddmseg_mgr_res_pages(res);
	struct dma_fence *last = NULL, *f;

	while (page < pages) {
		u64 start = wddmseg_mgr_res_run(res, page, &run);

		f = wddmseg_migrate_zero(wdev, mgr, start, run, discard, what);
		if (IS_ERR(f)) {
			if (last) {
				dma_fence_wait(last, false);
				dma_fence_put(last);
			}
			return f;
		}
		dma_fence_put(last);
		last = f;
		page += run;
	}
	return last;
}

/**
 * wddmseg_migrate_discard - DiscardContent of the VRAM a move leaves
 * @wdev: device
 * @src: the move's source, a memory segment
 *
 * DiscardContent, then a Fill of zeroes over the range (VRAM an
 * allocation gives up is wiped, as on release), in one engine job.
 *
 * Return: the job's fence, ERR_PTR(-ENODEV) without an engine, or another
 * ERR_PTR.
 */
struct dma_fence *wddmseg_migrate_discard(struct wddmseg_device *wdev,
					  const struct wddmseg_move_end *src)
{
	return wddmseg_migrate_zero_res(wdev, src->mgr, src->res, true,
					"discard");
}

/**
 * wddmseg_migrate_clear - Fill a VRAM resource with zeroes
 * @wdev: device
 * @mgr: its segment
 * @res: the resource
 * @what: name of the paging operation for the trace ("wipe")
 *
 * Return: the job's fence, ERR_PTR(-ENODEV) without an engine, or another
 * ERR_PTR.
 */
struct dma_fence *wddmseg_migrate_clear(struct wddmseg_device *wdev,
					struct wddmseg_mgr *mgr,
					struct ttm_resource *res,
					const char *what)
{
	return wddmseg_migrate_zero_res(wdev, mgr, res, false, what);
}

/**
 * wddmseg_migrate_clear_segment - Fill a whole memory segment with zeroes
 * @wdev: device
 * @mgr: the segment, with nothing allocated in it
 *
 * The clear at probe after which all of the segment's VRAM is known to be
 * zero (VRAM keeps what an earlier driver instance left there).
 *
 * Return: the job's fence, ERR_PTR(-ENODEV) without an engine, or another
 * ERR_PTR.
 */
struct dma_fence *wddmseg_migrate_clear_segment(struct wddmseg_device *wdev,
						struct wddmseg_mgr *mgr)
{
	return wddmseg_migrate_zero(wdev, mgr, 0, mgr->manager.size, false,
				    "clear");
}

/*
 * One ReadPhysical (VRAM -> bounce buffer) or WritePhysical (bounce buffer
 * -> VRAM) of @len bytes at GPU address @gpu_addr, waited for. The engine
 * runs jobs in order, so moves already queued for the allocation come
 * first; a job that hangs is the watchdog's (reset, replay, -EIO), so the
 * wait ends. Caller holds access_lock. -ENODEV: no engine, use the CPU.
 */
static int wddmseg_migrate_physical(struct wddmseg_device *wdev,
				    u32 segment_id, u64 gpu_addr, void *buf,
				    u32 len, bool write)
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

/**
 * wddmseg_migrate_access - ReadPhysical/WritePhysical of VRAM for the CPU
 * @wdev: device
 * @tbo: the reserved allocation whose VRAM it is
 * @mgr: its segment, a memory segment
 * @gpu_addr: GPU address of the first byte
 * @buf: the CPU's side
 * @len: bytes
 * @write: direction
 *
 * Through the copy engine and the DMA bounce buffer (any VRAM, visible or
 * not), in jobs of WDDMSEG_ACCESS_BOUNCE bytes; without an engine, once
 * queued moves are done, through BAR2 or the BAR4 window.
 *
 * Return: the bytes copied (fewer than @len up to an error) or a negative
 * errno.
 */
int wddmseg_migrate_access(struct wddmseg_device *wdev,
			   struct ttm_buffer_object *tbo,
			   struct wddmseg_mgr *mgr, u64 gpu_addr, void *buf,
			   int len, bool write)
{
	int done = 0, ret = -ENODEV;

	dma_resv_assert_held(tbo->base.resv);
	if (wdev->access_bounce && wddmseg_migrate_uses_engine(wdev)) {
		mutex_lock(&wdev->access_lock);
		while (done < len) {
			u32 n = min_t(u32, len - done, WDDMSEG_ACCESS_BOUNCE);

			ret = wddmseg_migrate_physical(wdev, mgr->segment_id,
						       gpu_addr + done,
						       buf + done, n, write);
			if (ret)
				break;
			done += n;
		}
		mutex_unlock(&wdev->access_lock);
	}
	if (ret == -ENODEV) {
		struct ttm_operation_ctx ctx = { .interruptible = true };

		/* The CPU copies at once: let queued moves finish first. */
		ret = ttm_bo_wait_ctx(tbo, &ctx);
		if (!ret) {
			wddmseg_vram_io(wdev, mgr->desc->flags &
					DXGK_SEGFLAG_CPU_VISIBLE,
					gpu_addr + done, buf + done,
					len - done, write);
			done = len;
		}
	}
	return done ? done : ret;
}

/**
 * wddmseg_migrate_blit - SUBMIT_BLIT's copy or fill on the engine
 * @wdev: device
 * @a: the checked request
 * @src: source allocation (reserved, its pages populated), NULL to fill
 * @dst: destination allocation (reserved, its pages populated)
 *
 * In jobs of WDDMSEG_BLIT_CHUNK bytes, behind earlier engine work.
 *
 * Return: the last job's fence, or an ERR_PTR (-ENODEV without engine).
 */
struct dma_fence *wddmseg_migrate_blit(struct wddmseg_device *wdev,
				       const struct drm_wddmseg_submit_blit *a,
				       struct drm_gem_object *src,
				       struct drm_gem_object *dst)
{
	struct wddmseg_engine *eng = &wdev->engine;
	struct dma_fence *last = NULL;
	const u32 list_bytes = (WDDMSEG_BLIT_CHUNK / PAGE_SIZE + 1) *
			       (PAGE_SIZE >> WDDMSEG_HW_PAGE_SHIFT) * 8;
	u64 done, n;
	int ret = 0;

	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return ERR_PTR(-ENODEV);
	}
	for (done = 0; done < a->size; done += n) {
		struct ttm_buffer_object *dtbo = &gem_to_wddmseg_bo(dst)->tbo;
		u64 cmd[WDDMSEG_TRANSFER_QWORDS];
		struct wddmseg_loc s, d;
		struct wddmseg_job job;
		u32 arena = 0, q;

		n = min_t(u64, WDDMSEG_BLIT_CHUNK, a->size - done);
		ret = wddmseg_engine_reserve(eng, ARRAY_SIZE(cmd),
					     (src ? 2 : 1) * list_bytes, &job);
		if (ret)
			break;
		wddmseg_blit_loc(wdev, dtbo, a->dst_offset + done, n, &job,
				 &arena, &d);
		if (src) {
			struct ttm_buffer_object *stbo =
				&gem_to_wddmseg_bo(src)->tbo;

			wddmseg_blit_loc(wdev, stbo, a->src_offset + done, n,
					 &job, &arena, &s);
			q = wddmseg_encode_transfer(cmd, n, &s, &d);
			trace_wddmseg_paging_op("blit-transfer", s.segment_id,
						d.segment_id, n, eng->seqno + 1);
		} else {
			q = wddmseg_encode_fill(cmd, n, a->pattern, &d);
			trace_wddmseg_paging_op("blit-fill", d.segment_id,
						d.segment_id, n, eng->seqno + 1);
		}
		wddmseg_engine_emit(eng, &job, cmd, q);
		ret = wddmseg_commit_next(eng, &job, &last);
		if (ret)
			break;
	}
	mutex_unlock(&eng->lock);

	if (ret)
		return wddmseg_jobs_failed(last, ret);
	return last;
}

/**
 * wddmseg_migrate_flush_aperture - make CPU writes to an allocation's
 *	cached pages in a non-coherent aperture visible to the engine
 * @wdev: device
 * @tbo: reserved allocation, its pages populated
 *
 * Before a blit reads or writes the allocation through its aperture
 * (DOC: Cache coherency): a clflush of its pages and a FLUSH_APERTURE of
 * its range, when its pages are write-back and the aperture has no
 * CacheCoherent (and the device is 1.7 or later).
 *
 * Return: the FLUSH_APERTURE job's fence, NULL when none was needed, or an
 * ERR_PTR.
 */
struct dma_fence *wddmseg_migrate_flush_aperture(struct wddmseg_device *wdev,
						 struct ttm_buffer_object *tbo)
{
	struct wddmseg_engine *eng = &wdev->engine;
	struct ttm_resource *res = tbo->resource;
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	u64 cmd[WDDMSEG_FLUSH_QWORDS];
	struct dma_fence *fence;
	struct wddmseg_mgr *mgr;
	struct wddmseg_job job;
	int ret;

	if (!wddmseg_mgr_res_is_aperture(wdev, res) || !tbo->ttm)
		return NULL;
	mgr = wddmseg_mgr_res(wdev, res);
	if (!(wddmseg_map_flags(wdev, mgr, tbo->ttm) & WDDMSEG_MAP_CPU_CACHED))
		return NULL;
	drm_clflush_pages(tbo->ttm->pages, tbo->ttm->num_pages);

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
	wddmseg_encode_flush_aperture(cmd, mgr->segment_id, res->start * sub,
				      wddmseg_mgr_res_pages(res) * sub);
	trace_wddmseg_paging_op("flush-aperture", mgr->segment_id,
				mgr->segment_id, tbo->base.size,
				eng->seqno + 1);
	wddmseg_engine_emit(eng, &job, cmd, ARRAY_SIZE(cmd));
	fence = wddmseg_engine_commit(eng, &job);
	mutex_unlock(&eng->lock);
	return fence;
}

/**
 * wddmseg_migrate_perm_sync - Transfer between a PermanentSysMem
 *	allocation's segment copy and its permanent copy
 * @wdev: device
 * @tbo: reserved allocation in a memory segment
 * @dma_address: DMA addresses of its permanent copy
 * @off: first byte
 * @len: bytes, a multiple of 4
 * @to_vram: refresh the segment's copy from the permanent one, else
 *	write the segment's bytes through to the permanent copy
 *
 * In jobs of WDDMSEG_BLIT_CHUNK bytes, behind earlier engine work
 * (DOC: PermanentSysMem).
 *
 * Return: the last job's fence, or an ERR_PTR (-ENODEV without engine).
 */
struct dma_fence *wddmseg_migrate_perm_sync(struct wddmseg_device *wdev,
					    struct ttm_buffer_object *tbo,
					    const dma_addr_t *dma_address,
					    u64 off, u64 len, bool to_vram)
{
	struct wddmseg_engine *eng = &wdev->engine;
	const u32 list_bytes = (WDDMSEG_BLIT_CHUNK / PAGE_SIZE + 1) *
			       (PAGE_SIZE >> WDDMSEG_HW_PAGE_SHIFT) * 8;
	struct dma_fence *last = NULL;
	struct wddmseg_move_end seg;
	u64 done, n;
	int ret = 0;

	wddmseg_move_end_init(wdev, tbo->resource, &seg);
	mutex_lock(&eng->lock);
	if (!eng->ready) {
		mutex_unlock(&eng->lock);
		return ERR_PTR(-ENODEV);
	}
	for (done = 0; done < len; done += n) {
		u64 cmd[WDDMSEG_TRANSFER_QWORDS];
		struct wddmseg_loc v, p;
		struct wddmseg_job job;
		u32 arena = 0, q;

		n = min_t(u64, WDDMSEG_BLIT_CHUNK, len - done);
		ret = wddmseg_engine_reserve(eng, ARRAY_SIZE(cmd),
					     2 * list_bytes, &job);
		if (ret)
			break;
		/* the segment's copy may be made of blocks: a VRAM page list */
		wddmseg_end_loc(&seg, NULL, off + done, n, &job, &arena, &v);
		wddmseg_pages_loc(dma_address, off + done, n, &job, &arena, &p);
		if (to_vram)
			q = wddmseg_encode_transfer(cmd, n, &p, &v);
		else
			q = wddmseg_encode_transfer(cmd, n, &v, &p);
		trace_wddmseg_paging_op(to_vram ? "perm-refresh" : "perm-write-through",
					to_vram ? 0 : seg.segment_id,
					to_vram ? seg.segment_id : 0, n,
					eng->seqno + 1);
		wddmseg_engine_emit(eng, &job, cmd, q);
		ret = wddmseg_commit_next(eng, &job, &last);
		if (ret)
			break;
	}
	mutex_unlock(&eng->lock);

	if (ret)
		return wddmseg_jobs_failed(last, ret);
	return last;
}

/**
 * wddmseg_migrate_cpu_copy - a move's Transfer (or Fill) by the CPU
 * @wdev: device
 * @mv: the move, resolved by the move callback; its allocation is idle.
 *	A known-zero source (@mv->clear) is written as zeroes, or not at
 *	all into VRAM known zero (@mv->skip_fill)
 * @ctx: TTM operation context, for populating the ttm_tt
 *
 * The fallback without a copy engine, and the way of small moves of idle
 * allocations: one page at a time through a bounce page so that any pair
 * of domains works, window-to-window included.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_migrate_cpu_copy(struct wddmseg_device *wdev,
			     const struct wddmseg_move *mv,
			     struct ttm_operation_ctx *ctx)
{
	const struct wddmseg_move_end *src = &mv->src, *dst = &mv->dst;
	struct ttm_buffer_object *tbo = mv->tbo;
	bool clear = mv->clear;
	void *bounce;
	pgoff_t i;
	int ret;

	/* Content that never existed into VRAM: it holds zeroes only... */
	if (clear && dst->kind == WDDMSEG_MEM_VRAM) {
		wddmseg_mgr_res_set_zero_content(dst->res);
		/* ... which it does already when known zero (the caller waited). */
		if (mv->skip_fill) {
			atomic64_inc(&dst->mgr->fills_skipped);
			trace_wddmseg_paging_op("skipped fill", 0,
						dst->segment_id,
						tbo->base.size, 0);
			return 0;
		}
	}
	trace_wddmseg_paging_op(clear ? "cpu fill" : "cpu transfer",
				src->segment_id, dst->segment_id,
				tbo->base.size, 0);

	/* Either side may be the ttm_tt (system memory or an aperture). */
	if (mv->ttm && !clear) {
		ret = wddmseg_bo_populate(tbo, ctx);
		if (ret)
			return ret;
	}

	bounce = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	if (!clear && !wddmseg_end_in_pages(src))
		atomic64_add(tbo->base.size, &src->mgr->transfer_out_bytes);
	if (!clear && !wddmseg_end_in_pages(dst))
		atomic64_add(tbo->base.size, &dst->mgr->transfer_in_bytes);

	for (i = 0; i < PFN_UP(tbo->base.size); i++) {
		if (!clear)
			wddmseg_vram_page_io(wdev, src, tbo->ttm, i, bounce,
					     false);
		wddmseg_vram_page_io(wdev, dst, tbo->ttm, i, bounce, true);
		cond_resched();
	}

	kfree(bounce);
	return 0;
}
