// SPDX-License-Identifier: GPL-2.0-only
/*
 * kselftest: real suspend-to-RAM (S3) with allocations in every segment of
 * every device of the expectation file. Each cycle arms the RTC, writes
 * "mem" to /sys/power/state (deep sleep: QEMU's q35 with
 * -global ICH9-LPC.disable_s3=0) and checks after the wake-up:
 *
 * - the content of every allocation is intact and it is back in its
 *   segment;
 * - a segment whose flags (and the adapter's caps) preserve it copied 0
 *   bytes (pm_evicted_bytes) and kept them (pm_kept_bytes); any other
 *   segment evicted and restored at least its allocation;
 * - the device really lost power: a freed range of a segment that is not
 *   preserved reads the device's poison pattern through the GPU (peek);
 * - a pinned (Overlay) allocation in each memory segment, filled by the
 *   engine, stayed where it was with its content (the driver copies it
 *   out and back with the CPU when the segment loses power);
 * - an ExplicitResidencyNotification allocation in each memory segment got
 *   a residency event for each move PM made (to system memory and back)
 *   and none where its segment preserved it;
 * - an ExistingSysMem allocation (the process's own pages mapped into an
 *   aperture) is still mapped there, and the engine reads through the
 *   aperture the bytes the process wrote before the suspend;
 * - a blit submitted right before the suspend (in flight when the driver
 *   quiesces the engine) completed with the right bytes;
 * - the copy engine blits after the resume, and reads an aperture
 *   allocation right through the aperture page table the resume rebuilt
 *   (the power loss reset it; the CPU reads the allocation's pages
 *   directly, so only the engine can tell);
 *
 * With WDDMSEG_PM_MODE=hibernate the cycle is a hibernation instead
 * (echo disk > /sys/power/state, swap on a virtio disk): the write returns
 * in a second QEMU process that booted, read the image and restored it.
 * WDDMSEG_PM_HIB_PERSIST lists the devices given a vram-file, as
 * "BDF=PART" words (PART: their hib-partial bytes). On those, a segment
 * with PreservedDuringHibernate keeps everything in place (0 bytes
 * copied), one with PartiallyPreservedDuringHibernate the allocations that
 * lie in its first PART bytes, and the VRAM of every other segment reads
 * the device's poison after the restore. On the other devices every
 * segment is evicted, whatever its flags say (the driver's rule
 * pm-hibernate-volatile), and freed VRAM reads zero, a new process's
 * fresh VRAM. WDDMSEG_PM_HIB_LOST lists the devices (BDFs) whose
 * vram-file the host removes before the second boot: their device powers
 * on without the store (PM_HIB.RETAINED clear), so what the freeze left
 * in place reads the poison, the driver reports each such segment's
 * bytes in pm_lost_bytes (rule pm-hibernate-vram-lost), and what it
 * evicted comes back intact from the image.
 *
 * Not part of the boot that runs the other kselftests (its binary is
 * wddmseg-pm, not wddmseg_*): tools/vm/pm-check.sh and pm-hibernate.sh run
 * it in boots of their own. WDDMSEG_PM_CYCLES sets the number of cycles
 * (default 20 for S3; a hibernation is one cycle per pair of boots).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wddmseg_gem.h"

/* WDDMSEG_PM_POISON of wddmseg_hw.h: what lost VRAM reads after S3. */
#define PM_POISON	0xd3adb0a7u
#define PM_SIZE		(2 * SZ_1M)
#define PM_PROBE	SZ_64K
#define PM_EX_SIZE	(4 * SZ_64K)

struct pm_seg {
	uint32_t id;
	bool preserved;		/* the allocation h keeps its place */
	uint64_t keep;		/* hibernation: bytes the device keeps */
	bool persistent;	/* hibernation: the device has a vram-file */
	bool lost;		/* hibernation: ... which the host removes */
	bool res_preserved;	/* res_h keeps its place */
	bool pin_preserved;	/* pin_h keeps its content in VRAM */
	uint32_t h;		/* the allocation kept across the cycles */
	uint32_t seed;
	uint64_t probe;		/* GPU address of the freed probe range */
	uint32_t pin_h;		/* a pinned Overlay allocation */
	uint64_t pin_off;	/* its offset in the segment */
	uint32_t res_h;		/* ExplicitResidencyNotification */
	uint64_t res_seq;	/* the last sequence number seen */
};

#define PIN_SIZE	SZ_1M
#define PIN_WORD(p)	((p)->seed ^ 0x5a5a5a5au)

FIXTURE(pm) {
	struct gem_env env;
};

static bool pm_mode(const char *mode)
{
	const char *m = getenv("WDDMSEG_PM_MODE");

	return m ? !strcmp(m, mode) : !strcmp(mode, "s3");
}

/* WDDMSEG_PM_MODE=hibernate: S4 cycles instead of S3. */
static bool pm_hibernate(void)
{
	return pm_mode("hibernate");
}

GEM_SKIP_WITHOUT_DEVICE();

FIXTURE_SETUP(pm)
{
	char buf[64];

	gem_env_load(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	if (pm_mode("pressure"))
		return;
	if (pm_hibernate()) {
		if (file_read("/proc/swaps", buf, sizeof(buf)) ||
		    !strchr(buf, '\n') || !strchr(strchr(buf, '\n') + 1, '/'))
			WSKIP(return, "no swap for a hibernation image");
		return;
	}
	if (file_write("/sys/power/mem_sleep", "deep") ||
	    file_read("/sys/power/mem_sleep", buf, sizeof(buf)) ||
	    !strstr(buf, "[deep]"))
		WSKIP(return, "no S3 (deep) in /sys/power/mem_sleep");
	if (access("/sys/class/rtc/rtc0/wakealarm", W_OK))
		WSKIP(return, "no RTC wake alarm");
}

FIXTURE_TEARDOWN(pm)
{
}

/* The rule of the driver's DOC: Power management, for a standby. */
static bool preserved_s3(uint32_t caps, uint32_t flags)
{
	if (caps & WDDMSEG_VIDMM_CAP_DISABLE_SELF_REFRESH_VRAM_IN_S3)
		return false;
	if (caps & WDDMSEG_VIDMM_CAP_ALWAYS_POWERED_VRAM)
		return true;
	return flags & WDDMSEG_SEGMENT_FLAG_PRESERVED_DURING_STANDBY;
}

/*
 * Hibernation: does device @bdf have a vram-file (WDDMSEG_PM_HIB_PERSIST),
 * and with which hib-partial (*@part)?
 */
static bool hib_persistent(const char *bdf, uint64_t *part)
{
	const char *env = getenv("WDDMSEG_PM_HIB_PERSIST"), *p;
	size_t n = strlen(bdf);

	for (p = env; p && (p = strstr(p, bdf)); p += n) {
		if (p[n] != '=')
			continue;
		*part = strtoull(p + n + 1, NULL, 0);
		return true;
	}
	return false;
}

/* Hibernation: does the host remove device @bdf's vram-file? */
static bool hib_lost(const char *bdf)
{
	const char *env = getenv("WDDMSEG_PM_HIB_LOST");

	return pm_hibernate() && env && strstr(env, bdf);
}

/* Bytes at the start of a segment with @flags that hibernation keeps. */
static uint64_t hib_keep(const char *bdf, const struct layout_seg *s)
{
	uint64_t part = 0;

	if (!hib_persistent(bdf, &part))
		return 0;
	if (s->flags & WDDMSEG_SEGMENT_FLAG_PRESERVED_DURING_HIBERNATE)
		return s->size;
	if (s->flags & WDDMSEG_SEGMENT_FLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE)
		return part < s->size ? part : s->size;
	return 0;
}

/* Does allocation @h of segment @p keep its place across the cycle? */
static bool alloc_preserved(int fd, const struct pm_seg *p, bool s3_preserved,
			    uint32_t h)
{
	struct drm_wddmseg_gem_info info = { .handle = h };

	if (!pm_hibernate())
		return s3_preserved;
	if (wddmseg_query_allocation(fd, h, &info) || info.segment_id != p->id)
		return false;
	return info.offset + info.size <= p->keep;
}

/* One value per segment of the device's sysfs file @name. */
static int pm_sysfs(const struct gem_dev *d, const char *name, uint64_t *v,
		    unsigned int n)
{
	char path[160], buf[256], *p = buf, *end;
	unsigned int i;
	int ret;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/wddmseg/%s",
		 d->exp.bdf, name);
	ret = file_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		v[i] = strtoull(p, &end, 0);
		if (end == p)
			return -EPROTO;
		p = end;
	}
	return 0;
}

