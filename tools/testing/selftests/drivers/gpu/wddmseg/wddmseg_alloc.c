// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg memory management: GEM_CREATE and its placement rules,
 * GEM_INFO, GEM_MMAP_OFFSET and CPU mappings, MAKE_RESIDENT, EVICT,
 * GEM_WAIT, QUERY_BUDGET, the usage counters of QUERY_SEGMENT, dumb
 * buffers, ExistingSysMem, residency events, and every refusal of
 * wddmseg_alloc_rules.c with its errno. Content is checked byte by byte through
 * CPU mappings and, where debugfs has the "peek" port, as the GPU sees it.
 *
 * The devices come from the expectation file of the VM harness
 * ($WDDMSEG_EXPECT, see wddmseg_query.c). Most tests run on the device with
 * the default layout (1: CPU-visible VRAM, 2: invisible VRAM, 3: aperture
 * with CommitLimit < Size) and the least VRAM, so that filling segments is
 * quick; others look for the segment kind they need (banks, VPR, AGP,
 * PitchAlignment) in any listed device and skip without one.
 *
 * When /sys/module/drm/parameters/debug is writable, the refusal tests turn
 * on drm.debug=0x2 and check in /dev/kmsg that each refusal names the
 * expected rule of wddmseg_alloc_rules.c.
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

#define MAX_EXTRA_FDS	16

FIXTURE(alloc) {
	struct gem_env env;
	struct gem_dev *def;		/* default layout, least VRAM */
	int fd;				/* render node of def */
	struct drm_wddmseg_query_segment seg[4];	/* of def, by id */
	int extra_fd[MAX_EXTRA_FDS];
	unsigned int nr_extra;
	char debug_saved[32];		/* drm.debug before we changed it */
};

GEM_SKIP_WITHOUT_DEVICE();

/* The setup of every fixture of this program (alloc, create_refusal). */
static void alloc_fixture_setup(struct __test_metadata *_metadata,
			FIXTURE_DATA(alloc) *self)
{
	/* without the default layout, the tests that need it skip */
	self->def = gem_env_open_default(_metadata, &self->env,
					 GEM_PICK_LEAST_VRAM, &self->fd,
					 self->seg);
}

static void alloc_fixture_teardown(FIXTURE_DATA(alloc) *self)
{
	unsigned int i;

	drm_debug_restore(self->debug_saved);
	for (i = 0; i < self->nr_extra; i++)
		close(self->extra_fd[i]);
	if (self->fd >= 0)
		close(self->fd);
}

FIXTURE_SETUP(alloc)
{
	alloc_fixture_setup(_metadata, self);
}

FIXTURE_TEARDOWN(alloc)
{
	alloc_fixture_teardown(self);
}

#define NEED_DEF() do {							\
	if (SETUP_SKIPPED())	/* setup skipped */			\
		return;							\
	if (!self->def)							\
		WSKIP(return, "no device with the default layout in %s",	\
		     gem_env_source(&self->env));				\
} while (0)

/* Another open file on @node, closed by the teardown. */
static int open_extra(struct __test_metadata *_metadata,
		      FIXTURE_DATA(alloc) *self, const char *node)
{
	int fd;

	ASSERT_LT(self->nr_extra, MAX_EXTRA_FDS);
	fd = gem_open(_metadata, node);
	self->extra_fd[self->nr_extra++] = fd;
	return fd;
}

/* GEM_INFO that must work. */
static void info_of(struct __test_metadata *_metadata, int fd, uint32_t h,
		    struct drm_wddmseg_gem_info *info)
{
	int ret = wddmseg_query_allocation(fd, h, info);

	ASSERT_EQ(0, ret) TH_LOG("GEM_INFO %u: %s", h, strerror(-ret));
}

static uint32_t seg_of(struct __test_metadata *_metadata, int fd, uint32_t h)
{
	struct drm_wddmseg_gem_info info;

	info_of(_metadata, fd, h, &info);
	return info.segment_id;
}

static void qseg(struct __test_metadata *_metadata, int fd, uint32_t id,
		 struct drm_wddmseg_query_segment *qs)
{
	int ret = wddmseg_query_segment(fd, id, NULL, 0, qs);

	ASSERT_EQ(0, ret) TH_LOG("QUERY_SEGMENT %u: %s", id, strerror(-ret));
}

static uint32_t create_ok(struct __test_metadata *_metadata, int fd,
			  const struct wddmseg_allocation_desc *a)
{
	uint32_t h;
	int ret = wddmseg_create_allocation(fd, a, &h);

	ASSERT_EQ(0, ret)
		TH_LOG("GEM_CREATE size 0x%" PRIx64 " flags 0x%x supported 0x%x: %s",
		       a->size, a->flags, a->supported_segments, strerror(-ret));
	return h;
}

static void *map_ok(struct __test_metadata *_metadata, int fd, uint32_t h,
		    uint64_t size)
{
	void *p;
	int ret = wddmseg_lock(fd, h, size, &p);

	ASSERT_EQ(0, ret) TH_LOG("mmap of handle %u: %s", h, strerror(-ret));
	return p;
}

static void move_ok(struct __test_metadata *_metadata, int fd, uint32_t h,
		    uint32_t id)
{
	int ret = wddmseg_move(fd, h, id);

	ASSERT_EQ(0, ret) TH_LOG("%s of handle %u into %s: %s",
				 id ? "MAKE_RESIDENT" : "EVICT", h,
				 seg_name(id), strerror(-ret));
	/*
	 * The copy engine moves asynchronously: CPU mappings wait for it on
	 * their own, but the GPU view read through peek does not.
	 */
	ret = wddmseg_wait(fd, h, 10000000000LL);
	ASSERT_EQ(0, ret) TH_LOG("GEM_WAIT after moving handle %u: %s", h,
				 strerror(-ret));
}

/* Bytes of this file resident in any segment (QUERY_BUDGET, both groups). */
static uint64_t file_usage(int fd)
{
	struct drm_wddmseg_query_budget b;
	uint64_t sum = 0;

	if (!wddmseg_query_budget(fd, WDDMSEG_BUDGET_LOCAL, &b))
		sum += b.current_usage;
	if (!wddmseg_query_budget(fd, WDDMSEG_BUDGET_NON_LOCAL, &b))
		sum += b.current_usage;
	return sum;
}

/* ------------------------------------------------------------------ */

/*
 * An allocation in every segment of every device, through preferred[0]
 * and a one-segment supported set: GEM_INFO reports where it is. AGP
 * segments are refused. System-only allocations are not resident.
 */
TEST_F(alloc, create_each_segment)
{
	struct drm_wddmseg_gem_info info;
	unsigned int i, id;
	uint32_t h, h2;
	int fd, ret;

	if (SETUP_SKIPPED())
		return;
	for (i = 0; i < self->env.nr_devs; i++) {
		const struct gem_dev *d = &self->env.dev[i];
		const struct layout *l = &d->exp.layout;

		fd = open_extra(_metadata, self, d->render);
		for (id = 1; id <= l->nr_segs; id++) {
			const struct layout_seg *ls = &l->seg[id - 1];
			uint64_t align = ls->flags & WDDMSEG_SEGMENT_FLAG_USE_64KB_PAGES ?
					 SZ_64K : SZ_4K;
			uint64_t size = ls->commit / 4 < SZ_1M ?
					ls->commit / 4 : SZ_1M;

			size &= ~(SZ_4K - 1);
			if (ls->flags & WDDMSEG_SEGMENT_FLAG_AGP) {
				ret = wddmseg_create_allocation_in(fd, SZ_64K, 0, id, &h);
				EXPECT_EQ(-EINVAL, ret)
					TH_LOG("%s segment %u (AGP): allocation accepted or wrong error",
					       d->exp.bdf, id);
				continue;
			}
			ret = wddmseg_create_allocation_in(fd, size - 100, 0, id, &h);
			EXPECT_EQ(0, ret) TH_LOG("%s segment %u: GEM_CREATE: %s",
						 d->exp.bdf, id, strerror(-ret));
			if (ret)
				continue;
			info_of(_metadata, fd, h, &info);
			EXPECT_EQ(h, info.handle);
			EXPECT_EQ(id, info.segment_id)
				TH_LOG("%s segment %u: allocation placed elsewhere",
				       d->exp.bdf, id);
			EXPECT_EQ(size, info.size)
				TH_LOG("%s segment %u: size 0x%" PRIx64 " not rounded up to the page",
				       d->exp.bdf, id, size - 100);
			EXPECT_EQ(0u, info.flags);
			EXPECT_EQ(WDDMSEG_STATE_RESIDENT, info.state)
				TH_LOG("%s segment %u: state 0x%x", d->exp.bdf,
				       id, info.state);
			EXPECT_EQ(0u, info.offset % align)
				TH_LOG("%s segment %u: offset 0x%llx not aligned to 0x%" PRIx64,
				       d->exp.bdf, id,
				       (unsigned long long)info.offset, align);
			EXPECT_LE(info.offset + info.size, ls->size)
				TH_LOG("%s segment %u: offset 0x%llx beyond the segment",
				       d->exp.bdf, id,
				       (unsigned long long)info.offset);
			EXPECT_EQ(0u, info.eviction_count);
			EXPECT_EQ(0u, info.move_count);

			/* 64 KiB pages: a second small allocation too */
			if (align == SZ_64K) {
				ret = wddmseg_create_allocation_in(fd, SZ_4K, 0, id, &h2);
				EXPECT_EQ(0, ret);
				if (!ret) {
					info_of(_metadata, fd, h2, &info);
					EXPECT_EQ(0u, info.offset % SZ_64K)
						TH_LOG("%s segment %u: 4K allocation at 0x%llx in a 64KB-page segment",
						       d->exp.bdf, id,
						       (unsigned long long)info.offset);
					wddmseg_destroy_allocation(fd, h2);
				}
			}
			EXPECT_EQ(0, wddmseg_destroy_allocation(fd, h));
		}

		/* supported set 0: system memory only */
		ret = wddmseg_create_allocation_in(fd, SZ_64K, 0, 0, &h);
		EXPECT_EQ(0, ret) TH_LOG("%s: system-only GEM_CREATE: %s",
					 d->exp.bdf, strerror(-ret));
		if (ret)
			continue;
		info_of(_metadata, fd, h, &info);
		EXPECT_EQ(0u, info.segment_id);
		EXPECT_EQ(0u, info.state)
			TH_LOG("%s: system-only allocation has state 0x%x",
			       d->exp.bdf, info.state);
		EXPECT_EQ(SZ_64K, info.size);
		EXPECT_EQ(0, wddmseg_destroy_allocation(fd, h));
	}
}

/*
 * Fill preferred[0] (segment 1) exactly: the next allocation goes to
 * preferred[1] without evicting anything. MAKE_RESIDENT into segment 1 then
 * evicts the least recently used allocation there (to system memory: empty
 * eviction set), and so does creating into the full segment.
 */
