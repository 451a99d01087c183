// SPDX-License-Identifier: GPL-2.0-only
/*
 * kselftest: protected content stays protected (wddmseg_protect.c in the
 * driver). A hostile client writes a marker into a Protected or
 * HardwareProtected allocation with a FILL blit, then tries every way to
 * read it back: GEM mmap offsets, DRM_IOCTL_MODE_MAP_DUMB, PRIME export,
 * a blit into a mappable allocation, eviction into system memory. A
 * dma-buf of any allocation maps only under the rules of GEM mmap, and
 * a device without CrossAdapterResource does not import another's
 * (wddmseg_prime covers sharing between devices). Every test runs on the
 * primary and on the render node.
 *
 * Protected allocations are tried in every placement of the default
 * layout (system memory, visible VRAM, invisible VRAM, aperture).
 * HardwareProtected ones need the device of tools/vm/valid-layouts.txt
 * with a VprSupported segment that has EncryptedPagingSupported and one
 * that has not: evictions are sealed by the device out of the first
 * (the trace shows transfer-encrypt and transfer-decrypt, the content
 * comes back), and refused, by GEM_EVICT and by memory pressure alike,
 * out of the second. VRAM content is checked through debugfs's GPU peek.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drmMode.h>

#include "wddmseg_gem.h"

#define MARKER		0x5ec12e70u
#define PROT_SIZE	(256 * SZ_4K)
#define TRACE_EVENT_ENABLE "events/wddmseg/wddmseg_paging_op/enable"

GEM_SKIP_WITHOUT_DEVICE();

FIXTURE(protect) {
	struct gem_env env;
	struct gem_dev *def;		/* the default layout */
	struct gem_dev *vpr;		/* encrypted and plain VPR segments */
	bool have_vpr;
	uint32_t seg_enc, seg_vpr;	/* in vpr's layout */
	int fd;				/* on def, card or render node */
	int vfd;			/* on vpr, same kind of node, or -1 */
	int kmsg;			/* -1: rule names are not checked */
	char debug_saved[32];
	char use_engine[96];		/* test knob of vpr */
	char saved_use_engine[16];
	char saved_event[8];
	char trace[64];
};

FIXTURE_VARIANT(protect) {
	bool render;
};

FIXTURE_VARIANT_ADD(protect, card) { .render = false };
FIXTURE_VARIANT_ADD(protect, render) { .render = true };

/* The VprSupported segments of @d: with and without encrypted paging. */
static void find_vpr(const struct gem_dev *d, uint32_t *enc, uint32_t *plain)
{
	const uint32_t vpr_enc = WDDMSEG_SEGMENT_FLAG_VPR_SUPPORTED | WDDMSEG_SEGMENT_FLAG_ENCRYPTED_PAGING_SUPPORTED;
	unsigned int i;

	*enc = *plain = 0;
	for (i = 0; i < d->exp.layout.nr_segs; i++) {
		uint32_t f = d->exp.layout.seg[i].flags;

		if ((f & vpr_enc) == vpr_enc && !*enc)
			*enc = i + 1;
		else if ((f & vpr_enc) == WDDMSEG_SEGMENT_FLAG_VPR_SUPPORTED &&
			 !(f & WDDMSEG_SEGMENT_FLAG_PITCH_ALIGNMENT) && !*plain)
			*plain = i + 1;
	}
}

