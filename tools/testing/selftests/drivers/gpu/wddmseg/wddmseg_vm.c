// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg GPU virtual address spaces (issue 26): VM_CREATE, VM_DESTROY
 * and VM_BIND, and blits by GPU virtual address, on the first device with
 * the default layout, whose layout reports VirtualAddressingSupported and
 * GpuMmuSupported (tools/vm/valid-layouts.txt): only such an adapter has
 * address spaces; on one without GpuMmuSupported VM_CREATE is refused
 * (rule vm-no-gpummu-cap).
 *
 * An address space's root page table is an allocation of the driver in
 * the device's page-table segment (QUERY_MMU pt_segment): its usage
 * (QUERY_SEGMENT usage_bytes and allocation_count) shows every root
 * table created and freed. Where the kernel has no drm_gpuvm (6.1) the
 * ioctls are refused with rule vm-no-gpuvm and the other tests skip with
 * that reason; on a device without a GPU MMU, with rule vm-no-mmu.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/sync_file.h>

#include "kselftest_harness.h"
#include "wddmseg_gem.h"

#define NR_SPACES	16

FIXTURE(vm) {
	struct gem_env env;
	struct gem_dev *def;
	int fd;
	struct drm_wddmseg_query_mmu mmu;
	char saved_debug[32];
	int kmsg;
};

/* usage_bytes and allocation_count of the page-table segment. */
static void pt_usage(struct __test_metadata *_metadata,
		     FIXTURE_DATA(vm) *self, uint64_t *bytes, uint64_t *count)
{
	struct drm_wddmseg_query_segment s;

	ASSERT_EQ(0, wddmseg_query_segment(self->fd, self->mmu.pt_segment,
					   NULL, 0, &s));
	*bytes = s.usage_bytes;
	*count = s.allocation_count;
}

/*
 * Wait (up to 10 s: a released allocation may wait for its Fill) until
 * the page-table segment's usage is back to @bytes / @count.
 */
static bool pt_usage_settles(struct __test_metadata *_metadata,
			     FIXTURE_DATA(vm) *self, uint64_t bytes,
			     uint64_t count)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	uint64_t b, c;
	int i;

	for (i = 0; i < 1000; i++) {
		pt_usage(_metadata, self, &b, &c);
		if (b == bytes && c == count)
			return true;
		nanosleep(&ts, NULL);
	}
	TH_LOG("page-table segment %u: %llu bytes in %llu allocations, want %llu in %llu",
	       self->mmu.pt_segment, (unsigned long long)b,
	       (unsigned long long)c, (unsigned long long)bytes,
	       (unsigned long long)count);
	return false;
}

/* The kernel has no drm_gpuvm: a module the driver would depend on. */
static bool kernel_without_gpuvm(void)
{
	return access("/sys/module/drm_gpuvm", F_OK) != 0;
}

FIXTURE_SETUP(vm)
{
	struct drm_wddmseg_vm_create c;
	int ret;

	self->fd = -1;
	self->kmsg = -1;
	self->saved_debug[0] = '\0';
	gem_env_load(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	self->def = gem_env_first(_metadata, &self->env);
	if (!self->def)
		return;
	if (!(self->def->exp.layout.caps & WDDMSEG_VIDMM_CAP_GPU_MMU_SUPPORTED))
		WSKIP(return, "rule vm-no-gpummu-cap: the layout of %s does not report GpuMmuSupported",
		      self->def->exp.bdf);
	self->fd = gem_open(_metadata, self->def->render);
	if (!drm_debug_raise(DRM_UT_DRIVER, self->saved_debug,
			     sizeof(self->saved_debug)))
		self->kmsg = kmsg_open_end();
	ASSERT_EQ(0, wddmseg_query_mmu(self->fd, &self->mmu));

	/* What the tests below need: an address space at all. */
	ret = wddmseg_create_gpu_va_space(self->fd, &c);
	if (ret == -EOPNOTSUPP && kernel_without_gpuvm())
		WSKIP(return, "rule vm-no-gpuvm: no drm_gpuvm in this kernel");
	if (ret == -EOPNOTSUPP && !(self->mmu.flags & WDDMSEG_MMU_PRESENT))
		WSKIP(return, "rule vm-no-mmu: %s has no GPU MMU",
		      self->def->exp.bdf);
	ASSERT_EQ(0, ret) TH_LOG("VM_CREATE: %s", strerror(-ret));
	ASSERT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, c.vm_id));
	kmsg_drain_rules(self->kmsg);
}

