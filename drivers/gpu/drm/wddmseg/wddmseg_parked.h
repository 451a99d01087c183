/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: system pages parked for the next eviction, and the permanent copy of
 * PermanentSysMem allocations (wddmseg_parked.c).
 */
#ifndef WDDMSEG_PARKED_H
#define WDDMSEG_PARKED_H

#include <linux/types.h>

#include <drm/ttm/ttm_caching.h>

struct dma_fence;
struct page;
struct ttm_buffer_object;
struct ttm_operation_ctx;
struct wddmseg_bo;
struct wddmseg_device;
struct wddmseg_tt;

int wddmseg_parked_init(struct wddmseg_device *wdev);
void wddmseg_parked_fini(struct wddmseg_device *wdev);
void wddmseg_bo_free_parked(struct wddmseg_bo *bo);
bool wddmseg_park_pages(struct wddmseg_device *wdev, struct wddmseg_tt *wtt);
bool wddmseg_unpark_pages(struct wddmseg_device *wdev, struct wddmseg_tt *wtt);
void wddmseg_tt_set_park(struct ttm_buffer_object *tbo, bool park,
			 struct dma_fence *fence);

/**
 * struct wddmseg_perm_copy - the permanent copy of a PermanentSysMem
 *	allocation that is in a memory segment
 * @pages: its pages
 * @dma_address: their DMA addresses
 * @caching: their caching
 */
struct wddmseg_perm_copy {
	struct page **pages;
	dma_addr_t *dma_address;
	enum ttm_caching caching;
};

int wddmseg_perm_init(struct wddmseg_bo *bo);
int wddmseg_perm_get(struct wddmseg_bo *bo, struct ttm_operation_ctx *ctx,
		     struct wddmseg_perm_copy *copy);

#endif /* WDDMSEG_PARKED_H */