FIXTURE_SETUP(protect)
{
	unsigned int i;

	self->fd = self->vfd = self->kmsg = -1;
	gem_env_load(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	self->def = gem_env_first(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	self->fd = gem_open(_metadata, variant->render ? self->def->render :
			    self->def->card);

	for (i = 0; i < self->env.nr_devs && !self->have_vpr; i++) {
		find_vpr(&self->env.dev[i], &self->seg_enc, &self->seg_vpr);
		if (!self->seg_enc || !self->seg_vpr)
			continue;
		self->vpr = &self->env.dev[i];
		self->vfd = gem_open(_metadata, variant->render ?
				     self->vpr->render : self->vpr->card);
		gem_knob_path(self->vpr, "use_engine", self->use_engine,
			      sizeof(self->use_engine));
		self->have_vpr = true;
	}
	if (!drm_debug_raise(DRM_UT_DRIVER, self->debug_saved,
			     sizeof(self->debug_saved)))
		self->kmsg = kmsg_open_end();
}

FIXTURE_TEARDOWN(protect)
{
	char path[128];

	if (self->saved_use_engine[0])
		file_write(self->use_engine, self->saved_use_engine);
	if (self->saved_event[0]) {
		snprintf(path, sizeof(path), "%s/" TRACE_EVENT_ENABLE, self->trace);
		file_write(path, self->saved_event);
	}
	drm_debug_restore(self->debug_saved);
	if (self->kmsg >= 0)
		close(self->kmsg);
	if (self->vfd >= 0)
		close(self->vfd);
	if (self->fd >= 0)
		close(self->fd);
}

#define EXPECT_RULE(want)	EXPECT_KMSG_RULE(self->kmsg, want)

/*
 * Whether the GPU sees MARKER at the start and at the end of @h (in VRAM
 * of @d). -ENOENT when debugfs cannot tell.
 */
static int marker_in_vram(int fd, const struct gem_dev *d, uint32_t h)
{
	static const uint64_t at[] = { 0, PROT_SIZE - 4 * GEM_PEEK_WORDS };
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_gem_info info;
	uint32_t words[GEM_PEEK_WORDS];
	unsigned int faults, i, k;
	char dir[64];
	int ret;

	gem_debugfs_dir(d, dir, sizeof(dir));
	ret = wddmseg_query_allocation(fd, h, &info);
	if (!ret)
		ret = wddmseg_query_segment(fd, info.segment_id, NULL, 0, &qs);
	if (ret)
		return ret;
	for (k = 0; k < ARRAY_SIZE(at); k++) {
		ret = gem_peek(dir, qs.base_address + info.offset + at[k],
			       words, &faults);
		if (ret)
			return ret == -EACCES || ret == -ENOENT ? -ENOENT : ret;
		for (i = 0; i < GEM_PEEK_WORDS; i++)
			if (words[i] != MARKER)
				return 0;
	}
	return 1;
}

/*
 * A protected allocation of PROT_SIZE with MARKER in every word, in
 * segment @first; evicted, it goes straight to system memory.
 */
static uint32_t make_marked(struct __test_metadata *_metadata, int fd,
			    uint32_t flags, uint32_t supported, uint32_t first)
{
	struct wddmseg_allocation_desc a = {
		.size = PROT_SIZE, .flags = flags, .supported_segments = supported,
		.eviction_segments = first ? WDDMSEG_SEGMENT_BIT(first) : 0,
		.preferred = { first },
	};
	uint32_t h;
	int ret;

	ret = wddmseg_create_allocation(fd, &a, &h);
	ASSERT_EQ(0, ret) TH_LOG("create flags 0x%x in segment %u: %s", flags,
				 first, strerror(-ret));
	ASSERT_EQ(0, wddmseg_fill(fd, h, 0, PROT_SIZE, MARKER, NULL));
	ASSERT_EQ(0, wddmseg_wait(fd, h, 20 * 1000000000LL));
	return h;
}

/*
 * Every CPU path refuses @h: GEM_MMAP_OFFSET, MAP_DUMB (not a render
 * node ioctl at all), PRIME export.
 */
static void expect_unmappable(struct __test_metadata *_metadata,
			      FIXTURE_DATA(protect) *self,
			      const FIXTURE_VARIANT(protect) *variant,
			      int fd, uint32_t h, const char *what)
{
	uint64_t off;
	int dmabuf, ret;

	kmsg_drain_rules(self->kmsg);
	EXPECT_EQ(-EACCES, wddmseg_mmap_offset(fd, h, &off)) TH_LOG("%s", what);
	EXPECT_RULE("protected-map");
	ret = gem_dumb_offset(fd, h, &off);
	EXPECT_EQ(-EACCES, ret) TH_LOG("%s: MAP_DUMB gave offset 0x%llx",
				       what, (unsigned long long)off);
	if (!variant->render)
		EXPECT_RULE("protected-map");
	ret = wddmseg_export_allocation(fd, h, &dmabuf);
	EXPECT_EQ(-EACCES, ret) TH_LOG("%s: PRIME export: %s (dma-buf fd %d)",
				       what, strerror(-ret), dmabuf);
	if (!ret)
		close(dmabuf);
	EXPECT_RULE("protected-export");
}

/* Words of a dma-buf's mapping that hold @word, or -errno of its mmap. */
static int64_t dmabuf_words(int dmabuf, uint32_t word)
{
	uint32_t *p = mmap(NULL, PROT_SIZE, PROT_READ, MAP_SHARED, dmabuf, 0);
	int64_t n = 0;
	uint64_t i;

	if (p == MAP_FAILED)
		return -errno;
	for (i = 0; i < PROT_SIZE / 4; i++)
		n += p[i] == word;
	munmap(p, PROT_SIZE);
	return n;
}

/* Protected content in every placement: nothing maps or exports it. */
TEST_F(protect, protected_never_mapped)
{
	static const uint32_t segs[] = { 0, 1, 2, 3 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		uint32_t sup = segs[i] ? WDDMSEG_SEGMENT_BIT(segs[i]) : 0;
		uint32_t h = make_marked(_metadata, self->fd,
					 WDDMSEG_ALLOC_PROTECTED, sup, segs[i]);
		char what[48];

		ASSERT_EQ(segs[i], (uint32_t)wddmseg_allocation_segment(self->fd, h));
		snprintf(what, sizeof(what), "Protected in segment %u", segs[i]);
		expect_unmappable(_metadata, self, variant, self->fd, h, what);
		wddmseg_destroy_allocation(self->fd, h);
	}
}

/*
 * PRIME (wddmseg_prime.c), the same on 6.1 and 6.12: a dma-buf of an
 * allocation serves its own device. It maps under the rules of GEM mmap
 * (a CpuVisible allocation maps, one without CPU access does not: rule
 * cpu-visible), it imports back into the device as the same allocation,
 * and another device does not import it (rule prime-import). Protected
 * content does not export at all (expect_unmappable()).
 */
TEST_F(protect, prime_own_device_only)
{
	struct wddmseg_allocation_desc vis = {
		.size = PROT_SIZE, .flags = WDDMSEG_ALLOC_CPU_VISIBLE,
		.supported_segments = WDDMSEG_SEGMENT_BIT(1), .preferred = { 1 },
	};
	struct wddmseg_allocation_desc inv = {
		.size = PROT_SIZE, .supported_segments = WDDMSEG_SEGMENT_BIT(2),
		.preferred = { 2 },
	};
	struct drm_wddmseg_gem_info info;
	uint32_t h, hi, h2;
	int dmabuf, fd2, ret;

	ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &vis, &h));
	ASSERT_EQ(0, wddmseg_fill(self->fd, h, 0, PROT_SIZE, MARKER, NULL));
	ASSERT_EQ(0, wddmseg_wait(self->fd, h, 20 * 1000000000LL));
	ret = wddmseg_export_allocation(self->fd, h, &dmabuf);
	ASSERT_EQ(0, ret) TH_LOG("PRIME export of a CpuVisible allocation: %s",
				 strerror(-ret));
	EXPECT_EQ(PROT_SIZE / 4, dmabuf_words(dmabuf, MARKER))
		TH_LOG("the dma-buf's mapping does not show the allocation");

	/* back into the device, from another file: the same allocation */
	fd2 = open(variant->render ? self->def->render : self->def->card,
		   O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ret = wddmseg_import_allocation(fd2, dmabuf, &h2);
	ASSERT_EQ(0, ret) TH_LOG("PRIME import into the same device: %s",
				 strerror(-ret));
	ASSERT_EQ(0, wddmseg_query_allocation(fd2, h2, &info));
	EXPECT_EQ(PROT_SIZE, info.size);
	EXPECT_EQ(WDDMSEG_ALLOC_CPU_VISIBLE, info.flags);
	ASSERT_EQ(0, wddmseg_fill(fd2, h2, 0, PROT_SIZE, ~MARKER, NULL));
	ASSERT_EQ(0, wddmseg_wait(fd2, h2, 20 * 1000000000LL));
	EXPECT_EQ(PROT_SIZE / 4, dmabuf_words(dmabuf, ~MARKER))
		TH_LOG("the import is not the exported allocation");
	close(fd2);

	/* another device (the VPR one, when there is one) refuses it */
	if (self->vfd >= 0) {
		kmsg_drain_rules(self->kmsg);
		ret = wddmseg_import_allocation(self->vfd, dmabuf, &h2);
		EXPECT_EQ(-EOPNOTSUPP, ret) TH_LOG("import into another device: %s",
						   strerror(-ret));
		EXPECT_RULE("prime-import");
	}
	close(dmabuf);
	wddmseg_destroy_allocation(self->fd, h);

	/* no CPU access: it exports, but its dma-buf does not map */
	ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &inv, &hi));
	ASSERT_EQ(0, wddmseg_export_allocation(self->fd, hi, &dmabuf));
	kmsg_drain_rules(self->kmsg);
	EXPECT_EQ(-EINVAL, dmabuf_words(dmabuf, 0))
		TH_LOG("a dma-buf of an allocation without CPU access mapped");
	EXPECT_RULE("cpu-visible");
	close(dmabuf);
	wddmseg_destroy_allocation(self->fd, hi);
}

