// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg kselftests of refusals: every rule of wddmseg_alloc_rules.c with
 * its errno (fixture create_refusal, one variant per rule), refusals that
 * need a segment kind, flags that are accepted and honoured, and
 * MAKE_RESIDENT, EVICT, GEM_INFO, MMAP_OFFSET and GEM_WAIT on bad input.
 *
 * When /sys/module/drm/parameters/debug is writable, the refusal tests turn
 * on drm.debug=0x2 and check in /dev/kmsg that each refusal names the
 * expected rule of wddmseg_alloc_rules.c.
 *
 * Fixture "alloc" and the devices it tests: wddmseg_alloc_fixture.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "wddmseg_harness.h"
#include "wddmseg_gem.h"
#include "wddmseg_alloc_fixture.h"

/* ---------------------------------------------------------------- */
/* Refusals, with the rule names of wddmseg_alloc_rules.c when drm.debug works */

struct rulelog {
	int kmsg;			/* -1: rule names are not checked */
};

/* Turn on DRM_UT_DRIVER and open /dev/kmsg at its end. */
static void rulelog_open(FIXTURE_DATA(alloc) *self, struct rulelog *r)
{
	r->kmsg = -1;
	if (!drm_debug_raise(DRM_UT_DRIVER, self->debug_saved,
			     sizeof(self->debug_saved)))
		r->kmsg = kmsg_open_end();
}

/*
 * The rule named by the first "gem_create: rule NAME:" record logged since
 * the last call, copied to @rule ("" if none).
 */
static void rulelog_next(struct rulelog *r, char *rule, size_t len)
{
	char rec[2048];

	rule[0] = '\0';
	if (r->kmsg < 0)
		return;
	while (kmsg_read(r->kmsg, rec, sizeof(rec)))
		kmsg_rule(rec, "gem_create: rule ", rule, len);
}

#define UPTR		0x10000ULL	/* a page-aligned user address */

/* Base request on the default device: 64 KiB in segment 1. */
static struct drm_wddmseg_gem_create base_request(void)
{
	struct drm_wddmseg_gem_create c;

	memset(&c, 0, sizeof(c));
	c.size = SZ_64K;
	c.supported_segments = BIT(SEG_VIS);
	c.preferred[0] = SEG_VIS;
	return c;
}

/*
 * Every refusal rule of wddmseg_alloc_rules.c, with its errno: -EINVAL for what
 * WDDM forbids or the adapter cannot hold, -EOPNOTSUPP for valid WDDM the
 * driver does not implement. One variant each: the request is
 * base_request() changed as the variant says, plus what depends on the
 * device (@adjust). Nothing is allocated by a refused request, and with
 * drm.debug the refusal names the variant's rule.
 */
enum refusal_adjust {
	ADJ_NONE,
	ADJ_SUPPORTED_BEYOND,	/* supported set |= the id after the last */
	ADJ_EVICTION_BEYOND,	/* eviction set = the id after the last */
	ADJ_PREFERRED_BEYOND,	/* preferred[0] = the id after the last */
	ADJ_SIZE_ABOVE_VIS,	/* size = Size of segment 1 + 4 KiB */
	ADJ_SIZE_ABOVE_APT_COMMIT, /* size = CommitLimit of 3 + 4 KiB */
	ADJ_SIZE_ABOVE_ALL,	/* size = Size of 1 and 2 + CommitLimit of 3 */
};

FIXTURE(create_refusal) {
	FIXTURE_DATA(alloc) a;
};

FIXTURE_VARIANT(create_refusal) {
	const char *what;
	struct drm_wddmseg_gem_create c;
	enum refusal_adjust adjust;
	int err;
	const char *rule;
};

FIXTURE_SETUP(create_refusal)
{
	alloc_fixture_setup(_metadata, &self->a);
}

FIXTURE_TEARDOWN(create_refusal)
{
	alloc_fixture_teardown(&self->a);
}

