// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of wddmseg_desc_validate(): the DXGK_VIDMMCAPS,
 * DXGK_SEGMENTDESCRIPTOR and DXGK_SEGMENTFLAGS rules the driver checks at
 * probe time (Documentation/gpu/wddmseg.rst, "Probe-time validation").
 *
 * Every case starts from one valid adapter (three segments: CPU-visible
 * VRAM, invisible VRAM, a cache-coherent aperture) and applies one
 * mutation. A "valid" mutation must still validate; a rule mutation must
 * be refused with exactly that rule name, at the segment it broke. The
 * case descriptions start with the rule name, so that the debug tier
 * (tools/debug/check-debug.sh) can check that every rule of the rst has
 * a case here.
 *
 * Three suites: wddmseg_caps (adapter capabilities), wddmseg_segment (one
 * descriptor and its flags), wddmseg_table (the table as a whole).
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "../wddmseg_desc.h"
#include "../wddmseg_device_types.h"
#include "../wddmseg_hw.h"
#include "wddmseg_test_fixtures.h"

/**
 * struct desc_case - one mutation of the base adapter
 * @desc: "rule: what" or "valid: what", the KTAP case description
 * @rule: the rule that must be reported, NULL for a valid variant
 * @segment_id: where it must be reported (0 for adapter rules)
 * @mutate: applied to the base adapter
 */
struct desc_case {
	const char *desc;
	const char *rule;
	u32 segment_id;
	void (*mutate)(struct wddmseg_adapter_desc *d);
};

/*
 * The base adapter is wddmseg_test_adapter() (wddmseg_test_fixtures.c):
 * 2 MiB of VRAM, a 1 MiB BAR2, one engine.
 *   1: VRAM [0, 1M), CPU-visible through BAR2 at offset 0
 *   2: VRAM [1M, 2M), invisible
 *   3: aperture of 1 MiB at 4 GiB, cache coherent
 */

static void set_banks(struct wddmseg_segment_desc *s, u32 nb,
		      const u64 *ends, u32 n)
{
	s->flags |= DXGK_SEGFLAG_USE_BANKING;
	s->nb_banks = nb;
	memcpy(s->bank_end, ends, n * sizeof(*ends));
}

static void desc_case_name(const struct desc_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

/* Run one case: validate the mutated base and compare with the case. */
static void check_case(struct kunit *test, const struct desc_case *c)
{
	struct wddmseg_adapter_desc *d;
	struct wddmseg_violation v = { };
	int ret;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);

	/* the mutation alone must make the difference */
	wddmseg_test_adapter(d);
	ret = wddmseg_desc_validate(d, &v);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "base adapter refused: rule %s: %s",
			    v.rule, v.detail);

	c->mutate(d);
	memset(&v, 0, sizeof(v));
	ret = wddmseg_desc_validate(d, &v);
	if (!c->rule) {
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "refused: rule %s: %s",
				    v.rule, v.detail);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "accepted, expected rule %s",
			    c->rule);
	if (ret != -EINVAL)
		return;
	KUNIT_ASSERT_NOT_NULL(test, v.rule);
	KUNIT_EXPECT_STREQ(test, v.rule, c->rule);
	KUNIT_EXPECT_EQ(test, v.segment_id, c->segment_id);
	/* the log line names the offending values */
	KUNIT_EXPECT_GT(test, strnlen(v.detail, sizeof(v.detail)), 0);
	KUNIT_EXPECT_LT(test, strnlen(v.detail, sizeof(v.detail)),
			sizeof(v.detail));
}

/* --- wddmseg_caps: DXGK_VIDMMCAPS and PagingNode ------------------------- */

static void caps_none(struct wddmseg_adapter_desc *d)
{
}

static void caps_out_of_order_lock(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_OUT_OF_ORDER_LOCK;
}

/*
 * The GPU MMU of the device (QEMU's geometry, docs-wddmseg.rst): 39-bit
 * VA, 4 KiB page tables aligned to 4 KiB in the invisible VRAM segment 2.
 */
static void set_mmu(struct wddmseg_adapter_desc *d)
{
	d->mmu.caps = WDDMSEG_MMU_CAPS_PRESENT;
	d->mmu.va_bits = 39;
	d->mmu.levels = 3;
	d->mmu.pt_segment = 2;
	d->mmu.pt_size = SZ_4K;
	d->mmu.pt_align = SZ_4K;
	d->mmu.contexts = 4;
	d->mmu.tlb_entries = 64;
}

static void caps_gpu_va(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_VIRTUAL_ADDRESSING_SUPPORTED |
			DXGK_VIDMMCAP_GPU_MMU_SUPPORTED;
}

/* A device with its GPU MMU: VirtualAddressing and GpuMmu are honoured. */
static void caps_va_gpummu(struct wddmseg_adapter_desc *d)
{
	caps_gpu_va(d);
	set_mmu(d);
}

/* The same caps on a device that has no GPU MMU at all. */
static void caps_gpummu_no_mmu(struct wddmseg_adapter_desc *d)
{
	caps_gpu_va(d);
	d->mmu.caps = 0;
}

/* An MMU whose page tables would live in the aperture (segment 3). */
static void caps_gpummu_pt_aperture(struct wddmseg_adapter_desc *d)
{
	caps_va_gpummu(d);
	d->mmu.pt_segment = 3;
}

