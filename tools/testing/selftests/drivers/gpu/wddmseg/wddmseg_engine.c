// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg copy engine (wddmseg_engine.c, the engine path of
 * wddmseg_ttm.c): multi-job migrations between every kind of place, the
 * engine against the CPU fallback (test knob use_engine), GEM_WAIT
 * on pipelined engine work, recovery from an injected hang and an injected
 * fault (debugfs "inject"; the watchdog resets the engine and replays the
 * jobs that had not completed), GEM_WAIT's -ETIME while an injected hang
 * holds the engine, the wipe of released VRAM, the unmapping of an
 * aperture range an allocation left, concurrent submitters, both ways
 * of waiting for a paging fence (polling its writeback, test knob
 * fence_spin_us, and sleeping until its interrupt), and moves into VRAM
 * that return before their copy out of system pages is done.
 *
 * Runs on the device of the expectation file ($WDDMSEG_EXPECT) with the
 * default layout and the most CPU-visible VRAM (in the VM check boot the
 * default device, 64 MiB + 64 MiB VRAM, 256 MiB aperture with a 128 MiB
 * CommitLimit). Engine state comes from debugfs
 * /sys/kernel/debug/dri/N/engine, test knobs from its wddmseg/ directory;
 * tests that need debugfs or a module parameter skip without it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "wddmseg_gem.h"

#define SZ_8M		(8 * SZ_1M)

#define PARAM_KEEP_SYSMEM	PARAM_DIR "/keep_sysmem_mb"
#define RESET_MSG		"paging engine reset"

FIXTURE(engine) {
	struct gem_env env;
	struct gem_dev *def;
	int fd;
	struct drm_wddmseg_query_segment seg[4];	/* of def, by id */
	char dbg[64];			/* /sys/kernel/debug/dri/N */
	char use_engine[96];		/* test knobs of def */
	char fence_spin[96];
	char saved_use_engine[16];
	char saved_timeout[16];
	char saved_spin[16];
	char saved_keep[16];
};

struct eng_state {
	int ready;
	uint64_t submitted, completed, resets;
};

static uint64_t field(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoull(p + strlen(key), NULL, 0) : UINT64_MAX;
}

static int engine_state(FIXTURE_DATA(engine) *self, struct eng_state *st)
{
	char path[96], buf[1024];
	int ret;

	snprintf(path, sizeof(path), "%s/engine", self->dbg);
	ret = file_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	st->ready = (int)field(buf, "ready: ");
	st->submitted = field(buf, "submitted seqno: ");
	st->completed = field(buf, "completed seqno: ");
	st->resets = field(buf, "resets: ");
	if (st->submitted == UINT64_MAX || st->resets == UINT64_MAX)
		return -EPROTO;
	return 0;
}

