// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg query ioctls, checked against the segment layouts the VM
 * harness gave the emulated devices.
 *
 * The harness writes one line per wddmseg PCI device into the file named
 * by $WDDMSEG_EXPECT (default /etc/wddmseg/expect):
 *
 *   <pci-bdf> vram=<size> bar2=<size> layout=<layout-string>
 *
 * The program skips (exit 4) when that file does not exist, and every test
 * fails when a listed device has no DRM node (the driver did not probe it).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "wddmseg_gem.h"

#define SENTINEL		0x5a5a5a5a5a5a5a5aULL
#define NR_NODES		2	/* primary, render */
#define DEBUGFS_DIR		"/sys/kernel/debug"

struct wdev {
	struct expect_dev exp;
	char node[NR_NODES][GEM_NODE_LEN]; /* /dev/dri/cardN, renderDN */
	int fd[NR_NODES];
	int minor;			/* N of cardN */
	uint64_t bar2_start;		/* bus address of BAR2 */
};

FIXTURE(query) {
	struct gem_env env;
	unsigned int nr_devs;
	struct wdev dev[GEM_MAX_DEVS];
};

#define for_each_dev(self, d) \
	for ((d) = (self)->dev; (d) < (self)->dev + (self)->nr_devs; (d)++)

/* First field of line @index of /sys/bus/pci/devices/<bdf>/resource. */
static int read_bar_start(const char *bdf, unsigned int index, uint64_t *start)
{
	char path[PATH_MAX], line[256];
	unsigned int i = 0;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", bdf);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (i++ == index) {
			*start = strtoull(line, NULL, 16);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

GEM_SKIP_WITHOUT_DEVICE();

FIXTURE_SETUP(query)
{
	unsigned int i, n;

	for (i = 0; i < GEM_MAX_DEVS; i++)
		self->dev[i].fd[0] = self->dev[i].fd[1] = -1;

	gem_env_load(_metadata, &self->env);
	if (SETUP_SKIPPED())
		return;
	self->nr_devs = self->env.nr_devs;
	for (i = 0; i < self->nr_devs; i++) {
		const struct gem_dev *g = &self->env.dev[i];
		struct wdev *d = &self->dev[i];
		const char *minor = strrchr(g->card, 'd');	/* "...cardN" */

		d->exp = g->exp;
		snprintf(d->node[0], sizeof(d->node[0]), "%s", g->card);
		snprintf(d->node[1], sizeof(d->node[1]), "%s", g->render);
		d->minor = minor ? atoi(minor + 1) : -1;
		for (n = 0; n < NR_NODES; n++)
			d->fd[n] = gem_open(_metadata, d->node[n]);
		ASSERT_EQ(0, read_bar_start(d->exp.bdf, 2, &d->bar2_start))
			TH_LOG("%s: cannot read BAR2 address", d->exp.bdf);
	}
}

FIXTURE_TEARDOWN(query)
{
	unsigned int i, n;

	for (i = 0; i < GEM_MAX_DEVS; i++)
		for (n = 0; n < NR_NODES; n++)
			if (self->dev[i].fd[n] >= 0)
				close(self->dev[i].fd[n]);
}

/*
 * Whether a translating IOMMU isolates the device: it is in an IOMMU group
 * whose default domain translates (type DMA or DMA-FQ, not identity).
 */
static bool iommu_isolated(const char *bdf)
{
	char path[PATH_MAX], type[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path),
		 "/sys/bus/pci/devices/%.32s/iommu_group/type", bdf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, type, sizeof(type) - 1);
	close(fd);
	if (n <= 0)
		return false;
	type[strcspn(type, "\n")] = '\0';
	return !strcmp(type, "DMA") || !strcmp(type, "DMA-FQ");
}

/* The kernel has drm_gpuvm, which GPU address spaces are built on (not 6.1). */
static bool kernel_has_gpuvm(void)
{
	return access("/sys/module/drm_gpuvm", F_OK) == 0;
}

