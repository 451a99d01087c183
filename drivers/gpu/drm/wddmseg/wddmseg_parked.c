// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parked system pages: an allocation that moves into VRAM keeps the system
 * pages of its last stay in system memory or an aperture, for its next
 * eviction, and gives them back under memory pressure (a shrinker).
 *
 * The same record holds the permanent system-memory copy of a
 * PermanentSysMem allocation while it is in a memory segment: never given
 * back, not counted against keep_sysmem_mb (DOC: PermanentSysMem).
 */

/**
 * DOC: PermanentSysMem
 *
 * A PermanentSysMem allocation (DXGK_ALLOCATIONINFOFLAGS bit 1, which
 * needs CpuVisible) has a copy in system memory for its whole life, and
 * that copy is the allocation's content; the copy in a memory segment
 * (VRAM) is the engine's working copy of it:
 *
 * - In system memory or an aperture the allocation's pages are the copy.
 *   When it moves into a memory segment, the pages are Transferred there
 *   and parked (as the parked pages below, but never given back to the
 *   shrinker nor counted against keep_sysmem_mb); when it leaves for
 *   system memory they become its pages again and the segment's copy is
 *   dropped with a DiscardContent: an eviction never Transfers anything
 *   (sysfs ``discard_bytes``, not ``transfer_out_bytes``). A move into an
 *   aperture goes through system memory (a TTM hop), where it is only
 *   bound; evictions leave aperture segments out of the eviction set and
 *   go to system memory, the copy. A move between memory segments is a
 *   Transfer, as for any allocation.
 *
 * - The CPU always reaches the copy (pfnLockCb returns the system-memory
 *   backing store): mmap faults in a memory segment map the parked pages
 *   (cached or write-combined as the Cached flag says), never the BAR,
 *   and never migrate; ptrace and /proc/PID/mem (access_memory) use them
 *   too; a kernel mapping (vmap of an exported allocation) first moves
 *   the allocation into system memory.
 *
 * - Coherency with the engine. A fault of a writable mapping in a memory
 *   segment marks the copy possibly newer (&wddmseg_bo.perm_cpu_dirty).
 *   Before a blit uses the segment's copy of such an allocation, the
 *   CPU mappings are zapped (the next CPU access faults and marks it
 *   again) and a Transfer refreshes the segment's copy from the permanent
 *   one, queued ahead of the blit; WDDM does the same at pfnUnlockCb. A
 *   blit that writes the segment's copy is written through: a Transfer of
 *   the written range back into the permanent copy follows it on the
 *   engine, and the blit's fence (GEM_WAIT, the sync_file) covers both.
 *   So once its fences have signalled the segment's copy is never newer
 *   than the permanent one: every eviction is clean, a discard, and a
 *   CPU read after GEM_WAIT sees what the engine wrote. CPU writes that
 *   race with engine work on the same bytes are undefined, as for any
 *   allocation.
 *
 * - A new allocation placed in a memory segment has no copy until it
 *   needs one (the first CPU fault, ptrace access or blit): its content
 *   is zeroes then, and so are the copy's pages, from TTM's pool.
 *   GEM_EVICT with DISCARD drops the copy too. KMS refuses PermanentSysMem
 *   framebuffers (WDDM forbids it on the primary).
 */

#include <linux/dma-fence.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/shrinker.h>
#include <linux/slab.h>

#include <drm/ttm/ttm_pool.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_bo.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_parked.h"
#include "wddmseg_params.h"
#include "wddmseg_ttm.h"

/**
 * struct wddmseg_parked - system pages an allocation left behind in VRAM
 * @link: in &wddmseg_device.parked_list
 * @bo: the allocation
 * @num_pages: number of pages
 * @caching: their caching
 * @pages: the pages, still DMA-mapped: the page array of the ttm_tt they
 *	came from (TTM allocates it with @dma_address behind it, as one block)
 * @dma_address: their DMA addresses
 * @fence: the copy out of the pages, which may still run, or NULL
 * @permanent: the permanent copy of a PermanentSysMem allocation: not on
 *	&wddmseg_device.parked_list (the shrinker never sees it), and the
 *	record is the allocation's &wddmseg_bo.perm_slot when not in use
 *
 * TTM frees the ttm_tt of an allocation that moves into VRAM, and gives a
 * new one when it moves out again; with TTM's page pool every round trip
 * then clears all pages once (the pool clears pages it takes back) and
 * the copy overwrites them again. The pages are parked here instead, up to
 * keep_sysmem_mb in total, and go back to the pool when the allocation is
 * destroyed or under memory pressure (wddmseg_parked_scan()). They only
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
struct wddmseg_parked {
	struct list_head link;
	struct wddmseg_bo *bo;
	pgoff_t num_pages;
	enum ttm_caching caching;
	struct page **pages;
	dma_addr_t *dma_address;
	struct dma_fence *fence;
	bool permanent;
};

/* Unlink @bo's parked pages; the caller owns them then. */
static struct wddmseg_parked *wddmseg_parked_take(struct wddmseg_device *wdev,
						  struct wddmseg_bo *bo)
{
	struct wddmseg_parked *k;

