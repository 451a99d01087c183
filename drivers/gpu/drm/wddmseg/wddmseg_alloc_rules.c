// SPDX-License-Identifier: GPL-2.0-only
/*
 * Validation of allocation requests: DXGK_ALLOCATIONINFOFLAGS and the
 * segment sets of DXGK_ALLOCATIONINFO against the adapter's segments.
 *
 * A pure function over the descriptor table and the ioctl arguments, so it
 * can be tested without a device. Every flag is either honoured by the
 * driver or refused here with the reason; none is silently ignored.
 * Documentation/gpu/wddmseg.rst lists the rules by name.
 */

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sizes.h>

#include "wddmseg_alloc_rules.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_hw.h"

#define WDDMSEG_ALLOC_KNOWN_MASK	((u32)GENMASK(18, 0))

static __printf(4, 5) int
wddmseg_refuse(struct wddmseg_violation *v, int err, const char *rule,
	       const char *fmt, ...)
{
	va_list args;

	v->segment_id = 0;
	v->rule = rule;
	va_start(args, fmt);
	vsnprintf(v->detail, sizeof(v->detail), fmt, args);
	va_end(args);
	return err;
}

static int wddmseg_alloc_flags_check(u32 f, struct wddmseg_violation *v)
{
	const u32 cpu = WDDMSEG_ALLOC_CPU_VISIBLE |
			WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND;

	if (f & ~WDDMSEG_ALLOC_KNOWN_MASK)
		return wddmseg_refuse(v, -EINVAL, "alloc-reserved",
				      "reserved allocation flag bits 0x%08x",
				      f & ~WDDMSEG_ALLOC_KNOWN_MASK);
	if (f & WDDMSEG_ALLOC_EXISTING_KERNEL_SYSMEM)
		return wddmseg_refuse(v, -EINVAL, "existing-kernel-sysmem",
				      "ExistingKernelSysMem names kernel memory and cannot come from userspace");
	if (f & (WDDMSEG_ALLOC_LINK_MIRRORED | WDDMSEG_ALLOC_LINK_INSTANCED))
		return wddmseg_refuse(v, -EINVAL, "link",
				      "LinkMirrored/LinkInstanced need a linked multi-adapter; this is a single adapter");
	if (f & WDDMSEG_ALLOC_USE_ALTERNATE_VA)
		return wddmseg_refuse(v, -EINVAL, "alternate-va",
				      "UseAlternateVA is only valid for a primary allocation");
	if ((f & WDDMSEG_ALLOC_PROTECTED) &&
	    (f & (WDDMSEG_ALLOC_PERMANENT_SYSMEM | WDDMSEG_ALLOC_EXISTING_SYSMEM | cpu)))
		return wddmseg_refuse(v, -EINVAL, "protected",
				      "Protected cannot be combined with PermanentSysMem, ExistingSysMem or CPU visibility (flags 0x%08x)",
				      f);
	if ((f & WDDMSEG_ALLOC_HARDWARE_PROTECTED) && (f & cpu))
		return wddmseg_refuse(v, -EINVAL, "hardware-protected",
				      "HardwareProtected content cannot be CPU visible (flags 0x%08x)",
				      f);
	if ((f & (WDDMSEG_ALLOC_PERMANENT_SYSMEM | WDDMSEG_ALLOC_CACHED |
		  WDDMSEG_ALLOC_HISTORY_BUFFER)) &&
	    !(f & WDDMSEG_ALLOC_CPU_VISIBLE))
		return wddmseg_refuse(v, -EINVAL, "needs-cpu-visible",
				      "PermanentSysMem, Cached and HistoryBuffer need CpuVisible (flags 0x%08x)",
				      f);
	if ((f & WDDMSEG_ALLOC_EXISTING_SYSMEM) &&
	    (f & WDDMSEG_ALLOC_PERMANENT_SYSMEM))
		return wddmseg_refuse(v, -EINVAL, "existing-sysmem",
				      "ExistingSysMem cannot be combined with PermanentSysMem");
	if ((f & WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION) &&
	    !(f & WDDMSEG_ALLOC_ACCESSED_PHYSICALLY))
		return wddmseg_refuse(v, -EINVAL, "residency-notification",
				      "ExplicitResidencyNotification needs AccessedPhysically");
	if ((f & (WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_CAPTURE)) ==
	    (WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_CAPTURE))
		return wddmseg_refuse(v, -EINVAL, "overlay-capture",
				      "an allocation is an Overlay or a Capture, not both");

	/* Valid WDDM, but not implemented by this driver (yet). */
	if (f & WDDMSEG_ALLOC_SWIZZLED)
		return wddmseg_refuse(v, -EOPNOTSUPP, "unsupported",
				      "Swizzled: the device has no swizzling aperture");
	return 0;
}