/* The bytes of a CpuVisible allocation @h that hold MARKER. */
static uint64_t marker_bytes_mapped(struct __test_metadata *_metadata, int fd,
				    uint32_t h)
{
	uint64_t i, n = 0;
	uint32_t *p;
	int ret = wddmseg_lock(fd, h, PROT_SIZE, (void **)&p);

	if (ret) {
		TH_LOG("mmap of the destination: %s", strerror(-ret));
		return UINT64_MAX;
	}
	for (i = 0; i < PROT_SIZE / 4; i++)
		n += p[i] == MARKER;
	munmap(p, PROT_SIZE);
	return n * 4;
}

/*
 * The child half of lock_shared_creator_only: every way another process
 * has to map the shared allocation @h (on @fd, inherited, and through
 * @dmabuf) must fail with EACCES. Exit status: a bit per way that did
 * not (1 dma-buf mmap, 2 GEM_MMAP_OFFSET, 4 mmap at the creator's offset
 * @off, 8 the offset of an import into a file of its own, 16 that
 * import failed, 32 GEM_MMAP_OFFSET of the flinked @hf).
 */
static int lock_shared_child(int fd, const char *node, uint32_t h,
			     uint32_t hf, int dmabuf, uint64_t off)
{
	uint64_t o;
	int st = 0, fd2;
	uint32_t h2;
	void *p;

	if (dmabuf_words(dmabuf, MARKER) != -EACCES)
		st |= 1;
	if (wddmseg_mmap_offset(fd, h, &o) != -EACCES)
		st |= 2;
	p = mmap(NULL, PROT_SIZE, PROT_READ, MAP_SHARED, fd, off);
	if (p != MAP_FAILED || errno != EACCES)
		st |= 4;
	fd2 = open(node, O_RDWR | O_CLOEXEC);
	if (fd2 < 0 || wddmseg_import_allocation(fd2, dmabuf, &h2))
		st |= 16;
	else if (wddmseg_mmap_offset(fd2, h2, &o) != -EACCES)
		st |= 8;
	if (hf && wddmseg_mmap_offset(fd, hf, &o) != -EACCES)
		st |= 32;
	return st;
}