/* An MMU whose page-table segment is not in the table. */
static void caps_gpummu_pt_missing(struct wddmseg_adapter_desc *d)
{
	caps_va_gpummu(d);
	d->mmu.pt_segment = 4;
}

/* An MMU of one page of VA: nothing to hand out. */
static void caps_gpummu_va_page(struct wddmseg_adapter_desc *d)
{
	caps_va_gpummu(d);
	d->mmu.va_bits = 12;
}

/* Page tables of a size and an alignment the driver cannot allocate. */
static void caps_gpummu_pt_size(struct wddmseg_adapter_desc *d)
{
	caps_va_gpummu(d);
	d->mmu.pt_size = 3000;
}

static void caps_gpummu_pt_align(struct wddmseg_adapter_desc *d)
{
	caps_va_gpummu(d);
	d->mmu.pt_align = 0x3000;
}

/* The IoMmu model, with VirtualAddressing and alone, on a device with an MMU. */
static void caps_va_iommu(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_VIRTUAL_ADDRESSING_SUPPORTED |
			DXGK_VIDMMCAP_IO_MMU_SUPPORTED;
	set_mmu(d);
}

static void caps_iommu_alone(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_IO_MMU_SUPPORTED;
	set_mmu(d);
}

static void caps_cross_adapter_tiers(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE |
			DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_TEXTURE |
			DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_SCANOUT;
}

static void caps_iommu_secure(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_SUPPORTED |
			DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_REQUIRED;
	d->isolated = true;
}

static void caps_iommu_required_unisolated(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_SUPPORTED |
			DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_REQUIRED;
}

/* every capability a consistent adapter may have at once, but IoMmu */
static void caps_all_consistent(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_KNOWN_MASK &
			~(DXGK_VIDMMCAP_DEDICATED_PAGING_ENGINE |
			  DXGK_VIDMMCAP_PAGING_ENGINE_CAN_SWIZZLE |
			  DXGK_VIDMMCAP_IO_MMU_SUPPORTED);
	d->isolated = true;
	set_mmu(d);
}

static void caps_last_paging_node(struct wddmseg_adapter_desc *d)
{
	d->num_engines = 4;
	d->paging_node = 3;
}

static void caps_reserved_low(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = BIT(18);
}

static void caps_reserved_high(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = BIT(31);
}

static void caps_dedicated_paging(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_DEDICATED_PAGING_ENGINE;
}

static void caps_paging_swizzle(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_PAGING_ENGINE_CAN_SWIZZLE;
}

static void caps_both_mmus(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_GPU_MMU_SUPPORTED |
			DXGK_VIDMMCAP_IO_MMU_SUPPORTED;
}

static void caps_va_alone(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_VIRTUAL_ADDRESSING_SUPPORTED;
}

static void caps_texture_alone(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_TEXTURE;
}

static void caps_scanout_no_texture(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE |
			DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_SCANOUT;
}

static void caps_scanout_no_tier1(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_TEXTURE |
			DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_SCANOUT;
}

static void caps_secure_required_alone(struct wddmseg_adapter_desc *d)
{
	d->vidmm_caps = DXGK_VIDMMCAP_IO_MMU_SUPPORTED |
			DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_REQUIRED;
}

static void caps_node_missing(struct wddmseg_adapter_desc *d)
{
	d->paging_node = 1;
}

static void caps_no_engine(struct wddmseg_adapter_desc *d)
{
	d->num_engines = 0;
}

static const struct desc_case caps_cases[] = {
	{ "valid: no capability", NULL, 0, caps_none },
	{ "valid: OutOfOrderLock", NULL, 0, caps_out_of_order_lock },
	{ "valid: all three cross-adapter tiers", NULL, 0,
	  caps_cross_adapter_tiers },
	{ "valid: IoMmu secure mode supported and required behind an IOMMU",
	  NULL, 0, caps_iommu_secure },
	{ "valid: every consistent capability at once", NULL, 0,
	  caps_all_consistent },
	{ "valid: PagingNode is the last of 4 engines", NULL, 0,
	  caps_last_paging_node },
	{ "valid: VirtualAddressing and GpuMmu with a usable GPU MMU", NULL,
	  0, caps_va_gpummu },
	{ "caps-reserved: bit 18", "caps-reserved", 0, caps_reserved_low },
	{ "caps-reserved: bit 31", "caps-reserved", 0, caps_reserved_high },
	{ "caps-paging-reserved: DedicatedPagingEngine",
	  "caps-paging-reserved", 0, caps_dedicated_paging },
	{ "caps-paging-reserved: PagingEngineCanSwizzle",
	  "caps-paging-reserved", 0, caps_paging_swizzle },
	{ "caps-mmu-exclusive: GpuMmu and IoMmu", "caps-mmu-exclusive", 0,
	  caps_both_mmus },
	{ "caps-virtual-addressing: without an MMU",
	  "caps-virtual-addressing", 0, caps_va_alone },
	{ "caps-cross-adapter-tier: Texture without tier 1",
	  "caps-cross-adapter-tier", 0, caps_texture_alone },
	{ "caps-cross-adapter-tier: Scanout without Texture",
	  "caps-cross-adapter-tier", 0, caps_scanout_no_texture },
	{ "caps-cross-adapter-tier: Scanout without tier 1",
	  "caps-cross-adapter-tier", 0, caps_scanout_no_tier1 },
	{ "caps-iommu-secure: Required without Supported",
	  "caps-iommu-secure", 0, caps_secure_required_alone },
	{ "caps-io-mmu-model: VirtualAddressing with IoMmu",
	  "caps-io-mmu-model", 0, caps_va_iommu },
	{ "caps-io-mmu-model: IoMmu alone", "caps-io-mmu-model", 0,
	  caps_iommu_alone },
	{ "caps-gpu-mmu-absent: GpuMmu on a device without an MMU",
	  "caps-gpu-mmu-absent", 0, caps_gpummu_no_mmu },
	{ "caps-gpu-mmu-absent: page tables in an aperture",
	  "caps-gpu-mmu-absent", 0, caps_gpummu_pt_aperture },
	{ "caps-gpu-mmu-absent: page tables in no segment",
	  "caps-gpu-mmu-absent", 0, caps_gpummu_pt_missing },
	{ "caps-gpu-mmu-absent: VA of one page", "caps-gpu-mmu-absent", 0,
	  caps_gpummu_va_page },
	{ "caps-gpu-mmu-absent: page tables not of whole pages",
	  "caps-gpu-mmu-absent", 0, caps_gpummu_pt_size },
	{ "caps-gpu-mmu-absent: page-table alignment not a power of two",
	  "caps-gpu-mmu-absent", 0, caps_gpummu_pt_align },
	{ "caps-iommu-required: secure mode required, no IOMMU",
	  "caps-iommu-required", 0, caps_iommu_required_unisolated },
	{ "caps-paging-node: node 1 of 1 engine", "caps-paging-node", 0,
	  caps_node_missing },
	{ "caps-paging-node: no engine at all", "caps-paging-node", 0,
	  caps_no_engine },
};

