// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg paging operations that only exist through real allocations:
 *
 * - ReadPhysical / WritePhysical: TTM's access_memory (wddmseg_ttm.c, wddmseg_migrate.c).
 *   /proc/self/mem reads and writes of a mapped allocation that lives in
 *   CPU-invisible VRAM return and store the exact bytes, at unaligned
 *   offsets and across pages, without touching the mapping and without
 *   moving the allocation; the engine ran READ_PHYSICAL/WRITE_PHYSICAL
 *   (tracefs, event wddmseg_paging_op); an injected hang is recovered;
 *   without the engine (use_engine=0) the CPU window gives the same bytes;
 *   a read-only mapping cannot be written through /proc/self/mem.
 * - DiscardContent: GEM_EVICT with WDDMSEG_EVICT_DISCARD. The allocation
 *   leaves VRAM (or an aperture, or keeps system memory) without a
 *   Transfer, DISCARD_CONTENT runs on the engine, the old VRAM is wiped,
 *   usage counters follow, the content reads as zeroes and the next
 *   MAKE_RESIDENT is a Fill, also into VRAM another allocation's content
 *   was left in; bad flags, flags on MAKE_RESIDENT, a pinned
 *   allocation and ExistingSysMem are refused.
 *
 * Runs on the default-layout device of the expectation file
 * ($WDDMSEG_EXPECT). Trace and debugfs checks skip without tracefs or
 * debugfs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "wddmseg_gem.h"

#define BO_SIZE		(16 * SZ_4K)

FIXTURE(paging) {
	struct gem_env env;
	struct gem_dev *def;
	int fd;
	int mem;			/* /proc/self/mem */
	struct drm_wddmseg_query_segment seg[4];	/* of def, by id */
	char dbg[64];			/* /sys/kernel/debug/dri/N */
	char use_engine[96];		/* test knob of def */
	char trace[64];			/* tracefs, "" without */
	char saved_use_engine[16];
	char saved_timeout[16];
	char saved_debug[32];
	char saved_event[8];
	int kmsg;
};

/* tracefs with the wddmseg events: where it is, or mount it. */
static void find_tracefs(FIXTURE_DATA(paging) *self)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[128];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/wddmseg", dirs[i]);
		if (!access(path, F_OK))
			goto found;
	}
	if (mount("nodev", dirs[0], "tracefs", 0, NULL))
		return;
	i = 0;
	snprintf(path, sizeof(path), "%s/events/wddmseg", dirs[0]);
	if (access(path, F_OK))
		return;
found:
	snprintf(self->trace, sizeof(self->trace), "%s", dirs[i]);
}

#define EVENT "events/wddmseg/wddmseg_paging_op/enable"

/* Enable the paging-op event and empty the trace buffer. */
static int trace_start(FIXTURE_DATA(paging) *self)
{
	char path[128];
	int ret;

	if (!self->trace[0])
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/" EVENT, self->trace);
	ret = file_param_set(self->saved_event, sizeof(self->saved_event), path, "1");
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/trace", self->trace);
	return file_write(path, "");
}

/* Lines of the trace buffer that contain every one of @a and @b. */
static int trace_count(FIXTURE_DATA(paging) *self, const char *a,
		       const char *b)
{
	char path[128], *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", self->trace);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) != -1)
		if (strstr(line, a) && (!b || strstr(line, b)))
			n++;
	free(line);
	fclose(f);
	return n;
}

GEM_SKIP_WITHOUT_DEVICE();

FIXTURE_SETUP(paging)
{
	self->mem = -1;
	self->kmsg = -1;
	self->def = gem_env_open_default(_metadata, &self->env, GEM_PICK_FIRST,
					 &self->fd, self->seg);
	if (!self->def && !SETUP_SKIPPED())
		WSKIP(return, "no device with the default layout in %s",
		     gem_env_source(&self->env));
	if (!self->def)
		return;
	self->mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->mem) TH_LOG("/proc/self/mem: %s", strerror(errno));
	gem_debugfs_dir(self->def, self->dbg, sizeof(self->dbg));
	gem_knob_path(self->def, "use_engine", self->use_engine,
		      sizeof(self->use_engine));
	find_tracefs(self);
}