/*
 * DXGK_ALLOCATIONINFOFLAGS (CpuVisible): only the process that created a
 * shared allocation may lock it (DOC: Locking shared allocations). Before
 * it is shared a forked child maps it through the inherited file; once
 * exported, the creator still maps it both ways (GEM offset, dma-buf) and
 * another process maps it no way: not the dma-buf, not the inherited
 * handle, not the creator's offset, not its own import (rule
 * lock-shared-creator). On the card node a GEM flink name shares an
 * allocation the same way.
 */
TEST_F(protect, lock_shared_creator_only)
{
	struct wddmseg_allocation_desc vis = {
		.size = PROT_SIZE, .flags = WDDMSEG_ALLOC_CPU_VISIBLE,
		.supported_segments = WDDMSEG_SEGMENT_BIT(1), .preferred = { 1 },
	};
	const char *node = variant->render ? self->def->render :
					     self->def->card;
	struct drm_gem_flink flink = { 0 };
	uint32_t h, hf = 0;
	int dmabuf, status;
	uint64_t off;
	pid_t pid;

	ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &vis, &h));
	ASSERT_EQ(0, wddmseg_fill(self->fd, h, 0, PROT_SIZE, MARKER, NULL));
	ASSERT_EQ(0, wddmseg_wait(self->fd, h, 20 * 1000000000LL));

	/* not shared: another process maps it */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(marker_bytes_mapped(_metadata, self->fd, h) != PROT_SIZE);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("a child could not map an allocation nobody shared");

	ASSERT_EQ(0, wddmseg_export_allocation(self->fd, h, &dmabuf));
	EXPECT_EQ(PROT_SIZE / 4, dmabuf_words(dmabuf, MARKER))
		TH_LOG("the creator cannot map its dma-buf");
	EXPECT_EQ((uint64_t)PROT_SIZE, marker_bytes_mapped(_metadata, self->fd, h))
		TH_LOG("the creator cannot map its shared allocation");
	ASSERT_EQ(0, wddmseg_mmap_offset(self->fd, h, &off));

	/* a flink name shares too (card node: GEM_FLINK is not a render ioctl) */
	if (!variant->render) {
		ASSERT_EQ(0, wddmseg_create_allocation(self->fd, &vis, &hf));
		flink.handle = hf;
		ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_GEM_FLINK, &flink))
			TH_LOG("GEM_FLINK: %s", strerror(errno));
	}

	kmsg_drain_rules(self->kmsg);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(lock_shared_child(self->fd, node, h, hf, dmabuf, off));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("another process mapped the shared allocation (ways 0x%x: 1 dma-buf, 2 GEM offset, 4 the creator's offset, 8 its own import, 16 import failed, 32 flink)",
		       WEXITSTATUS(status));
	EXPECT_RULE("lock-shared-creator");

	/* the refusals took nothing from the creator */
	EXPECT_EQ(PROT_SIZE / 4, dmabuf_words(dmabuf, MARKER));
	close(dmabuf);
	if (hf)
		wddmseg_destroy_allocation(self->fd, hf);
	wddmseg_destroy_allocation(self->fd, h);
}

