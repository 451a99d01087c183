// SPDX-License-Identifier: GPL-2.0-only
/*
 * Power management: across standby and hibernation, each segment keeps
 * what its flags promise, and the driver copies out only the rest.
 */

/**
 * DOC: Power management
 *
 * A WDDM segment says in its DXGK_SEGMENTFLAGS what survives a system
 * sleep: PreservedDuringStandby (S3: the VRAM stays in self-refresh),
 * PreservedDuringHibernate and PartiallyPreservedDuringHibernate (S4).
 * The adapter's DXGK_VIDMMCAPS can override the standby column for every
 * segment: AlwaysPoweredVRAM (nothing is lost), DisableSelfRefreshVRAMInS3
 * (everything is). VprPreservedDuringStandby says the same for the
 * content of a VprSupported segment's protected region, i.e. for
 * HardwareProtected allocations. Linux GPU drivers copy all of VRAM into
 * system memory on every suspend; this driver copies what the flags say
 * will be lost, and nothing when they say nothing will be.
 *
 * A cycle, for a standby (S3) or a hibernation (freeze, then poweroff or
 * thaw, and restore from the image):
 *
 * 1. PM_SUSPEND_PREPARE or PM_HIBERNATION_PREPARE (a PM notifier, before
 *    the freezer, while memory can still be reclaimed): every unpinned
 *    allocation in a memory segment that does not preserve it is evicted
 *    into system memory, through the copy engine (HardwareProtected
 *    content sealed by TRANSFER_ENCRYPTED). For a hibernation the fbdev
 *    console also stops drawing here, until PM_POST_HIBERNATION: the
 *    image's memory is preallocated before the freeze callback, and a
 *    draw's mapping would not get the page it needs then.
 * 2. The suspend (freeze) callback: the display is suspended with the
 *    atomic helpers (which unpins the scanout and suspends the fbdev
 *    console), what was made resident since step 1 is evicted the same
 *    way, the content of pinned allocations that will be lost is saved by
 *    the CPU, and the copy engine finishes its jobs and stops.
 * 3. The device loses power; on the QEMU device the registers reset and
 *    every segment that is not preserved reads WDDMSEG_PM_POISON.
 * 4. The resume (thaw, restore) callback: the ring and interrupt mask are
 *    programmed again, every bound aperture range is written into the
 *    aperture page table again, pinned content is written back, the
 *    evicted allocations are made resident in the segment they were in
 *    (or wherever their placement allows), and the display is restored.
 *
 * A suspend that cannot keep a promise fails with the rule's name in the
 * kernel log and nothing lost: a pinned HardwareProtected allocation in a
 * segment that will lose it (rule pm-hardware-protected-pinned), a
 * HardwareProtected allocation that cannot be sealed (rule
 * pm-hardware-protected-evict), no memory for the copy (pm-no-memory:
 * checked before anything moves, against what is available and TTM's
 * limit of half the RAM, so that the copy never ends in the OOM killer), an
 * engine that does not go idle (pm-engine-busy). What was already moved
 * is brought back.
 *
 * Hybrid sleep (Linux: /sys/power/disk set to "suspend") writes a
 * hibernation image and then enters standby instead of powering off; the
 * system resumes from RAM, or from the image if the power went. WDDM says
 * the system then behaves like a hibernation: segments that are not
 * preserved during hibernation are cleared even though the system only
 * enters a low-power state. The driver sees it as a suspend callback
 * between PM_HIBERNATION_PREPARE and PM_POST_HIBERNATION (after the
 * freeze and thaw that made the image) and follows the hibernation column
 * there (wddmseg_pm_sleep_kind(), WDDMSEG_SLEEP_HYBRID): it evicts what a
 * hibernation would evict, and what the standby would lose besides
 * (DisableSelfRefreshVRAMInS3), since the resume may come from RAM.
 *
 * Hibernation powers the device off; what survives is what the device
 * stores somewhere that outlives the power (the QEMU device: a vram-file).
 * The device says whether it has such a store (PM_HIB.PERSISTENT) and,
 * since WDDM leaves the part to the hardware, how much of the start of a
 * PartiallyPreservedDuringHibernate segment it keeps (PM_HIB_PARTIAL).
 * Freeze leaves in place what a PreservedDuringHibernate segment holds and
 * the allocations that lie wholly in that part of a partially preserved
 * one; everything else is evicted and goes into the image. A device
 * without the store cannot keep a flag's promise: its flagged segments
 * are evicted like the others (rule pm-hibernate-volatile, logged at
 * probe). The restore checks that the store did keep the VRAM
 * (PM_HIB.RETAINED) and names rule pm-hibernate-vram-lost otherwise, per
 * segment, with the bytes lost (sysfs pm_lost_bytes): the allocations
 * stay where they were, holding what the device powered on with.
 * Aperture segments hold no content (system pages do); only their page
 * tables are registers, and those are written again at resume.
 *
 * The per-segment files pm_evicted_bytes, pm_restored_bytes,
 * pm_kept_bytes and pm_lost_bytes and the device-wide pm_phase_us of the
 * "wddmseg" sysfs group report the last cycle, system or runtime;
 * pm_cycles and pm_runtime_cycles count the completed ones.
 */

