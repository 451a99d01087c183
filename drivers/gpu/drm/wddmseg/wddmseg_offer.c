// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offer and reclaim: allocations whose content the driver may drop instead
 * of copying it out (D3DKMTOfferAllocations, D3DKMTReclaimAllocations2);
 * and the eviction priority of allocations (D3DKMTSetAllocationPriority).
 */

/**
 * DOC: Offer and reclaim
 *
 * OFFER_ALLOCATIONS marks allocations (&wddmseg_bo.offer_priority) and
 * moves them to the first TTM LRU list (WDDMSEG_TTM_PRIO_OFFERED): TTM
 * walks its lists from priority 0 up when it looks for something to
 * evict, and every allocation that is not offered lives in a later one
 * (DOC: Allocation priority), so offered allocations are evicted before
 * any other one of the segment, whatever their allocation priority.
 *
 * TTM has no list left for the offer priority (DOC: Allocation priority),
 * so it orders the discards within the offered list: TTM evicts from the
 * head of a list, and ttm_bo_move_to_lru_tail() puts an allocation at its
 * tail. The device keeps its offered allocations on a list of its own
 * (&wddmseg_device.offered, in the order of the offers, under
 * &wddmseg_device.offer_lock), and wddmseg_offer_sort() moves every one
 * of them to the tail, the LOW ones first, then NORMAL, then HIGH: the
 * LOW one offered first is then at the head, and of one segment an offered
 * LOW allocation is discarded before an offered NORMAL one, before an
 * offered HIGH one, whatever the order of the offers; within one offer
 * priority the one offered first goes first. OFFER sorts once its
 * reservations are dropped; RECLAIM takes allocations off the list (the
 * rest stays sorted), and so does the free of the last GEM reference.
 *
 * Nothing else may put an offered allocation at the tail and leave it
 * there. It is not used while offered (below: no blit, no CPU fault, no
 * MAKE_RESIDENT; submissions do not exist yet), so no use moves it: a
 * refused blit and a refused fault unlock with dma_resv_unlock(), which
 * moves nothing. TTM's own tail moves
 * are at ttm_bo_unreserve() (6.1, 6.12 and 7.3 alike), a new resource
 * (ttm_bo_validate()) and, on 6.12 and 7.3, the last unpin: every path of
 * the driver that reserves an allocation which may be offered (GEM_INFO,
 * GEM_EVICT and GEM_MOVE, a refused MAKE_RESIDENT, CPU access through
 * the file, a scanout pin or unpin, the residency event) lets it go through
 * wddmseg_bo_unreserve(), which sorts again when it was offered. TTM's
 * evictions unlock their candidates with dma_resv_unlock(), and one TTM
 * evicts leaves the segment's list anyway; suspend (wddmseg_pm.c) evicts,
 * so discards, every offered allocation. Not covered: a kernel vmap of an
 * offered allocation (its vunmap unpins under the caller's reservation on
 * 6.12 and 7.3); kernel vmaps are of kernel allocations and exported ones,
 * which cannot be offered.
 *
 * The sort takes each reservation with dma_resv_trylock() (it holds
 * offer_lock, and OFFER takes offer_lock under reservations): one held
 * elsewhere at that moment is skipped, so for a while lies before those
 * sorted. Its holder sorts again once it lets it go: the paths above,
 * OFFER, RECLAIM and SET_ALLOCATION_PRIORITY always, a refused blit or
 * CPU fault when one of theirs is offered. The one holder that does not
 * is a TTM eviction walk, which either evicts it (it leaves the segment)
 * or, rarely, fails to (6.1's ttm_mem_evict_first() then puts it at the
 * tail with ttm_bo_unreserve()); then the order is restored by the next
 * sort, at the latest the next OFFER.
 *
 * An eviction of an offered allocation is a discard: it goes to system
 * memory only (wddmseg_evict_flags()), and its move gives the segment's
 * copy up with a DiscardContent and a Fill of zeroes instead of a
 * Transfer (wddmseg_bo_move_drop(), sysfs ``discard_bytes``). Its parked
 * pages are freed, system pages it kept from an earlier stay are zeroed
 * once idle, and new ones are marked for clearing, so it reads as zeroes
 * from then on, never as its old content or anybody else's data; it is
 * marked &wddmseg_bo.discarded. Protected content is never exposed: a
 * discard reads nothing, and the range it leaves is zero-filled on the
 * engine like any discard. As nothing is copied, an offered
 * HardwareProtected allocation TTM could not seal is evictable too.
 *
 * While offered an allocation is not to be used: a CPU fault gets SIGBUS
 * (the CPU mappings are zapped by OFFER), a blit, MAKE_RESIDENT and a PRIME
 * export fail with -EINVAL, each with a drm_dbg line naming the rule
 * ``offered-no-access``. RECLAIM_ALLOCATIONS puts it back in the list of
 * its allocation priority, which SET_ALLOCATION_PRIORITY may have changed
 * while it was offered, and reports whether the content survived.
 *
 * Refused at OFFER: an allocation offered already (``offer-twice``),
 * imported or exported (``offer-prime``: another device may be using
 * it, and an importer's pages are not ours to drop), ExistingSysMem
 * (``offer-existing-sysmem``: its content is the user's memory),
 * PermanentSysMem (``offer-permanent-sysmem``: its system copy is its
 * content for life) and pinned ones (``offer-pinned``, -EBUSY: scanout
 * or a PRIME pin, which cannot move). Refused at RECLAIM: an allocation
 * not offered (``reclaim-not-offered``). A handle given twice in one call
 * is refused (``offer-duplicate``). Both ioctls are all or nothing.
 *
 * Every eviction counts: GEM_EVICT (with or without DISCARD) and the
 * evictions of a suspend discard an offered allocation too. One pinned
 * after its offer (a framebuffer being scanned out) is not evicted while
 * pinned, so keeps its content, and RECLAIM says so.
 *
 * Offered allocations in system memory give their pages back under
 * system memory pressure: a shrinker (wddmseg_offer_scan()) drops the
 * pages of idle, unpinned offered allocations placed in system memory,
 * LOW offer priority first (the order of &wddmseg_device.offered once
 * sorted, see above), as the segments' evictions would. Such a purge is a
 * discard like the others: RECLAIM reports it, the allocation reads as
 * zeroes afterwards, and its file's ``wddmseg-discard-bytes`` (fdinfo)
 * counts it. Reclaim never waits: an allocation whose reservation is held
 * or whose last use by the engine has not finished is skipped, and so is
 * one in an aperture segment (its pages are bound there; the aperture's
 * own evictions discard it) or whose pages TTM swapped out already.
 */

