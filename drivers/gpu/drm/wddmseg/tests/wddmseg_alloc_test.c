// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of wddmseg_alloc_validate(): DXGK_ALLOCATIONINFOFLAGS and
 * the segment sets of an allocation request against the adapter's table
 * (Documentation/gpu/wddmseg.rst, "Allocation flags").
 *
 * As in wddmseg_desc_test.c: one valid request on one valid adapter, then
 * one mutation per case. A "valid" mutation must still be accepted; a
 * rule mutation must be refused with exactly that rule name and errno
 * (-EOPNOTSUPP for valid WDDM the driver does not implement, -EINVAL
 * otherwise). Descriptions start with the rule name; the debug tier
 * checks that every rule the rst lists has a case.
 */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "../wddmseg_alloc_rules.h"
#include "../wddmseg_desc.h"
#include "../wddmseg_device_types.h"
#include "../wddmseg_hw.h"
#include "wddmseg_test_fixtures.h"

#define TEST_MAX_SIZE	SZ_1G		/* limit of system-memory allocations */
#define TEST_USER_PTR	0x7f0000000000ULL

#define SEG(id)		WDDMSEG_SEGMENT_BIT(id)

/**
 * struct alloc_case - one mutation of the base request
 * @desc: "rule: what" or "valid: what", the KTAP case description
 * @rule: the rule that must be reported, NULL for a valid variant
 * @err: the errno that must be returned with @rule
 * @mutate: applied to the base request
 */
struct alloc_case {
	const char *desc;
	const char *rule;
	int err;
	void (*mutate)(struct drm_wddmseg_gem_create *a);
};

/*
 * The adapter: wddmseg_test_adapter() (2 MiB of VRAM, a 1 MiB BAR2) with
 *   1: VRAM [0, 1M), CPU-visible
 *   2: VRAM [1M, 2M), invisible, two banks of 512 KiB, VprSupported
 *   3: aperture of 1 MiB at 4 GiB, not cache coherent
 *   4: an Agp aperture
 */
static void base_adapter(struct wddmseg_adapter_desc *d)
{
	wddmseg_test_adapter(d);
	d->segment_count = 4;
	d->seg[1].flags = DXGK_SEGFLAG_USE_BANKING | DXGK_SEGFLAG_VPR_SUPPORTED;
	d->seg[1].nb_banks = 2;
	d->seg[1].bank_end[0] = SZ_512K;
	d->seg[1].bank_end[1] = SZ_1M;
	d->seg[2].flags = DXGK_SEGFLAG_APERTURE;
	wddmseg_test_seg(&d->seg[3], 0, 0, SZ_1M, SZ_1M, DXGK_SEGFLAG_AGP);
}

/* 64 KiB in either VRAM segment, visible first, evicted to the other one */
static void base_request(struct drm_wddmseg_gem_create *a)
{
	memset(a, 0, sizeof(*a));
	a->size = SZ_64K;
	a->supported_segments = SEG(1) | SEG(2);
	a->eviction_segments = SEG(2);
	a->preferred[0] = 1;
	a->preferred[1] = 2;
}

static void alloc_case_name(const struct alloc_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

/*
 * Check @c on the base adapter, its aperture (segment 3) with
 * @aperture_flags added: the base request must pass, and the case's
 * mutation alone must give its result.
 */
static void check_alloc_case(struct kunit *test, const struct alloc_case *c,
			     u32 aperture_flags)
{
	struct wddmseg_adapter_desc *d;
	struct drm_wddmseg_gem_create a;
	struct wddmseg_violation v = { };
	int ret;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, d);
	base_adapter(d);
	d->seg[2].flags |= aperture_flags;
	ret = wddmseg_desc_validate(d, &v);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "base adapter refused: rule %s: %s",
			    v.rule, v.detail);

	/* the mutation alone must make the difference */
	base_request(&a);
	memset(&v, 0, sizeof(v));
	ret = wddmseg_alloc_validate(d, &a, TEST_MAX_SIZE, &v);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "base request refused: rule %s: %s",
			    v.rule, v.detail);

	c->mutate(&a);
	memset(&v, 0, sizeof(v));
	ret = wddmseg_alloc_validate(d, &a, TEST_MAX_SIZE, &v);
	if (!c->rule) {
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "refused: rule %s: %s",
				    v.rule, v.detail);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, ret, c->err, "expected rule %s, got %d (%s)",
			    c->rule, ret, v.rule ?: "no rule");
	if (!ret)
		return;
	KUNIT_ASSERT_NOT_NULL(test, v.rule);
	KUNIT_EXPECT_STREQ(test, v.rule, c->rule);
	KUNIT_EXPECT_EQ(test, v.segment_id, 0);
	KUNIT_EXPECT_GT(test, strnlen(v.detail, sizeof(v.detail)), 0);
}

