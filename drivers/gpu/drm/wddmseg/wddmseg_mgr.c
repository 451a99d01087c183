// SPDX-License-Identifier: GPL-2.0-only
/*
 * One TTM resource manager per WDDM segment.
 *
 * A segment is a linear range of pages (drm_mm); a resource is one range
 * of it, or several (DOC: VRAM made of blocks). Placement ranges
 * (ttm_place.fpfn/lpfn) express banks and the Overlay/Capture 20% rule,
 * TTM_PL_FLAG_TOPDOWN expresses FromEndOfSegment. An aperture may have a
 * CommitLimit below its Size: the address space is Size, but no more than
 * CommitLimit bytes are allocated at once, and allocation fails with
 * -ENOSPC (which makes TTM evict) when a request would exceed it.
 *
 * Memory segments also remember which free pages are known to hold
 * zeroes (struct wddmseg_mgr, @zeroed): pages wiped when their allocation
 * was released, or cleared at probe and never allocated since. A new
 * resource whose pages all were is "zeroed" (wddmseg_mgr_res_zeroed()):
 * the move that gives a new allocation its first VRAM needs no Fill then,
 * so VRAM is cleared once, not on release and again on create. The wipe
 * may still be queued when the range is handed out: TTM adds the
 * manager's move fence, which the release made the wipe's, to the new
 * allocation's reservation, and the engine runs jobs in order, so
 * neither the CPU nor the engine sees the range before it is zero.
 */