FIXTURE_TEARDOWN(paging)
{
	char path[128];

	if (self->saved_use_engine[0])
		file_write(self->use_engine, self->saved_use_engine);
	if (self->saved_timeout[0])
		file_write(PARAM_FENCE_TIMEOUT, self->saved_timeout);
	drm_debug_restore(self->saved_debug);
	if (self->saved_event[0]) {
		snprintf(path, sizeof(path), "%s/" EVENT, self->trace);
		file_write(path, self->saved_event);
	}
	if (self->kmsg >= 0)
		close(self->kmsg);
	if (self->mem >= 0)
		close(self->mem);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Map the allocation with an unmapped page right after it, so that an
 * access running past its end finds nothing there. NULL on failure.
 */
static uint8_t *map_guarded(int fd, uint32_t h, uint64_t size)
{
	uint64_t off;
	uint8_t *area, *p;

	if (wddmseg_mmap_offset(fd, h, &off))
		return NULL;
	area = mmap(NULL, size + SZ_4K, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return NULL;
	munmap(area + size, SZ_4K);
	p = mmap(area, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 fd, off);
	if (p == MAP_FAILED) {
		munmap(area, size);
		return NULL;
	}
	return p;
}

static bool have_debugfs(FIXTURE_DATA(paging) *self)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/peek", self->dbg);
	return !access(path, R_OK);
}

/* Byte @i of an allocation filled with pattern @seed. */
static uint8_t pattern_byte(uint32_t seed, uint64_t i)
{
	return pattern_word(seed, i / 4) >> (8 * (i % 4));
}

/* Bytes of @buf that differ from @want; the first in *@first. */
static uint64_t diff_bytes(const uint8_t *buf, const uint8_t *want,
			   uint64_t len, uint64_t *first)
{
	uint64_t i, bad = 0;

	for (i = 0; i < len; i++)
		if (buf[i] != want[i] && !bad++)
			*first = i;
	return bad;
}

/* The ranges the access tests use: offset, length. */
static const struct { uint64_t off, len; } ranges[] = {
	{ 0, 4 },			/* one word */
	{ 13, 100 },			/* unaligned, inside a page */
	{ SZ_4K - 7, 30 },		/* crossing a page */
	{ 3 * SZ_4K + 5, 2 * SZ_4K + 11 },	/* several pages, unaligned */
	{ 0, BO_SIZE },			/* all of it */
	{ BO_SIZE - 1, 1 },		/* the last byte */
};

/*
 * A CPU_VISIBLE_ON_DEMAND allocation with pattern @seed in invisible
 * VRAM, mapped with a guard page; GEM_INFO in *@info.
 */
static void setup_invisible(struct __test_metadata *_metadata,
			    FIXTURE_DATA(paging) *self, uint32_t seed,
			    uint32_t *h, uint8_t **p,
			    struct drm_wddmseg_gem_info *info)
{
	/*
	 * Written in the aperture, not in visible VRAM: a stale copy there
	 * would hide an access at the wrong segment.
	 */
	ASSERT_EQ(0, gem_create_any(self->fd, BO_SIZE, SEG_APT, h));
	ASSERT_EQ(SEG_APT, wddmseg_allocation_segment(self->fd, *h));
	ASSERT_EQ(0, gem_write_pattern(self->fd, *h, BO_SIZE, seed));
	ASSERT_EQ(0, gem_move_wait(self->fd, *h, SEG_INV));
	ASSERT_EQ(0, wddmseg_query_allocation(self->fd, *h, info));
	ASSERT_EQ(SEG_INV, info->segment_id);
	*p = map_guarded(self->fd, *h, BO_SIZE);
	ASSERT_NE(NULL, *p) TH_LOG("mmap: %s", strerror(errno));
}

/* Every range read through /proc/self/mem equals the pattern. */
static void check_reads(struct __test_metadata *_metadata,
			FIXTURE_DATA(paging) *self, const uint8_t *p,
			const uint8_t *want, const char *how)
{
	static uint8_t buf[BO_SIZE];
	uint64_t first = 0, bad;
	unsigned int r;
	ssize_t n;

	for (r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		memset(buf, 0xa5, sizeof(buf));
		n = pread(self->mem, buf, ranges[r].len,
			  (off_t)(uintptr_t)(p + ranges[r].off));
		ASSERT_EQ((ssize_t)ranges[r].len, n)
			TH_LOG("%s: pread [0x%" PRIx64 ", +0x%" PRIx64 "): %s",
			       how, ranges[r].off, ranges[r].len,
			       n < 0 ? strerror(errno) : "short");
		bad = diff_bytes(buf, want + ranges[r].off, ranges[r].len,
				 &first);
		EXPECT_EQ(0, bad)
			TH_LOG("%s: [0x%" PRIx64 ", +0x%" PRIx64 "): %" PRIu64 " bad bytes, first at 0x%" PRIx64 " (got 0x%02x want 0x%02x)",
			       how, ranges[r].off, ranges[r].len, bad,
			       ranges[r].off + first, buf[first],
			       want[ranges[r].off + first]);
	}
}

/*
 * 1. /proc/self/mem reads an allocation in CPU-invisible VRAM exactly,
 * through READ_PHYSICAL, without touching the mapping or moving it; a read
 * past the end stops at the end.
 */
TEST_F_TIMEOUT(paging, proc_mem_read_invisible, 120)
{
	static uint8_t want[BO_SIZE], buf[2 * SZ_4K];
	struct drm_wddmseg_gem_info info, after;
	const uint32_t seed = 0x5eed0001;
	int traced, reads;
	uint32_t h;
	uint8_t *p;
	uint64_t i;
	ssize_t n;

	for (i = 0; i < BO_SIZE; i++)
		want[i] = pattern_byte(seed, i);
	setup_invisible(_metadata, self, seed, &h, &p, &info);
	traced = trace_start(self);

	check_reads(_metadata, self, p, want, "invisible VRAM");

	/* 100 bytes asked 10 before the end: 10 come back. */
	n = pread(self->mem, buf, 100, (off_t)(uintptr_t)(p + BO_SIZE - 10));
	EXPECT_EQ(10, n) TH_LOG("read across the end of the allocation: %zd (%s)",
				n, n < 0 ? strerror(errno) : "bytes");
	if (n == 10)
		EXPECT_EQ(0, memcmp(buf, want + BO_SIZE - 10, 10));

	ASSERT_EQ(0, wddmseg_query_allocation(self->fd, h, &after));
	EXPECT_EQ(SEG_INV, after.segment_id) TH_LOG("the access moved the allocation");
	EXPECT_EQ(info.offset, after.offset);
	EXPECT_EQ(info.move_count, after.move_count);

	if (!traced) {
		char what[64];

		snprintf(what, sizeof(what), "read_physical segment %u -> segment 0",
			 SEG_INV);
		reads = trace_count(self, what, NULL);
		/* every range needs at least one job, 64 KiB four (16 KiB each) */
		EXPECT_LE(9, reads) TH_LOG("%d READ_PHYSICAL jobs traced", reads);
		EXPECT_EQ(0, trace_count(self, "transfer", NULL));
	} else {
		TH_LOG("no tracefs: READ_PHYSICAL jobs not counted");
	}
	munmap(p, BO_SIZE);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
}

/*
 * 2. /proc/self/mem writes to invisible VRAM land where the GPU sees them
 * (debugfs peek), through WRITE_PHYSICAL, bytes around them untouched.
 */
TEST_F_TIMEOUT(paging, proc_mem_write_invisible, 120)
{
	static uint8_t want[BO_SIZE], got[BO_SIZE];
	struct drm_wddmseg_gem_info info;
	const uint32_t seed = 0x5eed0002;
	uint64_t i, first = 0, bad;
	unsigned int r;
	int traced;
	uint32_t h;
	uint8_t *p;
	ssize_t n;

	for (i = 0; i < BO_SIZE; i++)
		want[i] = pattern_byte(seed, i);
	setup_invisible(_metadata, self, seed, &h, &p, &info);
	traced = trace_start(self);

	for (r = 1; r < 4; r++) {
		uint8_t data[3 * SZ_4K];

		for (i = 0; i < ranges[r].len; i++)
			data[i] = (uint8_t)(0x31 * r + 7 * i + (i >> 8));
		n = pwrite(self->mem, data, ranges[r].len,
			   (off_t)(uintptr_t)(p + ranges[r].off));
		ASSERT_EQ((ssize_t)ranges[r].len, n)
			TH_LOG("pwrite [0x%" PRIx64 ", +0x%" PRIx64 "): %s",
			       ranges[r].off, ranges[r].len,
			       n < 0 ? strerror(errno) : "short");
		memcpy(want + ranges[r].off, data, ranges[r].len);
	}

	/* the GPU view of the page-crossing write, 64 bytes around it */
	if (have_debugfs(self)) {
		uint64_t at = SZ_4K - 32;
		uint32_t words[GEM_PEEK_WORDS];
		uint32_t exp;
		unsigned int j;

		ASSERT_EQ(0, gpu_peek_exact(self->def, self->seg[SEG_INV].base_address + info.offset + at,
				      words));
		for (j = 0; j < GEM_PEEK_WORDS; j++) {
			memcpy(&exp, want + at + 4 * j, 4);
			EXPECT_EQ(exp, words[j])
				TH_LOG("GPU word at 0x%" PRIx64, at + 4 * j);
		}
	}

	/* read back through /proc/self/mem, then through a move to the CPU */
	check_reads(_metadata, self, p, want, "after writes");
	EXPECT_EQ(SEG_INV, wddmseg_allocation_segment(self->fd, h));
	if (!traced) {
		char what[64];

		snprintf(what, sizeof(what), "write_physical segment 0 -> segment %u",
			 SEG_INV);
		EXPECT_LE(3, trace_count(self, what, NULL));
	}
	munmap(p, BO_SIZE);
	ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_VIS));
	ASSERT_EQ(0, gem_read_back(self->fd, h, BO_SIZE, got));
	bad = diff_bytes(got, want, BO_SIZE, &first);
	EXPECT_EQ(0, bad) TH_LOG("%" PRIu64 " bad bytes after the move, first at 0x%" PRIx64,
				 bad, first);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
}