/* Returns in the restored image, after a second boot read it. */
static int s4_cycle(void)
{
	int ret = file_write("/sys/power/disk", "shutdown");

	if (!ret)
		ret = file_write("/sys/power/state", "disk");
	return ret;
}

static int s3_cycle(void)
{
	int ret = file_write("/sys/class/rtc/rtc0/wakealarm", "0");

	if (!ret)
		ret = file_write("/sys/class/rtc/rtc0/wakealarm", "+2");
	if (!ret)
		ret = file_write("/sys/power/state", "mem");
	return ret;
}

/* @h: @size bytes of pattern @seed, placed in segment @id (0: system). */
static uint32_t make_pattern(struct __test_metadata *_metadata, int fd,
			     uint32_t id, uint64_t size, uint32_t flags,
			     uint32_t seed)
{
	uint32_t h;

	ASSERT_EQ(0, wddmseg_create_allocation_in(fd, size,
			WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND | flags, id, &h));
	ASSERT_EQ(0, gem_write_pattern(fd, h, size, seed));
	/* The CPU write may have migrated it: put it back. */
	ASSERT_EQ(0, gem_move_wait(fd, h, id)) TH_LOG("%s", seg_name(id));
	return h;
}

static void check_pattern(struct __test_metadata *_metadata, int fd,
			  uint32_t h, uint64_t size, uint32_t seed,
			  const char *what, unsigned int cycle)
{
	void *buf = malloc(size);
	uint64_t bad;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, gem_read_back(fd, h, size, buf));
	bad = pattern_check(buf, size, seed, NULL);
	free(buf);
	EXPECT_EQ(0, bad) TH_LOG("cycle %u: %s: %" PRIu64 " bad words",
				 cycle, what, bad);
}

/* Copy @size bytes of @src into a new system allocation; return it. */
static uint32_t blit_to_system(struct __test_metadata *_metadata, int fd,
			       uint32_t src, uint64_t size, bool wait)
{
	uint32_t dst;
	int ffd = -1;

	ASSERT_EQ(0, wddmseg_create_allocation_in(fd, size,
			WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND, 0, &dst));
	ASSERT_EQ(0, wddmseg_copy(fd, src, 0, dst, 0, size, &ffd));
	if (ffd >= 0)
		close(ffd);
	if (wait)
		ASSERT_EQ(0, wddmseg_wait(fd, dst, 10 * NSEC_PER_SEC));
	return dst;
}

/* @h is @size bytes of the 32-bit word @w: the bad words, through a blit. */
static uint64_t word_check(struct __test_metadata *_metadata, int fd,
			   uint32_t h, uint64_t size, uint32_t w)
{
	uint32_t dst = blit_to_system(_metadata, fd, h, size, true);
	uint32_t *buf = malloc(size);
	uint64_t i, bad = 0;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, gem_read_back(fd, dst, size, buf));
	for (i = 0; i < size / 4; i++)
		bad += buf[i] != w;
	free(buf);
	ASSERT_EQ(0, wddmseg_destroy_allocation(fd, dst));
	return bad;
}

/* What one device holds across the cycles. */
struct pm_dev {
	const struct gem_dev *d;
	int fd;
	char dbg[64];
	struct pm_seg seg[LAYOUT_MAX_SEGS];
	unsigned int nseg;
	uint32_t apt_h, sys_h, dv;
	uint32_t ex_h;		/* ExistingSysMem: ex_buf, in the aperture */
	void *ex_buf;
	uint32_t ex_seg;
	uint32_t inflight;	/* a blit submitted just before the suspend */
	uint64_t cycles0;
};