KUNIT_ARRAY_PARAM(caps, caps_cases, desc_case_name);

static void caps_rules(struct kunit *test)
{
	check_case(test, test->param_value);
}

/* The adapter rules come before any segment is looked at. */
static void caps_before_segments(struct kunit *test)
{
	struct wddmseg_adapter_desc *d;
	struct wddmseg_violation v = { };

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	wddmseg_test_adapter(d);
	d->vidmm_caps = DXGK_VIDMMCAP_VIRTUAL_ADDRESSING_SUPPORTED;
	d->seg[1].flags = DXGK_SEGFLAG_RESERVED_SYSMEM;
	KUNIT_EXPECT_EQ(test, wddmseg_desc_validate(d, &v), -EINVAL);
	KUNIT_EXPECT_STREQ(test, v.rule, "caps-virtual-addressing");
	KUNIT_EXPECT_EQ(test, v.segment_id, 0);
}

/* QUERY_ADAPTER reports only what the driver honours. */
static void caps_honoured(struct kunit *test)
{
	const u32 secure = DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_SUPPORTED |
			   DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_REQUIRED;
	const u32 cross = DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE |
			  DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_TEXTURE;
	const u32 pm = DXGK_VIDMMCAP_DISABLE_SELF_REFRESH_VRAM_IN_S3 |
		       DXGK_VIDMMCAP_ALWAYS_POWERED_VRAM;
	const u32 va = DXGK_VIDMMCAP_VIRTUAL_ADDRESSING_SUPPORTED |
		       DXGK_VIDMMCAP_GPU_MMU_SUPPORTED;
	u32 all = DXGK_VIDMMCAP_KNOWN_MASK;

	KUNIT_EXPECT_EQ(test, wddmseg_caps_honoured(all, false, false),
			cross | pm);
	KUNIT_EXPECT_EQ(test, wddmseg_caps_honoured(all, true, false),
			secure | cross | pm);
	KUNIT_EXPECT_EQ(test, wddmseg_caps_honoured(all, true, true),
			secure | cross | pm | va);
	KUNIT_EXPECT_EQ(test,
			wddmseg_caps_honoured(all & ~secure & ~cross & ~pm & ~va,
					      true, true), 0);
	/* scanout of imported allocations is not done: never reported */
	KUNIT_EXPECT_EQ(test,
			wddmseg_caps_honoured(DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_SCANOUT,
					      true, true), 0);
	KUNIT_EXPECT_EQ(test,
			wddmseg_caps_honoured(DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_SUPPORTED,
					      true, false),
			DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_SUPPORTED);
	/* GPU VA where the kernel has drm_gpuvm; IoMmu never */
	KUNIT_EXPECT_EQ(test, wddmseg_caps_honoured(va, false, true), va);
	KUNIT_EXPECT_EQ(test, wddmseg_caps_honoured(va, false, false), 0);
	KUNIT_EXPECT_EQ(test,
			wddmseg_caps_honoured(DXGK_VIDMMCAP_IO_MMU_SUPPORTED,
					      true, true), 0);
}

static struct kunit_case caps_test_cases[] = {
	KUNIT_CASE_PARAM(caps_rules, caps_gen_params),
	KUNIT_CASE(caps_before_segments),
	KUNIT_CASE(caps_honoured),
	{}
};

static struct kunit_suite caps_suite = {
	.name = "wddmseg_caps",
	.test_cases = caps_test_cases,
};

/* --- wddmseg_segment: one descriptor and its flags ------------------------ */