/*
 * 3. CPU-visible VRAM and an aperture through /proc/self/mem too (the
 * former by READ_PHYSICAL, the latter from its system pages).
 */
TEST_F_TIMEOUT(paging, proc_mem_visible_and_aperture, 120)
{
	static uint8_t want[BO_SIZE];
	const uint32_t seed = 0x5eed0003;
	uint32_t h, seg[2] = { SEG_VIS, SEG_APT };
	unsigned int k;
	uint8_t *p;
	uint64_t i;

	for (i = 0; i < BO_SIZE; i++)
		want[i] = pattern_byte(seed, i);
	ASSERT_EQ(0, gem_create_any(self->fd, BO_SIZE, SEG_VIS, &h));
	ASSERT_EQ(0, gem_write_pattern(self->fd, h, BO_SIZE, seed));
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, gem_move_wait(self->fd, h, seg[k]));
		p = map_guarded(self->fd, h, BO_SIZE);
		ASSERT_NE(NULL, p);
		check_reads(_metadata, self, p, want,
			    k ? "aperture" : "visible VRAM");
		munmap(p, BO_SIZE);
		EXPECT_EQ(seg[k], wddmseg_allocation_segment(self->fd, h));
	}
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
}

/*
 * 4. Without the engine (use_engine=0) the same reads and writes go
 * through the BAR4 window: same bytes, no READ_PHYSICAL.
 */