static void pm_dev_setup(struct __test_metadata *_metadata, struct pm_dev *pd)
{
	const struct layout *l = &pd->d->exp.layout;
	uint32_t apt_id = 0, dv = pd->dv;
	unsigned int i;

	pd->fd = gem_open(_metadata, pd->d->card);
	gem_debugfs_dir(pd->d, pd->dbg, sizeof(pd->dbg));
	ASSERT_EQ(0, pm_sysfs(pd->d, "pm_cycles", &pd->cycles0, 1));

	for (i = 0; i < l->nr_segs; i++) {
		const struct layout_seg *s = &l->seg[i];
		struct drm_wddmseg_gem_info info = { 0 };
		struct pm_seg *p;
		uint32_t probe;

		if (wddmseg_segment_is_aperture(s->flags)) {
			if (!apt_id && s->commit >= PM_SIZE)
				apt_id = i + 1;
			continue;
		}
		if (s->size < 4 * PM_SIZE)
			continue;
		p = &pd->seg[pd->nseg++];
		p->id = i + 1;
		p->keep = pm_hibernate() ? hib_keep(pd->d->exp.bdf, s) : 0;
		p->persistent = hib_persistent(pd->d->exp.bdf, &(uint64_t){ 0 });
		p->lost = p->keep && hib_lost(pd->d->exp.bdf);
		p->seed = 0x9e000000u | (dv << 8) | p->id;
		p->h = make_pattern(_metadata, pd->fd, p->id, PM_SIZE, 0, p->seed);
		/* A freed range at the top: what power loss leaves there. */
		probe = make_pattern(_metadata, pd->fd, p->id, PM_PROBE,
				     WDDMSEG_ALLOC_FROM_END_OF_SEGMENT,
				     p->seed ^ 0xffff);
		info.handle = probe;
		ASSERT_EQ(0, wddmseg_query_allocation(pd->fd, probe, &info));
		p->probe = s->base + info.offset;
		ASSERT_EQ(0, wddmseg_destroy_allocation(pd->fd, probe))
			TH_LOG("%s: destroying the probe allocation", pd->d->exp.bdf);

		/* Pinned at creation in the top 20% of the segment. */
		{
			struct wddmseg_allocation_desc a = { 0 };
			int ffd = -1;

			a.size = PIN_SIZE;
			a.flags = WDDMSEG_ALLOC_OVERLAY;
			a.supported_segments = WDDMSEG_SEGMENT_BIT(p->id);
			a.preferred[0] = p->id;
			ASSERT_EQ(0, wddmseg_create_allocation(pd->fd, &a, &p->pin_h));
			ASSERT_EQ(0, wddmseg_fill(pd->fd, p->pin_h, 0, PIN_SIZE,
						  PIN_WORD(p), &ffd));
			if (ffd >= 0)
				close(ffd);
			ASSERT_EQ(0, wddmseg_wait(pd->fd, p->pin_h, 10 * NSEC_PER_SEC));
			info.handle = p->pin_h;
			ASSERT_EQ(0, wddmseg_query_allocation(pd->fd, p->pin_h, &info));
			ASSERT_EQ(p->id, info.segment_id);
			ASSERT_TRUE(info.state & WDDMSEG_STATE_PINNED);
			p->pin_off = info.offset;
		}
		/* Residency events: the first one is the creation's. */
		{
			struct wddmseg_allocation_desc a = { 0 };
			struct drm_wddmseg_event_residency ev;

			a.size = SZ_64K;
			a.flags = WDDMSEG_ALLOC_EXPLICIT_RESIDENCY_NOTIFICATION |
				  WDDMSEG_ALLOC_ACCESSED_PHYSICALLY;
			a.supported_segments = WDDMSEG_SEGMENT_BIT(p->id);
			a.preferred[0] = p->id;
			ASSERT_EQ(0, wddmseg_create_allocation(pd->fd, &a, &p->res_h));
			ASSERT_EQ(1, wddmseg_read_residency_events(pd->fd, &ev, 1, 2000));
			ASSERT_EQ(p->res_h, ev.handle);
			p->res_seq = ev.sequence;
		}
		p->preserved = alloc_preserved(pd->fd, p,
					       preserved_s3(l->caps, s->flags), p->h);
		p->res_preserved = alloc_preserved(pd->fd, p,
						   p->preserved, p->res_h);
		p->pin_preserved = alloc_preserved(pd->fd, p,
						   p->preserved, p->pin_h);
	}
	ASSERT_LT(0, pd->nseg) TH_LOG("%s: no memory segment", pd->d->exp.bdf);
	if (apt_id) {
		struct wddmseg_allocation_desc a = { 0 };

		pd->apt_h = make_pattern(_metadata, pd->fd, apt_id, SZ_1M, 0,
					 0x9e00a000u | dv);
		/*
		 * The process's own pages, mapped into the aperture: nothing
		 * of it is in the device but the aperture's page table.
		 */
		pd->ex_buf = mmap(NULL, PM_EX_SIZE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, pd->ex_buf);
		pattern_fill(pd->ex_buf, PM_EX_SIZE, 0x9e00c000u + dv);
		a.size = PM_EX_SIZE;
		a.flags = WDDMSEG_ALLOC_EXISTING_SYSMEM;
		a.supported_segments = WDDMSEG_SEGMENT_BIT(apt_id);
		a.preferred[0] = apt_id;
		a.user_ptr = pd->ex_buf;
		ASSERT_EQ(0, wddmseg_create_allocation(pd->fd, &a, &pd->ex_h));
		ASSERT_EQ(0, wddmseg_wait(pd->fd, pd->ex_h, 10 * NSEC_PER_SEC));
		pd->ex_seg = apt_id;
	}
	pd->sys_h = make_pattern(_metadata, pd->fd, 0, SZ_1M, 0,
				 0x9e00b000u | dv);
}

/*
 * A new allocation in segment @id, which lost power, reads zeroes: all of
 * its free VRAM holds the device's poison now, and VRAM the driver knew
 * to be zero before the suspend is not any more (no Fill may be skipped).
 */
static void check_new_zero(struct __test_metadata *_metadata,
			   struct pm_dev *pd, uint32_t id, unsigned int c)
{
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_gem_info info;
	uint32_t words[GEM_PEEK_WORDS];
	unsigned int faults, k, zero = 0;
	uint32_t h;

	ASSERT_EQ(0, wddmseg_query_segment(pd->fd, id, NULL, 0, &qs));
	ASSERT_EQ(0, wddmseg_create_allocation_in(pd->fd, PM_PROBE, 0, id, &h));
	ASSERT_EQ(0, wddmseg_wait(pd->fd, h, 20 * NSEC_PER_SEC));
	ASSERT_EQ(0, wddmseg_query_allocation(pd->fd, h, &info));
	ASSERT_EQ(0, gem_peek(pd->dbg, qs.base_address + info.offset, words,
			      &faults));
	for (k = 0; k < GEM_PEEK_WORDS; k++)
		zero += words[k] == 0;
	EXPECT_EQ(GEM_PEEK_WORDS, zero)
		TH_LOG("cycle %u: %s: a new allocation after the resume reads 0x%08x",
		       c, seg_name(id), words[0]);
	wddmseg_destroy_allocation(pd->fd, h);
}

