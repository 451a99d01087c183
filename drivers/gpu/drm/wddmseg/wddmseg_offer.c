// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offer and reclaim: allocations whose content the driver may drop instead
 * of copying it out (D3DKMTOfferAllocations, D3DKMTReclaimAllocations2).
 */

/**
 * DOC: Offer and reclaim
 *
 * OFFER_ALLOCATIONS marks allocations (&wddmseg_bo.offer_priority) and
 * moves them to the TTM LRU list of their offer priority: TTM walks its
 * lists from priority 0 up when it looks for something to evict, and
 * every allocation that is not offered lives in the last list
 * (WDDMSEG_TTM_PRIO_DEFAULT), so offered allocations are evicted before
 * any other one of the segment, LOW before NORMAL before HIGH.
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
 * ``offered-no-access``. RECLAIM_ALLOCATIONS puts it back in the default
 * list and reports whether the content survived.
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
 * Not yet: offered allocations in system memory are not purged under
 * system memory pressure (a shrinker), and submissions do not exist yet.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
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
			      struct drm_gem_object **objs, u32 count,
			      struct ww_acquire_ctx *ticket)
{
	int ret = drm_gem_lock_reservations(objs, count, ticket);

	if (ret == -EALREADY) {
		drm_dbg(drm, "%s: rule offer-duplicate: an allocation is given twice\n",
			what);
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
	struct drm_gem_object **objs;
	struct ww_acquire_ctx ticket;
	u32 i;
	int ret;

	BUILD_BUG_ON(WDDMSEG_OFFER_PRIORITY_HIGH - 1 >= WDDMSEG_TTM_PRIO_DEFAULT);
	BUILD_BUG_ON(WDDMSEG_TTM_PRIO_DEFAULT >= TTM_MAX_BO_PRIORITY);

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

	ret = wddmseg_offer_lock(drm, "offer", objs, args->count, &ticket);
	if (ret)
		goto out;
	for (i = 0; i < args->count && !ret; i++)
		ret = wddmseg_offer_allowed(drm, gem_to_wddmseg_bo(objs[i]), i);
	for (i = 0; i < args->count && !ret; i++) {
		struct wddmseg_bo *bo = gem_to_wddmseg_bo(objs[i]);

		bo->offer_priority = args->priority;
		bo->discarded = false;
		wddmseg_offer_set_lru(bo, args->priority - 1);
		/* The next CPU access faults, and is refused. */
		ttm_bo_unmap_virtual(&bo->tbo);
	}
	drm_gem_unlock_reservations(objs, args->count, &ticket);
out:
	wddmseg_offer_put(objs, args->count);
	return ret;
}

int wddmseg_ioctl_reclaim_allocations(struct drm_device *drm, void *data,
				      struct drm_file *file)
{
	struct drm_wddmseg_reclaim_allocations *args = data;
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

	ret = wddmseg_offer_lock(drm, "reclaim", objs, args->count, &ticket);
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
		wddmseg_offer_set_lru(bo, WDDMSEG_TTM_PRIO_DEFAULT);
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