/**
 * DOC: VRAM made of blocks
 *
 * WDDM asks for physically contiguous memory only where something reads
 * it linearly: AccessedPhysically ("contiguous in memory segments"), and
 * the display. Every other allocation may be scattered over a memory
 * segment, as system memory is over pages: the copy engine reaches it
 * through a VRAM page list (device 1.6, ``WDDMSEG_LOC_VRAM_LIST``), the
 * VRAM counterpart of an MDL, which every Transfer, Fill, DiscardContent
 * and encrypted Transfer takes.
 *
 * A placement first asks drm_mm for one range, exactly as before (best
 * fit, or the highest for FromEndOfSegment, inside the place's bank or
 * Overlay range): placement costs the same whatever the number of live
 * allocations, and an allocation is contiguous whenever a free range can
 * hold it. Only when none can, and the place does not carry
 * TTM_PL_FLAG_CONTIGUOUS, the manager gathers several ranges: the largest
 * free range it can get, halving the request down to the allocation's
 * alignment, until every page has one (wddmseg_mgr_scatter()). So free
 * space that is there but split no longer forces an eviction; TTM evicts
 * only when the free pages of the place's range do not add up. The first
 * range is the resource's start (GEM_INFO's offset, with
 * ``WDDMSEG_STATE_BLOCKS`` in its state); wddmseg_mgr_res_run() finds any
 * page.
 *
 * One range (TTM_PL_FLAG_CONTIGUOUS, which TTM also checks against the
 * placement a resource was made with, so a resource made of blocks moves
 * when one range is needed) for: AccessedPhysically allocations (Read/
 * WritePhysical and the GPU address they are used with), Overlay and
 * Capture (read by the display), the scanout and cursor buffers while
 * pinned for the display (wddmseg_bo_pin_scanout()), and allocations the
 * kernel maps (vmap for fbdev and dma-buf importers; TTM maps them from
 * their first page on), from their first vmap on. Everything else that
 * reads VRAM does so page by page: CPU faults (io_mem_pfn), the CPU
 * fallback of moves and of suspend, access_memory (ptrace,
 * /proc/PID/mem: one Read/WritePhysical per range), wipes and
 * DiscardContent (one engine job per range). Apertures stay one range
 * (their page table is written per range); a device before 1.6, or the
 * debugfs knob ``wddmseg/vram_blocks`` set to 0, keeps every placement
 * one range.
 * The known-zero tracking works per range: a resource is zeroed when all
 * of its ranges were, and a wipe marks all of them.
 *
 * ``make bench`` measures it: a segment churned to 90% occupancy with
 * allocations of mixed sizes, then 4 MiB allocations while 4 MiB are free;
 * with one range each (vram_blocks=0) about half of them evicted (13 of
 * 24, 600 evictions, 21 ms each on TCG), made of blocks none (0.25 ms).
 * The one-range count depends on timing (the churn's releases are
 * asynchronous: wipes, TTM's delayed delete): 13 on 6.12, 13 or 24 on
 * 7.3 with the same module; with blocks it was 0 in every run.
 * Placement cost with 1,000 and 100,000 live allocations is printed too,
 * and the 1,000 figure once more after the 100,000 one, which shows how
 * far the host drifted in between. The manager's share of a create and
 * destroy is one drm_mm insertion and removal, O(log n) in the ranges of
 * the segment (at most 16,384 of 4 KiB in a 64 MiB segment), and a bitmap
 * test of the range; it does not walk the allocations.
 *
 * Why drm_mm and not the kernel's buddy allocator (drm_buddy, gpu_buddy
 * since 6.12), which also tracks cleared blocks: it was built (branch
 * i30-buddy: one range by an exact range allocation, blocks from the
 * allocator, its cleared blocks as the known-zero record) and measured
 * on 7.3, same VM, one boot each, counters around wddmseg_mgr_alloc() and
 * wddmseg_mgr_free() while ``wddmseg-bench -t 2 -r 4 -m 0 wddmseg`` ran:
 * 4.1 + 3.1 us per create and destroy with drm_mm (339,886 of each),
 * 16.2 + 8.9 us with the buddy allocator (247,139), and 16.9 + 9.4 us with
 * the buddy allocator but this bitmap instead of its cleared blocks. The
 * cost is the buddy allocator's own: a 4 KiB allocation in an empty 64 MiB
 * segment splits 14 times and its release merges 14 times, each a slab
 * allocation or free and red-black tree updates, where drm_mm inserts and
 * removes one node. GEM create+destroy of 4 KiB went from 17,235 to 9,370
 * to 9,642 pairs/s in that VM; in ``make bench KABI=7.3`` (beside
 * bochs-drm, quiet host) the rows without a ratio fell (1,000 live:
 * 14,058 -> 12,398 pairs/s; 100,000 live: 10,520 -> 10,152; 1,000 again:
 * 11,954 -> 9,208), the ratio rows stayed (0.43-0.47 -> 0.45-0.48: the
 * second device's cost dominates both columns there), and fragmentation
 * did not improve (24 of 24 one-range placements evicted in both runs).
 * So VRAM stays on drm_mm, and the known-zero record is this bitmap.
 */

#include <linux/bitmap.h>
#include <linux/slab.h>

#include <drm/drm_print.h>

#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_mgr.h"
#include "wddmseg_params.h"
#include "wddmseg_hw.h"

/* drm_mm colour of the ranges after the first of a resource made of blocks. */
#define WDDMSEG_MGR_BLOCK	1

struct wddmseg_mgr_node;

/*
 * A further range of a resource made of blocks.
 * @mm: the range, of colour WDDMSEG_MGR_BLOCK
 * @owner: the resource
 * @pgoff: page of the resource where the range starts
 */
struct wddmseg_mgr_block {
	struct drm_mm_node mm;
	struct wddmseg_mgr_node *owner;
	u64 pgoff;
};

/*
 * @mm: the resource's first (usually only) range
 * @blocks: its further ranges in resource order, NULL when contiguous
 * @nr_blocks: entries of @blocks
 * @pages: size of the resource in pages (all ranges)
 * @zeroed: every page was known to be zero when the range was allocated
 * @wiped: a Fill of zeroes over the range is queued (release, discard):
 *	the pages are known to be zero once free
 * @zero_content: the range got content that never existed (zeroes, by a
 *	Fill or because it was known zero) and nothing wrote to it through the
 *	resource since; whether its allocation was written in place
 *	otherwise is &wddmseg_bo.maybe_written_in_place
 */
