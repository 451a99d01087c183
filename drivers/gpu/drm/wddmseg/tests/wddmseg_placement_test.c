// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the translation of an allocation's flags and segment sets
 * into TTM placements: wddmseg_bo_placement() (where validation may put
 * it) and wddmseg_bo_evict_placement() (where an eviction sends it).
 *
 * Both only read the device's segment table and memory types and the
 * allocation's WDDM attributes, so a zeroed device and buffer object with
 * those fields filled in are enough: no TTM device, no PCI device.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include <drm/ttm/ttm_placement.h>

#include "../wddmseg_bo.h"
#include "../wddmseg_debugfs.h"
#include "../wddmseg_desc.h"
#include "../wddmseg_device_types.h"
#include "../wddmseg_drv.h"
#include "../wddmseg_hw.h"
#include "wddmseg_test_fixtures.h"

#define SEG(id)		WDDMSEG_SEGMENT_BIT(id)
#define PFN(bytes)	((bytes) >> PAGE_SHIFT)

/* memory types as wddmseg_ttm.c assigns them to the table below */
static const u32 test_mem_type[] = {
	TTM_PL_VRAM, TTM_PL_PRIV, TTM_PL_TT, TTM_PL_PRIV + 1,
};

/*
 * A device made from wddmseg_test_adapter(), with 3 MiB of VRAM, a 1 MiB
 * BAR2 and
 *   1: VRAM [0, 1M), CPU-visible                       (TTM_PL_VRAM)
 *   2: VRAM [1M, 2M), invisible, banks end at 256K, 1M (TTM_PL_PRIV)
 *   3: aperture of 1 MiB at 4 GiB                      (TTM_PL_TT)
 *   4: VRAM [2M, 3M), invisible, PitchAlignment        (TTM_PL_PRIV + 1)
 * and an allocation in it, supported everywhere, no preference yet.
 */
static struct wddmseg_bo *test_bo(struct kunit *test)
{
	struct wddmseg_violation v = { };
	struct wddmseg_device *wdev;
	struct wddmseg_adapter_desc *d;
	struct wddmseg_bo *bo;

	wdev = kunit_kzalloc(test, sizeof(*wdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wdev);
	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bo);

	d = &wdev->desc;
	wddmseg_test_adapter(d);
	d->vram_size = 3 * SZ_1M;
	d->segment_count = ARRAY_SIZE(test_mem_type);
	d->seg[1].flags = DXGK_SEGFLAG_USE_BANKING;
	d->seg[1].nb_banks = 2;
	d->seg[1].bank_end[0] = SZ_256K;
	d->seg[1].bank_end[1] = SZ_1M;
	d->seg[2].flags = DXGK_SEGFLAG_APERTURE;
	wddmseg_test_seg(&d->seg[3], SZ_2M, 0, SZ_1M, SZ_1M,
			 DXGK_SEGFLAG_PITCH_ALIGNMENT);
	KUNIT_ASSERT_EQ_MSG(test, wddmseg_desc_validate(d, &v), 0,
			    "test adapter refused: rule %s: %s", v.rule, v.detail);
	memcpy(wdev->mem_type, test_mem_type, sizeof(test_mem_type));
	/* the knobs as probe sets them: the engine moves when it is ready */
	wddmseg_knobs_init(wdev);

	bo->tbo.bdev = &wdev->bdev;
	bo->supported = SEG(1) | SEG(2) | SEG(3) | SEG(4);
	return bo;
}

static void set_preferred(struct wddmseg_bo *bo, u8 first, u8 second, u8 third)
{
	memset(bo->preferred, 0, sizeof(bo->preferred));
	bo->preferred[0] = first;
	bo->preferred[1] = second;
	bo->preferred[2] = third;
}

/*
 * @pl is memory type @type with @flags over [@fpfn, @lpfn), 0 = unbounded.
 * Whether it is tried with eviction is wddmseg_placement_evict_start()'s.
 */
