// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading and validating the device's WDDM segment descriptor table.
 *
 * The rules are those DXGK_SEGMENTDESCRIPTOR, DXGK_SEGMENTFLAGS and
 * DXGK_VIDMMCAPS state for a display miniport driver, plus the few that
 * follow from this device's address map (memory segments live in VRAM, the
 * CPU sees VRAM through BAR2). Documentation/gpu/wddmseg.rst lists them by
 * name; the names here must stay in sync with that list and with the tests.
 */

#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sizes.h>

#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_hw.h"

static u64 wddmseg_rd64(void __iomem *mmio, u32 lo)
{
	return readl(mmio + lo) | (u64)readl(mmio + lo + 4) << 32;
}

/* The MMU registers exist from device 1.9 on: leave @desc->mmu zero before. */
static void wddmseg_mmu_read(void __iomem *mmio,
			     struct wddmseg_adapter_desc *desc)
{
	struct wddmseg_mmu_desc *m = &desc->mmu;
	u32 l, n;

	memset(m, 0, sizeof(*m));
	if (WDDMSEG_VERSION_MINOR(desc->hw_version) <
	    WDDMSEG_VERSION_MINOR_GPUMMU)
		return;
	m->caps = readl(mmio + WDDMSEG_REG_MMU_CAPS);
	m->va_bits = readl(mmio + WDDMSEG_REG_MMU_VA_BITS);
	m->levels = readl(mmio + WDDMSEG_REG_MMU_LEVELS);
	m->pt_segment = readl(mmio + WDDMSEG_REG_MMU_PT_SEGMENT);
	m->pt_size = readl(mmio + WDDMSEG_REG_MMU_PT_SIZE);
	m->pt_align = readl(mmio + WDDMSEG_REG_MMU_PT_ALIGN);
	m->contexts = readl(mmio + WDDMSEG_REG_MMU_CONTEXTS);
	m->tlb_entries = readl(mmio + WDDMSEG_REG_MMU_TLB_ENTRIES);
	n = min_t(u32, m->levels, WDDMSEG_MMU_LEVEL_MAX);
	for (l = 0; l < n; l++)
		m->level_bits[l] = readl(mmio + WDDMSEG_REG_MMU_LEVEL_BITS(l));
}

/**
 * wddmseg_desc_read - read caps and the descriptor table from the device
 * @mmio: BAR0
 * @desc: filled in; @desc->bar_start and @desc->bar_size are left alone
 *
 * Counts are stored exactly as reported so that validation can refuse
 * out-of-range ones; only the entries that fit in @desc are read.
 */
void wddmseg_desc_read(void __iomem *mmio, struct wddmseg_adapter_desc *desc)
{
	u32 i, j, nseg, nbank;

	desc->hw_version = readl(mmio + WDDMSEG_REG_VERSION);
	desc->vidmm_caps = readl(mmio + WDDMSEG_REG_VIDMM_CAPS);
	desc->paging_node = readl(mmio + WDDMSEG_REG_PAGING_NODE);
	desc->num_engines = readl(mmio + WDDMSEG_REG_NUM_ENGINES);
	desc->segment_count = readl(mmio + WDDMSEG_REG_SEG_COUNT);
	desc->vram_size = wddmseg_rd64(mmio, WDDMSEG_REG_VRAM_SIZE_LO);

	nseg = min_t(u32, desc->segment_count, WDDMSEG_MAX_SEGMENTS);
	for (i = 0; i < nseg; i++) {
		struct wddmseg_segment_desc *seg = &desc->seg[i];

		seg->base_address =
			wddmseg_rd64(mmio, WDDMSEG_SEG_REG(i, WDDMSEG_SEG_BASE_LO));
		seg->cpu_translated_address =
			wddmseg_rd64(mmio, WDDMSEG_SEG_REG(i, WDDMSEG_SEG_CPU_LO));
		seg->size =
			wddmseg_rd64(mmio, WDDMSEG_SEG_REG(i, WDDMSEG_SEG_SIZE_LO));
		seg->commit_limit =
			wddmseg_rd64(mmio, WDDMSEG_SEG_REG(i, WDDMSEG_SEG_COMMIT_LO));
		seg->flags = readl(mmio + WDDMSEG_SEG_REG(i, WDDMSEG_SEG_FLAGS));
		seg->nb_banks = readl(mmio + WDDMSEG_SEG_REG(i, WDDMSEG_SEG_NB_BANKS));

		nbank = min_t(u32, seg->nb_banks, WDDMSEG_MAX_BANKS);
		for (j = 0; j < nbank; j++)
			seg->bank_end[j] =
				wddmseg_rd64(mmio, WDDMSEG_SEG_REG(i, WDDMSEG_SEG_BANK_LO(j)));
	}
	wddmseg_mmu_read(mmio, desc);
}