TEST_F_TIMEOUT(paging, proc_mem_cpu_fallback, 120)
{
	static uint8_t want[BO_SIZE];
	struct drm_wddmseg_gem_info info;
	const uint32_t seed = 0x5eed0004;
	uint8_t data[64];
	int traced, ret;
	uint32_t h;
	uint8_t *p;
	uint64_t i;

	for (i = 0; i < BO_SIZE; i++)
		want[i] = pattern_byte(seed, i);
	setup_invisible(_metadata, self, seed, &h, &p, &info);
	ret = file_param_set(self->saved_use_engine, sizeof(self->saved_use_engine),
			self->use_engine, "0");
	if (ret) {
		munmap(p, BO_SIZE);
		wddmseg_destroy_allocation(self->fd, h);
		WSKIP(return, "cannot set %s: %s", self->use_engine, strerror(-ret));
	}
	traced = trace_start(self);
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(0xc3 ^ i);
	ASSERT_EQ((ssize_t)sizeof(data),
		  pwrite(self->mem, data, sizeof(data),
			 (off_t)(uintptr_t)(p + 2 * SZ_4K - 29)));
	memcpy(want + 2 * SZ_4K - 29, data, sizeof(data));
	check_reads(_metadata, self, p, want, "CPU window");
	EXPECT_EQ(SEG_INV, wddmseg_allocation_segment(self->fd, h));
	if (!traced)
		EXPECT_EQ(0, trace_count(self, "_physical", NULL));
	munmap(p, BO_SIZE);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
}

/*
 * 5. A READ_PHYSICAL job caught by an injected hang: the access waits for
 * the watchdog's reset and replay and still returns the right bytes.
 */
TEST_F_TIMEOUT(paging, proc_mem_read_hang, 120)
{
	static uint8_t want[BO_SIZE], buf[BO_SIZE];
	struct drm_wddmseg_gem_info info;
	const uint32_t seed = 0x5eed0005;
	char path[96];
	uint32_t h;
	uint8_t *p;
	uint64_t i, first = 0;
	ssize_t n;

	if (!have_debugfs(self))
		WSKIP(return, "no debugfs %s", self->dbg);
	for (i = 0; i < BO_SIZE; i++)
		want[i] = pattern_byte(seed, i);
	setup_invisible(_metadata, self, seed, &h, &p, &info);
	ASSERT_EQ(0, file_param_set(self->saved_timeout, sizeof(self->saved_timeout),
			       PARAM_FENCE_TIMEOUT, "1000"));
	snprintf(path, sizeof(path), "%s/inject", self->dbg);
	ASSERT_EQ(0, file_write(path, "hang"));
	n = pread(self->mem, buf, BO_SIZE, (off_t)(uintptr_t)p);
	ASSERT_EQ((ssize_t)BO_SIZE, n) TH_LOG("pread under a hang: %s",
					     n < 0 ? strerror(errno) : "short");
	EXPECT_EQ(0, diff_bytes(buf, want, BO_SIZE, &first))
		TH_LOG("first bad byte at 0x%" PRIx64, first);
	munmap(p, BO_SIZE);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
}