/* Wait (up to 10 s) until every job submitted so far has completed. */
static int engine_drain(FIXTURE_DATA(engine) *self)
{
	struct eng_state st;
	uint64_t target;
	int i, ret;

	ret = engine_state(self, &st);
	if (ret)
		return ret;
	target = st.submitted;
	for (i = 0; i < 1000; i++) {
		ret = engine_state(self, &st);
		if (ret || st.completed >= target)
			return ret;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

GEM_SKIP_WITHOUT_DEVICE();

FIXTURE_SETUP(engine)
{
	self->def = gem_env_open_default(_metadata, &self->env,
					 GEM_PICK_MOST_VISIBLE, &self->fd,
					 self->seg);
	if (!self->def && !SETUP_SKIPPED())
		WSKIP(return, "no device with the default layout in %s",
		     gem_env_source(&self->env));
	if (!self->def)
		return;
	gem_debugfs_dir(self->def, self->dbg, sizeof(self->dbg));
	gem_knob_path(self->def, "use_engine", self->use_engine,
		      sizeof(self->use_engine));
	gem_knob_path(self->def, "fence_spin_us", self->fence_spin,
		      sizeof(self->fence_spin));
}

FIXTURE_TEARDOWN(engine)
{
	if (self->saved_use_engine[0])
		file_write(self->use_engine, self->saved_use_engine);
	if (self->saved_timeout[0])
		file_write(PARAM_FENCE_TIMEOUT, self->saved_timeout);
	if (self->saved_spin[0])
		file_write(self->fence_spin, self->saved_spin);
	if (self->saved_keep[0])
		file_write(PARAM_KEEP_SYSMEM, self->saved_keep);
	if (self->fd >= 0)
		close(self->fd);
}

static bool engine_debugfs(FIXTURE_DATA(engine) *self)
{
	struct eng_state st;

	return !engine_state(self, &st) && st.ready == 1;
}

#define NEED_ENGINE()							\
	do {								\
		if (!engine_debugfs(self))				\
			WSKIP(return, "no debugfs %s/engine or engine not ready", \
			     self->dbg);				\
	} while (0)

/* The engine runs the moves (test knob use_engine), or skip. */
#define NEED_ENGINE_ON()						\
	do {								\
		char v_[8] = "";					\
									\
		NEED_ENGINE();						\
		if (!file_read(self->use_engine, v_, sizeof(v_)) &&	\
		    v_[0] == 'N')					\
			WSKIP(return, "use_engine is off");		\
	} while (0)

/*
 * Hang and fault injection through debugfs (@path gets the "inject" file)
 * with fence_timeout_ms set to @ms (restored by the teardown); @param,
 * unless NULL, is another parameter or knob the test writes. Skips
 * without any of them.
 */
#define NEED_INJECT(path, ms, param)					\
	do {								\
		const char *p_ = (param);				\
									\
		NEED_ENGINE_ON();					\
		snprintf(path, sizeof(path), "%s/inject", self->dbg);	\
		if (access(path, W_OK) ||				\
		    access(PARAM_FENCE_TIMEOUT, W_OK) ||		\
		    (p_ && access(p_, W_OK)))				\
			WSKIP(return, "no %s, %s or %s", path,		\
			     PARAM_FENCE_TIMEOUT, p_ ? p_ : "-");	\
		ASSERT_EQ(0, file_param_set(self->saved_timeout,	\
					    sizeof(self->saved_timeout), \
					    PARAM_FENCE_TIMEOUT, (ms)));	\
	} while (0)

#define MOVE_OK(h, to)							\
	ASSERT_EQ(0, gem_move_wait(self->fd, (h), (to)))			\
		TH_LOG("move to %s failed", seg_name((to)))

/* A new allocation of @size in seg1, holding the pattern of @seed. */
#define CREATE_FILLED(h, size, seed)					\
	do {								\
		ASSERT_EQ(0, gem_create_any(self->fd, (size), SEG_VIS, &(h))); \
		MOVE_OK((h), SEG_VIS);					\
		ASSERT_EQ(0, gem_write_pattern(self->fd, (h), (size), (seed))); \
	} while (0)

/*
 * The GPU view of an allocation at @gpu: 64 bytes at the start and end of
 * every 8 MiB engine job and at the end. Returns wrong words, or -errno.
 */
static long engine_gpu_check(FIXTURE_DATA(engine) *self, uint64_t gpu,
			     uint64_t size, uint32_t seed, uint64_t *first_bad)
{
	uint32_t words[GEM_PEEK_WORDS];
	unsigned int faults, j;
	uint64_t off;
	long bad = 0;
	int ret;

	for (off = 0; off < size; off += SZ_1M) {
		uint64_t at[3] = { off, off + SZ_1M - 64, size - 64 };
		unsigned int k;

		/*
		 * every MiB start, both edges of each 8 MiB job, and the
		 * last 64 bytes (a move that drops its last page)
		 */
		for (k = 0; k < 3; k++) {
			if (k == 1 && ((off + SZ_1M) % SZ_8M || off + SZ_1M > size))
				continue;
			if (k == 2 && off + SZ_1M < size)
				continue;
			ret = gem_peek(self->dbg, gpu + at[k], words, &faults);
			if (ret)
				return ret;
			for (j = 0; j < GEM_PEEK_WORDS; j++) {
				if (words[j] == pattern_word(seed, at[k] / 4 + j))
					continue;
				if (!bad)
					*first_bad = at[k] + 4 * j;
				bad++;
			}
		}
	}
	return bad;
}

/*
 * Create the largest allocation of 64, 48 or 32 MiB that fits in visible
 * VRAM next to whatever else is there.
 */
static uint64_t create_big(FIXTURE_DATA(engine) *self, uint32_t *h)
{
	static const uint64_t sizes[] = { 64 * SZ_1M, 48 * SZ_1M, 32 * SZ_1M };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (sizes[i] > self->seg[SEG_VIS].size || sizes[i] > self->seg[SEG_INV].size)
			continue;
		if (gem_create_any(self->fd, sizes[i], SEG_VIS, h))
			continue;
		if (!gem_move_wait(self->fd, *h, SEG_VIS))
			return sizes[i];
		wddmseg_destroy_allocation(self->fd, *h);
	}
	return 0;
}

/*
 * Words of the pattern the GPU still sees at @gpu, sampled at the start of
 * every MiB of @size: after the allocation left that place (the aperture
 * range was unmapped, the VRAM was wiped) there must be none. Returns
 * the count or -errno.
 */
static long gpu_stale(FIXTURE_DATA(engine) *self, uint64_t gpu,
		      uint64_t size, uint32_t seed)
{
	uint32_t words[GEM_PEEK_WORDS];
	unsigned int faults, j;
	uint64_t off;
	long stale = 0;
	int ret;

	for (off = 0; off < size; off += SZ_1M) {
		ret = gem_peek(self->dbg, gpu + off, words, &faults);
		if (ret)
			return ret;
		for (j = 0; j < GEM_PEEK_WORDS; j++)
			stale += words[j] == pattern_word(seed, off / 4 + j);
	}
	return stale;
}

/*
 * seg1 -> seg2 -> seg3 -> system -> seg1 with the pattern written in seg1;
 * checks the GPU view in invisible VRAM and in the aperture (where the
 * range the allocation lands in held other bytes before: its first stay
 * there), and returns the final bytes in @out. The CPU fallback
 * (use_engine=0) is checked the same way.
 */
static void round_trip(struct __test_metadata *_metadata,
		       FIXTURE_DATA(engine) *self, uint32_t h, uint64_t size,
		       uint32_t seed, void *out)
{
	static const uint32_t path[] = { SEG_INV, SEG_APT, 0, SEG_VIS };
	struct drm_wddmseg_gem_info info;
	uint64_t moves, first = 0, bad, apt_gpu = 0;
	unsigned int i;

	MOVE_OK(h, SEG_VIS);
	ASSERT_EQ(0, gem_write_pattern(self->fd, h, size, seed));
	ASSERT_EQ(0, wddmseg_query_allocation(self->fd, h, &info));
	moves = info.move_count;
	for (i = 0; i < 4; i++) {
		MOVE_OK(h, path[i]);
		ASSERT_EQ(0, wddmseg_query_allocation(self->fd, h, &info));
		EXPECT_EQ(moves + i + 1, info.move_count);
		if (path[i] == SEG_INV && engine_debugfs(self)) {
			long gbad = engine_gpu_check(self, self->seg[SEG_INV].base_address + info.offset,
					      size, seed, &first);

			ASSERT_LE(0, gbad) TH_LOG("peek: %s", strerror(-gbad));
			EXPECT_EQ(0, gbad)
				TH_LOG("invisible VRAM: GPU sees %ld wrong words, first at 0x%" PRIx64,
				       gbad, first);
		} else if (path[i] == SEG_APT && !access(PARAM_DIR, F_OK) &&
			   engine_debugfs(self)) {
			long gbad = engine_gpu_check(self, self->seg[SEG_APT].base_address + info.offset,
					      size, seed, &first);

			ASSERT_LE(0, gbad) TH_LOG("peek: %s", strerror(-gbad));
			EXPECT_EQ(0, gbad)
				TH_LOG("aperture: GPU sees %ld wrong words, first at 0x%" PRIx64,
				       gbad, first);
			apt_gpu = self->seg[SEG_APT].base_address + info.offset;
		} else if (apt_gpu) {
			/* moved out: the range must be unmapped (dummy page) */
			long stale = gpu_stale(self, apt_gpu, size, seed);

			ASSERT_LE(0, stale) TH_LOG("peek: %s", strerror(-stale));
			EXPECT_EQ(0, stale)
				TH_LOG("aperture range still shows %ld words of the allocation after it moved out",
				       stale);
			apt_gpu = 0;
		}
	}
	ASSERT_EQ(0, gem_read_back(self->fd, h, size, out));
	bad = pattern_check(out, size, seed, &first);
	EXPECT_EQ(0u, bad)
		TH_LOG("%" PRIu64 " of 0x%" PRIx64 " bytes wrong after seg1->seg2->seg3->system->seg1, first at 0x%" PRIx64 " (got 0x%08x want 0x%08x)",
		       bad, size, first, ((uint32_t *)out)[first / 4],
		       pattern_word(seed, first / 4));
}

/* 1. Multi-job (8 MiB each) migrations between every kind of place. */
TEST_F_TIMEOUT(engine, big_migrations, 120)
{
	struct eng_state st0, st1;
	bool dbg = engine_debugfs(self);
	uint64_t size, jobs;
	uint32_t h = 0;	/* set by create_big() when it returns a size */
	void *out;

	size = create_big(self, &h);
	ASSERT_NE(0u, size) TH_LOG("no 32 MiB allocation fits in seg1");
	TH_LOG("%" PRIu64 " MiB allocation", (uint64_t)(size / SZ_1M));
	out = malloc(size);
	ASSERT_NE(NULL, out);
	if (dbg)
		ASSERT_EQ(0, engine_state(self, &st0));
	round_trip(_metadata, self, h, size, 0xb16, out);
	if (dbg) {
		ASSERT_EQ(0, engine_state(self, &st1));
		/* seg1->seg2, ->seg3, ->system, ->seg1: each in 8 MiB jobs */
		jobs = 4 * (size / SZ_8M);
		char v[8] = "";

		/* with use_engine on (or absent), each job is one fence */
		if (file_read(self->use_engine, v, sizeof(v)) || v[0] != 'N') {
			EXPECT_LE(jobs, st1.submitted - st0.submitted)
				TH_LOG("%" PRIu64 " engine jobs for 4 moves of %" PRIu64 " MiB",
				       (uint64_t)(st1.submitted - st0.submitted),
				       (uint64_t)(size / SZ_1M));
		}
		EXPECT_EQ(st1.submitted, st1.completed);
	}
	free(out);
	wddmseg_destroy_allocation(self->fd, h);
}

/* 2. The same round trip with the CPU fallback and the engine. */
TEST_F_TIMEOUT(engine, engine_vs_cpu, 120)
{
	const uint64_t size = 32 * SZ_1M + 3 * SZ_4K;	/* a partial job */
	struct eng_state st0, st1;
	void *out[2];
	unsigned int mode;
	uint32_t h;

	if (access(self->use_engine, W_OK))
		WSKIP(return, "no writable %s", self->use_engine);
	NEED_ENGINE();
	out[0] = malloc(size);
	out[1] = malloc(size);
	ASSERT_NE(NULL, out[0]);
	ASSERT_NE(NULL, out[1]);
	for (mode = 0; mode < 2; mode++) {
		ASSERT_EQ(0, file_param_set(self->saved_use_engine,
				       sizeof(self->saved_use_engine),
				       self->use_engine, mode ? "1" : "0"));
		ASSERT_EQ(0, gem_create_any(self->fd, size, SEG_VIS, &h));
		ASSERT_EQ(0, engine_state(self, &st0));
		round_trip(_metadata, self, h, size, 0xc0ffee, out[mode]);
		ASSERT_EQ(0, engine_state(self, &st1));
		if (mode) {
			EXPECT_LE(4 * 5u, st1.submitted - st0.submitted)
				TH_LOG("use_engine=1: only %" PRIu64 " engine jobs",
				       st1.submitted - st0.submitted);
		} else {
			EXPECT_EQ(st0.submitted, st1.submitted)
				TH_LOG("use_engine=0: the engine still got %" PRIu64 " jobs",
				       st1.submitted - st0.submitted);
		}
		wddmseg_destroy_allocation(self->fd, h);
	}
	EXPECT_EQ(0, memcmp(out[0], out[1], size))
		TH_LOG("engine and CPU round trips differ");
	free(out[0]);
	free(out[1]);
}

/*
 * 2b. Every move between every ordered pair of places, with the CPU
 * fallback (use_engine=0) and with the engine (which copies small moves
 * with the CPU too, below the cpu_move_max_kb thresholds), at sizes of
 * one page, three pages, just over 64 KiB and just over 1 MiB: a fresh
 * pattern before each move, every byte read back after it. The pattern
 * differs from move to move, so a page a move leaves out (the last one,
 * say) shows as bytes of an older pattern even where the destination
 * range held this allocation before.
 */
TEST_F_TIMEOUT(engine, moves_content_checked, 300)
{
	static const uint32_t places[] = { 0, SEG_VIS, SEG_INV, SEG_APT };
	static const uint64_t sizes[] = {
		SZ_4K, 3 * SZ_4K, SZ_64K + SZ_4K, SZ_1M + 5 * SZ_4K,
	};
	unsigned int mode, k, i, j, failures = 0;
	uint64_t bad, first;
	uint32_t h, seed;
	void *out;

	if (access(self->use_engine, W_OK))
		WSKIP(return, "no writable %s", self->use_engine);
	NEED_ENGINE();
	out = malloc(sizes[ARRAY_SIZE(sizes) - 1]);
	ASSERT_NE(NULL, out);
	for (mode = 0; mode < 2; mode++) {
		ASSERT_EQ(0, file_param_set(self->saved_use_engine,
					    sizeof(self->saved_use_engine),
					    self->use_engine, mode ? "1" : "0"));
		for (k = 0; k < ARRAY_SIZE(sizes); k++) {
			uint64_t size = sizes[k];

			ASSERT_EQ(0, gem_create_any(self->fd, size, SEG_VIS, &h));
			for (i = 0; i < ARRAY_SIZE(places); i++) {
				for (j = 0; j < ARRAY_SIZE(places); j++) {
					uint32_t from = places[i], to = places[j];

					if (i == j)
						continue;
					seed = 0x5eed0000 | mode << 12 | k << 8 |
					       i << 4 | j;
					if (from == SEG_INV) {
						/* written where the CPU can */
						ASSERT_EQ(0, gem_write_pattern(self->fd, h, size, seed));
						MOVE_OK(h, from);
					} else {
						MOVE_OK(h, from);
						ASSERT_EQ(0, gem_write_pattern(self->fd, h, size, seed));
					}
					MOVE_OK(h, to);
					ASSERT_EQ(0, gem_read_back(self->fd, h, size, out));
					first = 0;
					bad = pattern_check(out, size, seed, &first);
					failures += !!bad;
					EXPECT_EQ(0u, bad)
						TH_LOG("use_engine=%u, %" PRIu64 " bytes, %s -> %s: %" PRIu64 " bad bytes, first at 0x%" PRIx64 " (got 0x%08x want 0x%08x)",
						       mode, size, seg_name(from),
						       seg_name(to), bad, first,
						       ((uint32_t *)out)[first / 4],
						       pattern_word(seed, first / 4));
				}
			}
			ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
		}
	}
	TH_LOG("%zu moves checked, %u corrupted",
	       2 * ARRAY_SIZE(sizes) * 12, failures);
	free(out);
}

/*
 * 2c. An aperture range the driver unmapped points at the dummy page
 * whoever unmapped it: with the engine (UnmapApertureSegment, for a move
 * above cpu_move_max_kb) and with the CPU (use_engine off, or a move of
 * one page). The GPU then reads zeroes there, never a fault, never the
 * allocation that left. One page and 17 pages, each way.
 */
TEST_F_TIMEOUT(engine, aperture_unmap_either_way, 120)
{
	static const uint64_t sizes[] = { SZ_4K, 17 * SZ_4K };
	uint32_t words[GEM_PEEK_WORDS], h, pad;
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_gem_info info;
	unsigned int mode, k, i, faults;

	if (access(self->use_engine, W_OK))
		WSKIP(return, "no writable %s", self->use_engine);
	if (!peek_available(self->def))
		WSKIP(return, "no debugfs peek for %s", self->def->exp.bdf);
	NEED_ENGINE();
	qseg(_metadata, self->fd, SEG_APT, &qs);
	/* not at the aperture's start: nothing else there at 0 */
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, SZ_4K, 0, SEG_APT,
						  &pad));
	for (mode = 0; mode < 2; mode++) {
		ASSERT_EQ(0, file_param_set(self->saved_use_engine,
					    sizeof(self->saved_use_engine),
					    self->use_engine, mode ? "1" : "0"));
		for (k = 0; k < ARRAY_SIZE(sizes); k++) {
			uint32_t seed = 0xa9e0 | mode << 4 | k;

			ASSERT_EQ(0, gem_create_any(self->fd, sizes[k], SEG_APT,
						    &h));
			MOVE_OK(h, SEG_APT);
			ASSERT_EQ(0, gem_write_pattern(self->fd, h, sizes[k],
						       seed));
			info_of(_metadata, self->fd, h, &info);
			ASSERT_EQ(SEG_APT, info.segment_id);
			EXPECT_EQ(0u, gpu_check(_metadata, self->def,
						qs.base_address + info.offset,
						sizes[k], seed, SZ_4K,
						"aperture, mapped"));
			MOVE_OK(h, 0);
			ASSERT_EQ(0, gpu_peek(self->def,
					      qs.base_address + info.offset,
					      words, &faults));
			EXPECT_EQ(0u, faults)
				TH_LOG("use_engine=%u, %" PRIu64 " bytes: the unmapped range faults instead of reading the dummy page",
				       mode, sizes[k]);
			for (i = 0; i < GEM_PEEK_WORDS; i++) {
				EXPECT_EQ(0u, words[i])
					TH_LOG("use_engine=%u, %" PRIu64 " bytes: word %u reads 0x%08x after the unmap",
					       mode, sizes[k], i, words[i]);
			}
			ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
		}
	}
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, pad));
}

