// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg GPU virtual address spaces (issue 26): VM_CREATE and
 * VM_DESTROY on the first device with the default layout.
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
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	if (kmsg >= 0)
		close(kmsg);
	drm_debug_restore(saved);
	close(fd);
}

TEST_HARNESS_MAIN