TEST_F_TIMEOUT(alloc, preferred_order_and_lru_eviction, 120)
{
	struct drm_wddmseg_gem_info info;
	uint32_t h[17];
	uint64_t chunk;
	unsigned int i;
	struct wddmseg_allocation_desc a = {
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV),
		.preferred = { SEG_VIS, SEG_INV },
	};

	NEED_DEF();
	chunk = self->seg[SEG_VIS].size / 16;
	a.size = chunk;
	for (i = 0; i < 16; i++) {
		h[i] = create_ok(_metadata, self->fd, &a);
		info_of(_metadata, self->fd, h[i], &info);
		ASSERT_EQ(SEG_VIS, info.segment_id)
			TH_LOG("allocation %u of 16 (0x%" PRIx64 " bytes each) not in preferred[0]",
			       i, chunk);
	}

	h[16] = create_ok(_metadata, self->fd, &a);
	EXPECT_EQ(SEG_INV, seg_of(_metadata, self->fd, h[16]))
		TH_LOG("segment 1 full: the next allocation must go to preferred[1]");
	for (i = 0; i < 16; i++) {
		info_of(_metadata, self->fd, h[i], &info);
		EXPECT_EQ(SEG_VIS, info.segment_id)
			TH_LOG("allocation %u evicted although preferred[1] had room", i);
		EXPECT_EQ(0u, info.eviction_count);
	}

	/* LRU order is creation order (GEM_INFO calls were in that order) */
	move_ok(_metadata, self->fd, h[16], SEG_VIS);
	info_of(_metadata, self->fd, h[0], &info);
	EXPECT_EQ(0u, info.segment_id)
		TH_LOG("the least recently used allocation was not evicted to system memory");
	EXPECT_EQ(0u, info.state & WDDMSEG_STATE_RESIDENT);
	EXPECT_EQ(1u, info.eviction_count)
		TH_LOG("GEM_INFO.eviction_count of the evicted allocation");
	for (i = 1; i < 16; i++) {
		info_of(_metadata, self->fd, h[i], &info);
		EXPECT_EQ(SEG_VIS, info.segment_id)
			TH_LOG("allocation %u evicted instead of / besides the LRU one", i);
		EXPECT_EQ(0u, info.eviction_count);
	}
	EXPECT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h[16]));

	/* create-time eviction: supported {1} only, segment 1 full */
	a.supported_segments = BIT(SEG_VIS);
	a.preferred[1] = 0;
	h[0] = create_ok(_metadata, self->fd, &a);	/* old h[0] leaks: fine */
	EXPECT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h[0]));
	info_of(_metadata, self->fd, h[1], &info);
	EXPECT_EQ(0u, info.segment_id)
		TH_LOG("creating into a full segment must evict its LRU allocation");
	EXPECT_EQ(1u, info.eviction_count);
}

/*
 * MAKE_RESIDENT with segment 0 puts an evicted allocation back into the
 * first preferred segment that can take it (D3DKMTMakeResident), instead of
 * leaving it in system memory.
 */
TEST_F(alloc, make_resident_any_segment)
{
	struct drm_wddmseg_gem_info info;
	uint32_t h;
	struct wddmseg_allocation_desc a = {
		.size = SZ_1M,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV),
		.preferred = { SEG_INV, SEG_VIS },
	};

	NEED_DEF();
	h = create_ok(_metadata, self->fd, &a);
	ASSERT_EQ(SEG_INV, seg_of(_metadata, self->fd, h));
	move_ok(_metadata, self->fd, h, 0);
	info_of(_metadata, self->fd, h, &info);
	ASSERT_EQ(0u, info.segment_id);
	EXPECT_EQ(1u, info.eviction_count)
		TH_LOG("an EVICT request is an eviction too");
	EXPECT_EQ(1u, info.move_count);
	ASSERT_EQ(0, wddmseg_make_resident(self->fd, h, 0));
	info_of(_metadata, self->fd, h, &info);
	EXPECT_EQ(SEG_INV, info.segment_id)
		TH_LOG("MAKE_RESIDENT(segment 0) left the allocation in %s: it must go to preferred[0]",
		       seg_name(info.segment_id));
	EXPECT_EQ(WDDMSEG_STATE_RESIDENT, info.state);
}

/*
 * The eviction set is where evicted allocations go before system memory:
 * evicting from segment 1 with eviction set {2} lands in segment 2, and the
 * content comes along.
 */
TEST_F_TIMEOUT(alloc, eviction_set, 120)
{
	struct drm_wddmseg_gem_info info;
	uint32_t h[16], extra;
	uint64_t chunk;
	unsigned int i;
	void *p;
	struct wddmseg_allocation_desc a = {
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV),
		.eviction_segments = BIT(SEG_INV),
		.preferred = { SEG_VIS },
	};
	struct wddmseg_allocation_desc b = { .supported_segments = BIT(SEG_VIS), .preferred = { SEG_VIS } };

	NEED_DEF();
	chunk = self->seg[SEG_VIS].size / 16;
	a.size = b.size = chunk;
	for (i = 0; i < 16; i++) {
		h[i] = create_ok(_metadata, self->fd, &a);
		ASSERT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h[i]));
	}
	p = map_ok(_metadata, self->fd, h[0], chunk);
	pattern_fill(p, chunk, 0xe51);
	ASSERT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h[0]));
	/* h[0] is the LRU again: touch the others in order */
	for (i = 1; i < 16; i++)
		ASSERT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h[i]));

	extra = create_ok(_metadata, self->fd, &b);
	EXPECT_EQ(SEG_VIS, seg_of(_metadata, self->fd, extra));
	info_of(_metadata, self->fd, h[0], &info);
	EXPECT_EQ(SEG_INV, info.segment_id)
		TH_LOG("evicted allocation went to %s, not to its eviction set {2}",
		       seg_name(info.segment_id));
	EXPECT_EQ(1u, info.eviction_count);
	EXPECT_EQ(0u, pattern_check(p, chunk, 0xe51, NULL))
		TH_LOG("content lost in the eviction to segment 2");
	munmap(p, chunk);
}

/*
 * Segments with PitchAlignment are never eviction targets, even when the
 * eviction set names them: the evicted allocation goes to system memory.
 */
TEST_F_TIMEOUT(alloc, eviction_skips_pitch_aligned, 60)
{
	const struct gem_dev *d = NULL;
	uint32_t pitch = 0, target = 0, id, h[8], extra;
	struct drm_wddmseg_gem_info info;
	struct wddmseg_allocation_desc a = { 0 };
	unsigned int i, n;
	uint64_t chunk;
	int fd;

	if (SETUP_SKIPPED())
		return;
	for (i = 0; i < self->env.nr_devs && !d; i++) {
		const struct layout *l = &self->env.dev[i].exp.layout;

		pitch = target = 0;
		for (id = 1; id <= l->nr_segs; id++) {
			const struct layout_seg *s = &l->seg[id - 1];

			if (wddmseg_segment_is_aperture(s->flags) ||
			    (s->flags & WDDMSEG_SEGMENT_FLAG_USE_BANKING))
				continue;
			if ((s->flags & WDDMSEG_SEGMENT_FLAG_PITCH_ALIGNMENT) && !pitch)
				pitch = id;
			else if (!(s->flags & WDDMSEG_SEGMENT_FLAG_PITCH_ALIGNMENT) && !target &&
				 s->size <= 16 * SZ_1M)
				target = id;
		}
		if (pitch && target)
			d = &self->env.dev[i];
	}
	if (!d)
		WSKIP(return, "no device with a PitchAlignment memory segment");

	fd = open_extra(_metadata, self, d->render);
	n = 4;
	chunk = d->exp.layout.seg[target - 1].size / n;
	a.size = chunk;
	a.supported_segments = BIT(target) | BIT(pitch);
	a.eviction_segments = BIT(pitch);
	a.preferred[0] = target;
	for (i = 0; i < n; i++) {
		h[i] = create_ok(_metadata, fd, &a);
		ASSERT_EQ(target, seg_of(_metadata, fd, h[i]));
	}
	a.supported_segments = BIT(target);
	a.eviction_segments = 0;
	extra = create_ok(_metadata, fd, &a);
	EXPECT_EQ(target, seg_of(_metadata, fd, extra));
	info_of(_metadata, fd, h[0], &info);
	EXPECT_EQ(0u, info.segment_id)
		TH_LOG("%s: allocation evicted from segment %u into %u (PitchAlignment segment %u is no eviction target)",
		       d->exp.bdf, target, info.segment_id, pitch);
	EXPECT_EQ(1u, info.eviction_count);
}

/*
 * FromEndOfSegment allocates top-down: in an empty segment it ends at the
 * segment end, while a normal allocation starts at offset 0.
 */
TEST_F(alloc, from_end_of_segment)
{
	struct drm_wddmseg_gem_info top, low;
	uint32_t ht, hl, id;

	NEED_DEF();
	for (id = 1; id <= 3; id++) {
		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, SZ_1M,
					   WDDMSEG_ALLOC_FROM_END_OF_SEGMENT,
					   id, &ht));
		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, SZ_1M, 0, id, &hl));
		info_of(_metadata, self->fd, ht, &top);
		info_of(_metadata, self->fd, hl, &low);
		EXPECT_EQ(id, top.segment_id);
		EXPECT_EQ(id, low.segment_id);
		EXPECT_EQ(self->seg[id].size, top.offset + top.size)
			TH_LOG("segment %u: FromEndOfSegment allocation at 0x%llx, segment size 0x%" PRIx64,
			       id, (unsigned long long)top.offset,
			       (uint64_t)self->seg[id].size);
		EXPECT_EQ(0u, low.offset)
			TH_LOG("segment %u: normal allocation at 0x%llx in an empty segment",
			       id, (unsigned long long)low.offset);
		EXPECT_EQ(WDDMSEG_ALLOC_FROM_END_OF_SEGMENT, top.flags);
		wddmseg_destroy_allocation(self->fd, ht);
		wddmseg_destroy_allocation(self->fd, hl);
	}
}

/*
 * HintedBank: bank_hint n places the allocation inside bank n - 1 of
 * preferred[0]; a full bank falls back to the rest of the segment without
 * evicting; hints beyond NbOfBanks, without a preferred segment or on a
 * segment without banks are refused.
 */
TEST_F_TIMEOUT(alloc, banks, 60)
{
	struct drm_wddmseg_gem_info info;
	struct wddmseg_allocation_desc a;
	unsigned int i, id, j, checked = 0;
	uint32_t h[3], other;
	uint64_t start, end, size;
	int fd, ret;

	if (SETUP_SKIPPED())
		return;
	for (i = 0; i < self->env.nr_devs; i++) {
		const struct gem_dev *d = &self->env.dev[i];
		const struct layout *l = &d->exp.layout;

		for (id = 1; id <= l->nr_segs; id++) {
			const struct layout_seg *s = &l->seg[id - 1];

			if (!(s->flags & WDDMSEG_SEGMENT_FLAG_USE_BANKING) || s->nb_banks < 2 ||
			    s->nr_bank_ends != s->nb_banks)
				continue;
			checked++;
			fd = open_extra(_metadata, self, d->render);

			for (j = 1; j <= s->nb_banks; j++) {
				start = j > 1 ? s->bank_end[j - 2] : 0;
				end = s->bank_end[j - 1];
				size = (end - start) / 2 > 512 * 1024 ?
				       512 * 1024 : (end - start) / 2;
				memset(&a, 0, sizeof(a));
				a.size = size;
				a.supported_segments = BIT(id);
				a.preferred[0] = id;
				a.bank_hint = j;
				h[0] = create_ok(_metadata, fd, &a);
				info_of(_metadata, fd, h[0], &info);
				EXPECT_EQ(id, info.segment_id);
				EXPECT_EQ(start, info.offset)
					TH_LOG("%s segment %u bank_hint %u: empty bank starts at 0x%" PRIx64 ", allocation at 0x%llx",
					       d->exp.bdf, id, j, start,
					       (unsigned long long)info.offset);
				EXPECT_TRUE(info.offset >= start &&
					    info.offset + info.size <= end)
					TH_LOG("%s segment %u bank_hint %u: offset 0x%llx outside bank [0x%" PRIx64 ", 0x%" PRIx64 ")",
					       d->exp.bdf, id, j,
					       (unsigned long long)info.offset,
					       start, end);
				wddmseg_destroy_allocation(fd, h[0]);

				/* top-down inside the bank: ends at its end */
				a.flags = WDDMSEG_ALLOC_FROM_END_OF_SEGMENT;
				h[0] = create_ok(_metadata, fd, &a);
				info_of(_metadata, fd, h[0], &info);
				EXPECT_EQ(id, info.segment_id);
				EXPECT_EQ(end, info.offset + info.size)
					TH_LOG("%s segment %u bank_hint %u with FromEndOfSegment: offset 0x%llx, bank ends at 0x%" PRIx64,
					       d->exp.bdf, id, j,
					       (unsigned long long)info.offset, end);
				wddmseg_destroy_allocation(fd, h[0]);
			}

			/* refusals */
			memset(&a, 0, sizeof(a));
			a.size = SZ_64K;
			a.supported_segments = BIT(id);
			a.preferred[0] = id;
			a.bank_hint = s->nb_banks + 1;
			ret = wddmseg_create_allocation(fd, &a, &other);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s segment %u: bank_hint %u of %u banks",
				       d->exp.bdf, id, a.bank_hint, s->nb_banks);
			a.preferred[0] = 0;
			a.bank_hint = 1;
			ret = wddmseg_create_allocation(fd, &a, &other);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s segment %u: bank_hint without a preferred segment",
				       d->exp.bdf, id);
			for (j = 1; j <= l->nr_segs; j++) {
				if ((l->seg[j - 1].flags &
				     (WDDMSEG_SEGMENT_FLAG_USE_BANKING | WDDMSEG_SEGMENT_FLAG_AGP)))
					continue;
				memset(&a, 0, sizeof(a));
				a.size = SZ_64K;
				a.supported_segments = BIT(j);
				a.preferred[0] = j;
				a.bank_hint = 1;
				ret = wddmseg_create_allocation(fd, &a, &other);
				EXPECT_EQ(-EINVAL, ret)
					TH_LOG("%s segment %u has no banks: bank_hint 1 accepted or wrong error",
					       d->exp.bdf, j);
				break;
			}

			/* a full bank 1: the third allocation goes elsewhere */
			end = s->bank_end[0];
			memset(&a, 0, sizeof(a));
			a.size = end / 2;
			a.supported_segments = BIT(id);
			a.preferred[0] = id;
			a.bank_hint = 1;
			for (j = 0; j < 3; j++)
				h[j] = create_ok(_metadata, fd, &a);
			for (j = 0; j < 2; j++) {
				info_of(_metadata, fd, h[j], &info);
				EXPECT_EQ(id, info.segment_id);
				EXPECT_LE(info.offset + info.size, end)
					TH_LOG("%s segment %u: allocation %u not in bank 0",
					       d->exp.bdf, id, j);
				EXPECT_EQ(0u, info.eviction_count)
					TH_LOG("%s segment %u: a full bank evicted instead of using the rest of the segment",
					       d->exp.bdf, id);
			}
			info_of(_metadata, fd, h[2], &info);
			EXPECT_EQ(id, info.segment_id);
			EXPECT_LE(end, info.offset)
				TH_LOG("%s segment %u: third allocation at 0x%llx inside the full bank",
				       d->exp.bdf, id,
				       (unsigned long long)info.offset);
			for (j = 0; j < 3; j++)
				wddmseg_destroy_allocation(fd, h[j]);
		}
	}
	if (!checked)
		WSKIP(return, "no segment with banks in %s", gem_env_source(&self->env));
}