struct wddmseg_mgr_node {
	struct ttm_resource base;
	struct drm_mm_node mm;
	struct wddmseg_mgr_block **blocks;
	u32 nr_blocks;
	u64 pages;
	bool zeroed;
	bool wiped;
	bool zero_content;
};

static struct wddmseg_mgr *to_mgr(struct ttm_resource_manager *man)
{
	return container_of(man, struct wddmseg_mgr, manager);
}

static struct wddmseg_mgr_node *to_mgr_node(struct ttm_resource *res)
{
	return container_of(res, struct wddmseg_mgr_node, base);
}

static const struct wddmseg_mgr_node *
to_mgr_node_const(const struct ttm_resource *res)
{
	return container_of(res, struct wddmseg_mgr_node, base);
}

/* Range @k of @node: 0 is &wddmseg_mgr_node.mm, then the blocks. */
static struct drm_mm_node *wddmseg_mgr_range(struct wddmseg_mgr_node *node,
					     u32 k)
{
	return k ? &node->blocks[k - 1]->mm : &node->mm;
}

/*
 * Whether all of [start, start + size) was known zero; the pages are not
 * any more (they are allocated). Called with the manager's lock.
 */
static bool wddmseg_mgr_take_zeroed(struct wddmseg_mgr *mgr, u64 start,
				    u64 size)
{
	bool zeroed;

	if (!mgr->zeroed)
		return false;
	zeroed = find_next_zero_bit(mgr->zeroed, start + size, start) >=
		 start + size;
	bitmap_clear(mgr->zeroed, start, size);
	return zeroed;
}

/* Give back the ranges of @node and its blocks. Takes the manager's lock. */
static void wddmseg_mgr_put_ranges(struct wddmseg_mgr *mgr,
				   struct wddmseg_mgr_node *node)
{
	u32 k;

	spin_lock(&mgr->lock);
	mgr->committed -= node->pages;
	for (k = 0; k <= node->nr_blocks; k++) {
		struct drm_mm_node *r = wddmseg_mgr_range(node, k);

		if (!drm_mm_node_allocated(r))
			continue;
		if (node->wiped && mgr->zeroed)
			bitmap_set(mgr->zeroed, r->start, r->size);
		drm_mm_remove_node(r);
	}
	spin_unlock(&mgr->lock);
	for (k = 0; k < node->nr_blocks; k++)
		kfree(node->blocks[k]);
	kfree(node->blocks);
	node->blocks = NULL;
	node->nr_blocks = 0;
}

/*
 * Place @pages pages in several ranges of [@fpfn, @lpfn) (DOC: VRAM made
 * of blocks): the largest range that fits, halving the request (in
 * multiples of @align) down to @align pages, until every page has one.
 * Each range is a drm_mm best-fit (or highest, for FromEndOfSegment)
 * insertion, O(log ranges) like the contiguous path; a resource of n
 * ranges costs O(n log(@pages)) insertions at most. The pages are
 * committed first. Returns 0 or -ENOSPC (nothing kept) or -ENOMEM.
 */
static int wddmseg_mgr_scatter(struct wddmseg_mgr *mgr,
			       struct wddmseg_mgr_node *node, u64 pages,
			       u64 align, u64 fpfn, u64 lpfn,
			       enum drm_mm_insert_mode mode)
{
	u64 left = pages, try, pgoff = 0;
	struct wddmseg_mgr_block **arr;
	struct wddmseg_mgr_block *blk;
	u32 cap = 0;
	bool zeroed = true;
	int ret;

	align = max_t(u64, align, 1);
	spin_lock(&mgr->lock);
	if (mgr->committed + pages > mgr->commit_limit) {
		spin_unlock(&mgr->lock);
		return -ENOSPC;
	}
	mgr->committed += pages;
	spin_unlock(&mgr->lock);
	node->pages = pages;