/*
 * The DXGK_VIDMMCAPS bits the driver honours (wddmseg_caps_honoured()):
 * CrossAdapterResource (bit 4) and CrossAdapterResourceTexture (bit 15),
 * PRIME with other devices (wddmseg_prime); IoMmuSecureModeSupported
 * (bit 11) and IoMmuSecureModeRequired (bit 13) behind a translating
 * IOMMU; DisableSelfRefreshVRAMInS3 (bit 12) and AlwaysPoweredVRAM
 * (bit 17), which decide what a suspend evicts; VirtualAddressingSupported
 * (bit 5) and GpuMmuSupported (bit 6), the GPU address spaces
 * (wddmseg_vm), where the kernel has drm_gpuvm; nothing else
 * (CrossAdapterResourceScanout and IoMmuSupported included).
 */
static uint32_t caps_honoured(uint32_t caps, bool isolated)
{
	uint32_t honoured = WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE |
			    WDDMSEG_VIDMM_CAP_CROSS_ADAPTER_RESOURCE_TEXTURE |
			    WDDMSEG_VIDMM_CAP_DISABLE_SELF_REFRESH_VRAM_IN_S3 |
			    WDDMSEG_VIDMM_CAP_ALWAYS_POWERED_VRAM;

	if (isolated)
		honoured |= WDDMSEG_VIDMM_CAP_IO_MMU_SECURE_MODE_SUPPORTED |
			    WDDMSEG_VIDMM_CAP_IO_MMU_SECURE_MODE_REQUIRED;
	if (kernel_has_gpuvm())
		honoured |= WDDMSEG_VIDMM_CAP_VIRTUAL_ADDRESSING_SUPPORTED |
			    WDDMSEG_VIDMM_CAP_GPU_MMU_SUPPORTED;
	return caps & honoured;
}

/* QUERY_ADAPTER with @a exactly as given (non-zero input included). */
static int query_adapter_raw(int fd, struct drm_wddmseg_query_adapter *a)
{
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_QUERY_ADAPTER, a);
}

static void fill_sentinel(uint64_t *banks, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		banks[i] = SENTINEL;
}

static bool has_banks(const struct layout_seg *ls)
{
	return ls->nb_banks > 0 && ls->nb_banks <= WDDMSEG_MAX_BANKS;
}

/* The driver's nodes answer to the name "wddmseg" and have the right type. */
TEST_F(query, drm_nodes)
{
	struct wdev *d;
	unsigned int n;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		for (n = 0; n < NR_NODES; n++) {
			drmVersionPtr v = drmGetVersion(d->fd[n]);

			EXPECT_NE(NULL, v) TH_LOG("%s %s: drmGetVersion failed",
						  d->exp.bdf, d->node[n]);
			if (!v)
				continue;
			EXPECT_STREQ("wddmseg", v->name)
				TH_LOG("%s %s: driver name", d->exp.bdf,
				       d->node[n]);
			drmFreeVersion(v);
			EXPECT_EQ(n ? DRM_NODE_RENDER : DRM_NODE_PRIMARY,
				  drmGetNodeTypeFromFd(d->fd[n]))
				TH_LOG("%s %s: node type", d->exp.bdf,
				       d->node[n]);
		}
	}
}

TEST_F(query, query_adapter)
{
	struct drm_wddmseg_query_adapter a;
	const struct layout *l;
	struct wdev *d;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		l = &d->exp.layout;
		memset(&a, 0, sizeof(a));
		ret = wddmseg_query_adapter(d->fd[0], &a);
		EXPECT_EQ(0, ret) TH_LOG("%s %s: QUERY_ADAPTER: %s",
					 d->exp.bdf, d->node[0],
					 strerror(-ret));
		if (ret)
			continue;
		EXPECT_EQ((__u32)WDDMSEG_UAPI_VERSION, a.uapi_version)
			TH_LOG("%s: uapi_version", d->exp.bdf);
		EXPECT_EQ(l->caps, a.device_vidmm_caps)
			TH_LOG("%s: device_vidmm_caps", d->exp.bdf);
		/* Only capabilities with behaviour are reported. */
		EXPECT_EQ(caps_honoured(l->caps, iommu_isolated(d->exp.bdf)),
			  a.vidmm_caps)
			TH_LOG("%s: vidmm_caps 0x%x of device caps 0x%x",
			       d->exp.bdf, a.vidmm_caps, l->caps);
		EXPECT_EQ(l->node, a.paging_node)
			TH_LOG("%s: paging_node", d->exp.bdf);
		EXPECT_EQ(l->nr_segs, a.segment_count)
			TH_LOG("%s: segment_count", d->exp.bdf);
		EXPECT_EQ(1u, a.num_engines)
			TH_LOG("%s: num_engines", d->exp.bdf);
		EXPECT_EQ(d->exp.vram, a.vram_size)
			TH_LOG("%s: vram_size", d->exp.bdf);
		EXPECT_EQ(d->exp.bar2, a.cpu_visible_size)
			TH_LOG("%s: cpu_visible_size", d->exp.bdf);
	}
}

