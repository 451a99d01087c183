// SPDX-License-Identifier: GPL-2.0-only
/*
 * kselftest: the copy engine as a blit engine (DRM_IOCTL_WDDMSEG_SUBMIT_BLIT):
 * copies and fills between allocations in every kind of placement, the
 * sync_file out-fence, every refusal, and the per-client figures of
 * /proc/self/fdinfo (drm-engine-copy, drm-total-/drm-resident-<region>).
 *
 * Runs on the first device of the expectation file (the default layout:
 * 1 CPU-visible VRAM, 2 invisible VRAM, 3 aperture).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "wddmseg_gem.h"

#define BLIT_SIZE	(3 * SZ_1M + 12)

FIXTURE(blit) {
	struct gem_env env;
	struct gem_dev *dev;
	int fd;
};

GEM_SKIP_WITHOUT_DEVICE();

FIXTURE_SETUP(blit)
{
	self->fd = -1;
	gem_env_load(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	self->dev = gem_env_first(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	self->fd = gem_open(_metadata, self->dev->card);
}

FIXTURE_TEARDOWN(blit)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Bytes of [@p, @p + @n) that are not zero. */
static uint64_t nonzero_bytes(const uint8_t *p, uint64_t n)
{
	uint64_t i, bad = 0;

	for (i = 0; i < n; i++)
		bad += p[i] != 0;
	return bad;
}

/* An allocation of @size in segment @id (0: system), CPU-mappable. */
static uint32_t make(struct __test_metadata *_metadata, int fd, uint32_t id,
		     uint64_t size)
{
	uint32_t h;

	ASSERT_EQ(0, wddmseg_create_allocation_in(fd, size, WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
				   id, &h));
	return h;
}

/* Copy between every pair of placements; byte-exact, unaligned offsets. */
TEST_F(blit, copy_every_pair)
{
	static const uint32_t segs[] = { 0, 1, 2, 3 };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		for (j = 0; j < ARRAY_SIZE(segs); j++) {
			uint64_t size = 4 * SZ_1M;
			uint32_t src = make(_metadata, self->fd, segs[i], size);
			uint32_t dst = make(_metadata, self->fd, segs[j], size);
			struct drm_wddmseg_submit_blit b = {
				.op = WDDMSEG_BLIT_COPY,
				.src_handle = src, .dst_handle = dst,
				.src_offset = 4 * 1025, .dst_offset = 12,
				.size = BLIT_SIZE,
			};
			uint8_t *ps, *pd;

			ASSERT_EQ(0, gem_write_pattern(self->fd, src, size,
						       0x5eed + i * 16 + j));
			/* Back where it belongs after a fault migration. */
			ASSERT_EQ(0, wddmseg_move(self->fd, src, segs[i]));
			ASSERT_EQ(0, wddmseg_move(self->fd, dst, segs[j]));
			ASSERT_EQ(segs[i], (uint32_t)wddmseg_allocation_segment(self->fd, src));
			ASSERT_EQ(segs[j], (uint32_t)wddmseg_allocation_segment(self->fd, dst));

			ASSERT_EQ(0, wddmseg_submit_blit(self->fd, &b))
				TH_LOG("segment %u -> %u", segs[i], segs[j]);
			ASSERT_EQ(-1, b.fence_fd);
			ASSERT_EQ(0, wddmseg_wait(self->fd, dst, 10000000000LL));

			ASSERT_EQ(0, wddmseg_lock(self->fd, src, size,
						  (void **)&ps));
			ASSERT_EQ(0, wddmseg_lock(self->fd, dst, size,
						  (void **)&pd));
			EXPECT_EQ(0, memcmp(ps + b.src_offset, pd + b.dst_offset,
					    b.size))
				TH_LOG("copy segment %u -> %u differs", segs[i],
				       segs[j]);
			/* Bytes outside the destination range stay zero. */
			EXPECT_EQ(0u, nonzero_bytes(pd, b.dst_offset));
			EXPECT_EQ(0u, nonzero_bytes(pd + b.dst_offset + b.size,
						  size - b.dst_offset - b.size));
			munmap(ps, size);
			munmap(pd, size);
			wddmseg_destroy_allocation(self->fd, src);
			wddmseg_destroy_allocation(self->fd, dst);
		}
	}
}