	try = max_t(u64, align, round_down(pages / 2, align));
	while (left) {
		struct drm_mm_node *r = &node->mm;

		blk = NULL;
		if (pgoff) {
			if (node->nr_blocks == cap) {
				cap = cap ? 2 * cap : 16;
				arr = krealloc_array(node->blocks, cap,
						     sizeof(*arr), GFP_KERNEL);
				if (!arr) {
					ret = -ENOMEM;
					goto fail;
				}
				node->blocks = arr;
			}
			blk = kzalloc_obj(*blk, GFP_KERNEL);
			if (!blk) {
				ret = -ENOMEM;
				goto fail;
			}
			blk->owner = node;
			blk->pgoff = pgoff;
			r = &blk->mm;
		}
		for (;;) {
			try = min(try, left);
			spin_lock(&mgr->lock);
			ret = drm_mm_insert_node_in_range(&mgr->mm, r, try,
							  align,
							  blk ? WDDMSEG_MGR_BLOCK : 0,
							  fpfn, lpfn, mode);
			if (!ret && !wddmseg_mgr_take_zeroed(mgr, r->start,
							     r->size))
				zeroed = false;
			spin_unlock(&mgr->lock);
			if (!ret)
				break;
			if (try <= align) {
				kfree(blk);
				goto fail;
			}
			try = max_t(u64, align, round_down(try / 2, align));
		}
		if (blk)
			node->blocks[node->nr_blocks++] = blk;
		pgoff += try;
		left -= try;
	}
	node->zeroed = zeroed;
	atomic64_inc(&mgr->scattered);
	return 0;

fail:
	/* Nothing of it was written: the ranges stay as known as they were. */
	if (mgr->zeroed && zeroed)
		node->wiped = true;
	wddmseg_mgr_put_ranges(mgr, node);
	node->wiped = false;
	return ret;
}

/**
 * wddmseg_mgr_drop_signaled_move - forget a manager's move fence once done
 * @man: a TTM resource manager
 *
 * TTM adds the manager's move fence to the reservation of every allocation
 * placed in the manager (ttm_bo_add_move_fence(), right after the
 * manager's alloc), and reserves a fence slot for it each time, signaled
 * or not; whoever then waits for or tests the allocation walks it again.
 * Kept after it signaled, the fence of a wipe long done costs every later
 * placement that work for nothing (a fence slot, a reservation walk). The
 * engine runs its jobs in order on one fence context, so when the latest
 * wipe or clear has signaled, every earlier one has, and nothing is left
 * for a new allocation to wait for; the next wipe sets a new move fence.
 */
void wddmseg_mgr_drop_signaled_move(struct ttm_resource_manager *man)
{
	wddmseg_man_move_drop_signaled(man);
}

/*
 * The TTM-free core of wddmseg_mgr_alloc(): commit @pages pages of @mgr
 * and place them in [@fpfn, @lpfn) of @node, in one range (best fit, or
 * the highest for @topdown), else in several when @may_scatter. Sets
 * &wddmseg_mgr_node.zeroed and .pages. Returns 0, -ENOSPC or -ENOMEM
 * (nothing kept).
 */
static int wddmseg_mgr_place(struct wddmseg_mgr *mgr,
			     struct wddmseg_mgr_node *node, u64 pages,
			     u64 align, u64 fpfn, u64 lpfn, bool topdown,
			     bool may_scatter)
{
	enum drm_mm_insert_mode mode = topdown ? DRM_MM_INSERT_HIGH :
						 DRM_MM_INSERT_BEST;
	bool committed = true;
	int ret;

	spin_lock(&mgr->lock);
	if (mgr->committed + pages > mgr->commit_limit) {
		ret = -ENOSPC;
		committed = false;
	} else {
		ret = drm_mm_insert_node_in_range(&mgr->mm, &node->mm, pages,
						  align, 0, fpfn, lpfn, mode);
		if (!ret)
			mgr->committed += pages;
	}
	if (!ret)
		node->zeroed = wddmseg_mgr_take_zeroed(mgr, node->mm.start,
						       node->mm.size);
	spin_unlock(&mgr->lock);

	/* No one range has room: several, where contiguity is not needed. */
	if (ret == -ENOSPC && committed && may_scatter)
		ret = wddmseg_mgr_scatter(mgr, node, pages, align, fpfn, lpfn,
					  mode);
	if (!ret)
		node->pages = pages;
	return ret;
}