/* base_request() with the designated initializers given overriding it. */
#define REFUSAL(name, desc, err_, rule_, adjust_, ...)			\
	FIXTURE_VARIANT_ADD(create_refusal, name) {			\
		.what = desc, .err = err_, .rule = rule_,		\
		.adjust = adjust_,					\
		.c = { .size = SZ_64K,					\
		       .supported_segments = BIT(SEG_VIS),		\
		       .preferred = { SEG_VIS }, __VA_ARGS__ },		\
	}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
/* alloc-reserved */
REFUSAL(flag_bit_19, "flag bit 19",
	EINVAL, "alloc-reserved", ADJ_NONE,
	.flags = 1u << 19);
REFUSAL(flag_bit_31, "flag bit 31",
	EINVAL, "alloc-reserved", ADJ_NONE,
	.flags = 1u << 31);
REFUSAL(flag_bit_24_with_cpuvisible, "flag bit 24 with CpuVisible",
	EINVAL, "alloc-reserved", ADJ_NONE,
	.flags = (1u << 24) | WDDMSEG_ALLOC_CPU_VISIBLE);
REFUSAL(existingkernelsysmem, "ExistingKernelSysMem",
	EINVAL, "existing-kernel-sysmem", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_EXISTING_KERNEL_SYSMEM);
REFUSAL(linkmirrored, "LinkMirrored",
	EINVAL, "link", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_LINK_MIRRORED);
REFUSAL(linkinstanced, "LinkInstanced",
	EINVAL, "link", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_LINK_INSTANCED);
REFUSAL(usealternateva, "UseAlternateVA",
	EINVAL, "alternate-va", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_USE_ALTERNATE_VA);
REFUSAL(protected_permanentsysmem, "Protected|PermanentSysMem",
	EINVAL, "protected", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_PROTECTED |
		WDDMSEG_ALLOC_PERMANENT_SYSMEM);
REFUSAL(protected_existingsysmem, "Protected|ExistingSysMem",
	EINVAL, "protected", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_PROTECTED |
		WDDMSEG_ALLOC_EXISTING_SYSMEM,
	.user_ptr = UPTR,
	.supported_segments = BIT(SEG_APT),
	.preferred = { SEG_APT });
REFUSAL(protected_cpuvisible, "Protected|CpuVisible",
	EINVAL, "protected", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_PROTECTED | WDDMSEG_ALLOC_CPU_VISIBLE);
REFUSAL(protected_cpuvisibleondemand, "Protected|CpuVisibleOnDemand",
	EINVAL, "protected", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_PROTECTED |
		WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND);
REFUSAL(hardwareprotected_cpuvisible, "HardwareProtected|CpuVisible",
	EINVAL, "hardware-protected", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED |
		WDDMSEG_ALLOC_CPU_VISIBLE);
REFUSAL(hardwareprotected_cpuvisibleondemand, "HardwareProtected|CpuVisibleOnDemand",
	EINVAL, "hardware-protected", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED |
		WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND);
REFUSAL(hardwareprotected_in_a_segment_without_vprsupported, "HardwareProtected in a segment without VprSupported",
	EINVAL, "hardware-protected", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED);
REFUSAL(hardwareprotected_with_an_empty_supported_set, "HardwareProtected with an empty supported set",
	EINVAL, "hardware-protected", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED,
	.supported_segments = 0,
	.preferred = { 0 });
REFUSAL(cached_without_cpuvisible, "Cached without CpuVisible",
	EINVAL, "needs-cpu-visible", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_CACHED);
REFUSAL(cached_cpuvisibleondemand, "Cached|CpuVisibleOnDemand",
	EINVAL, "needs-cpu-visible", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_CACHED |
		WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND);
REFUSAL(permanentsysmem_without_cpuvisible, "PermanentSysMem without CpuVisible",
	EINVAL, "needs-cpu-visible", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_PERMANENT_SYSMEM);
REFUSAL(historybuffer_without_cpuvisible, "HistoryBuffer without CpuVisible",
	EINVAL, "needs-cpu-visible", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_HISTORY_BUFFER);