/* FILL writes the pattern over exactly the range; a sync_file signals it. */
TEST_F(blit, fill_with_fence_out)
{
	static const uint32_t segs[] = { 0, 1, 2, 3 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		uint64_t size = 4 * SZ_1M, k;
		uint32_t dst = make(_metadata, self->fd, segs[i], size);
		struct drm_wddmseg_submit_blit b = {
			.op = WDDMSEG_BLIT_FILL,
			.flags = WDDMSEG_BLIT_FENCE_OUT,
			.dst_handle = dst, .dst_offset = 4096 + 8,
			.size = BLIT_SIZE, .pattern = 0xa5c3f00d,
		};
		struct pollfd pfd;
		uint32_t *pw;
		uint8_t *p;

		ASSERT_EQ(0, wddmseg_submit_blit(self->fd, &b)) TH_LOG("segment %u", segs[i]);
		ASSERT_LE(0, b.fence_fd);
		pfd.fd = b.fence_fd;
		pfd.events = POLLIN;
		ASSERT_EQ(1, poll(&pfd, 1, 10000)) TH_LOG("sync_file never signalled");
		close(b.fence_fd);
		ASSERT_EQ(segs[i], (uint32_t)wddmseg_allocation_segment(self->fd, dst));

		ASSERT_EQ(0, wddmseg_lock(self->fd, dst, size, (void **)&p));
		pw = (uint32_t *)(p + b.dst_offset);
		for (k = 0; k < b.size / 4; k++) {
			if (pw[k] != b.pattern) {
				EXPECT_EQ(b.pattern, pw[k])
					TH_LOG("segment %u word %llu", segs[i],
					       (unsigned long long)k);
				break;
			}
		}
		EXPECT_EQ(0u, nonzero_bytes(p, b.dst_offset));
		EXPECT_EQ(0u, nonzero_bytes(p + b.dst_offset + b.size,
					  size - b.dst_offset - b.size));
		munmap(p, size);
		wddmseg_destroy_allocation(self->fd, dst);
	}
}

/* Each malformed request is refused and queues nothing. */
TEST_F(blit, refusals)
{
	uint32_t a = make(_metadata, self->fd, 1, SZ_1M);
	uint32_t c = make(_metadata, self->fd, 2, SZ_1M);
	struct drm_wddmseg_submit_blit ok = {
		.op = WDDMSEG_BLIT_COPY, .src_handle = a, .dst_handle = c,
		.size = 4096,
	}, b;

	b = ok; b.op = 2;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.flags = 1u << 4;	/* the first flag bit not defined */
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.reserved = 1;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.vm_id = 1;	/* an address space without WDDMSEG_BLIT_VIRTUAL */
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.vm_pad = 1;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.pattern = 1;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.size = 0;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.size = 6;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.dst_offset = 2;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.src_offset = SZ_1M - 4096 + 4;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.size = SZ_1M + 4;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.dst_handle = a; b.src_offset = 0; b.dst_offset = 2048;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b)) TH_LOG("overlap accepted");
	b = ok; b.dst_handle = 0xdead;
	EXPECT_EQ(-ENOENT, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.src_handle = 0xdead;
	EXPECT_EQ(-ENOENT, wddmseg_submit_blit(self->fd, &b));
	b = ok; b.op = WDDMSEG_BLIT_FILL;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b)) TH_LOG("FILL with a source");
	b = ok;
	EXPECT_EQ(0, wddmseg_submit_blit(self->fd, &b));
	EXPECT_EQ(0, wddmseg_wait(self->fd, c, 10000000000LL));
	wddmseg_destroy_allocation(self->fd, a);
	wddmseg_destroy_allocation(self->fd, c);
}

/*
 * Syncobjs (uapi 4): the caps say so, a blit signals a binary syncobj and
 * a timeline point, a later blit waits for that point, and the refusals:
 * a point with no fence yet, an unknown syncobj, fields without their
 * flag.
 */
