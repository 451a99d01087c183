// SPDX-License-Identifier: GPL-2.0-only
/*
 * kselftest: cross-adapter resources (WDDM) as PRIME between two wddmseg
 * devices (wddmseg_prime.c in the driver, DOC: PRIME).
 *
 * `make check` boots devices whose layouts give each tier of
 * DXGK_VIDMMCAPS (tools/vm/valid-layouts.txt): the default layout has no
 * cross-adapter capability, one device CrossAdapterResource only ("res"),
 * one also CrossAdapterResourceTexture ("tex"). A cross-adapter resource
 * (WDDMSEG_CREATE_CROSS_ADAPTER: CpuVisible, write-combined, in an
 * aperture, 64 rows of 1 KiB) written by one adapter's copy engine is
 * imported by the other, whose engine reads and writes it (Texture) and
 * whose CPU maps it (through the exporter); the exporter's allocation
 * stays pinned in its aperture while the other device holds it, and
 * survives its own handle, dma-buf and file, or its process, as long as
 * the import lives. Any other allocation is refused to another device
 * (rule cross-adapter-attach). Each tier an adapter lacks is refused with
 * its rule: prime-import (importer without CrossAdapterResource),
 * prime-attach (exporter without it), cross-adapter-texture (a blit of an
 * imported allocation on an adapter without Texture), and an imported
 * allocation gets no eviction priority (prio-import). Every test runs on
 * the primary and the render nodes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wddmseg_gem.h"

#define MARKER		0xc2055adau
#define SHARE_SIZE	(16 * SZ_4K)
#define SHARE_PITCH	1024		/* bytes per row: 128-byte aligned */
#define SHARE_ROWS	(SHARE_SIZE / SHARE_PITCH)	/* 4-row aligned */
#define WAIT_NS		(20 * NSEC_PER_SEC)

GEM_SKIP_WITHOUT_DEVICE();

FIXTURE(prime) {
	struct gem_env env;
	struct gem_dev *none, *res, *tex;
	int nfd, rfd, tfd;	/* on none, res, tex; -1 if absent */
	int kmsg;		/* -1: rule names are not checked */
	char debug_saved[32];
};

FIXTURE_VARIANT(prime) {
	bool render;
};

FIXTURE_VARIANT_ADD(prime, card) { .render = false };
FIXTURE_VARIANT_ADD(prime, render) { .render = true };

static int open_node(struct __test_metadata *_metadata,
		     const FIXTURE_VARIANT(prime) *variant,
		     const struct gem_dev *d)
{
	return d ? gem_open(_metadata, variant->render ? d->render : d->card) : -1;
}