/* the default layout's aperture is cache coherent */
REFUSAL(historybuffer_cpuvisible_without_cached, "HistoryBuffer|CpuVisible without Cached",
	EINVAL, "history-buffer", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_HISTORY_BUFFER |
		WDDMSEG_ALLOC_CPU_VISIBLE);
REFUSAL(historybuffer_cpuvisible_cached_fromendofsegment, "HistoryBuffer|CpuVisible|Cached|FromEndOfSegment",
	EINVAL, "history-buffer", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_HISTORY_BUFFER |
		WDDMSEG_ALLOC_CPU_VISIBLE |
		WDDMSEG_ALLOC_CACHED |
		WDDMSEG_ALLOC_FROM_END_OF_SEGMENT);
REFUSAL(existingsysmem_permanentsysmem_cpuvisible, "ExistingSysMem|PermanentSysMem|CpuVisible",
	EINVAL, "existing-sysmem", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_EXISTING_SYSMEM |
		WDDMSEG_ALLOC_PERMANENT_SYSMEM |
		WDDMSEG_ALLOC_CPU_VISIBLE,
	.user_ptr = UPTR);
REFUSAL(existingsysmem_in_a_memory_segment, "ExistingSysMem in a memory segment",
	EINVAL, "existing-sysmem", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_EXISTING_SYSMEM,
	.user_ptr = UPTR);
REFUSAL(existingsysmem_with_an_aperture_and_a_memory_segment, "ExistingSysMem with an aperture and a memory segment",
	EINVAL, "existing-sysmem", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_EXISTING_SYSMEM,
	.user_ptr = UPTR,
	.supported_segments = BIT(SEG_VIS) | BIT(SEG_APT),
	.preferred = { SEG_APT });
REFUSAL(existingsysmem_without_user_ptr, "ExistingSysMem without user_ptr",
	EINVAL, "user-ptr", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_EXISTING_SYSMEM,
	.supported_segments = BIT(SEG_APT),
	.preferred = { SEG_APT });
REFUSAL(existingsysmem_with_an_unaligned_user_ptr, "ExistingSysMem with an unaligned user_ptr",
	EINVAL, "user-ptr", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_EXISTING_SYSMEM,
	.user_ptr = UPTR + 8,
	.supported_segments = BIT(SEG_APT),
	.preferred = { SEG_APT });
REFUSAL(existingsysmem_with_an_unaligned_size, "ExistingSysMem with an unaligned size",
	EINVAL, "user-ptr", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_EXISTING_SYSMEM,
	.user_ptr = UPTR,
	.size = SZ_64K + 8,
	.supported_segments = BIT(SEG_APT),
	.preferred = { SEG_APT });
REFUSAL(explicitresidencynotification_without_accessedphysically, "ExplicitResidencyNotification without AccessedPhysically",
	EINVAL, "residency-notification", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION);
REFUSAL(overlay_capture, "Overlay|Capture",
	EINVAL, "overlay-capture", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_CAPTURE);

/* valid WDDM, not implemented */
REFUSAL(swizzled, "Swizzled",
	EOPNOTSUPP, "unsupported", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_SWIZZLED);
REFUSAL(swizzled_cpuvisible_in_system_memory, "Swizzled|CpuVisible in system memory",
	EOPNOTSUPP, "unsupported", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_SWIZZLED | WDDMSEG_ALLOC_CPU_VISIBLE,
	.supported_segments = 0,
	.preferred = { 0 });

/* segment sets */
REFUSAL(supported_segment_beyond_segment_count, "supported segment beyond segment_count",
	EINVAL, "segment-set", ADJ_SUPPORTED_BEYOND);
REFUSAL(supported_bit_31, "supported bit 31",
	EINVAL, "segment-set", ADJ_NONE,
	.supported_segments = BIT(SEG_VIS) | 1u << 31);
REFUSAL(eviction_set_not_a_subset, "eviction set not a subset",
	EINVAL, "segment-set", ADJ_NONE,
	.eviction_segments = BIT(SEG_INV));