/*
 * Overlay and Capture allocations are pinned in the last 20% of their
 * segment: neither EVICT nor MAKE_RESIDENT moves them (EBUSY). One larger
 * than that 20% does not fit (ENOSPC).
 */
TEST_F(alloc, overlay_capture_pinned)
{
	static const uint32_t kinds[] = {
		WDDMSEG_ALLOC_OVERLAY, WDDMSEG_ALLOC_CAPTURE,
	};
	struct drm_wddmseg_gem_info info, again;
	unsigned int k, id;
	uint64_t pages, low;
	struct wddmseg_allocation_desc a;
	uint32_t h;
	int ret;

	NEED_DEF();
	for (k = 0; k < 2; k++) {
		for (id = SEG_VIS; id <= SEG_INV; id++) {
			uint32_t other = id == SEG_VIS ? SEG_INV : SEG_VIS;
			const char *kind = k ? "Capture" : "Overlay";

			pages = self->seg[id].size / SZ_4K;
			low = (pages - pages / 5) * SZ_4K;
			memset(&a, 0, sizeof(a));
			a.size = SZ_1M;
			a.flags = kinds[k];
			a.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV);
			a.preferred[0] = id;
			h = create_ok(_metadata, self->fd, &a);
			info_of(_metadata, self->fd, h, &info);
			EXPECT_EQ(id, info.segment_id);
			EXPECT_EQ(WDDMSEG_STATE_PINNED | WDDMSEG_STATE_RESIDENT,
				  info.state)
				TH_LOG("%s in segment %u: state 0x%x", kind, id,
				       info.state);
			EXPECT_LE(low, info.offset)
				TH_LOG("%s in segment %u at 0x%llx, below the last 20%% (0x%" PRIx64 ")",
				       kind, id, (unsigned long long)info.offset,
				       low);
			EXPECT_LE(info.offset + info.size, self->seg[id].size);

			ret = wddmseg_evict(self->fd, h, 0);
			EXPECT_EQ(-EBUSY, ret) TH_LOG("EVICT of a pinned %s", kind);
			ret = wddmseg_make_resident(self->fd, h, other);
			EXPECT_EQ(-EBUSY, ret)
				TH_LOG("MAKE_RESIDENT of a pinned %s into segment %u",
				       kind, other);
			info_of(_metadata, self->fd, h, &again);
			EXPECT_EQ(info.segment_id, again.segment_id);
			EXPECT_EQ(info.offset, again.offset)
				TH_LOG("pinned %s moved", kind);
			EXPECT_EQ(0u, again.eviction_count);
			EXPECT_EQ(0u, again.move_count);

			EXPECT_EQ(0, wddmseg_destroy_allocation(self->fd, h));

			/* larger than the last 20% */
			a.size = (pages / 5 + 256) * SZ_4K;
			a.supported_segments = BIT(id);
			ret = wddmseg_create_allocation(self->fd, &a, &h);
			EXPECT_EQ(-ENOSPC, ret)
				TH_LOG("%s of 0x%" PRIx64 " bytes in segment %u, whose last 20%% is 0x%" PRIx64 ": %s",
				       kind, (uint64_t)a.size, id,
				       (uint64_t)(self->seg[id].size - low),
				       strerror(-ret));
			if (!ret)
				wddmseg_destroy_allocation(self->fd, h);
		}
	}
}

/*
 * A pinned Overlay evicts the unpinned allocations that occupy the last
 * 20% (and only those), and later pressure never evicts it.
 */
TEST_F_TIMEOUT(alloc, overlay_evicts_unpinned, 120)
{
	struct drm_wddmseg_gem_info info, ov;
	uint64_t chunk, low, pages;
	uint32_t h[16], ho, extra;
	unsigned int i, evicted = 0;
	struct wddmseg_allocation_desc a = { .supported_segments = BIT(SEG_VIS), .preferred = { SEG_VIS } };

	NEED_DEF();
	chunk = self->seg[SEG_VIS].size / 16;
	pages = self->seg[SEG_VIS].size / SZ_4K;
	low = (pages - pages / 5) * SZ_4K;
	a.size = chunk;
	for (i = 0; i < 16; i++) {
		h[i] = create_ok(_metadata, self->fd, &a);
		ASSERT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h[i]));
	}
	a.flags = WDDMSEG_ALLOC_OVERLAY;
	a.size = SZ_1M;
	ho = create_ok(_metadata, self->fd, &a);
	info_of(_metadata, self->fd, ho, &ov);
	EXPECT_EQ(SEG_VIS, ov.segment_id);
	EXPECT_LE(low, ov.offset);
	for (i = 0; i < 16; i++) {
		info_of(_metadata, self->fd, h[i], &info);
		if (info.segment_id == SEG_VIS)
			continue;
		evicted++;
		EXPECT_LT(low, (i + 1) * chunk)
			TH_LOG("allocation %u at [0x%" PRIx64 ", 0x%" PRIx64 ") was evicted although it was outside the last 20%%",
			       i, i * chunk, (i + 1) * chunk);
	}
	EXPECT_LE(1u, evicted);

	/* pressure: an unpinned one comes back, another unpinned one goes */
	a.flags = 0;
	a.size = chunk;
	extra = create_ok(_metadata, self->fd, &a);
	EXPECT_EQ(SEG_VIS, seg_of(_metadata, self->fd, extra));
	info_of(_metadata, self->fd, ho, &info);
	EXPECT_EQ(SEG_VIS, info.segment_id);
	EXPECT_EQ(ov.offset, info.offset) TH_LOG("pinned overlay moved");
	EXPECT_EQ(WDDMSEG_STATE_PINNED | WDDMSEG_STATE_RESIDENT, info.state);
	EXPECT_EQ(0u, info.eviction_count);
}

/*
 * A pinned CpuVisibleOnDemand allocation in invisible VRAM cannot migrate
 * on a CPU fault: the access gets SIGBUS instead of garbage.
 */
TEST_F(alloc, pinned_invisible_fault_sigbus)
{
	struct wddmseg_allocation_desc a = {
		.size = SZ_64K,
		.flags = WDDMSEG_ALLOC_OVERLAY | WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
		.supported_segments = BIT(SEG_INV),
		.preferred = { SEG_INV },
	};
	volatile uint32_t *p;
	int status;
	uint32_t h;
	pid_t pid;

	NEED_DEF();
	h = create_ok(_metadata, self->fd, &a);
	ASSERT_EQ(SEG_INV, seg_of(_metadata, self->fd, h));
	p = map_ok(_metadata, self->fd, h, SZ_64K);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		(void)p[0];
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS)
		TH_LOG("touching a pinned allocation in invisible VRAM: %s %d",
		       WIFSIGNALED(status) ? "signal" : "exit",
		       WIFSIGNALED(status) ? WTERMSIG(status) :
					     WEXITSTATUS(status));
	EXPECT_EQ(SEG_INV, seg_of(_metadata, self->fd, h));
	munmap((void *)p, SZ_64K);
}

/*
 * CpuVisible: mappable wherever it lives (visible VRAM, aperture, system
 * memory), and the mapping follows every move. CpuVisible with an
 * invisible segment in the supported set is refused; an allocation with
 * neither CPU flag has no mmap offset.
 */
TEST_F(alloc, cpu_visible)
{
	const uint64_t size = SZ_1M + SZ_4K;
	static const uint32_t path[] = { 0, SEG_APT, SEG_VIS, 0, SEG_VIS };
	struct wddmseg_allocation_desc a = {
		.size = size,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_APT),
		.preferred = { SEG_VIS },
	};
	struct drm_wddmseg_gem_mmap_offset mo;
	uint64_t first = 0, bad, off;
	unsigned int i;
	uint32_t h, h2;
	void *p, *q;
	int ret;

	NEED_DEF();
	h = create_ok(_metadata, self->fd, &a);
	ASSERT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h));
	p = map_ok(_metadata, self->fd, h, size);
	EXPECT_EQ(0u, bytes_check(p, size, 0, NULL)) TH_LOG("not zero-filled");
	pattern_fill(p, size, 0xc0ffee);
	bad = pattern_check(p, size, 0xc0ffee, &first);
	EXPECT_EQ(0u, bad) TH_LOG("read back %" PRIu64 " bad bytes, first at 0x%" PRIx64,
				  bad, first);
	EXPECT_EQ(SEG_VIS, seg_of(_metadata, self->fd, h))
		TH_LOG("a CpuVisible allocation moved on a CPU access");
	for (i = 0; i < ARRAY_SIZE(path); i++) {
		move_ok(_metadata, self->fd, h, path[i]);
		ASSERT_EQ(path[i], seg_of(_metadata, self->fd, h));
		bad = pattern_check(p, size, 0xc0ffee, &first);
		EXPECT_EQ(0u, bad)
			TH_LOG("after the move to %s: %" PRIu64 " bad bytes, first at 0x%" PRIx64,
			       seg_name(path[i]), bad, first);
		EXPECT_EQ(path[i], seg_of(_metadata, self->fd, h))
			TH_LOG("reading through the mapping moved it out of %s",
			       seg_name(path[i]));
	}
	/* a second mapping of the same allocation sees the same bytes */
	q = map_ok(_metadata, self->fd, h, size);
	EXPECT_EQ(0, memcmp(p, q, size));
	munmap(q, size);
	munmap(p, size);

	/* a mapping larger than the allocation is refused */
	ASSERT_EQ(0, wddmseg_mmap_offset(self->fd, h, &off));
	q = mmap(NULL, size + SZ_1M, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, off);
	EXPECT_EQ(MAP_FAILED, q) TH_LOG("mmap beyond the allocation accepted");
	if (q != MAP_FAILED)
		munmap(q, size + SZ_1M);

	a.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV);
	ret = wddmseg_create_allocation(self->fd, &a, &h2);
	EXPECT_EQ(-EINVAL, ret)
		TH_LOG("CpuVisible with invisible segment 2 in the supported set");
	a.supported_segments = BIT(SEG_INV);
	a.preferred[0] = SEG_INV;
	ret = wddmseg_create_allocation(self->fd, &a, &h2);
	EXPECT_EQ(-EINVAL, ret) TH_LOG("CpuVisible in invisible segment 2 only");

	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, SZ_64K, 0, SEG_VIS, &h2));
	ret = wddmseg_mmap_offset(self->fd, h2, &off);
	EXPECT_EQ(-EINVAL, ret)
		TH_LOG("MMAP_OFFSET of an allocation without CpuVisible/OnDemand: %s",
		       strerror(-ret));
	memset(&mo, 0, sizeof(mo));
	mo.handle = h;
	mo.pad = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_MMAP_OFFSET, &mo))
		TH_LOG("MMAP_OFFSET with pad != 0");
}