static void seg_preserved_standby(struct wddmseg_adapter_desc *d)
{
	d->seg[0].flags |= DXGK_SEGFLAG_PRESERVED_DURING_STANDBY;
}

static void seg_preserved_hibernate(struct wddmseg_adapter_desc *d)
{
	d->seg[0].flags |= DXGK_SEGFLAG_PRESERVED_DURING_STANDBY |
			   DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE;
}

static void seg_partially_preserved(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = DXGK_SEGFLAG_PRESERVED_DURING_STANDBY |
			  DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE;
}

static void seg_banks(struct wddmseg_adapter_desc *d)
{
	static const u64 ends[] = { SZ_256K, SZ_512K, SZ_1M };

	set_banks(&d->seg[1], ARRAY_SIZE(ends), ends, ARRAY_SIZE(ends));
}

static void seg_banks_last_end_left_out(struct wddmseg_adapter_desc *d)
{
	/* NbOfBanks 3, the last end reported as 0: the segment's end */
	static const u64 ends[] = { SZ_256K, SZ_512K, 0 };

	set_banks(&d->seg[1], ARRAY_SIZE(ends), ends, ARRAY_SIZE(ends));
}

static void seg_aperture_wraps(struct wddmseg_adapter_desc *d)
{
	d->seg[2].base_address = U64_MAX - SZ_512K + 1;
}

static void seg_max_banks(struct wddmseg_adapter_desc *d)
{
	u64 ends[WDDMSEG_MAX_BANKS];
	u32 j;

	for (j = 0; j < WDDMSEG_MAX_BANKS; j++)
		ends[j] = (u64)(j + 1) * SZ_64K;
	set_banks(&d->seg[1], WDDMSEG_MAX_BANKS, ends, WDDMSEG_MAX_BANKS);
}

static void seg_64k_pages(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags |= DXGK_SEGFLAG_USE_64KB_PAGES;
}

static void seg_aperture_commit_below(struct wddmseg_adapter_desc *d)
{
	d->seg[2].commit_limit = SZ_512K;
	d->seg[2].flags |= DXGK_SEGFLAG_POPULATED_FROM_SYSTEM_MEMORY;
}

static void seg_agp_ignores_base_size(struct wddmseg_adapter_desc *d)
{
	wddmseg_test_seg(&d->seg[2], 0x123, 0, 0x1800, SZ_4K, DXGK_SEGFLAG_AGP);
}

static void seg_every_harmless_flag(struct wddmseg_adapter_desc *d)
{
	d->seg[0].flags |= DXGK_SEGFLAG_PITCH_ALIGNMENT |
			   DXGK_SEGFLAG_DIRECT_FLIP |
			   DXGK_SEGFLAG_APPLICATION_TARGET |
			   DXGK_SEGFLAG_VPR_SUPPORTED |
			   DXGK_SEGFLAG_VPR_PRESERVED_DURING_STANDBY |
			   DXGK_SEGFLAG_ENCRYPTED_PAGING_SUPPORTED |
			   DXGK_SEGFLAG_LOCAL_BUDGET_GROUP |
			   DXGK_SEGFLAG_POPULATED_BY_RESERVED_DDR_BY_FIRMWARE;
	d->seg[1].flags |= DXGK_SEGFLAG_SUPPORTS_CPU_HOST_APERTURE |
			   DXGK_SEGFLAG_SUPPORTS_CACHED_CPU_HOST_APERTURE |
			   DXGK_SEGFLAG_NON_LOCAL_BUDGET_GROUP;
}

static void seg_bar_at_end(struct wddmseg_adapter_desc *d)
{
	/* a visible segment ending exactly at the end of BAR2 */
	d->bar_size = SZ_2M;
	d->seg[1].cpu_translated_address = TEST_BAR + SZ_1M;
	d->seg[1].flags = DXGK_SEGFLAG_CPU_VISIBLE;
}

static void seg_flags_bit22(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = BIT(22);
}

static void seg_flags_bit31(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = BIT(31);
}

static void seg_agp_aperture(struct wddmseg_adapter_desc *d)
{
	d->seg[2].flags = DXGK_SEGFLAG_AGP | DXGK_SEGFLAG_APERTURE;
}

static void seg_agp_direct_flip(struct wddmseg_adapter_desc *d)
{
	d->seg[2].flags = DXGK_SEGFLAG_AGP | DXGK_SEGFLAG_DIRECT_FLIP;
}

static void seg_reserved_sysmem(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = DXGK_SEGFLAG_RESERVED_SYSMEM;
}

/*
 * CpuVisible means nothing on an aperture: accepted, and its
 * CpuTranslatedAddress (outside the VRAM BAR here) is not checked.
 */
static void seg_visible_aperture(struct wddmseg_adapter_desc *d)
{
	d->seg[2].cpu_translated_address = 0xdead0000ull;
	d->seg[2].flags |= DXGK_SEGFLAG_CPU_VISIBLE;
}

static void seg_coherent_memory(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = DXGK_SEGFLAG_CACHE_COHERENT;
}

static void seg_preservation(struct wddmseg_adapter_desc *d, u32 bits)
{
	d->seg[1].flags = bits;
}

static void seg_preservation_111(struct wddmseg_adapter_desc *d)
{
	seg_preservation(d, DXGK_SEGFLAG_PRESERVED_DURING_STANDBY |
			 DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE |
			 DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE);
}