REFUSAL(eviction_set_beyond_segment_count, "eviction set beyond segment_count",
	EINVAL, "segment-set", ADJ_EVICTION_BEYOND);
REFUSAL(preferred_not_in_the_supported_set, "preferred not in the supported set",
	EINVAL, "preferred", ADJ_NONE,
	.preferred = { SEG_INV });
REFUSAL(preferred_beyond_segment_count, "preferred beyond segment_count",
	EINVAL, "preferred", ADJ_PREFERRED_BEYOND);
REFUSAL(preferred_255, "preferred 255",
	EINVAL, "preferred", ADJ_NONE,
	.preferred = { 255 });
REFUSAL(preferred_listed_twice, "preferred listed twice",
	EINVAL, "preferred", ADJ_NONE,
	.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV),
	.preferred = { SEG_VIS, SEG_VIS });
REFUSAL(preferred_entry_after_the_terminator, "preferred entry after the terminator",
	EINVAL, "preferred", ADJ_NONE,
	.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV),
	.preferred = { SEG_VIS, 0, SEG_INV });
REFUSAL(preferred_last_entry_after_the_terminator, "preferred last entry after the terminator",
	EINVAL, "preferred", ADJ_NONE,
	.preferred = { SEG_VIS, [WDDMSEG_MAX_PREFERRED - 1] = SEG_VIS });
REFUSAL(preferred_with_an_empty_supported_set, "preferred with an empty supported set",
	EINVAL, "preferred", ADJ_NONE,
	.supported_segments = 0);
REFUSAL(cpuvisible_with_invisible_segment_2, "CpuVisible with invisible segment 2",
	EINVAL, "cpu-visible-set", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_CPU_VISIBLE,
	.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV));
REFUSAL(overlay_with_an_empty_supported_set, "Overlay with an empty supported set",
	EINVAL, "pinned", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_OVERLAY,
	.supported_segments = 0,
	.preferred = { 0 });
REFUSAL(capture_with_an_empty_supported_set, "Capture with an empty supported set",
	EINVAL, "pinned", ADJ_NONE,
	.flags = WDDMSEG_ALLOC_CAPTURE,
	.supported_segments = 0,
	.preferred = { 0 });
REFUSAL(bank_hint_on_a_segment_without_banks, "bank_hint on a segment without banks",
	EINVAL, "bank-hint", ADJ_NONE,
	.bank_hint = 1);
REFUSAL(bank_hint_without_a_preferred_segment, "bank_hint without a preferred segment",
	EINVAL, "bank-hint", ADJ_NONE,
	.bank_hint = 1,
	.preferred = { 0 });

/* size and alignment */
REFUSAL(size_0, "size 0",
	EINVAL, "size", ADJ_NONE,
	.size = 0);
REFUSAL(size_above_the_only_supported_segment, "size above the only supported segment",
	EINVAL, "size", ADJ_SIZE_ABOVE_VIS);
REFUSAL(size_above_the_aperture_commitlimit_below_its_size, "size above the aperture CommitLimit (below its Size)",
	EINVAL, "size", ADJ_SIZE_ABOVE_APT_COMMIT,
	.supported_segments = BIT(SEG_APT),
	.preferred = { SEG_APT });
REFUSAL(size_above_every_supported_segment, "size above every supported segment",
	EINVAL, "size", ADJ_SIZE_ABOVE_ALL,
	.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV) | BIT(SEG_APT));
REFUSAL(system_only_size_of_2_62, "system-only size of 2^62",
	EINVAL, "size", ADJ_NONE,
	.size = 1ULL << 62,
	.supported_segments = 0,
	.preferred = { 0 });
REFUSAL(size_2_64_1, "size 2^64 - 1",
	EINVAL, "size", ADJ_NONE,
	.size = UINT64_MAX);
REFUSAL(alignment_3, "alignment 3",
	EINVAL, "alignment", ADJ_NONE,
	.alignment = 3);