/*
 * CpuVisibleOnDemand in invisible VRAM: the first CPU access migrates the
 * allocation to a place the CPU can reach (the first CPU-visible segment
 * of its supported set, else system memory), content zero; a pattern
 * written there survives MAKE_RESIDENT back into invisible VRAM (a copy
 * through the BAR4 window) and the next migration out of it.
 */
TEST_F(alloc, cpu_visible_on_demand)
{
	static const struct {
		uint32_t supported, visible;
	} cases[] = {
		{ BIT(SEG_VIS) | BIT(SEG_INV), SEG_VIS },
		{ BIT(SEG_INV) | BIT(SEG_APT), SEG_APT },
		{ BIT(SEG_INV), 0 },
	};
	const uint64_t size = 3 * SZ_1M + 3 * SZ_4K;	/* crosses windows */
	struct drm_wddmseg_gem_info info;
	uint64_t bad, first = 0;
	unsigned int c;
	uint32_t h, pad;
	void *p;

	NEED_DEF();
	/* keep the allocation off window (1 MiB) boundaries */
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, 3 * SZ_4K, 0, SEG_INV, &pad));
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct wddmseg_allocation_desc a = {
			.size = size,
			.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
			.supported_segments = cases[c].supported,
			.preferred = { SEG_INV },
		};
		uint32_t seed = 0x5eed0 + c;

		h = create_ok(_metadata, self->fd, &a);
		info_of(_metadata, self->fd, h, &info);
		ASSERT_EQ(SEG_INV, info.segment_id);
		EXPECT_NE(0u, info.offset % SZ_1M);
		p = map_ok(_metadata, self->fd, h, size);
		EXPECT_EQ(SEG_INV, seg_of(_metadata, self->fd, h))
			TH_LOG("mmap alone must not migrate");

		bad = bytes_check(p, size, 0, &first);
		EXPECT_EQ(0u, bad)
			TH_LOG("supported 0x%x: new allocation has %" PRIu64 " non-zero bytes, first at 0x%" PRIx64,
			       cases[c].supported, bad, first);
		EXPECT_EQ(cases[c].visible, seg_of(_metadata, self->fd, h))
			TH_LOG("supported 0x%x: the CPU access did not migrate to %s",
			       cases[c].supported, seg_name(cases[c].visible));

		pattern_fill(p, size, seed);
		move_ok(_metadata, self->fd, h, SEG_INV);
		EXPECT_EQ(SEG_INV, seg_of(_metadata, self->fd, h));
		munmap(p, size);

		p = map_ok(_metadata, self->fd, h, size);
		bad = pattern_check(p, size, seed, &first);
		EXPECT_EQ(0u, bad)
			TH_LOG("supported 0x%x: after a round trip through invisible VRAM %" PRIu64 " bad bytes, first at 0x%" PRIx64,
			       cases[c].supported, bad, first);
		EXPECT_EQ(cases[c].visible, seg_of(_metadata, self->fd, h));
		munmap(p, size);
		wddmseg_destroy_allocation(self->fd, h);
	}
	wddmseg_destroy_allocation(self->fd, pad);
}

/*
 * Content survives every move between every ordered pair of places:
 * system memory (EVICT), visible VRAM, invisible VRAM (written and read
 * through a visible place) and the aperture. Byte-exact, through one
 * mapping kept across all moves.
 */
TEST_F_TIMEOUT(alloc, content_survives_moves, 180)
{
	static const uint32_t places[] = { 0, SEG_VIS, SEG_INV, SEG_APT };
	const uint64_t size = 2 * SZ_1M + 5 * SZ_4K;
	struct wddmseg_allocation_desc a = {
		.size = size,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV) | BIT(SEG_APT),
		.preferred = { SEG_VIS, SEG_INV, SEG_APT },
	};
	struct drm_wddmseg_gem_info info;
	unsigned int i, j, failures = 0;
	uint64_t bad, first, moves;
	uint32_t h, pad[2], seed;
	void *p;

	NEED_DEF();
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, 3 * SZ_4K, 0, SEG_VIS, &pad[0]));
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, 7 * SZ_4K, 0, SEG_INV, &pad[1]));
	h = create_ok(_metadata, self->fd, &a);
	p = map_ok(_metadata, self->fd, h, size);

	for (i = 0; i < ARRAY_SIZE(places); i++) {
		for (j = 0; j < ARRAY_SIZE(places); j++) {
			uint32_t from = places[i], to = places[j];

			if (i == j)
				continue;
			seed = 0x1000 + i * 16 + j;
			if (from == SEG_INV) {
				/* write where the CPU can, then move in */
				pattern_fill(p, size, seed);
				move_ok(_metadata, self->fd, h, from);
			} else {
				move_ok(_metadata, self->fd, h, from);
				pattern_fill(p, size, seed);
			}
			info_of(_metadata, self->fd, h, &info);
			ASSERT_EQ(from, info.segment_id)
				TH_LOG("%s -> %s: not in %s before the move",
				       seg_name(from), seg_name(to),
				       seg_name(from));
			moves = info.move_count;

			move_ok(_metadata, self->fd, h, to);
			info_of(_metadata, self->fd, h, &info);
			ASSERT_EQ(to, info.segment_id);
			EXPECT_EQ(moves + 1, info.move_count)
				TH_LOG("%s -> %s: move_count %llu -> %llu",
				       seg_name(from), seg_name(to),
				       (unsigned long long)moves,
				       (unsigned long long)info.move_count);

			first = 0;
			bad = pattern_check(p, size, seed, &first);
			if (bad)
				failures++;
			EXPECT_EQ(0u, bad)
				TH_LOG("%s -> %s: %" PRIu64 " bad bytes of 0x%" PRIx64 ", first at 0x%" PRIx64 " (got 0x%08x, want 0x%08x)",
				       seg_name(from), seg_name(to), bad, size,
				       first,
				       ((uint32_t *)p)[first / 4],
				       pattern_word(seed, first / 4));
		}
	}
	munmap(p, size);
	TH_LOG("12 moves checked, %u corrupted", failures);
}

/*
 * An allocation of @size in VRAM segment @id written with 0xff, then
 * evicted (an eviction copies the content out and does not wipe), then a
 * new allocation of the same size and @flags in @id: it must read zero,
 * and the evicted one must still read 0xff. With @same_offset the new
 * allocation must land exactly where the evicted one was (the check means
 * nothing elsewhere); otherwise a different offset is only logged.
 */
static void evict_then_reuse(struct __test_metadata *_metadata, int fd,
			     uint32_t id, uint64_t size, uint32_t flags,
			     bool same_offset)
{
	struct drm_wddmseg_gem_info info;
	uint64_t off_a, bad, first = 0;
	uint32_t h, h2;
	void *p;

	ASSERT_EQ(0, wddmseg_create_allocation_in(fd, size, flags, id, &h));
	p = map_ok(_metadata, fd, h, size);
	bytes_fill(p, size, 0xff);
	munmap(p, size);
	move_ok(_metadata, fd, h, id);
	info_of(_metadata, fd, h, &info);
	ASSERT_EQ(id, info.segment_id);
	off_a = info.offset;
	move_ok(_metadata, fd, h, 0);
	ASSERT_EQ(0, wddmseg_wait(fd, h, 5000000000LL));

	ASSERT_EQ(0, wddmseg_create_allocation_in(fd, size, flags, id, &h2));
	info_of(_metadata, fd, h2, &info);
	ASSERT_EQ(id, info.segment_id);
	if (same_offset) {
		ASSERT_EQ(off_a, info.offset)
			TH_LOG("%s: new allocation at 0x%llx, the evicted one was at 0x%" PRIx64,
			       seg_name(id), (unsigned long long)info.offset,
			       off_a);
	} else if (info.offset != off_a) {
		TH_LOG("%s: new allocation at 0x%llx, the evicted one was at 0x%" PRIx64,
		       seg_name(id), (unsigned long long)info.offset, off_a);
	}
	p = map_ok(_metadata, fd, h2, size);
	bad = bytes_check(p, size, 0, &first);
	EXPECT_EQ(0u, bad)
		TH_LOG("%s, %" PRIu64 " KiB: %" PRIu64 " bytes of what an evicted allocation left show in a new one, first at 0x%" PRIx64,
		       seg_name(id), size >> 10, bad, first);
	munmap(p, size);
	p = map_ok(_metadata, fd, h, size);
	EXPECT_EQ(0u, bytes_check(p, size, 0xff, &first));
	munmap(p, size);
	ASSERT_EQ(0, wddmseg_destroy_allocation(fd, h2));
	ASSERT_EQ(0, wddmseg_destroy_allocation(fd, h));
}

/*
 * New allocations are zero-filled: an allocation written with 0xff and
 * freed leaves nothing behind for the next one at the same place. The
 * release wipes VRAM; an eviction does not (the content is copied out),
 * so the second half evicts instead of closing: only the Fill a new
 * allocation gets when it is created keeps the old bytes out then.
 */
TEST_F_TIMEOUT(alloc, zero_filled, 60)
{
	static const uint32_t places[] = { SEG_VIS, SEG_INV, SEG_APT, 0 };
	const uint64_t size = SZ_1M;
	struct drm_wddmseg_gem_info info;
	uint64_t off_a, bad, first = 0;
	unsigned int i;
	uint32_t h;
	void *p;

	NEED_DEF();
	for (i = 0; i < ARRAY_SIZE(places); i++) {
		uint32_t id = places[i];

		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, size,
					   WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
					   id, &h));
		info_of(_metadata, self->fd, h, &info);
		ASSERT_EQ(id, info.segment_id);
		off_a = info.offset;
		p = map_ok(_metadata, self->fd, h, size);
		bytes_fill(p, size, 0xff);
		if (id == SEG_INV)	/* the write migrated it: back in */
			move_ok(_metadata, self->fd, h, SEG_INV);
		info_of(_metadata, self->fd, h, &info);
		ASSERT_EQ(id, info.segment_id);
		munmap(p, size);
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));

		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, size,
					   WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
					   id, &h));
		info_of(_metadata, self->fd, h, &info);
		ASSERT_EQ(id, info.segment_id);
		if (id && info.offset != off_a)
			TH_LOG("%s: new allocation at 0x%llx, the freed one was at 0x%" PRIx64,
			       seg_name(id), (unsigned long long)info.offset,
			       off_a);
		p = map_ok(_metadata, self->fd, h, size);
		bad = bytes_check(p, size, 0, &first);
		EXPECT_EQ(0u, bad)
			TH_LOG("%s: %" PRIu64 " non-zero bytes in a new allocation, first at 0x%" PRIx64 " (0x%02x)",
			       seg_name(id), bad, first,
			       ((uint8_t *)p)[first]);
		munmap(p, size);
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	}

	for (i = 0; i < 2; i++)
		evict_then_reuse(_metadata, self->fd, places[i], size,
				 WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND, false);
}

