/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the TTM resource manager of a segment (wddmseg_mgr.c).
 */
#ifndef WDDMSEG_MGR_H
#define WDDMSEG_MGR_H

#include <linux/types.h>

#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

struct drm_mm_node;
struct wddmseg_device;
struct wddmseg_mgr;

int wddmseg_mgr_init(struct wddmseg_device *wdev, u32 segment_id);
void wddmseg_mgr_fini(struct wddmseg_device *wdev, u32 segment_id);
u32 wddmseg_mem_type_segment(struct wddmseg_device *wdev, u32 mem_type);
u32 wddmseg_res_segment(struct wddmseg_device *wdev,
			const struct ttm_resource *res);
struct wddmseg_mgr *wddmseg_mgr_res(struct wddmseg_device *wdev,
				    const struct ttm_resource *res);
u64 wddmseg_mgr_res_pages(struct ttm_resource *res);
struct ttm_resource *wddmseg_mgr_node_res(struct drm_mm_node *node);
bool wddmseg_mgr_node_is_first(const struct drm_mm_node *node);
bool wddmseg_mgr_res_contiguous(const struct ttm_resource *res);
u64 wddmseg_mgr_res_run(const struct ttm_resource *res, u64 page, u64 *run);
bool wddmseg_mgr_res_is_aperture(struct wddmseg_device *wdev,
				 const struct ttm_resource *res);
bool wddmseg_mgr_res_zeroed(const struct ttm_resource *res);
void wddmseg_mgr_res_set_zero_content(struct ttm_resource *res);
bool wddmseg_mgr_res_zero_content(const struct ttm_resource *res);
void wddmseg_mgr_res_wiped(struct ttm_resource *res);
void wddmseg_mgr_set_zeroed(struct wddmseg_mgr *mgr, bool zeroed);
void wddmseg_mgr_forget_zeroed(struct wddmseg_device *wdev);
void wddmseg_mgr_drop_signaled_move(struct ttm_resource_manager *man);

/*
 * The TTM memory type of a buffer object's resource. Since 6.3 ("drm/ttm:
 * stop allocating dummy resources during BO creation", and the same for
 * pipeline gutting, i.e. a discard) TTM leaves a buffer without one, NULL;
 * 6.1 gave it a placeholder in system memory. Either way it holds no
 * content: it reads as zeroes, like unpopulated system pages, and that is
 * what NULL stands for in this driver.
 */
static inline u32 wddmseg_res_mem_type(const struct ttm_resource *res)
{
	return res ? res->mem_type : TTM_PL_SYSTEM;
}

#endif /* WDDMSEG_MGR_H */
