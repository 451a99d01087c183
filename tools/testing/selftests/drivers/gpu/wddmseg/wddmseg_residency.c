// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg kselftests of residency accounting: the aperture's CommitLimit,
 * the usage counters of QUERY_SEGMENT, QUERY_BUDGET per budget group,
 * residency events, and GEM_WAIT.
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

/*
 * An aperture never holds more than its CommitLimit although its address
 * space is larger: allocating 1.5x the commit limit evicts the older
 * allocations to system memory.
 */
TEST_F_TIMEOUT(alloc, aperture_commit_limit, 120)
{
	struct drm_wddmseg_query_budget b;
	struct drm_wddmseg_gem_info info;
	uint64_t chunk, limit, in_apt;
	unsigned int i, j, n = 24, resident = 0, in_sys = 0;
	uint32_t h[24];
	struct wddmseg_allocation_desc a = { .supported_segments = BIT(SEG_APT), .preferred = { SEG_APT } };

	NEED_DEF();
	limit = self->seg[SEG_APT].commit_limit;
	ASSERT_LT(limit, self->seg[SEG_APT].size);
	chunk = limit / 16;
	a.size = chunk;
	for (i = 0; i < n; i++) {
		h[i] = create_ok(_metadata, self->fd, &a);
		in_apt = 0;
		for (j = 0; j <= i; j++) {
			info_of(_metadata, self->fd, h[j], &info);
			if (info.segment_id == SEG_APT)
				in_apt += info.size;
			if (j == i)
				EXPECT_EQ(SEG_APT, info.segment_id)
					TH_LOG("allocation %u not placed in the aperture",
					       i);
		}
		EXPECT_LE(in_apt, limit)
			TH_LOG("after %u allocations of 0x%" PRIx64 ": 0x%" PRIx64 " bytes in the aperture, CommitLimit 0x%" PRIx64,
			       i + 1, chunk, in_apt, limit);
		ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_NON_LOCAL, &b));
		EXPECT_EQ(in_apt, b.current_usage)
			TH_LOG("QUERY_BUDGET(non-local).current_usage %llu, GEM_INFO says 0x%" PRIx64,
			       (unsigned long long)b.current_usage, in_apt);
	}
	for (i = 0; i < n; i++) {
		info_of(_metadata, self->fd, h[i], &info);
		if (info.segment_id == SEG_APT)
			resident++;
		else if (info.segment_id == 0)
			in_sys++;
	}
	EXPECT_EQ(16u, resident);
	EXPECT_EQ(n - 16, in_sys);
	ASSERT_EQ(0, wddmseg_query_budget(self->fd, WDDMSEG_BUDGET_NON_LOCAL, &b));
	EXPECT_EQ(limit, b.current_usage);
	EXPECT_EQ(0u, b.available);
}