REFUSAL(alignment_0x3000, "alignment 0x3000",
	EINVAL, "alignment", ADJ_NONE,
	.alignment = 0x3000);
REFUSAL(alignment_0x80000001, "alignment 0x80000001",
	EINVAL, "alignment", ADJ_NONE,
	.alignment = 0x80000001u);
REFUSAL(alignment_above_every_supported_segment, "alignment above every supported segment",
	EINVAL, "alignment", ADJ_NONE,
	.alignment = 0x80000000u);

/* other fields */
REFUSAL(user_ptr_without_existingsysmem, "user_ptr without ExistingSysMem",
	EINVAL, "user-ptr", ADJ_NONE,
	.user_ptr = UPTR);
/*
 * Up to uapi version 5 the four words after user_ptr were reserved[0..3];
 * version 6 made the first two create_flags, pitch, height and pad. Each
 * variant sets a bit of the same words as before that stays refused.
 */
REFUSAL(reserved_0, "create_flags bit 31 (was reserved[0])",
	EINVAL, "reserved", ADJ_NONE,
	.create_flags = 1u << 31);
REFUSAL(reserved_1, "pad (was reserved[1])",
	EINVAL, "reserved", ADJ_NONE,
	.pad = 1u << 8);
REFUSAL(reserved_2, "reserved[0] (was reserved[2])",
	EINVAL, "reserved", ADJ_NONE,
	.reserved[0] = 1);
REFUSAL(reserved_3, "reserved[1] (was reserved[3])",
	EINVAL, "reserved", ADJ_NONE,
	.reserved[1] = 1ULL << 63);

/*
 * Cross-adapter resources (DXGK_VIDMMCAPS): each property of the page,
 * on an otherwise conforming request (64 rows of 1 KiB, CpuVisible, in
 * the aperture), refused with its rule.
 */
#define XA_OK	.create_flags = WDDMSEG_CREATE_CROSS_ADAPTER,		\
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE,			\
		.supported_segments = BIT(SEG_APT),			\
		.preferred = { SEG_APT }, .pitch = 1024, .height = 64
REFUSAL(cross_adapter_without_cpuvisible, "cross-adapter without CpuVisible",
	EINVAL, "cross-adapter-cpu-visible", ADJ_NONE,
	XA_OK, .flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND);
REFUSAL(cross_adapter_cached, "cross-adapter Cached (not write-combined)",
	EINVAL, "cross-adapter-write-combined", ADJ_NONE,
	XA_OK, .flags = WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CACHED);
REFUSAL(cross_adapter_in_vram, "cross-adapter with a memory segment in the supported set",
	EINVAL, "cross-adapter-aperture", ADJ_NONE,
	XA_OK, .supported_segments = BIT(SEG_VIS) | BIT(SEG_APT));
REFUSAL(cross_adapter_pitch_64, "cross-adapter pitch 64",
	EINVAL, "cross-adapter-pitch", ADJ_NONE,
	XA_OK, .pitch = 64);
REFUSAL(cross_adapter_pitch_1000, "cross-adapter pitch 1000",
	EINVAL, "cross-adapter-pitch", ADJ_NONE,
	XA_OK, .pitch = 1000);
REFUSAL(cross_adapter_height_62, "cross-adapter height 62",
	EINVAL, "cross-adapter-height", ADJ_NONE,
	XA_OK, .height = 62);
REFUSAL(cross_adapter_height_0, "cross-adapter height 0",
	EINVAL, "cross-adapter-height", ADJ_NONE,
	XA_OK, .height = 0);
REFUSAL(cross_adapter_larger_than_size, "cross-adapter 68 rows of 1 KiB in 64 KiB",
	EINVAL, "cross-adapter-size", ADJ_NONE,
	XA_OK, .height = 68);
REFUSAL(pitch_without_cross_adapter, "pitch and height without cross-adapter",
	EINVAL, "cross-adapter-layout", ADJ_NONE,
	.pitch = 1024, .height = 64);
REFUSAL(handle_on_input, "handle on input",
	EINVAL, "reserved", ADJ_NONE,
	.handle = 1);