static uint64_t local_usage(int fd)
{
	struct drm_wddmseg_query_budget b;

	if (wddmseg_query_budget(fd, WDDMSEG_BUDGET_LOCAL, &b))
		return UINT64_MAX;
	return b.current_usage;
}

static uint64_t nonzero_bytes(const uint8_t *p, uint64_t len, uint64_t *first)
{
	uint64_t i, bad = 0;

	for (i = 0; i < len; i++)
		if (p[i] && !bad++)
			*first = i;
	return bad;
}

/*
 * 6. EVICT with DISCARD out of each VRAM segment: DISCARD_CONTENT on the
 * engine and no Transfer, the old VRAM wiped, counters follow, and the way
 * back is a Fill of zeroes.
 */
TEST_F_TIMEOUT(paging, evict_discard_vram, 120)
{
	static uint8_t got[BO_SIZE];
	const uint32_t seg[2] = { SEG_VIS, SEG_INV };
	struct drm_wddmseg_gem_info info, after;
	uint64_t first = 0, bad, use0, use1;
	unsigned int k;
	int traced;
	uint32_t h;

	for (k = 0; k < 2; k++) {
		char what[64];

		ASSERT_EQ(0, gem_create_any(self->fd, BO_SIZE, SEG_VIS, &h));
		ASSERT_EQ(0, gem_write_pattern(self->fd, h, BO_SIZE, 0xd15c + k));
		ASSERT_EQ(0, gem_move_wait(self->fd, h, seg[k]));
		ASSERT_EQ(0, wddmseg_query_allocation(self->fd, h, &info));
		use0 = local_usage(self->fd);
		traced = trace_start(self);

		ASSERT_EQ(0, wddmseg_evict(self->fd, h, WDDMSEG_EVICT_DISCARD));
		ASSERT_EQ(0, wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC));
		ASSERT_EQ(0, wddmseg_query_allocation(self->fd, h, &after));
		EXPECT_EQ(0, after.segment_id);
		EXPECT_EQ(0, after.state & WDDMSEG_STATE_RESIDENT);
		EXPECT_EQ(info.eviction_count + 1, after.eviction_count);
		use1 = local_usage(self->fd);
		EXPECT_EQ(use0 - BO_SIZE, use1)
			TH_LOG("local usage %" PRIu64 " -> %" PRIu64, use0, use1);

		if (!traced) {
			snprintf(what, sizeof(what), "discard segment %u -> segment 0",
				 seg[k]);
			EXPECT_EQ(1, trace_count(self, what, NULL));
			EXPECT_EQ(0, trace_count(self, "transfer", NULL))
				TH_LOG("a discard copied the content out");
		}
		/* the VRAM it left holds no trace of the content */
		if (have_debugfs(self)) {
			uint32_t words[GEM_PEEK_WORDS];
			uint64_t at[2] = { 0, BO_SIZE - 64 };
			unsigned int j, m;

			for (m = 0; m < 2; m++) {
				ASSERT_EQ(0, gpu_peek_exact(self->def, self->seg[seg[k]].base_address +
						      info.offset + at[m], words));
				for (j = 0; j < GEM_PEEK_WORDS; j++)
					EXPECT_EQ(0u, words[j])
						TH_LOG("old VRAM at 0x%" PRIx64 " not wiped",
						       at[m] + 4 * j);
			}
		}
		/*
		 * Back without touching it: zeroes, by one Fill (the engine's
		 * "fill", the CPU's "cpu fill") or none where the VRAM is
		 * known to be zero ("skipped fill"); never a Transfer.
		 */
		trace_start(self);
		ASSERT_EQ(0, gem_move_wait(self->fd, h, seg[k]));
		if (!traced) {
			snprintf(what, sizeof(what), "fill segment 0 -> segment %u",
				 seg[k]);
			EXPECT_EQ(1, trace_count(self, what, NULL));
		}
		ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_VIS));
		ASSERT_EQ(0, gem_read_back(self->fd, h, BO_SIZE, got));
		bad = nonzero_bytes(got, BO_SIZE, &first);
		EXPECT_EQ(0, bad) TH_LOG("segment %u after discard: %" PRIu64 " stale bytes, first at 0x%" PRIx64,
					 seg[k], bad, first);
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	}
}

/*
 * 7. DISCARD of an allocation whose content is in system pages (an
 * aperture, or system memory already): the pages go, zeroes remain, and
 * the next residency in VRAM is a Fill.
 */