/*
 * A blit copies Protected content only into a protected allocation: into
 * a CpuVisible one it is refused and the destination stays clean, into a
 * Protected one it runs.
 */
TEST_F(protect, protected_never_blitted_out)
{
	static const uint32_t segs[] = { 0, 1, 2, 3 };
	uint32_t vis, dst, src;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		uint32_t sup = segs[i] ? WDDMSEG_SEGMENT_BIT(segs[i]) : 0;

		src = make_marked(_metadata, self->fd, WDDMSEG_ALLOC_PROTECTED,
				  sup, segs[i]);
		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, PROT_SIZE,
					   WDDMSEG_ALLOC_CPU_VISIBLE, 1, &vis));
		kmsg_drain_rules(self->kmsg);
		EXPECT_EQ(-EACCES, wddmseg_copy(self->fd, src, 0, vis, 0,
						PROT_SIZE, NULL))
			TH_LOG("Protected in segment %u -> CpuVisible", segs[i]);
		EXPECT_RULE("protected-copy");
		ASSERT_EQ(0, wddmseg_wait(self->fd, vis, 20 * 1000000000LL));
		EXPECT_EQ(0u, marker_bytes_mapped(_metadata, self->fd, vis));

		/* Positive control: protected to protected is a copy. */
		ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, PROT_SIZE,
					   WDDMSEG_ALLOC_PROTECTED, 2, &dst));
		EXPECT_EQ(0, wddmseg_copy(self->fd, src, 0, dst, 0, PROT_SIZE, NULL));
		EXPECT_EQ(0, wddmseg_wait(self->fd, dst, 20 * 1000000000LL));
		if (!variant->render) {
			int ret = marker_in_vram(self->fd, self->def, dst);

			if (ret != -ENOENT)
				EXPECT_EQ(1, ret) TH_LOG("copy into Protected lost the content");
		}
		wddmseg_destroy_allocation(self->fd, dst);
		wddmseg_destroy_allocation(self->fd, vis);
		wddmseg_destroy_allocation(self->fd, src);
	}
}

#define NEED_VPR()							\
	do {								\
		if (!self->have_vpr)					\
			WSKIP(return, "no device with an encrypted and a plain VprSupported segment in %s", \
			     gem_env_source(&self->env));			\
	} while (0)

