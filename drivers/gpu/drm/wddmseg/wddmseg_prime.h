/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: dma-buf export and import (wddmseg_prime.c).
 */
#ifndef WDDMSEG_PRIME_H
#define WDDMSEG_PRIME_H

#include <linux/types.h>

struct dma_buf;
struct dma_buf_attachment;
struct drm_device;
struct drm_gem_object;
struct sg_table;

struct dma_buf *wddmseg_gem_prime_export(struct drm_gem_object *obj,
					 int flags);
struct drm_gem_object *wddmseg_gem_prime_import(struct drm_device *drm,
						struct dma_buf *dma_buf);
struct sg_table *wddmseg_gem_prime_get_sg_table(struct drm_gem_object *obj);
struct drm_gem_object *
wddmseg_gem_prime_import_sg_table(struct drm_device *drm,
				  struct dma_buf_attachment *attach,
				  struct sg_table *sgt);
int wddmseg_prime_check_engine(struct drm_gem_object *obj);

#endif /* WDDMSEG_PRIME_H */