static void seg_preservation_011(struct wddmseg_adapter_desc *d)
{
	seg_preservation(d, DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE |
			 DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE);
}

static void seg_preservation_010(struct wddmseg_adapter_desc *d)
{
	seg_preservation(d, DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE);
}

static void seg_preservation_001(struct wddmseg_adapter_desc *d)
{
	seg_preservation(d, DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE);
}

static void seg_host_aperture_visible(struct wddmseg_adapter_desc *d)
{
	d->seg[0].flags |= DXGK_SEGFLAG_SUPPORTS_CPU_HOST_APERTURE;
}

static void seg_cached_host_aperture(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = DXGK_SEGFLAG_SUPPORTS_CACHED_CPU_HOST_APERTURE;
}

static void seg_vpr_standby(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = DXGK_SEGFLAG_VPR_PRESERVED_DURING_STANDBY;
}

static void seg_both_budgets(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = DXGK_SEGFLAG_LOCAL_BUDGET_GROUP |
			  DXGK_SEGFLAG_NON_LOCAL_BUDGET_GROUP;
}

static void seg_size_zero(struct wddmseg_adapter_desc *d)
{
	d->seg[1].size = 0;
	d->seg[1].commit_limit = 0;
}

static void seg_size_unaligned(struct wddmseg_adapter_desc *d)
{
	d->seg[1].size = SZ_1M - SZ_2K;
	d->seg[1].commit_limit = SZ_1M - SZ_2K;
}

static void seg_aperture_size_unaligned(struct wddmseg_adapter_desc *d)
{
	d->seg[2].size = SZ_1M + 1;
}

static void seg_base_unaligned(struct wddmseg_adapter_desc *d)
{
	d->seg[1].base_address = SZ_1M + SZ_2K;
	d->seg[1].size = SZ_512K;
	d->seg[1].commit_limit = SZ_512K;
}

static void seg_64k_base(struct wddmseg_adapter_desc *d)
{
	d->seg[1].base_address = SZ_1M + SZ_4K;
	d->seg[1].size = SZ_512K;
	d->seg[1].commit_limit = SZ_512K;
	d->seg[1].flags = DXGK_SEGFLAG_USE_64KB_PAGES;
}

static void seg_64k_size(struct wddmseg_adapter_desc *d)
{
	d->seg[1].size = SZ_1M - SZ_4K;
	d->seg[1].commit_limit = SZ_1M - SZ_4K;
	d->seg[1].flags = DXGK_SEGFLAG_USE_64KB_PAGES;
}

static void seg_commit_memory(struct wddmseg_adapter_desc *d)
{
	d->seg[1].commit_limit = SZ_512K;
}

static void seg_commit_aperture_zero(struct wddmseg_adapter_desc *d)
{
	d->seg[2].commit_limit = 0;
}

static void seg_commit_aperture_above(struct wddmseg_adapter_desc *d)
{
	d->seg[2].commit_limit = SZ_2M;
}

static void seg_commit_aperture_unaligned(struct wddmseg_adapter_desc *d)
{
	d->seg[2].commit_limit = SZ_512K + SZ_2K;
}

static void seg_visible_no_cpu(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = DXGK_SEGFLAG_CPU_VISIBLE;
}

static void seg_visible_past_bar(struct wddmseg_adapter_desc *d)
{
	d->bar_size = SZ_2M;
	d->seg[1].cpu_translated_address = TEST_BAR + SZ_1M + SZ_4K;
	d->seg[1].flags = DXGK_SEGFLAG_CPU_VISIBLE;
}

static void seg_visible_below_bar(struct wddmseg_adapter_desc *d)
{
	d->seg[0].cpu_translated_address = TEST_BAR - SZ_4K;
}

static void seg_visible_wrong_offset(struct wddmseg_adapter_desc *d)
{
	d->bar_size = SZ_2M;
	d->seg[1].cpu_translated_address = TEST_BAR;
	d->seg[1].flags = DXGK_SEGFLAG_CPU_VISIBLE;
}

static void seg_visible_wraps(struct wddmseg_adapter_desc *d)
{
	d->seg[0].cpu_translated_address = U64_MAX - SZ_4K + 1;
}

static void seg_past_vram(struct wddmseg_adapter_desc *d)
{
	d->seg[1].size = SZ_2M;
	d->seg[1].commit_limit = SZ_2M;
}

static void seg_memory_at_4g(struct wddmseg_adapter_desc *d)
{
	d->seg[1].base_address = TEST_APT + SZ_4M;
}

static void seg_memory_wraps(struct wddmseg_adapter_desc *d)
{
	d->seg[1].base_address = U64_MAX - SZ_1M + 1;
}

static void seg_banking_no_banks(struct wddmseg_adapter_desc *d)
{
	d->seg[1].flags = DXGK_SEGFLAG_USE_BANKING;
}

static void seg_banks_no_flag(struct wddmseg_adapter_desc *d)
{
	static const u64 ends[] = { SZ_512K, SZ_1M };

	set_banks(&d->seg[1], ARRAY_SIZE(ends), ends, ARRAY_SIZE(ends));
	d->seg[1].flags = 0;
}

static void seg_too_many_banks(struct wddmseg_adapter_desc *d)
{
	seg_max_banks(d);
	d->seg[1].nb_banks = WDDMSEG_MAX_BANKS + 1;
}