static void expect_place(struct kunit *test, const struct ttm_place *pl,
			 u32 type, u32 flags, u32 fpfn, u32 lpfn)
{
	KUNIT_EXPECT_EQ(test, pl->mem_type, type);
	KUNIT_EXPECT_EQ(test, pl->flags & ~WDDMSEG_PL_EVICT_FLAGS, flags);
	KUNIT_EXPECT_EQ(test, pl->fpfn, fpfn);
	KUNIT_EXPECT_EQ(test, pl->lpfn, lpfn);
}

/* every place is tried without, then with eviction of others */
static void expect_busy_same(struct kunit *test, const struct wddmseg_bo *bo)
{
	KUNIT_EXPECT_PTR_EQ(test, bo->placement.placement, &bo->places[0]);
	KUNIT_EXPECT_EQ(test, wddmseg_placement_evict_start(&bo->placement), 0);
}

static void placement_preferred_order(struct kunit *test)
{
	struct wddmseg_bo *bo = test_bo(test);

	set_preferred(bo, 2, 1, 3);
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 3);
	expect_place(test, &bo->places[0], TTM_PL_PRIV, 0, 0, 0);
	expect_place(test, &bo->places[1], TTM_PL_VRAM, 0, 0, 0);
	expect_place(test, &bo->places[2], TTM_PL_TT, 0, 0, 0);
	expect_busy_same(test, bo);
}

static void placement_only_supported(struct kunit *test)
{
	struct wddmseg_bo *bo = test_bo(test);

	bo->supported = SEG(3);
	set_preferred(bo, 1, 3, 0);
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 1);
	expect_place(test, &bo->places[0], TTM_PL_TT, 0, 0, 0);
}

static void placement_cpu_access(struct kunit *test)
{
	struct wddmseg_bo *bo = test_bo(test);

	/* a CPU fault: invisible VRAM does not qualify, the aperture does */
	set_preferred(bo, 2, 1, 3);
	wddmseg_bo_placement(bo, true);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 2);
	expect_place(test, &bo->places[0], TTM_PL_VRAM, 0, 0, 0);
	expect_place(test, &bo->places[1], TTM_PL_TT, 0, 0, 0);
}

static void placement_system_fallback(struct kunit *test)
{
	struct wddmseg_bo *bo = test_bo(test);

	set_preferred(bo, 2, 4, 0);
	wddmseg_bo_placement(bo, true);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 1);
	expect_place(test, &bo->places[0], TTM_PL_SYSTEM, 0, 0, 0);
	expect_busy_same(test, bo);

	set_preferred(bo, 0, 0, 0);
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 1);
	expect_place(test, &bo->places[0], TTM_PL_SYSTEM, 0, 0, 0);
}

static void placement_bank_hint(struct kunit *test)
{
	struct wddmseg_bo *bo = test_bo(test);

	/* the hinted bank first, then the whole segment, then the others */
	set_preferred(bo, 2, 1, 0);
	bo->bank_hint = 2;
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 3);
	expect_place(test, &bo->places[0], TTM_PL_PRIV, 0, PFN(SZ_256K),
		     PFN(SZ_1M));
	expect_place(test, &bo->places[1], TTM_PL_PRIV, 0, 0, 0);
	expect_place(test, &bo->places[2], TTM_PL_VRAM, 0, 0, 0);

	bo->bank_hint = 1;
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 3);
	expect_place(test, &bo->places[0], TTM_PL_PRIV, 0, 0, PFN(SZ_256K));

	/* a CPU fault ignores the hint */
	set_preferred(bo, 2, 3, 0);
	wddmseg_bo_placement(bo, true);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 1);
	expect_place(test, &bo->places[0], TTM_PL_TT, 0, 0, 0);
}

static void placement_flags(struct kunit *test)
{
	struct wddmseg_bo *bo = test_bo(test);

	set_preferred(bo, 1, 3, 0);
	bo->flags = WDDMSEG_ALLOC_FROM_END_OF_SEGMENT;
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 2);
	expect_place(test, &bo->places[0], TTM_PL_VRAM, TTM_PL_FLAG_TOPDOWN, 0, 0);
	expect_place(test, &bo->places[1], TTM_PL_TT, TTM_PL_FLAG_TOPDOWN, 0, 0);

	bo->flags = WDDMSEG_ALLOC_ACCESSED_PHYSICALLY;
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 2);
	expect_place(test, &bo->places[0], TTM_PL_VRAM, TTM_PL_FLAG_CONTIGUOUS,
		     0, 0);
	expect_place(test, &bo->places[1], TTM_PL_TT, TTM_PL_FLAG_CONTIGUOUS,
		     0, 0);
}