/*
 * The same as zero_filled's second half, but certain to reuse the range:
 * FromEndOfSegment places both allocations at the top of the segment, so
 * the new one lands exactly where the evicted one left its 0xff bytes
 * (an eviction copies the content out and does not wipe). Nothing but
 * the Fill at creation (or knowing that the range is zero, which it is
 * not here) keeps those bytes out of the new allocation: without the
 * Fill, or with clear tracking that counts evicted ranges as zero, this
 * reads 0xff. In both VRAM segments, and with a small and a 1 MiB size.
 */
TEST_F_TIMEOUT(alloc, zero_filled_after_evict_same_range, 60)
{
	static const uint32_t places[] = { SEG_VIS, SEG_INV };
	static const uint64_t sizes[] = { SZ_4K, SZ_1M };
	unsigned int i, k;

	NEED_DEF();
	for (k = 0; k < ARRAY_SIZE(sizes); k++)
		for (i = 0; i < ARRAY_SIZE(places); i++)
			evict_then_reuse(_metadata, self->fd, places[i], sizes[k],
					 WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND |
					 WDDMSEG_ALLOC_FROM_END_OF_SEGMENT, true);
}

/*
 * A release skips the wipe only for an allocation that holds the zeroes
 * it was given and was never written in place; a blit writes in place
 * without any mapping. An allocation filled with 0xff by the engine (a
 * SUBMIT_BLIT fill, never mapped) and released leaves nothing for the
 * next one, which FromEndOfSegment puts exactly there.
 */
TEST_F_TIMEOUT(alloc, zero_filled_after_blit_same_range, 60)
{
	static const uint32_t places[] = { SEG_VIS, SEG_INV };
	const uint32_t flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND |
			       WDDMSEG_ALLOC_FROM_END_OF_SEGMENT;
	const uint64_t size = 16 * SZ_4K;
	struct drm_wddmseg_gem_info info;
	uint64_t off_a, bad, first = 0;
	unsigned int i;
	uint32_t h;
	void *p;

	NEED_DEF();
	for (i = 0; i < ARRAY_SIZE(places); i++) {
		uint32_t id = places[i];
		int ret;

		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, size, flags,
							  id, &h));
		ret = wddmseg_fill(self->fd, h, 0, size, 0xffffffff, NULL);
		if (ret == -ENODEV)
			WSKIP(return, "no copy engine for SUBMIT_BLIT");
		ASSERT_EQ(0, ret);
		ASSERT_EQ(0, wddmseg_wait(self->fd, h, 5000000000LL));
		info_of(_metadata, self->fd, h, &info);
		ASSERT_EQ(id, info.segment_id);
		off_a = info.offset;
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));

		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, size, flags,
							  id, &h));
		info_of(_metadata, self->fd, h, &info);
		ASSERT_EQ(id, info.segment_id);
		ASSERT_EQ(off_a, info.offset)
			TH_LOG("%s: new allocation at 0x%llx, the released one was at 0x%" PRIx64,
			       seg_name(id), (unsigned long long)info.offset,
			       off_a);
		p = map_ok(_metadata, self->fd, h, size);
		bad = bytes_check(p, size, 0, &first);
		EXPECT_EQ(0u, bad)
			TH_LOG("%s: %" PRIu64 " bytes a blit wrote into a released allocation show in a new one, first at 0x%" PRIx64,
			       seg_name(id), bad, first);
		munmap(p, size);
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	}
}

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

/* Expected budget of @group: the CommitLimits of its segments. */
static uint64_t layout_budget(const struct layout *l, uint32_t group)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < l->nr_segs; i++)
		if (wddmseg_segment_budget_group(l->seg[i].flags) == group)
			sum += l->seg[i].commit;
	return sum;
}

/* First segment of @group (not AGP) the tests can allocate in, or 0. */
static uint32_t group_segment(const struct layout *l, uint32_t group)
{
	unsigned int i;

	for (i = 0; i < l->nr_segs; i++)
		if (wddmseg_segment_budget_group(l->seg[i].flags) == group &&
		    !(l->seg[i].flags & WDDMSEG_SEGMENT_FLAG_AGP))
			return i + 1;
	return 0;
}

/*
 * QUERY_BUDGET: the budget of each group is the CommitLimit sum of its
 * segments; current_usage counts what this file has resident in the group
 * (rises by an allocation, drops on EVICT), invisible to another file;
 * available is what the group still has free. Bad groups and non-zero
 * output/reserved fields are refused.
 */
TEST_F(alloc, budget)
{
	struct drm_wddmseg_query_budget b0, b1, b2, other;
	unsigned int i, g, f;
	uint32_t id, h;
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

			id = group_segment(l, g);
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
			default:
				b0.reserved[f - 6] = 1ULL << 63;
				break;
			}
			ret = wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_QUERY_BUDGET, &b0);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s: QUERY_BUDGET refusal case %u accepted",
				       d->exp.bdf, f);
		}
	}
}

/* ---------------------------------------------------------------- */
/* What the GPU sees: debugfs peek_addr/peek (Documentation/gpu/wddmseg.rst) */


static bool peek_available(const struct gem_dev *d)
{
	char dir[64], path[96];

	gem_debugfs_dir(d, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/peek", dir);
	return !access(path, R_OK);
}

/*
 * The GEM_PEEK_WORDS words the GPU sees at @addr; a word the device could
 * not read counts in *@faults and reads as 0xffffffff. 0 or -errno.
 */
static int gpu_peek(const struct gem_dev *d, uint64_t addr,
		    uint32_t *words, unsigned int *faults)
{
	char dir[64];

	gem_debugfs_dir(d, dir, sizeof(dir));
	return gem_peek(dir, addr, words, faults);
}

/*
 * Check what the GPU sees of an allocation at GPU address @gpu against
 * pattern @seed: a few 64-byte windows (start, across a page boundary,
 * every @stride bytes, end). Returns the number of wrong words.
 */
static unsigned int gpu_check(struct __test_metadata *_metadata,
			      const struct gem_dev *d, uint64_t gpu,
			      uint64_t size, uint32_t seed, uint64_t stride,
			      const char *what)
{
	uint32_t words[GEM_PEEK_WORDS];
	unsigned int bad = 0, faults, k;
	uint64_t off;
	int ret;

	for (off = 0; off < size; off += stride) {
		uint64_t at[3] = { off, off + SZ_4K - 32, size - 64 };

		for (k = 0; k < 3; k++) {
			unsigned int j;

			if (at[k] + 64 > size || (k == 2 && off))
				continue;
			ret = gpu_peek(d, gpu + at[k], words, &faults);
			ASSERT_EQ(0, ret) TH_LOG("peek at 0x%" PRIx64 ": %s",
						 gpu + at[k], strerror(-ret));
			for (j = 0; j < GEM_PEEK_WORDS; j++) {
				uint32_t want = pattern_word(seed, at[k] / 4 + j);

				if (words[j] == want)
					continue;
				if (!bad)
					TH_LOG("%s: GPU sees 0x%08x at offset 0x%" PRIx64 " (GPU 0x%" PRIx64 "), CPU wrote 0x%08x%s",
					       what, words[j], at[k] + 4 * j,
					       gpu + at[k] + 4 * j, want,
					       faults ? " (peek faults)" : "");
				bad++;
			}
		}
	}
	return bad;
}

/*
 * The device sees at BaseAddress + offset exactly what the CPU wrote
 * through the mapping, in visible VRAM, invisible VRAM (moved there) and
 * the aperture (through its page table, page by page). An evicted
 * aperture range is unmapped again: the device faults there.
 */
TEST_F(alloc, gpu_view)
{
	static const uint32_t segs[] = { SEG_VIS, SEG_INV, SEG_APT };
	const uint64_t size = 64 * SZ_4K + 3 * SZ_4K;
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_gem_info info;
	uint32_t words[GEM_PEEK_WORDS], h, pad;
	unsigned int i, faults;
	void *p;

	NEED_DEF();
	if (!peek_available(self->def))
		WSKIP(return, "no debugfs peek for %s", self->def->exp.bdf);
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, 5 * SZ_4K, 0, SEG_APT, &pad));
	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		uint32_t id = segs[i], seed = 0x6b0 + id;
		struct wddmseg_allocation_desc a = {
			.size = size,
			.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
			.supported_segments = BIT(id) | BIT(SEG_VIS),
			.preferred = { id },
		};

		qseg(_metadata, self->fd, id, &qs);
		h = create_ok(_metadata, self->fd, &a);
		p = map_ok(_metadata, self->fd, h, size);
		pattern_fill(p, size, seed);
		move_ok(_metadata, self->fd, h, id);	/* back, if migrated */
		info_of(_metadata, self->fd, h, &info);
		ASSERT_EQ(id, info.segment_id);
		EXPECT_EQ(0u, gpu_check(_metadata, self->def,
					qs.base_address + info.offset, size, seed,
					16 * SZ_4K, seg_name(id)))
			TH_LOG("%s: the GPU does not see the CPU's pattern",
			       seg_name(id));
		if (id == SEG_APT) {
			move_ok(_metadata, self->fd, h, 0);
			ASSERT_EQ(0, wddmseg_wait(self->fd, h, 5000000000LL));
			ASSERT_EQ(0, gpu_peek(self->def,
					      qs.base_address + info.offset,
					      words, &faults));
			/*
			 * UnmapApertureSegment points the range at the dummy
			 * page, which reads as zeroes: no fault (the range is
			 * mapped, to the dummy page) and not the allocation.
			 */
			EXPECT_EQ(0u, faults)
				TH_LOG("unmapped aperture range faults instead of reading the dummy page");
			for (i = 0; i < GEM_PEEK_WORDS; i++) {
				EXPECT_EQ(0u, words[i])
					TH_LOG("evicted aperture range still mapped: GPU reads 0x%08x",
					       words[i]);
			}
			move_ok(_metadata, self->fd, h, SEG_APT);
			info_of(_metadata, self->fd, h, &info);
			EXPECT_EQ(0u, gpu_check(_metadata, self->def,
						qs.base_address + info.offset,
						size, seed, 8 * SZ_4K,
						"aperture after EVICT + MAKE_RESIDENT"));
		}
		munmap(p, size);
		wddmseg_destroy_allocation(self->fd, h);
	}
}

/* Sort handles by their offset in the segment (GEM_INFO). */
static int fd_for_sort;

static int by_offset(const void *a, const void *b)
{
	struct drm_wddmseg_gem_info ia, ib;

	wddmseg_query_allocation(fd_for_sort, *(const uint32_t *)a, &ia);
	wddmseg_query_allocation(fd_for_sort, *(const uint32_t *)b, &ib);
	return ia.offset < ib.offset ? -1 : ia.offset > ib.offset;
}

#define FRAG_CHUNK	(128 * SZ_4K)
#define FRAG_MAX	64

/* Bytes of @p[off, off + len) that are not the 32-bit @word. */
static uint64_t words_check(const volatile void *p, uint64_t off,
			    uint64_t len, uint32_t word)
{
	const volatile uint32_t *w = (const volatile uint32_t *)p + off / 4;
	uint64_t i, bad = 0;

	for (i = 0; i < len / 4; i++)
		bad += w[i] != word;
	return bad * 4;
}

/*
 * Non-contiguous VRAM (DOC: VRAM made of blocks). Visible VRAM is
 * filled with 512 KiB allocations, then every other one (in address
 * order) is released: several MiB are free, no free range is 1 MiB. An
 * allocation of 2 MiB or more that needs no contiguity is placed there
 * made of blocks (WDDMSEG_STATE_BLOCKS), evicting nothing (the segment's
 * and every allocation's eviction counters); the CPU writes it through
 * its mapping (page by page faults), the GPU sees it page by page at the
 * addresses it reads from, and the content survives an eviction and a
 * return (Transfers from and into VRAM page lists). An AccessedPhysically
 * allocation of the same size must be one range (GEM_INFO offset + size
 * read back at consecutive GPU addresses), so it evicts or does not fit.
 */