static void seg_bank_zero(struct wddmseg_adapter_desc *d)
{
	static const u64 ends[] = { 0, SZ_1M };

	set_banks(&d->seg[1], ARRAY_SIZE(ends), ends, ARRAY_SIZE(ends));
}

static void seg_bank_unaligned(struct wddmseg_adapter_desc *d)
{
	static const u64 ends[] = { SZ_512K + SZ_2K, SZ_1M };

	set_banks(&d->seg[1], ARRAY_SIZE(ends), ends, ARRAY_SIZE(ends));
}

static void seg_bank_decreasing(struct wddmseg_adapter_desc *d)
{
	static const u64 ends[] = { SZ_512K, SZ_256K, SZ_1M };

	set_banks(&d->seg[1], ARRAY_SIZE(ends), ends, ARRAY_SIZE(ends));
}

static void seg_bank_repeated(struct wddmseg_adapter_desc *d)
{
	static const u64 ends[] = { SZ_1M, SZ_1M };

	set_banks(&d->seg[1], ARRAY_SIZE(ends), ends, ARRAY_SIZE(ends));
}

static void seg_bank_short(struct wddmseg_adapter_desc *d)
{
	static const u64 ends[] = { SZ_256K, SZ_512K };

	set_banks(&d->seg[1], ARRAY_SIZE(ends), ends, ARRAY_SIZE(ends));
}

static void seg_bank_long(struct wddmseg_adapter_desc *d)
{
	static const u64 ends[] = { SZ_512K, SZ_2M };

	set_banks(&d->seg[1], ARRAY_SIZE(ends), ends, ARRAY_SIZE(ends));
}

static const struct desc_case segment_cases[] = {
	{ "valid: PreservedDuringStandby (100)", NULL, 0,
	  seg_preserved_standby },
	{ "valid: Standby and Hibernate (110)", NULL, 0,
	  seg_preserved_hibernate },
	{ "valid: Standby and PartiallyHibernate (101)", NULL, 0,
	  seg_partially_preserved },
	{ "valid: three banks", NULL, 0, seg_banks },
	{ "valid: the last bank's end left out", NULL, 0,
	  seg_banks_last_end_left_out },
	{ "valid: the maximum number of banks", NULL, 0, seg_max_banks },
	{ "valid: Use64KBPages on aligned base and size", NULL, 0,
	  seg_64k_pages },
	{ "valid: aperture CommitLimit below Size, PopulatedFromSystemMemory",
	  NULL, 0, seg_aperture_commit_below },
	{ "valid: Agp base and size are ignored", NULL, 0,
	  seg_agp_ignores_base_size },
	{ "valid: every flag without a constraint", NULL, 0,
	  seg_every_harmless_flag },
	{ "valid: CPU-visible segment ending at the end of BAR2", NULL, 0,
	  seg_bar_at_end },
	{ "flags-reserved: bit 22", "flags-reserved", 2, seg_flags_bit22 },
	{ "flags-reserved: bit 31", "flags-reserved", 2, seg_flags_bit31 },
	{ "agp-exclusive: Agp with Aperture", "agp-exclusive", 3,
	  seg_agp_aperture },
	{ "agp-exclusive: Agp with DirectFlip", "agp-exclusive", 3,
	  seg_agp_direct_flip },
	{ "reserved-sysmem: set by the driver", "reserved-sysmem", 2,
	  seg_reserved_sysmem },
	{ "valid: CpuVisible on an aperture is ignored", NULL, 0,
	  seg_visible_aperture },
	{ "cachecoherent-aperture: on a memory segment",
	  "cachecoherent-aperture", 2, seg_coherent_memory },
	{ "preservation-table: 111", "preservation-table", 2,
	  seg_preservation_111 },
	{ "preservation-table: 011", "preservation-table", 2,
	  seg_preservation_011 },
	{ "preservation-table: 010", "preservation-table", 2,
	  seg_preservation_010 },
	{ "preservation-table: 001", "preservation-table", 2,
	  seg_preservation_001 },
	{ "cpu-host-aperture: with CpuVisible", "cpu-host-aperture", 1,
	  seg_host_aperture_visible },
	{ "cached-cpu-host-aperture: without SupportsCpuHostAperture",
	  "cached-cpu-host-aperture", 2, seg_cached_host_aperture },
	{ "vpr-standby: without VprSupported", "vpr-standby", 2,
	  seg_vpr_standby },
	{ "budget-group: local and non-local", "budget-group", 2,
	  seg_both_budgets },
	{ "size: zero", "size", 2, seg_size_zero },
	{ "size: not a page multiple", "size", 2, seg_size_unaligned },
	{ "size: aperture not a page multiple", "size", 3,
	  seg_aperture_size_unaligned },
	{ "base-alignment: not page aligned", "base-alignment", 2,
	  seg_base_unaligned },
	{ "64kb-alignment: base", "64kb-alignment", 2, seg_64k_base },
	{ "64kb-alignment: size", "64kb-alignment", 2, seg_64k_size },
	{ "commit-limit: memory segment below Size", "commit-limit", 2,
	  seg_commit_memory },
	{ "commit-limit: aperture zero", "commit-limit", 3,
	  seg_commit_aperture_zero },
	{ "commit-limit: aperture above Size", "commit-limit", 3,
	  seg_commit_aperture_above },
	{ "commit-limit: aperture not page aligned", "commit-limit", 3,
	  seg_commit_aperture_unaligned },
	{ "cpu-translated-address: CpuVisible without an address",
	  "cpu-translated-address", 2, seg_visible_no_cpu },
	{ "cpu-translated-address: range leaves BAR2",
	  "cpu-translated-address", 2, seg_visible_past_bar },
	{ "cpu-translated-address: range starts below BAR2",
	  "cpu-translated-address", 1, seg_visible_below_bar },
	{ "cpu-translated-address: BAR offset is not BaseAddress",
	  "cpu-translated-address", 2, seg_visible_wrong_offset },
	{ "cpu-translated-address: range wraps around",
	  "cpu-translated-address", 1, seg_visible_wraps },
	{ "gpu-range: past the end of VRAM", "gpu-range", 2, seg_past_vram },
	{ "gpu-range: memory segment at 4 GiB", "gpu-range", 2,
	  seg_memory_at_4g },
	{ "gpu-range: range wraps around", "gpu-range", 2, seg_memory_wraps },
	{ "gpu-range: aperture range wraps around", "gpu-range", 3,
	  seg_aperture_wraps },
	{ "banking-flag: UseBanking with no bank", "banking-flag", 2,
	  seg_banking_no_banks },
	{ "banking-flag: banks without UseBanking", "banking-flag", 2,
	  seg_banks_no_flag },
	{ "bank-count: one more than the maximum", "bank-count", 2,
	  seg_too_many_banks },
	{ "bank-order: end 0", "bank-order", 2, seg_bank_zero },
	{ "bank-order: end not page aligned", "bank-order", 2,
	  seg_bank_unaligned },
	{ "bank-order: decreasing", "bank-order", 2, seg_bank_decreasing },
	{ "bank-order: repeated end", "bank-order", 2, seg_bank_repeated },
	{ "bank-end: last bank ends before Size", "bank-end", 2,
	  seg_bank_short },
	{ "bank-end: last bank ends after Size", "bank-end", 2,
	  seg_bank_long },
};