TEST_F(blit, syncobjs)
{
	const uint64_t size = SZ_1M;
	uint32_t dst = make(_metadata, self->fd, 1, size);
	uint32_t dst2 = make(_metadata, self->fd, 2, size);
	uint32_t bin, tl;
	uint64_t cap = 0;
	uint64_t point = 0;
	uint32_t *p;
	struct drm_wddmseg_submit_blit b = {
		.op = WDDMSEG_BLIT_FILL, .dst_handle = dst, .size = size,
		.pattern = 0x5ca1ab1e, .flags = WDDMSEG_BLIT_SYNCOBJ_OUT,
	};

	ASSERT_EQ(0, drmGetCap(self->fd, DRM_CAP_SYNCOBJ, &cap));
	EXPECT_EQ(1u, cap);
	ASSERT_EQ(0, drmGetCap(self->fd, DRM_CAP_SYNCOBJ_TIMELINE, &cap));
	EXPECT_EQ(1u, cap);
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &bin));
	ASSERT_EQ(0, drmSyncobjCreate(self->fd, 0, &tl));

	/* binary out-syncobj */
	b.out_syncobj = bin;
	ASSERT_EQ(0, wddmseg_submit_blit(self->fd, &b));
	EXPECT_EQ(0, drmSyncobjWait(self->fd, &bin, 1, INT64_MAX, 0, NULL));
	ASSERT_EQ(0, wddmseg_lock(self->fd, dst, size, (void **)&p));
	EXPECT_EQ(0x5ca1ab1eu, p[0]);
	EXPECT_EQ(0x5ca1ab1eu, p[size / 4 - 1]);
	munmap(p, size);

	/* timeline point 3, then a copy that waits for it */
	b.out_syncobj = tl;
	b.out_point = 3;
	b.pattern = 0x0ddba11;
	ASSERT_EQ(0, wddmseg_submit_blit(self->fd, &b));
	point = b.out_point;
	EXPECT_EQ(0, drmSyncobjTimelineWait(self->fd, &tl, &point, 1,
					    INT64_MAX, 0, NULL));
	point = 0;
	EXPECT_EQ(0, drmSyncobjQuery(self->fd, &tl, &point, 1));
	EXPECT_EQ(3u, point);
	memset(&b, 0, sizeof(b));
	b.op = WDDMSEG_BLIT_COPY;
	b.src_handle = dst;
	b.dst_handle = dst2;
	b.size = size;
	b.flags = WDDMSEG_BLIT_SYNCOBJ_IN | WDDMSEG_BLIT_FENCE_OUT;
	b.in_syncobj = tl;
	b.in_point = 3;
	ASSERT_EQ(0, wddmseg_submit_blit(self->fd, &b));
	ASSERT_LE(0, b.fence_fd);
	close(b.fence_fd);
	ASSERT_EQ(0, wddmseg_wait(self->fd, dst2, 10000000000LL));
	ASSERT_EQ(0, wddmseg_lock(self->fd, dst2, size, (void **)&p));
	EXPECT_EQ(0x0ddba11u, p[0]);
	munmap(p, size);

	/* refusals */
	b.flags = WDDMSEG_BLIT_SYNCOBJ_IN;
	b.in_point = 7;		/* nothing there yet */
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b.in_syncobj = 0xdead;
	b.in_point = 0;
	EXPECT_EQ(-ENOENT, wddmseg_submit_blit(self->fd, &b));
	b.flags = 0;		/* fields without the flag */
	b.in_syncobj = tl;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &b));
	b.in_syncobj = 0;
	b.flags = WDDMSEG_BLIT_SYNCOBJ_OUT;
	b.out_syncobj = 0xdead;
	EXPECT_EQ(-ENOENT, wddmseg_submit_blit(self->fd, &b));

	drmSyncobjDestroy(self->fd, bin);
	drmSyncobjDestroy(self->fd, tl);
	wddmseg_destroy_allocation(self->fd, dst2);
	wddmseg_destroy_allocation(self->fd, dst);
}

/* fdinfo key @key of @fd as a number; fails the test if missing. */
static uint64_t fdinfo_u64(struct __test_metadata *_metadata, int fd,
			   const char *key)
{
	uint64_t v = 0;
	int ret = wddmseg_fdinfo(fd, key, &v, NULL, 0);

	EXPECT_EQ(0, ret) TH_LOG("fdinfo %s: %s", key, strerror(-ret));
	return v;
}

/*
 * Documentation/gpu/drm-usage-stats.rst in /proc/self/fdinfo: the
 * driver's name and a client id per open file; per region the size of
 * what the file holds, moving with creation, eviction and destruction;
 * the copy engine's time on the file's blits, growing with each.
 */