FIXTURE_SETUP(prime)
{
	const uint32_t resource = WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE;
	unsigned int i;

	self->nfd = self->rfd = self->tfd = self->kmsg = -1;
	gem_env_load(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	self->none = gem_env_first(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	for (i = 0; i < self->env.nr_devs; i++) {
		struct gem_dev *d = &self->env.dev[i];
		uint32_t caps = d->exp.layout.caps;

		/* without an expectation file: the first one without it */
		if (self->env.discovered && (self->none->exp.layout.caps & resource) &&
		    !(caps & resource) && layout_is_default_shape(&d->exp.layout))
			self->none = d;
		if (!(caps & resource))
			continue;
		if (caps & WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE_TEXTURE) {
			if (!self->tex)
				self->tex = d;
		} else if (!self->res) {
			self->res = d;
		}
	}
	if (!self->res || !self->tex)
		WSKIP(return, "%s: no device with CrossAdapterResource alone and none with CrossAdapterResourceTexture",
		      gem_env_source(&self->env));
	ASSERT_EQ(0u, self->none->exp.layout.caps & resource)
		TH_LOG("%s: the first device has CrossAdapterResource",
		       self->none->exp.bdf);
	self->nfd = open_node(_metadata, variant, self->none);
	self->rfd = open_node(_metadata, variant, self->res);
	self->tfd = open_node(_metadata, variant, self->tex);
	if (!drm_debug_raise(DRM_UT_DRIVER, self->debug_saved,
			     sizeof(self->debug_saved)))
		self->kmsg = kmsg_open_end();
}

FIXTURE_TEARDOWN(prime)
{
	drm_debug_restore(self->debug_saved);
	if (self->kmsg >= 0)
		close(self->kmsg);
	if (self->tfd >= 0)
		close(self->tfd);
	if (self->rfd >= 0)
		close(self->rfd);
	if (self->nfd >= 0)
		close(self->nfd);
}

#define EXPECT_RULE(want)	EXPECT_KMSG_RULE(self->kmsg, want)

/* A CpuVisible allocation in segment 1 (CPU-visible VRAM on every layout). */
static uint32_t create_visible(struct __test_metadata *_metadata, int fd)
{
	uint32_t h;
	int ret = wddmseg_create_allocation_in(fd, SHARE_SIZE,
					       WDDMSEG_ALLOC_CPU_VISIBLE, 1, &h);

	ASSERT_EQ(0, ret) TH_LOG("create in segment 1: %s", strerror(-ret));
	return h;
}

/* The first aperture segment (not Agp) of @d, or 0. */
static uint32_t first_aperture(const struct gem_dev *d)
{
	const struct layout *l = &d->exp.layout;
	unsigned int i;

	for (i = 0; i < l->nr_segs; i++)
		if (wddmseg_segment_is_aperture(l->seg[i].flags) &&
		    !(l->seg[i].flags & WDDMSEG_SEGMENT_FLAG_AGP))
			return i + 1;
	return 0;
}

/* A cross-adapter resource of SHARE_SIZE in @d's first aperture. */
static int make_shared(const struct gem_dev *d, int fd, uint32_t *h)
{
	uint32_t apt = first_aperture(d);
	struct wddmseg_allocation_desc a = {
		.size = SHARE_SIZE, .flags = WDDMSEG_ALLOC_CPU_VISIBLE,
		.supported_segments = apt ? WDDMSEG_SEGMENT_BIT(apt) : 0,
		.preferred = { apt },
	};

	return wddmseg_create_cross_adapter_allocation(fd, &a, SHARE_PITCH,
						       SHARE_ROWS, h);
}

static uint32_t create_shared(struct __test_metadata *_metadata,
			      const struct gem_dev *d, int fd)
{
	uint32_t h;
	int ret = make_shared(d, fd, &h);

	ASSERT_EQ(0, ret) TH_LOG("%s: cross-adapter resource in segment %u: %s",
				 d->exp.bdf, first_aperture(d), strerror(-ret));
	return h;
}

/* Fill @h with @word on @fd's copy engine and wait for it. */
static void fill_wait(struct __test_metadata *_metadata, int fd, uint32_t h,
		      uint32_t word)
{
	int ret = wddmseg_fill(fd, h, 0, SHARE_SIZE, word, NULL);

	ASSERT_EQ(0, ret) TH_LOG("FILL of handle %u: %s", h, strerror(-ret));
	ASSERT_EQ(0, wddmseg_wait(fd, h, WAIT_NS));
}

/* Words of @h's CPU mapping on @fd that hold @word, or -errno. */
static int64_t mapped_words(int fd, uint32_t h, uint32_t word)
{
	uint32_t *p;
	int64_t n = 0;
	uint64_t i;
	int ret = wddmseg_lock(fd, h, SHARE_SIZE, (void **)&p);

	if (ret)
		return ret;
	for (i = 0; i < SHARE_SIZE / 4; i++)
		n += p[i] == word;
	munmap(p, SHARE_SIZE);
	return n;
}

/* @h's allocation priority (GEM_INFO), or 0. */
static uint32_t priority_of(int fd, uint32_t h)
{
	struct drm_wddmseg_gem_info info;

	return wddmseg_query_allocation(fd, h, &info) ? 0 : info.priority;
}

/* Export @h of @from, import it into @to. */
static int share(int from, uint32_t h, int to, uint32_t *ih)
{
	int dmabuf, ret;

	ret = wddmseg_export_allocation(from, h, &dmabuf);
	if (ret)
		return ret;
	ret = wddmseg_import_allocation(to, dmabuf, ih);
	close(dmabuf);
	return ret;
}

/*
 * res exports, tex imports: tex's engine reads what res's engine wrote,
 * res's CPU sees what tex's engine wrote, tex's CPU maps it; the
 * exporter's allocation stays in its aperture and cannot move while
 * shared, and lives on without its handle, dma-buf and file.
 */
TEST_F(prime, engines_of_two_adapters_share)
{
	struct drm_wddmseg_gem_info info;
	uint32_t a, ia, b;
	int efd, ret;

	if (SETUP_SKIPPED())
		return;
	/* the exporter on its own file, closed before the import goes */
	efd = open_node(_metadata, variant, self->res);
	a = create_shared(_metadata, self->res, efd);
	fill_wait(_metadata, efd, a, MARKER);
	ret = share(efd, a, self->tfd, &ia);
	ASSERT_EQ(0, ret) TH_LOG("PRIME from %s into %s: %s", self->res->exp.bdf,
				 self->tex->exp.bdf, strerror(-ret));

	ASSERT_EQ(0, wddmseg_query_allocation(self->tfd, ia, &info));
	EXPECT_EQ(SHARE_SIZE, info.size);
	EXPECT_EQ(WDDMSEG_ALLOC_CPU_VISIBLE, info.flags);
	EXPECT_EQ(0u, info.segment_id) TH_LOG("an import lives in system memory");
	EXPECT_TRUE(info.state & WDDMSEG_STATE_CROSS_ADAPTER)
		TH_LOG("an import is a cross-adapter resource");
	ASSERT_EQ(0, wddmseg_query_allocation(efd, a, &info));
	EXPECT_EQ(first_aperture(self->res), info.segment_id)
		TH_LOG("the exported allocation moved to segment %u",
		       info.segment_id);
	EXPECT_TRUE(info.state & WDDMSEG_STATE_PINNED);

	/* tex's engine reads it */
	b = create_visible(_metadata, self->tfd);
	ret = wddmseg_copy(self->tfd, ia, 0, b, 0, SHARE_SIZE, NULL);
	ASSERT_EQ(0, ret) TH_LOG("COPY from the import: %s", strerror(-ret));
	ASSERT_EQ(0, wddmseg_wait(self->tfd, b, WAIT_NS));
	EXPECT_EQ(SHARE_SIZE / 4, mapped_words(self->tfd, b, MARKER));

	/* and writes it: the exporter sees it, so does tex's mapping */
	fill_wait(_metadata, self->tfd, ia, ~MARKER);
	EXPECT_EQ(SHARE_SIZE / 4, mapped_words(efd, a, ~MARKER))
		TH_LOG("the exporter does not see the importer's FILL");
	EXPECT_EQ(SHARE_SIZE / 4, mapped_words(self->tfd, ia, ~MARKER))
		TH_LOG("the import's mapping does not show the allocation");

	/* pinned in its pages while shared */
	EXPECT_EQ(-EBUSY, wddmseg_move(efd, a, 0));

	/* the exporter's handle and file go; the import keeps the pages */
	ASSERT_EQ(0, wddmseg_destroy_allocation(efd, a));
	close(efd);
	fill_wait(_metadata, self->tfd, b, 0);
	ASSERT_EQ(0, wddmseg_copy(self->tfd, ia, 0, b, 0, SHARE_SIZE, NULL));
	ASSERT_EQ(0, wddmseg_wait(self->tfd, b, WAIT_NS));
	EXPECT_EQ(SHARE_SIZE / 4, mapped_words(self->tfd, b, ~MARKER))
		TH_LOG("the import lost its content with the exporter's file");
	EXPECT_EQ(0, wddmseg_destroy_allocation(self->tfd, ia));
	EXPECT_EQ(0, wddmseg_destroy_allocation(self->tfd, b));
}

/*
 * The exporting process exits while its allocation is shared: a child
 * creates it on res, fills it with its engine and exports it; the parent
 * takes the dma-buf out of the child's descriptor table (pidfd_getfd(),
 * which needs no socket support in the kernel), lets the child exit (its
 * DRM file closes with it) and imports it into tex only then; tex's
 * engine still reads the content.
 */
TEST_F(prime, exporter_process_exits)
{
	int up[2], down[2], pidfd, dmabuf = -1, child_fd = -1, status, ret;
	uint32_t ia, b;
	char go = 'x';
	pid_t pid;

	if (SETUP_SKIPPED())
		return;
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int efd = wddmseg_open_adapter(variant->render ? self->res->render :
					       self->res->card, 0);
		uint32_t a;

		if (efd < 0 || make_shared(self->res, efd, &a) ||
		    wddmseg_fill(efd, a, 0, SHARE_SIZE, MARKER, NULL) ||
		    wddmseg_wait(efd, a, WAIT_NS) ||
		    wddmseg_export_allocation(efd, a, &dmabuf))
			dmabuf = -1;
		/* the descriptor number, then wait for the parent to take it */
		if (write(up[1], &dmabuf, sizeof(dmabuf)) != sizeof(dmabuf) ||
		    read(down[0], &go, 1) != 1)
			_exit(2);
		_exit(dmabuf < 0);
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ((ssize_t)sizeof(child_fd), read(up[0], &child_fd, sizeof(child_fd)));
	close(up[0]);
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (child_fd >= 0 && pidfd >= 0)
		dmabuf = syscall(SYS_pidfd_getfd, pidfd, child_fd, 0);
	ret = -errno;
	if (pidfd >= 0)
		close(pidfd);
	ASSERT_EQ(1, write(down[1], &go, 1));
	close(down[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the exporting child failed");
	ASSERT_LE(0, dmabuf) TH_LOG("pidfd_getfd of the child's dma-buf: %s",
				    strerror(-ret));

	ret = wddmseg_import_allocation(self->tfd, dmabuf, &ia);
	close(dmabuf);
	ASSERT_EQ(0, ret) TH_LOG("import after the exporter exited: %s",
				 strerror(-ret));
	b = create_visible(_metadata, self->tfd);
	ASSERT_EQ(0, wddmseg_copy(self->tfd, ia, 0, b, 0, SHARE_SIZE, NULL));
	ASSERT_EQ(0, wddmseg_wait(self->tfd, b, WAIT_NS));
	EXPECT_EQ(SHARE_SIZE / 4, mapped_words(self->tfd, b, MARKER));
	wddmseg_destroy_allocation(self->tfd, b);
	wddmseg_destroy_allocation(self->tfd, ia);
}

/*
 * Once the other device lets go, the allocation moves freely again (out
 * of its aperture into system memory here). The
 * import detaches when TTM destroys it, which it does for imported
 * objects from its delayed-destroy worker (6.12): a few tries, 10 ms
 * apart, up to 10 s.
 */
TEST_F(prime, detach_unpins)
{
	unsigned int tries = 0;
	uint32_t a, ia;
	int ret;

	if (SETUP_SKIPPED())
		return;
	a = create_shared(_metadata, self->res, self->rfd);
	fill_wait(_metadata, self->rfd, a, MARKER);
	ASSERT_EQ(0, share(self->rfd, a, self->tfd, &ia));
	EXPECT_EQ(-EBUSY, wddmseg_move(self->rfd, a, 0));
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->tfd, ia));
	while ((ret = gem_move_wait(self->rfd, a, 0)) == -EBUSY && ++tries < 1000)
		usleep(10000);
	EXPECT_EQ(0, ret) TH_LOG("out of the aperture after the import went: %s",
				 strerror(-ret));
	EXPECT_EQ(SHARE_SIZE / 4, mapped_words(self->rfd, a, MARKER));
	wddmseg_destroy_allocation(self->rfd, a);
}

/*
 * CrossAdapterResource without Texture: res imports tex's allocation and
 * maps it, but its engine does not touch it.
 */
TEST_F(prime, no_texture_no_engine)
{
	uint32_t a, ia, b;

	if (SETUP_SKIPPED())
		return;
	a = create_shared(_metadata, self->tex, self->tfd);
	fill_wait(_metadata, self->tfd, a, MARKER);
	ASSERT_EQ(0, share(self->tfd, a, self->rfd, &ia));
	EXPECT_EQ(SHARE_SIZE / 4, mapped_words(self->rfd, ia, MARKER));

	b = create_visible(_metadata, self->rfd);
	kmsg_drain_rules(self->kmsg);
	EXPECT_EQ(-EOPNOTSUPP,
		  wddmseg_copy(self->rfd, ia, 0, b, 0, SHARE_SIZE, NULL));
	EXPECT_RULE("cross-adapter-texture");
	EXPECT_EQ(-EOPNOTSUPP,
		  wddmseg_fill(self->rfd, ia, 0, SHARE_SIZE, 0, NULL));
	EXPECT_RULE("cross-adapter-texture");
	EXPECT_EQ(SHARE_SIZE / 4, mapped_words(self->tfd, a, MARKER))
		TH_LOG("a refused FILL changed the allocation");

	wddmseg_destroy_allocation(self->rfd, b);
	wddmseg_destroy_allocation(self->rfd, ia);
	wddmseg_destroy_allocation(self->tfd, a);
}

/*
 * An imported allocation lives in system memory only: no eviction to
 * order, so SET_ALLOCATION_PRIORITY refuses it (rule prio-import), all or
 * nothing with one of the importer's own allocations in the call; the
 * exporter's own allocation takes one.
 */
TEST_F(prime, no_priority_for_imports)
{
	uint32_t a, ia, b, h2[2];
	uint32_t hi = WDDMSEG_ALLOCATION_PRIORITY_HIGH;
	uint32_t pr2[2] = { hi, hi };

	if (SETUP_SKIPPED())
		return;
	a = create_shared(_metadata, self->res, self->rfd);
	ASSERT_EQ(0, share(self->rfd, a, self->tfd, &ia));
	b = create_visible(_metadata, self->tfd);
	kmsg_drain_rules(self->kmsg);
	EXPECT_EQ(-EINVAL, wddmseg_set_allocation_priority(self->tfd, &ia, 1, &hi));
	EXPECT_RULE("prio-import");
	h2[0] = b;
	h2[1] = ia;
	EXPECT_EQ(-EINVAL, wddmseg_set_allocation_priority(self->tfd, h2, 2, pr2));
	EXPECT_RULE("prio-import");
	EXPECT_EQ(WDDMSEG_ALLOCATION_PRIORITY_NORMAL, priority_of(self->tfd, b))
		TH_LOG("a refused call changed another allocation's priority");
	EXPECT_EQ(0, wddmseg_set_allocation_priority(self->rfd, &a, 1, &hi));
	EXPECT_EQ(hi, priority_of(self->rfd, a));

	wddmseg_destroy_allocation(self->tfd, b);
	wddmseg_destroy_allocation(self->tfd, ia);
	wddmseg_destroy_allocation(self->rfd, a);
}

/* An adapter without CrossAdapterResource neither imports nor exports. */
TEST_F(prime, no_resource_no_sharing)
{
	uint32_t a, n, ih;
	int ret;

	if (SETUP_SKIPPED())
		return;
	a = create_visible(_metadata, self->tfd);
	kmsg_drain_rules(self->kmsg);
	ret = share(self->tfd, a, self->nfd, &ih);
	EXPECT_EQ(-EOPNOTSUPP, ret) TH_LOG("import into %s: %s",
					   self->none->exp.bdf, strerror(-ret));
	EXPECT_RULE("prime-import");

	n = create_visible(_metadata, self->nfd);
	ret = share(self->nfd, n, self->tfd, &ih);
	EXPECT_EQ(-EOPNOTSUPP, ret) TH_LOG("export from %s: %s",
					   self->none->exp.bdf, strerror(-ret));
	EXPECT_RULE("prime-attach");
	/* the refused attach left it where it was */
	ret = wddmseg_allocation_segment(self->nfd, n);
	EXPECT_EQ(1, ret);

	wddmseg_destroy_allocation(self->nfd, n);
	wddmseg_destroy_allocation(self->tfd, a);
}

/*
 * Only a cross-adapter resource goes to another device: a plain
 * CpuVisible allocation in VRAM and a Cached one in an aperture export
 * (their dma-bufs serve their own device) but do not attach (rule
 * cross-adapter-attach) and stay where they were; GEM_INFO tells the
 * kinds apart.
 */
TEST_F(prime, only_cross_adapter_resources_attach)
{
	struct wddmseg_allocation_desc cached = {
		.size = SHARE_SIZE,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE | WDDMSEG_ALLOC_CACHED,
	};
	struct drm_wddmseg_gem_info info;
	uint32_t apt, v, c, x, ih;
	int ret;

	if (SETUP_SKIPPED())
		return;
	apt = first_aperture(self->res);
	ASSERT_NE(0u, apt) TH_LOG("%s has no aperture", self->res->exp.bdf);
	cached.supported_segments = WDDMSEG_SEGMENT_BIT(apt);
	cached.preferred[0] = apt;
	v = create_visible(_metadata, self->rfd);
	ASSERT_EQ(0, wddmseg_create_allocation(self->rfd, &cached, &c));
	x = create_shared(_metadata, self->res, self->rfd);

	ASSERT_EQ(0, wddmseg_query_allocation(self->rfd, v, &info));
	EXPECT_FALSE(info.state & WDDMSEG_STATE_CROSS_ADAPTER);
	ASSERT_EQ(0, wddmseg_query_allocation(self->rfd, x, &info));
	EXPECT_TRUE(info.state & WDDMSEG_STATE_CROSS_ADAPTER);

	kmsg_drain_rules(self->kmsg);
	ret = share(self->rfd, v, self->tfd, &ih);
	EXPECT_EQ(-EINVAL, ret) TH_LOG("CpuVisible in VRAM into %s: %s",
				       self->tex->exp.bdf, strerror(-ret));
	EXPECT_RULE("cross-adapter-attach");
	EXPECT_EQ(1, wddmseg_allocation_segment(self->rfd, v));
	ret = share(self->rfd, c, self->tfd, &ih);
	EXPECT_EQ(-EINVAL, ret) TH_LOG("Cached in segment %u into %s: %s", apt,
				       self->tex->exp.bdf, strerror(-ret));
	EXPECT_RULE("cross-adapter-attach");
	EXPECT_EQ((int)apt, wddmseg_allocation_segment(self->rfd, c));

	ret = share(self->rfd, x, self->tfd, &ih);
	EXPECT_EQ(0, ret) TH_LOG("the cross-adapter resource: %s", strerror(-ret));
	if (!ret)
		wddmseg_destroy_allocation(self->tfd, ih);
	wddmseg_destroy_allocation(self->rfd, x);
	wddmseg_destroy_allocation(self->rfd, c);
	wddmseg_destroy_allocation(self->rfd, v);
}

TEST_HARNESS_MAIN