/* 3. GEM_WAIT sees the pipelined engine work of MAKE_RESIDENT. */
TEST_F_TIMEOUT(engine, gem_wait_engine, 60)
{
	const uint64_t size = 32 * SZ_1M;
	struct eng_state st0, st;
	uint32_t h;
	int ret;

	NEED_ENGINE_ON();
	CREATE_FILLED(h, size, 0x3a17);
	MOVE_OK(h, 0);
	ASSERT_EQ(0, engine_state(self, &st0));

	ASSERT_EQ(0, wddmseg_make_resident(self->fd, h, SEG_INV));
	ret = wddmseg_wait(self->fd, h, 0);
	EXPECT_TRUE(ret == 0 || ret == -ETIME)
		TH_LOG("GEM_WAIT(0): %s", strerror(-ret));
	TH_LOG("GEM_WAIT(0) right after MAKE_RESIDENT: %s",
	       ret ? "busy (-ETIME)" : "idle");
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 5 * NSEC_PER_SEC));
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 0));
	ASSERT_EQ(0, engine_state(self, &st));
	EXPECT_LE(st0.submitted + size / SZ_8M, st.submitted);
	EXPECT_EQ(st.submitted, st.completed)
		TH_LOG("GEM_WAIT returned with engine work outstanding");
	EXPECT_EQ(SEG_INV, wddmseg_allocation_segment(self->fd, h));

	MOVE_OK(h, SEG_VIS);
	{
		void *out = malloc(size);
		uint64_t first = 0;

		ASSERT_NE(NULL, out);
		ASSERT_EQ(0, gem_read_back(self->fd, h, size, out));
		EXPECT_EQ(0u, pattern_check(out, size, 0x3a17, &first))
			TH_LOG("first bad byte at 0x%" PRIx64, first);
		free(out);
	}
	wddmseg_destroy_allocation(self->fd, h);
}