TEST_F_TIMEOUT(alloc, vram_blocks, 120)
{
	const uint32_t vis = BIT(SEG_VIS);
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_gem_info info;
	uint32_t hs[FRAG_MAX], big, phys;
	uint64_t free_bytes, size, ev0;
	unsigned int i, n, kept = 0;
	void *p;

	NEED_DEF();
	qseg(_metadata, self->fd, SEG_VIS, &qs);
	free_bytes = qs.size - qs.usage_bytes;
	n = free_bytes / FRAG_CHUNK;
	if (n > FRAG_MAX)
		n = FRAG_MAX;
	if (n < 8)
		WSKIP(return, "visible VRAM has %" PRIu64 " KiB free", free_bytes >> 10);
	for (i = 0; i < n; i++) {
		struct wddmseg_allocation_desc a = {
			.size = FRAG_CHUNK,
			.flags = WDDMSEG_ALLOC_CPU_VISIBLE,
			.supported_segments = vis,
			.preferred = { SEG_VIS },
		};

		hs[i] = create_ok(_metadata, self->fd, &a);
		ASSERT_EQ(SEG_VIS, seg_of(_metadata, self->fd, hs[i]));
	}
	fd_for_sort = self->fd;
	qsort(hs, n, sizeof(hs[0]), by_offset);
	for (i = 0; i < n; i++) {
		if (i % 2) {
			ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, hs[i]));
			continue;
		}
		hs[kept++] = hs[i];
	}
	/* Their neighbours' content must stay theirs (mappings, Transfers). */
	for (i = 0; i < kept; i++) {
		p = map_ok(_metadata, self->fd, hs[i], FRAG_CHUNK);
		pattern_fill(p, FRAG_CHUNK, 0x4b00 + i);
		munmap(p, FRAG_CHUNK);
	}
	/* Free now: what was free beside them, plus the released ones. */
	qseg(_metadata, self->fd, SEG_VIS, &qs);
	free_bytes = qs.size - qs.usage_bytes;
	size = (n / 2) * FRAG_CHUNK;
	if (size > 4 * SZ_1M)
		size = 4 * SZ_1M;
	ASSERT_GE(free_bytes, size);
	ASSERT_GE(size, 2 * SZ_1M);
	ev0 = qs.eviction_count;

	{
		struct wddmseg_allocation_desc a = {
			.size = size,
			.flags = WDDMSEG_ALLOC_CPU_VISIBLE,
			.supported_segments = vis,
			.preferred = { SEG_VIS },
		};

		big = create_ok(_metadata, self->fd, &a);
	}
	info_of(_metadata, self->fd, big, &info);
	ASSERT_EQ(SEG_VIS, info.segment_id)
		TH_LOG("%" PRIu64 " KiB with %" PRIu64 " KiB free did not stay in visible VRAM",
		       size >> 10, free_bytes >> 10);
	EXPECT_TRUE(info.state & WDDMSEG_STATE_BLOCKS)
		TH_LOG("no free range of %" PRIu64 " KiB, yet GEM_INFO says contiguous",
		       size >> 10);
	qseg(_metadata, self->fd, SEG_VIS, &qs);
	EXPECT_EQ(ev0, qs.eviction_count)
		TH_LOG("placing %" PRIu64 " KiB made of blocks evicted %" PRIu64 " allocations",
		       size >> 10, (uint64_t)(qs.eviction_count - ev0));
	for (i = 0; i < kept; i++) {
		info_of(_metadata, self->fd, hs[i], &info);
		EXPECT_EQ(SEG_VIS, info.segment_id);
		EXPECT_EQ(0u, info.eviction_count);
	}

	/* CPU writes through the mapping, the GPU reads it page by page. */
	p = map_ok(_metadata, self->fd, big, size);
	pattern_fill(p, size, 0xb10c);
	munmap(p, size);
	/* Where GEM_INFO says the first page is, the GPU sees page 0. */
	info_of(_metadata, self->fd, big, &info);
	if (peek_available(self->def))
		EXPECT_EQ(0u, gpu_check(_metadata, self->def,
					qs.base_address + info.offset, SZ_4K,
					0xb10c, SZ_4K, "first page of blocks"));
	/* Transfers out of and back into VRAM made of blocks. */
	move_ok(_metadata, self->fd, big, 0);
	ASSERT_EQ(0u, seg_of(_metadata, self->fd, big));
	p = map_ok(_metadata, self->fd, big, size);
	EXPECT_EQ(0u, pattern_check(p, size, 0xb10c, NULL))
		TH_LOG("content lost by the Transfer out of VRAM made of blocks");
	munmap(p, size);
	move_ok(_metadata, self->fd, big, SEG_VIS);
	info_of(_metadata, self->fd, big, &info);
	ASSERT_EQ(SEG_VIS, info.segment_id);
	EXPECT_TRUE(info.state & WDDMSEG_STATE_BLOCKS);
	p = map_ok(_metadata, self->fd, big, size);
	EXPECT_EQ(0u, pattern_check(p, size, 0xb10c, NULL))
		TH_LOG("content lost by the Transfer back into VRAM made of blocks");
	munmap(p, size);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, big))
		TH_LOG("destroying the allocation made of blocks");

	/*
	 * PermanentSysMem made of blocks: a blit refreshes the segment's copy
	 * from the CPU-written permanent copy and writes its result through,
	 * both by VRAM page list. Addressed as one range they would write the
	 * neighbours' VRAM (checked last) and read the wrong bytes back.
	 */
	{
		struct wddmseg_allocation_desc a = {
			.size = size,
			.flags = WDDMSEG_ALLOC_CPU_VISIBLE |
				 WDDMSEG_ALLOC_PERMANENT_SYSMEM,
			.supported_segments = vis,
			.preferred = { SEG_VIS },
		};

		big = create_ok(_metadata, self->fd, &a);
	}
	info_of(_metadata, self->fd, big, &info);
	ASSERT_EQ(SEG_VIS, info.segment_id);
	EXPECT_TRUE(info.state & WDDMSEG_STATE_BLOCKS);
	p = map_ok(_metadata, self->fd, big, size);
	pattern_fill(p, size, 0x9e11);
	ASSERT_EQ(0, wddmseg_fill(self->fd, big, SZ_64K, SZ_64K, 0xb1cb1c00,
				  NULL));
	ASSERT_EQ(0, wddmseg_wait(self->fd, big, 10 * NSEC_PER_SEC));
	EXPECT_EQ(0u, words_check(p, SZ_64K, SZ_64K, 0xb1cb1c00))
		TH_LOG("PermanentSysMem in blocks: the blit was not written through");
	EXPECT_EQ(0u, pattern_check(p, SZ_64K, 0x9e11, NULL))
		TH_LOG("PermanentSysMem in blocks: bytes before the blit changed");
	munmap(p, size);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, big))
		TH_LOG("destroying the PermanentSysMem allocation made of blocks");

	/* AccessedPhysically: one range, or it does not fit without evicting. */
	{
		struct wddmseg_allocation_desc a = {
			.size = size,
			.flags = WDDMSEG_ALLOC_CPU_VISIBLE |
				 WDDMSEG_ALLOC_ACCESSED_PHYSICALLY,
			.supported_segments = vis,
			.preferred = { SEG_VIS },
		};
		int ret = wddmseg_create_allocation(self->fd, &a, &phys);

		if (ret) {
			EXPECT_EQ(-ENOSPC, ret);
		} else {
			info_of(_metadata, self->fd, phys, &info);
			EXPECT_FALSE(info.state & WDDMSEG_STATE_BLOCKS)
				TH_LOG("an AccessedPhysically allocation is made of blocks");
			qseg(_metadata, self->fd, SEG_VIS, &qs);
			if (info.segment_id == SEG_VIS) {
				EXPECT_LT(ev0, qs.eviction_count)
					TH_LOG("one range of %" PRIu64 " KiB without an eviction: the segment was not fragmented",
					       size >> 10);
				p = map_ok(_metadata, self->fd, phys, size);
				pattern_fill(p, size, 0xc0de);
				munmap(p, size);
				if (peek_available(self->def))
					EXPECT_EQ(0u, gpu_check(_metadata, self->def,
								qs.base_address + info.offset,
								size, 0xc0de, 16 * SZ_4K,
								"AccessedPhysically"))
						TH_LOG("AccessedPhysically: not one range at its GPU address");
			}
			wddmseg_destroy_allocation(self->fd, phys);
		}
	}
	for (i = 0; i < kept; i++) {
		p = map_ok(_metadata, self->fd, hs[i], FRAG_CHUNK);
		EXPECT_EQ(0u, pattern_check(p, FRAG_CHUNK, 0x4b00 + i, NULL))
			TH_LOG("allocation %u of 512 KiB overwritten", i);
		munmap(p, FRAG_CHUNK);
		wddmseg_destroy_allocation(self->fd, hs[i]);
	}
}

/*
 * ExistingSysMem: user pages become the backing store of an aperture
 * allocation without a copy (the GPU sees later CPU writes to them), stay
 * so across EVICT/MAKE_RESIDENT, and bad user ranges are refused.
 */
TEST_F(alloc, existing_sysmem)
{
	const uint64_t size = 32 * SZ_4K;
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_gem_info info;
	struct drm_wddmseg_gem_create c;
	uint32_t *buf, h;
	bool peek;
	void *ro, *gone, *half;
	int ret;

	NEED_DEF();
	peek = peek_available(self->def);
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	pattern_fill(buf, size, 0xe5);

	memset(&c, 0, sizeof(c));
	c.size = size;
	c.flags = WDDMSEG_ALLOC_EXISTING_SYSMEM;
	c.supported_segments = BIT(SEG_APT);
	c.preferred[0] = SEG_APT;
	c.user_ptr = (uintptr_t)buf;
	ret = wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_CREATE, &c);
	ASSERT_EQ(0, ret) TH_LOG("ExistingSysMem in the aperture: %s",
				 strerror(-ret));
	h = c.handle;
	/* MapApertureSegment runs on the engine: wait before peeking. */
	ASSERT_EQ(0, wddmseg_wait(self->fd, h, 10000000000LL));
	info_of(_metadata, self->fd, h, &info);
	EXPECT_EQ(SEG_APT, info.segment_id);
	EXPECT_EQ(size, info.size);
	EXPECT_EQ(WDDMSEG_ALLOC_EXISTING_SYSMEM, info.flags);
	qseg(_metadata, self->fd, SEG_APT, &qs);
	if (peek) {
		EXPECT_EQ(0u, gpu_check(_metadata, self->def,
					qs.base_address + info.offset, size,
					0xe5, 8 * SZ_4K, "ExistingSysMem"));
		/* zero copy: a later CPU write is what the GPU reads */
		pattern_fill(buf, size, 0xe6);
		EXPECT_EQ(0u, gpu_check(_metadata, self->def,
					qs.base_address + info.offset, size,
					0xe6, 8 * SZ_4K, "ExistingSysMem rewritten"));
	}
	move_ok(_metadata, self->fd, h, 0);
	move_ok(_metadata, self->fd, h, SEG_APT);
	info_of(_metadata, self->fd, h, &info);
	EXPECT_EQ(SEG_APT, info.segment_id);
	if (peek)
		EXPECT_EQ(0u, gpu_check(_metadata, self->def,
					qs.base_address + info.offset, size,
					0xe6, 8 * SZ_4K,
					"ExistingSysMem after EVICT + MAKE_RESIDENT"));
	EXPECT_EQ(0u, pattern_check(buf, size, peek ? 0xe6 : 0xe5, NULL))
		TH_LOG("the user's own copy changed");
	EXPECT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	EXPECT_EQ(0u, pattern_check(buf, size, peek ? 0xe6 : 0xe5, NULL))
		TH_LOG("user memory changed by freeing the allocation");

	/* user memory that is not there, or not writable */
	gone = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, gone);
	munmap(gone, size);
	c.handle = 0;
	c.user_ptr = (uintptr_t)gone;
	ret = wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_CREATE, &c);
	EXPECT_EQ(-EFAULT, ret) TH_LOG("ExistingSysMem on unmapped memory: %s",
				       ret ? strerror(-ret) : "accepted");
	ro = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	c.handle = 0;
	c.user_ptr = (uintptr_t)ro;
	ret = wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_CREATE, &c);
	EXPECT_EQ(-EFAULT, ret) TH_LOG("ExistingSysMem on read-only memory: %s",
				       ret ? strerror(-ret) : "accepted");
	/*
	 * A range that runs past its mapping into a hole. Not past buf: what
	 * lies above a mapping is up to the kernel's placement (in a
	 * dynamically linked program, often the loader's pages).
	 */
	half = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, half);
	munmap((char *)half + size, size);
	c.handle = 0;
	c.user_ptr = (uintptr_t)half;
	c.size = 2 * size;
	ret = wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_CREATE, &c);
	EXPECT_EQ(-EFAULT, ret) TH_LOG("ExistingSysMem range past the mapping: %s",
				       ret ? strerror(-ret) : "accepted");
	EXPECT_EQ(0u, file_usage(self->fd))
		TH_LOG("refused ExistingSysMem requests left allocations behind");
	munmap(half, size);
	munmap(ro, size);
	munmap(buf, size);
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
REFUSAL(reserved_0, "reserved[0]",
	EINVAL, "reserved", ADJ_NONE,
	.reserved[0] = 1);