	spin_lock(&wdev->parked_lock);
	k = bo->parked;
	if (k) {
		bo->parked = NULL;
		if (!k->permanent) {
			list_del(&k->link);
			wdev->parked_pages -= k->num_pages;
		}
	}
	spin_unlock(&wdev->parked_lock);
	return k;
}

/* Free a record, or give a permanent one back to its allocation's slot. */
static void wddmseg_parked_release(struct wddmseg_parked *k)
{
	k->pages = NULL;
	k->dma_address = NULL;
	k->fence = NULL;
	if (k->permanent)
		k->bo->perm_slot = k;
	else
		kfree(k);
}

/*
 * Give parked pages back to TTM's pool (which unmaps them) once the copy
 * out of them is done, and free their arrays.
 */
static void wddmseg_parked_free(struct wddmseg_device *wdev,
				struct wddmseg_parked *k)
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
	wddmseg_parked_release(k);
}

/* Does @tt hold its arrays as one block, page array first (TTM's layout)? */
static bool wddmseg_tt_arrays_joined(const struct ttm_tt *tt)
{
	return tt->pages &&
	       tt->dma_address == (dma_addr_t *)(tt->pages + tt->num_pages);
}

/**
 * wddmseg_bo_free_parked - free the system pages an allocation parked
 * @bo: allocation being destroyed
 */
void wddmseg_bo_free_parked(struct wddmseg_bo *bo)
{
	struct wddmseg_parked *k;

	/* Nobody else sets it; the shrinker may clear it under the lock. */
	if (!READ_ONCE(bo->parked))
		return;
	k = wddmseg_parked_take(bdev_to_wddmseg(bo->tbo.bdev), bo);
	if (k)
		wddmseg_parked_free(bdev_to_wddmseg(bo->tbo.bdev), k);
}

/*
 * The permanent copy of a PermanentSysMem allocation moving into a memory
 * segment: always parked, in the record allocated for it.
 */
static bool wddmseg_perm_park(struct wddmseg_device *wdev,
			      struct wddmseg_tt *wtt)
{
	struct wddmseg_bo *bo = wtt->bo;
	struct ttm_tt *tt = &wtt->ttm;
	struct wddmseg_parked *k = bo->perm_slot;

	if (READ_ONCE(bo->parked))
		return false;	/* cannot happen: the copy is in this ttm_tt */
	bo->perm_slot = NULL;
	k->num_pages = tt->num_pages;
	k->caching = tt->caching;
	k->pages = tt->pages;
	k->dma_address = tt->dma_address;
	k->fence = dma_fence_get(wtt->park_fence);
	spin_lock(&wdev->parked_lock);
	bo->parked = k;
	spin_unlock(&wdev->parked_lock);
	tt->pages = NULL;
	tt->dma_address = NULL;
	return true;
}

/*
 * Unpopulate of a ttm_tt marked to park (&wddmseg_tt.park): park its
 * pages, taking its arrays along (the ttm_tt is destroyed next and frees
 * none then). False: no room.
 */