/**
 * DOC: Allocation priority
 *
 * SET_ALLOCATION_PRIORITY (D3DKMTSetAllocationPriority) gives allocations
 * one of the five D3DDDI_ALLOCATIONPRIORITY values, with WDDM's numbers
 * (WDDMSEG_ALLOCATION_PRIORITY_MINIMUM to _MAXIMUM; any other value is
 * refused, rule ``prio-value``). Every allocation starts NORMAL; GEM_INFO
 * reads the priority back. It orders evictions: when a segment has no
 * room left, allocations of a lower priority are evicted before those of
 * a higher one, whichever process they belong to, and offered allocations
 * before all of them.
 *
 * TTM chooses what to evict, not the driver: it walks the LRU lists of
 * the segment's resource manager from &ttm_buffer_object.priority 0 up,
 * each from its least recently used end, and evicts the first allocation
 * it may. There are TTM_MAX_BO_PRIORITY lists, 4 in 6.1, 6.12 and 7.3,
 * for what WDDM orders in eight classes (three offer priorities, five
 * allocation priorities). The driver uses them as
 *
 * - 0 (WDDMSEG_TTM_PRIO_OFFERED): every offered allocation, kept sorted
 *   by offer priority within the list (DOC: Offer and reclaim);
 * - 1 (WDDMSEG_TTM_PRIO_LOW): MINIMUM and LOW;
 * - 2 (WDDMSEG_TTM_PRIO_DEFAULT): NORMAL, every allocation at creation;
 * - 3 (WDDMSEG_TTM_PRIO_HIGH): HIGH and MAXIMUM;
 *
 * (wddmseg_bo_ttm_priority()). Offered allocations keep a list of their
 * own, as their eviction is a discard that costs nothing, and NORMAL
 * does too, so that moving an allocation off the default, up or down,
 * always changes its order against the allocations nobody touched; the
 * two ends share a list each, and within a list the least recently used
 * allocation goes first. So the order is strict between the four
 * classes and LRU inside each: MINIMUM before NORMAL before HIGH, but a
 * MINIMUM allocation used more recently than a LOW one is evicted after
 * it, and so for HIGH and MAXIMUM.
 *
 * Why not more: &ttm_device_funcs.eviction_valuable (the other hook TTM
 * offers) is asked about one candidate at a time, in TTM's walk order, and
 * can only refuse it. Refusing a LOW allocation because a MINIMUM one
 * comes later in the walk is wrong whenever that one then cannot be
 * evicted (its reservation held by another thread, outside the bank range
 * asked for, protected content that may not leave): the walk ends with
 * nothing evicted, and the allocation fails for want of room that was
 * there to take. TTM may walk again (after waiting for a busy
 * allocation; on 6.12 and 7.3 a trylock walk, then locking ones), but
 * asks the hook the same question each time, so no walk takes the
 * refused one instead. Ordering by lists alone never makes an eviction
 * fail that would succeed otherwise.
 *
 * The priority is kept while the allocation is offered (the offered list
 * comes first whatever it is) and decides its list again when it is
 * reclaimed. An imported allocation (PRIME, from another device) lives in
 * system memory only, so has no place to be evicted from: a priority for
 * it would be accepted and ignored, so it is refused (``prio-import``).
 * Pinned allocations are on no LRU list and are never evicted; theirs
 * applies once they are unpinned. All or nothing; refused (-EINVAL, with a
 * drm_dbg line naming the rule): ``prio-value``, ``prio-flags`` (no flag
 * is defined), ``prio-reserved`` (``pad`` or ``reserved`` not zero),
 * ``prio-count`` (0 or more than WDDMSEG_OFFER_MAX_HANDLES handles),
 * ``prio-duplicate`` (a handle given twice), ``prio-import`` (above); an
 * unknown handle gets -ENOENT.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_compat.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_file.h"
#include "wddmseg_mgr.h"
#include "wddmseg_offer.h"

/**
 * wddmseg_offer_check - refuse to use an offered allocation
 * @bo: allocation
 * @what: the operation, for the log
 *
 * Return: 0, or -EINVAL while @bo is offered.
 */