FIXTURE_TEARDOWN(vm)
{
	if (self->kmsg >= 0)
		close(self->kmsg);
	drm_debug_restore(self->saved_debug);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The range is the MMU's (VirtualAddressBitCount) but its first page;
 * each space has its own id and its own root page table of pt_size bytes
 * in the page-table segment, freed by VM_DESTROY; an id destroyed is
 * gone.
 */
TEST_F(vm, create_destroy)
{
	struct drm_wddmseg_vm_create c[NR_SPACES];
	uint64_t bytes0, count0, bytes, count;
	unsigned int i, j;

	if (SETUP_SKIPPED())
		return;
	pt_usage(_metadata, self, &bytes0, &count0);
	for (i = 0; i < NR_SPACES; i++) {
		ASSERT_EQ(0, wddmseg_create_gpu_va_space(self->fd, &c[i]));
		EXPECT_NE(0u, c[i].vm_id);
		EXPECT_EQ(SZ_4K, c[i].va_start);
		EXPECT_EQ(1ULL << self->mmu.va_bits, c[i].va_end);
		for (j = 0; j < i; j++)
			EXPECT_NE(c[j].vm_id, c[i].vm_id);
	}
	pt_usage(_metadata, self, &bytes, &count);
	EXPECT_EQ(bytes0 + NR_SPACES * (uint64_t)self->mmu.pt_size, bytes);
	EXPECT_EQ(count0 + NR_SPACES, count);

	for (i = 0; i < NR_SPACES; i++)
		EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, c[i].vm_id));
	EXPECT_TRUE(pt_usage_settles(_metadata, self, bytes0, count0));
	for (i = 0; i < NR_SPACES; i++)
		EXPECT_EQ(-ENOENT,
			  wddmseg_destroy_gpu_va_space(self->fd, c[i].vm_id));
	EXPECT_KMSG_RULE(self->kmsg, "vm-id");
}

/* Flags, outputs and reserved fields set on input: -EINVAL, by rule. */
TEST_F(vm, bad_arguments)
{
	struct drm_wddmseg_vm_create c;
	struct drm_wddmseg_vm_destroy d;
	uint64_t bytes0, count0;
	unsigned int i;

	if (SETUP_SKIPPED())
		return;
	pt_usage(_metadata, self, &bytes0, &count0);

	memset(&c, 0, sizeof(c));
	c.flags = 1;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_VM_CREATE,
					 &c));
	EXPECT_KMSG_RULE(self->kmsg, "vm-flags");
	memset(&c, 0, sizeof(c));
	c.flags = 1u << 31;
	EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd, DRM_IOCTL_WDDMSEG_VM_CREATE,
					 &c));
	EXPECT_KMSG_RULE(self->kmsg, "vm-flags");
	for (i = 0; i < 5; i++) {
		memset(&c, 0, sizeof(c));
		if (i == 0)
			c.vm_id = 1;
		else if (i == 1)
			c.va_start = SZ_4K;
		else if (i == 2)
			c.va_end = SZ_1M;
		else
			c.reserved[i - 3] = 1ULL << 63;
		EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd,
					DRM_IOCTL_WDDMSEG_VM_CREATE, &c))
			TH_LOG("field %u set", i);
		EXPECT_KMSG_RULE(self->kmsg, "vm-reserved");
	}

	ASSERT_EQ(0, wddmseg_create_gpu_va_space(self->fd, &c));
	for (i = 0; i < 3; i++) {
		memset(&d, 0, sizeof(d));
		d.vm_id = c.vm_id;
		if (i == 0)
			d.pad = 1;
		else
			d.reserved[i - 1] = 1;
		EXPECT_EQ(-EINVAL, wddmseg_ioctl(self->fd,
					DRM_IOCTL_WDDMSEG_VM_DESTROY, &d))
			TH_LOG("destroy field %u set", i);
		EXPECT_KMSG_RULE(self->kmsg, "vm-reserved");
	}
	EXPECT_EQ(-ENOENT, wddmseg_destroy_gpu_va_space(self->fd, 0));
	EXPECT_KMSG_RULE(self->kmsg, "vm-id");
	EXPECT_EQ(-ENOENT, wddmseg_destroy_gpu_va_space(self->fd,
							c.vm_id + 1000));
	EXPECT_KMSG_RULE(self->kmsg, "vm-id");
	/* The refused destroys left the space alone. */
	EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, c.vm_id));
	/* Nothing refused took page-table memory. */
	EXPECT_TRUE(pt_usage_settles(_metadata, self, bytes0, count0));
}