bool wddmseg_park_pages(struct wddmseg_device *wdev, struct wddmseg_tt *wtt)
{
	struct ttm_tt *tt = &wtt->ttm;
	struct wddmseg_parked *k;
	bool ok = false;

	if (!wddmseg_tt_arrays_joined(tt))
		return false;
	if (wtt->bo->perm_slot)
		return wddmseg_perm_park(wdev, wtt);
	if (tt->num_pages > ((unsigned long)READ_ONCE(wddmseg_keep_sysmem_mb) <<
			     (20 - PAGE_SHIFT)))
		return false;
	k = kmalloc_obj(*k, GFP_KERNEL | __GFP_NOWARN);
	if (!k)
		return false;
	k->permanent = false;
	k->bo = wtt->bo;
	k->num_pages = tt->num_pages;
	k->caching = tt->caching;
	k->pages = tt->pages;
	k->dma_address = tt->dma_address;
	k->fence = NULL;

	spin_lock(&wdev->parked_lock);
	if (!wtt->bo->parked && wdev->parked_pages + tt->num_pages <=
	    ((unsigned long)READ_ONCE(wddmseg_keep_sysmem_mb) << (20 - PAGE_SHIFT))) {
		k->fence = dma_fence_get(wtt->park_fence);
		wtt->bo->parked = k;
		list_add_tail(&k->link, &wdev->parked_list);
		wdev->parked_pages += k->num_pages;
		ok = true;
	}
	spin_unlock(&wdev->parked_lock);
	if (!ok) {
		kfree(k);
		return false;
	}
	tt->pages = NULL;
	tt->dma_address = NULL;
	return true;
}

/*
 * Populate from the pages the allocation parked, if it parked a matching set
 * and TTM does not need zeroed pages. Other parked pages are freed.
 */
bool wddmseg_unpark_pages(struct wddmseg_device *wdev, struct wddmseg_tt *wtt)
{
	struct ttm_tt *tt = &wtt->ttm;
	struct wddmseg_parked *k;

	if (!wtt->bo || !READ_ONCE(wtt->bo->parked))
		return false;
	k = wddmseg_parked_take(wdev, wtt->bo);
	if (!k)
		return false;
	/*
	 * A permanent copy is the content: it supersedes the zeroes TTM
	 * asks for (a ttm_tt created for content that never existed).
	 */
	if (k->num_pages != tt->num_pages || k->caching != tt->caching ||
	    (tt->page_flags & (k->permanent ? TTM_TT_FLAG_SWAPPED :
			       TTM_TT_FLAG_ZERO_ALLOC | TTM_TT_FLAG_SWAPPED)) ||
	    !wddmseg_tt_arrays_joined(tt)) {
		wddmseg_parked_free(wdev, k);
		return false;
	}
	/* The new ttm_tt's (empty) arrays give way to the parked ones. */
	kvfree(tt->pages);
	tt->pages = k->pages;
	tt->dma_address = k->dma_address;
	dma_fence_put(k->fence);
	wddmseg_parked_release(k);
	return true;
}

/*
 * Mark @tbo's ttm_tt: park its pages if TTM unpopulates it now; @fence
 * (or NULL) is a copy that may still read them. Under the reservation.
 */
void wddmseg_tt_set_park(struct ttm_buffer_object *tbo, bool park,
			 struct dma_fence *fence)
{
	struct wddmseg_tt *wtt;

	dma_resv_assert_held(tbo->base.resv);
	if (!tbo->ttm)
		return;
	wtt = to_wddmseg_tt(tbo->ttm);
	wtt->park = park;
	wtt->park_fence = fence;
}

static unsigned long wddmseg_parked_count(struct shrinker *shrink,
					  struct shrink_control *sc)
{
	struct wddmseg_device *wdev = wddmseg_shrinker_data(shrink);
	unsigned long n = READ_ONCE(wdev->parked_pages);

	return n ? n : SHRINK_EMPTY;
}

/*
 * Free up to @max parked pages, oldest first; returns how many. Without
 * @wait it stops at pages a copy still reads: reclaim must not wait for
 * the engine, whose recovery allocates memory.
 */
static unsigned long wddmseg_parked_shrink(struct wddmseg_device *wdev,
					   unsigned long max, bool wait)
{
	unsigned long freed = 0;
	struct wddmseg_parked *k;

	while (freed < max) {
		spin_lock(&wdev->parked_lock);
		k = list_first_entry_or_null(&wdev->parked_list,
					     struct wddmseg_parked, link);
		if (k && !wait && k->fence &&
		    !dma_fence_is_signaled(k->fence))
			k = NULL;
		if (k) {
			k->bo->parked = NULL;
			list_del(&k->link);
			wdev->parked_pages -= k->num_pages;
		}
		spin_unlock(&wdev->parked_lock);
		if (!k)
			break;
		freed += k->num_pages;
		wddmseg_parked_free(wdev, k);
	}
	return freed;
}