/**
 * DOC: Runtime power management
 *
 * A device nobody uses goes to D3hot after the autosuspend delay (module
 * parameter autosuspend_ms, the initial value of the PCI device's
 * power/autosuspend_delay_ms, which changes it per device; negative: the
 * device stays in D0). power/control is "auto" once the driver probed.
 *
 * D3hot keeps what standby keeps (the QEMU device: the segments that are
 * not preserved in S3 read WDDMSEG_PM_POISON when it comes back). The
 * runtime suspend is the system suspend's quiesce in one pass: evict what
 * the segments' flags and the caps say will be lost, save pinned content
 * with the CPU, let the copy engine finish and stop it. The same rules
 * refuse it (pm-hardware-protected-pinned, pm-no-memory, ...); a refused
 * runtime suspend returns -EBUSY and the device stays in D0 until its
 * next use restarts the timer. The runtime resume is the system resume's:
 * ring, interrupt mask, aperture page tables and window programmed again,
 * pinned content written back, evicted allocations made resident again.
 *
 * The device is busy, and holds a runtime PM reference, while
 *
 * - an ioctl runs (the file operations wrap drm_ioctl()), and while the
 *   last close of a file releases its allocations;
 * - the copy engine has a job whose fence has not signalled (taken by the
 *   commit that makes the pending list non-empty, dropped when the driver
 *   retires the last one: a waiter, the interrupt, the next submission,
 *   or at the latest the watchdog, fence_timeout_ms after the last
 *   submission);
 * - a CRTC is enabled (atomic_enable to atomic_disable); every atomic
 *   commit resumes the device before it pins anything and holds it until
 *   its tail ran, also a nonblocking one. The fbdev console keeps its CRTC
 *   on: with fbdev=1 a device suspends only while the console is blanked;
 * - a CPU fault on a mapping, or a ptrace access, is served;
 * - a debugfs file that touches registers runs (peek, inject,
 *   wddmseg_inject_refusal; engine reads registers only when the device
 *   is in use already).
 *
 * An open file or a CPU mapping alone does not keep the device in D0: the
 * runtime suspend unmaps every CPU mapping of an allocation that stays in
 * VRAM (D3hot does not decode the BARs; the evicted ones were unmapped by
 * their move), and the next access faults, which resumes the device
 * before it takes any lock and maps the page again. Reading the sysfs
 * files does not resume the device.
 *
 * A system sleep resumes a runtime-suspended device in the PM notifier,
 * before the early eviction, and holds it until the sleep is over: a
 * system cycle always starts from D0, with nothing on the moved list.
 *
 * What the fbdev console draws while it is blanked and the device is
 * suspended goes into its pinned framebuffer's VRAM while the device is
 * in D3hot; when that segment loses its VRAM, the content saved at the
 * suspend is written back over it at the resume.
 */

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/slab.h>
#include <linux/suspend.h>

#include <drm/drm_drv.h>
#include <drm/drm_fb_helper.h>
#include <drm/drm_gem.h>
#include <drm/drm_modeset_helper.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_tt.h>

#include "wddmseg_bo.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_engine.h"
#include "wddmseg_irq.h"
#include "wddmseg_mgr.h"
#include "wddmseg_migrate.h"
#include "wddmseg_params.h"
#include "wddmseg_pm.h"
#include "wddmseg_protect.h"
#include "wddmseg_vram.h"
#include "wddmseg_hw.h"

/**
 * struct wddmseg_pm_entry - an allocation a suspend moved or saved
 * @link: in &wddmseg_pm.moved
 * @bo: the allocation (a GEM reference)
 * @segment_id: the segment it was in
 * @saved: pinned allocations: its content, copied by the CPU; else NULL
 */
struct wddmseg_pm_entry {
	struct list_head link;
	struct wddmseg_bo *bo;
	u32 segment_id;
	void *saved;
};