#define EXPECT_COUNTERS(q, usage, count, pinned, evictions, what, ...) do { \
	EXPECT_EQ((uint64_t)(usage), (q).usage_bytes)			\
		TH_LOG("usage_bytes " what, ##__VA_ARGS__);		\
	EXPECT_EQ((uint64_t)(count), (q).allocation_count)		\
		TH_LOG("allocation_count " what, ##__VA_ARGS__);	\
	EXPECT_EQ((uint64_t)(pinned), (q).pinned_bytes)			\
		TH_LOG("pinned_bytes " what, ##__VA_ARGS__);		\
	EXPECT_EQ((uint64_t)(evictions), (q).eviction_count)		\
		TH_LOG("eviction_count " what, ##__VA_ARGS__);		\
} while (0)

/*
 * QUERY_SEGMENT's usage counters: usage_bytes and allocation_count follow
 * allocations into and out of each segment, pinned_bytes counts Overlay
 * and Capture allocations, eviction_count counts evictions out of the
 * segment (on request and under pressure), and an aperture's usage_bytes
 * never exceeds its CommitLimit.
 */
TEST_F(alloc, segment_counters)
{
	struct drm_wddmseg_query_segment q0, q;
	uint32_t h1, h2, ho, ha[12];
	uint64_t chunk;
	unsigned int i, id;
	struct wddmseg_allocation_desc a;

	NEED_DEF();
	for (id = 1; id <= 3; id++) {
		qseg(_metadata, self->fd, id, &q0);
		EXPECT_COUNTERS(q0, 0, 0, 0, q0.eviction_count,
				"of idle segment %u", id);
		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, SZ_1M, 0, id, &h1));
		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, SZ_64K, 0, id, &h2));
		qseg(_metadata, self->fd, id, &q);
		EXPECT_COUNTERS(q, SZ_1M + SZ_64K, 2, 0, q0.eviction_count,
				"after two allocations in segment %u", id);
		move_ok(_metadata, self->fd, h1, 0);
		qseg(_metadata, self->fd, id, &q);
		EXPECT_COUNTERS(q, SZ_64K, 1, 0, q0.eviction_count + 1,
				"after evicting one from segment %u", id);
		move_ok(_metadata, self->fd, h1, id);
		qseg(_metadata, self->fd, id, &q);
		EXPECT_COUNTERS(q, SZ_1M + SZ_64K, 2, 0, q0.eviction_count + 1,
				"after making it resident again in segment %u", id);
		if (id != SEG_APT) {
			memset(&a, 0, sizeof(a));
			a.size = SZ_1M;
			a.flags = WDDMSEG_ALLOC_OVERLAY;
			a.supported_segments = BIT(id);
			a.preferred[0] = id;
			ho = create_ok(_metadata, self->fd, &a);
			qseg(_metadata, self->fd, id, &q);
			EXPECT_COUNTERS(q, 2 * SZ_1M + SZ_64K, 3, SZ_1M,
					q0.eviction_count + 1,
					"with an Overlay in segment %u", id);
			wddmseg_destroy_allocation(self->fd, ho);
		}
		wddmseg_destroy_allocation(self->fd, h1);
		wddmseg_destroy_allocation(self->fd, h2);
		qseg(_metadata, self->fd, id, &q);
		EXPECT_COUNTERS(q, 0, 0, 0, q0.eviction_count + 1,
				"after freeing everything in segment %u", id);
	}

	/* 1.5x the aperture's CommitLimit: never more than the limit */
	qseg(_metadata, self->fd, SEG_APT, &q0);
	chunk = self->seg[SEG_APT].commit_limit / 8;
	memset(&a, 0, sizeof(a));
	a.size = chunk;
	a.supported_segments = BIT(SEG_APT);
	a.preferred[0] = SEG_APT;
	for (i = 0; i < 12; i++) {
		ha[i] = create_ok(_metadata, self->fd, &a);
		qseg(_metadata, self->fd, SEG_APT, &q);
		EXPECT_LE(q.usage_bytes, q.commit_limit)
			TH_LOG("aperture usage_bytes 0x%llx above its CommitLimit",
			       (unsigned long long)q.usage_bytes);
	}
	EXPECT_COUNTERS(q, self->seg[SEG_APT].commit_limit, 8, 0, q0.eviction_count + 4,
			"of the aperture after 12 allocations of CommitLimit/8");
	for (i = 0; i < 12; i++)
		wddmseg_destroy_allocation(self->fd, ha[i]);
}

/*
 * Does segment @i make @group's budget: in the group, and ApplicationTarget
 * if any segment of the group is.
 */
static bool budget_target(const struct layout *l, uint32_t group,
			  unsigned int i)
{
	bool targets = false;
	unsigned int j;

	if (wddmseg_segment_budget_group(l->seg[i].flags) != group)
		return false;
	for (j = 0; j < l->nr_segs; j++)
		targets |= wddmseg_segment_budget_group(l->seg[j].flags) == group &&
			   (l->seg[j].flags & WDDMSEG_SEGMENT_FLAG_APPLICATION_TARGET);
	return !targets ||
	       (l->seg[i].flags & WDDMSEG_SEGMENT_FLAG_APPLICATION_TARGET);
}