/* After cycle @c: everything the header comment lists, for one device. */
static void pm_dev_check(struct __test_metadata *_metadata, struct pm_dev *pd,
			 unsigned int c)
{
	const struct layout *l = &pd->d->exp.layout;
	uint64_t evicted[LAYOUT_MAX_SEGS], restored[LAYOUT_MAX_SEGS];
	uint64_t kept[LAYOUT_MAX_SEGS], lost[LAYOUT_MAX_SEGS], cyc;
	const char *bdf = pd->d->exp.bdf;
	int fd = pd->fd;
	unsigned int i;
	uint32_t dst;

	ASSERT_EQ(0, pm_sysfs(pd->d, "pm_cycles", &cyc, 1));
	EXPECT_EQ(pd->cycles0 + c, cyc) TH_LOG("%s cycle %u", bdf, c);
	ASSERT_EQ(0, pm_sysfs(pd->d, "pm_evicted_bytes", evicted, l->nr_segs));
	ASSERT_EQ(0, pm_sysfs(pd->d, "pm_restored_bytes", restored, l->nr_segs));
	ASSERT_EQ(0, pm_sysfs(pd->d, "pm_kept_bytes", kept, l->nr_segs));
	ASSERT_EQ(0, pm_sysfs(pd->d, "pm_lost_bytes", lost, l->nr_segs))
		TH_LOG("%s: sysfs pm_lost_bytes", pd->d->exp.bdf);

	/* Every residency event of the cycle, then per segment. */
	{
		struct drm_wddmseg_event_residency ev[32];
		int nev = 0, r;

		r = wddmseg_read_residency_events(fd, ev, 32, 2000);
		while (r > 0 && nev + r <= 32) {
			nev += r;
			r = nev < 32 ? wddmseg_read_residency_events(fd, ev + nev,
								   32 - nev, 200) : 0;
		}
		for (i = 0; i < pd->nseg; i++) {
			struct pm_seg *p = &pd->seg[i];
			uint32_t want[2] = { 0, p->id };
			unsigned int got = 0;

			for (int k = 0; k < nev; k++) {
				if (ev[k].handle != p->res_h)
					continue;
				if (got < 2) {
					EXPECT_EQ(want[got], ev[k].segment_id)
						TH_LOG("%s cycle %u: %s residency event %u", bdf,
						       c, seg_name(p->id), got);
					EXPECT_EQ(p->res_seq + 1, ev[k].sequence);
				}
				p->res_seq = ev[k].sequence;
				got++;
			}
			EXPECT_EQ(p->res_preserved ? 0u : 2u, got)
				TH_LOG("%s cycle %u: %s: %u residency events", bdf, c,
				       seg_name(p->id), got);
		}
	}

	for (i = 0; i < pd->nseg; i++) {
		struct pm_seg *p = &pd->seg[i];
		uint32_t words[GEM_PEEK_WORDS];
		unsigned int faults, k, poison = 0;
		uint64_t ev = evicted[p->id - 1];

		EXPECT_EQ(p->id, (uint32_t)wddmseg_allocation_segment(fd, p->h))
			TH_LOG("%s cycle %u: %s: back in its segment", bdf, c,
			       seg_name(p->id));
		if (p->lost) {
			EXPECT_LT(0, lost[p->id - 1]);
			EXPECT_EQ(kept[p->id - 1], lost[p->id - 1])
				TH_LOG("%s cycle %u: %s: store removed: kept %" PRIu64 ", lost %" PRIu64,
				       bdf, c, seg_name(p->id), kept[p->id - 1],
				       lost[p->id - 1]);
		} else {
			EXPECT_EQ(0, lost[p->id - 1])
				TH_LOG("%s cycle %u: %s: %" PRIu64 " bytes reported lost",
				       bdf, c, seg_name(p->id), lost[p->id - 1]);
		}
		if (p->preserved && p->pin_preserved) {
			EXPECT_EQ(0, ev) TH_LOG("%s cycle %u: %s preserved: copied %" PRIu64 " bytes",
						bdf, c, seg_name(p->id), ev);
			EXPECT_LE(PM_SIZE, kept[p->id - 1]);
		} else if (p->preserved) {
			/* Partly preserved: the pinned one was copied out. */
			EXPECT_LE(PM_SIZE, kept[p->id - 1])
				TH_LOG("%s cycle %u: %s: kept %" PRIu64 " bytes", bdf,
				       c, seg_name(p->id), kept[p->id - 1]);
			EXPECT_LE(PIN_SIZE, ev) TH_LOG("%s cycle %u: %s: the pinned allocation was not saved",
						       bdf, c, seg_name(p->id));
			EXPECT_LE(PIN_SIZE, restored[p->id - 1]);
		} else {
			EXPECT_LE(PM_SIZE, ev) TH_LOG("%s cycle %u: %s not preserved",
						      bdf, c, seg_name(p->id));
			EXPECT_LE(PM_SIZE, restored[p->id - 1]);
		}
		ASSERT_EQ(0, gem_peek(pd->dbg, p->probe, words, &faults));
		for (k = 0; k < GEM_PEEK_WORDS; k++)
			poison += words[k] == PM_POISON;
		if (pm_hibernate() && !p->persistent) {
			for (k = 0, poison = 0; k < GEM_PEEK_WORDS; k++)
				poison += words[k] == 0;
			EXPECT_EQ(GEM_PEEK_WORDS, poison)
				TH_LOG("%s: %s after hibernation: freed range at 0x%" PRIx64 " is not fresh VRAM (0x%08x)",
				       bdf, seg_name(p->id), p->probe, words[0]);
		} else if (!p->lost &&
			   (p->probe - l->seg[p->id - 1].base + PM_PROBE <=
			    p->keep || (!pm_hibernate() && p->preserved))) {
			EXPECT_EQ(0, poison) TH_LOG("%s cycle %u: %s preserved but poisoned",
						    bdf, c, seg_name(p->id));
		} else {
			EXPECT_EQ(GEM_PEEK_WORDS, poison)
				TH_LOG("%s cycle %u: %s lost power: freed range at 0x%" PRIx64 " is not poison (0x%08x)",
				       bdf, c, seg_name(p->id), p->probe, words[0]);
			check_new_zero(_metadata, pd, p->id, c);
		}
		if (p->lost && p->preserved) {
			/* Left in place, and the store that held it is gone. */
			uint64_t bad = word_check(_metadata, fd, p->h, PM_SIZE,
						  PM_POISON);

			EXPECT_EQ(0, bad) TH_LOG("%s cycle %u: %s: store removed: %" PRIu64 " words not poison",
						 bdf, c, seg_name(p->id), bad);
		} else {
			check_pattern(_metadata, fd, p->h, PM_SIZE, p->seed,
				      seg_name(p->id), c);
		}
		{
			struct drm_wddmseg_gem_info info = { .handle = p->pin_h };
			uint64_t bad;

			ASSERT_EQ(0, wddmseg_query_allocation(fd, p->pin_h, &info));
			EXPECT_EQ(p->id, info.segment_id);
			EXPECT_EQ(p->pin_off, info.offset)
				TH_LOG("%s cycle %u: the pinned allocation moved", bdf, c);
			EXPECT_TRUE(info.state & WDDMSEG_STATE_PINNED);
			bad = word_check(_metadata, fd, p->pin_h, PIN_SIZE,
					 p->lost && p->pin_preserved ?
					 PM_POISON : PIN_WORD(p));
			EXPECT_EQ(0, bad) TH_LOG("%s cycle %u: %s pinned Overlay: %" PRIu64 " bad words",
						 bdf, c, seg_name(p->id), bad);
		}
		/* The read may have migrated it. */
		ASSERT_EQ(0, gem_move_wait(fd, p->h, p->id));
	}
	if (pd->apt_h) {
		/*
		 * First what the engine reads through the aperture's page
		 * table, which the resume wrote again through the APT_*
		 * registers after they were reset (a CPU read may move it).
		 */
		dst = blit_to_system(_metadata, fd, pd->apt_h, SZ_1M, true);
		check_pattern(_metadata, fd, dst, SZ_1M, 0x9e00a000u | pd->dv,
			      "aperture, as the engine reads it", c);
		ASSERT_EQ(0, wddmseg_destroy_allocation(fd, dst));
		check_pattern(_metadata, fd, pd->apt_h, SZ_1M,
			      0x9e00a000u | pd->dv, "aperture", c);
	}
	if (pd->ex_h) {
		/*
		 * ExistingSysMem: still mapped in the aperture, and the engine
		 * reads the user's pages through it (the page table was
		 * written again at resume); a new pattern for the next cycle.
		 */
		EXPECT_EQ(pd->ex_seg,
			  (uint32_t)wddmseg_allocation_segment(fd, pd->ex_h));
		EXPECT_EQ(0, pattern_check(pd->ex_buf, PM_EX_SIZE,
					   0x9e00c000u + pd->dv + c - 1, NULL));
		dst = blit_to_system(_metadata, fd, pd->ex_h, PM_EX_SIZE, true);
		check_pattern(_metadata, fd, dst, PM_EX_SIZE,
			      0x9e00c000u + pd->dv + c - 1,
			      "ExistingSysMem through the aperture", c);
		ASSERT_EQ(0, wddmseg_destroy_allocation(fd, dst));
		pattern_fill(pd->ex_buf, PM_EX_SIZE, 0x9e00c000u + pd->dv + c);
	}
	check_pattern(_metadata, fd, pd->sys_h, SZ_1M, 0x9e00b000u | pd->dv,
		      "system", c);

	/* The blit that was in flight when the system went to sleep. */
	if (pd->inflight) {
		ASSERT_EQ(0, wddmseg_wait(fd, pd->inflight, 10 * NSEC_PER_SEC));
		check_pattern(_metadata, fd, pd->inflight, PM_SIZE,
			      pd->seg[pd->nseg - 1].seed, "blit in flight at suspend", c);
		ASSERT_EQ(0, wddmseg_destroy_allocation(fd, pd->inflight));
		pd->inflight = 0;
	}

	/* The engine blits: a segment's allocation (not lost) into system. */
	for (i = 0; i + 1 < pd->nseg && pd->seg[i].lost; i++)
		;
	dst = blit_to_system(_metadata, fd, pd->seg[i].h, PM_SIZE, true);
	if (pd->seg[i].lost) {
		EXPECT_EQ(0, word_check(_metadata, fd, dst, PM_SIZE, PM_POISON));
	} else {
		check_pattern(_metadata, fd, dst, PM_SIZE, pd->seg[i].seed,
			      "blit after resume", c);
	}
	ASSERT_EQ(0, wddmseg_destroy_allocation(fd, dst));
}