/* Ids name the spaces of their own file only. */
TEST_F(vm, per_file_ids)
{
	struct drm_wddmseg_vm_create c;
	int other;

	if (SETUP_SKIPPED())
		return;
	other = gem_open(_metadata, self->def->render);
	ASSERT_EQ(0, wddmseg_create_gpu_va_space(self->fd, &c));
	EXPECT_EQ(-ENOENT, wddmseg_destroy_gpu_va_space(other, c.vm_id));
	EXPECT_KMSG_RULE(self->kmsg, "vm-id");
	EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, c.vm_id));
	close(other);
}

/* A file closed with live address spaces leaves no page table behind. */
TEST_F(vm, close_frees_spaces)
{
	struct drm_wddmseg_vm_create c;
	uint64_t bytes0, count0, bytes, count;
	unsigned int i;
	int other;

	if (SETUP_SKIPPED())
		return;
	pt_usage(_metadata, self, &bytes0, &count0);
	other = gem_open(_metadata, self->def->render);
	for (i = 0; i < NR_SPACES; i++)
		ASSERT_EQ(0, wddmseg_create_gpu_va_space(other, &c));
	pt_usage(_metadata, self, &bytes, &count);
	EXPECT_EQ(count0 + NR_SPACES, count);
	close(other);
	EXPECT_TRUE(pt_usage_settles(_metadata, self, bytes0, count0));
}

/* ---------------------------------------------------------------- */
/* VM_BIND and blits by GPU virtual address (uapi version 9). */

#define VA_A		(16ULL * SZ_1M)		/* its own level-1 table */
#define VA_B		(1ULL << 32)		/* another root entry */
#define BIND_SIZE	(64 * SZ_4K)

static uint32_t vm_make(struct __test_metadata *_metadata, int fd,
			uint32_t seg, uint64_t size)
{
	uint32_t h;
	int ret = wddmseg_create_allocation_in(fd, size,
				WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND, seg, &h);

	ASSERT_EQ(0, ret) TH_LOG("create in %s: %s", seg_name(seg),
				 strerror(-ret));
	return h;
}

static uint32_t vm_new(struct __test_metadata *_metadata, int fd)
{
	struct drm_wddmseg_vm_create c;

	ASSERT_EQ(0, wddmseg_create_gpu_va_space(fd, &c));
	return c.vm_id;
}

/*
 * Wait for a sync_file and return its status: 1 signalled, a negative
 * errno for a fence signalled with an error, 0 still pending after 10 s.
 */
