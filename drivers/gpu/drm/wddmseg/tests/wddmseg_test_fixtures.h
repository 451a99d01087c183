/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fixtures shared by the KUnit suites (wddmseg_test_fixtures.c): one
 * segment descriptor and the base adapter the suites mutate.
 */

#ifndef WDDMSEG_TEST_FIXTURES_H
#define WDDMSEG_TEST_FIXTURES_H

#include <linux/types.h>

struct wddmseg_adapter_desc;
struct wddmseg_segment_desc;

/* Bus address of BAR2 in the test adapters: any page-aligned address. */
#define TEST_BAR	0xe0000000ULL
/* Where the test adapters put apertures: above VRAM. */
#define TEST_APT	0x100000000ULL

void wddmseg_test_seg(struct wddmseg_segment_desc *s, u64 base, u64 cpu,
		      u64 size, u64 commit, u32 flags);
void wddmseg_test_adapter(struct wddmseg_adapter_desc *d);

#endif