static void alloc_rules(struct kunit *test)
{
	check_alloc_case(test, test->param_value, 0);
}

/* --- valid requests ---------------------------------------------------------- */

static void ok_base(struct drm_wddmseg_gem_create *a)
{
}

static void ok_system_only(struct drm_wddmseg_gem_create *a)
{
	a->supported_segments = 0;
	a->eviction_segments = 0;
	memset(a->preferred, 0, sizeof(a->preferred));
	a->size = SZ_256M;
}

static void ok_no_preferred(struct drm_wddmseg_gem_create *a)
{
	memset(a->preferred, 0, sizeof(a->preferred));
}

static void ok_cpu_visible(struct drm_wddmseg_gem_create *a)
{
	/* visible VRAM and the aperture (system pages) */
	a->flags = WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CACHED |
		   WDDMSEG_ALLOC_HISTORY_BUFFER;
	a->supported_segments = SEG(1) | SEG(3);
	a->eviction_segments = SEG(3);
	a->preferred[1] = 3;
}

static void ok_permanent(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_PERMANENT_SYSMEM | WDDMSEG_ALLOC_CPU_VISIBLE;
	a->supported_segments = SEG(1) | SEG(3);
	a->eviction_segments = SEG(3);
	a->preferred[1] = 3;
}

static void ok_cpu_visible_on_demand(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND;
	a->preferred[0] = 2;
	a->preferred[1] = 1;
}

static void ok_hardware_protected(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED;
	a->supported_segments = SEG(2);
	a->eviction_segments = 0;
	a->preferred[0] = 2;
	a->preferred[1] = 0;
}

static void ok_bank_hint(struct drm_wddmseg_gem_create *a)
{
	a->preferred[0] = 2;
	a->preferred[1] = 1;
	a->bank_hint = 2;
}

static void ok_existing_sysmem(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_EXISTING_SYSMEM;
	a->user_ptr = TEST_USER_PTR;
	a->supported_segments = SEG(3);
	a->eviction_segments = 0;
	a->preferred[0] = 3;
	a->preferred[1] = 0;
}

static void ok_overlay(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_FROM_END_OF_SEGMENT;
}

static void ok_physically_notified(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_ACCESSED_PHYSICALLY |
		   WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION |
		   WDDMSEG_ALLOC_SYNCHRONOUS_PAGING;
}

static void ok_protected(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_PROTECTED;
}

static void ok_alignment(struct drm_wddmseg_gem_create *a)
{
	a->alignment = SZ_64K;
}

static void ok_whole_segment(struct drm_wddmseg_gem_create *a)
{
	a->size = SZ_1M;
	a->alignment = SZ_1M;
}

/* --- rule breakers -------------------------------------------------------------- */

static void bad_flag_19(struct drm_wddmseg_gem_create *a)
{
	a->flags = BIT(19);
}

static void bad_flag_31(struct drm_wddmseg_gem_create *a)
{
	a->flags = BIT(31);
}

static void bad_kernel_sysmem(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_EXISTING_KERNEL_SYSMEM;
}

static void bad_link_mirrored(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_LINK_MIRRORED;
}

static void bad_link_instanced(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_LINK_INSTANCED;
}

static void bad_alternate_va(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_USE_ALTERNATE_VA;
}

static void bad_protected_visible(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_PROTECTED | WDDMSEG_ALLOC_CPU_VISIBLE;
	a->supported_segments = SEG(1);
	a->eviction_segments = 0;
	a->preferred[1] = 0;
}

static void bad_protected_on_demand(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_PROTECTED | WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND;
}

static void bad_protected_permanent(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_PROTECTED | WDDMSEG_ALLOC_PERMANENT_SYSMEM;
}

static void bad_protected_existing(struct drm_wddmseg_gem_create *a)
{
	ok_existing_sysmem(a);
	a->flags |= WDDMSEG_ALLOC_PROTECTED;
}

