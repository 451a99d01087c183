// SPDX-License-Identifier: GPL-2.0-only
/*
 * Protected content: the one place that decides where the content of a
 * Protected or HardwareProtected allocation may go.
 */

/**
 * DOC: Protected content
 *
 * WDDM has two kinds of protected allocation, and the driver keeps both
 * promises on every path their content could take:
 *
 * Protected (DXGK_ALLOCATIONINFOFLAGS bit 3): the backing store is kernel
 * memory, never reachable by the CPU from an application. The content may
 * move anywhere the allocation's segment sets allow, system memory
 * included (kernel-only pages), but it is never mapped, exported or copied
 * into an allocation that is not itself protected.
 *
 * HardwareProtected (bit 17): content for hardware digital rights
 * management, which lives in VprSupported segments (the video protected
 * region). On top of the rules above it never leaves those segments in
 * the clear: an eviction into system memory is only possible out of a
 * segment with EncryptedPagingSupported, through the device's
 * TRANSFER_ENCRYPTED (a key the guest never sees, a fresh nonce per
 * eviction), and the way back decrypts into such a segment. The CPU never
 * copies it. Without encryption such an allocation is never evicted under
 * memory pressure, GEM_EVICT refuses it, and MAKE_RESIDENT can only move
 * it into another VprSupported segment.
 *
 * Every refusal names its rule in drm.debug:
 *
 * ========================== ==========================================
 * protected-map              no CPU mapping: GEM mmap, dumb map, kernel
 *                            vmap, faults, ptrace and /proc/PID/mem
 *                            (-EACCES)
 * protected-export           no dma-buf export (-EACCES)
 * protected-copy             a blit copies protected content only into
 *                            an allocation at least as protected
 *                            (-EACCES)
 * protected-scanout          no framebuffer of protected content is
 *                            scanned out: WDDM forbids Protected on the
 *                            primary surface (-EINVAL, KMS)
 * hardware-protected-evict   no eviction into system memory without
 *                            encrypted paging and the copy engine
 *                            (-EACCES)
 * hardware-protected-cpu     no CPU copy of HardwareProtected content
 *                            (-EACCES)
 * hardware-protected-resident a HardwareProtected allocation that fits
 *                            in no VprSupported segment is not created
 *                            or made resident in system memory instead
 *                            (-ENOSPC)
 * ========================== ==========================================
 *
 * What is not a leak: system pages of a Protected allocation are kernel
 * memory (TTM may swap them like any kernel-owned page cache); pages the
 * allocation keeps while in VRAM and pages it gives back are cleared by
 * TTM's pool before anyone else gets them; debugfs's peek file (root
 * only, like /dev/mem) reads any GPU address.
 */

#include <linux/random.h>

#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_mgr.h"
#include "wddmseg_migrate.h"
#include "wddmseg_protect.h"
#include "wddmseg_hw.h"

/**
 * wddmseg_protect_check_cpu - may the CPU map an allocation's content
 * @bo: allocation
 * @path: what asks (GEM mmap, dumb map, fault, ...), for the log
 *
 * The one decision behind every CPU path: protected content never, other
 * allocations when their flags ask for CPU access (CpuVisible or
 * CpuVisibleOnDemand).
 *
 * Return: 0, -EACCES (protected-map) or -EINVAL (cpu-visible).
 */
int wddmseg_protect_check_cpu(struct wddmseg_bo *bo, const char *path)
{
	struct drm_device *drm = bo->tbo.base.dev;

	if (wddmseg_bo_protected(bo)) {
		drm_dbg(drm, "%s: rule protected-map: allocation flags 0x%x: protected content is never mapped\n",
			path, bo->flags);
		return -EACCES;
	}
	if (!(bo->flags & (WDDMSEG_ALLOC_CPU_VISIBLE |
			   WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND))) {
		drm_dbg(drm, "%s: rule cpu-visible: allocation flags 0x%x allow no CPU access (needs CpuVisible or CpuVisibleOnDemand)\n",
			path, bo->flags);
		return -EINVAL;
	}
	return 0;
}

/**
 * wddmseg_protect_check_export - may an allocation become a dma-buf
 * @bo: allocation
 *
 * A dma-buf can be mapped by its importer and by any process it reaches:
 * protected content is never exported.
 *
 * Return: 0 or -EACCES (protected-export).
 */