static int fence_status(int fence_fd)
{
	struct pollfd p = { .fd = fence_fd, .events = POLLIN };
	struct sync_file_info info;

	poll(&p, 1, 10000);
	memset(&info, 0, sizeof(info));
	if (ioctl(fence_fd, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	return info.status;
}

/* A fill by VA; its fence's status (fence_status()). */
static int gva_fill(int fd, uint32_t vm, uint64_t va, uint64_t size,
		    uint32_t pattern)
{
	int fence, ret;

	ret = wddmseg_fill_gpu_va(fd, vm, va, size, pattern, &fence);
	if (ret)
		return ret;
	ret = fence_status(fence);
	close(fence);
	return ret;
}

static int gva_copy(int fd, uint32_t vm, uint64_t src, uint64_t dst,
		    uint64_t size)
{
	int fence, ret;

	ret = wddmseg_copy_gpu_va(fd, vm, src, dst, size, &fence);
	if (ret)
		return ret;
	ret = fence_status(fence);
	close(fence);
	return ret;
}

/* Words of @h at [off, off + size) that are not @word (a CPU read). */
static uint64_t words_not(struct __test_metadata *_metadata, int fd,
			  uint32_t h, uint64_t bo_size, uint64_t off,
			  uint64_t size, uint32_t word)
{
	uint32_t *p = map_ok(_metadata, fd, h, bo_size);
	uint64_t i, bad = 0;

	for (i = off / 4; i < (off + size) / 4; i++)
		bad += p[i] != word;
	wddmseg_unlock(p, bo_size);
	return bad;
}

/*
 * In every placement (system memory, visible and invisible VRAM, the
 * aperture): a copy by VA between two mappings moves the bytes the
 * mappings name (offsets in the allocations included), as the CPU reads
 * them once unmapped, and GEM_WAIT on the destination waits for it.
 */
TEST_F(vm, bind_copy_every_placement)
{
	static const uint32_t segs[] = { 0, 1, 2, 3 };
	uint32_t vm, i;

	if (SETUP_SKIPPED())
		return;
	vm = vm_new(_metadata, self->fd);
	for (i = 0; i < ARRAY_SIZE(segs); i++) {
		uint32_t src_seg = segs[i], dst_seg = segs[(i + 1) % 4];
		uint32_t src = vm_make(_metadata, self->fd, src_seg, 2 * BIND_SIZE);
		uint32_t dst = vm_make(_metadata, self->fd, dst_seg, 2 * BIND_SIZE);
		uint32_t *got = malloc(BIND_SIZE), *s = malloc(2 * BIND_SIZE);
		uint64_t w, bad;

		ASSERT_EQ(0, gem_write_pattern(self->fd, src, 2 * BIND_SIZE, i + 1));
		/* src's second half at VA_A, dst's first half at VA_B. */
		ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_A, src,
						BIND_SIZE, BIND_SIZE, 0));
		ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_B, dst, 0,
						BIND_SIZE, 0));
		ASSERT_EQ(0, wddmseg_copy_gpu_va(self->fd, vm, VA_A + 8,
						 VA_B + 4, BIND_SIZE - 8, NULL));
		ASSERT_EQ(0, wddmseg_wait(self->fd, dst, 10000000000LL));
		ASSERT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_A, BIND_SIZE));
		ASSERT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_B, BIND_SIZE));

		ASSERT_EQ(0, gem_read_back(self->fd, src, 2 * BIND_SIZE, s));
		ASSERT_EQ(0, gem_read_back(self->fd, dst, BIND_SIZE, got));
		bad = 0;
		for (w = 1; w < BIND_SIZE / 4 - 1; w++)
			bad += got[w] != s[BIND_SIZE / 4 + 2 + (w - 1)];
		EXPECT_EQ(0u, bad) TH_LOG("%s -> %s: %llu words wrong",
					  seg_name(src_seg), seg_name(dst_seg),
					  (unsigned long long)bad);
		EXPECT_EQ(0u, got[0]);
		free(s);
		free(got);
		wddmseg_destroy_allocation(self->fd, src);
		wddmseg_destroy_allocation(self->fd, dst);
	}
	EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, vm));
}

/*
 * An address that is not mapped, or no longer: the blit's fence signals
 * -EFAULT, and the engine goes on: a blit queued behind it completes.
 */
TEST_F(vm, unmapped_faults_alone)
{
	uint32_t vm, bo, other;
	int fence, ret;

	if (SETUP_SKIPPED())
		return;
	vm = vm_new(_metadata, self->fd);
	bo = vm_make(_metadata, self->fd, 1, BIND_SIZE);
	other = vm_make(_metadata, self->fd, 1, BIND_SIZE);

	EXPECT_EQ(-EFAULT, gva_fill(self->fd, vm, VA_A, SZ_4K, 1));
	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_A, bo, 0, BIND_SIZE, 0));
	EXPECT_EQ(1, gva_fill(self->fd, vm, VA_A, BIND_SIZE, 0x11111111));
	ASSERT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_A, BIND_SIZE));

	/* The fault, then an ordinary fill queued right behind it. */
	ret = wddmseg_fill_gpu_va(self->fd, vm, VA_A, BIND_SIZE, 0x22222222,
				  &fence);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, wddmseg_fill(self->fd, other, 0, BIND_SIZE, 0x33333333, NULL));
	EXPECT_EQ(-EFAULT, fence_status(fence));
	close(fence);
	EXPECT_EQ(0, wddmseg_wait(self->fd, other, 10000000000LL));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, other, BIND_SIZE, 0,
				BIND_SIZE, 0x33333333));
	/* The unmapped allocation kept what it had. */
	EXPECT_EQ(0u, words_not(_metadata, self->fd, bo, BIND_SIZE, 0,
				BIND_SIZE, 0x11111111));
	/* A fault half-way: the pages before it are written. */
	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_A, bo, 0, SZ_4K, 0));
	EXPECT_EQ(-EFAULT, gva_fill(self->fd, vm, VA_A, 2 * SZ_4K,
				   0x44444444));
	ASSERT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_A, SZ_4K));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, bo, BIND_SIZE, 0, SZ_4K,
				0x44444444));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, bo, BIND_SIZE, SZ_4K,
				SZ_4K, 0x11111111));
	EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, vm));
}

/*
 * A mapping replaced by another at the same address: the device's TLB
 * still holds the old translations (a fill just used them) until the
 * bind flushes it; the next fill must reach the new allocation only.
 */
