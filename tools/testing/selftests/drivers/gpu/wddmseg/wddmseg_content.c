// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg kselftests of content and CPU access: GEM_MMAP_OFFSET and CPU
 * mappings (CpuVisible, CpuVisibleOnDemand, SIGBUS on pinned invisible
 * VRAM), content byte by byte across moves, new allocations zero-filled
 * (after an eviction or a blit of the same range), what the GPU sees
 * through debugfs peek, and dumb buffers.
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
 * The device sees at BaseAddress + offset exactly what the CPU wrote
 * through the mapping, in visible VRAM, invisible VRAM (moved there) and
 * the aperture (through its page table, page by page). An evicted
 * aperture range points at the dummy page again: the device reads zeroes
 * there, not the allocation (engine.aperture_unmap_either_way checks it
 * for both ways of unmapping).
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