static int wddmseg_mgr_alloc(struct ttm_resource_manager *man,
			     struct ttm_buffer_object *bo,
			     const struct ttm_place *place,
			     struct ttm_resource **res)
{
	struct wddmseg_mgr *mgr = to_mgr(man);
	struct wddmseg_mgr_node *node;
	unsigned long lpfn = place->lpfn ? place->lpfn : man->size;
	u64 pages = PFN_UP(bo->base.size);
	int ret;

	node = kzalloc_obj(*node, GFP_KERNEL);
	if (!node)
		return -ENOMEM;

	ttm_resource_init(bo, place, &node->base);

	ret = wddmseg_mgr_place(mgr, node, pages, bo->page_alignment,
				place->fpfn, lpfn,
				place->flags & TTM_PL_FLAG_TOPDOWN,
				mgr->blocks &&
				READ_ONCE(mgr->wdev->knobs.vram_blocks) &&
				!(place->flags & TTM_PL_FLAG_CONTIGUOUS));
	if (ret) {
		ttm_resource_fini(man, &node->base);
		kfree(node);
		return ret;
	}

	node->base.start = node->mm.start;
	/* What TTM checks for TTM_PL_FLAG_CONTIGUOUS places (6.1, 6.12). */
	if (!node->nr_blocks)
		node->base.placement |= TTM_PL_FLAG_CONTIGUOUS;
	atomic64_inc(&mgr->allocations);
	wddmseg_mgr_drop_signaled_move(man);
	*res = &node->base;
	return 0;
}

static void wddmseg_mgr_free(struct ttm_resource_manager *man,
			     struct ttm_resource *res)
{
	struct wddmseg_mgr_node *node = to_mgr_node(res);
	struct wddmseg_mgr *mgr = to_mgr(man);

	wddmseg_mgr_put_ranges(mgr, node);
	atomic64_dec(&mgr->allocations);
	ttm_resource_fini(man, res);
	kfree(node);
}

static bool wddmseg_mgr_intersects(struct ttm_resource_manager *man,
				   struct ttm_resource *res,
				   const struct ttm_place *place, size_t size)
{
	struct wddmseg_mgr_node *node = to_mgr_node(res);
	u64 lpfn = place->lpfn ? place->lpfn : man->size;
	u32 k;

	/* Evicting res only helps if it overlaps the requested range. */
	for (k = 0; k <= node->nr_blocks; k++) {
		struct drm_mm_node *r = wddmseg_mgr_range(node, k);

		if (r->start < lpfn && r->start + r->size > place->fpfn)
			return true;
	}
	return false;
}

static bool wddmseg_mgr_compatible(struct ttm_resource_manager *man,
				   struct ttm_resource *res,
				   const struct ttm_place *place, size_t size)
{
	struct wddmseg_mgr_node *node = to_mgr_node(res);
	u32 k;

	for (k = 0; k <= node->nr_blocks; k++) {
		struct drm_mm_node *r = wddmseg_mgr_range(node, k);

		if (r->start < place->fpfn ||
		    (place->lpfn && r->start + r->size > place->lpfn))
			return false;
	}
	return true;
}

static void wddmseg_mgr_debug(struct ttm_resource_manager *man,
			      struct drm_printer *p)
{
	struct wddmseg_mgr *mgr = to_mgr(man);

	spin_lock(&mgr->lock);
	drm_printf(p, "segment %u: committed %llu of %llu pages\n",
		   mgr->segment_id, mgr->committed, mgr->commit_limit);
	drm_printf(p, "  %lld allocations, %lld pinned pages, %lld evictions, %lld in blocks\n",
		   atomic64_read(&mgr->allocations),
		   atomic64_read(&mgr->pinned_pages),
		   atomic64_read(&mgr->evictions),
		   atomic64_read(&mgr->scattered));
	if (mgr->zeroed)
		drm_printf(p, "  %u free pages known zero, %lld Fills and %lld wipes skipped\n",
			   bitmap_weight(mgr->zeroed, mgr->manager.size),
			   atomic64_read(&mgr->fills_skipped),
			   atomic64_read(&mgr->wipes_skipped));
	drm_mm_print(&mgr->mm, p);
	spin_unlock(&mgr->lock);
}