/**
 * wddmseg_segment_is_aperture - whether a segment has no backing pages
 * @seg: descriptor
 *
 * Both the generic aperture and the AGP-type aperture are apertures.
 */
bool wddmseg_segment_is_aperture(const struct wddmseg_segment_desc *seg)
{
	return seg->flags & (DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_AGP);
}

/**
 * wddmseg_segflags_effective - segment flags as the driver acts on them
 * @flags: DXGK_SEGMENTFLAGS as the device reports them
 *
 * CpuVisible "has no meaning for aperture segments, including AGP-type
 * aperture segments" (DXGK_SEGMENTFLAGS): it is dropped there, as WDDM
 * ignores it. Validation, wddmseg_segment_cpu_visible() and the probe's
 * log line of an ignored flag all go through here.
 *
 * Return: @flags without what the driver ignores.
 */
u32 wddmseg_segflags_effective(u32 flags)
{
	if (flags & (DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_AGP))
		flags &= ~DXGK_SEGFLAG_CPU_VISIBLE;
	return flags;
}

/**
 * wddmseg_bank_end - where bank @j of a segment ends
 * @seg: descriptor with UseBanking
 * @j: bank index, below NbOfBanks
 *
 * WDDM lets the driver leave out the end of the last bank (reported as
 * 0): it is the end of the segment.
 *
 * Return: the bank's end offset in the segment.
 */
u64 wddmseg_bank_end(const struct wddmseg_segment_desc *seg, u32 j)
{
	if (j + 1 == seg->nb_banks && !seg->bank_end[j])
		return seg->size;
	return seg->bank_end[j];
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
	       (wddmseg_segflags_effective(seg->flags) &
		DXGK_SEGFLAG_CPU_VISIBLE);
}

/**
 * wddmseg_segment_budget_group - WDDM budget group a segment is accounted to
 * @seg: descriptor
 *
 * Return: WDDMSEG_BUDGET_LOCAL or WDDMSEG_BUDGET_NON_LOCAL.
 */
int wddmseg_segment_budget_group(const struct wddmseg_segment_desc *seg)
{
	if (seg->flags & DXGK_SEGFLAG_LOCAL_BUDGET_GROUP)
		return WDDMSEG_BUDGET_LOCAL;
	if (seg->flags & DXGK_SEGFLAG_NON_LOCAL_BUDGET_GROUP)
		return WDDMSEG_BUDGET_NON_LOCAL;
	return wddmseg_segment_is_aperture(seg) ? WDDMSEG_BUDGET_NON_LOCAL :
						  WDDMSEG_BUDGET_LOCAL;
}

/**
 * wddmseg_segment_budget_target - does a segment make its budget group's
 *	application budget
 * @desc: the adapter
 * @seg: one of its segments
 *
 * ApplicationTarget: "this segment should be targeted by the application
 * budget". When a segment of @seg's budget group has the flag, only the
 * segments that have it make the group's budget (QUERY_BUDGET's budget
 * and available); when none has it, every segment of the group does.
 *
 * Return: whether @seg counts toward its group's budget.
 */
bool wddmseg_segment_budget_target(const struct wddmseg_adapter_desc *desc,
				   const struct wddmseg_segment_desc *seg)
{
	int group = wddmseg_segment_budget_group(seg);
	u32 i;

	if (seg->flags & DXGK_SEGFLAG_APPLICATION_TARGET)
		return true;
	for (i = 0; i < desc->segment_count; i++)
		if ((desc->seg[i].flags & DXGK_SEGFLAG_APPLICATION_TARGET) &&
		    wddmseg_segment_budget_group(&desc->seg[i]) == group)
			return false;
	return true;
}