/* Expected budget of @group: the CommitLimits of its target segments. */
static uint64_t layout_budget(const struct layout *l, uint32_t group)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < l->nr_segs; i++)
		if (budget_target(l, group, i))
			sum += l->seg[i].commit;
	return sum;
}

/*
 * First target segment of @group (not AGP) the tests can allocate in, or
 * 0; @other: the first segment of the group that is not a target, or 0.
 */
static uint32_t group_segment(const struct layout *l, uint32_t group,
			      uint32_t *other)
{
	unsigned int i;
	uint32_t id = 0;

	*other = 0;
	for (i = 0; i < l->nr_segs; i++) {
		if (wddmseg_segment_budget_group(l->seg[i].flags) != group ||
		    (l->seg[i].flags & WDDMSEG_SEGMENT_FLAG_AGP))
			continue;
		if (!budget_target(l, group, i))
			*other = *other ? *other : i + 1;
		else
			id = id ? id : i + 1;
	}
	return id;
}

/*
 * QUERY_BUDGET: the budget of each group is the CommitLimit sum of its
 * segments, of its ApplicationTarget ones if it has any; current_usage
 * counts what this file has resident in the group, in any of its segments
 * (rises by an allocation, drops on EVICT), invisible to another file;
 * available is what the budget's segments still have free. Bad groups and
 * non-zero output/reserved fields are refused.
 */