TEST_F_TIMEOUT(pm, cycles, 900)
{
	const char *env = getenv("WDDMSEG_PM_CYCLES");
	unsigned int cycles = env ? strtoul(env, NULL, 0) : pm_hibernate() ? 1 : 20;
	struct pm_dev pd[GEM_MAX_DEVS] = { 0 };
	unsigned int dv, c;

	if (pm_mode("pressure"))
		WSKIP(return, "WDDMSEG_PM_MODE=pressure runs pm.pressure only");

	for (dv = 0; dv < self->env.nr_devs; dv++) {
		pd[dv].d = &self->env.dev[dv];
		pd[dv].dv = dv;
		pm_dev_setup(_metadata, &pd[dv]);
	}
	for (c = 1; c <= cycles; c++) {
		for (dv = 0; dv < self->env.nr_devs; dv++)
			pd[dv].inflight = blit_to_system(_metadata, pd[dv].fd,
					pd[dv].seg[pd[dv].nseg - 1].h, PM_SIZE, false);
		if (pm_hibernate()) {
			ASSERT_EQ(0, s4_cycle()) TH_LOG("cycle %u: echo disk", c);
		} else {
			ASSERT_EQ(0, s3_cycle()) TH_LOG("cycle %u: echo mem", c);
		}
		for (dv = 0; dv < self->env.nr_devs; dv++)
			pm_dev_check(_metadata, &pd[dv], c);
		TH_LOG("cycle %u of %u done", c, cycles);
	}
	for (dv = 0; dv < self->env.nr_devs; dv++)
		close(pd[dv].fd);
}

/*
 * Runtime PM (pm.runtime): /sys/bus/pci/devices/BDF/power/@name of @d,
 * read into @buf without its newline, or written with @val.
 */
static int rpm_file(const struct gem_dev *d, const char *name, char *buf,
		    size_t len, const char *val)
{
	char path[160];
	int ret;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/power/%s",
		 d->exp.bdf, name);
	if (val)
		return file_write(path, val);
	ret = file_read(path, buf, len);
	if (!ret)
		buf[strcspn(buf, "\n")] = 0;
	return ret;
}

/* Poll runtime_status until it reads @want or @secs pass. */
static bool rpm_wait(const struct gem_dev *d, const char *want, double secs,
		     char *last, size_t len)
{
	double end = now_seconds() + secs;

	do {
		if (!rpm_file(d, "runtime_status", last, len, NULL) &&
		    !strcmp(last, want))
			return true;
		usleep(50 * 1000);
	} while (now_seconds() < end);
	return false;
}

/* The fbdev "blank" file of @d's framebuffer console, if it has one. */
static bool rpm_fb_blank(const struct gem_dev *d, char *path, size_t len)
{
	char link[160], target[256];
	unsigned int i;
	ssize_t n;

	for (i = 0; i < 8; i++) {
		snprintf(link, sizeof(link), "/sys/class/graphics/fb%u/device", i);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (!strstr(target, d->exp.bdf))
			continue;
		snprintf(path, len, "/sys/class/graphics/fb%u/blank", i);
		return true;
	}
	return false;
}

/* One memory segment's allocation in pm.runtime. */
struct rpm_seg {
	uint32_t id;
	bool preserved;
	uint32_t h, seed;
	uint64_t probe;		/* GPU address of a freed range, or 0 */
};

#define RPM_SUSPEND_SECS	120.0

/*
 * Runtime PM on one device: idle, it goes to D3hot with the standby
 * semantics of its segments; an ioctl, a fault on a CPU mapping and a
 * debugfs read bring it back; an enabled CRTC and a job in flight keep it
 * in D0.
 */