TEST_F_TIMEOUT(paging, evict_discard_pages, 120)
{
	static uint8_t got[BO_SIZE];
	uint64_t first = 0, bad;
	unsigned int k;
	uint32_t h;
	int traced;

	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, gem_create_any(self->fd, BO_SIZE, SEG_VIS, &h));
		ASSERT_EQ(0, gem_write_pattern(self->fd, h, BO_SIZE, 0xd15c10 + k));
		ASSERT_EQ(0, gem_move_wait(self->fd, h, k ? 0 : SEG_APT));
		ASSERT_EQ(0, wddmseg_evict(self->fd, h, WDDMSEG_EVICT_DISCARD));
		ASSERT_EQ(0, wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC));
		EXPECT_EQ(0, wddmseg_allocation_segment(self->fd, h));
		ASSERT_EQ(0, gem_read_back(self->fd, h, BO_SIZE, got));
		bad = nonzero_bytes(got, BO_SIZE, &first);
		EXPECT_EQ(0, bad) TH_LOG("%s after discard: %" PRIu64 " stale bytes, first at 0x%" PRIx64,
					 k ? "system memory" : "aperture", bad,
					 first);
		/* discarded again, then into VRAM: a Fill (or skipped fill) */
		ASSERT_EQ(0, wddmseg_evict(self->fd, h, WDDMSEG_EVICT_DISCARD));
		traced = trace_start(self);
		ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_INV));
		if (!traced) {
			EXPECT_EQ(1, trace_count(self, "fill segment 0 -> segment 2", NULL));
			EXPECT_EQ(0, trace_count(self, "transfer", NULL));
		}
		ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_VIS));
		ASSERT_EQ(0, gem_read_back(self->fd, h, BO_SIZE, got));
		EXPECT_EQ(0, nonzero_bytes(got, BO_SIZE, &first));
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	}
}

/*
 * 7b. An allocation whose content was discarded has none anywhere (TTM
 * leaves it without a resource since 6.3; 6.1 kept unpopulated system
 * pages). Made resident in VRAM that still holds another allocation's
 * content (an eviction does not wipe the range it leaves), it gets a
 * Fill of zeroes, not that content.
 */
TEST_F_TIMEOUT(paging, discard_then_used_vram, 120)
{
	static uint8_t got[BO_SIZE];
	struct drm_wddmseg_gem_info xi, ai;
	uint64_t first = 0, bad;
	uint32_t x, a;
	int traced;

	/* x leaves its content in a range of invisible VRAM */
	ASSERT_EQ(0, gem_create_any(self->fd, BO_SIZE, SEG_VIS, &x));
	ASSERT_EQ(0, gem_write_pattern(self->fd, x, BO_SIZE, 0x57a1e));
	ASSERT_EQ(0, gem_move_wait(self->fd, x, SEG_INV));
	ASSERT_EQ(0, wddmseg_query_allocation(self->fd, x, &xi));
	/* a: content discarded, out of system memory */
	ASSERT_EQ(0, gem_create_any(self->fd, BO_SIZE, SEG_VIS, &a));
	ASSERT_EQ(0, gem_write_pattern(self->fd, a, BO_SIZE, 0xa11));
	ASSERT_EQ(0, gem_move_wait(self->fd, a, 0));
	ASSERT_EQ(0, wddmseg_evict(self->fd, a, WDDMSEG_EVICT_DISCARD));
	ASSERT_EQ(0, wddmseg_wait(self->fd, a, 20 * NSEC_PER_SEC));
	ASSERT_EQ(0, gem_move_wait(self->fd, x, 0));

	traced = trace_start(self);
	ASSERT_EQ(0, gem_move_wait(self->fd, a, SEG_INV));
	ASSERT_EQ(0, wddmseg_query_allocation(self->fd, a, &ai));
	if (!traced) {
		EXPECT_EQ(1, trace_count(self, "fill segment 0 -> segment 2", NULL));
		EXPECT_EQ(0, trace_count(self, "transfer", NULL));
	}
	ASSERT_EQ(0, gem_move_wait(self->fd, a, SEG_VIS));
	ASSERT_EQ(0, gem_read_back(self->fd, a, BO_SIZE, got));
	bad = nonzero_bytes(got, BO_SIZE, &first);
	EXPECT_EQ(0, bad) TH_LOG("discarded, then in segment 2 at 0x%" PRIx64 " (the other allocation left 0x%" PRIx64 "): %" PRIu64 " stale bytes, first at 0x%" PRIx64,
				 (uint64_t)ai.offset, (uint64_t)xi.offset, bad, first);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, a));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, x));
}