REFUSAL(reserved_1, "reserved[1]",
	EINVAL, "reserved", ADJ_NONE,
	.reserved[1] = 1ULL << 40);
REFUSAL(reserved_2, "reserved[2]",
	EINVAL, "reserved", ADJ_NONE,
	.reserved[2] = 1);
REFUSAL(reserved_3, "reserved[3]",
	EINVAL, "reserved", ADJ_NONE,
	.reserved[3] = 1ULL << 63);
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

/*
 * eviction-80: with an aperture segment in its eviction set an allocation
 * may use at most 80% of that segment (Overlay and Capture allocations may
 * pin the last 20%). Needs an aperture whose CommitLimit exceeds 80% of it.
 */
TEST_F(alloc, eviction_through_aperture_80_percent)
{
	unsigned int i, id, found = 0;
	uint32_t h;
	int fd, ret;

	if (SETUP_SKIPPED())
		return;
	for (i = 0; i < self->env.nr_devs; i++) {
		const struct gem_dev *d = &self->env.dev[i];
		const struct layout *l = &d->exp.layout;

		for (id = 1; id <= l->nr_segs; id++) {
			const struct layout_seg *s = &l->seg[id - 1];
			uint64_t max = (s->size / 5 * 4) & ~(SZ_4K - 1);
			struct wddmseg_allocation_desc a = {
				.supported_segments = BIT(id), .eviction_segments = BIT(id),
				.preferred = { id },
			};

			if (!(s->flags & WDDMSEG_SEGMENT_FLAG_APERTURE) || s->commit <= max)
				continue;
			found++;
			fd = open_extra(_metadata, self, d->render);
			a.size = max + SZ_4K;
			ret = wddmseg_create_allocation(fd, &a, &h);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s: %" PRIu64 " bytes evictable through aperture %u of %" PRIu64,
				       d->exp.bdf, a.size, id, s->size);
			/* the same without the eviction set is fine */
			a.eviction_segments = 0;
			EXPECT_EQ(0, wddmseg_create_allocation(fd, &a, &h));
			wddmseg_destroy_allocation(fd, h);
			/* and 80% with it */
			a.size = max;
			a.eviction_segments = BIT(id);
			ret = wddmseg_create_allocation(fd, &a, &h);
			EXPECT_EQ(0, ret) TH_LOG("%s: exactly 80%% of aperture %u: %s",
						 d->exp.bdf, id, strerror(-ret));
		}
	}
	if (!found)
		WSKIP(return, "no aperture with a CommitLimit above 80%% of its size in %s",
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

#define TTM_PAGE_POOL	"/sys/kernel/debug/ttm/page_pool"

/*
 * Pages in TTM's global pools, or -1: the "total" line of debugfs
 * ttm/page_pool, or since the pools are per NUMA node (7.x) the sum of
 * its "total nodeN" lines.
 */
static long ttm_pool_pages(void)
{
	unsigned long t, max;
	unsigned int node;
	char line[256];
	long total = -1;
	FILE *f = fopen(TTM_PAGE_POOL, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "total : %lu of %lu", &t, &max) == 2)
			total = t;
		else if (sscanf(line, "total node%u : %lu of %lu", &node, &t,
				&max) == 3)
			total = (total < 0 ? 0 : total) + t;
	}
	fclose(f);
	return total;
}

/*
 * Pool pages gained by creating an allocation of @flags in the aperture
 * segment, writing every page through its mapping and destroying it.
 */
static long pooled_by(struct __test_metadata *_metadata, int fd,
		      uint32_t flags, uint64_t size)
{
	struct wddmseg_allocation_desc a = {
		.size = size, .flags = flags,
		.supported_segments = BIT(SEG_APT), .preferred = { SEG_APT },
	};
	volatile uint8_t *p;
	long before;
	uint64_t i;
	uint32_t h;

	ASSERT_EQ(0, file_write("/proc/sys/vm/drop_caches", "3"));
	before = ttm_pool_pages();
	h = create_ok(_metadata, fd, &a);
	p = map_ok(_metadata, fd, h, size);
	for (i = 0; i < size; i += 4096)
		p[i] = 0x5a;
	munmap((void *)p, size);
	EXPECT_EQ(0, wddmseg_wait(fd, h, 10 * NSEC_PER_SEC));
	EXPECT_EQ(0, wddmseg_destroy_allocation(fd, h));
	return ttm_pool_pages() - before;
}

/*
 * Cached (DXGK_ALLOCATIONINFOFLAGS): the system pages of an aperture (or
 * system-memory) allocation are ordinary write-back memory; without the
 * flag TTM gives them the write-combining attribute. TTM pools only pages
 * whose attribute it changed (write-combined, uncached) and frees
 * write-back ones: after drop_caches empties the pools, destroying a plain
 * allocation leaves its pages in the pool, destroying a Cached one does
 * not. Fails when the flag is ignored either way.
 */
TEST_F(alloc, cached_pages_write_back)
{
	const uint64_t size = 16 * SZ_4K;
	long plain, cached;

	NEED_DEF();
	if (ttm_pool_pages() < 0)
		WSKIP(return, "no %s (debugfs)", TTM_PAGE_POOL);
	plain = pooled_by(_metadata, self->fd, WDDMSEG_ALLOC_CPU_VISIBLE, size);
	cached = pooled_by(_metadata, self->fd,
			   WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CACHED,
			   size);
	EXPECT_GE(plain, (long)(size / 4096))
		TH_LOG("a plain allocation's pages did not go to the write-combined pool (%ld pages)",
		       plain);
	EXPECT_EQ(0, cached)
		TH_LOG("a Cached allocation's pages went to a pool (%ld pages): not write-back",
		       cached);
}

/* Segment @id's value of the device's sysfs counter @name. */
static uint64_t seg_counter(struct __test_metadata *_metadata,
			    const struct gem_dev *d, const char *name,
			    uint32_t id)
{
	char path[160], buf[256], *p = buf, *end;
	uint64_t v = 0;
	uint32_t i;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/wddmseg/%s",
		 d->exp.bdf, name);
	ASSERT_EQ(0, file_read(path, buf, sizeof(buf))) TH_LOG("%s", path);
	for (i = 1; i <= id; i++) {
		v = strtoull(p, &end, 0);
		ASSERT_NE(p, end) TH_LOG("%s: no value for segment %u", path, id);
		p = end;
	}
	return v;
}

/* EVICT @h out of visible VRAM: bytes Transferred out and discarded. */
static void evict_counted(struct __test_metadata *_metadata,
			  FIXTURE_DATA(alloc) *self, uint32_t h,
			  uint64_t *transferred, uint64_t *discarded)
{
	uint64_t t = seg_counter(_metadata, self->def, "transfer_out_bytes",
				 SEG_VIS);
	uint64_t d = seg_counter(_metadata, self->def, "discard_bytes",
				 SEG_VIS);

	move_ok(_metadata, self->fd, h, 0);
	*transferred = seg_counter(_metadata, self->def, "transfer_out_bytes",
				   SEG_VIS) - t;
	*discarded = seg_counter(_metadata, self->def, "discard_bytes",
				 SEG_VIS) - d;
}

/*
 * PermanentSysMem (DOC: PermanentSysMem): the allocation has a
 * system-memory copy for its life, which every CPU mapping maps, in VRAM
 * too (the device's view of VRAM does not change on CPU writes, and
 * nothing migrates on the fault); an eviction out of VRAM is a
 * DiscardContent that copies nothing (sysfs transfer_out_bytes), where a
 * plain allocation's is a Transfer of its size; the way back, into VRAM
 * and the aperture, copies the permanent copy. A blit into it in VRAM is
 * written through to the copy, so the CPU sees it and evictions keep it;
 * a CPU write in VRAM reaches the engine's next read of the allocation.
 * One mapping is kept across all of it.
 */
TEST_F_TIMEOUT(alloc, permanent_sysmem, 180)
{
	const uint64_t size = SZ_1M + 3 * SZ_4K;
	struct wddmseg_allocation_desc a = {
		.size = size,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_PERMANENT_SYSMEM,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_APT),
		.preferred = { SEG_VIS },
	};
	static const uint32_t path[] = { SEG_VIS, SEG_APT, SEG_VIS, 0, SEG_APT,
					 SEG_VIS };
	const uint64_t fill_off = 17 * SZ_4K + 64, fill_len = 9 * SZ_4K + 12;
	uint64_t bad, first = 0, moves, transferred, discarded;
	struct drm_wddmseg_gem_info info;
	uint32_t h, plain, words[GEM_PEEK_WORDS];
	unsigned int faults, i;
	bool peek;
	void *p, *q;

	NEED_DEF();
	peek = peek_available(self->def);
	h = create_ok(_metadata, self->fd, &a);
	info_of(_metadata, self->fd, h, &info);
	ASSERT_EQ(SEG_VIS, info.segment_id);
	moves = info.move_count;
	p = map_ok(_metadata, self->fd, h, size);
	EXPECT_EQ(0u, bytes_check(p, size, 0, NULL)) TH_LOG("not zero-filled");
	pattern_fill(p, size, 0x9e57);
	EXPECT_EQ(0u, pattern_check(p, size, 0x9e57, &first));

	/* The CPU wrote the system copy, not VRAM, and nothing moved. */
	info_of(_metadata, self->fd, h, &info);
	EXPECT_EQ(SEG_VIS, info.segment_id);
	EXPECT_EQ(moves, info.move_count)
		TH_LOG("a CPU access to a PermanentSysMem allocation moved it");
	if (peek) {
		ASSERT_EQ(0, gpu_peek(self->def, self->seg[SEG_VIS].base_address +
				      info.offset + SZ_4K, words, &faults));
		for (bad = 0, i = 0; i < GEM_PEEK_WORDS; i++)
			bad += words[i] != 0;
		EXPECT_EQ(0u, bad)
			TH_LOG("VRAM reads 0x%08x: the CPU mapping writes VRAM, not the system copy",
			       words[0]);
	}

	/* A clean eviction copies nothing; a plain allocation's copies it all. */
	evict_counted(_metadata, self, h, &transferred, &discarded);
	EXPECT_EQ(0u, transferred)
		TH_LOG("evicting a PermanentSysMem allocation Transferred %" PRIu64 " bytes",
		       transferred);
	EXPECT_EQ(size, discarded);
	bad = pattern_check(p, size, 0x9e57, &first);
	EXPECT_EQ(0u, bad) TH_LOG("after the eviction: %" PRIu64 " bad bytes, first at 0x%" PRIx64,
				  bad, first);
	plain = create_ok(_metadata, self->fd, &(struct wddmseg_allocation_desc){
		.size = size, .flags = WDDMSEG_ALLOC_CPU_VISIBLE,
		.supported_segments = BIT(SEG_VIS), .preferred = { SEG_VIS } });
	ASSERT_EQ(0, gem_write_pattern(self->fd, plain, size, 0x71a1));
	evict_counted(_metadata, self, plain, &transferred, &discarded);
	EXPECT_EQ(size, transferred)
		TH_LOG("the control's eviction: transfer_out_bytes does not count");
	EXPECT_EQ(0u, discarded);

	/* Back and forth: the copy goes in, the mapping keeps its bytes. */
	for (i = 0; i < ARRAY_SIZE(path); i++) {
		move_ok(_metadata, self->fd, h, path[i]);
		ASSERT_EQ(path[i], seg_of(_metadata, self->fd, h));
		bad = pattern_check(p, size, 0x9e57, &first);
		EXPECT_EQ(0u, bad)
			TH_LOG("in %s: %" PRIu64 " bad bytes, first at 0x%" PRIx64,
			       seg_name(path[i]), bad, first);
	}
	info_of(_metadata, self->fd, h, &info);
	if (peek)
		EXPECT_EQ(0u, gpu_check(_metadata, self->def,
					self->seg[SEG_VIS].base_address + info.offset,
					size, 0x9e57, SZ_64K, "VRAM after MAKE_RESIDENT"));

	/* A blit into VRAM goes through to the copy: seen, and kept. */
	ASSERT_EQ(0, wddmseg_fill(self->fd, h, fill_off, fill_len, 0xb117b117, NULL));
	ASSERT_EQ(0, wddmseg_wait(self->fd, h, 10 * NSEC_PER_SEC));
	EXPECT_EQ(0u, words_check(p, fill_off, fill_len, 0xb117b117))
		TH_LOG("the CPU does not see a blit into VRAM");
	evict_counted(_metadata, self, h, &transferred, &discarded);
	EXPECT_EQ(0u, transferred);
	EXPECT_EQ(0u, words_check(p, fill_off, fill_len, 0xb117b117))
		TH_LOG("a blit into VRAM was lost by the eviction");
	EXPECT_EQ(0u, pattern_check(p, fill_off, 0x9e57, &first))
		TH_LOG("bytes before the blit changed");

	/* A CPU write in VRAM reaches the engine's next read. */
	move_ok(_metadata, self->fd, h, SEG_VIS);
	pattern_fill(p, size, 0xa11ce);
	info_of(_metadata, self->fd, h, &info);
	EXPECT_EQ(SEG_VIS, info.segment_id);
	ASSERT_EQ(0, wddmseg_copy(self->fd, h, 0, plain, 0, size & ~3ull, NULL));
	ASSERT_EQ(0, wddmseg_wait(self->fd, plain, 10 * NSEC_PER_SEC));
	q = map_ok(_metadata, self->fd, plain, size);
	bad = pattern_check(q, size, 0xa11ce, &first);
	EXPECT_EQ(0u, bad)
		TH_LOG("a blit out of VRAM missed %" PRIu64 " bytes the CPU wrote, first at 0x%" PRIx64,
		       bad, first);
	munmap(q, size);
	/* ... and the CPU's next writes after it, too */
	pattern_fill(p, SZ_64K, 0xbeef);
	ASSERT_EQ(0, wddmseg_copy(self->fd, h, 0, plain, 0, SZ_64K, NULL));
	ASSERT_EQ(0, wddmseg_wait(self->fd, plain, 10 * NSEC_PER_SEC));
	q = map_ok(_metadata, self->fd, plain, size);
	EXPECT_EQ(0u, pattern_check(q, SZ_64K, 0xbeef, &first));
	munmap(q, size);
	info_of(_metadata, self->fd, h, &info);
	EXPECT_EQ(SEG_VIS, info.segment_id);
	munmap(p, size);
	wddmseg_destroy_allocation(self->fd, plain);
	wddmseg_destroy_allocation(self->fd, h);
}