static struct wddmseg_device *dev_to_wddmseg(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

/* PM_HIB, 0 on a device before 1.8 (which has no such register). */
static u32 wddmseg_pm_read_hib(struct wddmseg_device *wdev)
{
	if (WDDMSEG_VERSION_MINOR(wdev->desc.hw_version) <
	    WDDMSEG_VERSION_MINOR_PM_HIB)
		return 0;
	return readl(wdev->mmio + WDDMSEG_REG_PM_HIB);
}

/**
 * wddmseg_pm_sleep_kind - what a sleep callback is
 * @hibernating: a hibernation is under way (PM_HIBERNATION_PREPARE was
 *	notified, PM_POST_HIBERNATION not yet)
 * @freeze: the callback is freeze or poweroff, not suspend
 *
 * A suspend during a hibernation is the standby of a hybrid sleep, which
 * WDDM treats as a hibernation (DXGK_SEGMENTFLAGS: "if hybrid sleep is
 * enabled, the system behaves like hibernation").
 *
 * Return: the column of the preservation table to follow.
 */
enum wddmseg_sleep wddmseg_pm_sleep_kind(bool hibernating, bool freeze)
{
	if (freeze)
		return WDDMSEG_SLEEP_HIBERNATE;
	return hibernating ? WDDMSEG_SLEEP_HYBRID : WDDMSEG_SLEEP_STANDBY;
}

/**
 * wddmseg_pm_keeps - does a segment keep an allocation across a sleep
 * @seg: the segment
 * @caps: the adapter's DXGK_VIDMMCAPS
 * @hib: the device's PM_HIB register (PERSISTENT: its VRAM outlives a
 *	power cycle)
 * @hib_partial: bytes at the start of a PartiallyPreservedDuringHibernate
 *	segment that the device keeps
 * @sleep: the kind of sleep
 * @hw_protected: the allocation is HardwareProtected
 * @end: the allocation's end offset in the segment, in bytes
 *
 * Standby follows the caps first, then the segment's flags (for
 * HardwareProtected content also VprPreservedDuringStandby); hibernation
 * follows PreservedDuringHibernate, or for an allocation in the part the
 * device keeps PartiallyPreservedDuringHibernate, when the device's VRAM
 * persists at all. Hybrid sleep clears what hibernation clears (WDDM),
 * and since the system may wake from the standby, what standby loses too.
 * Aperture segments hold no content: always kept.
 *
 * Return: true if the content stays in place.
 */
bool wddmseg_pm_keeps(const struct wddmseg_segment_desc *seg, u32 caps,
		      u32 hib, u64 hib_partial, enum wddmseg_sleep sleep,
		      bool hw_protected, u64 end)
{
	bool standby, hibernate;

	if (wddmseg_segment_is_aperture(seg))
		return true;

	if (!(hib & WDDMSEG_PM_HIB_PERSISTENT))
		hibernate = false;
	else if (seg->flags & DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE)
		hibernate = true;
	else
		hibernate = (seg->flags &
			     DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE) &&
			    end <= hib_partial;

	if (caps & DXGK_VIDMMCAP_DISABLE_SELF_REFRESH_VRAM_IN_S3)
		standby = false;
	else if (hw_protected &&
		 !(seg->flags & DXGK_SEGFLAG_VPR_PRESERVED_DURING_STANDBY))
		standby = false;
	else if (caps & DXGK_VIDMMCAP_ALWAYS_POWERED_VRAM)
		standby = true;
	else
		standby = seg->flags & DXGK_SEGFLAG_PRESERVED_DURING_STANDBY;

	switch (sleep) {
	case WDDMSEG_SLEEP_STANDBY:
		return standby;
	case WDDMSEG_SLEEP_HIBERNATE:
		return hibernate;
	default:	/* hybrid */
		return hibernate && standby;
	}
}

/*
 * Does segment @id keep the content of allocation @bo (reserved, in @id)
 * across the current sleep (wddmseg_pm_keeps())?
 */
static bool wddmseg_pm_preserved(struct wddmseg_device *wdev, u32 id,
				 struct wddmseg_bo *bo)
{
	u64 end = ((u64)bo->tbo.resource->start << PAGE_SHIFT) +
		  bo->tbo.base.size;

	return wddmseg_pm_keeps(&wdev->desc.seg[id - 1], wdev->desc.vidmm_caps,
				wdev->pm.hib, wdev->pm.hib_partial,
				wdev->pm.sleep, wddmseg_bo_hw_protected(bo),
				end);
}

static const char *wddmseg_pm_sleep_name(enum wddmseg_sleep sleep)
{
	switch (sleep) {
	case WDDMSEG_SLEEP_STANDBY:
		return "suspend";
	case WDDMSEG_SLEEP_HIBERNATE:
		return "hibernation";
	default:
		return "hybrid sleep";
	}
}

/*
 * The next allocation of segment @mgr at or after page *@pos, with a GEM
 * reference; *@pos moves past it. Ranges held by TTM's ghost objects (the
 * old place of a finished move) and allocations being destroyed are
 * skipped. Walks the segment's own range allocator, which, unlike TTM's
 * LRU lists, also holds pinned allocations.
 */
static struct wddmseg_bo *wddmseg_pm_next(struct wddmseg_mgr *mgr, u64 *pos)
{
	struct wddmseg_bo *bo = NULL;
	struct drm_mm_node *node;

	spin_lock(&mgr->lock);
	drm_mm_for_each_node(node, &mgr->mm) {
		struct ttm_resource *res;

		if (node->start < *pos || !wddmseg_mgr_node_is_first(node))
			continue;
		*pos = node->start + node->size;
		res = wddmseg_mgr_node_res(node);
		if (!res->bo || !wddmseg_is_bo(res->bo))
			continue;
		bo = to_wddmseg_bo(res->bo);
		if (kref_get_unless_zero(&bo->tbo.base.refcount))
			break;
		bo = NULL;
	}
	spin_unlock(&mgr->lock);
	return bo;
}

/* Copy a pinned allocation's VRAM out (@to_vram false) or back in. */
static void wddmseg_pm_copy_pinned(struct wddmseg_device *wdev,
				   struct wddmseg_bo *bo, void *buf,
				   bool to_vram)
{
	pgoff_t i, n = bo->tbo.base.size >> PAGE_SHIFT;
	struct wddmseg_move_end seg;

	wddmseg_move_end_init(wdev, bo->tbo.resource, &seg);
	for (i = 0; i < n; i++)
		wddmseg_vram_page_io(wdev, &seg, bo->tbo.ttm, i,
				     buf + (i << PAGE_SHIFT), to_vram);
}

/*
 * One allocation of segment @id, reserved: leave it (preserved), evict it,
 * or (@late only) save its pinned content. Returns 0 or a negative errno
 * after logging the rule that refuses the suspend.
 */
static int wddmseg_pm_evict_bo(struct wddmseg_device *wdev,
			       struct wddmseg_bo *bo, u32 id, bool late)
{
	struct wddmseg_pm *pm = &wdev->pm;
	bool hwp = wddmseg_bo_hw_protected(bo);
	u64 size = bo->tbo.base.size;
	struct wddmseg_pm_entry *e;
	int ret;

	if (wddmseg_pm_preserved(wdev, id, bo)) {
		pm->kept[id - 1] += size;
		return 0;
	}
	if (bo->tbo.pin_count && !late)
		return 0;	/* saved by the late phase, once pinned for good */
	if (bo->tbo.pin_count && hwp) {
		drm_err(&wdev->drm, "pm: segment %u: rule pm-hardware-protected-pinned: a pinned HardwareProtected allocation (%llu bytes) would lose its content and cannot be copied out\n",
			id, size);
		return -EBUSY;
	}
	if (!bo->tbo.pin_count && hwp && !wddmseg_protect_may_seal(bo, id)) {
		drm_err(&wdev->drm, "pm: segment %u: rule pm-hardware-protected-evict: HardwareProtected content (%llu bytes) would be lost and the segment cannot seal it into system memory\n",
			id, size);
		return -EACCES;
	}

	e = kzalloc_obj(*e, GFP_KERNEL);
	if (!e)
		goto no_memory;
	if (bo->tbo.pin_count) {
		struct ttm_operation_ctx ctx = { .interruptible = false };

		e->saved = kvmalloc(size, GFP_KERNEL | __GFP_RETRY_MAYFAIL |
					  __GFP_NOWARN);
		if (!e->saved) {
			kfree(e);
			goto no_memory;
		}
		/* Engine work on it (a fill, a blit, a flip's move) first. */
		ret = ttm_bo_wait_ctx(&bo->tbo, &ctx);
		if (ret) {
			kvfree(e->saved);
			kfree(e);
			drm_err(&wdev->drm, "pm: segment %u: rule pm-engine-busy: a pinned allocation's jobs did not finish (%d)\n",
				id, ret);
			return ret;
		}
		wddmseg_pm_copy_pinned(wdev, bo, e->saved, false);
	} else {
		ret = wddmseg_bo_pm_move(bo, WDDMSEG_SEGMENT_SYSTEM);
		if (ret) {
			kfree(e);
			drm_err(&wdev->drm, "pm: segment %u: rule pm-no-memory: evicting %llu bytes failed (%d)\n",
				id, size, ret);
			return ret;
		}
	}
	drm_gem_object_get(&bo->tbo.base);
	e->bo = bo;
	e->segment_id = id;
	list_add_tail(&e->link, &pm->moved);
	pm->evicted[id - 1] += size;
	return 0;

no_memory:
	drm_err(&wdev->drm, "pm: segment %u: rule pm-no-memory: no system memory for %llu bytes that would be lost\n",
		id, size);
	return -ENOMEM;
}

/* Wait for the copy engine's jobs (moves are pipelined on it). */
static int wddmseg_pm_wait_engine(struct wddmseg_device *wdev)
{
	if (!READ_ONCE(wdev->engine.ready))
		return 0;
	if (wddmseg_engine_idle(&wdev->engine,
				msecs_to_jiffies(wddmseg_fence_timeout_ms)))
		return 0;
	drm_err(&wdev->drm, "pm: rule pm-engine-busy: the copy engine did not finish the moves\n");
	return -ETIMEDOUT;
}

/**
 * typedef wddmseg_pm_visit_t - what wddmseg_pm_walk() does with one allocation
 * @wdev: the device
 * @bo: the allocation, with a GEM reference (and reserved, if asked)
 * @id: its segment
 * @arg: the walk's argument
 *
 * Returns 0 to go on, anything else to end the walk with it.
 */
typedef int (*wddmseg_pm_visit_t)(struct wddmseg_device *wdev,
				  struct wddmseg_bo *bo, u32 id, void *arg);

/*
 * Call @visit for every allocation of every memory segment (@apertures
 * false) or of every aperture segment (@apertures true), in segment order,
 * until one returns non-zero, which is returned. With @reserve, each
 * allocation is reserved around the call and skipped when it left the
 * segment or is being destroyed in the meantime.
 */
static int wddmseg_pm_walk(struct wddmseg_device *wdev, bool apertures,
			   bool reserve, wddmseg_pm_visit_t visit, void *arg)
{
	struct wddmseg_bo *bo;
	int ret = 0;
	u32 id;
	u64 pos;

	for (id = 1; id <= wdev->desc.segment_count && !ret; id++) {
		if (wddmseg_segment_is_aperture(&wdev->desc.seg[id - 1]) !=
		    apertures)
			continue;
		pos = 0;
		while (!ret && (bo = wddmseg_pm_next(wdev->mgr[id - 1], &pos))) {
			if (!reserve) {
				ret = visit(wdev, bo, id, arg);
			} else if (!ttm_bo_reserve(&bo->tbo, false, false, NULL)) {
				if (wddmseg_res_segment(wdev, bo->tbo.resource) == id &&
				    !bo->tbo.deleted)
					ret = visit(wdev, bo, id, arg);
				ttm_bo_unreserve(&bo->tbo);
			}
			drm_gem_object_put(&bo->tbo.base);
		}
	}
	return ret;
}

struct wddmseg_pm_need {
	bool late;
	u64 bytes;
};

static int wddmseg_pm_need_bo(struct wddmseg_device *wdev,
			      struct wddmseg_bo *bo, u32 id, void *arg)
{
	struct wddmseg_pm_need *need = arg;

	if ((need->late || !bo->tbo.pin_count) &&
	    !wddmseg_pm_preserved(wdev, id, bo))
		need->bytes += bo->tbo.base.size;
	return 0;
}

/* Bytes the coming sleep would destroy: what wddmseg_pm_evict() copies. */
static u64 wddmseg_pm_need(struct wddmseg_device *wdev, bool late)
{
	struct wddmseg_pm_need need = { .late = late };

	wddmseg_pm_walk(wdev, false, true, wddmseg_pm_need_bo, &need);
	return need.bytes;
}

/*
 * Will @need bytes fit in system memory? TTM keeps its pages under half
 * of RAM (beyond that it swaps buffers out into shmem, which needs more
 * memory still), and the system must keep some to run: refuse up front,
 * before anything moved, rather than end in the OOM killer halfway.
 */
static int wddmseg_pm_check_room(struct wddmseg_device *wdev, u64 need)
{
	u64 total = (u64)totalram_pages() << PAGE_SHIFT;
	u64 avail = (u64)si_mem_available() << PAGE_SHIFT;
	u64 reserve = max_t(u64, total / 16, SZ_16M);
	u64 room = min(avail, total / 2);

	room = room > reserve ? room - reserve : 0;
	if (need <= room)
		return 0;
	drm_err(&wdev->drm, "pm: rule pm-no-memory: %llu MiB of VRAM would be lost and must be copied into system memory, which has room for %llu MiB (available %llu MiB, half of RAM %llu MiB, reserve %llu MiB); refusing the %s\n",
		need >> 20, room >> 20, avail >> 20, total >> 21, reserve >> 20,
		wddmseg_pm_sleep_name(wdev->pm.sleep));
	return -ENOMEM;
}

static int wddmseg_pm_evict_visit(struct wddmseg_device *wdev,
				  struct wddmseg_bo *bo, u32 id, void *late)
{
	return wddmseg_pm_evict_bo(wdev, bo, id, *(bool *)late);
}

/* Evict (or save) everything the coming sleep would destroy. */
static int wddmseg_pm_evict(struct wddmseg_device *wdev, bool late)
{
	struct wddmseg_pm *pm = &wdev->pm;
	int ret;

	lockdep_assert_held(&pm->lock);
	ret = wddmseg_pm_check_room(wdev, wddmseg_pm_need(wdev, late));
	if (ret)
		return ret;
	/* The kept bytes are counted again by each pass. */
	memset(pm->kept, 0, sizeof(pm->kept));
	ret = wddmseg_pm_walk(wdev, false, true, wddmseg_pm_evict_visit, &late);
	/* The copies are pipelined: the phase ends when they are done. */
	if (!ret)
		ret = wddmseg_pm_wait_engine(wdev);
	return ret;
}

static int wddmseg_pm_rebind_bo(struct wddmseg_device *wdev,
				struct wddmseg_bo *bo, u32 id, void *arg)
{
	struct wddmseg_move_end apt;

	if (bo->tbo.ttm && ttm_tt_is_populated(bo->tbo.ttm)) {
		wddmseg_move_end_init(wdev, bo->tbo.resource, &apt);
		wddmseg_vram_apt_update(wdev, &apt, bo->tbo.ttm);
	}
	return 0;
}

/* Write every bound range of every aperture into its page table again. */
static void wddmseg_pm_rebind_apertures(struct wddmseg_device *wdev)
{
	wddmseg_pm_walk(wdev, true, true, wddmseg_pm_rebind_bo, NULL);
}

/* Write saved pinned content back (the allocations never moved). */
static void wddmseg_pm_restore_pinned(struct wddmseg_device *wdev)
{
	struct wddmseg_pm_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &wdev->pm.moved, link) {
		if (!e->saved)
			continue;
		if (!ttm_bo_reserve(&e->bo->tbo, false, false, NULL)) {
			if (wddmseg_res_segment(wdev, e->bo->tbo.resource) ==
			    e->segment_id) {
				wddmseg_pm_copy_pinned(wdev, e->bo, e->saved, true);
				wdev->pm.restored[e->segment_id - 1] +=
					e->bo->tbo.base.size;
			}
			ttm_bo_unreserve(&e->bo->tbo);
		}
		list_del(&e->link);
		kvfree(e->saved);
		drm_gem_object_put(&e->bo->tbo.base);
		kfree(e);
	}
}