int wddmseg_protect_check_export(struct wddmseg_bo *bo)
{
	if (!wddmseg_bo_protected(bo))
		return 0;
	drm_dbg(bo->tbo.base.dev, "prime export: rule protected-export: allocation flags 0x%x: protected content is never exported\n",
		bo->flags);
	return -EACCES;
}

/**
 * wddmseg_protect_check_copy - may a blit copy @src's content into @dst
 * @src: source allocation
 * @dst: destination allocation
 *
 * Protected content goes only into a protected allocation, and
 * HardwareProtected content only into a HardwareProtected one: the copy
 * must not be easier to reach than the original.
 *
 * Return: 0 or -EACCES (protected-copy).
 */
int wddmseg_protect_check_copy(struct wddmseg_bo *src, struct wddmseg_bo *dst)
{
	bool ok = true;

	if (wddmseg_bo_hw_protected(src))
		ok = wddmseg_bo_hw_protected(dst);
	else if (wddmseg_bo_protected(src))
		ok = wddmseg_bo_protected(dst);
	if (ok)
		return 0;
	drm_dbg(src->tbo.base.dev, "blit: rule protected-copy: source flags 0x%x, destination flags 0x%x: protected content only goes into an allocation at least as protected\n",
		src->flags, dst->flags);
	return -EACCES;
}

/**
 * wddmseg_protect_may_seal - may a HardwareProtected allocation be evicted out
 *	of a segment into system memory now
 * @bo: HardwareProtected allocation
 * @from: segment it is in
 *
 * Return: true when @from encrypts paging and the copy engine runs.
 */
bool wddmseg_protect_may_seal(struct wddmseg_bo *bo, u32 from)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(bo->tbo.bdev);

	return wddmseg_segment_seals(wdev, from) && wddmseg_migrate_uses_engine(wdev);
}

/**
 * wddmseg_protect_check_evict - may an explicit eviction (GEM_EVICT) move an
 *	allocation into system memory
 * @bo: allocation, reserved
 *
 * Return: 0 or -EACCES (hardware-protected-evict).
 */
int wddmseg_protect_check_evict(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(bo->tbo.bdev);
	u32 from;

	dma_resv_assert_held(bo->tbo.base.resv);
	if (!wddmseg_bo_hw_protected(bo) || bo->sealed)
		return 0;
	from = wddmseg_res_segment(wdev, bo->tbo.resource);
	if (!from || wddmseg_protect_may_seal(bo, from))
		return 0;
	drm_dbg(&wdev->drm, "evict: rule hardware-protected-evict: segment %u %s: HardwareProtected content leaves a VprSupported segment only encrypted\n",
		from, wddmseg_segment_seals(wdev, from) ?
		"encrypts paging but the copy engine is not in use" :
		"has no EncryptedPagingSupported");
	return -EACCES;
}

/**
 * wddmseg_protect_evictable - may TTM evict an allocation under memory pressure
 * @bo: allocation
 *
 * A HardwareProtected allocation that cannot be sealed into system memory
 * is never picked: TTM's evictions end in system memory.
 *
 * Return: false when evicting @bo would break its protection.
 */
bool wddmseg_protect_evictable(struct wddmseg_bo *bo)
{
	struct wddmseg_device *wdev = bdev_to_wddmseg(bo->tbo.bdev);

	if (!wddmseg_bo_hw_protected(bo) || !bo->tbo.resource)
		return true;
	return wddmseg_protect_may_seal(bo, wddmseg_res_segment(wdev,
								bo->tbo.resource));
}

/**
 * wddmseg_protect_nonce - a nonce for one encrypted eviction
 * @wdev: device
 *
 * Never the same twice on a device: a random start, then a counter.
 *
 * Return: the nonce.
 */
u64 wddmseg_protect_nonce(struct wddmseg_device *wdev)
{
	return atomic64_inc_return(&wdev->seal_nonce);
}

/**
 * wddmseg_protect_init - per-device state of protected content
 * @wdev: device
 */
void wddmseg_protect_init(struct wddmseg_device *wdev)
{
	atomic64_set(&wdev->seal_nonce, get_random_u64() >> 1);
}