TEST_F(alloc, budget)
{
	struct drm_wddmseg_query_budget b0, b1, b2, other;
	unsigned int i, g, f;
	uint32_t id, oid, h;
	int fd, fd2, ret;

	if (SETUP_SKIPPED())
		return;
	for (i = 0; i < self->env.nr_devs; i++) {
		const struct gem_dev *d = &self->env.dev[i];
		const struct layout *l = &d->exp.layout;

		fd = open_extra(_metadata, self, d->render);
		fd2 = open_extra(_metadata, self, d->render);
		for (g = 0; g < 2; g++) {
			uint64_t size;

			ASSERT_EQ(0, wddmseg_query_budget(fd, g, &b0));
			EXPECT_EQ(layout_budget(l, g), b0.budget)
				TH_LOG("%s group %u: budget", d->exp.bdf, g);
			EXPECT_EQ(b0.budget, b0.available)
				TH_LOG("%s group %u: available on an idle device",
				       d->exp.bdf, g);
			EXPECT_EQ(0u, b0.current_usage);

			id = group_segment(l, g, &oid);
			if (!id)
				continue;
			size = l->seg[id - 1].commit / 4;
			size = size > SZ_1M ? SZ_1M : size;
			ASSERT_EQ(0, wddmseg_create_allocation_in(fd, size, 0, id, &h));
			ASSERT_EQ(id, seg_of(_metadata, fd, h));
			ASSERT_EQ(0, wddmseg_query_budget(fd, g, &b1));
			EXPECT_EQ(b0.current_usage + size, b1.current_usage)
				TH_LOG("%s group %u: usage after 0x%" PRIx64 " bytes in segment %u",
				       d->exp.bdf, g, size, id);
			EXPECT_EQ(b0.available - size, b1.available);
			EXPECT_EQ(b0.budget, b1.budget);
			ASSERT_EQ(0, wddmseg_query_budget(fd, !g, &other));
			EXPECT_EQ(0u, other.current_usage)
				TH_LOG("%s: usage charged to the other group too",
				       d->exp.bdf);
			ASSERT_EQ(0, wddmseg_query_budget(fd2, g, &other));
			EXPECT_EQ(0u, other.current_usage)
				TH_LOG("%s group %u: another file sees this file's usage",
				       d->exp.bdf, g);
			EXPECT_EQ(b1.available, other.available);

			ASSERT_EQ(0, wddmseg_evict(fd, h, 0));
			ASSERT_EQ(0, wddmseg_query_budget(fd, g, &b2));
			EXPECT_EQ(b0.current_usage, b2.current_usage)
				TH_LOG("%s group %u: usage after EVICT",
				       d->exp.bdf, g);
			EXPECT_EQ(b0.available, b2.available);
			ASSERT_EQ(0, wddmseg_make_resident(fd, h, id));
			ASSERT_EQ(0, wddmseg_query_budget(fd, g, &b2));
			EXPECT_EQ(b1.current_usage, b2.current_usage)
				TH_LOG("%s group %u: usage after MAKE_RESIDENT",
				       d->exp.bdf, g);
			ASSERT_EQ(0, wddmseg_destroy_allocation(fd, h));
			ASSERT_EQ(0, wddmseg_query_budget(fd, g, &b2));
			EXPECT_EQ(b0.current_usage, b2.current_usage)
				TH_LOG("%s group %u: usage after the close",
				       d->exp.bdf, g);

			/*
			 * A segment of the group that is no ApplicationTarget
			 * while another is: the file's usage, not the
			 * budget's memory.
			 */
			if (!oid)
				continue;
			size = l->seg[oid - 1].commit / 4;
			size = size > SZ_1M ? SZ_1M : size;
			ASSERT_EQ(0, wddmseg_create_allocation_in(fd, size, 0, oid, &h));
			ASSERT_EQ(oid, seg_of(_metadata, fd, h));
			ASSERT_EQ(0, wddmseg_query_budget(fd, g, &b1));
			EXPECT_EQ(b0.current_usage + size, b1.current_usage)
				TH_LOG("%s group %u: usage after 0x%" PRIx64 " bytes in segment %u",
				       d->exp.bdf, g, size, oid);
			EXPECT_EQ(b0.available, b1.available)
				TH_LOG("%s group %u: an allocation in segment %u (not an ApplicationTarget) is taken from the budget",
				       d->exp.bdf, g, oid);
			EXPECT_EQ(b0.budget, b1.budget);
			ASSERT_EQ(0, wddmseg_destroy_allocation(fd, h));
		}

		/* refusals */
		for (f = 0; f < 10; f++) {
			memset(&b0, 0, sizeof(b0));
			switch (f) {
			case 0:
				b0.group = 2;
				break;
			case 1:
				b0.group = 0xffffffff;
				break;
			case 2:
				b0.pad = 1;
				break;
			case 3:
				b0.budget = 1;
				break;
			case 4:
				b0.current_usage = 1;
				break;
			case 5:
				b0.available = 1;
				break;
			case 6:
				b0.current_reservation = 1;
				break;
			case 7:
				b0.available_for_reservation = 1;
				break;
			default:
				b0.reserved[f - 8] = 1ULL << 63;
				break;
			}
			ret = wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_QUERY_BUDGET, &b0);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s: QUERY_BUDGET refusal case %u accepted",
				       d->exp.bdf, f);
		}
	}
}

/* The next residency event on @fd within @timeout_ms: 0, -ETIME, -errno. */
static int read_residency_event(int fd, struct drm_wddmseg_event_residency *e,
				int timeout_ms)
{
	int n = wddmseg_read_residency_events(fd, e, 1, timeout_ms);

	return n == 1 ? 0 : n < 0 ? n : -EPROTO;
}

/*
 * ExplicitResidencyNotification (with AccessedPhysically): the first
 * commit and every change of segment queue one event on the creating
 * file, with the handle, the new segment and offset, and a sequence
 * counting from 1; no move, no event.
 */