/*
 * Bring the evicted allocations back: into the segment each was in, else
 * wherever its placement allows (like the next GPU reference would), else
 * it stays in system memory, content intact.
 */
static void wddmseg_pm_restore_evicted(struct wddmseg_device *wdev)
{
	struct ttm_operation_ctx ctx = { .interruptible = false };
	struct wddmseg_pm_entry *e, *tmp;
	struct wddmseg_bo *bo;
	u32 now;

	list_for_each_entry_safe(e, tmp, &wdev->pm.moved, link) {
		bo = e->bo;
		if (!ttm_bo_reserve(&bo->tbo, false, false, NULL)) {
			if (!bo->tbo.pin_count && !bo->tbo.deleted &&
			    wddmseg_res_mem_type(bo->tbo.resource) == TTM_PL_SYSTEM &&
			    wddmseg_bo_pm_move(bo, e->segment_id))
				wddmseg_bo_make_resident_locked(bo, &ctx);
			now = wddmseg_res_segment(wdev, bo->tbo.resource);
			if (now == e->segment_id)
				wdev->pm.restored[now - 1] += bo->tbo.base.size;
			ttm_bo_unreserve(&bo->tbo);
		}
		list_del(&e->link);
		drm_gem_object_put(&bo->tbo.base);
		kfree(e);
	}
	wddmseg_pm_wait_engine(wdev);
}