int wddmseg_offer_check(struct wddmseg_bo *bo, const char *what)
{
	if (!READ_ONCE(bo->offer_priority))
		return 0;
	drm_dbg(bo->tbo.base.dev,
		"%s: rule offered-no-access: the allocation is offered; reclaim it first\n",
		what);
	return -EINVAL;
}

/* Put @bo on the LRU list of TTM priority @prio. Reserved. */
static void wddmseg_offer_set_lru(struct wddmseg_bo *bo, unsigned int prio)
{
	dma_resv_assert_held(bo->tbo.base.resv);
	bo->tbo.priority = prio;
	if (bo->tbo.resource)
		ttm_bo_move_to_lru_tail_unlocked(&bo->tbo);
}

/**
 * wddmseg_offer_sort - order the offered allocations by offer priority
 * @wdev: device
 *
 * Moves every offered allocation to the tail of its TTM LRU list
 * (WDDMSEG_TTM_PRIO_OFFERED of its memory type), the LOW ones first, then
 * the NORMAL, then the HIGH ones, each in the order they were offered: the
 * head of the list, where TTM evicts from, is then the LOW one offered
 * first (DOC: Offer and reclaim). Canonical, not incremental: whatever
 * moved an offered allocation since, this puts it back in its place. One
 * whose reservation is held elsewhere is skipped (trylock), and stays
 * before the ones sorted; whoever holds it sorts again on letting it go.
 * Call with no reservation of an offered allocation held.
 */