static void bad_hw_protected_visible(struct drm_wddmseg_gem_create *a)
{
	ok_hardware_protected(a);
	a->flags |= WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND;
}

static void bad_hw_protected_no_vpr(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED;
}

static void bad_hw_protected_system(struct drm_wddmseg_gem_create *a)
{
	ok_system_only(a);
	a->size = SZ_64K;
	a->flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED;
}

static void bad_cached_alone(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_CACHED;
}

static void bad_evict_past_80(struct drm_wddmseg_gem_create *a)
{
	/* 960 KiB with the 1 MiB aperture in the eviction set */
	a->supported_segments |= SEG(3);
	a->eviction_segments = SEG(3);
	a->size = SZ_1M - SZ_64K;
}

static void ok_evict_80(struct drm_wddmseg_gem_create *a)
{
	a->supported_segments |= SEG(3);
	a->eviction_segments = SEG(3);
	a->size = SZ_512K + SZ_256K;
}

static void bad_history_alone(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_HISTORY_BUFFER | WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND;
}

static void bad_permanent_alone(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_PERMANENT_SYSMEM;
}

static void bad_existing_permanent(struct drm_wddmseg_gem_create *a)
{
	ok_existing_sysmem(a);
	a->flags |= WDDMSEG_ALLOC_PERMANENT_SYSMEM | WDDMSEG_ALLOC_CPU_VISIBLE;
}

static void bad_existing_in_vram(struct drm_wddmseg_gem_create *a)
{
	ok_existing_sysmem(a);
	a->supported_segments |= SEG(1);
}

static void bad_notification_alone(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION;
}

static void bad_overlay_capture(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_CAPTURE;
}

static void bad_swizzled(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_SWIZZLED;
}

static void bad_set_beyond(struct drm_wddmseg_gem_create *a)
{
	a->supported_segments |= SEG(5);
}

static void bad_set_eviction(struct drm_wddmseg_gem_create *a)
{
	a->eviction_segments = SEG(3);
}

static void bad_set_agp(struct drm_wddmseg_gem_create *a)
{
	a->supported_segments |= SEG(4);
}

static void bad_preferred_unsupported(struct drm_wddmseg_gem_create *a)
{
	a->preferred[1] = 3;
}

static void bad_preferred_twice(struct drm_wddmseg_gem_create *a)
{
	a->preferred[1] = 1;
}

static void bad_preferred_after_end(struct drm_wddmseg_gem_create *a)
{
	a->preferred[3] = 2;
}

static void bad_preferred_beyond(struct drm_wddmseg_gem_create *a)
{
	a->preferred[1] = 7;
}

static void bad_visible_set(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_CPU_VISIBLE;
}

static void bad_pinned_nowhere(struct drm_wddmseg_gem_create *a)
{
	ok_system_only(a);
	a->size = SZ_64K;
	a->flags = WDDMSEG_ALLOC_CAPTURE;
}

static void bad_hint_no_preferred(struct drm_wddmseg_gem_create *a)
{
	ok_no_preferred(a);
	a->bank_hint = 1;
}

static void bad_hint_no_banks(struct drm_wddmseg_gem_create *a)
{
	a->bank_hint = 1;
}

static void bad_hint_beyond(struct drm_wddmseg_gem_create *a)
{
	ok_bank_hint(a);
	a->bank_hint = 3;
}

static void bad_size_zero(struct drm_wddmseg_gem_create *a)
{
	a->size = 0;
}

static void bad_size_segment(struct drm_wddmseg_gem_create *a)
{
	a->size = SZ_1M + PAGE_SIZE;
}

static void bad_size_system(struct drm_wddmseg_gem_create *a)
{
	ok_system_only(a);
	a->size = TEST_MAX_SIZE + PAGE_SIZE;
}

static void bad_alignment_pow2(struct drm_wddmseg_gem_create *a)
{
	a->alignment = 3 * SZ_4K;
}

static void bad_alignment_large(struct drm_wddmseg_gem_create *a)
{
	a->alignment = SZ_2M;
}

static void bad_ptr_without_flag(struct drm_wddmseg_gem_create *a)
{
	a->user_ptr = TEST_USER_PTR;
}

static void bad_flag_without_ptr(struct drm_wddmseg_gem_create *a)
{
	ok_existing_sysmem(a);
	a->user_ptr = 0;
}