/*
 * GEM_WAIT on engine moves, once sleeping until the fence interrupt
 * (fence_spin_us=0) and once polling the writeback for up to a second,
 * longer than a 16 MiB move: either way the wait ends only when the FENCE
 * seqno is written (completed == submitted right after it) and the
 * content goes through intact. While an injected hang holds the engine,
 * both report -ETIME for a 50 ms wait within its timeout (polling is part
 * of the wait, not added to it) and succeed once the watchdog replayed
 * the job.
 */
TEST_F_TIMEOUT(engine, fence_wait_modes, 120)
{
	static const char *const spin[] = { "0", "1000000" };
	static const uint8_t to[] = { 0, SEG_INV, SEG_APT, SEG_VIS };
	const uint64_t size = 16 * SZ_1M;
	struct eng_state st;
	char path[96];
	uint64_t first = 0;
	unsigned int i, k;
	double t0, dt;
	uint32_t h;
	void *out;
	int ret;

	NEED_INJECT(path, "1000", self->fence_spin);
	out = malloc(size);
	ASSERT_NE(NULL, out);
	CREATE_FILLED(h, size, 0x6c21);

	for (i = 0; i < ARRAY_SIZE(spin); i++) {
		ASSERT_EQ(0, file_param_set(self->saved_spin,
					    sizeof(self->saved_spin),
					    self->fence_spin, spin[i]));
		for (k = 0; k < ARRAY_SIZE(to); k++) {
			ASSERT_EQ(0, wddmseg_move(self->fd, h, to[k]));
			ASSERT_EQ(0, wddmseg_wait(self->fd, h, 10 * NSEC_PER_SEC))
				TH_LOG("fence_spin_us=%s: move to %s",
				       spin[i], seg_name(to[k]));
			ASSERT_EQ(0, engine_state(self, &st));
			EXPECT_EQ(st.submitted, st.completed)
				TH_LOG("fence_spin_us=%s: GEM_WAIT returned before the FENCE of the move to %s",
				       spin[i], seg_name(to[k]));
			EXPECT_EQ(to[k], wddmseg_allocation_segment(self->fd, h));
		}

		ASSERT_EQ(0, file_write(path, "hang"));
		ASSERT_EQ(0, wddmseg_move(self->fd, h, SEG_INV));
		t0 = now_seconds();
		ret = wddmseg_wait(self->fd, h, NSEC_PER_SEC / 20);
		dt = now_seconds() - t0;
		EXPECT_EQ(-ETIME, ret)
			TH_LOG("fence_spin_us=%s: GEM_WAIT(50 ms) on a held engine: %s",
			       spin[i], ret ? strerror(-ret) : "idle");
		/* 50 ms plus generous TCG slack, far below the 1 s poll */
		EXPECT_GT(0.5, dt)
			TH_LOG("fence_spin_us=%s: GEM_WAIT(50 ms) took %.3f s",
			       spin[i], dt);
		EXPECT_EQ(0, wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC));
		MOVE_OK(h, SEG_VIS);
		ASSERT_EQ(0, gem_read_back(self->fd, h, size, out));
		EXPECT_EQ(0u, pattern_check(out, size, 0x6c21, &first))
			TH_LOG("fence_spin_us=%s: first bad byte at 0x%" PRIx64,
			       spin[i], first);
	}
	wddmseg_destroy_allocation(self->fd, h);
	free(out);
}

