// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg Offer and Reclaim (DOC: Offer and reclaim, wddmseg_offer.c):
 *
 * - offer_evicted_first: in a full invisible VRAM segment, an offered allocation
 *   is the one evicted to make room, although others are older in the
 *   LRU, and its eviction is a discard (sysfs discard_bytes and fdinfo
 *   wddmseg-discard-bytes grow by its size, the others keep their place
 *   and their content).
 * - offer_reclaim_reports: RECLAIM says DISCARDED for an offered allocation
 *   whose content was dropped (it reads as zeroes) and OK for one that
 *   kept it (it reads as written); MAKE_RESIDENT places it again.
 * - offer_sysmem_purged: under system memory pressure (drop_caches=2,
 *   every shrinker) an offered allocation in system memory gives its
 *   pages up: RECLAIM says DISCARDED, it reads as zeroes, fdinfo counts
 *   it; one not offered keeps its content.
 * - offer_refuses_use: an offered allocation refuses MAKE_RESIDENT, blits and
 *   PRIME export (-EINVAL) and a CPU access (SIGBUS), until reclaimed.
 * - offer_bad_input: every refusal of OFFER and RECLAIM with its errno and, when
 *   drm.debug can be raised, its rule name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wddmseg_alloc_fixture.h"

#define OFFER_BO	(16 * SZ_4K)

/* The discard_bytes of segment @id of the default device (sysfs). */
static int seg_discard_bytes(const struct gem_dev *d, unsigned int id,
			     uint64_t *v)
{
	char path[160], buf[256], *p = buf, *end;
	unsigned int i;
	int ret;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/wddmseg/discard_bytes",
		 d->exp.bdf);
	ret = file_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	for (i = 1; i <= id; i++) {
		*v = strtoull(p, &end, 0);
		if (end == p)
			return -EPROTO;
		p = end;
	}
	return 0;
}

static uint64_t count_nonzero(const uint8_t *p, uint64_t n)
{
	uint64_t i, bad = 0;

	for (i = 0; i < n; i++)
		bad += !!p[i];
	return bad;
}

TEST_F_TIMEOUT(alloc, offer_evicted_first, 240)
{
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_gem_info info;
	uint64_t chunk, room, d0, d1, f0, f1, first = 0;
	uint32_t old[64], o, b, res;
	unsigned int n, i;
	static uint8_t got[OFFER_BO];

	NEED_DEF();
	qseg(_metadata, self->fd, SEG_INV, &qs);
	room = qs.size - qs.usage_bytes;
	chunk = (qs.size / 16) & ~(uint64_t)(SZ_64K - 1);
	ASSERT_LT(0, chunk);
	n = room / chunk;
	if (n < 3 || n > 64)
		WSKIP(return, "segment 2: %" PRIu64 " bytes free", room);

	/* n - 1 older allocations, then the offered one: the segment is full */
	for (i = 0; i + 1 < n; i++) {
		ASSERT_EQ(0, gem_create_any(self->fd, chunk, SEG_VIS, &old[i]));
		ASSERT_EQ(0, gem_write_pattern(self->fd, old[i], OFFER_BO,
					       0x01d0 + i));
		ASSERT_EQ(0, gem_move_wait(self->fd, old[i], SEG_INV));
	}
	ASSERT_EQ(0, gem_create_any(self->fd, chunk, SEG_VIS, &o));
	ASSERT_EQ(0, gem_write_pattern(self->fd, o, OFFER_BO, 0x0ffe));
	ASSERT_EQ(0, gem_move_wait(self->fd, o, SEG_INV));
	for (i = 0; i + 1 < n; i++) {
		info_of(_metadata, self->fd, old[i], &info);
		ASSERT_EQ(0, info.eviction_count);
	}
	ASSERT_EQ(0, wddmseg_offer_allocations(self->fd, &o, 1,
					       WDDMSEG_OFFER_PRIORITY_NORMAL));
	ASSERT_EQ(0, seg_discard_bytes(self->def, SEG_INV, &d0));
	ASSERT_EQ(0, wddmseg_fdinfo(self->fd, "wddmseg-discard-bytes", &f0,
				    NULL, 0));

	/* one more: one allocation must go, and it is the offered one */
	ASSERT_EQ(0, gem_create_any(self->fd, chunk, SEG_VIS, &b));
	ASSERT_EQ(0, gem_move_wait(self->fd, b, SEG_INV));
	ASSERT_EQ(0, wddmseg_wait(self->fd, o, 20 * NSEC_PER_SEC));
	EXPECT_EQ(0, seg_of(_metadata, self->fd, o));
	for (i = 0; i + 1 < n; i++) {
		info_of(_metadata, self->fd, old[i], &info);
		EXPECT_EQ(SEG_INV, info.segment_id) TH_LOG("older allocation %u", i);
		EXPECT_EQ(0, info.eviction_count)
			TH_LOG("older allocation %u evicted before the offered one", i);
	}
	ASSERT_EQ(0, seg_discard_bytes(self->def, SEG_INV, &d1));
	EXPECT_EQ(d0 + chunk, d1) TH_LOG("discard_bytes %" PRIu64 " -> %" PRIu64,
					 d0, d1);
	ASSERT_EQ(0, wddmseg_fdinfo(self->fd, "wddmseg-discard-bytes", &f1,
				    NULL, 0));
	EXPECT_EQ(f0 + chunk, f1) TH_LOG("fdinfo wddmseg-discard-bytes %" PRIu64 " -> %" PRIu64,
					 f0, f1);

	ASSERT_EQ(0, wddmseg_reclaim_allocations(self->fd, &o, 1, 0, &res));
	EXPECT_EQ(WDDMSEG_RECLAIM_DISCARDED, res);
	ASSERT_EQ(0, gem_read_back(self->fd, o, OFFER_BO, got));
	EXPECT_EQ(0, count_nonzero(got, OFFER_BO));
	for (i = 0; i + 1 < n; i++) {
		ASSERT_EQ(0, gem_read_back(self->fd, old[i], OFFER_BO, got));
		EXPECT_EQ(0, pattern_check(got, OFFER_BO, 0x01d0 + i, &first));
		ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, old[i]));
	}
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, o));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, b));
}