/**
 * wddmseg_segment_seals - can the device page protected content of a
 *	segment through system memory encrypted
 * @wdev: device
 * @segment_id: segment id, 0 (system memory) included
 *
 * Return: true for a VprSupported segment with EncryptedPagingSupported
 * on a device that has TRANSFER_ENCRYPTED (1.4).
 */
bool wddmseg_segment_seals(struct wddmseg_device *wdev, u32 segment_id)
{
	const u32 both = DXGK_SEGFLAG_VPR_SUPPORTED |
			 DXGK_SEGFLAG_ENCRYPTED_PAGING_SUPPORTED;

	if (segment_id == WDDMSEG_SEGMENT_SYSTEM ||
	    WDDMSEG_VERSION_MINOR(wdev->desc.hw_version) <
	    WDDMSEG_VERSION_MINOR_ENCRYPTED)
		return false;
	return (wdev->desc.seg[segment_id - 1].flags & both) == both;
}

static __printf(4, 5) int
wddmseg_violate(struct wddmseg_violation *v, u32 segment_id, const char *rule,
		const char *fmt, ...)
{
	va_list args;

	v->segment_id = segment_id;
	v->rule = rule;
	va_start(args, fmt);
	vsnprintf(v->detail, sizeof(v->detail), fmt, args);
	va_end(args);
	return -EINVAL;
}

static bool wddmseg_range_inside(u64 start, u64 size, u64 win, u64 win_size)
{
	u64 end, win_end;

	if (check_add_overflow(start, size, &end) ||
	    check_add_overflow(win, win_size, &win_end))
		return false;
	return start >= win && end <= win_end;
}

/**
 * wddmseg_mmu_usable - whether the device has a GPU MMU the driver drives
 * @d: the adapter as read from the device
 *
 * The MMU is present (MMU_CAPS, device 1.9 on), its geometry is one the
 * page-table code handles (a VA of more than one page and below 64 bits,
 * page tables of whole 4 KiB pages aligned to a power of two) and its
 * page tables live in a memory segment of the layout. GpuMmuSupported
 * needs it (rule caps-gpu-mmu-absent), and so does VM_CREATE.
 *
 * Return: true if GPU virtual address spaces can be built on the device.
 */
bool wddmseg_mmu_usable(const struct wddmseg_adapter_desc *d)
{
	const struct wddmseg_mmu_desc *m = &d->mmu;
	u32 nseg = min_t(u32, d->segment_count, WDDMSEG_MAX_SEGMENTS);

	return (m->caps & WDDMSEG_MMU_CAPS_PRESENT) &&
	       m->va_bits > WDDMSEG_HW_PAGE_SHIFT && m->va_bits < 64 &&
	       m->pt_size && IS_ALIGNED(m->pt_size, SZ_4K) &&
	       m->pt_align && is_power_of_2(m->pt_align) &&
	       m->pt_segment >= 1 && m->pt_segment <= nseg &&
	       !wddmseg_segment_is_aperture(&d->seg[m->pt_segment - 1]);
}

static int wddmseg_validate_caps(const struct wddmseg_adapter_desc *d,
				 struct wddmseg_violation *v)
{
	u32 caps = d->vidmm_caps;