static u32 wddmseg_aperture_set(const struct wddmseg_adapter_desc *d)
{
	u32 set = 0, id;

	for (id = 1; id <= d->segment_count; id++)
		if (wddmseg_segment_is_aperture(&d->seg[id - 1]))
			set |= WDDMSEG_SEGMENT_BIT(id);
	return set;
}

static bool wddmseg_has_coherent_aperture(const struct wddmseg_adapter_desc *d)
{
	u32 id;

	for (id = 1; id <= d->segment_count; id++)
		if ((d->seg[id - 1].flags & DXGK_SEGFLAG_APERTURE) &&
		    (d->seg[id - 1].flags & DXGK_SEGFLAG_CACHE_COHERENT))
			return true;
	return false;
}

/*
 * HistoryBuffer: with a cache-coherent aperture segment on the adapter,
 * WDDM wants CpuVisible and Cached set and every other flag clear.
 */
static int wddmseg_alloc_history_check(const struct wddmseg_adapter_desc *d,
				       u32 f, struct wddmseg_violation *v)
{
	const u32 want = WDDMSEG_ALLOC_HISTORY_BUFFER |
			 WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CACHED;

	if (!(f & WDDMSEG_ALLOC_HISTORY_BUFFER) ||
	    !wddmseg_has_coherent_aperture(d) || f == want)
		return 0;
	return wddmseg_refuse(v, -EINVAL, "history-buffer",
			      "with a cache-coherent aperture, a HistoryBuffer is CpuVisible|Cached|HistoryBuffer and nothing else (flags 0x%08x)",
			      f);
}

/*
 * Overlay and Capture allocations may pin the last 20% of an aperture
 * segment: WDDM has the driver keep every allocation that may be evicted
 * through that segment within the other 80%.
 */
static int wddmseg_alloc_eviction_check(const struct wddmseg_adapter_desc *d,
					const struct drm_wddmseg_gem_create *a,
					struct wddmseg_violation *v)
{
	u32 id;

	for (id = 1; id <= d->segment_count; id++) {
		const struct wddmseg_segment_desc *s = &d->seg[id - 1];

		if ((a->eviction_segments & WDDMSEG_SEGMENT_BIT(id)) &&
		    wddmseg_segment_is_aperture(s) &&
		    a->size > wddmseg_evict_through_max(s))
			return wddmseg_refuse(v, -EINVAL, "eviction-80",
					      "%llu bytes may not be evicted through aperture segment %u: at most 80%% of it (%llu bytes), Overlay and Capture allocations may pin the rest",
					      a->size, id,
					      wddmseg_evict_through_max(s));
	}
	return 0;
}

/**
 * wddmseg_evict_through_max - largest allocation an aperture segment may
 *	be an eviction segment of
 * @seg: aperture segment
 *
 * Return: 80% of its size, in whole pages.
 */
u64 wddmseg_evict_through_max(const struct wddmseg_segment_desc *seg)
{
	return (seg->size / 5 * 4) & PAGE_MASK;
}

/*
 * A cross-adapter resource (WDDMSEG_CREATE_CROSS_ADAPTER) has the
 * properties DXGK_VIDMMCAPS lists for one: CPU-visible, write-combined
 * (the OS creates it so; Cached would map it write-back), paged only into
 * aperture segments, linear with a 128-byte-aligned pitch and a 4-row
 * aligned height. Pitch and height mean nothing for other allocations.
 */
static int wddmseg_alloc_cross_adapter_check(const struct wddmseg_adapter_desc *d,
					     const struct drm_wddmseg_gem_create *a,
					     struct wddmseg_violation *v)
{
	u32 outside = a->supported_segments & ~wddmseg_aperture_set(d);

