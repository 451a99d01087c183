// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the power-management decisions (wddmseg_pm.c): which
 * column of DXGK_SEGMENTFLAGS' preservation table a sleep follows
 * (wddmseg_pm_sleep_kind()) and whether a segment keeps an allocation
 * across it (wddmseg_pm_keeps()).
 *
 * Hybrid sleep is tested here, not in the VM: it writes a hibernation
 * image and then enters S3, which the PM stages of make check do not do
 * (tools/vm/pm-hibernate.sh powers off). The page's rule, "if hybrid
 * sleep is enabled, the system behaves like hibernation: it clears the
 * segments that are not preserved during hibernation, even when entering
 * a low-power state", is checked on every valid row of the table.
 */

#include <kunit/test.h>
#include <linux/sizes.h>

#include "../wddmseg_desc.h"
#include "../wddmseg_device_types.h"
#include "../wddmseg_hw.h"
#include "../wddmseg_pm.h"
#include "wddmseg_test_fixtures.h"

#define S	DXGK_SEGFLAG_PRESERVED_DURING_STANDBY
#define H	DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE
#define P	DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE
#define PARTIAL	SZ_1M		/* PM_HIB_PARTIAL of the test device */

/* The suspend callback inside a hibernation is a hybrid sleep's. */
static void pm_sleep_kind(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wddmseg_pm_sleep_kind(false, false),
			WDDMSEG_SLEEP_STANDBY);
	KUNIT_EXPECT_EQ(test, wddmseg_pm_sleep_kind(true, false),
			WDDMSEG_SLEEP_HYBRID);
	KUNIT_EXPECT_EQ(test, wddmseg_pm_sleep_kind(false, true),
			WDDMSEG_SLEEP_HIBERNATE);
	KUNIT_EXPECT_EQ(test, wddmseg_pm_sleep_kind(true, true),
			WDDMSEG_SLEEP_HIBERNATE);
}

/* wddmseg_pm_keeps() for a 64 KiB allocation ending at @end. */
static bool keeps(u32 flags, u32 caps, u32 hib, enum wddmseg_sleep sleep,
		  u64 end)
{
	struct wddmseg_segment_desc seg;

	wddmseg_test_seg(&seg, 0, 0, SZ_2M, SZ_2M, flags);
	return wddmseg_pm_keeps(&seg, caps, hib, PARTIAL, sleep, false, end);
}

/*
 * The valid rows of the table (standby, hibernate, partially), on a
 * device whose VRAM outlives a power cycle: hybrid sleep keeps exactly
 * what hibernation keeps, also where standby would keep more (rows 100
 * and 101 beyond the preserved part).
 */
static void pm_hybrid_like_hibernation(struct kunit *test)
{
	static const u32 rows[] = { 0, S, S | H, S | P };
	const u32 hib = WDDMSEG_PM_HIB_PERSISTENT;
	static const u64 ends[] = { SZ_64K, PARTIAL, PARTIAL + SZ_64K };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		for (j = 0; j < ARRAY_SIZE(ends); j++) {
			bool hibernate = keeps(rows[i], 0, hib,
					       WDDMSEG_SLEEP_HIBERNATE, ends[j]);
			bool hybrid = keeps(rows[i], 0, hib,
					    WDDMSEG_SLEEP_HYBRID, ends[j]);

			KUNIT_EXPECT_EQ_MSG(test, hybrid, hibernate,
					    "flags 0x%x, allocation ending at %llu",
					    rows[i], ends[j]);
		}
	}
	/* the rows where the two columns differ: standby keeps, hybrid not */
	KUNIT_EXPECT_TRUE(test, keeps(S, 0, hib, WDDMSEG_SLEEP_STANDBY, SZ_64K));
	KUNIT_EXPECT_FALSE(test, keeps(S, 0, hib, WDDMSEG_SLEEP_HYBRID, SZ_64K));
	KUNIT_EXPECT_TRUE(test, keeps(S | P, 0, hib, WDDMSEG_SLEEP_STANDBY,
				      PARTIAL + SZ_64K));
	KUNIT_EXPECT_FALSE(test, keeps(S | P, 0, hib, WDDMSEG_SLEEP_HYBRID,
				       PARTIAL + SZ_64K));
	KUNIT_EXPECT_TRUE(test, keeps(S | P, 0, hib, WDDMSEG_SLEEP_HYBRID,
				      PARTIAL));
	KUNIT_EXPECT_TRUE(test, keeps(S | H, 0, hib, WDDMSEG_SLEEP_HYBRID,
				      SZ_64K));
}

/*
 * Hybrid sleep also loses what the standby loses, since the system may
 * wake from it: a device without a persistent VRAM store keeps nothing,
 * AlwaysPoweredVRAM does not keep an unpreserved segment, and
 * DisableSelfRefreshVRAMInS3 clears even a PreservedDuringHibernate one.
 */
static void pm_hybrid_caps(struct kunit *test)
{
	const u32 hib = WDDMSEG_PM_HIB_PERSISTENT;

	KUNIT_EXPECT_TRUE(test, keeps(S | H, 0, 0, WDDMSEG_SLEEP_STANDBY, SZ_64K));
	KUNIT_EXPECT_FALSE(test, keeps(S | H, 0, 0, WDDMSEG_SLEEP_HYBRID, SZ_64K));
	KUNIT_EXPECT_TRUE(test, keeps(0, DXGK_VIDMMCAP_ALWAYS_POWERED_VRAM, hib,
				      WDDMSEG_SLEEP_STANDBY, SZ_64K));
	KUNIT_EXPECT_FALSE(test, keeps(0, DXGK_VIDMMCAP_ALWAYS_POWERED_VRAM, hib,
				       WDDMSEG_SLEEP_HYBRID, SZ_64K));
	KUNIT_EXPECT_TRUE(test, keeps(S | H,
				      DXGK_VIDMMCAP_DISABLE_SELF_REFRESH_VRAM_IN_S3,
				      hib, WDDMSEG_SLEEP_HIBERNATE, SZ_64K));
	KUNIT_EXPECT_FALSE(test, keeps(S | H,
				       DXGK_VIDMMCAP_DISABLE_SELF_REFRESH_VRAM_IN_S3,
				       hib, WDDMSEG_SLEEP_HYBRID, SZ_64K));
}

/* Aperture segments hold no content: kept by every kind of sleep. */
static void pm_aperture_kept(struct kunit *test)
{
	struct wddmseg_segment_desc seg;
	enum wddmseg_sleep sleep;

	wddmseg_test_seg(&seg, TEST_APT, 0, SZ_1M, SZ_1M, DXGK_SEGFLAG_APERTURE);
	for (sleep = WDDMSEG_SLEEP_STANDBY; sleep <= WDDMSEG_SLEEP_HYBRID; sleep++)
		KUNIT_EXPECT_TRUE(test, wddmseg_pm_keeps(&seg, 0, 0, 0, sleep,
							 false, SZ_64K));
}

static struct kunit_case pm_test_cases[] = {
	KUNIT_CASE(pm_sleep_kind),
	KUNIT_CASE(pm_hybrid_like_hibernation),
	KUNIT_CASE(pm_hybrid_caps),
	KUNIT_CASE(pm_aperture_kept),
	{}
};

static struct kunit_suite pm_suite = {
	.name = "wddmseg_pm",
	.test_cases = pm_test_cases,
};

kunit_test_suite(pm_suite);