/* Every descriptor and its bank table as the layout gave them. */
TEST_F(query, query_segment)
{
	uint64_t banks[WDDMSEG_MAX_BANKS + 1];
	struct drm_wddmseg_query_segment s;
	const struct layout_seg *ls;
	unsigned int i, j, copied;
	struct wdev *d;
	uint64_t cpu;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		for (i = 0; i < d->exp.layout.nr_segs; i++) {
			ls = &d->exp.layout.seg[i];
			fill_sentinel(banks, WDDMSEG_MAX_BANKS + 1);
			ret = wddmseg_query_segment(d->fd[0], i + 1, banks,
					    WDDMSEG_MAX_BANKS, &s);
			EXPECT_EQ(0, ret)
				TH_LOG("%s segment %u: QUERY_SEGMENT: %s",
				       d->exp.bdf, i + 1, strerror(-ret));
			if (ret)
				continue;
			EXPECT_EQ(i + 1, s.segment_id)
				TH_LOG("%s segment %u: segment_id changed",
				       d->exp.bdf, i + 1);
			EXPECT_EQ(ls->base, s.base_address)
				TH_LOG("%s segment %u: base_address",
				       d->exp.bdf, i + 1);
			cpu = ls->has_cpu ? d->bar2_start + ls->cpu_offset : 0;
			EXPECT_EQ(cpu, s.cpu_translated_address)
				TH_LOG("%s segment %u: cpu_translated_address (BAR2 at 0x%" PRIx64 ")",
				       d->exp.bdf, i + 1, d->bar2_start);
			EXPECT_EQ(ls->size, s.size)
				TH_LOG("%s segment %u: size", d->exp.bdf, i + 1);
			EXPECT_EQ(ls->commit, s.commit_limit)
				TH_LOG("%s segment %u: commit_limit",
				       d->exp.bdf, i + 1);
			EXPECT_EQ(ls->flags, s.flags)
				TH_LOG("%s segment %u: flags", d->exp.bdf,
				       i + 1);
			EXPECT_EQ(ls->nb_banks, s.nb_banks)
				TH_LOG("%s segment %u: nb_banks", d->exp.bdf,
				       i + 1);
			copied = ls->nb_banks < WDDMSEG_MAX_BANKS ?
				 ls->nb_banks : WDDMSEG_MAX_BANKS;
			for (j = 0; j < copied; j++) {
				EXPECT_EQ(layout_bank_end(ls, j), banks[j])
					TH_LOG("%s segment %u: bank %u end",
					       d->exp.bdf, i + 1, j);
			}
			for (j = copied; j < WDDMSEG_MAX_BANKS + 1; j++) {
				EXPECT_EQ(SENTINEL, banks[j])
					TH_LOG("%s segment %u: bank slot %u written beyond nb_banks",
					       d->exp.bdf, i + 1, j);
			}
		}
	}
}