TEST_F(vm, rebind_flushes_tlb)
{
	uint32_t vm, a, b;

	if (SETUP_SKIPPED())
		return;
	vm = vm_new(_metadata, self->fd);
	a = vm_make(_metadata, self->fd, 1, BIND_SIZE);
	b = vm_make(_metadata, self->fd, 1, BIND_SIZE);
	ASSERT_EQ(0, wddmseg_fill(self->fd, a, 0, BIND_SIZE, 0xaaaaaaaa, NULL));
	ASSERT_EQ(0, wddmseg_fill(self->fd, b, 0, BIND_SIZE, 0xbbbbbbbb, NULL));

	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_A, a, 0, BIND_SIZE, 0));
	EXPECT_EQ(1, gva_fill(self->fd, vm, VA_A, BIND_SIZE, 0x0a0a0a0a));
	/* MAP over a mapping replaces it. */
	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_A, b, 0, BIND_SIZE, 0));
	EXPECT_EQ(1, gva_fill(self->fd, vm, VA_A, BIND_SIZE, 0x0b0b0b0b));
	ASSERT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_A, BIND_SIZE));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, a, BIND_SIZE, 0, BIND_SIZE,
				0x0a0a0a0a)) TH_LOG("the old allocation was written after its unmap");
	EXPECT_EQ(0u, words_not(_metadata, self->fd, b, BIND_SIZE, 0, BIND_SIZE,
				0x0b0b0b0b));
	EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, vm));
}

/*
 * An unmap through the middle of a mapping splits it: the pages on
 * either side stay mapped to the same bytes of the allocation, the hole
 * faults.
 */
TEST_F(vm, unmap_splits)
{
	uint32_t vm, bo;

	if (SETUP_SKIPPED())
		return;
	vm = vm_new(_metadata, self->fd);
	bo = vm_make(_metadata, self->fd, 2, 4 * SZ_4K);
	ASSERT_EQ(0, wddmseg_fill(self->fd, bo, 0, 4 * SZ_4K, 0, NULL));
	/* Pages 1..3 of the allocation at VA_A .. VA_A + 12K. */
	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_A, bo, SZ_4K,
					3 * SZ_4K, 0));
	ASSERT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_A + SZ_4K, SZ_4K));
	EXPECT_EQ(1, gva_fill(self->fd, vm, VA_A, SZ_4K, 0x01010101));
	EXPECT_EQ(-EFAULT, gva_fill(self->fd, vm, VA_A + SZ_4K, SZ_4K,
				   0x02020202));
	EXPECT_EQ(1, gva_fill(self->fd, vm, VA_A + 2 * SZ_4K, SZ_4K,
			     0x03030303));
	/* Unmapping nothing succeeds. */
	EXPECT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_A + SZ_4K, SZ_4K));
	EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, vm));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, bo, 4 * SZ_4K, 0, SZ_4K, 0));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, bo, 4 * SZ_4K, SZ_4K, SZ_4K,
				0x01010101));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, bo, 4 * SZ_4K, 2 * SZ_4K,
				SZ_4K, 0));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, bo, 4 * SZ_4K, 3 * SZ_4K,
				SZ_4K, 0x03030303));
}

/* A read-only mapping is read by the GPU and never written. */
TEST_F(vm, read_only)
{
	uint32_t vm, ro, rw;

	if (SETUP_SKIPPED())
		return;
	vm = vm_new(_metadata, self->fd);
	ro = vm_make(_metadata, self->fd, 1, BIND_SIZE);
	rw = vm_make(_metadata, self->fd, 0, BIND_SIZE);
	ASSERT_EQ(0, wddmseg_fill(self->fd, ro, 0, BIND_SIZE, 0x5a5a5a5a, NULL));
	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_A, ro, 0, BIND_SIZE,
					WDDMSEG_VM_BIND_READ_ONLY));
	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_B, rw, 0, BIND_SIZE, 0));
	EXPECT_EQ(-EFAULT, gva_fill(self->fd, vm, VA_A, SZ_4K, 0));
	EXPECT_EQ(1, gva_copy(self->fd, vm, VA_A, VA_B, BIND_SIZE));
	EXPECT_EQ(-EFAULT, gva_copy(self->fd, vm, VA_B, VA_A, SZ_4K));
	/* A split keeps read-only. */
	ASSERT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_A, SZ_4K));
	EXPECT_EQ(-EFAULT, gva_fill(self->fd, vm, VA_A + SZ_4K, SZ_4K, 0));
	EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, vm));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, ro, BIND_SIZE, 0, BIND_SIZE,
				0x5a5a5a5a));
	EXPECT_EQ(0u, words_not(_metadata, self->fd, rw, BIND_SIZE, 0, BIND_SIZE,
				0x5a5a5a5a));
}

