/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the TTM device and its callbacks (wddmseg_ttm.c).
 */
#ifndef WDDMSEG_TTM_H
#define WDDMSEG_TTM_H

#include <drm/ttm/ttm_caching.h>
#include <drm/ttm/ttm_tt.h>

struct dma_fence;
struct page;
struct wddmseg_bo;
struct wddmseg_device;

/**
 * struct wddmseg_tt - system pages of an allocation
 * @ttm: the TTM page array (and DMA addresses)
 * @user_pages: ExistingSysMem: the user pages pinned at creation, else NULL
 * @bo: the allocation it was created for
 * @park: set only around the TTM cleanup that frees this ttm_tt because
 *	the allocation moved into VRAM (wddmseg_move_sync_cleanup()), which
 *	asserts it clear before: unpopulate then parks the pages (and their
 *	arrays) for @bo. A flag because TTM's unpopulate callback has no
 *	other channel for the move's intent
 * @park_fence: the copy that still reads the pages while they are parked,
 *	or NULL; nobody frees them before it signals
 */
struct wddmseg_tt {
	struct ttm_tt ttm;
	struct page **user_pages;
	struct wddmseg_bo *bo;
	bool park;
	struct dma_fence *park_fence;
};

static inline struct wddmseg_tt *to_wddmseg_tt(struct ttm_tt *tt)
{
	return container_of(tt, struct wddmseg_tt, ttm);
}

int wddmseg_ttm_init(struct wddmseg_device *wdev);
void wddmseg_ttm_fini(struct wddmseg_device *wdev);
enum ttm_caching wddmseg_bo_caching(const struct wddmseg_bo *bo);

#endif /* WDDMSEG_TTM_H */