	if (caps & ~DXGK_VIDMMCAP_KNOWN_MASK)
		return wddmseg_violate(v, 0, "caps-reserved",
				       "reserved DXGK_VIDMMCAPS bits set (0x%08x)",
				       caps & ~DXGK_VIDMMCAP_KNOWN_MASK);
	if (caps & (DXGK_VIDMMCAP_DEDICATED_PAGING_ENGINE |
		    DXGK_VIDMMCAP_PAGING_ENGINE_CAN_SWIZZLE))
		return wddmseg_violate(v, 0, "caps-paging-reserved",
				       "DedicatedPagingEngine and PagingEngineCanSwizzle are reserved and must be 0 (caps 0x%08x)",
				       caps);
	if ((caps & DXGK_VIDMMCAP_GPU_MMU_SUPPORTED) &&
	    (caps & DXGK_VIDMMCAP_IO_MMU_SUPPORTED))
		return wddmseg_violate(v, 0, "caps-mmu-exclusive",
				       "GpuMmuSupported and IoMmuSupported cannot both be set (caps 0x%08x)",
				       caps);
	if ((caps & DXGK_VIDMMCAP_VIRTUAL_ADDRESSING_SUPPORTED) &&
	    !(caps & (DXGK_VIDMMCAP_GPU_MMU_SUPPORTED |
		      DXGK_VIDMMCAP_IO_MMU_SUPPORTED)))
		return wddmseg_violate(v, 0, "caps-virtual-addressing",
				       "VirtualAddressingSupported needs GpuMmuSupported or IoMmuSupported (caps 0x%08x)",
				       caps);
	if ((caps & DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_TEXTURE) &&
	    !(caps & DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE))
		return wddmseg_violate(v, 0, "caps-cross-adapter-tier",
				       "CrossAdapterResourceTexture (tier 2) needs CrossAdapterResource (tier 1) (caps 0x%08x)",
				       caps);
	if ((caps & DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_SCANOUT) &&
	    (~caps & (DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE |
		      DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_TEXTURE)))
		return wddmseg_violate(v, 0, "caps-cross-adapter-tier",
				       "CrossAdapterResourceScanout (tier 3) needs tiers 1 and 2 (caps 0x%08x)",
				       caps);
	if ((caps & DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_REQUIRED) &&
	    !(caps & DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_SUPPORTED))
		return wddmseg_violate(v, 0, "caps-iommu-secure",
				       "IoMmuSecureModeRequired without IoMmuSecureModeSupported (caps 0x%08x)",
				       caps);
	/*
	 * GpuMmuSupported promises GPU virtual address spaces (wddmseg_vm.c):
	 * the device must have a GPU MMU the driver can drive (MMU registers
	 * from 1.9 on, with a memory segment for its page tables).
	 */
	if ((caps & DXGK_VIDMMCAP_GPU_MMU_SUPPORTED) && !wddmseg_mmu_usable(d))
		return wddmseg_violate(v, 0, "caps-gpu-mmu-absent",
				       "GpuMmuSupported, but no usable GPU MMU (version 0x%08x, MMU_CAPS 0x%08x, VA bits %u, page tables %u/%u in segment %u)",
				       d->hw_version, d->mmu.caps, d->mmu.va_bits,
				       d->mmu.pt_size, d->mmu.pt_align,
				       d->mmu.pt_segment);
	/*
	 * WDDM's IoMmu model (the GPU uses CPU virtual addresses, translated
	 * by an IOMMU bound to the process) is not implemented.
	 */
	if (caps & DXGK_VIDMMCAP_IO_MMU_SUPPORTED)
		return wddmseg_violate(v, 0, "caps-io-mmu-model",
				       "IoMmuSupported: the IoMmu model (GPU VA = CPU VA through an IOMMU) is not implemented (caps 0x%08x)",
				       caps);
	if ((caps & DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_REQUIRED) && !d->isolated)
		return wddmseg_violate(v, 0, "caps-iommu-required",
				       "IoMmuSecureModeRequired, but no IOMMU translates the device's DMA (caps 0x%08x)",
				       caps);
	if (d->paging_node >= d->num_engines)
		return wddmseg_violate(v, 0, "caps-paging-node",
				       "PagingNode %u is not an engine of the device (%u engines)",
				       d->paging_node, d->num_engines);
	return 0;
}

static int wddmseg_validate_flags(u32 id, u32 flags,
				  struct wddmseg_violation *v)
{
	u32 standby = flags & DXGK_SEGFLAG_PRESERVED_DURING_STANDBY;
	u32 hiber = flags & DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE;
	u32 partial = flags & DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE;