/*
 * A mapped allocation stays where it is (GEM_EVICT: -EBUSY) and outlives
 * its handle; the unmap lets it go. Page tables come with mappings and
 * go with them; nothing is left once the space is destroyed.
 */
TEST_F(vm, pinned_and_tables_freed)
{
	uint64_t bytes0, count0, bytes, count;
	uint32_t vm, bo;

	if (SETUP_SKIPPED())
		return;
	vm = vm_new(_metadata, self->fd);
	pt_usage(_metadata, self, &bytes0, &count0);
	bo = vm_make(_metadata, self->fd, 1, BIND_SIZE);
	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_B, bo, 0, BIND_SIZE, 0));
	pt_usage(_metadata, self, &bytes, &count);
	/* One table of each level below the root. */
	EXPECT_EQ(count0 + self->mmu.levels - 1, count);
	EXPECT_EQ(-EBUSY, wddmseg_evict(self->fd, bo, 0));
	EXPECT_EQ(1u, seg_of(_metadata, self->fd, bo));
	/* The handle goes; the mapping keeps the allocation. */
	ASSERT_EQ(0, wddmseg_destroy_allocation(self->fd, bo));
	EXPECT_EQ(1, gva_fill(self->fd, vm, VA_B, BIND_SIZE, 7));
	ASSERT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_B, BIND_SIZE));
	EXPECT_TRUE(pt_usage_settles(_metadata, self, bytes0, count0));

	bo = vm_make(_metadata, self->fd, 1, BIND_SIZE);
	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_A, bo, 0, BIND_SIZE, 0));
	ASSERT_EQ(0, wddmseg_unmap_gpu_va(self->fd, vm, VA_A, BIND_SIZE));
	EXPECT_EQ(0, wddmseg_evict(self->fd, bo, 0));
	ASSERT_EQ(0, wddmseg_map_gpu_va(self->fd, vm, VA_A, bo, 0, BIND_SIZE, 0));
	EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, vm));
	EXPECT_EQ(0, wddmseg_evict(self->fd, bo, 0))
		TH_LOG("destroying the space left its allocation pinned");
}

/* A file closed with mappings leaves no page table and no pin behind. */
TEST_F(vm, close_with_mappings)
{
	uint64_t bytes0, count0;
	uint32_t vm, bo, keep;
	int other, dmabuf;

	if (SETUP_SKIPPED())
		return;
	pt_usage(_metadata, self, &bytes0, &count0);
	other = gem_open(_metadata, self->def->render);
	vm = vm_new(_metadata, other);
	bo = vm_make(_metadata, other, 1, BIND_SIZE);
	ASSERT_EQ(0, wddmseg_map_gpu_va(other, vm, VA_A, bo, 0, BIND_SIZE, 0));
	ASSERT_EQ(0, wddmseg_map_gpu_va(other, vm, VA_B, bo, 0, SZ_4K, 0));
	/* Keep the allocation alive past the close, to see it unpinned. */
	ASSERT_EQ(0, drmPrimeHandleToFD(other, bo, DRM_CLOEXEC, &dmabuf));
	close(other);
	EXPECT_TRUE(pt_usage_settles(_metadata, self, bytes0, count0));
	ASSERT_EQ(0, drmPrimeFDToHandle(self->fd, dmabuf, &keep));
	close(dmabuf);
	EXPECT_EQ(0, wddmseg_evict(self->fd, keep, 0))
		TH_LOG("closing the file left its mapped allocation pinned");
	(void)vm;
}