static u64 wddmseg_pm_us_since(ktime_t t0)
{
	return ktime_us_delta(ktime_get(), t0);
}

static void wddmseg_pm_begin(struct wddmseg_device *wdev,
			     enum wddmseg_sleep sleep)
{
	struct wddmseg_pm *pm = &wdev->pm;

	pm->sleep = sleep;
	memset(pm->evicted, 0, sizeof(pm->evicted));
	memset(pm->restored, 0, sizeof(pm->restored));
	memset(pm->kept, 0, sizeof(pm->kept));
	memset(pm->lost, 0, sizeof(pm->lost));
	memset(pm->phase_us, 0, sizeof(pm->phase_us));
}

/* Drop the reference the notifier took for a system sleep, if it did. */
static void wddmseg_pm_sleep_put(struct wddmseg_device *wdev)
{
	if (!wdev->pm.sleep_ref)
		return;
	wdev->pm.sleep_ref = false;
	wddmseg_pm_put(wdev);
}

/*
 * Hibernation preallocates its image's memory right after the freezer,
 * taking nearly all free pages, before any device callback runs. The
 * fbdev console draws each kernel message into its framebuffer through a
 * mapping made for that draw (a VRAM ioremap needs page table pages):
 * that allocation fails there, and DRM's fbdev helper WARNs about the
 * failed damage blit. So the console sleeps from PM_HIBERNATION_PREPARE
 * (its last queued draw done) until PM_POST_HIBERNATION; the serial
 * console still prints. @suspend: true to stop it, false to wake it.
 */