static const struct ttm_resource_manager_func wddmseg_mgr_func = {
	.alloc = wddmseg_mgr_alloc,
	.free = wddmseg_mgr_free,
	.intersects = wddmseg_mgr_intersects,
	.compatible = wddmseg_mgr_compatible,
	.debug = wddmseg_mgr_debug,
};

/**
 * wddmseg_mgr_init - create the resource manager of a segment
 * @wdev: device whose TTM device is initialized
 * @segment_id: segment, 1..segment_count
 *
 * Return: 0 or -ENOMEM.
 */
int wddmseg_mgr_init(struct wddmseg_device *wdev, u32 segment_id)
{
	const struct wddmseg_segment_desc *seg = &wdev->desc.seg[segment_id - 1];
	struct wddmseg_mgr *mgr;
	u64 pages = seg->size >> PAGE_SHIFT;

	mgr = kzalloc_obj(*mgr, GFP_KERNEL);
	if (!mgr)
		return -ENOMEM;

	mgr->wdev = wdev;
	mgr->segment_id = segment_id;
	mgr->desc = seg;
	spin_lock_init(&mgr->lock);
	drm_mm_init(&mgr->mm, 0, pages);
	mgr->commit_limit = seg->commit_limit >> PAGE_SHIFT;
	mgr->blocks = !wddmseg_segment_is_aperture(seg) &&
		      WDDMSEG_VERSION_MINOR(wdev->desc.hw_version) >=
		      WDDMSEG_VERSION_MINOR_VRAM_LIST;
	/* Nothing is known about VRAM yet: wddmseg_ttm_init() clears it. */
	if (!wddmseg_segment_is_aperture(seg)) {
		mgr->zeroed = bitmap_zalloc(pages, GFP_KERNEL);
		if (!mgr->zeroed) {
			kfree(mgr);
			return -ENOMEM;
		}
	}

	mgr->manager.use_tt = wddmseg_segment_is_aperture(seg);
	mgr->manager.func = &wddmseg_mgr_func;
	ttm_resource_manager_init(&mgr->manager, &wdev->bdev, pages);
	ttm_set_driver_manager(&wdev->bdev, wdev->mem_type[segment_id - 1],
			       &mgr->manager);
	ttm_resource_manager_set_used(&mgr->manager, true);
	wdev->mgr[segment_id - 1] = mgr;
	return 0;
}

/**
 * wddmseg_mgr_fini - evict everything from a segment and free its manager
 * @wdev: device
 * @segment_id: segment whose manager wddmseg_mgr_init() created
 */
void wddmseg_mgr_fini(struct wddmseg_device *wdev, u32 segment_id)
{
	struct wddmseg_mgr *mgr = wdev->mgr[segment_id - 1];
	int ret;

	if (!mgr)
		return;

	ttm_resource_manager_set_used(&mgr->manager, false);
	ret = ttm_resource_manager_evict_all(&wdev->bdev, &mgr->manager);
	if (ret)
		drm_err(&wdev->drm, "segment %u: eviction at teardown failed: %d\n",
			segment_id, ret);

	spin_lock(&mgr->lock);
	drm_mm_takedown(&mgr->mm);
	spin_unlock(&mgr->lock);

	ttm_resource_manager_cleanup(&mgr->manager);
	ttm_set_driver_manager(&wdev->bdev, wdev->mem_type[segment_id - 1], NULL);
	wdev->mgr[segment_id - 1] = NULL;
	bitmap_free(mgr->zeroed);
	kfree(mgr);
}

/**
 * wddmseg_mem_type_segment - segment id of a TTM memory type
 * @wdev: device
 * @mem_type: TTM memory type
 *
 * Return: the segment id, or WDDMSEG_SEGMENT_SYSTEM for system memory.
 */