/* Records from @fd containing @needle; the first copied to @hit. */
static unsigned int kmsg_count(int fd, const char *needle, char *hit,
			       size_t len)
{
	char rec[2048];
	unsigned int n = 0;

	while (kmsg_read(fd, rec, sizeof(rec))) {
		if (strstr(rec, needle)) {
			char *msg = strchr(rec, ';');

			msg = msg ? msg + 1 : rec;
			msg[strcspn(msg, "\n")] = '\0';
			if (!n)
				snprintf(hit, len, "%s", msg);
			n++;
		}
	}
	return n;
}

static void inject_recovery(struct __test_metadata *_metadata,
			    FIXTURE_DATA(engine) *self, const char *what)
{
	const uint64_t size = 16 * SZ_1M + 5 * SZ_4K;	/* 3 jobs */
	char path[96], hit[2048] = "";
	struct eng_state st0, st1;
	uint64_t first = 0;
	uint32_t h, h2;
	double t0, dt;
	void *out;
	int kfd, ret;

	NEED_INJECT(path, "1000", NULL);
	out = malloc(size);
	ASSERT_NE(NULL, out);

	CREATE_FILLED(h, size, 0x1e5c);
	ASSERT_EQ(0, engine_state(self, &st0));
	EXPECT_EQ(st0.submitted, st0.completed);
	kfd = kmsg_open_end();

	ASSERT_EQ(0, file_write(path, what));
	t0 = now_seconds();
	ret = wddmseg_move(self->fd, h, SEG_INV);
	ASSERT_EQ(0, ret) TH_LOG("MAKE_RESIDENT after inject %s: %s", what,
				 strerror(-ret));
	ret = wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC);
	dt = now_seconds() - t0;
	EXPECT_EQ(0, ret) TH_LOG("GEM_WAIT after inject %s: %s", what,
				 strerror(-ret));
	TH_LOG("inject %s: move + wait took %.2f s", what, dt);
	ASSERT_EQ(0, engine_state(self, &st1));
	EXPECT_LT(st0.resets, st1.resets)
		TH_LOG("inject %s: resets stayed at %" PRIu64, what, st1.resets);
	EXPECT_EQ(1, st1.ready);
	EXPECT_EQ(SEG_INV, wddmseg_allocation_segment(self->fd, h));

	/* the replayed content, back where the CPU can read it */
	MOVE_OK(h, SEG_VIS);
	ASSERT_EQ(0, gem_read_back(self->fd, h, size, out));
	EXPECT_EQ(0u, pattern_check(out, size, 0x1e5c, &first))
		TH_LOG("inject %s: content damaged, first bad byte at 0x%" PRIx64 " (got 0x%08x want 0x%08x)",
		       what, first, ((uint32_t *)out)[first / 4],
		       pattern_word(0x1e5c, first / 4));

	/* the driver still works */
	CREATE_FILLED(h2, 4 * SZ_1M, 0x2e5c);
	MOVE_OK(h2, SEG_APT);
	MOVE_OK(h2, SEG_INV);
	MOVE_OK(h2, SEG_VIS);
	ASSERT_EQ(0, gem_read_back(self->fd, h2, 4 * SZ_1M, out));
	EXPECT_EQ(0u, pattern_check(out, 4 * SZ_1M, 0x2e5c, &first));
	ASSERT_EQ(0, engine_state(self, &st0));
	EXPECT_EQ(st0.submitted, st0.completed);
	EXPECT_EQ(st1.resets, st0.resets)
		TH_LOG("inject %s: another reset after recovery", what);

	if (kfd >= 0) {
		EXPECT_LE(1u, kmsg_count(kfd, RESET_MSG, hit, sizeof(hit)))
			TH_LOG("no \"%s\" in the kernel log", RESET_MSG);
		TH_LOG("kernel log: %s", hit);
		EXPECT_EQ(NULL, strstr(hit, "failing pending jobs"));
		close(kfd);
	}
	wddmseg_destroy_allocation(self->fd, h2);
	wddmseg_destroy_allocation(self->fd, h);
	free(out);
}

/* 4. An injected hang: the watchdog resets and replays the move. */
TEST_F_TIMEOUT(engine, inject_hang, 60)
{
	inject_recovery(_metadata, self, "hang");
}

/* 5. An injected fault: the error interrupt resets and replays. */
TEST_F_TIMEOUT(engine, inject_fault, 60)
{
	inject_recovery(_metadata, self, "fault");
}

/*
 * 6a. ExplicitResidencyNotification reports a move once it has completed,
 * not when it is queued: with the engine held by an injected hang the
 * move is queued (MAKE_RESIDENT returns) but no event arrives; once the
 * watchdog has reset the engine and the replayed move is done, it does.
 */