static void wddmseg_pm_console(struct wddmseg_device *wdev, bool suspend)
{
	/*
	 * Without fbdev emulation there is no console to stop, and 7.3's
	 * <drm/drm_fb_helper.h> declares its helpers only with it (the
	 * kunit.py kernel of tools/debug/kunit.sh has it off).
	 */
#ifdef CONFIG_DRM_FBDEV_EMULATION
	struct drm_fb_helper *fb_helper = wdev->drm.fb_helper;

	drm_fb_helper_set_suspend_unlocked(fb_helper, suspend);
	if (suspend && fb_helper)
		flush_work(&fb_helper->damage_work);
#endif
}

static int wddmseg_pm_notify(struct notifier_block *nb, unsigned long action,
			     void *unused)
{
	struct wddmseg_device *wdev = container_of(nb, struct wddmseg_device,
						   pm.nb);
	struct wddmseg_pm *pm = &wdev->pm;
	ktime_t t0 = ktime_get();
	int ret = 0;

	switch (action) {
	case PM_SUSPEND_PREPARE:
	case PM_HIBERNATION_PREPARE:
		/*
		 * A runtime-suspended device wakes first: the system cycle
		 * starts from D0 and its own evictions, with nothing left
		 * on the moved list by the runtime suspend.
		 */
		ret = pm_runtime_resume_and_get(wdev->drm.dev);
		if (ret < 0) {
			drm_err(&wdev->drm, "pm: rule pm-runtime-resume: the runtime-suspended device did not resume for the system sleep (%d)\n",
				ret);
			return notifier_from_errno(ret);
		}
		pm->sleep_ref = true;
		if (action == PM_HIBERNATION_PREPARE)
			wddmseg_pm_console(wdev, true);
		mutex_lock(&pm->lock);
		pm->hibernating = action == PM_HIBERNATION_PREPARE;
		wddmseg_pm_begin(wdev, pm->hibernating ?
				 WDDMSEG_SLEEP_HIBERNATE :
				 WDDMSEG_SLEEP_STANDBY);
		ret = wddmseg_pm_evict(wdev, false);
		if (ret)
			pm->hibernating = false;
		pm->phase_us[WDDMSEG_PM_PREPARE] = wddmseg_pm_us_since(t0);
		if (ret)
			wddmseg_pm_restore_evicted(wdev);
		mutex_unlock(&pm->lock);
		if (ret) {
			wddmseg_pm_console(wdev, false);
			wddmseg_pm_sleep_put(wdev);
		}
		return notifier_from_errno(ret);
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
		/* A cycle that was aborted before the callbacks ran. */
		mutex_lock(&pm->lock);
		pm->hibernating = false;
		wddmseg_pm_restore_pinned(wdev);
		wddmseg_pm_restore_evicted(wdev);
		mutex_unlock(&pm->lock);
		wddmseg_pm_console(wdev, false);
		wddmseg_pm_sleep_put(wdev);
		return NOTIFY_DONE;
	}
	return NOTIFY_DONE;
}

/*
 * After the eviction (@ret its result): stop the copy engine once it
 * finished its jobs. On any failure bring back what the cycle moved out,
 * so that a refused suspend loses nothing. @what completes the log line.
 */
static int wddmseg_pm_stop_engine(struct wddmseg_device *wdev, int ret,
				  const char *what)
{
	lockdep_assert_held(&wdev->pm.lock);
	if (!ret) {
		ret = wddmseg_engine_suspend(&wdev->engine);
		if (ret)
			drm_err(&wdev->drm, "pm: rule pm-engine-busy: the copy engine did not go idle%s (%d)\n",
				what, ret);
	}
	if (ret) {
		wddmseg_pm_restore_pinned(wdev);
		wddmseg_pm_restore_evicted(wdev);
	}
	return ret;
}

/*
 * The suspend and freeze callbacks; @freeze: freeze or poweroff, @evict:
 * false for poweroff. A suspend during a hibernation is a hybrid sleep's.
 */
static int wddmseg_pm_quiesce(struct wddmseg_device *wdev, bool freeze,
			      bool evict)
{
	struct wddmseg_pm *pm = &wdev->pm;
	ktime_t t0 = ktime_get();
	enum wddmseg_sleep sleep;
	int ret;

	ret = drm_mode_config_helper_suspend(&wdev->drm);
	if (ret)
		return ret;

	mutex_lock(&pm->lock);
	if (evict) {
		/*
		 * The standby of a hybrid sleep, or a suspend without our
		 * notifier (pm_test, an older cycle).
		 */
		sleep = wddmseg_pm_sleep_kind(pm->hibernating, freeze);
		if (pm->sleep != sleep)
			wddmseg_pm_begin(wdev, sleep);
		if (sleep == WDDMSEG_SLEEP_HYBRID)
			drm_dbg_driver(&wdev->drm,
				       "pm: rule pm-hybrid-sleep: the standby of a hybrid sleep clears what hibernation clears\n");
		ret = wddmseg_pm_evict(wdev, true);
	}
	ret = wddmseg_pm_stop_engine(wdev, ret, "");
	if (evict)
		pm->phase_us[WDDMSEG_PM_SUSPEND] = wddmseg_pm_us_since(t0);
	mutex_unlock(&pm->lock);
	if (ret)
		drm_mode_config_helper_resume(&wdev->drm);
	return ret;
}