static void rpm_dev(struct __test_metadata *_metadata, const struct gem_dev *d,
		    unsigned int dv)
{
	const struct layout *l = &d->exp.layout;
	uint64_t evicted[LAYOUT_MAX_SEGS], kept[LAYOUT_MAX_SEGS];
	uint64_t cyc0, cyc;
	struct rpm_seg seg[LAYOUT_MAX_SEGS];
	char delay0[32], st[32], blank[96], dbg[64];
	bool fb = rpm_fb_blank(d, blank, sizeof(blank));
	uint32_t *map = NULL;
	uint32_t map_seed = 0, dst;
	unsigned int i, n = 0;
	int fd, ffd;

	ASSERT_EQ(0, rpm_file(d, "autosuspend_delay_ms", delay0,
			      sizeof(delay0), NULL));
	ASSERT_EQ(0, rpm_file(d, "control", st, sizeof(st), NULL));
	ASSERT_STREQ("auto", st) TH_LOG("%s: the driver allows runtime PM",
					d->exp.bdf);
	/* The module parameter is the delay each device starts with. */
	{
		char param[32];

		ASSERT_EQ(0, file_read(PARAM_DIR "/autosuspend_ms", param,
				       sizeof(param)));
		EXPECT_EQ(strtol(param, NULL, 0), strtol(delay0, NULL, 0))
			TH_LOG("%s: power/autosuspend_delay_ms %s, module parameter autosuspend_ms %s",
			       d->exp.bdf, delay0, param);
	}
	ASSERT_EQ(0, rpm_file(d, "autosuspend_delay_ms", NULL, 0, "200"));
	gem_debugfs_dir(d, dbg, sizeof(dbg));

	/*
	 * The fbdev console's CRTC is on: the device stays in D0. Blanked
	 * before the node is opened: fbdev leaves the display alone while
	 * there is a DRM master.
	 */
	if (fb) {
		sleep(2);
		ASSERT_EQ(0, rpm_file(d, "runtime_status", st, sizeof(st), NULL));
		EXPECT_STREQ("active", st)
			TH_LOG("%s: an enabled CRTC (fbdev console) holds the device in D0",
			       d->exp.bdf);
		ASSERT_EQ(0, file_write(blank, "4"));
	}
	fd = gem_open(_metadata, d->card);

	for (i = 0; i < l->nr_segs; i++) {
		const struct layout_seg *ls = &l->seg[i];
		struct rpm_seg *p;

		if (wddmseg_segment_is_aperture(ls->flags) ||
		    ls->size < 4 * PM_SIZE)
			continue;
		p = &seg[n++];
		p->id = i + 1;
		p->preserved = preserved_s3(l->caps, ls->flags);
		p->seed = 0x7e000000u | (dv << 8) | p->id;
		p->h = make_pattern(_metadata, fd, p->id, PM_SIZE, 0, p->seed);
		p->probe = 0;
		if (!p->preserved) {
			struct drm_wddmseg_gem_info info = { 0 };

			info.handle =
				make_pattern(_metadata, fd, p->id, PM_PROBE,
					     WDDMSEG_ALLOC_FROM_END_OF_SEGMENT,
					     p->seed ^ 0xffff);
			ASSERT_EQ(0, wddmseg_query_allocation(fd, info.handle,
							      &info));
			p->probe = ls->base + info.offset;
			ASSERT_EQ(0, wddmseg_destroy_allocation(fd, info.handle));
		}
		/* A CPU mapping of the first CPU-visible one. */
		if (!map && wddmseg_segment_cpu_visible(ls->flags)) {
			void *m;

			map_seed = p->seed;
			ASSERT_EQ(0, wddmseg_lock(fd, p->h, PM_SIZE, &m));
			map = m;
			ASSERT_EQ(pattern_word(map_seed, 0), map[0]);
		}
	}
	ASSERT_LT(0, n) TH_LOG("%s: no memory segment", d->exp.bdf);
	ASSERT_EQ(0, pm_sysfs(d, "pm_runtime_cycles", &cyc0, 1));

	/* 1. Idle: the device suspends, the flags decide what is copied. */
	if (!rpm_wait(d, "suspended", RPM_SUSPEND_SECS, st, sizeof(st))) {
		char usage[32] = "?";

		rpm_file(d, "runtime_usage", usage, sizeof(usage), NULL);
		ASSERT_TRUE(false)
			TH_LOG("%s: idle for %.0f s with a 200 ms autosuspend delay, runtime_status still \"%s\" (runtime_usage %s)",
			       d->exp.bdf, RPM_SUSPEND_SECS, st, usage);
	}
	ASSERT_EQ(0, pm_sysfs(d, "pm_evicted_bytes", evicted, l->nr_segs));
	ASSERT_EQ(0, pm_sysfs(d, "pm_kept_bytes", kept, l->nr_segs));
	for (i = 0; i < n; i++) {
		struct rpm_seg *p = &seg[i];

		if (p->preserved) {
			EXPECT_EQ(0, evicted[p->id - 1])
				TH_LOG("%s: %s preserves its VRAM in D3hot: nothing to copy",
				       d->exp.bdf, seg_name(p->id));
			EXPECT_LE(PM_SIZE, kept[p->id - 1])
				TH_LOG("%s: %s kept in place", d->exp.bdf,
				       seg_name(p->id));
		} else {
			EXPECT_LE(PM_SIZE, evicted[p->id - 1])
				TH_LOG("%s: %s loses its VRAM in D3hot: evicted",
				       d->exp.bdf, seg_name(p->id));
		}
	}
	ASSERT_EQ(0, rpm_file(d, "runtime_status", st, sizeof(st), NULL));
	EXPECT_STREQ("suspended", st)
		TH_LOG("%s: reading the driver's sysfs files does not resume it",
		       d->exp.bdf);

	/* 2. A fault on the CPU mapping resumes it; the bytes are there. */
	ASSERT_NE(NULL, map);
	EXPECT_EQ(pattern_word(map_seed, 1), map[1]);
	ASSERT_EQ(0, pm_sysfs(d, "pm_runtime_cycles", &cyc, 1));
	EXPECT_LT(cyc0, cyc)
		TH_LOG("%s: touching a CPU mapping of VRAM resumed the device",
		       d->exp.bdf);
	cyc0 = cyc;

	/* 3. Suspended again: the freed VRAM it lost reads the poison. */
	ASSERT_TRUE(rpm_wait(d, "suspended", RPM_SUSPEND_SECS, st, sizeof(st)));
	for (i = 0; i < n; i++) {
		uint32_t words[GEM_PEEK_WORDS];
		unsigned int faults, k, poison = 0;

		/* Every segment kept its VRAM: a peek anywhere resumes. */
		if (i == n - 1 && !seg[i].probe)
			ASSERT_EQ(0, gem_peek(dbg, l->seg[seg[i].id - 1].base,
					      words, &faults));
		if (!seg[i].probe)
			continue;
		ASSERT_EQ(0, gem_peek(dbg, seg[i].probe, words, &faults));
		for (k = 0; k < GEM_PEEK_WORDS; k++)
			poison += words[k] == PM_POISON;
		EXPECT_EQ(GEM_PEEK_WORDS, poison)
			TH_LOG("%s: %s: freed VRAM after D3hot reads 0x%08x, not the poison",
			       d->exp.bdf, seg_name(seg[i].id), words[0]);
	}
	ASSERT_EQ(0, pm_sysfs(d, "pm_runtime_cycles", &cyc, 1));
	EXPECT_LT(cyc0, cyc) TH_LOG("%s: the debugfs peek resumed the device",
				    d->exp.bdf);

	/* 4. An ioctl resumes it: every byte back in its segment, blits. */
	ASSERT_TRUE(rpm_wait(d, "suspended", RPM_SUSPEND_SECS, st, sizeof(st)));
	ASSERT_EQ(0, pm_sysfs(d, "pm_runtime_cycles", &cyc0, 1));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(seg[i].id, wddmseg_allocation_segment(fd, seg[i].h))
			TH_LOG("%s: back in its segment after the resume",
			       d->exp.bdf);
		check_pattern(_metadata, fd, seg[i].h, PM_SIZE, seg[i].seed,
			      "runtime resume", 0);
	}
	ASSERT_EQ(0, pm_sysfs(d, "pm_runtime_cycles", &cyc, 1));
	EXPECT_LT(cyc0, cyc) TH_LOG("%s: an ioctl resumed the device",
				    d->exp.bdf);
	dst = blit_to_system(_metadata, fd, seg[n - 1].h, PM_SIZE, true);
	check_pattern(_metadata, fd, dst, PM_SIZE, seg[n - 1].seed,
		      "a blit after the runtime resume", 0);
	ASSERT_EQ(0, wddmseg_destroy_allocation(fd, dst));

	/*
	 * 5. A job in flight holds the device in D0: an injected hang keeps
	 * it unsignalled until the watchdog (fence_timeout_ms) replays it.
	 */
	ASSERT_EQ(0, rpm_file(d, "autosuspend_delay_ms", NULL, 0, "500"))
		TH_LOG("%s: power/autosuspend_delay_ms", d->exp.bdf);
	{
		char inject[96];

		snprintf(inject, sizeof(inject), "%s/inject", dbg);
		ASSERT_EQ(0, file_write(inject, "hang"));
	}
	ASSERT_EQ(0, wddmseg_create_allocation_in(fd, PM_SIZE,
			WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND, 0, &dst));
	ffd = -1;
	ASSERT_EQ(0, wddmseg_copy(fd, seg[0].h, 0, dst, 0, PM_SIZE, &ffd));
	if (ffd >= 0)
		close(ffd);
	sleep(2);
	ASSERT_EQ(0, rpm_file(d, "runtime_status", st, sizeof(st), NULL));
	EXPECT_STREQ("active", st)
		TH_LOG("%s: 2 s after a hung job was submitted (autosuspend delay 500 ms)",
		       d->exp.bdf);
	ASSERT_EQ(0, wddmseg_wait(fd, dst, 60 * NSEC_PER_SEC));
	check_pattern(_metadata, fd, dst, PM_SIZE, seg[0].seed,
		      "the hung job, replayed", 0);
	ASSERT_EQ(0, wddmseg_destroy_allocation(fd, dst));

	wddmseg_unlock(map, PM_SIZE);
	for (i = 0; i < n; i++)
		wddmseg_destroy_allocation(fd, seg[i].h);
	close(fd);
	if (fb) {
		ASSERT_EQ(0, file_write(blank, "0"));
		sleep(2);
		ASSERT_EQ(0, rpm_file(d, "runtime_status", st, sizeof(st), NULL));
		EXPECT_STREQ("active", st)
			TH_LOG("%s: the console's CRTC is on again", d->exp.bdf);
	}
	ASSERT_EQ(0, rpm_file(d, "autosuspend_delay_ms", NULL, 0, delay0));
}

