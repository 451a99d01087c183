// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg kselftests of allocations backed by system pages: ExistingSysMem
 * (user pages without a copy, bad user ranges refused), PermanentSysMem,
 * cached pages written back, and a non-coherent aperture flushed before
 * the device reads it.
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
	uint64_t bad, first = 0, moves, transferred, discarded, in0;
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
	in0 = seg_counter(_metadata, self->def, "transfer_in_bytes", SEG_VIS);
	plain = create_ok(_metadata, self->fd, &(struct wddmseg_allocation_desc){
		.size = size, .flags = WDDMSEG_ALLOC_CPU_VISIBLE,
		.supported_segments = BIT(SEG_VIS), .preferred = { SEG_VIS } });
	EXPECT_EQ(in0, seg_counter(_metadata, self->def, "transfer_in_bytes",
				   SEG_VIS))
		TH_LOG("a new allocation's placement (a Fill) counts in transfer_in_bytes");
	ASSERT_EQ(0, gem_write_pattern(self->fd, plain, size, 0x71a1));
	evict_counted(_metadata, self, plain, &transferred, &discarded);
	EXPECT_EQ(size, transferred)
		TH_LOG("the control's eviction: transfer_out_bytes does not count");
	EXPECT_EQ(0u, discarded);
	/* Its way back is a Transfer of its size into the segment. */
	in0 = seg_counter(_metadata, self->def, "transfer_in_bytes", SEG_VIS);
	move_ok(_metadata, self->fd, plain, SEG_VIS);
	EXPECT_EQ(size, seg_counter(_metadata, self->def, "transfer_in_bytes",
				    SEG_VIS) - in0)
		TH_LOG("making the control resident again: transfer_in_bytes does not count it");
	ASSERT_EQ(0, wddmseg_lock(self->fd, plain, size, &q));
	bad = pattern_check(q, size, 0x71a1, &first);
	ASSERT_EQ(0, wddmseg_unlock(q, size));
	EXPECT_EQ(0u, bad) TH_LOG("the control: %" PRIu64 " bad bytes, first at 0x%" PRIx64,
				  bad, first);

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

TEST_HARNESS_MAIN