TEST_F_TIMEOUT(alloc, offer_reclaim_reports, 120)
{
	static uint8_t got[OFFER_BO];
	uint32_t h[2], res[2] = { 7, 7 };
	uint64_t first = 0;

	NEED_DEF();
	ASSERT_EQ(0, gem_create_any(self->fd, OFFER_BO, SEG_VIS, &h[0]));
	ASSERT_EQ(0, gem_create_any(self->fd, OFFER_BO, SEG_VIS, &h[1]));
	ASSERT_EQ(0, gem_write_pattern(self->fd, h[0], OFFER_BO, 0xa0));
	ASSERT_EQ(0, gem_write_pattern(self->fd, h[1], OFFER_BO, 0xa1));
	ASSERT_EQ(0, gem_move_wait(self->fd, h[0], SEG_INV));
	ASSERT_EQ(0, gem_move_wait(self->fd, h[1], SEG_INV));
	ASSERT_EQ(0, wddmseg_offer_allocations(self->fd, h, 2,
					       WDDMSEG_OFFER_PRIORITY_LOW));
	/* an eviction of an offered allocation is a discard */
	ASSERT_EQ(0, wddmseg_evict(self->fd, h[0], 0));
	ASSERT_EQ(0, wddmseg_wait(self->fd, h[0], 20 * NSEC_PER_SEC));

	ASSERT_EQ(0, wddmseg_reclaim_allocations(self->fd, h, 2,
						 WDDMSEG_RECLAIM_MAKE_RESIDENT,
						 res));
	EXPECT_EQ(WDDMSEG_RECLAIM_DISCARDED, res[0]);
	EXPECT_EQ(WDDMSEG_RECLAIM_OK, res[1]);
	EXPECT_NE(0, seg_of(_metadata, self->fd, h[0]));
	ASSERT_EQ(0, gem_read_back(self->fd, h[0], OFFER_BO, got));
	EXPECT_EQ(0, count_nonzero(got, OFFER_BO));
	ASSERT_EQ(0, gem_read_back(self->fd, h[1], OFFER_BO, got));
	EXPECT_EQ(0, pattern_check(got, OFFER_BO, 0xa1, &first));
	/* reclaimed: not offered any more, usable again */
	EXPECT_EQ(-EINVAL, wddmseg_reclaim_allocations(self->fd, h, 1, 0, res));
	EXPECT_EQ(0, gem_move_wait(self->fd, h[0], SEG_INV));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[0]));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[1]));
}

/*
 * System memory pressure (drop_caches=2 runs every shrinker) drops the
 * pages of an offered allocation in system memory: RECLAIM says
 * DISCARDED, it reads as zeroes, fdinfo counts the discard; one that is
 * not offered keeps its content.
 */