/*
 * 8. DISCARD of a SynchronousPaging allocation (the discard completes
 * before the ioctl returns), then without the engine (use_engine=0: no
 * DISCARD_CONTENT, the CPU path frees the range): zeroes either way.
 */
TEST_F_TIMEOUT(paging, evict_discard_sync_and_cpu, 120)
{
	static uint8_t got[BO_SIZE];
	struct wddmseg_allocation_desc a = {
		.size = BO_SIZE,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV) | BIT(SEG_APT),
		.preferred = { SEG_APT },
	};
	uint64_t first = 0;
	unsigned int k;
	uint32_t h;
	int ret;

	for (k = 0; k < 2; k++) {
		if (k) {
			a.flags &= ~WDDMSEG_ALLOC_SYNCHRONOUS_PAGING;
			ret = file_param_set(self->saved_use_engine,
					sizeof(self->saved_use_engine),
					self->use_engine, "0");
			if (ret)
				WSKIP(return, "cannot set %s: %s", self->use_engine,
				     strerror(-ret));
		} else {
			a.flags |= WDDMSEG_ALLOC_SYNCHRONOUS_PAGING;
		}
		ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &a, &h));
		ASSERT_EQ(0, gem_write_pattern(self->fd, h, BO_SIZE, 0x5c0 + k));
		ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_INV));
		ASSERT_EQ(0, wddmseg_evict(self->fd, h, WDDMSEG_EVICT_DISCARD));
		if (!k)
			EXPECT_EQ(0, wddmseg_wait(self->fd, h, 0))
				TH_LOG("SynchronousPaging discard still busy after the ioctl");
		EXPECT_EQ(0, wddmseg_allocation_segment(self->fd, h));
		ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_INV));
		ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_VIS));
		ASSERT_EQ(0, gem_read_back(self->fd, h, BO_SIZE, got));
		EXPECT_EQ(0, nonzero_bytes(got, BO_SIZE, &first))
			TH_LOG("%s: stale bytes after discard, first at 0x%" PRIx64,
			       k ? "CPU path" : "SynchronousPaging", first);
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	}
}

/* Turn on DRM_UT_DRIVER and open /dev/kmsg at its end; false if not. */
static bool dbg_open(FIXTURE_DATA(paging) *self)
{
	if (drm_debug_raise(DRM_UT_DRIVER, self->saved_debug,
			    sizeof(self->saved_debug)))
		return false;
	self->kmsg = kmsg_open_end();
	return self->kmsg >= 0;
}

/* Whether a kernel log record since the last call contains @s. */
static bool dbg_seen(FIXTURE_DATA(paging) *self, const char *s)
{
	char rec[2048];
	bool seen = false;

	while (kmsg_read(self->kmsg, rec, sizeof(rec)))
		if (strstr(rec, s))
			seen = true;
	return seen;
}

/*
 * 9. Refusals: unknown EVICT flags, flags on MAKE_RESIDENT, pad and
 * reserved, a pinned allocation, ExistingSysMem; each with its drm_dbg
 * line when drm.debug can be turned on. The content survives them all.
 */
