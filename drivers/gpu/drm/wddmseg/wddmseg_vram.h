/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: CPU access to VRAM and the aperture page tables (wddmseg_vram.c).
 */
#ifndef WDDMSEG_VRAM_H
#define WDDMSEG_VRAM_H

#include <linux/types.h>

struct ttm_tt;
struct wddmseg_device;
struct wddmseg_move_end;

void wddmseg_vram_regs_lost(struct wddmseg_device *wdev);
void wddmseg_vram_apt_update(struct wddmseg_device *wdev,
			     const struct wddmseg_move_end *end,
			     struct ttm_tt *ttm);
void wddmseg_vram_io(struct wddmseg_device *wdev, bool visible, u64 vram_off,
		     void *buf, size_t len, bool to_vram);
void wddmseg_vram_page_io(struct wddmseg_device *wdev,
			  const struct wddmseg_move_end *end, struct ttm_tt *ttm,
			  pgoff_t i, void *buf, bool to_res);

#endif /* WDDMSEG_VRAM_H */