void wddmseg_offer_sort(struct wddmseg_device *wdev)
{
	struct wddmseg_bo *bo;
	u32 prio;

	mutex_lock(&wdev->offer_lock);
	for (prio = WDDMSEG_OFFER_PRIORITY_LOW;
	     prio <= WDDMSEG_OFFER_PRIORITY_HIGH; prio++) {
		list_for_each_entry(bo, &wdev->offered, offer_link) {
			if (bo->offer_priority != prio)
				continue;
			if (!dma_resv_trylock(bo->tbo.base.resv))
				continue;
			if (bo->tbo.resource && !bo->tbo.pin_count)
				ttm_bo_move_to_lru_tail_unlocked(&bo->tbo);
			dma_resv_unlock(bo->tbo.base.resv);
		}
	}
	mutex_unlock(&wdev->offer_lock);
}

/**
 * wddmseg_offer_forget - take a freed allocation off the offered list
 * @bo: allocation whose last GEM reference is gone
 */
void wddmseg_offer_forget(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = wddmseg_bo_wdev(bo);

	mutex_lock(&wdev->offer_lock);
	list_del_init(&bo->offer_link);
	mutex_unlock(&wdev->offer_lock);
}

/**
 * wddmseg_bo_unreserve - ttm_bo_unreserve(), keeping the offered order
 * @bo: reserved allocation, referenced by the caller
 *
 * ttm_bo_unreserve() moves @bo to the tail of its LRU list (6.1, 6.12 and
 * 7.3 alike), and what the caller did under the reservation may have
 * given it a new resource or unpinned it, which puts it at the tail too:
 * for an offered allocation that would break the order of offer
 * priorities, so it is sorted again (DOC: Offer and reclaim).
 */
void wddmseg_bo_unreserve(struct wddmseg_bo *bo)
{
	bool offered = bo->offer_priority;

	ttm_bo_unreserve(&bo->tbo);
	if (offered)
		wddmseg_offer_sort(wddmseg_bo_wdev(bo));
}

/*
 * Pages of an offered allocation the shrinker may drop now: placed in
 * system memory, populated, not pinned, not in use by the engine. Under
 * the reservation.
 */