/*
 * HardwareProtected: never mapped, never blitted into anything but
 * another HardwareProtected allocation (a Protected one is not enough).
 */
TEST_F(protect, hardware_protected_never_mapped_or_blitted_out)
{
	uint32_t segs[2], h, prot, hw, i;

	NEED_VPR();
	segs[0] = self->seg_enc;
	segs[1] = self->seg_vpr;
	for (i = 0; i < 2; i++) {
		char what[64];

		h = make_marked(_metadata, self->vfd,
				WDDMSEG_ALLOC_HARDWARE_PROTECTED,
				WDDMSEG_SEGMENT_BIT(segs[i]), segs[i]);
		snprintf(what, sizeof(what), "HardwareProtected in segment %u",
			 segs[i]);
		expect_unmappable(_metadata, self, variant, self->vfd, h, what);

		ASSERT_EQ(0, wddmseg_create_allocation_in(self->vfd, PROT_SIZE,
					   WDDMSEG_ALLOC_PROTECTED, 1, &prot));
		kmsg_drain_rules(self->kmsg);
		EXPECT_EQ(-EACCES, wddmseg_copy(self->vfd, h, 0, prot, 0,
						PROT_SIZE, NULL))
			TH_LOG("%s -> Protected", what);
		EXPECT_RULE("protected-copy");

		ASSERT_EQ(0, wddmseg_create_allocation_in(self->vfd, PROT_SIZE,
					   WDDMSEG_ALLOC_HARDWARE_PROTECTED,
					   segs[1 - i], &hw));
		EXPECT_EQ(0, wddmseg_copy(self->vfd, h, 0, hw, 0, PROT_SIZE,
					  NULL))
			TH_LOG("%s -> HardwareProtected", what);
		EXPECT_EQ(0, wddmseg_wait(self->vfd, hw, 20 * 1000000000LL));
		if (!variant->render) {
			int ret = marker_in_vram(self->vfd, self->vpr, hw);

			if (ret != -ENOENT)
				EXPECT_EQ(1, ret);
		}
		wddmseg_destroy_allocation(self->vfd, hw);
		wddmseg_destroy_allocation(self->vfd, prot);
		wddmseg_destroy_allocation(self->vfd, h);
	}
}

/* Wait (up to 5 s) until segment @id holds no allocation: 0 or -ETIME. */
static int segment_drained(int fd, uint32_t id)
{
	struct drm_wddmseg_query_segment qs;
	int i;

	for (i = 0; i < 50; i++) {
		if (wddmseg_query_segment(fd, id, NULL, 0, &qs))
			return -EIO;
		if (!qs.usage_bytes)
			return 0;
		usleep(100000);
	}
	return -ETIME;
}

/*
 * Out of a VprSupported segment without EncryptedPagingSupported nothing
 * takes HardwareProtected content into system memory: GEM_EVICT is
 * refused, memory pressure evicts it not, and the content stays. A
 * discard is allowed (nothing leaves), and so is a move into another
 * VprSupported segment.
 */