	if (flags & ~DXGK_SEGFLAG_KNOWN_MASK)
		return wddmseg_violate(v, id, "flags-reserved",
				       "reserved DXGK_SEGMENTFLAGS bits set (0x%08x)",
				       flags & ~DXGK_SEGFLAG_KNOWN_MASK);
	if ((flags & DXGK_SEGFLAG_AGP) && flags != DXGK_SEGFLAG_AGP)
		return wddmseg_violate(v, id, "agp-exclusive",
				       "Agp must be the only flag set (flags 0x%08x)",
				       flags);
	if (flags & DXGK_SEGFLAG_RESERVED_SYSMEM)
		return wddmseg_violate(v, id, "reserved-sysmem",
				       "ReservedSysMem is for system use and must not be set by the driver (flags 0x%08x)",
				       flags);
	/*
	 * CpuVisible on an aperture is accepted and ignored, as WDDM does
	 * (wddmseg_segflags_effective()); wddmseg_load_segments() logs it.
	 * (Agp with it is refused above: Agp must be alone.)
	 */
	flags = wddmseg_segflags_effective(flags);
	if ((flags & DXGK_SEGFLAG_CACHE_COHERENT) &&
	    !(flags & DXGK_SEGFLAG_APERTURE))
		return wddmseg_violate(v, id, "cachecoherent-aperture",
				       "CacheCoherent is only valid with Aperture (flags 0x%08x)",
				       flags);
	if ((hiber && partial) || ((hiber || partial) && !standby))
		return wddmseg_violate(v, id, "preservation-table",
				       "invalid PreservedDuringStandby/PreservedDuringHibernate/PartiallyPreservedDuringHibernate combination %d%d%d",
				       !!standby, !!hiber, !!partial);
	if ((flags & DXGK_SEGFLAG_SUPPORTS_CPU_HOST_APERTURE) &&
	    (flags & DXGK_SEGFLAG_CPU_VISIBLE))
		return wddmseg_violate(v, id, "cpu-host-aperture",
				       "SupportsCpuHostAperture cannot be combined with CpuVisible (flags 0x%08x)",
				       flags);
	if ((flags & DXGK_SEGFLAG_SUPPORTS_CACHED_CPU_HOST_APERTURE) &&
	    !(flags & DXGK_SEGFLAG_SUPPORTS_CPU_HOST_APERTURE))
		return wddmseg_violate(v, id, "cached-cpu-host-aperture",
				       "SupportsCachedCpuHostAperture needs SupportsCpuHostAperture (flags 0x%08x)",
				       flags);
	if ((flags & DXGK_SEGFLAG_VPR_PRESERVED_DURING_STANDBY) &&
	    !(flags & DXGK_SEGFLAG_VPR_SUPPORTED))
		return wddmseg_violate(v, id, "vpr-standby",
				       "VprPreservedDuringStandby needs VprSupported (flags 0x%08x)",
				       flags);
	if ((flags & DXGK_SEGFLAG_LOCAL_BUDGET_GROUP) &&
	    (flags & DXGK_SEGFLAG_NON_LOCAL_BUDGET_GROUP))
		return wddmseg_violate(v, id, "budget-group",
				       "a segment belongs to the local or the non-local budget group, not both (flags 0x%08x)",
				       flags);
	return 0;
}

static int wddmseg_validate_banks(u32 id, const struct wddmseg_segment_desc *s,
				  struct wddmseg_violation *v)
{
	bool banking = s->flags & DXGK_SEGFLAG_USE_BANKING;
	u64 prev = 0;
	u32 j;

	if (banking != !!s->nb_banks)
		return wddmseg_violate(v, id, "banking-flag",
				       "UseBanking %s but NbOfBanks is %u",
				       banking ? "set" : "clear", s->nb_banks);
	if (!banking)
		return 0;
	if (s->nb_banks > WDDMSEG_MAX_BANKS)
		return wddmseg_violate(v, id, "bank-count",
				       "NbOfBanks %u exceeds the supported %u",
				       s->nb_banks, WDDMSEG_MAX_BANKS);
	for (j = 0; j < s->nb_banks; j++) {
		u64 end = wddmseg_bank_end(s, j);

		if (end <= prev || !IS_ALIGNED(end, PAGE_SIZE))
			return wddmseg_violate(v, id, "bank-order",
					       "bank %u ends at 0x%llx: bank ends must be page aligned and increasing (previous 0x%llx)",
					       j, end, prev);
		prev = end;
	}
	if (prev != s->size)
		return wddmseg_violate(v, id, "bank-end",
				       "last bank ends at 0x%llx, not at the segment end 0x%llx",
				       prev, s->size);
	return 0;
}