static unsigned long wddmseg_offer_purgeable(struct wddmseg_bo *bo)
{
	struct ttm_buffer_object *tbo = &bo->tbo;

	dma_resv_assert_held(tbo->base.resv);
	if (!bo->offer_priority || tbo->pin_count || !tbo->resource ||
	    wddmseg_res_mem_type(tbo->resource) != TTM_PL_SYSTEM ||
	    !tbo->ttm || !ttm_tt_is_populated(tbo->ttm) ||
	    !dma_resv_test_signaled(tbo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		return 0;
	return tbo->ttm->num_pages;
}

/*
 * Drop the pages of @bo if it is purgeable (DOC: Offer and reclaim);
 * returns how many. Nothing here waits or allocates: an idle allocation's
 * validation to no placement frees its resource and unpopulates its
 * ttm_tt (TTM's pipeline gutting), which it marks for clearing.
 */
static unsigned long wddmseg_offer_purge(struct wddmseg_bo *bo)
{
	struct ttm_operation_ctx ctx = { .no_wait_gpu = true };
	struct ttm_buffer_object *tbo = &bo->tbo;
	unsigned long pages;

	if (!dma_resv_trylock(tbo->base.resv))
		return 0;
	pages = wddmseg_offer_purgeable(bo);
	if (pages && wddmseg_bo_drop_pages(bo, &ctx))
		pages = 0;
	if (pages && bo->owner)
		atomic64_add(tbo->base.size, &bo->owner->discard_bytes);
	dma_resv_unlock(tbo->base.resv);
	return pages;
}

static unsigned long wddmseg_offer_count(struct shrinker *shrink,
					 struct shrink_control *sc)
{
	struct wddmseg_device *wdev = wddmseg_shrinker_data(shrink);
	unsigned long n = 0;
	struct wddmseg_bo *bo;

	if (!mutex_trylock(&wdev->offer_lock))
		return 0;
	list_for_each_entry(bo, &wdev->offered, offer_link) {
		if (!dma_resv_trylock(bo->tbo.base.resv))
			continue;
		n += wddmseg_offer_purgeable(bo);
		dma_resv_unlock(bo->tbo.base.resv);
	}
	mutex_unlock(&wdev->offer_lock);
	return n ? n : SHRINK_EMPTY;
}

/* System memory pressure: drop offered allocations' pages, LOW first. */
static unsigned long wddmseg_offer_scan(struct shrinker *shrink,
					struct shrink_control *sc)
{
	struct wddmseg_device *wdev = wddmseg_shrinker_data(shrink);
	unsigned long freed = 0;
	struct wddmseg_bo *bo;
	u32 prio;

	if (!mutex_trylock(&wdev->offer_lock))
		return SHRINK_STOP;
	for (prio = WDDMSEG_OFFER_PRIORITY_LOW;
	     prio <= WDDMSEG_OFFER_PRIORITY_HIGH && freed < sc->nr_to_scan;
	     prio++) {
		list_for_each_entry(bo, &wdev->offered, offer_link) {
			if (freed >= sc->nr_to_scan)
				break;
			if (bo->offer_priority == prio)
				freed += wddmseg_offer_purge(bo);
		}
	}
	mutex_unlock(&wdev->offer_lock);
	return freed ? freed : SHRINK_STOP;
}

/**
 * wddmseg_offer_init - the offered list and its shrinker
 * @wdev: device whose TTM device is initialized
 *
 * Return: 0 or -ENOMEM.
 */
int wddmseg_offer_init(struct wddmseg_device *wdev)
{
	wdev->offer_shrinker = wddmseg_shrinker_create(wddmseg_offer_count,
						       wddmseg_offer_scan, wdev,
						       wdev->drm.unique);
	return wdev->offer_shrinker ? 0 : -ENOMEM;
}

/**
 * wddmseg_offer_fini - stop the shrinker of offered allocations
 * @wdev: device
 */
void wddmseg_offer_fini(struct wddmseg_device *wdev)
{
	wddmseg_shrinker_destroy(wdev->offer_shrinker);
	wdev->offer_shrinker = NULL;
}

static void wddmseg_offer_put(struct drm_gem_object **objs, u32 count)
{
	u32 i;

	for (i = 0; i < count; i++)
		if (objs[i])
			drm_gem_object_put(objs[i]);
	kvfree(objs);
}

/*
 * Copy @count handles from @uptr and look them up. Return: the objects
 * (free with wddmseg_offer_put()) or an ERR_PTR.
 */
static struct drm_gem_object **
wddmseg_offer_lookup(struct drm_file *file, const char *what, u64 uptr,
		     u32 count)
{
	struct drm_device *drm = file->minor->dev;
	struct drm_gem_object **objs;
	u32 *handles;
	u32 i;

	if (!count || count > WDDMSEG_OFFER_MAX_HANDLES) {
		drm_dbg(drm, "%s: count %u: 1 to %u handles\n", what, count,
			WDDMSEG_OFFER_MAX_HANDLES);
		return ERR_PTR(-EINVAL);
	}
	handles = kvmalloc_array(count, sizeof(*handles), GFP_KERNEL);
	if (!handles)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(handles, u64_to_user_ptr(uptr),
			   count * sizeof(*handles))) {
		kvfree(handles);
		return ERR_PTR(-EFAULT);
	}
	objs = kvcalloc(count, sizeof(*objs), GFP_KERNEL);
	if (!objs) {
		kvfree(handles);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < count; i++) {
		objs[i] = drm_gem_object_lookup(file, handles[i]);
		if (!objs[i]) {
			drm_dbg(drm, "%s: handle %u (index %u) does not exist\n",
				what, handles[i], i);
			kvfree(handles);
			wddmseg_offer_put(objs, count);
			return ERR_PTR(-ENOENT);
		}
	}
	kvfree(handles);
	return objs;
}

/* Lock every reservation; a handle twice is refused. */
static int wddmseg_offer_lock(struct drm_device *drm, const char *what,
			      const char *rule, struct drm_gem_object **objs,
			      u32 count, struct ww_acquire_ctx *ticket)
{
	int ret = drm_gem_lock_reservations(objs, count, ticket);

	if (ret == -EALREADY) {
		drm_dbg(drm, "%s: rule %s: an allocation is given twice\n",
			what, rule);
		ret = -EINVAL;
	}
	return ret;
}

/* What OFFER refuses whatever the state: see DOC: Offer and reclaim. */
static int wddmseg_offer_allowed(struct drm_device *drm, struct wddmseg_bo *bo,
				 u32 i)
{
	if (bo->tbo.type == ttm_bo_type_sg || bo->tbo.base.dma_buf) {
		drm_dbg(drm, "offer: index %u: rule offer-prime: imported or exported allocations cannot be offered\n",
			i);
		return -EINVAL;
	}
	if (bo->userptr) {
		drm_dbg(drm, "offer: index %u: rule offer-existing-sysmem: its content is the user's memory\n",
			i);
		return -EINVAL;
	}
	if (wddmseg_bo_permanent(bo)) {
		drm_dbg(drm, "offer: index %u: rule offer-permanent-sysmem: its system copy is its content for life\n",
			i);
		return -EINVAL;
	}
	if (bo->tbo.pin_count) {
		drm_dbg(drm, "offer: index %u: rule offer-pinned: a pinned allocation cannot be dropped\n",
			i);
		return -EBUSY;
	}
	if (bo->offer_priority) {
		drm_dbg(drm, "offer: index %u: rule offer-twice: the allocation is offered already\n",
			i);
		return -EINVAL;
	}
	return 0;
}

int wddmseg_ioctl_offer_allocations(struct drm_device *drm, void *data,
				    struct drm_file *file)
{
	struct drm_wddmseg_offer_allocations *args = data;
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct drm_gem_object **objs;
	struct ww_acquire_ctx ticket;
	u32 i;
	int ret;

	if (args->flags || args->pad || args->reserved[0] || args->reserved[1]) {
		drm_dbg(drm, "offer: flags, pad and reserved fields must be zero\n");
		return -EINVAL;
	}
	if (args->priority < WDDMSEG_OFFER_PRIORITY_LOW ||
	    args->priority > WDDMSEG_OFFER_PRIORITY_HIGH) {
		drm_dbg(drm, "offer: priority %u: LOW (%u) to HIGH (%u)\n",
			args->priority, WDDMSEG_OFFER_PRIORITY_LOW,
			WDDMSEG_OFFER_PRIORITY_HIGH);
		return -EINVAL;
	}
	objs = wddmseg_offer_lookup(file, "offer", args->handles, args->count);
	if (IS_ERR(objs))
		return PTR_ERR(objs);

	ret = wddmseg_offer_lock(drm, "offer", "offer-duplicate", objs,
				 args->count, &ticket);
	if (ret)
		goto out;
	for (i = 0; i < args->count && !ret; i++)
		ret = wddmseg_offer_allowed(drm, gem_to_wddmseg_bo(objs[i]), i);
	for (i = 0; i < args->count && !ret; i++) {
		struct wddmseg_bo *bo = gem_to_wddmseg_bo(objs[i]);

		bo->offer_priority = args->priority;
		bo->discarded = false;
		wddmseg_offer_set_lru(bo, wddmseg_bo_ttm_priority(bo));
		mutex_lock(&wdev->offer_lock);
		list_add_tail(&bo->offer_link, &wdev->offered);
		mutex_unlock(&wdev->offer_lock);
		/* The next CPU access faults, and is refused. */
		ttm_bo_unmap_virtual(&bo->tbo);
	}
	drm_gem_unlock_reservations(objs, args->count, &ticket);
	/* LOW before NORMAL before HIGH in the offered list. */
	wddmseg_offer_sort(wdev);
out:
	wddmseg_offer_put(objs, args->count);
	return ret;
}

int wddmseg_ioctl_reclaim_allocations(struct drm_device *drm, void *data,
				      struct drm_file *file)
{
	struct drm_wddmseg_reclaim_allocations *args = data;
	struct wddmseg_device *wdev = to_wddmseg(drm);
	struct ttm_operation_ctx ctx = { .interruptible = true };
	u32 __user *uresults = u64_to_user_ptr(args->results);
	struct drm_gem_object **objs;
	struct ww_acquire_ctx ticket;
	u32 *results = NULL;
	int ret, err = 0;
	u32 i;

	if (args->flags & ~WDDMSEG_RECLAIM_MAKE_RESIDENT) {
		drm_dbg(drm, "reclaim: unknown flags 0x%x (known: 0x%x)\n",
			args->flags, WDDMSEG_RECLAIM_MAKE_RESIDENT);
		return -EINVAL;
	}
	if (args->reserved[0] || args->reserved[1]) {
		drm_dbg(drm, "reclaim: reserved fields must be zero\n");
		return -EINVAL;
	}
	objs = wddmseg_offer_lookup(file, "reclaim", args->handles,
				    args->count);
	if (IS_ERR(objs))
		return PTR_ERR(objs);
	results = kvcalloc(args->count, sizeof(*results), GFP_KERNEL);
	if (!results) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * The results are written after the reservations are dropped (a
	 * fault on user memory must not happen under them): find out now
	 * that they can be, before anything changes.
	 */
	if (copy_to_user(uresults, results, args->count * sizeof(*results))) {
		ret = -EFAULT;
		goto out;
	}

	ret = wddmseg_offer_lock(drm, "reclaim", "offer-duplicate", objs,
				 args->count, &ticket);
	if (ret)
		goto out;
	for (i = 0; i < args->count && !ret; i++) {
		if (!gem_to_wddmseg_bo(objs[i])->offer_priority) {
			drm_dbg(drm, "reclaim: index %u: rule reclaim-not-offered: the allocation is not offered\n",
				i);
			ret = -EINVAL;
		}
	}
	for (i = 0; i < args->count && !ret; i++) {
		struct wddmseg_bo *bo = gem_to_wddmseg_bo(objs[i]);

		results[i] = bo->discarded ? WDDMSEG_RECLAIM_DISCARDED :
					     WDDMSEG_RECLAIM_OK;
		bo->offer_priority = 0;
		bo->discarded = false;
		wddmseg_offer_set_lru(bo, wddmseg_bo_ttm_priority(bo));
		mutex_lock(&wdev->offer_lock);
		list_del_init(&bo->offer_link);
		mutex_unlock(&wdev->offer_lock);
	}
	if (!ret && (args->flags & WDDMSEG_RECLAIM_MAKE_RESIDENT)) {
		int idx;

		if (drm_dev_enter(drm, &idx)) {
			for (i = 0; i < args->count && !err; i++) {
				struct wddmseg_bo *bo = gem_to_wddmseg_bo(objs[i]);

				if (!bo->tbo.pin_count)
					err = wddmseg_bo_validate(bo, &ctx);
			}
			drm_dev_exit(idx);
		} else {
			err = -ENODEV;
		}
		if (err)
			drm_dbg(drm, "reclaim: make resident: %d\n", err);
		if (err == -ENOMEM)
			err = -ENOSPC;
	}
	drm_gem_unlock_reservations(objs, args->count, &ticket);
	/* A refused call held offered ones: they were skipped by any sort. */
	wddmseg_offer_sort(wdev);
	if (!ret &&
	    copy_to_user(uresults, results, args->count * sizeof(*results)))
		ret = -EFAULT;
	if (!ret)
		ret = err;
out:
	kvfree(results);
	wddmseg_offer_put(objs, args->count);
	return ret;
}

static bool wddmseg_priority_valid(u32 priority)
{
	switch (priority) {
	case WDDMSEG_ALLOCATION_PRIORITY_MINIMUM:
	case WDDMSEG_ALLOCATION_PRIORITY_LOW:
	case WDDMSEG_ALLOCATION_PRIORITY_NORMAL:
	case WDDMSEG_ALLOCATION_PRIORITY_HIGH:
	case WDDMSEG_ALLOCATION_PRIORITY_MAXIMUM:
		return true;
	}
	return false;
}

int wddmseg_ioctl_set_allocation_priority(struct drm_device *drm, void *data,
					  struct drm_file *file)
{
	struct drm_wddmseg_set_allocation_priority *args = data;
	struct drm_gem_object **objs;
	struct ww_acquire_ctx ticket;
	u32 i;
	int ret;

	/* DOC: Allocation priority: offered first, then four classes. */
	BUILD_BUG_ON(WDDMSEG_TTM_PRIO_OFFERED >= WDDMSEG_TTM_PRIO_LOW);
	BUILD_BUG_ON(WDDMSEG_TTM_PRIO_LOW >= WDDMSEG_TTM_PRIO_DEFAULT);
	BUILD_BUG_ON(WDDMSEG_TTM_PRIO_DEFAULT >= WDDMSEG_TTM_PRIO_HIGH);
	BUILD_BUG_ON(WDDMSEG_TTM_PRIO_HIGH >= TTM_MAX_BO_PRIORITY);

	if (args->flags) {
		drm_dbg(drm, "set_priority: rule prio-flags: flags 0x%x, none is defined\n",
			args->flags);
		return -EINVAL;
	}
	if (args->pad || args->reserved[0] || args->reserved[1]) {
		drm_dbg(drm, "set_priority: rule prio-reserved: pad and reserved fields must be zero\n");
		return -EINVAL;
	}
	if (!wddmseg_priority_valid(args->priority)) {
		drm_dbg(drm, "set_priority: rule prio-value: priority 0x%x is no D3DDDI_ALLOCATIONPRIORITY value\n",
			args->priority);
		return -EINVAL;
	}
	if (!args->count || args->count > WDDMSEG_OFFER_MAX_HANDLES) {
		drm_dbg(drm, "set_priority: rule prio-count: count %u, 1 to %u handles\n",
			args->count, WDDMSEG_OFFER_MAX_HANDLES);
		return -EINVAL;
	}
	objs = wddmseg_offer_lookup(file, "set_priority", args->handles,
				    args->count);
	if (IS_ERR(objs))
		return PTR_ERR(objs);

	ret = wddmseg_offer_lock(drm, "set_priority", "prio-duplicate", objs,
				 args->count, &ticket);
	if (ret)
		goto out;
	for (i = 0; i < args->count; i++) {
		if (gem_to_wddmseg_bo(objs[i])->tbo.type != ttm_bo_type_sg)
			continue;
		drm_dbg(drm, "set_priority: index %u: rule prio-import: an imported allocation lives in system memory only, nothing to order\n",
			i);
		ret = -EINVAL;
		goto unlock;
	}
	for (i = 0; i < args->count; i++) {
		struct wddmseg_bo *bo = gem_to_wddmseg_bo(objs[i]);

		bo->alloc_priority = args->priority;
		/* Offered: the offered list until RECLAIM, which reads it. */
		if (!bo->offer_priority)
			wddmseg_offer_set_lru(bo, wddmseg_bo_ttm_priority(bo));
	}
unlock:
	drm_gem_unlock_reservations(objs, args->count, &ticket);
	/* Offered ones it held were skipped by any sort meanwhile. */
	wddmseg_offer_sort(to_wddmseg(drm));
out:
	wddmseg_offer_put(objs, args->count);
	return ret;
}