static void placement_pinned_top(struct kunit *test)
{
	const u32 pages = PFN(SZ_1M);
	struct wddmseg_bo *bo = test_bo(test);

	/*
	 * Overlay and Capture: the last 20% of each segment only, in one
	 * range (the display reads them linearly: DOC: VRAM made of blocks)
	 */
	set_preferred(bo, 1, 2, 0);
	bo->flags = WDDMSEG_ALLOC_OVERLAY;
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 2);
	expect_place(test, &bo->places[0], TTM_PL_VRAM, TTM_PL_FLAG_CONTIGUOUS,
		     pages - pages / 5, 0);
	expect_place(test, &bo->places[1], TTM_PL_PRIV, TTM_PL_FLAG_CONTIGUOUS,
		     pages - pages / 5, 0);

	bo->flags = WDDMSEG_ALLOC_CAPTURE;
	wddmseg_bo_placement(bo, false);
	expect_place(test, &bo->places[0], TTM_PL_VRAM, TTM_PL_FLAG_CONTIGUOUS,
		     pages - pages / 5, 0);
}

static void evict_placement_targets(struct kunit *test)
{
	struct wddmseg_bo *bo = test_bo(test);
	struct ttm_placement pl = { };

	/*
	 * From segment 2: the eviction set without the source and without
	 * PitchAlignment segments, in id order, then system memory; the
	 * only place tried with eviction is system memory, so evictions
	 * never cascade.
	 */
	bo->eviction = SEG(1) | SEG(2) | SEG(3) | SEG(4);
	wddmseg_bo_evict_placement(bo, 2, &pl);
	KUNIT_ASSERT_EQ(test, pl.num_placement, 3);
	expect_place(test, &pl.placement[0], TTM_PL_VRAM, 0, 0, 0);
	expect_place(test, &pl.placement[1], TTM_PL_TT, 0, 0, 0);
	expect_place(test, &pl.placement[2], TTM_PL_SYSTEM, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, wddmseg_placement_evict_start(&pl), 2);

	/* no eviction set: straight to system memory */
	bo->eviction = 0;
	wddmseg_bo_evict_placement(bo, 1, &pl);
	KUNIT_ASSERT_EQ(test, pl.num_placement, 1);
	expect_place(test, &pl.placement[0], TTM_PL_SYSTEM, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, wddmseg_placement_evict_start(&pl), 0);
}

/*
 * wddmseg_placement_init(): places [0, n) without eviction, the tail
 * [k, n) with it, whatever an earlier use of the same places said.
 */
static void placement_init_evict_tail(struct kunit *test)
{
	struct ttm_place places[3] = {
		{ .mem_type = TTM_PL_VRAM, .flags = TTM_PL_FLAG_TOPDOWN },
		{ .mem_type = TTM_PL_TT },
		{ .mem_type = TTM_PL_SYSTEM },
	};
	struct ttm_placement pl = { };
	unsigned int k;

	for (k = 0; k <= 3; k++) {
		wddmseg_placement_init(&pl, places, 3, k);
		KUNIT_EXPECT_PTR_EQ(test, pl.placement, &places[0]);
		KUNIT_EXPECT_EQ(test, pl.num_placement, 3);
		KUNIT_EXPECT_EQ(test, wddmseg_placement_evict_start(&pl), (int)k);
		expect_place(test, &places[0], TTM_PL_VRAM, TTM_PL_FLAG_TOPDOWN,
			     0, 0);
	}
	/* from "never evict" back to "evict for every place" */
	wddmseg_placement_init(&pl, places, 3, 0);
	KUNIT_EXPECT_EQ(test, wddmseg_placement_evict_start(&pl), 0);
	wddmseg_placement_init(&pl, places, 0, 0);
	KUNIT_EXPECT_EQ(test, pl.num_placement, 0);
	KUNIT_EXPECT_EQ(test, wddmseg_placement_evict_start(&pl), 0);
}