/* The render node answers exactly like the primary node. */
TEST_F(query, render_node_same)
{
	uint64_t banks[NR_NODES][WDDMSEG_MAX_BANKS];
	struct drm_wddmseg_query_segment s[NR_NODES];
	struct drm_wddmseg_query_adapter a[NR_NODES];
	unsigned int i, n;
	struct wdev *d;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		for (n = 0; n < NR_NODES; n++) {
			memset(&a[n], 0, sizeof(a[n]));
			ret = wddmseg_query_adapter(d->fd[n], &a[n]);
			ASSERT_EQ(0, ret) TH_LOG("%s %s: QUERY_ADAPTER: %s",
						 d->exp.bdf, d->node[n],
						 strerror(-ret));
		}
		EXPECT_EQ(0, memcmp(&a[0], &a[1], sizeof(a[0])))
			TH_LOG("%s: QUERY_ADAPTER differs between %s and %s",
			       d->exp.bdf, d->node[0], d->node[1]);

		for (i = 1; i <= a[0].segment_count; i++) {
			for (n = 0; n < NR_NODES; n++) {
				fill_sentinel(banks[n], WDDMSEG_MAX_BANKS);
				ret = wddmseg_query_segment(d->fd[n], i, banks[n],
						    WDDMSEG_MAX_BANKS, &s[n]);
				ASSERT_EQ(0, ret)
					TH_LOG("%s %s segment %u: QUERY_SEGMENT: %s",
					       d->exp.bdf, d->node[n], i,
					       strerror(-ret));
				s[n].banks_ptr = 0;
			}
			EXPECT_EQ(0, memcmp(&s[0], &s[1], sizeof(s[0])))
				TH_LOG("%s segment %u: QUERY_SEGMENT differs between %s and %s",
				       d->exp.bdf, i, d->node[0], d->node[1]);
			EXPECT_EQ(0, memcmp(banks[0], banks[1], sizeof(banks[0])))
				TH_LOG("%s segment %u: bank table differs between %s and %s",
				       d->exp.bdf, i, d->node[0], d->node[1]);
		}
	}
}

/* Capacity 0 with a NULL pointer: the count alone, on every segment. */
TEST_F(query, bank_capacity_zero)
{
	struct drm_wddmseg_query_segment s;
	unsigned int i, n;
	struct wdev *d;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		for (i = 0; i < d->exp.layout.nr_segs; i++) {
			for (n = 0; n < NR_NODES; n++) {
				ret = wddmseg_query_segment(d->fd[n], i + 1, NULL, 0, &s);
				EXPECT_EQ(0, ret)
					TH_LOG("%s %s segment %u: capacity 0, banks_ptr 0: %s",
					       d->exp.bdf, d->node[n], i + 1,
					       strerror(-ret));
				if (ret)
					continue;
				EXPECT_EQ(d->exp.layout.seg[i].nb_banks, s.nb_banks)
					TH_LOG("%s %s segment %u: nb_banks with capacity 0",
					       d->exp.bdf, d->node[n], i + 1);
			}
		}
	}
}

/*
 * A capacity below nb_banks copies exactly that many entries and still
 * reports the full count; a capacity above it copies nb_banks entries.
 */
TEST_F(query, bank_capacity_short)
{
	uint64_t banks[WDDMSEG_MAX_BANKS + 2];
	struct drm_wddmseg_query_segment s;
	const struct layout_seg *ls;
	unsigned int i, j, cap, copied;
	unsigned int checked = 0;
	struct wdev *d;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		for (i = 0; i < d->exp.layout.nr_segs; i++) {
			ls = &d->exp.layout.seg[i];
			if (!has_banks(ls))
				continue;
			checked++;
			for (cap = 0; cap <= ls->nb_banks + 1; cap++) {
				fill_sentinel(banks, WDDMSEG_MAX_BANKS + 2);
				ret = wddmseg_query_segment(d->fd[0], i + 1, banks, cap,
						    &s);
				EXPECT_EQ(0, ret)
					TH_LOG("%s segment %u capacity %u: %s",
					       d->exp.bdf, i + 1, cap,
					       strerror(-ret));
				if (ret)
					continue;
				EXPECT_EQ(ls->nb_banks, s.nb_banks)
					TH_LOG("%s segment %u capacity %u: nb_banks",
					       d->exp.bdf, i + 1, cap);
				copied = cap < ls->nb_banks ? cap : ls->nb_banks;
				for (j = 0; j < copied; j++) {
					EXPECT_EQ(layout_bank_end(ls, j), banks[j])
						TH_LOG("%s segment %u capacity %u: bank %u end",
						       d->exp.bdf, i + 1, cap, j);
				}
				for (j = copied; j < WDDMSEG_MAX_BANKS + 2; j++) {
					EXPECT_EQ(SENTINEL, banks[j])
						TH_LOG("%s segment %u capacity %u: entry %u written",
						       d->exp.bdf, i + 1, cap, j);
				}
			}
		}
	}
	if (!checked)
		WSKIP(return, "no segment with banks in %s", gem_env_source(&self->env));
}