static int wddmseg_validate_segment(const struct wddmseg_adapter_desc *d,
				    u32 id, struct wddmseg_violation *v)
{
	const struct wddmseg_segment_desc *s = &d->seg[id - 1];
	bool aperture = wddmseg_segment_is_aperture(s);
	bool agp = s->flags & DXGK_SEGFLAG_AGP;
	int ret;

	ret = wddmseg_validate_flags(id, s->flags, v);
	if (ret)
		return ret;

	/* Base and size of an AGP-type aperture are ignored by WDDM. */
	if (!agp) {
		if (!s->size || !IS_ALIGNED(s->size, PAGE_SIZE))
			return wddmseg_violate(v, id, "size",
					       "Size 0x%llx must be a non-zero multiple of the page size",
					       s->size);
		if (s->base_address + s->size < s->base_address)
			return wddmseg_violate(v, id, "gpu-range",
					       "GPU range 0x%llx + 0x%llx wraps past the end of the address space",
					       s->base_address, s->size);
		if (!IS_ALIGNED(s->base_address, PAGE_SIZE))
			return wddmseg_violate(v, id, "base-alignment",
					       "BaseAddress 0x%llx is not page aligned",
					       s->base_address);
		if ((s->flags & DXGK_SEGFLAG_USE_64KB_PAGES) &&
		    (!IS_ALIGNED(s->base_address, SZ_64K) ||
		     !IS_ALIGNED(s->size, SZ_64K)))
			return wddmseg_violate(v, id, "64kb-alignment",
					       "Use64KBPages needs BaseAddress 0x%llx and Size 0x%llx aligned to 64 KiB",
					       s->base_address, s->size);
	}

	if (!aperture && s->commit_limit != s->size)
		return wddmseg_violate(v, id, "commit-limit",
				       "CommitLimit 0x%llx of a memory segment must equal its Size 0x%llx",
				       s->commit_limit, s->size);
	if (aperture && !agp &&
	    (!s->commit_limit || s->commit_limit > s->size ||
	     !IS_ALIGNED(s->commit_limit, PAGE_SIZE)))
		return wddmseg_violate(v, id, "commit-limit",
				       "CommitLimit 0x%llx of an aperture must be a non-zero page multiple not above Size 0x%llx",
				       s->commit_limit, s->size);

	if (wddmseg_segflags_effective(s->flags) & DXGK_SEGFLAG_CPU_VISIBLE) {
		/* BAR2 maps VRAM linearly from GPU address 0. */
		if (!wddmseg_range_inside(s->cpu_translated_address, s->size,
					  d->bar_start, d->bar_size))
			return wddmseg_violate(v, id, "cpu-translated-address",
					       "CpuTranslatedAddress 0x%llx + Size 0x%llx is not inside the VRAM BAR 0x%llx + 0x%llx",
					       s->cpu_translated_address, s->size,
					       d->bar_start, d->bar_size);
		if (s->cpu_translated_address - d->bar_start != s->base_address)
			return wddmseg_violate(v, id, "cpu-translated-address",
					       "CpuTranslatedAddress 0x%llx does not map BaseAddress 0x%llx (BAR offset 0x%llx)",
					       s->cpu_translated_address,
					       s->base_address,
					       s->cpu_translated_address - d->bar_start);
	}

	if (!aperture && !wddmseg_range_inside(s->base_address, s->size, 0,
					       d->vram_size))
		return wddmseg_violate(v, id, "gpu-range",
				       "memory segment 0x%llx + 0x%llx is outside device VRAM (0x%llx bytes)",
				       s->base_address, s->size, d->vram_size);

	return wddmseg_validate_banks(id, s, v);
}

static bool wddmseg_overlap(const struct wddmseg_segment_desc *a,
			    const struct wddmseg_segment_desc *b)
{
	/* Sizes are validated non-zero and ranges not to wrap. */
	u64 a_end = a->base_address + a->size;
	u64 b_end = b->base_address + b->size;

	return a->base_address < b_end && b->base_address < a_end;
}