TEST_F(alloc, residency_notification)
{
	struct wddmseg_allocation_desc a = {
		.size = SZ_64K,
		.flags = WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION |
			 WDDMSEG_ALLOC_ACCESSED_PHYSICALLY,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV),
		.preferred = { SEG_VIS },
	};
	static const uint32_t path[] = { 0, SEG_INV, SEG_VIS, 0 };
	struct drm_wddmseg_event_residency e;
	struct drm_wddmseg_gem_info info;
	unsigned int i;
	uint32_t h;
	int ret;

	NEED_DEF();
	h = create_ok(_metadata, self->fd, &a);
	ASSERT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h));
	/* the first commit */
	info_of(_metadata, self->fd, h, &info);
	ret = read_residency_event(self->fd, &e, 1000);
	ASSERT_EQ(0, ret) TH_LOG("no event for the first commit: %s",
				 strerror(-ret));
	EXPECT_EQ(h, e.handle);
	EXPECT_EQ(SEG_VIS, e.segment_id);
	EXPECT_EQ(info.offset, e.offset);
	EXPECT_EQ(1u, e.sequence);
	EXPECT_EQ(-ETIME, read_residency_event(self->fd, &e, 0))
		TH_LOG("a second event for the creation");
	for (i = 0; i < ARRAY_SIZE(path); i++) {
		move_ok(_metadata, self->fd, h, path[i]);
		info_of(_metadata, self->fd, h, &info);
		ret = read_residency_event(self->fd, &e, 1000);
		ASSERT_EQ(0, ret) TH_LOG("no event after the move to %s: %s",
					 seg_name(path[i]), strerror(-ret));
		EXPECT_EQ(DRM_WDDMSEG_EVENT_RESIDENCY, e.base.type);
		EXPECT_EQ(sizeof(e), e.base.length);
		EXPECT_EQ(h, e.handle);
		EXPECT_EQ(path[i], e.segment_id);
		EXPECT_EQ(info.offset, e.offset);
		EXPECT_EQ(i + 2, e.sequence);
	}
	/* no move, no event */
	move_ok(_metadata, self->fd, h, 0);
	EXPECT_EQ(-ETIME, read_residency_event(self->fd, &e, 100))
		TH_LOG("event without a change of segment (sequence %llu, segment %u)",
		       (unsigned long long)e.sequence, e.segment_id);
	/* another file gets nothing */
	ret = open_extra(_metadata, self, self->def->render);
	move_ok(_metadata, self->fd, h, SEG_INV);
	EXPECT_EQ(-ETIME, read_residency_event(ret, &e, 100));
	EXPECT_EQ(0, read_residency_event(self->fd, &e, 1000));
	EXPECT_EQ(ARRAY_SIZE(path) + 2, e.sequence);
	wddmseg_destroy_allocation(self->fd, h);
}

/*
 * GEM_WAIT: the copy engine clears and moves allocations asynchronously;
 * a wait with a timeout sees that work complete, after which a poll
 * (timeout 0) says idle.
 */
TEST_F(alloc, gem_wait)
{
	struct drm_wddmseg_gem_wait w;
	uint32_t h;
	int r;

	NEED_DEF();
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, SZ_1M, 0, SEG_INV, &h));
	r = wddmseg_wait(self->fd, h, 0);
	EXPECT_TRUE(r == 0 || r == -ETIME) TH_LOG("poll after create: %d", r);
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 5000000000LL));
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 0));
	ASSERT_EQ(0, wddmseg_evict(self->fd, h, 0));
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 5000000000LL));
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 0));
	EXPECT_EQ(-EINVAL, wddmseg_wait(self->fd, h, -1));
	EXPECT_EQ(-EINVAL, wddmseg_wait(self->fd, h, INT64_MIN));
	memset(&w, 0, sizeof(w));
	w.handle = h;
	w.pad = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_WAIT, &w));
	EXPECT_EQ(-ENOENT, wddmseg_wait(self->fd, h + 1000, 0));
	EXPECT_EQ(-ENOENT, wddmseg_wait(self->fd, 0, 0));
}

TEST_HARNESS_MAIN
