// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the display's pure rules: the modes the scanout can show
 * (wddmseg_kms_mode_rule()), the refresh rate it is programmed with
 * (wddmseg_kms_refresh_mhz()), and the segments a framebuffer may be
 * scanned out from (wddmseg_bo_direct_flip_segments()).
 *
 * They only read a mode, or the device's segment table and an
 * allocation's supported set: a zeroed device and buffer object with those
 * fields filled in are enough.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include <drm/drm_modes.h>

#include "../wddmseg_bo.h"
#include "../wddmseg_device_types.h"
#include "../wddmseg_kms.h"
#include "../wddmseg_hw.h"

#define SEG(id)		WDDMSEG_SEGMENT_BIT(id)

/* VESA DMT 1024x768@60: 65 MHz over 1344 x 806, 60.0038 Hz */
static void dmt_1024x768(struct drm_display_mode *m)
{
	memset(m, 0, sizeof(*m));
	m->clock = 65000;
	m->hdisplay = 1024;
	m->hsync_start = 1048;
	m->hsync_end = 1184;
	m->htotal = 1344;
	m->vdisplay = 768;
	m->vsync_start = 771;
	m->vsync_end = 777;
	m->vtotal = 806;
	m->flags = DRM_MODE_FLAG_NHSYNC | DRM_MODE_FLAG_NVSYNC;
}

static void kms_refresh_exact(struct kunit *test)
{
	struct drm_display_mode m;

	dmt_1024x768(&m);
	/* 65000000 Hz / 1083264 = 60.00384 Hz, rounded to the millihertz */
	KUNIT_EXPECT_EQ(test, wddmseg_kms_refresh_mhz(&m), 60004ULL);
	m.clock = 148500;
	m.htotal = 2200;
	m.vtotal = 1125;
	KUNIT_EXPECT_EQ(test, wddmseg_kms_refresh_mhz(&m), 60000ULL);
	m.htotal = 0;
	KUNIT_EXPECT_EQ(test, wddmseg_kms_refresh_mhz(&m), 0ULL);
}

static void expect_rule(struct kunit *test, const char *got, const char *want)
{
	if (!want)
		KUNIT_EXPECT_NULL_MSG(test, got, "refused by rule %s", got);
	else
		KUNIT_EXPECT_STREQ(test, got ? got : "(accepted)", want);
}

static void kms_mode_size(struct kunit *test)
{
	struct drm_display_mode m;

	dmt_1024x768(&m);
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), NULL);
	expect_rule(test, wddmseg_kms_mode_rule(1024, 768, &m), NULL);
	expect_rule(test, wddmseg_kms_mode_rule(1023, 768, &m), "mode-size");
	expect_rule(test, wddmseg_kms_mode_rule(1024, 767, &m), "mode-size");
	m.hdisplay = 0;
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), "mode-size");
	dmt_1024x768(&m);
	m.vdisplay = 0;
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), "mode-size");
}

static void kms_mode_flags(struct kunit *test)
{
	struct drm_display_mode m;

	dmt_1024x768(&m);
	m.flags |= DRM_MODE_FLAG_INTERLACE;
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), "mode-flags");
	dmt_1024x768(&m);
	m.flags |= DRM_MODE_FLAG_DBLSCAN;
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), "mode-flags");
	/* sync polarities are no concern of the scanout */
	dmt_1024x768(&m);
	m.flags = DRM_MODE_FLAG_PHSYNC | DRM_MODE_FLAG_PVSYNC;
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), NULL);
}

/* REFRESH_MHZ must be in 1000..240000: the bounds, from the clock. */
static void kms_mode_refresh(struct kunit *test)
{
	struct drm_display_mode m;

	dmt_1024x768(&m);
	m.clock = 1084;		/* 1.00068 Hz */
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), NULL);
	m.clock = 1083;		/* 0.99976 Hz, rounds to 1000 mHz */
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), NULL);
	m.clock = 1082;		/* 0.99883 Hz */
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), "mode-refresh");
	m.clock = 259983;	/* 239.99967 Hz, rounds to 240000 mHz */
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), NULL);
	m.clock = 259985;	/* 240.0015 Hz, rounds to 240002 mHz */
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), "mode-refresh");
	m.clock = 0;
	expect_rule(test, wddmseg_kms_mode_rule(1920, 1200, &m), "mode-refresh");
}

/*
 * Segments: 1 CPU-visible VRAM with DirectFlip, 2 VRAM without, 3 an
 * aperture whose flags claim DirectFlip (the device never scans out of an
 * aperture), 4 invisible VRAM with DirectFlip.
 */
static void kms_direct_flip_segments(struct kunit *test)
{
	struct wddmseg_device *wdev;
	struct wddmseg_adapter_desc *d;
	struct wddmseg_bo *bo;

	wdev = kunit_kzalloc(test, sizeof(*wdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wdev);
	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, bo);
	d = &wdev->desc;
	d->segment_count = 4;
	d->seg[0].flags = DXGK_SEGFLAG_CPU_VISIBLE | DXGK_SEGFLAG_DIRECT_FLIP;
	d->seg[1].flags = 0;
	d->seg[2].flags = DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_DIRECT_FLIP;
	d->seg[3].flags = DXGK_SEGFLAG_DIRECT_FLIP;
	bo->tbo.bdev = &wdev->bdev;

	bo->supported = SEG(1) | SEG(2) | SEG(3) | SEG(4);
	KUNIT_EXPECT_EQ(test, wddmseg_bo_direct_flip_segments(bo), SEG(1) | SEG(4));
	bo->supported = SEG(2) | SEG(3);
	KUNIT_EXPECT_EQ(test, wddmseg_bo_direct_flip_segments(bo), 0u);
	bo->supported = SEG(4);
	KUNIT_EXPECT_EQ(test, wddmseg_bo_direct_flip_segments(bo), SEG(4));
	bo->supported = 0;
	KUNIT_EXPECT_EQ(test, wddmseg_bo_direct_flip_segments(bo), 0u);
	/* segments past the table do not count, whatever the set says */
	d->segment_count = 1;
	bo->supported = SEG(1) | SEG(4);
	KUNIT_EXPECT_EQ(test, wddmseg_bo_direct_flip_segments(bo), SEG(1));
}

static struct kunit_case kms_test_cases[] = {
	KUNIT_CASE(kms_refresh_exact),
	KUNIT_CASE(kms_mode_size),
	KUNIT_CASE(kms_mode_flags),
	KUNIT_CASE(kms_mode_refresh),
	KUNIT_CASE(kms_direct_flip_segments),
	{}
};

static struct kunit_suite kms_suite = {
	.name = "wddmseg_kms",
	.test_cases = kms_test_cases,
};

kunit_test_suite(kms_suite);
