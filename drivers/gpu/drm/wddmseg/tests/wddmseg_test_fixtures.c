// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fixtures shared by the KUnit suites: each suite starts from the same
 * valid adapter and states how its own differs.
 */

#include <linux/sizes.h>
#include <linux/string.h>

#include "../wddmseg_drv.h"
#include "../wddmseg_hw.h"
#include "wddmseg_test_fixtures.h"

/**
 * wddmseg_test_seg - fill in one segment descriptor
 * @s: descriptor, cleared first
 * @base: BaseAddress (GPU address of the segment's start)
 * @cpu: CpuTranslatedAddress, 0 for none
 * @size: Size in bytes
 * @commit: CommitLimit in bytes
 * @flags: DXGK_SEGFLAG_* bits
 */
void wddmseg_test_seg(struct wddmseg_segment_desc *s, u64 base, u64 cpu,
		      u64 size, u64 commit, u32 flags)
{
	memset(s, 0, sizeof(*s));
	s->base_address = base;
	s->cpu_translated_address = cpu;
	s->size = size;
	s->commit_limit = commit;
	s->flags = flags;
}

/**
 * wddmseg_test_adapter - the base adapter of the KUnit suites
 * @d: descriptor, cleared first
 *
 * 2 MiB of VRAM, a 1 MiB BAR2, one engine, the current device version:
 *   1: VRAM [0, 1M), CPU-visible through BAR2 at offset 0
 *   2: VRAM [1M, 2M), invisible
 *   3: aperture of 1 MiB at 4 GiB, cache coherent
 * wddmseg_desc_validate() accepts it.
 */
void wddmseg_test_adapter(struct wddmseg_adapter_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->hw_version = WDDMSEG_VERSION_CURRENT;
	d->num_engines = 1;
	d->vram_size = SZ_2M;
	d->bar_start = TEST_BAR;
	d->bar_size = SZ_1M;
	d->segment_count = 3;
	wddmseg_test_seg(&d->seg[0], 0, TEST_BAR, SZ_1M, SZ_1M,
			 DXGK_SEGFLAG_CPU_VISIBLE);
	wddmseg_test_seg(&d->seg[1], SZ_1M, 0, SZ_1M, SZ_1M, 0);
	wddmseg_test_seg(&d->seg[2], TEST_APT, 0, SZ_1M, SZ_1M,
			 DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_CACHE_COHERENT);
}