TEST_F(query, bad_segment_id)
{
	struct drm_wddmseg_query_segment s;
	uint32_t ids[3];
	unsigned int i, n;
	struct wdev *d;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		ids[0] = 0;
		ids[1] = d->exp.layout.nr_segs + 1;
		ids[2] = 0xffffffff;
		for (n = 0; n < NR_NODES; n++) {
			for (i = 0; i < 3; i++) {
				ret = wddmseg_query_segment(d->fd[n], ids[i], NULL, 0, &s);
				EXPECT_EQ(-EINVAL, ret)
					TH_LOG("%s %s: segment_id %u accepted or wrong error",
					       d->exp.bdf, d->node[n], ids[i]);
			}
		}
	}
}

TEST_F(query, adapter_reserved)
{
	static const __u64 values[] = { 1, 1ULL << 63 };
	struct drm_wddmseg_query_adapter a;
	unsigned int i, v;
	struct wdev *d;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		for (i = 0; i < ARRAY_SIZE(a.reserved); i++) {
			for (v = 0; v < 2; v++) {
				memset(&a, 0, sizeof(a));
				a.reserved[i] = values[v];
				ret = query_adapter_raw(d->fd[0], &a);
				EXPECT_EQ(-EINVAL, ret)
					TH_LOG("%s: QUERY_ADAPTER with reserved[%u] = 0x%llx",
					       d->exp.bdf, i,
					       (unsigned long long)values[v]);
			}
		}
		memset(&a, 0, sizeof(a));
		EXPECT_EQ(0, wddmseg_query_adapter(d->fd[0], &a))
			TH_LOG("%s: zeroed QUERY_ADAPTER after refusals",
			       d->exp.bdf);
	}
}

/*
 * The segment a device 1.9 puts its page tables in by default: the first
 * memory segment without CpuVisible, else the first memory segment; 0
 * when the layout has none (then the device reports no MMU).
 */
static unsigned int mmu_pt_segment(const struct layout *l)
{
	unsigned int i, first = 0;

	for (i = 0; i < l->nr_segs; i++) {
		if (l->seg[i].flags & WDDMSEG_SEGMENT_FLAG_APERTURE)
			continue;
		if (!(l->seg[i].flags & WDDMSEG_SEGMENT_FLAG_CPU_VISIBLE))
			return i + 1;
		if (!first)
			first = i + 1;
	}
	return first;
}