TEST_F(protect, hardware_protected_unencrypted_never_evicted)
{
	uint32_t h, other, big;
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_gem_residency r;
	int ret;

	NEED_VPR();
	h = make_marked(_metadata, self->vfd, WDDMSEG_ALLOC_HARDWARE_PROTECTED,
			WDDMSEG_SEGMENT_BIT(self->seg_vpr) |
			WDDMSEG_SEGMENT_BIT(self->seg_enc), self->seg_vpr);
	/* ... but TTM's eviction list would offer it the other segment. */
	ASSERT_EQ(self->seg_vpr, (uint32_t)wddmseg_allocation_segment(self->vfd, h));
	kmsg_drain_rules(self->kmsg);
	EXPECT_EQ(-EACCES, wddmseg_evict(self->vfd, h, 0));
	EXPECT_RULE("hardware-protected-evict");
	EXPECT_EQ(self->seg_vpr, (uint32_t)wddmseg_allocation_segment(self->vfd, h));

	/* Pressure: an ordinary allocation wanting the whole segment. */
	ASSERT_EQ(0, wddmseg_query_segment(self->vfd, self->seg_vpr, NULL, 0, &qs));
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->vfd, qs.size, 0, self->seg_vpr, &big));
	EXPECT_EQ(self->seg_vpr, (uint32_t)wddmseg_allocation_segment(self->vfd, h))
		TH_LOG("memory pressure evicted HardwareProtected content");
	EXPECT_NE(self->seg_vpr, (uint32_t)wddmseg_allocation_segment(self->vfd, big));
	wddmseg_destroy_allocation(self->vfd, big);
	if (!variant->render) {
		ret = marker_in_vram(self->vfd, self->vpr, h);
		if (ret != -ENOENT)
			EXPECT_EQ(1, ret);
	}

	/* Into the other VPR segment: allowed, in the clear inside VPR. */
	EXPECT_EQ(0, gem_move_wait(self->vfd, h, self->seg_enc));
	EXPECT_EQ(0, gem_move_wait(self->vfd, h, self->seg_vpr));

	/* A discard drops the content: nothing to protect any more. */
	memset(&r, 0, sizeof(r));
	r.handle = h;
	r.flags = WDDMSEG_EVICT_DISCARD;
	EXPECT_EQ(0, wddmseg_ioctl(self->vfd, DRM_IOCTL_WDDMSEG_GEM_EVICT, &r));
	EXPECT_EQ(0, wddmseg_allocation_segment(self->vfd, h));
	EXPECT_EQ(0, wddmseg_make_resident(self->vfd, h, self->seg_vpr));
	wddmseg_destroy_allocation(self->vfd, h);

	/*
	 * Created where it cannot fit (the segment is full of another
	 * HardwareProtected allocation, which nothing evicts): refused, not
	 * put in system memory. First the segment must be empty: a released
	 * allocation's VRAM may come back a moment after its handle is
	 * closed (TTM's delayed destroy when the wipe is still running).
	 */
	ASSERT_EQ(0, segment_drained(self->vfd, self->seg_vpr))
		TH_LOG("segment %u still in use 5 s after its last allocation was closed",
		       self->seg_vpr);
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->vfd, qs.size,
				   WDDMSEG_ALLOC_HARDWARE_PROTECTED,
				   self->seg_vpr, &big));
	kmsg_drain_rules(self->kmsg);
	ret = wddmseg_create_allocation_in(self->vfd, PROT_SIZE,
			    WDDMSEG_ALLOC_HARDWARE_PROTECTED, self->seg_vpr,
			    &other);
	EXPECT_EQ(-ENOSPC, ret);
	if (!ret)
		wddmseg_destroy_allocation(self->vfd, other);
	EXPECT_RULE("hardware-protected-resident");
	wddmseg_destroy_allocation(self->vfd, big);
}

/* tracefs with the wddmseg events into self->trace, or "". */
static void find_trace(FIXTURE_DATA(protect) *self)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[128];
	unsigned int i;

	self->trace[0] = '\0';
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/wddmseg", dirs[i]);
		if (access(path, F_OK) && i == 0)
			mount("nodev", dirs[0], "tracefs", 0, NULL);
		if (!access(path, F_OK)) {
			snprintf(self->trace, sizeof(self->trace), "%s", dirs[i]);
			return;
		}
	}
}

/* Paging operations named @op in the trace buffer. */
static int trace_ops(FIXTURE_DATA(protect) *self, const char *op)
{
	char path[128], *line = NULL, key[48];
	size_t cap = 0;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", self->trace);
	snprintf(key, sizeof(key), " %s segment ", op);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) != -1)
		n += !!strstr(line, key);
	free(line);
	fclose(f);
	return n;
}

/*
 * Out of a segment with EncryptedPagingSupported the content is sealed
 * by the device on the way out and unsealed on the way back: GEM_EVICT,
 * memory pressure and a blit into the evicted allocation all work, and
 * the content survives. In system memory it is still never mapped, it
 * comes back only where the device can decrypt it, and without the copy
 * engine nothing moves it out.
 */