TEST_F_TIMEOUT(engine, residency_event_after_the_move, 60)
{
	struct wddmseg_allocation_desc a = {
		.size = SZ_1M,
		.flags = WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION |
			 WDDMSEG_ALLOC_ACCESSED_PHYSICALLY,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV),
		.preferred = { SEG_VIS },
	};
	struct drm_wddmseg_event_residency e;
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	char path[96];
	uint32_t h;

	NEED_INJECT(path, "1500", NULL);
	ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &a, &h));
	ASSERT_EQ(0, wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC));
	/* the first commit's event */
	ASSERT_EQ(1, poll(&pfd, 1, 2000));
	ASSERT_EQ((ssize_t)sizeof(e), read(self->fd, &e, sizeof(e)));
	EXPECT_EQ(SEG_VIS, e.segment_id);

	ASSERT_EQ(0, file_write(path, "hang"));
	ASSERT_EQ(0, wddmseg_move(self->fd, h, SEG_INV));
	EXPECT_EQ(0, poll(&pfd, 1, 300))
		TH_LOG("residency event while the move cannot have run");
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC));
	ASSERT_EQ(1, poll(&pfd, 1, 2000)) TH_LOG("no event after the move");
	ASSERT_EQ((ssize_t)sizeof(e), read(self->fd, &e, sizeof(e)));
	EXPECT_EQ(SEG_INV, e.segment_id);
	EXPECT_EQ(2u, e.sequence);
	wddmseg_destroy_allocation(self->fd, h);
}

/*
 * 6b. A fault that comes back on the replay: the move's jobs fail with
 * -EIO, and GEM_WAIT says so (until the next move succeeds) instead of
 * reporting an idle allocation whose content never arrived.
 */
TEST_F_TIMEOUT(engine, replay_fails_gem_wait_eio, 60)
{
	const uint64_t size = 4 * SZ_1M;
	char path[96], hit[2048] = "";
	uint32_t h;
	int kfd, ret;

	NEED_INJECT(path, "1000", NULL);
	CREATE_FILLED(h, size, 0x3e10);
	kfd = kmsg_open_end();
	ASSERT_EQ(0, file_write(path, "fault-replay"));
	ASSERT_EQ(0, wddmseg_move(self->fd, h, SEG_INV));
	ret = wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC);
	EXPECT_EQ(-EIO, ret) TH_LOG("GEM_WAIT after a failed replay: %s",
				    ret ? strerror(-ret) : "success");
	EXPECT_EQ(-EIO, wddmseg_wait(self->fd, h, 0));
	if (kfd >= 0) {
		EXPECT_LE(1u, kmsg_count(kfd, "failing pending jobs", hit,
					 sizeof(hit)));
		close(kfd);
	}
	/* the driver still works, and a good move clears the error */
	MOVE_OK(h, SEG_VIS);
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 0));
	wddmseg_destroy_allocation(self->fd, h);
}

/*
 * 6b'. A wipe the engine never runs. A released allocation's VRAM counts
 * as zero once its wipe is queued: a new allocation placed there skips its
 * Fill and waits for the wipe instead. When the wipe hangs on the replay
 * too, the driver zeroes the range with the CPU before the wipe's fence
 * signals: the new allocation reads zeroes, never the released one's
 * content, and it is not in error.
 */
TEST_F_TIMEOUT(engine, failed_wipe_zeroed_by_cpu, 60)
{
	struct wddmseg_allocation_desc a = {
		.size = SZ_1M,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE |
			 WDDMSEG_ALLOC_FROM_END_OF_SEGMENT,
		.supported_segments = BIT(SEG_VIS),
		.preferred = { SEG_VIS },
	};
	struct drm_wddmseg_gem_info ix, iy;
	uint8_t *buf;
	char path[96];
	uint32_t x, y;
	uint64_t nonzero, first = 0;
	int ret;

	NEED_INJECT(path, "1000", NULL);
	ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &a, &x));
	ASSERT_EQ(0, gem_write_pattern(self->fd, x, a.size, 0x3e1d));
	ASSERT_EQ(0, wddmseg_wait(self->fd, x, 20 * NSEC_PER_SEC));
	ASSERT_EQ(0, wddmseg_query_allocation(self->fd, x, &ix));

	ASSERT_EQ(0, file_write(path, "hang-replay"));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, x));
	ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &a, &y));
	ASSERT_EQ(0, wddmseg_query_allocation(self->fd, y, &iy));
	ASSERT_EQ(ix.offset, iy.offset)
		TH_LOG("the new allocation is not where the released one was");

	ret = wddmseg_wait(self->fd, y, 20 * NSEC_PER_SEC);
	EXPECT_EQ(0, ret) TH_LOG("GEM_WAIT on the new allocation: %s",
				 strerror(-ret));
	buf = malloc(a.size);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, gem_read_back(self->fd, y, a.size, buf));
	nonzero = bytes_check(buf, a.size, 0, &first);
	EXPECT_EQ(0u, nonzero)
		TH_LOG("%llu bytes of the released allocation's content show, the first at %llu",
		       (unsigned long long)nonzero, (unsigned long long)first);
	free(buf);
	wddmseg_destroy_allocation(self->fd, y);
}

/*
 * 6c. SynchronousPaging on an ordinary move (not only a discard): the
 * paging operation completes before MAKE_RESIDENT returns. With the engine
 * held by an injected hang, a move of an ordinary allocation returns at
 * once and the allocation is busy; the same move of a SynchronousPaging
 * one returns only once the watchdog has reset the engine and the replayed
 * move is done, and the allocation is idle then.
 */
TEST_F_TIMEOUT(engine, synchronous_paging_moves, 60)
{
	struct wddmseg_allocation_desc a = {
		.size = 4 * SZ_1M,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV),
		.preferred = { SEG_VIS },
	};
	char path[96];
	uint32_t h, hs;
	double t0, dt;

	NEED_INJECT(path, "1500", NULL);
	ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &a, &h));
	a.flags |= WDDMSEG_ALLOC_SYNCHRONOUS_PAGING;
	ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &a, &hs));
	ASSERT_EQ(0, wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC));
	ASSERT_EQ(0, wddmseg_wait(self->fd, hs, 20 * NSEC_PER_SEC));

	/* ordinary: pipelined */
	ASSERT_EQ(0, file_write(path, "hang"));
	t0 = now_seconds();
	ASSERT_EQ(0, wddmseg_move(self->fd, h, SEG_INV));
	dt = now_seconds() - t0;
	EXPECT_EQ(-ETIME, wddmseg_wait(self->fd, h, 0))
		TH_LOG("an ordinary move on a hung engine is already done");
	TH_LOG("ordinary move returned after %.3f s", dt);
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC));

	/* SynchronousPaging: done when the ioctl returns */
	ASSERT_EQ(0, file_write(path, "hang"));
	t0 = now_seconds();
	ASSERT_EQ(0, wddmseg_move(self->fd, hs, SEG_INV));
	dt = now_seconds() - t0;
	EXPECT_EQ(0, wddmseg_wait(self->fd, hs, 0))
		TH_LOG("SynchronousPaging: MAKE_RESIDENT returned before its move was done");
	EXPECT_LE(0.5, dt) TH_LOG("SynchronousPaging move on a hung engine took only %.3f s",
				  dt);
	EXPECT_EQ(SEG_INV, wddmseg_allocation_segment(self->fd, hs));
	wddmseg_destroy_allocation(self->fd, hs);
	wddmseg_destroy_allocation(self->fd, h);
}