#pragma GCC diagnostic pop

static void refusal_adjust(FIXTURE_DATA(alloc) *self,
			   struct drm_wddmseg_gem_create *c,
			   enum refusal_adjust adjust)
{
	const uint32_t beyond = self->def->exp.layout.nr_segs + 1;

	switch (adjust) {
	case ADJ_NONE:
		break;
	case ADJ_SUPPORTED_BEYOND:
		c->supported_segments |= BIT(beyond);
		break;
	case ADJ_EVICTION_BEYOND:
		c->eviction_segments = BIT(beyond);
		break;
	case ADJ_PREFERRED_BEYOND:
		c->preferred[0] = beyond;
		break;
	case ADJ_SIZE_ABOVE_VIS:
		c->size = self->seg[SEG_VIS].size + SZ_4K;
		break;
	case ADJ_SIZE_ABOVE_APT_COMMIT:
		c->size = self->seg[SEG_APT].commit_limit + SZ_4K;
		break;
	case ADJ_SIZE_ABOVE_ALL:
		c->size = self->seg[SEG_VIS].size + self->seg[SEG_INV].size +
			  self->seg[SEG_APT].commit_limit;
		break;
	}
}

TEST_F(create_refusal, refused)
{
	FIXTURE_DATA(alloc) *a = &self->a;
	struct drm_wddmseg_gem_create c;
	struct rulelog r;
	char rule[64];
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped */
		return;
	if (!a->def)
		WSKIP(return, "no device with the default layout in %s",
		     gem_env_source(&a->env));

	rulelog_open(a, &r);
	/* the base request works: refusals are not just a broken ioctl */
	c = base_request();
	ASSERT_EQ(0, wddmseg_ioctl(a->fd, DRM_IOCTL_WDDMSEG_GEM_CREATE, &c));
	ASSERT_EQ(0, wddmseg_destroy_allocation(a->fd, c.handle));
	rulelog_next(&r, rule, sizeof(rule));	/* drain */

	c = variant->c;
	refusal_adjust(a, &c, variant->adjust);
	ret = wddmseg_ioctl(a->fd, DRM_IOCTL_WDDMSEG_GEM_CREATE, &c);
	EXPECT_EQ(-variant->err, ret)
		TH_LOG("%s: %s, expected %s", variant->what,
		       ret ? strerror(-ret) : "accepted",
		       strerror(variant->err));
	if (!ret) {
		wddmseg_destroy_allocation(a->fd, c.handle);
	} else if (r.kmsg >= 0) {
		rulelog_next(&r, rule, sizeof(rule));
		EXPECT_STREQ(variant->rule, rule)
			TH_LOG("%s: refused by rule '%s', expected '%s' (drm.debug on)",
			       variant->what, rule, variant->rule);
	}
	if (r.kmsg >= 0)
		close(r.kmsg);
	else
		TH_LOG("%s not writable: rule names not checked",
		       DRM_DEBUG_PARAM);
	drm_debug_restore(a->debug_saved);
	EXPECT_EQ(0u, file_usage(a->fd))
		TH_LOG("%s: the refused request left an allocation behind",
		       variant->what);
}

/*
 * Refusals that need a particular segment kind: AGP segments are never
 * allocatable; HardwareProtected is accepted in a VprSupported segment
 * and refused as soon as the supported set has another one.
 */