TEST_F_TIMEOUT(alloc, offer_sysmem_purged, 120)
{
	static uint8_t got[OFFER_BO];
	uint32_t h[2], res[2] = { 7, 7 };
	uint64_t first = 0, f0, f1;

	NEED_DEF();
	ASSERT_EQ(0, gem_create_any(self->fd, OFFER_BO, SEG_VIS, &h[0]));
	ASSERT_EQ(0, gem_create_any(self->fd, OFFER_BO, SEG_VIS, &h[1]));
	ASSERT_EQ(0, gem_write_pattern(self->fd, h[0], OFFER_BO, 0xb0));
	ASSERT_EQ(0, gem_write_pattern(self->fd, h[1], OFFER_BO, 0xb1));
	ASSERT_EQ(0, gem_move_wait(self->fd, h[0], 0));
	ASSERT_EQ(0, gem_move_wait(self->fd, h[1], 0));
	ASSERT_EQ(0, wddmseg_offer_allocations(self->fd, h, 1,
					       WDDMSEG_OFFER_PRIORITY_LOW));
	ASSERT_EQ(0, wddmseg_fdinfo(self->fd, "wddmseg-discard-bytes", &f0,
				    NULL, 0));
	if (file_write("/proc/sys/vm/drop_caches", "2"))
		WSKIP(return, "cannot write /proc/sys/vm/drop_caches (root?)");
	ASSERT_EQ(0, wddmseg_fdinfo(self->fd, "wddmseg-discard-bytes", &f1,
				    NULL, 0));
	EXPECT_EQ(f0 + OFFER_BO, f1)
		TH_LOG("fdinfo wddmseg-discard-bytes %" PRIu64 " -> %" PRIu64,
		       f0, f1);

	ASSERT_EQ(0, wddmseg_reclaim_allocations(self->fd, h, 1, 0, res));
	EXPECT_EQ(WDDMSEG_RECLAIM_DISCARDED, res[0]);
	EXPECT_EQ(0, seg_of(_metadata, self->fd, h[0]));
	ASSERT_EQ(0, gem_read_back(self->fd, h[0], OFFER_BO, got));
	EXPECT_EQ(0, count_nonzero(got, OFFER_BO));
	ASSERT_EQ(0, gem_read_back(self->fd, h[1], OFFER_BO, got));
	EXPECT_EQ(0, pattern_check(got, OFFER_BO, 0xb1, &first))
		TH_LOG("an allocation that was not offered lost its content");
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[0]));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h[1]));
}

TEST_F_TIMEOUT(alloc, offer_refuses_use, 120)
{
	uint32_t h, other, res;
	int status, dmabuf = -1;
	void *p;
	pid_t pid;

	NEED_DEF();
	ASSERT_EQ(0, gem_create_any(self->fd, OFFER_BO, SEG_VIS, &h));
	ASSERT_EQ(0, gem_create_any(self->fd, OFFER_BO, SEG_VIS, &other));
	p = map_ok(_metadata, self->fd, h, OFFER_BO);
	((volatile uint32_t *)p)[0] = 0x5eed;
	ASSERT_EQ(0, wddmseg_offer_allocations(self->fd, &h, 1,
					       WDDMSEG_OFFER_PRIORITY_HIGH));
	EXPECT_EQ(-EINVAL, wddmseg_make_resident(self->fd, h, SEG_VIS));
	EXPECT_EQ(-EINVAL, wddmseg_copy(self->fd, h, 0, other, 0, SZ_4K, NULL));
	EXPECT_EQ(-EINVAL, wddmseg_copy(self->fd, other, 0, h, 0, SZ_4K, NULL));
	EXPECT_EQ(-EINVAL, wddmseg_fill(self->fd, h, 0, SZ_4K, 0, NULL));
	EXPECT_NE(0, wddmseg_export_allocation(self->fd, h, &dmabuf));
	if (dmabuf >= 0)
		close(dmabuf);

	/* the CPU mapping made before the offer faults now: SIGBUS */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(((volatile uint32_t *)p)[0] == 0x5eed ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS)
		TH_LOG("child status 0x%x", status);

	ASSERT_EQ(0, wddmseg_reclaim_allocations(self->fd, &h, 1, 0, &res));
	EXPECT_EQ(WDDMSEG_RECLAIM_OK, res);
	EXPECT_EQ(0x5eedu, ((volatile uint32_t *)p)[0]);
	EXPECT_EQ(0, wddmseg_copy(self->fd, h, 0, other, 0, SZ_4K, NULL));
	ASSERT_EQ(0, wddmseg_unlock(p, OFFER_BO));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, other));
}