/*
 * Cache coherency (DOC: Cache coherency): an aperture without
 * CacheCoherent does not snoop the CPU's caches (device 1.7). A Cached
 * allocation there is mapped as CPU-cached pages: the device's view (peek)
 * does not see what the CPU writes through the mapping, yet a blit out of
 * it copies every byte, because the driver flushes the pages first; the
 * blit's reads left the device's view current. A write-combined
 * allocation there is seen at once. Both blits go through the aperture.
 */
TEST_F(alloc, noncoherent_aperture_flush)
{
	const uint64_t size = 64 * SZ_4K + 3 * SZ_4K;	/* engine-bound */
	struct drm_wddmseg_query_adapter qa;
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_gem_info info;
	uint32_t words[GEM_PEEK_WORDS], id = 0, h, wc, dst, j;
	struct gem_dev *d = NULL;
	unsigned int faults, i, bad;
	uint64_t first = 0;
	bool peek;
	void *p, *q;
	int fd;

	for (i = 0; i < self->env.nr_devs && !d; i++) {
		const struct layout *l = &self->env.dev[i].exp.layout;

		for (j = 1; j <= l->nr_segs; j++)
			if ((l->seg[j - 1].flags & WDDMSEG_SEGMENT_FLAG_APERTURE) &&
			    !(l->seg[j - 1].flags &
			      WDDMSEG_SEGMENT_FLAG_CACHE_COHERENT)) {
				d = &self->env.dev[i];
				id = j;
				break;
			}
	}
	if (!d)
		WSKIP(return, "no aperture without CacheCoherent in %s",
		     gem_env_source(&self->env));
	fd = open_extra(_metadata, self, d->render);
	ASSERT_EQ(0, wddmseg_query_adapter(fd, &qa));
	if ((qa.hw_version & 0xffff) < 6)
		WSKIP(return, "device %u.%u: apertures are all snooped",
		     qa.hw_version >> 16, qa.hw_version & 0xffff);
	qseg(_metadata, fd, id, &qs);
	peek = peek_available(d);

	h = create_ok(_metadata, fd, &(struct wddmseg_allocation_desc){
		.size = size,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CACHED,
		.supported_segments = BIT(id), .preferred = { id } });
	wc = create_ok(_metadata, fd, &(struct wddmseg_allocation_desc){
		.size = size, .flags = WDDMSEG_ALLOC_CPU_VISIBLE,
		.supported_segments = BIT(id), .preferred = { id } });
	dst = create_ok(_metadata, fd, &(struct wddmseg_allocation_desc){
		.size = size, .flags = WDDMSEG_ALLOC_CPU_VISIBLE });
	ASSERT_EQ(id, seg_of(_metadata, fd, h));
	ASSERT_EQ(id, seg_of(_metadata, fd, wc));

	p = map_ok(_metadata, fd, h, size);
	pattern_fill(p, size, 0xcac4e);
	info_of(_metadata, fd, h, &info);
	if (peek) {
		ASSERT_EQ(0, gpu_peek(d, qs.base_address + info.offset + SZ_4K,
				      words, &faults));
		for (bad = 0, i = 0; i < GEM_PEEK_WORDS; i++)
			bad += words[i] == pattern_word(0xcac4e, SZ_4K / 4 + i);
		EXPECT_EQ(0u, bad)
			TH_LOG("the device sees CPU writes to cached pages of a non-coherent aperture: the mapping was not marked CPU-cached");
	}
	ASSERT_EQ(0, wddmseg_copy(fd, h, 0, dst, 0, size, NULL));
	ASSERT_EQ(0, wddmseg_wait(fd, dst, 10 * NSEC_PER_SEC));
	q = map_ok(_metadata, fd, dst, size);
	bad = pattern_check(q, size, 0xcac4e, &first);
	EXPECT_EQ(0u, bad)
		TH_LOG("a blit out of cached pages in a non-coherent aperture missed %u bytes the CPU wrote (first at 0x%" PRIx64 "): no flush",
		       bad, first);
	if (peek)
		EXPECT_EQ(0u, gpu_check(_metadata, d, qs.base_address + info.offset,
					size, 0xcac4e, SZ_64K,
					"after the flush"));
	munmap(p, size);

	/* write-combined pages: in memory after the barrier, seen at once */
	p = map_ok(_metadata, fd, wc, size);
	pattern_fill(p, size, 0x3c3c);
	info_of(_metadata, fd, wc, &info);
	if (peek)
		EXPECT_EQ(0u, gpu_check(_metadata, d, qs.base_address + info.offset,
					size, 0x3c3c, SZ_64K,
					"write-combined pages"));
	ASSERT_EQ(0, wddmseg_copy(fd, wc, 0, dst, 0, size, NULL));
	ASSERT_EQ(0, wddmseg_wait(fd, dst, 10 * NSEC_PER_SEC));
	EXPECT_EQ(0u, pattern_check(q, size, 0x3c3c, &first));
	munmap(p, size);
	munmap(q, size);
	wddmseg_destroy_allocation(fd, dst);
	wddmseg_destroy_allocation(fd, wc);
	wddmseg_destroy_allocation(fd, h);
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
	for (i = 0; i < 4; i++) {
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

/*
 * Dumb buffers: CREATE_DUMB, MAP_DUMB, a CPU mapping, and a placement in
 * a CPU-visible segment (the DirectFlip one when there is one) that
 * GEM_INFO reports on the dumb handle.
 */
TEST_F(alloc, dumb_buffer)
{
	struct drm_mode_create_dumb cd;
	struct drm_mode_map_dumb md;
	struct drm_mode_destroy_dumb dd;
	struct drm_wddmseg_gem_info info;
	const struct layout *l;
	uint64_t bad, first = 0;
	uint32_t flip = 0, id;
	void *p;
	int fd, ret;

	NEED_DEF();
	l = &self->def->exp.layout;
	for (id = 1; id <= l->nr_segs && !flip; id++)
		if ((l->seg[id - 1].flags & WDDMSEG_SEGMENT_FLAG_DIRECT_FLIP) &&
		    wddmseg_segment_cpu_visible(l->seg[id - 1].flags))
			flip = id;
	fd = open_extra(_metadata, self, self->def->card);

	memset(&cd, 0, sizeof(cd));
	cd.width = 640;
	cd.height = 480;
	cd.bpp = 32;
	ret = wddmseg_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &cd);
	ASSERT_EQ(0, ret) TH_LOG("CREATE_DUMB: %s", strerror(-ret));
	EXPECT_LE(640u * 4, cd.pitch);
	EXPECT_EQ(0u, cd.pitch % 64);
	EXPECT_LE((uint64_t)cd.pitch * 480, cd.size);

	info_of(_metadata, fd, cd.handle, &info);
	EXPECT_EQ(WDDMSEG_ALLOC_CPU_VISIBLE, info.flags);
	EXPECT_NE(0u, info.segment_id) TH_LOG("dumb buffer not in a segment");
	if (info.segment_id && info.segment_id <= l->nr_segs)
		EXPECT_TRUE(wddmseg_segment_cpu_visible(l->seg[info.segment_id - 1].flags))
			TH_LOG("dumb buffer in segment %u, which the CPU cannot see",
			       info.segment_id);
	if (flip)
		EXPECT_EQ(flip, info.segment_id)
			TH_LOG("dumb buffer not in the DirectFlip segment %u", flip);

	memset(&md, 0, sizeof(md));
	md.handle = cd.handle;
	ret = wddmseg_ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &md);
	ASSERT_EQ(0, ret) TH_LOG("MAP_DUMB: %s", strerror(-ret));
	p = mmap(NULL, cd.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, md.offset);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap of the dumb buffer: %s",
					strerror(errno));
	EXPECT_EQ(0u, bytes_check(p, cd.size, 0, NULL));
	pattern_fill(p, cd.size, 0xd0b);
	bad = pattern_check(p, cd.size, 0xd0b, &first);
	EXPECT_EQ(0u, bad) TH_LOG("dumb buffer: %" PRIu64 " bad bytes, first at 0x%" PRIx64,
				  bad, first);
	/* and the content survives an eviction */
	ASSERT_EQ(0, wddmseg_evict(fd, cd.handle, 0));
	EXPECT_EQ(0u, pattern_check(p, cd.size, 0xd0b, NULL));
	munmap(p, cd.size);

	memset(&dd, 0, sizeof(dd));
	dd.handle = cd.handle;
	EXPECT_EQ(0, wddmseg_ioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &dd));
	EXPECT_EQ(-ENOENT, wddmseg_query_allocation(fd, cd.handle, &info));

	/* bad geometry */
	memset(&cd, 0, sizeof(cd));
	cd.width = 64;
	cd.height = 64;
	cd.bpp = 64;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &cd))
		TH_LOG("CREATE_DUMB with bpp 64");
	cd.bpp = 32;
	cd.height = 0;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &cd));
}

TEST_HARNESS_MAIN