u32 wddmseg_mem_type_segment(struct wddmseg_device *wdev, u32 mem_type)
{
	u32 i;

	for (i = 0; i < wdev->desc.segment_count; i++)
		if (wdev->mem_type[i] == mem_type)
			return i + 1;
	return WDDMSEG_SEGMENT_SYSTEM;
}

/**
 * wddmseg_res_segment - segment id of a buffer object's resource
 * @wdev: device
 * @res: resource, or NULL (no resource: see wddmseg_res_mem_type())
 *
 * Return: the segment id, or WDDMSEG_SEGMENT_SYSTEM for system memory and
 * for no resource at all.
 */
u32 wddmseg_res_segment(struct wddmseg_device *wdev,
			const struct ttm_resource *res)
{
	return wddmseg_mem_type_segment(wdev, wddmseg_res_mem_type(res));
}

/**
 * wddmseg_mgr_res - the segment manager of a resource
 * @wdev: device
 * @res: resource, or NULL
 *
 * Return: its manager, or NULL for system memory and for no resource.
 */
struct wddmseg_mgr *wddmseg_mgr_res(struct wddmseg_device *wdev,
				    const struct ttm_resource *res)
{
	u32 id = wddmseg_res_segment(wdev, res);

	return id ? wdev->mgr[id - 1] : NULL;
}

/**
 * wddmseg_mgr_node_res - the resource of a range of a segment
 * @node: a node of a segment manager's drm_mm
 *
 * Return: the resource it was allocated for.
 */
struct ttm_resource *wddmseg_mgr_node_res(struct drm_mm_node *node)
{
	if (node->color == WDDMSEG_MGR_BLOCK)
		return &container_of(node, struct wddmseg_mgr_block,
				     mm)->owner->base;
	return &container_of(node, struct wddmseg_mgr_node, mm)->base;
}

/**
 * wddmseg_mgr_node_is_first - whether a range is the first of its resource
 * @node: a node of a segment manager's drm_mm
 *
 * Return: true for the one range of a contiguous resource and the first
 * of a resource made of blocks; walks over a segment's ranges visit each
 * resource once by skipping the others.
 */
bool wddmseg_mgr_node_is_first(const struct drm_mm_node *node)
{
	return node->color != WDDMSEG_MGR_BLOCK;
}

/**
 * wddmseg_mgr_res_contiguous - whether a segment resource is one range
 * @res: a resource one of the segment managers allocated
 *
 * Return: true unless @res is made of blocks (DOC: VRAM made of blocks).
 */
bool wddmseg_mgr_res_contiguous(const struct ttm_resource *res)
{
	return !to_mgr_node_const(res)->nr_blocks;
}

/**
 * wddmseg_mgr_res_run - where a page of a segment resource is
 * @res: a resource one of the segment managers allocated
 * @page: page of @res, below wddmseg_mgr_res_pages()
 * @run: set to the number of pages from @page on that are contiguous in
 *	the segment (to the end of @page's range)
 *
 * Return: the page of the segment that holds page @page of @res.
 */
u64 wddmseg_mgr_res_run(const struct ttm_resource *res, u64 page, u64 *run)
{
	const struct wddmseg_mgr_node *node = to_mgr_node_const(res);
	const struct wddmseg_mgr_block *b;
	u32 lo = 0, hi = node->nr_blocks;

	if (page < node->mm.size) {
		*run = node->mm.size - page;
		return node->mm.start + page;
	}
	/* The last block starting at or before @page. */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (node->blocks[mid]->pgoff <= page)
			lo = mid;
		else
			hi = mid;
	}
	b = node->blocks[lo];
	*run = b->mm.size - (page - b->pgoff);
	return b->mm.start + page - b->pgoff;
}

/**
 * wddmseg_mgr_res_pages - size of a resource of a segment, in pages
 * @res: a resource one of the segment managers allocated
 *
 * The segment's own record of the ranges: how TTM
 * stores a resource's size changed after 6.1 (ttm_resource.num_pages
 * became .size, in bytes), this did not.
 *
 * Return: the number of pages.
 */