	if (!(a->create_flags & WDDMSEG_CREATE_CROSS_ADAPTER)) {
		if (a->pitch || a->height)
			return wddmseg_refuse(v, -EINVAL, "cross-adapter-layout",
					      "pitch %u and height %u are given for cross-adapter resources only",
					      a->pitch, a->height);
		return 0;
	}
	if (!(a->flags & WDDMSEG_ALLOC_CPU_VISIBLE))
		return wddmseg_refuse(v, -EINVAL, "cross-adapter-cpu-visible",
				      "a cross-adapter resource is CpuVisible (flags 0x%08x)",
				      a->flags);
	if (a->flags & WDDMSEG_ALLOC_CACHED)
		return wddmseg_refuse(v, -EINVAL, "cross-adapter-write-combined",
				      "a cross-adapter resource is write-combined, not Cached (flags 0x%08x)",
				      a->flags);
	if (outside)
		return wddmseg_refuse(v, -EINVAL, "cross-adapter-aperture",
				      "a cross-adapter resource is paged into aperture segments only: 0x%x of the supported set 0x%x are not",
				      outside, a->supported_segments);
	if (!a->pitch || a->pitch % WDDMSEG_CROSS_ADAPTER_PITCH_ALIGNMENT)
		return wddmseg_refuse(v, -EINVAL, "cross-adapter-pitch",
				      "pitch %u is not a non-zero multiple of %u bytes",
				      a->pitch, WDDMSEG_CROSS_ADAPTER_PITCH_ALIGNMENT);
	if (!a->height || a->height % WDDMSEG_CROSS_ADAPTER_HEIGHT_ALIGNMENT)
		return wddmseg_refuse(v, -EINVAL, "cross-adapter-height",
				      "height %u is not a non-zero multiple of %u rows",
				      a->height, WDDMSEG_CROSS_ADAPTER_HEIGHT_ALIGNMENT);
	if ((u64)a->pitch * a->height > a->size)
		return wddmseg_refuse(v, -EINVAL, "cross-adapter-size",
				      "%u rows of %u bytes do not fit %llu bytes",
				      a->height, a->pitch, a->size);
	return 0;
}

static int wddmseg_alloc_sets_check(const struct wddmseg_adapter_desc *d,
				    const struct drm_wddmseg_gem_create *a,
				    struct wddmseg_violation *v)
{
	u32 all = GENMASK(d->segment_count - 1, 0);
	u32 seen = 0, id, i;

	if (a->supported_segments & ~all)
		return wddmseg_refuse(v, -EINVAL, "segment-set",
				      "supported set 0x%x names segments beyond %u",
				      a->supported_segments, d->segment_count);
	if (a->eviction_segments & ~a->supported_segments)
		return wddmseg_refuse(v, -EINVAL, "segment-set",
				      "eviction set 0x%x is not a subset of the supported set 0x%x",
				      a->eviction_segments, a->supported_segments);

	for (i = 0; i < WDDMSEG_MAX_PREFERRED && a->preferred[i]; i++) {
		id = a->preferred[i];
		if (id > d->segment_count ||
		    !(a->supported_segments & WDDMSEG_SEGMENT_BIT(id)))
			return wddmseg_refuse(v, -EINVAL, "preferred",
					      "preferred segment %u is not in the supported set 0x%x",
					      id, a->supported_segments);
		if (seen & WDDMSEG_SEGMENT_BIT(id))
			return wddmseg_refuse(v, -EINVAL, "preferred",
					      "preferred segment %u is listed twice", id);
		seen |= WDDMSEG_SEGMENT_BIT(id);
	}
	for (; i < WDDMSEG_MAX_PREFERRED; i++)
		if (a->preferred[i])
			return wddmseg_refuse(v, -EINVAL, "preferred",
					      "preferred list has entries after its terminating 0");

	for (id = 1; id <= d->segment_count; id++) {
		const struct wddmseg_segment_desc *s = &d->seg[id - 1];

		if (!(a->supported_segments & WDDMSEG_SEGMENT_BIT(id)))
			continue;
		if ((s->flags & DXGK_SEGFLAG_AGP))
			return wddmseg_refuse(v, -EINVAL, "segment-set",
					      "segment %u is an AGP aperture, which this bus cannot provide",
					      id);
		if ((a->flags & WDDMSEG_ALLOC_CPU_VISIBLE) &&
		    !wddmseg_segment_is_aperture(s) &&
		    !(s->flags & DXGK_SEGFLAG_CPU_VISIBLE))
			return wddmseg_refuse(v, -EINVAL, "cpu-visible-set",
					      "CpuVisible allocation cannot live in segment %u, which the CPU cannot see",
					      id);
		if ((a->flags & WDDMSEG_ALLOC_HARDWARE_PROTECTED) &&
		    !(s->flags & DXGK_SEGFLAG_VPR_SUPPORTED))
			return wddmseg_refuse(v, -EINVAL, "hardware-protected",
					      "HardwareProtected allocation cannot live in segment %u without VprSupported",
					      id);
	}