KUNIT_ARRAY_PARAM(segment, segment_cases, desc_case_name);

static void segment_rules(struct kunit *test)
{
	check_case(test, test->param_value);
}

/* The lowest broken segment is reported, whatever its rule. */
static void segment_first_reported(struct kunit *test)
{
	struct wddmseg_adapter_desc *d;
	struct wddmseg_violation v = { };

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	wddmseg_test_adapter(d);
	d->seg[2].commit_limit = 0;			/* commit-limit */
	d->seg[1].flags = DXGK_SEGFLAG_RESERVED_SYSMEM;	/* reserved-sysmem */
	KUNIT_EXPECT_EQ(test, wddmseg_desc_validate(d, &v), -EINVAL);
	KUNIT_EXPECT_STREQ(test, v.rule, "reserved-sysmem");
	KUNIT_EXPECT_EQ(test, v.segment_id, 2);
}

/* Bank ends beyond the stored entries are never read. */
static void segment_banks_bounded(struct kunit *test)
{
	struct wddmseg_adapter_desc *d;
	struct wddmseg_violation v = { };

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	wddmseg_test_adapter(d);
	d->seg[1].flags = DXGK_SEGFLAG_USE_BANKING;
	d->seg[1].nb_banks = U32_MAX;
	KUNIT_EXPECT_EQ(test, wddmseg_desc_validate(d, &v), -EINVAL);
	KUNIT_EXPECT_STREQ(test, v.rule, "bank-count");
}

static bool is_aperture(u32 flags)
{
	struct wddmseg_segment_desc s = { .flags = flags };

	return wddmseg_segment_is_aperture(&s);
}

static void segment_is_aperture(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, is_aperture(DXGK_SEGFLAG_APERTURE));
	KUNIT_EXPECT_TRUE(test, is_aperture(DXGK_SEGFLAG_AGP));
	KUNIT_EXPECT_TRUE(test, is_aperture(DXGK_SEGFLAG_APERTURE |
					    DXGK_SEGFLAG_CACHE_COHERENT));
	KUNIT_EXPECT_FALSE(test, is_aperture(0));
	KUNIT_EXPECT_FALSE(test, is_aperture(DXGK_SEGFLAG_CPU_VISIBLE));
	KUNIT_EXPECT_FALSE(test, is_aperture(DXGK_SEGFLAG_KNOWN_MASK &
					     ~(DXGK_SEGFLAG_APERTURE |
					       DXGK_SEGFLAG_AGP)));
}

static struct kunit_case segment_test_cases[] = {
	KUNIT_CASE_PARAM(segment_rules, segment_gen_params),
	KUNIT_CASE(segment_first_reported),
	KUNIT_CASE(segment_banks_bounded),
	KUNIT_CASE(segment_is_aperture),
	{}
};

static struct kunit_suite segment_suite = {
	.name = "wddmseg_segment",
	.test_cases = segment_test_cases,
};

/* --- wddmseg_table: the table as a whole ----------------------------------- */

static void table_one_segment(struct wddmseg_adapter_desc *d)
{
	d->segment_count = 1;
}