TEST_F(alloc, create_refusals_segment_kinds)
{
	unsigned int i, id, agp = 0, vpr = 0;
	uint32_t h;
	int fd, ret;

	if (SETUP_SKIPPED())
		return;
	for (i = 0; i < self->env.nr_devs; i++) {
		const struct gem_dev *d = &self->env.dev[i];
		const struct layout *l = &d->exp.layout;
		uint32_t vpr_id = 0, plain = 0;

		fd = open_extra(_metadata, self, d->render);
		for (id = 1; id <= l->nr_segs; id++) {
			const struct layout_seg *s = &l->seg[id - 1];

			if (s->flags & WDDMSEG_SEGMENT_FLAG_AGP) {
				agp++;
				ret = wddmseg_create_allocation_in(fd, SZ_4K, 0, id, &h);
				EXPECT_EQ(-EINVAL, ret)
					TH_LOG("%s: allocation in AGP segment %u",
					       d->exp.bdf, id);
			} else if (s->flags & WDDMSEG_SEGMENT_FLAG_VPR_SUPPORTED) {
				vpr_id = vpr_id ? vpr_id : id;
			} else if (!plain) {
				plain = id;
			}
		}
		if (!vpr_id)
			continue;
		vpr++;
		ret = wddmseg_create_allocation_in(fd, SZ_64K, WDDMSEG_ALLOC_HARDWARE_PROTECTED,
				    vpr_id, &h);
		EXPECT_EQ(0, ret)
			TH_LOG("%s: HardwareProtected in VprSupported segment %u: %s",
			       d->exp.bdf, vpr_id, strerror(-ret));
		if (!ret) {
			EXPECT_EQ(vpr_id, seg_of(_metadata, fd, h));
			wddmseg_destroy_allocation(fd, h);
		}
		if (plain) {
			struct wddmseg_allocation_desc a = {
				.size = SZ_64K,
				.flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED,
				.supported_segments = BIT(vpr_id) | BIT(plain),
				.preferred = { vpr_id },
			};

			ret = wddmseg_create_allocation(fd, &a, &h);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s: HardwareProtected with non-VPR segment %u in the supported set",
				       d->exp.bdf, plain);
		}
	}
	if (!agp && !vpr)
		WSKIP(return, "no AGP or VprSupported segment in %s",
		     gem_env_source(&self->env));
}

/* Positive controls for flags that are accepted and honoured. */
TEST_F(alloc, accepted_flags)
{
	static const uint32_t ok[] = {
		WDDMSEG_ALLOC_PROTECTED,
		WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CACHED,
		WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CACHED |
		WDDMSEG_ALLOC_HISTORY_BUFFER,
		WDDMSEG_ALLOC_SYNCHRONOUS_PAGING,
		WDDMSEG_ALLOC_ACCESSED_PHYSICALLY,
		WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
		WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_PERMANENT_SYSMEM,
		WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_PERMANENT_SYSMEM |
		WDDMSEG_ALLOC_CACHED,
	};
	struct drm_wddmseg_gem_info info;
	struct wddmseg_allocation_desc a;
	unsigned int i;
	uint32_t h, pad;
	int ret;

	NEED_DEF();
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		memset(&a, 0, sizeof(a));
		a.size = SZ_64K;
		a.flags = ok[i];
		a.supported_segments = BIT(SEG_VIS);
		a.preferred[0] = SEG_VIS;
		ret = wddmseg_create_allocation(self->fd, &a, &h);
		EXPECT_EQ(0, ret) TH_LOG("flags 0x%x refused: %s", ok[i],
					 strerror(-ret));
		if (ret)
			continue;
		info_of(_metadata, self->fd, h, &info);
		EXPECT_EQ(ok[i], info.flags);
		EXPECT_EQ(SEG_VIS, info.segment_id);
		wddmseg_destroy_allocation(self->fd, h);
	}

	/* alignment: a power of two is honoured */
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, 3 * SZ_4K, 0, SEG_INV, &pad));
	memset(&a, 0, sizeof(a));
	a.size = SZ_64K;
	a.supported_segments = BIT(SEG_INV);
	a.preferred[0] = SEG_INV;
	a.alignment = SZ_1M;
	h = create_ok(_metadata, self->fd, &a);
	info_of(_metadata, self->fd, h, &info);
	EXPECT_EQ(0u, info.offset % SZ_1M)
		TH_LOG("alignment 1 MiB: offset 0x%llx",
		       (unsigned long long)info.offset);
	EXPECT_NE(0u, info.offset);
}