static void bad_ptr_unaligned(struct drm_wddmseg_gem_create *a)
{
	ok_existing_sysmem(a);
	a->user_ptr = TEST_USER_PTR + 8;
}

static void bad_ptr_size_unaligned(struct drm_wddmseg_gem_create *a)
{
	ok_existing_sysmem(a);
	a->size = SZ_64K + 8;
}

static void bad_reserved(struct drm_wddmseg_gem_create *a)
{
	a->reserved[1] = 1;
}

static void bad_pad(struct drm_wddmseg_gem_create *a)
{
	a->pad = 1;
}

static void bad_create_flags(struct drm_wddmseg_gem_create *a)
{
	a->create_flags = BIT(1);
}

/* --- cross-adapter resources ------------------------------------------------ */

/* 64 rows of 1 KiB, CpuVisible, in the aperture (segment 3) */
static void ok_cross_adapter(struct drm_wddmseg_gem_create *a)
{
	a->create_flags = WDDMSEG_CREATE_CROSS_ADAPTER;
	a->flags = WDDMSEG_ALLOC_CPU_VISIBLE;
	a->supported_segments = SEG(3);
	a->eviction_segments = 0;
	a->preferred[0] = 3;
	a->preferred[1] = 0;
	a->pitch = 1024;
	a->height = 64;
}

static void ok_cross_adapter_system(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->supported_segments = 0;
	a->preferred[0] = 0;
	a->pitch = 128;
	a->height = 4;
}

static void bad_xa_not_visible(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND;
}

static void bad_xa_cached(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->flags |= WDDMSEG_ALLOC_CACHED;
}

static void bad_xa_vram(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->supported_segments |= SEG(1);
}

static void bad_xa_pitch(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->pitch = 1024 + 64;
	a->height = 32;
}

static void bad_xa_pitch_zero(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->pitch = 0;
}

static void bad_xa_height(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->height = 62;
}

static void bad_xa_height_zero(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->height = 0;
}

static void bad_xa_size(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->height = 68;
}

static void bad_xa_size_overflow(struct drm_wddmseg_gem_create *a)
{
	ok_cross_adapter(a);
	a->pitch = 0x80000000u;
	a->height = 0x80000000u;
}

static void bad_layout_without_xa(struct drm_wddmseg_gem_create *a)
{
	a->pitch = 1024;
	a->height = 64;
}

static void bad_height_without_xa(struct drm_wddmseg_gem_create *a)
{
	a->height = 4;
}

static void bad_handle(struct drm_wddmseg_gem_create *a)
{
	a->handle = 1;
}