/*
 * Runtime PM: each device, idle with a 200 ms autosuspend delay, reaches
 * runtime_status "suspended" (D3hot), having evicted what its segments
 * lose in D3hot (standby semantics) and copied nothing out of the others;
 * a fault on a CPU mapping, a debugfs peek and an ioctl resume it, with
 * every byte in place and the engine blitting; the VRAM it lost reads the
 * poison. The fbdev console's CRTC and an unsignalled job keep it active.
 */
TEST_F_TIMEOUT(pm, runtime, 900)
{
	unsigned int dv;

	if (pm_mode("pressure") || pm_hibernate())
		WSKIP(return, "pm.runtime runs in the S3 boot");
	for (dv = 0; dv < self->env.nr_devs; dv++)
		rpm_dev(_metadata, &self->env.dev[dv], dv);
}

/*
 * Fill @mb MiB of the second segment of @d with engine-filled 2 MiB
 * allocations (word: @base + index) into @h; returns how many.
 */
static unsigned int pressure_fill(struct __test_metadata *_metadata, int fd,
				  unsigned int mb, uint32_t base, uint32_t *h)
{
	unsigned int i, n = mb / 2;
	int ffd;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, wddmseg_create_allocation_in(fd, PM_SIZE, 0, SEG_INV,
							  &h[i]))
			TH_LOG("allocation %u of %u", i, n);
		ffd = -1;
		ASSERT_EQ(0, wddmseg_fill(fd, h[i], 0, PM_SIZE, base + i, &ffd));
		if (ffd >= 0)
			close(ffd);
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, wddmseg_wait(fd, h[i], 30 * NSEC_PER_SEC));
		ASSERT_EQ(SEG_INV, wddmseg_allocation_segment(fd, h[i]));
	}
	return n;
}

/* The allocations still hold their words, wherever they are. */
static uint64_t pressure_check(struct __test_metadata *_metadata, int fd,
			       unsigned int n, uint32_t base, const uint32_t *h)
{
	uint64_t bad = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		bad += word_check(_metadata, fd, h[i], PM_SIZE, base + i);
	return bad;
}

/*
 * WDDMSEG_PM_MODE=pressure, in a guest with little RAM
 * (tools/vm/pm-pressure.sh) and two devices whose invisible segment is
 * larger than the RAM left: the first loses it in S3, the second keeps
 * it (PreservedDuringStandby). With both full (WDDMSEG_PM_MB each), the
 * suspend must fail cleanly, naming rule pm-no-memory, and every byte must
 * still be there; with only the second full, it must succeed (nothing to
 * copy) and the bytes stay where they are.
 */
TEST_F_TIMEOUT(pm, pressure, 900)
{
	const char *env = getenv("WDDMSEG_PM_MB");
	unsigned int mb = env ? strtoul(env, NULL, 0) : 384, na, nb;
	uint32_t *ha, *hb;
	uint64_t bad, ev[LAYOUT_MAX_SEGS];
	char rec[1024], rule[64] = "";
	int fa, fb, kfd, ret;

	if (!pm_mode("pressure"))
		WSKIP(return, "only with WDDMSEG_PM_MODE=pressure");
	ASSERT_LE(2, self->env.nr_devs);
	ha = calloc(mb / 2, sizeof(*ha));
	hb = calloc(mb / 2, sizeof(*hb));
	ASSERT_NE(NULL, ha);
	ASSERT_NE(NULL, hb);
	fa = gem_open(_metadata, self->env.dev[0].card);
	fb = gem_open(_metadata, self->env.dev[1].card);
	na = pressure_fill(_metadata, fa, mb, 0x71000000u, ha);
	nb = pressure_fill(_metadata, fb, mb, 0x72000000u, hb);

	kfd = kmsg_open_end();
	ASSERT_LE(0, kfd);
	ret = s3_cycle();
	EXPECT_EQ(-ENOMEM, ret) TH_LOG("suspend with %u MiB to copy and little RAM", mb);
	while (kmsg_read(kfd, rec, sizeof(rec)))
		kmsg_rule(rec, "rule ", rule, sizeof(rule));
	close(kfd);
	EXPECT_STREQ("pm-no-memory", rule);
	bad = pressure_check(_metadata, fa, na, 0x71000000u, ha);
	EXPECT_EQ(0, bad) TH_LOG("refused suspend: %" PRIu64 " bad words on the first device", bad);
	bad = pressure_check(_metadata, fb, nb, 0x72000000u, hb);
	EXPECT_EQ(0, bad) TH_LOG("refused suspend: %" PRIu64 " bad words on the second device", bad);

	/* Nothing that would be lost: nothing to copy, the suspend works. */
	for (unsigned int i = 0; i < na; i++)
		ASSERT_EQ(0, wddmseg_destroy_allocation(fa, ha[i]));
	ASSERT_EQ(0, s3_cycle());
	ASSERT_EQ(0, pm_sysfs(&self->env.dev[1], "pm_evicted_bytes", ev,
			      self->env.dev[1].exp.layout.nr_segs));
	EXPECT_EQ(0, ev[SEG_INV - 1]) TH_LOG("the preserved segment copied bytes");
	bad = pressure_check(_metadata, fb, nb, 0x72000000u, hb);
	EXPECT_EQ(0, bad) TH_LOG("after S3: %" PRIu64 " bad words", bad);
	for (unsigned int i = 0; i < nb; i++)
		EXPECT_EQ(SEG_INV, wddmseg_allocation_segment(fb, hb[i]));
	close(fa);
	close(fb);
	free(ha);
	free(hb);
}

/* HardwareProtected content across S3, per VprSupported segment. */
enum vpr_kind { VPR_KEPT, VPR_SEALED, VPR_REFUSED };

