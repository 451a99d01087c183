/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the one way into the copy engine, with the CPU fallback
 * (wddmseg_migrate.c).
 */
#ifndef WDDMSEG_MIGRATE_H
#define WDDMSEG_MIGRATE_H

#include <linux/types.h>

struct dma_fence;
struct drm_gem_object;
struct drm_wddmseg_submit_blit;
struct ttm_buffer_object;
struct ttm_operation_ctx;
struct ttm_resource;
struct wddmseg_device;
struct wddmseg_mgr;

bool wddmseg_migrate_uses_engine(struct wddmseg_device *wdev);
int wddmseg_migrate_move(struct wddmseg_device *wdev,
			 struct ttm_buffer_object *tbo,
			 struct ttm_resource *new_mem, bool clear, u32 crypt,
			 u64 nonce, struct dma_fence **fence);
struct dma_fence *wddmseg_migrate_discard(struct wddmseg_device *wdev,
					  struct wddmseg_mgr *mgr,
					  struct ttm_resource *res);
struct dma_fence *wddmseg_migrate_clear(struct wddmseg_device *wdev,
					struct wddmseg_mgr *mgr,
					struct ttm_resource *res,
					const char *what);
struct dma_fence *wddmseg_migrate_clear_segment(struct wddmseg_device *wdev,
						struct wddmseg_mgr *mgr);
int wddmseg_migrate_access(struct wddmseg_device *wdev,
			   struct ttm_buffer_object *tbo,
			   struct wddmseg_mgr *mgr, u64 gpu_addr, void *buf,
			   int len, bool write);
struct dma_fence *wddmseg_migrate_blit(struct wddmseg_device *wdev,
				       const struct drm_wddmseg_submit_blit *a,
				       struct drm_gem_object *src,
				       struct drm_gem_object *dst);
struct dma_fence *wddmseg_migrate_flush_aperture(struct wddmseg_device *wdev,
						 struct ttm_buffer_object *tbo);
struct dma_fence *wddmseg_migrate_perm_sync(struct wddmseg_device *wdev,
					    struct ttm_buffer_object *tbo,
					    const dma_addr_t *dma_address,
					    u64 off, u64 len, bool to_vram);
int wddmseg_migrate_cpu_copy(struct wddmseg_device *wdev,
			     struct ttm_buffer_object *tbo,
			     struct ttm_resource *new_mem,
			     struct ttm_operation_ctx *ctx);

#endif /* WDDMSEG_MIGRATE_H */