/*
 * MAKE_RESIDENT, EVICT, GEM_INFO, MMAP_OFFSET and GEM_WAIT on bad input:
 * unsupported or unknown segments and non-zero reserved fields are
 * -EINVAL, handles that do not exist (or no longer) -ENOENT.
 */
TEST_F(alloc, residency_refusals)
{
	struct drm_wddmseg_gem_residency r;
	struct drm_wddmseg_gem_info info;
	const uint32_t bad_handles[] = { 0, 0x7fffffff, 0xffffffff };
	uint64_t off;
	unsigned int i;
	uint32_t h, gone;
	int fd2;

	NEED_DEF();
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, SZ_64K,
				   WDDMSEG_ALLOC_CPU_VISIBLE, SEG_VIS, &h));
	EXPECT_EQ(-EINVAL, wddmseg_make_resident(self->fd, h, SEG_INV))
		TH_LOG("MAKE_RESIDENT into a segment outside the supported set");
	EXPECT_EQ(-EINVAL, wddmseg_make_resident(self->fd, h, SEG_APT));
	EXPECT_EQ(-EINVAL, wddmseg_make_resident(self->fd, h,
					     self->def->exp.layout.nr_segs + 1));
	EXPECT_EQ(-EINVAL, wddmseg_make_resident(self->fd, h, 32));
	EXPECT_EQ(-EINVAL, wddmseg_make_resident(self->fd, h, 0xffffffff));
	EXPECT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h));
	for (i = 0; i < 2; i++) {
		memset(&r, 0, sizeof(r));
		r.handle = h;
		r.segment_id = SEG_VIS;
		if (i)
			r.reserved = 1;
		else
			r.pad = 1;
		EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_MAKE_RESIDENT, &r))
			TH_LOG("MAKE_RESIDENT with %s", i ? "reserved" : "pad");
		r.segment_id = 0;
		EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_EVICT, &r))
			TH_LOG("EVICT with %s", i ? "reserved" : "pad");
	}
	memset(&r, 0, sizeof(r));
	r.handle = h;
	r.segment_id = SEG_VIS;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_EVICT, &r))
		TH_LOG("EVICT with segment_id 1");
	EXPECT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h));
	for (i = 0; i < ARRAY_SIZE(info.reserved); i++) {
		memset(&info, 0, sizeof(info));
		info.handle = h;
		info.reserved[i] = 1;
		EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_INFO, &info))
			TH_LOG("GEM_INFO with reserved[%u]", i);
	}

	/* a handle that existed */
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, SZ_64K, 0, SEG_VIS, &gone));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, gone));
	for (i = 0; i <= ARRAY_SIZE(bad_handles); i++) {
		uint32_t b = i < ARRAY_SIZE(bad_handles) ? bad_handles[i] : gone;

		EXPECT_EQ(-ENOENT, wddmseg_query_allocation(self->fd, b, &info))
			TH_LOG("GEM_INFO of handle %u", b);
		EXPECT_EQ(-ENOENT, wddmseg_mmap_offset(self->fd, b, &off))
			TH_LOG("MMAP_OFFSET of handle %u", b);
		EXPECT_EQ(-ENOENT, wddmseg_make_resident(self->fd, b, SEG_VIS))
			TH_LOG("MAKE_RESIDENT of handle %u", b);
		EXPECT_EQ(-ENOENT, wddmseg_make_resident(self->fd, b, 0))
			TH_LOG("MAKE_RESIDENT(0) of handle %u", b);
		EXPECT_EQ(-ENOENT, wddmseg_evict(self->fd, b, 0))
			TH_LOG("EVICT of handle %u", b);
		EXPECT_EQ(-ENOENT, wddmseg_wait(self->fd, b, 0))
			TH_LOG("GEM_WAIT of handle %u", b);
	}
	/* handles are per file */
	fd2 = open_extra(_metadata, self, self->def->render);
	EXPECT_EQ(-ENOENT, wddmseg_query_allocation(fd2, h, &info))
		TH_LOG("another file can use this file's handle");
}

TEST_HARNESS_MAIN