/* QUERY_MMU reports the GPU MMU of a device 1.9, consistently. */
TEST_F(query, query_mmu)
{
	const uint32_t va = WDDMSEG_VIDMM_CAP_VIRTUAL_ADDRESSING_SUPPORTED |
			    WDDMSEG_VIDMM_CAP_GPU_MMU_SUPPORTED;
	struct drm_wddmseg_query_adapter a;
	struct drm_wddmseg_query_mmu m, zero;
	unsigned int l, bits, pt_seg;
	struct wdev *d;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	memset(&zero, 0, sizeof(zero));
	for_each_dev(self, d) {
		memset(&a, 0, sizeof(a));
		ASSERT_EQ(0, wddmseg_query_adapter(d->fd[0], &a));
		ret = wddmseg_query_mmu(d->fd[0], &m);
		EXPECT_EQ(0, ret) TH_LOG("%s: QUERY_MMU: %s", d->exp.bdf,
					 strerror(-ret));
		if (ret)
			continue;
		pt_seg = mmu_pt_segment(&d->exp.layout);
		if ((a.hw_version & 0xffff) < 9 || !pt_seg) {
			EXPECT_EQ(0, memcmp(&m, &zero, sizeof(m)))
				TH_LOG("%s: device %#x without an MMU reports one",
				       d->exp.bdf, a.hw_version);
			continue;
		}
		EXPECT_TRUE(m.flags & WDDMSEG_MMU_PRESENT)
			TH_LOG("%s: flags %#x", d->exp.bdf, m.flags);
		EXPECT_EQ(0u, m.flags & ~(WDDMSEG_MMU_PRESENT |
					  WDDMSEG_MMU_GPU_PHYSICAL))
			TH_LOG("%s: unknown flags %#x", d->exp.bdf, m.flags);
		EXPECT_EQ(pt_seg, m.pt_segment)
			TH_LOG("%s: page tables in segment %u", d->exp.bdf,
			       m.pt_segment);
		ASSERT_GE(m.levels, 1u);
		ASSERT_LE(m.levels, (__u32)WDDMSEG_MMU_MAX_LEVELS);
		/* The levels' index bits and the 4 KiB page make the VA. */
		bits = 12;
		for (l = 0; l < WDDMSEG_MMU_MAX_LEVELS; l++) {
			if (l < m.levels) {
				EXPECT_GE(m.level_bits[l], 1u)
					TH_LOG("%s: level %u", d->exp.bdf, l);
				EXPECT_LE(8ull << m.level_bits[l],
					  (unsigned long long)m.pt_size)
					TH_LOG("%s: level %u: %u bits in a %u-byte table",
					       d->exp.bdf, l, m.level_bits[l],
					       m.pt_size);
				bits += m.level_bits[l];
			} else {
				EXPECT_EQ(0u, m.level_bits[l])
					TH_LOG("%s: level %u beyond %u", d->exp.bdf,
					       l, m.levels);
			}
		}
		EXPECT_EQ(bits, m.va_bits)
			TH_LOG("%s: va_bits", d->exp.bdf);
		EXPECT_GE(m.pt_align, 4096u);
		EXPECT_EQ(0u, m.pt_align & (m.pt_align - 1));
		EXPECT_GE(m.contexts, 1u);
		EXPECT_GE(m.tlb_entries, 1u);
		/*
		 * GPU virtual addressing is reported exactly when the layout
		 * asks for it and the kernel has drm_gpuvm.
		 */
		EXPECT_EQ(kernel_has_gpuvm() ? d->exp.layout.caps & va : 0u,
			  a.vidmm_caps & va)
			TH_LOG("%s: vidmm_caps %#x of device caps %#x",
			       d->exp.bdf, a.vidmm_caps, d->exp.layout.caps);
	}
}

/* Every field of QUERY_MMU is an output: non-zero input is refused. */
TEST_F(query, query_mmu_reserved)
{
	struct drm_wddmseg_query_mmu m;
	unsigned int i;
	struct wdev *d;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		for (i = 0; i < ARRAY_SIZE(m.reserved); i++) {
			memset(&m, 0, sizeof(m));
			m.reserved[i] = 1ULL << 63;
			EXPECT_EQ(-EINVAL, wddmseg_ioctl(d->fd[0],
						DRM_IOCTL_WDDMSEG_QUERY_MMU, &m))
				TH_LOG("%s: reserved[%u] set", d->exp.bdf, i);
		}
		memset(&m, 0, sizeof(m));
		m.flags = WDDMSEG_MMU_PRESENT;
		EXPECT_EQ(-EINVAL, wddmseg_ioctl(d->fd[0],
					DRM_IOCTL_WDDMSEG_QUERY_MMU, &m))
			TH_LOG("%s: flags set on input", d->exp.bdf);
		memset(&m, 0, sizeof(m));
		EXPECT_EQ(0, wddmseg_ioctl(d->fd[0],
					   DRM_IOCTL_WDDMSEG_QUERY_MMU, &m))
			TH_LOG("%s: zeroed QUERY_MMU after refusals",
			       d->exp.bdf);
	}
}