TEST_F(protect, hardware_protected_sealed_eviction)
{
	uint32_t both = WDDMSEG_SEGMENT_BIT(self->seg_enc) |
			WDDMSEG_SEGMENT_BIT(self->seg_vpr);
	struct drm_wddmseg_query_segment qs;
	char path[128];
	uint32_t h, big;
	int traced = 0, ret;

	NEED_VPR();
	find_trace(self);
	if (self->trace[0]) {
		snprintf(path, sizeof(path), "%s/" TRACE_EVENT_ENABLE, self->trace);
		traced = !file_param_set(self->saved_event,
					 sizeof(self->saved_event), path, "1");
		snprintf(path, sizeof(path), "%s/trace", self->trace);
		traced = traced && !file_write(path, "");
	}

	h = make_marked(_metadata, self->vfd, WDDMSEG_ALLOC_HARDWARE_PROTECTED,
			both, self->seg_enc);
	ASSERT_EQ(0, wddmseg_evict(self->vfd, h, 0));
	ASSERT_EQ(0, wddmseg_wait(self->vfd, h, 20 * 1000000000LL));
	EXPECT_EQ(0, wddmseg_allocation_segment(self->vfd, h));
	expect_unmappable(_metadata, self, variant, self->vfd, h,
			  "sealed in system memory");
	/* Sealed content cannot come back into the unencrypted segment. */
	EXPECT_EQ(-EACCES, wddmseg_make_resident(self->vfd, h, self->seg_vpr));
	EXPECT_EQ(0, wddmseg_allocation_segment(self->vfd, h));
	ASSERT_EQ(0, gem_move_wait(self->vfd, h, self->seg_enc));
	if (traced) {
		EXPECT_LE(1, trace_ops(self, "transfer-encrypt"));
		EXPECT_LE(1, trace_ops(self, "transfer-decrypt"));
		EXPECT_EQ(0, trace_ops(self, "transfer"))
			TH_LOG("a plain Transfer moved HardwareProtected content");
	}
	if (!variant->render) {
		ret = marker_in_vram(self->vfd, self->vpr, h);
		if (ret != -ENOENT)
			EXPECT_EQ(1, ret) TH_LOG("content not restored after the sealed round trip");
	}

	/* A blit into a sealed allocation brings it back first. */
	ASSERT_EQ(0, wddmseg_evict(self->vfd, h, 0));
	EXPECT_EQ(0, wddmseg_fill(self->vfd, h, 0, SZ_4K, ~MARKER, NULL));
	EXPECT_EQ(self->seg_enc, (uint32_t)wddmseg_allocation_segment(self->vfd, h));
	EXPECT_EQ(0, wddmseg_wait(self->vfd, h, 20 * 1000000000LL));

	/* Memory pressure seals it too, and it comes back intact. */
	ASSERT_EQ(0, wddmseg_fill(self->vfd, h, 0, PROT_SIZE, MARKER, NULL));
	ASSERT_EQ(0, wddmseg_query_segment(self->vfd, self->seg_enc, NULL, 0, &qs));
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->vfd, qs.size, 0, self->seg_enc, &big));
	EXPECT_EQ(self->seg_enc, (uint32_t)wddmseg_allocation_segment(self->vfd, big));
	EXPECT_EQ(0, wddmseg_allocation_segment(self->vfd, h));
	wddmseg_destroy_allocation(self->vfd, big);
	ASSERT_EQ(0, gem_move_wait(self->vfd, h, self->seg_enc));
	if (!variant->render) {
		ret = marker_in_vram(self->vfd, self->vpr, h);
		if (ret != -ENOENT)
			EXPECT_EQ(1, ret) TH_LOG("content lost by a sealed eviction under pressure");
	}

	/* Without the copy engine nothing can seal it: it stays. */
	if (!file_param_set(self->saved_use_engine,
			    sizeof(self->saved_use_engine), self->use_engine,
			    "0")) {
		kmsg_drain_rules(self->kmsg);
		EXPECT_EQ(-EACCES, wddmseg_evict(self->vfd, h, 0));
		EXPECT_RULE("hardware-protected-evict");
		EXPECT_EQ(self->seg_enc, (uint32_t)wddmseg_allocation_segment(self->vfd, h));
		EXPECT_EQ(-EACCES, wddmseg_make_resident(self->vfd, h,
						     self->seg_vpr));
		EXPECT_RULE("hardware-protected-cpu");
		file_write(self->use_engine, self->saved_use_engine);
		self->saved_use_engine[0] = '\0';
	}
	wddmseg_destroy_allocation(self->vfd, h);
}

TEST_HARNESS_MAIN