/*
 * 7. GEM_WAIT while the engine is held by an injected hang: the move's job
 * cannot complete, so a poll (timeout 0) and a short wait both report
 * -ETIME; once the watchdog has reset the engine and replayed the job the
 * wait returns 0 and the content arrived intact.
 */
TEST_F_TIMEOUT(engine, gem_wait_busy, 60)
{
	const uint64_t size = 4 * SZ_1M;
	struct eng_state st0, st1, st2;
	char path[96];
	uint64_t first = 0;
	uint32_t h;
	void *out;
	int ret;

	/* long enough for the polls below even on a slow TCG host */
	NEED_INJECT(path, "3000", NULL);
	out = malloc(size);
	ASSERT_NE(NULL, out);

	CREATE_FILLED(h, size, 0x5b17);
	ASSERT_EQ(0, engine_state(self, &st0));
	ASSERT_EQ(st0.submitted, st0.completed);

	ASSERT_EQ(0, file_write(path, "hang"));
	ASSERT_EQ(0, wddmseg_move(self->fd, h, SEG_INV));
	ret = wddmseg_wait(self->fd, h, 0);
	EXPECT_EQ(-ETIME, ret) TH_LOG("GEM_WAIT(0) on a held engine: %s",
				      ret ? strerror(-ret) : "idle");
	ret = wddmseg_wait(self->fd, h, NSEC_PER_SEC / 10);
	EXPECT_EQ(-ETIME, ret) TH_LOG("GEM_WAIT(100 ms) on a held engine: %s",
				      ret ? strerror(-ret) : "idle");
	ASSERT_EQ(0, engine_state(self, &st1));
	EXPECT_LT(st1.completed, st1.submitted)
		TH_LOG("the move's job completed on a hung engine");
	EXPECT_EQ(st0.resets, st1.resets);

	/* recovery: the watchdog resets the engine and replays the job */
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC));
	EXPECT_EQ(0, wddmseg_wait(self->fd, h, 0));
	ASSERT_EQ(0, engine_state(self, &st2));
	EXPECT_LT(st1.resets, st2.resets);
	EXPECT_EQ(st2.submitted, st2.completed);
	EXPECT_EQ(SEG_INV, wddmseg_allocation_segment(self->fd, h));
	MOVE_OK(h, SEG_VIS);
	ASSERT_EQ(0, gem_read_back(self->fd, h, size, out));
	EXPECT_EQ(0u, pattern_check(out, size, 0x5b17, &first))
		TH_LOG("content damaged, first bad byte at 0x%" PRIx64, first);
	wddmseg_destroy_allocation(self->fd, h);
	free(out);
}

/*
 * 8. Releasing an allocation wipes its VRAM with a FILL before the range
 * is free: the GPU view of the old range shows none of its content.
 */
TEST_F_TIMEOUT(engine, vram_wiped_on_release, 60)
{
	const uint64_t size = 4 * SZ_1M;
	struct drm_wddmseg_gem_info info;
	uint64_t gpu;
	uint32_t h;
	long stale;

	NEED_ENGINE_ON();
	ASSERT_EQ(0, gem_create_any(self->fd, size, SEG_VIS, &h));
	MOVE_OK(h, SEG_INV);
	MOVE_OK(h, SEG_VIS);
	ASSERT_EQ(0, gem_write_pattern(self->fd, h, size, 0x71be));
	MOVE_OK(h, SEG_INV);
	ASSERT_EQ(0, wddmseg_query_allocation(self->fd, h, &info));
	ASSERT_EQ(SEG_INV, info.segment_id);
	gpu = self->seg[SEG_INV].base_address + info.offset;
	stale = gpu_stale(self, gpu, size, 0x71be);
	ASSERT_EQ((long)(size / SZ_1M * GEM_PEEK_WORDS), stale)
		TH_LOG("before release the GPU must see the content (%ld words)",
		       stale);

	/*
	 * The last reference: the wipe is queued, the release does not
	 * wait for it; the peek reads VRAM behind the engine's back, so
	 * let the engine finish what it was given first.
	 */
	wddmseg_destroy_allocation(self->fd, h);
	ASSERT_EQ(0, engine_drain(self));
	stale = gpu_stale(self, gpu, size, 0x71be);
	ASSERT_LE(0, stale) TH_LOG("peek: %s", strerror(-stale));
	EXPECT_EQ(0, stale)
		TH_LOG("released VRAM still holds %ld words of the allocation",
		       stale);
}

/* 6. Three processes moving their own allocation concurrently. */
#define NR_CHILDREN	3
#define CHILD_ROUNDS	20

static int child_run(const char *node, unsigned int id)
{
	static const uint32_t places[] = { SEG_INV, SEG_VIS, SEG_APT, SEG_VIS,
					   0, SEG_VIS };
	const uint64_t size = 2 * SZ_1M + id * SZ_64K;
	uint64_t bad = 0, first = 0;
	unsigned int r, i;
	uint32_t h, seed;
	void *p;
	int fd, ret;

	fd = wddmseg_open_adapter(node, 0);
	if (fd < 0)
		return 100;
	if (gem_create_any(fd, size, SEG_VIS, &h) || gem_move_wait(fd, h, SEG_VIS))
		return 101;
	if (wddmseg_lock(fd, h, size, &p))
		return 102;
	for (r = 0; r < CHILD_ROUNDS; r++) {
		seed = 0xc000 + id * 256 + r;
		pattern_fill(p, size, seed);
		for (i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
			ret = wddmseg_move(fd, h, places[i]);
			if (ret) {
				fprintf(stderr, "child %u round %u: move: %s\n",
					id, r, strerror(-ret));
				return 103;
			}
		}
		if (wddmseg_wait(fd, h, 20 * NSEC_PER_SEC) || wddmseg_allocation_segment(fd, h) != SEG_VIS)
			return 104;
		bad = pattern_check(p, size, seed, &first);
		if (bad) {
			fprintf(stderr, "child %u round %u: %" PRIu64 " bad bytes, first at 0x%" PRIx64 "\n",
				id, r, bad, first);
			return 1;
		}
	}
	wddmseg_unlock(p, size);
	wddmseg_destroy_allocation(fd, h);
	wddmseg_close_adapter(fd);
	return 0;
}