/* Malformed binds: -EINVAL or -ENOENT by rule, nothing mapped. */
TEST_F(vm, bind_refusals)
{
	struct drm_wddmseg_submit_blit f, g;
	struct drm_wddmseg_vm_bind ok, b;
	uint32_t vm, bo, prot, perm;
	unsigned int i;

	if (SETUP_SKIPPED())
		return;
	vm = vm_new(_metadata, self->fd);
	bo = vm_make(_metadata, self->fd, 1, BIND_SIZE);
	memset(&ok, 0, sizeof(ok));
	ok.vm_id = vm;
	ok.op = WDDMSEG_VM_BIND_OP_MAP;
	ok.handle = bo;
	ok.va = VA_A;
	ok.range = BIND_SIZE;

#define BIND_REFUSED(err, rule, ...) do {				\
		b = ok; __VA_ARGS__;					\
		EXPECT_EQ(err, wddmseg_ioctl(self->fd,			\
				DRM_IOCTL_WDDMSEG_VM_BIND, &b))		\
			TH_LOG("%s accepted", #__VA_ARGS__);		\
		if (rule)						\
			EXPECT_KMSG_RULE(self->kmsg, rule);		\
	} while (0)
	BIND_REFUSED(-EINVAL, "vm-bind-op", b.op = 2);
	BIND_REFUSED(-EINVAL, "vm-bind-flags", b.flags = 2);
	BIND_REFUSED(-EINVAL, "vm-bind-flags", b.op = WDDMSEG_VM_BIND_OP_UNMAP;
		     b.handle = 0; b.flags = WDDMSEG_VM_BIND_READ_ONLY);
	for (i = 0; i < 4; i++) {
		BIND_REFUSED(-EINVAL, "vm-bind-reserved", b.reserved[i] = 1);
	}
	BIND_REFUSED(-EINVAL, "vm-bind-reserved", b.op = WDDMSEG_VM_BIND_OP_UNMAP);
	BIND_REFUSED(-EINVAL, "vm-bind-align", b.va = VA_A + 8);
	BIND_REFUSED(-EINVAL, "vm-bind-align", b.range = 100);
	BIND_REFUSED(-EINVAL, "vm-bind-align", b.range = 0);
	BIND_REFUSED(-EINVAL, "vm-bind-align", b.bo_offset = 16);
	BIND_REFUSED(-EINVAL, "vm-bind-range", b.va = 0);
	BIND_REFUSED(-EINVAL, "vm-bind-range", b.va = (1ULL << self->mmu.va_bits) - SZ_4K);
	BIND_REFUSED(-EINVAL, "vm-bind-range", b.va = -(uint64_t)SZ_4K);
	BIND_REFUSED(-EINVAL, "vm-bind-range", b.bo_offset = SZ_4K);
	BIND_REFUSED(-EINVAL, "vm-bind-range", b.range = BIND_SIZE + SZ_4K);
	BIND_REFUSED(-ENOENT, "vm-id", b.vm_id = vm + 1000);
	BIND_REFUSED(-ENOENT, NULL, b.handle = 0xdead);
	/*
	 * A Protected allocation: a copy by VA would take its content into
	 * any other mapping, around the blits' rule protected-copy.
	 */
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, BIND_SIZE,
						  WDDMSEG_ALLOC_PROTECTED, 1,
						  &prot));
	BIND_REFUSED(-EOPNOTSUPP, "vm-bind-protected", b.handle = prot);
	/*
	 * PermanentSysMem: its content is the permanent system copy, which
	 * writes by VA to its current placement would not reach. (WDDM
	 * wants it CpuVisible.)
	 */
	ASSERT_EQ(0, wddmseg_create_allocation_in(self->fd, BIND_SIZE,
						  WDDMSEG_ALLOC_CPU_VISIBLE |
						  WDDMSEG_ALLOC_PERMANENT_SYSMEM,
						  1, &perm));
	BIND_REFUSED(-EOPNOTSUPP, "vm-bind-permanent", b.handle = perm);
#undef BIND_REFUSED
	/* Nothing got mapped. */
	EXPECT_EQ(-EFAULT, gva_fill(self->fd, vm, VA_A, SZ_4K, 0));

	/* Blits by VA: no handles, a known space, inside it. */
	memset(&f, 0, sizeof(f));
	f.op = WDDMSEG_BLIT_FILL;
	f.flags = WDDMSEG_BLIT_VIRTUAL;
	f.vm_id = vm;
	f.dst_offset = VA_A;
	f.size = SZ_4K;
	g = f; g.dst_handle = bo;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &g));
	EXPECT_KMSG_RULE(self->kmsg, "blit-va-handles");
	g = f; g.vm_id = vm + 1000;
	EXPECT_EQ(-ENOENT, wddmseg_submit_blit(self->fd, &g));
	EXPECT_KMSG_RULE(self->kmsg, "vm-id");
	g = f; g.dst_offset = 0;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &g));
	EXPECT_KMSG_RULE(self->kmsg, "blit-va-range");
	g = f; g.size = 256ULL * SZ_1M + 4;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &g));
	EXPECT_KMSG_RULE(self->kmsg, "blit-va-size");
	g = f; g.size = 6;
	EXPECT_EQ(-EINVAL, wddmseg_submit_blit(self->fd, &g));
	EXPECT_KMSG_RULE(self->kmsg, "blit-va-size");
	EXPECT_EQ(0, wddmseg_destroy_gpu_va_space(self->fd, vm));
}

