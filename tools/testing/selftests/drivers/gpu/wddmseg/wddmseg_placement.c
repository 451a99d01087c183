// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg kselftests of placement: GEM_CREATE in every segment, the
 * preferred order and LRU eviction, MAKE_RESIDENT, eviction sets (and
 * PitchAlignment segments skipped), FromEndOfSegment, banks, pinned
 * Overlay and Capture allocations, eviction through the aperture, and
 * VRAM made of blocks in a fragmented segment.
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

TEST_HARNESS_MAIN