/* WDDMSEG_MAX_SEGMENTS memory segments of 256 KiB, the last one visible */
static void table_max_segments(struct wddmseg_adapter_desc *d)
{
	u32 i;

	d->segment_count = WDDMSEG_MAX_SEGMENTS;
	for (i = 0; i < WDDMSEG_MAX_SEGMENTS; i++)
		wddmseg_test_seg(&d->seg[i], (u64)i * SZ_256K, 0, SZ_256K, SZ_256K, 0);
	d->seg[0].cpu_translated_address = TEST_BAR;
	d->seg[0].flags = DXGK_SEGFLAG_CPU_VISIBLE;
}

static void table_adjacent(struct wddmseg_adapter_desc *d)
{
	/* a second aperture right after the first one */
	d->segment_count = 4;
	wddmseg_test_seg(&d->seg[3], TEST_APT + SZ_1M, 0, SZ_1M, SZ_1M,
			 DXGK_SEGFLAG_APERTURE);
}

static void table_agp_no_overlap(struct wddmseg_adapter_desc *d)
{
	/* an Agp segment on top of VRAM takes no part in the overlap rule */
	d->segment_count = 4;
	wddmseg_test_seg(&d->seg[3], 0, 0, SZ_1M, SZ_1M, DXGK_SEGFLAG_AGP);
}

static void table_no_segment(struct wddmseg_adapter_desc *d)
{
	d->segment_count = 0;
}

static void table_too_many(struct wddmseg_adapter_desc *d)
{
	table_max_segments(d);
	d->segment_count = WDDMSEG_MAX_SEGMENTS + 1;
}

static void table_count_huge(struct wddmseg_adapter_desc *d)
{
	d->segment_count = U32_MAX;
}

static void table_two_agp(struct wddmseg_adapter_desc *d)
{
	d->segment_count = 5;
	wddmseg_test_seg(&d->seg[3], TEST_APT * 2, 0, SZ_1M, SZ_1M, DXGK_SEGFLAG_AGP);
	wddmseg_test_seg(&d->seg[4], TEST_APT * 3, 0, SZ_1M, SZ_1M, DXGK_SEGFLAG_AGP);
}

static void table_overlap_memory(struct wddmseg_adapter_desc *d)
{
	d->seg[1].base_address = SZ_512K;
}

static void table_overlap_apertures(struct wddmseg_adapter_desc *d)
{
	d->segment_count = 4;
	wddmseg_test_seg(&d->seg[3], TEST_APT + SZ_512K, 0, SZ_1M, SZ_1M,
			 DXGK_SEGFLAG_APERTURE);
}

static void table_overlap_aperture_memory(struct wddmseg_adapter_desc *d)
{
	d->seg[2].base_address = SZ_512K;
}

static void table_overlap_contained(struct wddmseg_adapter_desc *d)
{
	d->segment_count = 4;
	wddmseg_test_seg(&d->seg[3], TEST_APT + SZ_4K, 0, SZ_4K, SZ_4K,
			 DXGK_SEGFLAG_APERTURE);
}

static void table_overlap_at_top(struct wddmseg_adapter_desc *d)
{
	/* two apertures just below the top: [-2M, -1M) and [-1.25M, -0.75M) */
	d->segment_count = 4;
	d->seg[2].base_address = U64_MAX - SZ_2M + 1;
	wddmseg_test_seg(&d->seg[3], U64_MAX - SZ_1M - SZ_256K + 1, 0, SZ_512K,
			 SZ_512K, DXGK_SEGFLAG_APERTURE);
}

static void table_end_at_top(struct wddmseg_adapter_desc *d)
{
	/* an aperture whose end is 2^64: the end does not fit in 64 bits */
	d->seg[2].base_address = U64_MAX - SZ_1M + 1;
}

static const struct desc_case table_cases[] = {
	{ "valid: a single segment", NULL, 0, table_one_segment },
	{ "valid: the maximum number of segments", NULL, 0,
	  table_max_segments },
	{ "valid: adjacent apertures", NULL, 0, table_adjacent },
	{ "valid: an Agp segment over VRAM", NULL, 0, table_agp_no_overlap },
	{ "segment-count: none", "segment-count", 0, table_no_segment },
	{ "segment-count: one more than the maximum", "segment-count", 0,
	  table_too_many },
	{ "segment-count: 0xffffffff", "segment-count", 0, table_count_huge },
	{ "agp-unique: two Agp segments", "agp-unique", 5, table_two_agp },
	{ "overlap: memory and memory", "overlap", 2, table_overlap_memory },
	{ "overlap: aperture and aperture", "overlap", 4,
	  table_overlap_apertures },
	{ "overlap: aperture over memory", "overlap", 3,
	  table_overlap_aperture_memory },
	{ "overlap: one inside another", "overlap", 4,
	  table_overlap_contained },
	{ "overlap: at the top of the address space", "overlap", 4,
	  table_overlap_at_top },
	{ "gpu-range: an aperture ending at 2^64", "gpu-range", 3,
	  table_end_at_top },
};

KUNIT_ARRAY_PARAM(table, table_cases, desc_case_name);

static void table_rules(struct kunit *test)
{
	check_case(test, test->param_value);
}

static struct kunit_case table_test_cases[] = {
	KUNIT_CASE_PARAM(table_rules, table_gen_params),
	{}
};

static struct kunit_suite table_suite = {
	.name = "wddmseg_table",
	.test_cases = table_test_cases,
};

kunit_test_suites(&caps_suite, &segment_suite, &table_suite);