struct vpr_alloc {
	const struct gem_dev *d;
	int fd;
	char dbg[64];
	uint32_t seg, h, word;
	uint64_t base;		/* the segment's GPU address */
	enum vpr_kind kind;
};

#define VPR_SIZE	(4 * SZ_64K)

/* The GPU sees @v's word at the start and the end of the allocation. */
static bool vpr_intact(struct vpr_alloc *v)
{
	static const uint64_t at[] = { 0, VPR_SIZE - 4 * GEM_PEEK_WORDS };
	struct drm_wddmseg_gem_info info = { .handle = v->h };
	uint32_t words[GEM_PEEK_WORDS];
	unsigned int faults, i, k;

	if (wddmseg_query_allocation(v->fd, v->h, &info) ||
	    info.segment_id != v->seg)
		return false;
	for (k = 0; k < 2; k++) {
		if (gem_peek(v->dbg, v->base + info.offset + at[k], words, &faults))
			return false;
		for (i = 0; i < GEM_PEEK_WORDS; i++)
			if (words[i] != v->word)
				return false;
	}
	return true;
}

/*
 * HardwareProtected allocations (S3 mode, layouts of tools/vm/pm-check.sh)
 * in every VprSupported memory segment: with VprPreservedDuringStandby
 * (and power kept) they stay in place, 0 bytes copied; with
 * EncryptedPagingSupported instead they are sealed out (TRANSFER_ENCRYPTED)
 * and come back intact; with neither, the suspend is refused (-EACCES,
 * rule pm-hardware-protected-evict) and every byte stays. Then, without
 * the allocations that refuse it, a suspend succeeds.
 */
TEST_F_TIMEOUT(pm, vpr, 600)
{
	struct vpr_alloc v[GEM_MAX_DEVS * LAYOUT_MAX_SEGS];
	unsigned int n = 0, nk[3] = { 0 }, dv, i;
	uint64_t ev[LAYOUT_MAX_SEGS], kept[LAYOUT_MAX_SEGS];
	char rec[1024], rule[64] = "";
	int kfd, ret;

	if (!pm_mode("s3"))
		WSKIP(return, "S3 mode only");
	for (dv = 0; dv < self->env.nr_devs; dv++) {
		const struct gem_dev *d = &self->env.dev[dv];
		const struct layout *l = &d->exp.layout;
		int fd = -1;

		for (i = 0; i < l->nr_segs; i++) {
			const struct layout_seg *s = &l->seg[i];
			struct wddmseg_allocation_desc a = { 0 };
			struct vpr_alloc *x;

			if (wddmseg_segment_is_aperture(s->flags) ||
			    !(s->flags & WDDMSEG_SEGMENT_FLAG_VPR_SUPPORTED))
				continue;
			if (fd < 0)
				fd = gem_open(_metadata, d->card);
			x = &v[n++];
			x->d = d;
			x->fd = fd;
			gem_debugfs_dir(d, x->dbg, sizeof(x->dbg));
			x->seg = i + 1;
			x->base = s->base;
			x->word = 0x7e000000u | (dv << 8) | x->seg;
			if (preserved_s3(l->caps, s->flags) &&
			    (s->flags & WDDMSEG_SEGMENT_FLAG_VPR_PRESERVED_DURING_STANDBY))
				x->kind = VPR_KEPT;
			else if (s->flags & WDDMSEG_SEGMENT_FLAG_ENCRYPTED_PAGING_SUPPORTED)
				x->kind = VPR_SEALED;
			else
				x->kind = VPR_REFUSED;
			nk[x->kind]++;
			a.size = VPR_SIZE;
			a.flags = WDDMSEG_ALLOC_HARDWARE_PROTECTED;
			a.supported_segments = WDDMSEG_SEGMENT_BIT(x->seg);
			a.preferred[0] = x->seg;
			ASSERT_EQ(0, wddmseg_create_allocation(fd, &a, &x->h))
				TH_LOG("%s: HardwareProtected in %s", d->exp.bdf,
				       seg_name(x->seg));
			ASSERT_EQ(0, wddmseg_fill(fd, x->h, 0, VPR_SIZE, x->word, NULL));
			ASSERT_EQ(0, wddmseg_wait(fd, x->h, 20 * NSEC_PER_SEC));
			ASSERT_TRUE(vpr_intact(x));
		}
	}
	if (!nk[VPR_KEPT] || !nk[VPR_SEALED] || !nk[VPR_REFUSED])
		WSKIP(return, "the layouts lack a VprSupported segment that keeps, seals or refuses (%u %u %u)",
		     nk[VPR_KEPT], nk[VPR_SEALED], nk[VPR_REFUSED]);

	/* A segment that can neither keep nor seal refuses the suspend. */
	kfd = kmsg_open_end();
	ASSERT_LE(0, kfd);
	ret = s3_cycle();
	EXPECT_EQ(-EACCES, ret) TH_LOG("suspend with HardwareProtected content that would be lost");
	while (kmsg_read(kfd, rec, sizeof(rec)))
		kmsg_rule(rec, "rule ", rule, sizeof(rule));
	close(kfd);
	EXPECT_STREQ("pm-hardware-protected-evict", rule);
	for (i = 0; i < n; i++)
		EXPECT_TRUE(vpr_intact(&v[i]))
			TH_LOG("refused suspend: %s %s lost its content or place",
			       v[i].d->exp.bdf, seg_name(v[i].seg));

	for (i = 0; i < n; i++) {
		if (v[i].kind != VPR_REFUSED)
			continue;
		ASSERT_EQ(0, wddmseg_destroy_allocation(v[i].fd, v[i].h));
		v[i].h = 0;
	}
	ASSERT_EQ(0, s3_cycle()) TH_LOG("suspend with only keepable or sealable content");
	for (i = 0; i < n; i++) {
		const struct gem_dev *d = v[i].d;

		if (!v[i].h)
			continue;
		EXPECT_TRUE(vpr_intact(&v[i]))
			TH_LOG("after S3: %s %s (%s) lost its content or place",
			       d->exp.bdf, seg_name(v[i].seg),
			       v[i].kind == VPR_KEPT ? "VprPreservedDuringStandby" :
			       "EncryptedPagingSupported");
		ASSERT_EQ(0, pm_sysfs(d, "pm_evicted_bytes", ev,
				      d->exp.layout.nr_segs));
		ASSERT_EQ(0, pm_sysfs(d, "pm_kept_bytes", kept,
				      d->exp.layout.nr_segs));
		if (v[i].kind == VPR_KEPT) {
			EXPECT_EQ(0, ev[v[i].seg - 1]) TH_LOG("%s %s: copied %" PRIu64 " bytes",
							     d->exp.bdf, seg_name(v[i].seg),
							     ev[v[i].seg - 1]);
			EXPECT_LE(VPR_SIZE, kept[v[i].seg - 1]);
		} else {
			EXPECT_LE(VPR_SIZE, ev[v[i].seg - 1]) TH_LOG("%s %s: not sealed out",
								     d->exp.bdf,
								     seg_name(v[i].seg));
		}
		wddmseg_destroy_allocation(v[i].fd, v[i].h);
	}
	for (i = 0; i < n; i++)
		if (!i || v[i].fd != v[i - 1].fd)
			close(v[i].fd);
}

TEST_HARNESS_MAIN
