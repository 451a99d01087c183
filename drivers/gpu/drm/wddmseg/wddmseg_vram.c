// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CPU's way to VRAM and apertures, without the copy engine:
 * CPU-visible VRAM through BAR2, the rest through the movable BAR4 window,
 * aperture page-table entries through the APT registers. The CPU-copy
 * fallback of wddmseg_migrate.c and access_memory use these.
 */

#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/mutex.h>

#include <drm/ttm/ttm_tt.h>

#include "wddmseg_device_types.h"
#include "wddmseg_mgr.h"
#include "wddmseg_migrate.h"
#include "wddmseg_vram.h"
#include "wddmseg_hw.h"

/**
 * wddmseg_vram_regs_lost - forget where the BAR4 window was moved
 * @wdev: device whose registers went back to their reset values (a resume
 *	from a power loss)
 *
 * The next access through the window writes WINDOW_BASE, whatever the
 * driver last wrote there: the device's reset put the window back at 0.
 */
void wddmseg_vram_regs_lost(struct wddmseg_device *wdev)
{
	mutex_lock(&wdev->window_lock);
	wdev->window_base = U64_MAX;
	mutex_unlock(&wdev->window_lock);
}

/*
 * Aperture page table: point the pages of @end, an aperture range, at
 * @ttm's, or without @ttm at the engine's dummy page, as the engine's
 * UnmapApertureSegment does (DXGKARG_BUILDPAGINGBUFFER's
 * DummyPageAddress): a range the driver unmapped reads as zeroes whoever
 * unmapped it, the CPU or the engine. Without a dummy page (the engine's
 * setup failed before it) the entries are 0, unmapped: the GPU faults
 * there.
 */
void wddmseg_vram_apt_update(struct wddmseg_device *wdev,
			     const struct wddmseg_move_end *end,
			     struct ttm_tt *ttm)
{
	struct ttm_resource *res = end->res;
	u32 id = end->segment_id;
	const u32 sub = PAGE_SIZE / WDDMSEG_HW_PAGE_SIZE;
	u64 dummy = wdev->engine.dummy ? wdev->engine.dummy_dma : 0;
	u64 hw_page = (u64)res->start * sub;
	bool lo_valid = false;
	u32 lo = 0;
	pgoff_t i;
	u32 j;

	/*
	 * The device latches ADDR_LO until the next write and enters the
	 * entry on the ADDR_HI write: ADDR_LO is written only when it
	 * changes (never while unmapping), one MMIO exit less per page.
	 */
	mutex_lock(&wdev->apt_lock);
	writel(id, wdev->mmio + WDDMSEG_REG_APT_SEGMENT);
	for (i = 0; i < wddmseg_mgr_res_pages(res); i++) {
		for (j = 0; j < sub; j++, hw_page++) {
			u64 addr = ttm ? ttm->dma_address[i] +
					 j * WDDMSEG_HW_PAGE_SIZE : dummy;

			writel(hw_page, wdev->mmio + WDDMSEG_REG_APT_PAGE);
			if (!lo_valid || lower_32_bits(addr) != lo) {
				lo = lower_32_bits(addr);
				writel(lo, wdev->mmio + WDDMSEG_REG_APT_ADDR_LO);
				lo_valid = true;
			}
			writel(upper_32_bits(addr),
			       wdev->mmio + WDDMSEG_REG_APT_ADDR_HI);
		}
	}
	mutex_unlock(&wdev->apt_lock);
}

/*
 * CPU access to @len bytes of VRAM at @vram_off, any alignment: BAR2 for
 * CPU-visible segments, the BAR4 window for the others (moved as often as
 * the range needs). @to_vram gives the direction.
 */
void wddmseg_vram_io(struct wddmseg_device *wdev, bool visible, u64 vram_off,
		     void *buf, size_t len, bool to_vram)
{
	void __iomem *p;
	size_t n;
	u64 base;

	if (visible) {
		p = wdev->vram_bar + vram_off;
		if (to_vram)
			memcpy_toio(p, buf, len);
		else
			memcpy_fromio(buf, p, len);
		return;
	}

	mutex_lock(&wdev->window_lock);
	while (len) {
		base = round_down(vram_off, WDDMSEG_WINDOW_SIZE);
		n = min_t(u64, len, base + WDDMSEG_WINDOW_SIZE - vram_off);
		if (base != wdev->window_base) {
			writel(lower_32_bits(base),
			       wdev->mmio + WDDMSEG_REG_WINDOW_BASE_LO);
			writel(upper_32_bits(base),
			       wdev->mmio + WDDMSEG_REG_WINDOW_BASE_HI);
			wdev->window_base = base;
		}
		p = wdev->window + (vram_off - base);
		if (to_vram)
			memcpy_toio(p, buf, n);
		else
			memcpy_fromio(buf, p, n);
		vram_off += n;
		buf += n;
		len -= n;
	}
	mutex_unlock(&wdev->window_lock);
}

/**
 * wddmseg_vram_page_io - copy page @i of one end of a move to or from @buf
 * @wdev: device
 * @end: the end (wddmseg_move_end_init())
 * @ttm: the ttm_tt whose pages back @end if it is not VRAM
 * @i: page index in @end
 * @buf: PAGE_SIZE bytes
 * @to_res: direction
 */
void wddmseg_vram_page_io(struct wddmseg_device *wdev,
			  const struct wddmseg_move_end *end, struct ttm_tt *ttm,
			  pgoff_t i, void *buf, bool to_res)
{
	struct wddmseg_mgr *mgr = end->mgr;
	void *vaddr;
	u64 run;

	if (end->kind != WDDMSEG_MEM_VRAM) {
		vaddr = kmap_local_page(ttm->pages[i]);
		if (to_res)
			memcpy(vaddr, buf, PAGE_SIZE);
		else
			memcpy(buf, vaddr, PAGE_SIZE);
		kunmap_local(vaddr);
		return;
	}

	wddmseg_vram_io(wdev, mgr->desc->flags & DXGK_SEGFLAG_CPU_VISIBLE,
			mgr->desc->base_address +
			(wddmseg_mgr_res_run(end->res, i, &run) << PAGE_SHIFT),
			buf, PAGE_SIZE, to_res);
}