TEST_F(blit, fdinfo)
{
	const uint64_t size = 4 * SZ_1M, kib = size >> 10;
	uint64_t t1, r1, ts, rs, e0, e1, id0, id1;
	char text[64];
	uint32_t h;
	int fd2;

	ASSERT_EQ(0, wddmseg_fdinfo(self->fd, "drm-driver", NULL, text,
				    sizeof(text)));
	EXPECT_STREQ("wddmseg", text);
	id0 = fdinfo_u64(_metadata, self->fd, "drm-client-id");
	fd2 = gem_open(_metadata, self->dev->card);
	id1 = fdinfo_u64(_metadata, fd2, "drm-client-id");
	EXPECT_NE(id0, id1) TH_LOG("two files, one client id");
	EXPECT_EQ(0u, fdinfo_u64(_metadata, fd2, "drm-total-seg1"));
	EXPECT_EQ(0u, fdinfo_u64(_metadata, fd2, "drm-engine-copy"));
	close(fd2);

	t1 = fdinfo_u64(_metadata, self->fd, "drm-total-seg1");
	r1 = fdinfo_u64(_metadata, self->fd, "drm-resident-seg1");
	ts = fdinfo_u64(_metadata, self->fd, "drm-total-system");
	rs = fdinfo_u64(_metadata, self->fd, "drm-resident-system");
	h = make(_metadata, self->fd, 1, size);
	EXPECT_EQ(t1 + kib, fdinfo_u64(_metadata, self->fd, "drm-total-seg1"));
	EXPECT_EQ(r1 + kib, fdinfo_u64(_metadata, self->fd, "drm-resident-seg1"));

	/* the engine: a fill of the whole allocation */
	e0 = fdinfo_u64(_metadata, self->fd, "drm-engine-copy");
	ASSERT_EQ(0, wddmseg_fill(self->fd, h, 0, size, 0x5eedf00d, NULL));
	ASSERT_EQ(0, wddmseg_wait(self->fd, h, 10000000000LL));
	e1 = fdinfo_u64(_metadata, self->fd, "drm-engine-copy");
	EXPECT_LT(e0, e1) TH_LOG("drm-engine-copy did not grow with a blit");

	/* evicted to system memory: the figures follow it */
	ASSERT_EQ(0, wddmseg_move(self->fd, h, 0));
	EXPECT_EQ(t1, fdinfo_u64(_metadata, self->fd, "drm-total-seg1"));
	EXPECT_EQ(r1, fdinfo_u64(_metadata, self->fd, "drm-resident-seg1"));
	EXPECT_EQ(ts + kib, fdinfo_u64(_metadata, self->fd, "drm-total-system"));
	EXPECT_EQ(rs + kib, fdinfo_u64(_metadata, self->fd, "drm-resident-system"))
		TH_LOG("the evicted copy's pages not counted resident");

	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	EXPECT_EQ(ts, fdinfo_u64(_metadata, self->fd, "drm-total-system"));
	EXPECT_EQ(rs, fdinfo_u64(_metadata, self->fd, "drm-resident-system"));
	EXPECT_EQ(t1, fdinfo_u64(_metadata, self->fd, "drm-total-seg1"));
}

/*
 * System memory is resident only where it has pages: an allocation
 * created there and never touched counts in drm-total-system and not in
 * drm-resident-system; written through a CPU mapping, it counts in both.
 */
TEST_F(blit, fdinfo_system_resident)
{
	const uint64_t size = SZ_1M, kib = size >> 10;
	uint64_t ts, rs;
	uint32_t h;

	ts = fdinfo_u64(_metadata, self->fd, "drm-total-system");
	rs = fdinfo_u64(_metadata, self->fd, "drm-resident-system");
	h = make(_metadata, self->fd, WDDMSEG_SEGMENT_SYSTEM, size);
	EXPECT_EQ(ts + kib, fdinfo_u64(_metadata, self->fd, "drm-total-system"));
	EXPECT_EQ(rs, fdinfo_u64(_metadata, self->fd, "drm-resident-system"))
		TH_LOG("an allocation without pages counted resident");

	ASSERT_EQ(0, gem_write_pattern(self->fd, h, size, 0xfd1f0));
	EXPECT_EQ(rs + kib, fdinfo_u64(_metadata, self->fd, "drm-resident-system"))
		TH_LOG("written pages not counted resident");

	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	EXPECT_EQ(ts, fdinfo_u64(_metadata, self->fd, "drm-total-system"));
	EXPECT_EQ(rs, fdinfo_u64(_metadata, self->fd, "drm-resident-system"));
}

TEST_HARNESS_MAIN