static void evict_placement_cpu_visible(struct kunit *test)
{
	struct wddmseg_bo *bo = test_bo(test);
	struct ttm_placement pl = { };

	/* a CpuVisible allocation is never evicted to invisible VRAM */
	bo->flags = WDDMSEG_ALLOC_CPU_VISIBLE;
	bo->eviction = SEG(1) | SEG(2) | SEG(3);
	wddmseg_bo_evict_placement(bo, 1, &pl);
	KUNIT_ASSERT_EQ(test, pl.num_placement, 2);
	expect_place(test, &pl.placement[0], TTM_PL_TT, 0, 0, 0);
	expect_place(test, &pl.placement[1], TTM_PL_SYSTEM, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, wddmseg_placement_evict_start(&pl), 1);
}

static void protected_placement(struct kunit *test)
{
	struct wddmseg_bo *bo = test_bo(test);
	struct wddmseg_device *wdev = bdev_to_wddmseg(bo->tbo.bdev);
	struct ttm_placement pl = { };

	/* 2: VPR with encrypted paging, 4: VPR without (and PitchAlignment) */
	wdev->desc.seg[1].flags |= DXGK_SEGFLAG_VPR_SUPPORTED |
				   DXGK_SEGFLAG_ENCRYPTED_PAGING_SUPPORTED;
	wdev->desc.seg[3].flags |= DXGK_SEGFLAG_VPR_SUPPORTED;
	bo->flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED;
	bo->supported = SEG(2) | SEG(4);
	bo->eviction = SEG(2) | SEG(4);
	KUNIT_EXPECT_TRUE(test, wddmseg_segment_seals(wdev, 2));
	KUNIT_EXPECT_FALSE(test, wddmseg_segment_seals(wdev, 4));
	KUNIT_EXPECT_FALSE(test, wddmseg_segment_seals(wdev, 0));

	/* no engine: nothing can seal it, so no place at all, not system */
	wddmseg_bo_evict_placement(bo, 2, &pl);
	KUNIT_EXPECT_EQ(test, pl.num_placement, 0);
	KUNIT_EXPECT_EQ(test, wddmseg_placement_evict_start(&pl), 0);

	/* with the engine, out of the encrypting segment into system memory */
	wdev->engine.ready = true;
	wddmseg_bo_evict_placement(bo, 2, &pl);
	KUNIT_ASSERT_EQ(test, pl.num_placement, 1);
	expect_place(test, &pl.placement[0], TTM_PL_SYSTEM, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, wddmseg_placement_evict_start(&pl), 0);
	/*
	 * ... but out of the other one only into another segment (2, in
	 * device memory), never into system memory
	 */
	wddmseg_bo_evict_placement(bo, 4, &pl);
	KUNIT_ASSERT_EQ(test, pl.num_placement, 1);
	expect_place(test, &pl.placement[0], TTM_PL_PRIV, 0, 0, 0);

	/* sealed content only comes back where the device decrypts it */
	bo->sealed = true;
	set_preferred(bo, 4, 2, 0);
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 1);
	expect_place(test, &bo->places[0], TTM_PL_PRIV, 0, 0, 0);
	bo->sealed = false;
	wddmseg_bo_placement(bo, false);
	KUNIT_ASSERT_EQ(test, bo->placement.num_placement, 2);
	expect_place(test, &bo->places[0], TTM_PL_PRIV + 1, 0, 0, 0);
}

static struct kunit_case placement_test_cases[] = {
	KUNIT_CASE(placement_preferred_order),
	KUNIT_CASE(placement_only_supported),
	KUNIT_CASE(placement_cpu_access),
	KUNIT_CASE(placement_system_fallback),
	KUNIT_CASE(placement_bank_hint),
	KUNIT_CASE(placement_flags),
	KUNIT_CASE(placement_pinned_top),
	KUNIT_CASE(placement_init_evict_tail),
	KUNIT_CASE(evict_placement_targets),
	KUNIT_CASE(evict_placement_cpu_visible),
	KUNIT_CASE(protected_placement),
	{}
};

static struct kunit_suite placement_suite = {
	.name = "wddmseg_placement",
	.test_cases = placement_test_cases,
};

kunit_test_suite(placement_suite);