/* Memory pressure: give parked pages back. */
static unsigned long wddmseg_parked_scan(struct shrinker *shrink,
					 struct shrink_control *sc)
{
	struct wddmseg_device *wdev = wddmseg_shrinker_data(shrink);
	unsigned long freed = wddmseg_parked_shrink(wdev, sc->nr_to_scan,
						  false);

	return freed ? freed : SHRINK_STOP;
}

/**
 * wddmseg_parked_init - start keeping pages: the list and its shrinker
 * @wdev: device whose TTM device is initialized
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_parked_init(struct wddmseg_device *wdev)
{
	spin_lock_init(&wdev->parked_lock);
	INIT_LIST_HEAD(&wdev->parked_list);
	wdev->parked_pages = 0;
	wdev->parked_shrinker = wddmseg_shrinker_create(wddmseg_parked_count,
							wddmseg_parked_scan, wdev,
							wdev->drm.unique);
	return wdev->parked_shrinker ? 0 : -ENOMEM;
}

/**
 * wddmseg_parked_fini - give every parked page back
 * @wdev: device; normally its allocations are gone and took their pages
 */
void wddmseg_parked_fini(struct wddmseg_device *wdev)
{
	wddmseg_shrinker_destroy(wdev->parked_shrinker);
	wdev->parked_shrinker = NULL;
	wddmseg_parked_shrink(wdev, ULONG_MAX, true);
}

/**
 * wddmseg_perm_init - the record of a PermanentSysMem allocation's copy
 * @bo: new allocation with the PermanentSysMem flag
 *
 * Allocated with the allocation, so that keeping the copy when the
 * allocation moves into a memory segment cannot fail; freed with it.
 *
 * Return: 0 or -ENOMEM.
 */
int wddmseg_perm_init(struct wddmseg_bo *bo)
{
	struct wddmseg_parked *k = kzalloc_obj(*k, GFP_KERNEL);

	if (!k)
		return -ENOMEM;
	INIT_LIST_HEAD(&k->link);
	k->bo = bo;
	k->permanent = true;
	bo->perm_slot = k;
	return 0;
}

/**
 * wddmseg_perm_get - the permanent copy of an allocation in a memory segment
 * @bo: reserved PermanentSysMem allocation in a memory segment
 * @ctx: TTM operation context, for allocating pages
 * @copy: filled in
 *
 * An allocation whose content never was in system pages (placed in the
 * segment when created, or after a discard) has no copy yet; its content
 * is zeroes, since everything that writes it creates the copy first
 * (CPU faults, ptrace, blits). It gets zeroed pages from TTM's pool now.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_perm_get(struct wddmseg_bo *bo, struct ttm_operation_ctx *ctx,
		     struct wddmseg_perm_copy *copy)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(bo->tbo.bdev);
	pgoff_t n = PFN_UP(bo->tbo.base.size);
	struct wddmseg_parked *k;
	struct ttm_tt tt = {};
	int ret;

	dma_resv_assert_held(bo->tbo.base.resv);
	k = bo->parked;
	if (!k) {
		k = bo->perm_slot;
		if (!k)
			return -EINVAL;
		/* One block, page array first, as TTM lays out a ttm_tt. */
		tt.pages = kvcalloc(n, sizeof(*tt.pages) + sizeof(*tt.dma_address),
				    GFP_KERNEL);
		if (!tt.pages)
			return -ENOMEM;
		tt.dma_address = (dma_addr_t *)(tt.pages + n);
		tt.num_pages = n;
		tt.caching = wddmseg_bo_caching(bo);
		tt.page_flags = TTM_TT_FLAG_ZERO_ALLOC;
		ret = ttm_pool_alloc(&wdev->bdev.pool, &tt, ctx);
		if (ret) {
			kvfree(tt.pages);
			return ret;
		}
		bo->perm_slot = NULL;
		k->num_pages = n;
		k->caching = tt.caching;
		k->pages = tt.pages;
		k->dma_address = tt.dma_address;
		k->fence = NULL;
		spin_lock(&wdev->parked_lock);
		bo->parked = k;
		spin_unlock(&wdev->parked_lock);
	}
	copy->pages = k->pages;
	copy->dma_address = k->dma_address;
	copy->caching = k->caching;
	return 0;
}