/*
 * Back from a power loss (system or runtime), under the PM lock: the
 * registers are at their reset values, what the suspend moved or saved
 * comes back.
 */
static int wddmseg_pm_wake_locked(struct wddmseg_device *wdev)
{
	struct wddmseg_pm *pm = &wdev->pm;
	ktime_t t0 = ktime_get();
	int ret;

	lockdep_assert_held(&pm->lock);
	/*
	 * VRAM that lost power holds the device's poison, not the zeroes
	 * the managers knew of: every new placement is filled again.
	 */
	wddmseg_mgr_forget_zeroed(wdev);
	/* And where the BAR4 window was: it is back at 0. */
	wddmseg_vram_regs_lost(wdev);
	ret = wddmseg_engine_resume(&wdev->engine);
	/* The display's bits too, with or without the engine. */
	wddmseg_irq_resume(wdev);
	wddmseg_pm_rebind_apertures(wdev);
	wddmseg_pm_restore_pinned(wdev);
	pm->phase_us[WDDMSEG_PM_RESUME] = wddmseg_pm_us_since(t0);
	t0 = ktime_get();
	wddmseg_pm_restore_evicted(wdev);
	pm->phase_us[WDDMSEG_PM_RESTORE] = wddmseg_pm_us_since(t0);
	return ret;
}

/* The resume, thaw and restore callbacks. */
static int wddmseg_pm_wake(struct wddmseg_device *wdev)
{
	struct wddmseg_pm *pm = &wdev->pm;
	int ret;

	mutex_lock(&pm->lock);
	ret = wddmseg_pm_wake_locked(wdev);
	pm->cycles++;
	mutex_unlock(&pm->lock);

	drm_mode_config_helper_resume(&wdev->drm);
	return ret;
}

static int wddmseg_pm_unmap_bo(struct wddmseg_device *wdev,
			       struct wddmseg_bo *bo, u32 id, void *arg)
{
	ttm_bo_unmap_virtual(&bo->tbo);
	return 0;
}

/*
 * CPU mappings of what stays in VRAM go: the device in D3hot does not
 * decode its BARs. The next fault resumes the device (wddmseg_gem_fault
 * takes a runtime PM reference before anything else) and maps it again.
 * What was evicted was unmapped by its move.
 */
static void wddmseg_pm_unmap_vram(struct wddmseg_device *wdev)
{
	wddmseg_pm_walk(wdev, false, false, wddmseg_pm_unmap_bo, NULL);
}

/*
 * Runtime suspend: nothing holds the device busy (no ioctl, no job in
 * flight, no CRTC on, no fault being served). The same quiesce as a
 * standby, in one pass: the PCI core puts the device in D3hot after this,
 * and in D3hot the VRAM keeps what it keeps in S3. A refusal (a rule of
 * DOC: Power management) returns -EBUSY: the device stays in D0, and the
 * next use restarts the autosuspend timer.
 */
static int wddmseg_pm_runtime_suspend(struct device *dev)
{
	struct wddmseg_device *wdev = dev_to_wddmseg(dev);
	struct wddmseg_pm *pm = &wdev->pm;
	ktime_t t0 = ktime_get();
	int ret;

	mutex_lock(&pm->lock);
	wddmseg_pm_begin(wdev, WDDMSEG_SLEEP_STANDBY);
	ret = wddmseg_pm_evict(wdev, true);
	ret = wddmseg_pm_stop_engine(wdev, ret, " for a runtime suspend");
	if (!ret)
		wddmseg_pm_unmap_vram(wdev);
	pm->phase_us[WDDMSEG_PM_SUSPEND] = wddmseg_pm_us_since(t0);
	mutex_unlock(&pm->lock);
	if (ret) {
		drm_dbg_driver(&wdev->drm, "pm: runtime suspend refused (%d), staying in D0\n",
			       ret);
		pm_runtime_mark_last_busy(dev);
		return -EBUSY;
	}
	return 0;
}

/* Runtime resume: the PCI core brought the device back to D0. */
static int wddmseg_pm_runtime_resume(struct device *dev)
{
	struct wddmseg_device *wdev = dev_to_wddmseg(dev);
	struct wddmseg_pm *pm = &wdev->pm;
	int ret;

	mutex_lock(&pm->lock);
	ret = wddmseg_pm_wake_locked(wdev);
	pm->runtime_cycles++;
	mutex_unlock(&pm->lock);
	return ret;
}

/**
 * wddmseg_pm_get - hold the device in D0, resuming it if needed
 * @wdev: device
 *
 * Return: 0, or a negative errno (nothing held then).
 */
int wddmseg_pm_get(struct wddmseg_device *wdev)
{
	int ret;

	/* The runtime resume takes it: tell lockdep when awake too. */
	might_lock(&wdev->pm.lock);
	ret = pm_runtime_resume_and_get(wdev->drm.dev);
	if (ret < 0)
		drm_dbg_driver(&wdev->drm, "pm: runtime resume failed (%d)\n",
			       ret);
	return ret < 0 ? ret : 0;
}

/**
 * wddmseg_pm_put - end a use of the device; the autosuspend timer restarts
 * @wdev: device
 */
void wddmseg_pm_put(struct wddmseg_device *wdev)
{
	pm_runtime_mark_last_busy(wdev->drm.dev);
	pm_runtime_put_autosuspend(wdev->drm.dev);
}

static int wddmseg_pm_suspend(struct device *dev)
{
	return wddmseg_pm_quiesce(dev_to_wddmseg(dev), false, true);
}

static int wddmseg_pm_freeze(struct device *dev)
{
	return wddmseg_pm_quiesce(dev_to_wddmseg(dev), true, true);
}