TEST_F(query, segment_reserved)
{
	static const __u64 values[] = { 1, 1ULL << 63 };
	struct drm_wddmseg_query_segment s;
	unsigned int i, v;
	struct wdev *d;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		if (!d->exp.layout.nr_segs)
			continue;
		for (i = 0; i < ARRAY_SIZE(s.reserved); i++) {
			for (v = 0; v < 2; v++) {
				memset(&s, 0, sizeof(s));
				s.segment_id = 1;
				s.reserved[i] = values[v];
				ret = wddmseg_ioctl(d->fd[0], DRM_IOCTL_WDDMSEG_QUERY_SEGMENT, &s);
				EXPECT_EQ(-EINVAL, ret)
					TH_LOG("%s segment 1: QUERY_SEGMENT with reserved[%u] = 0x%llx",
					       d->exp.bdf, i,
					       (unsigned long long)values[v]);
			}
		}
		EXPECT_EQ(0, wddmseg_query_segment(d->fd[0], 1, NULL, 0, &s))
			TH_LOG("%s segment 1: clean QUERY_SEGMENT after refusals",
			       d->exp.bdf);
	}
}

/* QUERY_ADAPTER is output only: any non-zero field on input is refused. */
TEST_F(query, adapter_output_fields)
{
#define FIELD(f) { #f, offsetof(struct drm_wddmseg_query_adapter, f), \
		   sizeof(((struct drm_wddmseg_query_adapter *)0)->f) }
	static const struct {
		const char *name;
		size_t offset, size;
	} fields[] = {
		FIELD(uapi_version),
		FIELD(hw_version),
		FIELD(vidmm_caps),
		FIELD(device_vidmm_caps),
		FIELD(pad),
		FIELD(paging_node),
		FIELD(segment_count),
		FIELD(num_engines),
		FIELD(vram_size),
		FIELD(cpu_visible_size),
	};
#undef FIELD
	struct drm_wddmseg_query_adapter a;
	unsigned int i;
	struct wdev *d;
	__u32 v32;
	__u64 v64;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	for_each_dev(self, d) {
		for (i = 0; i < ARRAY_SIZE(fields); i++) {
			memset(&a, 0, sizeof(a));
			if (fields[i].size == sizeof(v32)) {
				v32 = 1;
				memcpy((char *)&a + fields[i].offset, &v32,
				       sizeof(v32));
			} else {
				v64 = 1ULL << 40;
				memcpy((char *)&a + fields[i].offset, &v64,
				       sizeof(v64));
			}
			ret = query_adapter_raw(d->fd[0], &a);
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s: QUERY_ADAPTER with %s non-zero on input",
				       d->exp.bdf, fields[i].name);
		}
	}
}

/* Bank tables copied to memory that cannot be written fail with EFAULT. */
TEST_F(query, banks_efault)
{
	struct drm_wddmseg_query_segment s;
	const struct layout_seg *ls;
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i, checked = 0;
	uint64_t *tail;
	struct wdev *d;
	char *map;
	int ret;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	/* page 0 read-write, page 1 read-only, page 2 inaccessible */
	map = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_READ));
	ASSERT_EQ(0, mprotect(map + 2 * page, page, PROT_NONE));
	tail = (uint64_t *)(map + page) - 1;

	for_each_dev(self, d) {
		for (i = 0; i < d->exp.layout.nr_segs; i++) {
			ls = &d->exp.layout.seg[i];
			if (!has_banks(ls))
				continue;
			checked++;
			ret = wddmseg_query_segment(d->fd[0], i + 1,
					    (uint64_t *)(map + 2 * page),
					    ls->nb_banks, &s);
			EXPECT_EQ(-EFAULT, ret)
				TH_LOG("%s segment %u: banks_ptr to a PROT_NONE page",
				       d->exp.bdf, i + 1);
			ret = wddmseg_query_segment(d->fd[0], i + 1,
					    (uint64_t *)(map + page),
					    ls->nb_banks, &s);
			EXPECT_EQ(-EFAULT, ret)
				TH_LOG("%s segment %u: banks_ptr to a read-only page",
				       d->exp.bdf, i + 1);
			ret = wddmseg_query_segment(d->fd[0], i + 1, NULL,
					    ls->nb_banks, &s);
			EXPECT_EQ(-EFAULT, ret)
				TH_LOG("%s segment %u: banks_ptr 0 with capacity %u",
				       d->exp.bdf, i + 1, ls->nb_banks);
			if (ls->nb_banks < 2)
				continue;
			/* first entry writable, the rest on the read-only page */
			ret = wddmseg_query_segment(d->fd[0], i + 1, tail,
					    ls->nb_banks, &s);
			EXPECT_EQ(-EFAULT, ret)
				TH_LOG("%s segment %u: bank table crossing into a read-only page",
				       d->exp.bdf, i + 1);
		}
	}
	munmap(map, 3 * page);
	if (!checked)
		WSKIP(return, "no segment with banks in %s", gem_env_source(&self->env));
}