/*
 * An adapter has GPU address spaces only when its layout reports
 * GpuMmuSupported: on a device with a GPU MMU whose layout does not (in
 * `make check`, the default layout of other sizes), VM_CREATE is refused
 * with rule vm-no-gpummu-cap. Skipped where the kernel has no drm_gpuvm
 * (no_gpuvm_refusal) or no such device is present.
 */
TEST(no_gpummu_cap_refusal)
{
	struct drm_wddmseg_query_mmu mmu;
	struct drm_wddmseg_vm_create c;
	struct gem_dev *d = NULL;
	char saved[32] = "";
	struct gem_env env;
	unsigned int i;
	int fd = -1, kmsg = -1;

	if (kernel_without_gpuvm())
		SKIP(return, "rule vm-no-gpuvm: no drm_gpuvm in this kernel");
	gem_env_load(_metadata, &env);
	if (SETUP_SKIPPED())
		return;
	for (i = 0; i < env.nr_devs && !d; i++) {
		if (env.dev[i].exp.layout.caps &
		    WDDMSEG_VIDMM_CAP_GPU_MMU_SUPPORTED)
			continue;
		fd = gem_open(_metadata, env.dev[i].render);
		ASSERT_EQ(0, wddmseg_query_mmu(fd, &mmu));
		if (mmu.flags & WDDMSEG_MMU_PRESENT)
			d = &env.dev[i];
		else
			close(fd);
	}
	if (!d)
		SKIP(return, "no device with a GPU MMU and a layout without GpuMmuSupported among %s",
		     gem_env_source(&env));
	if (!drm_debug_raise(DRM_UT_DRIVER, saved, sizeof(saved)))
		kmsg = kmsg_open_end();
	memset(&c, 0, sizeof(c));
	EXPECT_EQ(-EOPNOTSUPP, wddmseg_create_gpu_va_space(fd, &c))
		TH_LOG("%s: VM_CREATE without GpuMmuSupported", d->exp.bdf);
	EXPECT_KMSG_RULE(kmsg, "vm-no-gpummu-cap");
	EXPECT_EQ(0u, c.vm_id);
	/* no space, so nothing to bind or destroy */
	EXPECT_EQ(-ENOENT, wddmseg_destroy_gpu_va_space(fd, 1));
	EXPECT_KMSG_RULE(kmsg, "vm-id");
	if (kmsg >= 0)
		close(kmsg);
	drm_debug_restore(saved);
	close(fd);
}

/*
 * Where the kernel has no drm_gpuvm (6.1) both ioctls are refused with
 * rule vm-no-gpuvm; elsewhere this test has nothing to check and skips.
 * A test of its own: the fixture above skips on such a kernel.
 */
TEST(no_gpuvm_refusal)
{
	struct drm_wddmseg_vm_create c;
	char saved[32] = "";
	struct gem_env env;
	struct gem_dev *d;
	int fd, kmsg = -1;

	if (!kernel_without_gpuvm())
		SKIP(return, "this kernel has drm_gpuvm");
	gem_env_load(_metadata, &env);
	if (SETUP_SKIPPED())
		return;
	d = gem_env_first(_metadata, &env);
	if (!d)
		return;
	fd = gem_open(_metadata, d->render);
	if (!drm_debug_raise(DRM_UT_DRIVER, saved, sizeof(saved)))
		kmsg = kmsg_open_end();
	EXPECT_EQ(-EOPNOTSUPP, wddmseg_create_gpu_va_space(fd, &c));
	EXPECT_KMSG_RULE(kmsg, "vm-no-gpuvm");
	EXPECT_EQ(-EOPNOTSUPP, wddmseg_destroy_gpu_va_space(fd, 1));
	EXPECT_KMSG_RULE(kmsg, "vm-no-gpuvm");
	EXPECT_EQ(-EOPNOTSUPP, wddmseg_unmap_gpu_va(fd, 1, SZ_1M, SZ_4K));
	EXPECT_KMSG_RULE(kmsg, "vm-no-gpuvm");
	EXPECT_EQ(-EOPNOTSUPP, wddmseg_fill_gpu_va(fd, 1, SZ_1M, SZ_4K, 0, NULL));
	EXPECT_KMSG_RULE(kmsg, "vm-no-gpuvm");
	if (kmsg >= 0)
		close(kmsg);
	drm_debug_restore(saved);
	close(fd);
}

TEST_HARNESS_MAIN