static int wddmseg_pm_poweroff(struct device *dev)
{
	/* The image holds the state of the freeze: nothing more to save. */
	return wddmseg_pm_quiesce(dev_to_wddmseg(dev), true, false);
}

static int wddmseg_pm_resume(struct device *dev)
{
	return wddmseg_pm_wake(dev_to_wddmseg(dev));
}

/*
 * Restore from a hibernation image: the device went through a power
 * cycle. What the freeze left in place is there only if the device's
 * store kept it.
 */
static int wddmseg_pm_restore(struct device *dev)
{
	struct wddmseg_device *wdev = dev_to_wddmseg(dev);
	struct wddmseg_pm *pm = &wdev->pm;
	u64 kept;
	u32 id, hib;

	mutex_lock(&pm->lock);
	hib = wddmseg_pm_read_hib(wdev);
	for (id = 1; id <= wdev->desc.segment_count; id++) {
		kept = pm->kept[id - 1];
		if (pm->sleep == WDDMSEG_SLEEP_STANDBY || !kept ||
		    (hib & WDDMSEG_PM_HIB_RETAINED) ||
		    wddmseg_segment_is_aperture(&wdev->desc.seg[id - 1]))
			continue;
		/*
		 * Nothing can bring it back: the image does not hold it. Say
		 * so, per segment, in the log and in pm_lost_bytes.
		 */
		pm->lost[id - 1] = kept;
		drm_err(&wdev->drm, "pm: segment %u: rule pm-hibernate-vram-lost: the freeze kept %llu bytes in place, but the device's VRAM store did not keep them across the power cycle (PM_HIB 0x%x): their content is lost\n",
			id, kept, hib);
	}
	mutex_unlock(&pm->lock);
	return wddmseg_pm_wake(wdev);
}

const struct dev_pm_ops wddmseg_pm_ops = {
	.suspend = wddmseg_pm_suspend,
	.resume = wddmseg_pm_resume,
	.freeze = wddmseg_pm_freeze,
	.thaw = wddmseg_pm_resume,
	.poweroff = wddmseg_pm_poweroff,
	.restore = wddmseg_pm_restore,
	.runtime_suspend = wddmseg_pm_runtime_suspend,
	.runtime_resume = wddmseg_pm_runtime_resume,
};

/**
 * wddmseg_pm_runtime_start - allow runtime suspend, at the end of probe
 * @wdev: registered device
 *
 * The PCI core probes with the device active and a usage reference of its
 * own, and forbids runtime PM until the driver allows it: set the
 * autosuspend delay (module parameter autosuspend_ms; negative keeps the
 * device in D0), allow, and drop the probe's reference.
 */
void wddmseg_pm_runtime_start(struct wddmseg_device *wdev)
{
	struct device *dev = wdev->drm.dev;

	pm_runtime_set_autosuspend_delay(dev, wddmseg_autosuspend_ms);
	pm_runtime_use_autosuspend(dev);
	pm_runtime_mark_last_busy(dev);
	pm_runtime_allow(dev);
	pm_runtime_put_autosuspend(dev);
}

/**
 * wddmseg_pm_runtime_stop - undo wddmseg_pm_runtime_start(), at remove
 * @wdev: device; the PCI core resumed it before calling remove
 *
 * Takes back the probe's reference (the PCI core drops it after remove)
 * and forbids runtime PM again, as the PCI core had it before the probe.
 */
void wddmseg_pm_runtime_stop(struct wddmseg_device *wdev)
{
	struct device *dev = wdev->drm.dev;

	pm_runtime_get_noresume(dev);
	pm_runtime_forbid(dev);
	pm_runtime_dont_use_autosuspend(dev);
}

static void wddmseg_pm_fini(void *data)
{
	struct wddmseg_device *wdev = data;

	unregister_pm_notifier(&wdev->pm.nb);
	mutex_lock(&wdev->pm.lock);
	wddmseg_pm_restore_pinned(wdev);
	wddmseg_pm_restore_evicted(wdev);
	mutex_unlock(&wdev->pm.lock);
}

/**
 * wddmseg_pm_init - register the PM notifier
 * @wdev: device whose segment managers and engine exist
 *
 * Device-managed: the notifier goes away at unbind, before the engine
 * stops.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_pm_init(struct wddmseg_device *wdev)
{
	struct wddmseg_pm *pm = &wdev->pm;
	u32 id, flags;
	int ret;

	mutex_init(&pm->lock);
	INIT_LIST_HEAD(&pm->moved);
	pm->hib = wddmseg_pm_read_hib(wdev);
	if (pm->hib & WDDMSEG_PM_HIB_PERSISTENT)
		pm->hib_partial =
			readl(wdev->mmio + WDDMSEG_REG_PM_HIB_PARTIAL_LO) |
			(u64)readl(wdev->mmio + WDDMSEG_REG_PM_HIB_PARTIAL_HI) << 32;
	for (id = 1; id <= wdev->desc.segment_count; id++) {
		flags = wdev->desc.seg[id - 1].flags;
		if (!(pm->hib & WDDMSEG_PM_HIB_PERSISTENT) &&
		    (flags & (DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE |
			      DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE)))
			drm_info(&wdev->drm, "pm: segment %u: rule pm-hibernate-volatile: its flags preserve it across hibernation, but the device's VRAM does not outlive a power cycle (PM_HIB.PERSISTENT clear): a hibernation evicts it\n",
				 id);
	}
	pm->nb.notifier_call = wddmseg_pm_notify;
	ret = register_pm_notifier(&pm->nb);
	if (ret)
		return ret;
	return devm_add_action_or_reset(wdev->drm.dev, wddmseg_pm_fini, wdev);
}