/* Mount debugfs if needed. Returns false when it is not available. */
static bool debugfs_ready(void)
{
	struct statfs sfs;

	if (!statfs(DEBUGFS_DIR, &sfs) && sfs.f_type == DEBUGFS_MAGIC)
		return true;
	if (mount("debugfs", DEBUGFS_DIR, "debugfs", 0, NULL))
		return false;
	return !statfs(DEBUGFS_DIR, &sfs) && sfs.f_type == DEBUGFS_MAGIC;
}

static FILE *open_debugfs_segments(const struct wdev *d, char *path,
				   size_t len)
{
	FILE *f;

	snprintf(path, len, DEBUGFS_DIR "/dri/%d/segments", d->minor);
	f = fopen(path, "re");
	if (f)
		return f;
	/* newer kernels also name the directory after the device */
	snprintf(path, len, DEBUGFS_DIR "/dri/%.*s/segments",
		 EXPECT_BDF_LEN - 1, d->exp.bdf);
	f = fopen(path, "re");
	if (f)
		return f;
	snprintf(path, len, DEBUGFS_DIR "/dri/%d/segments", d->minor);
	return NULL;
}

/*
 * One device's debugfs table. Out of line: inlined into the harness's
 * setjmp() caller its locals would trip -Wclobbered.
 */
static __attribute__((noinline)) void
check_debugfs_segments(struct __test_metadata *_metadata, const struct wdev *d)
{
	const struct layout *l = &d->exp.layout;
	unsigned int seen[LAYOUT_MAX_SEGS + 1] = { 0 };
	char path[PATH_MAX];
	unsigned int i, id;
	char *line = NULL;
	size_t cap = 0;
	uint64_t size;
	FILE *f;
	int ret;

	f = open_debugfs_segments(d, path, sizeof(path));
	EXPECT_NE(NULL, f) TH_LOG("%s: cannot open %s: %s", d->exp.bdf, path,
				  strerror(errno));
	if (!f)
		return;
	while (getline(&line, &cap, f) != -1) {
		line[strcspn(line, "\n")] = '\0';
		ret = debugfs_parse_segment_line(line, &id, &size);
		EXPECT_NE(-1, ret) TH_LOG("%s %s: no size=0x<hex> in '%s'",
					  d->exp.bdf, path, line);
		if (ret != 1)
			continue;
		EXPECT_TRUE(id >= 1 && id <= l->nr_segs)
			TH_LOG("%s %s: unknown segment id in '%s'",
			       d->exp.bdf, path, line);
		if (id < 1 || id > l->nr_segs)
			continue;
		seen[id]++;
		EXPECT_EQ(l->seg[id - 1].size, size)
			TH_LOG("%s %s segment %u: size in '%s'", d->exp.bdf,
			       path, id, line);
	}
	free(line);
	fclose(f);
	for (i = 1; i <= l->nr_segs; i++) {
		EXPECT_EQ(1u, seen[i])
			TH_LOG("%s %s segment %u: lines found for it",
			       d->exp.bdf, path, i);
	}
}

TEST_F(query, debugfs_segments)
{
	struct wdev *d;

	if (SETUP_SKIPPED())	/* setup skipped; old harnesses still run us */
		return;
	if (!debugfs_ready())
		WSKIP(return, "debugfs is not available at " DEBUGFS_DIR);
	for_each_dev(self, d)
		check_debugfs_segments(_metadata, d);
}

TEST_HARNESS_MAIN