TEST_F_TIMEOUT(engine, concurrent_submitters, 120)
{
	pid_t pid[NR_CHILDREN];
	struct eng_state st0, st1;
	bool dbg = engine_debugfs(self);
	unsigned int i;
	int status;

	if (dbg)
		ASSERT_EQ(0, engine_state(self, &st0));
	for (i = 0; i < NR_CHILDREN; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			_exit(child_run(self->def->render, i));
	}
	for (i = 0; i < NR_CHILDREN; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status))
			TH_LOG("child %u: exit %d (1: corrupted bytes, >=100: an ioctl failed)",
			       i, WEXITSTATUS(status));
	}
	if (dbg) {
		ASSERT_EQ(0, engine_state(self, &st1));
		EXPECT_EQ(st1.submitted, st1.completed);
		EXPECT_EQ(st0.resets, st1.resets);
		TH_LOG("%" PRIu64 " engine jobs", st1.submitted - st0.submitted);
	}
}

/*
 * 9. Moves out of pages into VRAM are pipelined: while an injected hang
 * holds the engine, MAKE_RESIDENT from system memory and from the
 * aperture returns with the copy still queued (GEM_WAIT(0) is -ETIME,
 * the allocation already counts as in seg1), long before the watchdog
 * (3 s). The pages the copy reads are kept until it is done: with
 * keep_sysmem_mb=0 there is no room to keep them, and the ioctl waits for
 * the copy (the reset happened by the time it returns) instead of giving
 * them back to TTM's pool, which would clear them under the engine.
 * Either way the content arrives intact after the replay.
 */
TEST_F_TIMEOUT(engine, into_vram_pipelined, 120)
{
	static const struct {
		uint8_t from;
		const char *keep;	/* keep_sysmem_mb, NULL: as it is */
		bool waits;
	} v[] = {
		{ 0, NULL, false },
		{ SEG_APT, NULL, false },
		{ 0, "0", true },
	};
	const uint64_t size = 4 * SZ_1M;
	struct eng_state st0, st1, st2;
	char path[96];
	uint64_t first = 0;
	unsigned int i;
	double t0, dt;
	uint32_t h;
	void *out;
	int ret;

	NEED_INJECT(path, "3000", PARAM_KEEP_SYSMEM);
	out = malloc(size);
	ASSERT_NE(NULL, out);

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		uint32_t seed = 0x3a00 + i;

		CREATE_FILLED(h, size, seed);
		MOVE_OK(h, v[i].from);
		if (v[i].keep)
			ASSERT_EQ(0, file_param_set(self->saved_keep,
						    sizeof(self->saved_keep),
						    PARAM_KEEP_SYSMEM, v[i].keep));
		ASSERT_EQ(0, engine_state(self, &st0));
		ASSERT_EQ(st0.submitted, st0.completed);

		ASSERT_EQ(0, file_write(path, "hang"));
		t0 = now_seconds();
		ret = wddmseg_move(self->fd, h, SEG_VIS);
		dt = now_seconds() - t0;
		ASSERT_EQ(0, ret) TH_LOG("%s -> seg1 on a held engine: %s",
					 seg_name(v[i].from), strerror(-ret));
		EXPECT_EQ(SEG_VIS, wddmseg_allocation_segment(self->fd, h));
		ASSERT_EQ(0, engine_state(self, &st1));
		if (v[i].waits) {
			EXPECT_LT(st0.resets, st1.resets)
				TH_LOG("keep_sysmem_mb=0: MAKE_RESIDENT returned after %.2f s, before the copy out of the pages was done",
				       dt);
			EXPECT_EQ(0, wddmseg_wait(self->fd, h, 0));
		} else {
			EXPECT_EQ(st0.resets, st1.resets)
				TH_LOG("%s -> seg1: MAKE_RESIDENT waited for the watchdog (%.2f s)",
				       seg_name(v[i].from), dt);
			EXPECT_GT(1.0, dt)
				TH_LOG("%s -> seg1: MAKE_RESIDENT took %.2f s",
				       seg_name(v[i].from), dt);
			ret = wddmseg_wait(self->fd, h, 0);
			EXPECT_EQ(-ETIME, ret)
				TH_LOG("%s -> seg1: GEM_WAIT(0) with the copy queued: %s",
				       seg_name(v[i].from),
				       ret ? strerror(-ret) : "idle");
			EXPECT_LT(st1.completed, st1.submitted);
		}

		EXPECT_EQ(0, wddmseg_wait(self->fd, h, 20 * NSEC_PER_SEC));
		ASSERT_EQ(0, engine_state(self, &st2));
		EXPECT_LT(st0.resets, st2.resets);
		EXPECT_EQ(st2.submitted, st2.completed);
		ASSERT_EQ(0, gem_read_back(self->fd, h, size, out));
		EXPECT_EQ(0u, pattern_check(out, size, seed, &first))
			TH_LOG("%s -> seg1%s: first bad byte at 0x%" PRIx64 " (got 0x%08x want 0x%08x)",
			       seg_name(v[i].from),
			       v[i].keep ? " with keep_sysmem_mb=0" : "", first,
			       ((uint32_t *)out)[first / 4],
			       pattern_word(seed, first / 4));
		if (v[i].keep)
			ASSERT_EQ(0, file_write(PARAM_KEEP_SYSMEM,
						self->saved_keep));
		/* and back out over the kept pages */
		MOVE_OK(h, 0);
		MOVE_OK(h, SEG_VIS);
		ASSERT_EQ(0, gem_read_back(self->fd, h, size, out));
		EXPECT_EQ(0u, pattern_check(out, size, seed, &first))
			TH_LOG("%s -> seg1 -> system -> seg1: first bad byte at 0x%" PRIx64,
			       seg_name(v[i].from), first);
		wddmseg_destroy_allocation(self->fd, h);
	}
	free(out);
}

TEST_HARNESS_MAIN