u64 wddmseg_mgr_res_pages(struct ttm_resource *res)
{
	return to_mgr_node(res)->pages;
}

/**
 * wddmseg_mgr_res_is_aperture - whether a resource is an aperture range
 * @wdev: device
 * @res: resource, or NULL
 *
 * Return: true when @res lies in an aperture segment (its pages are
 * system pages bound through the aperture page table).
 */
bool wddmseg_mgr_res_is_aperture(struct wddmseg_device *wdev,
				 const struct ttm_resource *res)
{
	struct wddmseg_mgr *mgr = wddmseg_mgr_res(wdev, res);

	return mgr && wddmseg_segment_is_aperture(mgr->desc);
}

/**
 * wddmseg_mgr_res_zeroed - whether a new VRAM resource already reads zero
 * @res: a resource one of the segment managers allocated
 *
 * Return: true when every page of @res was known to be zero when it was
 * allocated (it will be once the paging work queued before has run: the
 * manager's move fence, which TTM put into the allocation's reservation).
 * Always false for aperture resources.
 */
bool wddmseg_mgr_res_zeroed(const struct ttm_resource *res)
{
	return container_of(res, struct wddmseg_mgr_node, base)->zeroed;
}

/**
 * wddmseg_mgr_res_set_zero_content - note that a VRAM resource holds
 *	zeroes only
 * @res: a resource of a memory segment that a move just filled with
 *	zeroes, or found known zero
 */
void wddmseg_mgr_res_set_zero_content(struct ttm_resource *res)
{
	to_mgr_node(res)->zero_content = true;
}

/**
 * wddmseg_mgr_res_zero_content - whether a VRAM resource got zeroes only
 * @res: a resource of a memory segment
 *
 * Return: true after wddmseg_mgr_res_set_zero_content(). Writes to the
 * allocation in place (mappings, blits) are the caller's to rule out.
 */
bool wddmseg_mgr_res_zero_content(const struct ttm_resource *res)
{
	return container_of(res, struct wddmseg_mgr_node, base)->zero_content;
}

/**
 * wddmseg_mgr_res_wiped - note that a Fill of zeroes over a resource is queued
 * @res: a VRAM resource about to be freed
 *
 * Its pages count as known zero once it is freed. The caller makes the
 * Fill's fence the manager's move fence before freeing it.
 */
void wddmseg_mgr_res_wiped(struct ttm_resource *res)
{
	to_mgr_node(res)->wiped = true;
}

/**
 * wddmseg_mgr_set_zeroed - mark every free page of a memory segment
 * @mgr: the segment
 * @zeroed: true after a Fill of the whole segment was queued (the caller
 *	made it the move fence) while nothing was allocated; false to
 *	forget what was known
 */
void wddmseg_mgr_set_zeroed(struct wddmseg_mgr *mgr, bool zeroed)
{
	struct drm_mm_node *hole;
	u64 start, end;

	if (!mgr->zeroed)
		return;
	spin_lock(&mgr->lock);
	if (!zeroed) {
		bitmap_zero(mgr->zeroed, mgr->manager.size);
	} else {
		drm_mm_for_each_hole(hole, &mgr->mm, start, end)
			bitmap_set(mgr->zeroed, start, end - start);
	}
	spin_unlock(&mgr->lock);
}

/**
 * wddmseg_mgr_forget_zeroed - nothing in VRAM is known to be zero any more
 * @wdev: device
 *
 * After an engine reset a queued wipe may have failed: from then on every
 * new placement in VRAM is filled again until the next wipes.
 */
void wddmseg_mgr_forget_zeroed(struct wddmseg_device *wdev)
{
	u32 i;

	for (i = 0; i < WDDMSEG_MAX_SEGMENTS; i++)
		if (wdev->mgr[i])
			wddmseg_mgr_set_zeroed(wdev->mgr[i], false);
}

#ifdef WDDMSEG_KUNIT_VRAM
#include "tests/wddmseg_vram_test.c"
#endif