static int wddmseg_validate_table(const struct wddmseg_adapter_desc *d,
				  struct wddmseg_violation *v)
{
	u32 i, j, agp_id = 0;

	for (i = 0; i < d->segment_count; i++) {
		const struct wddmseg_segment_desc *a = &d->seg[i];

		if (a->flags & DXGK_SEGFLAG_AGP) {
			if (agp_id)
				return wddmseg_violate(v, i + 1, "agp-unique",
						       "only one Agp segment may exist; segment %u is one already",
						       agp_id);
			agp_id = i + 1;
			continue;
		}
		for (j = 0; j < i; j++) {
			const struct wddmseg_segment_desc *b = &d->seg[j];

			if (!(b->flags & DXGK_SEGFLAG_AGP) && wddmseg_overlap(a, b))
				return wddmseg_violate(v, i + 1, "overlap",
						       "GPU range 0x%llx + 0x%llx overlaps segment %u",
						       a->base_address, a->size, j + 1);
		}
	}
	return 0;
}

/**
 * wddmseg_caps_honoured - the DXGK_VIDMMCAPS bits the driver acts on
 * @caps: DXGK_VIDMMCAPS.Value of a validated adapter
 * @isolated: a translating IOMMU isolates the device's DMA
 * @gpuvm: the kernel has drm_gpuvm (WDDMSEG_HAVE_GPUVM)
 *
 * What QUERY_ADAPTER reports: a capability is only reported when the
 * driver keeps its promise. IoMmuSecureModeSupported and -Required hold
 * when the device sits behind a translating IOMMU (the DMA API then
 * confines it to what the driver mapped). CrossAdapterResource and
 * CrossAdapterResourceTexture are PRIME (wddmseg_prime.c).
 * DisableSelfRefreshVRAMInS3 and AlwaysPoweredVRAM decide what a suspend
 * evicts (wddmseg_pm.c). VirtualAddressingSupported and GpuMmuSupported
 * (validation has checked the GPU MMU) are the address spaces of
 * wddmseg_vm.c, which only exist where the kernel has drm_gpuvm
 * (@gpuvm; without it the VM ioctls refuse with rule vm-no-gpuvm).
 * Every other bit has no behaviour here yet and is masked;
 * Documentation/gpu/wddmseg.rst says why for each.
 *
 * Return: the honoured subset of @caps.
 */
u32 wddmseg_caps_honoured(u32 caps, bool isolated, bool gpuvm)
{
	/*
	 * DOC: PRIME (scanout of imported allocations is not done);
	 * wddmseg_pm.c keeps both power promises across S3.
	 */
	u32 honoured = DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE |
		       DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_TEXTURE |
		       DXGK_VIDMMCAP_DISABLE_SELF_REFRESH_VRAM_IN_S3 |
		       DXGK_VIDMMCAP_ALWAYS_POWERED_VRAM;

	if (isolated)
		honoured |= DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_SUPPORTED |
			    DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_REQUIRED;
	if (gpuvm)
		honoured |= DXGK_VIDMMCAP_VIRTUAL_ADDRESSING_SUPPORTED |
			    DXGK_VIDMMCAP_GPU_MMU_SUPPORTED;
	return caps & honoured;
}

/**
 * wddmseg_desc_validate - check caps and the descriptor table
 * @desc: what the device reported, with the BAR window filled in
 * @v: on failure, the first broken rule
 *
 * Return: 0 if every rule holds, -EINVAL otherwise.
 */
int wddmseg_desc_validate(const struct wddmseg_adapter_desc *desc,
			  struct wddmseg_violation *v)
{
	u32 id;
	int ret;

	ret = wddmseg_validate_caps(desc, v);
	if (ret)
		return ret;

	if (!desc->segment_count || desc->segment_count > WDDMSEG_MAX_SEGMENTS)
		return wddmseg_violate(v, 0, "segment-count",
				       "%u segments; between 1 and %u are supported",
				       desc->segment_count, WDDMSEG_MAX_SEGMENTS);

	for (id = 1; id <= desc->segment_count; id++) {
		ret = wddmseg_validate_segment(desc, id, v);
		if (ret)
			return ret;
	}

	return wddmseg_validate_table(desc, v);
}