TEST_F_TIMEOUT(paging, discard_refusals, 60)
{
	static uint8_t got[BO_SIZE];
	static const uint32_t bad_flags[] = { 2, 0x80000000u, 3 };
	struct drm_wddmseg_gem_residency r;
	struct wddmseg_allocation_desc a = { .size = SZ_1M };
	uint64_t first = 0;
	unsigned int i;
	uint32_t h, pin;
	bool dbg = dbg_open(self);
	void *user;
	int ret;

	ASSERT_EQ(0, gem_create_any(self->fd, BO_SIZE, SEG_VIS, &h));
	ASSERT_EQ(0, gem_write_pattern(self->fd, h, BO_SIZE, 0x7e57));
	ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_INV));

	for (i = 0; i < 3; i++) {
		EXPECT_EQ(-EINVAL, wddmseg_evict(self->fd, h, bad_flags[i]))
			TH_LOG("EVICT flags 0x%x", bad_flags[i]);
		if (dbg)
			EXPECT_TRUE(dbg_seen(self, "evict: unknown flags"));
	}
	memset(&r, 0, sizeof(r));
	r.handle = h;
	r.segment_id = SEG_VIS;
	r.flags = WDDMSEG_EVICT_DISCARD;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_MAKE_RESIDENT, &r));
	if (dbg)
		EXPECT_TRUE(dbg_seen(self, "MAKE_RESIDENT takes no flags"));
	r.segment_id = 0;
	r.flags = 0;
	r.pad = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_EVICT, &r));
	r.pad = 0;
	r.reserved = 1;
	r.flags = WDDMSEG_EVICT_DISCARD;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_EVICT, &r));
	if (dbg)
		EXPECT_TRUE(dbg_seen(self, "pad and reserved fields must be zero"));
	r.reserved = 0;
	r.segment_id = SEG_VIS;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_EVICT, &r));
	/* none of these moved or dropped anything */
	EXPECT_EQ(SEG_INV, wddmseg_allocation_segment(self->fd, h));
	ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_VIS));
	ASSERT_EQ(0, gem_read_back(self->fd, h, BO_SIZE, got));
	EXPECT_EQ(0, pattern_check(got, BO_SIZE, 0x7e57, &first))
		TH_LOG("content lost by a refused discard, first at 0x%" PRIx64, first);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));

	/* pinned (Overlay): -EBUSY, as without DISCARD */
	a.flags = WDDMSEG_ALLOC_OVERLAY;
	a.supported_segments = BIT(SEG_VIS);
	a.preferred[0] = SEG_VIS;
	ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &a, &pin));
	EXPECT_EQ(-EBUSY, wddmseg_evict(self->fd, pin, WDDMSEG_EVICT_DISCARD));
	if (dbg)
		EXPECT_TRUE(dbg_seen(self, "pinned allocation"));
	EXPECT_EQ(SEG_VIS, wddmseg_allocation_segment(self->fd, pin));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, pin));

	/* ExistingSysMem: the content is the user's memory */
	user = mmap(NULL, SZ_64K, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, user);
	memset(user, 0x5a, SZ_64K);
	{
		struct drm_wddmseg_gem_create c;

		memset(&c, 0, sizeof(c));
		c.size = SZ_64K;
		c.flags = WDDMSEG_ALLOC_EXISTING_SYSMEM;
		c.supported_segments = BIT(SEG_APT);
		c.preferred[0] = SEG_APT;
		c.user_ptr = (uintptr_t)user;
		ret = wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_GEM_CREATE, &c);
		if (ret) {
			TH_LOG("ExistingSysMem allocation refused (%d): not checked", ret);
		} else {
			EXPECT_EQ(-EINVAL, wddmseg_evict(self->fd, c.handle,
						       WDDMSEG_EVICT_DISCARD));
			if (dbg)
				EXPECT_TRUE(dbg_seen(self, "discard of an ExistingSysMem"));
			EXPECT_EQ(0, bytes_check(user, SZ_64K, 0x5a, &first));
			ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, c.handle));
		}
	}
	munmap(user, SZ_64K);
}

/*
 * 10. A read-only mapping reads through /proc/self/mem but cannot be
 * written through it (as get_user_pages refuses a forced write to a
 * shared read-only mapping): pwrite fails, the content is unchanged and
 * the rule is logged.
 */
TEST_F_TIMEOUT(paging, proc_mem_read_only_mapping, 120)
{
	static uint8_t want[BO_SIZE], got[BO_SIZE];
	struct drm_wddmseg_gem_info info;
	const uint32_t seed = 0x5eed000a;
	uint8_t data[64], *rw, *ro;
	uint64_t i, off, first = 0;
	bool dbg = dbg_open(self);
	uint32_t h;
	ssize_t n;

	for (i = 0; i < BO_SIZE; i++)
		want[i] = pattern_byte(seed, i);
	setup_invisible(_metadata, self, seed, &h, &rw, &info);
	munmap(rw, BO_SIZE);
	ASSERT_EQ(0, wddmseg_mmap_offset(self->fd, h, &off));
	ro = mmap(NULL, BO_SIZE, PROT_READ, MAP_SHARED, self->fd, off);
	ASSERT_NE(MAP_FAILED, ro) TH_LOG("mmap: %s", strerror(errno));

	check_reads(_metadata, self, ro, want, "read-only mapping");

	memset(data, 0xc3, sizeof(data));
	n = pwrite(self->mem, data, sizeof(data),
		   (off_t)(uintptr_t)(ro + SZ_4K - 32));
	EXPECT_EQ(-1, n) TH_LOG("pwrite through a read-only mapping: %zd", n);
	if (dbg)
		EXPECT_TRUE(dbg_seen(self, "rule read-only-mapping"));

	munmap(ro, BO_SIZE);
	EXPECT_EQ(SEG_INV, wddmseg_allocation_segment(self->fd, h));
	ASSERT_EQ(0, gem_move_wait(self->fd, h, SEG_VIS));
	ASSERT_EQ(0, gem_read_back(self->fd, h, BO_SIZE, got));
	EXPECT_EQ(0, diff_bytes(got, want, BO_SIZE, &first))
		TH_LOG("content changed through a read-only mapping, first at 0x%" PRIx64,
		       first);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
}

TEST_HARNESS_MAIN