static const struct alloc_case alloc_cases[] = {
	{ "valid: two VRAM segments, visible first", NULL, 0, ok_base },
	{ "valid: system memory only", NULL, 0, ok_system_only },
	{ "valid: no preferred segment", NULL, 0, ok_no_preferred },
	{ "valid: CpuVisible, Cached, HistoryBuffer in visible VRAM or aperture",
	  NULL, 0, ok_cpu_visible },
	{ "valid: PermanentSysMem with CpuVisible", NULL, 0, ok_permanent },
	{ "valid: CpuVisibleOnDemand with invisible VRAM", NULL, 0,
	  ok_cpu_visible_on_demand },
	{ "valid: HardwareProtected in a VprSupported segment", NULL, 0,
	  ok_hardware_protected },
	{ "valid: bank hint in a banked preferred segment", NULL, 0,
	  ok_bank_hint },
	{ "valid: ExistingSysMem mapped by an aperture", NULL, 0,
	  ok_existing_sysmem },
	{ "valid: Overlay from the end of the segment", NULL, 0, ok_overlay },
	{ "valid: AccessedPhysically with ExplicitResidencyNotification",
	  NULL, 0, ok_physically_notified },
	{ "valid: Protected", NULL, 0, ok_protected },
	{ "valid: 64 KiB alignment", NULL, 0, ok_alignment },
	{ "valid: a whole segment, aligned to its size", NULL, 0,
	  ok_whole_segment },
	{ "alloc-reserved: bit 19", "alloc-reserved", -EINVAL, bad_flag_19 },
	{ "alloc-reserved: bit 31", "alloc-reserved", -EINVAL, bad_flag_31 },
	{ "existing-kernel-sysmem: from userspace", "existing-kernel-sysmem",
	  -EINVAL, bad_kernel_sysmem },
	{ "link: LinkMirrored", "link", -EINVAL, bad_link_mirrored },
	{ "link: LinkInstanced", "link", -EINVAL, bad_link_instanced },
	{ "alternate-va: not a primary", "alternate-va", -EINVAL,
	  bad_alternate_va },
	{ "protected: with CpuVisible", "protected", -EINVAL,
	  bad_protected_visible },
	{ "protected: with CpuVisibleOnDemand", "protected", -EINVAL,
	  bad_protected_on_demand },
	{ "protected: with PermanentSysMem", "protected", -EINVAL,
	  bad_protected_permanent },
	{ "protected: with ExistingSysMem", "protected", -EINVAL,
	  bad_protected_existing },
	{ "hardware-protected: CPU visible on demand", "hardware-protected",
	  -EINVAL, bad_hw_protected_visible },
	{ "hardware-protected: segment without VprSupported",
	  "hardware-protected", -EINVAL, bad_hw_protected_no_vpr },
	{ "hardware-protected: system memory only", "hardware-protected",
	  -EINVAL, bad_hw_protected_system },
	{ "needs-cpu-visible: Cached", "needs-cpu-visible", -EINVAL,
	  bad_cached_alone },
	{ "needs-cpu-visible: HistoryBuffer with CpuVisibleOnDemand only",
	  "needs-cpu-visible", -EINVAL, bad_history_alone },
	{ "needs-cpu-visible: PermanentSysMem", "needs-cpu-visible", -EINVAL,
	  bad_permanent_alone },
	{ "existing-sysmem: with PermanentSysMem", "existing-sysmem", -EINVAL,
	  bad_existing_permanent },
	{ "existing-sysmem: a VRAM segment in the set", "existing-sysmem",
	  -EINVAL, bad_existing_in_vram },
	{ "residency-notification: without AccessedPhysically",
	  "residency-notification", -EINVAL, bad_notification_alone },
	{ "overlay-capture: both", "overlay-capture", -EINVAL,
	  bad_overlay_capture },
	{ "unsupported: Swizzled", "unsupported", -EOPNOTSUPP, bad_swizzled },
	{ "segment-set: a segment beyond the table", "segment-set", -EINVAL,
	  bad_set_beyond },
	{ "segment-set: eviction set not a subset", "segment-set", -EINVAL,
	  bad_set_eviction },
	{ "segment-set: an Agp segment", "segment-set", -EINVAL, bad_set_agp },
	{ "preferred: not in the supported set", "preferred", -EINVAL,
	  bad_preferred_unsupported },
	{ "preferred: listed twice", "preferred", -EINVAL,
	  bad_preferred_twice },
	{ "preferred: entry after the terminating 0", "preferred", -EINVAL,
	  bad_preferred_after_end },
	{ "preferred: beyond the table", "preferred", -EINVAL,
	  bad_preferred_beyond },
	{ "cpu-visible-set: CpuVisible with invisible VRAM", "cpu-visible-set",
	  -EINVAL, bad_visible_set },
	{ "pinned: Capture in system memory", "pinned", -EINVAL,
	  bad_pinned_nowhere },
	{ "bank-hint: without a preferred segment", "bank-hint", -EINVAL,
	  bad_hint_no_preferred },
	{ "bank-hint: preferred segment without banks", "bank-hint", -EINVAL,
	  bad_hint_no_banks },
	{ "bank-hint: beyond the last bank", "bank-hint", -EINVAL,
	  bad_hint_beyond },
	{ "size: zero", "size", -EINVAL, bad_size_zero },
	{ "size: larger than every segment", "size", -EINVAL,
	  bad_size_segment },
	{ "size: system memory above the limit", "size", -EINVAL,
	  bad_size_system },
	{ "alignment: not a power of two", "alignment", -EINVAL,
	  bad_alignment_pow2 },
	{ "alignment: larger than every segment", "alignment", -EINVAL,
	  bad_alignment_large },
	{ "user-ptr: without ExistingSysMem", "user-ptr", -EINVAL,
	  bad_ptr_without_flag },
	{ "user-ptr: ExistingSysMem without a pointer", "user-ptr", -EINVAL,
	  bad_flag_without_ptr },
	{ "user-ptr: pointer not page aligned", "user-ptr", -EINVAL,
	  bad_ptr_unaligned },
	{ "user-ptr: size not page aligned", "user-ptr", -EINVAL,
	  bad_ptr_size_unaligned },
	{ "eviction-80: 960 KiB evicted through a 1 MiB aperture",
	  "eviction-80", -EINVAL, bad_evict_past_80 },
	{ "valid: 768 KiB evicted through a 1 MiB aperture", NULL, 0,
	  ok_evict_80 },
	{ "reserved: reserved field", "reserved", -EINVAL, bad_reserved },
	{ "reserved: handle set on input", "reserved", -EINVAL, bad_handle },
	{ "reserved: pad", "reserved", -EINVAL, bad_pad },
	{ "reserved: unknown create_flags bit", "reserved", -EINVAL,
	  bad_create_flags },
	{ "valid: a cross-adapter resource in an aperture", NULL, 0,
	  ok_cross_adapter },
	{ "valid: a cross-adapter resource in system memory, 4 rows of 128 bytes",
	  NULL, 0, ok_cross_adapter_system },
	{ "cross-adapter-cpu-visible: CpuVisibleOnDemand only",
	  "cross-adapter-cpu-visible", -EINVAL, bad_xa_not_visible },
	{ "cross-adapter-write-combined: Cached", "cross-adapter-write-combined",
	  -EINVAL, bad_xa_cached },
	{ "cross-adapter-aperture: a VRAM segment in the set",
	  "cross-adapter-aperture", -EINVAL, bad_xa_vram },
	{ "cross-adapter-pitch: 1088 bytes", "cross-adapter-pitch", -EINVAL,
	  bad_xa_pitch },
	{ "cross-adapter-pitch: zero", "cross-adapter-pitch", -EINVAL,
	  bad_xa_pitch_zero },
	{ "cross-adapter-height: 62 rows", "cross-adapter-height", -EINVAL,
	  bad_xa_height },
	{ "cross-adapter-height: zero", "cross-adapter-height", -EINVAL,
	  bad_xa_height_zero },
	{ "cross-adapter-size: 68 rows of 1 KiB in 64 KiB", "cross-adapter-size",
	  -EINVAL, bad_xa_size },
	{ "cross-adapter-size: pitch times height above 32 bits",
	  "cross-adapter-size", -EINVAL, bad_xa_size_overflow },
	{ "cross-adapter-layout: pitch and height without the flag",
	  "cross-adapter-layout", -EINVAL, bad_layout_without_xa },
	{ "cross-adapter-layout: height without the flag", "cross-adapter-layout",
	  -EINVAL, bad_height_without_xa },
};