TEST_F_TIMEOUT(alloc, offer_bad_input, 120)
{
	struct drm_wddmseg_offer_allocations o;
	struct drm_wddmseg_reclaim_allocations r;
	struct wddmseg_allocation_desc a = {
		.size = OFFER_BO,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_PERMANENT_SYSMEM,
		.supported_segments = BIT(SEG_VIS),
		.preferred = { SEG_VIS },
	};
	uint32_t h, h2[2], perm, res[2], none = 0xfffffff0u;
	int kmsg = -1, dmabuf, fd2;

	NEED_DEF();
	if (!drm_debug_raise(DRM_UT_DRIVER, self->debug_saved,
			     sizeof(self->debug_saved)))
		kmsg = kmsg_open_end();
	ASSERT_EQ(0, gem_create_any(self->fd, OFFER_BO, SEG_VIS, &h));

	memset(&o, 0, sizeof(o));
	o.handles = (uintptr_t)&h;
	o.count = 1;
	o.priority = 0;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS, &o));
	o.priority = WDDMSEG_OFFER_PRIORITY_HIGH + 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS, &o));
	o.priority = WDDMSEG_OFFER_PRIORITY_LOW;
	o.flags = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS, &o));
	o.flags = 0;
	o.pad = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS, &o));
	o.pad = 0;
	o.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS, &o));
	o.reserved[1] = 0;
	o.count = 0;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS, &o));
	o.count = WDDMSEG_OFFER_MAX_HANDLES + 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS, &o));
	o.count = 1;
	o.handles = 8;	/* not user memory */
	EXPECT_EQ(-EFAULT, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS, &o));
	EXPECT_EQ(-ENOENT, wddmseg_offer_allocations(self->fd, &none, 1,
						     WDDMSEG_OFFER_PRIORITY_LOW));
	/* handles are the file's: another file of the process has none */
	fd2 = open_extra(_metadata, self, self->def->render);
	EXPECT_EQ(-ENOENT, wddmseg_offer_allocations(fd2, &h, 1,
						     WDDMSEG_OFFER_PRIORITY_LOW));

	/* a handle twice, in one call or in two */
	kmsg_drain_rules(kmsg);
	h2[0] = h;
	h2[1] = h;
	EXPECT_EQ(-EINVAL, wddmseg_offer_allocations(self->fd, h2, 2,
						     WDDMSEG_OFFER_PRIORITY_LOW));
	EXPECT_KMSG_RULE(kmsg, "offer-duplicate");
	ASSERT_EQ(0, wddmseg_offer_allocations(self->fd, &h, 1,
					       WDDMSEG_OFFER_PRIORITY_LOW));
	kmsg_drain_rules(kmsg);
	EXPECT_EQ(-EINVAL, wddmseg_offer_allocations(self->fd, &h, 1,
						     WDDMSEG_OFFER_PRIORITY_LOW));
	EXPECT_KMSG_RULE(kmsg, "offer-twice");
	EXPECT_EQ(-EINVAL, wddmseg_reclaim_allocations(self->fd, h2, 2, 0, res));
	EXPECT_KMSG_RULE(kmsg, "offer-duplicate");

	/* RECLAIM: fields, and one not offered */
	memset(&r, 0, sizeof(r));
	r.handles = (uintptr_t)&h;
	r.results = (uintptr_t)res;
	r.count = 1;
	r.flags = 2;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_RECLAIM_ALLOCATIONS, &r));
	r.flags = 0;
	r.reserved[0] = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_RECLAIM_ALLOCATIONS, &r));
	r.reserved[0] = 0;
	r.results = 8;
	EXPECT_EQ(-EFAULT, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_RECLAIM_ALLOCATIONS, &r));
	/* nothing was reclaimed by the refused calls */
	ASSERT_EQ(0, wddmseg_reclaim_allocations(self->fd, &h, 1, 0, res));
	kmsg_drain_rules(kmsg);
	EXPECT_EQ(-EINVAL, wddmseg_reclaim_allocations(self->fd, &h, 1, 0, res));
	EXPECT_KMSG_RULE(kmsg, "reclaim-not-offered");

	/* PermanentSysMem */
	perm = create_ok(_metadata, self->fd, &a);
	kmsg_drain_rules(kmsg);
	EXPECT_EQ(-EINVAL, wddmseg_offer_allocations(self->fd, &perm, 1,
						     WDDMSEG_OFFER_PRIORITY_LOW));
	EXPECT_KMSG_RULE(kmsg, "offer-permanent-sysmem");
	/* all or nothing: h is not offered by a call perm fails */
	h2[0] = h;
	h2[1] = perm;
	EXPECT_EQ(-EINVAL, wddmseg_offer_allocations(self->fd, h2, 2,
						     WDDMSEG_OFFER_PRIORITY_LOW));
	EXPECT_EQ(-EINVAL, wddmseg_reclaim_allocations(self->fd, &h, 1, 0, res));

	/* exported */
	ASSERT_EQ(0, wddmseg_export_allocation(self->fd, h, &dmabuf));
	kmsg_drain_rules(kmsg);
	EXPECT_EQ(-EINVAL, wddmseg_offer_allocations(self->fd, &h, 1,
						     WDDMSEG_OFFER_PRIORITY_LOW));
	EXPECT_KMSG_RULE(kmsg, "offer-prime");
	close(dmabuf);

	if (kmsg >= 0)
		close(kmsg);
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, perm));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, h));
}

TEST_HARNESS_MAIN