	if ((a->flags & WDDMSEG_ALLOC_EXISTING_SYSMEM) &&
	    (a->supported_segments & ~wddmseg_aperture_set(d)))
		return wddmseg_refuse(v, -EINVAL, "existing-sysmem",
				      "ExistingSysMem memory is the backing store: only aperture segments may map it (supported 0x%x)",
				      a->supported_segments);
	if ((a->flags & WDDMSEG_ALLOC_HARDWARE_PROTECTED) && !a->supported_segments)
		return wddmseg_refuse(v, -EINVAL, "hardware-protected",
				      "HardwareProtected needs a VprSupported segment in the supported set");
	if ((a->flags & (WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_CAPTURE)) &&
	    !a->supported_segments)
		return wddmseg_refuse(v, -EINVAL, "pinned",
				      "Overlay and Capture allocations are pinned in a segment: the supported set is empty");

	if (a->bank_hint) {
		const struct wddmseg_segment_desc *s;

		if (!a->preferred[0])
			return wddmseg_refuse(v, -EINVAL, "bank-hint",
					      "a bank hint needs a preferred segment");
		s = &d->seg[a->preferred[0] - 1];
		if (!(s->flags & DXGK_SEGFLAG_USE_BANKING) ||
		    a->bank_hint > s->nb_banks)
			return wddmseg_refuse(v, -EINVAL, "bank-hint",
					      "bank %u does not exist in segment %u (%u banks)",
					      a->bank_hint - 1, a->preferred[0],
					      (s->flags & DXGK_SEGFLAG_USE_BANKING) ?
					      s->nb_banks : 0);
	}
	return 0;
}

/**
 * wddmseg_alloc_validate - check an allocation request
 * @desc: the adapter's validated segment table
 * @args: the request, as copied from userspace
 * @max_size: largest size the caller accepts for system-memory-only
 *	allocations
 * @v: on failure, the broken rule (segment_id is always 0)
 *
 * Return: 0, -EINVAL for a request WDDM forbids or that does not fit the
 * adapter, -EOPNOTSUPP for valid WDDM the driver does not implement.
 */
int wddmseg_alloc_validate(const struct wddmseg_adapter_desc *desc,
			   const struct drm_wddmseg_gem_create *args,
			   u64 max_size, struct wddmseg_violation *v)
{
	u64 largest = 0;
	u32 id;
	int ret;

	if (memchr_inv(args->reserved, 0, sizeof(args->reserved)) ||
	    args->handle || args->pad)
		return wddmseg_refuse(v, -EINVAL, "reserved",
				      "reserved fields, pad and handle must be zero");
	if (args->create_flags & ~WDDMSEG_CREATE_KNOWN_MASK)
		return wddmseg_refuse(v, -EINVAL, "reserved",
				      "unknown create_flags bits 0x%08x",
				      args->create_flags & ~WDDMSEG_CREATE_KNOWN_MASK);
	if (!args->user_ptr != !(args->flags & WDDMSEG_ALLOC_EXISTING_SYSMEM))
		return wddmseg_refuse(v, -EINVAL, "user-ptr",
				      "user_ptr is given exactly when ExistingSysMem is set");
	if (!PAGE_ALIGNED(args->user_ptr) || (args->user_ptr &&
					      !PAGE_ALIGNED(args->size)))
		return wddmseg_refuse(v, -EINVAL, "user-ptr",
				      "ExistingSysMem needs a page-aligned pointer (0x%llx) and size (%llu)",
				      args->user_ptr, args->size);
	if (args->alignment && !is_power_of_2(args->alignment))
		return wddmseg_refuse(v, -EINVAL, "alignment",
				      "alignment %u is not a power of two",
				      args->alignment);

	ret = wddmseg_alloc_flags_check(args->flags, v);
	if (ret)
		return ret;
	ret = wddmseg_alloc_sets_check(desc, args, v);
	if (ret)
		return ret;
	ret = wddmseg_alloc_history_check(desc, args->flags, v);
	if (ret)
		return ret;
	ret = wddmseg_alloc_cross_adapter_check(desc, args, v);
	if (ret)
		return ret;

	for (id = 1; id <= desc->segment_count; id++)
		if (args->supported_segments & WDDMSEG_SEGMENT_BIT(id))
			largest = max(largest, desc->seg[id - 1].commit_limit);
	if (!args->supported_segments)
		largest = max_size;
	if (!args->size || args->size > largest)
		return wddmseg_refuse(v, -EINVAL, "size",
				      "size %llu must be non-zero and fit the largest allowed segment (%llu bytes)",
				      args->size, largest);
	if (args->alignment > largest)
		return wddmseg_refuse(v, -EINVAL, "alignment",
				      "alignment %u exceeds every allowed segment",
				      args->alignment);
	return wddmseg_alloc_eviction_check(desc, args, v);
}