KUNIT_ARRAY_PARAM(alloc, alloc_cases, alloc_case_name);

/* --- with a cache-coherent aperture -------------------------------------- */

static void coherent_history(struct drm_wddmseg_gem_create *a)
{
	a->flags = WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CACHED |
		   WDDMSEG_ALLOC_HISTORY_BUFFER;
	a->supported_segments = SEG(1) | SEG(3);
	a->eviction_segments = SEG(3);
	a->preferred[1] = 3;
}

static void coherent_history_uncached(struct drm_wddmseg_gem_create *a)
{
	coherent_history(a);
	a->flags &= ~WDDMSEG_ALLOC_CACHED;
}

static void coherent_history_more(struct drm_wddmseg_gem_create *a)
{
	coherent_history(a);
	a->flags |= WDDMSEG_ALLOC_FROM_END_OF_SEGMENT;
}

static const struct alloc_case coherent_cases[] = {
	{ "valid: HistoryBuffer, CpuVisible and Cached", NULL, 0,
	  coherent_history },
	{ "history-buffer: without Cached", "history-buffer", -EINVAL,
	  coherent_history_uncached },
	{ "history-buffer: with another flag", "history-buffer", -EINVAL,
	  coherent_history_more },
};

KUNIT_ARRAY_PARAM(coherent, coherent_cases, alloc_case_name);

/* The same checks on an adapter whose aperture is CacheCoherent. */
static void coherent_rules(struct kunit *test)
{
	check_alloc_case(test, test->param_value, DXGK_SEGFLAG_CACHE_COHERENT);
}

static struct kunit_case alloc_test_cases[] = {
	KUNIT_CASE_PARAM(alloc_rules, alloc_gen_params),
	KUNIT_CASE_PARAM(coherent_rules, coherent_gen_params),
	{}
};

static struct kunit_suite alloc_suite = {
	.name = "wddmseg_alloc",
	.test_cases = alloc_test_cases,
};

kunit_test_suite(alloc_suite);
